//! The solver framework: one trait for every algorithm, declared
//! parameters, matched starts and parallel restarts.

use super::caps::{Caps, takers};
use super::fit::{Fit, RunResult};
use super::init::Init;
use super::params::{ParamSpec, Params};
use super::problem::Problem;
use super::progress::{Ctx, Event};
use super::space::SpaceBlocks;
use crate::error::{Error, Result};
use rand::SeedableRng;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::Instant;

/// The RNG every solver draws from: a fixed algorithm, so a seed means the
/// same numbers on every platform and crate version.
pub type Rng = rand_chacha::ChaCha8Rng;

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
    /// Initial centres (k × p, in the input space) instead of seeding:
    /// scikit-learn's `init=array`. Every restart starts from them.
    pub centres: Option<std::sync::Arc<ndarray::Array2<f64>>>,
}

impl RunConfig {
    /// A run of `algo` with `k` clusters on `problem`: seed 0, one start,
    /// k-means++ seeding; the parameters in `params` set (by their declared
    /// names, checked against their ranges), every other one at its
    /// default (automatic defaults computed from `problem`), and likewise
    /// the options (`kernel`, `kernels`, `views`, `tune`, `max_memory`).
    /// Set `seed`, `restarts` and `init` on the result to change them.
    ///
    /// # Errors
    /// [`Error::Param`] for a parameter or option the algorithm does not
    /// take or a value out of its range, and what computing an automatic
    /// default fails with.
    pub fn new(
        algo: &dyn Algorithm,
        problem: &Problem,
        k: usize,
        params: &[(&str, f64)],
        options: &[(&str, &str)],
    ) -> Result<Self> {
        let given: Vec<(String, f64)> = params.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        let opts: Vec<(String, String)> = options
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        Ok(RunConfig {
            k,
            seed: 0,
            restarts: 1,
            init: Init::default(),
            params: resolve_params(algo, problem, k, &given)?,
            options: resolve_options(algo, &opts)?,
            centres: None,
        })
    }

    /// The text of option `name` (as given, or the algorithm's default
    /// once [`resolve_options`] filled it in), else `default`.
    pub fn option<'a>(&'a self, name: &str, default: &'a str) -> &'a str {
        self.options.get(name).map_or(default, |s| s.as_str())
    }
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

/// What every algorithm reads from a [`RunConfig`] besides its own
/// parameters, parsed once at the start of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Common {
    pub k: usize,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    /// The memory budget in bytes (`--max-memory`); `None`: the default.
    pub max_memory: Option<u64>,
    /// Given initial centres ([`RunConfig::centres`]).
    pub centres: Option<std::sync::Arc<ndarray::Array2<f64>>>,
}

impl Common {
    /// The run-level settings of `cfg`, its `max_memory` option parsed.
    ///
    /// # Errors
    /// [`Error::Param`] when `max_memory` is not a size.
    pub fn of(cfg: &RunConfig) -> Result<Self> {
        let max_memory = cfg
            .options
            .get(MAX_MEMORY)
            .map(|t| crate::memory::parse_size(t))
            .transpose()?;
        Ok(Common {
            k: cfg.k,
            seed: cfg.seed,
            restarts: cfg.restarts,
            init: cfg.init,
            max_memory,
            centres: cfg.centres.clone(),
        })
    }
}

/// The option every algorithm accepts: the memory budget, in bytes.
pub const MAX_MEMORY: &str = "max_memory";

/// What an algorithm weighs besides the points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighs {
    Nothing,
    /// One weight per feature (the feature-weighted family).
    Features,
    /// One weight per kernel or view (the multiple-kernel algorithms).
    Kernels,
}

/// The kind of model a fit saves: what `predict` needs to place new rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// Centres in the input space.
    Centroids,
    /// Centres in the input space, nearest in L1 (saved as centroids with
    /// `"metric": "l1"`).
    Medians,
    /// Centres and feature weights.
    Weighted,
    /// The training rows' kernel and memberships.
    Kernel,
    /// A random Fourier feature map and centres in its space.
    Rff,
}

impl ModelKind {
    /// The kind's name (in a model file, but for medians: see the variant).
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Centroids => "centroids",
            ModelKind::Medians => "medians",
            ModelKind::Weighted => "weighted",
            ModelKind::Kernel => "kernel",
            ModelKind::Rff => "rff",
        }
    }
}

