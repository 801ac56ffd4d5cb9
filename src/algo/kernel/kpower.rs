//! Kernel power k-means (KPK; Paul, Chakraborty, Das & Xu, "Kernel k-means,
//! by all means", Algorithm 1). Spec: kernel-power-kmeans.md §1, §2.4, §3.
//!
//! Power k-means in a kernel's feature space. The centroids are never
//! formed: the state is the n×k weight matrix W (kept column-normalised,
//! Ω) and s. Each iteration is one matrix product G = K·Ω, the distances
//! D_ij = K_ii + ω_jᵀKω_j − 2G_ij (eq. 7), and the log-domain MM weights
//! of `weights.rs`. Labels are argmax_j W_ij = argmin_j D_ij. With the
//! linear kernel it is exactly power k-means; as s → −∞ it is kernel k-means.

use crate::error::Result;
use crate::kernel::{self, Gram, KernelChoice};
use crate::solver::progress::report;
use crate::solver::specs::{max_iter_spec, schedule_specs, soft_tol_spec, tol_spec};
use crate::solver::stopping::{PeriodCheck, Schedule, has_empty, softness, zero_tolerance};
use crate::solver::weights::{normalize_columns, power_objective, power_step};
use crate::solver::{
    Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory, TracePoint,
};
use ndarray::{Array2, Axis};

pub struct KernelPower;

/// The parameters of `kpower`.
#[derive(Debug, Clone, PartialEq)]
pub struct KpowerParams {
    pub kernel: KernelChoice,
    pub schedule: Schedule,
    pub tol: f64,
    pub soft_tol: f64,
    pub max_iter: usize,
}

impl Solver for KernelPower {
    type Params = KpowerParams;
    fn id(&self) -> &'static str {
        "kpower"
    }
    fn name(&self) -> &'static str {
        "Kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Paul, Chakraborty, Das & Xu (Algorithm 1): power k-means in a kernel's feature space, annealing s → −∞ towards kernel k-means; one n×n×k matrix product per iteration on the cached Gram matrix."
    }
    fn params(&self) -> Vec<ParamSpec> {
        let mut v = vec![kernel::sigma_spec()];
        v.extend(schedule_specs());
        v.push(tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ));
        v.push(soft_tol_spec());
        v.push(max_iter_spec(500.0));
        v
    }
    fn auto_param(&self, name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        debug_assert_eq!(name, "sigma");
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernel", "gaussian")]
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<KpowerParams> {
        let v = &cfg.params;
        Ok(KpowerParams {
            kernel: KernelChoice::parse(cfg.option("kernel", "gaussian"), v.real("sigma")?)?,
            schedule: Schedule::read(v)?,
            tol: v.real("tol")?,
            soft_tol: v.real("soft_tol")?,
            max_iter: v.count("max_iter")?,
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
        let seeds = kernel::seeds(&gram, run.k, run.init, &mut rng)?;
        let mut fit = kpower_loop(
            &gram,
            kernel::seed_omega(gram.n(), &seeds),
            &p.schedule,
            p.tol,
            p.soft_tol,
            p.max_iter,
            ctx,
        )?;
        fit.extra.insert("kernel".into(), kernel::describe(&[gram]));
        Ok(fit)
    }
}

/// KPK from the column-normalised weights `omega` (n×k; a seed-indicator
/// matrix for a start from seed points). Mirrors `power::power_loop`
/// step for step, so that with the linear kernel the two agree.
pub fn kpower_loop(
    gram: &Gram,
    mut omega: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    soft_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = omega.ncols();
    let zero_tol = zero_tolerance(gram.diag());
    let mut s = sched.s0;
    let mut trace: Vec<TracePoint> = Vec::new();
    let mut labels: Vec<usize> = Vec::new();
    let mut converged = false;
    let mut check = PeriodCheck::new(sched.period, tol);
    for m in 1..=max_iter {
        ctx.check()?;
        let d = kernel::feature_dists(gram, omega.view());
        let step = power_step(d.view(), s, zero_tol);
        trace.push(TracePoint {
            iter: m,
            s: Some(s),
            objective: step.objective,
            kernel_weights: None,
        });
        report(ctx, m, Some(s), step.objective, &step.labels, &labels, k);
        labels = step.labels;
        let still = check.converged(m, s, step.objective, |s_ref| {
            power_objective(d.view(), s_ref, zero_tol)
        });
        // While s still anneals, merged or near-merged centres are not a
        // solution yet (README, "Stopping rule").
        let annealing = s > sched.s_min && sched.eta > 1.0;
        if still && !(annealing && (has_empty(&labels, k) || softness(&step.log_w) > soft_tol)) {
            converged = true;
            break;
        }
        if m == max_iter {
            break;
        }
        let (next, alive) = normalize_columns(&step.log_w);
        for (j, col) in next.axis_iter(Axis(1)).enumerate() {
            // A column with no finite weight at all keeps its centroid.
            if alive[j] {
                omega.column_mut(j).assign(&col);
            }
        }
        s = sched.next(s, m);
    }
    let objective = trace.last().map_or(0.0, |t| t.objective);
    Ok(Fit {
        labels,
        centroids: None,
        objective,
        iterations: trace.len(),
        trace,
        converged,
        ..Fit::default()
    })
}
