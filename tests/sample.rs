//! Subsample, then refine (`-P sample=N`, `solver::sample`): the run on N
//! rows drawn with the run's seed, then Lloyd on every row from its
//! centres.

use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use meanscape::internals::lloyd_loop;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

fn blobs(seed: u64, n: usize, p: usize, k: usize, sep: f64) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-sep..sep));
    Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = StandardNormal.sample(&mut rng);
        centres[[i % k, j]] + z
    })
}

fn run(algo: &str, problem: &Problem, k: usize, seed: u64, given: &[(&str, f64)]) -> algo::Fit {
    let a = algo::find(algo).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let cfg = RunConfig {
        k,
        seed,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), problem, k, &given).unwrap(),
        options: Default::default(),
        centres: None,
    };
    a.run(problem, &cfg, &Ctx::new()).unwrap().best
}

/// A sample as large as the data is no sample: the run is the full one,
/// bit for bit, and says nothing about a sample.
#[test]
fn a_sample_of_every_row_is_the_full_run() {
    let pr = Problem::new(blobs(1, 600, 5, 4, 2.0));
    for algo in ["kmeans", "power"] {
        let full = run(algo, &pr, 4, 7, &[]);
        for size in [600.0, 5000.0] {
            let same = run(algo, &pr, 4, 7, &[("sample", size)]);
            assert_eq!(same.labels, full.labels, "{algo}");
            assert_eq!(same.trace, full.trace, "{algo}");
            assert!(same.extra.sample.is_none());
        }
    }
}

/// On a sample: the result covers every row, ends at a Lloyd fixed point of
/// the whole data (its objective is the k-means cost there), the trace
/// numbers both phases on, the JSON's `sample` counts them, and the same
/// seed gives the same run while another seed draws another sample.
#[test]
fn a_sampled_run_is_refined_on_every_row() {
    let x = blobs(2, 4000, 6, 5, 2.5);
    let pr = Problem::new(x.clone());
    for algo in ["kmeans", "power"] {
        let fit = run(algo, &pr, 5, 3, &[("sample", 500.0)]);
        assert_eq!(fit.labels.len(), 4000);
        let info = fit.extra.sample.clone().expect("the sample is reported");
        assert_eq!((info.rows, info.of), (500, 4000));
        assert_eq!(info.iterations + info.refine_iterations, fit.iterations);
        let iters: Vec<usize> = fit.trace.iter().map(|t| t.iter).collect();
        assert_eq!(iters, (1..=fit.iterations).collect::<Vec<_>>(), "{algo}");
        if algo == "power" {
            // The annealing ran on the sample, then Lloyd (no s) on all.
            assert!(fit.trace[..info.iterations].iter().all(|t| t.s.is_some()));
            assert!(fit.trace[info.iterations..].iter().all(|t| t.s.is_none()));
        }
        let centres = fit.centroids.clone().unwrap();
        let again = lloyd_loop(x.view(), &pr.x_norms, centres, 0.0, 1, &Ctx::new()).unwrap();
        assert_eq!(again.labels, fit.labels, "{algo}: not a Lloyd fixed point");
        assert!((again.objective - fit.objective).abs() <= 1e-9 * fit.objective);
        let same = run(algo, &pr, 5, 3, &[("sample", 500.0)]);
        assert_eq!(same.trace, fit.trace, "{algo}: same seed, same run");
        let other = run(algo, &pr, 5, 4, &[("sample", 500.0)]);
        assert_ne!(
            other.extra.sample.unwrap().objective,
            info.objective,
            "{algo}: another seed draws another sample"
        );
    }
}

/// On separated blobs a 10 % sample finds the partition the full run finds.
#[test]
fn a_sample_finds_the_full_partition_on_separated_blobs() {
    let pr = Problem::new(blobs(3, 3000, 4, 4, 6.0));
    for algo in ["kmeans", "power"] {
        let full = run(algo, &pr, 4, 1, &[]);
        let sampled = run(algo, &pr, 4, 1, &[("sample", 300.0)]);
        let nmi = meanscape::metrics::Scores::compute(&full.labels, &sampled.labels).nmi;
        assert!(nmi > 0.999, "{algo}: NMI {nmi}");
        if algo == "kmeans" {
            assert!((sampled.objective - full.objective).abs() <= 1e-6 * full.objective);
        }
    }
}

