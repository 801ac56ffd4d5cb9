//! k-harmonic means (Zhang, Hsu & Dayal 1999) with exponent 2: power
//! k-means with s = −1 held fixed.

use super::power::initial_centres;
use crate::error::Result;
use crate::solver::power_mean::power_loop;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::stopping::Schedule;
use crate::solver::{Algorithm, Ctx, Fit, ParamSpec, Problem, RunConfig, Start};

pub struct Khm;

impl Algorithm for Khm {
    fn id(&self) -> &'static str {
        "khm"
    }
    fn name(&self) -> &'static str {
        "k-harmonic means"
    }
    fn summary(&self) -> &'static str {
        "Zhang, Hsu & Dayal (1999) with exponent 2: power k-means with s = −1 held fixed (the harmonic mean of the squared distances)."
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            tol_spec(
                1e-6,
                "Relative change of the objective between iterations below which the run stops.",
            ),
            max_iter_spec(500.0),
        ]
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let centres = initial_centres(problem, cfg, start)?;
        let p = &cfg.params;
        let sched = Schedule {
            s0: -1.0,
            eta: 1.0,
            period: 1,
            s_min: -1.0,
        };
        power_loop(
            problem.x.view(),
            &problem.x_norms,
            centres,
            &sched,
            p.get("tol"),
            p.get_usize("max_iter"),
            ctx,
        )
    }
}
