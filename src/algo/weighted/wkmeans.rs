//! WK-means (Huang, Ng, Rong & Li, IEEE TPAMI 27(5), 2005): k-means with
//! feature weights `w_l ≥ 0`, `Σ_l w_l = 1`, minimising
//! `Σ_l w_l^β D_l` (D_l the within-cluster dispersion of feature l).
//! Method: docs/methods/lw-kmeans.md#wk-means.
//!
//! One start: k initial centres (`--init`: k-means++ or random rows, as
//! Huang's `randsample`), uniform weights (so the first assignment is plain
//! nearest-centre), then centres, weights
//! `w_l = D_l^{−1/(β−1)} / Σ_t D_t^{−1/(β−1)}` (0 where `D_l = 0`, Huang's
//! rule) and the assignment by `Σ_l w_l^β (x_l − z_l)²`, until no label
//! changes. Every step is an exact block minimiser, so the objective never
//! increases. Never exactly zero a weight unless `D_l = 0`: that is what
//! LW-k-means adds.

use super::common::{Rule, beta_spec, check_beta, fitted_rule, to_fit, weighted_loop};
use super::points::Points;
use crate::error::Result;
use crate::solver::lloyd::assign;
use crate::solver::params::declare_params;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    AssignRule, Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory,
};

pub struct WkMeans;

declare_params! {
    /// The parameters of `wkmeans`.
    pub struct WkParams {
        /// The weight exponent β > 1.
        beta: f64 = beta_spec(),
        tol: f64 = tol_spec(
            1e-8,
            "Stop when the relative change of the objective Σ w^β D is at most tol (or no label changes).",
        ),
        max_iter: usize = max_iter_spec(100.0),
    }
}

impl Solver for WkMeans {
    type Params = WkParams;
    fn id(&self) -> &'static str {
        "wkmeans"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            centres: true,
            sparse: true,
            ..crate::solver::Caps::new(crate::solver::Family::Weighted, "WKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Features
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Weighted)
    }
    fn name(&self) -> &'static str {
        "WK-means (Huang et al.)"
    }
    fn summary(&self) -> &'static str {
        "Huang, Ng, Rong & Li (2005): k-means with feature weights that sum to 1, w_l ∝ D_l^(−1/(β−1)), so low-dispersion features count more; no weight is exactly zero unless the feature is constant within clusters."
    }
    fn params(&self) -> Vec<ParamSpec> {
        WkParams::specs()
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<WkParams> {
        let p = WkParams::read(&cfg.params)?;
        check_beta(p.beta)?;
        Ok(p)
    }
    fn assign_rule(
        &self,
        _problem: &Problem,
        _cfg: &RunConfig,
        p: &WkParams,
        fit: &Fit,
    ) -> Result<Option<AssignRule>> {
        Ok(fitted_rule(fit, |w| {
            Rule::Huang { beta: p.beta }.assign_weights(w)
        }))
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &WkParams) -> StartMemory {
        StartMemory::feature_weighted(problem, run)
    }
    /// The reference code `huang.m`, which produced the WK-means numbers of
    /// the LW-k-means paper, maps each feature by (x − mean)/range; WK-means
    /// does not see a shift, so that is min–max. Over 20 seeds it comes
    /// closer to those numbers than z-scores on Brain, Leukemia and
    /// Lymphoma (see docs/guide/feature-selection.md).
    fn default_scaling(&self) -> crate::data::Scaling {
        crate::data::Scaling::Minmax
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &WkParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let mut rng = start.rng();
        // f32 rows (`--dtype f32`) are read as stored: the weighted
        // distances widen them a block at a time.
        let x = Points::of(problem);
        let norms = &problem.x_norms;
        let sw = problem.sample_weights();
        let centres = match &run.centres {
            Some(c) => (**c).clone(),
            None => {
                let seeds = x.seeds(norms, sw, run.k, run.init, &mut rng)?;
                x.select(&seeds)
            }
        };
        // Uniform weights: the first assignment is the plain nearest centre.
        let d = x.sq_dists(norms, centres.view());
        let (labels, _) = assign(d.view());
        let w = weighted_loop(
            x,
            sw,
            labels,
            Some(centres),
            run.k,
            &Rule::Huang { beta: p.beta },
            p.tol,
            p.max_iter,
            ctx,
            false,
        )?;
        let z = w.centres.clone();
        Ok(to_fit(w, z))
    }
}
