//! Spectral clustering, Ng–Jordan–Weiss (2002), on the same kernels as the
//! kernel family (docs/methods/spectral.md).
//!
//! Affinity A = K with a zero diagonal, degrees d = A·1, the normalised
//! affinity L = D^{-1/2} A D^{-1/2}; its k leading eigenvectors with
//! unit-norm rows form an n×k embedding, on which k-means++ (or random
//! rows) and Lloyd run. The embedding is cached on the problem, so restarts
//! and later runs with other Lloyd settings reuse it.
//!
//! Up to [`DENSE_MAX`] points the eigenvectors come from a dense
//! decomposition (faer; O(n³), two n×n working matrices). Above it, block
//! Lanczos (`eigs::leading`) finds only the k leading ones, with products
//! L·V = D^{-1/2}(K − diag K)D^{-1/2}V on the stored Gram matrix: no n×n
//! working matrix, one pass over K per block.
//!
//! With `--kernel knn[:nn=10]` the affinity is the sparse 0/1 nearest-
//! neighbour graph ([`crate::kernel::knn`]) instead of a Gram matrix, and
//! block Lanczos runs on it at every n (one pass over the ≤ 2·nn·n edges
//! per block); no n×n matrix is ever held.

use super::eigs;
use crate::error::{Error, Result};
use crate::kernel::{self, Gram, KernelChoice, knn};
use crate::linalg;
use crate::solver::lloyd::{lloyd_loop, mean_variance};
use crate::solver::params::declare_params;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Common, Ctx, Fit, KernelInfo, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory, init,
};
use faer::{Mat, Par};
use ndarray::{Array2, Axis};
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Largest n for the dense eigendecomposition (a few seconds on 2 cores;
/// time grows as n³). Above it the Lanczos solver is faster.
pub const DENSE_MAX: usize = 2000;

/// Residual ‖Ly − θy‖ at which the Lanczos solver stops (L's spectrum lies
/// in [−1, 1]; k-means on the embedding needs far less).
const LANCZOS_TOL: f64 = 1e-6;

/// Residual at which Lanczos stops on a knn graph: its leading
/// eigenvalues crowd near 1, and k-means on the embedding does not need
/// them closer (1e-6 took 1.5–3× the products on the battery's halves).
const GRAPH_TOL: f64 = 1e-4;

/// Largest Lanczos basis (columns of n).
const LANCZOS_MAX_DIM: usize = 600;

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

declare_params! {
    /// The declared parameters of `spectral`.
    pub struct SpectralValues {
        sigma: f64 = kernel::sigma_spec(),
        /// Lloyd on the embedding: relative to its mean variance.
        tol: f64 = tol_spec(
            1e-4,
            "Lloyd on the embedding: stop when the squared centre shift is below tol × mean variance of the embedding, or no label changes.",
        ),
        max_iter: usize = max_iter_spec(300.0),
    }
}

/// The parameters of `spectral`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpectralParams {
    pub kernel: KernelChoice,
    pub values: SpectralValues,
}

impl Solver for Spectral {
    type Params = SpectralParams;
    fn id(&self) -> &'static str {
        "spectral"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            ..crate::solver::Caps::new(crate::solver::Family::Spectral, "Spectral")
        }
    }
    fn name(&self) -> &'static str {
        "Spectral clustering (Ng–Jordan–Weiss)"
    }
    fn summary(&self) -> &'static str {
        "Ng, Jordan & Weiss (2002): the k leading eigenvectors of the normalised kernel affinity D^-1/2 A D^-1/2, rows normalised, clustered by k-means++/Lloyd. Dense eigendecomposition up to 2000 points, block Lanczos above."
    }
    fn params(&self) -> Vec<ParamSpec> {
        SpectralValues::specs()
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn why_no_sample_weights(&self) -> Option<&'static str> {
        Some(
            "its normalised cut is a sum over edges of the similarity graph, whose degrees and eigenvectors a row weight does not reproduce",
        )
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernel", "gaussian")]
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<SpectralParams> {
        let values = SpectralValues::read(&cfg.params)?;
        Ok(SpectralParams {
            kernel: KernelChoice::parse(cfg.option("kernel", "gaussian"), values.sigma)?,
            values,
        })
    }
    fn prepare(
        &self,
        problem: &Problem,
        run: &Common,
        p: &SpectralParams,
        ctx: &Ctx,
    ) -> Result<()> {
        embedding_info(problem, &p.kernel, run, ctx).map(|_| ())
    }
    // The knn graph and the Lanczos basis are shared by every start and
    // guarded once when built (`graph_embedding`), as a Gram matrix is.
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &SpectralParams) -> StartMemory {
        StartMemory::seeding(problem.n(), run.k, run.init).plus_nk(
            problem.n(),
            run.k,
            1,
            "embedding",
        )
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &SpectralParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let (emb, info) = embedding_info(problem, &p.kernel, run, ctx)?;
        let mut rng = start.rng();
        let u = emb.u.view();
        let seeds = init::euclidean_seeds(u, &emb.norms, run.k, run.init, &mut rng)?;
        let centres = u.select(Axis(0), &seeds);
        let tol = p.values.tol * mean_variance(u);
        let mut fit = lloyd_loop(u, &emb.norms, centres, tol, p.values.max_iter, ctx)?;
        // Centres live in the embedding, not in the input space.
        fit.centroids = None;
        fit.extra.kernel = Some(info);
        fit.extra.eigenvalues = Some(emb.eigenvalues.clone());
        if emb.isolated > 0 {
            fit.warnings.push(format!(
                "{} points have no positive affinity to any other point (σ too small, or a kernel with negative values?); they sit at the origin of the embedding",
                emb.isolated
            ));
        }
        Ok(fit)
    }
}

