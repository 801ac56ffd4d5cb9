//! Sparse k-means (docs/methods/lw-kmeans.md#sparse-k-means): the weight update meets
//! ‖w‖₂ ≤ 1 and ‖w‖₁ ≤ s and is the soft-threshold solution; runs keep the
//! bounds and favour the informative features; the gap statistic is
//! deterministic and sane.

use meanscape::algo::{self, Ctx, Init, RunConfig};
use meanscape::data::{LoadOptions, Scaling};
use meanscape::internals::{SparseSettings, gap_grid, gap_statistic, update_weights};
use rand::{Rng, SeedableRng};

fn l1(w: &[f64]) -> f64 {
    w.iter().map(|v| v.abs()).sum()
}
fn l2(w: &[f64]) -> f64 {
    w.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn check_bounds(w: &[f64], s: f64, what: &str) {
    assert!(
        w.iter().all(|&v| v >= 0.0 && v.is_finite()),
        "{what}: {w:?}"
    );
    assert!(l2(w) <= 1.0 + 1e-12, "{what}: ‖w‖₂ = {}", l2(w));
    assert!(
        l1(w) <= s * (1.0 + 1e-12),
        "{what}: ‖w‖₁ = {} > s = {s}",
        l1(w)
    );
}

#[test]
fn update_meets_both_bounds_and_is_the_soft_threshold() {
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for trial in 0..300 {
        let p = r.random_range(1..200);
        let mut a: Vec<f64> = (0..p)
            .map(|_| r.random_range(0.0..10.0f64).powi(3))
            .collect();
        if trial % 5 == 0 {
            for v in a.iter_mut().take(p / 3) {
                *v = 0.0; // features with no between-cluster spread
            }
        }
        if trial % 7 == 0 && p > 4 {
            a[1] = a[0]; // ties
            a[2] = -1e-12; // rounding below zero
        }
        let s = 1.0 + r.random_range(0.0..1.2 * (p as f64).sqrt());
        let w = update_weights(&a, s);
        check_bounds(&w, s, &format!("trial {trial} p {p} s {s}"));
        assert!((l2(&w) - 1.0).abs() < 1e-12, "‖w‖₂ = 1");
        let ratio = l1(&a.iter().map(|v| v.max(0.0)).collect::<Vec<_>>()) / l2(&a);
        if ratio <= s {
            // The bound is slack: w ∝ a.
            for (wv, av) in w.iter().zip(&a) {
                assert!((wv - av.max(0.0) / l2(&a)).abs() < 1e-12);
            }
        } else {
            // The bound binds: ‖w‖₁ = s up to the bisection, and w is a
            // soft threshold of a (equal gaps a_l − c·w_l on the support).
            assert!(
                l1(&w) >= s * (1.0 - 1e-6),
                "trial {trial}: ‖w‖₁ {} < s {s}",
                l1(&w)
            );
            let support: Vec<usize> = (0..p).filter(|&l| w[l] > 0.0).collect();
            let max_out = (0..p)
                .filter(|&l| w[l] == 0.0)
                .map(|l| a[l])
                .fold(0.0, f64::max);
            let min_in = support.iter().map(|&l| a[l]).fold(f64::INFINITY, f64::min);
            assert!(min_in >= max_out, "kept features have the largest BCSS");
        }
    }
    // Degenerate inputs give defined weights.
    let w = update_weights(&[0.0, 0.0, 0.0, 0.0], 1.5);
    assert!(w.iter().all(|&v| (v - 0.5).abs() < 1e-15));
    let w = update_weights(&[5.0, 5.0, 5.0, 5.0], 1.5);
    check_bounds(&w, 1.5, "four-way tie");
}

fn load(spec: &str) -> meanscape::Loaded {
    meanscape::load(spec, &LoadOptions::default(), Scaling::Standard).unwrap()
}

fn config(pr: &meanscape::algo::Problem, k: usize, given: &[(&str, f64)], tune: bool) -> RunConfig {
    let a = algo::find("sparse-kmeans").unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let opts: Vec<(String, String)> = if tune {
        vec![("tune".into(), "gap".into())]
    } else {
        vec![]
    };
    RunConfig {
        k,
        seed: 1,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), pr, k, &given).unwrap(),
        options: algo::resolve_options(a.as_ref(), &opts).unwrap(),
        centres: None,
    }
}

#[test]
fn runs_keep_the_bounds_and_weight_the_informative_features() {
    let l = load("gen:sparse,n=300,p=100,q=20,k=3,sep=2,seed=4");
    let pr = &l.problem;
    let rel = l.dataset.relevance.clone().unwrap();
    let a = algo::find("sparse-kmeans").unwrap();
    for s in [1.0, 1.5, 3.0, 4.4, 8.0, 20.0] {
        let cfg = config(pr, 3, &[("wbound", s)], false);
        let fit = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap().best;
        let w = fit.feature_weights.unwrap();
        check_bounds(&w, s, &format!("s = {s}"));
        let inf = (0..100)
            .filter(|&l| rel[l])
            .map(|l| w[l])
            .fold(f64::INFINITY, f64::min);
        let noise = (0..100)
            .filter(|&l| !rel[l])
            .map(|l| w[l])
            .fold(0.0, f64::max);
        if s >= 4.4 {
            assert!(
                inf > noise,
                "s {s}: smallest informative weight {inf} ≤ largest noise weight {noise}"
            );
        } else {
            assert_eq!(
                noise, 0.0,
                "s {s}: a tight bound keeps only informative features"
            );
        }
        assert!(
            fit.objective < 0.0 && fit.objective.is_finite(),
            "−Σ w·BCSS"
        );
        assert!(fit.iterations <= 6);
    }
}

