//! Label-free scores of a partition of the data it was computed on: the
//! k-means cost (within-cluster sum of squares), silhouette,
//! Calinski–Harabasz and Davies–Bouldin, as scikit-learn defines them
//! (`silhouette_score`, `calinski_harabasz_score`, `davies_bouldin_score`).
//!
//! Every score here is computed on the rows of `x` as given (the scaled
//! input features), whatever space the algorithm clustered in: a kernel
//! method's partition is judged by the same yardstick as power k-means',
//! so cells of a sweep with different parameters stay comparable.
//!
//! A score that is undefined for the partition (fewer than 2 or more than
//! n − 1 non-empty clusters) is NaN, which the JSON writes as `null`.

use crate::linalg;
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rayon::prelude::*;

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
}

/// The rows a silhouette is computed on and their pairwise distances:
/// depends on the data only, so a sweep builds it once for all its runs.
pub struct SilhouetteBase {
    /// Row indices into the data (all rows, or the sorted sample).
    pub rows: Vec<usize>,
    /// Whether `rows` is a sample.
    pub sampled: bool,
    /// m×m Euclidean distances between those rows.
    dist: Array2<f64>,
}

impl SilhouetteBase {
    /// All rows of `x` up to `max_exact`, else a sample of `max_exact`
    /// rows drawn with `seed`.
    /// Data without features (precomputed kernels) gets an empty base:
    /// [`internal`] has no scores for it, so no distances are computed.
    pub fn new(x: ArrayView2<f64>, max_exact: usize, seed: u64) -> Self {
        if x.ncols() == 0 {
            return SilhouetteBase {
                rows: Vec::new(),
                sampled: false,
                dist: ndarray::Array2::zeros((0, 0)),
            };
        }
        let n = x.nrows();
        let (rows, sampled) = if n <= max_exact {
            ((0..n).collect(), false)
        } else {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut r = rand::seq::index::sample(&mut rng, n, max_exact).into_vec();
            r.sort_unstable();
            (r, true)
        };
        let sub = x.select(ndarray::Axis(0), &rows);
        let norms = linalg::row_sq_norms(sub.view());
        let mut dist = linalg::sq_dists_with(sub.view(), &norms, sub.view(), &norms, true);
        dist.mapv_inplace(|d| d.max(0.0).sqrt());
        // The expansion ‖a‖² + ‖b‖² − 2a·b leaves rounding on the diagonal.
        for i in 0..rows.len() {
            dist[[i, i]] = 0.0;
        }
        SilhouetteBase {
            rows,
            sampled,
            dist,
        }
    }

    /// Bytes the base holds for `n` rows (for memory estimates).
    pub fn bytes(n: usize, max_exact: usize) -> f64 {
        let m = n.min(max_exact) as f64;
        m * m * 8.0
    }

    /// The mean silhouette of the base's rows under `labels` (labels of
    /// every row of the data). NaN unless 2 ≤ clusters ≤ m − 1 among the
    /// rows; a row alone in its cluster scores 0, as in scikit-learn.
    pub fn score(&self, labels: &[usize]) -> f64 {
        let sub: Vec<usize> = self.rows.iter().map(|&i| labels[i]).collect();
        let (ids, k) = dense(&sub);
        let m = ids.len();
        if k < 2 || k + 1 > m {
            return f64::NAN;
        }
        let mut counts = vec![0usize; k];
        for &c in &ids {
            counts[c] += 1;
        }
        let per_row: Vec<f64> = (0..m)
            .into_par_iter()
            .map(|i| {
                let mut sums = vec![0.0; k];
                let row = self.dist.row(i);
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

/// Every label-free score of `labels` on `x`, the silhouette from `base`.
/// Data without features (precomputed kernels only) has no such scores:
/// they are NaN, which the outputs leave out.
pub fn internal(x: ArrayView2<f64>, labels: &[usize], base: &SilhouetteBase) -> Internal {
    if x.ncols() == 0 {
        return Internal {
            cost: f64::NAN,
            silhouette: f64::NAN,
            calinski_harabasz: f64::NAN,
            davies_bouldin: f64::NAN,
            clusters: labels
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
        };
    }
    let g = Groups::new(x, labels);
    Internal {
        cost: g.wcss,
        silhouette: base.score(labels),
        calinski_harabasz: g.calinski_harabasz(),
        davies_bouldin: g.davies_bouldin(),
        clusters: g.counts.len(),
    }
}

/// Calinski–Harabasz index (variance ratio criterion).
pub fn calinski_harabasz(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    Groups::new(x, labels).calinski_harabasz()
}

/// Davies–Bouldin index (lower is better).
pub fn davies_bouldin(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    Groups::new(x, labels).davies_bouldin()
}

/// The k-means cost: Σ_i ‖x_i − mean of its cluster‖².
pub fn wcss(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    Groups::new(x, labels).wcss
}

/// Silhouette on every row (exact, O(n²) memory).
pub fn silhouette(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    SilhouetteBase::new(x, usize::MAX, 0).score(labels)
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

/// The non-empty clusters of a partition: sizes, means, and the distances
/// of the rows to their mean.
struct Groups {
    n: usize,
    counts: Vec<usize>,
    means: Array2<f64>,
    overall: Vec<f64>,
    /// ‖x_i − mean‖ summed per cluster.
    spread: Vec<f64>,
    wcss: f64,
}

impl Groups {
    fn new(x: ArrayView2<f64>, labels: &[usize]) -> Self {
        let (ids, k) = dense(labels);
        let (n, p) = x.dim();
        let mut counts = vec![0usize; k];
        let mut means = Array2::<f64>::zeros((k, p));
        for (i, &c) in ids.iter().enumerate() {
            counts[c] += 1;
            let mut m = means.row_mut(c);
            m += &x.row(i);
        }
        for c in 0..k {
            let mut m = means.row_mut(c);
            m /= counts[c] as f64;
        }
        let overall = (0..p)
            .map(|j| x.column(j).sum() / n.max(1) as f64)
            .collect();
        let mut spread = vec![0.0; k];
        let mut wcss = 0.0;
        for (i, &c) in ids.iter().enumerate() {
            let d2: f64 = x
                .row(i)
                .iter()
                .zip(means.row(c))
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            wcss += d2;
            spread[c] += d2.sqrt();
        }
        Groups {
            n,
            counts,
            means,
            overall,
            spread,
            wcss,
        }
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
            .map(|c| {
                let d2: f64 = self
                    .means
                    .row(c)
                    .iter()
                    .zip(&self.overall)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                self.counts[c] as f64 * d2
            })
            .sum();
        let k = self.k() as f64;
        if self.wcss == 0.0 {
            return 1.0;
        }
        between * (self.n as f64 - k) / (self.wcss * (k - 1.0))
    }

    fn davies_bouldin(&self) -> f64 {
        if !self.defined() {
            return f64::NAN;
        }
        let k = self.k();
        let intra: Vec<f64> = (0..k)
            .map(|c| self.spread[c] / self.counts[c] as f64)
            .collect();
        let between = |a: usize, b: usize| -> f64 {
            self.means
                .row(a)
                .iter()
                .zip(self.means.row(b))
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt()
        };
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
