//! meanscape: center-based clustering with annealing, kernels and feature
//! selection — power k-means and its kernel, random-feature and
//! feature-weighted relatives — as a library, a headless CLI and a terminal UI.
//!
//! The library surface:
//!
//! - **Load a dataset**: [`load`] reads a file (delimited text, `.npy`,
//!   `.mat`, IDX), a bundled dataset (`iris`, `wine`, `breast_cancer`,
//!   `digits`) or a generator (`gen:blobs,n=1000`), scales it and returns a
//!   [`Loaded`] whose [`Problem`](algo::Problem) the algorithms run on;
//!   [`data`] has the options, the raw reader and the generators.
//! - **Choose an algorithm and its parameters**: [`algo::find`] or
//!   [`algo::registry`]; every algorithm declares its parameters
//!   ([`algo::Algorithm::params`]) and [`algo::RunConfig::new`] checks the
//!   values you give against them.
//! - **Fit**: [`algo::Algorithm::run`] runs every restart in parallel and
//!   keeps the best; [`algo::Ctx`] carries progress events and
//!   cancellation; [`algo::path::run_path`] computes a regularisation path.
//! - **Read the result**: [`algo::RunResult`] and its [`algo::Fit`] (labels,
//!   centres, objective trace, feature and kernel weights, typed
//!   [`algo::Extras`]); [`report::RunReport`] is the JSON of
//!   `meanscape run --json`.
//! - **Predict new points**: [`model::Model::from_run`] keeps what assigns
//!   new rows to a run's clusters (with [`Loaded::scaling`], the fit's
//!   scaling), [`model::Model::predict`] / `predict_raw` apply it, and the
//!   model saves as versioned JSON (`docs/model-format.md`).
//! - **Metrics**: [`metrics`] (NMI, ARI, accuracy, purity, MCC; silhouette,
//!   Calinski–Harabasz, Davies–Bouldin, the k-means cost).
//! - **Sweep**: [`sweep`] runs a grid over declared parameters with R seeds
//!   per cell and scores every cell.
//!
//! ```
//! use meanscape::algo::{self, Ctx, RunConfig};
//! use meanscape::data::{LoadOptions, Scaling};
//!
//! let iris = meanscape::load("iris", &LoadOptions::default(), Scaling::Standard)?;
//! let power = algo::find("power")?;
//! let mut cfg = RunConfig::new(power.as_ref(), &iris.problem, 3, &[("s0", -3.0)], &[])?;
//! cfg.restarts = 4;
//! let result = power.run(&iris.problem, &cfg, &Ctx::new())?;
//! let truth = &iris.dataset.labels.as_ref().expect("iris has classes").ids;
//! let scores = meanscape::metrics::Scores::compute(truth, &result.best.labels);
//! assert!(scores.nmi > 0.6, "NMI {}", scores.nmi);
//! # Ok::<(), meanscape::Error>(())
//! ```
//!
//! The `cli` and `tui` Cargo features (on by default) add the program: the
//! command line and the terminal UI. `meanscape = { default-features =
//! false }` is the library alone, without clap, ratatui or crossterm.

// Numeric kernels index several arrays in step; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub mod algo;
/// The command-line program (`meanscape run`, `path`, `gen`, …): part of
/// the binary, not of the library API.
#[cfg(feature = "cli")]
pub mod cli;
pub mod data;
mod error;
/// Output files written safely (atomically, never over an input) and the
/// interrupt that removes a half-written one: used by both faces.
#[cfg(feature = "cli")]
mod files;
pub mod fit_scores;
mod kernel;
mod linalg;
mod memory;
pub mod metrics;
pub mod model;
// Used by the terminal UI (and the program's tables).
#[cfg_attr(not(feature = "tui"), allow(dead_code))]
mod numfmt;
pub mod report;
mod session;
mod solver;
pub mod sweep;
mod text;
/// The terminal UI (`meanscape` without a command): part of the binary,
/// not of the library API.
#[cfg(feature = "tui")]
pub mod tui;

pub use error::{Error, Result};
pub use session::{Loaded, StartOptions, UiOptions, load, prepare, resolve_scaling};

/// Building blocks below the public surface — the iteration loops from a
/// given start, Gram matrices, feature maps, matrix products — for the
/// crate's own tests, examples and benchmarks. Not part of the API: names
/// and signatures change without notice.
#[doc(hidden)]
pub mod internals {
    pub use crate::algo::kernel::dmkkm::{
        DEFAULT_POST as DMKKM_POST, Settings as DmkkmSettings, dmkkm_loop, initial_labels,
    };
    pub use crate::algo::kernel::dmkkm_fstep;
    pub use crate::algo::kernel::dmkkm_passes::{cluster_alignment, combine, gram_products};
    pub use crate::algo::kernel::eigs;
    pub use crate::algo::kernel::kernel_kmeans::{kernel_lloyd, weighted_kernel_lloyd};
    pub use crate::algo::kernel::kpower::{kpower_loop, weighted_kpower_loop};
    pub use crate::algo::kernel::mkpower::{mkpower_loop, weighted_mkpower_loop};
    pub use crate::algo::kernel::spectral;
    pub use crate::algo::rff::multiview::{
        MvSettings, Possibilistic, Views, mv_kmeans_start, mv_loop, parse_views, view_scales,
    };
    pub use crate::algo::rff::power::map_spec_of;
    pub use crate::algo::weighted::common as feature_weights;
    pub use crate::algo::weighted::lw::{LwSettings, LwStart, lw_from};
    pub use crate::algo::weighted::sparse::{
        SparseSettings, gap_grid, gap_statistic, sparse_loop, update_weights,
    };
    pub use crate::solver::lloyd::{lloyd_loop, lloyd_until_flat, plain_lloyd_loop};
    pub use crate::solver::mix::alpha_step;
    pub use crate::solver::power_mean::{power_loop, power_loop_hard};
    pub use crate::solver::simplex_qp;
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
        pub use crate::solver::row_dots::row_dots;
    }
}
