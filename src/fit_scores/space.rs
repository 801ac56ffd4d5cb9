//! The space a partition is judged in: the scaled input features, a
//! kernel's feature space (through its Gram matrix), a random Fourier
//! feature map, or a weighted sum of such blocks (a multi-kernel or
//! multi-view algorithm's combined space, with its final weights).
//!
//! Every label-free score needs only three things of a space, and each is
//! a weighted sum over the blocks of the same thing per block: the squared
//! distance of every row to its cluster's mean, the squared distances
//! between the means, and of each mean to the overall mean. In a kernel's
//! space they come from G = K·H (H the n×k matrix of 1/|c| indicators)
//! and S = HᵀG, the inner products of the means, without forming them.
//!
//! Sample weights enter every sum: a row of weight w counts as w copies
//! of it (cluster means are weighted means, H holds w_i/W_c). Sparse (CSR)
//! rows are a block of their own, read per nonzero: the n × p matrix is
//! never formed.

use crate::kernel::{Gram, rff};
use crate::linalg;
use crate::solver::csr::Csr;
use crate::solver::rows::Rows;
use crate::solver::{Owner, SpaceBlock, SpaceBlocks};
use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;
use std::sync::Arc;

/// Where a partition lives, for the outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpaceKind {
    /// The scaled input features.
    Features,
    /// A kernel's feature space (one Gram matrix or a weighted sum).
    Kernel,
    /// Random Fourier feature maps.
    Rff,
}

impl SpaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpaceKind::Features => "features",
            SpaceKind::Kernel => "kernel",
            SpaceKind::Rff => "rff",
        }
    }
}

/// One block of a space.
pub enum Block<'a> {
    /// Rows in a Euclidean space (the input features, f64 or f32 as the
    /// run stores them; never widened whole).
    Rows(Rows<'a>),
    Map(Arc<rff::FeatureMap>),
    Gram(Arc<Gram>),
    /// Sparse rows, read per nonzero, with their squared norms.
    Sparse {
        x: &'a Csr,
        norms: Vec<f64>,
    },
}

/// A space: weighted blocks, d²(i, j) = Σ_b w_b d_b²(i, j).
pub struct Space<'a> {
    pub kind: SpaceKind,
    pub blocks: Vec<(Block<'a>, f64)>,
}

impl<'a> Space<'a> {
    /// The rows of `x` as they are.
    pub fn features(x: impl Into<Rows<'a>>) -> Self {
        let x = x.into();
        Space {
            kind: SpaceKind::Features,
            blocks: if x.ncols() == 0 {
                Vec::new()
            } else {
                vec![(Block::Rows(x), 1.0)]
            },
        }
    }

    /// Sparse rows as they are (nothing n × p is formed).
    pub fn sparse(x: &'a Csr) -> Self {
        Space {
            kind: SpaceKind::Features,
            blocks: if x.ncols() == 0 {
                Vec::new()
            } else {
                vec![(
                    Block::Sparse {
                        x,
                        norms: x.sq_norms(),
                    },
                    1.0,
                )]
            },
        }
    }

    /// The space an algorithm reports ([`crate::solver::Solver::space`]):
    /// `x`'s features when it names no block. Blocks of weight 0 are left
    /// out.
    pub fn from_blocks(x: impl Into<Rows<'a>>, blocks: SpaceBlocks) -> Self {
        if blocks.is_empty() {
            return Space::features(x);
        }
        Space::of_blocks(blocks)
    }

    /// As [`Space::from_blocks`], with `features` (dense or sparse rows)
    /// the space when the algorithm names no block.
    pub fn from_blocks_or(features: Space<'a>, blocks: SpaceBlocks) -> Self {
        if blocks.is_empty() {
            return features;
        }
        Space::of_blocks(blocks)
    }

    fn of_blocks(blocks: SpaceBlocks) -> Self {
        let mut kind = SpaceKind::Rff;
        let mut out = Vec::new();
        for (b, w) in blocks {
            if w == 0.0 || !w.is_finite() {
                continue;
            }
            let block = match b {
                SpaceBlock::Gram(g) => {
                    kind = SpaceKind::Kernel;
                    Block::Gram(g)
                }
                SpaceBlock::Map(f) => Block::Map(f),
            };
            out.push((block, w));
        }
        Space { kind, blocks: out }
    }

    /// Whether the space has anything to measure in (kernels-only data
    /// judged by its features has not).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Rows of the space.
    pub fn n(&self) -> usize {
        self.blocks.first().map_or(0, |(b, _)| b.n())
    }

