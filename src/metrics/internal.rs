//! Label-free scores of a partition of the data it was computed on: the
//! k-means cost (within-cluster sum of squares), silhouette,
//! Calinski–Harabasz and Davies–Bouldin, as scikit-learn defines them
//! (`silhouette_score`, `calinski_harabasz_score`, `davies_bouldin_score`).
//!
//! Every score is computed in a [`Space`]: the scaled input features, or
//! the space the algorithm clustered in (a kernel's feature space, an RFF
//! map, a weighted combination), so that the k-means cost of cells with
//! different s₀ is comparable, and a kernel method is judged where it
//! drew its boundaries.
//!
//! A score that is undefined for the partition (fewer than 2 or more than
//! n − 1 non-empty clusters) is NaN, which the JSON writes as `null`.

use super::space::{Block, Space, SpaceKind, Stats};
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rayon::prelude::*;
use std::any::Any;
use std::sync::{Arc, Mutex};

/// Up to this many rows the silhouette is exact; above it, it is computed
/// on a fixed-seed sample of this many rows (as scikit-learn's
/// `sample_size`): the m×m distance matrix of 2500 rows is 50 MB.
pub const SILHOUETTE_EXACT_MAX: usize = 2500;
/// The seed of the silhouette's row sample, so a score depends only on
/// the partition.
pub const SILHOUETTE_SAMPLE_SEED: u64 = 0;

/// The label-free scores of one partition.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Internal {
    /// Within-cluster sum of squared distances to the cluster means.
    pub cost: f64,
    pub silhouette: f64,
    pub calinski_harabasz: f64,
    pub davies_bouldin: f64,
    /// Non-empty clusters.
    pub clusters: usize,
    /// Where the scores were computed.
    pub space: SpaceKind,
}

impl Internal {
    /// No scores (NaN, left out of the outputs), only the clusters.
    pub fn none(labels: &[usize]) -> Self {
        Internal {
            cost: f64::NAN,
            silhouette: f64::NAN,
            calinski_harabasz: f64::NAN,
            davies_bouldin: f64::NAN,
            clusters: dense(labels).1,
            space: SpaceKind::Features,
        }
    }
}

/// The rows a silhouette is computed on, and their pairwise distances in
/// each space block met so far: they depend on the data only, so a sweep
/// keeps them for all the runs that share a block.
pub struct SilhouetteBase {
    /// Row indices into the data (all rows, or the sorted sample).
    pub rows: Vec<usize>,
    /// Whether `rows` is a sample.
    pub sampled: bool,
    memo: Mutex<Vec<Memo>>,
}

/// One block's distances between the base's rows.
struct Memo {
    key: usize,
    dist: Arc<Array2<f64>>,
    _keep: Option<Arc<dyn Any + Send + Sync>>,
}

/// The most blocks whose distances a base keeps (50 MB each at 2500
/// rows); a space with more (a dozen kernels) computes them per run.
pub const MEMO_BLOCKS: usize = 4;

impl SilhouetteBase {
    /// All `n` rows up to `max_exact`, else a sample of `max_exact` rows
    /// drawn with `seed`.
    pub fn new(n: usize, max_exact: usize, seed: u64) -> Self {
        let (rows, sampled) = if n <= max_exact {
            ((0..n).collect(), false)
        } else {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut r = rand::seq::index::sample(&mut rng, n, max_exact).into_vec();
            r.sort_unstable();
            (r, true)
        };
        SilhouetteBase {
            rows,
            sampled,
            memo: Mutex::new(Vec::new()),
        }
    }

    /// Bytes one block's distances take for `n` rows (for memory
    /// estimates).
    pub fn bytes(n: usize, max_exact: usize) -> f64 {
        let m = n.min(max_exact) as f64;
        m * m * 8.0
    }

    /// Forgets the distances kept so far (a sweep's next group of cells
    /// has other Gram matrices and maps).
    pub fn clear(&self) {
        self.memo.lock().expect("silhouette memo").clear();
    }

