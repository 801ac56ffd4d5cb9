//! The one iteration loop every algorithm runs: it checks cancellation,
//! asks the algorithm's [`Step`] for the iteration, applies the stopping
//! rule and `max_iter`, records the trace, sends the progress event, and
//! builds the [`Fit`]. An algorithm supplies only its step: how to evaluate
//! the current state and how to move to the next one.

use super::fit::{Fit, TracePoint, cluster_sizes};
use super::progress::{Ctx, Event, Progress};
use super::stopping::{LimitCheck, PeriodCheck, Schedule, has_empty, label_changes, still_soft};
use crate::error::Result;

/// Where the loop is when it asks for an evaluation.
#[derive(Debug, Clone, Copy)]
pub struct Iteration<'a> {
    /// 1-based.
    pub m: usize,
    /// The exponent of this iteration (power-mean algorithms).
    pub s: Option<f64>,
    /// An earlier exponent the objective must also be evaluated at, for
    /// the period check (`Eval::objective_ref`).
    pub s_ref: Option<f64>,
    /// The labels of the previous iteration (empty at the first).
    pub prev_labels: &'a [usize],
    /// Whether this is the last iteration `max_iter` allows.
    pub at_cap: bool,
}

/// What one iteration found at the current state.
#[derive(Debug, Clone)]
pub struct Eval {
    pub objective: f64,
    /// The objective at `Iteration::s_ref`, when asked for.
    pub objective_ref: Option<f64>,
    pub labels: Vec<usize>,
    /// The step's own convergence test ([`Rule::Step`]).
    pub settled: bool,
}

impl Eval {
    /// An evaluation without a reference objective.
    pub fn new(objective: f64, labels: Vec<usize>, settled: bool) -> Self {
        Eval {
            objective,
            objective_ref: None,
            labels,
            settled,
        }
    }
}

/// One algorithm's iteration.
pub trait Step {
    /// Evaluates the current state: objective, labels and (for
    /// [`Rule::Step`]) whether it has settled.
    ///
    /// # Errors
    /// What the evaluation can fail with (cancellation inside it).
    fn eval(&mut self, it: Iteration) -> Result<Eval>;
    /// Moves to the next state; called after `eval` unless the loop stops
    /// at this iteration.
    ///
    /// # Errors
    /// What the update can fail with (cancellation inside it).
    fn advance(&mut self, m: usize) -> Result<()>;
    /// Mean share of a point's weight outside its own cluster at the
    /// evaluated state (power-mean steps; asked only by the hardness
    /// condition).
    fn softness(&self) -> f64 {
        0.0
    }
    /// Whether `labels` are a fixed point of Lloyd's iteration: the means
    /// of their clusters give every row the same label again (asked before
    /// `Rule::PowerMean { finish: true, .. }` ends an annealing run; steps
    /// without one say no).
    fn lloyd_fixed_point(&mut self, _labels: &[usize]) -> bool {
        false
    }
    /// The labels Lloyd's iteration converges to from the evaluated state's
    /// centres, in at most `max_iter` iterations (asked by
    /// [`Finish::Limit`]; steps without one say None, and the rule never
    /// ends their annealing).
    ///
    /// # Errors
    /// [`crate::Error::Cancelled`] once `ctx` is cancelled.
    fn lloyd_limit(&mut self, _max_iter: usize, _ctx: &Ctx) -> Result<Option<Vec<usize>>> {
        Ok(None)
    }
    /// Kernel or view weights α to record for this iteration (asked after
    /// `advance`, when there was one).
    fn kernel_weights(&self) -> Option<Vec<f64>> {
        None
    }
    /// Feature weights for the progress event.
    fn feature_weights(&self) -> Option<Vec<f64>> {
        None
    }
}

/// When the loop stops before `max_iter`.
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// When the step says it has settled (no label changed, the centres or
    /// the objective moved less than a tolerance).
    Step,
    /// The power-mean family's rule (`stopping`): s follows `schedule`;
    /// every T iterations the objective is compared with the one T earlier
    /// at the earlier s (relative change ≤ `tol`), and while s anneals the
    /// memberships must also be hard (`soft_tol` < 1; 1 turns that off).
    PowerMean {
        schedule: Schedule,
        tol: f64,
        soft_tol: f64,
        /// Whether, and when, the annealing ends early with a Lloyd finish.
        finish: Finish,
    },
}

