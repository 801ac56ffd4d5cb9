//! LW-k-means and WK-means (docs/methods/lw-kmeans.md#checks-in-the-tests): the closed-form
//! weight step, the λ = 0 reduction to WK-means, the selection threshold,
//! monotone objective, the guards, feature selection on the `sparse`
//! design, events, cancellation, determinism, and the paper's Leukemia
//! number with the reference code's protocol.

use meanscape::Error;
use meanscape::algo::{self, Ctx, Event, Init, Problem, RunConfig, Start};
use meanscape::data::{LoadOptions, Scaling};
use meanscape::internals::feature_weights::{
    Rule, cluster_means, dispersions, huang_weights, lw_alpha, lw_weights, weighted_loop,
};
use meanscape::internals::{LwSettings, LwStart, lw_from};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn rng(seed: u64) -> rand_chacha::ChaCha8Rng {
    rand_chacha::ChaCha8Rng::seed_from_u64(seed)
}

fn load(spec: &str, scale: Scaling) -> meanscape::Loaded {
    meanscape::load(spec, &LoadOptions::default(), scale).unwrap()
}

fn config(id: &str, problem: &Problem, k: usize, given: &[(&str, f64)]) -> RunConfig {
    let a = algo::find(id).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    RunConfig {
        k,
        seed: 0,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), problem, k, &given).unwrap(),
        options: Default::default(),
        centres: None,
    }
}

fn settings(problem: &Problem, k: usize, given: &[(&str, f64)]) -> LwSettings {
    LwSettings::from_params(&config("lw", problem, k, given).params).unwrap()
}

fn random_labels(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut r = rng(seed);
    let mut l: Vec<usize> = (0..n).map(|_| r.random_range(0..k)).collect();
    // Every cluster starts non-empty.
    for (j, slot) in l.iter_mut().take(k).enumerate() {
        *slot = j;
    }
    l
}

/// `g(w) = D·w^β/β + λ'·D·w − α·w` over w ≥ 0 by golden-section search
/// (g is convex there).
fn brute_min(d: f64, alpha: f64, lam: f64, beta: f64) -> f64 {
    let g = |w: f64| d * w.powf(beta) / beta + lam * d * w - alpha * w;
    let (mut a, mut b) = (0.0, 10.0 * (alpha / d).powf(1.0 / (beta - 1.0)) + 1.0);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..300 {
        let c = b - phi * (b - a);
        let e = a + phi * (b - a);
        if g(c) <= g(e) {
            b = e;
        } else {
            a = c;
        }
    }
    0.5 * (a + b)
}

#[test]
fn weight_step_is_the_exact_minimiser() {
    let mut r = rng(1);
    for beta in [2.0, 4.0, 6.0, 2.5] {
        for _ in 0..200 {
            let d: f64 = r.random_range(0.01..50.0);
            let alpha: f64 = r.random_range(0.001..2.0);
            let lam: f64 = r.random_range(0.0..0.2);
            let w = lw_weights(&[d], alpha, lam, beta)[0];
            let want = brute_min(d, alpha, lam, beta);
            assert!(
                (w - want).abs() <= 1e-7 * (1.0 + want),
                "β {beta} D {d} α {alpha} λ' {lam}: closed form {w}, search {want}"
            );
            // Exactly zero where the threshold says, positive elsewhere.
            assert_eq!(
                w == 0.0,
                alpha <= lam * d,
                "β {beta} D {d} α {alpha} λ' {lam}"
            );
            assert!(w >= 0.0);
        }
    }
}

