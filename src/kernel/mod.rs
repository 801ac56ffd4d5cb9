//! Kernels and Gram matrices for the kernel family (kernel k-means, kernel
//! power k-means, multi-kernel power k-means, spectral clustering).
//! Method: docs/methods/kernel-power-kmeans.md.
//!
//! - [`spec`]: the kernel spec strings (`gaussian:sigma=2.5`, `poly:a=1,b=2`, …).
//! - [`bandwidth`]: the paper's σ rule, in O(np), and d²_max.
//! - [`Gram`]: the n×n matrices, built by blocked matrix products and
//!   cached on the [`Problem`] under their exact spec, so that changing s₀,
//!   η or any other solver parameter never rebuilds them.

pub mod bandwidth;
pub(crate) mod gram;
pub mod inputs;
pub mod knn;
pub mod rff;
pub mod rff_csr;
pub mod rff_dim;
pub mod spec;
pub mod stack;
pub mod views;

pub use gram::{Gram, GramKey};
pub use spec::{DEFAULT_SET, KernelSpec, Kind, Post, Precision, Resolved, parse_list};
pub use stack::KernelStack;

pub use bandwidth::SIGMA_RULE;
pub use spec::GRAM_FAMILY;

use crate::error::{Error, Result};
use crate::linalg;
use crate::memory;
use crate::solver::params::{Default, ParamSpec, Scale};
use crate::solver::{Ctx, Init, KernelInfo, Problem};
use ndarray::{Array2, ArrayView2};
use std::sync::Arc;

/// The bandwidth parameter of the single-kernel algorithms.
pub fn sigma_spec() -> ParamSpec {
    ParamSpec {
        name: "sigma",
        symbol: "σ",
        default: Default::Auto(SIGMA_RULE),
        min: 1e-6,
        max: 1e6,
        scale: Scale::Log,
        step: 1.1,
        coarse: 2.0,
        integer: false,
        help: "Bandwidth of the gaussian (exp(−‖x−y‖²/2σ²)), laplacian and geodesic kernels; ignored by the others. A sigma= in --kernel takes precedence.",
    }
}

crate::solver::cache::cache_key! {
    /// The σ rule on the data or on a column group (`kernel:sigma_rule|…`).
    pub SigmaRuleKey => f64
}

crate::solver::cache::cache_key! {
    /// The largest squared pairwise distance on the data or on a column
    /// group (`kernel:dmax2|…`).
    pub Dmax2Key => f64
}

/// The σ rule on the problem's (scaled) data, cached; 1 when the data has
/// no spread (so that a constant dataset still gets a valid kernel).
pub fn auto_sigma(problem: &Problem) -> f64 {
    problem
        .cached(&SigmaRuleKey("kernel:sigma_rule|".into()), || {
            let s = match problem.csr() {
                Some(x) => bandwidth::sigma_rule_csr(x, 0..x.ncols()),
                None => bandwidth::sigma_rule(problem.x.f64().view()),
            };
            Ok(if s > 0.0 { s } else { 1.0 })
        })
        .map_or(1.0, |v| *v)
}

/// The largest squared pairwise distance, cached (for `t=` bandwidths).
pub fn dmax2(problem: &Problem) -> f64 {
    problem
        .cached(&Dmax2Key("kernel:dmax2|".into()), || {
            Ok(bandwidth::max_sq_dist(problem.x.f64().view()))
        })
        .map_or(0.0, |v| *v)
}

/// The memory guard for `specs` (plus `extra` f64 matrices of working
/// memory, e.g. an eigendecomposition's) before anything is built.
pub fn guard(
    problem: &Problem,
    algo: &str,
    specs: &[KernelSpec],
    extra: usize,
    max_memory: Option<u64>,
) -> Result<()> {
    if let Some(s) = specs.iter().find(|s| s.kind == Kind::Knn) {
        return Err(spec::not_psd("--kernel", &s.source));
    }
    let n = problem.n();
    let need: f64 = specs
        .iter()
        .map(|s| gram::stored_bytes(n, s.precision))
        .sum::<f64>()
        + extra as f64 * (n as f64).powi(2) * 8.0;
    let what = match specs.len() {
        1 => "its kernel matrix".to_string(),
        l => format!("{l} kernel matrices"),
    };
    let elems: Vec<String> = {
        let mut v: Vec<usize> = specs.iter().map(|s| s.precision.bytes()).collect();
        v.sort();
        v.dedup();
        v.iter().map(|b| b.to_string()).collect()
    };
    let mut detail = format!(
        "n = {n}; a kernel matrix stores its lower triangle, ≈ n²/2 × {} bytes",
        elems.join(" or ")
    );
    if extra > 0 {
        detail.push_str(&format!(
            ", plus {extra} working n×n matri{} of 8 bytes for the eigensolver",
            if extra == 1 { "x" } else { "ces" }
        ));
    }
    let can_halve = specs.iter().any(|s| s.precision == Precision::F64);
    memory::guard(
        algo,
        &what,
        need,
        &detail,
        &too_large_fix(can_halve),
        max_memory,
    )
}

