//! The Sizes pane as a component: the size of each cluster of the run.
//! It holds no state and has no keys.

use crate::tui::app::RunView;
use crate::tui::panes;

#[derive(Debug, Default)]
pub struct SizesPane;

/// What the pane draws: the current (or last) run's sizes.
#[derive(Clone, Copy)]
pub struct SizesDraw<'a> {
    pub view: &'a RunView,
    pub focused: bool,
}

stateless_pane!(SizesPane, SizesDraw, panes::sizes::render, []);