#[test]
fn lambda_zero_weights_are_the_wkmeans_weights() {
    let l = load("gen:sparse,n=240,p=40,q=10,k=3,seed=4", Scaling::Standard);
    let pr = &l.problem;
    let s = settings(pr, 3, &[("lambda", 0.0)]);
    let labels = random_labels(pr.n(), 3, 2);
    let st = LwStart::from_labels(pr, labels.clone(), 3, &s).unwrap();
    // At the initial partition: w_l = D_l^{-1/3} / Σ_t D_t^{-1/3}, sum 1.
    let one = LwSettings { max_iter: 1, ..s };
    let (fit, _) = lw_from(
        pr,
        &st,
        labels.clone(),
        None,
        3,
        0.0,
        &one,
        &Ctx::new(),
        true,
    )
    .unwrap();
    let w = fit.feature_weights.unwrap();
    let huang = huang_weights(&st.d0, 4.0);
    for (a, b) in w.iter().zip(&huang) {
        assert!((a - b).abs() <= 1e-12 * b.max(1e-300), "{a} vs {b}");
    }
    assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // Whole runs: LW at λ = 0 and WK-means from the same partition move
    // the same points, with proportional weights, at every iteration.
    let x = st.x(pr);
    let lw = weighted_loop(
        x,
        None,
        labels.clone(),
        None,
        3,
        &st.rule(0.0, &s, pr.n()),
        0.0,
        50,
        &Ctx::new(),
        true,
    )
    .unwrap();
    let wk = weighted_loop(
        x,
        None,
        labels,
        None,
        3,
        &Rule::Huang { beta: 4.0 },
        0.0,
        50,
        &Ctx::new(),
        true,
    )
    .unwrap();
    assert!(
        lw.iterations > 1,
        "a random start should take several iterations"
    );
    assert_eq!(lw.labels, wk.labels);
    assert_eq!(lw.iterations, wk.iterations);
    let c = lw.weights.iter().sum::<f64>() / wk.weights.iter().sum::<f64>();
    for (a, b) in lw.weights.iter().zip(&wk.weights) {
        assert!((a - c * b).abs() <= 1e-10 * a, "{a} vs {c}·{b}");
    }
}

#[test]
fn weights_are_zero_exactly_where_the_threshold_says() {
    let l = load(
        "gen:sparse,n=300,p=60,q=15,k=3,sep=3,seed=7",
        Scaling::Standard,
    );
    let pr = &l.problem;
    let s = settings(pr, 3, &[]);
    let st = LwStart::new(pr, 3, Init::KmeansPP, None, &s, &mut rng(0), &Ctx::new()).unwrap();
    let p = pr.p() as f64;
    let (lmax, lall) = (st.lambda_max(), st.lambda_all());
    assert!(lall < lmax);
    let mut counts = Vec::new();
    for lambda in [0.0, lall, 0.5 * (lall + lmax), 0.9 * lmax, lmax, 3.0 * lmax] {
        let (fit, z) = lw_from(
            pr,
            &st,
            st.labels.clone(),
            None,
            3,
            lambda,
            &s,
            &Ctx::new(),
            true,
        )
        .unwrap();
        let w = fit.feature_weights.clone().unwrap();
        // The dispersions of the returned partition and centres.
        let d = dispersions(st.x(pr), None, &fit.labels, z.view());
        let lam_p2 = lambda / (p * p);
        for l in 0..w.len() {
            assert!(w[l] >= 0.0 && w[l].is_finite());
            assert_eq!(
                w[l] > 0.0,
                st.alpha > lam_p2 * d[l],
                "λ {lambda} feature {l}"
            );
        }
        let sel = w.iter().filter(|&&v| v > 0.0).count();
        if lambda >= lmax {
            assert_eq!(sel, 0, "λ {lambda} ≥ λ_max {lmax}");
            assert!(
                fit.warnings
                    .iter()
                    .any(|m| m.contains("no feature selected"))
            );
            assert_eq!(fit.labels, st.labels, "all-zero weights keep the partition");
        }
        if lambda <= lall {
            assert_eq!(sel, pr.p(), "λ {lambda} ≤ λ_all {lall}");
        }
        assert!(fit.labels.iter().all(|&c| c < 3));
        counts.push(sel);
    }
    assert!(counts.windows(2).all(|c| c[0] >= c[1]), "{counts:?}");
}

#[test]
fn objective_never_increases() {
    for (seed, spec) in [
        (1, "gen:sparse,n=200,p=30,q=8,k=3,sep=1.5,seed=1"),
        (2, "gen:sparse,n=150,p=80,q=20,k=4,sep=1,seed=2"),
        (3, "gen:blobs,n=300,p=10,k=5,sep=2,seed=3"),
    ] {
        let l = load(spec, Scaling::Standard);
        let pr = &l.problem;
        let k = if spec.contains("k=4") {
            4
        } else if spec.contains("k=5") {
            5
        } else {
            3
        };
        let s = settings(pr, k, &[]);
        for start in 0..4 {
            let labels = random_labels(pr.n(), k, seed * 10 + start);
            let st = LwStart::from_labels(pr, labels.clone(), k, &s).unwrap();
            let mut rules = vec![Rule::Huang { beta: 4.0 }, Rule::Huang { beta: 2.0 }];
            for f in [0.0, 0.3, 0.7, 0.95] {
                let lam = st.lambda_all() + f * (st.lambda_max() - st.lambda_all());
                rules.push(st.rule(lam, &s, pr.n()));
                rules.push(st.rule(lam, &LwSettings { beta: 2.0, ..s }, pr.n()));
            }
            for rule in rules {
                let fit = weighted_loop(
                    st.x(pr),
                    None,
                    labels.clone(),
                    None,
                    k,
                    &rule,
                    0.0,
                    200,
                    &Ctx::new(),
                    true,
                )
                .unwrap();
                for (i, t) in fit.trace.windows(2).enumerate() {
                    let (a, b) = (t[0].objective, t[1].objective);
                    assert!(
                        b <= a + 1e-10 * a.abs().max(1e-300),
                        "{spec} start {start} {rule:?} iteration {i}: {a} then {b}"
                    );
                }
                assert!(fit.objective.is_finite());
            }
        }
    }
}

