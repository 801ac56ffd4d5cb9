//! Spectral clustering (Ng–Jordan–Weiss) on the kernel family's Gram
//! matrices: the embedding's properties, rings that k-means cannot
//! separate, the Lanczos solver above the dense solver's size, caching, and no NaN
//! when σ is so small that points have no neighbours.

use meanscape::algo::{self, Ctx, Fit, Init, Problem, RunConfig};
use meanscape::internals::spectral::{self, DENSE_MAX};
use meanscape::{Error, metrics};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;

fn config(
    id: &str,
    problem: &Problem,
    k: usize,
    seed: u64,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> (Box<dyn algo::Algorithm>, RunConfig) {
    let a = algo::find(id).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let opts: Vec<(String, String)> = options
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let cfg = RunConfig {
        k,
        seed,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), problem, k, &given).unwrap(),
        options: algo::resolve_options(a.as_ref(), &opts).unwrap(),
        centres: None,
    };
    (a, cfg)
}

fn run(id: &str, problem: &Problem, k: usize, seed: u64, given: &[(&str, f64)]) -> Fit {
    let (a, cfg) = config(id, problem, k, seed, given, &[]);
    algo::run(a.as_ref(), problem, &cfg, &Ctx::new())
        .unwrap()
        .best
}

/// Two concentric circles of radii 1 and 4, with a little noise.
fn rings(n_per: usize, seed: u64) -> (Array2<f64>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut x = Array2::zeros((2 * n_per, 2));
    let mut truth = Vec::new();
    for i in 0..2 * n_per {
        let c = i / n_per;
        let r = [1.0, 4.0][c] + 0.05 * Distribution::<f64>::sample(&StandardNormal, &mut rng);
        let t: f64 = rng.random_range(0.0..std::f64::consts::TAU);
        x[[i, 0]] = r * t.cos();
        x[[i, 1]] = r * t.sin();
        truth.push(c);
    }
    (x, truth)
}

#[test]
fn spectral_separates_rings_that_kmeans_cannot() {
    let (x, truth) = rings(150, 1);
    let pr = Problem::new(x);
    for seed in 0..3 {
        let sp = run("spectral", &pr, 2, seed, &[("sigma", 0.5)]);
        assert_eq!(metrics::Scores::compute(&truth, &sp.labels).ari, 1.0);
        assert!(sp.converged);
        assert!(sp.centroids.is_none());
    }
    let km = run("kmeans", &pr, 2, 0, &[]);
    assert!(metrics::Scores::compute(&truth, &km.labels).ari < 0.2);
}

#[test]
fn embedding_rows_are_unit_and_the_top_eigenvalue_is_one() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let x = Array2::from_shape_fn((300, 3), |(i, _)| {
        (i % 3) as f64 * 6.0 + Distribution::<f64>::sample(&StandardNormal, &mut rng)
    });
    let pr = Problem::new(x);
    let (_, cfg) = config("spectral", &pr, 3, 0, &[], &[]);
    let (emb, _) = spectral::embedding(&pr, &cfg, &Ctx::new()).unwrap();
    assert_eq!(emb.u.dim(), (300, 3));
    for row in emb.u.rows() {
        assert!((row.dot(&row) - 1.0).abs() < 1e-12);
    }
    // D^{-1/2} A D^{-1/2} has top eigenvalue 1 (eigenvector D^{1/2}·1),
    // and every eigenvalue lies in [−1, 1].
    assert!(
        (emb.eigenvalues[0] - 1.0).abs() < 1e-10,
        "{:?}",
        emb.eigenvalues
    );
    assert!(emb.eigenvalues.windows(2).all(|w| w[0] >= w[1]));
    assert!(
        emb.eigenvalues
            .iter()
            .all(|&v| v <= 1.0 + 1e-10 && v > -1.0 - 1e-10)
    );
    assert_eq!(emb.isolated, 0);
    // Cached: the next run (other Lloyd settings) reuses it.
    let (_, cfg2) = config("spectral", &pr, 3, 5, &[("tol", 1e-6)], &[]);
    let (again, _) = spectral::embedding(&pr, &cfg2, &Ctx::new()).unwrap();
    assert!(Arc::ptr_eq(&emb, &again));
    let fit = run("spectral", &pr, 3, 0, &[]);
    let truth: Vec<usize> = (0..300).map(|i| i % 3).collect();
    assert!(metrics::Scores::compute(&truth, &fit.labels).ari > 0.95);
    assert_eq!(fit.extra.eigenvalues.as_ref().unwrap().len(), 3);
}

