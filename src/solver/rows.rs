//! The rows a Euclidean solver iterates over, stored in f64 or in f32.
//!
//! A feature map of a million rows is four bytes per entry smaller in f32,
//! which is what lets `rff-power` hold one in memory at D = 256. The
//! solvers read rows in cache-sized blocks; an f32 block is widened to f64
//! as it is read, so all arithmetic stays in f64 and an iteration reads
//! half the bytes.

use crate::linalg;
use ndarray::{Array2, ArrayView2, Axis, s};
use rayon::prelude::*;

#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    F64(ArrayView2<'a, f64>),
    F32(ArrayView2<'a, f32>),
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

    /// The given rows as an f64 matrix (seed points, for instance).
    pub fn select(&self, rows: &[usize]) -> Array2<f64> {
        match self {
            Rows::F64(x) => x.select(Axis(0), rows),
            Rows::F32(x) => x.select(Axis(0), rows).mapv(f64::from),
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
                    .for_each(|(b, mut o)| {
                        let lo = b * DIST_BLOCK;
                        let hi = lo + o.nrows();
                        let mut buf = Vec::new();
                        let xb = self.block_in(lo, hi, &mut buf);
                        let d = linalg::sq_dists_with(xb, &norms[lo..hi], c, &c_norms, false);
                        o.assign(&d);
                    });
                out
            }
        }
    }
}
