//! One power k-means iteration in a single pass over the data.
//!
//! Rows are taken in blocks small enough to stay in cache: for each block,
//! the distances to the centres (a GEMM), the log-domain MM weights, and
//! the block's contribution Wᵀ·X to the next centres (a second GEMM) are
//! computed while the block is hot. Reading a 70 000 × 784 matrix once per
//! iteration instead of twice is what makes an iteration about as cheap as
//! a Lloyd step.
//!
//! Column normalisation stays in the log domain: every task keeps, per
//! centre, the largest log weight seen so far and its sums relative to it,
//! rescaling when a larger one arrives, so weights that all underflow
//! still give a usable centre (docs/methods/power-kmeans.md#column-normalisation).
//!
//! Tasks have a fixed size and are combined in order, so the result is the
//! same for any number of threads.
//!
//! f32 rows take f32 products (`super::f32_products`: distances about the
//! centres' mean, so the centres' spread is not lost to the rows' size),
//! except while two centres are merged, where each block is widened to f64
//! and both products are f64 (see `block::RunCentres`).

pub use super::block::{PassArgs, PowerPass};
use super::block::{PowerStats, power_stats_batch};
use super::rows::Rows;
use ndarray::ArrayView2;

/// Distances, weights, objective, labels and the next centres, in one pass.
pub fn power_pass(
    x: Rows,
    x_norms: &[f64],
    centres: ArrayView2<f64>,
    s: f64,
    s_ref: Option<f64>,
    zero_tol: f64,
    weights: Option<&[f64]>,
) -> PowerPass {
    let run = PassArgs {
        centres,
        s,
        s_ref,
        zero_tol,
        weights,
    };
    power_pass_batch(x, x_norms, &[run])
        .pop()
        .expect("one pass per run")
}

/// [`power_pass`] for several runs over the same rows in one pass: each run's
/// result is bit-identical to its own [`power_pass`] (same tasks, same blocks,
/// same order of every sum), but the rows are read once for all of them.
/// The per-block statistics, their merge and the update are
/// [`super::block`]'s, which a distributed driver calls per chunk.
pub fn power_pass_batch(x: Rows, x_norms: &[f64], runs: &[PassArgs]) -> Vec<PowerPass> {
    let n = x.nrows();
    power_stats_batch(x, x_norms, runs)
        .into_iter()
        .zip(runs)
        .map(|(stats, run): (PowerStats, _)| {
            let denominator = run.weights.map_or(n.max(1) as f64, |w| w.iter().sum());
            stats.finish(run.centres, run.s_ref.is_some(), denominator)
        })
        .collect()
}
