//! Gram matrices, stored as their lower triangle in square tiles.
//!
//! K is symmetric, so only the tiles K_IJ with J ≤ I are kept (about half of
//! n² entries), each tile contiguous and row-major, in f64 or f32. A tile is
//! built by one matrix product (X_I·X_Jᵀ, then ‖x‖² + ‖y‖² − 2xᵀy for the
//! distance kernels) and the kernel function; K·B reads every stored tile
//! once and uses an off-diagonal tile twice (K_IJ·B_J and K_IJᵀ·B_I), so the
//! n×n×k product of every kpower iteration streams about n²/2 entries,
//! sequentially.
//!
//! Work is split into fixed row blocks of tiles, each one sequential task, so
//! every result depends only on the inputs, never on the thread count.

use super::spec::{Kind, Post, Precision, Resolved};
use crate::error::{Error, Result};
use crate::linalg;
pub use crate::solver::space::gram::Gram;
use crate::solver::space::gram::{Layout, Store};
// The progress module itself, not the solver core: the problem holds Gram
// matrices, so the core must not be imported back through its root.
use crate::solver::progress::Ctx;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, s};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Side of a tile.
pub const TILE: usize = 256;

impl Layout {
    fn new(n: usize) -> Self {
        Layout {
            n,
            nb: n.div_ceil(TILE),
        }
    }

    /// Rows (= columns) of block `b`.
    fn size(&self, b: usize) -> usize {
        (self.n - b * TILE).min(TILE)
    }

    /// Offset of tile (bi, bj), bj ≤ bi. Every block but the last is full,
    /// so the row blocks before `bi` hold TILE²·bi(bi+1)/2 entries.
    fn offset(&self, bi: usize, bj: usize) -> usize {
        TILE * TILE * bi * (bi + 1) / 2 + bj * self.size(bi) * TILE
    }

    /// Entries stored in total.
    fn len(&self) -> usize {
        if self.nb == 0 {
            0
        } else {
            self.offset(self.nb - 1, 0) + self.size(self.nb - 1) * self.n
        }
    }

    /// Index of entry (i, j) of K.
    fn index(&self, i: usize, j: usize) -> usize {
        let (i, j) = if j > i { (j, i) } else { (i, j) };
        let (bi, bj) = (i / TILE, j / TILE);
        self.offset(bi, bj) + (i - bi * TILE) * self.size(bj) + (j - bj * TILE)
    }
}

/// Bytes a Gram matrix of n points takes in storage of `precision`.
pub fn stored_bytes(n: usize, precision: Precision) -> f64 {
    Layout::new(n).len() as f64 * precision.bytes() as f64
}

crate::solver::cache::cache_key! {
    /// A Gram matrix, under its spec's key (family [`super::GRAM_FAMILY`]).
    pub GramKey => Gram
}

