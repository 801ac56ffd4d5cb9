//! The feature-selection inspector: every feature of the last run by rank,
//! weight and selected flag, filtered by a part of its name, and the
//! selected names written to a file. Also where the keys of the wide views
//! (inspector, path, confusion) go to their components.

use super::{Action, App, Pane, Prompt, PromptKind, prompt};
use crate::files;
pub use crate::tui::components::inspector::FeatureRow;
use crate::tui::components::inspector::InspectorKeys;
use crate::tui::components::{Component, Outcome};
use crate::tui::keys::RIGHT_PANES;
use std::path::{Path, PathBuf};

/// A view that takes the whole right-hand area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    Inspector,
    Path,
    Confusion,
}

impl App {
    /// The right-hand pane the user is looking at: the focused one, or the
    /// one last focused while a left-hand pane has the keys.
    fn right_owner(&self) -> Pane {
        if RIGHT_PANES.contains(&self.focus) {
            self.focus
        } else {
            self.shown_right
        }
    }

    /// The wide view drawn in place of the right-hand panes, if any.
    pub fn wide_view(&self) -> Option<Wide> {
        match self.right_owner() {
            Pane::Weights if self.inspector.open => Some(Wide::Inspector),
            Pane::Weights if self.path.shown => Some(Wide::Path),
            Pane::Metrics if self.confusion_view.open => Some(Wide::Confusion),
            _ => None,
        }
    }

    /// The inspector's filter: the search prompt's text while it is typed.
    pub fn feature_filter(&self) -> &str {
        match &self.prompt {
            Some(p) if p.kind == PromptKind::Search => &p.text,
            _ => &self.inspector.filter,
        }
    }

    /// Every feature of the last run's weights, largest weight first.
    pub fn ranked_features(&self) -> Vec<FeatureRow> {
        let Some(w) = &self.view.feature_weights else {
            return Vec::new();
        };
        let names = self.loaded().map(|l| &l.dataset.feature_names);
        let mut order: Vec<usize> = (0..w.len()).collect();
        // A NaN weight (never expected) ranks last instead of panicking.
        let key = |j: usize| if w[j].is_finite() { w[j] } else { f64::MIN };
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
        order
            .into_iter()
            .enumerate()
            .map(|(r, j)| FeatureRow {
                index: j,
                rank: r + 1,
                name: names
                    .and_then(|n| n.get(j).cloned())
                    .unwrap_or_else(|| format!("f{}", j + 1)),
                weight: w[j],
                selected: w[j] > 0.0,
            })
            .collect()
    }

    /// The inspector's rows: the ranked features whose name contains the
    /// filter (any case).
    pub fn feature_rows(&self) -> Vec<FeatureRow> {
        let f = self.feature_filter().trim().to_lowercase();
        let mut rows = self.ranked_features();
        if !f.is_empty() {
            rows.retain(|r| r.name.to_lowercase().contains(&f));
        }
        rows
    }

    /// The names of the selected features, largest weight first.
    pub fn selected_names(&self) -> Vec<String> {
        self.ranked_features()
            .into_iter()
            .filter(|r| r.selected)
            .map(|r| r.name)
            .collect()
    }

