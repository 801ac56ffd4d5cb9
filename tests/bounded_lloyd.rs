//! Lloyd with bounds (the `kmeans` engine) against plain Lloyd, which
//! computes every distance at every iteration: the same labels at every
//! iteration, the same centres to the last bit, the same iteration count
//! and final objective, on data of many shapes, in f64 and in f32.

use meanscape::algo::{Ctx, Event};
use meanscape::internals::linalg::row_sq_norms;
use meanscape::internals::{lloyd_loop, plain_lloyd_loop};
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Blobs around k random centres, `spread` their width relative to the
/// distance between centres (large: overlapping clusters, many moves).
fn blobs(n: usize, p: usize, k: usize, spread: f64, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random::<f64>() * 10.0);
    Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = rng.random::<f64>() - 0.5 + rng.random::<f64>() - 0.5;
        centres[[i % k, j]] + spread * 10.0 * z
    })
}

struct Run {
    per_iteration: Vec<Vec<usize>>,
    fit: meanscape::algo::Fit,
}

fn run(
    bounded: bool,
    x: meanscape_rows::Input,
    norms: &[f64],
    start: &Array2<f64>,
    tol: f64,
) -> Run {
    let (tx, rx) = std::sync::mpsc::channel();
    let ctx = Ctx::new().with_events(tx, true);
    let fit = match (bounded, x) {
        (true, meanscape_rows::Input::F64(x)) => {
            lloyd_loop(x, norms, start.clone(), tol, 300, &ctx)
        }
        (false, meanscape_rows::Input::F64(x)) => {
            plain_lloyd_loop(x, norms, start.clone(), tol, 300, &ctx)
        }
        (true, meanscape_rows::Input::F32(x)) => {
            lloyd_loop(x, norms, start.clone(), tol, 300, &ctx)
        }
        (false, meanscape_rows::Input::F32(x)) => {
            plain_lloyd_loop(x, norms, start.clone(), tol, 300, &ctx)
        }
    }
    .unwrap();
    let per_iteration = rx
        .try_iter()
        .filter_map(|e| match e {
            Event::Iteration(p) => p.labels,
            _ => None,
        })
        .collect();
    Run { per_iteration, fit }
}

mod meanscape_rows {
    use ndarray::ArrayView2;
    #[derive(Clone, Copy)]
    pub enum Input<'a> {
        F64(ArrayView2<'a, f64>),
        F32(ArrayView2<'a, f32>),
    }
}
use meanscape_rows::Input;

fn same(x64: &Array2<f64>, k: usize, tol: f64, seed: u64, what: &str) {
    let x32 = x64.mapv(|v| v as f32);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let picks: Vec<usize> = (0..k).map(|_| rng.random_range(0..x64.nrows())).collect();
    let start = x64.select(Axis(0), &picks);
    let norms64 = row_sq_norms(x64.view());
    let norms32: Vec<f64> = x32
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|&v| f64::from(v) * f64::from(v)).sum())
        .collect();
    for (input, norms, dtype) in [
        (Input::F64(x64.view()), &norms64, "f64"),
        (Input::F32(x32.view()), &norms32, "f32"),
    ] {
        let a = run(true, input, norms, &start, tol);
        let b = run(false, input, norms, &start, tol);
        let at = format!("{what} {dtype}");
        assert_eq!(a.fit.iterations, b.fit.iterations, "{at}: iterations");
        assert_eq!(
            a.per_iteration, b.per_iteration,
            "{at}: labels per iteration"
        );
        assert_eq!(a.fit.labels, b.fit.labels, "{at}: labels");
        assert_eq!(a.fit.converged, b.fit.converged, "{at}");
        let (ca, cb) = (a.fit.centroids.unwrap(), b.fit.centroids.unwrap());
        assert!(
            ca.iter().zip(&cb).all(|(u, v)| u.to_bits() == v.to_bits()),
            "{at}: centres differ"
        );
        assert_eq!(
            a.fit.objective.to_bits(),
            b.fit.objective.to_bits(),
            "{at}: objective"
        );
        // The bounded objectives between the first and the last come from
        // the cluster sums: equal to the rounding of the distances (f32
        // products: relative to Σ‖x‖², which they cancel against).
        let scale = if dtype == "f64" {
            1e-9 * b.fit.objective.abs()
        } else {
            1e-5 * norms.iter().sum::<f64>()
        };
        for (ta, tb) in a.fit.trace.iter().zip(&b.fit.trace) {
            assert!(
                (ta.objective - tb.objective).abs() <= scale,
                "{at}: iteration {} objective {} vs {}",
                ta.iter,
                ta.objective,
                tb.objective
            );
        }
    }
}

#[test]
fn bounded_lloyd_is_plain_lloyd_on_many_shapes() {
    let shapes = [
        // n, p, k, spread
        (50, 2, 3, 0.1),
        (300, 2, 5, 0.8),
        (257, 3, 4, 0.5),
        (1000, 10, 8, 0.3),
        (513, 50, 10, 1.5),
        (2048, 5, 20, 0.6),
        (3000, 30, 7, 2.0),
        (777, 1, 6, 0.4),
        (4500, 64, 12, 0.9),
        (600, 200, 3, 3.0),
    ];
    for (s, &(n, p, k, spread)) in shapes.iter().enumerate() {
        let x = blobs(n, p, k, spread, s as u64);
        for tol in [0.0, 1e-4] {
            same(
                &x,
                k,
                tol,
                100 + s as u64,
                &format!("{n}×{p} k={k} spread={spread} tol={tol}"),
            );
        }
    }
}

