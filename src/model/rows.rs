//! Helpers of every family: assigning rows in blocks, and the shape
//! checks of a payload read from a file.

use ndarray::{Array2, ArrayView2};

/// Rows per block when assigning: bounds the memory of the kernel
/// families (block × training rows) and fixes the blocks of the others.
pub(super) const BLOCK: usize = 256;

/// Rows of `x` in blocks of [`BLOCK`], each turned into its n_b × k
/// distances by `f` (in parallel), stacked in order.
pub(super) fn by_blocks(
    x: ArrayView2<f64>,
    k: usize,
    f: impl Fn(ArrayView2<f64>) -> Array2<f64> + Sync,
) -> Array2<f64> {
    use rayon::prelude::*;
    let n = x.nrows();
    let mut out = Array2::<f64>::zeros((n, k));
    let starts: Vec<usize> = (0..n).step_by(BLOCK).collect();
    let parts: Vec<Array2<f64>> = starts
        .par_iter()
        .map(|&r0| f(x.slice(ndarray::s![r0..(r0 + BLOCK).min(n), ..])))
        .collect();
    for (&r0, part) in starts.iter().zip(parts) {
        out.slice_mut(ndarray::s![r0..r0 + part.nrows(), ..])
            .assign(&part);
    }
    out
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
