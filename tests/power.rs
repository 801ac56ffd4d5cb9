//! Properties of the power k-means family
//! (docs/methods/power-kmeans.md#checks-in-the-tests): MM descent at fixed s, the s → −∞ limit is Lloyd, khm is power at
//! s = −1, no NaN anywhere, and results independent of the thread count.

use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use meanscape::internals::lloyd_loop;
use meanscape::internals::{Schedule, power_loop};
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

/// Gaussian blobs made here, so these tests do not depend on the generators.
fn blobs(seed: u64, n: usize, p: usize, k: usize, sep: f64) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-sep..sep));
    Array2::from_shape_fn((n, p), |(i, j)| {
        centres[[i % k, j]] + {
            let z: f64 = StandardNormal.sample(&mut rng);
            z
        }
    })
}

fn config(
    algo: &dyn algo::Algorithm,
    problem: &Problem,
    k: usize,
    given: &[(&str, f64)],
) -> RunConfig {
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    RunConfig {
        k,
        seed: 3,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(algo, problem, k, &given).unwrap(),
        options: Default::default(),
        centres: None,
    }
}

fn fixed(s: f64) -> Schedule {
    Schedule {
        s0: s,
        eta: 1.0,
        period: 1,
        s_min: s,
    }
}

#[test]
fn objective_never_increases_at_fixed_s() {
    for seed in 0..12 {
        let x = blobs(seed, 200, 3, 4, 3.0);
        let pr = Problem::new(x);
        for s in [-0.5, -1.0, -3.0, -20.0] {
            let c0 = pr.x.f64().select(Axis(0), &[0, 1, 2, 3]);
            let fit = power_loop(
                pr.x.f64().view(),
                &pr.x_norms,
                None,
                c0,
                &fixed(s),
                0.0,
                60,
                &Ctx::new(),
            )
            .unwrap();
            for w in fit.trace.windows(2) {
                assert!(
                    w[1].objective <= w[0].objective * (1.0 + 1e-12),
                    "seed {seed} s {s}: {} then {}",
                    w[0].objective,
                    w[1].objective
                );
            }
        }
    }
}

#[test]
fn annealed_objective_never_increases() {
    // Lowering s can only lower f_s (power-mean inequality), so the monitored
    // sequence is monotone with annealing too.
    for seed in 0..6 {
        let pr = Problem::new(blobs(seed, 300, 5, 5, 2.0));
        let c0 = pr.x.f64().select(Axis(0), &[0, 1, 2, 3, 4]);
        let sched = Schedule {
            s0: -1.0,
            eta: 1.2,
            period: 2,
            s_min: -500.0,
        };
        let fit = power_loop(
            pr.x.f64().view(),
            &pr.x_norms,
            None,
            c0,
            &sched,
            0.0,
            200,
            &Ctx::new(),
        )
        .unwrap();
        for w in fit.trace.windows(2) {
            assert!(w[1].objective <= w[0].objective * (1.0 + 1e-12));
        }
        // s only goes down, and never below the floor.
        let ss: Vec<f64> = fit.trace.iter().map(|t| t.s.unwrap()).collect();
        assert!(ss.windows(2).all(|w| w[1] <= w[0]));
        assert!(ss.iter().all(|&v| v >= -500.0));
        assert!(fit.converged || *ss.last().unwrap() == -500.0);
    }
}

#[test]
fn very_negative_s_is_lloyd() {
    for seed in 0..10 {
        let pr = Problem::new(blobs(seed, 240, 4, 6, 2.5));
        let idx: Vec<usize> = (0..6).map(|j| j * 37 % 240).collect();
        let c0 = pr.x.f64().select(Axis(0), &idx);
        let lloyd = lloyd_loop(
            pr.x.f64().view(),
            &pr.x_norms,
            c0.clone(),
            0.0,
            300,
            &Ctx::new(),
        )
        .unwrap();
        let power = power_loop(
            pr.x.f64().view(),
            &pr.x_norms,
            None,
            c0,
            &fixed(-1e5),
            0.0,
            300,
            &Ctx::new(),
        )
        .unwrap();
        assert_eq!(power.labels, lloyd.labels, "seed {seed}");
        // M_s(d) = min(d)·(S/k)^{1/s} with S ∈ [1, k], within a factor
        // k^{1/|s|} ≈ 1 + 1.8e-5 of the k-means term here.
        let rel = (power.objective - lloyd.objective).abs() / lloyd.objective;
        assert!(rel < 2e-5, "seed {seed}: {rel}");
    }
}

