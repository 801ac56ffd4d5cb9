//! Power k-means (Xu & Lange 2019). Method: docs/methods/power-kmeans.md.
//!
//! Each iteration is two matrix products: the n×k squared distances
//! `‖x‖² + ‖θ‖² − 2XΘᵀ`, then the centres `Θ = ΩᵀX` from the
//! column-normalised MM weights Ω (the engine's `power_mean`).

use super::{initial_centres, sample_alone};
use crate::error::{ParamError, Result};
use crate::solver::algorithm::fit_each;
use crate::solver::csr::{self, power::PowerSettings};
use crate::solver::iterate::Finish;
use crate::solver::params::{Field, declare_params};
use crate::solver::power_mean::{PowerRun, power_batch, power_loop_hard};
use crate::solver::rows::Rows;
use crate::solver::sample::{Sampled, auto_sample, auto_sample_spec};
use crate::solver::specs::{max_iter_spec, soft_tol_spec, tol_spec};
use crate::solver::stopping::Schedule;
use crate::solver::{
    BatchStart, Common, Ctx, Fit, ParamSpec, Params, Problem, RunConfig, Solver, Start,
    StartMemory, in_batches,
};
use ndarray::Array2;

/// Starts of the power loop on the problem's rows, in lockstep batches
/// ([`power_batch`]): the seeding of each, then one pass over the rows per
/// iteration for every run of a batch. `settings` gives a start's
/// schedule, tol, max_iter, soft_tol and finish.
pub(super) fn fit_power_batch<P: Sync>(
    problem: &Problem,
    starts: &[BatchStart<'_, P>],
    settings: impl Fn(&P) -> (Schedule, f64, usize, f64, Finish) + Sync,
) -> Vec<Result<Fit>> {
    if let Some(x) = problem.csr() {
        return in_batches(problem, starts, |batch| {
            let fit = |b: &BatchStart<'_, P>| {
                let (schedule, tol, max_iter, soft_tol, finish) = settings(b.params);
                let how = PowerSettings {
                    schedule,
                    tol,
                    max_iter,
                    soft_tol,
                    finish,
                };
                let w = problem.sample_weights();
                csr::power::fit_start(x, &problem.x_norms, w, &b.run, b.start, &how, &b.ctx)
            };
            batch.iter().map(fit).collect()
        });
    }
    in_batches(problem, starts, |batch| {
        let seeded: Vec<Result<Array2<f64>>> = batch
            .iter()
            .map(|b| initial_centres(problem, &b.run, b.start))
            .collect();
        let mut runs = Vec::new();
        for (b, c) in batch.iter().zip(&seeded) {
            if let Ok(centres) = c {
                let (schedule, tol, max_iter, soft_tol, finish) = settings(b.params);
                runs.push(PowerRun {
                    centres: centres.clone(),
                    schedule,
                    tol,
                    max_iter,
                    soft_tol,
                    finish,
                    ctx: b.ctx.clone(),
                });
            }
        }
        let (rows, norms) = problem.rows();
        let mut fits = power_batch(rows, norms, problem.sample_weights(), runs).into_iter();
        seeded
            .into_iter()
            .map(|c| match c {
                Ok(_) => fits.next().expect("one fit per seeded start"),
                Err(e) => Err(e),
            })
            .collect()
    })
}

/// A start's memory: the dense default, or the sparse path's.
pub(super) fn sparse_memory(problem: &Problem, run: &Common) -> StartMemory {
    match problem.csr() {
        Some(x) => csr::power::start_memory(x.nrows(), x.ncols(), run.k, run.init),
        None => StartMemory::seeding(problem.n(), run.k, run.init),
    }
}

pub struct PowerKMeans;

declare_params! {
    /// The parameters of `power`.
    pub struct PowerParams {
        schedule: Schedule = Schedule::specs(),
        tol: f64 = tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ),
        max_iter: usize = max_iter_spec(500.0),
        soft_tol: f64 = soft_tol_spec(),
        /// Whether, and when, the annealing ends early with Lloyd.
        finish: Finish = ParamSpec {
            max: 2.0,
            ..ParamSpec::flag(
                "finish",
                "finish",
                0.0,
                FINISH_HELP,
            )
        },
        /// Rows to run on before Lloyd refines on every row (0: all).
        sample: usize = auto_sample_spec(),
    }
}

