//! RFF kernel power k-means (RFF-KPKM; Chen et al., "Enhancing Kernel Power
//! K-means", Algorithm 1; docs/methods/rff-power-kmeans.md#rff-kpkm).
//!
//! Kernel power k-means with the Gaussian kernel replaced by its random
//! Fourier feature map φ (`kernel::rff`): the centroids θⱼ = Φ̃ᵀW⁽ʲ⁾ exist
//! explicitly in the 2D-dimensional feature space, so the iteration is
//! exactly Euclidean power k-means on the rows of Φ̃ — the engine's
//! [`power_loop`] (one fused pass per iteration: distances, log-domain
//! weights and WᵀΦ̃ per cache block), not a copy of it. Cost O(n·D·k) per
//! iteration and O(n·D) memory, against O(n²k) and O(n²) for `kpower`.
//!
//! Choices the paper leaves open
//! (docs/methods/rff-power-kmeans.md#differences-from-the-paper): s₀ must be negative (the
//! paper's grid "{5,…,25}" is read as −5…−25); the start is k-means++ (or
//! `--init random`) on the rows of Φ̃, the same seeding as every other
//! algorithm; the stopping rule is the engine's (relative change of the
//! objective over one period at a fixed s); labels are argminⱼ of the
//! feature distances. σ defaults to the KPK rule, as `kpower`, so the two
//! approximate the same kernel.

use super::common::{
    RFF_S0, checked_features, init_iter_spec, kmeans_start, rff_auto_param, rff_schedule_specs,
};
use crate::error::Result;
use crate::kernel::rff;
use crate::solver::params::declare_params;
use crate::solver::power_mean::power_loop;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::stopping::Schedule;
use crate::solver::{Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, init};
use std::sync::Arc;

/// The single map of `rff-power`: every column, bandwidth `sigma`, stream 0.
pub fn map_spec(problem: &Problem, p: &RffPowerParams) -> rff::MapSpec {
    rff::MapSpec {
        cols: 0..problem.p(),
        sigma: p.sigma,
        dim: p.rff_dim,
        seed: p.rff_seed,
        stream: 0,
        f32: p.rff_f32,
    }
}

/// The map `cfg` asks `rff-power` for.
///
/// # Errors
/// As [`Solver::typed`].
pub fn map_spec_of(problem: &Problem, cfg: &RunConfig) -> Result<rff::MapSpec> {
    Ok(map_spec(problem, &RffPower.typed(problem, cfg)?))
}

pub struct RffPower;

declare_params! {
    /// The parameters of `rff-power`.
    pub struct RffPowerParams {
        /// Bandwidth σ of the Gaussian kernel the features approximate.
        sigma: f64 = rff::sigma_spec(),
        /// D, the number of frequencies.
        rff_dim: usize = rff::dim_spec(),
        /// Seed of the frequencies.
        rff_seed: u64 = rff::seed_spec(),
        /// Store the feature matrix in f32.
        rff_f32: bool = rff::f32_spec(),
        /// Lloyd iterations of the k-means start Θ₀ (0: from the seeds).
        init_iter: usize = init_iter_spec(),
        schedule: Schedule = rff_schedule_specs(RFF_S0, 3.0),
        tol: f64 = tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ),
        max_iter: usize = max_iter_spec(500.0),
    }
}

impl RffPower {
    fn features(
        &self,
        problem: &Problem,
        run: &Common,
        p: &RffPowerParams,
        ctx: &Ctx,
    ) -> Result<Arc<rff::FeatureMap>> {
        let spec = map_spec(problem, p);
        // Labels, the seeding's distances and cumulative sums, per row.
        let work = 2 * run.k + 8;
        Ok(checked_features(
            Solver::id(self),
            problem,
            run.max_memory,
            &[spec],
            work,
            ctx,
        )?
        .remove(0))
    }
}

impl Solver for RffPower {
    type Params = RffPowerParams;
    fn id(&self) -> &'static str {
        "rff-power"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            // Only the feature map reads X, per nonzero (kernel::rff_csr).
            sparse: true,
            ..crate::solver::Caps::new(crate::solver::Family::Rff, "RFFPowerKMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Rff)
    }
    fn name(&self) -> &'static str {
        "RFF kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Chen et al. (RFF-KPKM, Algorithm 1): kernel power k-means on random Fourier features of the Gaussian kernel, i.e. power k-means on an n×2D feature matrix; O(n·D) memory and O(n·D·k) per iteration instead of kpower's n×n kernel."
    }
    fn params(&self) -> Vec<ParamSpec> {
        RffPowerParams::specs()
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        rff_auto_param(name, problem, k)
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<RffPowerParams> {
        Ok(RffPowerParams::read(&cfg.params)?)
    }
    fn prepare(
        &self,
        problem: &Problem,
        run: &Common,
        p: &RffPowerParams,
        ctx: &Ctx,
    ) -> Result<()> {
        self.features(problem, run, p, ctx).map(|_| ())
    }
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &RffPowerParams,
        _fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let map = self.features(problem, run, p, ctx)?;
        Ok(vec![(crate::solver::SpaceBlock::Map(map), 1.0)])
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &RffPowerParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let f = self.features(problem, run, p, ctx)?;
        let mut rng = start.rng();
        let rows = f.rows();
        // Sample weights count each row of the feature map as the row.
        let w = problem.sample_weights();
        let seeds = init::weighted_euclidean_seeds(rows, &f.norms, w, run.k, run.init, &mut rng)?;
        let (centres, init_iters) =
            kmeans_start(rows, &f.norms, w, rows.select(&seeds), p.init_iter, ctx)?;
        let mut fit = power_loop(
            rows,
            &f.norms,
            w,
            centres,
            &p.schedule,
            p.tol,
            p.max_iter,
            ctx,
        )?;
        // The centres live in feature space, not in the input space.
        fit.centroids = None;
        fit.extra.rff = Some(rff::describe(&f));
        fit.extra.kernel_approx = Some(crate::kernel::rff_dim::describe(
            problem,
            std::slice::from_ref(&f.spec),
        ));
        fit.extra.init_iterations = Some(init_iters);
        Ok(fit)
    }
}
