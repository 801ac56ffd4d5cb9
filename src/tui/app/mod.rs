//! The UI's state and every change to it, apart from drawing: `update`
//! takes an [`Action`] and is tested without a terminal. `apply` hands it
//! to the open prompt (`prompt_keys.rs`), the open view (a component of
//! `tui/components`, which owns its state) or the panes (`pane_keys.rs`).
//! Sliders live in `sliders.rs`, background jobs (loading, runs, paths) in
//! `jobs.rs`.

mod confusion;
pub mod controls;
pub mod export;
mod features;
pub mod history;
mod history_ops;
mod jobs;
mod pane_draw;
mod pane_keys;
mod path_cursor;
pub mod projection;
pub mod prompt;
mod prompt_keys;
pub mod session_file;
pub mod slider;
mod sliders;
pub mod sweep_context;
mod sweep_ops;
mod sweep_restore;
pub mod sweep_view;
pub mod worker;

pub use crate::session::StartOptions;
pub use crate::tui::components::confusion::{Confusion, Profiles, confusion};
pub use crate::tui::components::path::{PathSeries, path_series};
pub use crate::tui::components::scatter::ScatterMode;
pub use crate::tui::keys::{Action, Pane};
pub use features::{FeatureRow, Wide};
pub use projection::DataView;
pub use prompt::{Prompt, PromptKind};
pub use slider::Slider;

use crate::algo::params::{Default as PDefault, fmt_num};
use crate::algo::{self, Algorithm, Init, RunConfig, RunResult};
use crate::data::{LoadOptions, Scaling};
use crate::error::Error;
use crate::metrics::Scores;
use crate::session::Loaded;
use crate::tui::components::confusion::ConfusionView;
use crate::tui::components::controls::{ControlsCtx, ControlsView};
use crate::tui::components::help::{HelpView, Section};
use crate::tui::components::inspector::Inspector;
use crate::tui::components::path::PathPane;
use crate::tui::components::sweep::SweepPane;
use crate::tui::components::{Component, Outcome, Panes, Request};
use crate::tui::keys::{self, Context, RIGHT_PANES};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use worker::Job;

/// Wait this long after the last parameter change before starting a run.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// (algorithm id, parameter name).
pub type ParamKey = (String, String);

/// How long a note ("loaded iris …") stays on the status line.
pub const NOTE_TIME: Duration = Duration::from_secs(4);

#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    Idle,
    /// A run starts at the deadline unless something changes first.
    Pending(Instant),
    Running,
    Converged,
    /// Reached max_iter without meeting the tolerance.
    Stopped,
    Cancelled,
    Error(String),
}

impl RunStatus {
    pub fn label(&self) -> &str {
        match self {
            RunStatus::Idle => "idle",
            RunStatus::Pending(_) => "starting",
            RunStatus::Running => "running",
            RunStatus::Converged => "converged",
            RunStatus::Stopped => "stopped at max_iter",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Error(_) => "error",
        }
    }
}

/// A point of the live objective curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub iter: usize,
    pub s: Option<f64>,
    pub objective: f64,
}

/// What the panes show about the current (or last) run.
#[derive(Debug, Clone, Default)]
pub struct RunView {
    pub curve: Vec<CurvePoint>,
    pub previous: Vec<CurvePoint>,
    pub labels: Vec<usize>,
    pub sizes: Vec<usize>,
    pub feature_weights: Option<Vec<f64>>,
    pub kernel_weights: Option<Vec<f64>>,
    /// `labels` and `sizes` are still the previous run's: this one has
    /// not produced its own yet.
    pub carried: bool,
    pub scores: Option<Scores>,
    /// The finished run's label-free scores (silhouette, CH, DB, cost).
    pub internal: Option<crate::fit_scores::Internal>,
    pub restarts_done: usize,
    pub stage: Option<(String, f64)>,
    pub started: Option<Instant>,
    pub elapsed: Duration,
    pub result: Option<RunResult>,
    pub warnings: Vec<String>,
    /// The algorithm id and configuration of this run, for export.
    pub config: Option<(String, RunConfig)>,
    /// The parameter values the user set for this run (the History lists
    /// them as changed).
    pub given: Vec<(String, f64)>,
    /// The options the user set for this run (kernel, views, …); the
    /// configuration holds the algorithm's own defaults as well.
    pub given_options: Vec<(String, String)>,
}

