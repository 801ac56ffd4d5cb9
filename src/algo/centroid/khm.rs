//! k-harmonic means (Zhang, Hsu & Dayal 1999) with exponent 2: power
//! k-means with s = −1 held fixed.

use super::initial_centres;
use super::power::fit_power_batch;
use crate::error::Result;
use crate::solver::iterate::Finish;
use crate::solver::params::declare_params;
use crate::solver::power_mean::power_loop;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::stopping::Schedule;
use crate::solver::{
    BatchStart, Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory,
};

/// k-harmonic means' fixed exponent as a power-mean schedule.
const SCHEDULE: Schedule = Schedule {
    s0: -1.0,
    eta: 1.0,
    period: 1,
    s_min: -1.0,
};

pub struct Khm;

declare_params! {
    /// The parameters of `khm`.
    pub struct KhmParams {
        tol: f64 = tol_spec(
            1e-6,
            "Relative change of the objective between iterations below which the run stops.",
        ),
        max_iter: usize = max_iter_spec(500.0),
    }
}

impl Solver for Khm {
    type Params = KhmParams;
    fn id(&self) -> &'static str {
        "khm"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sparse: true,
            sample_weights: true,
            centres: true,
            ..crate::solver::Caps::new(crate::solver::Family::Centroid, "KHarmonicMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Centroids)
    }
    fn name(&self) -> &'static str {
        "k-harmonic means"
    }
    fn summary(&self) -> &'static str {
        "Zhang, Hsu & Dayal (1999) with exponent 2: power k-means with s = −1 held fixed (the harmonic mean of the squared distances)."
    }
    fn params(&self) -> Vec<ParamSpec> {
        KhmParams::specs()
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &KhmParams) -> StartMemory {
        super::power::sparse_memory(problem, run)
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<KhmParams> {
        Ok(KhmParams::read(&cfg.params)?)
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KhmParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        if let Some(x) = problem.csr() {
            let how = crate::solver::csr::power::PowerSettings {
                schedule: SCHEDULE,
                tol: p.tol,
                max_iter: p.max_iter,
                soft_tol: 1.0,
                finish: Finish::Off,
            };
            let w = problem.sample_weights();
            return crate::solver::csr::power::fit_start(
                x,
                &problem.x_norms,
                w,
                run,
                start,
                &how,
                ctx,
            );
        }
        let centres = initial_centres(problem, run, start)?;
        let (rows, norms) = problem.rows();
        let w = problem.sample_weights();
        power_loop(rows, norms, w, centres, &SCHEDULE, p.tol, p.max_iter, ctx)
    }
    fn fit_batch(
        &self,
        problem: &Problem,
        starts: &[BatchStart<'_, KhmParams>],
    ) -> Vec<Result<Fit>> {
        // power_loop: the period check alone, no finish.
        fit_power_batch(problem, starts, |p| {
            (SCHEDULE, p.tol, p.max_iter, 1.0, Finish::Off)
        })
    }
}
