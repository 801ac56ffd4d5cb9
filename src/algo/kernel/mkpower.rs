//! Multi-kernel power k-means (MKPK; Paul, Chakraborty, Das & Xu,
//! Algorithm 2, with the corrections of
//! docs/methods/kernel-power-kmeans.md#corrected-formulas).
//!
//! L Gram matrices K_l and kernel weights α on the simplex. One weight
//! matrix W is shared by every kernel; per iteration:
//! 1. per-kernel distances D⁽ˡ⁾ from eq. 7 (one product K_l·Ω each);
//! 2. combined distances D^α = Σ_l α_l D⁽ˡ⁾ and the MM weights W at s;
//! 3. α ← softmax(−E/λ), E_l = Σ_ij w_ij D⁽ˡ⁾_ij with the raw weights W
//!    (stable form: exp(−(E_l − min E)/λ));
//! 4. every T iterations s ← η·s.
//!
//! The objective is Σ_i M_s(D^α_i·) + λ Σ_l α_l log α_l; it never increases
//! at fixed s (checked in tests/kernel.rs).
//!
//! λ (docs/methods/kernel-power-kmeans.md#choosing-lambda): E_l grows like n × a typical distance, so an absolute λ would
//! have to follow the data's size. The parameter `lambda` is therefore
//! relative: λ = lambda × median_l E_l at the first iteration of each run,
//! then held fixed for that run. Default 1: kernels whose within-cluster
//! scatter differs from the best one's by one median scatter get e⁻¹ of its
//! weight. (0.1 makes α nearly one-hot, 10 nearly uniform.)

use crate::error::Result;
use crate::kernel::inputs::{AUTO, KernelSource, NamedGram, kernel_grams, kernel_set};
use crate::kernel::{self, Gram, Post};
use crate::solver::init;
use crate::solver::iterate::{Eval, Finish, Iteration, Loop, Rule, Step, iterate};
use crate::solver::mix::{alpha_step, choose_lambda, neg_entropy};
use crate::solver::params::{Default, ParamSpec, Scale, declare_params};
use crate::solver::specs::{max_iter_spec, soft_tol_spec, tol_spec};
use crate::solver::stopping::{Schedule, weighted_softness, zero_tolerance};
use crate::solver::weights::{advance_omega, weighted_power_objective, weighted_power_step};
use crate::solver::{
    Common, Ctx, Fit, Init, KernelInfo, Problem, RunConfig, Solver, Start, StartMemory,
};
use ndarray::{Array2, Zip};

pub struct MultiKernelPower;

/// Post-processing applied to every kernel of the list unless its spec
/// says otherwise: unit diagonal, then min–max to [0, 1]
/// (docs/methods/kernel-power-kmeans.md#the-12-kernel-set).
pub const DEFAULT_POST: Post = Post {
    center: false,
    normalize: true,
    rescale: true,
};

declare_params! {
    /// The declared parameters of `mkpower`.
    pub struct MkpowerValues {
        /// λ relative to the median per-kernel scatter.
        lambda: f64 = ParamSpec {
            name: "lambda",
            symbol: "λ",
            default: Default::Fixed(1.0),
            min: 1e-4,
            max: 1e4,
            scale: Scale::Log,
            step: 1.25,
            coarse: 10.0,
            integer: false,
            help: "Entropy penalty on α, relative: λ = lambda × median_l E_l (the per-kernel weighted scatter at the first iteration). Small: α concentrates on one kernel; large: α stays uniform.",
        },
        /// Bandwidth of the distance kernels whose spec gives none.
        sigma: f64 = kernel::sigma_spec(),
        schedule: Schedule = Schedule::specs(),
        tol: f64 = tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ),
        soft_tol: f64 = soft_tol_spec(),
        max_iter: usize = max_iter_spec(500.0),
    }
}

/// The parameters of `mkpower`.
#[derive(Debug, Clone, PartialEq)]
pub struct MkpowerParams {
    /// The kernels of `--kernels` (and `--views`), [`DEFAULT_POST`]
    /// applied where the spec does not say.
    pub kernels: KernelSource,
    /// Which kernel set the options gave, and why (reported).
    pub kernel_set: crate::solver::KernelSet,
    pub values: MkpowerValues,
}

