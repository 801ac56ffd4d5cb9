//! Gram matrices: built by blocked matrix products (‖x‖² + ‖y‖² − 2xᵀy for
//! the distance kernels), in parallel row blocks, lower triangle only and
//! then mirrored, so the matrix is exactly symmetric; stored in f64 or f32.
//!
//! Every block has a fixed size and every product goes through
//! [`crate::linalg`], so the matrix does not depend on the thread count.

use super::bandwidth::{COL_TILE, ROW_BLOCK};
use super::spec::{Kind, Post, Precision, Resolved};
use crate::algo::Ctx;
use crate::error::{Error, Result};
use crate::linalg;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, ShapeBuilder, s};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Storage of the entries, row-major n×n.
enum Store {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

/// A kernel matrix K (n×n, symmetric) with its diagonal in f64.
pub struct Gram {
    n: usize,
    store: Store,
    diag: Vec<f64>,
    spec: Resolved,
    build_secs: f64,
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

/// Tile size of the symmetric product K·B (f32 tiles are converted to f64
/// one at a time, in cache).
const SYM_TILE: usize = 256;

impl Gram {
    /// Builds the Gram matrix of the rows of `x`. Checks `ctx` for
    /// cancellation between blocks and reports progress as a stage.
    pub fn build(x: ArrayView2<f64>, spec: &Resolved, ctx: &Ctx) -> Result<Gram> {
        let t0 = Instant::now();
        let n = x.nrows();
        let label = format!("building kernel {spec} ({n}×{n})");
        ctx.stage(&label, 0.0);
        let store = match spec.precision {
            Precision::F64 => Store::F64(build_typed::<f64>(x, spec, ctx, &label)?),
            Precision::F32 => Store::F32(build_typed::<f32>(x, spec, ctx, &label)?),
        };
        let diag = match &store {
            Store::F64(k) => (0..n).map(|i| k[i * n + i]).collect(),
            Store::F32(k) => (0..n).map(|i| k[i * n + i] as f64).collect(),
        };
        ctx.stage(&label, 1.0);
        Ok(Gram {
            n,
            store,
            diag,
            spec: spec.clone(),
            build_secs: t0.elapsed().as_secs_f64(),
        })
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// K_ii for every i.
    pub fn diag(&self) -> &[f64] {
        &self.diag
    }

    pub fn spec(&self) -> &Resolved {
        &self.spec
    }

    /// Wall time of the build.
    pub fn build_secs(&self) -> f64 {
        self.build_secs
    }

    /// Bytes held by the entries.
    pub fn bytes(&self) -> usize {
        self.n * self.n * self.spec.precision.bytes()
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        match &self.store {
            Store::F64(k) => k[i * self.n + j],
            Store::F32(k) => k[i * self.n + j] as f64,
        }
    }

    /// Row `i` (= column `i`) in f64.
    pub fn row(&self, i: usize) -> Vec<f64> {
        let n = self.n;
        match &self.store {
            Store::F64(k) => k[i * n..(i + 1) * n].to_vec(),
            Store::F32(k) => k[i * n..(i + 1) * n].iter().map(|&v| v as f64).collect(),
        }
    }

    /// The matrix as an f64 view, when it is stored in f64.
    pub fn view_f64(&self) -> Option<ArrayView2<'_, f64>> {
        match &self.store {
            Store::F64(k) => Some(ArrayView2::from_shape((self.n, self.n), k).expect("n×n")),
            Store::F32(_) => None,
        }
    }

    /// A dense f64 copy (tests, small problems).
    pub fn to_array(&self) -> Array2<f64> {
        let n = self.n;
        Array2::from_shape_fn((n, n), |(i, j)| self.get(i, j))
    }

