//! The data an algorithm works on, with caches shared across runs.

use super::cache::{Cache, CacheKey};
use super::matrix::Matrix;
use super::space::gram::KernelStack;
use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2, CowArray, Ix2};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What keeps a borrowed buffer alive (a NumPy array, a shared matrix):
/// held only to be dropped after the view on it, never read.
pub trait Owner: Send + Sync {}

impl<T: Send + Sync + ?Sized> Owner for T {}

/// The n × p rows of a [`Problem`], held once in the run's float type
/// (f64, or f32 for `--dtype f32`) and read without owning the buffer: a
/// [`Matrix`] shared with a loaded dataset, or memory kept alive by some
/// other owner (a NumPy array held by the Python binding). There is no
/// f64 copy of f32 rows: code that needs f64 widens per block
/// ([`super::rows::Rows::block_in`]) or, where not yet blockwise, for one
/// call ([`Features::f64`]).
pub struct Features {
    // Points into `_owner`'s buffer, which does not move while `_owner`
    // lives; never handed out with its 'static lifetime.
    view: super::rows::Rows<'static>,
    _owner: Arc<dyn Owner>,
}

impl Features {
    /// Rows on a shared matrix (copied once into row-major order if it is
    /// not already).
    pub fn shared(x: Matrix) -> Self {
        // SAFETY: the array's buffer is owned by the Arc kept in `_owner`;
        // an Arc's contents never move, and nothing mutates them while
        // shared.
        match x.standard() {
            Matrix::F64(x) => {
                let view = unsafe { ArrayView2::from_shape_ptr(x.dim(), x.as_ptr()) };
                Features {
                    view: super::rows::Rows::F64(view),
                    _owner: x,
                }
            }
            Matrix::F32(x) => {
                let view = unsafe { ArrayView2::from_shape_ptr(x.dim(), x.as_ptr()) };
                Features {
                    view: super::rows::Rows::F32(view),
                    _owner: x,
                }
            }
        }
    }

    /// Rows on `n × p` row-major `f64`s at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    /// `ptr` must point to `n·p` initialised, aligned `f64`s in row-major
    /// order that stay valid and unmodified for as long as `owner` lives.
    pub unsafe fn borrowed(owner: Arc<dyn Owner>, ptr: *const f64, n: usize, p: usize) -> Self {
        // SAFETY: as the caller promises.
        let view = unsafe { ArrayView2::from_shape_ptr((n, p), ptr) };
        Features {
            view: super::rows::Rows::F64(view),
            _owner: owner,
        }
    }

    /// Rows on `n × p` row-major `f32`s at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    /// As [`Features::borrowed`], for `f32`s.
    pub unsafe fn borrowed_f32(owner: Arc<dyn Owner>, ptr: *const f32, n: usize, p: usize) -> Self {
        // SAFETY: as the caller promises.
        let view = unsafe { ArrayView2::from_shape_ptr((n, p), ptr) };
        Features {
            view: super::rows::Rows::F32(view),
            _owner: owner,
        }
    }

    /// The rows in their storage type, borrowed from `self`.
    pub fn rows(&self) -> super::rows::Rows<'_> {
        match self.view {
            super::rows::Rows::F64(x) => super::rows::Rows::F64(x.reborrow()),
            super::rows::Rows::F32(x) => super::rows::Rows::F32(x.reborrow()),
        }
    }

    /// The values as f64: borrowed when stored so, else widened for as
    /// long as the result lives.
    pub fn f64(&self) -> CowArray<'_, f64, Ix2> {
        match self.rows() {
            super::rows::Rows::F64(x) => CowArray::from(x),
            super::rows::Rows::F32(x) => CowArray::from(x.mapv(f64::from)),
        }
    }

    pub fn nrows(&self) -> usize {
        self.view.nrows()
    }

    pub fn ncols(&self) -> usize {
        self.view.ncols()
    }

    pub fn dtype(&self) -> super::Dtype {
        match self.view {
            super::rows::Rows::F64(_) => super::Dtype::F64,
            super::rows::Rows::F32(_) => super::Dtype::F32,
        }
    }

    /// Bytes of the values.
    pub fn bytes(&self) -> usize {
        let per = match self.view {
            super::rows::Rows::F64(_) => 8,
            super::rows::Rows::F32(_) => 4,
        };
        self.nrows() * self.ncols() * per
    }
}