impl Solver for MultiKernelPower {
    type Params = MkpowerParams;
    fn id(&self) -> &'static str {
        "mkpower"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            sample_weights: true,
            ..crate::solver::Caps::new(crate::solver::Family::Kernel, "MultiKernelPowerKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Kernels
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Kernel)
    }
    fn name(&self) -> &'static str {
        "Multi-kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Paul, Chakraborty, Das & Xu (Algorithm 2): kernel power k-means on a learned convex combination of L kernels, weights α on the simplex by an entropy-penalised softmax; default (--kernels auto) 12 kernels (7 Gaussian, 4 polynomial, cosine) on all features, or one Gaussian per view with --views (its own σ rule); each normalised and rescaled to [0, 1]."
    }
    fn params(&self) -> Vec<ParamSpec> {
        MkpowerValues::specs()
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernels", AUTO), ("views", "none")]
    }
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<MkpowerParams> {
        let kernels = KernelSource::parse(
            problem,
            cfg.option("kernels", AUTO),
            AUTO,
            Some(cfg.option("views", "none")),
            DEFAULT_POST,
        )?;
        Ok(MkpowerParams {
            kernels,
            kernel_set: kernel_set(
                problem,
                cfg.option("kernels", AUTO),
                Some(cfg.option("views", "none")),
            ),
            values: MkpowerValues::read(&cfg.params)?,
        })
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &MkpowerParams, ctx: &Ctx) -> Result<()> {
        grams(problem, p, run.max_memory, ctx).map(|_| ())
    }
    fn start_memory(&self, problem: &Problem, run: &Common, p: &MkpowerParams) -> StartMemory {
        // ω, one distance array per kernel, their mix and the weight step's.
        StartMemory::seeding(problem.n(), run.k, run.init).plus_nk(
            problem.n(),
            run.k,
            7 + p.kernels.count(problem),
            "arrays of weights and distances",
        )
    }
    /// K_α = Σ α_l K_l with the final α.
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MkpowerParams,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let gs = grams(problem, p, run.max_memory, ctx)?;
        let w = fit.kernel_weights.clone().unwrap_or_default();
        Ok(crate::kernel::inputs::weighted_blocks(&gs, w))
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MkpowerParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let gs = grams(problem, p, run.max_memory, ctx)?;
        let refs: Vec<&Gram> = gs.iter().map(|g| g.gram.as_ref()).collect();
        let mut rng = start.rng();
        let w = problem.sample_weights();
        let seeds = weighted_combined_seeds(&refs, w, run.k, run.init, &mut rng)?;
        let mut fit = weighted_mkpower_loop(
            &refs,
            w,
            kernel::seed_omega(problem.n(), &seeds),
            &p.values.schedule,
            p.values.lambda,
            p.values.tol,
            p.values.soft_tol,
            p.values.max_iter,
            ctx,
        )?;
        // One entry per kernel, in α's order: the spec as given (defaults
        // applied) and as resolved, and the view or precomputed kernel.
        let list = gs
            .into_iter()
            .map(|g| KernelInfo {
                given: Some(g.given),
                name: g.part,
                ..kernel::describe(&g.gram)
            })
            .collect();
        fit.extra.kernels = Some(list);
        fit.extra.kernel_set = Some(p.kernel_set.clone());
        Ok(fit)
    }
}

/// The Gram matrices of the `kernels` and `views` options, named.
fn grams(
    problem: &Problem,
    p: &MkpowerParams,
    max_memory: Option<u64>,
    ctx: &Ctx,
) -> Result<Vec<NamedGram>> {
    kernel_grams(
        problem,
        &p.kernels,
        p.values.sigma,
        max_memory,
        ctx,
        "mkpower",
    )
}

/// Seeds in the feature space of the uniform combination Σ_l K_l / L,
/// drawn by the rows' sample weights `w` (None: all 1).
pub fn weighted_combined_seeds<R: rand::Rng>(
    grams: &[&Gram],
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    init::weighted_seeds(grams[0].n(), w, k, init, rng, |c| {
        kernel::mix_dists(grams, c)
    })
}