/// One algorithm, as each implements it: its declared parameters, the
/// plain struct it reads them into, and one start. The run around the
/// starts (checks, restarts in parallel, the best of them) is shared: every
/// `Solver` is an [`Algorithm`].
pub trait Solver: Send + Sync {
    /// The algorithm's parameters, typed (flags `bool`, counts integers,
    /// options parsed), built once per run by [`Solver::typed`].
    type Params: Send + Sync;
    /// Identifier on the command line (`power`, `kmeans`, …).
    fn id(&self) -> &'static str;
    /// Human name (`Power k-means`).
    fn name(&self) -> &'static str;
    /// One line on what it does and where it comes from.
    fn summary(&self) -> &'static str;
    /// The declared parameters, with defaults and ranges: the one source
    /// for the CLI's validation, the UI's sliders and the JSON `params`.
    fn params(&self) -> Vec<ParamSpec>;
    /// The feature scaling applied before this algorithm when the user does
    /// not choose one (`--scale` overrides it): the one its paper used.
    fn default_scaling(&self) -> super::Scaling {
        super::Scaling::Standard
    }
    /// What it takes besides dense features (kernels, sample weights,
    /// given centres, sparse rows), its family and its Python class: the
    /// one place these are declared; the refusals of what it does not take
    /// name the algorithms that do ([`super::caps::takers`]).
    fn caps(&self) -> Caps;
    /// Why it does not take sample weights, for the refusal (None: no
    /// reason given beyond the list of those that do).
    fn why_no_sample_weights(&self) -> Option<&'static str> {
        None
    }
    /// What it weighs besides the points (the weights a fit reports).
    fn weighs(&self) -> Weighs {
        Weighs::Nothing
    }
    /// The model a fit of it saves (`--save-model`), or None.
    fn model_kind(&self) -> Option<ModelKind> {
        None
    }
    /// How its fit places new rows, for the feature-weighted family
    /// (`ModelKind::Weighted`); None for the others.
    ///
    /// # Errors
    /// What rebuilding the fit's space (z-scores) can fail with.
    fn assign_rule(
        &self,
        _problem: &Problem,
        _cfg: &RunConfig,
        _p: &Self::Params,
        _fit: &Fit,
    ) -> Result<Option<super::fit::AssignRule>> {
        Ok(None)
    }
    /// The value of a parameter whose default is `Auto`, from the data.
    ///
    /// # Errors
    /// [`Error::Param`] for a name without an automatic default.
    fn auto_param(&self, name: &str, _problem: &Problem, _k: usize) -> Result<f64> {
        Err(Error::param(format!(
            "{} declares no automatic default for {name}",
            self.id()
        )))
    }
    /// Non-numeric options the algorithm accepts, with their defaults.
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// The typed parameters from the resolved values and options of `cfg`
    /// (options are parsed here, once).
    ///
    /// # Errors
    /// [`Error::Param`] for an option that does not parse or a value the
    /// typed parameters cannot hold.
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<Self::Params>;
    /// Peak memory of one start beyond the data and what `prepare` caches
    /// (Gram matrices and feature maps guard themselves), checked against
    /// the budget before anything is allocated. The default is what the
    /// Euclidean algorithms that pass over the rows in blocks hold: the seeding
    /// and the labels.
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &Self::Params) -> StartMemory {
        StartMemory::seeding(problem.n(), run.k, run.init)
    }
    /// Work shared by all restarts (a Gram matrix, a feature map), done
    /// once before them and cached on the problem.
    ///
    /// # Errors
    /// [`Error::Resource`] above the memory budget, [`Error::Cancelled`].
    fn prepare(
        &self,
        _problem: &Problem,
        _run: &Common,
        _p: &Self::Params,
        _ctx: &Ctx,
    ) -> Result<()> {
        Ok(())
    }
    /// The space a finished run clustered in, where its label-free
    /// scores are computed: weighted blocks, each a Gram matrix or a
    /// feature map ([`super::space::SpaceBlock`]), taken from the
    /// problem's cache. Empty (the default) is the scaled input
    /// features.
    ///
    /// # Errors
    /// As [`Solver::prepare`], should the cached work have been dropped
    /// and need building again.
    fn space(
        &self,
        _problem: &Problem,
        _run: &Common,
        _p: &Self::Params,
        _fit: &Fit,
        _ctx: &Ctx,
    ) -> Result<SpaceBlocks> {
        Ok(Vec::new())
    }
    /// Runs one start to convergence (or `max_iter`). Must depend only on
    /// the problem, the settings and `start`, work without `prepare`
    /// (fetching what it caches), and return `Err(Cancelled)` promptly once
    /// `ctx` is cancelled.
    ///
    /// # Errors
    /// [`Error::Cancelled`], [`Error::Data`] for data it cannot cluster
    /// (fewer distinct points than k), [`Error::Resource`] above the budget.
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &Self::Params,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit>;
    /// Several starts on the same problem (restarts, the runs of a sweep),
    /// each with its own settings, in start order. Each result must equal
    /// [`Solver::fit`] of that start alone. The default runs them in
    /// parallel one by one; algorithms that iterate over the rows run them
    /// in lockstep batches that read the rows once per iteration for all.
    /// Each start is announced ([`Event::RestartDone`]) as it finishes,
    /// or with its batch ([`in_batches`] does it).
    fn fit_batch(
        &self,
        problem: &Problem,
        starts: &[BatchStart<'_, Self::Params>],
    ) -> Vec<Result<Fit>> {
        fit_each(self, problem, starts)
    }
}

