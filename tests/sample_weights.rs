//! Sample weights and given centres in the engine (scikit-learn's
//! `sample_weight` and `init=array`): a row of integer weight w is w
//! copies of it, a row of weight 0 is no row at all, unit weights change
//! nothing, and the algorithms without weights or centres say so.

use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;

fn blobs(seed: u64, n: usize, p: usize, k: usize, sep: f64) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-sep..sep));
    Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = StandardNormal.sample(&mut rng);
        centres[[i % k, j]] + z
    })
}

fn config(
    a: &dyn algo::Algorithm,
    problem: &Problem,
    k: usize,
    seed: u64,
    given: &[(&str, f64)],
    centres: Option<Array2<f64>>,
) -> RunConfig {
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    RunConfig {
        k,
        seed,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a, problem, k, &given).unwrap(),
        options: Default::default(),
        centres: centres.map(Arc::new),
    }
}

fn run(
    id: &str,
    problem: &Problem,
    k: usize,
    seed: u64,
    given: &[(&str, f64)],
    centres: Option<Array2<f64>>,
) -> algo::Fit {
    let a = algo::find(id).unwrap();
    let cfg = config(a.as_ref(), problem, k, seed, given, centres);
    a.run(problem, &cfg, &Ctx::new()).unwrap().best
}

fn weighted(x: Array2<f64>, w: &[f64]) -> Problem {
    let mut p = Problem::new(x);
    p.set_sample_weights(w.to_vec()).unwrap();
    p
}

/// Every row i repeated w[i] times, and where each copy came from.
fn repeated(x: &Array2<f64>, w: &[f64]) -> (Array2<f64>, Vec<usize>) {
    let from: Vec<usize> = (0..x.nrows())
        .flat_map(|i| std::iter::repeat_n(i, w[i] as usize))
        .collect();
    (x.select(Axis(0), &from), from)
}

fn close(a: &Array2<f64>, b: &Array2<f64>, rel: f64) -> bool {
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    a.iter().zip(b).all(|(u, v)| (u - v).abs() <= rel * scale)
}

const ALGOS: [(&str, &[(&str, f64)]); 9] = [
    // tol = 0: Lloyd's tolerance is relative to the (unweighted) feature
    // variance, which repeating rows changes; 0 stops on unchanged labels.
    ("kmeans", &[("tol", 0.0)]),
    ("power", &[]),
    ("khm", &[]),
    // The weighted dispersions and means of the feature-weighted loop.
    ("wkmeans", &[("beta", 4.0)]),
    // Weighted z-scores, α, dispersions and the objective's n = Σ w.
    ("lw", &[("lambda", 0.05)]),
    // Weighted BCSS; a bound that binds, so the soft threshold acts.
    ("sparse-kmeans", &[("wbound", 1.5)]),
    // Weighted view scales, Θ₀, s₀ rule, η, scatters and centroids.
    ("rff-mkpower", &[]),
    ("ip-rff-mkpower", &[]),
    ("ip-rff-mkpower", &[("alpha_typ", 1.0)]),
];

/// Labels of the nearest of `start` (the initial partition of the
/// algorithms that start from one: lw, sparse-kmeans).
fn nearest(x: &Array2<f64>, start: &Array2<f64>) -> Vec<usize> {
    x.rows()
        .into_iter()
        .map(|r| {
            let d = |j: usize| (&r - &start.row(j)).mapv(|v| v * v).sum();
            (0..start.nrows())
                .min_by(|&a, &b| d(a).total_cmp(&d(b)))
                .unwrap()
        })
        .collect()
}

