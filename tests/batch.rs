//! Runs batched over one pass of the rows (`Algorithm::run_many`, the
//! restarts of one run, the runs of a sweep) give exactly what each run
//! gives alone: labels, objective (bit for bit), iterations, trace,
//! centres, whatever the thread count.

use meanscape::Error;
use meanscape::algo::{self, Ctx, Event, Init, Problem, RunConfig, RunResult};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Gaussian blobs: 2 500 rows (three row tasks of the fused pass, several
/// cache blocks each).
fn blobs(seed: u64, n: usize, p: usize, k: usize) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-3.0..3.0));
    Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = StandardNormal.sample(&mut rng);
        centres[[i % k, j]] + z
    })
}

fn config(id: &str, problem: &Problem, k: usize, seed: u64, given: &[(&str, f64)]) -> RunConfig {
    let a = algo::find(id).unwrap();
    let mut cfg = RunConfig::new(a.as_ref(), problem, k, given, &[]).unwrap();
    cfg.seed = seed;
    cfg.init = Init::KmeansPP;
    cfg
}

fn bits(r: &RunResult) -> String {
    let f = &r.best;
    let trace: Vec<(usize, Option<u64>, u64)> = f
        .trace
        .iter()
        .map(|t| (t.iter, t.s.map(f64::to_bits), t.objective.to_bits()))
        .collect();
    let centres: Vec<u64> = f
        .centroids
        .as_ref()
        .map(|c| c.iter().map(|v| v.to_bits()).collect())
        .unwrap_or_default();
    let objectives: Vec<u64> = r.restart_objectives.iter().map(|v| v.to_bits()).collect();
    format!(
        "{:?} {} {} {} {:?} {:?} {:?} {} {:?}",
        f.labels,
        f.objective.to_bits(),
        f.iterations,
        f.converged,
        trace,
        centres,
        objectives,
        r.best_restart,
        f.warnings
    )
}

fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Runs of `id` with different settings and seeds, some converging early,
/// some stopped by their cap, batched and alone.
fn batch_equals_alone(id: &str, cfgs: &[RunConfig], problem: &Problem) -> Vec<RunResult> {
    let a = algo::find(id).unwrap();
    let alone: Vec<RunResult> = cfgs
        .iter()
        .map(|c| with_threads(1, || a.run(problem, c, &Ctx::new()).unwrap()))
        .collect();
    for threads in [1, 2] {
        let batched: Vec<RunResult> =
            with_threads(threads, || a.run_many(problem, cfgs, &Ctx::new()))
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
        assert_eq!(batched.len(), cfgs.len());
        for (i, (b, one)) in batched.iter().zip(&alone).enumerate() {
            assert_eq!(bits(b), bits(one), "{id} run {i} with {threads} threads");
        }
    }
    alone
}

#[test]
fn a_batch_of_power_runs_equals_each_run_alone() {
    let pr = Problem::new(blobs(7, 2500, 12, 4));
    let mut cfgs = Vec::new();
    for (i, &(s0, eta, max_iter)) in [
        (-3.0, 1.05, 500.0),
        (-0.5, 1.3, 500.0),
        (-9.0, 1.01, 7.0),
        (-1.0, 1.2, 40.0),
        (-6.0, 1.1, 500.0),
        (-2.0, 1.02, 3.0),
        (-4.0, 1.15, 500.0),
        (-0.8, 1.04, 500.0),
        (-5.0, 1.08, 500.0),
        (-1.5, 1.25, 12.0),
    ]
    .iter()
    .enumerate()
    {
        let finish = (i % 3) as f64;
        cfgs.push(config(
            "power",
            &pr,
            4,
            i as u64 * 11,
            &[
                ("s0", s0),
                ("eta", eta),
                ("max_iter", max_iter),
                ("finish", finish),
            ],
        ));
    }
    let alone = batch_equals_alone("power", &cfgs, &pr);
    // The batch really had runs leaving at different iterations: some
    // stopped by their cap, some converged, with different counts.
    assert!(alone.iter().any(|r| !r.best.converged));
    assert!(alone.iter().any(|r| r.best.converged));
    let mut counts: Vec<usize> = alone.iter().map(|r| r.best.iterations).collect();
    counts.sort_unstable();
    counts.dedup();
    assert!(counts.len() >= 4, "iteration counts {counts:?}");
}

#[test]
fn a_batch_of_power_runs_on_f32_rows_equals_each_run_alone() {
    let mut pr = Problem::new(blobs(8, 1500, 6, 3));
    pr.use_f32();
    let cfgs: Vec<RunConfig> = (0..5)
        .map(|i| {
            config(
                "power",
                &pr,
                3,
                i,
                &[("s0", -1.0 - i as f64), ("eta", 1.05)],
            )
        })
        .collect();
    batch_equals_alone("power", &cfgs, &pr);
}

