//! The solver framework: one trait for every algorithm, declared
//! parameters, matched starts and parallel restarts.

use crate::error::{Error, Result};
use ndarray::Array2;
use rand::SeedableRng;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub mod eigs;
pub mod fastmath;
pub mod feature_weights;
pub mod init;
pub mod ip_rff;
pub mod kernel_kmeans;
pub mod kpower;
pub mod lloyd;
pub mod lw;
pub mod mkpower;
pub mod params;
pub mod path;
pub mod power;
pub mod problem;
pub mod progress;
pub mod rff_mkpower;
pub mod rff_power;
pub mod rows;
pub mod sparse_kmeans;
pub mod spectral;
pub mod sweep;
pub mod weights;
pub mod wkmeans;

pub use init::Init;
pub use params::{ParamSpec, Params, Scale};
pub use problem::Problem;
pub use progress::{Ctx, Event, Progress};

/// The RNG every solver draws from: a fixed algorithm, so a seed means the
/// same numbers on every platform and crate version.
pub type Rng = rand_chacha::ChaCha8Rng;

/// One point of an objective trace.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TracePoint {
    pub iter: usize,
    /// The annealing exponent at this iteration (power-mean algorithms;
    /// absent from the JSON for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s: Option<f64>,
    pub objective: f64,
    /// Kernel weights α after this iteration (multi-kernel algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_weights: Option<Vec<f64>>,
}

/// The outcome of one start.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    /// 0-based cluster of every row, in input order.
    pub labels: Vec<usize>,
    /// k × p centres in the (scaled) input space, where they exist.
    pub centroids: Option<Array2<f64>>,
    /// The algorithm's own objective at the end (lower is better).
    pub objective: f64,
    pub trace: Vec<TracePoint>,
    pub iterations: usize,
    pub converged: bool,
    pub feature_weights: Option<Vec<f64>>,
    pub kernel_weights: Option<Vec<f64>>,
    /// Algorithm-specific results for the JSON output.
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// Things about the result the user should know (empty clusters, …).
    pub warnings: Vec<String>,
}

impl Fit {
    pub fn sizes(&self, k: usize) -> Vec<usize> {
        cluster_sizes(&self.labels, k)
    }
}

pub fn cluster_sizes(labels: &[usize], k: usize) -> Vec<usize> {
    let mut sizes = vec![0; k];
    for &l in labels {
        sizes[l] += 1;
    }
    sizes
}

/// Everything that defines a run besides the data.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub k: usize,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    /// Every declared parameter, resolved (see [`resolve_params`]).
    pub params: Params,
    /// Non-numeric options some algorithms take (e.g. `kernel`).
    pub options: BTreeMap<String, String>,
}

/// One start: restart `index` uses seed `seed + index`, so any restart can
/// be reproduced alone with `--seed seed+index --restarts 1`.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pub index: usize,
    pub seed: u64,
}

impl Start {
    pub fn rng(&self) -> Rng {
        Rng::seed_from_u64(self.seed)
    }
}

pub trait Algorithm: Send + Sync {
    /// Identifier on the command line (`power`, `kmeans`, …).
    fn id(&self) -> &'static str;
    /// Human name (`Power k-means`).
    fn name(&self) -> &'static str;
    /// One line on what it does and where it comes from.
    fn summary(&self) -> &'static str;
    /// The tunable parameters, with defaults and ranges.
    fn params(&self) -> Vec<ParamSpec>;
    /// The feature scaling applied before this algorithm when the user does
    /// not choose one (`--scale` overrides it): the one its paper used.
    fn default_scaling(&self) -> crate::data::Scaling {
        crate::data::Scaling::Standard
    }
    /// The value of a parameter whose default is `Auto`, from the data.
    fn auto_param(&self, name: &str, _problem: &Problem, _k: usize) -> Result<f64> {
        unreachable!("{} declares no automatic default for {name}", self.id())
    }
    /// Non-numeric options the algorithm accepts, with their defaults.
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// Work shared by all restarts (a Gram matrix, a feature map), done
    /// once before them and cached on the problem.
    fn prepare(&self, _problem: &Problem, _cfg: &RunConfig, _ctx: &Ctx) -> Result<()> {
        Ok(())
    }
    /// Runs one start to convergence (or `max_iter`). Must depend only on
    /// the problem, the config and `start`, and return `Err(Cancelled)`
    /// promptly once `ctx` is cancelled.
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit>;
}

