//! The History seen from the app: recording finished runs, the History's
//! keys, restoring a run (its dataset too), exporting, and the session
//! file that keeps it all between sessions.

use super::history::{self, Entry};
use super::session_file::{self, Override, Read, Saved, SessionFile, Settings, Wrote};
use super::{App, Prompt, PromptKind, StartOptions};
use crate::algo::params::Default as PDefault;
use crate::algo::{self, Init};
use crate::data::Scaling;
use crate::error::{Error, Result};
use crate::tui::components::Component;
use crate::tui::keys::Pane;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub fn parse_init(s: &str) -> Option<Init> {
    <Init as clap::ValueEnum>::from_str(s, true).ok()
}

pub fn parse_scaling(s: &str) -> Option<Scaling> {
    <Scaling as clap::ValueEnum>::from_str(s, true).ok()
}

/// A session file's settings over the command line's start options (the
/// session is where the user left off). Returns what was left out.
pub fn apply_settings(
    opts: &mut StartOptions,
    s: &Settings,
    algos: &[Box<dyn algo::Algorithm>],
) -> Vec<String> {
    let mut skipped = Vec::new();
    opts.data = s.data.clone();
    if algos.iter().any(|a| a.id() == s.algo) {
        opts.algo = s.algo.clone();
    } else {
        skipped.push(format!("algorithm {}", s.algo));
    }
    opts.k = s.k;
    opts.seed = s.seed;
    opts.restarts = s.restarts.max(1);
    if let Some(i) = parse_init(&s.init) {
        opts.init = i;
    }
    opts.scale = s.scale.as_deref().and_then(parse_scaling);
    opts.given.clear();
    let memory: Vec<(String, String)> = opts
        .options
        .iter()
        .filter(|(n, _)| n == "max_memory")
        .cloned()
        .collect();
    opts.options = s
        .options
        .iter()
        .filter(|(n, _)| n.as_str() != "max_memory")
        .map(|(n, v)| (n.clone(), v.clone()))
        .chain(memory)
        .collect();
    skipped
}

impl App {
    /// Reads the session file named at start: restores the history (the
    /// settings were applied to the start options already, see
    /// [`App::new`]) or says why not.
    pub(super) fn open_session(&mut self, path: PathBuf, read: Read, skipped: Vec<String>) {
        let shown = crate::data::input::shown(&path);
        self.session = Some(SessionFile::new(path, &read));
        match read {
            Read::Missing => self.note(format!(
                "session {shown} is new: it is written after every run and on quit"
            )),
            Read::Restored(saved, _) => {
                self.history = saved.history;
                self.history.tidy();
                let mut text = format!(
                    "session {shown} restored: {} runs in the History (9), settings as left",
                    self.history.entries.len()
                );
                if !skipped.is_empty() {
                    text.push_str(&format!("; not restored: {}", skipped.join(", ")));
                }
                self.note(text);
            }
            Read::Corrupt(why, _) => {
                self.tell(format!(
                    "session {shown} is not a meanscape session ({why}); it is left as it is and \
                     will be kept as {shown}.corrupt-N when this session is first saved"
                ));
            }
            Read::Unusable(why) => {
                self.tell(format!(
                    "session {shown} {why}: this session is not saved; give another --session FILE"
                ));
            }
        }
        if let Some(m) = &self.message {
            self.start_note = Some((m.clone(), self.message_until.is_none()));
        }
    }

    /// The session's message again, once the first dataset is in.
    pub(super) fn repeat_start_note(&mut self) {
        match self.start_note.take() {
            Some((m, true)) => self.tell(m),
            Some((m, false)) => self.note(m),
            None => {}
        }
    }

