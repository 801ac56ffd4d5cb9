//! The knn-graph affinity of spectral clustering (`--kernel knn[:nn=…]`):
//! the graph against a hand-computed adjacency (symmetrisation, ties and
//! duplicate rows), the embedding against a dense decomposition, rings the
//! Gaussian default cannot separate, disconnected graphs, and refusals.

use meanscape::algo::{self, Ctx, Fit, Init, Problem, RunConfig};
use meanscape::internals::kernel::knn;
use meanscape::internals::spectral;
use meanscape::metrics;
use ndarray::{Array2, array};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

fn config(
    id: &str,
    problem: &Problem,
    k: usize,
    seed: u64,
    options: &[(&str, &str)],
) -> (Box<dyn algo::Algorithm>, RunConfig) {
    let a = algo::find(id).unwrap();
    let opts: Vec<(String, String)> = options
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let cfg = RunConfig {
        k,
        seed,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), problem, k, &[]).unwrap(),
        options: algo::resolve_options(a.as_ref(), &opts).unwrap(),
        centres: None,
    };
    (a, cfg)
}

fn run(id: &str, problem: &Problem, k: usize, options: &[(&str, &str)]) -> meanscape::Result<Fit> {
    let (a, cfg) = config(id, problem, k, 0, options);
    algo::run(a.as_ref(), problem, &cfg, &Ctx::new()).map(|r| r.best)
}

fn adjacency(rows: &[&[usize]]) -> Array2<f64> {
    let n = rows.len();
    let mut w = Array2::zeros((n, n));
    for (i, r) in rows.iter().enumerate() {
        for &j in *r {
            w[[i, j]] = 1.0;
        }
    }
    w
}

/// Rows 0, 1, 1, 3, 10 on a line (rows 1 and 2 duplicates: one place).
/// Ties in distance go to the lower index; a duplicate's neighbours are at
/// other places, plus a link to the first row at its own; W = max(W, Wᵀ).
#[test]
fn graph_equals_the_hand_computed_adjacency() {
    let x = array![[0.0], [1.0], [1.0], [3.0], [10.0]];
    // nn = 1: 0→1 (tie with 2), 1→0, 2→0 and 2→1 (its place's first
    // row), 3→1 (tie with 2), 4→3; symmetrised.
    let g = knn::graph(x.view(), 1, &Ctx::new()).unwrap();
    let want = adjacency(&[&[1, 2], &[0, 2, 3], &[0, 1], &[1, 4], &[3]]);
    assert_eq!(g.to_dense(), want);
    // nn = 2: 0→{1,2}, 1→{0,3}, 2→{0,3,1}, 3→{1,2}, 4→{3,1}; symmetrised.
    let g = knn::graph(x.view(), 2, &Ctx::new()).unwrap();
    let want = adjacency(&[&[1, 2], &[0, 2, 3, 4], &[0, 1, 3], &[1, 2, 4], &[1, 3]]);
    assert_eq!(g.to_dense(), want);
    assert_eq!(g.degrees(), vec![2.0, 4.0, 3.0, 3.0, 2.0]);
    let w = g.to_dense();
    assert_eq!(w, w.t());
    assert!((0..5).all(|i| w[[i, i]] == 0.0));
}

/// Two concentric circles of radii 1 and 2, a little noise.
fn rings(n_per: usize, seed: u64) -> (Array2<f64>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut x = Array2::zeros((2 * n_per, 2));
    let mut truth = Vec::new();
    for i in 0..2 * n_per {
        let c = i / n_per;
        let r = [1.0, 2.0][c] + 0.05 * Distribution::<f64>::sample(&StandardNormal, &mut rng);
        let t: f64 = rng.random_range(0.0..std::f64::consts::TAU);
        x[[i, 0]] = r * t.cos();
        x[[i, 1]] = r * t.sin();
        truth.push(c);
    }
    (x, truth)
}