#[test]
fn guards_constant_feature_empty_cluster_and_no_nan() {
    // A constant column, a column constant within clusters, and a start
    // with an empty cluster.
    let mut r = rng(5);
    let n = 90;
    let x = Array2::from_shape_fn((n, 6), |(i, j)| match j {
        0 => 3.0,
        1 => (i % 3) as f64 * 4.0,
        _ => (i % 3) as f64 + r.random_range(-1.0..1.0),
    });
    let pr = Problem::new(x);
    let s = settings(&pr, 4, &[("lambda", 0.05)]);
    let labels: Vec<usize> = (0..n).map(|i| i % 3).collect(); // cluster 3 empty
    let st = LwStart::from_labels(&pr, labels.clone(), 4, &s).unwrap();
    assert_eq!(st.d0[0], 0.0);
    assert!(st.alpha.is_finite() && st.alpha > 0.0);
    for lambda in [0.0, 0.05, 1.0, 1e6] {
        let one = LwSettings { max_iter: 1, ..s };
        let (fit, _) = lw_from(
            &pr,
            &st,
            labels.clone(),
            None,
            4,
            lambda,
            &one,
            &Ctx::new(),
            true,
        )
        .unwrap();
        let w = fit.feature_weights.unwrap();
        assert_eq!(
            w[1], 0.0,
            "zero within-cluster dispersion: Algorithm 1 sets 0"
        );
        let (fit, _) = lw_from(
            &pr,
            &st,
            labels.clone(),
            None,
            4,
            lambda,
            &s,
            &Ctx::new(),
            true,
        )
        .unwrap();
        let w = fit.feature_weights.unwrap();
        assert_eq!(w[0], 0.0, "constant feature");
        assert!(w.iter().all(|v| v.is_finite() && *v >= 0.0));
        assert!(fit.objective.is_finite());
        assert!(fit.centroids.unwrap().iter().all(|v| v.is_finite()));
    }
    let (z, counts) = cluster_means(pr.x.f64().view(), None, &labels, 4, None);
    assert_eq!(counts[3], 0.0);
    assert!(z.iter().all(|v| v.is_finite()));
    // All features constant within clusters: α is undefined, one-line error.
    let x = Array2::from_shape_fn((6, 2), |(i, j)| (i % 2 + j) as f64);
    let pr = Problem::new(x);
    let s = settings(&pr, 2, &[]);
    let e = LwStart::from_labels(&pr, (0..6).map(|i| i % 2).collect(), 2, &s)
        .err()
        .unwrap();
    assert!(
        matches!(e, Error::Param(_)) && !e.to_string().contains('\n'),
        "{e}"
    );
    assert!(lw_alpha(&[0.0, 0.0], 4.0).is_none());
    assert_eq!(huang_weights(&[0.0, 0.0], 4.0), vec![0.0, 0.0]);
}

#[test]
fn lw_selects_exactly_the_informative_features() {
    // Table V/VIII-style designs: informative N(c·sep, 1), chi-squared noise.
    for (spec, lambda) in [
        ("gen:sparse,n=300,p=100,q=20,k=3,seed=0", 0.04),
        ("gen:sparse,n=300,p=50,q=20,k=3,sep=7,seed=1", 0.04),
        ("gen:sparse,n=300,p=200,q=70,k=3,sep=7,df=4,seed=2", 0.007),
    ] {
        let l = load(spec, Scaling::Standard);
        let pr = &l.problem;
        let relevant = l.dataset.relevance.clone().unwrap();
        let truth = &l.dataset.labels.as_ref().unwrap().ids;
        let a = algo::find("lw").unwrap();
        for seed in 0..3 {
            let cfg = RunConfig {
                seed,
                ..config("lw", pr, 3, &[("lambda", lambda)])
            };
            let res = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap();
            let sel: Vec<bool> = res
                .best
                .feature_weights
                .as_ref()
                .unwrap()
                .iter()
                .map(|&w| w > 0.0)
                .collect();
            assert_eq!(
                meanscape::metrics::mcc(&sel, &relevant),
                1.0,
                "{spec} seed {seed}"
            );
            assert_eq!(
                meanscape::metrics::cer(truth, &res.best.labels),
                0.0,
                "{spec}"
            );
        }
    }
}