/// The cached embedding (and the Gram matrix it came from) of the kernel
/// and k that `cfg` asks for.
///
/// # Errors
/// As [`Solver::typed`] and [`embedding_for`].
pub fn embedding(
    problem: &Problem,
    cfg: &RunConfig,
    ctx: &Ctx,
) -> Result<(Arc<Embedding>, Arc<Gram>)> {
    let p = Spectral.typed(problem, cfg)?;
    embedding_for(problem, &p.kernel, &Common::of(cfg)?, ctx)
}

/// The cached embedding of `kernel` for `run.k` clusters (a Gram matrix's
/// or the knn graph's) and the kernel as the results report it.
///
/// # Errors
/// As [`embedding_for`] and [`graph_embedding`].
pub fn embedding_info(
    problem: &Problem,
    kernel: &KernelChoice,
    run: &Common,
    ctx: &Ctx,
) -> Result<(Arc<Embedding>, KernelInfo)> {
    if kernel.is_graph() {
        let emb = graph_embedding(problem, kernel.spec.nn, run, ctx)?;
        let info = KernelInfo {
            spec: format!("knn:nn={}", kernel.spec.nn),
            gram: "sparse",
            sigma: None,
            given: None,
            name: None,
        };
        return Ok((emb, info));
    }
    let (emb, gram) = embedding_for(problem, kernel, run, ctx)?;
    Ok((emb, kernel::describe(&gram)))
}

/// Bytes the knn path holds at most: the graph and its search, the
/// Lanczos basis and its products (two n × [`LANCZOS_MAX_DIM`] matrices).
pub fn graph_bytes(n: usize, nn: usize) -> f64 {
    knn::build_bytes(n, nn) + 2.0 * n as f64 * LANCZOS_MAX_DIM.min(n) as f64 * 8.0
}

/// The cached NJW embedding of the knn graph (nn neighbours) of the
/// problem's rows for `run.k` clusters; the graph is cached too, so every
/// k reuses it.
///
/// # Errors
/// [`Error::Param`] on a problem without features (a precomputed kernel)
/// or an nn the rows cannot give, [`Error::Resource`] above the memory
/// budget or when the eigensolver fails, [`Error::Cancelled`].
pub fn graph_embedding(
    problem: &Problem,
    nn: usize,
    run: &Common,
    ctx: &Ctx,
) -> Result<Arc<Embedding>> {
    if problem.kernels_only() {
        return Err(Error::param(
            "spectral --kernel knn builds its graph from the features; precomputed kernels have none (use the gaussian default)",
        ));
    }
    let n = problem.n();
    crate::memory::check(
        "spectral",
        graph_bytes(n, nn),
        &format!(
            "the knn graph of {n} rows (nn = {nn}) and the Lanczos basis (2 × n × {} values of 8 bytes)",
            LANCZOS_MAX_DIM.min(n)
        ),
        "lower nn or sample the rows (--sample)",
        run.max_memory,
    )?;
    let graph = problem.cached(&GraphKey(format!("knn:nn={nn}|")), || {
        knn::graph(problem.x.f64().view(), nn, ctx)
    })?;
    let key = EmbeddingKey(format!("spectral:knn:nn={nn}|k={}|", run.k));
    problem.cached(&key, || build_graph_embedding(&graph, run.k, ctx))
}

crate::solver::cache::cache_key! {
    /// The knn graph of the rows.
    GraphKey => knn::Graph
}

crate::solver::cache::cache_key! {
    /// The embedding of a knn graph or a Gram matrix for k clusters.
    EmbeddingKey => Embedding
}

