//! The keys of the one-line prompt, and what its text does when it is
//! submitted.

use super::{Action, App, PromptKind, prompt, sweep_view};
use std::path::PathBuf;

impl App {
    /// Keys while a prompt is open: edit its line, Enter submits, Esc
    /// closes.
    pub(super) fn update_prompt(&mut self, action: Action) {
        if self.feature_prompt(&action) {
            return;
        }
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        match action {
            Action::Cancel => self.prompt = None,
            Action::Quit => self.quit = true,
            Action::Input(c) => {
                if let PromptKind::ConfirmExport(base) | PromptKind::ConfirmHistoryExport(base) =
                    &prompt.kind
                {
                    let history = matches!(prompt.kind, PromptKind::ConfirmHistoryExport(_));
                    let base = base.clone();
                    self.prompt = None;
                    match (c == 'y' || c == 'Y', history) {
                        (true, false) => self.export(&base, true),
                        (true, true) => self.export_history(&base, true),
                        (false, _) => self.tell("export cancelled; nothing written"),
                    }
                    return;
                }
                prompt.text.push(c);
            }
            Action::Backspace => {
                prompt.text.pop();
            }
            Action::ClearInput => prompt.text.clear(),
            Action::DeleteWord => {
                let t = prompt.text.trim_end_matches(['/', ' ']);
                let cut = t.rfind(['/', ' ']).map_or(0, |i| i + 1);
                prompt.text.truncate(cut);
            }
            Action::Complete if prompt.kind == PromptKind::OpenFile => {
                let (text, hint) = prompt::complete_path(&prompt.text);
                prompt.text = text;
                prompt.hint = hint;
            }
            Action::Activate => {
                let text = prompt.text.trim().to_string();
                let kind = prompt.kind.clone();
                self.submit_prompt(kind, text);
            }
            _ => {}
        }
    }

    /// Enter in a prompt of this kind, with its text trimmed.
    fn submit_prompt(&mut self, kind: PromptKind, text: String) {
        match kind {
            PromptKind::Value(index) => self.commit_value(index, &text),
            PromptKind::OpenFile => {
                if text.is_empty() {
                    return;
                }
                self.prompt = None;
                self.open_data(prompt::expand_home(&text));
            }
            PromptKind::Export => {
                if text.is_empty() {
                    return;
                }
                self.prompt = None;
                self.export(&PathBuf::from(prompt::expand_home(&text)), false);
            }
            PromptKind::Control(name) => match self.set_control(name, &text) {
                Ok(()) => self.prompt = None,
                Err(e) => {
                    if let Some(p) = self.prompt.as_mut() {
                        p.hint = e;
                    }
                }
            },
            kind @ (PromptKind::Sweep | PromptKind::KScan) => {
                let started = if kind == PromptKind::KScan {
                    self.start_kscan(&text)
                } else {
                    self.start_sweep(&text, sweep_view::kind_of(&text))
                };
                match started {
                    Ok(()) => self.prompt = None,
                    Err(e) => {
                        if let Some(p) = self.prompt.as_mut() {
                            p.hint = e;
                        }
                    }
                }
            }
            PromptKind::HistoryExport => {
                if text.is_empty() {
                    return;
                }
                self.prompt = None;
                self.export_history(&PathBuf::from(prompt::expand_home(&text)), false);
            }
            PromptKind::ConfirmExport(_)
            | PromptKind::ConfirmHistoryExport(_)
            | PromptKind::Search
            | PromptKind::ExportNames
            | PromptKind::ConfirmNames(_) => {}
        }
    }
}
