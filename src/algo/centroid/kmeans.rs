//! k-means (Lloyd) with scikit-learn's semantics: tolerance relative to the
//! mean feature variance on the squared centre shift, strict convergence
//! when no label changes, empty clusters moved to the farthest points.

use crate::error::Result;
use crate::solver::lloyd::{lloyd_loop, mean_variance};
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{Algorithm, Ctx, Fit, ParamSpec, Problem, RunConfig, Start, init};
use ndarray::Axis;

pub struct KMeans;

impl Algorithm for KMeans {
    fn id(&self) -> &'static str {
        "kmeans"
    }
    fn name(&self) -> &'static str {
        "k-means (Lloyd)"
    }
    fn summary(&self) -> &'static str {
        "Lloyd's algorithm with scikit-learn's stopping rule and empty-cluster relocation: the baseline every other method is measured against."
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            tol_spec(
                1e-4,
                "Stop when the squared centre shift is below tol × mean feature variance (scikit-learn's rule), or no label changes.",
            ),
            max_iter_spec(300.0),
        ]
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let mut rng = start.rng();
        let x = problem.x.view();
        let seeds = init::euclidean_seeds(x, &problem.x_norms, cfg.k, cfg.init, &mut rng)?;
        let centres = x.select(Axis(0), &seeds);
        let tol = cfg.params.get("tol") * mean_variance(x);
        lloyd_loop(
            x,
            &problem.x_norms,
            centres,
            tol,
            cfg.params.get_usize("max_iter"),
            ctx,
        )
    }
}
