//! Pieces the RFF algorithms share: their parameter declarations, the
//! memory-guarded feature maps, and the paper's k-means start Θ₀.

use crate::error::Result;
use crate::kernel::{self, rff, rff_dim};
use crate::solver::lloyd::lloyd_until_flat;
use crate::solver::params::{Default, ParamSpec, Scale};
use crate::solver::rows::Rows;
use crate::solver::stopping::Schedule;
use crate::solver::{Ctx, Problem};
use ndarray::Array2;
use std::sync::Arc;

/// Default s₀ of the RFF family: the middle of the paper's grid read with
/// the sign Algorithm 1 requires
/// (docs/methods/rff-power-kmeans.md#sign-of-s0).
pub const RFF_S0: f64 = -15.0;

/// The annealing parameters with the RFF defaults for s₀ and the period T.
pub fn rff_schedule_specs(s0: f64, period: f64) -> Vec<ParamSpec> {
    let mut v = Schedule::specs();
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

/// s fixed at −∞: the hard (Lloyd) limit of the power-mean iteration, with
/// the period check every iteration.
pub fn hard_schedule() -> Schedule {
    Schedule {
        s0: f64::NEG_INFINITY,
        eta: 1.0,
        period: 1,
        s_min: f64::NEG_INFINITY,
    }
}

/// The paper's Θ₀: Lloyd's k-means on the features from `centres`, at most
/// `max_iter` iterations, stopping when the inertia changes by less than
/// [`INIT_TOL`] (relative) between iterations; a centre that loses all its
/// points stays where it was. That is the power-mean iteration at s = −∞
/// with its period check every iteration, run as bounded Lloyd
/// ([`lloyd_until_flat`]): after the first pass only the rows whose
/// nearest centre may have changed are read. Rows count by their sample
/// weights `w`. Returns the centres and the iterations used (0 when
/// `max_iter` is 0).
pub fn kmeans_start<'a>(
    phi: impl Into<Rows<'a>>,
    norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<(Array2<f64>, usize)> {
    if max_iter == 0 {
        return Ok((centres, 0));
    }
    ctx.stage(INIT_STAGE, 0.0);
    let inner = ctx.iterations_as_stage(INIT_STAGE, max_iter);
    let fit = lloyd_until_flat(phi, norms, w, centres, INIT_TOL, max_iter, &inner)?;
    ctx.stage(INIT_STAGE, 1.0);
    let iters = fit.iterations;
    Ok((fit.centroids.expect("Lloyd returns its centres"), iters))
}

/// The σ and D parameters' automatic values, shared by the RFF algorithms:
/// σ the KPK rule on all columns; D the smallest rung of the ladder whose
/// map at that σ approximates the kernel within the tolerance
/// ([`rff_dim::auto_dim`]). D follows the data, not k.
pub fn rff_auto_param(name: &str, problem: &Problem, _k: usize) -> Result<f64> {
    Ok(match name {
        "rff_f32" => f64::from(u8::from(problem.dtype() == crate::data::Dtype::F32)),
        "rff_dim" => {
            rff_dim::auto_dim(problem, 0..problem.p(), kernel::auto_sigma(problem)).dim as f64
        }
        _ => kernel::auto_sigma(problem),
    })
}

/// Guards memory, then fetches or builds the feature matrices of `specs`.
/// `work_per_row` is the working memory per row in f64 values (n×k arrays).
pub fn checked_features(
    algo: &str,
    problem: &Problem,
    max_memory: Option<u64>,
    specs: &[rff::MapSpec],
    work_per_row: usize,
    ctx: &Ctx,
) -> Result<Vec<Arc<rff::FeatureMap>>> {
    let n = problem.n();
    let work = n as f64 * work_per_row as f64 * 8.0;
    rff::guard(algo, n, specs, work, max_memory)?;
    rff::features(problem, specs, ctx)
}
