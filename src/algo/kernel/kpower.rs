//! Kernel power k-means (KPK; Paul, Chakraborty, Das & Xu, "Kernel k-means,
//! by all means", Algorithm 1). Method:
//! docs/methods/kernel-power-kmeans.md#kernel-power-k-means.
//!
//! Power k-means in a kernel's feature space. The centroids are never
//! formed: the state is the n×k weight matrix W (kept column-normalised,
//! Ω) and s. Each iteration is one matrix product G = K·Ω, the distances
//! D_ij = K_ii + ω_jᵀKω_j − 2G_ij (eq. 7), and the log-domain MM weights
//! of `weights.rs`. Labels are argmax_j W_ij = argmin_j D_ij. With the
//! linear kernel it is exactly power k-means; as s → −∞ it is kernel k-means.

use crate::error::Result;
use crate::kernel::{self, Gram, KernelChoice};
use crate::solver::iterate::{Eval, Finish, Iteration, Loop, Rule, Step, iterate};
use crate::solver::params::declare_params;
use crate::solver::specs::{max_iter_spec, soft_tol_spec, tol_spec};
use crate::solver::stopping::{Schedule, weighted_softness, zero_tolerance};
use crate::solver::weights::{advance_omega, weighted_power_objective, weighted_power_step};
use crate::solver::{Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory};
use ndarray::Array2;

pub struct KernelPower;

declare_params! {
    /// The declared parameters of `kpower`.
    pub struct KpowerValues {
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

/// The parameters of `kpower`.
#[derive(Debug, Clone, PartialEq)]
pub struct KpowerParams {
    pub kernel: KernelChoice,
    pub values: KpowerValues,
}

impl Solver for KernelPower {
    type Params = KpowerParams;
    fn id(&self) -> &'static str {
        "kpower"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            sample_weights: true,
            ..crate::solver::Caps::new(crate::solver::Family::Kernel, "KernelPowerKMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Kernel)
    }
    fn name(&self) -> &'static str {
        "Kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Paul, Chakraborty, Das & Xu (Algorithm 1): power k-means in a kernel's feature space, annealing s → −∞ towards kernel k-means; one n×n×k matrix product per iteration on the cached Gram matrix."
    }
    fn params(&self) -> Vec<ParamSpec> {
        KpowerValues::specs()
    }
    fn auto_param(&self, name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        debug_assert_eq!(name, "sigma");
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernel", "gaussian")]
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<KpowerParams> {
        let values = KpowerValues::read(&cfg.params)?;
        Ok(KpowerParams {
            kernel: KernelChoice::parse_psd(cfg.option("kernel", "gaussian"), values.sigma)?,
            values,
        })
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &KpowerParams, ctx: &Ctx) -> Result<()> {
        kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id()).map(|_| ())
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &KpowerParams) -> StartMemory {
        // ω, the feature-space distances and the four arrays of the weight step.
        StartMemory::seeding(problem.n(), run.k, run.init).plus_nk(
            problem.n(),
            run.k,
            6,
            "arrays of weights and distances",
        )
    }
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KpowerParams,
        _fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let gram = kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id())?;
        Ok(vec![(crate::solver::SpaceBlock::Gram(gram), 1.0)])
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KpowerParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let gram = kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id())?;
        let mut rng = start.rng();
        let w = problem.sample_weights();
        let seeds = kernel::weighted_seeds(&gram, w, run.k, run.init, &mut rng)?;
        let mut fit = weighted_kpower_loop(
            &gram,
            w,
            kernel::seed_omega(gram.n(), &seeds),
            &p.values.schedule,
            p.values.tol,
            p.values.soft_tol,
            p.values.max_iter,
            ctx,
        )?;
        fit.extra.kernel = Some(kernel::describe(&gram));
        Ok(fit)
    }
}

/// KPK from the column-normalised weights `omega` (n×k; a seed-indicator
/// matrix for a start from seed points). The same iteration as
/// `power_mean::power_loop_hard` in feature space, so that with the linear
/// kernel the two agree.
pub fn kpower_loop(
    gram: &Gram,
    omega: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    soft_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    weighted_kpower_loop(gram, None, omega, sched, tol, soft_tol, max_iter, ctx)
}

/// [`kpower_loop`] on rows weighted by sample weights `w` (None: all 1):
/// a row's MM weights are multiplied by its weight, the objective and the
/// softness are weighted sums.
#[allow(clippy::too_many_arguments)]
pub fn weighted_kpower_loop(
    gram: &Gram,
    w: Option<&[f64]>,
    omega: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    soft_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = omega.ncols();
    let mut step = KpowerStep {
        gram,
        w,
        zero_tol: zero_tolerance(gram.diag()),
        omega,
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
    iterate(&mut step, how, ctx)
}

/// One KPK iteration: G = K·Ω, the feature-space distances (eq. 7) and
/// the log-domain MM weights; the next Ω normalises their columns.
struct KpowerStep<'a> {
    gram: &'a Gram,
    /// Sample weights (None: all 1).
    w: Option<&'a [f64]>,
    zero_tol: f64,
    omega: Array2<f64>,
    /// Log MM weights of the last evaluation.
    log_w: Option<Array2<f64>>,
}

impl Step for KpowerStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let s = it.s.expect("the power-mean rule gives s");
        let d = kernel::feature_dists(self.gram, self.omega.view());
        let step = weighted_power_step(d.view(), s, self.zero_tol, self.w);
        let objective_ref = it
            .s_ref
            .map(|r| weighted_power_objective(d.view(), r, self.zero_tol, self.w));
        self.log_w = Some(step.log_w);
        Ok(Eval {
            objective: step.objective,
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
}
