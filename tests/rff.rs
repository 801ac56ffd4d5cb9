//! The random-Fourier-feature family (docs/methods/rff-power-kmeans.md): the feature
//! map approximates the Gaussian kernel with an error falling like 1/√D,
//! rff-power tracks kpower as D grows, rff-mkpower with one view is
//! rff-power, IP-RFF-MKPKM without its possibilistic part is rff-mkpower,
//! α stays on the simplex, the objectives descend, s₀ = −1000 gives no NaN,
//! IP flags injected outliers, and the usual engine guarantees hold
//! (cache, cancellation, thread-count independence, one-line errors).
//! Memory (O(n·D), never n²) is checked in tests/rff_memory.rs.

use meanscape::algo::{self, Ctx, Fit, Init, Problem, RunConfig};
use meanscape::internals::Schedule;
use meanscape::internals::kernel::rff::{self, FeatureMap, MapSpec};
use meanscape::internals::kernel::rff_dim;
use meanscape::internals::{MvSettings, Possibilistic, Views, mv_loop, parse_views};
use meanscape::{Error, metrics};
use ndarray::{Array2, Axis, s};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Gaussian blobs with their true labels.
fn blobs(seed: u64, n: usize, p: usize, k: usize, sep: f64) -> (Array2<f64>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-sep..sep));
    let x = Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = StandardNormal.sample(&mut rng);
        centres[[i % k, j]] + z
    });
    (x, (0..n).map(|i| i % k).collect())
}

