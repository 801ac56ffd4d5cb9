//! The feature-weighted family (wkmeans, lw, sparse-kmeans) on sparse
//! (CSR) rows is the family on the same rows given dense: the same labels
//! and feature weights, objectives and centres to rounding, with sample
//! weights too; and lw and sparse-kmeans start from given centres.

use meanscape::algo::{self, Csr, Ctx, Fit, Init, Problem, Request};
use ndarray::Array2;

/// n × p count-like data: three groups of rows, each with its own block
/// of informative columns, plus sparse noise over every column.
fn counts(n: usize, p: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, p), |(i, j)| {
        let h = (i * 7919 + j * 104_729 + i * j) % 997;
        let group = i % 3;
        if j < 12 && j / 4 == group && h % 3 != 0 {
            2.0 + (h % 5) as f64
        } else if h % 9 == 0 {
            1.0 + (h % 3) as f64 / 2.0
        } else {
            0.0
        }
    })
}

fn run(id: &str, problem: &Problem, given: &[(String, f64)], centres: Option<Array2<f64>>) -> Fit {
    run_seed(id, problem, given, centres, 5)
}

fn run_seed(
    id: &str,
    problem: &Problem,
    given: &[(String, f64)],
    centres: Option<Array2<f64>>,
    seed: u64,
) -> Fit {
    let a = algo::find(id).unwrap();
    let req = Request {
        k: 3,
        seed,
        restarts: 1,
        init: Init::KmeansPP,
        given,
        options: &[],
        centres: centres.map(std::sync::Arc::new),
    };
    let cfg = algo::configure(a.as_ref(), problem, req, "X").unwrap();
    algo::run(a.as_ref(), problem, &cfg, &Ctx::new())
        .unwrap()
        .best
}

fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (u, v) in a.iter().zip(b) {
        assert!(
            (u - v).abs() <= 1e-9 * v.abs().max(1.0),
            "{what}: {u} vs {v}"
        );
    }
}

fn same_fit(s: &Fit, d: &Fit, what: &str) {
    assert_eq!(s.labels, d.labels, "{what}: labels");
    assert_eq!(s.iterations, d.iterations, "{what}: iterations");
    close(
        s.feature_weights.as_ref().unwrap(),
        d.feature_weights.as_ref().unwrap(),
        &format!("{what}: feature weights"),
    );
    close(
        &[s.objective],
        &[d.objective],
        &format!("{what}: objective"),
    );
    let (cs, cd) = (s.centroids.as_ref().unwrap(), d.centroids.as_ref().unwrap());
    close(
        cs.as_slice().unwrap(),
        cd.as_slice().unwrap(),
        &format!("{what}: centres"),
    );
}

fn lw_params(zscore: f64) -> Vec<(String, f64)> {
    vec![
        ("lambda".into(), 0.02),
        ("nstart".into(), 5.0),
        ("zscore".into(), zscore),
    ]
}

#[test]
fn each_weighted_algorithm_on_csr_is_the_dense_run() {
    let d = counts(240, 40);
    let dense = Problem::new(d.clone());
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    let sk = vec![("nstart".to_string(), 5.0), ("wbound".into(), 2.0)];
    for (id, given) in [
        ("wkmeans", vec![]),
        ("lw", lw_params(1.0)),
        ("lw", lw_params(0.0)),
        ("sparse-kmeans", sk),
    ] {
        let (s, t) = (
            run(id, &sparse, &given, None),
            run(id, &dense, &given, None),
        );
        same_fit(&s, &t, id);
        if id == "sparse-kmeans" {
            // Its weights follow the between-cluster sums of squares: the
            // informative columns.
            let w = s.feature_weights.unwrap();
            let top = w[..12].iter().sum::<f64>() / 12.0;
            let rest = w[12..].iter().sum::<f64>() / 28.0;
            assert!(top > 2.0 * rest, "{id}: informative {top} vs noise {rest}");
        }
    }
}

#[test]
fn sample_weights_on_csr_are_the_dense_weighted_run() {
    let d = counts(150, 30);
    let w: Vec<f64> = (0..150).map(|i| [1.0, 2.0, 0.0, 3.0][i % 4]).collect();
    let mut dense = Problem::new(d.clone());
    dense.set_sample_weights(w.clone()).unwrap();
    let mut sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    sparse.set_sample_weights(w).unwrap();
    for (id, given) in [
        ("wkmeans", vec![]),
        ("lw", lw_params(1.0)),
        (
            "sparse-kmeans",
            vec![("nstart".into(), 3.0), ("wbound".into(), 2.0)],
        ),
    ] {
        let (s, t) = (
            run(id, &sparse, &given, None),
            run(id, &dense, &given, None),
        );
        same_fit(&s, &t, &format!("weighted {id}"));
    }
}

/// Centres given for lw and sparse-kmeans replace the initial k-means
/// runs: from the centres of the groups, the run depends on neither the
/// seed nor nstart, and finds the groups.
#[test]
fn lw_and_sparse_kmeans_start_from_given_centres() {
    let d = counts(180, 24);
    let truth: Vec<usize> = (0..180).map(|i| i % 3).collect();
    let mut c = Array2::<f64>::zeros((3, 24));
    for (i, &g) in truth.iter().enumerate() {
        let mut row = c.row_mut(g);
        row += &d.row(i);
    }
    c /= 60.0;
    for problem in [
        Problem::new(d.clone()),
        Problem::from_csr(Csr::from_dense(d.view()).unwrap()),
    ] {
        for (id, mut given) in [
            ("lw", lw_params(1.0)),
            // A bound near √12: about the twelve informative columns.
            ("sparse-kmeans", vec![("wbound".into(), 3.4)]),
        ] {
            let a = run(id, &problem, &given, Some(c.clone()));
            given.push(("nstart".into(), 1.0));
            let b = run_seed(id, &problem, &given, Some(c.clone()), 9);
            assert_eq!(a.labels, b.labels, "{id}");
            let ari = meanscape::metrics::ari(&a.labels, &truth);
            assert!(ari > 0.6, "{id}: ARI {ari}");
        }
    }
    // Centres of the wrong shape are refused, as for every algorithm.
    let a = algo::find("lw").unwrap();
    let req = Request {
        k: 3,
        seed: 5,
        restarts: 1,
        init: Init::KmeansPP,
        given: &[],
        options: &[],
        centres: Some(std::sync::Arc::new(Array2::zeros((3, 5)))),
    };
    let e = algo::configure(a.as_ref(), &Problem::new(d), req, "X")
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be k × features = 3 × 24"), "{e}");
}

#[test]
fn gap_tuning_refuses_sparse_rows_with_the_reason() {
    let d = counts(60, 12);
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    let a = algo::find("sparse-kmeans").unwrap();
    let opts = [("tune".to_string(), "gap".to_string())];
    let req = Request {
        k: 3,
        seed: 1,
        restarts: 1,
        init: Init::KmeansPP,
        given: &[],
        options: &opts,
        centres: None,
    };
    let e = match algo::configure(a.as_ref(), &sparse, req, "X") {
        Err(e) => e.to_string(),
        Ok(cfg) => algo::run(a.as_ref(), &sparse, &cfg, &Ctx::new())
            .expect_err("refused")
            .to_string(),
    };
    assert!(e.contains("does not take sparse rows"), "{e}");
}
