//! The rows a Euclidean solver iterates over, stored in f64 or in f32.
//!
//! A feature map of a million rows is four bytes per entry smaller in f32,
//! which is what lets `rff-power` hold one in memory at D = 256, and f32
//! data (`--dtype f32`) is read at half the bytes. The solvers read rows in
//! cache-sized blocks. The distance product of an f32 block is an f32 GEMM
//! against an f32 copy of the centres (twice the rate of f64); the norms,
//! the distances made of them and every sum are f64.

use crate::linalg;
use ndarray::{Array2, ArrayView2, Axis, s};
use rayon::prelude::*;

#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    F64(ArrayView2<'a, f64>),
    F32(ArrayView2<'a, f32>),
}

/// `acc += w · row`, entry by entry, in f64 (`w` = 1 adds the row itself,
/// to the bit): the loop behind every slice addition of a row to a sum.
#[inline]
pub fn add_scaled(acc: &mut [f64], row: &[f64], w: f64) {
    if w == 1.0 {
        acc.iter_mut().zip(row).for_each(|(a, &v)| *a += v);
    } else {
        acc.iter_mut().zip(row).for_each(|(a, &v)| *a += w * v);
    }
}

impl<'a> From<ArrayView2<'a, f64>> for Rows<'a> {
    fn from(x: ArrayView2<'a, f64>) -> Self {
        Rows::F64(x)
    }
}

impl<'a> From<ArrayView2<'a, f32>> for Rows<'a> {
    fn from(x: ArrayView2<'a, f32>) -> Self {
        Rows::F32(x)
    }
}

/// Rows per block when whole-matrix distances are computed from f32.
const DIST_BLOCK: usize = 4096;

/// Centres as the distance products read them: f64, their squared norms,
/// and an f32 copy made once per iteration when the rows are f32.
pub struct Centres<'c> {
    pub c: ArrayView2<'c, f64>,
    pub norms: Vec<f64>,
    c32: Option<Array2<f32>>,
}

impl<'c> Centres<'c> {
    pub fn new(c: ArrayView2<'c, f64>, rows: &Rows) -> Self {
        Centres {
            c,
            norms: linalg::row_sq_norms(c),
            c32: matches!(rows, Rows::F32(_)).then(|| c.mapv(|v| v as f32)),
        }
    }

    pub fn k(&self) -> usize {
        self.c.nrows()
    }
}

/// Rows copied out of a [`Rows`], in its storage type.
pub enum OwnedRows {
    F64(Array2<f64>),
    F32(Array2<f32>),
}

impl OwnedRows {
    pub fn view(&self) -> Rows<'_> {
        match self {
            OwnedRows::F64(x) => Rows::F64(x.view()),
            OwnedRows::F32(x) => Rows::F32(x.view()),
        }
    }
}

impl<'a> Rows<'a> {
    pub fn nrows(&self) -> usize {
        match self {
            Rows::F64(x) => x.nrows(),
            Rows::F32(x) => x.nrows(),
        }
    }

    pub fn ncols(&self) -> usize {
        match self {
            Rows::F64(x) => x.ncols(),
            Rows::F32(x) => x.ncols(),
        }
    }

