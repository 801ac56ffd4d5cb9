//! The keys of the panes, when no prompt or view is open. The views that
//! take the whole right-hand side (inspector, path, confusion) see the
//! keys first, then the focused pane's component (`components/`: the
//! algorithm list, the sliders); the scatter's axes go to its component
//! wherever the focus is; `App` keeps the focus, the run's settings and
//! the data.

use super::{Action, App, Pane, Prompt, PromptKind, RunStatus};
use crate::data::{Scaling, bundled};
use crate::tui::components::{Component, Outcome};
use crate::tui::keys::{self, Context};
use std::time::Duration;

/// The panes' keys `App` takes wherever the focus is, as the help lists
/// them: help and quit, the focus, the run's settings, export, the sweep
/// and the options.
pub fn own_commands() -> Vec<(String, &'static str)> {
    keys::help_rows_where(Context::Panes, |a| {
        matches!(
            a,
            Action::ToggleHelp
                | Action::Quit
                | Action::NextPane
                | Action::PrevPane
                | Action::Focus(_)
                | Action::Reseed
                | Action::ResetAll
                | Action::Cancel
                | Action::ExportPrompt
                | Action::OpenSweep
                | Action::KScan
                | Action::OpenControls
        )
    })
}

impl App {
    pub(super) fn apply_panes(&mut self, action: Action) {
        // The inspector, path cursor and confusion view take the keys
        // they give a meaning to while they are shown.
        if self.feature_action(&action) {
            return;
        }
        match self.focused_pane_key(&action) {
            Outcome::Ignored => {}
            Outcome::Handled => return,
            Outcome::Request(r) => return self.carry_out(r),
        }
        match action {
            Action::Quit | Action::ToggleHelp | Action::OpenSweep | Action::KScan => {
                self.shared_key(&action)
            }
            Action::NextPane | Action::PrevPane => self.cycle_focus(action == Action::NextPane),
            Action::Focus(p) => self.focus = p,
            Action::Move(_) | Action::Activate if self.focus == Pane::History => {
                self.history_key(&action)
            }
            // Taken by the focused pane above, or nothing elsewhere.
            Action::Move(_) | Action::Activate | Action::Step { .. } => {}
            Action::StepParam { .. } => {
                // The wheel over a slider: Parameters takes the focus.
                self.focus = Pane::Parameters;
                let sliders = self.sliders();
                let outcome = self.panes.parameters.handle(&action, &sliders);
                self.follow(&action, outcome);
            }
            Action::Reseed | Action::Cancel | Action::CycleScaling | Action::ResetAll => {
                self.run_key(&action)
            }
            Action::OpenFilePrompt | Action::NextBundled | Action::ExportPrompt => {
                self.file_key(&action)
            }
            Action::ToggleScatterMode | Action::ScatterFeature(_) => {
                let p = self.loaded().map(|l| l.dataset.p());
                let outcome = self.panes.scatter.handle(&action, p);
                self.follow(&action, outcome);
            }
            Action::TogglePath => self.toggle_path(),
            Action::Mark if self.focus != Pane::History && self.shown_right != Pane::History => {
                self.note("m pins a run in the History (9) or marks the focused slider of Parameters (3) as a sweep axis")
            }
            Action::HistoryCompare
                if self.focus != Pane::History && self.shown_right != Pane::History =>
            {
                self.show_last_sweep()
            }
            Action::OpenControls => self.controls_view.show(),
            Action::ToggleSweep => self.show_last_sweep(),
            Action::SweepScore
            | Action::SweepNumbers
            | Action::AdoptK
            | Action::SweepBest
            | Action::SweepConsensus
            | Action::SweepSilhouette => {}
            Action::HistorySort
            | Action::HistoryReverse
            | Action::Mark
            | Action::HistoryCompare
            | Action::HistoryExportPrompt => self.history_key(&action),
            // Taken by `feature_action` above.
            Action::ToggleInspector | Action::SearchPrompt | Action::ToggleConfusion => {}
            Action::Input(_)
            | Action::Backspace
            | Action::ClearInput
            | Action::DeleteWord
            | Action::Complete => {}
        }
    }

    /// The next (or previous) pane.
    fn cycle_focus(&mut self, forward: bool) {
        let i = Pane::ALL.iter().position(|p| *p == self.focus).unwrap_or(0);
        let n = Pane::ALL.len();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.focus = Pane::ALL[j];
    }

    /// The focused pane's component takes the keys it gives a meaning
    /// to: ↑/↓ and Enter in the algorithm list; those, a step and m in
    /// the sliders.
    fn focused_pane_key(&mut self, action: &Action) -> Outcome {
        match self.focus {
            Pane::Algorithm => self.panes.algorithm.handle(action, self.algos.len()),
            Pane::Parameters => {
                let sliders = self.sliders();
                self.panes.parameters.handle(action, &sliders)
            }
            _ => Outcome::Ignored,
        }
    }

    /// The run's settings: seed, cancel, scaling, every default back.
    fn run_key(&mut self, action: &Action) {
        match action {
            Action::Reseed => {
                self.seed = self.seed.wrapping_add(1);
                self.schedule_run();
            }
            Action::Cancel => {
                if let Some(job) = &self.job {
                    // The user stopped it: what it built for itself (a
                    // feature map of gigabytes) goes too.
                    job.abandon();
                    self.job = None;
                    self.status = RunStatus::Cancelled;
                    self.view.elapsed = self.view.started.map_or(Duration::ZERO, |t| t.elapsed());
                } else if matches!(self.status, RunStatus::Pending(_)) {
                    self.status = RunStatus::Cancelled;
                }
            }
            Action::CycleScaling => {
                let next = match (self.scale_chosen, self.scale) {
                    (false, _) => Some(Scaling::Standard),
                    (true, Scaling::Standard) => Some(Scaling::Minmax),
                    (true, Scaling::Minmax) => Some(Scaling::None),
                    (true, Scaling::None) => None,
                };
                self.set_scaling(next);
            }
            Action::ResetAll => self.reset_all(),
            _ => {}
        }
    }

    /// Opening data (a file, the next bundled set) and exporting a run.
    fn file_key(&mut self, action: &Action) {
        match action {
            Action::OpenFilePrompt => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::OpenFile,
                    text: String::new(),
                    hint: "path to a .csv/.tsv/.txt, .npy or .mat file; Tab completes".into(),
                });
            }
            Action::NextBundled => {
                let i = bundled::BUNDLED
                    .iter()
                    .position(|b| b.name == self.data_spec)
                    .map_or(0, |i| (i + 1) % bundled::BUNDLED.len());
                self.open_data(bundled::BUNDLED[i].name.to_string());
            }
            Action::ExportPrompt => {
                if self.view.result.is_none() {
                    self.tell("nothing to export yet: wait for a run to finish");
                } else {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Export,
                        text: format!(
                            "{}-{}",
                            self.loaded()
                                .map_or("data".into(), |l| l.dataset.name.clone()),
                            self.algo().id()
                        ),
                        hint: "base name: writes NAME.labels.csv and NAME.json".into(),
                    });
                }
            }
            _ => {}
        }
    }
}
