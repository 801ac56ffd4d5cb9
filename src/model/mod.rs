//! Saved models: everything needed to assign new points to the clusters
//! of a finished run ([`Model::from_run`]), its versioned JSON format
//! ([`Model::to_json`], [`Model::from_json`]; `docs/model-format.md`), and
//! the out-of-sample rule of each family ([`Model::predict`]).
//!
//! - centroid methods (`kmeans`, `khm`, `power`): the nearest centre;
//! - feature-weighted methods (`wkmeans`, `lw`, `sparse-kmeans`): the
//!   nearest centre by the method's own weighted distance;
//! - kernel methods (`kernel-kmeans`, `kpower`, `mkpower`, `dmkkm`,
//!   `mkkm`): the kernel distance to each cluster's implicit centre (the
//!   mean of its training rows in feature space), in the combined kernel
//!   the method ends with, post-processing applied out of sample;
//! - random-feature methods (`rff-power`, `rff-mkpower`,
//!   `ip-rff-mkpower`): the same feature maps (regenerated from their
//!   seeds), the distance to each cluster's mean in every map, weighted as
//!   the method weighs its views.
//!
//! `spectral` and precomputed kernels have no out-of-sample rule:
//! [`Model::from_run`] refuses them with the reason.

mod build;
mod centroid;
mod footprint;
mod format;
mod kernel;
mod matrix;
mod outline;
mod payload;
mod rff;
mod robust;
mod rows;
mod schema;

pub use crate::data::preprocess::ScaleParams;
pub use format::{FORMAT, Model, VERSION};
