//! The Data pane as a component: the dataset loaded (or loading), its
//! classes, k and the scaling in force. It holds no state; its keys (open
//! a file, the next bundled set, the scaling) act wherever the focus is,
//! and `App` carries them out, since they reload the data.

use super::{Component, Outcome};
use crate::data::Scaling;
use crate::session::Loaded;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::time::Duration;

#[derive(Debug, Default)]
pub struct DataPane;

/// The scaling in force and where it comes from.
#[derive(Clone, Copy)]
pub struct ScaleDraw<'a> {
    /// The algorithm's id and its default scaling.
    pub algo: &'a str,
    pub own: Scaling,
    /// The scaling in force (the loaded data may still have another).
    pub now: Scaling,
    /// The user chose it (z, --scale).
    pub chosen: bool,
}

/// What the Data pane draws.
#[derive(Clone, Copy)]
pub struct DataDraw<'a> {
    pub loaded: Option<&'a Loaded>,
    /// The dataset being loaded and for how long.
    pub loading: Option<(&'a str, Duration)>,
    /// The k a run would use now.
    pub k: usize,
    pub scale: ScaleDraw<'a>,
    pub focused: bool,
}

impl Component for DataPane {
    type DrawCtx<'a> = DataDraw<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    /// Its keys act wherever the focus is: `App` takes them.
    fn handle(&mut self, _: &Action, _: ()) -> Outcome {
        Outcome::Ignored
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: DataDraw<'_>, theme: &Theme) {
        panes::data::render(f, area, ctx, theme);
    }

    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(
            Context::Panes,
            &[
                Action::OpenFilePrompt,
                Action::NextBundled,
                Action::CycleScaling,
            ],
        )
    }
}
