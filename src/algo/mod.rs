//! The algorithms, one folder per family — centroid (`kmeans`, `khm`,
//! `power`), kernel (`kernel-kmeans`, `kpower`, `mkpower`, `spectral`),
//! random features (`rff-power`, `rff-mkpower`, `ip-rff-mkpower`),
//! feature-weighted (`wkmeans`, `lw`, `sparse-kmeans`, the path) — and the
//! registry that lists them. Every family builds on the solver core
//! (`crate::solver`), never on another family.

pub(crate) mod centroid;
pub(crate) mod kernel;
pub(crate) mod rff;
pub(crate) mod weighted;

pub use crate::solver::params;
pub use crate::solver::{
    Algorithm, Ctx, Event, Fit, Init, ParamSpec, Params, Problem, Progress, Rng, RunConfig,
    RunResult, Start, StartMemory, TracePoint, check_config, check_memory, cluster_sizes,
    resolve_options, resolve_params, run,
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
pub const ALL_IDS: [&str; 14] = [
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
    "spectral",
];

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
