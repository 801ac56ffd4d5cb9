//! The data an algorithm works on, with caches shared across runs.

use crate::error::{Error, Result};
use crate::kernel::stack::KernelStack;
use ndarray::{Array2, ArrayRef2, ArrayView2};
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A row-major n × p matrix that a [`Problem`] reads without owning its
/// buffer: an `Arc<Array2>` shared with a loaded dataset, or memory kept
/// alive by some other owner (a NumPy array held by the Python binding).
/// It dereferences to ndarray's `ArrayRef2`, so `x.view()`, `x.row(i)`,
/// `x.slice(…)` and `x.nrows()` work as on an array; the views borrow
/// from the `Rows`, never past its owner.
pub struct Rows {
    // Points into `_owner`'s buffer, which does not move while `_owner`
    // lives; never handed out with its 'static lifetime.
    view: ArrayView2<'static, f64>,
    _owner: Arc<dyn Any + Send + Sync>,
}

impl Rows {
    /// Rows on a shared array (copied once into row-major order if it is
    /// not already).
    pub fn shared(x: Arc<Array2<f64>>) -> Self {
        let x = if x.is_standard_layout() {
            x
        } else {
            Arc::new(x.as_standard_layout().into_owned())
        };
        // SAFETY: the array's buffer is owned by the Arc kept in `_owner`;
        // an Arc's contents never move, and nothing mutates them while
        // shared.
        let view = unsafe { ArrayView2::from_shape_ptr(x.dim(), x.as_ptr()) };
        Rows { view, _owner: x }
    }

    /// Rows on `n × p` row-major `f64`s at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    /// `ptr` must point to `n·p` initialised, aligned `f64`s in row-major
    /// order that stay valid and unmodified for as long as `owner` lives.
    pub unsafe fn borrowed(
        owner: Arc<dyn Any + Send + Sync>,
        ptr: *const f64,
        n: usize,
        p: usize,
    ) -> Self {
        // SAFETY: as the caller promises.
        let view = unsafe { ArrayView2::from_shape_ptr((n, p), ptr) };
        Rows {
            view,
            _owner: owner,
        }
    }
}

impl std::ops::Deref for Rows {
    type Target = ArrayRef2<f64>;
    fn deref(&self) -> &ArrayRef2<f64> {
        &self.view
    }
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rows({} × {})", self.nrows(), self.ncols())
    }
}

/// Scaled data plus whatever is expensive to derive from it (squared row
/// norms now; Gram matrices and feature maps, keyed by their parameters).
/// A cached item is built once and reused by every restart and every later
/// run on the same problem, so moving s₀ or η never rebuilds it.
pub struct Problem {
    /// n × p, row-major. Shared, so a loaded dataset and its problem hold
    /// one copy of the matrix, and a caller's buffer (a NumPy array) is
    /// read in place.
    pub x: Rows,
    pub x_norms: Vec<f64>,
    /// Precomputed kernels, for a dataset that holds kernels instead of
    /// features (`x` is then n × 0).
    pub kernels: Option<Arc<KernelStack>>,
    /// The rows in f32 with their norms, when the solvers read f32
    /// ([`Problem::use_f32`]).
    single: Option<(Array2<f32>, Vec<f64>)>,
    cache: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
    /// Items built so far (cache misses): how a sweep shows that cells
    /// sharing a Gram matrix did not each build one.
    builds: AtomicUsize,
}

impl Problem {
    pub fn new(x: Array2<f64>) -> Self {
        Self::from_shared(Arc::new(x))
    }

    /// A problem on a matrix shared with its owner (no copy, unless the
    /// matrix is not row-major).
    pub fn from_shared(x: Arc<Array2<f64>>) -> Self {
        Self::from_rows(Rows::shared(x))
    }

    /// A problem on rows held elsewhere ([`Rows::borrowed`]).
    pub fn from_rows(x: Rows) -> Self {
        let x_norms = crate::linalg::row_sq_norms(x.view());
        Problem {
            x,
            x_norms,
            kernels: None,
            single: None,
            cache: Mutex::new(HashMap::new()),
            builds: AtomicUsize::new(0),
        }
    }

    /// Makes the row-reading solvers (k-means, power k-means, k-harmonic
    /// means) read f32 rows: an f32 copy of `x` and its squared norms.
    pub fn use_f32(&mut self) {
        let x32 = self.x.mapv(|v| v as f32);
        let norms = super::rows::Rows::F32(x32.view()).sq_norms();
        self.single = Some((x32, norms));
    }

    /// The float type the row-reading solvers use.
    pub fn dtype(&self) -> crate::data::Dtype {
        if self.single.is_some() {
            crate::data::Dtype::F32
        } else {
            crate::data::Dtype::F64
        }
    }

    /// The rows the row-reading solvers iterate over, f64 or f32, and
    /// their squared norms.
    pub fn rows(&self) -> (super::rows::Rows<'_>, &[f64]) {
        match &self.single {
            Some((x32, norms)) => (super::rows::Rows::F32(x32.view()), norms),
            None => (super::rows::Rows::F64(self.x.view()), &self.x_norms),
        }
    }

    /// A problem on precomputed kernels alone: n rows, no features.
    pub fn from_kernels(stack: Arc<KernelStack>) -> Self {
        let mut p = Self::new(Array2::zeros((stack.n(), 0)));
        p.kernels = Some(stack);
        p
    }

    /// Whether the problem holds precomputed kernels and no features.
    pub fn kernels_only(&self) -> bool {
        self.kernels.is_some() && self.p() == 0
    }

    /// Refuses a kernels-only problem for an algorithm that needs
    /// features (`takes` lists those that do not).
    ///
    /// # Errors
    /// [`Error::Param`], one line.
    pub fn require_features(&self, algo: &str, takes: &str) -> Result<()> {
        if self.kernels_only() {
            return Err(Error::Param(format!(
                "{algo} needs features; this file holds precomputed kernels — use {takes}"
            )));
        }
        Ok(())
    }

    pub fn n(&self) -> usize {
        self.x.nrows()
    }

    pub fn p(&self) -> usize {
        self.x.ncols()
    }

    /// The item cached under `key`, built by `build` on first use. Callers
    /// racing for the same key wait for one build rather than doing it twice.
    ///
    /// # Errors
    /// What `build` fails with (nothing is cached then).
    pub fn cached<T: Any + Send + Sync>(
        &self,
        key: &str,
        build: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(key)
            && let Ok(t) = hit.clone().downcast::<T>()
        {
            return Ok(t);
        }
        let built = Arc::new(build()?);
        self.builds.fetch_add(1, Ordering::Relaxed);
        cache.insert(key.to_string(), built.clone());
        Ok(built)
    }

    /// How many cached items were built on this problem so far.
    pub fn builds(&self) -> usize {
        self.builds.load(Ordering::Relaxed)
    }

    /// Whether `key` is cached (for the UI: "kernel reused").
    pub fn is_cached(&self, key: &str) -> bool {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(key)
    }

    /// Drops the cached items of a family (keys starting with `family`)
    /// other than those in `keep`: a session that moves σ around holds one
    /// set of Gram matrices or feature maps, not one per value tried.
    pub fn retain_family(&self, family: &str, keep: &[String]) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|k, _| !k.starts_with(family) || keep.contains(k));
    }

    /// The keys cached now.
    pub fn cache_keys(&self) -> Vec<String> {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Drops every cached item: when the user cancels a run, what it
    /// built (a feature map of gigabytes) goes then, not at the next run.
    pub fn clear_cache(&self) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
