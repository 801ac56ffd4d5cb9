//! Background work seen from the app: loading data, runs (debounced,
//! cancelled when anything changes) and regularisation paths.

use super::worker::{self, Msg};
use super::{
    App, CurvePoint, DEBOUNCE, DataView, Pane, PathPane, Prompt, PromptKind, RunStatus, RunView,
    ScatterMode,
};
use crate::algo::{self, Event};
use crate::error::Error;
use crate::metrics::Scores;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl App {
    /// Shows or hides the path; computes it when it is missing or was made
    /// for another algorithm.
    pub(super) fn toggle_path(&mut self) {
        if self.path.shown {
            self.path.shown = false;
            return;
        }
        let id = self.algo().id().to_string();
        let Ok(which) = crate::algo::path::PathAlgo::from_id(&id) else {
            let paths =
                crate::algo::takers(|a| crate::algo::path::PathAlgo::from_id(a.id()).is_ok());
            self.tell(format!("{id} has no regularisation path; choose {paths}"));
            return;
        };
        self.path.shown = true;
        self.focus = Pane::Weights;
        if self.path_is_fresh() {
            return;
        }
        let Some(cfg) = self.view.config.as_ref().map(|(_, c)| c.clone()) else {
            self.tell("the path starts from a finished run's settings: wait for it");
            self.path.shown = false;
            return;
        };
        self.start_path_job(which, cfg);
    }

    pub(super) fn poll_path(&mut self) {
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

    /// Cancels the run in flight and starts a new one after the debounce.
    pub fn schedule_run(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.status = RunStatus::Pending(Instant::now() + DEBOUNCE);
    }

    pub(super) fn open_data(&mut self, spec: String) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.status = RunStatus::Idle;
        self.data_spec = spec.clone();
        self.load(spec);
    }

    pub(super) fn load(&mut self, spec: String) {
        let job = worker::start_load(spec.clone(), self.load_opts.clone(), self.scale);
        self.loading = Some((job, Instant::now(), spec));
    }

    /// Housekeeping once per frame: collects what the background jobs
    /// sent and starts a pending run whose debounce has passed.
    pub fn tick(&mut self, now: Instant) {
        if self.message_until.is_some_and(|t| now >= t) {
            self.message = None;
            self.message_until = None;
        }
        self.poll_loading();
        self.poll_run();
        self.poll_path();
        self.poll_sweep();
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

    pub(super) fn poll_loading(&mut self) {
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
                        let shape = match &loaded.problem.kernels {
                            Some(st) if loaded.problem.kernels_only() => {
                                format!("{} rows, {} kernels", loaded.dataset.n(), st.len())
                            }
                            _ => format!(
                                "{} × {}, scale {}",
                                loaded.dataset.n(),
                                loaded.dataset.p(),
                                loaded.scale
                            ),
                        };
                        self.note(format!(
                            "loaded {} ({shape}) in {}",
                            loaded.dataset.name,
                            crate::numfmt::duration(loaded.load_ms / 1e3)
                        ));
                        self.repeat_start_note();
                        let new_spec = loaded.source.spec();
                        match self.loaded().map(|l| l.source.spec()) {
                            // Rescaled: the user's k and values stay.
                            Some(old) if old == new_spec => {}
                            Some(old) => {
                                self.k = None;
                                self.follow_data(&old, &new_spec);
                            }
                            None => self.k = self.start_k.take(),
                        }
                        self.auto_cache.borrow_mut().clear();
                        self.path = PathPane::default();
                        self.data = Some(DataView {
                            loaded: Arc::new(loaded),
                            projection,
                        });
                        self.data_spec = spec.clone();
                        self.panes.scatter.mode = ScatterMode::Pca;
                        self.view = RunView::default();
                        // A History run waiting for its dataset.
                        if let Some(e) = self.pending_restore.take()
                            && e.data == new_spec
                        {
                            self.apply_entry(&e);
                        }
                        self.schedule_run();
                    }
                    Err(e) => {
                        if self.pending_restore.take().is_some()
                            && let Some(l) = self.loaded()
                        {
                            // The run is not restored: back to the scaling
                            // of the data in use.
                            self.scale = l.scale;
                        }
                        self.tell(format!("could not open {spec}: {e}"));
                        if self.data.is_none() {
                            self.status =
                                RunStatus::Error(super::controls::ui_words(&e.to_string()));
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

    /// The parameter values set for the chosen algorithm.
    fn given_now(&self) -> Vec<(String, f64)> {
        self.overrides
            .iter()
            .filter(|((a, _), _)| a == self.algo().id())
            .map(|((_, n), v)| (n.clone(), *v))
            .collect()
    }

    /// The configuration a run started now would have (None: no data).
    pub(super) fn next_config(&self) -> Option<crate::Result<algo::RunConfig>> {
        let data = self.data.as_ref()?;
        let given = self.given_now();
        let request = algo::Request {
            k: self.current_k(),
            seed: self.seed,
            restarts: self.restarts,
            init: self.init,
            given: &given,
            options: &self.run_options(),
            centres: None,
        };
        Some(algo::configure(
            self.algo(),
            &data.loaded.problem,
            request,
            &data.loaded.dataset.name,
        ))
    }

    pub(super) fn start_run(&mut self) {
        let Some(data) = &self.data else {
            self.status = RunStatus::Idle;
            return;
        };
        let problem = data.loaded.problem.clone();
        let algo = algo::find(self.algo().id()).expect("registered");
        let given = self.given_now();
        let Some(cfg) = self.next_config() else {
            self.status = RunStatus::Idle;
            return;
        };
        let cfg = match cfg {
            Ok(c) => c,
            Err(e) => {
                // The status line shows the error in full; an older
                // message must not hide it.
                self.message = None;
                self.status = RunStatus::Error(super::controls::ui_words(&e.to_string()));
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
        view.carried = !view.labels.is_empty() || !view.sizes.is_empty();
        view.config = Some((algo.id().to_string(), cfg.clone()));
        view.given = given.clone();
        view.given_options = self.options.clone();
        self.view = view;
        self.job = Some(worker::start_run(algo, problem, cfg));
        self.status = RunStatus::Running;
        // A path made for other settings (k, a parameter) is stale now.
        self.refresh_path();
    }

    pub(super) fn poll_run(&mut self) {
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
                        self.view.carried = false;
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
                Msg::Internal(i) => self.view.internal = Some(i),
                Msg::Loaded(_) | Msg::PathDone(_) | Msg::SweepCell(..) | Msg::SweepDone(_) => {}
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
                    // The run's own time, as the History and `run` report
                    // it (not when the UI noticed it had finished).
                    self.view.elapsed = res.elapsed;
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
                    self.view.carried = false;
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
                    self.record_run();
                }
                Err(Error::Cancelled) => self.status = RunStatus::Cancelled,
                Err(e) => {
                    self.message = None;
                    self.status = RunStatus::Error(super::controls::ui_words(&e.to_string()));
                }
            }
        }
    }

    pub(super) fn set_labels(&mut self, labels: Vec<usize>) {
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
            &self.load_opts,
        ))
    }

    /// Writes NAME.labels.csv and NAME.json. Never over the input; asks
    /// before replacing existing files.
    pub(super) fn export(&mut self, base: &std::path::Path, confirmed: bool) {
        match super::export::export(self, base, confirmed) {
            Ok(super::export::Outcome::Written(paths)) => {
                let cmd = self.command_line().unwrap_or_default();
                self.tell(format!(
                    "wrote {}; reproduce with: {cmd}",
                    paths.join(" and ")
                ));
            }
            Ok(super::export::Outcome::NeedsConfirm(existing)) => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::ConfirmExport(base.to_path_buf()),
                    text: String::new(),
                    hint: format!("{} exists: replace? (y/n)", existing.join(", ")),
                });
            }
            Err(e) => self.tell(format!("export failed: {e}")),
        }
    }
}