    /// K·B (f64 accumulation in both storages), reading only the lower
    /// triangle of K: K is symmetric, so every off-diagonal tile K_IJ
    /// (I > J) is read once and used twice, G_I += K_IJ·B_J and
    /// G_J += K_IJᵀ·B_I. For the skinny n×n·n×k shape of a kpower step the
    /// cost is the memory traffic, which this halves.
    ///
    /// Work is split into fixed row blocks; each block is one sequential
    /// GEMM task that keeps its transposed contributions apart, and they are
    /// summed in block order, so the result never depends on the thread
    /// count.
    pub fn times(&self, b: ArrayView2<f64>) -> Array2<f64> {
        let n = self.n;
        assert_eq!(b.nrows(), n, "K·B: B must have n rows");
        let cols = b.ncols();
        let mut out = Array2::<f64>::zeros((n, cols));
        if cols == 0 || n == 0 {
            return out;
        }
        let b = b.as_standard_layout();
        let nb = n.div_ceil(SYM_TILE);
        let span = |blk: usize| (blk * SYM_TILE, ((blk + 1) * SYM_TILE).min(n));
        // Block I: its own rows G_I (lower tiles and the diagonal tile) and
        // the contributions T_I to rows 0..start(I) from its tiles' transposes.
        let parts: Vec<(Array2<f64>, Array2<f64>)> = (0..nb)
            .into_par_iter()
            .map(|bi| {
                let (r0, r1) = span(bi);
                let rows = r1 - r0;
                let mut own = Array2::<f64>::zeros((rows, cols));
                let mut trans = Array2::<f64>::zeros((r0, cols));
                let b_i = b.slice(s![r0..r1, ..]);
                let mut buf: Vec<f64> = Vec::new();
                for bj in 0..=bi {
                    let (c0, c1) = span(bj);
                    let w = c1 - c0;
                    let tile: ArrayView2<f64> = match &self.store {
                        Store::F64(k) => ArrayView2::from_shape(
                            (rows, w).strides((n, 1)),
                            &k[r0 * n + c0..(r1 - 1) * n + c1],
                        )
                        .expect("tile"),
                        Store::F32(k) => {
                            buf.clear();
                            for i in r0..r1 {
                                buf.extend(k[i * n + c0..i * n + c1].iter().map(|&v| v as f64));
                            }
                            ArrayView2::from_shape((rows, w), &buf[..]).expect("tile")
                        }
                    };
                    linalg::gemm_seq(own.view_mut(), tile, b.slice(s![c0..c1, ..]), 1.0, true);
                    if bj < bi {
                        linalg::gemm_seq(
                            trans.slice_mut(s![c0..c1, ..]),
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
            .par_chunks_mut(SYM_TILE * cols)
            .enumerate()
            .for_each(|(bj, chunk)| {
                let (c0, c1) = span(bj);
                let mut o = ArrayViewMut2::from_shape((c1 - c0, cols), chunk).expect("block");
                o.assign(&parts[bj].0);
                for (_, trans) in &parts[bj + 1..] {
                    o += &trans.slice(s![c0..c1, ..]);
                }
            });
        out
    }

    /// Squared feature-space distances ‖φ(xᵢ) − φ(x_c)‖² = K_ii + K_cc − 2K_ic
    /// from every point to each candidate (n × |cands|), clamped at 0; a
    /// point's distance to itself is exactly 0.
    pub fn dists_to(&self, cands: &[usize]) -> Array2<f64> {
        let n = self.n;
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

/// One kernel entry from the inner product `g` = xᵢᵀxⱼ and the squared
/// norms; `same` is i == j.
#[inline]
fn entry(spec: &Resolved, g: f64, ni: f64, nj: f64, same: bool) -> f64 {
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
        Kind::Linear => g,
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
    ctx: &Ctx,
    label: &str,
) -> Result<Vec<T>> {
    let n = x.nrows();
    let norms = linalg::row_sq_norms(x);
    let mut k: Vec<T> = vec![T::ZERO; n * n];
    if n == 0 {
        return Ok(k);
    }
    let blocks = n.div_ceil(ROW_BLOCK);
    let done = AtomicUsize::new(0);
    k.par_chunks_mut(ROW_BLOCK * n)
        .enumerate()
        .try_for_each(|(b, chunk)| -> Result<()> {
            if ctx.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let r0 = b * ROW_BLOCK;
            let r1 = (r0 + ROW_BLOCK).min(n);
            let mut c0 = 0;
            while c0 < r1 {
                let c1 = (c0 + COL_TILE).min(r1);
                let mut g = Array2::<f64>::zeros((r1 - r0, c1 - c0));
                linalg::gemm_seq(
                    g.view_mut(),
                    x.slice(s![r0..r1, ..]),
                    x.slice(s![c0..c1, ..]).t(),
                    1.0,
                    false,
                );
                for ii in 0..r1 - r0 {
                    let i = r0 + ii;
                    let row = &mut chunk[ii * n..(ii + 1) * n];
                    let gr = g.row(ii);
                    for j in c0..c1.min(i + 1) {
                        row[j] = T::from_f64(entry(spec, gr[j - c0], norms[i], norms[j], i == j));
                    }
                }
                c0 = c1;
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if d.is_multiple_of(8) {
                ctx.stage(label, 0.9 * d as f64 / blocks as f64);
            }
            Ok(())
        })?;
    mirror(&mut k, n);
    post_process(&mut k, n, spec.post);
    Ok(k)
}

/// A raw pointer that may cross threads (see [`mirror`] for why it is safe).
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}
impl<T> SendPtr<T> {
    fn get(self) -> *mut T {
        self.0
    }
}

/// Copies the lower triangle onto the upper one, in tiles.
fn mirror<T: Elem>(k: &mut [T], n: usize) {
    const TILE: usize = 64;
    assert_eq!(k.len(), n * n);
    let ptr = SendPtr(k.as_mut_ptr());
    (0..n.div_ceil(TILE)).into_par_iter().for_each(|bi| {
        let p = ptr.get();
        let i0 = bi * TILE;
        let i1 = (i0 + TILE).min(n);
        let mut j0 = i0;
        while j0 < n {
            let j1 = (j0 + TILE).min(n);
            for i in i0..i1 {
                for j in j0.max(i + 1)..j1 {
                    // SAFETY: this task alone writes the upper-triangle
                    // entries (i, j > i) of its row band, and only reads
                    // lower-triangle entries (j, i), which nobody writes
                    // during the mirror; all indices are < n².
                    unsafe { *p.add(i * n + j) = *p.add(j * n + i) };
                }
            }
            j0 = j1;
        }
    });
}

/// Centre (K ← HKH), normalise (unit diagonal) and rescale (min–max to
/// [0, 1]), in that order. Each step keeps K exactly symmetric.
fn post_process<T: Elem>(k: &mut [T], n: usize, post: Post) {
    if n == 0 {
        return;
    }
    if post.center {
        let r: Vec<f64> = k
            .par_chunks(n)
            .map(|row| row.iter().map(|v| v.to_f64()).sum::<f64>() / n as f64)
            .collect();
        let m = r.iter().sum::<f64>() / n as f64;
        k.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            for (j, v) in row.iter_mut().enumerate() {
                *v = T::from_f64((v.to_f64() + m) - (r[i] + r[j]));
            }
        });
    }
    if post.normalize {
        let sq: Vec<f64> = (0..n)
            .map(|i| k[i * n + i].to_f64().max(0.0).sqrt())
            .collect();
        k.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            for (j, v) in row.iter_mut().enumerate() {
                let den = sq[i] * sq[j];
                *v = T::from_f64(if i == j {
                    1.0
                } else if den > 0.0 {
                    v.to_f64() / den
                } else {
                    // A point with K_ii = 0 sits at the origin of feature
                    // space: give it a unit diagonal and no similarity.
                    0.0
                });
            }
        });
    }
    if post.rescale {
        let (mn, mx) = k
            .par_chunks(n)
            .map(|row| {
                row.iter()
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
        k.par_chunks_mut(n).for_each(|row| {
            for v in row.iter_mut() {
                *v = T::from_f64(if range > 0.0 {
                    (v.to_f64() - mn) / range
                } else {
                    0.0
                });
            }
        });
    }
}
