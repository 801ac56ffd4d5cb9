//! Sweeps as a library: a cell is the `run` of its parameters, results do
//! not depend on threads or cell order, cached work is built once, cancel
//! keeps finished cells; the label-free scores against scikit-learn.

use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use meanscape::data::{LoadOptions, Scaling};
use meanscape::sweep::{self, Axis, Plan, Request, SweepResult, Truth};
use meanscape::{fit_scores, metrics};
use ndarray::Array2;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The data of the scikit-learn reference values below.
fn sk_data() -> Array2<f64> {
    Array2::from_shape_fn((30, 3), |(i, j)| {
        ((i * 7 + j * 3) % 11) as f64 + 0.25 * i as f64 * (j + 1) as f64
    })
}

/// Reference values from scikit-learn 1.9.1 (`silhouette_score`,
/// `calinski_harabasz_score`, `davies_bouldin_score`) on the data of
/// `sk_data` and these labels, computed once with:
///
/// ```python
/// X = np.array([[((i*7 + j*3) % 11) + 0.25*i*(j+1) for j in range(3)] for i in range(30)], dtype=float)
/// for lab in ([i % 3 for i in range(30)], [min(i // 8, 3) for i in range(30)],
///             [0 if (i*5) % 7 < 3 else (1 if i % 4 else 2) for i in range(30)]):
///     print(silhouette_score(X, lab), calinski_harabasz_score(X, lab), davies_bouldin_score(X, lab))
/// ```
#[test]
fn silhouette_calinski_harabasz_davies_bouldin_match_scikit_learn() {
    let x = sk_data();
    let cases: [(Vec<usize>, [f64; 3]); 3] = [
        (
            (0..30).map(|i| i % 3).collect(),
            [-0.005677016737852601, 0.076663110007902, 20.75376496204164],
        ),
        (
            (0..30).map(|i| (i / 8).min(3)).collect(),
            [0.10305615346163184, 16.222906883680743, 1.6032677841386844],
        ),
        (
            (0..30)
                .map(|i| {
                    if (i * 5) % 7 < 3 {
                        0
                    } else if i % 4 != 0 {
                        1
                    } else {
                        2
                    }
                })
                .collect(),
            [-0.1120879956943107, 0.7601583860565445, 4.996882983982075],
        ),
    ];
    for (labels, [sil, ch, db]) in cases {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        let got = fit_scores::silhouette(x.view(), &labels);
        assert!(close(got, sil), "silhouette {got} vs {sil}");
        let got = fit_scores::calinski_harabasz(x.view(), &labels);
        assert!(close(got, ch), "CH {got} vs {ch}");
        let got = fit_scores::davies_bouldin(x.view(), &labels);
        assert!(close(got, db), "DB {got} vs {db}");
    }
    // One cluster: undefined.
    assert!(fit_scores::silhouette(x.view(), &[0; 30]).is_nan());
}

fn iris() -> meanscape::Loaded {
    meanscape::load("iris", &LoadOptions::default(), Scaling::Standard).unwrap()
}

fn plan(problem: &Problem, id: &str, k: usize, grid: &[&str], seeds: usize) -> Plan {
    let a = algo::find(id).unwrap();
    let req = Request {
        k,
        seed: 0,
        seeds,
        init: Init::KmeansPP,
        given: Vec::new(),
        options: Vec::new(),
        axes: grid.iter().map(|g| Axis::parse(g).unwrap()).collect(),
        time_limit: None,
        resamples: 0,
    };
    sweep::plan(a.as_ref(), problem, req).unwrap()
}

fn run(problem: &Problem, id: &str, plan: &Plan, truth: Truth<'_>) -> SweepResult {
    let a = algo::find(id).unwrap();
    sweep::run(
        a.as_ref(),
        problem,
        plan,
        truth,
        Arc::default(),
        &|_, _, _| {},
    )
    .unwrap()
}

/// Everything but the times, for comparing sweeps.
fn fingerprint(r: &SweepResult) -> Vec<String> {
    r.cells
        .iter()
        .flat_map(|c| {
            c.runs.iter().map(move |run| {
                let mut v = serde_json::to_value(run).unwrap();
                v.as_object_mut().unwrap().remove("time_ms");
                format!("{}:{:?}:{v}", c.index, c.at)
            })
        })
        .collect()
}

