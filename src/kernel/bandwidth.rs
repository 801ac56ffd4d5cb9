//! Bandwidth rules for distance kernels.

use crate::solver::csr::Csr;
use crate::solver::reduce::fold_blocks;
use ndarray::{Array1, ArrayView2, Axis, s};
use std::ops::Range;

/// The rule behind the `sigma` parameter's automatic default.
pub const SIGMA_RULE: &str =
    "σ² = 2/(n−1)·Σ‖xᵢ−x̄‖², the KPK paper's rule; √(2p) after standardising";

/// The KPK paper's bandwidth (docs/methods/kernel-power-kmeans.md#kernels-and-bandwidth):
/// σ = √(Σ_{i,j} ‖xᵢ−xⱼ‖² / (n(n−1))), computed in O(np) through the
/// identity Σ_{i,j} ‖xᵢ−xⱼ‖² = 2n Σᵢ ‖xᵢ−x̄‖², i.e.
/// σ² = 2/(n−1) · Σᵢ ‖xᵢ−x̄‖². After standardising with sample standard
/// deviations this is √(2p′), p′ the number of non-constant features.
/// Returns 0 when there are fewer than two rows or no spread at all.
pub fn sigma_rule(x: ArrayView2<f64>) -> f64 {
    let n = x.nrows();
    if n < 2 || x.ncols() == 0 {
        return 0.0;
    }
    let mean: Array1<f64> = x.mean_axis(Axis(0)).expect("n > 0");
    let mut ss = 0.0;
    for row in x.axis_iter(Axis(0)) {
        for (v, m) in row.iter().zip(mean.iter()) {
            let d = v - m;
            ss += d * d;
        }
    }
    sigma_of_ss(ss, n)
}

/// [`sigma_rule`] on the columns `cols` of CSR rows, in O(nnz + p) and
/// without densifying: Σᵢ‖xᵢ−x̄‖² = Σ_j [Σ_{nonzero x_ij} (x_ij − x̄_j)² +
/// (n − nnz_j)·x̄_j²], each column's implicit zeros counted at once. The
/// deviations are taken from the mean as in the dense rule, so the two
/// agree to rounding.
pub fn sigma_rule_csr(x: &Csr, cols: Range<usize>) -> f64 {
    let n = x.nrows();
    if n < 2 || cols.is_empty() {
        return 0.0;
    }
    let (mut sum, mut count) = (vec![0.0f64; cols.len()], vec![0usize; cols.len()]);
    for i in 0..n {
        let (idx, val) = x.row_in(i, &cols);
        for (&j, &v) in idx.iter().zip(val) {
            sum[j as usize - cols.start] += v;
            count[j as usize - cols.start] += 1;
        }
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let mut ss: f64 = mean
        .iter()
        .zip(&count)
        .map(|(m, &c)| (n - c) as f64 * m * m)
        .sum();
    for i in 0..n {
        let (idx, val) = x.row_in(i, &cols);
        for (&j, &v) in idx.iter().zip(val) {
            let d = v - mean[j as usize - cols.start];
            ss += d * d;
        }
    }
    sigma_of_ss(ss, n)
}

/// √(2·Σ‖xᵢ−x̄‖²/(n − 1)) from the sum of squares `ss` of n rows, the
/// dense and the sparse rule alike; 0 when that is not a positive finite
/// number. Public for distributed drivers, which add `ss` up over their
/// blocks (`meanscape.dask.RFFPowerKMeans`).
pub fn sigma_of_ss(ss: f64, n: usize) -> f64 {
    let s2 = 2.0 * ss / (n as f64 - 1.0);
    if s2.is_finite() && s2 > 0.0 {
        s2.sqrt()
    } else {
        0.0
    }
}

/// Rows per block of the pairwise passes.
pub(crate) const ROW_BLOCK: usize = 128;
/// Columns per tile of the pairwise passes (bounds the scratch memory).
pub(crate) const COL_TILE: usize = 4096;

/// The largest squared pairwise distance max_{i,j} ‖xᵢ−xⱼ‖² (for the
/// Du et al. bandwidths σ² = t·d²_max), by blocked matrix products without
/// storing the n×n matrix. O(n²p) time, O(block) memory.
pub fn max_sq_dist(x: ArrayView2<f64>) -> f64 {
    let n = x.nrows();
    let norms = crate::linalg::row_sq_norms(x);
    let block = |rows: std::ops::Range<usize>| {
        let (r0, r1) = (rows.start, rows.end);
        let mut best = 0.0f64;
        let mut c0 = 0;
        while c0 < r1 {
            let c1 = (c0 + COL_TILE).min(r1);
            let g = crate::linalg::dot_nt(x.slice(s![r0..r1, ..]), x.slice(s![c0..c1, ..]));
            for (ii, row) in g.axis_iter(Axis(0)).enumerate() {
                let i = r0 + ii;
                for (jj, &v) in row.iter().enumerate() {
                    let d = norms[i] + norms[c0 + jj] - 2.0 * v;
                    if d > best {
                        best = d;
                    }
                }
            }
            c0 = c1;
        }
        best
    };
    fold_blocks(n, ROW_BLOCK, block, 0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rule_matches_the_double_sum() {
        let x = array![[0.0, 1.0], [2.0, -1.0], [3.0, 3.0], [-1.0, 0.5]];
        let n = x.nrows();
        let mut sum = 0.0;
        let mut mx: f64 = 0.0;
        for i in 0..n {
            for j in 0..n {
                let d: f64 = (&x.row(i) - &x.row(j)).mapv(|v| v * v).sum();
                sum += d;
                mx = mx.max(d);
            }
        }
        let direct = (sum / (n * (n - 1)) as f64).sqrt();
        assert!((sigma_rule(x.view()) - direct).abs() < 1e-12);
        assert!((max_sq_dist(x.view()) - mx).abs() < 1e-12);
        assert_eq!(sigma_rule(array![[1.0, 2.0], [1.0, 2.0]].view()), 0.0);
    }

    #[test]
    fn the_csr_rule_is_the_dense_rule_on_any_columns() {
        let x = array![
            [0.0, 1.0, 0.0, 4.0],
            [2.0, 0.0, 0.0, 0.0],
            [0.0, 3.0, 0.0, -1.0],
            [-1.0, 0.0, 0.0, 0.5],
            [0.0, 0.0, 0.0, 0.0]
        ];
        let c = Csr::from_dense(x.view()).unwrap();
        for cols in [0..4, 1..2, 2..3, 1..4] {
            let want = sigma_rule(x.slice(s![.., cols.clone()]));
            let got = sigma_rule_csr(&c, cols.clone());
            assert!(
                (got - want).abs() <= 1e-14 * want.max(1.0),
                "{cols:?}: {got} vs {want}"
            );
        }
        assert_eq!(sigma_rule_csr(&c, 2..3), 0.0);
    }
}
