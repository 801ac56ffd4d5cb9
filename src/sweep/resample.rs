//! Label-free scores that resample the data, so they judge the clustering
//! and not the seeding (seeds on the same rows tend to land in the same
//! partition, which is why the seeds' `stability` is 1 almost everywhere):
//!
//! - prediction strength (Tibshirani & Walther 2005, as R's
//!   `fpc::prediction.strength`): the rows are split in two halves, each is
//!   clustered, each half's rows are assigned by the other half's clusters;
//!   for every cluster of a half, the share of its pairs the other half's
//!   clusters keep together; the minimum over clusters, averaged over the
//!   two directions and over the splits;
//! - stability under resampling (Lange et al. 2004): on the same splits,
//!   the ARI between a half's own partition and the one the other half
//!   assigns it. ARI is corrected for chance, so a k with many clusters is
//!   not punished, nor k = 2 favoured, merely for the number of clusters;
//! - PAC (Monti et al. 2003; Șenbabaoğlu et al. 2014): over the 2B
//!   half-sample clusterings, the consensus of every pair of a fixed set
//!   of rows (the share of clusterings that put them together); PAC is the
//!   share of pairs whose consensus is ambiguous, in (0.1, 0.9);
//! - the gap statistic (Tibshirani, Walther & Hastie 2001, as R's
//!   `cluster::clusGap` with `spaceH0 = "scaledPCA"`): log W* of B data
//!   sets drawn uniformly in the box of the data's principal axes minus
//!   log W of the data, W the within-cluster sum of squares in the input
//!   features; its standard error sd(log W*)·√(1 + 1/B).
//!
//! Every cell uses the same B splits and the same B reference sets (drawn
//! from the sweep's seed), so cells differ by their settings only, and the
//! result does not depend on the thread count.

use super::scores::{MeanSd, RunSummary};
use crate::error::{Error, Result};
use crate::fit_scores::internal::wcss;
use crate::metrics::ari;
use crate::model::Model;
use crate::solver::{Algorithm, Ctx, Problem, Rng, RunConfig};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::seq::SliceRandom;
use rand::{Rng as _, SeedableRng};
use rayon::prelude::*;

/// Resamples per cell when a sweep has no labels and none is asked for.
pub const DEFAULT_RESAMPLES: usize = 20;
/// Rows the splits are drawn from: above it, a fixed sample of this many
/// (drawn once from the sweep's seed), so the split scores cost the same
/// on any n and every cell splits the same rows.
pub const SPLIT_ROWS: usize = 2000;
/// Rows whose pairs the consensus is computed on (79 800 pairs).
pub const CONSENSUS_ROWS: usize = 400;
/// The consensus interval PAC counts as ambiguous (Șenbabaoğlu et al.).
pub const PAC_LOW: f64 = 0.1;
pub const PAC_HIGH: f64 = 0.9;
/// The consensus CDF is kept at x = i / CDF_STEPS for i = 0..=CDF_STEPS:
/// 21 points, 0.1 and 0.9 (PAC's bounds) among them, enough to draw the
/// curves Monti et al. read k from, and small enough for every cell.
pub const CDF_STEPS: usize = 20;
/// Above this many features the gap's reference box is the features' own
/// (a p × p eigendecomposition would dominate the sweep).
const PCA_MAX_P: usize = 500;

/// How a sweep resamples: B splits and B reference sets per cell, from
/// `seed` (0 resamples: none of these scores).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resampling {
    pub count: usize,
    pub seed: u64,
    /// Whether the gap statistic is computed: only on a sweep over k, the
    /// one axis its reference sets judge.
    pub gap: bool,
}

impl Resampling {
    /// A cell's resampling in full-size runs on `n` rows, for the
    /// sweep's time estimate: two half runs per split (of at most
    /// [`SPLIT_ROWS`] rows, costed linearly in the rows) and one run per
    /// reference set.
    pub fn work(&self, n: usize) -> usize {
        if self.count == 0 || n == 0 {
            return 0;
        }
        let split_rows = n.min(SPLIT_ROWS) as f64;
        let per = split_rows / n as f64 + if self.gap { 1.0 } else { 0.0 };
        (self.count as f64 * per).ceil() as usize
    }
}

