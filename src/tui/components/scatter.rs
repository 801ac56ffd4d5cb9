//! The Scatter pane as a component: what its axes are (the principal
//! components or two features) and the keys that change them, which act
//! wherever the focus is.

use super::{Component, Outcome, Request};
use crate::tui::app::projection::DataView;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScatterMode {
    Pca,
    Features(usize, usize),
}

#[derive(Debug)]
pub struct ScatterPane {
    pub mode: ScatterMode,
}

impl Default for ScatterPane {
    fn default() -> Self {
        ScatterPane {
            mode: ScatterMode::Pca,
        }
    }
}

/// What the scatter draws.
#[derive(Clone, Copy)]
pub struct ScatterDraw<'a> {
    pub data: Option<&'a DataView>,
    /// The run's cluster of each row (empty before the first run).
    pub labels: &'a [usize],
    /// How many clusters the run has.
    pub k: usize,
    /// The labels are still the previous run's.
    pub carried: bool,
    pub focused: bool,
}

impl Component for ScatterPane {
    type DrawCtx<'a> = ScatterDraw<'a>;
    /// The number of features (0 for kernel data), when data are loaded.
    type KeyCtx<'a> = Option<usize>;
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, p: Option<usize>) -> Outcome {
        let p = p.unwrap_or(1);
        match *action {
            Action::ToggleScatterMode => {
                if p == 0 {
                    return Outcome::Request(Request::Note(
                        "kernel data have no features to plot; the scatter shows kernel PCA".into(),
                    ));
                }
                self.mode = match self.mode {
                    ScatterMode::Pca => ScatterMode::Features(0, 1.min(p - 1)),
                    ScatterMode::Features(..) => ScatterMode::Pca,
                };
            }
            Action::ScatterFeature(axis) => {
                if p == 0 {
                    return Outcome::Handled;
                }
                let (mut fx, mut fy) = match self.mode {
                    ScatterMode::Features(a, b) => (a, b),
                    ScatterMode::Pca => (0, 1.min(p - 1)),
                };
                if axis == 0 {
                    fx = (fx + 1) % p
                } else {
                    fy = (fy + 1) % p
                }
                self.mode = ScatterMode::Features(fx, fy);
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ScatterDraw<'_>, theme: &Theme) {
        panes::scatter::render(f, area, self.mode, ctx, theme);
    }

    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_where(Context::Panes, |a| {
            matches!(a, Action::ToggleScatterMode | Action::ScatterFeature(_))
        })
    }
}
