//! Regularisation paths: one algorithm over a grid of its sparsity
//! parameter. Every grid point after the first runs twice, warm-started
//! from the previous point (its partition and centres, as glmnet does) and
//! from the shared initial partition, and keeps the better objective (both
//! use the same α, so the objectives compare): a warm start alone carries
//! the partition of a very sparse point down the path (Leukemia, seed 0:
//! the partition of the first 2 selected genes, CER 0.056, was kept down
//! to 149 genes, where a start from the initial partition gives 0.028).
//! For `lw` the parameter is λ (reference-code units, see `lw.rs`), for
//! `sparse-kmeans` the L1 bound s.
//!
//! The automatic grid starts at the sparsest end: for `lw` at `lambda_max`,
//! the smallest λ that sets every weight to zero at the initial partition
//! (docs/methods/lw-kmeans.md#lambda-max), going down log-spaced to
//! `lambda_max·ratio`;
//! for `sparse-kmeans` from s = 1.1 (sparcl's smallest bound, about one
//! feature) up to the bound at which every feature with a positive BCSS
//! keeps its weight (`‖a‖₁/‖a‖₂` at the initial partition).
//!
//! One initial partition (k-means, `nstart` runs seeded by `cfg.seed`) is
//! shared by all points; α for `lw` comes from it. Progress: a
//! `Stage("regularisation path", i/N)` event per point and the iteration
//! events of every point's warm-started run (with weights), `restart` =
//! point index.
//! Cancellation is checked every iteration.

use super::common::{StageCounter, cluster_means, dispersions, kmeans_partition, total_ss};
use super::lw::{LwSettings, LwStart, lw_from};
use super::points::Points;
use super::sparse::{SparseKMeans, SparseSettings, log_space, sparse_loop};
use crate::error::{Error, Result};
use crate::metrics::{Scores, mcc};
use crate::solver::{Ctx, Problem, Rng, RunConfig, Solver, check_config};
use rand::SeedableRng;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// The algorithms that have a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathAlgo {
    Lw,
    SparseKMeans,
}

impl PathAlgo {
    /// The path of algorithm `id`.
    ///
    /// # Errors
    /// [`Error::Param`] for an algorithm without a regularisation path.
    pub fn from_id(id: &str) -> Result<Self> {
        match id {
            "lw" => Ok(PathAlgo::Lw),
            "sparse-kmeans" => Ok(PathAlgo::SparseKMeans),
            other => Err(Error::param(format!(
                "algorithm '{other}' has no regularisation path; use --algo lw or --algo sparse-kmeans"
            ))),
        }
    }

    pub fn id(&self) -> &'static str {
        match self {
            PathAlgo::Lw => "lw",
            PathAlgo::SparseKMeans => "sparse-kmeans",
        }
    }

    /// The declared parameter the grid runs over.
    pub fn parameter(&self) -> &'static str {
        match self {
            PathAlgo::Lw => "lambda",
            PathAlgo::SparseKMeans => "wbound",
        }
    }
}

/// Points of the automatic grid, for every face (the UI's path, `meanscape
/// path` without --points, Python): one default, so the same data give the
/// same λ values everywhere.
pub const DEFAULT_POINTS: usize = 30;

/// The grid of a path.
#[derive(Debug, Clone, PartialEq)]
pub enum Grid {
    /// These values, in this order.
    Values(Vec<f64>),
    /// `count` points from the sparsest end. For `lw` the other end is
    /// `lambda_max·ratio`, or without a ratio `lambda_all`, the largest λ
    /// at which every feature keeps a weight at the initial partition.
    Auto { count: usize, ratio: Option<f64> },
}

impl Default for Grid {
    /// The automatic grid of [`DEFAULT_POINTS`] points, to `lambda_all`.
    fn default() -> Self {
        Grid::Auto {
            count: DEFAULT_POINTS,
            ratio: None,
        }
    }
}

