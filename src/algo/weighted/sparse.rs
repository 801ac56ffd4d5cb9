//! Sparse k-means (Witten & Tibshirani, JASA 105(490), 2010), following the
//! R package sparcl (`KMeansSparseCluster`, `KMeansSparseCluster.permute`).
//! Method: docs/methods/lw-kmeans.md#sparse-k-means.
//!
//! Maximises `Σ_l w_l·BCSS_l` subject to `‖w‖₂ ≤ 1`, `‖w‖₁ ≤ s`, `w ≥ 0`
//! (BCSS_l = TSS_l − WCSS_l, the between-cluster sum of squares of feature
//! l). One start: the initial partition is the best of `nstart` k-means
//! runs; `w = 1/√p`; then up to `max_iter` times (sparcl: 6): (a) from the
//! second iteration on, k-means on the weighted data `x_l·√w_l` warm-started
//! from the current cluster means (an empty cluster moves to the farthest
//! point instead of sparcl's fallback to 10 random starts); (b)
//! `w = S(a, Δ)/‖S(a, Δ)‖₂` with `a` the BCSS and S the soft threshold, Δ = 0
//! if that already satisfies the L1 bound, else found by bisection; stop
//! when `Σ|w − w_old| / Σ|w_old| ≤ tol` (sparcl: 1e-4).
//!
//! Deviation from sparcl's `BinarySearch` (15 halvings, returns the
//! midpoint, which can break the bound slightly): we halve to a relative
//! width of 1e-12 and keep the end that satisfies the bound, so
//! `‖w‖₁ ≤ s` always holds; when features tie at the top so that no soft
//! threshold meets the bound, the weights go to ⌊s²⌋ + 1 of the tied
//! features with `‖w‖₁ = s` (an optimum there too).
//!
//! The objective reported is `−Σ_l w_l·BCSS_l` (lower is better, as for
//! every algorithm here). The default bound is half the bound b at which
//! the L1 constraint stops binding (`default_wbound`); a bound at or above
//! b selects nothing and the run says so. `--tune gap` chooses s by the
//! permutation gap statistic (sparcl's `KMeansSparseCluster.permute`: 10
//! bounds log-spaced from 1.2, to 0.9·b here where sparcl goes to 0.9·√p
//! (see `gap_grid`), 25 permuted data sets, each column permuted
//! independently; `Gap(s) = log O(s) − mean_b log O_b(s)`, the
//! bound with the largest gap wins). `--tune gap-1sd` takes instead the
//! smallest bound whose gap is within one standard deviation of
//! `log O_b(s)` of the largest, the alternative Witten & Tibshirani give:
//! on well-separated data the gap rises until the informative features are
//! in and then stays flat, and the largest gap then sits at the flat end,
//! where every feature keeps a (tiny) weight.

use super::common::{
    StageCounter, cluster_means, dispersions, kmeans_partition, lloyd_weighted, nstart_spec,
    total_ss,
};
use super::points::Points;
use crate::error::{Error, Result};
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::lloyd::{mean_variance, weighted_lloyd_loop};
use crate::solver::params::{Default, ParamSpec, Scale, declare_params, fmt_num};
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Common, Ctx, Fit, Gap, Init, Problem, Rng, RunConfig, Solver, Start, StartMemory, TracePoint,
    init,
};
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::sync::Arc;

/// Soft threshold `max(a − Δ, 0)` of non-negative values.
fn soft(a: &[f64], delta: f64) -> Vec<f64> {
    a.iter().map(|&v| (v - delta).max(0.0)).collect()
}

fn l1(v: &[f64]) -> f64 {
    v.iter().map(|x| x.abs()).sum()
}

