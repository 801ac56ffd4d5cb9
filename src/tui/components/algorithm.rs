//! The Algorithm pane as a component: the list of algorithms and its
//! cursor. ↑/↓ move the cursor and choose the algorithm under it, Enter
//! chooses it again; choosing is `App`'s, since it touches the sliders,
//! the scaling and the run.

use super::{Component, Outcome, Request};
use crate::algo::Algorithm;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

#[derive(Debug, Default)]
pub struct AlgorithmList {
    /// The highlighted entry.
    pub cursor: usize,
}

/// What the list draws.
#[derive(Clone, Copy)]
pub struct AlgorithmDraw<'a> {
    pub algos: &'a [Box<dyn Algorithm>],
    /// The algorithm in use (marked ●).
    pub chosen: usize,
    pub focused: bool,
}

impl Component for AlgorithmList {
    type DrawCtx<'a> = AlgorithmDraw<'a>;
    /// How many algorithms there are.
    type KeyCtx<'a> = usize;
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, n: usize) -> Outcome {
        match *action {
            Action::Move(d) => {
                self.cursor = (self.cursor as i32 + d).rem_euclid(n as i32) as usize;
            }
            Action::Activate => {}
            _ => return Outcome::Ignored,
        }
        Outcome::Request(Request::ChooseAlgorithm(self.cursor))
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: AlgorithmDraw<'_>, theme: &Theme) {
        panes::algorithm::render(f, area, self.cursor, ctx, theme);
    }

    /// The cursor's row.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(Context::Panes, &[Action::Move(1)])
    }
}
