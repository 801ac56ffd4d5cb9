//! The per-family payload of a model, tagged by `kind` in the JSON.
//!
//! Read through one struct of every family's fields rather than serde's
//! internally tagged enum: that one buffers the whole payload as generic
//! values (tens of bytes per number) before it looks at `kind`.

use super::centroid::{CentroidPayload, Metric, Standardize, WeightedPayload};
use super::kernel::{KernelBlock, KernelPayload};
use super::rff::{RffMap, RffPayload};
use ndarray::Array2;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Payload {
    Centroids(CentroidPayload),
    /// k-medians: centres, nearest in L1.
    Medians(CentroidPayload),
    Weighted(WeightedPayload),
    Kernel(KernelPayload),
    Rff(RffPayload),
}

struct Mat(Array2<f64>);

impl<'de> Deserialize<'de> for Mat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Mat, D::Error> {
        super::matrix::deserialize(d).map(Mat)
    }
}

#[derive(Deserialize)]
struct AnyPayload {
    kind: String,
    centroids: Option<Mat>,
    feature_weights: Option<Vec<f64>>,
    multipliers: Option<Vec<f64>>,
    #[serde(default)]
    standardize: Option<Standardize>,
    train: Option<Mat>,
    labels: Option<Vec<usize>>,
    kernels: Option<Vec<KernelBlock>>,
    #[serde(default)]
    sample_weights: Option<Vec<f64>>,
    maps: Option<Vec<RffMap>>,
}

impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Payload, D::Error> {
        let a = AnyPayload::deserialize(d)?;
        let need = |f: &'static str| D::Error::missing_field(f);
        Ok(match a.kind.as_str() {
            "centroids" => Payload::Centroids(CentroidPayload {
                centroids: a.centroids.ok_or_else(|| need("centroids"))?.0,
                metric: Metric::L2,
            }),
            "medians" => Payload::Medians(CentroidPayload {
                centroids: a.centroids.ok_or_else(|| need("centroids"))?.0,
                metric: Metric::L1,
            }),
            "weighted" => Payload::Weighted(WeightedPayload {
                centroids: a.centroids.ok_or_else(|| need("centroids"))?.0,
                feature_weights: a.feature_weights.ok_or_else(|| need("feature_weights"))?,
                multipliers: a.multipliers.ok_or_else(|| need("multipliers"))?,
                standardize: a.standardize,
            }),
            "kernel" => Payload::Kernel(KernelPayload {
                train: a.train.ok_or_else(|| need("train"))?.0,
                labels: a.labels.ok_or_else(|| need("labels"))?,
                kernels: a.kernels.ok_or_else(|| need("kernels"))?,
                sample_weights: a.sample_weights,
            }),
            "rff" => Payload::Rff(RffPayload {
                maps: a.maps.ok_or_else(|| need("maps"))?,
            }),
            other => {
                return Err(D::Error::unknown_variant(
                    &crate::text::printable(other, &[]),
                    &["centroids", "medians", "weighted", "kernel", "rff"],
                ));
            }
        })
    }
}