fn l2(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The weight update: `w = S(a, Δ)/‖S(a, Δ)‖₂` with the smallest Δ ≥ 0 such
/// that `‖w‖₁ ≤ s` (a ≥ 0: negative BCSS from rounding count as 0). All-zero
/// `a` (no feature separates the clusters) gives uniform weights.
pub fn update_weights(a: &[f64], s: f64) -> Vec<f64> {
    let a: Vec<f64> = a.iter().map(|&v| v.max(0.0)).collect();
    let p = a.len();
    let norm = l2(&a);
    if p == 0 {
        return Vec::new();
    }
    if norm == 0.0 || !norm.is_finite() {
        return vec![1.0 / (p as f64).sqrt(); p];
    }
    let ratio = |d: f64| {
        let w = soft(&a, d);
        let n = l2(&w);
        if n > 0.0 { l1(&w) / n } else { 1.0 }
    };
    if l1(&a) / norm <= s {
        return a.iter().map(|v| v / norm).collect();
    }
    let top = a.iter().copied().fold(0.0, f64::max);
    // Values within rounding of the largest count as tied with it (with one
    // point per cluster every standardised feature has BCSS = n − 1, up to
    // rounding). Just below the tie only the tied features survive.
    let tie = top - top * 1e-12;
    let tied = a.iter().filter(|&&v| v >= tie).count();
    let second = a.iter().copied().filter(|&v| v < tie).fold(0.0, f64::max);
    let mut hi = top - (top - second) * 1e-6;
    if hi >= tie {
        // The gap is below rounding of `top`: start at the next value.
        hi = second;
    }
    if (tied as f64).sqrt() > s {
        // t features tie at the top and equal weights on all of them break
        // the bound (√t > s). Any unit vector on the tie with ‖w‖₁ = s is
        // optimal: m = ⌊s²⌋ features at u and one at v, where
        // m·u² + v² = 1 and m·u + v = s (m + 1 ≤ t since s² < t).
        let m = (s * s).floor().max(1.0);
        let disc = (m * (m + 1.0 - s * s)).max(0.0);
        let u = (s * m + disc.sqrt()) / (m * (m + 1.0));
        let v = (s - m * u).max(0.0);
        let mut w = vec![0.0; p];
        for (i, l) in (0..p)
            .filter(|&l| a[l] >= tie)
            .take(m as usize + 1)
            .enumerate()
        {
            w[l] = if i < m as usize { u } else { v };
        }
        let c = l2(&w);
        return w.iter().map(|x| x / c).collect();
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        if hi - lo <= 1e-12 * top {
            break;
        }
        let mid = 0.5 * (lo + hi);
        if ratio(mid) <= s {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let w = soft(&a, hi);
    let n = l2(&w);
    w.iter().map(|v| v / n).collect()
}

/// The bound at and above which the L1 constraint stops binding for the
/// per-feature BCSS `a`: `‖a⁺‖₁/‖a⁺‖₂` (√p when every feature separates
/// the clusters equally). Below it the soft threshold drops features; at
/// or above it every feature with a positive BCSS keeps a weight. `None`
/// when no feature separates the clusters (every BCSS is 0).
pub fn binding_bound(a: &[f64]) -> Option<f64> {
    let pos: Vec<f64> = a.iter().map(|&v| v.max(0.0)).collect();
    let n2 = l2(&pos);
    (n2 > 0.0 && n2.is_finite()).then(|| l1(&pos) / n2)
}

/// BCSS per feature of a partition of `x`.
/// BCSS per feature of a partition of `x`, rows weighted by `sw`.
pub fn partition_bcss<'a>(
    x: impl Into<Points<'a>>,
    sw: Option<&[f64]>,
    labels: &[usize],
    k: usize,
) -> Vec<f64> {
    let x = x.into();
    bcss(x, sw, &total_ss(x, sw), labels, k).0
}

/// Settings of the sparse k-means iterations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparseSettings {
    pub wbound: f64,
    pub tol: f64,
    pub max_iter: usize,
}

/// The outcome of the iterations from one partition.
#[derive(Debug, Clone)]
pub struct SparseFit {
    pub labels: Vec<usize>,
    pub centres: Array2<f64>,
    pub weights: Vec<f64>,
    /// BCSS per feature at the final partition.
    pub bcss: Vec<f64>,
    /// `Σ_l w_l·BCSS_l` (maximised).
    pub criterion: f64,
    pub trace: Vec<TracePoint>,
    pub iterations: usize,
    pub converged: bool,
}

/// BCSS per feature of a partition, and its means (rows weighted by
/// `sw`; `tss` weighted alike).
fn bcss(
    x: Points,
    sw: Option<&[f64]>,
    tss: &[f64],
    labels: &[usize],
    k: usize,
) -> (Vec<f64>, Array2<f64>) {
    let (z, _) = cluster_means(x, sw, labels, k, None);
    let wcss = dispersions(x, sw, labels, z.view());
    let a = tss
        .iter()
        .zip(&wcss)
        .map(|(&t, &w)| (t - w).max(0.0))
        .collect();
    (a, z)
}

/// sparcl's `KMeansSparseCluster` loop for one bound from `labels`, rows
/// weighted by the sample weights `sw` (None: all 1; `tss` from
/// [`total_ss`] with the same weights).
#[allow(clippy::too_many_arguments)]
pub fn sparse_loop<'x>(
    x: impl Into<Points<'x>>,
    sw: Option<&[f64]>,
    tss: &[f64],
    labels: Vec<usize>,
    k: usize,
    s: &SparseSettings,
    ctx: &Ctx,
    quiet: bool,
) -> Result<SparseFit> {
    if !(s.wbound.is_finite() && s.wbound >= 1.0) {
        return Err(Error::param(format!(
            "wbound = {} is out of range: must be at least 1",
            s.wbound
        )));
    }
    let x = x.into();
    let p = x.ncols();
    let mut step = SparseStep {
        x,
        sw,
        tss,
        k,
        wbound: s.wbound,
        tol: s.tol,
        labels,
        w: vec![1.0 / (p as f64).sqrt(); p],
        last: (Vec::new(), Array2::zeros((k, p)), 0.0),
        ctx,
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter: s.max_iter.max(1),
        k,
        events: !quiet,
    };
    let fit = iterate(&mut step, how, ctx)?;
    let (a, z, crit) = step.last;
    Ok(SparseFit {
        labels: fit.labels,
        centres: z,
        weights: step.w,
        bcss: a,
        criterion: crit,
        iterations: fit.iterations,
        trace: fit.trace,
        converged: fit.converged,
    })
}

