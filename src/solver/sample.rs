//! Subsample, then refine (`-P sample=N`): the algorithm runs on N rows
//! drawn at random, then Lloyd refines its centres on every row. Lloyd is
//! the s → −∞ limit of power k-means, so the refined partition is a fixed
//! point of the objective both share; what the sample can lose is the part
//! of the annealing that depended on the rows left out. The run's JSON
//! says what each phase did (`sample`), so the effect on the objective can
//! be read beside a full run.

use super::algorithm::Common;
use super::extras::SampleInfo;
use super::fit::Fit;
use super::init::{Init, euclidean_seeds};
use super::lloyd::lloyd_loop;
use super::params::{Default, ParamSpec, Scale};
use super::problem::Problem;
use super::progress::Ctx;
use super::rows::Rows;
use crate::error::Result;
use crate::linalg::row_sq_norms;
use ndarray::{Array2, ArrayView2, Axis};
use rand::seq::index::sample as draw;

/// The declaration of `sample`, shared by the algorithms that take it.
pub fn sample_spec() -> ParamSpec {
    ParamSpec {
        name: "sample",
        symbol: "sample",
        default: Default::Fixed(0.0),
        min: 0.0,
        max: 1e9,
        scale: Scale::Linear,
        step: 1000.0,
        coarse: 10000.0,
        integer: true,
        help: "0 clusters every row. N > 0: the run (seeding included) is made on N rows drawn at random with the run's seed, then Lloyd refines its centres on every row (the s → −∞ limit of power k-means); each phase is capped by max_iter. N ≥ n is the same as 0.",
    }
}

/// Rows per centre of the automatic sample (faiss's default sample).
pub const AUTO_ROWS_PER_CENTRE: usize = 256;
/// The automatic sample applies when it is at most 1/20 of the rows.
pub const AUTO_SHARE: usize = 20;

/// What `sample`'s automatic default is, for the parameter tables.
pub const AUTO_SAMPLE_RULE: &str =
    "256·k rows when n > 20 × 256·k on dense rows without sample weights, else 0 (every row)";

/// The declaration of an automatic `sample` (power k-means): large data
/// anneals on 256·k rows, then Lloyd refines on every row.
pub fn auto_sample_spec() -> ParamSpec {
    ParamSpec {
        default: Default::Auto(AUTO_SAMPLE_RULE),
        help: "0 clusters every row. N > 0: the run (seeding included) is made on N rows drawn at random with the run's seed, then Lloyd refines its centres on every row (the s → −∞ limit of power k-means); each phase is capped by max_iter. N ≥ n is the same as 0. Default: 256·k rows when n > 20 × 256·k (Fashion-MNIST at k = 10: 2560 of 60000 rows, the full run's k-means cost in a fifteenth of its time), else every row, so no data of the papers' size is sampled; set 0 for every row.",
        ..sample_spec()
    }
}

/// `sample`'s automatic value: 256·k rows when that is at most 1/20 of
/// the rows, on dense rows without sample weights (which a sample does not
/// take); else 0, every row.
pub fn auto_sample(problem: &Problem, k: usize) -> f64 {
    let size = AUTO_ROWS_PER_CENTRE * k.max(1);
    let large = problem.n() > AUTO_SHARE * size;
    if large && problem.csr().is_none() && problem.sample_weights().is_none() {
        size as f64
    } else {
        0.0
    }
}

/// A run on a sample: `fit_on(rows, norms, centres)` runs the algorithm
/// from the seeds it is given.
pub struct Sampled<'a> {
    pub rows: Rows<'a>,
    pub norms: &'a [f64],
    pub k: usize,
    pub init: Init,
    pub size: usize,
    /// Tolerance of the Lloyd refinement, on the total squared centre
    /// shift (0: until no label changes).
    pub refine_tol: f64,
    pub max_iter: usize,
    /// Given initial centres: the sampled run starts from them.
    pub centres: Option<std::sync::Arc<Array2<f64>>>,
}

impl<'a> Sampled<'a> {
    /// A run of `size` rows of the problem's rows, for the start `run`.
    pub fn of(
        problem: &'a Problem,
        run: &Common,
        size: usize,
        refine_tol: f64,
        max_iter: usize,
    ) -> Self {
        let (rows, norms) = problem.rows();
        Sampled {
            rows,
            norms,
            k: run.k,
            init: run.init,
            size,
            refine_tol,
            max_iter,
            centres: run.centres.clone(),
        }
    }

    /// Whether the sample leaves rows out (otherwise the run is the full one).
    pub fn applies(&self) -> bool {
        self.size > 0 && self.size < self.rows.nrows()
    }

    /// Draws the sample (sorted row indices, from `rng` before the
    /// seeding, so one seed gives one run), runs `fit_on` on it, then
    /// refines on every row. The trace holds both phases, numbered on.
    ///
    /// # Errors
    /// What `fit_on`, the seeding or Lloyd fail with.
    pub fn run<R: rand::Rng>(
        &self,
        rng: &mut R,
        ctx: &Ctx,
        fit_on: impl FnOnce(ArrayView2<f64>, &[f64], Array2<f64>) -> Result<Fit>,
    ) -> Result<Fit> {
        let n = self.rows.nrows();
        let mut idx = draw(rng, n, self.size).into_vec();
        idx.sort_unstable();
        let xs = self.rows.select(&idx);
        let norms = row_sq_norms(xs.view());
        let start = match &self.centres {
            Some(c) => c.as_ref().clone(),
            None => {
                let seeds = euclidean_seeds(xs.view(), &norms, self.k, self.init, rng)?;
                xs.select(Axis(0), &seeds)
            }
        };
        let mut on_sample = fit_on(xs.view(), &norms, start)?;
        let centres = on_sample
            .centroids
            .take()
            .expect("the sampled algorithms return centres");
        let refined = lloyd_loop(
            self.rows,
            self.norms,
            centres,
            self.refine_tol,
            self.max_iter,
            &ctx.continuing(on_sample.iterations),
        )?;
        let mut trace = on_sample.trace;
        trace.extend(refined.trace);
        let mut extra = on_sample.extra;
        extra.sample = Some(SampleInfo {
            rows: self.size,
            of: n,
            iterations: on_sample.iterations,
            objective: on_sample.objective,
            converged: on_sample.converged,
            refine_iterations: refined.iterations,
        });
        Ok(Fit {
            iterations: trace.len(),
            trace,
            extra,
            warnings: on_sample.warnings,
            ..refined
        })
    }
}
