//! The confusion view as a component: the confusion matrix of the last run
//! against the labels and the per-cluster profiles, in place of the
//! Metrics pane. It owns whether it is open and how far its profile rows
//! are scrolled; `App` computes what it draws.

use super::{Component, Outcome};
use crate::data::Scaling;
use crate::tui::app::{Confusion, Profiles};
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::cell::Cell;

#[derive(Debug, Default)]
pub struct ConfusionView {
    pub open: bool,
    /// First profile row shown.
    pub top: usize,
    /// Profile rows the last frame had room for: a page of the scroll.
    pub page: Cell<usize>,
}

impl ConfusionView {
    /// Opens the view at its top, or closes it.
    pub fn toggle(&mut self) {
        self.open = !self.open;
        if self.open {
            self.top = 0;
        }
    }
}

/// What the confusion view reads from the rest of the UI to draw itself.
pub struct ConfusionDraw {
    pub focused: bool,
    pub confusion: Option<Confusion>,
    /// The data have no labels (else the run has not labelled them yet).
    pub unlabelled: bool,
    pub profiles: Option<Profiles>,
    /// The data's scaling, when they are loaded.
    pub scale: Option<Scaling>,
    /// The run gave feature weights.
    pub weighted: bool,
}

impl Component for ConfusionView {
    type DrawCtx<'a> = ConfusionDraw;
    /// The number of profile rows.
    type KeyCtx<'a> = usize;
    const CONTEXT: Context = Context::Panes;

    /// The view scrolls its profile rows; the cursor is its top row.
    fn handle(&mut self, action: &Action, rows: usize) -> Outcome {
        let page = self.page.get().max(1);
        let max = (rows.saturating_sub(page) as i64).max(0);
        match action {
            Action::Move(d) => self.top = (self.top as i64 + *d as i64).clamp(0, max) as usize,
            Action::Step {
                steps,
                coarse: true,
            } => {
                let by = (*steps as i64) * page as i64;
                self.top = (self.top as i64 - by).clamp(0, max) as usize;
            }
            Action::Cancel => self.open = false,
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ConfusionDraw, theme: &Theme) {
        panes::confusion::render(f, area, self, &ctx, theme);
    }

    /// The panes' row that opens the view.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(Context::Panes, &[Action::ToggleConfusion])
    }
}