/// Every algorithm, in the order users see them.
pub fn registry() -> Vec<Box<dyn Algorithm>> {
    vec![
        Box::new(lloyd::KMeans),
        Box::new(power::Khm),
        Box::new(power::PowerKMeans),
        Box::new(kernel_kmeans::KernelKMeans),
        Box::new(kpower::KernelPower),
        Box::new(mkpower::MultiKernelPower),
        Box::new(rff_power::RffPower),
        Box::new(rff_mkpower::RffMkPower),
        Box::new(ip_rff::IpRffMkPower),
        Box::new(spectral::Spectral),
        Box::new(wkmeans::WkMeans),
        Box::new(lw::Lw),
        Box::new(sparse_kmeans::SparseKMeans),
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

/// Checks the non-numeric options given by the user against those the
/// algorithm accepts, and fills in its defaults for the others. `max_memory`
/// is accepted by every algorithm.
pub fn resolve_options(
    algo: &dyn Algorithm,
    given: &[(String, String)],
) -> Result<BTreeMap<String, String>> {
    let accepted = algo.options();
    let mut out = BTreeMap::new();
    for (name, v) in given {
        if name == "max_memory" {
            out.insert(name.clone(), v.clone());
            continue;
        }
        if !accepted.iter().any(|(n, _)| n == name) {
            let names: Vec<String> = accepted.iter().map(|(n, _)| format!("--{n}")).collect();
            let list = if names.is_empty() {
                "it takes none".to_string()
            } else {
                format!("it takes {}", names.join(", "))
            };
            return Err(Error::Param(format!(
                "--{} does not apply to algorithm {} ({list})",
                name.replace('_', "-"),
                algo.id()
            )));
        }
        out.insert(name.clone(), v.clone());
    }
    for (name, default) in accepted {
        out.entry(name.to_string())
            .or_insert_with(|| default.to_string());
    }
    Ok(out)
}

/// Resolves an algorithm's parameters from the values given by the user.
pub fn resolve_params(
    algo: &dyn Algorithm,
    problem: &Problem,
    k: usize,
    given: &[(String, f64)],
) -> Result<Params> {
    Params::resolve(algo.id(), &algo.params(), given, |name| {
        algo.auto_param(name, problem, k)
    })
}

/// The best of all restarts.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub best: Fit,
    pub best_restart: usize,
    /// Final objective of every restart, in restart order.
    pub restart_objectives: Vec<f64>,
    /// Solver time (preparation and all restarts), loading excluded.
    pub elapsed: Duration,
}

/// Checks k and the restart count against the problem.
pub fn check_config(problem: &Problem, cfg: &RunConfig) -> Result<()> {
    let n = problem.n();
    if cfg.k == 0 || cfg.k > n {
        return Err(Error::Param(format!(
            "k = {} is out of range: must be in [1, {n}] (the number of rows)",
            cfg.k
        )));
    }
    if cfg.restarts == 0 {
        return Err(Error::Param(
            "restarts = 0 is out of range: must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Runs every restart in parallel and keeps the one with the lowest
/// objective (the earliest on a tie), so the result depends only on the
/// seed, never on the number of threads.
pub fn run(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    ctx: &Ctx,
) -> Result<RunResult> {
    check_config(problem, cfg)?;
    let t0 = Instant::now();
    algo.prepare(problem, cfg, ctx)?;
    let fits: Vec<Result<Fit>> = (0..cfg.restarts)
        .into_par_iter()
        .map(|r| {
            let start = Start {
                index: r,
                seed: cfg.seed.wrapping_add(r as u64),
            };
            let rctx = ctx.for_restart(r);
            let fit = algo.fit(problem, cfg, start, &rctx)?;
            if !fit.objective.is_finite() || fit.labels.len() != problem.n() {
                return Err(Error::Resource(format!(
                    "{} produced an invalid result on restart {r} (objective {}); please report this",
                    algo.id(),
                    fit.objective
                )));
            }
            rctx.emit(Event::RestartDone {
                restart: r,
                objective: fit.objective,
                iterations: fit.iterations,
            });
            Ok(fit)
        })
        .collect();
    let mut ok = Vec::with_capacity(fits.len());
    for f in fits {
        ok.push(f?);
    }
    let restart_objectives: Vec<f64> = ok.iter().map(|f| f.objective).collect();
    let best_restart = restart_objectives.iter().enumerate().fold(0, |b, (i, &v)| {
        if v < restart_objectives[b] { i } else { b }
    });
    let mut best = ok.swap_remove(best_restart);
    let empty = best.sizes(cfg.k).iter().filter(|&&c| c == 0).count();
    if empty > 0 {
        let hint = if best.trace.iter().any(|t| t.s.is_some()) {
            ": their centres merged with others, which power-mean methods do when s₀ is too close to 0 for the dimension; try a more negative s₀ (e.g. -3 or -9)"
        } else {
            ""
        };
        best.warnings
            .push(format!("{empty} of {} clusters are empty{hint}", cfg.k));
    }
    Ok(RunResult {
        best,
        best_restart,
        restart_objectives,
        elapsed: t0.elapsed(),
    })
}