impl std::fmt::Debug for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Features({} × {}, {})",
            self.nrows(),
            self.ncols(),
            self.dtype()
        )
    }
}

/// Scaled data plus whatever is expensive to derive from it (squared row
/// norms now; Gram matrices and feature maps, keyed by their parameters).
/// A cached item is built once and reused by every restart and every later
/// run on the same problem, so moving s₀ or η never rebuilds it.
pub struct Problem {
    /// n × p, row-major, in the run's float type. Shared, so a loaded
    /// dataset and its problem hold one copy of the matrix, and a caller's
    /// buffer (a NumPy array) is read in place.
    pub x: Features,
    pub x_norms: Vec<f64>,
    /// Precomputed kernels, for a dataset that holds kernels instead of
    /// features (`x` is then n × 0).
    pub kernels: Option<Arc<KernelStack>>,
    /// Sample weights (`--weights`, scikit-learn's `sample_weight`): each
    /// row counts as that many rows in the objective and the centres.
    weights: Option<Arc<[f64]>>,
    /// Sparse rows ([`Problem::from_csr`]; `x` is then n × 0).
    pub sparse: Option<Arc<super::csr::Csr>>,
    cache: Mutex<Cache>,
    /// The mean feature variance of `x` (k-means' unit of `tol`), taken
    /// once for every restart.
    mean_variance: OnceLock<f64>,
    /// Items built so far (cache misses): how a sweep shows that cells
    /// sharing a Gram matrix did not each build one.
    builds: AtomicUsize,
}

impl Problem {
    pub fn new(x: Array2<f64>) -> Self {
        Self::from_matrix(Matrix::from(x))
    }

    /// A problem on a matrix shared with its owner (no copy, unless the
    /// matrix is not row-major).
    pub fn from_shared(x: Arc<Array2<f64>>) -> Self {
        Self::from_matrix(Matrix::F64(x))
    }

    /// A problem on a matrix (f64 or f32) shared with its owner.
    pub fn from_matrix(x: Matrix) -> Self {
        Self::from_rows(Features::shared(x))
    }

    /// A problem on rows held elsewhere ([`Features::borrowed`]).
    pub fn from_rows(x: Features) -> Self {
        let x_norms = x.rows().sq_norms();
        Problem {
            x,
            x_norms,
            kernels: None,
            weights: None,
            sparse: None,
            cache: Mutex::new(Cache::default()),
            mean_variance: OnceLock::new(),
            builds: AtomicUsize::new(0),
        }
    }

    /// Stores the rows in f32 (one copy: the problem lets go of the f64
    /// matrix), for a problem built on f64 rows that should run in f32.
    pub fn use_f32(&mut self) {
        if let super::rows::Rows::F64(x) = self.x.rows() {
            let x32 = x.mapv(|v| v as f32);
            self.x = Features::shared(Matrix::from(x32));
            self.x_norms = self.x.rows().sq_norms();
            self.mean_variance = OnceLock::new();
        }
    }

    /// The float type the rows are stored and read in.
    pub fn dtype(&self) -> super::Dtype {
        self.x.dtype()
    }

    /// The rows the solvers iterate over, f64 or f32, and their squared
    /// norms (f64 either way).
    pub fn rows(&self) -> (super::rows::Rows<'_>, &[f64]) {
        (self.x.rows(), &self.x_norms)
    }

