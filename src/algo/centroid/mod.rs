//! Centroid algorithms on the data's own space: k-means (Lloyd),
//! k-harmonic means and power k-means.

pub mod khm;
pub mod kmeans;
pub mod kmedians;
pub mod power;

use crate::error::{Error, Result};
use crate::solver::{Common, Problem, Start, init};
use ndarray::Array2;

/// The centres a start of the centroid family begins from: the given ones
/// (every restart alike), or seeds drawn with the start's seed, weighted by
/// the sample weights if there are any.
pub(super) fn initial_centres(
    problem: &Problem,
    run: &Common,
    start: Start,
) -> Result<Array2<f64>> {
    centres_or_repeats(problem, run, start, false)
}

/// [`initial_centres`]; with `repeat`, data with fewer distinct points
/// than k is seeded with repeated points instead of refused, as
/// scikit-learn does (`kmeans -P duplicates=1`).
pub(super) fn centres_or_repeats(
    problem: &Problem,
    run: &Common,
    start: Start,
    repeat: bool,
) -> Result<Array2<f64>> {
    if let Some(c) = &run.centres {
        return Ok((**c).clone());
    }
    let mut rng = start.rng();
    let (rows, norms) = problem.rows();
    let w = problem.sample_weights();
    let seeds =
        init::euclidean_seeds_or_repeats(rows, norms, w, run.k, run.init, repeat, &mut rng)?;
    Ok(rows.select(&seeds))
}

/// Refuses `-P sample` together with sample weights, which the sampled
/// run does not carry yet (given centres start the sampled run).
pub(super) fn sample_alone(problem: &Problem) -> Result<()> {
    if problem.sample_weights().is_some() {
        return Err(Error::param(
            "sample = N does not take sample weights yet; set sample = 0 or drop the weights",
        ));
    }
    Ok(())
}
