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

use super::space::{Block, Sample, Space, SpaceKind, Stats, tiles};
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rayon::prelude::*;
use std::any::Any;
use std::sync::{Arc, Mutex};

/// Up to this many rows the silhouette is exact (the values of the
/// papers' tables at their sizes).
pub const SILHOUETTE_EXACT_MAX: usize = 2500;
/// Above [`SILHOUETTE_EXACT_MAX`] rows the silhouette is computed on a
/// fixed-seed sample of this many rows (as scikit-learn's `sample_size`):
/// m² distances cost m²·p, about what one k-means iteration costs on
/// 10⁵ rows at k = 10, where the 2500 rows used before cost six. Its
/// error against the exact value is within [`SILHOUETTE_SAMPLE_ERROR`]
/// on the test data.
pub const SILHOUETTE_SAMPLE_ROWS: usize = 1000;
/// The bound the tests hold the sampled silhouette to, against the exact
/// one (about four standard errors of a mean of 1000 scores of spread 0.2).
pub const SILHOUETTE_SAMPLE_ERROR: f64 = 0.025;
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

/// The rows a silhouette is computed on and, for a sweep, their pairwise
/// distances in each space block met so far: they depend on the data
/// only, so a sweep keeps them for all the runs that share a block. A
/// single run streams them in tiles of [`super::space::SAMPLE_TILE`] rows
/// instead (a few MB, where the m×m matrix of 2500 rows is 50 MB); both
/// give the same values.
pub struct SilhouetteBase {
    /// Row indices into the data (all rows, or the sorted sample).
    pub rows: Vec<usize>,
    /// Whether `rows` is a sample.
    pub sampled: bool,
    /// Whether to keep each block's distances for the next run.
    keep: bool,
    memo: Mutex<Vec<Memo>>,
}

/// One block's distances between the base's rows.
struct Memo {
    key: usize,
    dist: Arc<Array2<f64>>,
    _keep: Option<Arc<dyn Any + Send + Sync>>,
}

/// The most blocks whose distances a sweep's base keeps (50 MB each at
/// 2500 rows); a space with more (a dozen kernels) streams them per run.
pub const MEMO_BLOCKS: usize = 4;

/// Where one block's sample distances come from.
enum Source<'a> {
    /// Kept from an earlier run (distances, not squared).
    Kept(Arc<Array2<f64>>),
    Live(Sample<'a>),
}

impl Source<'_> {
    /// Distances (not squared) from the sample rows `at` to every one.
    fn tile(&self, at: std::ops::Range<usize>) -> Array2<f64> {
        match self {
            Source::Kept(d) => d.slice(ndarray::s![at, ..]).to_owned(),
            Source::Live(s) => {
                let mut d = s.sq_tile(at);
                d.mapv_inplace(f64::sqrt);
                d
            }
        }
    }
}

impl SilhouetteBase {
    /// All `n` rows up to `max_exact`, else a sample of `max_exact` rows
    /// drawn with `seed`.
    pub fn new(n: usize, max_exact: usize, seed: u64) -> Self {
        Self::sized(n, max_exact, max_exact, seed)
    }

    /// All `n` rows up to `max_exact`, else a sample of `sample` rows
    /// (at most n) drawn with `seed`.
    pub fn sized(n: usize, max_exact: usize, sample: usize, seed: u64) -> Self {
        let (rows, sampled) = if n <= max_exact || sample >= n {
            ((0..n).collect(), false)
        } else {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut r = rand::seq::index::sample(&mut rng, n, sample).into_vec();
            r.sort_unstable();
            (r, true)
        };
        SilhouetteBase {
            rows,
            sampled,
            keep: false,
            memo: Mutex::new(Vec::new()),
        }
    }

    /// The same base keeping the distances of up to [`MEMO_BLOCKS`]
    /// blocks for the runs after (a sweep's runs share them).
    pub fn keeping(mut self) -> Self {
        self.keep = true;
        self
    }