#[test]
fn khm_is_power_at_s_minus_one_without_annealing() {
    let pr = Problem::new(blobs(4, 300, 3, 3, 3.0));
    let khm = algo::find("khm").unwrap();
    let power = algo::find("power").unwrap();
    let c_khm = config(khm.as_ref(), &pr, 3, &[]);
    let c_pow = config(
        power.as_ref(),
        &pr,
        3,
        &[("s0", -1.0), ("eta", 1.0), ("period", 1.0)],
    );
    let a = algo::run(khm.as_ref(), &pr, &c_khm, &Ctx::new())
        .unwrap()
        .best;
    let b = algo::run(power.as_ref(), &pr, &c_pow, &Ctx::new())
        .unwrap()
        .best;
    assert_eq!(a.labels, b.labels);
    assert_eq!(a.trace, b.trace);
    assert!(a.trace.iter().all(|t| t.s == Some(-1.0)));
}

#[test]
fn degenerate_inputs_never_produce_nan() {
    // Duplicate points, points sitting on their centre, and more clusters
    // than there are well-separated groups.
    let mut x = blobs(9, 60, 2, 3, 3.0);
    for i in 0..20 {
        let r = x.row(0).to_owned();
        x.row_mut(i).assign(&r);
    }
    let pr = Problem::new(x);
    for s0 in [-1.0, -50.0, -1000.0] {
        for k in [1, 5, 20] {
            let power = algo::find("power").unwrap();
            let cfg = config(
                power.as_ref(),
                &pr,
                k,
                &[("s0", s0), ("eta", 1.5), ("period", 1.0)],
            );
            let fit = algo::run(power.as_ref(), &pr, &cfg, &Ctx::new())
                .unwrap()
                .best;
            assert!(fit.objective.is_finite(), "s0 {s0} k {k}");
            assert!(fit.centroids.unwrap().iter().all(|v| v.is_finite()));
            assert!(fit.trace.iter().all(|t| t.objective.is_finite()));
        }
    }
}

#[test]
fn random_init_on_a_centroid_and_n_equals_k() {
    let pr = Problem::new(blobs(2, 5, 2, 5, 3.0));
    for id in ["kmeans", "khm", "power"] {
        let a = algo::find(id).unwrap();
        let mut cfg = config(a.as_ref(), &pr, 5, &[]);
        cfg.init = Init::Random;
        let fit = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap().best;
        let mut l = fit.labels.clone();
        l.sort();
        assert_eq!(l, vec![0, 1, 2, 3, 4], "{id}");
        assert_eq!(fit.objective, 0.0, "{id}");
    }
}

#[test]
fn same_seed_same_result_for_any_thread_count() {
    let pr = Problem::new(blobs(5, 3000, 8, 6, 2.0));
    let power = algo::find("power").unwrap();
    let mut cfg = config(power.as_ref(), &pr, 6, &[]);
    cfg.restarts = 4;
    let in_pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| algo::run(power.as_ref(), &pr, &cfg, &Ctx::new()).unwrap())
    };
    let one = in_pool(1);
    let three = in_pool(3);
    assert_eq!(one.best.labels, three.best.labels);
    assert_eq!(one.best.trace, three.best.trace);
    assert_eq!(one.restart_objectives, three.restart_objectives);
    assert_eq!(one.best_restart, three.best_restart);
}

#[test]
fn restart_r_is_seed_plus_r() {
    let pr = Problem::new(blobs(6, 400, 3, 4, 1.5));
    let power = algo::find("power").unwrap();
    let mut cfg = config(power.as_ref(), &pr, 4, &[]);
    cfg.restarts = 3;
    let all = algo::run(power.as_ref(), &pr, &cfg, &Ctx::new()).unwrap();
    cfg.restarts = 1;
    cfg.seed += 2;
    let third = algo::run(power.as_ref(), &pr, &cfg, &Ctx::new()).unwrap();
    assert_eq!(all.restart_objectives[2], third.best.objective);
    let min = all
        .restart_objectives
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    assert_eq!(all.best.objective, min);
}

#[test]
fn cancellation_stops_the_run() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let pr = Problem::new(blobs(1, 500, 3, 3, 2.0));
    let power = algo::find("power").unwrap();
    let cfg = config(power.as_ref(), &pr, 3, &[]);
    let flag = Arc::new(AtomicBool::new(true));
    let e = algo::run(power.as_ref(), &pr, &cfg, &Ctx::new().with_cancel(flag)).unwrap_err();
    assert!(matches!(e, meanscape::Error::Cancelled));
}