/// Above `DENSE_MAX` points the k leading eigenpairs come from block
/// Lanczos: the same eigenvalues as a dense decomposition of L, the same
/// clustering, and no n×n working matrices in the memory guard.
#[test]
fn lanczos_above_the_dense_size_matches_the_dense_solver() {
    let n = DENSE_MAX + 300;
    let (x, truth) = rings(n / 2, 7);
    let pr = Problem::new(x);
    let (_, cfg) = config("spectral", &pr, 2, 0, &[("sigma", 0.5)], &[]);
    let (emb, gram) = spectral::embedding(&pr, &cfg, &Ctx::new()).unwrap();
    // L = D^{-1/2} (K − diag K) D^{-1/2}, decomposed densely here.
    let mut l = gram.to_array();
    for i in 0..n {
        l[[i, i]] = 0.0;
    }
    let d: Vec<f64> = l.rows().into_iter().map(|r| r.sum()).collect();
    let lm = faer::Mat::<f64>::from_fn(n, n, |i, j| l[[i, j]] / (d[i] * d[j]).sqrt());
    let eig = lm.self_adjoint_eigen(faer::Side::Lower).unwrap();
    for (c, got) in emb.eigenvalues.iter().enumerate() {
        let want = eig.S()[n - 1 - c];
        assert!((got - want).abs() < 1e-8, "eigenvalue {c}: {got} vs {want}");
    }
    let fit = run("spectral", &pr, 2, 0, &[("sigma", 0.5)]);
    assert_eq!(metrics::Scores::compute(&truth, &fit.labels).ari, 1.0);
    // The guard counts the dense solver's two n×n matrices only where it
    // is used.
    let (a, cfg) = config("spectral", &pr, 2, 0, &[], &[("max_memory", "30M")]);
    assert!(algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).is_ok());
    let small = Problem::new(Array2::from_shape_fn((DENSE_MAX, 2), |(i, j)| {
        (i * 7 + j) as f64
    }));
    let (a, cfg) = config("spectral", &small, 3, 0, &[], &[("max_memory", "50M")]);
    let e = algo::run(a.as_ref(), &small, &cfg, &Ctx::new()).unwrap_err();
    assert!(matches!(e, Error::Resource(_)));
    assert!(e.to_string().contains("2 working n×n matrices"), "{e}");
}

#[test]
fn isolated_points_give_a_warning_not_nan() {
    // σ so small that the affinity between distinct points underflows to 0.
    let x = Array2::from_shape_fn((40, 2), |(i, j)| (i * 10 + j) as f64);
    let pr = Problem::new(x);
    let fit = run("spectral", &pr, 3, 0, &[("sigma", 1e-3)]);
    assert!(fit.objective.is_finite());
    assert!(
        fit.warnings
            .iter()
            .any(|w| w.contains("no positive affinity"))
    );
}

#[test]
fn spectral_accepts_every_kernel() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let x = Array2::from_shape_fn((90, 3), |(i, _)| {
        (i % 3) as f64 * 5.0 + 1.0 + Distribution::<f64>::sample(&StandardNormal, &mut rng)
    });
    let pr = Problem::new(x);
    for kernel in [
        "gaussian",
        "laplacian",
        "poly:a=1,b=2",
        "linear",
        "cosine",
        "geodesic:sigma=0.5",
    ] {
        let (a, cfg) = config("spectral", &pr, 3, 0, &[], &[("kernel", kernel)]);
        let fit = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap().best;
        assert!(fit.objective.is_finite(), "{kernel}");
        assert_eq!(fit.labels.len(), 90);
    }
}