pub struct App {
    pub algos: Vec<Box<dyn Algorithm>>,
    pub algo_idx: usize,
    pub data: Option<DataView>,
    pub data_spec: String,
    pub load_opts: LoadOptions,
    /// The scaling in force (the loaded data may still have the old one
    /// while a reload is under way).
    pub scale: Scaling,
    /// The user chose the scaling (key z, or --scale); otherwise it
    /// follows the algorithm's default.
    pub scale_chosen: bool,
    pub loading: Option<(Job, Instant, String)>,
    pub k: Option<usize>,
    /// The k asked for on the command line, applied when the first
    /// dataset has loaded (a later dataset starts from its own default).
    start_k: Option<usize>,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    /// Values the user set, per algorithm; others are the defaults.
    pub overrides: HashMap<ParamKey, f64>,
    /// Values of data-derived parameters (an automatic default) typed for
    /// another dataset, by its spec: they return with that dataset.
    stash: HashMap<String, Vec<(ParamKey, f64)>>,
    pub options: Vec<(String, String)>,
    pub focus: Pane,
    /// The right-hand pane shown when they share one area (small terminals).
    pub shown_right: Pane,
    /// The panes that hold state: the algorithm list's cursor, the
    /// focused slider, the scatter's axes.
    pub panes: Panes,
    pub status: RunStatus,
    pub view: RunView,
    pub job: Option<Job>,
    pub prompt: Option<Prompt>,
    pub help: HelpView,
    pub message: Option<String>,
    /// When the message goes by itself; None: at the next key.
    pub message_until: Option<Instant>,
    /// The regularisation path, shown in the Feature weights pane.
    pub path: PathPane,
    /// The feature inspector.
    pub inspector: Inspector,
    /// The confusion matrix and profiles, in place of the Metrics pane.
    pub confusion_view: ConfusionView,
    /// The last sweep (or k-scan), its view and the marked axes.
    pub sweep: SweepPane,
    /// The list of non-numeric settings (O).
    pub controls_view: ControlsView,
    pub quit: bool,
    /// Latency probe: when the last key was handled.
    pub last_input: Option<Instant>,
    /// Automatic defaults already computed, by (algorithm, parameter, k):
    /// some rules read the whole dataset, and sliders are drawn every frame.
    auto_cache: std::cell::RefCell<HashMap<(String, String, usize), Option<f64>>>,
    /// Every finished run of this session.
    pub history: history::History,
    /// A History run to restore once its dataset has loaded.
    pending_restore: Option<history::Entry>,
    /// `--session FILE`, when given.
    pub session: Option<session_file::SessionFile>,
    /// Said on the terminal after the UI closes (a session that could not
    /// be saved).
    pub exit_note: Option<String>,
    /// What the session file gave, said again once the first dataset has
    /// loaded (its "loaded …" note would hide it); true: it stays until a
    /// key.
    start_note: Option<(String, bool)>,
}

impl App {
    /// A new app that starts loading `opts.data` at once and runs the
    /// chosen algorithm as soon as the data is in.
    pub fn new(mut opts: StartOptions) -> Result<Self, Error> {
        let algos = algo::registry();
        // A session file's settings win over the command line's: the
        // session is where the user left off.
        let session = opts.session.take().map(|path| {
            let read = session_file::read(&path);
            let mut skipped = Vec::new();
            let mut restored = Vec::new();
            if let session_file::Read::Restored(saved, _) = &read {
                skipped = history_ops::apply_settings(&mut opts, &saved.settings, &algos);
                for o in &saved.settings.overrides {
                    let spec = algos
                        .iter()
                        .find(|a| a.id() == o.algo)
                        .and_then(|a| a.params().into_iter().find(|s| s.name == o.param));
                    match spec.map(|s| s.check(o.value)) {
                        Some(Ok(v)) => restored.push(((o.algo.clone(), o.param.clone()), v)),
                        _ => skipped.push(format!("{} {}", o.algo, o.param)),
                    }
                }
            }
            (path, read, skipped, restored)
        });
        let algo_idx = algos
            .iter()
            .position(|a| a.id() == opts.algo)
            .ok_or_else(|| algo::find(&opts.algo).err().expect("unknown id"))?;
        let mut overrides = HashMap::new();
        for (name, v) in &opts.given {
            let spec = algos[algo_idx]
                .params()
                .into_iter()
                .find(|s| s.name == name)
                .ok_or_else(|| {
                    Error::param(format!(
                        "parameter {name} does not apply to algorithm {}",
                        opts.algo
                    ))
                })?;
            overrides.insert((opts.algo.clone(), name.clone()), spec.check(*v)?);
        }
        let scale = opts
            .scale
            .unwrap_or_else(|| algos[algo_idx].default_scaling());
        let mut app = App {
            algos,
            algo_idx,
            data: None,
            data_spec: opts.data.clone(),
            load_opts: opts.load_opts,
            scale,
            scale_chosen: opts.scale.is_some(),
            loading: None,
            k: opts.k,
            start_k: opts.k,
            seed: opts.seed,
            restarts: opts.restarts.max(1),
            init: opts.init,
            overrides,
            stash: HashMap::new(),
            options: opts.options,
            focus: Pane::Parameters,
            shown_right: Pane::Objective,
            panes: Panes::default(),
            status: RunStatus::Idle,
            view: RunView::default(),
            job: None,
            prompt: None,
            help: HelpView::default(),
            message: None,
            message_until: None,
            path: PathPane::default(),
            inspector: Inspector::default(),
            confusion_view: ConfusionView::default(),
            sweep: SweepPane::default(),
            controls_view: ControlsView::default(),
            quit: false,
            last_input: None,
            auto_cache: Default::default(),
            history: Default::default(),
            pending_restore: None,
            session: None,
            exit_note: None,
            start_note: None,
        };
        app.panes.algorithm.cursor = algo_idx;
        if let Some((path, read, skipped, restored)) = session {
            app.overrides.extend(restored);
            app.open_session(path, read, skipped);
        }
        app.load(opts.data);
        Ok(app)
    }

