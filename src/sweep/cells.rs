//! Running a planned sweep: groups of cells that share cached work, every
//! run of a group in parallel, per-cell scores as the cells finish.

use super::pilot::Pilot;
use super::resample;
use super::scores::{self, MeanSd, RunSummary, Truth};
use super::{Plan, describe};
use crate::error::{Error, Result};
use crate::fit_scores::internal::{
    MEMO_BLOCKS, SilhouetteBase, base_for, of_run_by_cluster, on_selected,
};
use crate::fit_scores::{Space, SpaceKind};
use crate::solver::{Algorithm, BATCH, Ctx, Problem, RunConfig};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One finished cell.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// Position in the grid (row-major).
    pub index: usize,
    pub at: Vec<f64>,
    /// The k its runs asked for.
    pub k: usize,
    /// Every score that applies, in output order.
    pub scores: Vec<(&'static str, MeanSd)>,
    /// One summary per seed, in seed order.
    pub runs: Vec<RunSummary>,
    /// The empirical CDF of the consensus of the resampled clusterings
    /// at [`resample::cdf_points`] (empty when not resampled): the curve
    /// PAC is read from.
    pub consensus_cdf: Vec<f64>,
    /// The area under that CDF (NaN when not resampled).
    pub consensus_area: f64,
}

impl CellResult {
    /// Whether some run of the cell ended with fewer non-empty clusters
    /// than k: its stability and costs describe a degenerate partition
    /// (one cluster is perfectly stable), so it is not a best cell.
    pub fn collapsed(&self) -> bool {
        self.runs.iter().any(|r| r.internal.clusters < self.k)
    }

    pub fn score(&self, name: &str) -> Option<MeanSd> {
        self.scores
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    /// The run of lowest objective (the one the gap statistic scores),
    /// whose partition stands for the cell in per-cluster views.
    pub fn best_run(&self) -> Option<&RunSummary> {
        scores::lowest_objective(&self.runs)
    }
}

/// The cell with the best mean of `score` among `cells`, skipping collapsed
/// cells (those whose runs lost a cluster) unless every cell collapsed.
pub fn best<'c>(
    cells: impl Iterator<Item = &'c CellResult> + Clone,
    score: &str,
) -> Option<&'c CellResult> {
    let up = super::scores::higher_is_better(score);
    let pick = |all: bool| {
        let mut best: Option<(&CellResult, f64)> = None;
        for c in cells.clone().filter(|c| all || !c.collapsed()) {
            if let Some(v) = c.score(score).map(|s| s.mean).filter(|m| m.is_finite())
                && best.is_none_or(|(_, b)| if up { v > b } else { v < b })
            {
                best = Some((c, v));
            }
        }
        best.map(|(c, _)| c)
    };
    pick(false).or_else(|| pick(true))
}

/// What a sweep produced: the finished cells in grid order.
#[derive(Debug, Clone)]
pub struct SweepResult {
    pub cells: Vec<CellResult>,
    /// Cells in the grid.
    pub total: usize,
    /// False when it was cancelled before every cell finished.
    pub complete: bool,
    /// Items built into the problem's cache during the sweep (Gram
    /// matrices, feature maps, data-derived defaults).
    pub builds: usize,
    /// Rows the silhouette is computed on (draws of a sample in
    /// proportion to sample weights), and whether they are a sample.
    pub silhouette_rows: usize,
    pub silhouette_sampled: bool,
    /// Whether the label-free scores weigh the rows by their sample
    /// weights.
    pub weighted: bool,
    pub elapsed: Duration,
}

/// Refuses a sweep that would not fit in the memory budget: the runs that
/// go at once (a chunk of batches per thread, counted as `run` counts that
/// many restarts: one seeding per thread, the labels of each), plus the
/// labels every run of a group keeps until its cell's stability is
/// computed and the silhouette's distance matrix.
pub(super) fn check_memory(algo: &dyn Algorithm, problem: &Problem, plan: &Plan) -> Result<()> {
    let threads = rayon::current_num_threads().max(1);
    // One chunk is in flight at a time (`run` below).
    let at_once = (BATCH * threads).min(plan.cells.len() * plan.seeds);
    let mut sizes: HashMap<Vec<u64>, usize> = HashMap::new();
    for c in &plan.cells {
        let mut cfg = c.cfg.clone();
        cfg.restarts = at_once;
        algo.check(problem, &cfg)?;
        *sizes.entry(plan.group_key(c)).or_default() += 1;
    }
    let worst_group = sizes.values().copied().max().unwrap_or(0);
    let n = problem.n();
    let labels = (worst_group * plan.seeds) as f64 * n as f64 * 8.0;
    // The silhouette's distances, one matrix per space block kept.
    let sil = SilhouetteBase::bytes(n) * MEMO_BLOCKS as f64;
    let max_memory = plan
        .cells
        .first()
        .and_then(|c| crate::solver::Common::of(&c.cfg).ok())
        .and_then(|c| c.max_memory);
    let held = n as f64 * (problem.p() as f64 + 1.0) * 8.0;
    crate::memory::check(
        "sweep",
        held + labels + sil,
        &format!(
            "the data ({}), the labels of {} runs kept until their cells are scored ({}) and the silhouette's distances ({})",
            crate::memory::fmt_bytes(held),
            worst_group * plan.seeds,
            crate::memory::fmt_bytes(labels),
            crate::memory::fmt_bytes(sil)
        ),
        "lower --seeds or the COUNT of an axis other than σ or k",
        max_memory,
    )
}