    /// The centred kernel alignment (Cortes, Mohri & Rostamizadeh 2012) of
    /// the space's kernel K = Σ_b w_b K_b with the partition's ideal kernel
    /// L_ij = [c_i = c_j]: ⟨HKH, HLH⟩ / (‖HKH‖ ‖HLH‖), H = I − 11ᵀ/n. In
    /// [−1, 1], higher when the kernel's similarities follow the clusters;
    /// centring takes out what every pair shares, so a kernel too wide to
    /// tell rows apart is not rewarded for it. None unless every block is
    /// a Gram matrix, or with one cluster (L is then constant). `ids` are
    /// the rows' clusters as dense ids below `k`.
    pub fn kernel_alignment(&self, ids: &[usize], k: usize) -> Option<f64> {
        let grams: Vec<(&Gram, f64)> = self
            .blocks
            .iter()
            .map(|(b, w)| match b {
                Block::Gram(g) => Some((g.as_ref(), *w)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let n = self.n();
        if grams.is_empty() || n != ids.len() || n == 0 {
            return None;
        }
        // Per row: the row sum a_i, the sum of squares, and the sum over
        // the row's own cluster s_i of the combined kernel; rows in
        // blocks in parallel, added up in row order.
        let ranges = grams[0].0.row_blocks();
        let per_block: Vec<Vec<(f64, f64, f64)>> = ranges
            .par_iter()
            .enumerate()
            .map(|(bi, rows)| {
                let mut kb = grams[0].0.row_block(bi) * grams[0].1;
                for (g, w) in &grams[1..] {
                    kb.scaled_add(*w, &g.row_block(bi));
                }
                rows.clone()
                    .zip(kb.rows())
                    .map(|(i, row)| {
                        let (mut a, mut q, mut own) = (0.0, 0.0, 0.0);
                        for (j, &v) in row.iter().enumerate() {
                            a += v;
                            q += v * v;
                            if ids[j] == ids[i] {
                                own += v;
                            }
                        }
                        (a, q, own)
                    })
                    .collect()
            })
            .collect();
        let nf = n as f64;
        let (mut total, mut sq, mut a_sq) = (0.0, 0.0, 0.0);
        let mut in_cluster = vec![0.0; k];
        let mut a_cluster = vec![0.0; k];
        let mut size = vec![0.0; k];
        for (i, (a, q, own)) in per_block.into_iter().flatten().enumerate() {
            total += a;
            sq += q;
            a_sq += a * a;
            in_cluster[ids[i]] += own;
            a_cluster[ids[i]] += a;
            size[ids[i]] += 1.0;
        }
        // ⟨HKH, L⟩ = Σ_c S_c − 2 n_c A_c / n + n_c² T / n².
        let inner: f64 = (0..k)
            .map(|c| {
                in_cluster[c] - 2.0 * size[c] * a_cluster[c] / nf
                    + size[c] * size[c] * total / (nf * nf)
            })
            .sum();
        let kk = sq - 2.0 * a_sq / nf + total * total / (nf * nf);
        let s2: f64 = size.iter().map(|m| m * m).sum();
        let s3: f64 = size.iter().map(|m| m * m * m).sum();
        let ll = s2 - 2.0 * s3 / nf + s2 * s2 / (nf * nf);
        let norm = (kk.max(0.0) * ll.max(0.0)).sqrt();
        let clusters = size.iter().filter(|&&m| m > 0.0).count();
        (clusters > 1 && norm > 0.0 && norm.is_finite()).then(|| (inner / norm).clamp(-1.0, 1.0))
    }
}

impl Block<'_> {
    pub fn n(&self) -> usize {
        match self {
            Block::Rows(x) => x.nrows(),
            Block::Map(f) => f.norms.len(),
            Block::Gram(g) => g.n(),
            Block::Sparse { x, .. } => x.nrows(),
        }
    }

    /// A key that tells blocks apart while they are alive (the address of
    /// their data), for memoising their sample distances.
    pub(super) fn key(&self) -> usize {
        match self {
            Block::Rows(Rows::F64(x)) => x.as_ptr() as usize,
            Block::Rows(Rows::F32(x)) => x.as_ptr() as usize,
            Block::Map(f) => Arc::as_ptr(f) as usize,
            Block::Gram(g) => Arc::as_ptr(g) as usize,
            Block::Sparse { x, .. } => *x as *const Csr as usize,
        }
    }

    /// Keeps the block's data alive while a memo holds its key.
    pub(super) fn keep(&self) -> Option<Arc<dyn Owner>> {
        match self {
            Block::Rows(_) | Block::Sparse { .. } => None,
            Block::Map(f) => Some(f.clone()),
            Block::Gram(g) => Some(g.clone()),
        }
    }

    /// Calls `f64s` or `f32s` on the block's rows as they are stored: an
    /// f32 feature map is never widened whole (at 10⁶ rows × D = 256 that
    /// copy alone is 2 GB).
    fn with_rows<T>(
        &self,
        f64s: impl FnOnce(ArrayView2<f64>) -> T,
        f32s: impl FnOnce(ArrayView2<f32>) -> T,
    ) -> T {
        match self {
            Block::Rows(Rows::F64(x)) => f64s(*x),
            Block::Rows(Rows::F32(x)) => f32s(*x),
            Block::Map(m) => match &m.store {
                rff::Store::F64(a) => f64s(a.view()),
                rff::Store::F32(a) => f32s(a.view()),
            },
            Block::Gram(_) => unreachable!("a Gram block has no rows"),
            Block::Sparse { .. } => unreachable!("sparse rows are read per nonzero"),
        }
    }

    /// The block's part of the three quantities, for the partition `part`.
    pub(super) fn stats(&self, part: &Part) -> Stats {
        match self {
            Block::Gram(g) => gram_stats(g, part),
            Block::Sparse { x, norms } => sparse_stats(x, norms, part),
            _ => self.with_rows(|x| rows_stats(x, part), |x| rows_stats(x, part)),
        }
    }

    /// What the squared distances between the rows `rows` need, taken
    /// once: their features in f64 (m×p) and norms, or the Gram matrix.
    pub(super) fn sample<'b>(&'b self, rows: &'b [usize]) -> Sample<'b> {
        match self {
            Block::Gram(g) => Sample::Gram { g, rows },
            Block::Sparse { x, norms } => Sample::sparse(x, norms, rows),
            _ => {
                let sub = self.with_rows(
                    |x| x.select(ndarray::Axis(0), rows),
                    |x| x.select(ndarray::Axis(0), rows).mapv(f64::from),
                );
                let norms = linalg::row_sq_norms(sub.view());
                Sample::Rows { sub, norms }
            }
        }
    }
}

/// The rows of a silhouette sample in one block (see [`Block::sample`]).
pub(super) enum Sample<'a> {
    Rows {
        sub: Array2<f64>,
        norms: Vec<f64>,
    },
    Gram {
        g: &'a Gram,
        rows: &'a [usize],
    },
    /// Sparse rows: the sample's nonzeros by column (the sample's CSC
    /// form, only the columns it uses), so a row's inner products with
    /// the whole sample are one pass over its nonzeros' columns
    /// (CSR·CSRᵀ, memory ∝ the sample's nonzeros).
    Sparse {
        x: &'a Csr,
        rows: &'a [usize],
        norms: Vec<f64>,
        cols: Vec<u32>,
        ptr: Vec<usize>,
        entries: Vec<(u32, f64)>,
    },
}

impl<'a> Sample<'a> {
    fn sparse(x: &'a Csr, norms: &[f64], rows: &'a [usize]) -> Self {
        let mut all: Vec<(u32, u32, f64)> = Vec::new();
        for (b, &i) in rows.iter().enumerate() {
            let (idx, val) = x.row(i);
            all.extend(idx.iter().zip(val).map(|(&j, &v)| (j, b as u32, v)));
        }
        // By column, each column's rows in sample order (a stable sort).
        all.sort_by_key(|&(j, _, _)| j);
        let mut cols = Vec::new();
        let mut ptr = vec![0];
        let mut entries = Vec::with_capacity(all.len());
        for (t, &(j, b, v)) in all.iter().enumerate() {
            if t > 0 && all[t - 1].0 != j {
                ptr.push(t);
            }
            if cols.last() != Some(&j) {
                cols.push(j);
            }
            entries.push((b, v));
        }
        if !all.is_empty() {
            ptr.push(all.len());
        }
        Sample::Sparse {
            x,
            rows,
            norms: rows.iter().map(|&i| norms[i]).collect(),
            cols,
            ptr,
            entries,
        }
    }
}

impl Sample<'_> {
    fn m(&self) -> usize {
        match self {
            Sample::Rows { norms, .. } => norms.len(),
            Sample::Gram { rows, .. } => rows.len(),
            Sample::Sparse { rows, .. } => rows.len(),
        }
    }

