//! Spectral clustering, Ng–Jordan–Weiss (2002), on the same kernels as the
//! kernel family (spec kernel-power-kmeans.md §6.5, prior-art.md §1.11).
//!
//! Affinity A = K with a zero diagonal, degrees d = A·1, the normalised
//! affinity L = D^{-1/2} A D^{-1/2}; its k leading eigenvectors (dense
//! eigendecomposition, faer) with unit-norm rows form an n×k embedding, on
//! which k-means++ (or random rows) and Lloyd run. The embedding is cached
//! on the problem, so restarts and later runs with other Lloyd settings
//! reuse it.
//!
//! The eigendecomposition is dense, O(n³) time and three n×n matrices of
//! memory: problems above [`MAX_N`] points are refused with that reason
//! rather than left to run for an hour.

use super::lloyd::{lloyd_loop, mean_variance};
use super::params::ParamSpec;
use super::power::{max_iter_spec, tol_spec};
use super::{Algorithm, Ctx, Fit, Problem, RunConfig, Start, init};
use crate::error::{Error, Result};
use crate::kernel::{self, Gram};
use crate::linalg;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::{Mat, Par};
use ndarray::{Array2, Axis};
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Largest n for the dense eigendecomposition (about 30 s on 2 cores at
/// this size; time grows as n³).
pub const MAX_N: usize = 5000;

pub struct Spectral;

/// The spectral embedding of one kernel and k.
pub struct Embedding {
    /// n×k, unit-norm rows (zero rows for isolated points).
    pub u: Array2<f64>,
    pub norms: Vec<f64>,
    /// The k leading eigenvalues of D^{-1/2} A D^{-1/2}, largest first.
    pub eigenvalues: Vec<f64>,
    /// Points with no positive affinity to any other point.
    pub isolated: usize,
}

impl Algorithm for Spectral {
    fn id(&self) -> &'static str {
        "spectral"
    }
    fn name(&self) -> &'static str {
        "Spectral clustering (Ng–Jordan–Weiss)"
    }
    fn summary(&self) -> &'static str {
        "Ng, Jordan & Weiss (2002): the k leading eigenvectors of the normalised kernel affinity D^-1/2 A D^-1/2, rows normalised, clustered by k-means++/Lloyd. Dense eigendecomposition: n up to 5000."
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            kernel::sigma_spec(),
            tol_spec(
                1e-4,
                "Lloyd on the embedding: stop when the squared centre shift is below tol × mean variance of the embedding, or no label changes.",
            ),
            max_iter_spec(300.0),
        ]
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernel", "gaussian")]
    }
    fn prepare(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<()> {
        embedding(problem, cfg, ctx).map(|_| ())
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let (emb, gram) = embedding(problem, cfg, ctx)?;
        let mut rng = start.rng();
        let u = emb.u.view();
        let seeds = init::euclidean_seeds(u, &emb.norms, cfg.k, cfg.init, &mut rng)?;
        let centres = u.select(Axis(0), &seeds);
        let tol = cfg.params.get("tol") * mean_variance(u);
        let mut fit = lloyd_loop(
            u,
            &emb.norms,
            centres,
            tol,
            cfg.params.get_usize("max_iter"),
            ctx,
        )?;
        // Centres live in the embedding, not in the input space.
        fit.centroids = None;
        fit.extra.insert("kernel".into(), kernel::describe(&[gram]));
        fit.extra
            .insert("eigenvalues".into(), emb.eigenvalues.clone().into());
        if emb.isolated > 0 {
            fit.warnings.push(format!(
                "{} points have no positive affinity to any other point (σ too small, or a kernel with negative values?); they sit at the origin of the embedding",
                emb.isolated
            ));
        }
        Ok(fit)
    }
}

