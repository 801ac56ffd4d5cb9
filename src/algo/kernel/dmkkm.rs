//! Discrete multiple kernel k-means (DMKKM; Wang, Lu, Lu, Nie & Li,
//! IJCAI-21; docs/methods/dmkkm.md). Kernel weights α on the simplex combine v
//! kernels linearly, K_α = Σ_p α_p K_p, and the hard partition F and α
//! minimise Eq. 11,
//!   ‖K_α − P‖²_F = αᵀMα − 2αᵀd(F) + c,   P = F(FᵀF)⁻¹Fᵀ,
//! with M_pq = ⟨K_p, K_q⟩_F (computed once per kernel set and cached) and
//! d_p = Σ_l A_l(K_p)/n_l. Algorithm 2 alternates
//! 1. the F-step: exact single-point moves on K_α (`dmkkm_fstep`);
//! 2. the α-step: the simplex QP min αᵀMα − 2dᵀα (`solver::simplex_qp`).
//!
//! Both steps are exact minimisers of Eq. 11 in their block, so with the
//! paper's QP the objective never increases (tests/dmkkm.rs).
//!
//! Decisions on the paper-vs-code table
//! (docs/methods/dmkkm.md#paper-versus-code), also in `summary()`:
//! - α-QP: the paper's Eq. 29 by default; `code_qp=1` doubles the linear
//!   term as the authors' MATLAB does (quadprog(M, −2d)); that variant can
//!   increase Eq. 11, so its trace need not be monotone.
//! - inner stop: the paper's relative increase 1e-3 (`inner_tol`), at most
//!   `max_sweeps` = 50 sweeps (the code's 49, rounded).
//! - outer stop: relative decrease of Eq. 11 below `tol` = 1e-9 (the
//!   code's), at most `max_iter` = 50 outer iterations (the code stops at
//!   10; F ranges over a finite set, so the cap is rarely reached).
//! - singleton clusters: their point never moves (code), so no cluster
//!   empties and c stays k.
//! - kernels: centred then normalised to unit diagonal by default (code's
//!   knorm(kcenter(K))); a point at the feature-space mean gets a unit
//!   diagonal and no similarity, and the run warns.
//! - objective: Eq. 11 with the constant c (code), traced per outer
//!   iteration after the F-step at the α that step used (code); the
//!   reported α is that α, so objective = ‖K_α − P‖²_F for the reported
//!   labels and weights. The trace's α of iteration m is the one the QP
//!   found after it.
//! - initial F: by default from the project's seeding (`--init`, k-means++
//!   or random rows, in the feature space of the uniform mix Σ K_p / v),
//!   every point to its nearest seed, each seed in its own cluster;
//!   `random_labels=1` is the authors' Y_Initialize (labels 1..c, then
//!   uniform draws, shuffled). α starts uniform (paper).
//! - ties: a point moves only on a strict gain; among equal best targets
//!   the lowest cluster index.

use super::dmkkm_fstep::f_step;
use super::dmkkm_passes::{cluster_alignment, combine, gram_products};
use crate::error::{Error, Result};
use crate::kernel::inputs::{
    AUTO, KernelSource, NamedGram, guard_source_with, kernel_grams, kernel_set,
};
use crate::kernel::{self, Gram, Post};
use crate::solver::init;
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::params::declare_params;
use crate::solver::params::{Default, ParamSpec, Scale};
use crate::solver::simplex_qp;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Common, Ctx, Fit, Init, KernelInfo, Phases, Problem, RunConfig, Solver, Start, StartMemory,
};
use rand::Rng;
use rand::seq::SliceRandom;
use std::sync::Arc;
use std::time::Instant;

pub struct Dmkkm;

/// Post-processing applied to every kernel of the list unless its spec
/// says otherwise: centre, then unit diagonal (the authors' code;
/// docs/methods/dmkkm.md#kernel-preprocessing).
pub const DEFAULT_POST: Post = Post {
    center: true,
    normalize: true,
    rescale: false,
};