impl Grid {
    /// Parses `FROM:TO:COUNT`: log-spaced when both ends are positive,
    /// evenly spaced otherwise; FROM first.
    ///
    /// # Errors
    /// [`Error::Param`] for anything but three fields, two finite numbers ≥ 0
    /// and a count from 1 to 10000.
    pub fn parse(spec: &str) -> Result<Grid> {
        let bad = |why: &str| {
            Error::param(format!(
                "--lambda {spec}: {why} (expected FROM:TO:COUNT, e.g. 0.002:0.0001:40)"
            ))
        };
        let parts: Vec<&str> = spec.split(':').collect();
        if parts.len() != 3 {
            return Err(bad("three fields separated by ':'"));
        }
        let num = |s: &str| -> Result<f64> {
            match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(bad(&format!("'{s}' is not a finite number ≥ 0"))),
            }
        };
        let (a, b) = (num(parts[0])?, num(parts[1])?);
        let count: usize = parts[2]
            .trim()
            .parse()
            .map_err(|_| bad(&format!("'{}' is not a whole number", parts[2])))?;
        if count == 0 || count > 10_000 {
            return Err(bad("COUNT must be from 1 to 10000"));
        }
        let values = if count == 1 {
            vec![a]
        } else if a > 0.0 && b > 0.0 {
            log_space(a, b, count)
        } else {
            (0..count)
                .map(|i| a + (b - a) * i as f64 / (count - 1) as f64)
                .collect()
        };
        Ok(Grid::Values(values))
    }
}

/// One point of a path.
#[derive(Debug, Clone)]
pub struct PathPoint {
    /// The grid value (λ for `lw`, the bound s for `sparse-kmeans`).
    pub lambda: f64,
    /// Features with a non-zero weight.
    pub selected: usize,
    pub feature_weights: Vec<f64>,
    pub objective: f64,
    /// The partition the point's run ended with. Where no feature is
    /// selected it is no clustering of the data (every distance is 0: the
    /// start it was given stays), so read it through [`Self::clustering`].
    pub labels: Vec<usize>,
    pub iterations: usize,
    pub converged: bool,
}

/// The scores [`PathPoint::metrics`] gives against the ground truth.
pub const TRUTH_SCORES: [&str; 5] = ["nmi", "ari", "acc", "cer", "purity"];

impl PathPoint {
    /// The point's partition, or `None` where no feature is selected: with
    /// every weight 0 nothing was clustered, and the partition is only the
    /// start (on Leukemia the initial k-means partition, CER 0.028, which
    /// must not be reported as the score of "0 features").
    pub fn clustering(&self) -> Option<&[usize]> {
        (self.selected > 0).then_some(self.labels.as_slice())
    }

    /// NMI, ARI, ACC, CER (1 − ACC) and purity against the ground truth,
    /// and the MCC of the selection against the true relevance, for what is
    /// known. Where no feature is selected the scores against the truth
    /// are `null` (there is no clustering to score); the MCC, a score of
    /// the selection, stays.
    pub fn metrics(
        &self,
        truth: Option<&[usize]>,
        relevance: Option<&[bool]>,
    ) -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(t) = truth {
            match self.clustering() {
                Some(labels) => {
                    let s = Scores::compute(t, labels);
                    m.insert("nmi".into(), s.nmi.into());
                    m.insert("ari".into(), s.ari.into());
                    m.insert("acc".into(), s.acc.into());
                    m.insert("cer".into(), (1.0 - s.acc).into());
                    m.insert("purity".into(), s.purity.into());
                }
                None => {
                    for name in TRUTH_SCORES {
                        m.insert(name.into(), Value::Null);
                    }
                }
            }
        }
        if let Some(r) = relevance {
            let sel: Vec<bool> = self.feature_weights.iter().map(|&w| w > 0.0).collect();
            m.insert("mcc".into(), mcc(&sel, r).into());
        }
        m
    }
}