    /// The settings now, as a session file keeps them.
    pub fn settings(&self) -> Settings {
        let mut overrides: Vec<Override> = self
            .overrides
            .iter()
            .map(|((a, p), v)| Override {
                algo: a.clone(),
                param: p.clone(),
                value: *v,
            })
            .collect();
        overrides.sort_by(|a, b| (&a.algo, &a.param).cmp(&(&b.algo, &b.param)));
        Settings {
            data: self.data_spec.clone(),
            algo: self.algo().id().to_string(),
            k: self.k,
            seed: self.seed,
            restarts: self.restarts,
            init: self.init.to_string(),
            scale: self.scale_chosen.then(|| self.scale.to_string()),
            overrides,
            options: self
                .options
                .iter()
                .filter(|(n, _)| n != "max_memory")
                .cloned()
                .collect(),
        }
    }

    /// Writes the session file, when there is one; a failure is shown
    /// (and said again on the terminal after the UI closes), and the
    /// history stays in memory. A file that changed under the UI stops the
    /// saving for good (see `session_file`).
    pub fn save_session(&mut self) {
        let Some(mut sf) = self.session.take() else {
            return;
        };
        let saved = Saved {
            meanscape_session: session_file::VERSION,
            settings: self.settings(),
            history: self.history.clone(),
        };
        match sf.write(&saved) {
            Ok(Wrote::MovedAside(aside)) => {
                self.exit_note = None;
                self.tell(format!(
                    "{} held no session: kept as {}; this session is saved to {}",
                    sf.path.display(),
                    aside.display(),
                    sf.path.display()
                ))
            }
            Ok(Wrote::Saved) => self.exit_note = None,
            // Off from the start (said then), or stopped (its note stays).
            Ok(Wrote::Off) => {}
            Err(e) => {
                let m =
                    crate::text::printable(&format!("session not saved: {e}"), &[]).into_owned();
                self.exit_note = Some(m.clone());
                self.tell(m);
            }
        }
        self.session = Some(sf);
    }

    /// Adds the run that just finished to the History and saves the
    /// session.
    pub(super) fn record_run(&mut self) {
        if let Some(e) = self.entry_of_view() {
            self.history.push(e);
            self.save_session();
        }
    }

    fn entry_of_view(&self) -> Option<Entry> {
        let (id, cfg) = self.view.config.as_ref()?;
        let res = self.view.result.as_ref()?;
        let l = self.loaded()?;
        let algo = algo::find(id).ok()?;
        let fit = &res.best;
        let params: BTreeMap<String, f64> =
            cfg.params.iter().map(|(n, v)| (n.to_string(), v)).collect();
        let given = |n: &str| self.view.given.iter().any(|(g, _)| g == n);
        // Differs from a fixed default, or typed over an automatic one.
        let changed = algo
            .params()
            .iter()
            .filter_map(|s| {
                let v = cfg.params.value(s.name)?;
                let differs = match s.default {
                    PDefault::Fixed(d) => v != d,
                    PDefault::Auto(_) => given(s.name),
                };
                differs.then(|| (s.name.to_string(), v))
            })
            .collect();
        let selected: Option<Vec<usize>> = fit.feature_weights.as_ref().map(|w| {
            w.iter()
                .enumerate()
                .filter(|(_, v)| **v > 0.0)
                .map(|(i, _)| i)
                .collect()
        });
        let names = &l.dataset.feature_names;
        let selected_names = selected.as_ref().map(|s| {
            s.iter()
                .map(|&i| names.get(i).cloned().unwrap_or_else(|| format!("f{i}")))
                .collect()
        });
        let internal = self.view.internal.as_ref();
        Some(Entry {
            id: 0,
            data: l.source.spec(),
            dataset: l.dataset.name.clone(),
            algo: id.clone(),
            k: cfg.k,
            seed: cfg.seed,
            restarts: cfg.restarts,
            init: cfg.init.to_string(),
            scale: l.scale.to_string(),
            scale_default: l.scale == algo.default_scaling(),
            load: self.load_flags().into_iter().collect(),
            params,
            changed,
            options: self
                .view
                .given_options
                .iter()
                .filter(|(n, _)| n != "max_memory")
                .cloned()
                .collect(),
            // A score undefined for the partition (the silhouette of one
            // cluster) is absent, as in the session file (NaN is null there,
            // read back as absent).
            nmi: finite(self.view.scores.map(|s| s.nmi)),
            ari: finite(self.view.scores.map(|s| s.ari)),
            acc: finite(self.view.scores.map(|s| s.acc)),
            silhouette: finite(internal.map(|i| i.silhouette)),
            cost: finite(internal.map(|i| i.cost)),
            calinski_harabasz: finite(internal.map(|i| i.calinski_harabasz)),
            davies_bouldin: finite(internal.map(|i| i.davies_bouldin)),
            objective: fit.objective,
            final_s: fit.trace.last().and_then(|t| t.s),
            space: internal.map(|i| i.space.as_str().to_string()),
            iterations: fit.iterations,
            converged: fit.converged,
            elapsed_ms: res.elapsed.as_secs_f64() * 1e3,
            selected,
            selected_names,
            n_features: l.dataset.p(),
            trace: history::thin(
                &fit.trace
                    .iter()
                    .map(|t| (t.iter, t.objective))
                    .collect::<Vec<_>>(),
            ),
            sizes: self.view.sizes.clone(),
            command: self.command_line().unwrap_or_default(),
        })
    }

