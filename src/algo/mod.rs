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
pub use crate::solver::csr::Csr;
pub use crate::solver::params;
pub use crate::solver::{
    Algorithm, BATCH, Caps, Common, Ctx, Event, Extras, Family, Features, Fit, Gap, Init,
    KernelApprox, KernelInfo, KernelSet, MapInfo, Matrix, ModelKind, ParamError, ParamSpec, Params,
    Phases, Problem, Progress, PyClass, Request, Rng, RunConfig, RunResult, Solver, Start,
    StartMemory, TracePoint, Typicality, Weighs, check_config, check_memory, cluster_sizes,
    configure, resolve_options, resolve_params, rows::Rows, run,
};
pub use weighted::block as weighted_block;
pub use weighted::path;

use crate::error::Result;

/// Every algorithm, in the order users see them: the one list of them.
/// What each can do is declared on it ([`Solver::caps`]).
pub fn registry() -> Vec<Box<dyn Algorithm>> {
    let all: Vec<Box<dyn Algorithm>> = vec![
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
        Box::new(centroid::kmedians::KMedians),
    ];
    crate::solver::caps::enrol(|| all.iter().map(|a| (a.id(), a.caps())).collect());
    all
}

/// The algorithms `pick` accepts, as the refusals name them: "a, b or c"
/// (e.g. `takers(|a| a.caps().sparse)`).
pub fn takers(pick: impl Fn(&dyn Algorithm) -> bool) -> String {
    crate::solver::caps::sentence(&ids(pick), "or")
}

/// The ids of the algorithms `pick` accepts, in the registry's order.
pub fn ids(pick: impl Fn(&dyn Algorithm) -> bool) -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|a| pick(a.as_ref()))
        .map(|a| a.id())
        .collect()
}

/// The algorithm with command-line id `id` (`power`, `kmeans`, …).
///
/// # Errors
/// [`Error::Param`] for an id that is not an algorithm; the message lists
/// the available ones.
pub fn find(id: &str) -> Result<Box<dyn Algorithm>> {
    if let Some(a) = registry().into_iter().find(|a| a.id() == id) {
        return Ok(a);
    }
    Err(ParamError::UnknownAlgorithm {
        id: id.to_string(),
        known: registry().iter().map(|a| a.id()).collect(),
    }
    .into())
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

    /// The refusals are built from the registry: each names exactly the
    /// algorithms that declare the capability, in the registry's order.
    #[test]
    fn the_refusals_name_the_algorithms_that_take_it() {
        let x = Array2::from_shape_fn((20, 3), |(i, j)| (i * 3 + j) as f64);
        let mut weighted = Problem::new(x);
        let w: Vec<f64> = (0..20).map(|i| (i % 3 + 1) as f64).collect();
        weighted.set_sample_weights(w).unwrap();
        let e = find("dmkkm")
            .unwrap()
            .check(&weighted, &config(&weighted, "dmkkm"))
            .unwrap_err()
            .to_string();
        let ids = |pick: fn(&Caps) -> bool| -> Vec<&str> {
            registry()
                .iter()
                .filter(|a| pick(&a.caps()))
                .map(|a| a.id())
                .collect()
        };
        let weighs = ids(|c| c.sample_weights);
        assert!(weighs.len() > 2 && weighs.contains(&"kmeans"), "{weighs:?}");
        let (last, rest) = weighs.split_last().unwrap();
        let want = format!("{} or {last} do", rest.join(", "));
        assert!(
            e.starts_with("dmkkm does not take sample weights (its objective")
                && e.ends_with(&want),
            "{e}"
        );
        assert_eq!(
            takers(|a| a.caps().sparse),
            "kmeans, khm, power, rff-power, rff-mkpower, ip-rff-mkpower, wkmeans, lw or sparse-kmeans"
        );
    }

    fn config(problem: &Problem, id: &str) -> RunConfig {
        let a = find(id).unwrap();
        RunConfig {
            k: 2,
            seed: 0,
            restarts: 1,
            init: Init::KmeansPP,
            params: resolve_params(a.as_ref(), problem, 2, &[]).unwrap(),
            options: resolve_options(a.as_ref(), &[]).unwrap(),
            centres: None,
        }
    }

    /// Every algorithm has a Python class, and no two share one.
    #[test]
    fn every_algorithm_has_its_own_python_class() {
        let mut names: Vec<&str> = registry().iter().map(|a| a.caps().python.name()).collect();
        assert!(names.iter().all(|n| !n.is_empty()));
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "{names:?}");
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