trait Elem: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Elem for f64 {
    const ZERO: Self = 0.0;
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Elem for f32 {
    const ZERO: Self = 0.0;
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// The storage cut into row blocks of tiles: block `bi` holds tiles
/// (bi, 0..=bi), contiguous.
fn row_blocks<T>(k: &mut [T], lay: Layout) -> Vec<(usize, &mut [T])> {
    let mut out = Vec::with_capacity(lay.nb);
    let mut rest = k;
    for bi in 0..lay.nb {
        let len = lay.size(bi) * (bi * TILE + lay.size(bi));
        let (head, tail) = rest.split_at_mut(len);
        out.push((bi, head));
        rest = tail;
    }
    out
}

impl Gram {
    /// Builds the Gram matrix of the rows of `x`. Checks `ctx` for
    /// cancellation between row blocks and reports progress as a stage.
    pub fn build(x: ArrayView2<f64>, spec: &Resolved, ctx: &Ctx) -> Result<Gram> {
        if spec.kind == Kind::Knn {
            return Err(super::spec::not_psd("--kernel", &spec.to_string()));
        }
        let t0 = Instant::now();
        let n = x.nrows();
        let layout = Layout::new(n);
        let label = format!("building kernel {spec} ({n}×{n})");
        ctx.stage(&label, 0.0);
        let (store, guarded) = match spec.precision {
            Precision::F64 => {
                let (k, g) = build_typed::<f64>(x, spec, layout, ctx, &label)?;
                (Store::F64(k), g)
            }
            Precision::F32 => {
                let (k, g) = build_typed::<f32>(x, spec, layout, ctx, &label)?;
                (Store::F32(k), g)
            }
        };
        let diag = (0..n)
            .map(|i| match &store {
                Store::F64(k) => k[layout.index(i, i)],
                Store::F32(k) => k[layout.index(i, i)] as f64,
            })
            .collect();
        ctx.stage(&label, 1.0);
        Ok(Gram {
            layout,
            store,
            diag,
            spec: spec.clone(),
            build_secs: t0.elapsed().as_secs_f64(),
            guarded,
            cols: None,
        })
    }

    /// A Gram matrix from a dense n×n matrix that is already symmetric (a
    /// precomputed kernel; see `stack::check_symmetric`): the lower
    /// triangle is stored, then `spec.post` applied as after a build.
    pub fn from_dense(k: ArrayView2<f64>, spec: &Resolved) -> Gram {
        let n = k.nrows();
        assert_eq!(k.ncols(), n, "a Gram matrix is square");
        let layout = Layout::new(n);
        let (store, guarded) = match spec.precision {
            Precision::F64 => {
                let (k, g) = dense_typed::<f64>(k, layout, spec.post);
                (Store::F64(k), g)
            }
            Precision::F32 => {
                let (k, g) = dense_typed::<f32>(k, layout, spec.post);
                (Store::F32(k), g)
            }
        };
        Gram::finish(layout, store, spec.clone(), 0.0, guarded)
    }

    /// A copy with `post` applied (centre, normalise, rescale) and stored
    /// in `precision`: a precomputed kernel as an algorithm wants it.
    pub fn with_post(&self, post: Post, precision: Precision) -> Gram {
        let t0 = Instant::now();
        let layout = self.layout;
        fn wrap<T>(r: (Vec<T>, usize), f: impl FnOnce(Vec<T>) -> Store) -> (Store, usize) {
            (f(r.0), r.1)
        }
        let (store, guarded) = match (&self.store, precision) {
            (Store::F64(k), Precision::F64) => wrap(reprocess(k, layout, post), Store::F64),
            (Store::F32(k), Precision::F64) => wrap(reprocess(k, layout, post), Store::F64),
            (Store::F64(k), Precision::F32) => wrap(reprocess(k, layout, post), Store::F32),
            (Store::F32(k), Precision::F32) => wrap(reprocess(k, layout, post), Store::F32),
        };
        let spec = Resolved {
            post,
            precision,
            ..self.spec.clone()
        };
        Gram::finish(layout, store, spec, t0.elapsed().as_secs_f64(), guarded)
    }

    /// The entry-wise mean of Gram matrices of the same n, in f64 with
    /// `spec` (a single-kernel algorithm on a precomputed stack).
    pub fn average(grams: &[&Gram], spec: &Resolved) -> Gram {
        let layout = grams[0].layout;
        let mut acc = vec![0.0f64; layout.len()];
        for g in grams {
            assert_eq!(g.layout.n, layout.n, "kernels of one stack share n");
            match &g.store {
                Store::F64(k) => acc.iter_mut().zip(k).for_each(|(a, v)| *a += v),
                Store::F32(k) => acc.iter_mut().zip(k).for_each(|(a, v)| *a += *v as f64),
            }
        }
        let w = 1.0 / grams.len() as f64;
        acc.iter_mut().for_each(|a| *a *= w);
        let guarded = post_process(&mut acc, layout, spec.post);
        Gram::finish(layout, Store::F64(acc), spec.clone(), 0.0, guarded)
    }

    fn finish(
        layout: Layout,
        store: Store,
        spec: Resolved,
        build_secs: f64,
        guarded: usize,
    ) -> Gram {
        let diag = (0..layout.n)
            .map(|i| match &store {
                Store::F64(k) => k[layout.index(i, i)],
                Store::F32(k) => k[layout.index(i, i)] as f64,
            })
            .collect();
        Gram {
            layout,
            store,
            diag,
            spec,
            build_secs,
            guarded,
            cols: None,
        }
    }

    pub fn n(&self) -> usize {
        self.layout.n
    }

    /// K_ii for every i.
    pub fn diag(&self) -> &[f64] {
        &self.diag
    }

    pub fn spec(&self) -> &Resolved {
        &self.spec
    }

    /// Points whose diagonal was zero (up to rounding) or negative when
    /// `normalize` ran (after `center`: points at the feature-space mean);
    /// they got a unit diagonal and no similarity to any other point.
    pub fn guarded(&self) -> usize {
        self.guarded
    }

    /// The Gram matrix as built on the view of columns `cols`.
    pub fn on_columns(self, cols: Range<usize>) -> Gram {
        Gram {
            cols: Some(cols),
            ..self
        }
    }

    /// The feature columns it was built on; `None`: every column.
    pub fn columns(&self) -> Option<Range<usize>> {
        self.cols.clone()
    }

    /// Wall time of the build.
    pub fn build_secs(&self) -> f64 {
        self.build_secs
    }

    /// Bytes held by the entries (the lower triangle, in tiles: about
    /// n²/2 × the element size).
    pub fn bytes(&self) -> usize {
        self.layout.len() * self.spec.precision.bytes()
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        let at = self.layout.index(i, j);
        match &self.store {
            Store::F64(k) => k[at],
            Store::F32(k) => k[at] as f64,
        }
    }

    /// Row `i` (= column `i`) in f64.
    pub fn row(&self, i: usize) -> Vec<f64> {
        let lay = self.layout;
        let bi = i / TILE;
        let mut out = Vec::with_capacity(lay.n);
        let mut push = |at: usize, len: usize, stride: usize| match &self.store {
            Store::F64(k) => out.extend((0..len).map(|t| k[at + t * stride])),
            Store::F32(k) => out.extend((0..len).map(|t| k[at + t * stride] as f64)),
        };
        // Tiles left of the diagonal: a contiguous piece of row i.
        for bj in 0..bi {
            push(lay.index(i, bj * TILE), lay.size(bj), 1);
        }
        // The diagonal tile holds the whole row piece (both triangles).
        push(lay.index(i, bi * TILE), lay.size(bi), 1);
        // Below: column i of the tiles (bj, bi), bj > bi.
        for bj in bi + 1..lay.nb {
            push(lay.index(bj * TILE, i), lay.size(bj), lay.size(bi));
        }
        out
    }

    /// The rows of each block [`Gram::row_block`] returns, in order.
    pub fn row_blocks(&self) -> Vec<std::ops::Range<usize>> {
        (0..self.layout.nb)
            .map(|b| b * TILE..b * TILE + self.layout.size(b))
            .collect()
    }

    /// Row block `bi` of K (rows `row_blocks()[bi]`), the whole width, dense.
    /// Each tile is read once and contiguously (those below the diagonal
    /// transposed), where [`Gram::row`] strides through the tiles below.
    pub fn row_block(&self, bi: usize) -> Array2<f64> {
        match &self.store {
            Store::F64(k) => row_block_of(k, self.layout, bi),
            Store::F32(k) => row_block_of(k, self.layout, bi),
        }
    }

    /// A dense f64 copy (tests, small problems).
    pub fn to_array(&self) -> Array2<f64> {
        let n = self.n();
        let mut a = Array2::zeros((n, n));
        for i in 0..n {
            a.row_mut(i).assign(&ndarray::Array1::from(self.row(i)));
        }
        a
    }

    /// K·B (f64 accumulation in both storages). Every stored tile is read
    /// once; an off-diagonal tile K_IJ (I > J) serves G_I += K_IJ·B_J and
    /// G_J += K_IJᵀ·B_I. For the skinny n×n·n×k shape of a kpower step the
    /// cost is the memory traffic, which this keeps to one sequential pass
    /// over n²/2 entries.
    ///
    /// Each row block of tiles is one sequential GEMM task that keeps its
    /// transposed contributions apart; they are summed in block order, so
    /// the result never depends on the thread count.
    pub fn times(&self, b: ArrayView2<f64>) -> Array2<f64> {
        let lay = self.layout;
        let n = lay.n;
        assert_eq!(b.nrows(), n, "K·B: B must have n rows");
        let cols = b.ncols();
        let mut out = Array2::<f64>::zeros((n, cols));
        if cols == 0 || n == 0 {
            return out;
        }
        let b = b.as_standard_layout();
        let parts: Vec<(Array2<f64>, Array2<f64>)> = (0..lay.nb)
            .into_par_iter()
            .map(|bi| {
                let r0 = bi * TILE;
                let rows = lay.size(bi);
                let mut own = Array2::<f64>::zeros((rows, cols));
                let mut trans = Array2::<f64>::zeros((r0, cols));
                let b_i = b.slice(s![r0..r0 + rows, ..]);
                let mut buf: Vec<f64> = Vec::new();
                for bj in 0..=bi {
                    let c0 = bj * TILE;
                    let w = lay.size(bj);
                    let at = lay.offset(bi, bj);
                    let tile: ArrayView2<f64> = match &self.store {
                        Store::F64(k) => {
                            ArrayView2::from_shape((rows, w), &k[at..at + rows * w]).expect("tile")
                        }
                        Store::F32(k) => {
                            buf.clear();
                            buf.extend(k[at..at + rows * w].iter().map(|&v| v as f64));
                            ArrayView2::from_shape((rows, w), &buf[..]).expect("tile")
                        }
                    };
                    linalg::gemm_seq(own.view_mut(), tile, b.slice(s![c0..c0 + w, ..]), 1.0, true);
                    if bj < bi {
                        linalg::gemm_seq(
                            trans.slice_mut(s![c0..c0 + w, ..]),
                            tile.t(),
                            b_i,
                            1.0,
                            false,
                        );
                    }
                }
                (own, trans)
            })
            .collect();
        let slice = out.as_slice_mut().expect("standard layout");
        slice
            .par_chunks_mut(TILE * cols)
            .enumerate()
            .for_each(|(bj, chunk)| {
                let c0 = bj * TILE;
                let w = lay.size(bj);
                let mut o = ArrayViewMut2::from_shape((w, cols), chunk).expect("block");
                o.assign(&parts[bj].0);
                for (_, trans) in &parts[bj + 1..] {
                    o += &trans.slice(s![c0..c0 + w, ..]);
                }
            });
        out
    }

    /// Squared feature-space distances ‖φ(xᵢ) − φ(x_c)‖² = K_ii + K_cc − 2K_ic
    /// from every point to each candidate (n × |cands|), clamped at 0; a
    /// point's distance to itself is exactly 0.
    pub fn dists_to(&self, cands: &[usize]) -> Array2<f64> {
        let n = self.n();
        let mut d = Array2::<f64>::zeros((n, cands.len()));
        for (t, &c) in cands.iter().enumerate() {
            let row = self.row(c);
            let kcc = self.diag[c];
            for i in 0..n {
                d[[i, t]] = if i == c {
                    0.0
                } else {
                    (self.diag[i] + kcc - 2.0 * row[i]).max(0.0)
                };
            }
        }
        d
    }
}

fn row_block_of<T: Elem>(k: &[T], lay: Layout, bi: usize) -> Array2<f64> {
    let rows = lay.size(bi);
    let n = lay.n;
    let mut out = vec![0.0; rows * n];
    for bj in 0..lay.nb {
        let c0 = bj * TILE;
        let w = lay.size(bj);
        if bj <= bi {
            let tile = &k[lay.offset(bi, bj)..][..rows * w];
            for (src, dst) in tile.chunks_exact(w).zip(out.chunks_exact_mut(n)) {
                for (d, s) in dst[c0..c0 + w].iter_mut().zip(src) {
                    *d = s.to_f64();
                }
            }
        } else {
            // Tile (bj, bi): w rows of `rows` entries; row jj is column
            // c0 + jj of the block. Transposed in strips of 32 columns, so
            // the writes stay contiguous and the strided reads reuse lines.
            let tile = &k[lay.offset(bj, bi)..][..w * rows];
            for jb in (0..w).step_by(32) {
                let je = (jb + 32).min(w);
                for ii in 0..rows {
                    let dst = &mut out[ii * n + c0 + jb..ii * n + c0 + je];
                    for (t, d) in dst.iter_mut().enumerate() {
                        *d = tile[(jb + t) * rows + ii].to_f64();
                    }
                }
            }
        }
    }
    Array2::from_shape_vec((rows, n), out).expect("rows × n")
}

/// One kernel entry from the inner product `g` = xᵢᵀxⱼ and the squared
/// norms; `same` is i == j.
#[inline]
pub(crate) fn entry(spec: &Resolved, g: f64, ni: f64, nj: f64, same: bool) -> f64 {
    let sq = || {
        if same {
            0.0
        } else {
            (ni + nj - 2.0 * g).max(0.0)
        }
    };
    let cos = || {
        if same {
            1.0
        } else if ni > 0.0 && nj > 0.0 {
            (g / (ni.sqrt() * nj.sqrt())).clamp(-1.0, 1.0)
        } else {
            // A zero vector has no direction: orthogonal to everything else.
            0.0
        }
    };
    match spec.kind {
        // A precomputed kernel is stored, never built: see `from_dense`.
        // knn is refused before a build (`Gram::build`): never an entry.
        Kind::Linear | Kind::Precomputed | Kind::Knn => g,
        Kind::Poly => (spec.a + g).powi(spec.b as i32),
        Kind::Cosine => cos(),
        Kind::Gaussian => {
            let s = spec.sigma.expect("resolved");
            (-sq() / (2.0 * s * s)).exp()
        }
        Kind::Laplacian => {
            let s = spec.sigma.expect("resolved");
            (-sq().sqrt() / s).exp()
        }
        Kind::Geodesic => {
            let s = spec.sigma.expect("resolved");
            // arccos of a value clamped to [−1, 1]: never NaN.
            (-cos().acos() / (2.0 * s * s)).exp()
        }
    }
}

fn build_typed<T: Elem>(
    x: ArrayView2<f64>,
    spec: &Resolved,
    lay: Layout,
    ctx: &Ctx,
    label: &str,
) -> Result<(Vec<T>, usize)> {
    let norms = linalg::row_sq_norms(x);
    let mut k: Vec<T> = vec![T::ZERO; lay.len()];
    let done = AtomicUsize::new(0);
    // Row blocks of tiles, largest (last) first for a better balance.
    let mut blocks = row_blocks(&mut k, lay);
    blocks.reverse();
    blocks
        .into_par_iter()
        .try_for_each(|(bi, chunk)| -> Result<()> {
            if ctx.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let r0 = bi * TILE;
            let rows = lay.size(bi);
            let xi = x.slice(s![r0..r0 + rows, ..]);
            let mut g = Array2::<f64>::zeros((rows, TILE));
            let mut at = 0;
            for bj in 0..=bi {
                let c0 = bj * TILE;
                let w = lay.size(bj);
                let mut gv = g.slice_mut(s![.., ..w]);
                linalg::gemm_seq(
                    gv.view_mut(),
                    xi,
                    x.slice(s![c0..c0 + w, ..]).t(),
                    1.0,
                    false,
                );
                let tile = &mut chunk[at..at + rows * w];
                for ii in 0..rows {
                    let i = r0 + ii;
                    let gr = g.row(ii);
                    let out = &mut tile[ii * w..(ii + 1) * w];
                    // On the diagonal tile only the lower half is computed
                    // and then mirrored, so K is exactly symmetric.
                    let jmax = if bj == bi { ii + 1 } else { w };
                    for jj in 0..jmax {
                        let j = c0 + jj;
                        out[jj] = T::from_f64(entry(spec, gr[jj], norms[i], norms[j], i == j));
                    }
                }
                if bj == bi {
                    for ii in 0..rows {
                        for jj in ii + 1..rows {
                            tile[ii * w + jj] = tile[jj * w + ii];
                        }
                    }
                }
                at += rows * w;
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            ctx.stage(label, 0.9 * d as f64 / lay.nb as f64);
            Ok(())
        })?;
    let guarded = post_process(&mut k, lay, spec.post);
    Ok((k, guarded))
}

/// The stored triangle of a dense symmetric matrix, post-processed. The
/// upper half of a diagonal tile is mirrored from the lower, so the result
/// is exactly symmetric whatever rounding the input had.
fn dense_typed<T: Elem>(k: ArrayView2<f64>, lay: Layout, post: Post) -> (Vec<T>, usize) {
    let mut out: Vec<T> = vec![T::ZERO; lay.len()];
    for_each_entry(&mut out, lay, |i, j, v| {
        let (i, j) = if j > i { (j, i) } else { (i, j) };
        *v = T::from_f64(k[[i, j]]);
    });
    let guarded = post_process(&mut out, lay, post);
    (out, guarded)
}

/// A converted copy of a store with `post` applied.
fn reprocess<S: Elem, T: Elem>(k: &[S], lay: Layout, post: Post) -> (Vec<T>, usize) {
    let mut out: Vec<T> = k.iter().map(|v| T::from_f64(v.to_f64())).collect();
    let guarded = post_process(&mut out, lay, post);
    (out, guarded)
}

/// Calls `f(i, j, &mut entry)` on every stored entry (i ≥ j, plus the upper
/// half of the diagonal tiles), one task per row block.
fn for_each_entry<T: Elem>(k: &mut [T], lay: Layout, f: impl Fn(usize, usize, &mut T) + Sync) {
    row_blocks(k, lay).into_par_iter().for_each(|(bi, chunk)| {
        let r0 = bi * TILE;
        let rows = lay.size(bi);
        let mut at = 0;
        for bj in 0..=bi {
            let c0 = bj * TILE;
            let w = lay.size(bj);
            for (t, v) in chunk[at..at + rows * w].iter_mut().enumerate() {
                f(r0 + t / w, c0 + t % w, v);
            }
            at += rows * w;
        }
    });
}

/// Centre (K ← HKH), normalise (unit diagonal) and rescale (min–max to
/// [0, 1]), in that order. Each step is a function of (K_ij, i, j) that is
/// symmetric in i and j, so the stored triangle stays a symmetric matrix.
/// Returns the number of diagonals the normalisation had to guard.
fn post_process<T: Elem>(k: &mut [T], lay: Layout, post: Post) -> usize {
    let n = lay.n;
    let mut guarded = 0;
    if n == 0 {
        return guarded;
    }
    let diag = |k: &[T]| -> Vec<f64> { (0..n).map(|i| k[lay.index(i, i)].to_f64()).collect() };
    if post.center {
        // Row means from one pass over the rows (K symmetric).
        let r: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut acc = 0.0;
                for j in 0..n {
                    acc += k[lay.index(i, j)].to_f64();
                }
                acc / n as f64
            })
            .collect();
        let m = r.iter().sum::<f64>() / n as f64;
        for_each_entry(k, lay, |i, j, v| {
            *v = T::from_f64((v.to_f64() + m) - (r[i] + r[j]));
        });
    }
    if post.normalize {
        // After centring, a point at the feature-space mean has K_ii = 0
        // up to rounding (tiny or negative): dividing by its root would
        // blow rounding noise up to ±1 similarities, so such a diagonal
        // counts as zero below a floor relative to the largest one.
        let d = diag(k);
        let floor = 1e-12 * d.iter().fold(0.0, |a: f64, &b| a.max(b.abs()));
        let sq: Vec<f64> = d
            .iter()
            .map(|&d| if d > floor { d.sqrt() } else { 0.0 })
            .collect();
        guarded = sq.iter().filter(|&&v| v == 0.0).count();
        for_each_entry(k, lay, |i, j, v| {
            let den = sq[i] * sq[j];
            *v = T::from_f64(if i == j {
                1.0
            } else if den > 0.0 {
                v.to_f64() / den
            } else {
                // A point with K_ii = 0 sits at the origin of feature space:
                // give it a unit diagonal and no similarity.
                0.0
            });
        });
    }
    if post.rescale {
        let (mn, mx) = k
            .par_chunks(TILE * TILE)
            .map(|c| {
                c.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                        let v = v.to_f64();
                        (a.min(v), b.max(v))
                    })
            })
            .reduce(
                || (f64::INFINITY, f64::NEG_INFINITY),
                |(a, b), (c, d)| (a.min(c), b.max(d)),
            );
        let range = mx - mn;
        k.par_chunks_mut(TILE * TILE).for_each(|c| {
            for v in c.iter_mut() {
                *v = T::from_f64(if range > 0.0 {
                    (v.to_f64() - mn) / range
                } else {
                    0.0
                });
            }
        });
    }
    guarded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_indexes_every_entry_once() {
        for n in [1, 5, 255, 256, 257, 600] {
            let lay = Layout::new(n);
            let mut seen = vec![0u32; lay.len()];
            for i in 0..n {
                for j in 0..=i {
                    seen[lay.index(i, j)] += 1;
                    assert_eq!(lay.index(i, j), lay.index(j, i));
                }
            }
            // Off-diagonal tiles: each entry once; diagonal tiles also hold
            // the upper half (the mirror), never indexed for j > i directly.
            let extra: usize = (0..lay.nb)
                .map(|b| lay.size(b) * (lay.size(b) - 1) / 2)
                .sum();
            assert_eq!(seen.iter().filter(|&&c| c == 1).count(), n * (n + 1) / 2);
            assert_eq!(seen.iter().filter(|&&c| c == 0).count(), extra);
            assert_eq!(lay.len(), n * (n + 1) / 2 + extra);
        }
    }
}