#[test]
fn progress_events_describe_each_iteration() {
    let pr = Problem::new(blobs(1, 500, 3, 3, 4.0));
    let power = algo::find("power").unwrap();
    let cfg = config(power.as_ref(), &pr, 3, &[]);
    let (tx, rx) = std::sync::mpsc::channel();
    let fit = algo::run(power.as_ref(), &pr, &cfg, &Ctx::new().with_events(tx, true))
        .unwrap()
        .best;
    let iters: Vec<_> = rx
        .try_iter()
        .filter_map(|e| match e {
            algo::Event::Iteration(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(iters.len(), fit.iterations);
    let last = iters.last().unwrap();
    assert_eq!(last.labels.as_ref().unwrap(), &fit.labels);
    assert_eq!(last.sizes.iter().sum::<usize>(), 500);
    assert_eq!(last.objective, fit.objective);
    assert_eq!(iters[0].changed, 500);
}

/// rff-power's k-means start (Θ₀) is one stage of the run: its iterations
/// show as that stage's progress, not as iterations of the run.
#[test]
fn rff_kmeans_start_reports_stage_progress() {
    let pr = Problem::new(blobs(2, 400, 4, 3, 3.0));
    let a = algo::find("rff-power").unwrap();
    let cfg = config(a.as_ref(), &pr, 3, &[]);
    let (tx, rx) = std::sync::mpsc::channel();
    let fit = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new().with_events(tx, false))
        .unwrap()
        .best;
    let events: Vec<algo::Event> = rx.try_iter().collect();
    let iters = events
        .iter()
        .filter(|e| matches!(e, algo::Event::Iteration(_)))
        .count();
    assert_eq!(iters, fit.iterations);
    let stage: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            algo::Event::Stage { label, done } if label.contains("Θ₀") => Some(*done),
            _ => None,
        })
        .collect();
    assert!(
        stage.iter().any(|&d| d > 0.0 && d < 1.0) && stage.last() == Some(&1.0),
        "{stage:?}"
    );
}

/// `-P finish=1` (once the annealing has settled) and `-P finish=2` (once
/// two Lloyd limits agree): Lloyd's iteration (the s → −∞ limit) finishes
/// the run. The Lloyd probes of `finish=2` leave no trace and no event. The end is a Lloyd fixed point, the
/// trace and the events number the Lloyd iterations after the annealing
/// ones (no s on them), and on overlapping blobs the partition is nearly
/// the full schedule's (a few boundary points may differ).
#[test]
fn the_lloyd_finish_continues_the_run_and_ends_at_a_fixed_point() {
    lloyd_finish(1.0, 2.5);
    lloyd_finish(2.0, 3.5);
}

fn lloyd_finish(finish: f64, sep: f64) {
    let x = blobs(5, 900, 4, 3, sep);
    let problem = Problem::new(x.clone());
    let power = algo::find("power").unwrap();
    let full = power
        .run(
            &problem,
            &config(power.as_ref(), &problem, 3, &[]),
            &Ctx::new(),
        )
        .unwrap()
        .best;
    let (tx, rx) = std::sync::mpsc::channel();
    let cfg = config(power.as_ref(), &problem, 3, &[("finish", finish)]);
    let fin = power
        .run(&problem, &cfg, &Ctx::new().with_events(tx, false))
        .unwrap()
        .best;
    assert!(
        fin.iterations < full.iterations,
        "{} vs {}",
        fin.iterations,
        full.iterations
    );
    let nmi = meanscape::metrics::Scores::compute(&full.labels, &fin.labels).nmi;
    assert!(
        nmi > 0.99,
        "finish {finish}: NMI between the two ends: {nmi}"
    );
    // Numbered on from the annealing; the Lloyd part has no s.
    let iters: Vec<usize> = fin.trace.iter().map(|t| t.iter).collect();
    assert_eq!(iters, (1..=fin.iterations).collect::<Vec<_>>());
    let first_hard = fin
        .trace
        .iter()
        .position(|t| t.s.is_none())
        .expect("a Lloyd part");
    assert!(first_hard > 0 && fin.trace[first_hard..].iter().all(|t| t.s.is_none()));
    let events: Vec<usize> = rx
        .try_iter()
        .filter_map(|e| match e {
            algo::Event::Iteration(p) => Some(p.iter),
            _ => None,
        })
        .collect();
    assert_eq!(events, iters);
    // A Lloyd fixed point: one more Lloyd iteration from its centres keeps
    // every label, and the objective is the k-means cost.
    let centres = fin.centroids.clone().unwrap();
    let norms = meanscape::internals::linalg::row_sq_norms(x.view());
    let again = lloyd_loop(x.view(), &norms, centres, 0.0, 1, &Ctx::new()).unwrap();
    assert_eq!(again.labels, fin.labels);
    assert!((again.objective - fin.objective).abs() <= 1e-9 * fin.objective);
    assert!(fin.converged);
}