#[test]
fn a_cell_is_the_run_of_its_parameters_and_seed() {
    let l = iris();
    let truth = l.dataset.labels.as_ref().unwrap().ids.clone();
    let p = plan(&l.problem, "power", 3, &["s0=-3,-0.5", "eta=1.04,1.3"], 3);
    let r = run(
        &l.problem,
        "power",
        &p,
        Truth {
            labels: Some(&truth),
            relevance: None,
        },
    );
    assert!(r.complete);
    assert_eq!(r.cells.len(), 4);
    let power = algo::find("power").unwrap();
    for c in &r.cells {
        for s in &c.runs {
            let mut cfg = RunConfig::new(
                power.as_ref(),
                &l.problem,
                3,
                &[("s0", c.at[0]), ("eta", c.at[1])],
                &[],
            )
            .unwrap();
            cfg.seed = s.seed;
            let one = power.run(&l.problem, &cfg, &Ctx::new()).unwrap();
            let m = meanscape::report::RunMetrics::compute(
                l.problem.x.f64().view(),
                &one.best.labels,
                Some(&truth),
            );
            assert_eq!(one.best.objective, s.objective);
            assert_eq!(one.best.iterations, s.iterations);
            assert_eq!(m.external, s.external);
            assert_eq!(m.silhouette, s.internal.silhouette);
            assert_eq!(m.cost, s.internal.cost);
            assert_eq!(m.davies_bouldin, s.internal.davies_bouldin);
        }
        let nmi = c.score("nmi").unwrap();
        let mean = c.runs.iter().map(|s| s.external.unwrap().nmi).sum::<f64>() / 3.0;
        assert!((nmi.mean - mean).abs() < 1e-12);
    }
    let seeds: Vec<u64> = r.cells[0].runs.iter().map(|s| s.seed).collect();
    assert_eq!(seeds, vec![0, 1, 2]);
}

#[test]
fn the_same_result_for_one_or_two_threads_and_any_cell_order() {
    let l = iris();
    let grid = ["s0=-4:-1:4", "eta=1.01,1.3"];
    let go = |threads: usize, reverse: bool| {
        let mut p = plan(&l.problem, "power", 3, &grid, 2);
        if reverse {
            p.cells.reverse();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| fingerprint(&run(&l.problem, "power", &p, Truth::default())))
    };
    let one = go(1, false);
    assert_eq!(one.len(), 16);
    assert_eq!(one, go(2, false));
    assert_eq!(one, go(2, true));
}

#[test]
fn a_gram_matrix_is_built_once_for_an_s0_by_eta_sweep_and_once_per_sigma() {
    let l = iris();
    let p = plan(&l.problem, "kpower", 3, &["s0=-3:-1:3", "eta=1.04,1.2"], 2);
    let r = run(&l.problem, "kpower", &p, Truth::default());
    assert_eq!(r.cells.len(), 6);
    assert_eq!(r.builds, 1, "6 cells × 2 seeds share one Gram matrix");
    let p = plan(&l.problem, "kpower", 3, &["s0=-3,-1", "sigma=1,2,4"], 2);
    let r = run(&l.problem, "kpower", &p, Truth::default());
    assert_eq!(r.builds, 3, "one Gram matrix per σ");
}

#[test]
fn cancelling_returns_the_finished_cells_marked_incomplete() {
    let l = iris();
    let p = plan(&l.problem, "power", 3, &["s0=-4:-1:4", "eta=1.01:1.3:4"], 2);
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let a = algo::find("power").unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let r = pool.install(|| {
        sweep::run(
            a.as_ref(),
            &l.problem,
            &p,
            Truth::default(),
            cancel,
            &|done, _, _| {
                if done == 3 {
                    flag.store(true, Ordering::SeqCst);
                }
            },
        )
        .unwrap()
    });
    assert!(!r.complete);
    assert!(
        r.cells.len() >= 3 && r.cells.len() < 16,
        "{}",
        r.cells.len()
    );
    assert!(r.cells.iter().all(|c| c.runs.len() == 2));
}

#[test]
fn stability_is_one_where_every_seed_agrees_and_lower_where_seeds_disagree() {
    let o = LoadOptions::default();
    let blobs = meanscape::load("gen:blobs,n=300,k=3,p=2", &o, Scaling::Standard).unwrap();
    // Power k-means anneals past the local minima k-means falls into.
    let p = plan(&blobs.problem, "power", 3, &["s0=-3"], 6);
    let r = run(&blobs.problem, "power", &p, Truth::default());
    let s = r.cells[0].score("stability").unwrap();
    assert!((s.mean - 1.0).abs() < 1e-12, "{s:?}");
    let p = plan(&blobs.problem, "kmeans", 3, &["max_iter=100"], 6);
    let r = run(&blobs.problem, "kmeans", &p, Truth::default());
    let s = r.cells[0].score("stability").unwrap();
    assert!(s.mean < 0.95, "{s:?}");
}