declare_params! {
    /// The declared parameters of `dmkkm`.
    pub struct DmkkmValues {
        sigma: f64 = kernel::sigma_spec(),
        inner_tol: f64 = ParamSpec {
            name: "inner_tol",
            symbol: "tol_F",
            default: Default::Fixed(1e-3),
            min: 0.0,
            max: 1.0,
            scale: Scale::Log,
            step: 2.0,
            coarse: 10.0,
            integer: false,
            help: "F-step: stop the sweeps when one raises Σ_l A_l/n_l by less than this fraction (the paper's 1e-3; 0 sweeps until no point moves).",
        },
        max_sweeps: usize = ParamSpec {
            name: "max_sweeps",
            symbol: "sweeps",
            default: Default::Fixed(50.0),
            min: 1.0,
            max: 10_000.0,
            scale: Scale::Linear,
            step: 1.0,
            coarse: 10.0,
            integer: true,
            help: "F-step: at most this many passes over the points per outer iteration.",
        },
        tol: f64 = tol_spec(
            1e-9,
            "Stop when an outer iteration lowers the objective (Eq. 11) by less than this fraction.",
        ),
        max_iter: usize = max_iter_spec(50.0),
        /// The authors' α-QP with the doubled linear term.
        code_qp: bool = ParamSpec::flag(
            "code_qp",
            "QP×2",
            0.0,
            "1: the α-step minimises αᵀMα − 4dᵀα as the authors' MATLAB code does (quadprog(M, −2d)); 0: the paper's Eq. 29, αᵀMα − 2dᵀα, which never increases the objective.",
        ),
        /// The authors' random initial labels instead of seeding.
        random_labels: bool = ParamSpec::flag(
            "random_labels",
            "rand F",
            0.0,
            "1: initial labels as the authors' code (each cluster once, the rest uniform, shuffled); 0: every point to its nearest --init seed in the uniform kernel mix.",
        ),
    }
}

/// The parameters of `dmkkm`.
#[derive(Debug, Clone, PartialEq)]
pub struct DmkkmParams {
    /// The kernels of `--kernels` (on all features or on every view of
    /// `--views`) or the data file's precomputed stack, [`DEFAULT_POST`]
    /// applied where the spec does not say.
    pub kernels: KernelSource,
    /// Which kernel set the options gave, and why (reported).
    pub kernel_set: crate::solver::KernelSet,
    pub values: DmkkmValues,
}

impl Solver for Dmkkm {
    type Params = DmkkmParams;
    fn id(&self) -> &'static str {
        "dmkkm"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            ..crate::solver::Caps::new(crate::solver::Family::Kernel, "DMKKM")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Kernels
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Kernel)
    }
    fn name(&self) -> &'static str {
        "Discrete multiple kernel k-means"
    }
    fn summary(&self) -> &'static str {
        "Wang, Lu, Lu, Nie & Li (IJCAI-21): hard partition F and kernel weights α on the simplex minimising ‖Σ α_p K_p − F(FᵀF)⁻¹Fᵀ‖²_F, no trade-off parameter. F-step: kernel k-means on K_α by exact single-point moves (a point moves only on a strict gain; a point alone in its cluster stays); α-step: the exact simplex QP min αᵀMα − 2dᵀα, M_pq = ⟨K_p,K_q⟩_F. Default kernels as mkpower (--kernels auto: 12 on all features, one Gaussian per view with --views), each centred then normalised to unit diagonal (the authors' kcenter+knorm). Paper-vs-code decisions: paper QP (code_qp=1: the code's doubled linear term, not monotone); paper inner stop 1e-3 (inner_tol), ≤ 50 sweeps; code outer stop 1e-9 (tol), ≤ 50 iterations (code: 10); singletons never move (code); objective includes +c and is traced after each F-step at the α it used (code); initial F from --init seeds in the uniform mix (random_labels=1: the code's random labels); α₀ uniform."
    }
    fn params(&self) -> Vec<ParamSpec> {
        DmkkmValues::specs()
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernels", AUTO), ("views", "none")]
    }
    fn why_no_sample_weights(&self) -> Option<&'static str> {
        Some("its objective ‖K_α − P‖²_F is a sum over pairs of points, not over points")
    }
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<DmkkmParams> {
        Ok(DmkkmParams {
            kernels: kernel_source(problem, cfg)?,
            kernel_set: kernel_set_of(problem, cfg),
            values: DmkkmValues::read(&cfg.params)?,
        })
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &DmkkmParams, ctx: &Ctx) -> Result<()> {
        let named = grams(
            problem,
            &p.kernels,
            p.values.sigma,
            run.max_memory,
            ctx,
            self.id(),
        )?;
        gram_products(problem, &plain(&named), &identity(&named), ctx).map(|_| ())
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &DmkkmParams) -> StartMemory {
        // The kernels themselves are guarded when built (kernel::guard).
        let n = problem.n() as f64;
        StartMemory::seeding(problem.n(), run.k, run.init)
            .plus_nk(problem.n(), run.k, 1, "array of seed distances")
            .plus(n * n * 8.0, "the combined kernel K_α (n×n, f64)")
    }
    /// K_α = Σ α_p K_p with the α of the last F-step.
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &Self::Params,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let named = grams(
            problem,
            &p.kernels,
            p.values.sigma,
            run.max_memory,
            ctx,
            self.id(),
        )?;
        let w = fit.kernel_weights.clone().unwrap_or_default();
        Ok(crate::kernel::inputs::weighted_blocks(&named, w))
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &DmkkmParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let named = grams(
            problem,
            &p.kernels,
            p.values.sigma,
            run.max_memory,
            ctx,
            self.id(),
        )?;
        let gs = plain(&named);
        let m = gram_products(problem, &gs, &identity(&named), ctx)?;
        let mut rng = start.rng();
        let labels = initial_labels(&gs, run.k, run.init, p.values.random_labels, &mut rng)?;
        let settings = Settings {
            inner_tol: p.values.inner_tol,
            max_sweeps: p.values.max_sweeps,
            tol: p.values.tol,
            max_iter: p.values.max_iter,
            code_qp: p.values.code_qp,
        };
        let mut fit = dmkkm_loop(&gs, &m, labels, run.k, settings, ctx)?;
        fit.extra.kernels = Some(describe_all(&named));
        fit.extra.kernel_set = Some(p.kernel_set.clone());
        fit.warnings.extend(guard_warnings(&gs));
        Ok(fit)
    }
}