    /// Bytes one block's kept distances take with the defaults' rows for
    /// `n` (for memory estimates).
    pub fn bytes(n: usize) -> f64 {
        let m = default_rows(n) as f64;
        m * m * 8.0
    }

    /// Forgets the distances kept so far (a sweep's next group of cells
    /// has other Gram matrices and maps).
    pub fn clear(&self) {
        self.memo.lock().expect("silhouette memo").clear();
    }

    /// One block's distances between the base's rows: kept ones, else
    /// computed whole and kept while there is room (a keeping base), else
    /// streamed.
    fn source<'b>(&'b self, block: &'b Block) -> Source<'b> {
        let key = block.key();
        let memo = self.memo.lock().expect("silhouette memo");
        if let Some(m) = memo.iter().find(|m| m.key == key) {
            return Source::Kept(m.dist.clone());
        }
        let room = self.keep && memo.len() < MEMO_BLOCKS;
        drop(memo);
        let sample = block.sample(&self.rows);
        if !room {
            return Source::Live(sample);
        }
        let mut d = sample.sq_all();
        d.mapv_inplace(f64::sqrt);
        let dist = Arc::new(d);
        let mut memo = self.memo.lock().expect("silhouette memo");
        if memo.len() < MEMO_BLOCKS && !memo.iter().any(|m| m.key == key) {
            memo.push(Memo {
                key,
                dist: dist.clone(),
                _keep: block.keep(),
            });
        }
        Source::Kept(dist)
    }

    /// Distances from the base's rows `at` to all of them in the space of
    /// `blocks`: d² = Σ_b w_b d_b².
    fn tile(blocks: &[(Source, f64)], at: std::ops::Range<usize>) -> Array2<f64> {
        if let [(src, w)] = blocks {
            let mut d = src.tile(at);
            if *w != 1.0 {
                d.mapv_inplace(|v| v * w.sqrt());
            }
            return d;
        }
        let mut total = Array2::<f64>::zeros((at.len(), 0));
        for (src, w) in blocks {
            let d = src.tile(at.clone());
            if total.ncols() == 0 {
                total = Array2::zeros(d.dim());
            }
            ndarray::Zip::from(&mut total)
                .and(&d)
                .for_each(|t, &v| *t += w * v * v);
        }
        total.mapv_inplace(|v| v.max(0.0).sqrt());
        total
    }