/// A fit of `id` from the initial state `start`: given centres where the
/// algorithm takes them; the partition of the nearest start centre for
/// lw and sparse-kmeans (their initial state); the start points' features
/// as the centroids for the RFF multi-view pair (fixed σ, D and seed, so
/// the repeated rows' features are the rows' features repeated).
fn fit_from(
    id: &str,
    problem: &Problem,
    k: usize,
    given: &[(&str, f64)],
    start: &Array2<f64>,
) -> algo::Fit {
    use meanscape::internals::feature_weights::total_ss;
    use meanscape::internals::{LwSettings, LwStart, SparseSettings, lw_from, sparse_loop};
    let a = algo::find(id).unwrap();
    let cfg = config(a.as_ref(), problem, k, 0, given, None);
    let x = problem.x.f64().to_owned();
    let sw = problem.sample_weights();
    let ctx = Ctx::new();
    match id {
        "lw" => {
            let s = LwSettings::from_params(&cfg.params).unwrap();
            let labels = nearest(&x, start);
            let st = LwStart::from_labels(problem, labels.clone(), k, &s).unwrap();
            let lambda = cfg.params.real("lambda").unwrap();
            lw_from(problem, &st, labels, None, k, lambda, &s, &ctx, true)
                .unwrap()
                .0
        }
        "sparse-kmeans" => {
            let s = SparseSettings {
                wbound: cfg.params.real("wbound").unwrap(),
                tol: cfg.params.real("tol").unwrap(),
                max_iter: cfg.params.count("max_iter").unwrap(),
            };
            let tss = total_ss(x.view(), sw);
            let f = sparse_loop(x.view(), sw, &tss, nearest(&x, start), k, &s, &ctx, true).unwrap();
            algo::Fit {
                labels: f.labels,
                centroids: Some(f.centres),
                objective: -f.criterion,
                iterations: f.iterations,
                ..Default::default()
            }
        }
        "rff-mkpower" | "ip-rff-mkpower" => multiview_from(id, problem, &cfg, start),
        _ => run(id, problem, k, 0, given, Some(start.clone())),
    }
}

/// The multi-view loop as `mv_fit` runs it after seeding: view scales,
/// the k-means start Θ₀, s₀ from the start's softness, then the loop.
fn multiview_from(id: &str, problem: &Problem, cfg: &RunConfig, start: &Array2<f64>) -> algo::Fit {
    use meanscape::internals::kernel::rff::{FeatureMap, MapSpec};
    use meanscape::internals::view_scales;
    use meanscape::internals::{MvSettings, Possibilistic, Schedule, mv_kmeans_start, mv_loop};
    let x = problem.x.f64().to_owned();
    let p = x.ncols();
    let sw = problem.sample_weights();
    let ctx = Ctx::new();
    let build = |rows: &Array2<f64>, l: usize, sigma: f64| {
        let spec = MapSpec {
            cols: 0..p,
            sigma,
            dim: 48,
            seed: 5,
            stream: l as u64,
            f32: false,
        };
        FeatureMap::build(rows.view(), &spec, &ctx, "t").unwrap()
    };
    let sigmas = [1.5, 4.0];
    let fs: Vec<FeatureMap> = (0..2).map(|l| build(&x, l, sigmas[l])).collect();
    let views: Vec<&FeatureMap> = fs.iter().collect();
    let centres: Vec<Array2<f64>> = (0..2)
        .map(|l| build(start, l, sigmas[l]).phi().clone())
        .collect();
    let scales = view_scales(&views, sw, true);
    let (centres, _) = mv_kmeans_start(&views, &scales, sw, centres, 100, &ctx).unwrap();
    let v = &cfg.params;
    let possibilistic = (id == "ip-rff-mkpower").then(|| Possibilistic {
        m: v.real("m").unwrap(),
        eta_scale: v.real("eta_scale").unwrap(),
        alpha_on_typicality: v.flag("alpha_typ").unwrap(),
    });
    let set = MvSettings {
        sched: Schedule::read(v).unwrap(),
        lambda_rel: v.real("lambda").unwrap(),
        possibilistic,
        tol: v.real("tol").unwrap(),
        max_iter: 200,
        scales,
        s0_softness: Some(v.real("s0_soft").unwrap()),
    };
    mv_loop(&views, sw, centres, &set, &ctx).unwrap()
}

/// The centres of two fits agree (both absent for the fits whose centres
/// live in a feature space).
fn same_centres(id: &str, a: &algo::Fit, b: &algo::Fit) {
    match (&a.centroids, &b.centroids) {
        (Some(ca), Some(cb)) => assert!(close(ca, cb, 1e-9), "{id}: centres\n{ca}\n{cb}"),
        (None, None) => {
            let (ka, kb) = (a.kernel_weights.as_ref(), b.kernel_weights.as_ref());
            let (ka, kb) = (ka.unwrap(), kb.unwrap());
            for (p, q) in ka.iter().zip(kb) {
                assert!((p - q).abs() <= 1e-9, "{id}: view weights {ka:?} vs {kb:?}");
            }
        }
        _ => panic!("{id}: one fit has centres, the other not"),
    }
}

