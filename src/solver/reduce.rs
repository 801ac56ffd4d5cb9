//! The one deterministic parallel reduction: rows are cut into blocks of a
//! fixed size (not one per thread), the blocks are mapped in parallel, and
//! their results are combined in block order. The floating-point sums thus
//! depend only on the data and the block size, never on the thread count.

use rayon::prelude::*;
use std::ops::Range;

/// Maps every block of `block` consecutive rows of `0..n` with `map`, in
/// parallel, then folds the block results into `init` in block order.
pub fn fold_blocks<T: Send, A>(
    n: usize,
    block: usize,
    map: impl Fn(Range<usize>) -> T + Sync + Send,
    init: A,
    fold: impl FnMut(A, T) -> A,
) -> A {
    let block = block.max(1);
    let parts: Vec<T> = (0..n.div_ceil(block))
        .into_par_iter()
        .map(|b| map(b * block..((b + 1) * block).min(n)))
        .collect();
    parts.into_iter().fold(init, fold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sum_does_not_depend_on_the_thread_count() {
        // Values whose sum depends on the order of the additions.
        let v: Vec<f64> = (0..10_000)
            .map(|i| 1.0 / (i as f64 + 0.3).powi(3))
            .collect();
        let sum = || fold_blocks(v.len(), 64, |r| v[r].iter().sum::<f64>(), 0.0, |a, b| a + b);
        let with = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(sum)
        };
        let one = with(1);
        assert_eq!(one.to_bits(), with(3).to_bits());
        assert_eq!(one.to_bits(), with(7).to_bits());
        assert!((one - v.iter().sum::<f64>()).abs() < 1e-12);
        assert_eq!(fold_blocks(0, 64, |r| r.len(), 0, |a, b| a + b), 0);
    }
}