/// The starts one by one (in parallel), each announced as it ends: what
/// [`Solver::fit_batch`] does for an algorithm that does not batch, or for
/// starts a batch cannot take.
pub fn fit_each<S: Solver + ?Sized>(
    solver: &S,
    problem: &Problem,
    starts: &[BatchStart<'_, S::Params>],
) -> Vec<Result<Fit>> {
    starts
        .par_iter()
        .map(|b| {
            let fit = solver.fit(problem, &b.run, b.params, b.start, &b.ctx);
            announce(problem, b, &fit);
            fit
        })
        .collect()
}

/// Tells the start's watcher it is done (the restart counter of the UI),
/// when its fit is one `run` keeps (see [`valid`]).
fn announce<P>(problem: &Problem, b: &BatchStart<'_, P>, fit: &Result<Fit>) {
    if let Ok(f) = fit
        && valid(problem, f)
    {
        b.ctx.emit(Event::RestartDone {
            restart: b.start.index,
            objective: f.objective,
            iterations: f.iterations,
        });
    }
}

/// A finite objective and a label per row.
fn valid(problem: &Problem, fit: &Fit) -> bool {
    fit.objective.is_finite() && fit.labels.len() == problem.n()
}

/// One start of [`Solver::fit_batch`].
pub struct BatchStart<'p, P> {
    pub run: Common,
    pub params: &'p P,
    pub start: Start,
    /// The start's own events and cancellation.
    pub ctx: Ctx,
}

/// Starts run in lockstep at most (see [`Solver::fit_batch`]): enough to
/// read each cache block of rows once for many runs, few enough that the
/// batches still spread over the threads.
pub const BATCH: usize = 8;