    /// Squared distances from the sample rows `at` to every sample row
    /// (`at.len()`×m, ≥ 0, 0 where a row meets itself), on the calling
    /// thread: the silhouette streams these tiles in parallel, and a
    /// sweep's memo is the same tiles stacked, so both see the same
    /// values.
    pub(super) fn sq_tile(&self, at: std::ops::Range<usize>) -> Array2<f64> {
        let m = self.m();
        let mut d = match self {
            Sample::Gram { g, rows } => {
                let diag = g.diag();
                let mut d = Array2::<f64>::zeros((at.len(), m));
                for (a, mut out) in at.clone().zip(d.axis_iter_mut(ndarray::Axis(0))) {
                    let i = rows[a];
                    let row = g.row(i);
                    for (b, &j) in rows.iter().enumerate() {
                        out[b] = diag[i] + diag[j] - 2.0 * row[j];
                    }
                }
                d
            }
            Sample::Rows { sub, norms } => {
                let part = sub.slice(ndarray::s![at.clone(), ..]);
                linalg::sq_dists_with(part, &norms[at.clone()], sub.view(), norms, false)
            }
            Sample::Sparse {
                x,
                rows,
                norms,
                cols,
                ptr,
                entries,
            } => {
                let mut d = Array2::<f64>::zeros((at.len(), m));
                let mut dot = vec![0.0; m];
                for (a, mut out) in at.clone().zip(d.axis_iter_mut(ndarray::Axis(0))) {
                    dot.fill(0.0);
                    let (idx, val) = x.row(rows[a]);
                    for (&j, &va) in idx.iter().zip(val) {
                        // Every column of the row is among the sample's.
                        let t = cols.binary_search(&j).expect("a sample row's column");
                        for &(b, vb) in &entries[ptr[t]..ptr[t + 1]] {
                            dot[b as usize] += va * vb;
                        }
                    }
                    for (b, o) in out.iter_mut().enumerate() {
                        *o = -2.0 * dot[b] + norms[a] + norms[b];
                    }
                }
                d
            }
        };
        // The expansion ‖a‖² + ‖b‖² − 2a·b leaves rounding of the norms'
        // size where two rows (nearly) coincide, which the silhouette's
        // square root magnifies (a repeated row some 1e-8·‖x‖ away from
        // its copy, not at 0): those few are summed again term by term.
        self.refine_near(&mut d, at.clone());
        d.mapv_inplace(|v| v.max(0.0));
        // The expansion ‖a‖² + ‖b‖² − 2a·b leaves rounding on the diagonal.
        for (t, a) in at.enumerate() {
            d[[t, a]] = 0.0;
        }
        d
    }

    /// Recomputes as Σ (a_j − b_j)² the squared distances of the tile `d`
    /// (rows `at`) within rounding of 0 (below [`NEAR`] times the two
    /// rows' squared norms). A Gram matrix's are left as they are.
    fn refine_near(&self, d: &mut Array2<f64>, at: std::ops::Range<usize>) {
        let near = |v: f64, na: f64, nb: f64| v <= NEAR * (na + nb) && na + nb > 0.0;
        match self {
            Sample::Gram { .. } => {}
            Sample::Rows { sub, norms } => {
                for (t, a) in at.enumerate() {
                    for (b, v) in d.row_mut(t).iter_mut().enumerate() {
                        if near(*v, norms[a], norms[b]) {
                            *v = sq(sub.row(a).iter().copied().zip(sub.row(b).iter().copied()));
                        }
                    }
                }
            }
            Sample::Sparse { x, rows, norms, .. } => {
                for (t, a) in at.enumerate() {
                    for (b, v) in d.row_mut(t).iter_mut().enumerate() {
                        if near(*v, norms[a], norms[b]) {
                            *v = sparse_sq(x.row(rows[a]), x.row(rows[b]));
                        }
                    }
                }
            }
        }
    }

    /// Every squared distance between the sample rows (m×m): the tiles
    /// of [`Sample::sq_tile`], computed in parallel and stacked.
    pub(super) fn sq_all(&self) -> Array2<f64> {
        let m = self.m();
        let mut d = Array2::<f64>::zeros((m, m));
        d.axis_chunks_iter_mut(ndarray::Axis(0), SAMPLE_TILE)
            .into_par_iter()
            .zip(tiles(m))
            .for_each(|(mut out, at)| out.assign(&self.sq_tile(at)));
        d
    }
}

/// Relative size below which a squared distance from the expansion is
/// rounding (see [`Sample::refine_near`]): about 10⁷ times f64's epsilon,
/// far above the expansion's error and far below any distance between
/// rows that differ in more than their last digits.
const NEAR: f64 = 1e-9;

/// ‖a − b‖² of two sparse rows (sorted indices), term by term.
fn sparse_sq((ia, va): (&[u32], &[f64]), (ib, vb): (&[u32], &[f64])) -> f64 {
    let (mut s, mut p, mut q) = (0.0, 0, 0);
    while p < ia.len() || q < ib.len() {
        let d = match (ia.get(p), ib.get(q)) {
            (Some(&j), Some(&l)) if j == l => {
                p += 1;
                q += 1;
                va[p - 1] - vb[q - 1]
            }
            (Some(&j), Some(&l)) if j < l => {
                p += 1;
                va[p - 1]
            }
            (Some(_), None) => {
                p += 1;
                va[p - 1]
            }
            _ => {
                q += 1;
                vb[q - 1]
            }
        };
        s += d * d;
    }
    s
}

/// Rows of one silhouette tile: a tile of 2500 columns is 1.3 MB.
pub(super) const SAMPLE_TILE: usize = 64;

/// The sample rows 0..m cut into tiles of [`SAMPLE_TILE`] (fixed, so the
/// values never depend on the thread count).
pub(super) fn tiles(m: usize) -> Vec<std::ops::Range<usize>> {
    (0..m.div_ceil(SAMPLE_TILE))
        .map(|t| t * SAMPLE_TILE..((t + 1) * SAMPLE_TILE).min(m))
        .collect()
}