/// Restarts on a sample are not batched over the whole rows: restart r is
/// the run of seed + r alone, sample and all.
#[test]
fn sampled_restarts_are_each_the_run_of_their_seed() {
    let pr = Problem::new(blobs(4, 2000, 4, 3, 2.0));
    let a = algo::find("power").unwrap();
    let given = vec![("sample".to_string(), 300.0)];
    let mut cfg = RunConfig {
        k: 3,
        seed: 5,
        restarts: 3,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), &pr, 3, &given).unwrap(),
        options: Default::default(),
        centres: None,
    };
    let all = a.run(&pr, &cfg, &Ctx::new()).unwrap();
    for r in 0..3 {
        cfg.restarts = 1;
        cfg.seed = 5 + r as u64;
        let one = a.run(&pr, &cfg, &Ctx::new()).unwrap().best;
        assert_eq!(all.restart_objectives[r], one.objective);
        assert!(one.extra.sample.is_some());
    }
    assert!(all.best.extra.sample.is_some());
}

/// power's automatic sample: 256·k rows once they are at most 1/20 of the
/// data (so the papers' data, n ≤ 11000, is never sampled), every row on
/// smaller data, with sample weights (which a sample does not take) and
/// when the user says `sample = 0`.
#[test]
fn power_samples_large_data_by_default_and_no_other() {
    let a = algo::find("power").unwrap();
    let sample_of = |pr: &Problem, k: usize, given: &[(String, f64)]| {
        algo::resolve_params(a.as_ref(), pr, k, given)
            .unwrap()
            .real("sample")
            .unwrap()
    };
    let k = 2;
    let edge = 20 * 256 * k;
    let at = Problem::new(blobs(1, edge, 2, k, 3.0));
    assert_eq!(sample_of(&at, k, &[]), 0.0, "n = 20 × 256·k is every row");
    let large = Problem::new(blobs(1, edge + 1, 2, k, 3.0));
    assert_eq!(sample_of(&large, k, &[]), (256 * k) as f64);
    assert_eq!(sample_of(&large, 3, &[]), 0.0, "k = 3 needs 15361 rows");
    let every = vec![("sample".to_string(), 0.0)];
    assert_eq!(sample_of(&large, k, &every), 0.0);
    let mut weighted = Problem::new(blobs(1, edge + 1, 2, k, 3.0));
    weighted.set_sample_weights(vec![2.0; edge + 1]).unwrap();
    assert_eq!(sample_of(&weighted, k, &[]), 0.0);
    // kmeans keeps every row unless asked.
    let km = algo::find("kmeans").unwrap();
    let p = algo::resolve_params(km.as_ref(), &large, k, &[]).unwrap();
    assert_eq!(p.real("sample").unwrap(), 0.0);
    // The run at the defaults is the sampled run, reported as such.
    let fit = run("power", &large, k, 0, &[]);
    let info = fit.extra.sample.expect("sampled by default");
    assert_eq!((info.rows, info.of), (256 * k, edge + 1));
    assert_eq!(fit.labels.len(), edge + 1);
}

/// Given centres start the sampled run instead of the seeding.
#[test]
fn given_centres_start_a_sampled_run() {
    let x = blobs(2, 3000, 3, 3, 4.0);
    let centres = x.slice(ndarray::s![0..3, ..]).to_owned();
    let pr = Problem::new(x);
    let a = algo::find("power").unwrap();
    let given = vec![("sample".to_string(), 400.0)];
    let mut cfg = RunConfig {
        k: 3,
        seed: 1,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), &pr, 3, &given).unwrap(),
        options: Default::default(),
        centres: Some(std::sync::Arc::new(centres.clone())),
    };
    let from_given = a.run(&pr, &cfg, &Ctx::new()).unwrap().best;
    assert!(from_given.extra.sample.is_some());
    // Another seed draws another sample but starts from the same centres;
    // the seeded run starts elsewhere.
    cfg.centres = None;
    let seeded = a.run(&pr, &cfg, &Ctx::new()).unwrap().best;
    let first = |f: &algo::Fit| f.trace.first().map(|t| t.objective).unwrap();
    assert_ne!(first(&from_given), first(&seeded));
}