/// The resampled scores of one cell.
#[derive(Debug, Clone)]
pub struct Resampled {
    pub prediction_strength: MeanSd,
    pub stability: MeanSd,
    pub pac: f64,
    /// The consensus CDF at [`cdf_points`] (empty without a consensus).
    pub consensus_cdf: Vec<f64>,
    /// The area under the consensus CDF (NaN without a consensus).
    pub consensus_area: f64,
    /// The gap statistic and its standard error (a sweep over k only).
    pub gap: Option<(f64, f64)>,
}

impl Resampled {
    /// As named cell scores (every `sd` here is a standard error: over the
    /// splits, and the gap's over its reference sets).
    pub fn named(&self) -> Vec<(&'static str, MeanSd)> {
        let mut v = vec![
            ("prediction_strength", self.prediction_strength),
            ("resample_stability", self.stability),
            (
                "pac",
                MeanSd {
                    mean: self.pac,
                    sd: 0.0,
                },
            ),
        ];
        if let Some((mean, sd)) = self.gap {
            v.push(("gap", MeanSd { mean, sd }));
        }
        v
    }
}

/// The names [`Resampled::named`] gives, in output order.
pub const NAMES: [&str; 4] = ["prediction_strength", "resample_stability", "pac", "gap"];

/// How one half's clusters are carried to other rows: the algorithm's
/// own out-of-sample rule ([`Model::predict`]), or, for an algorithm
/// without one (spectral), the cluster of the nearest row of the half
/// (R's `fpc` offers the same for methods without centroids).
enum Transfer {
    Model(Box<Model>),
    Nearest {
        rows: Array2<f64>,
        norms: Vec<f64>,
        labels: Vec<usize>,
    },
}

/// Rows of other data compared with a half's rows at once (block × half
/// distances).
const NEAREST_BLOCK: usize = 256;

impl Transfer {
    fn of(
        algo: &dyn Algorithm,
        half: &Problem,
        cfg: &RunConfig,
        result: &crate::solver::RunResult,
    ) -> Result<Transfer> {
        if Model::supports(algo, half).is_ok() {
            return Ok(Transfer::Model(Box::new(Model::from_run(
                algo, half, cfg, result,
            )?)));
        }
        let rows = half.x.rows().f64_owned();
        Ok(Transfer::Nearest {
            norms: crate::linalg::row_sq_norms(rows.view()),
            rows,
            labels: result.best.labels.clone(),
        })
    }

    fn assign(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        match self {
            Transfer::Model(m) => m.predict(x),
            Transfer::Nearest {
                rows,
                norms,
                labels,
            } => {
                let mut out = Vec::with_capacity(x.nrows());
                for lo in (0..x.nrows()).step_by(NEAREST_BLOCK) {
                    let hi = (lo + NEAREST_BLOCK).min(x.nrows());
                    let xb = x.slice(ndarray::s![lo..hi, ..]);
                    let xn = crate::linalg::row_sq_norms(xb);
                    let d = crate::linalg::sq_dists_with(rows.view(), norms, xb, &xn, false);
                    // d is half × block: the nearest row of the half per column.
                    for j in 0..hi - lo {
                        let col = d.column(j);
                        let i = (0..col.len())
                            .min_by(|&a, &b| col[a].total_cmp(&col[b]))
                            .unwrap_or(0);
                        out.push(labels.get(i).copied().unwrap_or(0));
                    }
                }
                Ok(out)
            }
        }
    }
}

