//! LW-k-means (Chakraborty & Das, "Detecting meaningful clusters from
//! high-dimensional data", TPAMI 2020): k-means with feature weights and a
//! lasso penalty that sets the weights of high-dispersion features to
//! exactly zero. Method: docs/methods/lw-kmeans.md#algorithm (the corrected
//! algorithm), docs/methods/lw-kmeans.md#alpha-and-the-units-of-lambda (α
//! and the λ units), docs/methods/lw-kmeans.md#guards.
//!
//! **Units of λ: the authors' code (`lwkmeans.m`).** The weight step is
//! `w_l = (α/D_l − λ/p²)^{1/(β−1)}` when `α > (λ/p²)·D_l`, else exactly 0,
//! with `α = (Σ_l D_l^{−1/(β−1)})^{−(β−1)}` computed once from the initial
//! k-means partition. The paper's λ is β times larger (λ_paper = β·λ, so
//! 4·λ at β = 4) and its α is α_R2 = β·α/n; with those, the paper's weight
//! formula gives the same weights. The λ values of the paper's Tables V/VI
//! are in these (code) units and can be used as they are.
//!
//! **Algorithm** (one start): (1) the initial partition is the best of
//! `nstart` (50) k-means runs on the data as given (by default, `--scale
//! none`: the raw values, as the reference code); (2) the data are then z-scored
//! (`zscore = 1`, as `lwkmeans.m`; a no-op after `--scale standard`);
//! (3) α from that partition; (4) block-coordinate descent: centres, weights,
//! assignment with `v_l = w_l^β + β(λ/p²)·w_l`, which is exact descent on
//! the paper's objective (4), so the objective never increases
//! (`code_assign = 1` uses the reference code's `w_l^β + (λ/p²)·w_l`
//! instead, which is not exact descent). Stops when no label changes, the
//! objective moves by less than `tol` of its terms, or at `max_iter`.
//!
//! **Guards**: `D_l = 0` (a feature constant within every cluster) gets
//! weight 0 and is left out of α; an empty cluster keeps its previous
//! centre; ties keep the current label; when every weight is zero (λ at or
//! above `lambda_max`, reported in the JSON) the run stops at once with the
//! initial partition and a warning.

use super::common::{
    Rule, Scaled, StageCounter, Standardized, beta_spec, check_beta, cluster_means, dispersions,
    fitted_rule, kmeans_partition, lw_alpha, nstart_spec, standardized, to_fit, total_weight,
    weighted_loop, zero_floor,
};
use super::points::Points;
use crate::error::{Error, Result};
use crate::solver::params::{Default, ParamSpec, Scale, declare_params};
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Common, Ctx, Fit, Init, Params, Problem, Rng, RunConfig, Solver, Start, StartMemory,
};
use std::sync::Arc;

declare_params! {
    /// The settings of one LW run besides λ.
    pub struct LwSettings {
        beta: f64 = beta_spec(),
        nstart: usize = nstart_spec(
            50.0,
            "k-means runs (k-means++ seeds, best inertia) giving the initial partition and α. The reference code uses 10 MATLAB replicates; 10 of ours miss the lowest-inertia partition of raw Lymphoma in 6 of 20 seeds (seeds 0–19), 50 never do (and then reproduce the paper's Leukemia and Lymphoma numbers exactly).",
        ),
        zscore: bool = ParamSpec::flag(
            "zscore",
            "zscore",
            1.0,
            "1: z-score the data after the initial partition, as lwkmeans.m (with the default --scale none the initial k-means sees the raw values, as in the paper's experiments); 0: iterate on the data as scaled by --scale.",
        ),
        code_assign: bool = ParamSpec::flag(
            "code_assign",
            "code_assign",
            0.0,
            "1: assign with w^β + (λ/p²)w as lwkmeans.m; 0: with w^β + β(λ/p²)w, exact descent on the paper's objective (never increases). The weights are the same.",
        ),
        tol: f64 = tol_spec(
            1e-8,
            "Stop when the objective moves by at most tol × the sum of its terms' magnitudes (or no label changes).",
        ),
        max_iter: usize = max_iter_spec(100.0),
    }
}

impl LwSettings {
    /// The settings of `lw`'s declared parameters.
    ///
    /// # Errors
    /// [`Error::Param`] for β ≤ 1 or a missing value.
    pub fn from_params(p: &Params) -> Result<Self> {
        let s = Self::read(p)?;
        check_beta(s.beta)?;
        Ok(s)
    }
}

/// What every λ of a run or a path shares: the data LW iterates on, the
/// initial partition and α computed from it.
pub struct LwStart {
    /// The z-scored data (when `zscore`), else `None`: use the problem's.
    pub std: Option<Arc<Standardized>>,
    pub labels: Vec<usize>,
    /// α in code units (α_c).
    pub alpha: f64,
    /// Dispersions at the initial partition.
    pub d0: Vec<f64>,
    /// The total sample weight, when the rows are weighted: the n of the
    /// objective's scale β/n.
    pub mass: Option<f64>,
}

