//! The per-family payload of a model, tagged by `kind` in the JSON.

use super::centroid::{CentroidPayload, WeightedPayload};
use super::kernel::KernelPayload;
use super::rff::RffPayload;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Payload {
    Centroids(CentroidPayload),
    Weighted(WeightedPayload),
    Kernel(KernelPayload),
    Rff(RffPayload),
}