/// When an annealing run may end before its schedule does, finishing with
/// Lloyd's iteration, the s → −∞ limit (`power_mean::power_loop_hard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Never: the papers' protocol (the schedule, the period check, the cap).
    Off,
    /// At the end of a period in which no label changed, with no empty
    /// cluster, on labels that are a fixed point of Lloyd's iteration
    /// ([`Step::lloyd_fixed_point`]).
    Settled,
    /// Once the annealing no longer changes where Lloyd's iteration ends:
    /// the Lloyd limits ([`Step::lloyd_limit`]) of two checkpoints whose s
    /// differ by a factor [`LimitCheck`]'s ratio agree (`stopping::LimitCheck`).
    Limit,
}

/// Why [`iterate_until`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The rule's convergence test passed.
    Converged,
    /// `max_iter` iterations.
    Cap,
    /// The annealing settled (`finish`): the caller finishes with Lloyd.
    Settled,
}

/// How the loop runs.
#[derive(Debug, Clone, Copy)]
pub struct Loop {
    pub rule: Rule,
    pub max_iter: usize,
    /// Clusters (for the sizes in events and the hardness condition).
    pub k: usize,
    /// Send an iteration event per iteration (when the watcher wants them).
    pub events: bool,
}

/// Runs `step` until the rule stops it or `max_iter` iterations. The Fit
/// has the labels, objective, trace, iteration count and convergence of
/// the last iteration; the caller adds what its state holds (centres,
/// weights, extras).
///
/// # Errors
/// [`crate::Error::Cancelled`] once `ctx` is cancelled, and what the step
/// fails with.
pub fn iterate(step: &mut impl Step, how: Loop, ctx: &Ctx) -> Result<Fit> {
    iterate_until(step, how, ctx).map(|(fit, _)| fit)
}

/// [`iterate`], saying why it stopped.
///
/// # Errors
/// As [`iterate`].
pub fn iterate_until(step: &mut impl Step, how: Loop, ctx: &Ctx) -> Result<(Fit, Stop)> {
    let mut state = LoopState::new(how, ctx);
    for m in 1..=how.max_iter {
        ctx.check()?;
        let ev = step.eval(state.iteration(m))?;
        if state.record(m, ev, step, ctx)?.is_some() {
            break;
        }
    }
    Ok(state.finish())
}

/// The state of one loop between iterations: the rule's (s, the period
/// check, the last label change) and what the Fit is built from. Kept
/// apart from the driving `for m` so several runs can go in lockstep
/// ([`crate::solver::power_mean::power_batch`]): each run calls
/// [`LoopState::iteration`], evaluates, then [`LoopState::record`].
pub struct LoopState {
    how: Loop,
    s: Option<f64>,
    check: Option<PeriodCheck>,
    schedule: Option<Schedule>,
    soft_tol: f64,
    finish: Finish,
    limit: Option<LimitCheck>,
    trace: Vec<TracePoint>,
    labels: Vec<usize>,
    converged: bool,
    stop: Stop,
    /// The last iteration whose labels differed from the one before.
    last_change: usize,
    offset: usize,
}

impl LoopState {
    pub fn new(how: Loop, ctx: &Ctx) -> Self {
        let (s, check, schedule, soft_tol, finish) = match how.rule {
            Rule::Step => (None, None, None, 1.0, Finish::Off),
            Rule::PowerMean {
                schedule,
                tol,
                soft_tol,
                finish,
            } => (
                Some(schedule.s0),
                Some(PeriodCheck::new(schedule.period, tol)),
                Some(schedule),
                soft_tol,
                finish,
            ),
        };
        LoopState {
            how,
            s,
            check,
            schedule,
            soft_tol,
            finish,
            limit: (finish == Finish::Limit)
                .then(|| LimitCheck::new(schedule.map_or(1.0, |s| s.s0))),
            trace: Vec::new(),
            labels: Vec::new(),
            converged: false,
            stop: Stop::Cap,
            last_change: 0,
            offset: ctx.iteration_offset(),
        }
    }