    /// [`super::rows::Rows::mean_variance`] of the rows, computed on first use.
    pub fn mean_variance(&self) -> f64 {
        *self
            .mean_variance
            .get_or_init(|| self.x.rows().mean_variance())
    }

    /// A problem on precomputed kernels alone: n rows, no features.
    pub fn from_kernels(stack: Arc<KernelStack>) -> Self {
        let mut p = Self::new(Array2::zeros((stack.n(), 0)));
        p.kernels = Some(stack);
        p
    }

    /// Gives every row a weight: a row of weight w counts as w copies of
    /// it (integer weights are repeated rows, zero removes the row from
    /// the objective and the centres but it still gets a label).
    ///
    /// # Errors
    /// [`Error::Data`] when the weights do not match the rows, are negative,
    /// not finite, or all zero.
    pub fn set_sample_weights(&mut self, w: Vec<f64>) -> Result<()> {
        check_sample_weights(&w, self.n())?;
        // Unit weights are no weights: the same run, seeding included.
        self.weights = w.iter().any(|&v| v != 1.0).then(|| w.into());
        // Cached items (z-scores, default bounds) may read the weights.
        self.cache
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        Ok(())
    }

    /// The sample weights, if any were given.
    pub fn sample_weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
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
            return Err(Error::param(format!(
                "{algo} needs features; this file holds precomputed kernels — use {takes}"
            )));
        }
        Ok(())
    }

    pub fn n(&self) -> usize {
        self.x.nrows()
    }

    pub fn p(&self) -> usize {
        self.csr().map_or(self.x.ncols(), super::csr::Csr::ncols)
    }

    /// The item cached under `key`, built by `build` on first use. Callers
    /// racing for the same key wait for one build rather than doing it twice.
    ///
    /// # Errors
    /// What `build` fails with (nothing is cached then).
    pub fn cached<K: CacheKey>(
        &self,
        key: &K,
        build: impl FnOnce() -> Result<K::Value>,
    ) -> Result<Arc<K::Value>> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(key) {
            return Ok(hit);
        }
        let built = Arc::new(build()?);
        self.builds.fetch_add(1, Ordering::Relaxed);
        cache.insert(key.clone(), built.clone());
        Ok(built)
    }

    /// How many cached items were built on this problem so far.
    pub fn builds(&self) -> usize {
        self.builds.load(Ordering::Relaxed)
    }

    /// Whether `key` is cached (for the UI: "kernel reused").
    pub fn is_cached<K: CacheKey>(&self, key: &K) -> bool {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(key)
    }

    /// Drops the cached items of a family (keys starting with `family`)
    /// other than those in `keep`: a session that moves σ around holds one
    /// set of Gram matrices or feature maps, not one per value tried.
    pub fn retain_family(&self, family: &str, keep: &[String]) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(&|k| !k.starts_with(family) || keep.iter().any(|w| w == k));
    }

    /// The keys cached now.
    pub fn cache_keys(&self) -> Vec<String> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).texts()
    }

    /// Drops every cached item: when the user cancels a run, what it
    /// built (a feature map of gigabytes) goes then, not at the next run.
    pub fn clear_cache(&self) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Refuses sample weights that cannot weigh `n` rows.
///
/// # Errors
/// [`Error::Data`], one line saying which weight is wrong.
pub fn check_sample_weights(w: &[f64], n: usize) -> Result<()> {
    if w.len() != n {
        return Err(Error::Data(format!(
            "{} sample weights for {n} rows: give one weight per row",
            w.len()
        )));
    }
    if let Some(i) = w.iter().position(|v| !v.is_finite() || *v < 0.0) {
        return Err(Error::Data(format!(
            "sample weight of row {} is {}: weights must be finite and ≥ 0",
            i + 1,
            w[i]
        )));
    }
    if !w.iter().any(|&v| v > 0.0) {
        return Err(Error::Data(
            "every sample weight is 0: at least one row must count".into(),
        ));
    }
    Ok(())
}