#[test]
fn events_carry_weights_and_cancel_stops() {
    let l = load("gen:sparse,n=200,p=30,q=5,k=3,seed=3", Scaling::Standard);
    let pr = &l.problem;
    for id in ["lw", "wkmeans"] {
        let a = algo::find(id).unwrap();
        let cfg = config(id, pr, 3, &[]);
        let (tx, rx) = std::sync::mpsc::channel();
        let ctx = Ctx::new().with_events(tx, true);
        let fit = a.fit(pr, &cfg, Start { index: 0, seed: 9 }, &ctx).unwrap();
        drop(ctx);
        let iters: Vec<_> = rx
            .iter()
            .filter_map(|e| match e {
                Event::Iteration(p) => Some(p),
                _ => None,
            })
            .collect();
        assert_eq!(iters.len(), fit.iterations, "{id}");
        let last = iters.last().unwrap();
        assert_eq!(
            last.feature_weights.as_ref(),
            fit.feature_weights.as_ref(),
            "{id}"
        );
        assert_eq!(last.labels.as_ref().unwrap(), &fit.labels, "{id}");
        let flag = Arc::new(AtomicBool::new(true));
        let ctx = Ctx::new().with_cancel(flag);
        let e = a
            .fit(pr, &cfg, Start { index: 0, seed: 9 }, &ctx)
            .unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{id}: {e}");
    }
}

#[test]
fn same_result_for_any_thread_count() {
    let l = load("gen:sparse,n=2500,p=300,q=30,k=4,seed=5", Scaling::Standard);
    let pr = &l.problem;
    for id in ["lw", "wkmeans", "sparse-kmeans"] {
        let a = algo::find(id).unwrap();
        let cfg = RunConfig {
            restarts: 2,
            ..config(id, pr, 4, &[])
        };
        let run_with = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap())
        };
        let (one, two) = (run_with(1), run_with(3));
        assert_eq!(one.best.labels, two.best.labels, "{id}");
        assert_eq!(one.best.feature_weights, two.best.feature_weights, "{id}");
        assert_eq!(one.restart_objectives, two.restart_objectives, "{id}");
    }
}

#[test]
fn wkmeans_weights_sum_to_one() {
    let l = load("wine", Scaling::Standard);
    let pr = &l.problem;
    let a = algo::find("wkmeans").unwrap();
    for seed in 0..5 {
        let cfg = RunConfig {
            seed,
            ..config("wkmeans", pr, 3, &[])
        };
        let fit = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap().best;
        let w = fit.feature_weights.unwrap();
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(w.iter().all(|&v| v > 0.0), "no zero weight without D = 0");
        for t in fit.trace.windows(2) {
            assert!(t[1].objective <= t[0].objective * (1.0 + 1e-12));
        }
    }
}

/// The initial partition (nstart k-means runs, most of the time on large
/// data) reports each finished run as stage progress before the first
/// iteration.
#[test]
fn initial_partition_reports_progress() {
    let l = load("gen:sparse,n=200,p=30,q=5,k=3,seed=3", Scaling::Standard);
    let pr = &l.problem;
    for (id, nstart) in [("lw", 7.0), ("sparse-kmeans", 5.0)] {
        let a = algo::find(id).unwrap();
        let cfg = config(id, pr, 3, &[("nstart", nstart)]);
        let (tx, rx) = std::sync::mpsc::channel();
        let ctx = Ctx::new().with_events(tx, false);
        a.fit(pr, &cfg, Start { index: 0, seed: 9 }, &ctx).unwrap();
        drop(ctx);
        let events: Vec<Event> = rx.iter().collect();
        let first_iter = events
            .iter()
            .position(|e| matches!(e, Event::Iteration(_)))
            .unwrap();
        let mut done: Vec<f64> = events[..first_iter]
            .iter()
            .filter_map(|e| match e {
                Event::Stage { label, done } if label.contains("initial k-means") => Some(*done),
                _ => None,
            })
            .collect();
        done.sort_by(f64::total_cmp);
        let want: Vec<f64> = (0..=nstart as usize).map(|i| i as f64 / nstart).collect();
        assert_eq!(done, want, "{id}");
    }
}
