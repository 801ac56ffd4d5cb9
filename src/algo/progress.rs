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

    pub fn restart(&self) -> usize {
        self.restart
    }

    pub fn wants_events(&self) -> bool {
        self.tx.is_some()
    }

    pub fn wants_labels(&self) -> bool {
        self.tx.is_some() && self.want_labels
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancellation was asked for; solvers call it
    /// every iteration.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    pub fn emit(&self, ev: Event) {
        if let Some(tx) = &self.tx {
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