    /// The value at row `i`, column `j`, as f64.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match self {
            Rows::F64(x) => x[[i, j]],
            Rows::F32(x) => f64::from(x[[i, j]]),
        }
    }

    /// Columns `cols` of every row, still in their storage type.
    pub fn cols(&self, cols: std::ops::Range<usize>) -> Rows<'a> {
        match self {
            Rows::F64(x) => Rows::F64(x.slice_move(s![.., cols])),
            Rows::F32(x) => Rows::F32(x.slice_move(s![.., cols])),
        }
    }

    /// An f64 copy of every row.
    pub fn f64_owned(&self) -> Array2<f64> {
        match self {
            Rows::F64(x) => x.to_owned(),
            Rows::F32(x) => x.mapv(f64::from),
        }
    }

    /// Rows `lo..hi`, still in their storage type.
    pub fn slice(&self, lo: usize, hi: usize) -> Rows<'a> {
        match self {
            Rows::F64(x) => Rows::F64(x.slice_move(s![lo..hi, ..])),
            Rows::F32(x) => Rows::F32(x.slice_move(s![lo..hi, ..])),
        }
    }

    /// Rows `lo..hi` as f64, widened into `buf` when stored as f32 (a
    /// buffer reused across blocks costs no allocation per block).
    pub fn block_in<'b>(&self, lo: usize, hi: usize, buf: &'b mut Vec<f64>) -> ArrayView2<'b, f64>
    where
        'a: 'b,
    {
        match self {
            Rows::F64(x) => x.slice_move(s![lo..hi, ..]),
            Rows::F32(x) => {
                let p = x.ncols();
                buf.clear();
                let src = x.slice(s![lo..hi, ..]);
                match src.as_slice() {
                    Some(v) => buf.extend(v.iter().map(|&v| f64::from(v))),
                    None => buf.extend(src.iter().map(|&v| f64::from(v))),
                }
                ArrayView2::from_shape((hi - lo, p), &buf[..]).expect("block shape")
            }
        }
    }

    /// The squared distances of rows `lo..hi` (whose squared norms are
    /// `norms`) to the centres, `‖x‖² + ‖c‖² − 2·x·cᵀ` clamped at zero, by
    /// one GEMM on this thread: f64, or f32 for f32 rows. A row's result
    /// depends only on the rows' count and the centres, not on the other
    /// rows (what lets a bounded Lloyd recompute single rows exactly as a
    /// full pass computes them; see `bounded`).
    pub fn block_dists(&self, lo: usize, hi: usize, norms: &[f64], c: &Centres) -> Array2<f64> {
        match self {
            Rows::F64(x) => {
                linalg::sq_dists_with(x.slice(s![lo..hi, ..]), norms, c.c, &c.norms, false)
            }
            Rows::F32(x) => {
                let c32 = c.c32.as_ref().expect("f32 centres for f32 rows");
                let mut dot = Array2::<f32>::zeros((hi - lo, c.k()));
                super::row_dots::row_dots(x.slice(s![lo..hi, ..]), c32.view(), dot.view_mut());
                let mut d = Array2::<f64>::zeros(dot.dim());
                // Row by row as slices: no index checks, so it vectorises.
                let cols = c.k().max(1);
                let dots = dot.as_slice().expect("a fresh product").chunks(cols);
                let out = d.as_slice_mut().expect("a fresh block").chunks_mut(cols);
                for ((row, dr), &xn) in out.zip(dots).zip(norms) {
                    for ((v, &dv), &cn) in row.iter_mut().zip(dr).zip(&c.norms) {
                        *v = (xn + cn - 2.0 * f64::from(dv)).max(0.0);
                    }
                }
                d
            }
        }
    }

    /// The given rows, copied in their storage type, followed by zero rows
    /// up to `len`.
    pub fn gather_padded(&self, rows: &[usize], len: usize) -> OwnedRows {
        // Default is 0.0 for both float types.
        fn copy<T: Copy + Default>(x: &ArrayView2<T>, rows: &[usize], len: usize) -> Array2<T> {
            let mut out = Array2::from_elem((len, x.ncols()), T::default());
            for (r, &i) in rows.iter().enumerate() {
                out.row_mut(r).assign(&x.row(i));
            }
            out
        }
        match self {
            Rows::F64(x) => OwnedRows::F64(copy(x, rows, len)),
            Rows::F32(x) => OwnedRows::F32(copy(x, rows, len)),
        }
    }

    /// Rows `lo..hi` as one row-major slice, when f64 and contiguous.
    #[inline]
    pub fn f64_slice(&self, lo: usize, hi: usize) -> Option<&'a [f64]> {
        match self {
            Rows::F64(x) => x.slice_move(s![lo..hi, ..]).to_slice(),
            Rows::F32(_) => None,
        }
    }

    /// Adds row `i`, widened to f64, to `acc`.
    #[inline]
    pub fn add_row_to(&self, i: usize, mut acc: ndarray::ArrayViewMut1<f64>) {
        match self {
            Rows::F64(x) => match (acc.as_slice_mut(), x.row(i).to_slice()) {
                // The same additions as `+=`, without its shape checks and
                // iterator set-up for every row.
                (Some(a), Some(r)) => add_scaled(a, r, 1.0),
                _ => acc += &x.row(i),
            },
            Rows::F32(x) => acc.zip_mut_with(&x.row(i), |a, &v| *a += f64::from(v)),
        }
    }

    /// Adds `w` times row `i`, widened to f64, to `acc` (`w` = 1 adds
    /// the row itself, to the bit: a unit weight changes nothing).
    #[inline]
    pub fn add_scaled_row_to(&self, i: usize, w: f64, mut acc: ndarray::ArrayViewMut1<f64>) {
        if w == 1.0 {
            return self.add_row_to(i, acc);
        }
        match self {
            Rows::F64(x) => match (acc.as_slice_mut(), x.row(i).to_slice()) {
                (Some(a), Some(r)) => add_scaled(a, r, w),
                _ => acc.scaled_add(w, &x.row(i)),
            },
            Rows::F32(x) => acc.zip_mut_with(&x.row(i), |a, &v| *a += w * f64::from(v)),
        }
    }

    /// The given rows as an f64 matrix (seed points, for instance).
    pub fn select(&self, rows: &[usize]) -> Array2<f64> {
        match self {
            Rows::F64(x) => x.select(Axis(0), rows),
            Rows::F32(x) => x.select(Axis(0), rows).mapv(f64::from),
        }
    }

    /// The mean over columns of each column's variance (ddof 0), as
    /// [`crate::linalg::mean_variance`]; f32 rows are summed in f64.
    pub fn mean_variance(&self) -> f64 {
        match self {
            Rows::F64(x) => linalg::mean_variance_of(*x),
            Rows::F32(x) => linalg::mean_variance_of(*x),
        }
    }

    /// Squared row norms, in f64.
    pub fn sq_norms(&self) -> Vec<f64> {
        match self {
            Rows::F64(x) => linalg::row_sq_norms(*x),
            Rows::F32(x) => x
                .outer_iter()
                .map(|r| r.iter().map(|&v| f64::from(v) * f64::from(v)).sum())
                .collect(),
        }
    }

    /// n × m squared distances from every row to the rows of `c`.
    pub fn sq_dists(&self, norms: &[f64], c: ArrayView2<f64>) -> Array2<f64> {
        match self {
            Rows::F64(x) => linalg::sq_dists(*x, norms, c),
            Rows::F32(_) => {
                let n = self.nrows();
                let c_norms = linalg::row_sq_norms(c);
                let mut out = Array2::<f64>::zeros((n, c.nrows()));
                out.axis_chunks_iter_mut(Axis(0), DIST_BLOCK)
                    .into_par_iter()
                    .enumerate()
                    // One widening buffer per job, not per block: a fresh
                    // 16 MB block per call was mapped and faulted in anew
                    // (k-means++ on a 200000 × 512 f32 feature map spent
                    // about a tenth of its time there).
                    .for_each_init(Vec::new, |buf, (b, mut o)| {
                        let lo = b * DIST_BLOCK;
                        let hi = lo + o.nrows();
                        let xb = self.block_in(lo, hi, buf);
                        let d = linalg::sq_dists_with(xb, &norms[lo..hi], c, &c_norms, false);
                        o.assign(&d);
                    });
                out
            }
        }
    }
}