    /// The History's keys act while it is shown; elsewhere they say where
    /// it is.
    fn history_shown(&mut self) -> bool {
        if self.focus == Pane::History || self.shown_right == Pane::History {
            return true;
        }
        self.note("that key works in the History: press 9 to show it");
        false
    }

    /// A key for the History, when it is shown.
    pub(super) fn history_key(&mut self, action: &crate::tui::keys::Action) {
        if self.history_shown() {
            let outcome = self.history.handle(action, ());
            self.follow(action, outcome);
        }
    }

    /// Enter in the History: the highlighted run's settings back, and a
    /// new run with them; its dataset (and scaling) is loaded first when
    /// it is not the one in use.
    pub(super) fn restore_selected(&mut self) {
        let Some(e) = self.history.selected_entry().cloned() else {
            self.tell("the History is empty: runs appear here as they finish");
            return;
        };
        let Some(idx) = self.algos.iter().position(|a| a.id() == e.algo) else {
            self.tell(format!("run #{}: unknown algorithm {}", e.id, e.algo));
            return;
        };
        let default_scale = self.algos[idx].default_scaling();
        let scale = parse_scaling(&e.scale).unwrap_or(default_scale);
        // Read as it was: the label column and missing cells it ran with.
        let load: BTreeMap<String, String> = self.load_flags().into_iter().collect();
        let same_read = load == e.load;
        if !same_read {
            self.load_opts.label = e
                .load
                .get("label")
                .and_then(|l| l.parse().ok())
                .unwrap_or_default();
            self.load_opts.missing = if e.load.contains_key("impute") {
                crate::data::Missing::ImputeMean
            } else if e.load.contains_key("drop-incomplete") {
                crate::data::Missing::DropIncomplete
            } else {
                crate::data::Missing::Error
            };
            self.load_opts.ignore_non_numeric = e.load.contains_key("ignore-non-numeric");
        }
        let same_data = same_read && self.loaded().is_some_and(|l| l.source.spec() == e.data);
        let same_scale = self.loaded().is_some_and(|l| l.scale == scale);
        self.scale_chosen = !(e.scale_default && scale == default_scale);
        self.history.comparing = false;
        if same_data && same_scale {
            self.apply_entry(&e);
            self.schedule_run();
            self.note(format!(
                "run #{}: {} settings restored; re-running",
                e.id, e.algo
            ));
        } else {
            let why = if same_data {
                format!("rescaling {} ({})", e.dataset, e.scale)
            } else {
                format!("loading {} (it ran on that dataset)", e.data)
            };
            self.note(format!("run #{}: {why}, then re-running", e.id));
            self.scale = scale;
            self.pending_restore = Some(e.clone());
            self.open_data(e.data.clone());
        }
    }