/// A partition as the sums read it: dense cluster ids, each cluster's
/// weight (its size without sample weights) and the rows' sample weights.
/// Means are weighted means; a cluster of weight 0 has the mean 0 (it is
/// no cluster of the weighted data: the scores leave it out).
pub(super) struct Part<'a> {
    pub ids: &'a [usize],
    pub totals: &'a [f64],
    pub sw: Option<&'a [f64]>,
    /// The weight of every row together (n without sample weights).
    pub total: f64,
}

impl Part<'_> {
    fn w(&self, i: usize) -> f64 {
        self.sw.map_or(1.0, |w| w[i])
    }

    pub(super) fn k(&self) -> usize {
        self.totals.len()
    }

    /// Divides each cluster's sums (k × p, row-major) by its weight.
    fn to_means(&self, sums: &mut [f64], p: usize) {
        for (c, &t) in self.totals.iter().enumerate() {
            if t > 0.0 {
                for m in &mut sums[c * p..(c + 1) * p] {
                    *m /= t;
                }
            }
        }
    }
}

/// Per partition: ‖φ_i − m_c(i)‖² per row, ‖m_a − m_b‖² and ‖m_c − m‖².
pub(super) struct Stats {
    pub own_sq: Vec<f64>,
    pub centre_sq: Array2<f64>,
    pub to_mean_sq: Vec<f64>,
}

impl Stats {
    pub(super) fn add(&mut self, other: &Stats, w: f64) {
        for (a, b) in self.own_sq.iter_mut().zip(&other.own_sq) {
            *a += w * b;
        }
        self.centre_sq.scaled_add(w, &other.centre_sq);
        for (a, b) in self.to_mean_sq.iter_mut().zip(&other.to_mean_sq) {
            *a += w * b;
        }
    }

    pub(super) fn zeros(n: usize, k: usize) -> Stats {
        Stats {
            own_sq: vec![0.0; n],
            centre_sq: Array2::zeros((k, k)),
            to_mean_sq: vec![0.0; k],
        }
    }
}

fn sq(a: impl Iterator<Item = (f64, f64)>) -> f64 {
    a.map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Rows of one chunk of [`rows_stats`]'s sums: a function of the shape
/// alone (never of the thread count), with at most 64 chunks and their
/// partial sums k×p each within about 8 MB together.
fn chunk_rows(n: usize, k: usize, p: usize) -> usize {
    let part = ((k + 1) * p.max(1) * 8) as f64;
    let chunks = ((8.0 * 1024.0 * 1024.0 / part) as usize).clamp(1, 64);
    n.div_ceil(chunks).max(4096)
}

/// The rows of the two passes: one row-major slice (the usual case), or
/// a view whose rows are copied into a buffer one at a time, so that both
/// reach the same kernels as slices and give the same bits.
#[derive(Clone, Copy)]
enum Dense<'a, E> {
    Slice(&'a [E]),
    View(ArrayView2<'a, E>),
}

/// Sums in f64 whatever the rows are stored in. Two passes over the rows
/// in storage order (the means, then each row's distance to its mean),
/// in parallel over fixed chunks added in order; up to 4096 rows the sums
/// are those of one sequential pass.
fn rows_stats<E: Copy + Into<f64> + Sync>(x: ArrayView2<E>, part: &Part) -> Stats {
    let (n, p) = x.dim();
    match x.as_slice() {
        Some(f) => stats_by(Dense::Slice(f), n, p, part),
        None => stats_by(Dense::View(x), n, p, part),
    }
}

fn stats_by<E: Copy + Into<f64> + Sync>(x: Dense<E>, n: usize, p: usize, part: &Part) -> Stats {
    let k = part.k();
    let chunk = chunk_rows(n, k, p);
    // Per chunk each cluster's column sums, in row order, each row times
    // its weight.
    let parts: Vec<Vec<f64>> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut sums = vec![0.0; k * p];
            let rows = c * chunk..((c + 1) * chunk).min(n);
            pass_sums(x, rows, p, part.ids, part.sw, &mut sums);
            sums
        })
        .collect();
    let mut flat = vec![0.0; k * p];
    for sums in parts {
        for (m, v) in flat.iter_mut().zip(sums) {
            *m += v;
        }
    }
    // The overall sums are the clusters' added up (every row of weight
    // > 0 is in one of them), which spares the pass a second sum per
    // element.
    let mut overall = vec![0.0; p];
    for sums in flat.chunks_exact(p.max(1)) {
        for (o, &v) in overall.iter_mut().zip(sums) {
            *o += v;
        }
    }
    part.to_means(&mut flat, p);
    if part.total > 0.0 {
        for o in &mut overall {
            *o /= part.total;
        }
    }
    let mut own_sq = vec![0.0; n];
    own_sq
        .par_chunks_mut(OWN_TASK)
        .enumerate()
        .for_each(|(t, out)| pass_own(x, t * OWN_TASK, p, part.ids, &flat, out));
    let means = Array2::from_shape_vec((k, p), flat).expect("k×p means");
    between_means(means, &overall, own_sq)
}

/// The quantities of the means: ‖m_a − m_b‖² and ‖m_c − m‖² (`overall`
/// the mean of every row), beside the rows' `own_sq`.
fn between_means(means: Array2<f64>, overall: &[f64], own_sq: Vec<f64>) -> Stats {
    let k = means.nrows();
    let centre_sq = Array2::from_shape_fn((k, k), |(a, b)| {
        sq(means
            .row(a)
            .iter()
            .copied()
            .zip(means.row(b).iter().copied()))
    });
    let to_mean_sq = (0..k)
        .map(|c| sq(means.row(c).iter().copied().zip(overall.iter().copied())))
        .collect();
    Stats {
        own_sq,
        centre_sq,
        to_mean_sq,
    }
}

/// Rows per task of the second pass (fixed: the values never depend on it).
const OWN_TASK: usize = 1024;

/// Adds the rows `rows` of `x` (times their weights) to their clusters'
/// sums (k × p, row-major).
fn pass_sums<E: Copy + Into<f64>>(
    x: Dense<E>,
    rows: std::ops::Range<usize>,
    p: usize,
    ids: &[usize],
    sw: Option<&[f64]>,
    sums: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::linalg::has_avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { pass_sums_avx2(x, rows, p, ids, sw, sums) };
    }
    pass_sums_on(x, rows, p, ids, sw, sums)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pass_sums_avx2<E: Copy + Into<f64>>(
    x: Dense<E>,
    rows: std::ops::Range<usize>,
    p: usize,
    ids: &[usize],
    sw: Option<&[f64]>,
    sums: &mut [f64],
) {
    pass_sums_on(x, rows, p, ids, sw, sums)
}

