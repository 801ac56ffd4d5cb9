//! The products of the feature-weighted family (WK-means, LW-k-means,
//! sparse k-means) on CSR rows, per nonzero: distances under per-feature
//! multipliers and per-feature within-cluster dispersions. As in
//! `products.rs`, each row's distances depend on that row alone and each
//! cluster's sums are added in row order, so nothing depends on the
//! thread count.

use super::Csr;
use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

/// Rows per parallel task of the distance products.
const ROWS: usize = 512;

impl Csr {
    /// `Σ_l v_l (x_il − z_jl)²` for every row i and centre j, as
    /// `Σ v x² − 2·x·(z∘v) + Σ v z²` over the row's nonzeros, clamped at 0.
    /// Nonzeros of features with `v_l = 0` are skipped.
    pub fn weighted_sq_dists(&self, v: &[f64], centres: ArrayView2<f64>) -> Array2<f64> {
        let k = centres.nrows();
        let zv = &centres * &ndarray::ArrayView1::from(v);
        // p × k, so a nonzero x_il reads one contiguous row of k values.
        let zvt = zv.t().as_standard_layout().into_owned();
        let zvt = zvt.as_slice().expect("row-major");
        let zv2: Vec<f64> = zv
            .axis_iter(Axis(0))
            .zip(centres.axis_iter(Axis(0)))
            .map(|(a, b)| a.dot(&b))
            .collect();
        let mut d = Array2::<f64>::zeros((self.n, k));
        d.axis_chunks_iter_mut(Axis(0), ROWS)
            .into_par_iter()
            .enumerate()
            .for_each(|(b, mut block)| {
                for (r, mut row) in block.outer_iter_mut().enumerate() {
                    let out = row.as_slice_mut().expect("row-major");
                    let (idx, val) = self.row(b * ROWS + r);
                    let mut xv2 = 0.0;
                    for (&l, &x) in idx.iter().zip(val) {
                        let w = v[l as usize];
                        if w == 0.0 {
                            continue;
                        }
                        xv2 += w * x * x;
                        let c = &zvt[l as usize * k..(l as usize + 1) * k];
                        for (o, &cv) in out.iter_mut().zip(c) {
                            *o += x * cv;
                        }
                    }
                    for (o, &c2) in out.iter_mut().zip(&zv2) {
                        *o = (-2.0 * *o + xv2 + c2).max(0.0);
                    }
                }
            });
        d
    }

    /// Per-feature within-cluster sum of squares around `centres`,
    /// `D_l = Σ_i s_i (x_il − z_{c(i),l})²` (`sw`: sample weights, None
    /// all 1). A row's zeros contribute `s_i z²` each; they are counted per
    /// cluster as the cluster's weight less that of its rows with a nonzero
    /// in feature l, so every term is a sum of non-negative parts (no
    /// cancellation) and only nonzeros are read.
    pub fn dispersions(
        &self,
        sw: Option<&[f64]>,
        labels: &[usize],
        centres: ArrayView2<f64>,
    ) -> Vec<f64> {
        let (k, p) = (centres.nrows(), self.p);
        let wt = |i: usize| crate::solver::lloyd::weight(sw, i);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (i, &l) in labels.iter().enumerate() {
            members[l].push(i);
        }
        let parts: Vec<Vec<f64>> = members
            .par_iter()
            .enumerate()
            .map(|(j, rows)| {
                let z = centres.row(j);
                let mut sq = vec![0.0; p];
                let mut nz_weight = vec![0.0; p];
                let mut total = 0.0;
                for &i in rows {
                    let s = wt(i);
                    total += s;
                    let (idx, val) = self.row(i);
                    for (&l, &x) in idx.iter().zip(val) {
                        let d = x - z[l as usize];
                        sq[l as usize] += s * (d * d);
                        nz_weight[l as usize] += s;
                    }
                }
                for (l, a) in sq.iter_mut().enumerate() {
                    let zero_weight = total - nz_weight[l];
                    if zero_weight > 0.0 {
                        *a += zero_weight * z[l] * z[l];
                    }
                }
                sq
            })
            .collect();
        let mut out = vec![0.0; p];
        for part in parts {
            for (o, v) in out.iter_mut().zip(part) {
                *o += v;
            }
        }
        out
    }

    /// The matrix with column l multiplied by `s[l]` (a column scaled by
    /// 0 keeps its nonzeros' places, with the value 0): still nnz values.
    pub fn scale_columns(&self, s: &[f64]) -> Csr {
        let mut out = self.clone();
        for (v, &j) in out.data.iter_mut().zip(&out.indices) {
            *v *= s[j as usize];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn weighted_products_are_the_dense_ones() {
        let d = array![
            [0.0, 1.5, 0.0, 0.0, 2.0],
            [2.0, 0.0, 0.0, -1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0],
            [4.0, 0.5, 0.0, 3.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 7.0]
        ];
        let x = Csr::from_dense(d.view()).unwrap();
        let c = array![[1.0, 0.0, 0.5, 0.5, 1.0], [0.0, -2.0, 1.0, 0.0, 3.0]];
        let v = [0.5, 0.0, 2.0, 1.0, 0.25];
        let got = x.weighted_sq_dists(&v, c.view());
        for i in 0..5 {
            for j in 0..2 {
                let want: f64 = (0..5).map(|l| v[l] * (d[[i, l]] - c[[j, l]]).powi(2)).sum();
                assert!((got[[i, j]] - want).abs() < 1e-12, "{i},{j}: {got}");
            }
        }
        let labels = [0, 1, 0, 1, 1];
        let sw = [1.0, 2.0, 0.5, 0.0, 3.0];
        for w in [None, Some(&sw[..])] {
            let got = x.dispersions(w, &labels, c.view());
            for (l, g) in got.iter().enumerate() {
                let want: f64 = (0..5)
                    .map(|i| {
                        let s = w.map_or(1.0, |w| w[i]);
                        s * (d[[i, l]] - c[[labels[i], l]]).powi(2)
                    })
                    .sum();
                assert!((g - want).abs() < 1e-12, "feature {l}: {g} vs {want}");
            }
        }
        let scaled = x.scale_columns(&[2.0, 1.0, 1.0, 0.0, 0.5]).to_dense();
        assert_eq!(scaled.row(3).to_vec(), vec![8.0, 0.5, 0.0, 0.0, 0.0]);
        assert_eq!(scaled[[4, 4]], 3.5);
    }
}