    /// One block's distances between the base's rows, kept for the next
    /// run while there is room.
    fn block_dist(&self, block: &Block) -> Arc<Array2<f64>> {
        let key = block.key();
        let memo = self.memo.lock().expect("silhouette memo");
        if let Some(m) = memo.iter().find(|m| m.key == key) {
            return m.dist.clone();
        }
        drop(memo);
        let dist = Arc::new(block.sample_sq(&self.rows).mapv(f64::sqrt));
        let mut memo = self.memo.lock().expect("silhouette memo");
        if memo.len() < MEMO_BLOCKS && !memo.iter().any(|m| m.key == key) {
            memo.push(Memo {
                key,
                dist: dist.clone(),
                _keep: block.keep(),
            });
        }
        dist
    }

    /// Distances between the base's rows in `space`.
    fn dists(&self, space: &Space) -> Arc<Array2<f64>> {
        if let [(block, w)] = space.blocks.as_slice() {
            let d = self.block_dist(block);
            if *w == 1.0 {
                return d;
            }
            return Arc::new(d.mapv(|v| v * w.sqrt()));
        }
        let m = self.rows.len();
        let mut total = Array2::<f64>::zeros((m, m));
        for (block, w) in &space.blocks {
            let d = self.block_dist(block);
            ndarray::Zip::from(&mut total)
                .and(&*d)
                .for_each(|t, &v| *t += w * v * v);
        }
        total.mapv_inplace(|v| v.max(0.0).sqrt());
        Arc::new(total)
    }

    /// The mean silhouette of the base's rows under `labels` (labels of
    /// every row of the data) in `space`. NaN unless 2 ≤ clusters ≤ m − 1
    /// among the rows; a row alone in its cluster scores 0, as in
    /// scikit-learn.
    pub fn score_in(&self, space: &Space, labels: &[usize]) -> f64 {
        let sub: Vec<usize> = self.rows.iter().map(|&i| labels[i]).collect();
        let (ids, k) = dense(&sub);
        let m = ids.len();
        if k < 2 || k + 1 > m || space.is_empty() {
            return f64::NAN;
        }
        let dist = self.dists(space);
        let mut counts = vec![0usize; k];
        for &c in &ids {
            counts[c] += 1;
        }
        let per_row: Vec<f64> = (0..m)
            .into_par_iter()
            .map(|i| {
                let mut sums = vec![0.0; k];
                let row = dist.row(i);
                for (j, &d) in row.iter().enumerate() {
                    sums[ids[j]] += d;
                }
                let own = ids[i];
                if counts[own] < 2 {
                    return 0.0;
                }
                let a = sums[own] / (counts[own] - 1) as f64;
                let b = (0..k)
                    .filter(|&c| c != own && counts[c] > 0)
                    .map(|c| sums[c] / counts[c] as f64)
                    .fold(f64::INFINITY, f64::min);
                let s = (b - a) / a.max(b);
                if s.is_nan() { 0.0 } else { s }
            })
            .collect();
        per_row.iter().sum::<f64>() / m as f64
    }
}

/// Every label-free score of `labels` on the rows of `x`, the silhouette
/// on `base`'s rows. Data without features (precomputed kernels only) has
/// no such scores there: they are NaN (see [`internal_in`]).
pub fn internal(x: ArrayView2<f64>, labels: &[usize], base: &SilhouetteBase) -> Internal {
    internal_in(&Space::features(x), labels, base)
}

/// Every label-free score of `labels` in `space` (the space the algorithm
/// clustered in), the silhouette on `base`'s rows. An empty space gives
/// NaN scores, which the outputs leave out.
pub fn internal_in(space: &Space, labels: &[usize], base: &SilhouetteBase) -> Internal {
    let (ids, k) = dense(labels);
    let n = labels.len();
    let mut counts = vec![0usize; k];
    for &c in &ids {
        counts[c] += 1;
    }
    let nan = Internal {
        space: space.kind,
        ..Internal::none(labels)
    };
    if space.is_empty() || space.n() != n {
        return nan;
    }
    let mut stats = Stats::zeros(n, k);
    for (block, w) in &space.blocks {
        stats.add(&block.stats(&ids, &counts), *w);
    }
    let g = Groups {
        n,
        ids: &ids,
        counts: &counts,
        stats: &stats,
    };
    Internal {
        cost: g.wcss(),
        silhouette: base.score_in(space, labels),
        calinski_harabasz: g.calinski_harabasz(),
        davies_bouldin: g.davies_bouldin(),
        ..nan
    }
}

