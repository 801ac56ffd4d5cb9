//! Power k-means on Euclidean rows (Xu & Lange 2019; spec
//! kernel-power-kmeans.md §1–3): the iteration every Euclidean member of
//! the family runs — `power`, `khm`, `rff-power` and the hard (s = −∞)
//! k-means start of the RFF algorithms. Each iteration is one fused pass
//! over the rows (`sweep`): the n×k squared distances, the log-domain MM
//! weights and the next centres ΩᵀX.

use super::fit::{Fit, TracePoint};
use super::progress::{Ctx, report};
use super::rows::Rows;
use super::stopping::{PeriodCheck, Schedule, has_empty, zero_tolerance};
use super::sweep::sweep;
use crate::error::Result;
use ndarray::Array2;

/// Power k-means from the given centres on the rows of `x` (which may be
/// the data or a feature map of it). Reused by every Euclidean member of
/// the family. The stopping rule is `PeriodCheck` alone; see
/// `power_loop_hard` for the hardness condition.
pub fn power_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    power_loop_hard(x, x_norms, centres, sched, tol, max_iter, 1.0, ctx)
}

/// `power_loop` whose stopping rule, while s still anneals, also needs
/// every cluster non-empty and the memberships nearly hard (softness ≤
/// `soft_tol`, as `kpower`'s): in high dimensions the centres nearly merge
/// at s = −1, the objective stalls there, and stopping would freeze the
/// merge (isolet at s₀ = −1: 13 of 26 clusters empty after 35 iterations).
#[allow(clippy::too_many_arguments)]
pub fn power_loop_hard<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    mut centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    soft_tol: f64,
    ctx: &Ctx,
) -> Result<Fit> {
    let x: Rows = x.into();
    let k = centres.nrows();
    let zero_tol = zero_tolerance(x_norms);
    let mut s = sched.s0;
    let mut trace: Vec<TracePoint> = Vec::new();
    let mut labels: Vec<usize> = Vec::new();
    let mut converged_flag = false;
    let mut check = PeriodCheck::new(sched.period, tol);
    for m in 1..=max_iter {
        ctx.check()?;
        let s_ref = check.reference_s(m).filter(|&r| r != s);
        let sw = sweep(x, x_norms, centres.view(), s, s_ref, zero_tol);
        trace.push(TracePoint {
            iter: m,
            s: Some(s),
            objective: sw.objective,
            kernel_weights: None,
        });
        report(ctx, m, Some(s), sw.objective, &sw.labels, &labels, k);
        labels = sw.labels;
        let still = check.converged(m, s, sw.objective, |_| sw.objective_ref.expect("asked for"));
        let annealing = s > sched.s_min && sched.eta > 1.0;
        let soft = soft_tol < 1.0 && (has_empty(&labels, k) || sw.softness > soft_tol);
        if still && !(annealing && soft) {
            converged_flag = true;
            break;
        }
        if m == max_iter {
            break;
        }
        centres = sw.next;
        s = sched.next(s, m);
    }
    let objective = trace.last().map_or(0.0, |t| t.objective);
    Ok(Fit {
        labels,
        centroids: Some(centres),
        objective,
        iterations: trace.len(),
        trace,
        converged: converged_flag,
        ..Fit::default()
    })
}