/// The cached embedding (and the Gram matrix it came from).
pub fn embedding(
    problem: &Problem,
    cfg: &RunConfig,
    ctx: &Ctx,
) -> Result<(Arc<Embedding>, Arc<Gram>)> {
    let n = problem.n();
    if n > MAX_N {
        return Err(Error::Resource(format!(
            "spectral uses a dense eigendecomposition (O(n³) time, three n×n matrices) and is limited to n ≤ {MAX_N} points; this data has n = {n}: use kpower or kernel-kmeans (one n×n×k product per iteration)"
        )));
    }
    let spec = kernel::kernel_option(cfg)?;
    // The Gram matrix, the eigensolver's copy and its eigenvectors.
    kernel::guard(problem, "spectral", std::slice::from_ref(&spec), 2, cfg)?;
    let resolved = kernel::resolve_single(problem, cfg, &spec)?;
    let gram = kernel::grams(problem, std::slice::from_ref(&resolved), ctx)?.remove(0);
    let key = format!("spectral:{}k={}|", resolved.key(), cfg.k);
    let emb = problem.cached(&key, || build_embedding(&gram, cfg.k, ctx))?;
    Ok((emb, gram))
}

/// NJW embedding of the Gram matrix.
pub fn build_embedding(gram: &Gram, k: usize, ctx: &Ctx) -> Result<Embedding> {
    let n = gram.n();
    if k == 0 || k > n {
        return Err(Error::Param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    ctx.check()?;
    ctx.stage("spectral: normalised affinity", 0.0);
    // Degrees of the zero-diagonal affinity: row sums minus the diagonal.
    let ones = Array2::<f64>::ones((n, 1));
    let rows = gram.times(ones.view());
    let diag = gram.diag();
    let mut isolated = 0;
    let dinv: Vec<f64> = (0..n)
        .map(|i| {
            let d = rows[[i, 0]] - diag[i];
            if d > 0.0 {
                1.0 / d.sqrt()
            } else {
                isolated += 1;
                0.0
            }
        })
        .collect();
    // Column j of L is row j of K (symmetric) scaled: contiguous reads.
    let mut a = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        let kj = gram.row(j);
        let col = a.col_mut(j);
        for (i, v) in col.iter_mut().enumerate() {
            if i != j {
                *v = kj[i] * dinv[i] * dinv[j];
            }
        }
    }
    ctx.check()?;
    ctx.stage("spectral: eigendecomposition", 0.2);
    let par = Par::Rayon(NonZeroUsize::new(8).expect("8 > 0"));
    let mut s = faer::diag::Diag::<f64>::zeros(n);
    let mut u = Mat::<f64>::zeros(n, n);
    let scratch = faer::linalg::evd::self_adjoint_evd_scratch::<f64>(
        n,
        faer::linalg::evd::ComputeEigenvectors::Yes,
        par,
        Default::default(),
    );
    let mut mem = MemBuffer::try_new(scratch).map_err(|_| {
        Error::Resource(format!(
            "spectral: cannot allocate the eigensolver's workspace for n = {n}"
        ))
    })?;
    faer::linalg::evd::self_adjoint_evd(
        a.as_ref(),
        s.as_mut(),
        Some(u.as_mut()),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| {
        Error::Resource("spectral: the eigendecomposition did not converge".to_string())
    })?;
    drop(a);
    ctx.stage("spectral: eigendecomposition", 1.0);
    // Eigenvalues ascend: the k leading ones are the last k, largest first.
    let mut emb = Array2::<f64>::zeros((n, k));
    let mut eigenvalues = Vec::with_capacity(k);
    for t in 0..k {
        let c = n - 1 - t;
        eigenvalues.push(s[c]);
        for i in 0..n {
            emb[[i, t]] = u[(i, c)];
        }
    }
    linalg::par_rows_mut(&mut emb, |_, row| {
        let r = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if r > 0.0 {
            row.iter_mut().for_each(|v| *v /= r);
        }
    });
    let norms = linalg::row_sq_norms(emb.view());
    Ok(Embedding {
        u: emb,
        norms,
        eigenvalues,
        isolated,
    })
}