/// From the same initial centres, integer weights give what repeating the
/// rows gives: the same centres, objective, iteration count, and every
/// copy of a row labelled as the row.
#[test]
fn integer_weights_are_repeated_rows() {
    for (data_seed, n, p, k) in [(1, 90, 3, 3), (2, 200, 5, 4), (3, 61, 8, 2)] {
        let x = blobs(data_seed, n, p, k, 2.0);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(data_seed + 10);
        let w: Vec<f64> = (0..n).map(|_| rng.random_range(1..=4) as f64).collect();
        let start = x.select(Axis(0), &(0..k).map(|j| j * 7 % n).collect::<Vec<_>>());
        let (xr, from) = repeated(&x, &w);
        for (id, given) in ALGOS {
            let a = fit_from(id, &weighted(x.clone(), &w), k, given, &start);
            let b = fit_from(id, &Problem::new(xr.clone()), k, given, &start);
            same_centres(id, &a, &b);
            let rel = (a.objective - b.objective).abs() / b.objective;
            assert!(
                rel < 1e-9,
                "{id} n={n}: objective {} vs {}",
                a.objective,
                b.objective
            );
            assert_eq!(a.iterations, b.iterations, "{id} n={n}");
            let expanded: Vec<usize> = from.iter().map(|&i| a.labels[i]).collect();
            assert_eq!(expanded, b.labels, "{id} n={n}");
        }
    }
}

/// Rows of weight 0 are rows removed: the same centres and objective as
/// the data without them (and they still get a label).
#[test]
fn zero_weights_are_removed_rows() {
    let (n, k) = (150, 3);
    let x = blobs(4, n, 4, k, 3.0);
    let keep: Vec<usize> = (0..n).filter(|i| i % 5 != 2).collect();
    let w: Vec<f64> = (0..n).map(|i| if i % 5 == 2 { 0.0 } else { 1.0 }).collect();
    let start = x.select(Axis(0), &[0, 1, 2]);
    for (id, given) in ALGOS {
        let a = fit_from(id, &weighted(x.clone(), &w), k, given, &start);
        let b = fit_from(
            id,
            &Problem::new(x.select(Axis(0), &keep)),
            k,
            given,
            &start,
        );
        same_centres(id, &a, &b);
        let rel = (a.objective - b.objective).abs() / b.objective;
        assert!(
            rel < 1e-9,
            "{id}: objective {} vs {}",
            a.objective,
            b.objective
        );
        assert_eq!(a.labels.len(), n);
        let kept: Vec<usize> = keep.iter().map(|&i| a.labels[i]).collect();
        assert_eq!(kept, b.labels, "{id}");
    }
}

/// Weights of 1 are no weights, to the bit, seeding included.
#[test]
fn unit_weights_change_nothing() {
    let x = blobs(5, 300, 6, 4, 2.0);
    for (id, given) in [("kmeans", &[][..]), ("power", &[]), ("khm", &[])] {
        for seed in [0, 9] {
            let a = run(id, &weighted(x.clone(), &[1.0; 300]), 4, seed, given, None);
            let b = run(id, &Problem::new(x.clone()), 4, seed, given, None);
            assert_eq!(a.labels, b.labels, "{id}");
            assert_eq!(a.objective.to_bits(), b.objective.to_bits(), "{id}");
            assert_eq!(a.trace, b.trace, "{id}");
            assert_eq!(a.centroids, b.centroids, "{id}");
        }
    }
}

/// Weighted seeding never starts from a row of weight 0, and draws the
/// heavy rows: with all the weight on k far-apart rows, those are the
/// seeds, whatever the seed.
#[test]
fn seeding_follows_the_weights() {
    let n = 120;
    let x = blobs(6, n, 2, 3, 5.0);
    for init in [Init::KmeansPP, Init::Random] {
        for seed in 0..10u64 {
            let mut w = vec![0.0; n];
            for i in [3, 4, 5] {
                w[i] = 1.0;
            }
            let mut pr = Problem::new(x.clone());
            pr.set_sample_weights(w).unwrap();
            let a = algo::find("kmeans").unwrap();
            let mut cfg = config(a.as_ref(), &pr, 3, seed, &[("max_iter", 1.0)], None);
            cfg.init = init;
            let fit = a.run(&pr, &cfg, &Ctx::new()).unwrap().best;
            // One Lloyd step from seeds at rows 3, 4, 5 (each the only
            // weight of its cluster) leaves the centres on those rows.
            let mut got: Vec<Vec<f64>> = fit
                .centroids
                .unwrap()
                .rows()
                .into_iter()
                .map(|r| r.to_vec())
                .collect();
            let mut want: Vec<Vec<f64>> = [3, 4, 5].iter().map(|&i| x.row(i).to_vec()).collect();
            got.sort_by(|a, b| a.partial_cmp(b).unwrap());
            want.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(got, want, "{init} seed {seed}");
        }
    }
}

