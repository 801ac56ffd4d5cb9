//! Power k-means (Xu & Lange 2019). Spec: kernel-power-kmeans.md §1–3.
//!
//! Each iteration is two matrix products: the n×k squared distances
//! `‖x‖² + ‖θ‖² − 2XΘᵀ`, then the centres `Θ = ΩᵀX` from the
//! column-normalised MM weights Ω (the engine's `power_mean`).

use crate::error::Result;
use crate::solver::power_mean::power_loop_hard;
use crate::solver::specs::{max_iter_spec, schedule_specs, soft_tol_spec, tol_spec};
use crate::solver::stopping::Schedule;
use crate::solver::{Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, init};
use ndarray::Array2;

pub(super) fn initial_centres(
    problem: &Problem,
    run: &Common,
    start: Start,
) -> Result<Array2<f64>> {
    let mut rng = start.rng();
    let (rows, norms) = problem.rows();
    let seeds = init::euclidean_seeds(rows, norms, run.k, run.init, &mut rng)?;
    Ok(rows.select(&seeds))
}

pub struct PowerKMeans;

/// The parameters of `power`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerParams {
    pub schedule: Schedule,
    pub tol: f64,
    pub max_iter: usize,
    pub soft_tol: f64,
    /// End the annealing with Lloyd once it has settled.
    pub finish: bool,
}

impl Solver for PowerKMeans {
    type Params = PowerParams;
    fn id(&self) -> &'static str {
        "power"
    }
    fn name(&self) -> &'static str {
        "Power k-means"
    }
    fn summary(&self) -> &'static str {
        "Xu & Lange (2019): minimises the sum of power means of the squared distances, annealing s → −∞ so the objective morphs into k-means and escapes its poor local minima."
    }
    fn params(&self) -> Vec<ParamSpec> {
        let mut v = schedule_specs();
        v.push(tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ));
        v.push(max_iter_spec(500.0));
        v.push(soft_tol_spec());
        v.push(ParamSpec::flag(
            "finish",
            "finish",
            0.0,
            "1 ends the annealing once it has settled (a period without a label change, no empty cluster, labels that Lloyd's step keeps) and finishes with Lloyd, the s → −∞ limit: 16× fewer iterations on seeds, same result; but on some data (lung_discrete, 50-d blobs) the full schedule still improves the partition after that point, so it is off by default (the papers' protocol).",
        ));
        v
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<PowerParams> {
        let v = &cfg.params;
        Ok(PowerParams {
            schedule: Schedule::read(v)?,
            tol: v.real("tol")?,
            max_iter: v.count("max_iter")?,
            soft_tol: v.real("soft_tol")?,
            finish: v.flag("finish")?,
        })
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &PowerParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let centres = initial_centres(problem, run, start)?;
        let (rows, norms) = problem.rows();
        power_loop_hard(
            rows,
            norms,
            centres,
            &p.schedule,
            p.tol,
            p.max_iter,
            p.soft_tol,
            p.finish,
            ctx,
        )
    }
}