    pub fn algo(&self) -> &dyn Algorithm {
        self.algos[self.algo_idx].as_ref()
    }

    /// Where keys go now: an open prompt takes them first, then the help.
    pub fn context(&self) -> Context {
        if self.prompt.is_some() {
            Context::Prompt
        } else if self.help.open {
            Context::Help
        } else if self.controls_view.open {
            Context::Controls
        } else if self.sweep.is_open() {
            Context::Sweep
        } else {
            Context::Panes
        }
    }

    /// The help's sections: the panes' keys, then each view's commands.
    /// The panes' section lists what each pane and the views it holds
    /// (path, confusion, inspector, History) list, and the keys `App`
    /// takes wherever the focus is, each row once, in the table's order.
    pub fn help_sections(&self) -> Vec<Section> {
        vec![
            (None, self.panes_commands()),
            (
                Some("In a sweep or k-scan (S, K; v shows the last one)"),
                self.sweep.commands(),
            ),
            // A prompt is not a component: the key table's rows.
            (Some("In a prompt"), keys::help_rows(Context::Prompt)),
        ]
    }

    pub fn loaded(&self) -> Option<&Loaded> {
        self.data.as_ref().map(|d| d.loaded.as_ref())
    }

    /// The k a run would use now.
    pub fn current_k(&self) -> usize {
        self.k
            .or_else(|| self.loaded().and_then(|l| l.default_k()))
            .unwrap_or(3)
    }

    /// Applies one action. Runs are started later by [`App::tick`], after
    /// the debounce, so a burst of slider moves gives one run.
    pub fn update(&mut self, action: Action) {
        self.last_input = Some(Instant::now());
        if self.message_until.is_none() {
            self.message = None;
        }
        let quitting = self.quit;
        self.apply(action);
        if RIGHT_PANES.contains(&self.focus) || self.focus == Pane::History {
            self.shown_right = self.focus;
        }
        if self.quit && !quitting {
            self.save_session();
        }
    }

    /// The open prompt takes the keys first, then the open view (help,
    /// controls, sweep), then the panes.
    fn apply(&mut self, action: Action) {
        let outcome = match self.context() {
            Context::Prompt => return self.update_prompt(action),
            Context::Panes => return self.apply_panes(action),
            Context::Help => self.help.handle(&action, ()),
            Context::Sweep => self.sweep.handle(&action, ()),
            Context::Controls => {
                let controls = self.controls();
                let algo = self.algo().id().to_string();
                let ctx = ControlsCtx {
                    controls: &controls,
                    algo: &algo,
                };
                self.controls_view.handle(&action, ctx)
            }
        };
        self.follow(&action, outcome);
    }

    /// Carries out what a component made of `action`.
    fn follow(&mut self, action: &Action, outcome: Outcome) {
        match outcome {
            Outcome::Handled => {}
            Outcome::Ignored => self.shared_key(action),
            Outcome::Request(r) => self.carry_out(r),
        }
    }

    /// Keys that mean the same in the panes and in the views that pass
    /// them on.
    fn shared_key(&mut self, action: &Action) {
        match action {
            Action::Quit => self.quit = true,
            Action::ToggleHelp => self.help.show(),
            Action::OpenSweep => self.open_sweep_prompt(),
            Action::KScan => self.open_kscan_prompt(),
            _ => {}
        }
    }

