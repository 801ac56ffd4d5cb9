//! Discrete multiple kernel k-means and its MKKM baseline
//! (docs/methods/dmkkm.md#checks-in-the-tests): Eq. 11 computed directly equals the traced objective and never
//! increases, one kernel is the F-step alone, an informative kernel beats
//! a noise kernel, the kernel preprocessing, thread-count independence,
//! cancellation and the memory budget.

use meanscape::algo::{self, Ctx, Fit, Init, Problem, RunConfig, Start};
use meanscape::internals::dmkkm_fstep::{cluster_sums, f_step};
use meanscape::internals::kernel::{Gram, KernelSpec};
use meanscape::internals::{DMKKM_POST, DmkkmSettings, dmkkm_loop, gram_products, initial_labels};
use meanscape::{Error, metrics};
use ndarray::Array2;
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
    id: &str,
    problem: &Problem,
    k: usize,
    restarts: usize,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> (Box<dyn algo::Algorithm>, RunConfig) {
    let a = algo::find(id).unwrap();
    let mut cfg = RunConfig::new(a.as_ref(), problem, k, given, options).unwrap();
    cfg.restarts = restarts;
    (a, cfg)
}

fn run(
    id: &str,
    problem: &Problem,
    k: usize,
    given: &[(&str, f64)],
    options: &[(&str, &str)],
) -> Fit {
    let (a, cfg) = config(id, problem, k, 1, given, options);
    algo::run(a.as_ref(), problem, &cfg, &Ctx::new())
        .unwrap()
        .best
}

/// The kernel of `text` on `x`, with dmkkm's default post-processing.
fn gram(x: &Array2<f64>, text: &str) -> Arc<Gram> {
    let spec = KernelSpec::parse(text, "--kernels")
        .unwrap()
        .with_default_post(DMKKM_POST)
        .resolve(1.0, || {
            meanscape::internals::kernel::bandwidth::max_sq_dist(x.view())
        })
        .unwrap();
    Arc::new(Gram::build(x.view(), &spec, &Ctx::new()).unwrap())
}

/// ‖Σ α_p K_p − F(FᵀF)⁻¹Fᵀ‖²_F, entry by entry.
fn eq11_direct(gs: &[Arc<Gram>], alpha: &[f64], labels: &[usize], k: usize) -> f64 {
    let n = labels.len();
    let dense: Vec<Array2<f64>> = gs.iter().map(|g| g.to_array()).collect();
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            let ka: f64 = dense.iter().zip(alpha).map(|(d, a)| a * d[[i, j]]).sum();
            let p = if labels[i] == labels[j] {
                1.0 / sizes[labels[i]] as f64
            } else {
                0.0
            };
            total += (ka - p) * (ka - p);
        }
    }
    total
}

const THREE: &str = "gaussian:t=0.05;gaussian:t=1;poly:a=1,b=2";

