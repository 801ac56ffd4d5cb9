//! Multiple kernel k-means (MKKM; Huang, Chuang & Chen 2011), the
//! two-stage baseline of DMKKM (docs/methods/dmkkm.md#mkkm, paper Eqs. 6–8).
//!
//! Squared weights γ on the simplex, K_γ = Σ_p γ_p² K_p. Alternately:
//! 1. H = the k leading eigenvectors of K_γ (the relaxed partition);
//! 2. γ_p ∝ 1/D_p, D_p = Tr(K_p) − Tr(HᵀK_pH) (closed form of Eq. 8).
//!
//! The relaxed objective Tr(K_γ) − Tr(HᵀK_γH) = Σ_p γ_p² D_p is traced; the
//! loop stops when it changes by less than `tol` relative (after two
//! iterations) or at `max_iter` (Liu's mkkmeans_train: 1e-4, 50). H does
//! not depend on the seed, so it is computed once per run (cached); each
//! restart then discretises it by k-means (--init seeding, Lloyd) on the
//! unit-norm rows of H. The Fit's objective is Eq. 6 at the discrete
//! partition, Tr(K_γ) − Σ_l A_l(K_γ)/n_l, so restarts compare on the model.

use super::dmkkm::{
    describe_all, grams, guard_warnings, identity, kernel_set_of, kernel_source, plain,
};
use super::dmkkm_passes::{cluster_alignment, combine};
use super::eigs;
use crate::error::{Error, Result};
use crate::kernel::inputs::AUTO;
use crate::kernel::inputs::{KernelSource, NamedGram};
use crate::kernel::{self, Gram};
use crate::linalg;
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::lloyd::{lloyd_loop, mean_variance};
use crate::solver::params::declare_params;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory, TracePoint, init,
};
use faer::{Mat, Par};
use ndarray::{Array2, ArrayView2, Axis, s};
use rayon::prelude::*;
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Largest n for the dense eigendecomposition; block Lanczos above.
const DENSE_MAX: usize = 800;

/// Lloyd on the embedding: tolerance relative to its mean variance, cap.
const LLOYD_TOL: f64 = 1e-4;
const LLOYD_MAX_ITER: usize = 300;

pub struct Mkkm;

declare_params! {
    /// The declared parameters of `mkkm`.
    pub struct MkkmValues {
        sigma: f64 = kernel::sigma_spec(),
        tol: f64 = tol_spec(
            1e-4,
            "Stop the γ iterations when the relaxed objective changes by less than this fraction (Liu's code: 1e-4).",
        ),
        max_iter: usize = max_iter_spec(50.0),
    }
}

/// The parameters of `mkkm`.
#[derive(Debug, Clone, PartialEq)]
pub struct MkkmParams {
    /// The same kernels as `dmkkm` gets from the same options.
    pub kernels: KernelSource,
    /// Which kernel set the options gave, and why (reported).
    pub kernel_set: crate::solver::KernelSet,
    pub values: MkkmValues,
}

crate::solver::cache::cache_key! {
    /// The relaxed solution on a set of kernels, under its settings.
    RelaxedKey => Relaxed
}

/// The relaxed solution: the embedding and the weights.
pub struct Relaxed {
    /// n×k leading eigenvectors of K_γ with unit-norm rows.
    pub u: Array2<f64>,
    pub norms: Vec<f64>,
    pub gamma: Vec<f64>,
    pub trace: Vec<TracePoint>,
    pub converged: bool,
}