#[test]
fn a_batch_of_khm_runs_equals_each_run_alone() {
    let pr = Problem::new(blobs(9, 2100, 5, 5));
    let cfgs: Vec<RunConfig> = (0..6)
        .map(|i| {
            let cap = if i == 2 { 4.0 } else { 300.0 };
            config("khm", &pr, 5, i * 3, &[("max_iter", cap)])
        })
        .collect();
    batch_equals_alone("khm", &cfgs, &pr);
}

#[test]
fn batched_restarts_equal_the_restarts_run_one_by_one() {
    let pr = Problem::new(blobs(10, 2200, 8, 5));
    let power = algo::find("power").unwrap();
    let mut cfg = config("power", &pr, 5, 20, &[("s0", -2.0), ("eta", 1.1)]);
    cfg.restarts = 11;
    let all = with_threads(2, || power.run(&pr, &cfg, &Ctx::new()).unwrap());
    let mut objectives = Vec::new();
    let mut best: Option<RunResult> = None;
    for r in 0..11 {
        let mut one = cfg.clone();
        one.restarts = 1;
        one.seed = 20 + r;
        let res = with_threads(1, || power.run(&pr, &one, &Ctx::new()).unwrap());
        objectives.push(res.best.objective.to_bits());
        if best
            .as_ref()
            .is_none_or(|b| res.best.objective < b.best.objective)
        {
            best = Some(res);
        }
    }
    let got: Vec<u64> = all.restart_objectives.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, objectives);
    let best = best.unwrap();
    assert_eq!(all.best.labels, best.best.labels);
    assert_eq!(all.best.trace.len(), best.best.trace.len());
    assert_eq!(all.best.objective.to_bits(), best.best.objective.to_bits());
}

#[test]
fn every_batched_restart_sends_its_own_iteration_events() {
    let pr = Problem::new(blobs(11, 1200, 4, 3));
    let power = algo::find("power").unwrap();
    let mut cfg = config("power", &pr, 3, 0, &[("s0", -3.0)]);
    cfg.restarts = 4;
    let (tx, rx) = std::sync::mpsc::channel();
    let res = power
        .run(&pr, &cfg, &Ctx::new().with_events(tx, false))
        .unwrap();
    let events: Vec<Event> = rx.try_iter().collect();
    for r in 0..4 {
        let iters: Vec<usize> = events
            .iter()
            .filter_map(|e| match e {
                Event::Iteration(p) if p.restart == r => Some(p.iter),
                _ => None,
            })
            .collect();
        let done: Vec<usize> = events
            .iter()
            .filter_map(|e| match e {
                Event::RestartDone {
                    restart,
                    iterations,
                    ..
                } if *restart == r => Some(*iterations),
                _ => None,
            })
            .collect();
        assert_eq!(done.len(), 1, "restart {r}");
        assert_eq!(iters, (1..=done[0]).collect::<Vec<_>>(), "restart {r}");
    }
    assert_eq!(res.restart_objectives.len(), 4);
}

#[test]
fn cancelling_stops_every_run_of_a_batch_mid_way() {
    let pr = Problem::new(blobs(12, 3000, 6, 3));
    let power = algo::find("power").unwrap();
    // tol 0 and a slow annealing: none would stop by itself for long.
    let cfgs: Vec<RunConfig> = (0..3)
        .map(|i| {
            config(
                "power",
                &pr,
                3,
                i,
                &[("tol", 0.0), ("eta", 1.001), ("max_iter", 5000.0)],
            )
        })
        .collect();
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let flag = cancel.clone();
    let watcher = std::thread::spawn(move || {
        let mut seen = 0;
        for ev in rx {
            if matches!(ev, Event::Iteration(_)) {
                seen += 1;
                if seen == 10 {
                    flag.store(true, Ordering::SeqCst);
                }
            }
        }
        seen
    });
    let ctx = Ctx::new().with_cancel(cancel).with_events(tx, false);
    let out = power.run_many(&pr, &cfgs, &ctx);
    drop(ctx);
    let seen = watcher.join().unwrap();
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|r| matches!(r, Err(Error::Cancelled))));
    assert!((10..3 * 5000).contains(&seen), "{seen} iteration events");
}

#[test]
fn restarts_of_an_algorithm_that_does_not_batch_are_each_announced_once() {
    let pr = Problem::new(blobs(13, 600, 4, 3));
    let kmeans = algo::find("kmeans").unwrap();
    let mut cfg = config("kmeans", &pr, 3, 5, &[]);
    cfg.restarts = 5;
    let (tx, rx) = std::sync::mpsc::channel();
    let res = kmeans
        .run(&pr, &cfg, &Ctx::new().with_events(tx, false))
        .unwrap();
    let mut done: Vec<(usize, u64)> = rx
        .try_iter()
        .filter_map(|e| match e {
            Event::RestartDone {
                restart, objective, ..
            } => Some((restart, objective.to_bits())),
            _ => None,
        })
        .collect();
    done.sort_unstable();
    let want: Vec<(usize, u64)> = res
        .restart_objectives
        .iter()
        .enumerate()
        .map(|(r, v)| (r, v.to_bits()))
        .collect();
    assert_eq!(done, want);
}
