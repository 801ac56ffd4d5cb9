//! The centroid and feature-weighted families: the nearest centre, by
//! squared Euclidean distance or by the method's weighted distance.

use super::robust;
use super::rows::{Dist, len, shape};
use crate::algo::weighted::common::weighted_sq_dists;
use crate::linalg;
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

/// The largest |value| of an array (0 for none).
fn max_abs<'a>(it: impl IntoIterator<Item = &'a f64>) -> f64 {
    it.into_iter().fold(0.0f64, |a, &b| a.max(b.abs()))
}

/// Replaces the rows of `d` whose usual distances are not safe (by
/// [`robust::usual_is_safe`] on the row's largest |value| `m_i` with the
/// centres' `cmax`) with their robust ones.
fn fix_rows(
    d: &mut Dist,
    rows: ArrayView2<f64>,
    cmax: f64,
    vmax: f64,
    robust_row: impl Fn(usize) -> (Vec<f64>, i32),
) {
    for (i, r) in rows.rows().into_iter().enumerate() {
        let m = if r.iter().all(|v| v.is_finite()) {
            max_abs(r).max(cmax)
        } else {
            f64::INFINITY
        };
        if !robust::usual_is_safe(m, vmax, rows.ncols()) {
            let (di, e) = robust_row(i);
            d.d.row_mut(i).assign(&ndarray::Array1::from(di));
            d.exps[i] = e;
        }
    }
}

/// The centroid family: the k centres in the fit's space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CentroidPayload {
    #[serde(with = "super::matrix")]
    pub centroids: Array2<f64>,
    /// How the nearest centre is found: not written, the payload's kind
    /// says it (`centroids`, `medians`).
    #[serde(skip)]
    pub metric: Metric,
}

/// The distance a centroid model assigns by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Metric {
    /// Squared Euclidean.
    #[default]
    L2,
    /// Σ |x_l − c_l| (k-medians), reported squared as the others are, so
    /// the square root of a distance is the L1 distance.
    L1,
}

impl CentroidPayload {
    /// What every block uses: the centres' squared norms and largest |value|.
    pub fn prepare(&self) -> (Vec<f64>, f64) {
        (
            linalg::row_sq_norms(self.centroids.view()),
            max_abs(&self.centroids),
        )
    }

    /// Squared distances of a block of rows to the centres, ‖x‖² + ‖c‖² −
    /// 2x·cᵀ as the fit's assignment computes them (so the training rows
    /// get the fit's labels bit for bit); rows where that would overflow
    /// or vanish are computed robustly instead.
    pub fn block(&self, xb: ArrayView2<f64>, prep: &(Vec<f64>, f64)) -> Dist {
        let c = self.centroids.view();
        if self.metric == Metric::L1 {
            // As the fit computes them: a sum of |differences| overflows
            // only to +∞, which the argmin handles.
            let d = Array2::from_shape_fn((xb.nrows(), c.nrows()), |(i, j)| {
                let s: f64 = xb
                    .row(i)
                    .iter()
                    .zip(c.row(j))
                    .map(|(a, b)| (a - b).abs())
                    .sum();
                s * s
            });
            return Dist::plain(d);
        }
        let norms = linalg::row_sq_norms(xb);
        let mut d = Dist::plain(linalg::sq_dists_with(xb, &norms, c, &prep.0, false));
        fix_rows(&mut d, xb, prep.1, 1.0, |i| {
            robust::distances(&robust::plain(xb.row(i)), c, None)
        });
        d
    }

    pub fn check(&self, k: usize, p: usize) -> Option<String> {
        shape("centroids", self.centroids.dim(), (k, p))
    }
}

/// The z-scoring lw applies before its loop (`zscore`): (x − mean)/sd,
/// 0 for a column with sd 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardize {
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
}

/// `wkmeans`, `lw`, `sparse-kmeans`: Σ_l v_l (x_l − c_l)², v the
/// per-feature multipliers of the method's assignment step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightedPayload {
    /// The centres, in the space the distance is taken in (z-scores for
    /// lw with `zscore`).
    #[serde(with = "super::matrix")]
    pub centroids: Array2<f64>,
    /// The feature weights the method reports (w).
    pub feature_weights: Vec<f64>,
    /// The multipliers of the distance: w^β (wkmeans), w^β + c·w (lw),
    /// w (sparse-kmeans).
    pub multipliers: Vec<f64>,
    /// lw's z-scoring of the rows, when it applies.
    #[serde(default)]
    pub standardize: Option<Standardize>,
}

impl WeightedPayload {
    /// The centres' largest |value| and the largest multiplier.
    pub fn prepare(&self) -> (f64, f64) {
        (
            max_abs(&self.centroids),
            self.multipliers.iter().fold(0.0f64, |a, &b| a.max(b)),
        )
    }

    /// Σ_l v_l (x_l − c_l)² for a block of rows, as the fit computes it,
    /// and robustly for rows where that would overflow or vanish.
    pub fn block(&self, xb: ArrayView2<f64>, prep: &(f64, f64)) -> Dist {
        let c = self.centroids.view();
        let v = &self.multipliers;
        let (cmax, vmax) = *prep;
        match &self.standardize {
            Some(st) => {
                let mut z = xb.to_owned();
                for mut row in z.rows_mut() {
                    for ((e, &m), &s) in row.iter_mut().zip(&st.mean).zip(&st.sd) {
                        *e = if s > 0.0 { (*e - m) / s } else { 0.0 };
                    }
                }
                let mut d = Dist::plain(weighted_sq_dists(z.view(), v, c));
                fix_rows(&mut d, z.view(), cmax, vmax, |i| {
                    let zi: Vec<_> = xb
                        .row(i)
                        .iter()
                        .zip(&st.mean)
                        .zip(&st.sd)
                        .map(|((&x, &m), &s)| robust::standardized(x, m, s))
                        .collect();
                    robust::distances(&zi, c, Some(v))
                });
                d
            }
            None => {
                let mut d = Dist::plain(weighted_sq_dists(xb, v, c));
                fix_rows(&mut d, xb, cmax, vmax, |i| {
                    robust::distances(&robust::plain(xb.row(i)), c, Some(v))
                });
                d
            }
        }
    }

    pub fn check(&self, k: usize, p: usize) -> Option<String> {
        shape("centroids", self.centroids.dim(), (k, p))
            .or_else(|| len("feature_weights", self.feature_weights.len(), p))
            .or_else(|| len("multipliers", self.multipliers.len(), p))
            .or_else(|| {
                self.standardize.as_ref().and_then(|s| {
                    len("standardize.mean", s.mean.len(), p)
                        .or_else(|| len("standardize.sd", s.sd.len(), p))
                })
            })
            .or_else(|| {
                self.multipliers
                    .iter()
                    .any(|&v| !(v >= 0.0 && v.is_finite()))
                    .then(|| "a multiplier is negative or not finite".to_string())
            })
    }
}