/// NJW embedding of a 0/1 graph: block Lanczos on D^-1/2 W D^-1/2.
pub fn build_graph_embedding(graph: &knn::Graph, k: usize, ctx: &Ctx) -> Result<Embedding> {
    let n = graph.n();
    if k == 0 || k > n {
        return Err(Error::param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    ctx.check()?;
    let mut isolated = 0;
    let dinv: Vec<f64> = graph
        .degrees()
        .into_iter()
        .map(|d| {
            if d > 0.0 {
                1.0 / d.sqrt()
            } else {
                isolated += 1;
                0.0
            }
        })
        .collect();
    let apply = |v: ndarray::ArrayView2<f64>| {
        let mut sv = v.to_owned();
        scale_rows(&mut sv, &dinv);
        let mut out = graph.times(sv.view());
        scale_rows(&mut out, &dinv);
        out
    };
    let label = "spectral: leading eigenvectors of the knn graph (Lanczos)";
    let found = eigs::leading(n, k, apply, GRAPH_TOL, LANCZOS_MAX_DIM, ctx, label)?;
    Ok(finish(found.values, found.vectors, isolated))
}

/// Rows scaled to unit length (NJW), and their squared norms.
fn finish(eigenvalues: Vec<f64>, mut emb: Array2<f64>, isolated: usize) -> Embedding {
    linalg::par_rows_mut(&mut emb, |_, row| {
        let r = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if r > 0.0 {
            row.iter_mut().for_each(|v| *v /= r);
        }
    });
    let norms = linalg::row_sq_norms(emb.view());
    Embedding {
        u: emb,
        norms,
        eigenvalues,
        isolated,
    }
}

/// The cached embedding of `kernel` for `run.k` clusters, built (after the
/// memory guard) on first use.
///
/// # Errors
/// [`Error::Resource`] above the memory budget or when the eigensolver
/// fails, [`Error::Param`] for a bandwidth that cannot be fixed,
/// [`Error::Cancelled`].
pub fn embedding_for(
    problem: &Problem,
    kernel: &KernelChoice,
    run: &Common,
    ctx: &Ctx,
) -> Result<(Arc<Embedding>, Arc<Gram>)> {
    let n = problem.n();
    // The Gram matrix, and for the dense eigensolver its copy and its
    // eigenvectors.
    let working = if n <= DENSE_MAX { 2 } else { 0 };
    if let Some(gram) = kernel::stack_gram(problem, working, run.max_memory, ctx, "spectral")? {
        let key = EmbeddingKey(format!("spectral:{}k={}|", gram.spec().key(), run.k));
        let emb = problem.cached(&key, || build_embedding(&gram, run.k, ctx))?;
        return Ok((emb, gram));
    }
    kernel::guard(
        problem,
        "spectral",
        std::slice::from_ref(&kernel.spec),
        working,
        run.max_memory,
    )?;
    let resolved = kernel.resolve(problem)?;
    let gram = kernel::grams(problem, std::slice::from_ref(&resolved), ctx)?.remove(0);
    let key = EmbeddingKey(format!("spectral:{}k={}|", resolved.key(), run.k));
    let emb = problem.cached(&key, || build_embedding(&gram, run.k, ctx))?;
    Ok((emb, gram))
}

/// NJW embedding of the Gram matrix.
pub fn build_embedding(gram: &Gram, k: usize, ctx: &Ctx) -> Result<Embedding> {
    let n = gram.n();
    if k == 0 || k > n {
        return Err(Error::param(format!(
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
    let (eigenvalues, emb) = if n <= DENSE_MAX {
        dense_leading(gram, &dinv, k, ctx)?
    } else {
        let diag = gram.diag().to_vec();
        let apply = |v: ndarray::ArrayView2<f64>| {
            let mut sv = v.to_owned();
            scale_rows(&mut sv, &dinv);
            let mut out = gram.times(sv.view());
            for (i, mut row) in out.rows_mut().into_iter().enumerate() {
                row.scaled_add(-diag[i], &sv.row(i));
            }
            scale_rows(&mut out, &dinv);
            out
        };
        let label = "spectral: leading eigenvectors (Lanczos)";
        let found = eigs::leading(n, k, apply, LANCZOS_TOL, LANCZOS_MAX_DIM, ctx, label)?;
        (found.values, found.vectors)
    };
    Ok(finish(eigenvalues, emb, isolated))
}

fn scale_rows(a: &mut Array2<f64>, by: &[f64]) {
    for (mut row, &f) in a.rows_mut().into_iter().zip(by) {
        row.mapv_inplace(|v| v * f);
    }
}

/// The k leading eigenpairs of L by a dense decomposition.
fn dense_leading(
    gram: &Gram,
    dinv: &[f64],
    k: usize,
    ctx: &Ctx,
) -> Result<(Vec<f64>, Array2<f64>)> {
    let n = gram.n();
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
    let (s, u) = eigs::symmetric(&a, par).map_err(|e| Error::Resource(format!("spectral: {e}")))?;
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
    Ok((eigenvalues, emb))
}