/// The `kernels` and `views` options as a kernel source, [`DEFAULT_POST`]
/// applied to every spec that does not set its own flags.
///
/// # Errors
/// [`Error::Param`] for a list or views that do not parse, or kernels the
/// data cannot give (see [`KernelSource::parse`]).
pub fn kernel_source(problem: &Problem, cfg: &RunConfig) -> Result<KernelSource> {
    KernelSource::parse(
        problem,
        cfg.option("kernels", AUTO),
        AUTO,
        Some(cfg.option("views", "none")),
        DEFAULT_POST,
    )
}

/// Which kernel set the `kernels` and `views` options give, and why.
pub fn kernel_set_of(problem: &Problem, cfg: &RunConfig) -> crate::solver::KernelSet {
    kernel_set(
        problem,
        cfg.option("kernels", AUTO),
        Some(cfg.option("views", "none")),
    )
}

/// The kernel matrices of the source, named. The one place the
/// multiple-kernel algorithms here acquire their kernels.
pub fn grams(
    problem: &Problem,
    source: &KernelSource,
    sigma: f64,
    max_memory: Option<u64>,
    ctx: &Ctx,
    algo: &str,
) -> Result<Vec<NamedGram>> {
    // The kernels and the dense n×n matrix each algorithm here holds beside
    // them (K_α, or K_γ), counted together before anything is built.
    let n = problem.n() as f64;
    guard_source_with(
        problem,
        algo,
        source,
        Some((n * n * 8.0, "a dense n×n combined kernel")),
        max_memory,
    )?;
    let named = kernel_grams(problem, source, sigma, max_memory, ctx, algo)?;
    if named.is_empty() {
        return Err(Error::param(format!("{algo}: no kernel to run on")));
    }
    Ok(named)
}

/// The matrices alone, in α's order.
pub fn plain(named: &[NamedGram]) -> Vec<Arc<Gram>> {
    named.iter().map(|g| g.gram.clone()).collect()
}