/// What to do when kernel matrices do not fit: the random-feature
/// algorithms (as the registry lists them), and f32 storage when it would
/// halve them.
pub fn too_large_fix(can_halve: bool) -> String {
    let rff = crate::solver::caps::takers(|c| c.family == crate::solver::Family::Rff);
    let halve = if can_halve {
        ", or add gram=f32 to the kernel spec to halve it"
    } else {
        ""
    };
    format!(
        "for data this large use a random-feature algorithm ({rff}), which needs O(n·D) memory{halve}"
    )
}

/// The kernel of a single-kernel algorithm: its `--kernel` option parsed,
/// and the `sigma` parameter for a bandwidth the spec leaves open.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelChoice {
    pub spec: KernelSpec,
    pub sigma: f64,
}

impl KernelChoice {
    /// Parses the text of `--kernel` (one kernel, not a list).
    ///
    /// # Errors
    /// [`Error::Param`] for a spec that does not parse or names several
    /// kernels.
    pub fn parse(text: &str, sigma: f64) -> Result<Self> {
        if text.contains(';') {
            return Err(single_spec_error(text));
        }
        Ok(KernelChoice {
            spec: KernelSpec::parse(text, "--kernel")?,
            sigma,
        })
    }

    /// The kernel with its bandwidth fixed: σ from the spec if given there,
    /// else `sigma`.
    ///
    /// # Errors
    /// [`Error::Param`] for a bandwidth that cannot be fixed.
    pub fn resolve(&self, problem: &Problem) -> Result<Resolved> {
        self.spec.resolve(self.sigma, || dmax2(problem))
    }

    /// [`KernelChoice::parse`] for an algorithm that needs a positive
    /// semi-definite kernel: the knn graph is refused.
    ///
    /// # Errors
    /// As [`KernelChoice::parse`], and [`Error::Param`] for `knn`.
    pub fn parse_psd(text: &str, sigma: f64) -> Result<Self> {
        let c = Self::parse(text, sigma)?;
        if c.spec.kind == Kind::Knn {
            return Err(spec::not_psd("--kernel", text));
        }
        Ok(c)
    }

    /// Whether it is the knn graph (spectral's sparse affinity).
    pub fn is_graph(&self) -> bool {
        self.spec.kind == Kind::Knn
    }
}

/// The Gram matrices of `specs`, from the problem's cache or built now.
/// Gram matrices cached earlier under other specs are dropped first, so a
/// session that moves σ around holds one set, not one per value tried.
/// Call [`guard`] before resolving the specs.
pub fn grams(problem: &Problem, specs: &[Resolved], ctx: &Ctx) -> Result<Vec<Arc<Gram>>> {
    let wanted: Vec<String> = specs.iter().map(|s| s.key()).collect();
    problem.retain_family(GRAM_FAMILY, &wanted);
    let mut out = Vec::with_capacity(specs.len());
    for (spec, key) in specs.iter().zip(wanted) {
        ctx.check()?;
        out.push(problem.cached(&GramKey(key), || {
            Gram::build(problem.x.f64().view(), spec, ctx)
        })?);
    }
    Ok(out)
}

/// Whether the Gram matrix of `spec` is already cached (the UI can say
/// "kernel reused").
pub fn is_cached(problem: &Problem, spec: &Resolved) -> bool {
    problem.is_cached(&GramKey(spec.key()))
}

/// Squared feature-space distances to the implicit centroids of the
/// column-normalised weights Ω (docs/methods/kernel-power-kmeans.md#kernel-trick-distances):
/// D_ij = K_ii + ω_jᵀKω_j − 2(KΩ)_ij, clamped at 0. One n×n×k product.
pub fn feature_dists(gram: &Gram, omega: ArrayView2<f64>) -> Array2<f64> {
    let g = gram.times(omega);
    let k = omega.ncols();
    let n = omega.nrows();
    let mut q = vec![0.0; k];
    for i in 0..n {
        for j in 0..k {
            q[j] += omega[[i, j]] * g[[i, j]];
        }
    }
    let diag = gram.diag();
    let mut d = g;
    linalg::par_rows_mut(&mut d, |i, row| {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (diag[i] + q[j] - 2.0 * *v).max(0.0);
        }
    });
    d
}

