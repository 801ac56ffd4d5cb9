//! meanscape: center-based clustering with annealing, kernels and feature
//! selection — power k-means and its kernel, random-feature and
//! feature-weighted relatives — as a library, a headless CLI and a terminal UI.

pub mod data;
pub mod error;
pub mod linalg;
pub mod metrics;

pub use error::{Error, Result};