#[test]
fn duplicate_rows_ties_and_empty_clusters_are_handled_alike() {
    // Many identical rows (ties in every distance) and more centres than
    // distinct points in a region: clusters empty and are moved.
    let mut x = blobs(400, 4, 3, 0.05, 7);
    for i in 0..200 {
        let r = x.row(i % 3).to_owned();
        x.row_mut(i).assign(&r);
    }
    same(&x, 9, 0.0, 3, "duplicates");
    // Integer data (pixels): exact sums, many exact ties.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let px = Array2::from_shape_fn((1500, 16), |_| f64::from(rng.random_range(0u8..4) * 60));
    same(&px, 10, 0.0, 5, "pixels");
}

/// The RFF start Θ₀ ([`lloyd_until_flat`]) against the power-mean
/// iteration at s = −∞ it replaces (period 1, relative tolerance on the
/// objective): the same iteration count, the same labels at every
/// iteration, the same centres to rounding (f32's, for f32 rows), an
/// empty cluster's centre kept.
fn flat_is_power_at_minus_infinity(
    x64: &Array2<f64>,
    start: &Array2<f64>,
    w: Option<&[f64]>,
    what: &str,
) {
    use meanscape::internals::{Schedule, lloyd_until_flat, power_loop};
    let hard = Schedule {
        s0: f64::NEG_INFINITY,
        eta: 1.0,
        period: 1,
        s_min: f64::NEG_INFINITY,
    };
    let x32 = x64.mapv(|v| v as f32);
    for f32_rows in [false, true] {
        let norms: Vec<f64> = if f32_rows {
            x32.rows()
                .into_iter()
                .map(|r| r.iter().map(|&v| f64::from(v) * f64::from(v)).sum())
                .collect()
        } else {
            row_sq_norms(x64.view())
        };
        let labels_of = |bounded: bool| {
            let (tx, rx) = std::sync::mpsc::channel();
            let ctx = Ctx::new().with_events(tx, true);
            let fit = match (bounded, f32_rows) {
                (true, false) => {
                    lloyd_until_flat(x64.view(), &norms, w, start.clone(), 1e-4, 100, &ctx)
                }
                (true, true) => {
                    lloyd_until_flat(x32.view(), &norms, w, start.clone(), 1e-4, 100, &ctx)
                }
                (false, false) => {
                    power_loop(x64.view(), &norms, w, start.clone(), &hard, 1e-4, 100, &ctx)
                }
                (false, true) => {
                    power_loop(x32.view(), &norms, w, start.clone(), &hard, 1e-4, 100, &ctx)
                }
            }
            .unwrap();
            let per: Vec<Vec<usize>> = rx
                .try_iter()
                .filter_map(|e| match e {
                    Event::Iteration(p) => p.labels,
                    _ => None,
                })
                .collect();
            (fit, per)
        };
        let (flat, flat_labels) = labels_of(true);
        let (power, power_labels) = labels_of(false);
        let what = format!("{what} (f32 rows: {f32_rows})");
        assert!(flat.iterations > 1, "{what}: more than one iteration");
        assert_eq!(flat.iterations, power.iterations, "{what}: iterations");
        assert_eq!(
            flat_labels, power_labels,
            "{what}: labels at every iteration"
        );
        let (a, b) = (flat.centroids.unwrap(), power.centroids.unwrap());
        let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let gap = (&a - &b).iter().fold(0.0f64, |m, v| m.max(v.abs()));
        // The power pass sums f32 rows in f32; Lloyd sums them in f64.
        let tol = if f32_rows { 1e-5 } else { 1e-9 };
        assert!(gap <= tol * scale, "{what}: centres differ by {gap}");
        let rel = (flat.objective - power.objective).abs() / power.objective.abs();
        assert!(
            rel <= tol,
            "{what}: objectives {} vs {}",
            flat.objective,
            power.objective
        );
    }
}

#[test]
fn the_rff_start_is_the_power_iteration_at_minus_infinity() {
    for (s, &(n, p, k, spread)) in [(300, 2, 5, 0.8), (1000, 10, 8, 0.5), (2000, 40, 10, 1.2)]
        .iter()
        .enumerate()
    {
        let x = blobs(n, p, k, spread, 40 + s as u64);
        let start = x.select(Axis(0), &(0..k).map(|i| i * 7).collect::<Vec<_>>());
        flat_is_power_at_minus_infinity(&x, &start, None, &format!("{n}×{p} k={k}"));
        let mut rng = ChaCha8Rng::seed_from_u64(s as u64);
        let w: Vec<f64> = (0..n).map(|_| rng.random_range(0.5..2.0)).collect();
        flat_is_power_at_minus_infinity(&x, &start, Some(&w), &format!("{n}×{p} k={k} weighted"));
    }
    // A centre far from every row loses its points at once and stays put.
    let x = blobs(500, 3, 4, 0.6, 9);
    let mut start = x.select(Axis(0), &[0, 1, 2, 3, 4]);
    start.row_mut(4).fill(1e4);
    flat_is_power_at_minus_infinity(&x, &start, None, "a centre left empty");
}
