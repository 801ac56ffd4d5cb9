//! Sensitivity sweeps: a grid over declared parameters of an algorithm
//! (and k), every cell run with R seeds, each run scored with and without
//! labels, each score summarised as mean and sd over the seeds.
//!
//! A run of a cell is exactly `meanscape run --seed S --restarts 1` with
//! the cell's parameters, S from `seed` to `seed + R − 1`. Runs go in
//! parallel on the rayon pool and each depends only on its seed, so the
//! result is the same for any thread count and any cell order. Cells are
//! processed in groups that share the work cached on the problem (a Gram
//! matrix, a feature map): the group's preparation is done once, outside
//! the parallel loop, and dropped when the group is done, so a σ axis
//! holds one Gram matrix at a time and an s₀ axis builds it once.

mod cells;
pub mod grid;
mod pilot;
pub mod recommend;
pub mod resample;
pub mod scores;

pub use cells::{CellResult, SweepResult, best, run};
pub use grid::{Axis, MAX_RUNS, OPTION_AXES, Spacing};
pub use pilot::{DEFAULT_LIMIT, fmt_duration, parse_duration};
pub use scores::{MeanSd, RunSummary, Truth};

use crate::error::{Error, Result};
use crate::solver::{
    Algorithm, Init, Problem, RunConfig, check_config, resolve_options, resolve_params,
};

/// What a sweep is asked for.
#[derive(Debug, Clone)]
pub struct Request {
    /// k where no axis varies it.
    pub k: usize,
    /// The first seed of every cell.
    pub seed: u64,
    /// Seeds per cell (R).
    pub seeds: usize,
    pub init: Init,
    /// Fixed parameter values, by declared name.
    pub given: Vec<(String, f64)>,
    /// Non-numeric options (`kernel`, `max_memory`, …).
    pub options: Vec<(String, String)>,
    /// The axes as typed, checked by [`plan`].
    pub axes: Vec<Axis>,
    /// The longest the sweep may be expected to take: judged from its
    /// first runs, above it [`run`] stops with [`Error::Resource`]. None:
    /// no limit (the UI, where the user watches and can cancel).
    pub time_limit: Option<std::time::Duration>,
    /// Splits and reference sets per cell for the resampled scores
    /// ([`resample`]); 0: none.
    pub resamples: usize,
}

/// One cell: its place in the grid and the run configuration of its
/// first seed.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Position in the grid, row-major (the last axis varies fastest).
    pub index: usize,
    /// The value on every axis.
    pub at: Vec<f64>,
    pub cfg: RunConfig,
}

/// A checked sweep: the axes and every cell's configuration.
#[derive(Debug, Clone)]
pub struct Plan {
    pub axes: Vec<Axis>,
    pub seeds: usize,
    /// In the order they are run (grid order unless changed).
    pub cells: Vec<Cell>,
    pub time_limit: Option<std::time::Duration>,
    pub resampling: resample::Resampling,
}

/// Axes whose parameters change what is cached on the problem (Gram
/// matrices, feature maps, data-derived defaults): cells are grouped by
/// their values, so each group prepares once.
const REBUILDS: [&str; 10] = [
    "k", "sigma", "rff_dim", "rff_seed", "rff_f32", "m", "wbound", "kernel", "kernels", "views",
];

impl Plan {
    /// The key of the group a cell belongs to: its values on the axes
    /// that change the cached work.
    fn group_key(&self, cell: &Cell) -> Vec<u64> {
        self.axes
            .iter()
            .zip(&cell.at)
            .filter(|(a, _)| REBUILDS.contains(&a.name.as_str()))
            .map(|(_, v)| v.to_bits())
            .collect()
    }

    /// The parameters every cell shares (those on no axis), from the
    /// first cell, for the output.
    pub fn fixed(&self) -> Vec<(String, f64)> {
        let Some(first) = self.cells.first() else {
            return Vec::new();
        };
        let on_axis = |n: &str| self.axes.iter().any(|a| a.name == n);
        let mut v = Vec::new();
        if !on_axis("k") {
            v.push(("k".to_string(), first.cfg.k as f64));
        }
        for (name, val) in first.cfg.params.iter() {
            if !on_axis(name) {
                v.push((name.to_string(), val));
            }
        }
        v
    }
}

