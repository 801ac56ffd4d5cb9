//! The Feature weights pane as a component: the run's feature (or kernel,
//! or view) weights. It holds no state; p and i open the path and the
//! inspector in its place (`path.rs`, `inspector.rs`).

use crate::tui::app::RunView;
use crate::tui::keys::Action;
use crate::tui::panes;

#[derive(Debug, Default)]
pub struct WeightsPane;

/// What the pane draws.
#[derive(Clone, Copy)]
pub struct WeightsDraw<'a> {
    pub view: &'a RunView,
    /// The dataset's feature names.
    pub names: &'a [String],
    /// What to say when the run has no weights to draw.
    pub empty: &'a str,
    pub focused: bool,
}

stateless_pane!(
    WeightsPane,
    WeightsDraw,
    panes::weights::render,
    [Action::TogglePath, Action::ToggleInspector]
);
