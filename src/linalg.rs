//! Dense matrix products on ndarray arrays, computed by faer's GEMM.
//!
//! Every hot loop of the solvers (n×k distances, weighted means, K·W) goes
//! through here. The product is split into a fixed number of tasks whatever
//! the size of the thread pool, so the floating-point result depends only on
//! the inputs, never on how many threads run them.

use faer::linalg::matmul::matmul;
use faer::{Accum, Par};
use faer_ext::IntoFaer;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};
use std::num::NonZeroUsize;

/// Tasks a product is split into. Fixed so results are identical for any
/// thread count; a pool with fewer threads simply runs several of them.
const SPLIT: usize = 8;

fn par_for(flops: usize) -> Par {
    if flops < 1 << 18 {
        Par::Seq
    } else {
        Par::Rayon(NonZeroUsize::new(SPLIT).unwrap())
    }
}

/// `out ← alpha·a·b (+ out if accumulate)`, split over threads when large.
pub fn gemm_into(
    out: ArrayViewMut2<f64>,
    a: ArrayView2<f64>,
    b: ArrayView2<f64>,
    alpha: f64,
    accumulate: bool,
) {
    let flops = a.nrows() * a.ncols() * b.ncols();
    gemm_with(out, a, b, alpha, accumulate, par_for(flops));
}

/// As [`gemm_into`], on the calling thread only: for blocks that are
/// already one task of a parallel loop.
pub fn gemm_seq(
    out: ArrayViewMut2<f64>,
    a: ArrayView2<f64>,
    b: ArrayView2<f64>,
    alpha: f64,
    accumulate: bool,
) {
    gemm_with(out, a, b, alpha, accumulate, Par::Seq);
}

fn gemm_with<T: faer::traits::RealField + Copy>(
    mut out: ArrayViewMut2<T>,
    a: ArrayView2<T>,
    b: ArrayView2<T>,
    alpha: T,
    accumulate: bool,
    par: Par,
) {
    assert_eq!(a.ncols(), b.nrows(), "inner dimensions differ");
    assert_eq!(out.dim(), (a.nrows(), b.ncols()), "output shape");
    let accum = if accumulate {
        Accum::Add
    } else {
        Accum::Replace
    };
    matmul(
        out.view_mut().into_faer(),
        accum,
        a.into_faer(),
        b.into_faer(),
        alpha,
        par,
    );
}

/// As [`gemm_seq`] in single precision: the distance products of f32 rows
/// (`--dtype f32`), twice the rate of f64 and half the bytes read.
pub fn gemm_seq_f32(
    out: ArrayViewMut2<f32>,
    a: ArrayView2<f32>,
    b: ArrayView2<f32>,
    alpha: f32,
    accumulate: bool,
) {
    gemm_with(out, a, b, alpha, accumulate, Par::Seq);
}