/// One sparcl iteration: the weights of the current partition's BCSS
/// (soft threshold to the L1 bound); the next partition is k-means on the
/// weighted data, warm-started from the current means.
struct SparseStep<'a, 'x> {
    x: Points<'x>,
    sw: Option<&'a [f64]>,
    tss: &'a [f64],
    k: usize,
    wbound: f64,
    tol: f64,
    labels: Vec<usize>,
    w: Vec<f64>,
    /// BCSS, means and criterion of the last evaluation.
    last: (Vec<f64>, Array2<f64>, f64),
    ctx: &'a Ctx,
}

impl Step for SparseStep<'_, '_> {
    fn eval(&mut self, _it: Iteration) -> Result<Eval> {
        let (a, z) = bcss(self.x, self.sw, self.tss, &self.labels, self.k);
        let w_old = std::mem::replace(&mut self.w, update_weights(&a, self.wbound));
        // `+ 0.0` keeps a zero criterion from printing as −0.
        let crit: f64 = self.w.iter().zip(&a).map(|(w, a)| w * a).sum::<f64>() + 0.0;
        self.last = (a, z, crit);
        let change: f64 = self.w.iter().zip(&w_old).map(|(a, b)| (a - b).abs()).sum();
        let settled = change <= self.tol * l1(&w_old);
        Ok(Eval::new(0.0 - crit, self.labels.clone(), settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let (z, _) = cluster_means(self.x, self.sw, &self.labels, self.k, None);
        let (next, _) = lloyd_weighted(self.x, self.sw, &self.w, z, 0.0, 100, self.ctx)?;
        self.labels = next;
        Ok(())
    }

    fn feature_weights(&self) -> Option<Vec<f64>> {
        Some(self.w.clone())
    }
}

/// The grid of bounds: `nvals` log-spaced from 1.2 to 0.9·min(√p, b),
/// b the binding bound of the real data's initial partition. sparcl's grid
/// ends at 0.9·√p, but on real data the L1 constraint stops binding far
/// below √p (leukemia: b ≈ 41 standardised, 19 unscaled, √p = 60): the
/// top bounds then all keep every feature, their criterion equals the
/// largest possible, and the largest gap sat at that all-features end on
/// every real data set tried. Ending below b keeps every grid point a
/// selection.
pub fn gap_grid(p: usize, binding: f64, nvals: usize) -> Result<Vec<f64>> {
    let top = 0.9 * (p as f64).sqrt().min(binding);
    if top <= 1.2 {
        return Err(Error::param(format!(
            "--tune gap: the L1 bound stops binding at s = {} on this data (p = {p}), so there is no range of bounds to choose from; set -P wbound instead",
            fmt_num(binding.min((p as f64).sqrt()))
        )));
    }
    Ok(log_space(1.2, top, nvals))
}

/// `count` values log-spaced from `a` to `b` (both > 0), ends included.
pub fn log_space(a: f64, b: f64, count: usize) -> Vec<f64> {
    if count <= 1 {
        return vec![a];
    }
    let (la, lb) = (a.ln(), b.ln());
    (0..count)
        .map(|i| {
            if i == 0 {
                a
            } else if i == count - 1 {
                b
            } else {
                (la + (lb - la) * i as f64 / (count - 1) as f64).exp()
            }
        })
        .collect()
}

/// `Σ w·BCSS` at every bound of `grid`, each from the same initial
/// partition `labels`.
fn criteria(
    x: ArrayView2<f64>,
    k: usize,
    labels: &[usize],
    s: &SparseSettings,
    grid: &[f64],
    ctx: &Ctx,
) -> Result<Vec<(f64, usize)>> {
    let tss = total_ss(x, None);
    grid.iter()
        .map(|&b| {
            let st = SparseSettings { wbound: b, ..*s };
            let f = sparse_loop(x, None, &tss, labels.to_vec(), k, &st, ctx, true)?;
            let nz = f.weights.iter().filter(|&&w| w > 0.0).count();
            Ok((f.criterion, nz))
        })
        .collect()
}

/// The permutation gap statistic. Deterministic in `seed`: data set b (0 =
/// the real one) uses its own stream, whatever the thread count.
#[allow(clippy::too_many_arguments)]
pub fn gap_statistic(
    x: ArrayView2<f64>,
    k: usize,
    nstart: usize,
    s: &SparseSettings,
    nperms: usize,
    nvals: usize,
    seed: u64,
    ctx: &Ctx,
) -> Result<Gap> {
    let stream = |b: usize| {
        let mut rng = Rng::seed_from_u64(seed);
        rng.set_stream(b as u64 + 1);
        rng
    };
    let total = nperms + 1;
    // Progress: one tick per k-means run and per data set's grid.
    let progress = StageCounter::new(ctx, "gap statistic", total * (nstart.max(1) + 1));
    // The real data first: its partition fixes the grid.
    let real = kmeans_partition(
        x,
        None,
        k,
        nstart,
        Init::KmeansPP,
        None,
        &mut stream(0),
        ctx,
        Some(&progress),
    )?;
    let binding = binding_bound(&partition_bcss(x, None, &real, k)).unwrap_or(1.0);
    let grid = gap_grid(x.ncols(), binding, nvals)?;
    let runs: Vec<Result<Vec<(f64, usize)>>> = (0..total)
        .into_par_iter()
        .map(|b| {
            let mut rng = stream(b);
            let out = if b == 0 {
                criteria(x, k, &real, s, &grid, ctx)
            } else {
                let mut xp = x.to_owned();
                for mut col in xp.columns_mut() {
                    let mut v = col.to_vec();
                    v.shuffle(&mut rng);
                    for (e, val) in col.iter_mut().zip(v) {
                        *e = val;
                    }
                }
                let labels = kmeans_partition(
                    xp.view(),
                    None,
                    k,
                    nstart,
                    Init::KmeansPP,
                    None,
                    &mut rng,
                    ctx,
                    Some(&progress),
                )?;
                criteria(xp.view(), k, &labels, s, &grid, ctx)
            };
            progress.tick();
            out
        })
        .collect();
    let mut all = Vec::with_capacity(total);
    for r in runs {
        all.push(r?);
    }
    let logs = |v: f64| -> Result<f64> {
        if v > 0.0 && v.is_finite() {
            Ok(v.ln())
        } else {
            Err(Error::param(
                "--tune gap: the clustering criterion is 0 (no feature separates the clusters); the gap statistic is undefined",
            ))
        }
    };
    let mut gaps = Vec::new();
    let mut sds = Vec::new();
    for i in 0..grid.len() {
        let real = logs(all[0][i].0)?;
        let perm: Vec<f64> = all[1..]
            .iter()
            .map(|r| logs(r[i].0))
            .collect::<Result<_>>()?;
        let m = perm.iter().sum::<f64>() / perm.len().max(1) as f64;
        let var = if perm.len() > 1 {
            perm.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (perm.len() - 1) as f64
        } else {
            0.0
        };
        gaps.push(real - m);
        sds.push(var.sqrt());
    }
    let best = (0..gaps.len()).fold(0, |b, i| if gaps[i] > gaps[b] { i } else { b });
    let one_sd = (0..gaps.len())
        .find(|&i| gaps[i] >= gaps[best] - sds[i])
        .unwrap_or(best);
    Ok(Gap {
        binding_wbound: binding,
        best_wbound: grid[best],
        one_sd_wbound: grid[one_sd],
        nonzero: all[0].iter().map(|r| r.1).collect(),
        wbounds: grid,
        gaps,
        sd: sds,
        nperms,
    })
}

pub struct SparseKMeans;

/// The rule behind the automatic bound.
pub const WBOUND_RULE: &str = "b/2, b the bound where the L1 constraint stops binding";

/// Half the binding bound of one quick k-means partition (k-means++ from
/// seed 0, then Lloyd): b/2 gives an effective number of features of
/// b²/4, a quarter of all there are (with equal BCSS, b = √p and this is
/// √p/2), and the binding bound moves by about 1% between partitions, so
/// the default binds on any of them. Cached per k. √p/2 when no feature
/// separates the clusters (k = 1).
pub fn default_wbound(problem: &Problem, k: usize) -> Result<f64> {
    let key = BindingKey(format!("sparse-kmeans:binding:k={k}"));
    let b = problem.cached(&key, || {
        let mut rng = Rng::seed_from_u64(0);
        let sw = problem.sample_weights();
        if let Some(x) = problem.csr() {
            // CSR rows: the same few Lloyd steps, on the nonzeros.
            let x = Points::Sparse(x);
            let seeds = x.seeds(&problem.x_norms, sw, k, Init::KmeansPP, &mut rng)?;
            let tol = 1e-4 * x.mean_variance();
            let ones = vec![1.0; x.ncols()];
            let c = x.select(&seeds);
            let (labels, _) = lloyd_weighted(x, sw, &ones, c, tol, 10, &Ctx::new())?;
            return Ok(binding_bound(&partition_bcss(x, sw, &labels, k)));
        }
        let x64 = problem.x.f64();
        let x = x64.view();
        let seeds =
            init::weighted_euclidean_seeds(x, &problem.x_norms, sw, k, Init::KmeansPP, &mut rng)?;
        let c = x.select(ndarray::Axis(0), &seeds);
        let tol = 1e-4 * mean_variance(x);
        // A few Lloyd steps settle the partition enough for b (it moves by ~1%
        // between partitions) and keep this cheap: it runs when the parameters
        // are resolved, before any progress can be shown.
        let fit = weighted_lloyd_loop(x, &problem.x_norms, sw, c, tol, 10, true, &Ctx::new())?;
        Ok(binding_bound(&partition_bcss(x, sw, &fit.labels, k)))
    })?;
    let b = b.unwrap_or_else(|| (problem.p() as f64).sqrt());
    Ok((b / 2.0).max(1.0))
}

/// `--tune`: how the bound is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tune {
    /// `-P wbound` (or its automatic default).
    None,
    /// The bound with the largest gap statistic (sparcl's `bestw`).
    Gap,
    /// The smallest bound within one sd of the largest gap.
    GapOneSd,
}

impl Tune {
    /// Parses the text of `--tune`.
    ///
    /// # Errors
    /// [`Error::Param`] for anything but `none`, `gap` and `gap-1sd`.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "none" => Ok(Tune::None),
            "gap" => Ok(Tune::Gap),
            "gap-1sd" => Ok(Tune::GapOneSd),
            other => Err(Error::param(format!(
                "--tune {other} is not a tuning method (sparse-kmeans takes gap, gap-1sd or none)"
            ))),
        }
    }
}

