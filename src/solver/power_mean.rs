//! Power k-means on Euclidean rows (Xu & Lange 2019;
//! docs/methods/power-kmeans.md#the-mm-step): the iteration every Euclidean member of
//! the family runs — `power`, `khm`, `rff-power` and the hard (s = −∞)
//! k-means start of the RFF algorithms. Each iteration is one fused pass
//! over the rows (`power_pass`): the n×k squared distances, the log-domain MM
//! weights and the next centres ΩᵀX.

use super::assign::{full_pass, weighted_cluster_sums};
use super::fit::Fit;
use super::iterate::{Eval, Finish, Iteration, Loop, LoopState, Rule, Step, Stop, iterate_until};
use super::lloyd::weighted_lloyd_loop;
use super::power_pass::{PassArgs, PowerPass, power_pass, power_pass_batch};
use super::progress::Ctx;
use super::rows::Centres;
use super::rows::Rows;
use super::stopping::{Schedule, zero_tolerance};
use crate::error::Result;
use ndarray::Array2;

/// Power k-means from the given centres on the rows of `x` (which may be
/// the data or a feature map of it). Reused by every Euclidean member of
/// the family. The stopping rule is the period check alone; see
/// `power_loop_hard` for the hardness condition.
#[allow(clippy::too_many_arguments)]
pub fn power_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    power_loop_hard(
        x,
        x_norms,
        w,
        centres,
        sched,
        tol,
        max_iter,
        1.0,
        Finish::Off,
        ctx,
    )
}

/// `power_loop` whose stopping rule, while s still anneals, also needs
/// every cluster non-empty and the memberships nearly hard (softness ≤
/// `soft_tol`, `stopping::still_soft`): in high dimensions the centres
/// nearly merge at s = −1, the objective stalls there, and stopping would
/// freeze the merge (isolet at s₀ = −1: 13 of 26 clusters empty after 35
/// iterations). `finish` says whether an annealing may end early (see
/// [`Finish`]), with bounded Lloyd from its centres.
#[allow(clippy::too_many_arguments)]
pub fn power_loop_hard<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    soft_tol: f64,
    finish: Finish,
    ctx: &Ctx,
) -> Result<Fit> {
    let x = x.into();
    let run = PowerRun {
        centres,
        schedule: *sched,
        tol,
        max_iter,
        soft_tol,
        finish,
        ctx: ctx.clone(),
    };
    let how = run.how();
    let mut step = PowerStep::new(x, x_norms, w, zero_tolerance(x_norms), run.centres);
    let (fit, stop) = iterate_until(&mut step, how, ctx)?;
    lloyd_finish(x, x_norms, w, step.centres, fit, stop, max_iter, ctx)
}

/// One run of [`power_batch`]: its start and settings, as
/// [`power_loop_hard`] takes them.
pub struct PowerRun {
    pub centres: Array2<f64>,
    pub schedule: Schedule,
    pub tol: f64,
    pub max_iter: usize,
    pub soft_tol: f64,
    pub finish: Finish,
    /// The run's own events and cancellation.
    pub ctx: Ctx,
}

impl PowerRun {
    fn how(&self) -> Loop {
        Loop {
            rule: Rule::PowerMean {
                schedule: self.schedule,
                tol: self.tol,
                soft_tol: self.soft_tol,
                finish: self.finish,
            },
            max_iter: self.max_iter,
            k: self.centres.nrows(),
            events: true,
        }
    }
}

