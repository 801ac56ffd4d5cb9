//! RFF kernel power k-means (RFF-KPKM; Chen et al., "Enhancing Kernel Power
//! K-means", Algorithm 1; spec rff-power-kmeans.md §2).
//!
//! Kernel power k-means with the Gaussian kernel replaced by its random
//! Fourier feature map φ (`kernel::rff`): the centroids θⱼ = Φ̃ᵀW⁽ʲ⁾ exist
//! explicitly in the 2D-dimensional feature space, so the iteration is
//! exactly Euclidean power k-means on the rows of Φ̃ — the engine's
//! [`power_loop`] (one fused pass per iteration: distances, log-domain
//! weights and WᵀΦ̃ per cache block), not a copy of it. Cost O(n·D·k) per
//! iteration and O(n·D) memory, against O(n²k) and O(n²) for `kpower`.
//!
//! Choices the paper leaves open (spec §2, §10): s₀ must be negative (the
//! paper's grid "{5,…,25}" is read as −5…−25); the start is k-means++ (or
//! `--init random`) on the rows of Φ̃, the same seeding as every other
//! algorithm; the stopping rule is the engine's (relative change of the
//! objective over one period at a fixed s); labels are argminⱼ of the
//! feature distances. σ defaults to the KPK rule, as `kpower`, so the two
//! approximate the same kernel.

use super::params::{Default, ParamSpec, Scale};
use super::power::{Schedule, max_iter_spec, power_loop, schedule_specs, tol_spec};
use super::rows::Rows;
use super::{Algorithm, Ctx, Fit, Problem, RunConfig, Start, init};
use crate::error::Result;
use crate::kernel::{self, rff};
use ndarray::Array2;
use std::sync::Arc;

/// Default s₀ of the RFF family: the middle of the paper's grid read with
/// the sign Algorithm 1 requires (spec §10.1).
pub const RFF_S0: f64 = -15.0;

/// The annealing parameters with the RFF defaults for s₀ and the period T.
pub fn rff_schedule_specs(s0: f64, period: f64) -> Vec<ParamSpec> {
    let mut v = schedule_specs();
    for p in &mut v {
        match p.name {
            "s0" => {
                p.default = Default::Fixed(s0);
                p.help = "Initial power-mean exponent (must be negative; the paper tunes it in −5…−25, its grid is printed without the sign).";
            }
            "period" => p.default = Default::Fixed(period),
            _ => {}
        }
    }
    v
}

/// The `init_iter` parameter: the paper's Θ₀ is k-means on the features.
pub fn init_iter_spec() -> ParamSpec {
    ParamSpec {
        name: "init_iter",
        symbol: "it₀",
        default: Default::Fixed(100.0),
        min: 0.0,
        max: 10_000.0,
        scale: Scale::Linear,
        step: 10.0,
        coarse: 100.0,
        integer: true,
        help: "Iterations of k-means (Lloyd, from the seeds) on the random features before power k-means starts: the paper's Θ₀; it stops earlier once the inertia changes by less than 1e-4 (relative). 0 starts from the seed points themselves (matched starts with kpower).",
    }
}

/// Label of the k-means start's progress stage.
pub const INIT_STAGE: &str = "k-means on the random features (Θ₀)";

/// Relative change of the inertia between two Lloyd iterations below which
/// the k-means start stops.
pub const INIT_TOL: f64 = 1e-4;

/// The paper's Θ₀: Lloyd's k-means on the features from `centres`, at most
/// `max_iter` iterations, stopping when the inertia changes by less than
/// [`INIT_TOL`] (relative) between iterations. Lloyd's algorithm is the
/// power-mean iteration at s = −∞ (hard, one-hot weights), so this runs
/// the engine's [`power_loop`] with s fixed at −∞: one fused pass over the
/// features per iteration; a centre that loses all its points stays where
/// it was. Returns the centres and the iterations used (0 when `max_iter`
/// is 0).
pub fn kmeans_start<'a>(
    phi: impl Into<Rows<'a>>,
    norms: &[f64],
    centres: Array2<f64>,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<(Array2<f64>, usize)> {
    if max_iter == 0 {
        return Ok((centres, 0));
    }
    ctx.stage(INIT_STAGE, 0.0);
    let hard = Schedule {
        s0: f64::NEG_INFINITY,
        eta: 1.0,
        period: 1,
        s_min: f64::NEG_INFINITY,
    };
    let inner = ctx.iterations_as_stage(INIT_STAGE, max_iter);
    let fit = power_loop(phi, norms, centres, &hard, INIT_TOL, max_iter, &inner)?;
    ctx.stage(INIT_STAGE, 1.0);
    let iters = fit.iterations;
    Ok((
        fit.centroids.expect("power_loop returns its centres"),
        iters,
    ))
}