    /// Sets algorithm, k, seed, restarts, seeding, parameters and options
    /// to those of `e`.
    pub(super) fn apply_entry(&mut self, e: &Entry) {
        if let Some(idx) = self.algos.iter().position(|a| a.id() == e.algo) {
            self.algo_idx = idx;
            self.panes.algorithm.cursor = idx;
        }
        let last = self.sliders().len().saturating_sub(1);
        let cursor = &mut self.panes.parameters.cursor;
        *cursor = (*cursor).min(last);
        // The number of classes stays "the default" (it follows the data).
        let default_k = self.loaded().and_then(|l| l.default_k());
        self.k = (default_k != Some(e.k)).then_some(e.k);
        self.seed = e.seed;
        self.restarts = e.restarts.max(1);
        if let Some(i) = parse_init(&e.init) {
            self.init = i;
        }
        self.overrides.retain(|(a, _), _| a != &e.algo);
        let specs = self.algo().params();
        for (n, v) in &e.changed {
            // Only values the algorithm still takes (a session file may be
            // older than the program).
            if let Some(s) = specs.iter().find(|s| s.name == n)
                && let Ok(v) = s.check(*v)
            {
                self.overrides.insert((e.algo.clone(), n.clone()), v);
            }
        }
        self.options.retain(|(n, _)| n == "max_memory");
        self.options.extend(
            e.options
                .iter()
                .filter(|(n, _)| n.as_str() != "max_memory")
                .map(|(n, v)| (n.clone(), v.clone())),
        );
    }

    /// Writes the History as NAME.csv and NAME.json; asks before
    /// replacing files.
    pub(super) fn export_history(&mut self, base: &Path, confirmed: bool) {
        match write_history(self, base, confirmed) {
            Ok(Written::Files(paths)) => self.tell(format!(
                "wrote {} ({} runs, each with its meanscape run command)",
                paths.join(" and "),
                self.history.entries.len()
            )),
            Ok(Written::NeedsConfirm(existing)) => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::ConfirmHistoryExport(base.to_path_buf()),
                    text: String::new(),
                    hint: format!("{} exists: replace? (y/n)", existing.join(", ")),
                });
            }
            Err(e) => self.tell(format!("History export failed: {e}")),
        }
    }
}

enum Written {
    Files(Vec<String>),
    NeedsConfirm(Vec<String>),
}

fn write_history(app: &App, base: &Path, confirmed: bool) -> Result<Written> {
    let b = base.display().to_string();
    let b = b
        .strip_suffix(".json")
        .or_else(|| b.strip_suffix(".csv"))
        .unwrap_or(&b)
        .to_string();
    let csv = PathBuf::from(format!("{b}.csv"));
    let json = PathBuf::from(format!("{b}.json"));
    let mut inputs: Vec<&Path> = app
        .loaded()
        .map(|l| l.dataset.inputs.iter().map(|p| p.as_path()).collect())
        .unwrap_or_default();
    // Nor over the session file itself.
    if let Some(sf) = &app.session {
        inputs.push(sf.path.as_path());
    }
    for t in [&csv, &json] {
        crate::files::check_target(t, &inputs, true)?;
    }
    let existing: Vec<String> = [&csv, &json]
        .iter()
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() && !confirmed {
        return Ok(Written::NeedsConfirm(existing));
    }
    if app.history.entries.is_empty() {
        return Err(Error::param("the History is empty"));
    }
    crate::files::write_atomic(&csv, history::to_csv(&app.history).as_bytes())?;
    crate::files::write_atomic(&json, history::to_json(&app.history).as_bytes())?;
    let full = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    Ok(Written::Files(vec![full(&csv), full(&json)]))
}

fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}