#[inline(always)]
fn pass_sums_on<E: Copy + Into<f64>>(
    x: Dense<E>,
    rows: std::ops::Range<usize>,
    p: usize,
    ids: &[usize],
    sw: Option<&[f64]>,
    sums: &mut [f64],
) {
    let mut buf = Vec::new();
    for i in rows {
        // × 1 is exact: the unweighted sums are those of weights of 1.
        let w = sw.map_or(1.0, |w| w[i]);
        if w == 0.0 {
            continue;
        }
        let row = dense_row(x, i, p, &mut buf);
        let s = &mut sums[ids[i] * p..(ids[i] + 1) * p];
        if sw.is_some() {
            add_scaled(s, row, w);
        } else {
            add(s, row);
        }
    }
}

/// Row `i` of `x` as a slice (copied into `buf` from a view).
#[inline(always)]
fn dense_row<'a: 'b, 'b, E: Copy>(
    x: Dense<'a, E>,
    i: usize,
    p: usize,
    buf: &'b mut Vec<E>,
) -> &'b [E] {
    match x {
        Dense::Slice(f) => &f[i * p..(i + 1) * p],
        Dense::View(v) => {
            buf.clear();
            buf.extend(v.row(i).iter().copied());
            buf
        }
    }
}

#[inline(always)]
fn add<E: Copy + Into<f64>>(s: &mut [f64], row: &[E]) {
    for (m, &v) in s.iter_mut().zip(row) {
        *m += v.into();
    }
}

#[inline(always)]
fn add_scaled<E: Copy + Into<f64>>(s: &mut [f64], row: &[E], w: f64) {
    for (m, &v) in s.iter_mut().zip(row) {
        *m += w * v.into();
    }
}