fn config(
    algo: &dyn algo::Algorithm,
    problem: &Problem,
    k: usize,
    seed: u64,
    init: Init,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> RunConfig {
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let opts: Vec<(String, String)> = options
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    RunConfig {
        k,
        seed,
        restarts: 1,
        init,
        params: algo::resolve_params(algo, problem, k, &given).unwrap(),
        options: algo::resolve_options(algo, &opts).unwrap(),
        centres: None,
    }
}

fn try_run(
    id: &str,
    problem: &Problem,
    k: usize,
    seed: u64,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> meanscape::Result<Fit> {
    let a = algo::find(id).unwrap();
    let cfg = config(a.as_ref(), problem, k, seed, Init::KmeansPP, given, options);
    algo::run(a.as_ref(), problem, &cfg, &Ctx::new()).map(|r| r.best)
}

fn run(id: &str, problem: &Problem, k: usize, seed: u64, given: &[(&str, f64)]) -> Fit {
    try_run(id, problem, k, seed, given, &[]).unwrap()
}

fn run_opts(
    id: &str,
    problem: &Problem,
    k: usize,
    seed: u64,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> Fit {
    try_run(id, problem, k, seed, given, options).unwrap()
}

fn nmi(truth: &[usize], labels: &[usize]) -> f64 {
    metrics::Scores::compute(truth, labels).nmi
}

fn assert_same_run(a: &Fit, b: &Fit, rel: f64, what: &str) {
    assert_eq!(a.labels, b.labels, "{what}: labels");
    assert_eq!(a.trace.len(), b.trace.len(), "{what}: iterations");
    assert_eq!(a.converged, b.converged, "{what}: converged");
    for (x, y) in a.trace.iter().zip(&b.trace) {
        assert_eq!(x.s, y.s, "{what}: s at iteration {}", x.iter);
        assert!(
            (x.objective - y.objective).abs() <= rel * x.objective.abs().max(1e-300),
            "{what}: iteration {}: {} vs {}",
            x.iter,
            x.objective,
            y.objective
        );
    }
}

fn features(x: &Array2<f64>, sigma: f64, dim: usize, seed: u64) -> FeatureMap {
    let spec = MapSpec {
        cols: 0..x.ncols(),
        sigma,
        dim,
        seed,
        stream: 0,
        f32: false,
    };
    FeatureMap::build(x.view(), &spec, &Ctx::new(), "test").unwrap()
}

// ------------------------------------------------------------ the feature map

#[test]
fn rff_gram_approaches_the_gaussian_gram_like_one_over_sqrt_d() {
    let (x, _) = blobs(1, 120, 5, 3, 2.0);
    let n = x.nrows();
    let sigma = 2.5;
    let mut exact = Array2::<f64>::zeros((n, n));
    for i in 0..n {
        for j in 0..n {
            let d: f64 = (&x.row(i) - &x.row(j)).mapv(|v| v * v).sum();
            exact[[i, j]] = (-d / (2.0 * sigma * sigma)).exp();
        }
    }
    let dims = [16usize, 64, 256, 1024, 4096];
    let mut errs = Vec::new();
    for &dim in &dims {
        // RMS entry error, averaged over 4 independent maps.
        let mut e = 0.0;
        for seed in 0..4 {
            let f = features(&x, sigma, dim, seed);
            assert_eq!(f.phi().dim(), (n, 2 * dim), "2D columns");
            for &v in &f.norms {
                assert!((v - 1.0).abs() < 1e-12, "‖φ(x)‖² = 1 exactly, got {v}");
            }
            let approx = f.phi().dot(&f.phi().t());
            e += ((&approx - &exact).mapv(|v| v * v).mean().unwrap()).sqrt() / 4.0;
        }
        errs.push(e);
    }
    // Monotone, and err·√D roughly constant (the Monte-Carlo rate): the
    // least-squares slope of log err on log D is −½ within 0.1.
    for w in errs.windows(2) {
        assert!(w[1] < w[0], "{errs:?}");
    }
    let lx: Vec<f64> = dims.iter().map(|&d| (d as f64).ln()).collect();
    let ly: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let mx = lx.iter().sum::<f64>() / lx.len() as f64;
    let my = ly.iter().sum::<f64>() / ly.len() as f64;
    let slope = lx
        .iter()
        .zip(&ly)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / lx.iter().map(|a| (a - mx) * (a - mx)).sum::<f64>();
    assert!((slope + 0.5).abs() < 0.1, "slope {slope}, errors {errs:?}");
    for (&d, &e) in dims.iter().zip(&errs) {
        let c = e * (d as f64).sqrt();
        assert!((0.3..1.5).contains(&c), "err·√D = {c} at D = {d}");
    }
    assert!(errs[4] < 0.02, "{errs:?}");
}

#[test]
fn feature_map_is_the_papers_block_form_and_seeded() {
    let (x, _) = blobs(2, 30, 3, 2, 2.0);
    let a = features(&x, 1.7, 8, 5);
    let b = features(&x, 1.7, 8, 5);
    assert_eq!(a.phi(), b.phi(), "same seed, same map");
    let c = features(&x, 1.7, 8, 6);
    assert_ne!(a.phi(), c.phi(), "another seed, another map");
    // φ(x) = [sin(Ωᵀx), cos(Ωᵀx)]/√D with Ω ~ N(0, σ⁻²).
    let omega = a.spec.frequencies();
    assert_eq!(omega.dim(), (3, 8));
    let z = x.dot(&omega);
    for i in 0..x.nrows() {
        for j in 0..8 {
            let sc = 1.0 / 8f64.sqrt();
            assert!((a.phi()[[i, j]] - z[[i, j]].sin() * sc).abs() < 1e-15);
            assert!((a.phi()[[i, 8 + j]] - z[[i, j]].cos() * sc).abs() < 1e-15);
        }
    }
    // The frequencies' spread is 1/σ.
    let big = MapSpec {
        cols: 0..50,
        sigma: 4.0,
        dim: 2000,
        seed: 1,
        stream: 0,
        f32: false,
    }
    .frequencies();
    let sd = (big.mapv(|v| v * v).mean().unwrap()).sqrt();
    assert!((sd - 0.25).abs() < 0.005, "{sd}");
    // Stream l is an independent map (views).
    let mut v1 = big_spec_stream(1);
    v1.cols = 0..3;
    assert_ne!(v1.frequencies(), a.spec.frequencies());
}

fn big_spec_stream(stream: u64) -> MapSpec {
    MapSpec {
        cols: 0..3,
        sigma: 1.7,
        dim: 8,
        seed: 5,
        stream,
        f32: false,
    }
}

// ------------------------------------------------------------ rff-power

#[test]
fn rff_power_approaches_kpower_as_d_grows() {
    // Matched starts (--init random picks the same seed rows for both) and no
    // k-means start: the only difference left is the kernel approximation.
    let (x, truth) = blobs(4, 300, 4, 4, 2.5);
    let pr = Problem::new(x);
    let mut agree = Vec::new();
    for dim in [4.0, 32.0, 2048.0] {
        let mut a = 0.0;
        for seed in 0..3 {
            let common = [("s0", -3.0), ("sigma", 3.0), ("soft_tol", 1.0)];
            let a_cfg = |id: &str| {
                let al = algo::find(id).unwrap();
                let mut g: Vec<(&str, f64)> = common.to_vec();
                if id != "kpower" {
                    g.retain(|(n, _)| *n != "soft_tol");
                    g.extend([
                        ("rff_dim", dim),
                        ("init_iter", 0.0),
                        ("rff_seed", seed as f64),
                    ]);
                }
                let cfg = config(al.as_ref(), &pr, 4, seed, Init::Random, &g, &[]);
                algo::run(al.as_ref(), &pr, &cfg, &Ctx::new()).unwrap().best
            };
            let kp = a_cfg("kpower");
            let rf = a_cfg("rff-power");
            a += nmi(&kp.labels, &rf.labels) / 3.0;
            if dim == 2048.0 {
                let (t_rf, t_kp) = (nmi(&truth, &rf.labels), nmi(&truth, &kp.labels));
                assert!(t_rf > t_kp - 0.05, "seed {seed}: rff {t_rf} kpower {t_kp}");
            }
        }
        agree.push(a);
    }
    assert!(agree[2] > 0.97, "{agree:?}");
    assert!(agree[0] < agree[2], "{agree:?}");
}

#[test]
fn rff_power_reuses_the_power_loop_on_its_features() {
    // rff-power from the seed points is power k-means on the rows of Φ̃.
    let (x, truth) = blobs(5, 400, 3, 3, 6.0);
    let pr = Problem::new(x.clone());
    let fit = run(
        "rff-power",
        &pr,
        3,
        2,
        &[("rff_dim", 64.0), ("sigma", 2.0), ("init_iter", 0.0)],
    );
    let f = features(&x, 2.0, 64, 0);
    let on_phi = Problem::new(f.phi().clone());
    let p = run("power", &on_phi, 3, 2, &[("s0", -15.0), ("period", 3.0)]);
    assert_same_run(&fit, &p, 1e-12, "rff-power = power on Φ̃");
    assert!(nmi(&truth, &fit.labels) > 0.9);
    assert!(fit.trace.len() > 3);
    // The paper's Θ₀ (k-means on the features) at the default.
    let fit = run("rff-power", &pr, 3, 2, &[("rff_dim", 64.0)]);
    assert!(fit.extra.init_iterations.unwrap() >= 1);
    assert!(nmi(&truth, &fit.labels) > 0.9);
    let map = fit.extra.rff.as_ref().unwrap();
    assert_eq!(map.rff_dim, 64);
    assert_eq!(map.feature_columns, 128);
}

#[test]
fn defaults_follow_the_spec() {
    let (x, _) = blobs(0, 50, 3, 3, 2.0);
    let pr = Problem::new(x);
    let a = algo::find("rff-power").unwrap();
    let cfg = config(a.as_ref(), &pr, 10, 0, Init::KmeansPP, &[], &[]);
    // D from the data (issue 27), not the paper's ⌈4 ln³ 20⌉ = 108: the
    // smallest rung within the tolerance at the σ rule, whatever k.
    let auto = rff_dim::auto_dim(&pr, 0..3, meanscape::internals::kernel::auto_sigma(&pr));
    assert_eq!(cfg.params.real("rff_dim").unwrap(), auto.dim as f64);
    assert!(auto.within && auto.error <= rff_dim::DIM_TOL, "{auto:?}");
    assert_eq!(rff::paper_dim(10), 108, "⌈4 ln³ 20⌉ stays available");
    assert_eq!(cfg.params.real("s0").unwrap(), -15.0);
    assert_eq!(cfg.params.real("period").unwrap(), 3.0);
    assert_eq!(
        cfg.params.real("sigma").unwrap(),
        meanscape::internals::kernel::auto_sigma(&pr),
        "the KPK rule"
    );
    let ip = algo::find("ip-rff-mkpower").unwrap();
    let cfg = config(ip.as_ref(), &pr, 3, 0, Init::KmeansPP, &[], &[]);
    assert_eq!(
        cfg.params.real("rff_dim").unwrap(),
        auto.dim as f64,
        "k does not enter"
    );
    assert_eq!(cfg.params.real("period").unwrap(), 2.0);
    assert_eq!(cfg.params.real("m").unwrap(), 2.0);
    assert_eq!(cfg.options["views"], "auto");
    // Out-of-range values are refused by the declared ranges.
    for (name, v) in [("rff_dim", 0.0), ("rff_dim", 1e6), ("s0", 5.0), ("m", 1.0)] {
        let e = algo::resolve_params(ip.as_ref(), &pr, 3, &[(name.to_string(), v)]).unwrap_err();
        assert!(matches!(e, Error::Param(_)), "{name}={v}: {e}");
    }
}

// ------------------------------------------------------------ reductions

#[test]
fn rff_mkpower_with_one_view_is_rff_power() {
    for (seed, init_iter) in [(0, 100.0), (1, 0.0), (2, 100.0)] {
        let (x, _) = blobs(seed, 500, 4, 4, 2.0);
        let pr = Problem::new(x);
        let g = [
            ("rff_dim", 48.0),
            ("period", 3.0),
            ("init_iter", init_iter),
            ("rff_seed", 7.0),
        ];
        let one = run("rff-power", &pr, 4, seed, &g);
        // At rff-power's s₀ (−15) rather than the multi-view rule's.
        let mut g_mk = g.to_vec();
        g_mk.extend([("s0", -15.0), ("s0_soft", 0.0)]);
        for views in ["all", "sigmas=1"] {
            let mk = run_opts("rff-mkpower", &pr, 4, seed, &g_mk, &[("views", views)]);
            assert_same_run(&mk, &one, 1e-10, &format!("seed {seed} {views}"));
            assert_eq!(mk.kernel_weights, Some(vec![1.0]));
            assert!(mk.trace.iter().all(|t| t.kernel_weights == Some(vec![1.0])));
        }
    }
}

#[test]
fn ip_without_the_possibilistic_part_is_rff_mkpower() {
    let (x, _) = blobs(6, 400, 6, 3, 2.0);
    let pr = Problem::new(x);
    for views in ["auto", "1-3,4-6"] {
        let g = [("rff_dim", 32.0), ("lambda", 0.5)];
        let mk = run_opts("rff-mkpower", &pr, 3, 1, &g, &[("views", views)]);
        let mut g_off = g.to_vec();
        g_off.push(("possibilistic", 0.0));
        let off = run_opts("ip-rff-mkpower", &pr, 3, 1, &g_off, &[("views", views)]);
        assert_same_run(&off, &mk, 0.0, views);
        assert_eq!(off.kernel_weights, mk.kernel_weights);
        assert!(off.extra.typicality.is_none());
        // A huge η scale makes every u ≈ 1: the same clustering, the same
        // objective to rounding.
        let mut g_big = g.to_vec();
        g_big.push(("eta_scale", 1e12));
        let big = run_opts("ip-rff-mkpower", &pr, 3, 1, &g_big, &[("views", views)]);
        assert_same_run(&big, &mk, 1e-8, &format!("{views}, eta_scale 1e12"));
        assert_eq!(big.extra.typicality.as_ref().unwrap().outliers, 0);
        // With the typicalities on, the run differs.
        let on = run_opts("ip-rff-mkpower", &pr, 3, 1, &g, &[("views", views)]);
        assert!(on.extra.typicality.as_ref().unwrap().mean < 0.999);
        assert_ne!(on.objective, mk.objective);
    }
}

// ------------------------------------------------------------ α and descent

fn two_views(seed: u64, n: usize) -> (Array2<f64>, Vec<usize>) {
    // Columns 0..3 carry 3 clusters, columns 3..6 are noise.
    let (good, truth) = blobs(seed, n, 3, 3, 8.0);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + 100);
    let mut x = Array2::<f64>::zeros((n, 6));
    x.slice_mut(s![.., 0..3]).assign(&good);
    for v in x.slice_mut(s![.., 3..6]).iter_mut() {
        *v = StandardNormal.sample(&mut rng);
    }
    (x, truth)
}

#[test]
fn alpha_stays_on_the_simplex_and_favours_the_informative_view() {
    let (x, truth) = two_views(1, 600);
    let pr = Problem::new(x);
    for id in ["rff-mkpower", "ip-rff-mkpower"] {
        for views in ["auto", "1-3,4-6", "sigmas=0.25,0.5,1,2,4"] {
            let fit = run_opts(id, &pr, 3, 0, &[("rff_dim", 64.0)], &[("views", views)]);
            let alpha = fit.kernel_weights.clone().unwrap();
            for t in &fit.trace {
                let a = t.kernel_weights.as_ref().unwrap();
                assert_eq!(a.len(), alpha.len());
                assert!(a.iter().all(|&v| (0.0..=1.0).contains(&v)), "{a:?}");
                assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{a:?}");
            }
            assert_eq!(
                fit.trace.last().unwrap().kernel_weights.as_ref(),
                Some(&alpha)
            );
            // The k-means start (Θ₀) on the concatenated views ran to its rule.
            assert!(fit.extra.init_iterations.unwrap() >= 2, "{id} {views}");
            if views == "1-3,4-6" {
                assert!(alpha[0] > 0.55, "{id}: informative view first: {alpha:?}");
                assert!(nmi(&truth, &fit.labels) > 0.9, "{id}");
            }
        }
    }
}

/// One view carries 4 clusters (4 columns), the other is 4 columns of
/// noise `scale` times larger or smaller; raw data (no scaling).
fn scaled_noise_view(seed: u64, n: usize, scale: f64) -> (Array2<f64>, Array2<f64>, Vec<usize>) {
    let (good, truth) = blobs(seed, n, 4, 4, 3.0);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + 200);
    let mut x = Array2::<f64>::zeros((n, 8));
    x.slice_mut(s![.., 0..4]).assign(&good);
    for v in x.slice_mut(s![.., 4..8]).iter_mut() {
        let z: f64 = StandardNormal.sample(&mut rng);
        *v = scale * z;
    }
    (x, good, truth)
}

/// Issue 16: a view of noise 1000× larger than the informative one (raw
/// data). Each view has its own bandwidth rule and D and the view
/// distances are normalised, so the scale does not matter and α favours
/// the informative view; the noise view still gets about a third of the
/// weight at the default λ = 1 (× median scatter), which costs about 0.03
/// NMI against k-means on the informative view alone (0.752 vs 0.779; a
/// known gap: λ = 0.3 does not close it here, and on the handwritten
/// digits' six views it hands α to the 6-column view and loses 0.2 NMI).
#[test]
fn a_view_1000_times_larger_does_not_beat_the_informative_one() {
    let seeds = 0..6u64;
    let mut km = 0.0;
    let mut mv = [0.0; 1];
    let runs = [("rff-mkpower", 1.0)];
    for seed in seeds.clone() {
        let (x, good, truth) = scaled_noise_view(seed, 800, 1000.0);
        let km_fit = run("kmeans", &Problem::new(good), 4, seed, &[]);
        km += nmi(&truth, &km_fit.labels);
        let pr = Problem::new(x);
        for (i, (id, lambda)) in runs.into_iter().enumerate() {
            let g = [("lambda", lambda)];
            let fit = run_opts(id, &pr, 4, seed, &g, &[("views", "1-4,5-8")]);
            let alpha = fit.kernel_weights.clone().unwrap();
            if id == "rff-mkpower" {
                assert!(alpha[0] > 0.6, "{id} λ {lambda} seed {seed}: α {alpha:?}");
            }
            mv[i] += nmi(&truth, &fit.labels);
        }
    }
    let n = seeds.count() as f64;
    let km = km / n;
    for (i, (id, lambda)) in runs.into_iter().enumerate() {
        let v = mv[i] / n;
        assert!(
            v >= km - 0.05,
            "{id} λ {lambda}: mean NMI {v:.3} vs k-means on the good view {km:.3}"
        );
    }
}

/// Issue 16: ip-rff-mkpower in the same design. With α taken from the
/// possibilistic distances d̃ (the paper's α-step, `alpha_typ=1`) the noise
/// view, where every point looks typical, has its d̃ shrunk and takes α:
/// seed 2 collapses (NMI 0.52 against k-means' 0.98 on the good view) and
/// the mean falls to 0.66 against 0.78. With α from the views' own
/// distances (the default) IP stays within 0.05 of k-means on the good
/// view, and α favours it on every seed.
#[test]
fn ip_with_a_noise_view_matches_kmeans_on_the_informative_one() {
    let (mut km, mut ip) = (0.0, 0.0);
    for seed in 0..6u64 {
        let (x, good, truth) = scaled_noise_view(seed, 800, 1000.0);
        km += nmi(
            &truth,
            &run("kmeans", &Problem::new(good), 4, seed, &[]).labels,
        );
        let pr = Problem::new(x);
        // At the D of issue 16 (⌈4 ln³ 8⌉ = 36, the default then): with the
        // automatic D of issue 27 (more frequencies) the paper's α-step no
        // longer favours the noise view on seed 2 (α ≈ 0.66 / 0.34).
        let d = ("rff_dim", 36.0);
        let fit = run_opts(
            "ip-rff-mkpower",
            &pr,
            4,
            seed,
            &[d],
            &[("views", "1-4,5-8")],
        );
        let alpha = fit.kernel_weights.clone().unwrap();
        assert!(alpha[0] > 0.6, "seed {seed}: α {alpha:?}");
        ip += nmi(&truth, &fit.labels);
        if seed == 2 {
            let paper = run_opts(
                "ip-rff-mkpower",
                &pr,
                4,
                seed,
                &[("alpha_typ", 1.0), d],
                &[("views", "1-4,5-8")],
            );
            let a = paper.kernel_weights.clone().unwrap();
            assert!(
                a[1] > a[0],
                "the paper's α-step favours the noise view: {a:?}"
            );
            assert!(nmi(&truth, &paper.labels) < nmi(&truth, &fit.labels) - 0.3);
        }
    }
    assert!(ip / 6.0 >= km / 6.0 - 0.05, "{} vs {}", ip / 6.0, km / 6.0);
}

/// With one absolute bandwidth for every view (the paper's setting), a
/// view of tiny values has tiny feature distances: unnormalised, its small
/// scatter wins α although it holds no clusters; normalised by each view's
/// total scatter, α goes to the informative view.
#[test]
fn view_normalisation_stops_alpha_from_chasing_the_smallest_view() {
    let (x, good, truth) = scaled_noise_view(3, 800, 1e-3);
    let sigma = meanscape::internals::kernel::auto_sigma(&Problem::new(good));
    let pr = Problem::new(x);
    for id in ["rff-mkpower", "ip-rff-mkpower"] {
        let fit_for = |norm: f64| {
            // D as in issue 16 (⌈4 ln³ 8⌉ = 36), where the design was set.
            let g = [
                ("sigma", sigma),
                ("sigma_abs", 1.0),
                ("view_norm", norm),
                ("rff_dim", 36.0),
            ];
            run_opts(id, &pr, 4, 0, &g, &[("views", "1-4,5-8")])
        };
        let raw = fit_for(0.0);
        let a = raw.kernel_weights.clone().unwrap();
        assert!(a[1] > 0.6, "{id} unnormalised: α {a:?}");
        let normed = fit_for(1.0);
        let a = normed.kernel_weights.clone().unwrap();
        assert!(a[0] > 0.6, "{id} normalised: α {a:?}");
        assert!(
            nmi(&truth, &normed.labels) >= nmi(&truth, &raw.labels) - 0.01,
            "{id}: {} vs {}",
            nmi(&truth, &normed.labels),
            nmi(&truth, &raw.labels)
        );
    }
}

/// The per-view D rule and the s₀ rule: each column view gets
/// max(D, min(⌈2·d_l⌉, 1024)) frequencies, s₀ is found from the start's
/// softness (never softer than --s0), and the paper's settings stay
/// reachable (view_dim=0, s0_soft=0).
#[test]
fn per_view_dim_and_s0_rules() {
    let (x, _, _) = scaled_noise_view(1, 300, 1.0);
    let pr = Problem::new(x);
    let fit = run_opts(
        "rff-mkpower",
        &pr,
        4,
        0,
        &[("rff_dim", 3.0)],
        &[("views", "1-4,5-8")],
    );
    let dims: Vec<usize> = fit
        .extra
        .views
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.rff_dim)
        .collect();
    assert_eq!(dims, [8, 8]);
    let s0 = fit.trace[0].s.unwrap();
    assert!((-1000.0..=-1.0).contains(&s0), "{s0}");
    let g = [
        ("rff_dim", 3.0),
        ("view_dim", 0.0),
        ("s0_soft", 0.0),
        ("s0", -15.0),
    ];
    let paper = run_opts("rff-mkpower", &pr, 4, 0, &g, &[("views", "1-4,5-8")]);
    let dims: Vec<usize> = paper
        .extra
        .views
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.rff_dim)
        .collect();
    assert_eq!(dims, [3, 3]);
    assert_eq!(paper.trace[0].s, Some(-15.0));
}

