//! The Objective pane as a component: the run's objective (and s) per
//! iteration over the previous run's. It holds no state and has no keys.

use crate::tui::app::{RunStatus, RunView};
use crate::tui::panes;

#[derive(Debug, Default)]
pub struct ObjectivePane;

/// What the pane draws: the current (or last) run.
#[derive(Clone, Copy)]
pub struct ObjectiveDraw<'a> {
    pub view: &'a RunView,
    pub status: &'a RunStatus,
    /// A dataset is loading.
    pub loading: bool,
    pub focused: bool,
}

stateless_pane!(ObjectivePane, ObjectiveDraw, panes::objective::render, []);