/// `a·b`.
pub fn dot(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Array2<f64> {
    let mut out = Array2::zeros((a.nrows(), b.ncols()));
    gemm_into(out.view_mut(), a, b, 1.0, false);
    out
}

/// `a·bᵀ`.
pub fn dot_nt(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Array2<f64> {
    dot(a, b.t())
}

/// `aᵀ·b`.
pub fn dot_tn(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Array2<f64> {
    dot(a.t(), b)
}

/// Squared Euclidean distances between the rows of `x` and of `c`,
/// `‖x‖² + ‖c‖² − 2·x·cᵀ`, clamped at zero against rounding.
/// `x_norms` are the precomputed squared row norms of `x`.
pub fn sq_dists(x: ArrayView2<f64>, x_norms: &[f64], c: ArrayView2<f64>) -> Array2<f64> {
    let c_norms = row_sq_norms(c);
    sq_dists_with(x, x_norms, c, &c_norms, true)
}

/// As [`sq_dists`] with both norms given; `parallel` off for blocks that
/// are already one task of a parallel loop.
pub fn sq_dists_with(
    x: ArrayView2<f64>,
    x_norms: &[f64],
    c: ArrayView2<f64>,
    c_norms: &[f64],
    parallel: bool,
) -> Array2<f64> {
    if !parallel {
        return sq_dists_block(x, x_norms, c, c_norms);
    }
    let mut d = Array2::zeros((x.nrows(), c.nrows()));
    gemm_into(d.view_mut(), x, c.t(), -2.0, false);
    par_rows_mut(&mut d, |i: usize, row: &mut [f64]| {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (*v + x_norms[i] + c_norms[j]).max(0.0);
        }
    });
    d
}

/// The sequential [`sq_dists_with`] of one block of rows, in place in a
/// row-major array. (A column-major product was tried: same bits, but
/// 1.2–1.3× slower per power iteration on usps and Fashion-MNIST.)
#[inline(always)]
pub(crate) fn sq_dists_block(
    x: ArrayView2<f64>,
    x_norms: &[f64],
    c: ArrayView2<f64>,
    c_norms: &[f64],
) -> Array2<f64> {
    let mut d = Array2::zeros((x.nrows(), c.nrows()));
    gemm_seq(d.view_mut(), x, c.t(), -2.0, false);
    add_norms(&mut d, x_norms, c_norms);
    d
}

/// [`sq_dists_block`]'s distances from their product −2·x·cᵀ computed
/// elsewhere (`prod`, e.g. some columns of a wider product): the same
/// arithmetic, into a new array.
#[inline(always)]
pub(crate) fn finish_sq_dists(
    prod: ArrayView2<f64>,
    x_norms: &[f64],
    c_norms: &[f64],
) -> Array2<f64> {
    let (n, k) = prod.dim();
    let mut d = Vec::with_capacity(n * k);
    for (row, &xn) in prod.rows().into_iter().zip(x_norms) {
        d.extend(
            row.iter()
                .zip(c_norms)
                .map(|(&v, &cn)| with_norms(v, xn, cn)),
        );
    }
    Array2::from_shape_vec((n, k), d).expect("n × k entries")
}

/// A squared distance from its product term `v` = −2·x·c: one
/// definition, so that [`sq_dists_block`] and [`finish_sq_dists`] agree
/// to the bit.
#[inline(always)]
fn with_norms(v: f64, xn: f64, cn: f64) -> f64 {
    (v + xn + cn).max(0.0)
}

/// `d += ‖x‖² + ‖c‖²`, then at least 0.
#[inline(always)]
fn add_norms(d: &mut Array2<f64>, x_norms: &[f64], c_norms: &[f64]) {
    let cols = d.ncols().max(1);
    debug_assert_eq!(x_norms.len(), d.nrows());
    debug_assert_eq!(c_norms.len(), d.ncols());
    // Zipped, not indexed: without bounds checks the row vectorises.
    let rows = d.as_slice_mut().expect("standard layout").chunks_mut(cols);
    for (row, &xn) in rows.zip(x_norms) {
        for (v, &cn) in row.iter_mut().zip(c_norms) {
            *v = with_norms(*v, xn, cn);
        }
    }
}

/// Rows per task of [`row_sq_norms`]' parallel loop.
const NORM_ROWS: usize = 4096;

/// Σ f(x) over `xs` in the order ndarray's `sum()` and `dot` use on a
/// contiguous slice (`numeric_util::unrolled_fold` / `unrolled_dot`: eight
/// partial sums from 0, combined as 0 + (p0 + p4) + (p1 + p5) +
/// (p2 + p6) + (p3 + p7), then the remainder in order), so slice loops
/// keep the bits of the ndarray calls they replace without building a
/// view per row.
#[inline(always)]
pub(crate) fn sum8_of(xs: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let mut p = [0.0f64; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (acc, &v) in p.iter_mut().zip(c) {
            *acc += f(v);
        }
    }
    let mut sum = 0.0;
    sum += p[0] + p[4];
    sum += p[1] + p[5];
    sum += p[2] + p[6];
    sum += p[3] + p[7];
    for &v in chunks.remainder() {
        sum += f(v);
    }
    sum
}

/// x · x, to the bit `row.dot(&row)`.
#[inline(always)]
fn sq_norm(xs: &[f64]) -> f64 {
    sum8_of(xs, |v| v * v)
}

/// Whether the CPU has AVX2. The crate is built for the baseline x86-64
/// (two f64 lanes); kernels compiled for AVX2 without FMA contraction
/// compute exactly what the baseline code does, so values do not depend
/// on the CPU.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Squared Euclidean norm of every row.
pub fn row_sq_norms(x: ArrayView2<f64>) -> Vec<f64> {
    let (n, p) = x.dim();
    let mut out = vec![0.0; n];
    if let (Some(xs), true) = (x.as_slice(), p > 0) {
        let body = |(o, rows): (&mut [f64], &[f64])| {
            for (o, row) in o.iter_mut().zip(rows.chunks_exact(p)) {
                *o = sq_norm(row);
            }
        };
        if x.len() > 1 << 16 {
            use rayon::prelude::*;
            out.par_chunks_mut(NORM_ROWS)
                .zip(xs.par_chunks(NORM_ROWS * p))
                .for_each(body);
        } else {
            out.chunks_mut(NORM_ROWS)
                .zip(xs.chunks(NORM_ROWS * p))
                .for_each(body);
        }
        return out;
    }
    let body = |(i, o): (usize, &mut f64)| {
        let r = x.row(i);
        *o = r.dot(&r);
    };
    if x.len() > 1 << 16 {
        use rayon::prelude::*;
        out.par_iter_mut().enumerate().for_each(body);
    } else {
        out.iter_mut().enumerate().for_each(body);
    }
    out
}

/// Runs `f(i, row_i)` over the rows of `a`, in parallel for large arrays.
/// Each row is handled by exactly one call, so the result is deterministic.
pub fn par_rows_mut<F>(a: &mut Array2<f64>, f: F)
where
    F: Fn(usize, &mut [f64]) + Sync + Send,
{
    let cols = a.ncols().max(1);
    let big = a.len() > 1 << 15;
    let slice = a
        .as_slice_mut()
        .expect("par_rows_mut needs a standard-layout array");
    if big {
        use rayon::prelude::*;
        slice
            .par_chunks_mut(cols)
            .enumerate()
            .for_each(|(i, r)| f(i, r));
    } else {
        slice
            .chunks_mut(cols)
            .enumerate()
            .for_each(|(i, r)| f(i, r));
    }
}

/// Mean of the per-feature variances (ddof 0): sklearn's unit for `tol`.
pub fn mean_variance(x: ArrayView2<f64>) -> f64 {
    mean_variance_of(x)
}

/// Rows per task of [`mean_variance_of`]: fixed, so the sums (and the
/// result) are the same for any number of threads.
const VARIANCE_ROWS: usize = 8192;

/// [`mean_variance`] of f64 or f32 rows, summed in f64: two passes (the
/// column means, then the squared deviations), each over tasks of
/// [`VARIANCE_ROWS`] rows in parallel whose sums are added in task order.
pub fn mean_variance_of<T: Copy + Into<f64> + Send + Sync>(x: ArrayView2<T>) -> f64 {
    let (n, p) = x.dim();
    if n == 0 || p == 0 {
        return 0.0;
    }
    let sums = column_sums(x, |acc, r| {
        acc.iter_mut().zip(r).for_each(|(a, &v)| *a += v.into());
    });
    let mean: Vec<f64> = sums.iter().map(|s| s / n as f64).collect();
    let squares = column_sums(x, |acc, r| {
        for ((a, &v), m) in acc.iter_mut().zip(r).zip(&mean) {
            let d = v.into() - m;
            *a += d * d;
        }
    });
    squares.iter().sum::<f64>() / (n as f64 * p as f64)
}

/// Per column, the sum `add_row` accumulates over every row: tasks of
/// [`VARIANCE_ROWS`] rows in parallel, added in task order.
fn column_sums<T: Copy + Send + Sync>(
    x: ArrayView2<T>,
    add_row: impl Fn(&mut [f64], ndarray::ArrayView1<T>) + Sync,
) -> Vec<f64> {
    use rayon::prelude::*;
    let (n, p) = x.dim();
    let parts: Vec<Vec<f64>> = (0..n.div_ceil(VARIANCE_ROWS))
        .into_par_iter()
        .map(|t| {
            let hi = ((t + 1) * VARIANCE_ROWS).min(n);
            let mut acc = vec![0.0f64; p];
            for r in x.slice(ndarray::s![t * VARIANCE_ROWS..hi, ..]).rows() {
                add_row(&mut acc, r);
            }
            acc
        })
        .collect();
    let mut total = vec![0.0f64; p];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, v)| *t += v);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_norms_are_ndarrays_dot_to_the_bit() {
        // The slice loop must keep every bit of `row.dot(&row)`, which it
        // replaced (distances, labels and sums are built on these norms).
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3
        };
        for p in [1, 2, 7, 8, 9, 15, 16, 17, 20, 23, 64, 100, 784] {
            for n in [1, 5, 3000, 70_000 / p + 1] {
                let x = Array2::from_shape_fn((n, p), |_| next());
                let got = row_sq_norms(x.view());
                for (i, r) in x.rows().into_iter().enumerate() {
                    assert_eq!(got[i].to_bits(), r.dot(&r).to_bits(), "n {n} p {p} row {i}");
                }
                // A view whose rows are not contiguous takes the other path.
                let t = x.t().to_owned();
                let cols = row_sq_norms(t.t());
                assert_eq!(cols.len(), n);
                for (i, r) in x.rows().into_iter().enumerate() {
                    assert_eq!(cols[i].to_bits(), r.dot(&r).to_bits());
                }
            }
        }
    }

    #[test]
    fn block_distances_are_those_of_the_row_major_product() {
        // The column-major product must keep every bit of the row-major
        // one it replaced (runs must not change with the layout).
        for &(n, p, k) in &[
            (1, 1, 1),
            (7, 5, 2),
            (256, 256, 10),
            (100, 784, 3),
            (256, 30, 33),
        ] {
            let x = Array2::from_shape_fn((n, p), |(i, j)| {
                ((i * 7919 + j * 104_729) % 1013) as f64 / 17.0 - 20.0
            });
            let c = Array2::from_shape_fn((k, p), |(i, j)| {
                ((i * 613 + j * 31) % 97) as f64 / 9.0 - 5.0
            });
            let (xn, cn) = (row_sq_norms(x.view()), row_sq_norms(c.view()));
            let mut g = Array2::zeros((n, k));
            gemm_seq(g.view_mut(), x.view(), c.t(), -2.0, false);
            let d = sq_dists_with(x.view(), &xn, c.view(), &cn, false);
            for i in 0..n {
                for j in 0..k {
                    let want = (g[[i, j]] + xn[i] + cn[j]).max(0.0);
                    assert_eq!(
                        d[[i, j]].to_bits(),
                        want.to_bits(),
                        "n {n} p {p} k {k} at {i},{j}"
                    );
                }
            }
        }
    }
    use ndarray::array;

    #[test]
    fn products_match_ndarray() {
        let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let b = array![[1.0, 0.5], [0.0, 1.0], [2.0, -1.0]];
        assert_eq!(dot(a.view(), b.view()), a.dot(&b));
        assert_eq!(dot_nt(a.view(), a.view()), a.dot(&a.t()));
        assert_eq!(dot_tn(b.view(), b.view()), b.t().dot(&b));
    }

    #[test]
    fn squared_distances() {
        let x = array![[0.0, 0.0], [3.0, 4.0]];
        let c = array![[0.0, 0.0], [3.0, 0.0]];
        let d = sq_dists(x.view(), &row_sq_norms(x.view()), c.view());
        assert_eq!(d, array![[0.0, 9.0], [25.0, 16.0]]);
    }

    #[test]
    fn mean_variance_is_the_mean_of_the_column_variances() {
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 40.0 + 1e3
        };
        // One task, several tasks with a short last one, a single row.
        for (n, p) in [(1, 3), (7, 1), (500, 20), (2 * VARIANCE_ROWS + 17, 5)] {
            let x = Array2::from_shape_fn((n, p), |_| next());
            let want = x.var_axis(ndarray::Axis(0), 0.0).mean().unwrap();
            let got = mean_variance(x.view());
            assert!(
                (got - want).abs() <= 1e-9 * want.max(1e-300),
                "n {n} p {p}: {got} vs {want}"
            );
            // Columns that are not contiguous in memory, and f32 rows.
            let t = x.t().to_owned();
            assert_eq!(mean_variance(t.t()).to_bits(), got.to_bits());
            let x32 = x.mapv(|v| v as f32);
            let want32 = x32
                .mapv(f64::from)
                .var_axis(ndarray::Axis(0), 0.0)
                .mean()
                .unwrap();
            let got32 = mean_variance_of(x32.view());
            assert!(
                (got32 - want32).abs() <= 1e-9 * want32.max(1e-300),
                "f32 n {n} p {p}"
            );
        }
        assert_eq!(mean_variance(Array2::<f64>::zeros((0, 4)).view()), 0.0);
        assert_eq!(mean_variance(Array2::from_elem((9, 2), 3.5).view()), 0.0);
        // The same sums whatever the pool's size.
        let x = Array2::from_shape_fn((3 * VARIANCE_ROWS + 5, 4), |_| next());
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let serial = one.install(|| mean_variance(x.view()));
        assert_eq!(serial.to_bits(), mean_variance(x.view()).to_bits());
    }
}
