//! Clustering algorithms: the registry ([`find`], [`registry`]), what a run
//! is configured with ([`RunConfig`], [`Init`], declared parameters and
//! their [`params`]), runs ([`Algorithm::run`], [`Ctx`] for progress and
//! cancellation) and what they produce ([`RunResult`], [`Fit`], [`Extras`]),
//! plus the regularisation [`path`] of `lw` and `sparse-kmeans`.
//!
//! Inside, one folder per family — centroid (`kmeans`, `khm`, `power`),
//! kernel (`kernel-kmeans`, `kpower`, `mkpower`, `dmkkm`, `mkkm`, `spectral`), random
//! features (`rff-power`, `rff-mkpower`, `ip-rff-mkpower`), feature-weighted
//! (`wkmeans`, `lw`, `sparse-kmeans`, the path) — each built on the solver
//! core (`crate::solver`: problem, parameters, progress, seeding, the fused
//! sweep, the stopping rules and the one iteration loop), never on another
//! family.

pub(crate) mod centroid;
pub(crate) mod kernel;
pub(crate) mod rff;
pub(crate) mod weighted;

pub use crate::solver::block;
pub use crate::solver::csr::{Csr, problem::TAKES_SPARSE};
pub use crate::solver::params;
pub use crate::solver::{
    Algorithm, BATCH, Common, Ctx, Event, Extras, Features, Fit, Gap, Init, KernelApprox,
    KernelInfo, KernelSet, MapInfo, Matrix, ModelKind, ParamError, ParamSpec, Params, Phases,
    Problem, Progress, Request, Rng, RunConfig, RunResult, Solver, Start, StartMemory,
    TAKES_KERNELS, TracePoint, Typicality, Weighs, check_config, check_memory, cluster_sizes,
    configure, resolve_options, resolve_params, rows::Rows, run,
};
pub use weighted::path;

use crate::error::{Error, Result};

/// Every algorithm, in the order users see them.
pub fn registry() -> Vec<Box<dyn Algorithm>> {
    vec![
        Box::new(centroid::kmeans::KMeans),
        Box::new(centroid::khm::Khm),
        Box::new(centroid::power::PowerKMeans),
        Box::new(kernel::kernel_kmeans::KernelKMeans),
        Box::new(kernel::kpower::KernelPower),
        Box::new(kernel::mkpower::MultiKernelPower),
        Box::new(kernel::dmkkm::Dmkkm),
        Box::new(kernel::mkkm::Mkkm),
        Box::new(rff::power::RffPower),
        Box::new(rff::multiview::RffMkPower),
        Box::new(rff::ip::IpRffMkPower),
        Box::new(kernel::spectral::Spectral),
        Box::new(weighted::wkmeans::WkMeans),
        Box::new(weighted::lw::Lw),
        Box::new(weighted::sparse::SparseKMeans),
    ]
}

/// Every algorithm id the project reserves, implemented or not.
pub const ALL_IDS: [&str; 15] = [
    "kmeans",
    "khm",
    "power",
    "kernel-kmeans",
    "kpower",
    "mkpower",
    "rff-power",
    "rff-mkpower",
    "ip-rff-mkpower",
    "wkmeans",
    "lw",
    "sparse-kmeans",
    "dmkkm",
    "mkkm",
    "spectral",
];

/// The algorithm with command-line id `id` (`power`, `kmeans`, …).
///
/// # Errors
/// [`Error::Param`] for an id that is not an algorithm or not implemented
/// yet; the message lists the available ones.
pub fn find(id: &str) -> Result<Box<dyn Algorithm>> {
    if let Some(a) = registry().into_iter().find(|a| a.id() == id) {
        return Ok(a);
    }
    let known: Vec<&str> = registry().iter().map(|a| a.id()).collect();
    let why = if ALL_IDS.contains(&id) {
        "is not implemented yet"
    } else {
        "is not an algorithm"
    };
    Err(Error::Param(format!(
        "'{id}' {why}; available: {}",
        known.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// Every algorithm reads its typed parameters from its own declared
    /// table: a name misspelt on one side fails here, not in a user's run.
    #[test]
    fn every_algorithm_reads_its_declared_defaults() {
        let x = Array2::from_shape_fn((40, 4), |(i, j)| ((i * 7 + j * 3) % 11) as f64 + i as f64);
        let problem = Problem::new(x);
        for a in registry() {
            let params = resolve_params(a.as_ref(), &problem, 3, &[]).unwrap();
            let cfg = RunConfig {
                k: 3,
                seed: 0,
                restarts: 1,
                init: Init::KmeansPP,
                params,
                options: resolve_options(a.as_ref(), &[]).unwrap(),
                centres: None,
            };
            a.check(&problem, &cfg)
                .unwrap_or_else(|e| panic!("{}: {e}", a.id()));
        }
    }

    /// The refusal of kernels-only data names exactly the algorithms that
    /// take kernels.
    #[test]
    fn the_kernel_algorithms_are_named_in_the_refusal() {
        let takes: Vec<&str> = registry()
            .iter()
            .filter(|a| a.takes_kernels())
            .map(|a| a.id())
            .collect();
        let named: Vec<&str> = TAKES_KERNELS
            .split([',', ' '])
            .filter(|w| !w.is_empty() && *w != "or")
            .collect();
        let mut a = takes.clone();
        let mut b = named.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "update TAKES_KERNELS");
    }

    /// The refusals of sample weights and given centres name exactly the
    /// algorithms that take them.
    #[test]
    fn the_weighing_algorithms_are_named_in_the_refusals() {
        let named = |list: &str| {
            let mut v: Vec<String> = list
                .split([',', ' '])
                .filter(|w| !w.is_empty() && *w != "or")
                .map(String::from)
                .collect();
            v.sort();
            v
        };
        let takes = |f: fn(&dyn Algorithm) -> bool| {
            let mut v: Vec<String> = registry()
                .iter()
                .filter(|a| f(a.as_ref()))
                .map(|a| a.id().to_string())
                .collect();
            v.sort();
            v
        };
        let weights = takes(|a| a.takes_sample_weights());
        assert_eq!(
            weights,
            named(crate::solver::algorithm::TAKES_SAMPLE_WEIGHTS)
        );
        let centres = takes(|a| a.takes_centres());
        assert_eq!(centres, named(crate::solver::algorithm::TAKES_CENTRES));
    }

    #[test]
    fn a_missing_value_is_a_typed_error_not_a_panic() {
        let problem = Problem::new(Array2::from_shape_fn((10, 2), |(i, j)| (i + j) as f64));
        let a = find("power").unwrap();
        let cfg = RunConfig {
            k: 2,
            seed: 0,
            restarts: 1,
            init: Init::KmeansPP,
            params: Params::default(),
            options: Default::default(),
            centres: None,
        };
        let e = a.check(&problem, &cfg).unwrap_err().to_string();
        assert!(e.contains("parameter s0 is missing"), "{e}");
    }
}
