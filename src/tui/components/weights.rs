//! The Feature weights pane as a component: the run's feature (or kernel,
//! or view) weights. It holds no state; p and i open the path and the
//! inspector in its place (`path.rs`, `inspector.rs`).

use super::{Component, Outcome};
use crate::tui::app::RunView;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

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

impl Component for WeightsPane {
    type DrawCtx<'a> = WeightsDraw<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    /// p and i open views `App` holds: it takes them.
    fn handle(&mut self, _: &Action, _: ()) -> Outcome {
        Outcome::Ignored
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: WeightsDraw<'_>, theme: &Theme) {
        panes::weights::render(f, area, ctx, theme);
    }

    /// The keys that show the path or the inspector in its place.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(
            Context::Panes,
            &[Action::TogglePath, Action::ToggleInspector],
        )
    }
}