#[test]
fn eq11_computed_directly_is_the_traced_objective_and_never_increases() {
    for seed in 0..3 {
        let (x, _) = blobs(seed, 90, 3, 3, 2.5);
        let pr = Problem::new(x.clone());
        let fit = run("dmkkm", &pr, 3, &[], &[("kernels", THREE)]);
        let gs: Vec<Arc<Gram>> = THREE.split(';').map(|t| gram(&x, t)).collect();
        let alpha = fit.kernel_weights.clone().unwrap();
        assert!((alpha.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(alpha.iter().all(|&a| a >= 0.0));
        let direct = eq11_direct(&gs, &alpha, &fit.labels, 3);
        assert!(
            (direct - fit.objective).abs() <= 1e-9 * direct.abs(),
            "seed {seed}: {direct} vs {}",
            fit.objective
        );
        for w in fit.trace.windows(2) {
            assert!(
                w[1].objective <= w[0].objective * (1.0 + 1e-12),
                "seed {seed}: {} then {}",
                w[0].objective,
                w[1].objective
            );
        }
        assert!(fit.trace.iter().all(|t| t.kernel_weights.is_some()));
        assert!(fit.sizes(3).iter().all(|&n| n > 0));
    }
}

#[test]
fn the_code_qp_variant_runs_and_keeps_alpha_on_the_simplex() {
    let (x, _) = blobs(4, 90, 3, 3, 2.5);
    let pr = Problem::new(x);
    let fit = run("dmkkm", &pr, 3, &[("code_qp", 1.0)], &[("kernels", THREE)]);
    let alpha = fit.kernel_weights.unwrap();
    assert!((alpha.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(fit.objective.is_finite());
}

#[test]
fn one_kernel_dmkkm_is_the_f_step_alone() {
    for (seed, random_labels) in [(0, 0.0), (1, 0.0), (2, 1.0)] {
        let (x, _) = blobs(seed + 10, 120, 2, 4, 2.0);
        let pr = Problem::new(x.clone());
        let given = [
            ("inner_tol", 0.0),
            ("max_sweeps", 10_000.0),
            ("random_labels", random_labels),
            ("sigma", 1.5),
        ];
        let (a, mut cfg) = config("dmkkm", &pr, 4, 1, &given, &[("kernels", "gaussian")]);
        cfg.seed = seed;
        let fit = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap().best;
        let g = gram(&x, "gaussian:sigma=1.5");
        let k = g.to_array();
        let mut rng = Start { index: 0, seed }.rng();
        let mut labels = initial_labels(
            std::slice::from_ref(&g),
            4,
            Init::KmeansPP,
            random_labels == 1.0,
            &mut rng,
        )
        .unwrap();
        let (a0, s0) = cluster_sums(k.view(), &labels, 4);
        assert!(s0.iter().all(|&n| n > 0));
        let before: f64 = a0.iter().zip(&s0).map(|(a, &n)| a / n as f64).sum();
        let sw = f_step(k.view(), &mut labels, 4, 0.0, 10_000, &Ctx::new()).unwrap();
        assert_eq!(fit.labels, labels, "seed {seed}");
        assert!(sw.objective >= before);
        let (_, sizes) = cluster_sums(k.view(), &labels, 4);
        assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
        assert_eq!(fit.kernel_weights, Some(vec![1.0]));
    }
}

#[test]
fn the_informative_kernel_gets_the_larger_weight_and_the_clusters() {
    // Kernel 1: a Gaussian on three well-separated blobs (after centring
    // and normalising ≈ a 3-block kernel, ‖K₁‖² ≈ n²/2). Kernel 2: the
    // linear kernel of two pure-noise features (normalised: cos(θ_i − θ_j)
    // of random directions, ‖K₂‖² ≈ n²/2, no cluster structure). α is
    // driven by M (docs/methods/dmkkm.md#kernel-norms): a noise kernel of much *smaller* norm (a
    // near-identity one) would win whatever the partition, so the design
    // keeps the norms comparable and lets d decide.
    for seed in 0..8 {
        let n = 150;
        let truth: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + 100);
        let centres = [[0.0, 0.0], [10.0, 0.0], [5.0, 9.0]];
        let x1 = Array2::from_shape_fn((n, 2), |(i, j)| {
            let z: f64 = StandardNormal.sample(&mut rng);
            centres[truth[i]][j] + 0.5 * z
        });
        let noise = Array2::from_shape_fn((n, 2), |_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            z
        });
        let gs = vec![gram(&x1, "gaussian:sigma=2"), gram(&noise, "linear")];
        let pr = Problem::new(x1.clone());
        let m = gram_products(&pr, &gs, "informative|noise", &Ctx::new()).unwrap();
        let settings = DmkkmSettings {
            inner_tol: 1e-3,
            max_sweeps: 50,
            tol: 1e-9,
            max_iter: 50,
            code_qp: false,
        };
        let best = (0..5)
            .map(|r| {
                let mut rng = Start {
                    index: r,
                    seed: r as u64,
                }
                .rng();
                let labels = initial_labels(&gs, 3, Init::KmeansPP, false, &mut rng).unwrap();
                dmkkm_loop(&gs, &m, labels, 3, settings, &Ctx::new()).unwrap()
            })
            .min_by(|a, b| a.objective.total_cmp(&b.objective))
            .unwrap();
        let alpha = best.kernel_weights.clone().unwrap();
        assert!(alpha[0] > alpha[1], "seed {seed}: α = {alpha:?}");
        assert_eq!(metrics::accuracy(&truth, &best.labels), 1.0, "seed {seed}");
    }
}

#[test]
fn centring_zeroes_the_row_sums_and_normalising_gives_a_unit_diagonal() {
    let (x, _) = blobs(3, 70, 3, 2, 2.0);
    let c = gram(&x, "poly:a=1,b=2,center,normalize=0").to_array();
    for row in c.rows() {
        assert!(row.sum().abs() < 1e-9 * row.iter().map(|v| v.abs()).sum::<f64>());
    }
    let cn = gram(&x, "poly:a=1,b=2").to_array();
    for i in 0..70 {
        assert!((cn[[i, i]] - 1.0).abs() < 1e-15);
        for j in 0..70 {
            assert!(cn[[i, j]].abs() <= 1.0 + 1e-12);
            assert_eq!(cn[[i, j]], cn[[j, i]]);
        }
    }
}

#[test]
fn a_point_at_the_feature_space_mean_is_guarded_and_reported() {
    // Symmetric data around the origin plus the origin itself: after
    // centring the linear kernel, the origin's diagonal is 0.
    let mut rows = vec![[0.0, 0.0]];
    for i in 0..20 {
        let t = i as f64 * 0.3;
        rows.push([t.cos() * (1.0 + t), t.sin() * 2.0]);
        rows.push([-t.cos() * (1.0 + t), -t.sin() * 2.0]);
    }
    let x = Array2::from_shape_fn((rows.len(), 2), |(i, j)| rows[i][j]);
    let g = gram(&x, "linear");
    assert_eq!(g.guarded(), 1);
    let k = g.to_array();
    assert_eq!(k[[0, 0]], 1.0);
    assert!(k.row(0).iter().skip(1).all(|&v| v == 0.0));
    assert!(k.iter().all(|v| v.is_finite()));
    let fit = run("dmkkm", &Problem::new(x), 2, &[], &[("kernels", "linear")]);
    assert!(
        fit.warnings
            .iter()
            .any(|w| w.contains("zero or negative diagonal")),
        "{:?}",
        fit.warnings
    );
}

#[test]
fn mkkm_recovers_separated_blobs_with_weights_on_the_simplex() {
    let (x, truth) = blobs(5, 150, 2, 3, 6.0);
    let pr = Problem::new(x);
    let fit = run("mkkm", &pr, 3, &[], &[("kernels", THREE)]);
    let g = fit.kernel_weights.clone().unwrap();
    assert!((g.iter().sum::<f64>() - 1.0).abs() < 1e-12 && g.iter().all(|&v| v >= 0.0));
    assert!(fit.objective.is_finite() && fit.objective >= 0.0);
    assert_eq!(metrics::accuracy(&truth, &fit.labels), 1.0);
    assert!(!fit.trace.is_empty());
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (x, _) = blobs(9, 300, 4, 3, 2.0);
    let one = |threads: usize, id: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let pr = Problem::new(x.clone());
        pool.install(|| {
            let (a, cfg) = config(id, &pr, 3, 2, &[], &[("kernels", THREE)]);
            algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap().best
        })
    };
    for id in ["dmkkm", "mkkm"] {
        let a = one(1, id);
        let b = one(2, id);
        assert_eq!(a.labels, b.labels, "{id}");
        assert_eq!(a.trace, b.trace, "{id}");
        assert_eq!(a.kernel_weights, b.kernel_weights, "{id}");
        assert_eq!(a.objective.to_bits(), b.objective.to_bits(), "{id}");
    }
}

#[test]
fn cancellation_stops_both() {
    let (x, _) = blobs(0, 200, 3, 3, 3.0);
    let pr = Problem::new(x);
    let ctx = Ctx::new().with_cancel(Arc::new(AtomicBool::new(true)));
    for id in ["dmkkm", "mkkm"] {
        let (a, cfg) = config(id, &pr, 3, 1, &[], &[]);
        let e = algo::run(a.as_ref(), &pr, &cfg, &ctx).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{id}: {e}");
    }
}

#[test]
fn the_memory_budget_refuses_before_building() {
    let (x, _) = blobs(0, 3000, 2, 3, 3.0);
    let pr = Problem::new(x);
    for id in ["dmkkm", "mkkm"] {
        // The 12 default kernels need ≈ 430 MB, K_α alone fits.
        let (a, cfg) = config(id, &pr, 3, 1, &[], &[("max_memory", "100M")]);
        let e = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap_err();
        assert!(matches!(e, Error::Resource(_)), "{id}: {e}");
        assert!(
            !pr.cache_keys().iter().any(|k| k.starts_with("gram:")),
            "{id}: built before refusing"
        );
        // Too large for K_α alone: refused by the check itself.
        let big = Problem::new(Array2::zeros((300_000, 2)));
        let (a, cfg) = config(id, &big, 3, 1, &[("sigma", 1.0)], &[("max_memory", "100G")]);
        let e = algo::check_memory(a.as_ref(), &big, &cfg).unwrap_err();
        assert!(matches!(e, Error::Resource(_)), "{id}: {e}");
    }
}

/// The kernels and the dense combined kernel are counted together: a
/// budget that holds either alone but not both is refused before any
/// kernel is built (n = 3000, two kernels of ≈ 36 MB stored and K_α of
/// 72 MB: 80 MB holds each part, not the sum).
#[test]
fn the_kernels_and_the_combined_kernel_count_together() {
    let (x, _) = blobs(1, 3000, 2, 3, 3.0);
    let pr = Problem::new(x);
    for id in ["dmkkm", "mkkm"] {
        let (a, cfg) = config(
            id,
            &pr,
            3,
            1,
            &[],
            &[
                ("kernels", "gaussian"),
                ("views", "1,2"),
                ("max_memory", "80M"),
            ],
        );
        let e = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Resource(_)), "{id}: {msg}");
        assert!(
            msg.contains("2 kernel matrices and a dense n×n combined kernel"),
            "{id}: {msg}"
        );
        assert!(
            !pr.cache_keys().iter().any(|k| k.starts_with("gram:")),
            "{id}: built before refusing"
        );
    }
}

