//! The Metrics pane as a component: the run's state, scores and
//! warnings. It holds no state; t opens the confusion view in its place
//! (`confusion.rs`).

use crate::tui::app::{RunStatus, RunView};
use crate::tui::keys::Action;
use crate::tui::panes;

#[derive(Debug, Default)]
pub struct MetricsPane;

/// What the pane draws: the current (or last) run.
#[derive(Clone, Copy)]
pub struct MetricsDraw<'a> {
    pub view: &'a RunView,
    pub status: &'a RunStatus,
    /// The restarts asked for.
    pub restarts: usize,
    /// The data have no labels to score against.
    pub unlabelled: bool,
    pub focused: bool,
}

stateless_pane!(
    MetricsPane,
    MetricsDraw,
    panes::metrics::render,
    [Action::ToggleConfusion]
);