    /// Does what a component asked for.
    fn carry_out(&mut self, request: Request) {
        match request {
            Request::Prompt(p) => self.prompt = Some(p),
            Request::SetControl(name, value) => {
                if let Err(e) = self.set_control(name, &value) {
                    self.tell(e);
                }
            }
            Request::Note(text) => self.note(text),
            Request::Tell(text) => self.tell(text),
            Request::Restore => self.restore_selected(),
            Request::ApplyCell => self.apply_cell(),
            Request::AdoptK => self.adopt_k(),
            Request::ApplyPathPoint => self.apply_path_cursor(),
            Request::ChooseAlgorithm(idx) => self.choose_algorithm(idx),
            Request::StepParam {
                index,
                steps,
                coarse,
            } => self.step_param(index, steps, coarse),
            Request::ToggleMark => self.toggle_mark(),
        }
    }

    fn choose_algorithm(&mut self, idx: usize) {
        if idx != self.algo_idx {
            self.algo_idx = idx;
            let last = self.sliders().len() - 1;
            let cursor = &mut self.panes.parameters.cursor;
            *cursor = (*cursor).min(last);
            // Options stay: a kernel chosen for kpower is there when kpower
            // comes back; a run passes only those its algorithm takes.
            let want = self.algo().default_scaling();
            if !self.scale_chosen && want != self.scale {
                self.scale = want;
                self.note(format!(
                    "scale {want}: {}'s default (z chooses another)",
                    self.algo().id()
                ));
                // The run starts once the data is rescaled.
                self.open_data(self.data_spec.clone());
                return;
            }
        }
        self.schedule_run();
    }

    /// Sets the scaling (None: follow the algorithm) and reloads the data
    /// when the values change.
    fn set_scaling(&mut self, chosen: Option<Scaling>) {
        if self.loaded().is_some_and(|l| l.problem.csr().is_some()) {
            // Scaling would fill the zeros of sparse rows: they are run as
            // they are, and reloading them would change nothing.
            self.note("scale: sparse rows are not scaled");
            return;
        }
        self.scale_chosen = chosen.is_some();
        let want = chosen.unwrap_or_else(|| self.algo().default_scaling());
        let how = if chosen.is_some() {
            "chosen; z again for the next"
        } else {
            "the algorithm's default"
        };
        self.note(format!("scale {want} ({how})"));
        if want != self.scale || self.loaded().is_some_and(|l| l.scale != want) {
            self.scale = want;
            self.open_data(self.data_spec.clone());
        }
    }

    /// Every default back: the parameters of all algorithms (on every
    /// dataset), k, seed, restarts, the algorithm options and the scaling.
    /// The memory limit and the seeding method stay.
    fn reset_all(&mut self) {
        self.overrides.clear();
        self.stash.clear();
        self.k = None;
        self.seed = 0;
        self.restarts = 1;
        self.options.retain(|(n, _)| n == "max_memory");
        self.schedule_run();
        self.set_scaling(None);
        self.note(format!(
            "every parameter back to its default (k, seed, restarts, scale {})",
            self.scale
        ));
    }

    /// A message that goes by itself after a few seconds.
    pub fn note(&mut self, text: impl Into<String>) {
        // A name read from a session file or a dataset can hold anything;
        // a message is one line, never a terminal command.
        self.message = Some(crate::text::printable(&text.into(), &[]).into_owned());
        self.message_until = Some(Instant::now() + NOTE_TIME);
    }

    /// A message that stays until the next key.
    pub fn tell(&mut self, text: impl Into<String>) {
        self.message = Some(crate::text::printable(&text.into(), &[]).into_owned());
        self.message_until = None;
    }

    /// Whether `param` of algorithm `algo` has a default computed from the
    /// data (λ = 1/p, σ by the bandwidth rule, the sparse bound, D).
    pub fn is_derived(&self, algo: &str, param: &str) -> bool {
        self.algos.iter().filter(|a| a.id() == algo).any(|a| {
            a.params()
                .iter()
                .any(|s| s.name == param && matches!(s.default, PDefault::Auto(_)))
        })
    }

    /// The dataset changed from `old` to `new`: values typed for data-derived
    /// parameters stay with `old`, and those typed for `new` come back.
    fn follow_data(&mut self, old: &str, new: &str) {
        let derived: Vec<ParamKey> = self
            .overrides
            .keys()
            .filter(|(a, p)| self.is_derived(a, p))
            .cloned()
            .collect();
        let mut kept = Vec::new();
        for key in derived {
            if let Some(v) = self.overrides.remove(&key) {
                kept.push((key, v));
            }
        }
        if !kept.is_empty() {
            self.stash.insert(old.to_string(), kept);
        }
        for (key, v) in self.stash.remove(new).unwrap_or_default() {
            self.overrides.insert(key, v);
        }
    }

    /// One-line description of a slider value, e.g. "-1 (default)".
    pub fn describe(s: &Slider) -> String {
        let v = fmt_num(s.value);
        if s.auto.is_some() && s.is_default {
            format!("{v} (auto)")
        } else if s.is_default {
            format!("{v} (default)")
        } else {
            v
        }
    }
}