/// What identifies a kernel list in the problem's cache: a view's or a
/// precomputed kernel's name with its resolved spec (two views can resolve
/// to the same spec).
pub fn identity(named: &[NamedGram]) -> String {
    named
        .iter()
        .map(|g| {
            format!(
                "{}={}",
                g.part.as_deref().unwrap_or(""),
                g.gram.spec().key()
            )
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// One entry per kernel, in α's order: the spec as given, as resolved, and
/// the view or precomputed kernel it belongs to.
pub fn describe_all(named: &[NamedGram]) -> Vec<KernelInfo> {
    named
        .iter()
        .map(|g| KernelInfo {
            given: Some(g.given.clone()),
            name: g.part.clone(),
            ..kernel::describe(&g.gram)
        })
        .collect()
}

/// One warning per kernel whose normalisation met a zero diagonal.
pub fn guard_warnings(gs: &[Arc<Gram>]) -> Vec<String> {
    gs.iter()
        .filter(|g| g.guarded() > 0)
        .map(|g| {
            format!(
                "kernel {}: {} point(s) had a zero or negative diagonal when normalising (after centring: at the feature-space mean); they were given a unit diagonal and no similarity to other points",
                g.spec(),
                g.guarded()
            )
        })
        .collect()
}

/// The initial partition, every cluster non-empty (see the module docs).
///
/// # Errors
/// As the seeding ([`Error::Data`] for fewer distinct points than k).
pub fn initial_labels<R: Rng>(
    gs: &[Arc<Gram>],
    k: usize,
    init: Init,
    random_labels: bool,
    rng: &mut R,
) -> Result<Vec<usize>> {
    let n = gs[0].n();
    if k == 0 || k > n {
        return Err(Error::param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    if random_labels {
        let mut labels: Vec<usize> = (0..n)
            .map(|i| if i < k { i } else { rng.random_range(0..k) })
            .collect();
        labels.shuffle(rng);
        return Ok(labels);
    }
    let seeds = init::choose_seeds(n, k, init, rng, |c| kernel::mix_dists(gs, c))?;
    let d = kernel::mix_dists(gs, &seeds);
    let mut labels: Vec<usize> = d
        .rows()
        .into_iter()
        .map(|r| {
            let mut best = 0;
            for j in 1..r.len() {
                if r[j] < r[best] {
                    best = j;
                }
            }
            best
        })
        .collect();
    // A duplicate of a seed may tie with it; the seed keeps its cluster.
    for (j, &s) in seeds.iter().enumerate() {
        labels[s] = j;
    }
    Ok(labels)
}

/// The loop settings of [`dmkkm_loop`].
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub inner_tol: f64,
    pub max_sweeps: usize,
    pub tol: f64,
    pub max_iter: usize,
    pub code_qp: bool,
}

/// Eq. 11: αᵀMα − 2αᵀd + c.
pub fn objective(m: &[f64], d: &[f64], alpha: &[f64], c: usize) -> f64 {
    simplex_qp::objective(m, d, alpha) + c as f64
}

/// Algorithm 2 from `labels` (every cluster 0..k non-empty) and uniform α.
/// The Fit's objective is Eq. 11 at its labels and kernel weights.
///
/// # Errors
/// [`Error::Cancelled`].
pub fn dmkkm_loop(
    gs: &[Arc<Gram>],
    m: &[f64],
    labels: Vec<usize>,
    k: usize,
    s: Settings,
    ctx: &Ctx,
) -> Result<Fit> {
    let v = gs.len();
    assert!(v > 0, "dmkkm needs at least one kernel");
    let mut step = DmkkmStep {
        gs,
        m,
        labels,
        k,
        alpha: vec![1.0 / v as f64; v],
        used: vec![1.0 / v as f64; v],
        d: vec![0.0; v],
        prev: None,
        s,
        ctx,
        phases: Phases::default(),
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter: s.max_iter,
        k,
        events: true,
    };
    let mut fit = iterate(&mut step, how, ctx)?;
    // The α the last objective was evaluated at.
    fit.kernel_weights = Some(step.used);
    fit.extra.phases = Some(step.phases);
    Ok(fit)
}

/// One outer iteration: the F-step on K_α, d at the new F, Eq. 11; the
/// α-step in `advance`.
struct DmkkmStep<'a> {
    gs: &'a [Arc<Gram>],
    m: &'a [f64],
    labels: Vec<usize>,
    k: usize,
    /// α after the last α-step.
    alpha: Vec<f64>,
    /// α of the last evaluation.
    used: Vec<f64>,
    d: Vec<f64>,
    prev: Option<f64>,
    s: Settings,
    ctx: &'a Ctx,
    phases: Phases,
}

impl Step for DmkkmStep<'_> {
    fn eval(&mut self, _it: Iteration) -> Result<Eval> {
        let t0 = Instant::now();
        let ka = combine(self.gs, &self.alpha);
        let done = f_step(
            ka.view(),
            &mut self.labels,
            self.k,
            self.s.inner_tol,
            self.s.max_sweeps,
            self.ctx,
        )?;
        drop(ka);
        let ph = &mut self.phases;
        ph.f_steps += 1;
        ph.sweeps += done.sweeps;
        ph.moves += done.moves;
        ph.f_step_secs += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        self.d = cluster_alignment(self.gs, &self.labels, self.k);
        self.phases.alpha_step_secs += t0.elapsed().as_secs_f64();
        self.used.clone_from(&self.alpha);
        let c = self
            .labels
            .iter()
            .fold(vec![false; self.k], |mut seen, &l| {
                seen[l] = true;
                seen
            });
        let c = c.iter().filter(|&&b| b).count();
        let obj = objective(self.m, &self.d, &self.alpha, c);
        let settled = self
            .prev
            .is_some_and(|p| (p - obj) / p.abs().max(f64::MIN_POSITIVE) < self.s.tol);
        self.prev = Some(obj);
        Ok(Eval::new(obj, self.labels.clone(), settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let lin: Vec<f64> = if self.s.code_qp {
            self.d.iter().map(|x| 2.0 * x).collect()
        } else {
            self.d.clone()
        };
        let t0 = Instant::now();
        self.alpha = simplex_qp::solve(self.m, &lin);
        self.phases.alpha_steps += 1;
        self.phases.alpha_step_secs += t0.elapsed().as_secs_f64();
        Ok(())
    }

    fn kernel_weights(&self) -> Option<Vec<f64>> {
        Some(self.alpha.clone())
    }
}
