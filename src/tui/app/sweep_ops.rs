//! What `App` does for a sweep: the marked axes, the prompts, starting
//! one, following it as its cells come in, and taking a cell (or the
//! recommended k) back to the sliders. The view's own state and keys are
//! in `components/sweep.rs`.

use super::sweep_context::SweepContext;
use super::sweep_view::{
    DEFAULT_SEEDS, KSCAN_MAX, Panel, SweepKind, SweepText, SweepView, default_axis, kind_of,
    parse_text,
};
use super::{App, Prompt, PromptKind};
use crate::algo::Algorithm;
use crate::session::Loaded;
use crate::sweep;
use std::time::{Duration, Instant};

/// Each algorithm of a sweep with its plan, as the worker runs them.
type Families = Vec<(Box<dyn Algorithm>, sweep::Plan)>;

impl App {
    /// Marks the focused slider as a sweep axis, or unmarks it. At most
    /// two: a third replaces the oldest.
    pub(super) fn toggle_mark(&mut self) {
        let sliders = self.sliders();
        let Some(s) = sliders.get(self.panes.parameters.cursor) else {
            return;
        };
        let name = s.spec.name.to_string();
        if matches!(name.as_str(), "seed" | "restarts") {
            self.note(format!(
                "{name} is not swept: a sweep runs every cell with seeds (type seeds=N in its prompt)"
            ));
            return;
        }
        let algo = self.algo().id().to_string();
        let marks = self.sweep.marks.entry(algo).or_default();
        if let Some(i) = marks.iter().position(|m| *m == name) {
            marks.remove(i);
            self.note(format!("{name} is no longer a sweep axis"));
        } else {
            marks.push(name.clone());
            if marks.len() > 2 {
                marks.remove(0);
            }
            let list = marks.join(" × ");
            self.note(format!("sweep axes: {list} (S opens the sweep)"));
        }
    }

    /// Shows the last sweep again, or says there is none.
    pub(super) fn show_last_sweep(&mut self) {
        if self.sweep.last.is_some() {
            self.sweep.shown = true;
        } else {
            self.note("no sweep yet: S sweeps the marked sliders, K scans k");
        }
    }

    /// The sweep axes marked for the current algorithm.
    pub fn marks(&self) -> Vec<String> {
        self.sweep
            .marks
            .get(self.algo().id())
            .cloned()
            .unwrap_or_default()
    }

    /// Opens the sweep prompt with the marked sliders' default ranges (the
    /// focused slider when none is marked).
    pub(super) fn open_sweep_prompt(&mut self) {
        let sliders = self.sliders();
        let mut names = self.marks();
        if names.is_empty() {
            let s = &sliders[self.panes.parameters.cursor.min(sliders.len() - 1)];
            if matches!(s.spec.name, "seed" | "restarts") {
                self.tell("choose a parameter slider (or mark one or two with m) to sweep");
                return;
            }
            names.push(s.spec.name.to_string());
        }
        let count = if names.len() == 1 { 9 } else { 6 };
        let mut parts: Vec<String> = names
            .iter()
            .filter_map(|n| sliders.iter().find(|s| s.spec.name == n))
            .map(|s| default_axis(s, count))
            .collect();
        parts.push(format!("seeds={DEFAULT_SEEDS}"));
        self.prompt = Some(Prompt {
            kind: PromptKind::Sweep,
            text: parts.join(" "),
            hint: "axes NAME=FROM:TO:COUNT[:log] or NAME=a,b,c (one or two), seeds=N, resamples=N; Enter starts"
                .into(),
        });
    }

    /// The k-scan's prompt: k from 2 to max(12, k + 3) (k the current
    /// one, at most n − 1), the resampled scores' count and the seeds, to
    /// edit; Enter starts it.
    pub(super) fn open_kscan_prompt(&mut self) {
        let n = self.loaded().map_or(0, |l| l.dataset.n());
        let top = KSCAN_MAX
            .max(self.current_k() + 3)
            .min(n.saturating_sub(1))
            .max(2);
        self.prompt = Some(Prompt {
            kind: PromptKind::KScan,
            text: format!(
                "k=2:{top} resamples={} seeds={DEFAULT_SEEDS}",
                sweep::resample::DEFAULT_RESAMPLES
            ),
            hint: "k=FROM:TO, resamples=N (0: none; prediction strength, gap, …), seeds=N, algos=kmeans,spectral to compare algorithms; Enter starts"
                .into(),
        });
    }

    /// Starts the k-scan of the prompt's `text`.
    ///
    /// # Errors
    /// Why it cannot run, for the prompt's hint line.
    pub(super) fn start_kscan(&mut self, text: &str) -> Result<(), String> {
        if kind_of(text) != SweepKind::KScan {
            // A bad value says what is wrong with it; otherwise the axes.
            parse_text(text)?;
            return Err("a k-scan varies k alone (k=FROM:TO); S sweeps other parameters".into());
        }
        self.start_sweep(text, SweepKind::KScan)
    }

