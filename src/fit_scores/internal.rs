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
//!
//! With sample weights every score is that of the data with each row
//! repeated by its weight (exactly so for integer weights; the same
//! formulas for others): means and dispersions are weighted, n is Σw, a
//! cluster whose rows all weigh 0 is no cluster, and in the silhouette a
//! row's a(i) counts w_i − 1 copies of itself at distance 0, so
//! a(i) = Σ_{j≠i in c} w_j d_ij / (W_c − 1), b(i) = min over the other
//! clusters of Σ_j w_j d_ij / W_c', and the score is Σ w_i s(i) / Σ w_i
//! (a row of a cluster of weight ≤ 1 scores 0, as a row alone does).
//! Above [`SILHOUETTE_EXACT_MAX`] rows of weight > 0 the silhouette's
//! sample is drawn in proportion to the weights (with replacement: a
//! sample of the repeated rows), each row then counting as often as it
//! was drawn.
//!
//! Sparse (CSR) rows are scored per nonzero ([`Space::sparse`]), never
//! densified whole: they give the scores of the same matrix held dense,
//! to rounding.

use super::space::{Block, Part, Sample, Space, SpaceKind, Stats, tiles};
use crate::solver::Owner;
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rayon::prelude::*;
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
    /// Non-empty clusters (of weight > 0 with sample weights).
    pub clusters: usize,
    /// Where the scores were computed.
    pub space: SpaceKind,
    /// Whether the rows were weighed by their sample weights (the outputs
    /// say so in their own words, so it is not written per run).
    #[serde(skip)]
    pub weighted: bool,
    /// How many rows (draws, with sample weights) the silhouette's
    /// fixed-seed sample holds; None when it was computed on every row.
    #[serde(skip)]
    pub silhouette_sample: Option<usize>,
    /// The centred alignment of the kernel the run clustered in with its
    /// partition ([`Space::kernel_alignment`]): kernel runs without
    /// sample weights only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_alignment: Option<f64>,
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
            weighted: false,
            silhouette_sample: None,
            kernel_alignment: None,
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
    /// With sample weights, each of `rows`' weight in the sums: its sample
    /// weight (the rows of weight > 0, all of them), or how many times it
    /// was drawn (a sample drawn in proportion to the weights).
    pub weights: Option<Vec<f64>>,
    /// Whether to keep each block's distances for the next run.
    keep: bool,
    memo: Mutex<Vec<Memo>>,
}

/// One block's distances between the base's rows.
struct Memo {
    key: usize,
    dist: Arc<Array2<f64>>,
    _keep: Option<Arc<dyn Owner>>,
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
                sqrt_in_place(d.as_slice_mut().expect("a tile is standard layout"));
                d
            }
        }
    }
}

/// Square roots in place, in the widest lanes the CPU has: the baseline
/// build has two, and the silhouette takes a million of them per run. An
/// IEEE square root is correctly rounded in every width, so the values do
/// not depend on the CPU.
fn sqrt_in_place(v: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return unsafe { sqrt_avx512(v) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { sqrt_avx2(v) };
        }
    }
    sqrt_each(v)
}

