//! The Metrics pane as a component: the run's state, scores and
//! warnings. It holds no state; t opens the confusion view in its place
//! (`confusion.rs`).

use super::{Component, Outcome};
use crate::tui::app::{RunStatus, RunView};
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

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

impl Component for MetricsPane {
    type DrawCtx<'a> = MetricsDraw<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    /// It has no keys of its own.
    fn handle(&mut self, _: &Action, _: ()) -> Outcome {
        Outcome::Ignored
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: MetricsDraw<'_>, theme: &Theme) {
        panes::metrics::render(f, area, ctx, theme);
    }

    /// The key that shows the confusion view in its place.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(Context::Panes, &[Action::ToggleConfusion])
    }
}
