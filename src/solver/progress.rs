//! Progress events and cancellation shared between a solver and whoever
//! watches it (the CLI's status line, the terminal UI).

use crate::error::{Error, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

/// One iteration of one restart.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub restart: usize,
    pub iter: usize,
    /// The annealing exponent, for algorithms that have one.
    pub s: Option<f64>,
    pub objective: f64,
    /// Points whose label changed since the previous iteration.
    pub changed: usize,
    pub sizes: Vec<usize>,
    pub feature_weights: Option<Vec<f64>>,
    pub kernel_weights: Option<Vec<f64>>,
    /// Current labels, sent only when the watcher asked for them.
    pub labels: Option<Vec<usize>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Iteration(Progress),
    /// Long preparatory work (building a kernel matrix, a feature map):
    /// `done` runs from 0 to 1.
    Stage {
        label: String,
        done: f64,
    },
    RestartDone {
        restart: usize,
        objective: f64,
        iterations: usize,
    },
}

/// Handed to every solver: where to send events and whether to stop.
#[derive(Clone, Default)]
pub struct Ctx {
    cancel: Arc<AtomicBool>,
    tx: Option<Sender<Event>>,
    restart: usize,
    want_labels: bool,
    /// Set for inner loops that are one stage of a larger job: their
    /// iteration events go out as this stage's progress (iteration / cap).
    as_stage: Option<(Arc<str>, usize)>,
    /// Added to the iteration numbers of events and traces: a loop that
    /// continues another (the Lloyd finish of an annealing run).
    iteration_offset: usize,
}

impl Ctx {
    /// No watcher, never cancelled.
    pub fn new() -> Self {
        Ctx::default()
    }

    /// Sends events on `tx`; `want_labels` adds the labels to every
    /// iteration event (for a live scatter plot).
    pub fn with_events(mut self, tx: Sender<Event>, want_labels: bool) -> Self {
        self.tx = Some(tx);
        self.want_labels = want_labels;
        self
    }

    /// Stops the run when `flag` becomes true.
    pub fn with_cancel(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = flag;
        self
    }

    pub fn for_restart(&self, restart: usize) -> Self {
        Ctx {
            restart,
            ..self.clone()
        }
    }

    /// A context for an inner loop of at most `max_iter` iterations that is
    /// one stage of the work: its iteration events are sent as
    /// `Stage { label, done: iteration / max_iter }` (a watcher sees the
    /// stage advance, not the inner loop's objective).
    pub fn iterations_as_stage(&self, label: &str, max_iter: usize) -> Self {
        Ctx {
            as_stage: Some((Arc::from(label), max_iter.max(1))),
            ..self.clone()
        }
    }

    /// The same cancellation without a watcher: for inner work whose
    /// iterations are not the run's (a probe the rule runs and discards).
    pub fn silent(&self) -> Self {
        Ctx {
            tx: None,
            ..self.clone()
        }
    }

    /// A context for a loop that continues one of `done` iterations.
    pub fn continuing(&self, done: usize) -> Self {
        Ctx {
            iteration_offset: self.iteration_offset + done,
            ..self.clone()
        }
    }

    pub fn iteration_offset(&self) -> usize {
        self.iteration_offset
    }

    pub fn restart(&self) -> usize {
        self.restart
    }

    pub fn wants_events(&self) -> bool {
        self.tx.is_some()
    }

    pub fn wants_labels(&self) -> bool {
        self.tx.is_some() && self.want_labels && self.as_stage.is_none()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancellation was asked for; solvers call it
    /// every iteration.
    ///
    /// # Errors
    /// [`Error::Cancelled`].
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    pub fn emit(&self, ev: Event) {
        if let Some(tx) = &self.tx {
            let ev = match (ev, &self.as_stage) {
                (Event::Iteration(p), Some((label, max))) => Event::Stage {
                    label: label.to_string(),
                    done: (p.iter as f64 / *max as f64).min(1.0),
                },
                (ev, _) => ev,
            };
            // A watcher that went away is not the solver's problem.
            let _ = tx.send(ev);
        }
    }

    pub fn stage(&self, label: &str, done: f64) {
        if self.tx.is_some() {
            self.emit(Event::Stage {
                label: label.to_string(),
                done,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_iterations_become_stage_progress() {
        let (tx, rx) = std::sync::mpsc::channel();
        let ctx = Ctx::new().with_events(tx, true);
        let inner = ctx.iterations_as_stage("warm-up", 4);
        assert!(!inner.wants_labels());
        inner.emit(Event::Iteration(Progress {
            restart: 0,
            iter: 1,
            s: None,
            objective: 1.0,
            changed: 0,
            sizes: vec![],
            feature_weights: None,
            kernel_weights: None,
            labels: None,
        }));
        ctx.stage("next", 0.5);
        let got: Vec<Event> = rx.try_iter().collect();
        assert_eq!(
            got,
            vec![
                Event::Stage {
                    label: "warm-up".into(),
                    done: 0.25
                },
                Event::Stage {
                    label: "next".into(),
                    done: 0.5
                }
            ]
        );
    }
}