impl LwStart {
    /// The initial k-means partition (best of `nstart`, seeded from `rng`,
    /// or one run from `centres` when given), then α from it on the data
    /// LW iterates on.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        problem: &Problem,
        k: usize,
        init: Init,
        centres: Option<&ndarray::Array2<f64>>,
        s: &LwSettings,
        rng: &mut Rng,
        ctx: &Ctx,
    ) -> Result<Self> {
        let labels = kmeans_partition(
            Points::of(problem),
            problem.sample_weights(),
            k,
            s.nstart,
            init,
            centres,
            rng,
            ctx,
            Some(&StageCounter::new(
                ctx,
                "lw: initial k-means runs",
                s.nstart,
            )),
        )?;
        Self::from_labels(problem, labels, k, s)
    }

    /// Starts from a given partition (tests, warm starts).
    pub fn from_labels(
        problem: &Problem,
        labels: Vec<usize>,
        k: usize,
        s: &LwSettings,
    ) -> Result<Self> {
        check_beta(s.beta)?;
        let std = if s.zscore {
            Some(standardized(problem)?)
        } else {
            None
        };
        let x = match &std {
            Some(st) => st.points(),
            None => Points::of(problem),
        };
        let sw = problem.sample_weights();
        let (z, _) = cluster_means(x, sw, &labels, k, None);
        let d0 = dispersions(x, sw, &labels, z.view());
        let alpha = lw_alpha(&d0, s.beta).ok_or_else(|| {
            Error::param(
                "lw: every feature is constant within every cluster of the initial partition, so α is undefined (is k close to the number of distinct points?)",
            )
        })?;
        Ok(LwStart {
            std,
            labels,
            alpha,
            d0,
            mass: sw.map(|w| total_weight(w.len(), Some(w))),
        })
    }

    /// The rows lw iterates on: the z-scored copy, or the problem's rows.
    pub fn x<'a>(&'a self, problem: &'a Problem) -> Points<'a> {
        match &self.std {
            Some(st) => st.points(),
            None => Points::of(problem),
        }
    }

    /// The smallest λ (code units) at which every weight is zero at the
    /// initial partition: `p²·α / min_l D_l` over the features with
    /// `D_l > 0` (docs/methods/lw-kmeans.md#lambda-max), nudged up so it drops every feature despite
    /// rounding.
    pub fn lambda_max(&self) -> f64 {
        let floor = zero_floor(&self.d0);
        let dmin = self
            .d0
            .iter()
            .copied()
            .filter(|&d| d > floor && d > 0.0)
            .fold(f64::INFINITY, f64::min);
        let p = self.d0.len() as f64;
        p * p * self.alpha / dmin * (1.0 + 1e-9)
    }

    /// The largest λ (code units) at which every feature with `D_l > 0`
    /// keeps a weight at the initial partition: `p²·α / max_l D_l`, nudged
    /// down against rounding.
    pub fn lambda_all(&self) -> f64 {
        let dmax = self.d0.iter().copied().fold(0.0, f64::max);
        let p = self.d0.len() as f64;
        if dmax > 0.0 {
            p * p * self.alpha / dmax * (1.0 - 1e-9)
        } else {
            0.0
        }
    }

    /// The weight rule for λ (code units); `n` the number of rows (the
    /// total sample weight replaces it when the rows are weighted).
    pub fn rule(&self, lambda: f64, s: &LwSettings, n: usize) -> Rule {
        let p = self.d0.len() as f64;
        Rule::Lasso {
            beta: s.beta,
            alpha: self.alpha,
            lam_p2: lambda / (p * p),
            n: self.mass.unwrap_or(n as f64),
            code_assign: s.code_assign,
        }
    }
}

/// One LW run at λ from `labels` (the initial partition, or a warm start),
/// with centres and weights mapped back to the problem's space.
#[allow(clippy::too_many_arguments)]
pub fn lw_from(
    problem: &Problem,
    start: &LwStart,
    labels: Vec<usize>,
    prev_centres: Option<ndarray::Array2<f64>>,
    k: usize,
    lambda: f64,
    s: &LwSettings,
    ctx: &Ctx,
    quiet: bool,
) -> Result<(Fit, ndarray::Array2<f64>)> {
    if !(lambda.is_finite() && lambda >= 0.0) {
        return Err(Error::param(format!(
            "lambda = {lambda} is out of range: must be a finite number ≥ 0"
        )));
    }
    let x = start.x(problem);
    let rule = start.rule(lambda, s, problem.n());
    let w = weighted_loop(
        x,
        problem.sample_weights(),
        labels,
        prev_centres,
        k,
        &rule,
        s.tol,
        s.max_iter,
        ctx,
        quiet,
    )?;
    let z = w.centres.clone();
    let centroids = match &start.std {
        Some(st) => st.unscale(&z),
        None => z.clone(),
    };
    let mut fit = to_fit(w, centroids);
    let lmax = start.lambda_max();
    fit.extra.alpha = Some(start.alpha);
    fit.extra.lambda_max = Some(lmax);
    let selected = fit
        .feature_weights
        .as_ref()
        .map_or(0, |w| w.iter().filter(|&&v| v > 0.0).count());
    if selected == 0 {
        fit.warnings.push(format!(
            "no feature selected: lambda = {lambda} is at or above lambda_max = {lmax:.6e} for this partition (every weight is 0, so the labels are those of the initial k-means)"
        ));
    }
    Ok((fit, z))
}