/// Checks the axes and the grid's size and resolves every cell's
/// configuration (automatic defaults included), before anything runs.
///
/// # Errors
/// [`Error::Param`] for an unknown parameter, a value out of its range, a
/// parameter both fixed and on an axis or on two axes, a grid above
/// [`MAX_RUNS`] runs, or a configuration the algorithm refuses;
/// [`Error::Resource`] for a sweep above the memory budget.
pub fn plan(algo: &dyn Algorithm, problem: &Problem, req: Request) -> Result<Plan> {
    // Resampling (and the gap's reference box) reads dense rows.
    if problem.csr().is_some() {
        return Err(Error::param(
            "a sweep does not take sparse rows yet; run them one at a time (meanscape run)",
        ));
    }
    if req.axes.is_empty() {
        return Err(Error::param(
            "a sweep needs at least one --grid NAME=FROM:TO:COUNT[:log]",
        ));
    }
    let mut axes = req.axes;
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            return Err(Error::param(format!(
                "--grid {}: the parameter is on two axes",
                a.name
            )));
        }
        if req.given.iter().any(|(n, _)| *n == a.name)
            || req.options.iter().any(|(n, _)| *n == a.name)
        {
            return Err(Error::param(format!(
                "--grid {}: the parameter is also given a fixed value; drop one",
                a.name
            )));
        }
    }
    for a in &mut axes {
        a.validate(algo, problem)?;
    }
    let count = grid::check_size(&axes, req.seeds)?;
    let options = resolve_options(algo, &req.options)?;
    let mut cells = Vec::with_capacity(count);
    for (index, at_idx) in grid::cells(&axes).into_iter().enumerate() {
        let at: Vec<f64> = axes
            .iter()
            .zip(&at_idx)
            .map(|(a, &i)| a.values[i])
            .collect();
        let mut k = req.k;
        let mut given = req.given.clone();
        let mut options = options.clone();
        for (a, &v) in axes.iter().zip(&at) {
            if a.is_option() {
                options.insert(a.name.clone(), a.show(v));
            } else if a.name == "k" {
                k = v as usize;
            } else {
                given.push((a.name.clone(), v));
            }
        }
        let cfg = RunConfig {
            k,
            seed: req.seed,
            restarts: 1,
            init: req.init,
            params: resolve_params(algo, problem, k, &given)?,
            options,
            centres: None,
        };
        check_config(problem, &cfg)?;
        cells.push(Cell { index, at, cfg });
    }
    let axes_has_k = axes.iter().any(|a| a.name == "k");
    let plan = Plan {
        axes,
        seeds: req.seeds,
        cells,
        time_limit: req.time_limit,
        resampling: resample::Resampling {
            count: req.resamples,
            seed: req.seed,
            gap: axes_has_k,
        },
    };
    cells::check_memory(algo, problem, &plan)?;
    Ok(plan)
}

/// The plan of one algorithm's family in a sweep over several (the CLI's
/// `-a kmeans,spectral`, Python's `sweep([...])`): `req` holds the
/// parameters and options given for all of them, and each algorithm takes
/// those it declares (`max_memory` always). The gap statistic is left to
/// the algorithms without a kernel: its reference sets are full-size data
/// sets, one graph or Gram matrix each.
///
/// # Errors
/// As [`plan`].
pub fn plan_family(algo: &dyn Algorithm, problem: &Problem, mut req: Request) -> Result<Plan> {
    let own = |name: &str| {
        algo.options().iter().any(|(o, _)| *o == name)
            || name == crate::solver::algorithm::MAX_MEMORY
    };
    let declared = |name: &str| algo.params().iter().any(|p| p.name == name);
    req.given.retain(|(n, _)| declared(n));
    req.options.retain(|(n, _)| own(n));
    let mut plan = plan(algo, problem, req)?;
    plan.resampling.gap &= !algo.caps().kernels;
    Ok(plan)
}

/// Refuses a parameter or option (by name) that none of `algos` takes, in
/// a sweep over several.
///
/// # Errors
/// [`Error::Param`] naming it.
pub fn check_taken<'n>(
    algos: &[&dyn Algorithm],
    names: impl IntoIterator<Item = &'n String>,
) -> Result<()> {
    for name in names {
        let takes = |x: &dyn Algorithm| {
            x.options().iter().any(|(o, _)| o == name) || x.params().iter().any(|p| p.name == name)
        };
        if !algos.iter().any(|x| takes(*x)) {
            let ids: Vec<&str> = algos.iter().map(|x| x.id()).collect();
            return Err(Error::param(format!(
                "--{}: none of {} takes it",
                name.replace('_', "-"),
                ids.join(", ")
            )));
        }
    }
    Ok(())
}

/// A cell's place as `s0=-3, eta=1.04`.
pub fn describe(axes: &[Axis], at: &[f64]) -> String {
    axes.iter()
        .zip(at)
        .map(|(a, v)| format!("{}={}", a.name, a.show(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}
