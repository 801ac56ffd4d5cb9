//! The products of a Lloyd or power-mean iteration on CSR rows, per
//! nonzero: distances to dense centres, and per-cluster sums (hard labels)
//! or weighted sums WᵀX (soft weights). Each row's result depends on that
//! row alone and each cluster's sum is added in row order, so the results
//! are the same for any thread count.

use super::Csr;
use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

/// Rows per parallel task of the distance products.
const ROWS: usize = 512;

/// Dense centres as the sparse products read them: transposed (p × k, so
/// a nonzero x_ij reads one contiguous row of k values) and their squared
/// norms.
pub struct CentresT {
    pub ct: Array2<f64>,
    pub norms: Vec<f64>,
}

impl CentresT {
    pub fn new(c: ArrayView2<f64>) -> Self {
        CentresT {
            ct: c.t().as_standard_layout().into_owned(),
            norms: crate::linalg::row_sq_norms(c),
        }
    }

    pub fn k(&self) -> usize {
        self.ct.ncols()
    }
}

impl Csr {
    /// Squared distances of row i to every centre into `out` (length k):
    /// ‖x‖² − 2x·c + ‖c‖², clamped at zero, in the order of the dense
    /// product's terms.
    fn row_dists(&self, i: usize, norm: f64, c: &CentresT, out: &mut [f64]) {
        let k = c.k();
        out.fill(0.0);
        let (idx, val) = self.row(i);
        let ct = c.ct.as_slice().expect("row-major");
        for (&j, &v) in idx.iter().zip(val) {
            let cj = &ct[j as usize * k..(j as usize + 1) * k];
            for (o, &w) in out.iter_mut().zip(cj) {
                *o += v * w;
            }
        }
        for (o, &cn) in out.iter_mut().zip(&c.norms) {
            *o = (-2.0 * *o + norm + cn).max(0.0);
        }
    }

    /// n × k squared distances from every row to the centres.
    pub fn sq_dists(&self, norms: &[f64], c: &CentresT) -> Array2<f64> {
        let k = c.k();
        let mut d = Array2::<f64>::zeros((self.n, k));
        d.axis_chunks_iter_mut(Axis(0), ROWS)
            .into_par_iter()
            .enumerate()
            .for_each(|(b, mut block)| {
                let lo = b * ROWS;
                for (r, mut row) in block.outer_iter_mut().enumerate() {
                    let out = row.as_slice_mut().expect("row-major");
                    self.row_dists(lo + r, norms[lo + r], c, out);
                }
            });
        d
    }

    /// n × m squared distances from every row to the given rows of the
    /// matrix itself (seeding's candidates).
    pub fn sq_dists_to_rows(&self, norms: &[f64], rows: &[usize]) -> Array2<f64> {
        let c = self.select(rows);
        self.sq_dists(norms, &CentresT::new(c.view()))
    }

    /// Nearest centre (lowest index on ties) and its squared distance, for
    /// every row.
    pub fn nearest(&self, norms: &[f64], c: &CentresT) -> (Vec<usize>, Vec<f64>) {
        let k = c.k();
        let parts: Vec<(Vec<usize>, Vec<f64>)> = (0..self.n.div_ceil(ROWS))
            .into_par_iter()
            .map(|b| {
                let (lo, hi) = (b * ROWS, ((b + 1) * ROWS).min(self.n));
                let mut buf = vec![0.0; k];
                let mut lab = Vec::with_capacity(hi - lo);
                let mut dist = Vec::with_capacity(hi - lo);
                for i in lo..hi {
                    self.row_dists(i, norms[i], c, &mut buf);
                    let (l, v) = crate::solver::weights::argmin(buf.iter().copied());
                    lab.push(l);
                    dist.push(v);
                }
                (lab, dist)
            })
            .collect();
        let mut labels = Vec::with_capacity(self.n);
        let mut dists = Vec::with_capacity(self.n);
        for (l, d) in parts {
            labels.extend(l);
            dists.extend(d);
        }
        (labels, dists)
    }