#[derive(Debug, Clone)]
pub struct PathResult {
    pub algo: PathAlgo,
    pub points: Vec<PathPoint>,
    /// Where the automatic grid is anchored: `lambda_max` for `lw` (every
    /// weight zero at and above it), and for `sparse-kmeans` the bound
    /// `‖a‖₁/‖a‖₂` at and above which every feature with a positive BCSS
    /// keeps a weight.
    pub limit: f64,
    /// α (code units) for `lw`.
    pub alpha: Option<f64>,
    pub elapsed: Duration,
}

impl PathResult {
    /// Each feature with weight somewhere on the path and its weight summed
    /// over the points (non-finite weights left out), heaviest first, ties
    /// by feature index: the features a plot of the path draws.
    pub fn features_by_mass(&self) -> Vec<(usize, f64)> {
        let p = self.points.first().map_or(0, |q| q.feature_weights.len());
        let mut mass: Vec<(usize, f64)> = (0..p)
            .map(|j| {
                let m: f64 = self
                    .points
                    .iter()
                    .filter_map(|q| q.feature_weights.get(j))
                    .filter(|v| v.is_finite())
                    .sum();
                (j, m)
            })
            .filter(|(_, m)| *m > 0.0)
            .collect();
        mass.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        mass
    }
}

/// Runs the path. `cfg.params` holds every parameter of the algorithm (the
/// grid parameter's value is ignored); `cfg.restarts` must be 1.
///
/// # Errors
/// [`Error::Param`] for a configuration or grid the path cannot use (more
/// than one restart, a bound below 1), [`Error::Cancelled`], and what the
/// runs fail with.
pub fn run_path(
    algo: PathAlgo,
    problem: &Problem,
    cfg: &RunConfig,
    grid: &Grid,
    ctx: &Ctx,
) -> Result<PathResult> {
    check_config(problem, cfg)?;
    if cfg.restarts != 1 {
        return Err(Error::param(
            "--restarts does not apply to path: every point starts from the previous one and from the shared initial partition",
        ));
    }
    if let Grid::Auto { count, ratio } = grid {
        if *count == 0 || *count > 10_000 {
            return Err(Error::param(format!(
                "path grid: {count} points is out of range: must be from 1 to 10000"
            )));
        }
        if let Some(r) = ratio
            && !(*r > 0.0 && *r < 1.0)
        {
            return Err(Error::param(format!(
                "path grid: ratio {r} is out of range: must be in (0, 1)"
            )));
        }
    }
    let t0 = Instant::now();
    let mut rng = Rng::seed_from_u64(cfg.seed);
    let (points, limit, alpha) = match algo {
        PathAlgo::Lw => lw_path(problem, cfg, grid, &mut rng, ctx)?,
        PathAlgo::SparseKMeans => sparse_path(problem, cfg, grid, &mut rng, ctx)?,
    };
    ctx.stage("regularisation path", 1.0);
    Ok(PathResult {
        algo,
        points,
        limit,
        alpha,
        elapsed: t0.elapsed(),
    })
}

/// The points of an `lw` path, `lambda_max` and α.
fn lw_path(
    problem: &Problem,
    cfg: &RunConfig,
    grid: &Grid,
    rng: &mut Rng,
    ctx: &Ctx,
) -> Result<(Vec<PathPoint>, f64, Option<f64>)> {
    let k = cfg.k;
    let s = LwSettings::from_params(&cfg.params)?;
    let start = LwStart::new(problem, k, cfg.init, cfg.centres.as_deref(), &s, rng, ctx)?;
    let lmax = start.lambda_max();
    let values = match grid {
        Grid::Values(v) => v.clone(),
        Grid::Auto { count, ratio } => {
            let low = ratio.map_or(start.lambda_all(), |r| lmax * r);
            log_space(lmax, low.min(lmax), *count)
        }
    };
    let mut labels = start.labels.clone();
    let mut centres = None;
    let mut points = Vec::with_capacity(values.len());
    for (i, &lambda) in values.iter().enumerate() {
        ctx.stage("regularisation path", i as f64 / values.len() as f64);
        let pctx = ctx.for_restart(i);
        let (mut fit, mut z) = lw_from(
            problem,
            &start,
            labels.clone(),
            centres.take(),
            k,
            lambda,
            &s,
            &pctx,
            false,
        )?;
        if i > 0 {
            // Also from the shared initial partition: the same α,
            // so the objectives compare; keep the lower.
            let (cold, zc) = lw_from(
                problem,
                &start,
                start.labels.clone(),
                None,
                k,
                lambda,
                &s,
                &pctx,
                true,
            )?;
            if cold.objective < fit.objective {
                (fit, z) = (cold, zc);
            }
        }
        labels = fit.labels.clone();
        centres = Some(z);
        let w = fit.feature_weights.unwrap_or_default();
        points.push(PathPoint {
            lambda,
            selected: w.iter().filter(|&&v| v > 0.0).count(),
            feature_weights: w,
            objective: fit.objective,
            labels: fit.labels,
            iterations: fit.iterations,
            converged: fit.converged,
        });
    }
    Ok((points, lmax, Some(start.alpha)))
}

