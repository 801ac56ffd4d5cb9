//! Kernel power k-means (KPK; Paul, Chakraborty, Das & Xu, "Kernel k-means,
//! by all means", Algorithm 1). Spec: kernel-power-kmeans.md §1, §2.4, §3.
//!
//! Power k-means in a kernel's feature space. The centroids are never
//! formed: the state is the n×k weight matrix W (kept column-normalised,
//! Ω) and s. Each iteration is one matrix product G = K·Ω, the distances
//! D_ij = K_ii + ω_jᵀKω_j − 2G_ij (eq. 7), and the log-domain MM weights
//! of `weights.rs`. Labels are argmax_j W_ij = argmin_j D_ij. With the
//! linear kernel it is exactly power k-means; as s → −∞ it is kernel k-means.

use super::params::ParamSpec;
use super::power::{PeriodCheck, Schedule, max_iter_spec, report, schedule_specs, tol_spec};
use super::weights::{normalize_columns, power_objective, power_step};
use super::{Algorithm, Ctx, Fit, Problem, RunConfig, Start, TracePoint};
use crate::error::Result;
use crate::kernel::{self, Gram};
use ndarray::{Array2, Axis};

pub struct KernelPower;

impl Algorithm for KernelPower {
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
    fn prepare(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<()> {
        kernel::single_gram(problem, cfg, ctx, self.id()).map(|_| ())
    }
    fn start_memory(&self, problem: &Problem, cfg: &RunConfig) -> super::StartMemory {
        // ω, the feature-space distances and the four arrays of the weight step.
        super::StartMemory::seeding(problem.n(), cfg.k, cfg.init).plus_nk(
            problem.n(),
            cfg.k,
            6,
            "arrays of weights and distances",
        )
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let gram = kernel::single_gram(problem, cfg, ctx, self.id())?;
        let mut rng = start.rng();
        let seeds = kernel::seeds(&gram, cfg.k, cfg.init, &mut rng)?;
        let p = &cfg.params;
        let mut fit = kpower_loop(
            &gram,
            kernel::seed_omega(gram.n(), &seeds),
            &Schedule::from_params(p),
            p.get("tol"),
            p.get("soft_tol"),
            p.get_usize("max_iter"),
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
    let zero_tol = super::power::zero_tolerance(gram.diag());
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

/// Whether some cluster has no point (its centre merged with another).
pub fn has_empty(labels: &[usize], k: usize) -> bool {
    let mut seen = vec![false; k];
    for &l in labels {
        seen[l] = true;
    }
    seen.iter().any(|&v| !v)
}

/// Mean share of a point's MM weight that lies outside its own cluster,
/// (1/n) Σᵢ (1 − maxⱼ wᵢⱼ / Σⱼ wᵢⱼ), from log weights: 0 for hard
/// assignments, 1 − 1/k when every centre is equally close (merged centres).
pub fn softness(log_w: &ndarray::Array2<f64>) -> f64 {
    let n = log_w.nrows();
    if n == 0 {
        return 0.0;
    }
    let mut total = 0.0;
    for row in log_w.axis_iter(Axis(0)) {
        let mx = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if mx == f64::NEG_INFINITY {
            continue;
        }
        let sum: f64 = row.iter().map(|&v| (v - mx).exp()).sum();
        total += 1.0 - 1.0 / sum;
    }
    total / n as f64
}

/// The hardness condition of the power family's stopping rule (power,
/// kpower, mkpower).
pub fn soft_tol_spec() -> ParamSpec {
    ParamSpec {
        name: "soft_tol",
        symbol: "ε_w",
        default: super::params::Default::Fixed(1e-2),
        min: 0.0,
        max: 1.0,
        scale: super::params::Scale::Log,
        step: 2.0,
        coarse: 10.0,
        integer: false,
        help: "While s is still annealing, convergence also needs the memberships to be nearly hard: mean share of a point's weight outside its cluster ≤ soft_tol (merged or near-merged centres separate only as s decreases). 1 turns the condition off.",
    }
}
