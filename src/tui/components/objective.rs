//! The Objective pane as a component: the run's objective (and s) per
//! iteration over the previous run's. It holds no state and has no keys.

use super::{Component, Outcome};
use crate::tui::app::{RunStatus, RunView};
use crate::tui::keys::{Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

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

impl Component for ObjectivePane {
    type DrawCtx<'a> = ObjectiveDraw<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    /// It has no keys of its own.
    fn handle(&mut self, _: &Action, _: ()) -> Outcome {
        Outcome::Ignored
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ObjectiveDraw<'_>, theme: &Theme) {
        panes::objective::render(f, area, ctx, theme);
    }

    fn commands(&self) -> Vec<(String, &'static str)> {
        Vec::new()
    }
}