impl Solver for Mkkm {
    type Params = MkkmParams;
    fn id(&self) -> &'static str {
        "mkkm"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            ..crate::solver::Caps::new(crate::solver::Family::Kernel, "MKKM")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Kernels
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Kernel)
    }
    fn name(&self) -> &'static str {
        "Multiple kernel k-means (relaxed)"
    }
    fn summary(&self) -> &'static str {
        "Huang, Chuang & Chen (2011), DMKKM's two-stage baseline: K_γ = Σ γ_p² K_p (squared weights on the simplex); alternately the k leading eigenvectors H of K_γ and the closed form γ_p ∝ 1/(Tr K_p − Tr HᵀK_pH); then k-means on the unit-norm rows of H. Same kernels and preprocessing as dmkkm (centred, unit diagonal). The objective reported is Eq. 6 at the discrete partition."
    }
    fn params(&self) -> Vec<ParamSpec> {
        MkkmValues::specs()
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernels", AUTO), ("views", "none")]
    }
    fn why_no_sample_weights(&self) -> Option<&'static str> {
        Some(
            "its partition is the leading eigenvectors of the combined kernel (a spectral relaxation), not a weighted sum over points",
        )
    }
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<MkkmParams> {
        Ok(MkkmParams {
            kernels: kernel_source(problem, cfg)?,
            kernel_set: kernel_set_of(problem, cfg),
            values: MkkmValues::read(&cfg.params)?,
        })
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &MkkmParams, ctx: &Ctx) -> Result<()> {
        relaxed(problem, run, p, ctx).map(|_| ())
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &MkkmParams) -> StartMemory {
        // K_γ, and for the dense eigensolver its copy and its eigenvectors.
        let n = problem.n();
        let mats = if n <= DENSE_MAX { 3.0 } else { 1.0 };
        StartMemory::seeding(n, run.k, run.init)
            .plus_nk(n, run.k + 8, 4, "arrays of eigenvectors and products")
            .plus(mats * (n as f64).powi(2) * 8.0, "n×n working matrices")
    }
    /// K_γ = Σ γ_p² K_p with the final γ.
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MkkmParams,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let named = grams(
            problem,
            &p.kernels,
            p.values.sigma,
            run.max_memory,
            ctx,
            "mkkm",
        )?;
        let w = fit.kernel_weights.clone().unwrap_or_default();
        Ok(crate::kernel::inputs::weighted_blocks(
            &named,
            w.into_iter().map(|g| g * g),
        ))
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MkkmParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let (rel, gs, named) = relaxed(problem, run, p, ctx)?;
        let mut rng = start.rng();
        let u = rel.u.view();
        let seeds = init::euclidean_seeds(u, &rel.norms, run.k, run.init, &mut rng)?;
        let centres = u.select(Axis(0), &seeds);
        let tol = LLOYD_TOL * mean_variance(u);
        let inner = ctx.iterations_as_stage("mkkm: k-means on the eigenvectors", LLOYD_MAX_ITER);
        let km = lloyd_loop(u, &rel.norms, centres, tol, LLOYD_MAX_ITER, &inner)?;
        let objective = discrete_objective(&gs, &rel.gamma, &km.labels, run.k);
        let mut fit = Fit {
            labels: km.labels,
            objective,
            iterations: rel.trace.len(),
            trace: rel.trace.clone(),
            converged: rel.converged && km.converged,
            kernel_weights: Some(rel.gamma.clone()),
            ..Fit::default()
        };
        fit.extra.kernels = Some(describe_all(&named));
        fit.extra.kernel_set = Some(p.kernel_set.clone());
        fit.warnings.extend(guard_warnings(&gs));
        Ok(fit)
    }
}

type Prepared = (Arc<Relaxed>, Vec<Arc<Gram>>, Vec<NamedGram>);

/// The kernels and the cached relaxed solution for `run.k`.
fn relaxed(problem: &Problem, run: &Common, p: &MkkmParams, ctx: &Ctx) -> Result<Prepared> {
    let named = grams(
        problem,
        &p.kernels,
        p.values.sigma,
        run.max_memory,
        ctx,
        "mkkm",
    )?;
    let gs = plain(&named);
    let key = RelaxedKey(format!(
        "mkkm:{}|k={}|tol={}|max_iter={}",
        identity(&named),
        run.k,
        p.values.tol,
        p.values.max_iter
    ));
    let rel = problem.cached(&key, || {
        relax(&gs, run.k, p.values.tol, p.values.max_iter, ctx)
    })?;
    Ok((rel, gs, named))
}

/// Eq. 6 at a hard partition: Σ_p γ_p² (Tr K_p − Σ_l A_l(K_p)/n_l).
pub fn discrete_objective(gs: &[Arc<Gram>], gamma: &[f64], labels: &[usize], k: usize) -> f64 {
    let d = cluster_alignment(gs, labels, k);
    gs.iter()
        .zip(gamma)
        .zip(d)
        .map(|((g, w), dp)| w * w * (g.diag().iter().sum::<f64>() - dp))
        .sum()
}

