//! The regularisation path seen from the app: kept fresh (a run with other
//! settings than the path's — k, data, scaling, seed, any other parameter —
//! recomputes it), and its cursor (Enter sets the slider to the cursor's
//! value).

use super::features::Wide;
use super::{App, worker};
use crate::algo::RunConfig;
use crate::algo::path::{PathAlgo, PathResult};
use crate::tui::components::path::{PathDraw, PathPane};

impl App {
    /// What a path of algorithm `id` computed from `cfg` depends on: all
    /// but the path's own parameter (and restarts, which it does not use).
    pub(super) fn path_key_for(&self, id: &str, cfg: &RunConfig) -> String {
        let own = PathAlgo::from_id(id).map_or("", |a| a.parameter());
        let params: Vec<String> = cfg
            .params
            .iter()
            .filter(|(n, _)| *n != own)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        let data = self
            .loaded()
            .map(|l| format!("{} scale {}", l.source.spec(), l.scale))
            .unwrap_or_default();
        format!(
            "{data} | {id} k={} seed={} init={:?} {} {:?}",
            cfg.k,
            cfg.seed,
            cfg.init,
            params.join(" "),
            cfg.options
        )
    }

    /// Starts computing the path of `which` from `cfg`.
    pub(super) fn start_path_job(&mut self, which: PathAlgo, cfg: RunConfig) {
        let Some(problem) = self.loaded().map(|l| l.problem.clone()) else {
            return;
        };
        if let Some(job) = self.path.job.take() {
            job.cancel();
        }
        self.path = PathPane {
            shown: self.path.shown,
            key: self.path_key_for(which.id(), &cfg),
            job: Some(worker::start_path(which, problem, cfg)),
            for_algo: which.id().to_string(),
            ..PathPane::default()
        };
    }

    /// Whether the path there is (or is being computed) was made from the
    /// last run's settings.
    pub(super) fn path_is_fresh(&self) -> bool {
        self.path.has_path()
            && self.view.config.as_ref().is_some_and(|(id, cfg)| {
                *id == self.path.for_algo && self.path_key_for(id, cfg) == self.path.key
            })
    }

    /// Called as a run starts: a path made for other settings is dropped,
    /// and computed again at once while it is shown.
    pub(super) fn refresh_path(&mut self) {
        if !self.path.has_path() || self.path_is_fresh() {
            return;
        }
        let Some((id, cfg)) = self.view.config.clone() else {
            return;
        };
        if let Some(job) = self.path.job.take() {
            job.cancel();
        }
        self.path = PathPane {
            shown: self.path.shown,
            ..PathPane::default()
        };
        match PathAlgo::from_id(&id) {
            Ok(which) if self.path.shown => self.start_path_job(which, cfg),
            Ok(_) => {}
            Err(_) => self.path.shown = false,
        }
    }

    /// The path's parameter as the slider has it now.
    pub fn path_value_now(&self) -> Option<f64> {
        let param = PathAlgo::from_id(&self.path.for_algo).ok()?.parameter();
        if self.algo().id() != self.path.for_algo {
            return None;
        }
        self.sliders()
            .iter()
            .find(|s| s.spec.name == param)
            .map(|s| s.value)
            .filter(|v| v.is_finite() && *v > 0.0)
    }

    fn path_result(&self) -> Option<&PathResult> {
        self.path.finished()
    }

    /// The point the path's cursor is on: the one chosen, else the one
    /// nearest (on the log axis) to the slider's value.
    pub fn path_cursor(&self) -> Option<usize> {
        self.path.cursor_at(self.path_value_now())
    }

    /// What the path view reads to draw itself.
    pub fn path_draw(&self) -> PathDraw<'_> {
        let dataset = self.loaded().map(|l| &l.dataset);
        PathDraw {
            focused: self.focus == super::Pane::Weights,
            truth: dataset
                .and_then(|d| d.labels.as_ref())
                .map(|t| t.ids.as_slice()),
            names: dataset.map_or(&[], |d| d.feature_names.as_slice()),
            k: self.view.config.as_ref().map_or(0, |(_, c)| c.k),
            now: self.path_value_now(),
        }
    }

    /// Sets the path's parameter to the cursor's value and re-runs.
    pub(super) fn apply_path_cursor(&mut self) {
        let Some(i) = self.path_cursor() else {
            self.tell("the path is not ready yet");
            return;
        };
        let Some(point) = self.path_result().map(|r| r.points[i].clone()) else {
            return;
        };
        if self.algo().id() != self.path.for_algo {
            self.tell("the path was computed for another algorithm: p computes it again");
            return;
        }
        // The point means what the path shows only with the settings it
        // was computed from (k, seed, the other parameters, the data).
        if let Some(Ok(cfg)) = self.next_config() {
            let now = self.path_key_for(&self.path.for_algo, &cfg);
            if now != self.path.key {
                let words = |a: &str, b: &str| -> String {
                    let theirs: Vec<&str> = b.split_whitespace().collect();
                    a.split_whitespace()
                        .filter(|w| !theirs.contains(w))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                self.tell(format!(
                    "the path ran with {}; now {}: it is computed again as the next run starts, then Enter applies",
                    words(&self.path.key, &now),
                    words(&now, &self.path.key)
                ));
                return;
            }
        }
        let Ok(which) = PathAlgo::from_id(&self.path.for_algo) else {
            return;
        };
        let param = which.parameter();
        let sliders = self.sliders();
        let Some(idx) = sliders.iter().position(|s| s.spec.name == param) else {
            return;
        };
        match sliders[idx].spec.check(point.lambda) {
            Ok(v) => {
                self.set_slider(idx, Some(v));
                self.path.cursor = Some(i);
                self.note(format!(
                    "{param} = {} from the path ({} features selected there); re-running",
                    crate::algo::params::fmt_num(v),
                    point.selected
                ));
            }
            Err(e) => self.tell(format!("the cursor's {param} cannot be used: {e}")),
        }
    }

    /// Whether the path view (wide) is what the user is looking at.
    pub fn path_shown_wide(&self) -> bool {
        self.wide_view() == Some(Wide::Path)
    }
}