/// ‖x_i − m_c(i)‖² into `out` for the rows from `start` on.
fn pass_own<E: Copy + Into<f64>>(
    x: Dense<E>,
    start: usize,
    p: usize,
    ids: &[usize],
    means: &[f64],
    out: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::linalg::has_avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { pass_own_avx2(x, start, p, ids, means, out) };
    }
    pass_own_on(x, start, p, ids, means, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pass_own_avx2<E: Copy + Into<f64>>(
    x: Dense<E>,
    start: usize,
    p: usize,
    ids: &[usize],
    means: &[f64],
    out: &mut [f64],
) {
    pass_own_on(x, start, p, ids, means, out)
}

#[inline(always)]
fn pass_own_on<E: Copy + Into<f64>>(
    x: Dense<E>,
    start: usize,
    p: usize,
    ids: &[usize],
    means: &[f64],
    out: &mut [f64],
) {
    let mut buf = Vec::new();
    for (q, o) in out.iter_mut().enumerate() {
        let i = start + q;
        let row = dense_row(x, i, p, &mut buf);
        *o = sq_lanes(row, &means[ids[i] * p..(ids[i] + 1) * p]);
    }
}

/// Lanes of [`sq_lanes`]: two AVX2 vectors of independent sums.
const LANES: usize = 8;

/// ‖x − m‖², column j summed in lane j mod [`LANES`] and the lanes added
/// in a fixed order, then the last p mod [`LANES`] columns: one chain of
/// p dependent adds per row would bound the pass by the adds' latency. A
/// row's value depends on its values alone (not on its neighbours, the
/// task or the thread count).
#[inline(always)]
fn sq_lanes<E: Copy + Into<f64>>(x: &[E], m: &[f64]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (xs, ms) = (x.chunks_exact(LANES), m.chunks_exact(LANES));
    let (xt, mt) = (xs.remainder(), ms.remainder());
    for (xc, mc) in xs.zip(ms) {
        for l in 0..LANES {
            let d = xc[l].into() - mc[l];
            acc[l] += d * d;
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
    for (&v, &c) in xt.iter().zip(mt) {
        let d = v.into() - c;
        s += d * d;
    }
    s
}

/// Sparse rows per nonzero: the weighted cluster sums
/// ([`Csr::cluster_sums`], k × p), then each row's squared distance to its
/// mean as Σ_{j∈nz(x)} (x_j − m_j)² + (‖m‖² − Σ_{j∈nz(x)} m_j²): the
/// terms off the row's nonzeros are the mean's alone. Unlike
/// ‖x‖² − 2x·m + ‖m‖² it gives 0, not rounding, for a row equal to its
/// mean (a singleton cluster), which the Davies–Bouldin spreads' square
/// roots would magnify.
fn sparse_stats(x: &Csr, norms: &[f64], part: &Part) -> Stats {
    let (n, p, k) = (x.nrows(), x.ncols(), part.k());
    debug_assert_eq!(norms.len(), n);
    let (sums, _) = x.cluster_sums(part.ids, k, part.sw);
    let mut overall = vec![0.0; p];
    for row in sums.outer_iter() {
        for (o, &v) in overall.iter_mut().zip(row) {
            *o += v;
        }
    }
    if part.total > 0.0 {
        for o in &mut overall {
            *o /= part.total;
        }
    }
    let mut flat = sums.into_raw_vec_and_offset().0;
    part.to_means(&mut flat, p);
    let mean_sq: Vec<f64> = (0..k)
        .map(|c| flat[c * p..(c + 1) * p].iter().map(|v| v * v).sum())
        .collect();
    let mut own_sq = vec![0.0; n];
    own_sq
        .par_chunks_mut(OWN_TASK)
        .enumerate()
        .for_each(|(t, out)| {
            for (q, o) in out.iter_mut().enumerate() {
                let i = t * OWN_TASK + q;
                let c = part.ids[i];
                let m = &flat[c * p..(c + 1) * p];
                let (idx, val) = x.row(i);
                let (mut near, mut on) = (0.0, 0.0);
                for (&j, &v) in idx.iter().zip(val) {
                    let mj = m[j as usize];
                    near += (v - mj) * (v - mj);
                    on += mj * mj;
                }
                *o = near + (mean_sq[c] - on).max(0.0);
            }
        });
    let means = Array2::from_shape_vec((k, p), flat).expect("k×p means");
    between_means(means, &overall, own_sq)
}

fn gram_stats(g: &Gram, part: &Part) -> Stats {
    let (ids, k) = (part.ids, part.k());
    let n = ids.len();
    let mut h = Array2::<f64>::zeros((n, k));
    for (i, &c) in ids.iter().enumerate() {
        let t = part.totals[c];
        if t > 0.0 {
            h[[i, c]] = part.w(i) / t;
        }
    }
    // G_ic = ⟨φ_i, m_c⟩, S_ab = ⟨m_a, m_b⟩.
    let gh = g.times(h.view());
    let s = linalg::dot_tn(h.view(), gh.view());
    let diag = g.diag();
    let own_sq = (0..n)
        .map(|i| {
            let c = ids[i];
            (diag[i] - 2.0 * gh[[i, c]] + s[[c, c]]).max(0.0)
        })
        .collect();
    let centre_sq = Array2::from_shape_fn((k, k), |(a, b)| {
        (s[[a, a]] + s[[b, b]] - 2.0 * s[[a, b]]).max(0.0)
    });
    let share: Vec<f64> = part.totals.iter().map(|&c| c / part.total).collect();
    // ⟨m_c, m⟩ with m = Σ_b (W_b/W) m_b the (weighted) mean of every row.
    let with_mean: Vec<f64> = (0..k)
        .map(|c| (0..k).map(|b| share[b] * s[[c, b]]).sum())
        .collect();
    let mean_sq: f64 = (0..k).map(|c| share[c] * with_mean[c]).sum();
    let to_mean_sq = (0..k)
        .map(|c| (s[[c, c]] - 2.0 * with_mean[c] + mean_sq).max(0.0))
        .collect();
    Stats {
        own_sq,
        centre_sq,
        to_mean_sq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit_scores::internal::{Internal, SilhouetteBase, internal_in};
    use ndarray::{Array2, concatenate};

    fn data(n: usize, p: usize, salt: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, p), |(i, j)| {
            ((i * 7 + j * 3 + salt) % 11) as f64 + 0.25 * i as f64 * (j + 1) as f64
        })
    }

    fn labels(n: usize) -> Vec<usize> {
        (0..n).map(|i| (i * 5 % 7) % 3).collect()
    }

    /// Unweighted cluster sizes of dense ids 0..k.
    fn totals(ids: &[usize], k: usize) -> Vec<f64> {
        (0..k)
            .map(|c| ids.iter().filter(|&&i| i == c).count() as f64)
            .collect()
    }

    fn part<'a>(ids: &'a [usize], totals: &'a [f64]) -> Part<'a> {
        Part {
            ids,
            totals,
            sw: None,
            total: ids.len() as f64,
        }
    }

    /// f32 rows are summed in f64 element by element, exactly as their
    /// widened copy would be, without making that copy.
    #[test]
    fn f32_rows_score_as_their_f64_widening() {
        let x = data(40, 6, 2).mapv(|v| (v / 3.0) as f32);
        let wide = x.mapv(f64::from);
        let ids = labels(40);
        let t = totals(&ids, 3);
        let a = rows_stats(x.view(), &part(&ids, &t));
        let b = rows_stats(wide.view(), &part(&ids, &t));
        assert_eq!(a.own_sq, b.own_sq);
        assert_eq!(a.centre_sq, b.centre_sq);
        assert_eq!(a.to_mean_sq, b.to_mean_sq);
        assert!(a.own_sq.iter().any(|&v| v > 0.0));
    }

    /// A row's distance to its mean has the same bits read from a slice,
    /// from a strided view or as f32 widened, whatever task it falls in,
    /// and is the plain sum to rounding (with and without a ragged tail of
    /// columns).
    #[test]
    fn own_distances_are_the_same_bits_from_every_layout() {
        for p in [3, 8, 13, 50] {
            let (n, k) = (2 * OWN_TASK + 7, 4);
            let x = data(n, p, 3).mapv(|v| v / 7.0);
            let ids: Vec<usize> = (0..n).map(|i| (i * 5 % 11) % k).collect();
            let means: Vec<f64> = (0..k * p).map(|v| (v as f64).sin() * 3.0).collect();
            let run = |x: Dense<f64>| {
                let mut out = vec![0.0; n];
                out.par_chunks_mut(OWN_TASK)
                    .enumerate()
                    .for_each(|(t, o)| pass_own(x, t * OWN_TASK, p, &ids, &means, o));
                out
            };
            let got = run(Dense::Slice(x.as_slice().unwrap()));
            for i in 0..n {
                let m = &means[ids[i] * p..(ids[i] + 1) * p];
                let want = sq(x.row(i).iter().copied().zip(m.iter().copied()));
                assert!((got[i] - want).abs() <= 1e-12 * want, "p {p} row {i}");
                // One row alone, outside its task.
                let mut one = [0.0];
                pass_own(
                    Dense::Slice(x.as_slice().unwrap()),
                    i,
                    p,
                    &ids,
                    &means,
                    &mut one,
                );
                assert_eq!(one[0].to_bits(), got[i].to_bits());
            }
            // A strided view (every other column of a wider matrix).
            let wide = Array2::from_shape_fn((n, 2 * p), |(i, j)| {
                if j % 2 == 0 { x[[i, j / 2]] } else { f64::NAN }
            });
            let view = wide.slice(ndarray::s![.., ..;2]);
            assert_eq!(view, x);
            let strided = run(Dense::View(view));
            assert!(
                got.iter()
                    .zip(&strided)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
            // f32 rows, widened per element.
            let x32 = x.mapv(|v| v as f32);
            let wide32 = x32.mapv(f64::from);
            let mut narrow = vec![0.0; n];
            pass_own(
                Dense::Slice(x32.as_slice().unwrap()),
                0,
                p,
                &ids,
                &means,
                &mut narrow,
            );
            let widened = run(Dense::Slice(wide32.as_slice().unwrap()));
            assert!(
                narrow
                    .iter()
                    .zip(&widened)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
            assert!(got.iter().all(|&v| v > 0.0));
        }
    }

    /// The two passes against a straightforward reference (means by
    /// division, distances term by term) on data of several shapes, with
    /// weights and without, a cluster of one row (at 0 exactly) and a
    /// cluster with no rows (its mean 0).
    #[test]
    fn the_passes_match_a_plain_reference() {
        for (n, p, salt) in [
            (9, 1, 0),
            (60, 7, 1),
            (500, 8, 2),
            (5000, 50, 3),
            (10_000, 17, 4),
        ] {
            let x = Array2::from_shape_fn((n, p), |(i, j)| {
                (((i * 2654435761 + j * 40503 + salt) % 1000) as f64 / 100.0) - 5.0 + (i % 3) as f64
            });
            let k = 5;
            let mut ids: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % 3).collect();
            // A cluster of one row (of weight 1), and cluster 4 has none.
            let one = n / 2 - n / 2 % 4;
            ids[one] = 3;
            let sw: Vec<f64> = (0..n).map(|i| [1.0, 0.5, 0.0, 3.0][i % 4]).collect();
            for w in [None, Some(&sw[..])] {
                let wt = |i: usize| w.map_or(1.0, |w| w[i]);
                let mut t = vec![0.0; k];
                for (i, &c) in ids.iter().enumerate() {
                    t[c] += wt(i);
                }
                if w.is_some() {
                    // The singleton must weigh > 0 to be a cluster.
                    assert!(t[3] > 0.0);
                }
                let total: f64 = (0..n).map(wt).sum();
                let part = Part {
                    ids: &ids,
                    totals: &t,
                    sw: w,
                    total,
                };
                let got = rows_stats(x.view(), &part);
                let mut means = Array2::<f64>::zeros((k, p));
                let mut overall = ndarray::Array1::<f64>::zeros(p);
                for (i, &c) in ids.iter().enumerate() {
                    means.row_mut(c).scaled_add(wt(i), &x.row(i));
                    overall.scaled_add(wt(i), &x.row(i));
                }
                for c in 0..k {
                    if t[c] > 0.0 {
                        let mut m = means.row_mut(c);
                        m /= t[c];
                    }
                }
                overall /= total;
                let near = |a: f64, b: f64, scale: f64| (a - b).abs() <= 1e-10 * scale.max(1.0);
                for (i, &c) in ids.iter().enumerate() {
                    let d = &x.row(i) - &means.row(c);
                    let want = d.dot(&d);
                    assert!(near(got.own_sq[i], want, want), "n {n} row {i}");
                }
                assert_eq!(got.own_sq[one], 0.0);
                for a in 0..k {
                    for b in 0..k {
                        let d = &means.row(a) - &means.row(b);
                        let want = d.dot(&d);
                        assert!(near(got.centre_sq[[a, b]], want, want), "n {n} {a} {b}");
                    }
                    let d = &means.row(a) - &overall;
                    let want = d.dot(&d);
                    assert!(near(got.to_mean_sq[a], want, want), "n {n} cluster {a}");
                }
                // The empty cluster's mean is 0: its distance to the
                // overall mean is the overall mean's norm.
                let want = overall.dot(&overall);
                assert!(near(got.to_mean_sq[4], want, want));
            }
        }
    }

    /// Above one chunk (4096 rows) the sums are added chunk by chunk: the
    /// same quantities as one sequential pass, to rounding.
    #[test]
    fn chunked_sums_match_one_sequential_pass() {
        let (n, p, k) = (10_000, 5, 3);
        assert!(chunk_rows(n, k, p) < n);
        let x = data(n, p, 4).mapv(|v| v / 100.0);
        let ids = labels(n);
        let t = totals(&ids, k);
        let got = rows_stats(x.view(), &part(&ids, &t));
        let mut means = Array2::<f64>::zeros((k, p));
        for (i, &c) in ids.iter().enumerate() {
            let mut m = means.row_mut(c);
            m += &x.row(i);
        }
        for c in 0..k {
            let mut m = means.row_mut(c);
            m /= t[c];
        }
        let overall = x.mean_axis(ndarray::Axis(0)).unwrap();
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-10 * b.abs().max(1.0);
        for (i, &c) in ids.iter().enumerate() {
            let d = &x.row(i) - &means.row(c);
            assert!(near(got.own_sq[i], d.dot(&d)), "row {i}");
        }
        for c in 0..k {
            let d = &means.row(c) - &overall;
            assert!(near(got.to_mean_sq[c], d.dot(&d)), "cluster {c}");
        }
        assert!(got.to_mean_sq.iter().any(|&v| v > 1e-6));
    }

    /// Counts-like sparse data: about a third of the entries nonzero.
    fn sparse_data(n: usize, p: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, p), |(i, j)| {
            let h = (i * 31 + j * 17 + i * j) % 13;
            if h < 4 { 1.0 + h as f64 } else { 0.0 }
        })
    }

    /// Sparse rows' sums, per nonzero, are the dense rows' to rounding,
    /// weighted or not; a row equal to its mean is at 0 exactly.
    #[test]
    fn sparse_stats_are_the_dense_ones() {
        let d = sparse_data(50, 9);
        let x = Csr::from_dense(d.view()).unwrap();
        let mut ids = labels(50);
        ids[10] = 3; // a singleton cluster
        let sw: Vec<f64> = (0..50).map(|i| [1.0, 2.5, 0.0][i % 3]).collect();
        for w in [None, Some(&sw[..])] {
            let wt = |i: usize| w.map_or(1.0, |w| w[i]);
            let mut t = vec![0.0; 4];
            for (i, &c) in ids.iter().enumerate() {
                t[c] += wt(i);
            }
            let part = Part {
                ids: &ids,
                totals: &t,
                sw: w,
                total: (0..50).map(wt).sum(),
            };
            let a = sparse_stats(&x, &x.sq_norms(), &part);
            let b = rows_stats(d.view(), &part);
            let near = |u: f64, v: f64| (u - v).abs() <= 1e-12 * v.abs().max(1.0);
            for (u, v) in a.own_sq.iter().zip(&b.own_sq) {
                assert!(near(*u, *v), "{u} vs {v}");
            }
            assert_eq!(a.own_sq[10], 0.0);
            for (u, v) in a.centre_sq.iter().zip(&b.centre_sq) {
                assert!(near(*u, *v), "{u} vs {v}");
            }
            for (u, v) in a.to_mean_sq.iter().zip(&b.to_mean_sq) {
                assert!(near(*u, *v), "{u} vs {v}");
            }
        }
    }

    /// The sparse sample's distances (CSR·CSRᵀ by column) are the dense
    /// sample's, with an all-zero row and columns the sample does not
    /// use; a row's copy is at 0 on both.
    #[test]
    fn sparse_sample_distances_are_the_dense_ones() {
        let mut d = sparse_data(70, 11).mapv(|v| v / 3.0);
        d.row_mut(5).fill(0.0);
        let copy = d.row(3).to_owned();
        d.row_mut(8).assign(&copy);
        let x = Csr::from_dense(d.view()).unwrap();
        let rows: Vec<usize> = (0..70).filter(|i| i % 3 != 1).collect();
        let sparse = Block::Sparse {
            x: &x,
            norms: x.sq_norms(),
        };
        let dense = Block::Rows(d.view().into());
        let (a, b) = (sparse.sample(&rows).sq_all(), dense.sample(&rows).sq_all());
        assert_eq!(a.dim(), (rows.len(), rows.len()));
        for (u, v) in a.iter().zip(&b) {
            assert!((u - v).abs() <= 1e-12 * v.max(1.0), "{u} vs {v}");
        }
        assert_eq!(a.row(2)[2], 0.0);
        // A row and its copy (sample rows 2 and 5) are at 0 exactly, not
        // at the expansion's rounding.
        assert_eq!((rows[2], rows[5]), (3, 8));
        assert_eq!(
            (a[[2, 5]], b[[2, 5]], a[[5, 2]], b[[5, 2]]),
            (0.0, 0.0, 0.0, 0.0)
        );
    }

    fn close(a: &Internal, b: &Internal) {
        for (x, y, what) in [
            (a.cost, b.cost, "cost"),
            (a.silhouette, b.silhouette, "silhouette"),
            (a.calinski_harabasz, b.calinski_harabasz, "CH"),
            (a.davies_bouldin, b.davies_bouldin, "DB"),
        ] {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "{what}: {x} vs {y}"
            );
        }
        assert_eq!(a.clusters, b.clusters);
    }

    #[test]
    fn a_linear_gram_matrix_scores_as_its_features() {
        let x = data(40, 4, 0);
        let lab = labels(40);
        let base = SilhouetteBase::new(40, 100, 0);
        let on_x = internal_in(&Space::features(x.view()), &lab, &base);
        let k = x.dot(&x.t());
        let g = Arc::new(Gram::from_dense(
            k.view(),
            &crate::kernel::stack::raw_spec(),
        ));
        let in_k = Space {
            kind: SpaceKind::Kernel,
            blocks: vec![(Block::Gram(g), 1.0)],
        };
        let in_k = internal_in(&in_k, &lab, &base);
        assert_eq!(in_k.space, SpaceKind::Kernel);
        close(&in_k, &on_x);
    }

    #[test]
    fn weighted_blocks_score_as_their_scaled_concatenation() {
        let (a, b) = (data(40, 3, 1), data(40, 2, 5));
        let (wa, wb) = (0.3, 2.0);
        let lab = labels(40);
        let joined = concatenate![
            ndarray::Axis(1),
            a.mapv(|v| v * f64::sqrt(wa)),
            b.mapv(|v| v * f64::sqrt(wb))
        ];
        let base = SilhouetteBase::new(40, 100, 0);
        let want = internal_in(&Space::features(joined.view()), &lab, &base);
        // A Gram block and a rows block mixed, and the subsample path.
        let kb = b.dot(&b.t());
        let gb = Arc::new(Gram::from_dense(
            kb.view(),
            &crate::kernel::stack::raw_spec(),
        ));
        let space = Space {
            kind: SpaceKind::Kernel,
            blocks: vec![(Block::Rows(a.view().into()), wa), (Block::Gram(gb), wb)],
        };
        close(&internal_in(&space, &lab, &base), &want);
        let sample = SilhouetteBase::new(40, 25, 3);
        let (got, want) = (
            internal_in(&space, &lab, &sample),
            internal_in(&Space::features(joined.view()), &lab, &sample),
        );
        close(&got, &want);
    }

    /// ⟨HKH, HLH⟩ / (‖HKH‖ ‖HLH‖) formed as matrices, for the test.
    fn alignment_by_matrices(k: &Array2<f64>, lab: &[usize]) -> f64 {
        let n = lab.len();
        let h = Array2::from_shape_fn((n, n), |(i, j)| {
            f64::from(u8::from(i == j)) - 1.0 / n as f64
        });
        let l = Array2::from_shape_fn((n, n), |(i, j)| f64::from(u8::from(lab[i] == lab[j])));
        let (hkh, hlh) = (h.dot(k).dot(&h), h.dot(&l).dot(&h));
        let dot = |a: &Array2<f64>, b: &Array2<f64>| (a * b).sum();
        dot(&hkh, &hlh) / (dot(&hkh, &hkh) * dot(&hlh, &hlh)).sqrt()
    }

    fn gram(k: &Array2<f64>) -> Arc<Gram> {
        Arc::new(Gram::from_dense(
            k.view(),
            &crate::kernel::stack::raw_spec(),
        ))
    }

    #[test]
    fn the_kernel_alignment_is_the_centred_alignment_of_the_matrices() {
        // 300 rows: the Gram matrix spans several tiles.
        let (x, y) = (data(300, 4, 0), data(300, 2, 5));
        let lab = labels(300);
        let (ka, kb) = (x.dot(&x.t()), y.dot(&y.t()).mapv(|v| (-v / 50.0).exp()));
        let one = Space {
            kind: SpaceKind::Kernel,
            blocks: vec![(Block::Gram(gram(&ka)), 1.0)],
        };
        let got = one.kernel_alignment(&lab, 3).unwrap();
        assert!(
            (got - alignment_by_matrices(&ka, &lab)).abs() < 1e-10,
            "{got}"
        );
        // Two kernels: their weighted sum.
        let two = Space {
            kind: SpaceKind::Kernel,
            blocks: vec![(Block::Gram(gram(&ka)), 0.3), (Block::Gram(gram(&kb)), 0.7)],
        };
        let combined = &ka * 0.3 + &kb * 0.7;
        let got = two.kernel_alignment(&lab, 3).unwrap();
        assert!(
            (got - alignment_by_matrices(&combined, &lab)).abs() < 1e-10,
            "{got}"
        );
    }

    #[test]
    fn the_partitions_own_kernel_aligns_fully_and_features_have_none() {
        let lab = labels(60);
        let l = Array2::from_shape_fn((60, 60), |(i, j)| f64::from(u8::from(lab[i] == lab[j])));
        let own = Space {
            kind: SpaceKind::Kernel,
            blocks: vec![(Block::Gram(gram(&l)), 1.0)],
        };
        assert!((own.kernel_alignment(&lab, 3).unwrap() - 1.0).abs() < 1e-12);
        // One cluster: L is constant, centred to nothing.
        assert_eq!(own.kernel_alignment(&[0; 60], 1), None);
        let x = data(60, 3, 1);
        assert_eq!(Space::features(x.view()).kernel_alignment(&lab, 3), None);
    }
}