/// The seed of split or reference `b` (one stream per use).
fn stream(seed: u64, what: u64, b: usize) -> Rng {
    Rng::seed_from_u64(
        seed ^ what.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (b as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
    )
}

/// A problem on some of `problem`'s rows, in its float type, with those
/// rows' sample weights: each half is clustered as the whole run would
/// cluster its rows.
fn sub_problem(problem: &Problem, rows: &[usize]) -> Result<Problem> {
    let mut sub = from_f64(problem, problem.x.rows().select(rows));
    if let Some(w) = problem.sample_weights() {
        sub.set_sample_weights(rows.iter().map(|&i| w[i]).collect())?;
    }
    Ok(sub)
}

/// The rows a split may draw: those of weight > 0 (a row of weight 0 is
/// no row), every row without weights.
fn weighted_rows(problem: &Problem) -> Vec<usize> {
    match problem.sample_weights() {
        Some(w) => (0..problem.n()).filter(|&i| w[i] > 0.0).collect(),
        None => (0..problem.n()).collect(),
    }
}

fn from_f64(like: &Problem, x: Array2<f64>) -> Problem {
    let mut p = Problem::new(x);
    if like.dtype() == crate::data::Dtype::F32 {
        p.use_f32();
    }
    p
}

/// One run of the cell's configuration on `problem`, with resample `b`'s seed.
fn run_on(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    b: usize,
    ctx: &Ctx,
) -> Result<(RunConfig, crate::solver::RunResult)> {
    let mut c = cfg.clone();
    c.seed = cfg.seed.wrapping_add(b as u64);
    c.restarts = 1;
    let r = algo.run(problem, &c, ctx)?;
    Ok((c, r))
}

/// The prediction strength of one direction: for each cluster of the test
/// half's own partition `own` with at least two rows, the share of its
/// pairs that `assigned` (the training half's clusters) keeps together;
/// the minimum over clusters (a cluster of one row counts 1, as in fpc).
pub fn strength(own: &[usize], assigned: &[usize], k: usize) -> f64 {
    let ka = assigned.iter().copied().max().map_or(0, |m| m + 1).max(k);
    let mut table = vec![0u64; k.max(1) * ka];
    let mut sizes = vec![0u64; k.max(1)];
    for (&o, &a) in own.iter().zip(assigned) {
        if o < k {
            table[o * ka + a] += 1;
            sizes[o] += 1;
        }
    }
    let mut worst = 1.0f64;
    for j in 0..k {
        let nj = sizes[j];
        if nj < 2 {
            continue;
        }
        let together: u64 = table[j * ka..(j + 1) * ka]
            .iter()
            .map(|&c| c * c.saturating_sub(1))
            .sum();
        worst = worst.min(together as f64 / (nj * (nj - 1)) as f64);
    }
    worst
}

/// The consensus of the resampled clusterings, summarised ([`consensus`]).
#[derive(Debug, Clone)]
pub struct Consensus {
    /// The share of pairs whose consensus lies strictly inside (0.1, 0.9).
    pub pac: f64,
    /// The empirical CDF of the pairs' consensus at [`cdf_points`].
    pub cdf: Vec<f64>,
    /// The area under that CDF over [0, 1], exact (1 − the mean
    /// consensus of the pairs): Monti et al.'s summary, which grows with k
    /// until the clusters are no longer stable.
    pub area: f64,
}

/// The x of the consensus CDF's points: i / [`CDF_STEPS`].
pub fn cdf_points() -> Vec<f64> {
    (0..=CDF_STEPS)
        .map(|i| i as f64 / CDF_STEPS as f64)
        .collect()
}

/// The consensus of the pairs of rows over `labellings` (each a labelling
/// of the same rows), summarised: PAC, the share of pairs whose consensus
/// lies strictly inside (0.1, 0.9), and the empirical CDF of the pairs'
/// consensus (the share ≤ x) at [`cdf_points`], and the area under it.
/// NaN / empty without a pair.
pub fn consensus(labellings: &[Vec<usize>]) -> Consensus {
    let none = Consensus {
        pac: f64::NAN,
        cdf: Vec::new(),
        area: f64::NAN,
    };
    let Some(first) = labellings.first() else {
        return none;
    };
    let m = first.len();
    let total = labellings.len();
    // Pairs by how many labellings put them together (0..=total): the
    // PAC and every point of the CDF are read from it exactly.
    let mut by_count = vec![0u64; total + 1];
    for i in 0..m {
        for j in i + 1..m {
            by_count[labellings.iter().filter(|l| l[i] == l[j]).count()] += 1;
        }
    }
    let pairs: u64 = by_count.iter().sum();
    if pairs == 0 {
        return none;
    }
    let share = |keep: &dyn Fn(f64) -> bool| {
        let hits: u64 = by_count
            .iter()
            .enumerate()
            .filter(|&(t, _)| keep(t as f64 / total as f64))
            .map(|(_, &c)| c)
            .sum();
        hits as f64 / pairs as f64
    };
    let pac = share(&|c| c > PAC_LOW && c < PAC_HIGH);
    // Compared as integers (t · STEPS ≤ i · total), so a consensus of
    // exactly 0.1 or 0.9 falls on the side the definition puts it.
    let cdf = (0..=CDF_STEPS)
        .map(|i| {
            let hits: u64 = by_count
                .iter()
                .enumerate()
                .filter(|&(t, _)| t * CDF_STEPS <= i * total)
                .map(|(_, &c)| c)
                .sum();
            hits as f64 / pairs as f64
        })
        .collect();
    // ∫₀¹ F(x) dx = 1 − E[consensus] for a consensus in [0, 1].
    let together: u64 = by_count
        .iter()
        .enumerate()
        .map(|(t, &c)| t as u64 * c)
        .sum();
    let area = 1.0 - together as f64 / (pairs as f64 * total as f64);
    Consensus { pac, cdf, area }
}

/// The box reference sets are drawn in: the data's mean, its principal
/// axes (p × p, columns; the identity above [`PCA_MAX_P`] features) and
/// the range of the data along each. It depends on the data only, so a
/// sweep makes it once ([`RefBox::for_sweep`]) for all its cells.
pub struct RefBox {
    mean: Array1<f64>,
    axes: Array2<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl RefBox {
    /// The box of `problem`'s rows when `res` computes the gap statistic.
    ///
    /// # Errors
    /// [`Error::Resource`] when the principal axes cannot be computed.
    pub fn for_sweep(problem: &Problem, res: Resampling) -> Result<Option<RefBox>> {
        if res.count == 0 || !res.gap || problem.kernels_only() {
            return Ok(None);
        }
        RefBox::of(problem.x.f64().view()).map(Some)
    }

    fn of(x: ArrayView2<f64>) -> Result<Self> {
        let (n, p) = x.dim();
        let mean = x.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(p));
        let centred = &x - &mean;
        let axes = if p <= PCA_MAX_P && n > 1 {
            let cov = crate::linalg::dot_tn(centred.view(), centred.view());
            let a = faer::Mat::<f64>::from_fn(p, p, |i, j| cov[[i, j]]);
            let (_, u) = crate::algo::kernel::eigs::symmetric(&a, faer::Par::Seq)
                .map_err(|e| Error::Resource(format!("gap statistic: {e}")))?;
            Array2::from_shape_fn((p, p), |(i, j)| u[(i, j)])
        } else {
            Array2::eye(p)
        };
        let proj = crate::linalg::dot(centred.view(), axes.view());
        let mut lo = vec![f64::INFINITY; p];
        let mut hi = vec![f64::NEG_INFINITY; p];
        for row in proj.rows() {
            for (j, &v) in row.iter().enumerate() {
                lo[j] = lo[j].min(v);
                hi[j] = hi[j].max(v);
            }
        }
        Ok(RefBox { mean, axes, lo, hi })
    }

    /// `n` rows drawn uniformly in the box, in the data's coordinates.
    fn draw(&self, n: usize, rng: &mut Rng) -> Array2<f64> {
        let p = self.lo.len();
        let z = Array2::from_shape_fn((n, p), |(_, j)| {
            if self.hi[j] > self.lo[j] {
                rng.random_range(self.lo[j]..self.hi[j])
            } else {
                self.lo[j]
            }
        });
        crate::linalg::dot_nt(z.view(), self.axes.view()) + &self.mean
    }
}

/// The resampled scores of the cell whose runs are `runs` (with their
/// labels still kept) and whose configuration is `cfg`; the gap's
/// reference sets are drawn in `reference` when there is one.
///
/// # Errors
/// What a run on a half or a reference set fails with (cancellation
/// included).
pub fn of_cell(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    runs: &[RunSummary],
    res: Resampling,
    reference: Option<&RefBox>,
    ctx: &Ctx,
) -> Result<Resampled> {
    let nan = MeanSd {
        mean: f64::NAN,
        sd: f64::NAN,
    };
    let mut out = Resampled {
        prediction_strength: nan,
        stability: nan,
        pac: f64::NAN,
        consensus_cdf: Vec::new(),
        consensus_area: f64::NAN,
        gap: None,
    };
    let rows = weighted_rows(problem);
    if res.count == 0 || problem.kernels_only() || rows.len() < 4 * cfg.k {
        return Ok(out);
    }
    let (ps, st, cons) = splits(algo, problem, rows, cfg, res, ctx)?;
    out.prediction_strength = standard_error(ps);
    out.stability = standard_error(st);
    out.pac = cons.pac;
    out.consensus_cdf = cons.cdf;
    out.consensus_area = cons.area;
    // The gap's uniform reference sets have no weights to match the
    // data's, so a weighted run has no gap.
    if let Some(refbox) = reference.filter(|_| problem.sample_weights().is_none()) {
        out.gap = Some(gap(algo, problem, cfg, runs, res, refbox, ctx)?);
    }
    Ok(out)
}

/// One split's prediction strength, stability, and the consensus rows'
/// labels under each half's clusters.
type Split = (f64, f64, [Vec<usize>; 2]);

/// The mean of one value per split and its standard error (the sd over
/// the splits / √splits): how far apart two cells' means must be to differ.
fn standard_error(v: Vec<f64>) -> MeanSd {
    let m = v.iter().filter(|x| x.is_finite()).count().max(1) as f64;
    let s = MeanSd::of(v);
    MeanSd {
        mean: s.mean,
        sd: s.sd / m.sqrt(),
    }
}

/// Prediction strength and stability per split, and the consensus over
/// them ([`consensus`]).
/// `working` are the rows a split may draw ([`weighted_rows`]).
fn splits(
    algo: &dyn Algorithm,
    problem: &Problem,
    mut working: Vec<usize>,
    cfg: &RunConfig,
    res: Resampling,
    ctx: &Ctx,
) -> Result<(Vec<f64>, Vec<f64>, Consensus)> {
    let x = problem.x.rows();
    if working.len() > SPLIT_ROWS {
        working.shuffle(&mut stream(res.seed, 4, 0));
        working.truncate(SPLIT_ROWS);
        working.sort_unstable();
    }
    let n = working.len();
    let mut order = working.clone();
    order.shuffle(&mut stream(res.seed, 2, 0));
    let mut consensus_rows: Vec<usize> = order.into_iter().take(CONSENSUS_ROWS).collect();
    consensus_rows.sort_unstable();
    let xc = x.select(&consensus_rows);
    let per_split: Vec<Result<Option<Split>>> = (0..res.count)
        .into_par_iter()
        .map(|b| {
            let mut perm = working.clone();
            perm.shuffle(&mut stream(res.seed, 1, b));
            let (a, rest) = perm.split_at(n / 2);
            let mut halves = [a.to_vec(), rest.to_vec()];
            for h in &mut halves {
                h.sort_unstable();
            }
            let mut own = Vec::with_capacity(2);
            let mut models = Vec::with_capacity(2);
            for h in &halves {
                let sub = sub_problem(problem, h)?;
                // A half can hold fewer distinct rows than k: that split
                // says nothing, the others still do.
                let (c, r) = match run_on(algo, &sub, cfg, b, ctx) {
                    Err(Error::Data(_)) => return Ok(None),
                    other => other?,
                };
                models.push(Transfer::of(algo, &sub, &c, &r)?);
                own.push(r.best.labels);
            }
            let mut ps = 0.0;
            let mut st = 0.0;
            for t in 0..2 {
                let assigned = models[1 - t].assign(x.select(&halves[t]).view())?;
                ps += 0.5 * strength(&own[t], &assigned, cfg.k);
                st += 0.5 * ari(&own[t], &assigned);
            }
            let cons = [models[0].assign(xc.view())?, models[1].assign(xc.view())?];
            Ok(Some((ps, st, cons)))
        })
        .collect();
    let mut ps = Vec::with_capacity(res.count);
    let mut st = Vec::with_capacity(res.count);
    let mut labellings = Vec::with_capacity(2 * res.count);
    for r in per_split {
        let Some((p, s, [c0, c1])) = r? else {
            continue;
        };
        ps.push(p);
        st.push(s);
        labellings.push(c0);
        labellings.push(c1);
    }
    Ok((ps, st, consensus(&labellings)))
}

/// The gap statistic of the cell and its standard error: log W of its
/// lowest-objective run against B reference sets.
fn gap(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    runs: &[RunSummary],
    res: Resampling,
    refbox: &RefBox,
    ctx: &Ctx,
) -> Result<(f64, f64)> {
    let Some(best) = super::scores::lowest_objective(runs) else {
        return Ok((f64::NAN, f64::NAN));
    };
    let log_w = wcss(problem.x.f64().view(), &best.labels).ln();
    let n = problem.n();
    let logs: Vec<Result<f64>> = (0..res.count)
        .into_par_iter()
        .map(|b| {
            let xr = refbox.draw(n, &mut stream(res.seed, 3, b));
            let sub = from_f64(problem, xr.clone());
            let (_, r) = run_on(algo, &sub, cfg, b, ctx)?;
            Ok(wcss(xr.view(), &r.best.labels).ln())
        })
        .collect();
    let logs: Vec<f64> = logs.into_iter().collect::<Result<_>>()?;
    let spread = MeanSd::of(logs.iter().copied());
    let b = res.count as f64;
    Ok((spread.mean - log_w, spread.sd * (1.0 + 1.0 / b).sqrt()))
}

/// R's `cluster::maxSE(f, SE.f, method = "firstSEmax")`: the first k
/// whose gap is within one standard error of the first local maximum
/// (0-based index into `gap`). None when no value is finite.
pub fn first_se_max(gap: &[f64], se: &[f64]) -> Option<usize> {
    let k = gap.len();
    if k == 0 || gap.iter().all(|g| !g.is_finite()) {
        return None;
    }
    // The first local maximum: the first index whose successor is not larger.
    let nc = (0..k.saturating_sub(1))
        .find(|&i| gap[i + 1] <= gap[i])
        .unwrap_or(k - 1);
    let bar = gap[nc] - se[nc];
    Some((0..nc).find(|&i| gap[i] >= bar).unwrap_or(nc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_is_the_worst_clusters_share_of_pairs_kept() {
        // Cluster 0 (4 rows) split 3 + 1 by the other half: 6 of 12
        // ordered pairs kept; cluster 1 (3 rows) kept whole.
        let own = [0, 0, 0, 0, 1, 1, 1];
        let assigned = [2, 2, 2, 0, 1, 1, 1];
        assert!((strength(&own, &assigned, 2) - 0.5).abs() < 1e-12);
        // A cluster of one row counts 1.
        assert_eq!(strength(&[0, 1, 1], &[0, 1, 1], 2), 1.0);
    }

    #[test]
    fn pac_counts_the_ambiguous_pairs() {
        // Rows 0 and 1 always together, row 2 with them half the time.
        let l = vec![vec![0, 0, 0], vec![0, 0, 1], vec![1, 1, 1], vec![1, 1, 0]];
        // Pairs (0,1): 1.0; (0,2): 0.5; (1,2): 0.5.
        assert!((consensus(&l).pac - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_consensus_cdf_is_the_share_of_pairs_at_or_below_each_point() {
        let l = vec![vec![0, 0, 0], vec![0, 0, 1], vec![1, 1, 1], vec![1, 1, 0]];
        let Consensus { pac: p, cdf, area } = consensus(&l);
        assert_eq!(cdf.len(), CDF_STEPS + 1);
        assert_eq!(cdf_points().len(), cdf.len());
        // Consensus 0.5, 0.5 and 1: none below 0.5, two thirds up to 1.
        assert_eq!(cdf[0], 0.0);
        assert_eq!(cdf[9], 0.0);
        assert!((cdf[10] - 2.0 / 3.0).abs() < 1e-12);
        assert!((cdf[19] - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(cdf[CDF_STEPS], 1.0);
        // No consensus at exactly 0.1 or 0.9: PAC is the CDF's rise
        // between them, as Monti et al. read it.
        assert!((p - (cdf[18] - cdf[2])).abs() < 1e-12);
        // Never decreasing.
        assert!(cdf.windows(2).all(|w| w[0] <= w[1]));
        // The area under the CDF is 1 − the mean consensus: (1 − (0.5 +
        // 0.5 + 1) / 3).
        assert!((area - 1.0 / 3.0).abs() < 1e-12);
        let none = consensus(&[]);
        assert!(none.pac.is_nan() && none.cdf.is_empty() && none.area.is_nan());
    }

    #[test]
    fn the_consensus_area_is_zero_when_stable_and_grows_with_ambiguity() {
        let same = vec![vec![0, 0, 1, 1]; 4];
        assert_eq!(consensus(&same).area, 1.0 - 2.0 / 6.0);
        let together = vec![vec![0, 0, 0, 0]; 3];
        assert_eq!(consensus(&together).area, 0.0);
        let split = vec![vec![0, 1, 2, 3]; 3];
        assert_eq!(consensus(&split).area, 1.0);
    }
}