pub struct Lw;

pub fn lambda_spec() -> ParamSpec {
    ParamSpec {
        name: "lambda",
        symbol: "λ",
        default: Default::Auto("1/p"),
        min: 0.0,
        max: 1e6,
        scale: Scale::Log,
        step: 1.1,
        coarse: 2.0,
        integer: false,
        help: "Sparsity λ in the units of the authors' code lwkmeans.m (the paper's Tables V/VI use them): feature l is dropped (w_l = 0) when (λ/p²)·D_l ≥ α. The paper's λ is β·λ (4λ at β = 4). At β = 4, λ = c/p keeps the features whose dispersion at the initial partition is below M/c, M the (−1/3)-power mean of all dispersions; the default 1/p keeps those below M (the papers' λ are c = 0.1–3). For another β the same rule reads λ = c·p^(3−β), so set λ explicitly. Above lambda_max (in the JSON) every feature is dropped.",
    }
}

declare_params! {
    /// The parameters of `lw`.
    pub struct LwParams {
        /// λ in the reference code's units.
        lambda: f64 = lambda_spec(),
        settings: LwSettings = LwSettings::specs(),
    }
}

impl Solver for Lw {
    type Params = LwParams;
    fn id(&self) -> &'static str {
        "lw"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            centres: true,
            sparse: true,
            start_scales_objective: true,
            ..crate::solver::Caps::new(crate::solver::Family::Weighted, "LWKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Features
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Weighted)
    }
    fn name(&self) -> &'static str {
        "LW-k-means (lasso-weighted k-means)"
    }
    fn summary(&self) -> &'static str {
        "Chakraborty & Das (TPAMI 2020): k-means with feature weights w_l ≥ 0 and a lasso penalty, so the weights of high-dispersion features become exactly 0 (feature selection). λ in the authors' code units; by default (--scale none) the initial k-means sees the raw values and lw z-scores afterwards, as their code does."
    }
    fn params(&self) -> Vec<ParamSpec> {
        LwParams::specs()
    }
    fn default_scaling(&self) -> crate::data::Scaling {
        crate::data::Scaling::None
    }
    /// Weighted dispersions, means, z-scores and initial k-means; α and
    /// the objective's β/n read the weighted sums (n the total weight).
    fn auto_param(&self, name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        match name {
            "lambda" => Ok(1.0 / problem.p() as f64),
            _ => Err(Error::param(format!(
                "lw declares no automatic default for {name}"
            ))),
        }
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<LwParams> {
        let p = LwParams::read(&cfg.params)?;
        check_beta(p.settings.beta)?;
        Ok(p)
    }
    /// With `zscore`, lw clustered the z-scores: the rule z-scores new rows
    /// and holds the final partition's means there.
    fn assign_rule(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        p: &LwParams,
        fit: &Fit,
    ) -> Result<Option<crate::solver::AssignRule>> {
        let s = &p.settings;
        let d = problem.p() as f64;
        let rule = Rule::Lasso {
            beta: s.beta,
            alpha: 0.0,
            lam_p2: p.lambda / (d * d),
            n: problem.n() as f64,
            code_assign: s.code_assign,
        };
        let Some(mut out) = fitted_rule(fit, |w| rule.assign_weights(w)) else {
            return Ok(None);
        };
        if s.zscore {
            let st = standardized(problem)?;
            let prev = st.zscore_centres(&out.centroids);
            out.centroids = match &st.x {
                Scaled::Dense(_) => {
                    cluster_means(
                        st.points(),
                        problem.sample_weights(),
                        &fit.labels,
                        cfg.k,
                        Some(prev.view()),
                    )
                    .0
                }
                // CSR rows are scaled, not centred: the means in the
                // z-scores are the fit's centres mapped there.
                Scaled::Sparse(_) => prev,
            };
            out.standardize = Some((st.mean.clone(), st.sd.clone()));
        }
        Ok(Some(out))
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &LwParams) -> StartMemory {
        StartMemory::feature_weighted(problem, run)
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &LwParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let s = p.settings;
        let mut rng = start.rng();
        let st = LwStart::new(
            problem,
            run.k,
            run.init,
            run.centres.as_deref(),
            &s,
            &mut rng,
            ctx,
        )?;
        let labels = st.labels.clone();
        let (mut fit, _) = lw_from(problem, &st, labels, None, run.k, p.lambda, &s, ctx, false)?;
        if run.restarts > 1 {
            fit.warnings.push(
                "lw: each restart computes its own α from its initial partition, so the objectives compared to pick the best restart are on different scales; raise -P nstart for a better initial partition instead".into(),
            );
        }
        Ok(fit)
    }
}