/// The γ loop of MKKM from uniform weights.
///
/// # Errors
/// [`Error::Resource`] when the eigensolver fails, [`Error::Cancelled`].
pub fn relax(gs: &[Arc<Gram>], k: usize, tol: f64, max_iter: usize, ctx: &Ctx) -> Result<Relaxed> {
    let v = gs.len();
    let n = gs[0].n();
    if k == 0 || k > n {
        return Err(Error::param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    let mut step = MkkmStep {
        gs,
        k,
        gamma: vec![1.0 / v as f64; v],
        traces: gs.iter().map(|g| g.diag().iter().sum()).collect(),
        d: vec![0.0; v],
        h: Array2::zeros((n, k)),
        prev: None,
        tol,
        ctx,
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter,
        k,
        events: true,
    };
    let inner = ctx.iterations_as_stage("mkkm: kernel weights and eigenvectors", max_iter);
    let fit = iterate(&mut step, how, &inner)?;
    let mut u = step.h;
    linalg::par_rows_mut(&mut u, |_, row| {
        let r = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if r > 0.0 {
            row.iter_mut().for_each(|v| *v /= r);
        }
    });
    let norms = linalg::row_sq_norms(u.view());
    Ok(Relaxed {
        u,
        norms,
        // The γ the last eigenvectors were computed with.
        gamma: step.gamma,
        trace: fit.trace,
        converged: fit.converged,
    })
}

struct MkkmStep<'a> {
    gs: &'a [Arc<Gram>],
    k: usize,
    gamma: Vec<f64>,
    traces: Vec<f64>,
    d: Vec<f64>,
    h: Array2<f64>,
    prev: Option<f64>,
    tol: f64,
    ctx: &'a Ctx,
}

impl Step for MkkmStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let sq: Vec<f64> = self.gamma.iter().map(|g| g * g).collect();
        let kg = combine(self.gs, &sq);
        self.h = leading(&kg, self.k, self.ctx)?;
        drop(kg);
        for (p, g) in self.gs.iter().enumerate() {
            let kh = g.times(self.h.view());
            let inside: f64 = kh.iter().zip(self.h.iter()).map(|(a, b)| a * b).sum();
            self.d[p] = self.traces[p] - inside;
        }
        let obj: f64 = sq.iter().zip(&self.d).map(|(w, d)| w * d).sum();
        let settled = it.m > 2
            && self
                .prev
                .is_some_and(|p| (p - obj).abs() / p.abs().max(f64::MIN_POSITIVE) < self.tol);
        self.prev = Some(obj);
        // A provisional label per point: its largest eigenvector entry.
        let labels = self
            .h
            .rows()
            .into_iter()
            .map(|r| (0..r.len()).fold(0, |b, j| if r[j].abs() > r[b].abs() { j } else { b }))
            .collect();
        Ok(Eval::new(obj, labels, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        // D_p ≥ 0 in exact arithmetic (H spans at most k directions); a
        // kernel of rank ≤ k gives D_p ≈ 0, floored so its weight stays
        // finite.
        let top = self.d.iter().fold(0.0, |a: f64, &b| a.max(b));
        let floor = (1e-12 * top).max(f64::MIN_POSITIVE);
        let inv: Vec<f64> = self.d.iter().map(|&d| 1.0 / d.max(floor)).collect();
        let total: f64 = inv.iter().sum();
        self.gamma = inv.iter().map(|x| x / total).collect();
        Ok(())
    }

    fn kernel_weights(&self) -> Option<Vec<f64>> {
        Some(self.gamma.clone())
    }
}

/// The k leading eigenvectors of the dense symmetric `a`.
fn leading(a: &Array2<f64>, k: usize, ctx: &Ctx) -> Result<Array2<f64>> {
    let n = a.nrows();
    if n <= DENSE_MAX {
        let m = Mat::<f64>::from_fn(n, n, |i, j| a[[i, j]]);
        let par = Par::Rayon(NonZeroUsize::new(8).expect("8 > 0"));
        let (_, vecs) =
            eigs::symmetric(&m, par).map_err(|e| Error::Resource(format!("mkkm: {e}")))?;
        return Ok(Array2::from_shape_fn((n, k), |(i, c)| vecs[(i, n - 1 - c)]));
    }
    let apply = |v: ArrayView2<f64>| times_blocked(a, v);
    let found = eigs::leading(n, k, apply, 1e-8, 600, ctx, "mkkm: leading eigenvectors")?;
    Ok(found.vectors)
}

/// A·V in fixed row blocks (same bits for any thread count).
fn times_blocked(a: &Array2<f64>, v: ArrayView2<f64>) -> Array2<f64> {
    const ROWS: usize = 128;
    let (n, b) = (a.nrows(), v.ncols());
    let mut out = Array2::<f64>::zeros((n, b));
    let slice = out.as_slice_mut().expect("standard layout");
    slice
        .par_chunks_mut(ROWS * b.max(1))
        .enumerate()
        .for_each(|(t, chunk)| {
            let r0 = t * ROWS;
            let rows = chunk.len() / b.max(1);
            let mut o = ndarray::ArrayViewMut2::from_shape((rows, b), chunk).expect("block");
            linalg::gemm_seq(o.view_mut(), a.slice(s![r0..r0 + rows, ..]), v, 1.0, false);
        });
    out
}
