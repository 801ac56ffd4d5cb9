//! meanscape: center-based clustering with annealing, kernels and feature
//! selection — power k-means and its kernel, random-feature and
//! feature-weighted relatives — as a library, a headless CLI and a terminal UI.

// Numeric kernels index several arrays in step; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub mod algo;
pub mod cli;
pub mod data;
mod error;
mod kernel;
mod linalg;
mod memory;
pub mod metrics;
pub mod report;
mod session;
mod solver;
pub mod tui;

pub use error::{Error, Result};
pub use session::{Loaded, load, prepare, resolve_scaling};

/// Building blocks below the public surface — the iteration loops from a
/// given start, Gram matrices, feature maps, matrix products — for the
/// crate's own tests, examples and benchmarks. Not part of the API: names
/// and signatures change without notice.
#[doc(hidden)]
pub mod internals {
    pub use crate::algo::kernel::eigs;
    pub use crate::algo::kernel::kernel_kmeans::kernel_lloyd;
    pub use crate::algo::kernel::kpower::kpower_loop;
    pub use crate::algo::kernel::mkpower::mkpower_loop;
    pub use crate::algo::kernel::spectral;
    pub use crate::algo::rff::multiview::{
        MvSettings, Possibilistic, Views, mv_kmeans_start, mv_loop, parse_views,
    };
    pub use crate::algo::rff::power::map_spec_of;
    pub use crate::algo::weighted::common as feature_weights;
    pub use crate::algo::weighted::lw::{LwSettings, LwStart, lw_from};
    pub use crate::algo::weighted::sparse::{
        SparseSettings, gap_grid, gap_statistic, update_weights,
    };
    pub use crate::solver::lloyd::lloyd_loop;
    pub use crate::solver::mix::alpha_step;
    pub use crate::solver::power_mean::{power_loop, power_loop_hard};
    pub use crate::solver::stopping::Schedule;

    /// Kernel matrices and random Fourier feature maps.
    pub mod kernel {
        pub use crate::kernel::*;
    }

    /// The delimited-text parser (the loading benchmark times it alone).
    pub mod delimited {
        pub use crate::data::delimited::parse;
    }

    /// Matrix products (faer's GEMM on ndarray views).
    pub mod linalg {
        pub use crate::linalg::*;
    }
}