/// The σ and D parameters' automatic values, shared by the RFF algorithms.
pub fn rff_auto_param(name: &str, problem: &Problem, k: usize) -> Result<f64> {
    Ok(match name {
        "rff_dim" => rff::default_dim(k) as f64,
        _ => kernel::auto_sigma(problem),
    })
}

fn max_memory(cfg: &RunConfig) -> Option<&str> {
    cfg.options.get("max_memory").map(|s| s.as_str())
}

/// The single map of `rff-power`: every column, bandwidth `sigma`, stream 0.
pub fn map_spec(problem: &Problem, cfg: &RunConfig) -> rff::MapSpec {
    let p = &cfg.params;
    rff::MapSpec {
        cols: 0..problem.p(),
        sigma: p.get("sigma"),
        dim: p.get_usize("rff_dim"),
        seed: p.get("rff_seed") as u64,
        stream: 0,
        f32: p.get("rff_f32") != 0.0,
    }
}

/// Guards memory, then fetches or builds the feature matrices of `specs`.
/// `work_per_row` is the working memory per row in f64 values (n×k arrays).
pub fn checked_features(
    algo: &str,
    problem: &Problem,
    cfg: &RunConfig,
    specs: &[rff::MapSpec],
    work_per_row: usize,
    ctx: &Ctx,
) -> Result<Vec<Arc<rff::Features>>> {
    let n = problem.n();
    let work = n as f64 * work_per_row as f64 * 8.0;
    rff::guard(algo, n, specs, work, max_memory(cfg))?;
    rff::features(problem, specs, ctx)
}

pub struct RffPower;

impl RffPower {
    fn features(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        ctx: &Ctx,
    ) -> Result<Arc<rff::Features>> {
        let spec = map_spec(problem, cfg);
        // Labels, the seeding's distances and cumulative sums, per row.
        let work = 2 * cfg.k + 8;
        Ok(checked_features(self.id(), problem, cfg, &[spec], work, ctx)?.remove(0))
    }
}

impl Algorithm for RffPower {
    fn id(&self) -> &'static str {
        "rff-power"
    }
    fn name(&self) -> &'static str {
        "RFF kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Chen et al. (RFF-KPKM, Algorithm 1): kernel power k-means on random Fourier features of the Gaussian kernel, i.e. power k-means on an n×2D feature matrix; O(n·D) memory and O(n·D·k) per iteration instead of kpower's n×n kernel."
    }
    fn params(&self) -> Vec<ParamSpec> {
        let mut v = vec![rff::sigma_spec(), rff::dim_spec(), rff::seed_spec()];
        v.push(rff::f32_spec());
        v.push(init_iter_spec());
        v.extend(rff_schedule_specs(RFF_S0, 3.0));
        v.push(tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ));
        v.push(max_iter_spec(500.0));
        v
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        rff_auto_param(name, problem, k)
    }
    fn prepare(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<()> {
        self.features(problem, cfg, ctx).map(|_| ())
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let f = self.features(problem, cfg, ctx)?;
        let mut rng = start.rng();
        let rows = f.rows();
        let seeds = init::euclidean_seeds(rows, &f.norms, cfg.k, cfg.init, &mut rng)?;
        let p = &cfg.params;
        let (centres, init_iters) = kmeans_start(
            rows,
            &f.norms,
            rows.select(&seeds),
            p.get_usize("init_iter"),
            ctx,
        )?;
        let mut fit = power_loop(
            rows,
            &f.norms,
            centres,
            &Schedule::from_params(p),
            p.get("tol"),
            p.get_usize("max_iter"),
            ctx,
        )?;
        // The centres live in feature space, not in the input space.
        fit.centroids = None;
        fit.extra.insert("rff".into(), rff::describe(&f));
        fit.extra
            .insert("init_iterations".into(), init_iters.into());
        Ok(fit)
    }
}