#[test]
fn gap_statistic_is_deterministic_and_sane() {
    let l = load("gen:sparse,n=90,p=40,q=6,k=3,sep=3,seed=2");
    let pr = &l.problem;
    let st = SparseSettings {
        wbound: 1.0,
        tol: 1e-4,
        max_iter: 6,
    };
    let g1 = gap_statistic(pr.x.f64().view(), 3, 5, &st, 6, 10, 7, &Ctx::new()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let g2 = pool
        .install(|| gap_statistic(pr.x.f64().view(), 3, 5, &st, 6, 10, 7, &Ctx::new()).unwrap());
    assert_eq!(g1.gaps, g2.gaps);
    // The grid ends below the bound where the L1 constraint stops binding
    // (sparcl's ends at 0.9·√p, where every feature keeps a weight).
    let b = g1.binding_wbound;
    assert!(b > 1.0 && b < 40f64.sqrt(), "{b}");
    assert_eq!(g1.wbounds, gap_grid(40, b, 10).unwrap());
    assert!((g1.wbounds[0] - 1.2).abs() < 1e-12 && (g1.wbounds[9] - 0.9 * b).abs() < 1e-12);
    assert!(g1.gaps.iter().chain(&g1.sd).all(|v| v.is_finite()));
    assert!(
        g1.nonzero.windows(2).all(|w| w[0] <= w[1]),
        "{:?}",
        g1.nonzero
    );
    let best = g1.gaps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(
        g1.gaps[g1
            .wbounds
            .iter()
            .position(|&b| b == g1.best_wbound)
            .unwrap()],
        best
    );
    // Real structure beats permuted data.
    assert!(best > 0.0, "{:?}", g1.gaps);
    // The one-sd rule: the smallest bound within one sd of the best gap.
    let i1 = g1
        .wbounds
        .iter()
        .position(|&b| b == g1.one_sd_wbound)
        .unwrap();
    assert!(g1.one_sd_wbound <= g1.best_wbound);
    assert!(g1.gaps[i1] >= best - g1.sd[i1]);
    assert!((0..i1).all(|i| g1.gaps[i] < best - g1.sd[i]));
    assert!(gap_grid(1, 1.0, 10).is_err());
    assert!(gap_grid(40, 1.3, 10).is_err());
}

#[test]
fn tune_gap_uses_the_chosen_bound() {
    let l = load("gen:sparse,n=90,p=30,q=6,k=3,sep=3,seed=5");
    let pr = &l.problem;
    let a = algo::find("sparse-kmeans").unwrap();
    let cfg = config(pr, 3, &[("nperms", 5.0), ("nstart", 5.0)], true);
    let res = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap();
    let gap = res.best.extra.gap.as_ref().unwrap();
    let best = gap.best_wbound;
    assert_eq!(res.best.extra.wbound.unwrap(), best);
    check_bounds(res.best.feature_weights.as_ref().unwrap(), best, "tuned");
    assert_eq!(gap.gaps.len(), 10);
    assert_eq!(gap.nperms, 5);
    let cfg = RunConfig {
        options: algo::resolve_options(a.as_ref(), &[("tune".into(), "gap-1sd".into())]).unwrap(),
        ..cfg
    };
    let res = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap();
    let one = res.best.extra.gap.as_ref().unwrap().one_sd_wbound;
    assert_eq!(res.best.extra.wbound.unwrap(), one);
    check_bounds(res.best.feature_weights.as_ref().unwrap(), one, "one-sd");
}

/// The default bound is half the bound where the L1 constraint stops
/// binding, so it selects; a bound at or above that one selects nothing
/// and says so.
#[test]
fn default_bound_binds_and_a_loose_bound_warns() {
    let a = algo::find("sparse-kmeans").unwrap();
    for scale in [Scaling::Standard, Scaling::None] {
        let l = meanscape::load("wine", &LoadOptions::default(), scale).unwrap();
        let pr = &l.problem;
        let cfg = config(pr, 3, &[], false);
        let fit = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap().best;
        let b = fit.extra.wbound_binding.unwrap();
        let s = cfg.params.real("wbound").unwrap();
        assert!(s < b || s == 1.0, "{scale}: default {s}, binding {b}");
        assert!(fit.warnings.is_empty(), "{scale}: {:?}", fit.warnings);
        let w = fit.feature_weights.unwrap();
        assert!(
            w.iter().filter(|&&v| v > 0.0).count() < 13,
            "{scale}: {w:?}"
        );
        // Every BCSS counts at or above b: all 13 keep a weight.
        let loose = config(pr, 3, &[("wbound", 13f64.sqrt())], false);
        let fit = algo::run(a.as_ref(), pr, &loose, &Ctx::new()).unwrap().best;
        assert!(fit.feature_weights.unwrap().iter().all(|&v| v > 0.0));
        assert!(
            fit.warnings.len() == 1 && fit.warnings[0].contains("does not bind"),
            "{scale}: {:?}",
            fit.warnings
        );
    }
}