    /// The mean silhouette of the base's rows under `labels` (labels of
    /// every row of the data) in `space`. NaN unless 2 ≤ clusters ≤ m − 1
    /// among the rows; a row alone in its cluster scores 0, as in
    /// scikit-learn. Tiles of rows in parallel, each row's sums in column
    /// order and the rows' scores added in row order: the value does not
    /// depend on the thread count.
    pub fn score_in(&self, space: &Space, labels: &[usize]) -> f64 {
        let sub: Vec<usize> = self.rows.iter().map(|&i| labels[i]).collect();
        let (ids, k) = dense(&sub);
        let m = ids.len();
        if k < 2 || k + 1 > m || space.is_empty() {
            return f64::NAN;
        }
        let blocks: Vec<(Source, f64)> = space
            .blocks
            .iter()
            .map(|(b, w)| (self.source(b), *w))
            .collect();
        let mut counts = vec![0usize; k];
        for &c in &ids {
            counts[c] += 1;
        }
        let per_tile: Vec<Vec<f64>> = tiles(m)
            .into_par_iter()
            .map(|at| {
                let dist = Self::tile(&blocks, at.clone());
                at.zip(dist.outer_iter())
                    .map(|(i, row)| {
                        let mut sums = vec![0.0; k];
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
                    .collect()
            })
            .collect();
        per_tile.iter().flatten().sum::<f64>() / m as f64
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
    if problem.csr().is_some() {
        // The input-space scores read dense rows, which a problem on
        // sparse rows does not have (they are n × 0): left out rather than
        // made up. A run in a space of its own (the RFF maps, dense n × 2D)
        // is scored there, as on dense rows.
        return match algo.space(problem, cfg, fit, &crate::solver::Ctx::new()) {
            Ok(blocks) if !blocks.is_empty() => {
                internal_in(&Space::from_blocks(x, blocks), &fit.labels, base)
            }
            _ => Internal::none(&fit.labels),
        };
    }
    let space = match algo.space(problem, cfg, fit, &crate::solver::Ctx::new()) {
        Ok(blocks) => Space::from_blocks(x, blocks),
        Err(_) => Space::features(x),
    };
    internal_in(&space, &fit.labels, base)
}

/// A base for `n` rows with the defaults every output uses.
pub fn default_base(n: usize) -> SilhouetteBase {
    SilhouetteBase::sized(
        n,
        SILHOUETTE_EXACT_MAX,
        SILHOUETTE_SAMPLE_ROWS,
        SILHOUETTE_SAMPLE_SEED,
    )
}

/// The rows the default silhouette is computed on for `n` rows.
pub fn default_rows(n: usize) -> usize {
    if n <= SILHOUETTE_EXACT_MAX {
        n
    } else {
        SILHOUETTE_SAMPLE_ROWS.min(n)
    }
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

/// Silhouette on every row (exact: O(n²) time, streamed in tiles).
pub fn silhouette(x: ArrayView2<f64>, labels: &[usize]) -> f64 {
    SilhouetteBase::new(x.nrows(), usize::MAX, 0).score_in(&Space::features(x), labels)
}

/// Maps ids to dense 0..k in order of first appearance: through a table
/// when the ids are small (a run's clusters 0..k), else a hash map.
fn dense(labels: &[usize]) -> (Vec<usize>, usize) {
    let top = labels.iter().copied().max().unwrap_or(0);
    if top <= labels.len().max(1024) {
        let mut table = vec![usize::MAX; top + 1];
        let mut k = 0;
        let ids = labels
            .iter()
            .map(|&l| {
                if table[l] == usize::MAX {
                    table[l] = k;
                    k += 1;
                }
                table[l]
            })
            .collect();
        return (ids, k);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Gram;
    use crate::metrics::space::Block;
    use rand_distr::{Distribution, Normal};

    /// `k` Gaussian blobs in `p` dimensions, centres `gap` apart on the
    /// axes, and their labels.
    fn blobs(n: usize, p: usize, k: usize, gap: f64, seed: u64) -> (Array2<f64>, Vec<usize>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let normal = Normal::new(0.0, 1.0).unwrap();
        let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
        let x = Array2::from_shape_fn((n, p), |(i, j)| {
            let centre = if j == labels[i] % p { gap } else { 0.0 };
            centre + normal.sample(&mut rng)
        });
        (x, labels)
    }

    fn gram_of(x: &Array2<f64>) -> Arc<Gram> {
        let k = x.dot(&x.t());
        Arc::new(Gram::from_dense(
            k.view(),
            &crate::kernel::stack::raw_spec(),
        ))
    }

    /// A single run streams the distances in tiles; a sweep keeps them
    /// whole: across several tiles, one block or two, rows or a Gram
    /// matrix, both give the same value to the last bit.
    #[test]
    fn streamed_and_kept_distances_give_the_same_silhouette() {
        let (x, lab) = blobs(300, 4, 3, 2.0, 1);
        let (y, _) = blobs(300, 3, 3, 1.0, 2);
        let g = gram_of(&y);
        let spaces = [
            Space::features(x.view()),
            Space {
                kind: SpaceKind::Kernel,
                blocks: vec![(Block::Gram(g.clone()), 0.5)],
            },
            Space {
                kind: SpaceKind::Kernel,
                blocks: vec![(Block::Rows(x.view().into()), 0.3), (Block::Gram(g), 2.0)],
            },
        ];
        for (s, space) in spaces.iter().enumerate() {
            let streamed = SilhouetteBase::new(300, 1000, 0).score_in(space, &lab);
            let keeping = SilhouetteBase::new(300, 1000, 0).keeping();
            let first = keeping.score_in(space, &lab);
            let again = keeping.score_in(space, &lab);
            assert!(
                streamed.is_finite() && streamed > 0.0,
                "space {s}: {streamed}"
            );
            assert_eq!(streamed.to_bits(), first.to_bits(), "space {s}");
            assert_eq!(first.to_bits(), again.to_bits(), "space {s}");
        }
    }

    /// The scores of a partition above one chunk of sums and with a
    /// sampled silhouette are the same on one thread and on three.
    #[test]
    fn scores_do_not_depend_on_the_thread_count() {
        let (x, lab) = blobs(9000, 4, 4, 2.5, 3);
        let score = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| internal(x.view(), &lab, &default_base(9000)))
        };
        let one = score(1);
        assert!(one.silhouette.is_finite() && one.davies_bouldin.is_finite());
        assert_eq!(one, score(3));
    }

    /// The sampled silhouette (1000 rows) against the exact one (every
    /// row) on separated, overlapping and structureless data: within
    /// [`SILHOUETTE_SAMPLE_ERROR`].
    #[test]
    fn the_sampled_silhouette_is_within_its_bound_of_the_exact_one() {
        let n = 6000;
        let (sep, sep_lab) = blobs(n, 5, 3, 6.0, 4);
        let (over, over_lab) = blobs(n, 5, 5, 1.5, 5);
        let (noise, _) = blobs(n, 3, 1, 0.0, 6);
        // Quadrants of structureless data: a poor partition, s near 0.
        let quad: Vec<usize> = noise
            .outer_iter()
            .map(|r| usize::from(r[0] > 0.0) * 2 + usize::from(r[1] > 0.0))
            .collect();
        let base = default_base(n);
        assert!(base.sampled);
        assert_eq!(base.rows.len(), SILHOUETTE_SAMPLE_ROWS);
        for (what, x, lab) in [
            ("separated", &sep, &sep_lab),
            ("overlapping", &over, &over_lab),
            ("quadrants", &noise, &quad),
        ] {
            let exact = silhouette(x.view(), lab);
            let sampled = base.score_in(&Space::features(x.view()), lab);
            let err = (sampled - exact).abs();
            assert!(
                err <= SILHOUETTE_SAMPLE_ERROR,
                "{what}: sampled {sampled} vs exact {exact}"
            );
            eprintln!("{what}: exact {exact:.4}, sampled {sampled:.4}, error {err:.4}");
        }
    }

    /// Small ids go through a table, large ones through a hash map: the
    /// same dense ids in order of first appearance.
    #[test]
    fn dense_ids_follow_first_appearance_on_both_paths() {
        assert_eq!(dense(&[7, 2, 7, 0]), (vec![0, 1, 0, 2], 3));
        let big = usize::MAX - 1;
        assert_eq!(dense(&[big, 5, big, 9]), (vec![0, 1, 0, 2], 3));
        assert_eq!(dense(&[]), (vec![], 0));
    }

    /// Up to [`SILHOUETTE_EXACT_MAX`] rows the default is every row.
    #[test]
    fn small_data_scores_every_row() {
        let base = default_base(SILHOUETTE_EXACT_MAX);
        assert!(!base.sampled);
        assert_eq!(base.rows.len(), SILHOUETTE_EXACT_MAX);
        let (x, lab) = blobs(500, 3, 3, 3.0, 7);
        let got = default_base(500).score_in(&Space::features(x.view()), &lab);
        assert_eq!(got.to_bits(), silhouette(x.view(), &lab).to_bits());
        assert_eq!(default_rows(10_000), SILHOUETTE_SAMPLE_ROWS);
    }
}
