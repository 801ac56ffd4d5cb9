//! The UI's state and every change to it, apart from drawing: `update`
//! takes an [`Action`] and is tested without a terminal.

use crate::algo::params::{Default as PDefault, ParamSpec, Scale, fmt_num};
use crate::algo::{self, Algorithm, Event, Init, RunConfig, RunResult};
use crate::data::{LoadOptions, Scaling, bundled};
use crate::error::Error;
use crate::metrics::Scores;
use crate::session::Loaded;
use crate::tui::projection::Projection;
use crate::tui::worker::{self, Job, Msg};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wait this long after the last parameter change before starting a run.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Data,
    Algorithm,
    Parameters,
    Objective,
    Sizes,
    Weights,
    Metrics,
    Scatter,
}

impl Pane {
    pub const ALL: [Pane; 8] = [
        Pane::Data,
        Pane::Algorithm,
        Pane::Parameters,
        Pane::Objective,
        Pane::Scatter,
        Pane::Sizes,
        Pane::Weights,
        Pane::Metrics,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Data => "Data",
            Pane::Algorithm => "Algorithm",
            Pane::Parameters => "Parameters",
            Pane::Objective => "Objective",
            Pane::Sizes => "Cluster sizes",
            Pane::Weights => "Feature weights",
            Pane::Metrics => "Metrics",
            Pane::Scatter => "Scatter",
        }
    }
}

/// Everything a user can do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    NextPane,
    PrevPane,
    Focus(Pane),
    /// Up/down within the focused pane (list selection, slider focus).
    Move(i32),
    /// Left/right: move the focused slider by fine or coarse steps.
    Step {
        steps: i32,
        coarse: bool,
    },
    /// Mouse wheel over a slider row of the Parameters pane.
    StepParam {
        index: usize,
        steps: i32,
    },
    /// Enter: select the algorithm, or type an exact slider value.
    Activate,
    /// Re-run with the next seed.
    Reseed,
    /// Esc: close the overlay or prompt, else cancel the run.
    Cancel,
    ToggleHelp,
    /// Text entry into the open prompt.
    Input(char),
    Backspace,
    /// Tab inside a path prompt: complete.
    Complete,
    OpenFilePrompt,
    /// Cycle through the bundled datasets.
    NextBundled,
    ExportPrompt,
    /// Scatter: principal components or two features.
    ToggleScatterMode,
    /// Scatter: next feature on the x (0) or y (1) axis.
    ScatterFeature(usize),
    /// Feature weights pane: toggle the regularisation-path view.
    TogglePath,
}

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
    pub scores: Option<Scores>,
    pub restarts_done: usize,
    pub stage: Option<(String, f64)>,
    pub started: Option<Instant>,
    pub elapsed: Duration,
    pub result: Option<RunResult>,
    pub warnings: Vec<String>,
    /// The algorithm id and configuration of this run, for export.
    pub config: Option<(String, RunConfig)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PromptKind {
    /// Type an exact value for the parameter at this slider index.
    Value(usize),
    OpenFile,
    Export,
    /// Confirm replacing these files, then export to the base path.
    ConfirmExport(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
    /// Completion candidates or the reason the last entry was refused.
    pub hint: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScatterMode {
    Pca,
    Features(usize, usize),
}

/// The regularisation path shown in the Feature weights pane.
#[derive(Default)]
pub struct PathView {
    pub job: Option<Job>,
    pub progress: f64,
    /// The algorithm and its λ (or bound) when the path was asked for.
    pub for_algo: String,
    pub result: Option<Result<crate::algo::path::PathResult, String>>,
}

/// The dataset as loaded, with its projection.
pub struct DataView {
    pub loaded: Arc<Loaded>,
    pub projection: Projection,
}

pub struct App {
    pub algos: Vec<Box<dyn Algorithm>>,
    pub algo_idx: usize,
    /// Highlighted entry of the Algorithm list.
    pub algo_cursor: usize,
    pub data: Option<DataView>,
    pub data_spec: String,
    pub load_opts: LoadOptions,
    pub scale: Scaling,
    pub loading: Option<(Job, Instant, String)>,
    pub k: Option<usize>,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    /// Values the user set, per algorithm; others are the defaults.
    pub overrides: HashMap<(String, String), f64>,
    pub options: Vec<(String, String)>,
    pub focus: Pane,
    /// The right-hand pane shown when they share one area (small terminals).
    pub shown_right: Pane,
    pub param_cursor: usize,
    pub status: RunStatus,
    pub view: RunView,
    pub job: Option<Job>,
    pub prompt: Option<Prompt>,
    pub help: bool,
    pub message: Option<String>,
    pub scatter: ScatterMode,
    pub show_path: bool,
    pub path: PathView,
    pub quit: bool,
    /// Latency probe: when the last key was handled.
    pub last_input: Option<Instant>,
    /// Automatic defaults already computed, by (algorithm, parameter, k):
    /// some rules read the whole dataset, and sliders are drawn every frame.
    auto_cache: std::cell::RefCell<HashMap<(String, String, usize), Option<f64>>>,
}

/// A slider row: run-level (k, seed, restarts) or an algorithm parameter.
#[derive(Debug, Clone)]
pub struct Slider {
    pub spec: ParamSpec,
    pub value: f64,
    /// Automatic default resolved on this data (shown as "auto").
    pub auto: Option<f64>,
    pub is_default: bool,
}

pub struct StartOptions {
    pub data: String,
    pub load_opts: LoadOptions,
    pub scale: Scaling,
    pub algo: String,
    pub k: Option<usize>,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    pub given: Vec<(String, f64)>,
    pub options: Vec<(String, String)>,
}

impl std::default::Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            data: bundled::DEFAULT.into(),
            load_opts: LoadOptions::default(),
            scale: Scaling::Standard,
            algo: "power".into(),
            k: None,
            seed: 0,
            restarts: 1,
            init: Init::KmeansPP,
            given: Vec::new(),
            options: Vec::new(),
        }
    }
}