const FINISH_HELP: &str = "How the annealing may end before its schedule does, finishing with Lloyd's iteration (the s → −∞ limit): 0 never (the papers' protocol, the default); 1 once it has settled (a period without a label change, no empty cluster, labels that Lloyd's step keeps: on small data 3× fewer iterations, but it rarely comes on large data); 2 once the annealing no longer changes where Lloyd ends (the Lloyd limits of two checkpoints whose |s| differ by 1.5 agree on all but 0.01 % of rows; Fashion-MNIST: 282 iterations instead of 500, same cost). Both may end elsewhere than the full schedule (yeast, lung_discrete: another partition of similar cost).";

/// `finish` is declared as a count: 0, 1 or 2.
impl Field for Finish {
    type Spec = ParamSpec;
    fn declare(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
        usize::declare(name, spec)
    }
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError> {
        Ok(match usize::take(v, name)? {
            0 => Finish::Off,
            1 => Finish::Settled,
            _ => Finish::Limit,
        })
    }
}

impl Solver for PowerKMeans {
    type Params = PowerParams;
    fn id(&self) -> &'static str {
        "power"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sparse: true,
            sample_weights: true,
            centres: true,
            ..crate::solver::Caps::new(crate::solver::Family::Centroid, "PowerKMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Centroids)
    }
    fn name(&self) -> &'static str {
        "Power k-means"
    }
    fn summary(&self) -> &'static str {
        "Xu & Lange (2019): minimises the sum of power means of the squared distances, annealing s → −∞ so the objective morphs into k-means and escapes its poor local minima."
    }
    fn params(&self) -> Vec<ParamSpec> {
        PowerParams::specs()
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        match name {
            "sample" => Ok(auto_sample(problem, k)),
            _ => Err(crate::Error::param(format!(
                "power declares no automatic default for {name}"
            ))),
        }
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &PowerParams) -> StartMemory {
        sparse_memory(problem, run)
    }
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<PowerParams> {
        let p = PowerParams::read(&cfg.params)?;
        if problem.csr().is_some() && p.sample > 0 && p.sample < problem.n() {
            return Err(crate::Error::param(
                "power: sample does not apply to sparse input; set sample = 0",
            ));
        }
        Ok(p)
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &PowerParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        if let Some(x) = problem.csr() {
            let how = PowerSettings {
                schedule: p.schedule,
                tol: p.tol,
                max_iter: p.max_iter,
                soft_tol: p.soft_tol,
                finish: p.finish,
            };
            let w = problem.sample_weights();
            return csr::power::fit_start(x, &problem.x_norms, w, run, start, &how, ctx);
        }
        let (rows, norms) = problem.rows();
        let anneal = |x: Rows, x_norms: &[f64], w: Option<&[f64]>, centres: Array2<f64>| {
            power_loop_hard(
                x,
                x_norms,
                w,
                centres,
                &p.schedule,
                p.tol,
                p.max_iter,
                p.soft_tol,
                p.finish,
                ctx,
            )
        };
        let sampled = Sampled::of(problem, run, p.sample, 0.0, p.max_iter);
        if sampled.applies() {
            sample_alone(problem)?;
            return sampled.run(&mut start.rng(), ctx, |xs, xs_norms, centres| {
                anneal(xs.into(), xs_norms, None, centres)
            });
        }
        let centres = initial_centres(problem, run, start)?;
        anneal(rows, norms, problem.sample_weights(), centres)
    }
    fn fit_batch(
        &self,
        problem: &Problem,
        starts: &[BatchStart<'_, PowerParams>],
    ) -> Vec<Result<Fit>> {
        // A run on a sample reads its own rows: it goes alone.
        if starts
            .iter()
            .any(|b| Sampled::of(problem, &b.run, b.params.sample, 0.0, 0).applies())
        {
            return fit_each(self, problem, starts);
        }
        fit_power_batch(problem, starts, |p| {
            (p.schedule, p.tol, p.max_iter, p.soft_tol, p.finish)
        })
    }
}
