//! k-medians: outliers move a mean but not a median, the fit equals a
//! brute-force search on a tiny case, and its model assigns by L1.

use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use meanscape::model::Model;
use ndarray::{Array2, array};
use std::sync::Arc;

fn config(id: &str, problem: &Problem, k: usize, centres: Option<Array2<f64>>) -> RunConfig {
    let a = algo::find(id).unwrap();
    let mut cfg = RunConfig::new(a.as_ref(), problem, k, &[], &[]).unwrap();
    cfg.centres = centres.map(Arc::new);
    cfg
}

fn run(id: &str, problem: &Problem, cfg: &RunConfig) -> algo::Fit {
    let a = algo::find(id).unwrap();
    a.run(problem, cfg, &Ctx::new()).unwrap().best
}

/// Two tight groups around (0, 0) and (10, 0), and three far points
/// nearer the first in L1 and L2 alike.
fn with_outliers() -> Array2<f64> {
    let mut rows = Vec::new();
    for i in 0..30 {
        let (dx, dy) = ((i % 5) as f64 * 0.1 - 0.2, (i / 5) as f64 * 0.1 - 0.25);
        rows.push([dx, dy]);
        rows.push([10.0 + dx, dy]);
    }
    for y in [60.0, 70.0, 80.0] {
        rows.push([0.0, y]);
    }
    Array2::from_shape_vec((rows.len(), 2), rows.concat()).unwrap()
}

#[test]
fn outliers_drag_the_kmeans_centre_but_not_the_median() {
    let problem = Problem::new(with_outliers());
    let start = array![[0.0, 0.0], [10.0, 0.0]];
    let cfg = config("kmedians", &problem, 2, Some(start.clone()));
    let med = run("kmedians", &problem, &cfg);
    let means = run(
        "kmeans",
        &problem,
        &config("kmeans", &problem, 2, Some(start)),
    );
    let (m, c) = (med.centroids.unwrap(), means.centroids.unwrap());
    // The outliers join the first group in both fits.
    assert_eq!(med.labels, means.labels);
    // The first group's centre: its mean moves up by 210/33 ≈ 6.4; its
    // median stays inside the group.
    assert!(c[[0, 1]] > 6.0, "k-means centre {c}");
    assert!(
        m[[0, 1]].abs() < 0.3 && m[[0, 0]].abs() < 0.3,
        "k-medians centre {m}"
    );
    assert!(med.converged);
}

/// Σ over clusters of the L1 distances to the cluster's coordinate-wise
/// median: the k-medians cost of a partition.
fn cost(x: &Array2<f64>, labels: &[usize], k: usize) -> f64 {
    let mut total = 0.0;
    for j in 0..k {
        let rows: Vec<usize> = (0..x.nrows()).filter(|&i| labels[i] == j).collect();
        for f in 0..x.ncols() {
            let mut v: Vec<f64> = rows.iter().map(|&i| x[[i, f]]).collect();
            v.sort_by(f64::total_cmp);
            let med = v[v.len() / 2];
            total += v.iter().map(|a| (a - med).abs()).sum::<f64>();
        }
    }
    total
}

#[test]
fn equals_a_brute_force_search_on_a_tiny_case() {
    let x = array![
        [0.0, 0.0],
        [1.0, 0.5],
        [0.4, 2.0],
        [5.0, 5.0],
        [6.0, 4.5],
        [5.5, 7.0],
        [9.0, 0.0],
        [2.0, 9.0]
    ];
    let (n, k) = (x.nrows(), 2);
    // Every partition into two non-empty clusters (row 0 in cluster 0).
    let best = (0..1u32 << (n - 1))
        .map(|bits| {
            let labels: Vec<usize> = (0..n)
                .map(|i| {
                    if i > 0 && bits >> (i - 1) & 1 == 1 {
                        1
                    } else {
                        0
                    }
                })
                .collect();
            labels
        })
        .filter(|l| l.contains(&1))
        .map(|l| cost(&x, &l, k))
        .fold(f64::INFINITY, f64::min);
    let problem = Problem::new(x.clone());
    let mut cfg = config("kmedians", &problem, k, None);
    cfg.restarts = 20;
    cfg.init = Init::Random;
    let fit = run("kmedians", &problem, &cfg);
    assert!(
        (fit.objective - best).abs() < 1e-9,
        "{} vs {best}",
        fit.objective
    );
    assert!((cost(&x, &fit.labels, k) - best).abs() < 1e-9);
}

#[test]
fn the_model_assigns_by_l1_and_keeps_its_kind() {
    // Five rows on (0, 0) and five on (2, 1): the medians are exact.
    let mut rows = vec![[0.0, 0.0]; 5];
    rows.extend(vec![[2.0, 1.0]; 5]);
    let x = Array2::from_shape_vec((10, 2), rows.concat()).unwrap();
    let problem = Problem::new(x);
    let a = algo::find("kmedians").unwrap();
    let cfg = config(
        "kmedians",
        &problem,
        2,
        Some(array![[0.0, 0.0], [2.0, 1.0]]),
    );
    let result = a.run(&problem, &cfg, &Ctx::new()).unwrap();
    let model = Model::from_run(a.as_ref(), &problem, &cfg, &result).unwrap();
    assert_eq!(model.kind(), "medians");
    // (1.45, −0.3) is 1.75 from (0, 0) and 1.85 from (2, 1) in L1, but
    // nearer (2, 1) in L2 (1.99 against 2.19 squared).
    let new = array![[1.45, -0.3], [1.9, 1.0]];
    assert_eq!(model.predict(new.view()).unwrap(), vec![0, 1]);
    let d = model.distances(new.view()).unwrap();
    assert!((d[[0, 0]].sqrt() - 1.75).abs() < 1e-12, "{d}");
    // The file says medians, and reads back as it was.
    let json = model.to_json();
    assert!(json.contains("\"kind\": \"medians\""), "{json}");
    let back = Model::from_json(&json).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.predict(new.view()).unwrap(), vec![0, 1]);
}