    /// Plans the sweep of `text` for the current algorithm and settings
    /// and starts it in the background.
    ///
    /// # Errors
    /// Why it cannot run (the prompt shows it and stays open).
    pub(super) fn start_sweep(&mut self, text: &str, kind: SweepKind) -> Result<(), String> {
        let Some(data) = &self.data else {
            return Err("no data loaded yet".into());
        };
        let loaded = data.loaded.clone();
        let (families, mut contexts) = self.plan_families(&parse_text(text)?, kind, &loaded)?;
        let sliders = self.sliders();
        let plan = families[0].1.clone();
        let current = plan
            .axes
            .iter()
            .map(|a| {
                sliders
                    .iter()
                    .find(|s| s.spec.name == a.name)
                    .map_or(f64::NAN, |s| s.value)
            })
            .collect();
        let context = contexts.remove(0);
        let total = plan.cells.len() * families.len();
        // A new sweep replaces the last one (its job is cancelled on drop).
        let job = super::worker::start_sweep(loaded, families);
        self.sweep.last = Some(SweepView {
            kind,
            algo: context.algo.clone(),
            context,
            others: contexts,
            text: text.to_string(),
            plan,
            cells: vec![None; total],
            done: 0,
            running: true,
            cancelled: false,
            error: None,
            started: Instant::now(),
            elapsed: Duration::ZERO,
            score: 0,
            cursor: (0, 0),
            numbers: false,
            panel: Panel::Scores,
            current,
            job: Some(job),
        });
        self.sweep.shown = true;
        Ok(())
    }

    /// The plan and settings of each algorithm the sweep `st` runs (the
    /// current one when it names none). Every family is planned, and so
    /// checked, before any runs.
    fn plan_families(
        &self,
        st: &SweepText,
        kind: SweepKind,
        loaded: &Loaded,
    ) -> Result<(Families, Vec<SweepContext>), String> {
        let ids = if st.algos.is_empty() {
            vec![self.algo().id().to_string()]
        } else {
            st.algos.clone()
        };
        let names: Vec<String> = st.axes.iter().map(|a| a.name.clone()).collect();
        let several = ids.len() > 1;
        let mut families = Vec::with_capacity(ids.len());
        let mut contexts = Vec::with_capacity(ids.len());
        for id in &ids {
            let algo = crate::algo::find(id).map_err(|e| e.to_string())?;
            let req = self.sweep_request(algo.as_ref(), st, kind);
            let mut plan = sweep::plan(algo.as_ref(), &loaded.problem, req).map_err(|e| {
                if several {
                    format!("{id}: {e}")
                } else {
                    e.to_string()
                }
            })?;
            // As `meanscape sweep -a a,b`: the gap's reference sets are
            // full-size data sets, a graph or Gram matrix each for a
            // kernel method.
            if several {
                plan.resampling.gap &= !algo.caps().kernels;
            }
            contexts.push(
                self.sweep_context_for(algo.as_ref(), &names)
                    .ok_or_else(|| "no data loaded yet".to_string())?,
            );
            families.push((algo, plan));
        }
        Ok((families, contexts))
    }

    /// The sweep of `algo` with the settings now, but for those on the
    /// axes of `st`.
    fn sweep_request(
        &self,
        algo: &dyn Algorithm,
        st: &SweepText,
        kind: SweepKind,
    ) -> sweep::Request {
        let on_axis = |n: &str| st.axes.iter().any(|a| a.name == n);
        let given: Vec<(String, f64)> = self
            .overrides
            .iter()
            .filter(|((a, n), _)| a == algo.id() && !on_axis(n))
            .map(|((_, n), v)| (n.clone(), *v))
            .collect();
        let options: Vec<(String, String)> = self
            .options_for(algo)
            .into_iter()
            .filter(|(n, _)| !on_axis(n))
            .collect();
        sweep::Request {
            k: self.current_k(),
            seed: self.seed,
            seeds: st.seeds,
            init: self.init,
            given,
            options,
            axes: st.axes.clone(),
            // The view shows the cells as they come and Esc stops it.
            time_limit: None,
            // A k-scan resamples unless told not to (prediction strength
            // and the gap choose k); a grid only when asked, as each
            // resample costs about three runs per cell.
            resamples: st.resamples.unwrap_or(match kind {
                SweepKind::KScan => sweep::resample::DEFAULT_RESAMPLES,
                SweepKind::Grid => 0,
            }),
        }
    }