/// The points of a `sparse-kmeans` path and the bound that keeps every
/// feature.
fn sparse_path(
    problem: &Problem,
    cfg: &RunConfig,
    grid: &Grid,
    rng: &mut Rng,
    ctx: &Ctx,
) -> Result<(Vec<PathPoint>, f64, Option<f64>)> {
    let k = cfg.k;
    let sp = SparseKMeans.typed(problem, cfg)?;
    let x = Points::of(problem);
    let sw = problem.sample_weights();
    let labels0 = kmeans_partition(
        x,
        sw,
        k,
        sp.values.nstart,
        cfg.init,
        cfg.centres.as_deref(),
        rng,
        ctx,
        Some(&StageCounter::new(
            ctx,
            "sparse-kmeans: initial k-means runs",
            sp.values.nstart,
        )),
    )?;
    let tss = total_ss(x, sw);
    let (z, _) = cluster_means(x, sw, &labels0, k, None);
    let wcss = dispersions(x, sw, &labels0, z.view());
    let a: Vec<f64> = tss
        .iter()
        .zip(&wcss)
        .map(|(&t, &w)| (t - w).max(0.0))
        .collect();
    let n2 = a.iter().map(|v| v * v).sum::<f64>().sqrt();
    let dense = if n2 > 0.0 {
        (a.iter().sum::<f64>() / n2).max(1.1)
    } else {
        1.1
    };
    let values = match grid {
        Grid::Values(v) => v.clone(),
        Grid::Auto { count, .. } => log_space(1.1, dense, *count),
    };
    if let Some(bad) = values.iter().find(|&&v| v < 1.0) {
        return Err(Error::param(format!(
            "wbound = {bad} is out of range: the sparse k-means bound must be at least 1"
        )));
    }
    let mut labels = labels0.clone();
    let mut points = Vec::with_capacity(values.len());
    for (i, &b) in values.iter().enumerate() {
        ctx.stage("regularisation path", i as f64 / values.len() as f64);
        let pctx = ctx.for_restart(i);
        let st = SparseSettings {
            wbound: b,
            tol: sp.values.tol,
            max_iter: sp.values.max_iter,
        };
        let mut f = sparse_loop(x, sw, &tss, labels.clone(), k, &st, &pctx, false)?;
        if i > 0 {
            // Also from the shared initial partition; keep the
            // larger criterion.
            let cold = sparse_loop(x, sw, &tss, labels0.clone(), k, &st, &pctx, true)?;
            if cold.criterion > f.criterion {
                f = cold;
            }
        }
        labels = f.labels.clone();
        points.push(PathPoint {
            lambda: b,
            selected: f.weights.iter().filter(|&&v| v > 0.0).count(),
            feature_weights: f.weights,
            objective: 0.0 - f.criterion,
            labels: f.labels,
            iterations: f.iterations,
            converged: f.converged,
        });
    }
    Ok((points, dense, None))
}
