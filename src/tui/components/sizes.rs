//! The Sizes pane as a component: the size of each cluster of the run.
//! It holds no state and has no keys.

use super::{Component, Outcome};
use crate::tui::app::RunView;
use crate::tui::keys::{Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

#[derive(Debug, Default)]
pub struct SizesPane;

/// What the pane draws: the current (or last) run's sizes.
#[derive(Clone, Copy)]
pub struct SizesDraw<'a> {
    pub view: &'a RunView,
    pub focused: bool,
}

impl Component for SizesPane {
    type DrawCtx<'a> = SizesDraw<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    /// It has no keys of its own.
    fn handle(&mut self, _: &Action, _: ()) -> Outcome {
        Outcome::Ignored
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: SizesDraw<'_>, theme: &Theme) {
        panes::sizes::render(f, area, ctx, theme);
    }

    fn commands(&self) -> Vec<(String, &'static str)> {
        Vec::new()
    }
}
