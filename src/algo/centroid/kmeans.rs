//! k-means (Lloyd) with scikit-learn's semantics: tolerance relative to the
//! mean feature variance on the squared centre shift, strict convergence
//! when no label changes, empty clusters moved to the farthest points.

use super::{centres_or_repeats, sample_alone};
use crate::error::Result;
use crate::solver::csr;
use crate::solver::lloyd::{lloyd_loop, mean_variance, weighted_lloyd_loop};
use crate::solver::params::declare_params;
use crate::solver::sample::{Sampled, sample_spec};
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory};

pub struct KMeans;

declare_params! {
    /// The parameters of `kmeans`.
    pub struct KMeansParams {
        /// Relative to the mean feature variance.
        tol: f64 = tol_spec(
            1e-4,
            "Stop when the squared centre shift is below tol × mean feature variance (scikit-learn's rule), or no label changes.",
        ),
        max_iter: usize = max_iter_spec(300.0),
        /// Rows to run on before Lloyd refines on every row (0: all).
        sample: usize = sample_spec(),
        /// Bounds that skip the rows whose nearest centre cannot have changed
        /// (same result as without, bit for bit).
        bounded: bool = ParamSpec::flag(
            "bounded",
            "bounded",
            1.0,
            "1 skips the rows whose nearest centre cannot have moved (distance bounds, as Elkan's and Hamerly's k-means); 0 computes every distance at every iteration (scikit-learn's algorithm='lloyd'). Same result either way, bit for bit.",
        ),
        /// Seed data with fewer distinct points than k with repeated points
        /// (scikit-learn) instead of refusing it.
        duplicates: bool = ParamSpec::flag(
            "duplicates",
            "dup",
            0.0,
            "1 seeds data with fewer distinct points than k with repeated points, as scikit-learn does (those clusters stay empty, with a warning); 0 refuses such data.",
        ),
    }
}

impl Solver for KMeans {
    type Params = KMeansParams;
    fn id(&self) -> &'static str {
        "kmeans"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sparse: true,
            sample_weights: true,
            centres: true,
            python: crate::solver::PyClass::Written("KMeans"),
            ..crate::solver::Caps::new(crate::solver::Family::Centroid, "KMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Centroids)
    }
    fn name(&self) -> &'static str {
        "k-means (Lloyd)"
    }
    fn summary(&self) -> &'static str {
        "Lloyd's algorithm with scikit-learn's stopping rule and empty-cluster relocation: the baseline every other method is measured against."
    }
    fn params(&self) -> Vec<ParamSpec> {
        KMeansParams::specs()
    }
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<KMeansParams> {
        let p = KMeansParams::read(&cfg.params)?;
        if problem.csr().is_some() && p.sample > 0 && p.sample < problem.n() {
            return Err(crate::Error::param(
                "kmeans: sample does not apply to sparse input; set sample = 0",
            ));
        }
        Ok(p)
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &KMeansParams) -> StartMemory {
        match problem.csr() {
            Some(x) => csr::lloyd::start_memory(x.nrows(), x.ncols(), run.k, run.init),
            None => StartMemory::seeding(problem.n(), run.k, run.init),
        }
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KMeansParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        if let Some(x) = problem.csr() {
            let (norms, w) = (&problem.x_norms, problem.sample_weights());
            return csr::lloyd::kmeans_csr(x, norms, w, run, start, p.tol, p.max_iter, ctx);
        }
        let (rows, norms) = problem.rows();
        // scikit-learn's tolerance: the unweighted mean feature variance.
        let tol = p.tol * problem.mean_variance();
        let sampled = Sampled::of(problem, run, p.sample, tol, p.max_iter);
        if sampled.applies() {
            sample_alone(problem)?;
            return sampled.run(&mut start.rng(), ctx, |xs, xs_norms, centres| {
                let tol = p.tol * mean_variance(xs);
                lloyd_loop(xs, xs_norms, centres, tol, p.max_iter, ctx)
            });
        }
        let centres = centres_or_repeats(problem, run, start, p.duplicates)?;
        let w = problem.sample_weights();
        weighted_lloyd_loop(rows, norms, w, centres, tol, p.max_iter, p.bounded, ctx)
    }
}