declare_params! {
    /// The declared parameters of `sparse-kmeans`.
    pub struct SparseValues {
        /// The L1 bound s (ignored when `tune` chooses it).
        wbound: f64 = ParamSpec {
            name: "wbound",
            symbol: "s",
            default: Default::Auto(WBOUND_RULE),
            min: 1.0,
            max: 1e4,
            scale: Scale::Log,
            step: 1.1,
            coarse: 1.5,
            integer: false,
            help: "L1 bound s on the weights (‖w‖₁ ≤ s, ‖w‖₂ ≤ 1). It selects only below the binding bound b = ‖a‖₁/‖a‖₂ (a the per-feature between-cluster sums of squares; b ≤ √p, far below it on real data): at or above b every feature keeps a weight, and the run warns. When it binds, s² is the effective number of features (‖w‖₁/‖w‖₂)²; more weights are non-zero, most of them small. 1 keeps about one feature. Default b/2, b from a k-means partition of the data. Ignored with --tune gap or gap-1sd, which choose it.",
        },
        /// k-means runs giving the initial partition.
        nstart: usize = nstart_spec(
            20.0,
            "k-means runs (best inertia) giving the initial partition, as sparcl's nstart = 20.",
        ),
        tol: f64 = tol_spec(
            1e-4,
            "Stop when Σ|w − w_old| / Σ|w_old| ≤ tol (sparcl: 1e-4).",
        ),
        max_iter: usize = max_iter_spec(6.0),
        /// `--tune gap`: permuted data sets and bounds tried.
        nperms: usize = ParamSpec {
            name: "nperms",
            symbol: "B",
            default: Default::Fixed(25.0),
            min: 1.0,
            max: 1000.0,
            scale: Scale::Linear,
            step: 1.0,
            coarse: 5.0,
            integer: true,
            help: "--tune gap: number of permuted data sets (sparcl: 25).",
        },
        nvals: usize = ParamSpec {
            name: "nvals",
            symbol: "nvals",
            default: Default::Fixed(10.0),
            min: 1.0,
            max: 100.0,
            scale: Scale::Linear,
            step: 1.0,
            coarse: 5.0,
            integer: true,
            help: "--tune gap: number of bounds tried, log-spaced from 1.2 to 0.9 × the binding bound of the data's partition (sparcl: 10, up to 0.9·√p).",
        },
    }
}