fn run_spec(
    name: &'static str,
    symbol: &'static str,
    min: f64,
    max: f64,
    coarse: f64,
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        symbol,
        default: PDefault::Fixed(min),
        min,
        max,
        scale: Scale::Linear,
        step: 1.0,
        coarse,
        integer: true,
        help,
    }
}

impl App {
    /// A new app that starts loading `opts.data` at once and runs the
    /// chosen algorithm as soon as the data is in.
    pub fn new(opts: StartOptions) -> Result<Self, Error> {
        let algos = algo::registry();
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
                    Error::Param(format!(
                        "parameter {name} does not apply to algorithm {}",
                        opts.algo
                    ))
                })?;
            overrides.insert((opts.algo.clone(), name.clone()), spec.check(*v)?);
        }
        let mut app = App {
            algos,
            algo_idx,
            algo_cursor: algo_idx,
            data: None,
            data_spec: opts.data.clone(),
            load_opts: opts.load_opts,
            scale: opts.scale,
            loading: None,
            k: opts.k,
            seed: opts.seed,
            restarts: opts.restarts.max(1),
            init: opts.init,
            overrides,
            options: opts.options,
            focus: Pane::Parameters,
            shown_right: Pane::Objective,
            param_cursor: 0,
            status: RunStatus::Idle,
            view: RunView::default(),
            job: None,
            prompt: None,
            help: false,
            message: None,
            scatter: ScatterMode::Pca,
            show_path: false,
            path: PathView::default(),
            quit: false,
            last_input: None,
            auto_cache: Default::default(),
        };
        app.load(opts.data);
        Ok(app)
    }

    pub fn algo(&self) -> &dyn Algorithm {
        self.algos[self.algo_idx].as_ref()
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

    /// Every slider of the Parameters pane, in order.
    pub fn sliders(&self) -> Vec<Slider> {
        let n = self.loaded().map_or(1000, |l| l.dataset.n());
        let mut k_spec = run_spec(
            "k",
            "k",
            1.0,
            n.min(500) as f64,
            5.0,
            "Number of clusters (default: the number of classes when labels are known).",
        );
        k_spec.default =
            PDefault::Fixed(self.loaded().and_then(|l| l.default_k()).unwrap_or(3) as f64);
        let mut seed_spec = run_spec(
            "seed",
            "seed",
            0.0,
            1e9,
            10.0,
            "Seed of the run; restart r uses seed + r. `r` re-runs with the next seed.",
        );
        seed_spec.default = PDefault::Fixed(0.0);
        let mut restarts_spec = run_spec(
            "restarts",
            "restarts",
            1.0,
            64.0,
            4.0,
            "Starts run in parallel; the lowest objective wins.",
        );
        restarts_spec.default = PDefault::Fixed(1.0);
        let mut out = vec![
            Slider {
                value: self.current_k() as f64,
                is_default: self.k.is_none(),
                spec: k_spec,
                auto: None,
            },
            Slider {
                value: self.seed as f64,
                is_default: self.seed == 0,
                spec: seed_spec,
                auto: None,
            },
            Slider {
                value: self.restarts as f64,
                is_default: self.restarts == 1,
                spec: restarts_spec,
                auto: None,
            },
        ];
        let algo = self.algo();
        for spec in algo.params() {
            let key = (algo.id().to_string(), spec.name.to_string());
            let auto = match spec.default {
                PDefault::Auto(_) => {
                    let k = self.current_k();
                    let ck = (algo.id().to_string(), spec.name.to_string(), k);
                    let cached = self.auto_cache.borrow().get(&ck).copied();
                    cached.unwrap_or_else(|| {
                        let v = self
                            .loaded()
                            .and_then(|l| algo.auto_param(spec.name, &l.problem, k).ok());
                        if self.loaded().is_some() {
                            self.auto_cache.borrow_mut().insert(ck, v);
                        }
                        v
                    })
                }
                PDefault::Fixed(_) => None,
            };
            let default = match spec.default {
                PDefault::Fixed(v) => v,
                PDefault::Auto(_) => auto.unwrap_or(f64::NAN),
            };
            let value = self.overrides.get(&key).copied().unwrap_or(default);
            out.push(Slider {
                is_default: !self.overrides.contains_key(&key),
                value,
                auto,
                spec,
            });
        }
        out
    }

    /// Applies one action. Runs are started later by [`App::tick`], after
    /// the debounce, so a burst of slider moves gives one run.
    pub fn update(&mut self, action: Action) {
        self.last_input = Some(Instant::now());
        self.apply(action);
        if super::ui::RIGHT_PANES.contains(&self.focus) {
            self.shown_right = self.focus;
        }
    }

    fn apply(&mut self, action: Action) {
        if self.prompt.is_some() {
            self.update_prompt(action);
            return;
        }
        if self.help {
            if matches!(action, Action::ToggleHelp | Action::Cancel | Action::Quit) {
                self.help = false;
            }
            return;
        }
        match action {
            Action::Quit => self.quit = true,
            Action::ToggleHelp => self.help = true,
            Action::NextPane | Action::PrevPane => {
                let i = Pane::ALL.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = Pane::ALL.len();
                let j = if action == Action::NextPane {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = Pane::ALL[j];
            }
            Action::Focus(p) => self.focus = p,
            Action::Move(d) => match self.focus {
                Pane::Algorithm => {
                    let n = self.algos.len() as i32;
                    self.algo_cursor = (self.algo_cursor as i32 + d).rem_euclid(n) as usize;
                    self.choose_algorithm(self.algo_cursor);
                }
                Pane::Parameters => {
                    let n = self.sliders().len() as i32;
                    self.param_cursor = (self.param_cursor as i32 + d).clamp(0, n - 1) as usize;
                }
                _ => {}
            },
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
            Action::Activate => match self.focus {
                Pane::Algorithm => self.choose_algorithm(self.algo_cursor),
                Pane::Parameters => {
                    let s = &self.sliders()[self.param_cursor];
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Value(self.param_cursor),
                        text: String::new(),
                        hint: format!("{} {}", s.spec.name, s.spec.range_text()),
                    });
                }
                _ => {}
            },
            Action::Reseed => {
                self.seed = self.seed.wrapping_add(1);
                self.schedule_run();
            }
            Action::Cancel => {
                if let Some(job) = &self.job {
                    job.cancel();
                    self.job = None;
                    self.status = RunStatus::Cancelled;
                    self.view.elapsed = self.view.started.map_or(Duration::ZERO, |t| t.elapsed());
                } else if matches!(self.status, RunStatus::Pending(_)) {
                    self.status = RunStatus::Cancelled;
                }
            }
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
                    self.message = Some("nothing to export yet: wait for a run to finish".into());
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
            Action::ToggleScatterMode => {
                let p = self.loaded().map_or(1, |l| l.dataset.p());
                self.scatter = match self.scatter {
                    ScatterMode::Pca => ScatterMode::Features(0, 1.min(p - 1)),
                    ScatterMode::Features(..) => ScatterMode::Pca,
                };
            }
            Action::ScatterFeature(axis) => {
                let p = self.loaded().map_or(1, |l| l.dataset.p());
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
            Action::TogglePath => self.toggle_path(),
            Action::Input(_) | Action::Backspace | Action::Complete => {}
        }
    }

    /// Shows or hides the path; computes it when it is missing or was made
    /// for another algorithm.
    fn toggle_path(&mut self) {
        if self.show_path {
            self.show_path = false;
            return;
        }
        let id = self.algo().id().to_string();
        let Ok(which) = crate::algo::path::PathAlgo::from_id(&id) else {
            self.message = Some(format!(
                "{id} has no regularisation path; choose lw or sparse-kmeans"
            ));
            return;
        };
        self.show_path = true;
        self.focus = Pane::Weights;
        let fresh =
            self.path.for_algo == id && (self.path.job.is_some() || self.path.result.is_some());
        if fresh {
            return;
        }
        let Some(cfg) = self.view.config.as_ref().map(|(_, c)| c.clone()) else {
            self.message =
                Some("the path starts from a finished run's settings: wait for it".into());
            self.show_path = false;
            return;
        };
        let Some(problem) = self.loaded().map(|l| l.problem.clone()) else {
            return;
        };
        self.path = PathView {
            job: Some(worker::start_path(which, problem, cfg)),
            progress: 0.0,
            for_algo: id,
            result: None,
        };
    }

    fn poll_path(&mut self) {
        let Some(job) = &self.path.job else { return };
        let (msgs, done) = job.drain();
        for m in msgs {
            match m {
                Msg::Event(Event::Stage { done, .. }) => self.path.progress = done,
                Msg::PathDone(r) => {
                    self.path.result = Some(r.map_err(|e| e.to_string()));
                    self.path.job = None;
                    return;
                }
                _ => {}
            }
        }
        if done {
            self.path.job = None;
        }
    }

    fn update_prompt(&mut self, action: Action) {
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        match action {
            Action::Cancel => self.prompt = None,
            Action::Quit => self.quit = true,
            Action::Input(c) => {
                if let PromptKind::ConfirmExport(base) = &prompt.kind {
                    let base = base.clone();
                    self.prompt = None;
                    if c == 'y' || c == 'Y' {
                        self.export(&base, true);
                    } else {
                        self.message = Some("export cancelled; nothing written".into());
                    }
                    return;
                }
                prompt.text.push(c);
            }
            Action::Backspace => {
                prompt.text.pop();
            }
            Action::Complete => {
                if prompt.kind == PromptKind::OpenFile {
                    let (text, hint) = super::prompt::complete_path(&prompt.text);
                    prompt.text = text;
                    prompt.hint = hint;
                }
            }
            Action::Activate => {
                let text = prompt.text.trim().to_string();
                match prompt.kind.clone() {
                    PromptKind::Value(index) => self.commit_value(index, &text),
                    PromptKind::OpenFile => {
                        if text.is_empty() {
                            return;
                        }
                        self.prompt = None;
                        self.open_data(super::prompt::expand_home(&text));
                    }
                    PromptKind::Export => {
                        if text.is_empty() {
                            return;
                        }
                        self.prompt = None;
                        self.export(&PathBuf::from(super::prompt::expand_home(&text)), false);
                    }
                    PromptKind::ConfirmExport(_) => {}
                }
            }
            _ => {}
        }
    }

    fn commit_value(&mut self, index: usize, text: &str) {
        let sliders = self.sliders();
        let Some(s) = sliders.get(index) else { return };
        let parsed: Result<f64, String> = if text.eq_ignore_ascii_case("default") || text.is_empty()
        {
            Ok(f64::NAN)
        } else {
            text.parse::<f64>()
                .map_err(|_| format!("'{text}' is not a number"))
        };
        match parsed.and_then(|v| {
            if v.is_nan() {
                Ok(v)
            } else {
                s.spec.check(v).map_err(|e| e.to_string())
            }
        }) {
            Ok(v) => {
                self.prompt = None;
                self.set_slider(index, if v.is_nan() { None } else { Some(v) });
            }
            Err(why) => {
                if let Some(p) = self.prompt.as_mut() {
                    p.hint = why;
                }
            }
        }
    }

    fn step_param(&mut self, index: usize, steps: i32, coarse: bool) {
        let sliders = self.sliders();
        let Some(s) = sliders.get(index) else { return };
        let v = s.spec.step_from(s.value, steps, coarse);
        if v != s.value {
            self.set_slider(index, Some(v));
        }
    }

    /// Sets slider `index` to `v` (None = back to its default) and
    /// schedules a run.
    pub fn set_slider(&mut self, index: usize, v: Option<f64>) {
        match index {
            0 => self.k = v.map(|x| x as usize),
            1 => self.seed = v.unwrap_or(0.0) as u64,
            2 => self.restarts = v.unwrap_or(1.0) as usize,
            _ => {
                let spec = &self.sliders()[index].spec;
                let key = (self.algo().id().to_string(), spec.name.to_string());
                match v {
                    Some(x) => self.overrides.insert(key, x),
                    None => self.overrides.remove(&key),
                };
            }
        }
        self.schedule_run();
    }

    fn choose_algorithm(&mut self, idx: usize) {
        if idx != self.algo_idx {
            self.algo_idx = idx;
            self.param_cursor = self.param_cursor.min(self.sliders().len() - 1);
            self.options.retain(|(n, _)| n == "max_memory");
        }
        self.schedule_run();
    }

    /// Cancels the run in flight and starts a new one after the debounce.
    pub fn schedule_run(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.status = RunStatus::Pending(Instant::now() + DEBOUNCE);
    }

    fn open_data(&mut self, spec: String) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.status = RunStatus::Idle;
        self.data_spec = spec.clone();
        self.load(spec);
    }

    fn load(&mut self, spec: String) {
        let job = worker::start_load(spec.clone(), self.load_opts.clone(), self.scale);
        self.loading = Some((job, Instant::now(), spec));
    }

    /// Housekeeping once per frame: collects what the background jobs
    /// sent and starts a pending run whose debounce has passed.
    pub fn tick(&mut self, now: Instant) {
        self.poll_loading();
        self.poll_run();
        self.poll_path();
        if let RunStatus::Pending(at) = self.status
            && now >= at
        {
            self.start_run();
        }
        if matches!(self.status, RunStatus::Running)
            && let Some(t) = self.view.started
        {
            self.view.elapsed = t.elapsed();
        }
    }

    fn poll_loading(&mut self) {
        let Some((job, _, spec)) = &self.loading else {
            return;
        };
        let spec = spec.clone();
        let (msgs, done) = job.drain();
        for m in msgs {
            if let Msg::Loaded(r) = m {
                self.loading = None;
                match r {
                    Ok(b) => {
                        let (loaded, projection) = *b;
                        self.message = Some(format!(
                            "loaded {} ({} × {}) in {:.0} ms",
                            loaded.dataset.name,
                            loaded.dataset.n(),
                            loaded.dataset.p(),
                            loaded.load_ms
                        ));
                        self.auto_cache.borrow_mut().clear();
                        self.path = PathView::default();
                        self.show_path = false;
                        self.data = Some(DataView {
                            loaded: Arc::new(loaded),
                            projection,
                        });
                        self.data_spec = spec.clone();
                        self.k = None;
                        self.scatter = ScatterMode::Pca;
                        self.view = RunView::default();
                        self.schedule_run();
                    }
                    Err(e) => {
                        self.message = Some(format!("could not open {spec}: {e}"));
                        if self.data.is_none() {
                            self.status = RunStatus::Error(e.to_string());
                        } else if let Some(d) = &self.data {
                            // Keep working on the data that was there.
                            self.data_spec = d.loaded.source.spec();
                        }
                    }
                }
                return;
            }
        }
        if done {
            self.loading = None;
        }
    }

    fn start_run(&mut self) {
        let Some(data) = &self.data else {
            self.status = RunStatus::Idle;
            return;
        };
        let problem = data.loaded.problem.clone();
        let algo = algo::find(self.algo().id()).expect("registered");
        let k = self.current_k();
        let given: Vec<(String, f64)> = self
            .overrides
            .iter()
            .filter(|((a, _), _)| a == algo.id())
            .map(|((_, n), v)| (n.clone(), *v))
            .collect();
        let cfg = algo::resolve_params(algo.as_ref(), &problem, k, &given)
            .and_then(|params| {
                Ok(RunConfig {
                    k,
                    seed: self.seed,
                    restarts: self.restarts,
                    init: self.init,
                    params,
                    options: algo::resolve_options(algo.as_ref(), &self.options)?,
                })
            })
            .and_then(|cfg| algo::check_config(&problem, &cfg).map(|_| cfg));
        let cfg = match cfg {
            Ok(c) => c,
            Err(e) => {
                self.status = RunStatus::Error(e.to_string());
                return;
            }
        };
        let mut view = RunView {
            previous: if self.view.curve.is_empty() {
                std::mem::take(&mut self.view.previous)
            } else {
                std::mem::take(&mut self.view.curve)
            },
            started: Some(Instant::now()),
            ..RunView::default()
        };
        // Keep the last picture until the new run draws over it.
        view.labels = std::mem::take(&mut self.view.labels);
        view.sizes = std::mem::take(&mut self.view.sizes);
        view.config = Some((algo.id().to_string(), cfg.clone()));
        self.view = view;
        self.job = Some(worker::start_run(algo, problem, cfg));
        self.status = RunStatus::Running;
    }

    fn poll_run(&mut self) {
        let Some(job) = &self.job else { return };
        let (msgs, _) = job.drain();
        let mut latest_labels = None;
        let mut done = None;
        for m in msgs {
            match m {
                Msg::Event(Event::Iteration(p)) => {
                    if p.restart == 0 {
                        self.view.curve.push(CurvePoint {
                            iter: p.iter,
                            s: p.s,
                            objective: p.objective,
                        });
                        self.view.sizes = p.sizes;
                        if p.feature_weights.is_some() {
                            self.view.feature_weights = p.feature_weights;
                        }
                        if p.kernel_weights.is_some() {
                            self.view.kernel_weights = p.kernel_weights;
                        }
                        if p.labels.is_some() {
                            latest_labels = p.labels;
                        }
                    }
                    self.view.stage = None;
                }
                Msg::Event(Event::Stage { label, done }) => self.view.stage = Some((label, done)),
                Msg::Event(Event::RestartDone { .. }) => self.view.restarts_done += 1,
                Msg::RunDone(r) => done = Some(r),
                Msg::Loaded(_) | Msg::PathDone(_) => {}
            }
        }
        if let Some(l) = latest_labels {
            self.set_labels(l);
        }
        if let Some(r) = done {
            self.job = None;
            self.view.elapsed = self.view.started.map_or(Duration::ZERO, |t| t.elapsed());
            self.view.stage = None;
            match r {
                Ok(res) => {
                    let fit = &res.best;
                    self.view.curve = fit
                        .trace
                        .iter()
                        .map(|t| CurvePoint {
                            iter: t.iter,
                            s: t.s,
                            objective: t.objective,
                        })
                        .collect();
                    self.view.sizes = fit.sizes(self.current_k());
                    self.view.feature_weights = fit.feature_weights.clone();
                    self.view.kernel_weights = fit.kernel_weights.clone();
                    self.view.warnings = fit.warnings.clone();
                    self.set_labels(fit.labels.clone());
                    self.status = if fit.converged {
                        RunStatus::Converged
                    } else {
                        RunStatus::Stopped
                    };
                    self.view.result = Some(res);
                }
                Err(Error::Cancelled) => self.status = RunStatus::Cancelled,
                Err(e) => self.status = RunStatus::Error(e.to_string()),
            }
        }
    }

    fn set_labels(&mut self, labels: Vec<usize>) {
        if let Some(t) = self.loaded().and_then(|l| l.dataset.labels.as_ref())
            && t.ids.len() == labels.len()
        {
            self.view.scores = Some(Scores::compute(&t.ids, &labels));
        }
        self.view.labels = labels;
    }

    /// The command line that reproduces the last run.
    pub fn command_line(&self) -> Option<String> {
        let (id, cfg) = self.view.config.as_ref()?;
        let l = self.loaded()?;
        let algo = algo::find(id).ok()?;
        Some(crate::report::command_line(
            &l.source.spec(),
            l.scale,
            algo.as_ref(),
            cfg,
        ))
    }

    /// Writes NAME.labels.csv and NAME.json. Never over the input; asks
    /// before replacing existing files.
    fn export(&mut self, base: &std::path::Path, confirmed: bool) {
        match super::export::export(self, base, confirmed) {
            Ok(super::export::Outcome::Written(paths)) => {
                let cmd = self.command_line().unwrap_or_default();
                self.message = Some(format!("wrote {}; reproduce with: {cmd}", paths.join(", ")));
            }
            Ok(super::export::Outcome::NeedsConfirm(existing)) => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::ConfirmExport(base.to_path_buf()),
                    text: String::new(),
                    hint: format!("{} exists: replace? (y/n)", existing.join(", ")),
                });
            }
            Err(e) => self.message = Some(format!("export failed: {e}")),
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