/// The label-free scores of a finished run in the space it clustered in
/// ([`crate::solver::Algorithm::space`]); in the scaled input features
/// should that space be unavailable (its Gram matrix no longer cached and
/// above the memory budget to build again).
pub fn of_run(
    algo: &dyn crate::solver::Algorithm,
    problem: &crate::solver::Problem,
    cfg: &crate::solver::RunConfig,
    fit: &crate::solver::Fit,
    base: &SilhouetteBase,
) -> Internal {
    // f32 rows are read as stored (per block), never widened whole.
    let x = problem.x.rows();
    let space = match algo.space(problem, cfg, fit, &crate::solver::Ctx::new()) {
        Ok(blocks) => Space::from_blocks(x, blocks),
        Err(_) => Space::features(x),
    };
    internal_in(&space, &fit.labels, base)
}

/// A base for `n` rows with the defaults every output uses.
pub fn default_base(n: usize) -> SilhouetteBase {
    SilhouetteBase::new(n, SILHOUETTE_EXACT_MAX, SILHOUETTE_SAMPLE_SEED)
}

fn features_only(x: ArrayView2<f64>, labels: &[usize]) -> Internal {
    internal(x, labels, &SilhouetteBase::new(0, 0, 0))
}

/// Calinski–Harabasz index (variance ratio criterion).
pub fn calinski_harabasz(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    features_only(x, labels).calinski_harabasz
}

/// Davies–Bouldin index (lower is better).
pub fn davies_bouldin(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    features_only(x, labels).davies_bouldin
}

/// The k-means cost: Σ_i ‖x_i − mean of its cluster‖².
pub fn wcss(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    features_only(x, labels).cost
}

/// Silhouette on every row (exact, O(n²) memory).
pub fn silhouette(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    SilhouetteBase::new(x.nrows(), usize::MAX, 0).score_in(&Space::features(x), labels)
}

/// Maps ids to dense 0..k in order of first appearance.
fn dense(labels: &[usize]) -> (Vec<usize>, usize) {
    let mut map = std::collections::HashMap::new();
    let ids = labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect();
    (ids, map.len())
}

/// The non-empty clusters of a partition and the space's quantities.
struct Groups<'a> {
    n: usize,
    ids: &'a [usize],
    counts: &'a [usize],
    stats: &'a Stats,
}

impl Groups<'_> {
    fn wcss(&self) -> f64 {
        self.stats.own_sq.iter().sum()
    }

    fn k(&self) -> usize {
        self.counts.len()
    }

    fn defined(&self) -> bool {
        self.k() >= 2 && self.k() < self.n
    }

    fn calinski_harabasz(&self) -> f64 {
        if !self.defined() {
            return f64::NAN;
        }
        let between: f64 = (0..self.k())
            .map(|c| self.counts[c] as f64 * self.stats.to_mean_sq[c])
            .sum();
        let k = self.k() as f64;
        let wcss = self.wcss();
        if wcss == 0.0 {
            return 1.0;
        }
        between * (self.n as f64 - k) / (wcss * (k - 1.0))
    }

    fn davies_bouldin(&self) -> f64 {
        if !self.defined() {
            return f64::NAN;
        }
        let k = self.k();
        let mut spread = vec![0.0; k];
        for (&c, &d2) in self.ids.iter().zip(&self.stats.own_sq) {
            spread[c] += d2.sqrt();
        }
        let intra: Vec<f64> = (0..k).map(|c| spread[c] / self.counts[c] as f64).collect();
        let between = |a: usize, b: usize| -> f64 { self.stats.centre_sq[[a, b]].sqrt() };
        let close = |v: f64| v.abs() <= 1e-8;
        let all_centres_equal = (0..k).all(|a| (0..k).all(|b| close(between(a, b))));
        if intra.iter().all(|&s| close(s)) || all_centres_equal {
            return 0.0;
        }
        let mut total = 0.0;
        for a in 0..k {
            let worst = (0..k)
                .filter(|&b| b != a)
                .map(|b| {
                    let d = between(a, b);
                    if d == 0.0 {
                        0.0
                    } else {
                        (intra[a] + intra[b]) / d
                    }
                })
                .fold(f64::NEG_INFINITY, f64::max);
            total += worst;
        }
        total / k as f64
    }
}
