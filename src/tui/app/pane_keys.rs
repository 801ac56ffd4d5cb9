//! The keys of the panes, when no prompt or view is open: focus and
//! cursors, the run's settings, the data and the scatter's axes. The
//! views that take the whole right-hand side (inspector, path, confusion)
//! see the keys first.

use super::{Action, App, Pane, Prompt, PromptKind, RunStatus, ScatterMode};
use crate::data::{Scaling, bundled};
use std::time::Duration;

impl App {
    pub(super) fn apply_panes(&mut self, action: Action) {
        // The inspector, path cursor and confusion view take the keys
        // they give a meaning to while they are shown.
        if self.feature_action(&action) {
            return;
        }
        match action {
            Action::Quit | Action::ToggleHelp | Action::OpenSweep | Action::KScan => {
                self.shared_key(&action)
            }
            Action::NextPane | Action::PrevPane => self.cycle_focus(action == Action::NextPane),
            Action::Focus(p) => self.focus = p,
            Action::Move(d) => self.move_cursor(d),
            Action::Step { steps, coarse } => {
                if self.focus == Pane::Parameters {
                    self.step_param(self.param_cursor, steps, coarse);
                }
            }
            Action::StepParam { index, steps } => {
                self.focus = Pane::Parameters;
                self.param_cursor = index;
                self.step_param(index, steps, false);
            }
            Action::Activate => self.activate(),
            Action::Reseed | Action::Cancel | Action::CycleScaling | Action::ResetAll => {
                self.run_key(&action)
            }
            Action::OpenFilePrompt | Action::NextBundled | Action::ExportPrompt => {
                self.file_key(&action)
            }
            Action::ToggleScatterMode | Action::ScatterFeature(_) => self.scatter_key(&action),
            Action::TogglePath => self.toggle_path(),
            Action::Mark if self.focus == Pane::Parameters => self.toggle_mark(),
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

    /// ↑/↓ in the focused pane.
    fn move_cursor(&mut self, d: i32) {
        match self.focus {
            Pane::Algorithm => {
                let n = self.algos.len() as i32;
                self.algo_cursor = (self.algo_cursor as i32 + d).rem_euclid(n) as usize;
                self.choose_algorithm(self.algo_cursor);
            }
            Pane::Parameters => {
                let n = self.sliders().len() as i32;
                self.param_cursor = (self.param_cursor as i32 + d).clamp(0, n - 1) as usize;
            }
            Pane::History => self.history_key(&Action::Move(d)),
            _ => {}
        }
    }

    /// Enter in the focused pane.
    fn activate(&mut self) {
        match self.focus {
            Pane::Algorithm => self.choose_algorithm(self.algo_cursor),
            Pane::Parameters => {
                let s = &self.sliders()[self.param_cursor];
                self.prompt = Some(Prompt {
                    kind: PromptKind::Value(self.param_cursor),
                    text: String::new(),
                    hint: format!("{} {}", s.spec.name, s.spec.range_text()),
                });
            }
            Pane::History => self.history_key(&Action::Activate),
            _ => {}
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

    /// The scatter's axes: PCA or two features.
    fn scatter_key(&mut self, action: &Action) {
        match *action {
            Action::ToggleScatterMode => {
                let p = self.loaded().map_or(1, |l| l.dataset.p());
                if p == 0 {
                    self.note("kernel data have no features to plot; the scatter shows kernel PCA");
                    return;
                }
                self.scatter = match self.scatter {
                    ScatterMode::Pca => ScatterMode::Features(0, 1.min(p - 1)),
                    ScatterMode::Features(..) => ScatterMode::Pca,
                };
            }
            Action::ScatterFeature(axis) => {
                let p = self.loaded().map_or(1, |l| l.dataset.p());
                if p == 0 {
                    return;
                }
                let (mut fx, mut fy) = match self.scatter {
                    ScatterMode::Features(a, b) => (a, b),
                    ScatterMode::Pca => (0, 1.min(p - 1)),
                };
                if axis == 0 {
                    fx = (fx + 1) % p
                } else {
                    fy = (fy + 1) % p
                }
                self.scatter = ScatterMode::Features(fx, fy);
            }
            _ => {}
        }
    }
}