/// Runs every cell of `plan` with its seeds. `cancel` stops it: the cells
/// already finished are returned, marked incomplete. `on_cell(done, total,
/// cell)` is called as each cell finishes (from any thread, in no set
/// order; the returned cells are in grid order).
///
/// # Errors
/// What a run fails with other than cancellation ([`Error::Data`] for a
/// cell whose k the data cannot hold, [`Error::Resource`]), naming the
/// cell.
pub fn run(
    algo: &dyn Algorithm,
    problem: &Problem,
    plan: &Plan,
    truth: Truth<'_>,
    cancel: Arc<AtomicBool>,
    on_cell: &(dyn Fn(usize, usize, &CellResult) + Sync),
) -> Result<SweepResult> {
    let t0 = Instant::now();
    let builds0 = problem.builds();
    let keep = problem.cache_keys();
    // Weighted by the sample weights, as every score of the runs.
    let base = base_for(problem).keeping();
    // The gap's reference box depends on the data only: once per sweep.
    let reference = resample::RefBox::for_sweep(problem, plan.resampling)?;
    let ctx = Ctx::new().with_cancel(cancel.clone());
    let total = plan.cells.len();
    let done = AtomicUsize::new(0);
    // Groups in the order their first cell appears in the plan.
    let mut groups: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
    let mut where_is: HashMap<Vec<u64>, usize> = HashMap::new();
    for (pos, c) in plan.cells.iter().enumerate() {
        let key = plan.group_key(c);
        match where_is.get(&key) {
            Some(&g) => groups[g].1.push(pos),
            None => {
                where_is.insert(key.clone(), groups.len());
                groups.push((key, vec![pos]));
            }
        }
    }
    let mut finished = Vec::with_capacity(total);
    let mut complete = true;
    // Chunks of one batch per thread ([`crate::solver::BATCH`]).
    let chunk = BATCH * rayon::current_num_threads().max(1);
    let pilot = plan.time_limit.map(|limit| {
        let runs = total * plan.seeds;
        let work = runs + total * plan.resampling.work(problem.n());
        Pilot::new(limit, runs, work, groups.len(), chunk)
    });
    for (g, (_, members)) in groups.iter().enumerate() {
        if ctx.is_cancelled() {
            complete = false;
            break;
        }
        let t_prepare = Instant::now();
        let prepared = members
            .iter()
            .try_for_each(|&pos| algo.prepare(problem, &plan.cells[pos].cfg, &ctx));
        if let (0, Some(p)) = (g, &pilot) {
            p.prepared(t_prepare.elapsed());
        }
        match prepared {
            Err(Error::Cancelled) => {
                complete = false;
                break;
            }
            Err(e) => return Err(in_cell(e, plan, members[0])),
            Ok(()) => {}
        }
        let left: Vec<AtomicUsize> = members
            .iter()
            .map(|_| AtomicUsize::new(plan.seeds))
            .collect();
        let slots: Vec<Mutex<Vec<Option<RunSummary>>>> = members
            .iter()
            .map(|_| Mutex::new(vec![None; plan.seeds]))
            .collect();
        let cells_done: Mutex<Vec<CellResult>> = Mutex::new(Vec::new());
        let jobs: Vec<(usize, usize)> = (0..members.len())
            .flat_map(|m| (0..plan.seeds).map(move |r| (m, r)))
            .collect();
        // Runs go in chunks that the algorithm batches (one pass over the
        // rows per iteration for several runs, `Algorithm::run_many`); a
        // cell is scored as soon as its last seed is in, so the caller
        // sees cells fill in while the group runs.
        let outcomes: Vec<Result<()>> = jobs
            .par_chunks(chunk)
            .flat_map_iter(|batch| {
                let cfgs: Vec<RunConfig> = batch
                    .iter()
                    .map(|&(m, r)| {
                        let cell = &plan.cells[members[m]];
                        let mut cfg = cell.cfg.clone();
                        cfg.seed = cell.cfg.seed.wrapping_add(r as u64);
                        cfg
                    })
                    .collect();
                let results = algo.run_many(problem, &cfgs, &ctx);
                // Counted before the scoring, so the pilot times the runs
                // and not the resampled scores of cells that finish.
                for _ in results.iter().filter(|r| r.is_ok()) {
                    if pilot.as_ref().is_some_and(|p| p.run_done()) {
                        cancel.store(true, Ordering::SeqCst);
                    }
                }
                let scored: Vec<Result<()>> = batch
                    .par_iter()
                    .zip(cfgs.into_par_iter().zip(results))
                    .map(|(&(m, r), (cfg, result))| {
                        let result = result?;
                        let cell = &plan.cells[members[m]];
                        let (internal, by_cluster) =
                            of_run_by_cluster(algo, problem, &cfg, &result.best, &base);
                        let on_selected = result
                            .best
                            .feature_weights
                            .as_deref()
                            .and_then(|w| on_selected(problem, w, &result.best.labels));
                        let mut summary = RunSummary::new(cfg.seed, result, internal, truth);
                        summary.silhouette_clusters = by_cluster;
                        summary.on_selected = on_selected;
                        if internal.space != SpaceKind::Features && problem.p() > 0 {
                            let input = Space::features(problem.x.rows());
                            summary.silhouette_input = Some(base.score_in(&input, &summary.labels));
                        }
                        slots[m].lock().expect("sweep slots")[r] = Some(summary);
                        if left[m].fetch_sub(1, Ordering::SeqCst) == 1 {
                            let mut runs: Vec<RunSummary> =
                                std::mem::take(&mut *slots[m].lock().expect("sweep slots"))
                                    .into_iter()
                                    .flatten()
                                    .collect();
                            let mut scores = scores::cell_scores(&runs);
                            let mut consensus_cdf = Vec::new();
                            let mut consensus_area = f64::NAN;
                            if plan.resampling.count > 0 {
                                let r = resample::of_cell(
                                    algo,
                                    problem,
                                    &cell.cfg,
                                    &runs,
                                    plan.resampling,
                                    reference.as_ref(),
                                    &ctx,
                                )?;
                                scores.extend(r.named());
                                consensus_cdf = r.consensus_cdf;
                                consensus_area = r.consensus_area;
                            }
                            for r in &mut runs {
                                r.labels = Vec::new();
                            }
                            let result = CellResult {
                                index: cell.index,
                                at: cell.at.clone(),
                                k: cell.cfg.k,
                                scores,
                                runs,
                                consensus_cdf,
                                consensus_area,
                            };
                            on_cell(done.fetch_add(1, Ordering::SeqCst) + 1, total, &result);
                            cells_done.lock().expect("sweep cells").push(result);
                        }
                        Ok(())
                    })
                    .collect();
                scored
            })
            .collect();
        // The first failure in grid order, whatever the thread that met it.
        for (&(m, _), o) in jobs.iter().zip(outcomes) {
            match o {
                Ok(()) => {}
                Err(Error::Cancelled) => complete = false,
                Err(e) => return Err(in_cell(e, plan, members[m])),
            }
        }
        finished.extend(cells_done.into_inner().expect("sweep cells"));
        // The next group needs other Gram matrices or maps: this group's
        // go now, whatever the caller had cached stays.
        problem.retain_family("", &keep);
        base.clear();
    }
    if let Some(refusal) = pilot.as_ref().and_then(Pilot::verdict) {
        return Err(refusal);
    }
    finished.sort_by_key(|c| c.index);
    Ok(SweepResult {
        complete: complete && finished.len() == total,
        cells: finished,
        total,
        builds: problem.builds() - builds0,
        silhouette_rows: base.size(),
        silhouette_sampled: base.sampled,
        weighted: base.weighted(),
        elapsed: t0.elapsed(),
    })
}

fn in_cell(e: Error, plan: &Plan, pos: usize) -> Error {
    let at = describe(&plan.axes, &plan.cells[pos].at);
    match e {
        Error::Data(m) => Error::Data(format!("cell {at}: {m}")),
        Error::Param(e) => Error::Param(crate::error::ParamError::In {
            place: format!("cell {at}"),
            error: Box::new(e),
        }),
        Error::Resource(m) => Error::Resource(format!("cell {at}: {m}")),
        e => e,
    }
}