#[test]
fn knn_separates_rings_the_gaussian_default_does_not() {
    let (x, truth) = rings(200, 3);
    let pr = Problem::new(x);
    let knn = run("spectral", &pr, 2, &[("kernel", "knn")]).unwrap();
    let nmi_knn = metrics::Scores::compute(&truth, &knn.labels).nmi;
    let gauss = run("spectral", &pr, 2, &[]).unwrap();
    let nmi_gauss = metrics::Scores::compute(&truth, &gauss.labels).nmi;
    assert!(nmi_knn > 0.9, "knn NMI {nmi_knn}");
    assert!(nmi_gauss < 0.5, "gaussian NMI {nmi_gauss}");
    let info = knn.extra.kernel.as_ref().unwrap();
    assert_eq!(info.spec, "knn:nn=10");
    assert_eq!(info.gram, "sparse");
}

/// The Lanczos embedding of the graph: the eigenvalues of a dense
/// decomposition of D^-1/2 W D^-1/2, unit rows.
#[test]
fn graph_embedding_matches_a_dense_decomposition() {
    let (x, _) = rings(150, 5);
    let g = knn::graph(x.view(), 6, &Ctx::new()).unwrap();
    let emb = spectral::build_graph_embedding(&g, 4, &Ctx::new()).unwrap();
    let w = g.to_dense();
    let d = g.degrees();
    let n = w.nrows();
    let l = faer::Mat::<f64>::from_fn(n, n, |i, j| w[[i, j]] / (d[i] * d[j]).sqrt());
    let eig = l.self_adjoint_eigen(faer::Side::Lower).unwrap();
    for (c, got) in emb.eigenvalues.iter().enumerate() {
        let want = eig.S()[n - 1 - c];
        assert!((got - want).abs() < 1e-8, "eigenvalue {c}: {got} vs {want}");
    }
    for row in emb.u.rows() {
        assert!((row.dot(&row) - 1.0).abs() < 1e-12);
    }
    assert_eq!(emb.isolated, 0);
}

/// Two far blobs of rows repeated 12 times each (more duplicates than nn):
/// two components, each its own cluster; no NaN with more clusters than
/// components.
#[test]
fn duplicates_and_disconnected_graphs() {
    let mut rows = Vec::new();
    let mut truth = Vec::new();
    for c in 0..2 {
        for p in 0..4 {
            for _ in 0..12 {
                rows.push([c as f64 * 100.0 + p as f64 * 0.1, 0.0]);
                truth.push(c);
            }
        }
    }
    let x = Array2::from_shape_fn((rows.len(), 2), |(i, j)| rows[i][j]);
    let pr = Problem::new(x);
    let fit = run("spectral", &pr, 2, &[("kernel", "knn:nn=10")]).unwrap();
    assert_eq!(metrics::Scores::compute(&truth, &fit.labels).ari, 1.0);
    assert!(fit.warnings.is_empty(), "{:?}", fit.warnings);
    let fit = run("spectral", &pr, 5, &[("kernel", "knn:nn=10")]).unwrap();
    assert!(fit.labels.iter().all(|&l| l < 5));
    assert!(fit.objective.is_finite());
}

#[test]
fn refusals_are_one_line() {
    let (x, _) = rings(20, 1);
    let pr = Problem::new(x);
    for id in ["kpower", "kernel-kmeans"] {
        let e = run(id, &pr, 2, &[("kernel", "knn")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a positive semi-definite kernel"),
            "{id}: {e}"
        );
        assert!(!e.contains('\n'));
    }
    let e = run("spectral", &pr, 2, &[("kernel", "knn:sigma=1")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("knn takes only nn"), "{e}");
    let e = run("spectral", &pr, 2, &[("kernel", "knn:nn=0")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nn = 0"), "{e}");
    // nn must be below the number of rows (40).
    let e = run("spectral", &pr, 2, &[("kernel", "knn:nn=40")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nn = 40 must be in [1, 39]"), "{e}");
    let e = meanscape::internals::kernel::parse_list("gaussian;knn", "--kernels")
        .unwrap_err()
        .to_string();
    assert!(e.contains("only -a spectral takes it"), "{e}");
    // The memory guard counts the graph and the Lanczos basis.
    let e = run(
        "spectral",
        &pr,
        2,
        &[("kernel", "knn"), ("max_memory", "20K")],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("knn graph"), "{e}");
}