/// Given centres are where every restart starts: a run from the blobs'
/// own means stops at its second iteration (the first to see no label
/// change, as scikit-learn counts), and restarts from them are all the
/// same run.
#[test]
fn given_centres_are_the_start() {
    let (n, k) = (300, 3);
    let x = blobs(7, n, 3, k, 6.0);
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let mut means = Array2::zeros((k, 3));
    for (i, &l) in labels.iter().enumerate() {
        let mut row = means.row_mut(l);
        row += &x.row(i);
    }
    means /= (n / k) as f64;
    let pr = Problem::new(x);
    let a = algo::find("kmeans").unwrap();
    let mut cfg = config(a.as_ref(), &pr, k, 0, &[], Some(means.clone()));
    cfg.restarts = 3;
    let res = a.run(&pr, &cfg, &Ctx::new()).unwrap();
    assert_eq!(res.best.labels, labels);
    assert_eq!(res.best.iterations, 2);
    assert!(close(&res.best.centroids.unwrap(), &means, 1e-12));
    let first = res.restart_objectives[0];
    assert!(res.restart_objectives.iter().all(|&o| o == first));
}

/// The algorithms that cannot use weights or centres refuse them in one
/// line naming those that can; centres of the wrong shape and bad weights
/// are refused too.
#[test]
fn what_cannot_be_used_is_refused() {
    let x = blobs(8, 60, 3, 2, 3.0);
    let w = vec![2.0; 60];
    for id in ["spectral", "dmkkm", "mkkm"] {
        let a = algo::find(id).unwrap();
        let pr = weighted(x.clone(), &w);
        let cfg = config(a.as_ref(), &Problem::new(x.clone()), 2, 0, &[], None);
        let e = a.check(&pr, &cfg).unwrap_err().to_string();
        assert!(
            e.contains("does not take sample weights") && e.contains("kmeans"),
            "{id}: {e}"
        );
    }
    for id in ["spectral", "dmkkm", "rff-mkpower"] {
        let a = algo::find(id).unwrap();
        let pr = Problem::new(x.clone());
        let mut cfg = config(a.as_ref(), &pr, 2, 0, &[], None);
        cfg.centres = Some(Arc::new(Array2::zeros((2, 3))));
        let e = a.check(&pr, &cfg).unwrap_err().to_string();
        assert!(e.contains("does not start from given centres"), "{id}: {e}");
    }
    let a = algo::find("power").unwrap();
    let pr = Problem::new(x.clone());
    let cfg = config(a.as_ref(), &pr, 2, 0, &[], Some(Array2::zeros((3, 3))));
    let e = a.check(&pr, &cfg).unwrap_err().to_string();
    assert!(e.contains("3 × 3") && e.contains("2 × 3"), "{e}");
    let mut pr = Problem::new(x.clone());
    for (bad, says) in [
        (vec![1.0; 59], "59 sample weights for 60 rows"),
        ([vec![1.0; 59], vec![-1.0]].concat(), "row 60 is -1"),
        ([vec![1.0; 59], vec![f64::NAN]].concat(), "row 60 is NaN"),
        (vec![0.0; 60], "every sample weight is 0"),
    ] {
        let e = pr.set_sample_weights(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
    // sparse-kmeans takes weights, but its gap statistic's permuted
    // reference data cannot: refused with the reason, not ignored.
    let a = algo::find("sparse-kmeans").unwrap();
    let wpr = weighted(x.clone(), &[vec![1.0; 30], vec![2.0; 30]].concat());
    let mut cfg = config(a.as_ref(), &wpr, 2, 0, &[], None);
    cfg.options.insert("tune".into(), "gap".into());
    let e = a.run(&wpr, &cfg, &Ctx::new()).unwrap_err().to_string();
    assert!(
        e.contains("--tune gap does not take sample weights") && e.contains("wbound"),
        "{e}"
    );
    // The kernel pair-based and spectral methods say why they refuse.
    let a = algo::find("dmkkm").unwrap();
    let cfg = config(a.as_ref(), &Problem::new(x.clone()), 2, 0, &[], None);
    let e = a.check(&wpr, &cfg).unwrap_err().to_string();
    assert!(e.contains("sum over pairs of points"), "{e}");
    // Fewer rows with weight than clusters: a clear error, not a hang.
    let mut w = vec![0.0; 60];
    w[0] = 1.0;
    pr.set_sample_weights(w).unwrap();
    let a = algo::find("kmeans").unwrap();
    let cfg = config(a.as_ref(), &pr, 2, 0, &[], None);
    let e = a.run(&pr, &cfg, &Ctx::new()).unwrap_err().to_string();
    assert!(e.contains("positive sample weight"), "{e}");
}

/// Labels with clusters renumbered in order of first appearance.
fn canonical(labels: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|l| {
            let next = map.len();
            *map.entry(*l).or_insert(next)
        })
        .collect()
}

/// rff-power weighs the rows of its feature map: with σ and D fixed (their
/// automatic values read the data, which repeating rows changes), weighted
/// rows end in the partition the repeated rows end in.
#[test]
fn rff_power_weighs_its_feature_rows() {
    let (n, k) = (120, 3);
    let x = blobs(9, n, 4, k, 10.0);
    let w: Vec<f64> = (0..n).map(|i| (1 + i % 3) as f64).collect();
    let (xr, from) = repeated(&x, &w);
    let given = [("sigma", 6.0), ("rff_dim", 128.0)];
    let a = run("rff-power", &weighted(x.clone(), &w), k, 1, &given, None);
    let b = run("rff-power", &Problem::new(xr), k, 1, &given, None);
    let expanded: Vec<usize> = from.iter().map(|&i| a.labels[i]).collect();
    assert_eq!(canonical(&expanded), canonical(&b.labels));
    let truth: Vec<usize> = (0..n).map(|i| i % k).collect();
    assert_eq!(canonical(&a.labels), canonical(&truth));
}

/// The kernel family's implicit means are weighted too: kernel k-means and
/// KPK on a Gram matrix with weighted rows run as on the Gram matrix of the
/// repeated rows, from the same seed points (each seed's first copy).
#[test]
fn kernel_means_weigh_their_rows() {
    use meanscape::internals::kernel::{Gram, KernelSpec};
    use meanscape::internals::{Schedule, weighted_kernel_lloyd, weighted_kpower_loop};
    let (n, k) = (90, 3);
    let x = blobs(10, n, 3, k, 3.0);
    let w: Vec<f64> = (0..n).map(|i| ((i * 5) % 4) as f64).collect();
    let (xr, from) = repeated(&x, &w);
    let spec = KernelSpec::parse("gaussian", "--kernel")
        .unwrap()
        .resolve(2.0, || 1.0)
        .unwrap();
    let g = Gram::build(x.view(), &spec, &Ctx::new()).unwrap();
    let gr = Gram::build(xr.view(), &spec, &Ctx::new()).unwrap();
    let seeds = [1, 2, 3];
    let first = |i: usize| from.iter().position(|&f| f == i).unwrap();
    let seeds_r: Vec<usize> = seeds.iter().map(|&i| first(i)).collect();
    let a = weighted_kernel_lloyd(&g, Some(&w), &seeds, 100, &Ctx::new()).unwrap();
    let b = weighted_kernel_lloyd(&gr, None, &seeds_r, 100, &Ctx::new()).unwrap();
    let expanded: Vec<usize> = from.iter().map(|&i| a.labels[i]).collect();
    assert_eq!(expanded, b.labels);
    assert!((a.objective - b.objective).abs() <= 1e-9 * b.objective);
    assert_eq!(a.iterations, b.iterations);
    let sched = Schedule {
        s0: -1.0,
        eta: 1.1,
        period: 2,
        s_min: -50.0,
    };
    let omega = |n: usize, s: &[usize]| {
        let mut om = Array2::zeros((n, s.len()));
        for (j, &c) in s.iter().enumerate() {
            om[[c, j]] = 1.0;
        }
        om
    };
    let a = weighted_kpower_loop(
        &g,
        Some(&w),
        omega(n, &seeds),
        &sched,
        1e-8,
        0.01,
        200,
        &Ctx::new(),
    )
    .unwrap();
    let b = weighted_kpower_loop(
        &gr,
        None,
        omega(xr.nrows(), &seeds_r),
        &sched,
        1e-8,
        0.01,
        200,
        &Ctx::new(),
    )
    .unwrap();
    let expanded: Vec<usize> = from.iter().map(|&i| a.labels[i]).collect();
    assert_eq!(expanded, b.labels);
    assert_eq!(a.iterations, b.iterations);
    for (p, q) in a.trace.iter().zip(&b.trace) {
        assert!((p.objective - q.objective).abs() <= 1e-9 * q.objective.abs().max(1e-300));
    }
    // Two kernels: the scatters E_l, hence α and λ, are weighted sums too.
    use meanscape::internals::weighted_mkpower_loop;
    let spec2 = KernelSpec::parse("laplacian", "--kernel")
        .unwrap()
        .resolve(3.0, || 1.0)
        .unwrap();
    let h = Gram::build(x.view(), &spec2, &Ctx::new()).unwrap();
    let hr = Gram::build(xr.view(), &spec2, &Ctx::new()).unwrap();
    let a = weighted_mkpower_loop(
        &[&g, &h],
        Some(&w),
        omega(n, &seeds),
        &sched,
        1.0,
        1e-8,
        0.01,
        200,
        &Ctx::new(),
    )
    .unwrap();
    let b = weighted_mkpower_loop(
        &[&gr, &hr],
        None,
        omega(xr.nrows(), &seeds_r),
        &sched,
        1.0,
        1e-8,
        0.01,
        200,
        &Ctx::new(),
    )
    .unwrap();
    let expanded: Vec<usize> = from.iter().map(|&i| a.labels[i]).collect();
    assert_eq!(expanded, b.labels);
    assert_eq!(a.iterations, b.iterations);
    let (ka, kb) = (a.kernel_weights.unwrap(), b.kernel_weights.unwrap());
    for (p, q) in ka.iter().zip(&kb) {
        assert!((p - q).abs() <= 1e-9, "{ka:?} vs {kb:?}");
    }
}

/// A weighted fit keeps its out-of-sample rule: the centroid family reads
/// the fitted centres, the kernel family's saved rule the weighted cluster
/// means in the kernel's space (the model keeps the sample weights), the
/// RFF maps weighted means of the features. Predicting the training rows
/// gives the fit's labels (exactly where the fit ends on the nearest-mean
/// rule; the soft power-mean fits mostly), before and after a JSON round
/// trip, and the saved weights matter: without them the kernel rule moves
/// rows.
#[test]
fn weighted_fits_predict_their_own_labels() {
    let n = 120;
    // Overlapping blobs and very uneven weights: weighted and plain
    // cluster means differ enough to move rows between clusters.
    let x = blobs(11, n, 3, 3, 1.5);
    let w: Vec<f64> = (0..n).map(|i| [12.0, 1.0, 0.0, 3.0][i % 4]).collect();
    let pr = weighted(x, &w);
    let mut moved_without_weights = 0;
    for (id, exact) in [
        ("kmeans", true),
        ("power", true),
        ("wkmeans", true),
        ("kernel-kmeans", true),
        ("kpower", false),
        ("mkpower", false),
        ("rff-power", false),
        ("rff-mkpower", false),
        ("lw", false),
        ("sparse-kmeans", false),
    ] {
        let a = algo::find(id).unwrap();
        let cfg = config(a.as_ref(), &pr, 3, 0, &[], None);
        let res = a.run(&pr, &cfg, &Ctx::new()).unwrap();
        let model = meanscape::model::Model::from_run(a.as_ref(), &pr, &cfg, &res)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let again = meanscape::model::Model::from_json(&model.to_json()).unwrap();
        let x = pr.x.f64();
        let own = model.predict(x.view()).unwrap();
        assert_eq!(again.predict(x.view()).unwrap(), own, "{id}: round trip");
        let agree = own
            .iter()
            .zip(&res.best.labels)
            .filter(|(a, b)| a == b)
            .count() as f64
            / n as f64;
        if exact {
            assert_eq!(own, res.best.labels, "{id}");
        } else {
            assert!(agree >= 0.95, "{id}: agreement {agree}");
        }
        if id == "kernel-kmeans" {
            let mut v: serde_json::Value = serde_json::from_str(&model.to_json()).unwrap();
            let saved = v["model"]["sample_weights"].as_array().unwrap().len();
            assert_eq!(saved, n);
            v["model"].as_object_mut().unwrap().remove("sample_weights");
            let plain = meanscape::model::Model::from_json(&v.to_string()).unwrap();
            let p = plain.predict(x.view()).unwrap();
            moved_without_weights = p.iter().zip(&own).filter(|(a, b)| a != b).count();
        }
    }
    assert!(moved_without_weights > 0, "the weights made no difference");
}