    /// Handles `action` when a wide view gives it a meaning; false leaves
    /// it to the panes.
    pub(super) fn feature_action(&mut self, action: &Action) -> bool {
        match action {
            Action::ToggleInspector => {
                self.toggle_inspector();
                return true;
            }
            Action::SearchPrompt => {
                if !self.inspector.open {
                    self.toggle_inspector();
                }
                if self.inspector.open {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Search,
                        text: self.inspector.filter.clone(),
                        hint: "part of a feature name (any case); Enter keeps it, Esc leaves the filter as it was".into(),
                    });
                }
                return true;
            }
            Action::ToggleConfusion => {
                self.confusion_view.toggle();
                if self.confusion_view.open {
                    self.focus = Pane::Metrics;
                }
                return true;
            }
            // The path and the inspector share the Weights pane.
            Action::TogglePath => self.inspector.open = false,
            _ => {}
        }
        match self.wide_view() {
            Some(Wide::Inspector) if self.focus == Pane::Weights => self.inspector_key(action),
            Some(Wide::Path) if self.focus == Pane::Weights => {
                let now = self.path_value_now();
                let outcome = self.path.handle(action, now);
                self.follow_taken(action, outcome)
            }
            Some(Wide::Confusion) if self.focus == Pane::Metrics => {
                let rows = self.profiles().map_or(0, |p| p.features.len());
                let outcome = self.confusion_view.handle(action, rows);
                self.follow_taken(action, outcome)
            }
            _ => false,
        }
    }

    fn toggle_inspector(&mut self) {
        if self.inspector.open {
            self.inspector.open = false;
            return;
        }
        if self.view.feature_weights.is_none() {
            let id = self.algo().id();
            let weighing = crate::algo::takers(|a| a.weighs() == crate::algo::Weighs::Features);
            self.tell(format!(
                "{id} gives no feature weights to inspect; choose {weighing} (and wait for its first iteration)"
            ));
            return;
        }
        self.inspector.open = true;
        self.path.shown = false;
        self.focus = Pane::Weights;
    }

    /// A key for the inspector: false when it gives the key no meaning.
    fn inspector_key(&mut self, action: &Action) -> bool {
        let rows = self.feature_rows().len();
        let selected = self.selected_names().len();
        let base = format!(
            "{}-{}",
            self.loaded()
                .map_or("data".into(), |l| l.dataset.name.clone()),
            self.algo().id()
        );
        let ctx = InspectorKeys {
            rows,
            selected,
            base: &base,
        };
        let outcome = self.inspector.handle(action, ctx);
        self.follow_taken(action, outcome)
    }

    /// Carries out `outcome` unless the view ignored the key: false then,
    /// and the panes take it.
    fn follow_taken(&mut self, action: &Action, outcome: Outcome) -> bool {
        if outcome == Outcome::Ignored {
            return false;
        }
        self.follow(action, outcome);
        true
    }

    /// Keys of the search and export prompts; false for other prompts.
    pub(super) fn feature_prompt(&mut self, action: &Action) -> bool {
        let Some(p) = &mut self.prompt else {
            return false;
        };
        match (&p.kind, action) {
            (PromptKind::Search, Action::Activate) => {
                self.inspector.filter = p.text.trim().to_string();
                self.prompt = None;
                self.inspector.to_top();
            }
            (PromptKind::Search, Action::Cancel) => self.prompt = None,
            (PromptKind::Search, Action::Input(_) | Action::Backspace | Action::ClearInput) => {
                // The list follows the text: start again from its top.
                self.inspector.to_top();
                return false;
            }
            (PromptKind::ExportNames, Action::Activate) => {
                let text = p.text.trim().to_string();
                if text.is_empty() {
                    return true;
                }
                self.prompt = None;
                self.export_names(&PathBuf::from(prompt::expand_home(&text)), false);
            }
            (PromptKind::ConfirmNames(path), Action::Input(c)) => {
                let path = path.clone();
                self.prompt = None;
                if *c == 'y' || *c == 'Y' {
                    self.export_names(&path, true);
                } else {
                    self.tell("export cancelled; nothing written");
                }
            }
            (PromptKind::ConfirmNames(_), Action::Activate) => {}
            _ => return false,
        }
        true
    }

    /// Writes the selected names, one a line, atomically; never over an
    /// input file, and over another file only once the user said yes.
    pub(super) fn export_names(&mut self, path: &Path, confirmed: bool) {
        match self.write_names(path, confirmed) {
            Ok(None) => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::ConfirmNames(path.to_path_buf()),
                    text: String::new(),
                    hint: format!("{} exists: replace? (y/n)", path.display()),
                })
            }
            Ok(Some((n, full))) => self.tell(format!("wrote the {n} selected names to {full}")),
            Err(e) => self.tell(format!("export failed: {e}")),
        }
    }

    /// Ok(None): the file exists and needs a yes.
    fn write_names(&self, path: &Path, confirmed: bool) -> crate::Result<Option<(usize, String)>> {
        let names = self.selected_names();
        if names.is_empty() {
            return Err(crate::Error::param(
                "no feature is selected (every weight is 0)",
            ));
        }
        let inputs: Vec<&Path> = self
            .loaded()
            .map(|l| l.dataset.inputs.iter().map(|p| p.as_path()).collect())
            .unwrap_or_default();
        files::check_target(path, &inputs, true)?;
        if path.exists() && !confirmed {
            return Ok(None);
        }
        let mut text = names.join("\n");
        text.push('\n');
        files::write_atomic(path, text.as_bytes())?;
        let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(Some((names.len(), full.display().to_string())))
    }
}
