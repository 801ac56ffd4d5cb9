//! Taking the settings of the App for a sweep, and putting a sweep's
//! settings back: apart from [`SweepContext`], which knows nothing of the
//! App.

use super::App;
use super::sweep_context::SweepContext;

impl App {
    /// The settings a sweep over `axes` started now would run with.
    pub fn sweep_context(&self, axes: &[String]) -> Option<SweepContext> {
        self.sweep_context_for(self.algo(), axes)
    }

    /// [`App::sweep_context`] of algorithm `of` (a k-scan over several
    /// algorithms has one per family): its parameters and options.
    pub fn sweep_context_for(
        &self,
        of: &dyn crate::solver::Algorithm,
        axes: &[String],
    ) -> Option<SweepContext> {
        let l = self.loaded()?;
        let algo = of.id().to_string();
        let on_axis = |n: &str| axes.iter().any(|a| a == n);
        let mut given: Vec<(String, f64)> = self
            .overrides
            .iter()
            .filter(|((a, n), _)| *a == algo && !on_axis(n))
            .map(|((_, n), v)| (n.clone(), *v))
            .collect();
        given.sort_by(|a, b| a.0.cmp(&b.0));
        let mut options: Vec<(String, String)> = self
            .options_for(of)
            .into_iter()
            .filter(|(n, _)| n != "max_memory" && !on_axis(n))
            .collect();
        options.sort();
        Some(SweepContext {
            data: l.source.spec(),
            dataset: l.dataset.name.clone(),
            load: self.load_flags(),
            scale: l.scale,
            algo,
            k: (!on_axis("k")).then(|| self.current_k()),
            seed: self.seed,
            init: self.init,
            given,
            options,
        })
    }

    /// Sets the algorithm, k, seed, seeding, parameters and options to
    /// those of `ctx` (its data is the one loaded), and restarts to 1 as
    /// every cell ran.
    pub(super) fn restore_context(&mut self, ctx: &SweepContext) {
        if let Some(idx) = self.algos.iter().position(|a| a.id() == ctx.algo) {
            self.algo_idx = idx;
            self.panes.algorithm.cursor = idx;
        }
        let last = self.sliders().len().saturating_sub(1);
        let cursor = &mut self.panes.parameters.cursor;
        *cursor = (*cursor).min(last);
        // The scaling it ran with stays, even where it is not the
        // algorithm's default (the data is not reloaded).
        if self.algo().default_scaling() != ctx.scale {
            self.scale_chosen = true;
        }
        self.scale = ctx.scale;
        if let Some(k) = ctx.k {
            let default_k = self.loaded().and_then(|l| l.default_k());
            self.k = (default_k != Some(k)).then_some(k);
        }
        self.seed = ctx.seed;
        self.init = ctx.init;
        self.restarts = 1;
        self.overrides.retain(|(a, _), _| *a != ctx.algo);
        for (n, v) in &ctx.given {
            self.overrides.insert((ctx.algo.clone(), n.clone()), *v);
        }
        // Options are kept per name across algorithms: only those this
        // one takes are replaced.
        let takes: Vec<&str> = self.algo().options().iter().map(|(n, _)| *n).collect();
        self.options
            .retain(|(n, _)| n == "max_memory" || !takes.contains(&n.as_str()));
        self.options.extend(ctx.options.iter().cloned());
    }
}