/// Cuts `starts` into contiguous batches of at most [`BATCH`], at least
/// one per thread while there are starts for it, and maps them in
/// parallel with `fit`, keeping start order. The batching changes no
/// result (each start's arithmetic is its own), only how often the rows
/// are read.
pub fn in_batches<P: Sync>(
    problem: &Problem,
    starts: &[BatchStart<'_, P>],
    fit: impl Fn(&[BatchStart<'_, P>]) -> Vec<Result<Fit>> + Sync,
) -> Vec<Result<Fit>> {
    let n = starts.len();
    if n == 0 {
        return Vec::new();
    }
    let count = n.div_ceil(BATCH).max(rayon::current_num_threads().min(n));
    let bounds: Vec<(usize, usize)> = (0..count)
        .map(|b| (b * n / count, (b + 1) * n / count))
        .collect();
    bounds
        .par_iter()
        .map(|&(lo, hi)| {
            let fits = fit(&starts[lo..hi]);
            for (b, f) in starts[lo..hi].iter().zip(&fits) {
                announce(problem, b, f);
            }
            fits
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// An algorithm as the registry, the CLI and the UI hold it: every
/// [`Solver`], behind one object-safe interface.
pub trait Algorithm: Send + Sync {
    /// Identifier on the command line (`power`, `kmeans`, …).
    fn id(&self) -> &'static str;
    /// Human name (`Power k-means`).
    fn name(&self) -> &'static str;
    /// One line on what it does and where it comes from.
    fn summary(&self) -> &'static str;
    /// The declared parameters, with defaults and ranges.
    fn params(&self) -> Vec<ParamSpec>;
    /// The scaling used when the user does not choose one.
    fn default_scaling(&self) -> super::Scaling;
    /// What it takes and its family ([`Solver::caps`]).
    fn caps(&self) -> Caps;
    /// Why it does not take sample weights ([`Solver::why_no_sample_weights`]).
    fn why_no_sample_weights(&self) -> Option<&'static str>;
    /// What it weighs besides the points ([`Solver::weighs`]).
    fn weighs(&self) -> Weighs;
    /// The model a fit of it saves ([`Solver::model_kind`]).
    fn model_kind(&self) -> Option<ModelKind>;
    /// How its fit places new rows ([`Solver::assign_rule`]).
    ///
    /// # Errors
    /// The parameters do not read back, or the rule cannot be rebuilt.
    fn assign_rule(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        fit: &Fit,
    ) -> Result<Option<super::fit::AssignRule>>;
    /// The value of a parameter whose default is `Auto`, from the data.
    ///
    /// # Errors
    /// What computing it from the data can fail with.
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64>;
    /// Non-numeric options the algorithm accepts, with their defaults.
    fn options(&self) -> Vec<(&'static str, &'static str)>;
    /// Checks k, the restarts, the parameters and options of `cfg` and the
    /// memory budget of the run, without running it.
    ///
    /// # Errors
    /// [`Error::Param`] for a value or option the algorithm cannot use,
    /// [`Error::Resource`] for a run above the memory budget.
    fn check(&self, problem: &Problem, cfg: &RunConfig) -> Result<()>;
    /// Runs one start (see [`Solver::fit`]).
    ///
    /// # Errors
    /// As [`Algorithm::run`].
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit>;
    /// The work shared by all starts of `cfg` ([`Solver::prepare`]), cached
    /// on `problem`: a sweep does it once per group of cells, outside its
    /// parallel loop, so no cell builds while holding the cache.
    ///
    /// # Errors
    /// As [`Algorithm::run`].
    fn prepare(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<()>;
    /// Runs every restart in parallel and keeps the one with the lowest
    /// objective (the earliest on a tie), so the result depends only on the
    /// seed, never on the number of threads.
    ///
    /// # Errors
    /// [`Error::Param`] for a configuration the algorithm cannot use,
    /// [`Error::Resource`] above the memory budget, [`Error::Data`] for
    /// data it cannot cluster (fewer distinct points than k),
    /// [`Error::Cancelled`] once `ctx` is cancelled.
    fn run(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<RunResult>;
    /// [`Algorithm::run`] for each of `cfgs` on the same problem, their
    /// starts batched together ([`Solver::fit_batch`]): each result equals
    /// that run alone.
    fn run_many(&self, problem: &Problem, cfgs: &[RunConfig], ctx: &Ctx) -> Vec<Result<RunResult>>;
    /// The space `fit` (a run of `cfg`) clustered in ([`Solver::space`]).
    ///
    /// # Errors
    /// As [`Algorithm::prepare`].
    fn space(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<SpaceBlocks>;
}

impl<S: Solver> Algorithm for S {
    fn id(&self) -> &'static str {
        Solver::id(self)
    }
    fn name(&self) -> &'static str {
        Solver::name(self)
    }
    fn summary(&self) -> &'static str {
        Solver::summary(self)
    }
    fn params(&self) -> Vec<ParamSpec> {
        Solver::params(self)
    }
    fn default_scaling(&self) -> super::Scaling {
        Solver::default_scaling(self)
    }
    fn caps(&self) -> Caps {
        Solver::caps(self)
    }
    fn why_no_sample_weights(&self) -> Option<&'static str> {
        Solver::why_no_sample_weights(self)
    }
    fn weighs(&self) -> Weighs {
        Solver::weighs(self)
    }
    fn model_kind(&self) -> Option<ModelKind> {
        Solver::model_kind(self)
    }
    fn assign_rule(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        fit: &Fit,
    ) -> Result<Option<super::fit::AssignRule>> {
        let p = self.typed(problem, cfg)?;
        Solver::assign_rule(self, problem, cfg, &p, fit)
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        Solver::auto_param(self, name, problem, k)
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        Solver::options(self)
    }
    fn check(&self, problem: &Problem, cfg: &RunConfig) -> Result<()> {
        check_data(self, problem)?;
        check_config(problem, cfg)?;
        check_inputs(self, problem, cfg)?;
        let run = Common::of(cfg)?;
        let p = self.typed(problem, cfg)?;
        check_solver_memory(self, problem, &run, &p)
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        check_data(self, problem)?;
        check_inputs(self, problem, cfg)?;
        let run = Common::of(cfg)?;
        let p = self.typed(problem, cfg)?;
        Solver::fit(self, problem, &run, &p, start, ctx)
    }
    fn prepare(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<()> {
        check_config(problem, cfg)?;
        let run = Common::of(cfg)?;
        let p = self.typed(problem, cfg)?;
        check_solver_memory(self, problem, &run, &p)?;
        Solver::prepare(self, problem, &run, &p, ctx)
    }
    fn run(&self, problem: &Problem, cfg: &RunConfig, ctx: &Ctx) -> Result<RunResult> {
        run_solver(self, problem, std::slice::from_ref(cfg), ctx)
            .pop()
            .expect("one result per configuration")
    }
    fn run_many(&self, problem: &Problem, cfgs: &[RunConfig], ctx: &Ctx) -> Vec<Result<RunResult>> {
        run_solver(self, problem, cfgs, ctx)
    }
    fn space(
        &self,
        problem: &Problem,
        cfg: &RunConfig,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<SpaceBlocks> {
        let run = Common::of(cfg)?;
        let p = self.typed(problem, cfg)?;
        Solver::space(self, problem, &run, &p, fit, ctx)
    }
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
    pub fn feature_weighted(problem: &Problem, run: &Common) -> Self {
        let (n, p) = (problem.n(), problem.p());
        let copy = match problem.csr() {
            // A z-scored copy of the nonzeros (lw, by default).
            Some(x) => (x.bytes() as f64, "a scaled copy of the nonzeros"),
            None => (n as f64 * p as f64 * 8.0, "a copy of the weighted columns"),
        };
        Self::seeding(n, run.k, run.init)
            .plus_nk(n, run.k, 1, "array of weighted distances")
            .plus(copy.0, copy.1)
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
fn check_solver_memory<S: Solver + ?Sized>(
    s: &S,
    problem: &Problem,
    run: &Common,
    p: &S::Params,
) -> Result<()> {
    let one = s.start_memory(problem, run, p);
    match problem.csr() {
        Some(_) => check_held_memory(s.id(), problem.n(), problem.data_bytes(), one, run),
        None => check_start_memory(s.id(), problem.n(), problem.p(), one, run),
    }
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
    cfg: &Common,
) -> Result<()> {
    let held = n as f64 * (p as f64 + 1.0) * 8.0;
    check_held_memory(id, n, held, one, cfg)
}

/// [`check_start_memory`] with the bytes the data holds given (a sparse
/// problem holds its nonzeros, not n·p).
pub fn check_held_memory(
    id: &str,
    n: usize,
    held: f64,
    one: StartMemory,
    cfg: &Common,
) -> Result<()> {
    let at_once = cfg.restarts.clamp(1, rayon::current_num_threads().max(1));
    let nf = n as f64;
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
    crate::memory::check(id, need, &what, &fix, cfg.max_memory)
}

/// Checks the non-numeric options given by the user against those the
/// algorithm accepts, and fills in its defaults for the others. `max_memory`
/// is accepted by every algorithm.
///
/// # Errors
/// [`Error::Param`] for an option the algorithm does not take.
pub fn resolve_options(
    algo: &dyn Algorithm,
    given: &[(String, String)],
) -> Result<BTreeMap<String, String>> {
    let accepted = algo.options();
    let mut out = BTreeMap::new();
    for (name, v) in given {
        if name == MAX_MEMORY {
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
            return Err(Error::param(format!(
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
///
/// # Errors
/// [`Error::Param`] for a name the algorithm does not declare or a value
/// outside its range, and what computing an automatic default fails with.
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
    /// Initial centres instead of seeding ([`RunConfig::centres`]).
    pub centres: Option<std::sync::Arc<ndarray::Array2<f64>>>,
}

/// Builds a run's configuration, checking the cheap things first: k and the
/// restart count against the data (errors name `data`), then the memory
/// budget, and only then resolving the parameters, because an automatic
/// default may itself cluster the data (sparse-kmeans' bound) and must not
/// allocate before the budget allows it.
///
/// # Errors
/// [`Error::Param`] for k, restarts, a parameter or an option the
/// algorithm cannot take, [`Error::Resource`] above the memory budget, and
/// what computing an automatic default fails with.
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
        centres: req.centres,
    };
    check_data(algo, problem).map_err(|e| e.about(data))?;
    check_config(problem, &cfg).map_err(|e| e.about(data))?;
    check_algo_inputs(algo, problem, &cfg).map_err(|e| e.about(data))?;
    // The memory of a start depends on k, the seeding and the options, not
    // on the numbers: automatic defaults stand in at their range's minimum.
    cfg.params = Params::resolve(algo.id(), &algo.params(), req.given, |name| {
        Ok(algo
            .params()
            .iter()
            .find(|s| s.name == name)
            .map_or(0.0, |s| s.min))
    })?;
    algo.check(problem, &cfg)?;
    cfg.params = resolve_params(algo, problem, req.k, req.given)?;
    Ok(cfg)
}

/// Refuses sparse rows to an algorithm that needs dense ones, and a
/// kernels-only problem to one that needs features.
///
/// # Errors
/// [`Error::Param`], one line naming the algorithms that take them.
pub fn check_data<A: Algorithm + ?Sized>(algo: &A, problem: &Problem) -> Result<()> {
    let caps = algo.caps();
    if !caps.sparse && problem.csr().is_some() {
        problem.require_dense(algo.id(), &takers(|c| c.sparse))?;
    }
    if !caps.kernels && problem.kernels_only() {
        problem.require_features(algo.id(), &takers(|c| c.kernels))?;
    }
    Ok(())
}

/// Refuses sample weights or given centres to an algorithm that cannot use
/// them, and centres of the wrong shape.
///
/// # Errors
/// [`Error::Param`], one line naming the algorithms that take them.
pub fn check_inputs<S: Solver + ?Sized>(
    algo: &S,
    problem: &Problem,
    cfg: &RunConfig,
) -> Result<()> {
    inputs_check(
        algo.id(),
        Solver::caps(algo),
        Solver::why_no_sample_weights(algo),
        problem,
        cfg,
    )
}

fn check_algo_inputs(algo: &dyn Algorithm, problem: &Problem, cfg: &RunConfig) -> Result<()> {
    inputs_check(
        algo.id(),
        algo.caps(),
        algo.why_no_sample_weights(),
        problem,
        cfg,
    )
}

/// `why_no_weights`: the algorithm's reason for refusing sample weights.
fn inputs_check(
    id: &str,
    caps: Caps,
    why_no_weights: Option<&str>,
    problem: &Problem,
    cfg: &RunConfig,
) -> Result<()> {
    if problem.sample_weights().is_some() && !caps.sample_weights {
        let why = why_no_weights
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        return Err(Error::param(format!(
            "{id} does not take sample weights{why}; {} do",
            takers(|c| c.sample_weights)
        )));
    }
    let Some(c) = &cfg.centres else {
        return Ok(());
    };
    if !caps.centres {
        return Err(Error::param(format!(
            "{id} does not start from given centres; {} do",
            takers(|c| c.centres)
        )));
    }
    if c.dim() != (cfg.k, problem.p()) {
        return Err(Error::param(format!(
            "the initial centres are {} × {}; they must be k × features = {} × {}",
            c.nrows(),
            c.ncols(),
            cfg.k,
            problem.p()
        )));
    }
    if c.iter().any(|v| !v.is_finite()) {
        return Err(Error::param(
            "the initial centres hold a value that is not finite",
        ));
    }
    Ok(())
}

/// Checks k and the restart count against the problem.
///
/// # Errors
/// [`Error::Param`] for k outside 1..=n or zero restarts.
pub fn check_config(problem: &Problem, cfg: &RunConfig) -> Result<()> {
    let n = problem.n();
    if cfg.k == 0 || cfg.k > n {
        return Err(Error::param(format!(
            "k = {} is out of range: must be in [1, {n}] (the number of rows)",
            cfg.k
        )));
    }
    if cfg.restarts == 0 {
        return Err(Error::param(
            "restarts = 0 is out of range: must be at least 1",
        ));
    }
    Ok(())
}

/// Runs `algo` on `problem` ([`Algorithm::run`]).
///
/// # Errors
/// As [`Algorithm::run`].
pub fn run(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    ctx: &Ctx,
) -> Result<RunResult> {
    algo.run(problem, cfg, ctx)
}

/// Refuses a configuration `algo` cannot run ([`Algorithm::check`]).
///
/// # Errors
/// As [`Algorithm::check`].
pub fn check_memory(algo: &dyn Algorithm, problem: &Problem, cfg: &RunConfig) -> Result<()> {
    algo.check(problem, cfg)
}

/// The runs of [`Algorithm::run_many`]: for each configuration the
/// checks, the typed parameters built once and the shared preparation;
/// then every restart of every configuration, batched
/// ([`Solver::fit_batch`]); then each configuration's best restart.
fn run_solver<S: Solver>(
    algo: &S,
    problem: &Problem,
    cfgs: &[RunConfig],
    ctx: &Ctx,
) -> Vec<Result<RunResult>> {
    let t0 = Instant::now();
    let mut errors: Vec<Option<Error>> = Vec::with_capacity(cfgs.len());
    let mut ready: Vec<Option<(Common, S::Params)>> = Vec::with_capacity(cfgs.len());
    for cfg in cfgs {
        let checked = (|| {
            check_data(algo, problem)?;
            check_config(problem, cfg)?;
            let run = Common::of(cfg)?;
            let p = algo.typed(problem, cfg)?;
            check_solver_memory(algo, problem, &run, &p)?;
            algo.prepare(problem, &run, &p, ctx)?;
            Ok((run, p))
        })();
        match checked {
            Ok(r) => {
                ready.push(Some(r));
                errors.push(None);
            }
            Err(e) => {
                ready.push(None);
                errors.push(Some(e));
            }
        }
    }
    let mut starts = Vec::new();
    for (cfg, r) in cfgs.iter().zip(&ready) {
        if let Some((run, p)) = r {
            for i in 0..cfg.restarts {
                starts.push(BatchStart {
                    run: run.clone(),
                    params: p,
                    start: Start {
                        index: i,
                        seed: cfg.seed.wrapping_add(i as u64),
                    },
                    ctx: ctx.for_restart(i),
                });
            }
        }
    }
    let mut fits = algo.fit_batch(problem, &starts).into_iter();
    let mut at = 0;
    let mut out = Vec::with_capacity(cfgs.len());
    for (c, cfg) in cfgs.iter().enumerate() {
        out.push(match errors[c].take() {
            Some(e) => Err(e),
            None => {
                let mine = &starts[at..at + cfg.restarts];
                at += cfg.restarts;
                let fits: Vec<Result<Fit>> = fits.by_ref().take(cfg.restarts).collect();
                best_of(algo, problem, cfg, fits, mine, t0, cfgs.len())
            }
        });
    }
    out
}

/// The best restart of one configuration, each checked and announced.
fn best_of<S: Solver>(
    algo: &S,
    problem: &Problem,
    cfg: &RunConfig,
    fits: Vec<Result<Fit>>,
    starts: &[BatchStart<'_, S::Params>],
    t0: Instant,
    share: usize,
) -> Result<RunResult> {
    let mut ok = Vec::with_capacity(fits.len());
    for (fit, b) in fits.into_iter().zip(starts) {
        let fit = fit?;
        let r = b.start.index;
        if !valid(problem, &fit) {
            return Err(Error::Resource(format!(
                "{} produced an invalid result on restart {r} (objective {}); please report this",
                algo.id(),
                super::params::fmt_sig(fit.objective)
            )));
        }
        ok.push(fit);
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
        // Runs batched together share their time: each is given an equal
        // share (a run alone, all of it).
        elapsed: t0.elapsed() / share.max(1) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(k: usize, restarts: usize, max_memory: &str) -> Common {
        Common::of(&RunConfig {
            k,
            seed: 0,
            restarts,
            init: Init::KmeansPP,
            params: Params::default(),
            options: [("max_memory".to_string(), max_memory.to_string())].into(),
            centres: None,
        })
        .unwrap()
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
