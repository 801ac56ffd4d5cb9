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
    /// Peak memory of one start beyond the data and what `prepare` caches
    /// (Gram matrices and feature maps guard themselves), checked against
    /// the budget by [`run`] before anything is allocated. The default is
    /// what the Euclidean algorithms that sweep the rows in blocks hold:
    /// the seeding and the labels.
    fn start_memory(&self, problem: &Problem, cfg: &RunConfig) -> StartMemory {
        StartMemory::seeding(problem.n(), cfg.k, cfg.init)
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

/// Peak bytes of one start and what they are for (for the refusal).
#[derive(Debug, Clone, PartialEq)]
pub struct StartMemory {
    pub bytes: f64,
    pub what: String,
}

impl StartMemory {
    /// Seeding and labels: k-means++ keeps n distances per candidate
    /// (2 + ⌊ln k⌋ of them), the running minima and their cumulative sums;
    /// random seeding the n×k distances to its k rows; two label vectors.
    pub fn seeding(n: usize, k: usize, init: Init) -> Self {
        let cols = match init {
            Init::KmeansPP => 2 + (k.max(1) as f64).ln().floor() as usize + 2,
            Init::Random => k,
        };
        StartMemory {
            bytes: (cols + 2) as f64 * n as f64 * 8.0,
            what: format!("{init} seeding ({cols} columns of n = {n} distances)"),
        }
    }

    /// Adds `count` dense n×k arrays of f64 (distances, weights).
    pub fn plus_nk(self, n: usize, k: usize, count: usize, what: &str) -> Self {
        StartMemory {
            bytes: self.bytes + count as f64 * n as f64 * k as f64 * 8.0,
            what: format!("{}, {count} n×k {what} (k = {k})", self.what),
        }
    }

    /// The feature-weighted algorithms (wkmeans, lw, sparse-kmeans): the
    /// seeding, the n×k weighted distances and a copy of the data's columns
    /// that keep a weight.
    pub fn feature_weighted(problem: &Problem, cfg: &RunConfig) -> Self {
        let (n, p) = (problem.n(), problem.p());
        Self::seeding(n, cfg.k, cfg.init)
            .plus_nk(n, cfg.k, 1, "array of weighted distances")
            .plus(n as f64 * p as f64 * 8.0, "a copy of the weighted columns")
    }

    /// Adds `bytes` for `what`.
    pub fn plus(self, bytes: f64, what: &str) -> Self {
        StartMemory {
            bytes: self.bytes + bytes,
            what: format!("{}, {what}", self.what),
        }
    }
}

/// Refuses a run that would not fit in the memory budget (`--max-memory`),
/// before anything is allocated: see [`check_start_memory`].
pub fn check_memory(algo: &dyn Algorithm, problem: &Problem, cfg: &RunConfig) -> Result<()> {
    let one = algo.start_memory(problem, cfg);
    check_start_memory(algo.id(), problem.n(), problem.p(), one, cfg)
}

/// The budget check of a run on n × p data: the data and its row norms
/// (already held), the starts that run at once (one per thread) with
/// `one` each, and the labels every finished start keeps until the best is
/// chosen.
pub fn check_start_memory(
    id: &str,
    n: usize,
    p: usize,
    one: StartMemory,
    cfg: &RunConfig,
) -> Result<()> {
    let at_once = cfg.restarts.clamp(1, rayon::current_num_threads().max(1));
    let (nf, pf) = (n as f64, p as f64);
    let held = nf * (pf + 1.0) * 8.0;
    let need = held + at_once as f64 * one.bytes + cfg.restarts as f64 * nf * 8.0;
    let what = format!(
        "the data with its row norms ({}), {at_once} start{} at once, each with {}, and the labels of {} restart{}",
        crate::memory::fmt_bytes(held),
        if at_once == 1 { "" } else { "s" },
        one.what,
        cfg.restarts,
        if cfg.restarts == 1 { "" } else { "s" },
    );
    let mut fix = String::from("lower k");
    if cfg.restarts > 1 {
        fix.push_str(" or --restarts");
    }
    if cfg.init == Init::Random && cfg.k > 16 {
        fix.push_str(", use --init kmeans++ (n distances per candidate, not per centre)");
    }
    fix.push_str(", or cluster fewer rows");
    crate::memory::check(
        id,
        need,
        &what,
        &fix,
        cfg.options.get("max_memory").map(|s| s.as_str()),
    )
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

/// What a run asks for, before its parameters are resolved.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub k: usize,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    /// Parameter values the user set, by declared name.
    pub given: &'a [(String, f64)],
    /// Non-numeric options the user set (`kernel`, `max_memory`, …).
    pub options: &'a [(String, String)],
}

/// Builds a run's configuration, checking the cheap things first: k and the
/// restart count against the data (errors name `data`), then the memory
/// budget, and only then resolving the parameters, because an automatic
/// default may itself cluster the data (sparse-kmeans' bound) and must not
/// allocate before the budget allows it.
pub fn configure(
    algo: &dyn Algorithm,
    problem: &Problem,
    req: Request<'_>,
    data: &str,
) -> Result<RunConfig> {
    let mut cfg = RunConfig {
        k: req.k,
        seed: req.seed,
        restarts: req.restarts,
        init: req.init,
        params: Params::default(),
        options: resolve_options(algo, req.options)?,
    };
    check_config(problem, &cfg).map_err(|e| e.about(data))?;
    check_memory(algo, problem, &cfg)?;
    cfg.params = resolve_params(algo, problem, req.k, req.given)?;
    Ok(cfg)
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
    check_memory(algo, problem, cfg)?;
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
                    crate::report::fmt_sig(fit.objective)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(k: usize, restarts: usize, max_memory: &str) -> RunConfig {
        RunConfig {
            k,
            seed: 0,
            restarts,
            init: Init::KmeansPP,
            params: Params::default(),
            options: [("max_memory".to_string(), max_memory.to_string())].into(),
        }
    }

    #[test]
    fn power_on_1e8_rows_and_k_1000_is_refused_with_the_estimate() {
        let n = 100_000_000;
        let one = StartMemory::seeding(n, 1000, Init::KmeansPP);
        // 2 + ⌊ln 1000⌋ = 8 candidates, the minima, their sums, two label
        // vectors: 12 × 8 bytes per row.
        assert_eq!(one.bytes, 12.0 * n as f64 * 8.0);
        let e = check_start_memory("power", n, 1, one, &cfg(1000, 1, "8G"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("power needs 11.2 GiB for the data"), "{e}");
        assert!(
            e.contains("kmeans++ seeding") && e.contains("lower k"),
            "{e}"
        );
        assert!(e.contains("limit of 8.0 GiB (--max-memory)"), "{e}");
        assert!(!e.contains('\n'));
        let small = StartMemory::seeding(1000, 10, Init::KmeansPP);
        assert!(check_start_memory("power", 1000, 4, small, &cfg(10, 1, "8G")).is_ok());
    }

    #[test]
    fn restarts_multiply_the_labels_and_the_starts_at_once() {
        let one = || StartMemory::seeding(1_000_000, 10, Init::KmeansPP);
        let limit = "100M";
        assert!(check_start_memory("power", 1_000_000, 1, one(), &cfg(10, 1, limit)).is_ok());
        let e = check_start_memory("power", 1_000_000, 1, one(), &cfg(10, 64, limit))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the labels of 64 restarts") && e.contains("--restarts"),
            "{e}"
        );
    }
}