#[test]
fn row_blocks_are_the_rows_of_the_kernel() {
    // 600 points: two full tiles of 256 rows and a partial one; f32 too.
    let (x, _) = blobs(2, 600, 3, 3, 2.0);
    for text in ["gaussian:sigma=2", "poly:a=1,b=2,gram=f32"] {
        let g = gram(&x, text);
        let dense = g.to_array();
        let ranges = g.row_blocks();
        assert_eq!(ranges.len(), 3);
        assert_eq!(ranges.last().unwrap().end, 600);
        for (bi, r) in ranges.into_iter().enumerate() {
            let block = g.row_block(bi);
            assert_eq!(block, dense.slice(ndarray::s![r, ..]), "{text}");
        }
    }
}

/// Issue 27: `--views` without `--kernels` gives every multi-kernel
/// algorithm one Gaussian per view (σ rule on the view's own columns),
/// and the run says which set it used and why; without views the
/// 12-kernel set; an explicit list is used on every view as given.
#[test]
fn views_without_kernels_give_one_gaussian_per_view() {
    let (x, _) = blobs(3, 120, 6, 3, 4.0);
    let pr = Problem::new(x);
    let views = "a=1-2,b=3-4,c=5-6";
    for id in ["dmkkm", "mkkm", "mkpower"] {
        let (_, cfg) = config(id, &pr, 3, 1, &[], &[("views", views)]);
        assert_eq!(cfg.options["kernels"], "auto", "{id}");
        let fit = run(id, &pr, 3, &[], &[("views", views)]);
        let ks = fit.extra.kernels.as_ref().unwrap();
        assert_eq!(ks.len(), 3, "{id}: one kernel per view");
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["a", "b", "c"], "{id}");
        for (k, cols) in ks.iter().zip([0..2, 2..4, 4..6]) {
            assert!(k.spec.starts_with("gaussian:"), "{id}: {}", k.spec);
            let rule = meanscape::internals::kernel::inputs::view_sigma_rule(&pr, &cols);
            assert!(
                (k.sigma.unwrap() - rule).abs() <= 1e-12 * rule,
                "{id}: {k:?}"
            );
        }
        let set = fit.extra.kernel_set.as_ref().unwrap();
        assert_eq!(
            (set.option.as_str(), set.used.as_str()),
            ("auto", "gaussian")
        );
        assert!(set.reason.contains("--views"), "{}", set.reason);
        assert_eq!(fit.kernel_weights.as_ref().unwrap().len(), 3);

        // No views: the 12-kernel set on all features.
        let fit = run(id, &pr, 3, &[], &[]);
        assert_eq!(fit.extra.kernels.as_ref().unwrap().len(), 12, "{id}");
        assert_eq!(fit.extra.kernel_set.as_ref().unwrap().used, "default");
        // An explicit list: every kernel on every view, reported as given.
        let fit = run(
            id,
            &pr,
            3,
            &[],
            &[("views", views), ("kernels", "gaussian;linear")],
        );
        assert_eq!(fit.extra.kernels.as_ref().unwrap().len(), 6, "{id}");
        let set = fit.extra.kernel_set.as_ref().unwrap();
        assert_eq!(set.used, "gaussian;linear");
        assert_eq!(set.reason, "given with --kernels");
        // `--kernels default` with views is still the 12-kernel set per view.
        let (a, cfg) = config(
            id,
            &pr,
            3,
            1,
            &[],
            &[("views", views), ("kernels", "default")],
        );
        let fit = a.fit(&pr, &cfg, algo::Start { index: 0, seed: 0 }, &Ctx::new());
        assert_eq!(fit.unwrap().extra.kernels.unwrap().len(), 36, "{id}");
    }
    // `auto:FLAGS` applies the flags to the kernel it stands for.
    let fit = run(
        "dmkkm",
        &pr,
        3,
        &[],
        &[("views", views), ("kernels", "auto:gram=f32")],
    );
    let ks = fit.extra.kernels.unwrap();
    assert!(ks.iter().all(|k| k.gram == "f32"), "{ks:?}");
}