    /// Per-cluster sums (k × p) of the rows at `labels`, each times its
    /// sample weight (`w`; None: 1), and the weight totals (the counts
    /// without weights); each cluster's rows added in row order (one task
    /// per cluster).
    pub fn cluster_sums(
        &self,
        labels: &[usize],
        k: usize,
        w: Option<&[f64]>,
    ) -> (Array2<f64>, Vec<f64>) {
        let wt = |i: usize| crate::solver::lloyd::weight(w, i);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (i, &l) in labels.iter().enumerate() {
            members[l].push(i);
        }
        let mut sums = Array2::<f64>::zeros((k, self.p));
        sums.outer_iter_mut()
            .into_par_iter()
            .zip(&members)
            .for_each(|(mut row, rows)| {
                let acc = row.as_slice_mut().expect("row-major");
                for &i in rows {
                    self.add_row_to(i, acc, wt(i));
                }
            });
        let totals = members
            .iter()
            .map(|rows| rows.iter().map(|&i| wt(i)).sum())
            .collect();
        (sums, totals)
    }

    /// WᵀX (k × p) for an n × k weight matrix, each column's sum in row
    /// order (one task per cluster): the centres' numerators of power
    /// k-means and k-harmonic means.
    pub fn weighted_sums(&self, w: ArrayView2<f64>) -> Array2<f64> {
        let k = w.ncols();
        let mut sums = Array2::<f64>::zeros((k, self.p));
        sums.outer_iter_mut()
            .into_par_iter()
            .enumerate()
            .for_each(|(j, mut row)| {
                let acc = row.as_slice_mut().expect("row-major");
                for i in 0..self.n {
                    let wij = w[[i, j]];
                    if wij != 0.0 {
                        self.add_row_to(i, acc, wij);
                    }
                }
            });
        sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::rows::{Centres, Rows};
    use ndarray::array;

    fn data() -> Array2<f64> {
        array![
            [0.0, 1.5, 0.0, 0.0, 2.0],
            [2.0, 0.0, 0.0, -1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0],
            [4.0, 0.5, 0.0, 3.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 7.0]
        ]
    }

    #[test]
    fn distances_and_sums_are_the_dense_ones() {
        let d = data();
        let x = Csr::from_dense(d.view()).unwrap();
        let norms = x.sq_norms();
        let c = array![[1.0, 0.0, 0.0, 0.5, 1.0], [0.0, -2.0, 1.0, 0.0, 3.0]];
        let got = x.sq_dists(&norms, &CentresT::new(c.view()));
        let rows = Rows::F64(d.view());
        let want = rows.block_dists(0, 5, &norms, &Centres::new(c.view(), &rows));
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12 * b.max(1.0), "{got} vs {want}");
        }
        let (labels, dists) = x.nearest(&norms, &CentresT::new(c.view()));
        let (wl, wd) = crate::solver::lloyd::assign(want.view());
        assert_eq!(labels, wl);
        assert!(dists.iter().zip(&wd).all(|(a, b)| (a - b).abs() < 1e-12));

        let (sums, counts) = x.cluster_sums(&labels, 2, None);
        let (ws, wc) = crate::solver::lloyd::cluster_sums(d.view(), &labels, 2);
        let wc: Vec<f64> = wc.iter().map(|&c| c as f64).collect();
        assert_eq!((sums, counts), (ws, wc));
        let sw = [0.5, 2.0, 0.0, 1.0, 3.0];
        let (sums, totals) = x.cluster_sums(&labels, 2, Some(&sw));
        let (ws, wt) = crate::solver::lloyd::weighted_cluster_sums(d.view(), Some(&sw), &labels, 2);
        assert_eq!((sums, totals), (ws, wt));

        let w = array![[0.5, 0.5], [1.0, 0.0], [0.2, 0.8], [0.0, 1.0], [0.3, 0.1]];
        let (got, want) = (x.weighted_sums(w.view()), w.t().dot(&d));
        assert!(
            got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-14),
            "{got} vs {want}"
        );
        assert_eq!(x.sq_dists_to_rows(&norms, &[3])[[3, 0]], 0.0);
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let d = Array2::from_shape_fn((3000, 40), |(i, j)| {
            if (i * 7 + j * 13) % 11 == 0 {
                ((i + j) as f64).sin()
            } else {
                0.0
            }
        });
        let x = Csr::from_dense(d.view()).unwrap();
        let norms = x.sq_norms();
        let c = x.select(&[5, 17, 2999]);
        let run = || {
            let ct = CentresT::new(c.view());
            let (l, dist) = x.nearest(&norms, &ct);
            let w = x.sq_dists(&norms, &ct);
            (x.cluster_sums(&l, 3, None), dist, x.weighted_sums(w.view()))
        };
        let with = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(run)
        };
        assert_eq!(with(1), with(3));
    }
}