#[inline(always)]
fn sqrt_each(v: &mut [f64]) {
    for x in v {
        *x = x.sqrt();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sqrt_avx512(v: &mut [f64]) {
    sqrt_each(v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sqrt_avx2(v: &mut [f64]) {
    sqrt_each(v)
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
            weights: None,
            keep: false,
            memo: Mutex::new(Vec::new()),
        }
    }

    /// As [`SilhouetteBase::sized`] for rows of sample weights `sw`
    /// (None: [`SilhouetteBase::sized`] itself): every row of weight > 0
    /// weighed by it while there are at most `max_exact` such rows (or
    /// at most `sample`), else `sample` draws with replacement in
    /// proportion to the weights with `seed` (a uniform sample of the
    /// rows repeated by their weights), each drawn row weighed by its
    /// number of draws.
    pub fn sized_weighted(
        n: usize,
        sw: Option<&[f64]>,
        max_exact: usize,
        sample: usize,
        seed: u64,
    ) -> Self {
        let Some(sw) = sw else {
            return Self::sized(n, max_exact, sample, seed);
        };
        assert_eq!(sw.len(), n, "one sample weight per row");
        let counted: Vec<usize> = (0..n).filter(|&i| sw[i] > 0.0).collect();
        let (rows, weights, sampled) = if counted.len() <= max_exact || sample >= counted.len() {
            let w = counted.iter().map(|&i| sw[i]).collect();
            (counted, w, false)
        } else {
            let mut cum = Vec::with_capacity(n);
            let mut acc = 0.0;
            for &w in sw {
                acc += w;
                cum.push(acc);
            }
            let last = *counted.last().expect("a row of weight > 0");
            let mut times = vec![0u32; n];
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            for _ in 0..sample {
                let u = rand::Rng::random::<f64>(&mut rng) * acc;
                // The first row whose cumulative weight passes u: never a
                // row of weight 0 (its cumulative weight is its
                // predecessor's).
                let i = cum.partition_point(|&c| c <= u);
                times[if i >= n { last } else { i }] += 1;
            }
            let rows: Vec<usize> = (0..n).filter(|&i| times[i] > 0).collect();
            let w = rows.iter().map(|&i| f64::from(times[i])).collect();
            (rows, w, true)
        };
        SilhouetteBase {
            rows,
            sampled,
            weights: Some(weights),
            keep: false,
            memo: Mutex::new(Vec::new()),
        }
    }

    /// How many rows the silhouette is the mean over: the base's rows, or
    /// the draws of a sample drawn in proportion to sample weights.
    pub fn size(&self) -> usize {
        match (&self.weights, self.sampled) {
            (Some(w), true) => w.iter().sum::<f64>() as usize,
            _ => self.rows.len(),
        }
    }

    /// Whether the base weighs its rows (was made for sample weights).
    pub fn weighted(&self) -> bool {
        self.weights.is_some()
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
        sqrt_in_place(d.as_slice_mut().expect("standard layout"));
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
    /// scikit-learn. With weights (a base made for sample weights) as the
    /// module says: m is the rows' weight, clusters those of weight > 0.
    /// Tiles of rows in parallel, each row's sums in column order and the
    /// rows' scores added in row order: the value does not depend on the
    /// thread count.
    pub fn score_in(&self, space: &Space, labels: &[usize]) -> f64 {
        self.by_cluster_in(space, labels).overall
    }

    /// The silhouette of [`SilhouetteBase::score_in`] and, from the same
    /// rows' values, each cluster's (the classic silhouette plot, one bar
    /// per cluster): its rows' weighted mean, their weight and the share
    /// below 0. No clusters when the overall value is NaN.
    pub fn by_cluster_in(&self, space: &Space, labels: &[usize]) -> Silhouettes {
        let undefined = Silhouettes {
            overall: f64::NAN,
            clusters: Vec::new(),
        };
        let sub: Vec<usize> = self.rows.iter().map(|&i| labels[i]).collect();
        let wts = self.weights.as_deref();
        // × 1 without weights: the same bits as no weights at all.
        let w = |j: usize| wts.map_or(1.0, |w| w[j]);
        let (ids, k_all, k) = dense_weighted(&sub, wts);
        let mut totals = vec![0.0; k_all];
        for (j, &c) in ids.iter().enumerate() {
            totals[c] += w(j);
        }
        let mass: f64 = totals.iter().sum();
        if k < 2 || (k + 1) as f64 > mass || space.is_empty() {
            return undefined;
        }
        let blocks: Vec<(Source, f64)> = space
            .blocks
            .iter()
            .map(|(b, w)| (self.source(b), *w))
            .collect();
        let m = ids.len();
        let per_tile: Vec<Vec<f64>> = tiles(m)
            .into_par_iter()
            .map(|at| {
                let dist = Self::tile(&blocks, at.clone());
                at.zip(dist.outer_iter())
                    .map(|(i, row)| {
                        let own = ids[i];
                        // Alone: no other row (copy) in the cluster.
                        if w(i) == 0.0 || own >= k || totals[own] <= 1.0 {
                            return 0.0;
                        }
                        let mut sums = vec![0.0; k_all];
                        // Unweighted rows skip the × 1 (the same bits)
                        // and the weight's look-up per distance.
                        match wts {
                            None => {
                                for (&c, &d) in ids.iter().zip(row) {
                                    sums[c] += d;
                                }
                            }
                            Some(wv) => {
                                for ((&c, &wj), &d) in ids.iter().zip(wv).zip(row) {
                                    sums[c] += wj * d;
                                }
                            }
                        }
                        // The row's own w_i − 1 other copies are at 0.
                        let a = sums[own] / (totals[own] - 1.0);
                        let b = (0..k)
                            .filter(|&c| c != own)
                            .map(|c| sums[c] / totals[c])
                            .fold(f64::INFINITY, f64::min);
                        let s = (b - a) / a.max(b);
                        if s.is_nan() { 0.0 } else { s }
                    })
                    .collect()
            })
            .collect();
        // Summed in row order: the value does not depend on the tiles.
        let mut sum = 0.0;
        let mut clusters: Vec<ClusterSilhouette> = (0..k)
            .map(|_| ClusterSilhouette {
                label: 0,
                size: 0.0,
                mean: 0.0,
                negative: 0.0,
            })
            .collect();
        for (j, &s) in per_tile.iter().flatten().enumerate() {
            sum += w(j) * s;
            if let Some(c) = clusters.get_mut(ids[j]) {
                c.label = sub[j];
                c.size += w(j);
                c.mean += w(j) * s;
                if s < 0.0 {
                    c.negative += w(j);
                }
            }
        }
        for c in &mut clusters {
            // Every cluster below k weighs > 0 (dense_weighted).
            c.mean /= c.size;
            c.negative /= c.size;
        }
        clusters.sort_by_key(|c| c.label);
        Silhouettes {
            overall: sum / mass,
            clusters,
        }
    }
}

/// One cluster's silhouette among a base's rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterSilhouette {
    /// The cluster's label in the partition scored.
    pub label: usize,
    /// Its rows among the base's (their weight with sample weights, the
    /// draws of a weighted sample).
    pub size: f64,
    /// Its rows' mean silhouette (weighted as the overall one).
    pub mean: f64,
    /// The share of its rows (by weight) whose silhouette is below 0:
    /// nearer on average to another cluster than to their own.
    pub negative: f64,
}

/// The silhouette of a partition and of each of its clusters.
#[derive(Debug, Clone, PartialEq)]
pub struct Silhouettes {
    /// The mean over the rows (the `silhouette` score); NaN when undefined.
    pub overall: f64,
    /// By cluster label, the clusters of weight > 0 among the rows.
    pub clusters: Vec<ClusterSilhouette>,
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
    internal_weighted(space, labels, None, base)
}

/// [`internal_in`] with each row weighed by its sample weight `sw` (as
/// that many copies of it; None: every row once). `base` should be made
/// for the same weights ([`SilhouetteBase::sized_weighted`],
/// [`default_base_weighted`]): its weights are the silhouette's.
pub fn internal_weighted(
    space: &Space,
    labels: &[usize],
    sw: Option<&[f64]>,
    base: &SilhouetteBase,
) -> Internal {
    internal_by_cluster(space, labels, sw, base).0
}

/// [`internal_weighted`] and the silhouette of each cluster, from the
/// same pass over the rows ([`SilhouetteBase::by_cluster_in`]).
pub fn internal_by_cluster(
    space: &Space,
    labels: &[usize],
    sw: Option<&[f64]>,
    base: &SilhouetteBase,
) -> (Internal, Vec<ClusterSilhouette>) {
    let n = labels.len();
    if let Some(w) = sw {
        assert_eq!(w.len(), n, "one sample weight per row");
    }
    let (ids, k_all, k) = dense_weighted(labels, sw);
    let wt = |i: usize| sw.map_or(1.0, |w| w[i]);
    let mut totals = vec![0.0; k_all];
    for (i, &c) in ids.iter().enumerate() {
        totals[c] += wt(i);
    }
    let total = sw.map_or(n as f64, |w| w.iter().sum());
    let nan = Internal {
        space: space.kind,
        clusters: k,
        weighted: sw.is_some(),
        ..Internal::none(labels)
    };
    if space.is_empty() || space.n() != n {
        return (nan, Vec::new());
    }
    let part = Part {
        ids: &ids,
        totals: &totals,
        sw,
        total,
    };
    let mut stats = Stats::zeros(n, k_all);
    for (block, w) in &space.blocks {
        stats.add(&block.stats(&part), *w);
    }
    let g = Groups {
        n: total,
        k,
        part: &part,
        stats: &stats,
    };
    let Silhouettes {
        overall: silhouette,
        clusters,
    } = base.by_cluster_in(space, labels);
    let internal = Internal {
        cost: g.wcss(),
        silhouette,
        calinski_harabasz: g.calinski_harabasz(),
        davies_bouldin: g.davies_bouldin(),
        silhouette_sample: (base.sampled && silhouette.is_finite()).then(|| base.size()),
        kernel_alignment: sw
            .is_none()
            .then(|| space.kernel_alignment(&ids, k_all))
            .flatten(),
        ..nan
    };
    (internal, clusters)
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
    of_run_by_cluster(algo, problem, cfg, fit, base).0
}

/// [`of_run`] and the silhouette of each cluster in the same space, on
/// the same rows ([`internal_by_cluster`]).
pub fn of_run_by_cluster(
    algo: &dyn crate::solver::Algorithm,
    problem: &crate::solver::Problem,
    cfg: &crate::solver::RunConfig,
    fit: &crate::solver::Fit,
    base: &SilhouetteBase,
) -> (Internal, Vec<ClusterSilhouette>) {
    let sw = problem.sample_weights();
    // A base made for other weights (or none) would weigh the silhouette
    // otherwise than the rest: make the problem's own.
    let own;
    let base = if base.weighted() == sw.is_some() {
        base
    } else {
        own = base_for(problem);
        &own
    };
    // Sparse rows are read per nonzero (their dense rows are n × 0); f32
    // rows as stored (per block), never widened whole.
    let features = || match problem.csr() {
        Some(x) => Space::sparse(x),
        None => Space::features(problem.x.rows()),
    };
    let space = match algo.space(problem, cfg, fit, &crate::solver::Ctx::new()) {
        Ok(blocks) => Space::from_blocks_or(features(), blocks),
        Err(_) => features(),
    };
    internal_by_cluster(&space, &fit.labels, sw, base)
}

/// A base for `n` rows with the defaults every output uses.
pub fn default_base(n: usize) -> SilhouetteBase {
    default_base_weighted(n, None)
}

/// A base for `n` rows of sample weights `sw` with the defaults every
/// output uses ([`SilhouetteBase::sized_weighted`]).
pub fn default_base_weighted(n: usize, sw: Option<&[f64]>) -> SilhouetteBase {
    SilhouetteBase::sized_weighted(
        n,
        sw,
        SILHOUETTE_EXACT_MAX,
        SILHOUETTE_SAMPLE_ROWS,
        SILHOUETTE_SAMPLE_SEED,
    )
}

/// The default base for a problem's rows and sample weights.
pub fn base_for(problem: &crate::solver::Problem) -> SilhouetteBase {
    default_base_weighted(problem.n(), problem.sample_weights())
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

/// Dense ids as [`dense`], the clusters of the rows of weight > 0 first
/// (0..k, in order of first appearance among those rows) and those of
/// rows of weight 0 alone after: (ids, all clusters, k). Without weights
/// [`dense`] itself.
fn dense_weighted(labels: &[usize], sw: Option<&[f64]>) -> (Vec<usize>, usize, usize) {
    let Some(w) = sw else {
        let (ids, k) = dense(labels);
        return (ids, k, k);
    };
    let (pos, zero): (Vec<usize>, Vec<usize>) = (0..labels.len()).partition(|&i| w[i] > 0.0);
    let order: Vec<usize> = pos.iter().chain(&zero).map(|&i| labels[i]).collect();
    let (in_order, k_all) = dense(&order);
    let k = in_order[..pos.len()].iter().max().map_or(0, |&m| m + 1);
    let mut ids = vec![0; labels.len()];
    for (&i, &c) in pos.iter().chain(&zero).zip(&in_order) {
        ids[i] = c;
    }
    (ids, k_all, k)
}

/// The clusters of a partition and the space's quantities: the first `k`
/// clusters weigh > 0, those after (rows of weight 0 alone) are left out.
struct Groups<'a> {
    /// The rows' weight (n without sample weights).
    n: f64,
    k: usize,
    part: &'a Part<'a>,
    stats: &'a Stats,
}

impl Groups<'_> {
    fn w(&self, i: usize) -> f64 {
        self.part.sw.map_or(1.0, |w| w[i])
    }

    fn wcss(&self) -> f64 {
        match self.part.sw {
            None => self.stats.own_sq.iter().sum(),
            Some(w) => self
                .stats
                .own_sq
                .iter()
                .zip(w)
                .filter(|&(_, &w)| w > 0.0)
                .map(|(d, w)| w * d)
                .sum(),
        }
    }

    fn k(&self) -> usize {
        self.k
    }

    fn defined(&self) -> bool {
        self.k() >= 2 && (self.k() as f64) < self.n
    }

    fn calinski_harabasz(&self) -> f64 {
        if !self.defined() {
            return f64::NAN;
        }
        let between: f64 = (0..self.k())
            .map(|c| self.part.totals[c] * self.stats.to_mean_sq[c])
            .sum();
        let k = self.k() as f64;
        let wcss = self.wcss();
        if wcss == 0.0 {
            return 1.0;
        }
        between * (self.n - k) / (wcss * (k - 1.0))
    }

    fn davies_bouldin(&self) -> f64 {
        if !self.defined() {
            return f64::NAN;
        }
        let k = self.k();
        let mut spread = vec![0.0; self.part.k()];
        for (i, (&c, &d2)) in self.part.ids.iter().zip(&self.stats.own_sq).enumerate() {
            let w = self.w(i);
            if w > 0.0 {
                spread[c] += w * d2.sqrt();
            }
        }
        let intra: Vec<f64> = (0..k).map(|c| spread[c] / self.part.totals[c]).collect();
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
    use crate::fit_scores::space::Block;
    use crate::kernel::Gram;
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

    /// The clusters of rows of weight > 0 come first, in order of first
    /// appearance among those rows; without weights as [`dense`].
    #[test]
    fn weighted_ids_put_the_clusters_of_weight_first() {
        let labels = [4, 9, 4, 7, 9, 2];
        let w = [0.0, 0.0, 1.0, 2.0, 0.5, 0.0];
        assert_eq!(
            dense_weighted(&labels, Some(&w)),
            (vec![0, 2, 0, 1, 2, 3], 4, 3)
        );
        let (ids, k) = dense(&labels);
        assert_eq!(dense_weighted(&labels, None), (ids, k, k));
    }

    /// A weighted sample draws in proportion to the weights: a row of
    /// weight 9 about nine times as often as one of weight 1, one of
    /// weight 0 never; the draws add up to the sample.
    #[test]
    fn weighted_samples_draw_in_proportion() {
        let n = 4000;
        let w: Vec<f64> = (0..n).map(|i| [1.0, 0.0, 9.0, 0.0][i % 4]).collect();
        let base = SilhouetteBase::sized_weighted(n, Some(&w), 100, 1000, 5);
        assert!(base.sampled);
        assert_eq!(base.size(), 1000);
        let times = base.weights.as_ref().unwrap();
        let (mut light, mut heavy) = (0.0, 0.0);
        for (&i, &t) in base.rows.iter().zip(times) {
            match i % 4 {
                0 => light += t,
                2 => heavy += t,
                _ => panic!("row {i} of weight 0 drawn"),
            }
        }
        assert!((light - 100.0).abs() < 40.0, "{light} {heavy}");
        assert_eq!(light + heavy, 1000.0);
        // Few enough rows of weight > 0: every one of them, by weight.
        let exact = SilhouetteBase::sized_weighted(n, Some(&w), 2000, 1000, 5);
        assert!(!exact.sampled);
        assert_eq!(exact.rows.len(), 2000);
        assert_eq!(exact.size(), 2000);
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

    /// Each cluster's silhouette comes from the same rows' values as the
    /// overall one: the clusters' means weighed by their sizes give it
    /// back, on every row, on a sample and with sample weights; a cluster
    /// merged from two blobs scores lower than a clean one.
    #[test]
    fn the_clusters_silhouettes_add_up_to_the_overall_one() {
        let (x, lab) = blobs(600, 3, 3, 4.0, 11);
        // Blobs 1 and 2 as one cluster (label 7): a worse cluster.
        let merged: Vec<usize> = lab.iter().map(|&l| if l == 0 { 0 } else { 7 }).collect();
        let space = Space::features(x.view());
        let w: Vec<f64> = (0..600).map(|i| [1.0, 3.0, 0.0, 2.0][i % 4]).collect();
        for base in [
            default_base(600),
            SilhouetteBase::new(600, 100, 2),
            SilhouetteBase::sized_weighted(600, Some(&w), 2500, 1000, 0),
        ] {
            for l in [&lab, &merged] {
                let s = base.by_cluster_in(&space, l);
                assert_eq!(s.overall.to_bits(), base.score_in(&space, l).to_bits());
                let mass: f64 = s.clusters.iter().map(|c| c.size).sum();
                let back: f64 = s.clusters.iter().map(|c| c.size * c.mean).sum::<f64>() / mass;
                assert!((back - s.overall).abs() < 1e-12, "{back} {}", s.overall);
                assert!(s.clusters.iter().all(|c| (0.0..=1.0).contains(&c.negative)));
            }
            let s = base.by_cluster_in(&space, &merged);
            let labels: Vec<usize> = s.clusters.iter().map(|c| c.label).collect();
            assert_eq!(labels, [0, 7]);
            assert!(s.clusters[0].mean > s.clusters[1].mean);
        }
        // Undefined (one cluster): NaN and no clusters.
        let one = default_base(600).by_cluster_in(&space, &vec![0; 600]);
        assert!(one.overall.is_nan() && one.clusters.is_empty());
    }
}

/// The label-free scores of a feature-weighted run on its selected
/// features: the scaled input features of weight > 0, unweighted. On the
/// input features a λ path's scores barely move, since the noise features
/// a larger λ drops still count; on the selected ones they change with the
/// selection. Unweighted, because each method weighs its distances its
/// own way (w^β for WK-means, w^β + λw for LW-k-means, w for sparse
/// k-means): the subset means the same for all three and for any β.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OnSelected {
    #[serde(skip_serializing_if = "not_finite")]
    pub cost_selected: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub silhouette_selected: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub calinski_harabasz_selected: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub davies_bouldin_selected: f64,
}

fn not_finite(v: &f64) -> bool {
    !v.is_finite()
}

/// [`OnSelected`] of `labels` on `problem`'s rows, the features those of
/// `weights` > 0; sample weights as every other score. None for sparse
/// rows (their columns are not cut out yet), weights of another length,
/// or no feature selected. The silhouette's rows are the default ones,
/// its distances streamed (the selected columns are a copy that lives for
/// this call only, so no sweep may keep distances keyed by it).
pub fn on_selected(
    problem: &crate::solver::Problem,
    weights: &[f64],
    labels: &[usize],
) -> Option<OnSelected> {
    if problem.csr().is_some() || weights.len() != problem.p() {
        return None;
    }
    let cols: Vec<usize> = (0..weights.len()).filter(|&j| weights[j] > 0.0).collect();
    if cols.is_empty() {
        return None;
    }
    // Every feature kept (WK-means keeps them all): the rows as they are,
    // not a copy of them (the same values, so the same scores).
    let x = match problem.x.rows() {
        crate::solver::rows::Rows::F64(x) if cols.len() == x.ncols() => None,
        crate::solver::rows::Rows::F64(x) => Some(x.select(ndarray::Axis(1), &cols)),
        crate::solver::rows::Rows::F32(x) => {
            Some(x.select(ndarray::Axis(1), &cols).mapv(f64::from))
        }
    };
    let space = match &x {
        Some(x) => Space::features(x.view()),
        None => Space::features(problem.x.rows()),
    };
    let i = internal_weighted(&space, labels, problem.sample_weights(), &base_for(problem));
    Some(OnSelected {
        cost_selected: i.cost,
        silhouette_selected: i.silhouette,
        calinski_harabasz_selected: i.calinski_harabasz,
        davies_bouldin_selected: i.davies_bouldin,
    })
}