/// Several [`power_loop_hard`] runs over the same rows in lockstep: every
/// iteration is one pass over the rows for all the runs still going
/// ([`power_pass_batch`]), so the rows are read once per iteration instead of
/// once per run. A run that stops (converged, its cap, cancelled) leaves
/// the batch; each result is bit-identical to the run alone.
pub fn power_batch<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    runs: Vec<PowerRun>,
) -> Vec<Result<Fit>> {
    let x = x.into();
    let zero_tol = zero_tolerance(x_norms);
    let mut hows = Vec::with_capacity(runs.len());
    let mut ctxs = Vec::with_capacity(runs.len());
    let mut steps = Vec::with_capacity(runs.len());
    let mut states = Vec::with_capacity(runs.len());
    for r in runs {
        let how = r.how();
        states.push(LoopState::new(how, &r.ctx));
        hows.push(how);
        steps.push(PowerStep::new(x, x_norms, w, zero_tol, r.centres));
        ctxs.push(r.ctx);
    }
    let mut out: Vec<Option<Result<Stop>>> = hows.iter().map(|_| None).collect();
    let mut active: Vec<usize> = (0..hows.len()).filter(|&i| hows[i].max_iter > 0).collect();
    for i in 0..hows.len() {
        if hows[i].max_iter == 0 {
            out[i] = Some(Ok(Stop::Cap));
        }
    }
    let mut m = 1;
    while !active.is_empty() {
        active.retain(|&i| match ctxs[i].check() {
            Ok(()) => true,
            Err(e) => {
                out[i] = Some(Err(e));
                false
            }
        });
        let args: Vec<PassArgs> = active
            .iter()
            .map(|&i| {
                let it = states[i].iteration(m);
                PassArgs {
                    centres: steps[i].centres.view(),
                    s: it.s.expect("the power-mean rule gives s"),
                    s_ref: it.s_ref,
                    zero_tol,
                    weights: w,
                }
            })
            .collect();
        let swept = power_pass_batch(x, x_norms, &args);
        for (&i, sw) in active.iter().zip(swept) {
            steps[i].pending = Some(sw);
            let ev = steps[i].eval(states[i].iteration(m));
            let recorded = ev.and_then(|ev| states[i].record(m, ev, &mut steps[i], &ctxs[i]));
            match recorded {
                Ok(None) => {}
                Ok(Some(stop)) => out[i] = Some(Ok(stop)),
                Err(e) => out[i] = Some(Err(e)),
            }
        }
        active.retain(|&i| out[i].is_none());
        m += 1;
    }
    out.into_iter()
        .zip(states)
        .zip(steps)
        .zip(hows.iter().zip(&ctxs))
        .map(|(((o, state), step), (how, ctx))| {
            let stop = o.expect("every run of the batch ended")?;
            let (fit, stop2) = state.finish();
            debug_assert_eq!(stop, stop2);
            lloyd_finish(x, x_norms, w, step.centres, fit, stop, how.max_iter, ctx)
        })
        .collect()
}

/// The end of a power run: its centres, or, when the annealing has
/// settled, what is left of s → −∞: Lloyd's iteration from the centres
/// the labels were settled at.
#[allow(clippy::too_many_arguments)]
fn lloyd_finish(
    x: Rows,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    mut fit: Fit,
    stop: Stop,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    if stop != Stop::Settled {
        fit.centroids = Some(centres);
        return Ok(fit);
    }
    let hard = weighted_lloyd_loop(
        x,
        x_norms,
        w,
        centres,
        0.0,
        max_iter - fit.iterations,
        true,
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

/// One iteration: a fused pass over the rows at the current centres.
struct PowerStep<'x, 'n> {
    x: Rows<'x>,
    x_norms: &'n [f64],
    /// Sample weights (None: all 1).
    w: Option<&'n [f64]>,
    zero_tol: f64,
    centres: Array2<f64>,
    /// The last pass (its next centres and softness).
    swept: Option<PowerPass>,
    /// This iteration's pass when a batch computed it.
    pending: Option<PowerPass>,
}

impl<'x, 'n> PowerStep<'x, 'n> {
    fn new(
        x: Rows<'x>,
        x_norms: &'n [f64],
        w: Option<&'n [f64]>,
        zero_tol: f64,
        centres: Array2<f64>,
    ) -> Self {
        PowerStep {
            x,
            x_norms,
            w,
            zero_tol,
            centres,
            swept: None,
            pending: None,
        }
    }
}

impl Step for PowerStep<'_, '_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let s = it.s.expect("the power-mean rule gives s");
        let mut sw = match self.pending.take() {
            Some(sw) => sw,
            None => power_pass(
                self.x,
                self.x_norms,
                self.centres.view(),
                s,
                it.s_ref,
                self.zero_tol,
                self.w,
            ),
        };
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
        let (sums, totals) = weighted_cluster_sums(self.x, self.w, labels, k);
        if totals.contains(&0.0) {
            return false;
        }
        let means = &sums / &ndarray::Array1::from(totals).insert_axis(ndarray::Axis(1));
        let c = Centres::new(means.view(), &self.x);
        full_pass(self.x, Some(self.x_norms), self.w, &c, false, false).labels == labels
    }

    fn lloyd_limit(&mut self, max_iter: usize, ctx: &Ctx) -> Result<Option<Vec<usize>>> {
        let hard = weighted_lloyd_loop(
            self.x,
            self.x_norms,
            self.w,
            self.centres.clone(),
            0.0,
            max_iter,
            true,
            &ctx.silent(),
        )?;
        Ok(Some(hard.labels))
    }
}
