//! The sweep (or k-scan) view: the last sweep, whether it is shown, and
//! the sliders marked as its axes. Its keys move the cursor over the
//! cells and change what is drawn; taking a cell back to the sliders is
//! `App`'s (`app/sweep_ops.rs`), which owns them.

use super::{Component, Outcome, Request};
use crate::tui::app::sweep_view::{Panel, SweepKind, SweepView};
use crate::tui::keys::{Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::collections::HashMap;

#[derive(Default)]
pub struct SweepPane {
    /// The last sweep (or k-scan).
    pub last: Option<SweepView>,
    /// Whether it is shown over the right-hand panes.
    pub shown: bool,
    /// Sliders marked as sweep axes, per algorithm.
    pub marks: HashMap<String, Vec<String>>,
}

impl SweepPane {
    /// Whether the view is on screen (and takes the keys).
    pub fn is_open(&self) -> bool {
        self.shown && self.last.is_some()
    }
}

/// How the settings now stand against the sweep's.
#[derive(Clone, Copy)]
pub struct SweepNow<'a> {
    /// The settings that differ now, named with both values.
    pub stale: &'a [String],
    /// Whether the data are still the sweep's: Enter restores a cell's
    /// settings, else it is refused.
    pub same_data: bool,
}

fn note(text: &str) -> Outcome {
    Outcome::Request(Request::Note(text.into()))
}

impl Component for SweepPane {
    type DrawCtx<'a> = SweepNow<'a>;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Sweep;

    fn handle(&mut self, action: &Action, _: ()) -> Outcome {
        let Some(sv) = self.last.as_mut() else {
            self.shown = false;
            return Outcome::Handled;
        };
        let (rows, cols) = sv.shape();
        let along = |at: usize, by: i32, n: usize| (at as i32 + by).clamp(0, n as i32 - 1) as usize;
        // A k-scan over several algorithms: k along ←→ as on its chart,
        // the algorithm along ↑↓.
        let across_families = sv.kind == SweepKind::KScan && sv.families() > 1;
        match *action {
            Action::Move(d) if across_families => sv.cursor.1 = along(sv.cursor.1, d, cols),
            Action::Step { steps, .. } if across_families => {
                sv.cursor.0 = along(sv.cursor.0, steps, rows)
            }
            Action::Move(d) => sv.cursor.0 = along(sv.cursor.0, d, rows),
            // One axis (and the k-scan) is drawn across: ←/→ move along it
            // as ↑/↓ do.
            Action::Step { steps, .. } if cols == 1 => {
                sv.cursor.0 = along(sv.cursor.0, steps, rows)
            }
            Action::Step { steps, .. } => sv.cursor.1 = along(sv.cursor.1, steps, cols),
            Action::SweepScore => {
                let n = sv.score_names().len().max(1);
                sv.score = (sv.score + 1) % n;
            }
            Action::SweepNumbers => sv.numbers = !sv.numbers,
            Action::SweepConsensus => {
                if let Err(why) = sv.toggle_panel(Panel::Consensus) {
                    return note(why);
                }
            }
            Action::SweepSilhouette => {
                if let Err(why) = sv.toggle_panel(Panel::Silhouette) {
                    return note(why);
                }
            }
            Action::SweepBest => match sv.best() {
                Some(at) => sv.cursor = at,
                None => return note("no finished cell yet"),
            },
            Action::Cancel if sv.running => {
                sv.cancel();
                return note("sweep cancelled: the cells done are kept");
            }
            Action::Cancel | Action::ToggleSweep => self.shown = false,
            Action::Activate => return Outcome::Request(Request::ApplyCell),
            Action::AdoptK => return Outcome::Request(Request::AdoptK),
            Action::OpenSweep | Action::KScan | Action::Quit | Action::ToggleHelp => {
                return Outcome::Ignored;
            }
            _ => {}
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, now: SweepNow<'_>, theme: &Theme) {
        if let Some(sv) = &self.last {
            panes::sweep::render(f, area, sv, now.stale, now.same_data, theme);
        }
    }
}