/// The parameters of `sparse-kmeans`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparseParams {
    pub tune: Tune,
    pub values: SparseValues,
}

impl SparseParams {
    fn settings(&self, wbound: f64) -> SparseSettings {
        SparseSettings {
            wbound,
            tol: self.values.tol,
            max_iter: self.values.max_iter,
        }
    }
}

crate::solver::cache::cache_key! {
    /// Half the binding bound of a quick partition into k clusters (none
    /// when no feature separates them).
    BindingKey => Option<f64>
}

crate::solver::cache::cache_key! {
    /// The gap statistic's tuning, under the settings it ran with.
    GapKey => Gap
}

fn gap_key(run: &Common, p: &SparseParams) -> GapKey {
    GapKey(format!(
        "sparse-kmeans:gap:k={}:seed={}:nstart={}:tol={}:max_iter={}:nperms={}:nvals={}",
        run.k,
        run.seed,
        p.values.nstart,
        p.values.tol,
        p.values.max_iter,
        p.values.nperms,
        p.values.nvals
    ))
}

/// Why `--tune gap` refuses sample weights: its reference data sets
/// permute each column's values across rows, and a weighted row is many
/// rows; permuting the weighted rows is not permuting their copies, so
/// the gap would not be that of the repeated rows.
pub const GAP_NO_WEIGHTS: &str = "sparse-kmeans --tune gap does not take sample weights: its permuted reference data would shuffle weighted rows, not the rows they stand for; set -P wbound (or drop --tune)";