/// MKPK from the column-normalised weights `omega` (a seed indicator for a
/// start from seed rows). `lambda_rel` sets λ relative to the median E_l
/// of the first iteration (see the module docs).
#[allow(clippy::too_many_arguments)]
pub fn mkpower_loop(
    grams: &[&Gram],
    omega: Array2<f64>,
    sched: &Schedule,
    lambda_rel: f64,
    tol: f64,
    soft_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    weighted_mkpower_loop(
        grams, None, omega, sched, lambda_rel, tol, soft_tol, max_iter, ctx,
    )
}

/// [`mkpower_loop`] on rows weighted by sample weights `w` (None: all 1):
/// a row's MM weights are multiplied by its weight, so the objective, the
/// per-kernel scatters E_l (hence α and λ) and the softness are weighted
/// sums.
#[allow(clippy::too_many_arguments)]
pub fn weighted_mkpower_loop(
    grams: &[&Gram],
    w: Option<&[f64]>,
    omega: Array2<f64>,
    sched: &Schedule,
    lambda_rel: f64,
    tol: f64,
    soft_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let l_count = grams.len();
    assert!(l_count > 0, "mkpower needs at least one kernel");
    let k = omega.ncols();
    let zero_tol = grams
        .iter()
        .map(|g| zero_tolerance(g.diag()))
        .fold(0.0, f64::max);
    let mut step = MkpowerStep {
        grams,
        w,
        zero_tol,
        omega,
        alpha: vec![1.0 / l_count as f64; l_count],
        lambda: f64::NAN,
        lambda_rel,
        log_w: None,
    };
    let how = Loop {
        rule: Rule::PowerMean {
            schedule: *sched,
            tol,
            soft_tol,
            finish: Finish::Off,
        },
        max_iter,
        k,
        events: true,
    };
    let mut fit = iterate(&mut step, how, ctx)?;
    fit.kernel_weights = Some(step.alpha);
    fit.extra.lambda = Some(step.lambda);
    Ok(fit)
}

/// One MKPK iteration: per-kernel distances from the shared Ω, their
/// α-mix, the MM weights at s, then α from the per-kernel scatter E_l.
struct MkpowerStep<'a> {
    grams: &'a [&'a Gram],
    /// Sample weights (None: all 1).
    w: Option<&'a [f64]>,
    zero_tol: f64,
    omega: Array2<f64>,
    /// The kernel weights after the last evaluation.
    alpha: Vec<f64>,
    /// Absolute λ, fixed at the first iteration.
    lambda: f64,
    lambda_rel: f64,
    log_w: Option<Array2<f64>>,
}

impl Step for MkpowerStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let s = it.s.expect("the power-mean rule gives s");
        let (alpha, zero_tol) = (&self.alpha, self.zero_tol);
        let ds: Vec<Array2<f64>> = self
            .grams
            .iter()
            .map(|g| kernel::feature_dists(g, self.omega.view()))
            .collect();
        let mut dalpha = &ds[0] * alpha[0];
        for (d, &a) in ds.iter().zip(alpha).skip(1) {
            dalpha.scaled_add(a, d);
        }
        let step = weighted_power_step(dalpha.view(), s, zero_tol, self.w);
        // E_l with the raw (unnormalised) weights.
        let w = step.log_w.mapv(f64::exp);
        let e: Vec<f64> = ds
            .iter()
            .map(|d| {
                let mut acc = 0.0;
                Zip::from(&w).and(d).for_each(|&a, &b| acc += a * b);
                acc
            })
            .collect();
        if it.m == 1 {
            self.lambda = choose_lambda(&e, self.lambda_rel);
        }
        let ent = neg_entropy(alpha);
        let objective = step.objective + self.lambda * ent;
        let objective_ref = it.s_ref.map(|r| {
            weighted_power_objective(dalpha.view(), r, zero_tol, self.w) + self.lambda * ent
        });
        self.alpha = alpha_step(&e, self.lambda);
        self.log_w = Some(step.log_w);
        Ok(Eval {
            objective,
            objective_ref,
            labels: step.labels,
            settled: false,
        })
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        advance_omega(&mut self.omega, self.log_w.take());
        Ok(())
    }

    fn softness(&self) -> f64 {
        self.log_w
            .as_ref()
            .map_or(0.0, |l| weighted_softness(l, self.w))
    }

    fn kernel_weights(&self) -> Option<Vec<f64>> {
        Some(self.alpha.clone())
    }
}