#[test]
fn objectives_never_increase_at_fixed_s() {
    let (x, _) = two_views(2, 500);
    let specs = [(0..3, 1.5), (3..6, 1.5), (0..6, 3.0)];
    let fs: Vec<FeatureMap> = specs
        .iter()
        .enumerate()
        .map(|(l, (cols, sigma))| {
            let spec = MapSpec {
                cols: cols.clone(),
                sigma: *sigma,
                dim: 40,
                seed: 3,
                stream: l as u64,
                f32: false,
            };
            FeatureMap::build(x.slice(s![.., cols.clone()]), &spec, &Ctx::new(), "t").unwrap()
        })
        .collect();
    let views: Vec<&FeatureMap> = fs.iter().collect();
    let seeds = [0usize, 1, 2];
    for poss in [
        None,
        Some(Possibilistic {
            m: 2.0,
            eta_scale: 1.0,
            alpha_on_typicality: true,
        }),
        Some(Possibilistic {
            m: 3.0,
            eta_scale: 0.3,
            alpha_on_typicality: true,
        }),
    ] {
        for lambda in [0.1, 1.0, 10.0] {
            for s0 in [-1.0, -15.0] {
                let set = MvSettings {
                    sched: Schedule {
                        s0,
                        eta: 1.0,
                        period: 1,
                        s_min: s0,
                    },
                    lambda_rel: lambda,
                    possibilistic: poss,
                    tol: 0.0,
                    max_iter: 40,
                    scales: vec![],
                    s0_softness: None,
                };
                let centres = views
                    .iter()
                    .map(|f| f.phi().select(Axis(0), &seeds))
                    .collect();
                let fit = mv_loop(&views, None, centres, &set, &Ctx::new()).unwrap();
                assert!(fit.trace.len() >= 5);
                for w in fit.trace.windows(2) {
                    assert!(
                        w[1].objective <= w[0].objective + 1e-10 * w[0].objective.abs(),
                        "{poss:?} λ {lambda} s {s0}: {} then {}",
                        w[0].objective,
                        w[1].objective
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------ robustness

#[test]
fn no_nan_down_to_s0_minus_1000() {
    let (mut x, _) = blobs(7, 300, 3, 3, 3.0);
    // Duplicate points and a far point.
    for i in 0..20 {
        let r = x.row(0).to_owned();
        x.row_mut(100 + i).assign(&r);
    }
    x.row_mut(299).fill(1e3);
    let pr = Problem::new(x);
    for id in ["rff-power", "rff-mkpower", "ip-rff-mkpower"] {
        for (s0, s_min) in [(-1000.0, -1000.0), (-1000.0, -1e6), (-0.01, -1000.0)] {
            for init_iter in [0.0, 100.0] {
                let g = [
                    ("s0", s0),
                    ("s_min", s_min),
                    ("init_iter", init_iter),
                    ("max_iter", 60.0),
                ];
                let fit = run(id, &pr, 3, 1, &g);
                let what = format!("{id} s0 {s0} s_min {s_min} init {init_iter}");
                assert!(fit.objective.is_finite(), "{what}");
                assert!(fit.trace.iter().all(|t| t.objective.is_finite()), "{what}");
                assert!(fit.labels.iter().all(|&l| l < 3), "{what}");
                if let Some(a) = &fit.kernel_weights {
                    assert!(a.iter().all(|v| v.is_finite()), "{what}");
                }
                if let Some(t) = &fit.extra.typicality {
                    for (key, v) in [("mean", t.mean), ("min", t.min), ("median", t.median)] {
                        assert!(v.is_finite(), "{what} {key}");
                    }
                }
                let json = serde_json::to_string(&fit.extra).unwrap();
                assert!(
                    !json.contains("null") && !json.contains("NaN"),
                    "{what}: {json}"
                );
            }
        }
    }
}

#[test]
fn ip_flags_injected_outliers_and_keeps_the_inliers_clustered() {
    let (clean, truth) = blobs(8, 600, 4, 3, 6.0);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let n_out = 60;
    let mut x = Array2::<f64>::zeros((600 + n_out, 4));
    x.slice_mut(s![0..600, ..]).assign(&clean);
    for v in x.slice_mut(s![600.., ..]).iter_mut() {
        *v = rng.random_range(-30.0..30.0);
    }
    let pr = Problem::new(x);
    let g = [("rff_dim", 128.0)];
    let ip = run("ip-rff-mkpower", &pr, 3, 0, &g);
    let t = ip.extra.typicality.as_ref().unwrap();
    let rows: Vec<usize> = t.outlier_rows.clone();
    assert_eq!(rows.len(), t.outliers);
    let hits = rows.iter().filter(|&&i| i >= 600).count();
    assert!(
        hits >= n_out / 2,
        "{hits} of {} flagged rows are injected outliers",
        rows.len()
    );
    assert!(
        hits * 10 >= rows.len() * 9,
        "{hits} of {} flagged rows are injected outliers",
        rows.len()
    );
    assert!(nmi(&truth, &ip.labels[..600]) > 0.9);
}

// ------------------------------------------------------------ engine

#[test]
fn features_are_cached_and_replaced_when_d_changes() {
    let (x, _) = blobs(3, 200, 3, 3, 3.0);
    let pr = Problem::new(x);
    let a = algo::find("rff-power").unwrap();
    let get = |dim: f64, s0: f64| {
        let cfg = config(
            a.as_ref(),
            &pr,
            3,
            0,
            Init::KmeansPP,
            &[("rff_dim", dim), ("s0", s0)],
            &[],
        );
        algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap();
        let spec = meanscape::internals::map_spec_of(&pr, &cfg).unwrap();
        (
            rff::features(&pr, std::slice::from_ref(&spec), &Ctx::new())
                .unwrap()
                .remove(0),
            spec,
        )
    };
    let (f1, s1) = get(20.0, -15.0);
    let (f2, _) = get(20.0, -3.0);
    assert!(
        Arc::ptr_eq(&f1, &f2),
        "moving s0 must not rebuild the features"
    );
    let (f3, s3) = get(30.0, -3.0);
    assert!(!Arc::ptr_eq(&f1, &f3));
    assert!(
        !rff::is_cached(&pr, &s1),
        "the old D's features were dropped"
    );
    assert!(rff::is_cached(&pr, &s3));
    // rff-mkpower's one-view map is rff-power's, shared in the cache.
    let mk = algo::find("rff-mkpower").unwrap();
    let cfg = config(
        mk.as_ref(),
        &pr,
        3,
        0,
        Init::KmeansPP,
        &[("rff_dim", 30.0)],
        &[("views", "all")],
    );
    algo::run(mk.as_ref(), &pr, &cfg, &Ctx::new()).unwrap();
    assert!(rff::is_cached(&pr, &s3));
}

#[test]
fn cancellation_stops_every_rff_algorithm() {
    let (x, _) = blobs(0, 300, 3, 3, 3.0);
    let pr = Problem::new(x);
    let ctx = Ctx::new().with_cancel(Arc::new(AtomicBool::new(true)));
    for id in ["rff-power", "rff-mkpower", "ip-rff-mkpower"] {
        let a = algo::find(id).unwrap();
        let cfg = config(a.as_ref(), &pr, 3, 0, Init::KmeansPP, &[], &[]);
        let e = algo::run(a.as_ref(), &pr, &cfg, &ctx).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{id}: {e}");
    }
}

#[test]
fn progress_events_carry_alpha_and_stages() {
    let (x, _) = two_views(4, 300);
    let pr = Problem::new(x);
    for id in ["rff-power", "ip-rff-mkpower"] {
        let (tx, rx) = std::sync::mpsc::channel();
        let ctx = Ctx::new().with_events(tx, true);
        let a = algo::find(id).unwrap();
        let cfg = config(a.as_ref(), &pr, 3, 0, Init::KmeansPP, &[], &[]);
        let fit = algo::run(a.as_ref(), &pr, &cfg, &ctx).unwrap().best;
        drop(ctx);
        let evs: Vec<algo::Event> = rx.iter().collect();
        let iters: Vec<&algo::Progress> = evs
            .iter()
            .filter_map(|e| match e {
                algo::Event::Iteration(p) => Some(p),
                _ => None,
            })
            .collect();
        // One event per power iteration, numbered 1.. (the k-means start is a stage).
        assert_eq!(iters.len(), fit.iterations, "{id}");
        assert!(
            iters
                .iter()
                .enumerate()
                .all(|(i, p)| p.iter == i + 1 && p.s.is_some())
        );
        assert!(
            iters
                .iter()
                .all(|p| p.labels.as_ref().is_some_and(|l| l.len() == 300))
        );
        if id == "ip-rff-mkpower" {
            assert!(
                iters
                    .iter()
                    .all(|p| p.kernel_weights.as_ref().is_some_and(|a| a.len() == 3))
            );
        }
        let stages: Vec<&String> = evs
            .iter()
            .filter_map(|e| match e {
                algo::Event::Stage { label, .. } => Some(label),
                _ => None,
            })
            .collect();
        assert!(
            stages.iter().any(|l| l.contains("random features")),
            "{stages:?}"
        );
        assert!(stages.iter().any(|l| l.contains("k-means")), "{stages:?}");
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (x, _) = two_views(9, 5000);
    let one = |threads: usize, id: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let pr = Problem::new(x.clone());
        pool.install(|| run(id, &pr, 3, 2, &[("rff_dim", 100.0)]))
    };
    for id in ["rff-power", "rff-mkpower", "ip-rff-mkpower"] {
        let a = one(1, id);
        let b = one(3, id);
        assert_eq!(a.labels, b.labels, "{id}");
        assert_eq!(a.trace, b.trace, "{id}");
        assert_eq!(a.kernel_weights, b.kernel_weights, "{id}");
    }
}

#[test]
fn views_parse_or_are_refused_with_the_reason() {
    assert_eq!(
        parse_views("auto", 10).unwrap(),
        Views::Bandwidths(vec![0.5, 1.0, 2.0])
    );
    assert_eq!(
        parse_views("all", 10).unwrap(),
        Views::Bandwidths(vec![1.0])
    );
    assert_eq!(
        parse_views("sigmas=1, 3", 10).unwrap(),
        Views::Bandwidths(vec![1.0, 3.0])
    );
    assert_eq!(
        parse_views("1-4,5-10, 7", 10).unwrap(),
        Views::Columns(vec![0..4, 4..10, 6..7])
    );
    for (bad, why) in [
        ("1-64,65-128", "out of range"),
        ("0-3", "out of range"),
        ("5-2", "out of range"),
        ("a-b", "not a column range"),
        ("sigmas=1,x", "not a number"),
        ("sigmas=-1", "positive"),
    ] {
        let e = parse_views(bad, 100).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, Error::Param(_)) && msg.contains(why) && !msg.contains('\n'),
            "{bad}: {msg}"
        );
    }
    // Through the solver: a bad --views is a one-line parameter error.
    let (x, _) = blobs(0, 60, 3, 3, 3.0);
    let pr = Problem::new(x);
    let e = try_run("rff-mkpower", &pr, 3, 0, &[], &[("views", "1-4")]).unwrap_err();
    assert!(
        matches!(e, Error::Param(_)) && e.to_string().contains("1-3"),
        "{e}"
    );
    // rff-power takes no views.
    let a = algo::find("rff-power").unwrap();
    let e = algo::resolve_options(a.as_ref(), &[("views".into(), "1-2".into())]).unwrap_err();
    assert!(e.to_string().contains("does not apply"), "{e}");
}

/// f32 storage halves the matrix and changes nothing else: the same
/// iterations, labels and objectives to ~1e-6 (the features are rounded to
/// f32, the sums are f64).
#[test]
fn f32_features_halve_the_memory_and_keep_the_run() {
    let (x, truth) = blobs(4, 600, 6, 4, 4.0);
    let pr = Problem::new(x);
    let a = run("rff-power", &pr, 4, 1, &[("rff_dim", 64.0)]);
    let b = run(
        "rff-power",
        &pr,
        4,
        1,
        &[("rff_dim", 64.0), ("rff_f32", 1.0)],
    );
    assert_eq!(a.labels, b.labels);
    assert_same_run(&a, &b, 1e-5, "f32 vs f64 features");
    assert!(nmi(&truth, &b.labels) > 0.9);
    let bytes = |f: &Fit| f.extra.rff.as_ref().unwrap().feature_bytes;
    assert_eq!(bytes(&a), 2 * bytes(&b));
    assert_eq!(b.extra.rff.as_ref().unwrap().storage, "f32");
}

// ------------------------------------------------------------ automatic D

/// Issue 27: D is the smallest rung of 64, 128, … whose map approximates
/// the Gaussian kernel within the tolerance on the fixed sample: the same
/// D and error on every call, the error at D within the tolerance, the
/// rung below it outside, and a tighter tolerance never a smaller D.
#[test]
fn automatic_dim_meets_its_tolerance_deterministically() {
    let (x, _) = blobs(4, 900, 12, 5, 3.0);
    let rows = rff_dim::sample_rows(900);
    assert_eq!(rows.len(), rff_dim::SAMPLE_ROWS);
    assert_eq!(rows, rff_dim::sample_rows(900), "a fixed sample");
    let sigma = meanscape::internals::kernel::auto_sigma(&Problem::new(x.clone()));
    let sample = x.select(Axis(0), &rows);
    let base = MapSpec {
        cols: 0..12,
        sigma,
        dim: 64,
        seed: 0,
        stream: 0,
        f32: false,
    };
    let c = rff_dim::choose_dim(sample.view(), &base, 0.03, 4096);
    assert_eq!(c, rff_dim::choose_dim(sample.view(), &base, 0.03, 4096));
    assert!(c.within && c.error <= 0.03, "{c:?}");
    assert!(c.dim >= 128, "64 frequencies are not within 0.03: {c:?}");
    let below = c.tried[c.tried.len() - 2];
    assert!(below.1 > 0.03 && below.0 * 2 == c.dim, "{c:?}");
    // The reported error is that of the map a run with this D builds.
    let spec = MapSpec {
        dim: c.dim,
        ..base.clone()
    };
    assert_eq!(rff_dim::approx_error(sample.view(), &spec), c.error);
    let mut last = 0;
    for tol in [0.2, 0.1, 0.05, 0.03, 0.02, 0.01] {
        let d = rff_dim::choose_dim(sample.view(), &base, tol, 4096).dim;
        assert!(d >= last, "tol {tol}: D {d} < {last}");
        last = d;
    }
    // A narrower bandwidth is a harder kernel to approximate.
    let narrow = MapSpec {
        sigma: sigma / 2.0,
        ..base.clone()
    };
    assert!(rff_dim::choose_dim(sample.view(), &narrow, 0.03, 4096).dim >= c.dim);
}

/// The ladder stops at the memory cap (an eighth of the budget for one
/// n × 2D matrix, at most 4096) and says the tolerance was not reached.
#[test]
fn automatic_dim_is_capped_by_memory() {
    // n·2D·8 bytes ≤ budget/8.
    assert_eq!(rff_dim::ladder_cap(1000, 1000 * 2 * 256 * 8 * 8), 256);
    assert_eq!(rff_dim::ladder_cap(1000, 1000 * 2 * 256 * 8 * 8 - 1), 128);
    assert_eq!(rff_dim::ladder_cap(1000, 1), rff_dim::LADDER_MIN);
    assert_eq!(rff_dim::ladder_cap(10, u64::MAX), rff_dim::LADDER_MAX);
    let (x, _) = blobs(4, 300, 6, 3, 3.0);
    let base = MapSpec {
        cols: 0..6,
        sigma: 0.5,
        dim: 64,
        seed: 0,
        stream: 0,
        f32: false,
    };
    let c = rff_dim::choose_dim(x.view(), &base, 1e-4, 128);
    assert_eq!(c.dim, 128);
    assert!(!c.within && c.error > 1e-4, "{c:?}");
    assert_eq!(c.tried.len(), 2);
}

/// An explicit `-P rff_dim=…` is used as given, and the run reports the
/// error of its map against the tolerance.
#[test]
fn an_explicit_dim_is_respected_and_its_error_reported() {
    let (x, _) = blobs(2, 400, 5, 3, 4.0);
    let pr = Problem::new(x);
    let fit = run("rff-power", &pr, 3, 0, &[("rff_dim", 40.0)]);
    assert_eq!(fit.extra.rff.as_ref().unwrap().rff_dim, 40);
    let a = fit.extra.kernel_approx.as_ref().unwrap();
    assert_eq!(a.errors.len(), 1);
    assert_eq!(a.tolerance, rff_dim::DIM_TOL);
    assert_eq!(a.sample_rows, 400);
    let spec = MapSpec {
        cols: 0..5,
        sigma: meanscape::internals::kernel::auto_sigma(&pr),
        dim: 40,
        seed: 0,
        stream: 0,
        f32: false,
    };
    let sample =
        pr.x.f64()
            .view()
            .select(Axis(0), &rff_dim::sample_rows(400));
    assert_eq!(a.errors[0], rff_dim::approx_error(sample.view(), &spec));
    // At the automatic D the reported error is within the tolerance.
    let fit = run("rff-power", &pr, 3, 0, &[]);
    let a = fit.extra.kernel_approx.as_ref().unwrap();
    assert!(a.errors[0] <= rff_dim::DIM_TOL, "{a:?}");
    // Multi-view: one error per view, in the views' order.
    let fit = run_opts(
        "rff-mkpower",
        &pr,
        3,
        0,
        &[("rff_dim", 32.0)],
        &[("views", "1-2,3-5")],
    );
    assert_eq!(fit.extra.kernel_approx.as_ref().unwrap().errors.len(), 2);
}
