//! The centroid and feature-weighted families: the nearest centre, by
//! squared Euclidean distance or by the method's weighted distance.

use super::rows::{by_blocks, len, shape};
use crate::algo::weighted::common::weighted_sq_dists;
use crate::linalg;
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

/// `kmeans`, `khm`, `power`: the k centres in the fit's space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CentroidPayload {
    #[serde(with = "super::matrix")]
    pub centroids: Array2<f64>,
}

impl CentroidPayload {
    /// Squared distances to the centres, ‖x‖² + ‖c‖² − 2x·cᵀ in blocks
    /// of rows, as the fit's assignment computes them (so the training
    /// rows get the fit's labels bit for bit).
    pub fn distances(&self, x: ArrayView2<f64>) -> Array2<f64> {
        let c = self.centroids.view();
        let c_norms = linalg::row_sq_norms(c);
        by_blocks(x, c.nrows(), |xb| {
            let norms = linalg::row_sq_norms(xb);
            linalg::sq_dists_with(xb, &norms, c, &c_norms, false)
        })
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
    pub fn distances(&self, x: ArrayView2<f64>) -> Array2<f64> {
        let c = self.centroids.view();
        let v = &self.multipliers;
        by_blocks(x, c.nrows(), |xb| match &self.standardize {
            Some(st) => {
                let mut z = xb.to_owned();
                for mut row in z.rows_mut() {
                    for ((e, &m), &s) in row.iter_mut().zip(&st.mean).zip(&st.sd) {
                        *e = if s > 0.0 { (*e - m) / s } else { 0.0 };
                    }
                }
                weighted_sq_dists(z.view(), v, c)
            }
            None => weighted_sq_dists(xb, v, c),
        })
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
