//! meanscape: center-based clustering with annealing, kernels and feature
//! selection — power k-means and its kernel, random-feature and
//! feature-weighted relatives — as a library, a headless CLI and a terminal UI.

// Numeric kernels index several arrays in step; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub mod algo;
pub mod cli;
pub mod data;
pub mod error;
pub mod kernel;
pub mod linalg;
pub mod memory;
pub mod metrics;
pub mod report;
pub mod session;
pub mod tui;

pub use error::{Error, Result};