/// Ω for a seed-indicator start: column j is the indicator of row
/// `seeds[j]`, so eq. 7 gives the exact distances to the seed points.
pub fn seed_omega(n: usize, seeds: &[usize]) -> Array2<f64> {
    let mut om = Array2::zeros((n, seeds.len()));
    for (j, &c) in seeds.iter().enumerate() {
        om[[c, j]] = 1.0;
    }
    om
}

/// Refuses a spec the algorithm cannot use (e.g. `--kernels` syntax in
/// `--kernel`).
pub fn single_spec_error(text: &str) -> Error {
    Error::param(format!(
        "--kernel '{text}' names more than one kernel; use --kernels with a multi-kernel algorithm (mkpower)"
    ))
}

/// The kernel of `gram` as the results report it.
pub fn describe(gram: &Gram) -> KernelInfo {
    KernelInfo {
        spec: gram.spec().to_string(),
        gram: gram.spec().precision.name(),
        // Only distance kernels have a σ.
        sigma: gram.spec().sigma,
        given: None,
        name: None,
    }
}

/// The Gram matrix of a single-kernel algorithm: runs the memory guard,
/// resolves σ and fetches or builds the matrix.
///
/// # Errors
/// [`Error::Resource`] above the memory budget, [`Error::Param`] for a
/// bandwidth that cannot be fixed, [`Error::Cancelled`].
pub fn single_gram(
    problem: &Problem,
    kernel: &KernelChoice,
    max_memory: Option<u64>,
    ctx: &Ctx,
    algo: &str,
) -> Result<Arc<Gram>> {
    if let Some(g) = stack_gram(problem, 0, max_memory, ctx, algo)? {
        return Ok(g);
    }
    guard(
        problem,
        algo,
        std::slice::from_ref(&kernel.spec),
        0,
        max_memory,
    )?;
    let r = kernel.resolve(problem)?;
    Ok(grams(problem, &[r], ctx)?.remove(0))
}

/// Squared feature-space distances of every point to the points `cands`
/// in the uniform mix Σ_p K_p / v (the multi-kernel algorithms' seeding).
pub fn mix_dists<G: std::borrow::Borrow<Gram>>(grams: &[G], cands: &[usize]) -> Array2<f64> {
    let w = 1.0 / grams.len() as f64;
    let mut d = grams[0].borrow().dists_to(cands) * w;
    for g in &grams[1..] {
        d.scaled_add(w, &g.borrow().dists_to(cands));
    }
    d
}

/// The kernel a single-kernel algorithm uses on a kernels-only problem:
/// the precomputed kernel itself, or the average of the stack (cached,
/// after the memory guard). `None` for a problem with features.
///
/// # Errors
/// [`Error::Resource`] above the memory budget, [`Error::Cancelled`].
pub fn stack_gram(
    problem: &Problem,
    extra: usize,
    max_memory: Option<u64>,
    ctx: &Ctx,
    algo: &str,
) -> Result<Option<Arc<Gram>>> {
    let Some(stack) = &problem.kernels else {
        return Ok(None);
    };
    if stack.len() == 1 {
        guard(problem, algo, &[], extra, max_memory)?;
        return Ok(Some(stack.grams[0].clone()));
    }
    guard(
        problem,
        algo,
        &[KernelSpec::new(Kind::Precomputed)],
        extra,
        max_memory,
    )?;
    ctx.check()?;
    let gram = problem.cached(&GramKey("gram:precomputed-average|".into()), || {
        let refs: Vec<&Gram> = stack.grams.iter().map(|g| g.as_ref()).collect();
        Ok(Gram::average(&refs, &stack::raw_spec()))
    })?;
    Ok(Some(gram))
}

/// Seed rows chosen in the kernel's feature space (k-means++ with
/// distances K_ii + K_cc − 2K_ic, or k distinct random rows), from the same
/// random stream as the Euclidean algorithms' seeding, so `--init random`
/// gives every algorithm the same seed rows.
pub fn seeds<R: rand::Rng>(gram: &Gram, k: usize, init: Init, rng: &mut R) -> Result<Vec<usize>> {
    weighted_seeds(gram, None, k, init, rng)
}

/// [`seeds`] drawn by the rows' sample weights `w` (as
/// [`crate::solver::init::weighted_seeds`]).
pub fn weighted_seeds<R: rand::Rng>(
    gram: &Gram,
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    crate::solver::init::weighted_seeds(gram.n(), w, k, init, rng, |c| gram.dists_to(c))
}
