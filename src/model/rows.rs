//! Helpers of every family: assigning rows in blocks, and the shape
//! checks of a payload read from a file.

use crate::error::Result;
use ndarray::{Array2, ArrayView2, s};

/// Rows per block at most: bounds the memory of the kernel families
/// (block × training rows) and fixes the blocks of the others. Fewer when
/// a row's work is large (many clusters, a wide feature map; see
/// `Dims::block_rows`).
pub(super) const BLOCK: usize = 256;

/// A block's distances, n_b × k. Row i is in units of 2^exps[i]: 0 but for
/// rows computed robustly, whose true distances may not be representable.
pub(super) struct Dist {
    pub d: Array2<f64>,
    pub exps: Vec<i32>,
}

impl Dist {
    pub fn plain(d: Array2<f64>) -> Dist {
        let n = d.nrows();
        Dist {
            d,
            exps: vec![0; n],
        }
    }

    /// The distances as plain numbers (+∞ where they overflow).
    pub fn into_values(mut self) -> Array2<f64> {
        for (mut row, &e) in self.d.rows_mut().into_iter().zip(&self.exps) {
            if e != 0 {
                row.mapv_inplace(|v| crate::data::preprocess::ldexp(v, e));
            }
        }
        self.d
    }

    /// The nearest cluster of every row (the first on a tie).
    pub fn argmins(&self) -> Vec<usize> {
        self.d
            .rows()
            .into_iter()
            .map(|r| crate::solver::weights::argmin(r.iter().copied()).0)
            .collect()
    }
}

/// `f` on the rows of `x` in blocks of `rows` (in parallel), each block
/// given with the index of its first row; the results in order.
pub(super) fn by_blocks<T: Send>(
    x: ArrayView2<f64>,
    rows: usize,
    f: impl Fn(usize, ArrayView2<f64>) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    use rayon::prelude::*;
    let n = x.nrows();
    let starts: Vec<usize> = (0..n).step_by(rows.max(1)).collect();
    starts
        .par_iter()
        .map(|&r0| f(r0, x.slice(s![r0..(r0 + rows).min(n), ..])))
        .collect()
}

pub(super) fn shape(what: &str, got: (usize, usize), want: (usize, usize)) -> Option<String> {
    (got != want).then(|| {
        format!(
            "{what} is {}×{}, expected {}×{}",
            got.0, got.1, want.0, want.1
        )
    })
}

pub(super) fn len(what: &str, got: usize, want: usize) -> Option<String> {
    (got != want).then(|| format!("{what} has {got} values, expected {want}"))
}