/// A kernel axis: each cell is the run with that `--kernel`, its Gram
/// matrix built once for the cell's s₀ values, and its label-free scores
/// those of `run`, computed in the kernel's feature space.
#[test]
fn a_kernel_axis_runs_each_kernel_and_scores_in_its_space() {
    let l = iris();
    let p = plan(
        &l.problem,
        "kpower",
        3,
        &["kernel=gaussian|laplacian|poly:a=1,b=2", "s0=-3,-1"],
        2,
    );
    assert_eq!(p.axes[0].texts, ["gaussian", "laplacian", "poly:a=1,b=2"]);
    let r = run(&l.problem, "kpower", &p, Truth::default());
    assert!(r.complete);
    assert_eq!(
        r.builds, 3,
        "one Gram matrix per kernel, shared by its s₀ cells"
    );
    let kp = algo::find("kpower").unwrap();
    let mut nmi_by_kernel = Vec::new();
    for c in &r.cells {
        let kernel = p.axes[0].show(c.at[0]);
        for s in &c.runs {
            let mut cfg = RunConfig::new(
                kp.as_ref(),
                &l.problem,
                3,
                &[("s0", c.at[1])],
                &[("kernel", kernel.as_str())],
            )
            .unwrap();
            cfg.seed = s.seed;
            let one = kp.run(&l.problem, &cfg, &Ctx::new()).unwrap();
            let base = fit_scores::internal::default_base(l.problem.n());
            let i = fit_scores::internal::of_run(kp.as_ref(), &l.problem, &cfg, &one.best, &base);
            assert_eq!(one.best.objective, s.objective, "{kernel}");
            assert_eq!(i, s.internal, "{kernel}");
            assert_eq!(i.space, fit_scores::SpaceKind::Kernel);
            // In the kernel's space, not the features': another cost.
            let on_x = fit_scores::wcss(l.problem.x.f64().view(), &one.best.labels);
            assert!((i.cost - on_x).abs() > 1e-6 * on_x, "{kernel}: {}", i.cost);
            let truth = l.dataset.labels.as_ref().unwrap();
            nmi_by_kernel.push(metrics::nmi(&truth.ids, &one.best.labels));
        }
    }
    // The kernels do give different partitions.
    assert!(
        nmi_by_kernel
            .iter()
            .any(|&v| (v - nmi_by_kernel[0]).abs() > 1e-6)
    );
}

/// A kernel axis is refused for an algorithm without that option, with a
/// bad kernel spec, or beside a fixed `--kernel`.
#[test]
fn a_kernel_axis_is_checked() {
    let l = iris();
    let req = |id: &str, axis: &str, options: Vec<(String, String)>| {
        let a = algo::find(id).unwrap();
        let axis = Axis::parse(axis)?;
        sweep::plan(
            a.as_ref(),
            &l.problem,
            Request {
                k: 3,
                seed: 0,
                seeds: 1,
                init: Init::KmeansPP,
                given: Vec::new(),
                options,
                axes: vec![axis],
                time_limit: None,
                resamples: 0,
            },
        )
        .map(|_| ())
    };
    let e = req("power", "kernel=gaussian|linear", vec![]).unwrap_err();
    assert!(
        e.to_string().contains("does not apply to algorithm power"),
        "{e}"
    );
    let e = req("kpower", "kernel=gaussian|nope", vec![]).unwrap_err();
    assert!(e.to_string().contains("unknown kernel 'nope'"), "{e}");
    let e = req("kpower", "kernel=gaussian||linear", vec![]).unwrap_err();
    assert!(e.to_string().contains("empty value"), "{e}");
    let e = req(
        "kpower",
        "kernel=gaussian|linear",
        vec![("kernel".into(), "linear".into())],
    )
    .unwrap_err();
    assert!(e.to_string().contains("fixed value"), "{e}");
    req("mkpower", "kernels=gaussian;linear|default", vec![]).unwrap();
}

#[test]
fn a_sweep_expected_to_overrun_its_time_limit_stops_after_its_first_runs() {
    let l = iris();
    let mut p = plan(
        &l.problem,
        "power",
        3,
        &["s0=-10:-0.1:50:log", "eta=1.01:1.5:50"],
        8,
    );
    p.time_limit = Some(std::time::Duration::from_millis(1));
    let a = algo::find("power").unwrap();
    let cancel: Arc<std::sync::atomic::AtomicBool> = Arc::default();
    let cells_done = std::sync::atomic::AtomicUsize::new(0);
    let e = sweep::run(
        a.as_ref(),
        &l.problem,
        &p,
        Truth::default(),
        cancel.clone(),
        &|_, _, _| {
            cells_done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        },
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, meanscape::Error::Resource(_)), "{e:?}");
    assert!(
        text.contains("would take about") && text.contains("20000 runs"),
        "{text}"
    );
    // Stopped after the first wave (a batch of runs per thread, handed
    // out in chunks of one batch per thread), not run to the end: at most
    // the cells of that wave (8 seeds each) can have finished.
    assert!(cancel.load(std::sync::atomic::Ordering::SeqCst));
    let threads = rayon::current_num_threads();
    let wave = meanscape::algo::BATCH * threads * threads;
    let done = cells_done.load(std::sync::atomic::Ordering::SeqCst);
    assert!(done <= wave.div_ceil(8), "{done} of 2500 cells finished");
    // Within the limit, the same plan runs (a small one, to be quick).
    let mut small = plan(&l.problem, "power", 3, &["s0=-3,-1"], 2);
    small.time_limit = Some(std::time::Duration::from_secs(3600));
    assert!(run(&l.problem, "power", &small, Truth::default()).complete);
}
