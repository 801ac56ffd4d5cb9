//! Power k-means on Euclidean rows (Xu & Lange 2019; spec
//! kernel-power-kmeans.md §1–3): the iteration every Euclidean member of
//! the family runs — `power`, `khm`, `rff-power` and the hard (s = −∞)
//! k-means start of the RFF algorithms. Each iteration is one fused pass
//! over the rows (`sweep`): the n×k squared distances, the log-domain MM
//! weights and the next centres ΩᵀX.

use super::assign::{cluster_sums, full_pass};
use super::fit::Fit;
use super::iterate::{Eval, Iteration, Loop, Rule, Step, Stop, iterate_until};
use super::lloyd::lloyd_loop;
use super::progress::Ctx;
use super::rows::Centres;
use super::rows::Rows;
use super::stopping::{Schedule, zero_tolerance};
use super::sweep::{Sweep, sweep};
use crate::error::Result;
use ndarray::Array2;

/// Power k-means from the given centres on the rows of `x` (which may be
/// the data or a feature map of it). Reused by every Euclidean member of
/// the family. The stopping rule is the period check alone; see
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
    power_loop_hard(x, x_norms, centres, sched, tol, max_iter, 1.0, false, ctx)
}

/// `power_loop` whose stopping rule, while s still anneals, also needs
/// every cluster non-empty and the memberships nearly hard (softness ≤
/// `soft_tol`, `stopping::still_soft`): in high dimensions the centres
/// nearly merge at s = −1, the objective stalls there, and stopping would
/// freeze the merge (isolet at s₀ = −1: 13 of 26 clusters empty after 35
/// iterations). With `finish`, an annealing that has settled (see
/// `Rule::PowerMean`) ends with bounded Lloyd from its centres.
#[allow(clippy::too_many_arguments)]
pub fn power_loop_hard<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    soft_tol: f64,
    finish: bool,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = centres.nrows();
    let x = x.into();
    let mut step = PowerStep {
        x,
        x_norms,
        zero_tol: zero_tolerance(x_norms),
        centres,
        swept: None,
    };
    let how = Loop {
        rule: Rule::PowerMean {
            schedule: *sched,
            tol,
            soft_tol,
            finish,
        },
        max_iter,
        k,
        events: true,
    };
    let (mut fit, stop) = iterate_until(&mut step, how, ctx)?;
    if stop != Stop::Settled {
        fit.centroids = Some(step.centres);
        return Ok(fit);
    }
    // The annealing has settled: what is left of s → −∞ is Lloyd's
    // iteration, from the centres the labels were settled at.
    let hard = lloyd_loop(
        x,
        x_norms,
        step.centres,
        0.0,
        max_iter - fit.iterations,
        &ctx.continuing(fit.iterations),
    )?;
    fit.trace.extend(hard.trace);
    Ok(Fit {
        iterations: fit.trace.len(),
        objective: hard.objective,
        labels: hard.labels,
        centroids: hard.centroids,
        converged: hard.converged,
        trace: fit.trace,
        ..fit
    })
}

/// One iteration: a fused sweep over the rows at the current centres.
struct PowerStep<'x, 'n> {
    x: Rows<'x>,
    x_norms: &'n [f64],
    zero_tol: f64,
    centres: Array2<f64>,
    /// The last sweep (its next centres and softness).
    swept: Option<Sweep>,
}

impl Step for PowerStep<'_, '_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let s = it.s.expect("the power-mean rule gives s");
        let mut sw = sweep(
            self.x,
            self.x_norms,
            self.centres.view(),
            s,
            it.s_ref,
            self.zero_tol,
        );
        let ev = Eval {
            objective: sw.objective,
            objective_ref: sw.objective_ref,
            labels: std::mem::take(&mut sw.labels),
            settled: false,
        };
        self.swept = Some(sw);
        Ok(ev)
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        if let Some(sw) = self.swept.take() {
            self.centres = sw.next;
        }
        Ok(())
    }

    fn softness(&self) -> f64 {
        self.swept.as_ref().map_or(0.0, |sw| sw.softness)
    }

    fn lloyd_fixed_point(&mut self, labels: &[usize]) -> bool {
        let k = self.centres.nrows();
        let (sums, counts) = cluster_sums(self.x, labels, k);
        if counts.contains(&0) {
            return false;
        }
        let means = &sums
            / &ndarray::Array1::from_iter(counts.iter().map(|&c| c as f64))
                .insert_axis(ndarray::Axis(1));
        let c = Centres::new(means.view(), &self.x);
        full_pass(self.x, self.x_norms, &c, false, false).labels == labels
    }
}