/// Why `--tune gap` refuses CSR rows: each permuted reference data set
/// is a dense copy of the data, which sparse input exists to avoid.
pub const GAP_NO_SPARSE: &str = "sparse-kmeans --tune gap does not take sparse rows: each of its permuted reference data sets is a dense copy of the data; set -P wbound (or drop --tune)";

fn tuned(problem: &Problem, run: &Common, p: &SparseParams, ctx: &Ctx) -> Result<Option<Arc<Gap>>> {
    if p.tune != Tune::None && problem.sample_weights().is_some() {
        return Err(Error::param(GAP_NO_WEIGHTS));
    }
    if p.tune != Tune::None && problem.csr().is_some() {
        return Err(Error::param(GAP_NO_SPARSE));
    }
    match p.tune {
        Tune::None => Ok(None),
        Tune::Gap | Tune::GapOneSd => problem
            .cached(&gap_key(run, p), || {
                gap_statistic(
                    problem.x.f64().view(),
                    run.k,
                    p.values.nstart,
                    &p.settings(1.0),
                    p.values.nperms,
                    p.values.nvals,
                    run.seed,
                    ctx,
                )
            })
            .map(Some),
    }
}

impl Solver for SparseKMeans {
    type Params = SparseParams;
    fn id(&self) -> &'static str {
        "sparse-kmeans"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            centres: true,
            sparse: true,
            ..crate::solver::Caps::new(crate::solver::Family::Weighted, "SparseKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Features
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Weighted)
    }
    fn name(&self) -> &'static str {
        "Sparse k-means (Witten & Tibshirani)"
    }
    fn summary(&self) -> &'static str {
        "Witten & Tibshirani (2010), as R's sparcl: maximises Σ w_l·BCSS_l with ‖w‖₂ ≤ 1, ‖w‖₁ ≤ s, w ≥ 0 by soft-thresholding; --tune gap picks s by the permutation gap statistic. The objective reported is −Σ w·BCSS; --tune gap-1sd takes the smallest bound within one sd of the best gap."
    }
    fn params(&self) -> Vec<ParamSpec> {
        SparseValues::specs()
    }
    fn default_scaling(&self) -> crate::data::Scaling {
        crate::data::Scaling::Standard
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        match name {
            "wbound" => default_wbound(problem, k),
            _ => Err(Error::param(format!(
                "sparse-kmeans declares no automatic default for {name}"
            ))),
        }
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("tune", "none")]
    }
    /// Weighted BCSS, means and initial k-means (not `--tune gap`, which
    /// says why).
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<SparseParams> {
        Ok(SparseParams {
            tune: Tune::parse(cfg.option("tune", "none"))?,
            values: SparseValues::read(&cfg.params)?,
        })
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &SparseParams, ctx: &Ctx) -> Result<()> {
        tuned(problem, run, p, ctx).map(|_| ())
    }
    /// The weights themselves multiply the squared differences.
    fn assign_rule(
        &self,
        _problem: &Problem,
        _cfg: &RunConfig,
        _p: &SparseParams,
        fit: &Fit,
    ) -> Result<Option<crate::solver::AssignRule>> {
        Ok(super::common::fitted_rule(fit, <[f64]>::to_vec))
    }
    fn start_memory(&self, problem: &Problem, run: &Common, p: &SparseParams) -> StartMemory {
        let m = StartMemory::feature_weighted(problem, run);
        if p.tune != Tune::None {
            // The gap statistic permutes copies of the data in parallel.
            let copies = rayon::current_num_threads().max(1) as f64;
            let data = (problem.n() * problem.p()) as f64 * 8.0;
            return m.plus(
                copies * data,
                "a permuted copy of the data per thread for --tune",
            );
        }
        m
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &SparseParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let gap = tuned(problem, run, p, ctx)?;
        let wbound = gap.as_ref().map_or(p.values.wbound, |g| {
            if p.tune == Tune::GapOneSd {
                g.one_sd_wbound
            } else {
                g.best_wbound
            }
        });
        let x = Points::of(problem);
        let mut rng = start.rng();
        let sw = problem.sample_weights();
        let labels = kmeans_partition(
            x,
            sw,
            run.k,
            p.values.nstart,
            run.init,
            run.centres.as_deref(),
            &mut rng,
            ctx,
            Some(&StageCounter::new(
                ctx,
                "sparse-kmeans: initial k-means runs",
                p.values.nstart,
            )),
        )?;
        let tss = total_ss(x, sw);
        let f = sparse_loop(x, sw, &tss, labels, run.k, &p.settings(wbound), ctx, false)?;
        let bcss = f.bcss.clone();
        let mut fit = Fit {
            labels: f.labels,
            centroids: Some(f.centres),
            objective: 0.0 - f.criterion,
            trace: f.trace,
            iterations: f.iterations,
            converged: f.converged,
            feature_weights: Some(f.weights),
            ..Fit::default()
        };
        fit.extra.wbound = Some(wbound);
        let positive = bcss.iter().filter(|&&v| v > 0.0).count();
        if let Some(b) = binding_bound(&bcss) {
            fit.extra.wbound_binding = Some(b);
            if wbound >= b && positive > 1 {
                fit.warnings.push(format!(
                    "the bound s = {} does not bind: the L1 constraint stops binding at s = {} for this partition, so all {positive} features with a positive between-cluster sum of squares keep a weight; choose -P wbound below {} to select",
                    fmt_num(wbound),
                    fmt_num(b),
                    fmt_num(b)
                ));
            }
        }
        fit.extra.gap = gap.map(|g| g.as_ref().clone());
        Ok(fit)
    }
}