    /// Takes what the sweep job has sent.
    pub(super) fn poll_sweep(&mut self) {
        let Some(sv) = self.sweep.last.as_mut() else {
            return;
        };
        let Some(job) = &sv.job else { return };
        let (msgs, closed) = job.drain();
        for m in msgs {
            match m {
                super::worker::Msg::SweepCell(family, c) => {
                    // Family f's cell at grid position p is column f of row p.
                    let families = 1 + sv.others.len();
                    let pos = sv.plan.cells.iter().position(|p| p.index == c.index);
                    if let Some(slot) = pos.and_then(|p| sv.cells.get_mut(p * families + family)) {
                        *slot = Some(*c);
                        sv.done += 1;
                    }
                }
                super::worker::Msg::SweepDone(r) => {
                    sv.running = false;
                    sv.elapsed = sv.started.elapsed();
                    match r {
                        Ok(res) => sv.cancelled = !res.complete,
                        Err(crate::Error::Cancelled) => sv.cancelled = true,
                        Err(e) => sv.error = Some(e.to_string()),
                    }
                }
                _ => {}
            }
        }
        if sv.running {
            sv.elapsed = sv.started.elapsed();
        }
        if closed {
            sv.job = None;
            sv.running = false;
        }
    }

    /// What differs between the settings the shown sweep ran with and
    /// those in force now (empty when none, or no sweep).
    pub fn sweep_stale(&self) -> Vec<String> {
        let Some(sv) = self.sweep.last.as_ref() else {
            return Vec::new();
        };
        let names: Vec<String> = sv.plan.axes.iter().map(|a| a.name.clone()).collect();
        self.sweep_context(&names)
            .map(|now| sv.context.differences(&now, "now"))
            .unwrap_or_default()
    }

    /// Whether the data now are those the shown sweep ran on: Enter can
    /// restore its cells.
    pub fn sweep_same_data(&self) -> bool {
        let Some(sv) = self.sweep.last.as_ref() else {
            return false;
        };
        let names: Vec<String> = sv.plan.axes.iter().map(|a| a.name.clone()).collect();
        self.sweep_context(&names)
            .is_some_and(|now| sv.context.same_data(&now))
    }

    /// Runs the cursor cell exactly as the sweep ran it (its first seed).
    pub(super) fn apply_cell(&mut self) {
        let Some(sv) = self.sweep.last.as_ref() else {
            return;
        };
        let (r, c) = sv.cursor;
        self.apply_at(r, c);
    }

    /// Sets the sliders to the values of cell (`r`, `c`) and every other
    /// setting to the sweep's, and runs it; refused on other data (or
    /// the same data read or scaled another way), which would not give
    /// the cell's result.
    fn apply_at(&mut self, r: usize, c: usize) {
        let Some(sv) = self.sweep.last.as_ref() else {
            return;
        };
        let Some(cell) = sv.cell(r, c) else {
            self.note("that cell has not finished yet");
            return;
        };
        let what = match sv.kind {
            SweepKind::Grid => "sweep",
            SweepKind::KScan => "k-scan",
        };
        let names: Vec<String> = sv.plan.axes.iter().map(|a| a.name.clone()).collect();
        let Some(now) = self.sweep_context(&names) else {
            self.note("no data loaded yet");
            return;
        };
        let ctx = sv.family_context(c).clone();
        if !ctx.same_data(&now) {
            self.tell(format!(
                "the {what} ran on {} (scale {}) and the data differ now ({}): open that dataset (and scaling) again to apply its cells, or {} to run one here",
                ctx.data,
                ctx.scale,
                ctx.differences(&now, "now").join(", "),
                if sv.kind == SweepKind::KScan { "K" } else { "S" },
            ));
            return;
        }
        let cell = cell.clone();
        let axes = sv.plan.axes.clone();
        let sv_seeds = sv.plan.seeds;
        let mut restored = ctx.differences(&now, "was");
        if self.restarts != 1 {
            restored.push(format!("restarts 1 (was {})", self.restarts));
        }
        self.restore_context(&ctx);
        let mut told = Vec::new();
        for (a, &v) in axes.iter().zip(&cell.at) {
            told.push(format!("{}={}", a.name, a.show(v)));
            if a.is_option() {
                self.options.retain(|(n, _)| *n != a.name);
                self.options.push((a.name.clone(), a.show(v)));
            } else if a.name == "k" {
                self.k = Some(v as usize);
            } else {
                self.overrides.insert((ctx.algo.clone(), a.name.clone()), v);
            }
        }
        self.sweep.shown = false;
        let how = if restored.is_empty() {
            String::new()
        } else {
            format!(" with the {what}'s settings: {}", restored.join(", "))
        };
        let seeds = if sv_seeds > 1 {
            format!(" (seed {}, the first of the cell's {sv_seeds})", ctx.seed)
        } else {
            String::new()
        };
        let msg = format!("applied {}{how}; running it{seeds}", told.join(", "));
        if restored.is_empty() {
            self.note(msg);
        } else {
            // Settings the user had changed are back: this stays in view.
            self.tell(msg);
        }
        self.schedule_run();
    }

    /// Runs the recommended cell (a k-scan's k) with the sweep's
    /// settings.
    pub(super) fn adopt_k(&mut self) {
        let Some(sv) = self.sweep.last.as_ref() else {
            return;
        };
        let Some((r, c)) = sv.recommended_at() else {
            self.note(
                "no recommendation: a k-scan (K) or a sweep with resamples=N recommends a setting",
            );
            return;
        };
        self.apply_at(r, c);
    }
}