    /// What iteration `m` (1-based) evaluates.
    pub fn iteration(&self, m: usize) -> Iteration<'_> {
        let s_ref = match (&self.check, self.s) {
            (Some(c), Some(s)) => c.reference_s(m).filter(|&r| r != s),
            _ => None,
        };
        Iteration {
            m,
            s: self.s,
            s_ref,
            prev_labels: &self.labels,
            at_cap: m == self.how.max_iter,
        }
    }

    /// Applies the rule to iteration `m`'s evaluation, advances `step`
    /// unless the loop stops here, records the trace and sends the event.
    /// Some(why) when the loop stops at `m`.
    ///
    /// # Errors
    /// What `step.advance` fails with.
    pub fn record(
        &mut self,
        m: usize,
        ev: Eval,
        step: &mut impl Step,
        ctx: &Ctx,
    ) -> Result<Option<Stop>> {
        let how = self.how;
        let s = self.s;
        let soft_tol = self.soft_tol;
        let done = match (&mut self.check, s, self.schedule) {
            (Some(c), Some(s), Some(sched)) => {
                let still = c.converged(m, s, ev.objective, |_| {
                    ev.objective_ref.expect("the step evaluates at s_ref")
                });
                still && !still_soft(&sched, s, soft_tol, &ev.labels, how.k, || step.softness())
            }
            _ => ev.settled,
        };
        if self.finish == Finish::Settled && self.labels != ev.labels {
            self.last_change = m;
        }
        // Label changes since the previous iteration, counted once for the
        // rule's gate and the progress event (None at the first).
        let events = how.events && ctx.wants_events();
        let changes = (self.limit.is_some() || events)
            .then(|| label_changes(&self.labels, &ev.labels))
            .flatten();
        if let Some(check) = &mut self.limit {
            check.add_changes(changes.unwrap_or(0));
        }
        let settled = match (self.schedule, s) {
            (Some(sched), Some(sv))
                if !done && m.is_multiple_of(sched.period) && sv > sched.s_min =>
            {
                match self.finish {
                    Finish::Off => false,
                    // A whole period without a label change, no empty
                    // cluster, a Lloyd fixed point, s still annealing.
                    Finish::Settled => {
                        m - self.last_change >= sched.period
                            && !has_empty(&ev.labels, how.k)
                            && step.lloyd_fixed_point(&ev.labels)
                    }
                    Finish::Limit => match &mut self.limit {
                        Some(check) if m < how.max_iter => {
                            check.due(sv, ev.labels.len())
                                && step
                                    .lloyd_limit(how.max_iter - m, ctx)?
                                    .is_some_and(|l| check.agrees(sv, l, how.k))
                        }
                        _ => false,
                    },
                }
            }
            _ => false,
        };
        let last = done || settled || m == how.max_iter;
        if !last {
            step.advance(m)?;
        }
        let kernel_weights = step.kernel_weights();
        if events {
            let changed = changes.unwrap_or(ev.labels.len());
            ctx.emit(Event::Iteration(Progress {
                restart: ctx.restart(),
                iter: m + self.offset,
                s,
                objective: ev.objective,
                changed,
                sizes: cluster_sizes(&ev.labels, how.k),
                feature_weights: step.feature_weights(),
                kernel_weights: kernel_weights.clone(),
                labels: ctx.wants_labels().then(|| ev.labels.clone()),
            }));
        }
        self.trace.push(TracePoint {
            iter: m + self.offset,
            s,
            objective: ev.objective,
            kernel_weights,
        });
        self.labels = ev.labels;
        if last {
            self.converged = done;
            self.stop = if done {
                Stop::Converged
            } else if m == how.max_iter {
                Stop::Cap
            } else {
                Stop::Settled
            };
            return Ok(Some(self.stop));
        }
        if let (Some(sched), Some(v)) = (self.schedule, s) {
            self.s = Some(sched.next(v, m));
        }
        Ok(None)
    }

    /// The Fit of the iterations recorded so far, and why the loop stopped.
    pub fn finish(self) -> (Fit, Stop) {
        let fit = Fit {
            labels: self.labels,
            centroids: None,
            objective: self.trace.last().map_or(0.0, |t| t.objective),
            iterations: self.trace.len(),
            trace: self.trace,
            converged: self.converged,
            ..Fit::default()
        };
        (fit, self.stop)
    }
}
