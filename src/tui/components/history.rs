//! The History pane as a component: every finished run of the session,
//! its sort, its pins and the comparison of two. `App` decides when the
//! History takes a key (it is focused, or shown on the right) and
//! restores a run (Enter), which touches every setting.

use super::{Component, Outcome, Request};
use crate::tui::app::history::History;
use crate::tui::app::prompt::{Prompt, PromptKind};
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

impl Component for History {
    /// Whether the pane has the focus.
    type DrawCtx<'a> = bool;
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, _: ()) -> Outcome {
        match action {
            Action::Move(d) => self.move_cursor(*d),
            Action::Activate => return Outcome::Request(Request::Restore),
            Action::HistorySort => self.next_sort(),
            Action::HistoryReverse => self.reverse(),
            Action::Mark => return Outcome::Request(Request::Note(self.toggle_pin())),
            Action::HistoryCompare => {
                if self.comparing {
                    self.comparing = false;
                } else if self.pinned_pair().is_some() {
                    self.comparing = true;
                } else {
                    return Outcome::Request(Request::Note(format!(
                        "pin two runs to compare them (m pins the highlighted run; {} pinned)",
                        self.pinned.len()
                    )));
                }
            }
            Action::HistoryExportPrompt => {
                if self.entries.is_empty() {
                    return Outcome::Request(Request::Tell(
                        "the History is empty: nothing to export yet".into(),
                    ));
                }
                return Outcome::Request(Request::Prompt(Prompt {
                    kind: PromptKind::HistoryExport,
                    text: "meanscape-history".into(),
                    hint: "base name: writes NAME.csv and NAME.json".into(),
                }));
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        panes::history::render(f, area, self, focused, theme);
    }

    /// The rows of the panes' keys that act on the History.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows(Context::Panes)
            .into_iter()
            .filter(|(_, help)| help.starts_with(keys::HISTORY))
            .collect()
    }
}
