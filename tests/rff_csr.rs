//! The RFF family on sparse (CSR) rows (issue 25): the feature map is built
//! per nonzero and is the dense map to rounding, so rff-power,
//! rff-mkpower and ip-rff-mkpower on a CSR problem give the dense
//! problem's labels from the same seed; their automatic σ and D, their
//! models, scores and memory guard work without densifying, the result
//! does not depend on the thread count, and the CLI runs sparse files.

use meanscape::algo::{self, Csr, Ctx, Fit, Init, Problem, Request, RunConfig};
use meanscape::internals::kernel::{self, rff, rff_dim};
use meanscape::model::Model;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;

/// Nonnegative counts in three groups of columns: row i mostly uses group
/// i % 3, about a third of the entries are nonzero.
fn counts(n: usize, p: usize, seed: u64) -> (Array2<f64>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x = Array2::from_shape_fn((n, p), |(i, j)| {
        let own = j * 3 / p == i % 3;
        let rate = if own { 0.6 } else { 0.08 };
        if rng.random::<f64>() < rate {
            f64::from(rng.random_range(1..5u8))
        } else {
            0.0
        }
    });
    (x, (0..n).map(|i| i % 3).collect())
}

fn problems(x: &Array2<f64>) -> (Problem, Problem) {
    let sparse = Problem::from_csr(Csr::from_dense(x.view()).unwrap());
    (sparse, Problem::new(x.clone()))
}

fn configure(
    id: &str,
    pr: &Problem,
    k: usize,
    given: &[(&str, f64)],
    opts: &[(&str, &str)],
) -> RunConfig {
    let a = algo::find(id).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let opts: Vec<(String, String)> = opts
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let req = Request {
        k,
        seed: 5,
        restarts: 2,
        init: Init::KmeansPP,
        given: &given,
        options: &opts,
        centres: None,
    };
    algo::configure(a.as_ref(), pr, req, "X").unwrap()
}

fn run(id: &str, pr: &Problem, cfg: &RunConfig) -> Fit {
    let a = algo::find(id).unwrap();
    algo::run(a.as_ref(), pr, cfg, &Ctx::new()).unwrap().best
}

/// The largest difference between two feature matrices.
fn worst(a: &rff::FeatureMap, b: &rff::FeatureMap) -> f64 {
    let (ra, rb) = (a.rows().f64_owned(), b.rows().f64_owned());
    assert_eq!(ra.dim(), rb.dim());
    ra.iter()
        .zip(&rb)
        .fold(0.0f64, |m, (u, v)| m.max((u - v).abs()))
}

#[test]
fn the_csr_features_are_the_dense_features() {
    let (x, _) = counts(1300, 21, 1);
    let (sparse, dense) = problems(&x);
    let specs: Vec<rff::MapSpec> = [(0..21, false), (3..11, false), (11..21, true)]
        .into_iter()
        .enumerate()
        .map(|(l, (cols, f32))| rff::MapSpec {
            cols,
            sigma: 2.5,
            dim: 40,
            seed: 9,
            stream: l as u64,
            f32,
        })
        .collect();
    let fs = rff::features(&sparse, &specs, &Ctx::new()).unwrap();
    let fd = rff::features(&dense, &specs, &Ctx::new()).unwrap();
    for (l, (a, b)) in fs.iter().zip(&fd).enumerate() {
        // Features are 1/√D ≈ 0.16 at most: 1e-13 absolute is ~1e-12
        // relative; the f32 map is rounded to f32 either way.
        let tol = if specs[l].f32 { 1e-7 } else { 1e-13 };
        assert!(worst(a, b) < tol, "view {l}: {}", worst(a, b));
        assert!(a.norms.iter().all(|v| (v - 1.0).abs() < 1e-6));
    }
}

#[test]
fn sigma_and_d_rules_read_the_nonzeros_as_the_dense_rows() {
    let (x, _) = counts(700, 18, 2);
    let (sparse, dense) = problems(&x);
    let (a, b) = (kernel::auto_sigma(&sparse), kernel::auto_sigma(&dense));
    assert!((a - b).abs() <= 1e-13 * b, "{a} vs {b}");
    for cols in [0..18, 4..9] {
        let a = kernel::inputs::view_sigma_rule(&sparse, &cols);
        let b = kernel::inputs::view_sigma_rule(&dense, &cols);
        assert!((a - b).abs() <= 1e-13 * b, "{cols:?}: {a} vs {b}");
        let (da, db) = (
            rff_dim::auto_dim(&sparse, cols.clone(), b),
            rff_dim::auto_dim(&dense, cols.clone(), b),
        );
        assert_eq!(da.dim, db.dim, "{cols:?}");
        assert!((da.error - db.error).abs() < 1e-10, "{da:?} vs {db:?}");
    }
}

#[test]
fn rff_power_on_csr_is_the_dense_run() {
    let (x, truth) = counts(600, 24, 3);
    let (mut sparse, mut dense) = problems(&x);
    for weighted in [false, true] {
        if weighted {
            let w: Vec<f64> = (0..600).map(|i| 0.5 + (i % 4) as f64).collect();
            sparse.set_sample_weights(w.clone()).unwrap();
            dense.set_sample_weights(w).unwrap();
        }
        let (cs, cd) = (
            configure("rff-power", &sparse, 3, &[], &[]),
            configure("rff-power", &dense, 3, &[], &[]),
        );
        let (ss, sd) = (
            cs.params.real("sigma").unwrap(),
            cd.params.real("sigma").unwrap(),
        );
        assert!((ss - sd).abs() <= 1e-13 * sd, "σ {ss} vs {sd}");
        assert_eq!(cs.params.real("rff_dim"), cd.params.real("rff_dim"));
        let (fs, fd) = (
            run("rff-power", &sparse, &cs),
            run("rff-power", &dense, &cd),
        );
        assert_eq!(fs.labels, fd.labels, "weighted {weighted}");
        assert!((fs.objective - fd.objective).abs() <= 1e-9 * fd.objective.abs());
        let nmi = meanscape::metrics::Scores::compute(&truth, &fs.labels).nmi;
        assert!(nmi > 0.8, "NMI {nmi}");
        // The kernel-error report is the dense one.
        let (ks, kd) = (
            fs.extra.kernel_approx.as_ref().unwrap(),
            fd.extra.kernel_approx.as_ref().unwrap(),
        );
        assert!((ks.errors[0] - kd.errors[0]).abs() < 1e-10);
    }
}

#[test]
fn the_multi_view_algorithms_on_csr_are_the_dense_runs() {
    let (x, _) = counts(450, 18, 4);
    let (sparse, dense) = problems(&x);
    for id in ["rff-mkpower", "ip-rff-mkpower"] {
        for views in ["auto", "1-6,7-12,13-18"] {
            let opts = [("views", views)];
            let given = [("rff_dim", 64.0)];
            let (cs, cd) = (
                configure(id, &sparse, 3, &given, &opts),
                configure(id, &dense, 3, &given, &opts),
            );
            let (fs, fd) = (run(id, &sparse, &cs), run(id, &dense, &cd));
            assert_eq!(fs.labels, fd.labels, "{id} {views}");
            let (a, b) = (fs.kernel_weights.unwrap(), fd.kernel_weights.unwrap());
            assert!(
                a.iter().zip(&b).all(|(u, v)| (u - v).abs() < 1e-8),
                "{a:?} {b:?}"
            );
        }
    }
}

#[test]
fn the_csr_result_does_not_depend_on_the_thread_count() {
    let (x, _) = counts(1200, 16, 5);
    let (sparse, _) = problems(&x);
    let cfg = configure("rff-power", &sparse, 3, &[("rff_dim", 64.0)], &[]);
    let with = |t| {
        // A fresh problem each time: nothing cached from the other pool.
        let (pr, _) = problems(&x);
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| run("rff-power", &pr, &cfg))
    };
    let (a, b) = (with(1), with(3));
    assert_eq!(a.labels, b.labels);
    assert_eq!(a.objective.to_bits(), b.objective.to_bits());
}

#[test]
fn models_and_scores_of_a_csr_run_are_the_dense_runs() {
    let (x, _) = counts(500, 15, 6);
    let (sparse, dense) = problems(&x);
    for id in ["rff-power", "rff-mkpower"] {
        let a = algo::find(id).unwrap();
        let given = [("rff_dim", 64.0)];
        let (cs, cd) = (
            configure(id, &sparse, 3, &given, &[]),
            configure(id, &dense, 3, &given, &[]),
        );
        let (rs, rd) = (
            algo::run(a.as_ref(), &sparse, &cs, &Ctx::new()).unwrap(),
            algo::run(a.as_ref(), &dense, &cd, &Ctx::new()).unwrap(),
        );
        assert_eq!(rs.best.labels, rd.best.labels, "{id}");
        // The model of the sparse fit predicts dense rows as the dense one.
        let (ms, md) = (
            Model::from_run(a.as_ref(), &sparse, &cs, &rs).unwrap(),
            Model::from_run(a.as_ref(), &dense, &cd, &rd).unwrap(),
        );
        assert_eq!(ms.n_features(), 15);
        let new = counts(80, 15, 7).0;
        assert_eq!(
            ms.predict(new.view()).unwrap(),
            md.predict(new.view()).unwrap()
        );
        // (Cluster means assign the training rows, not the run's final
        // soft weights: compare with the dense model, not the labels.)
        assert_eq!(
            ms.predict(x.view()).unwrap(),
            md.predict(x.view()).unwrap(),
            "{id}"
        );
        // Label-free scores in the feature space, as on dense rows.
        let base = meanscape::fit_scores::internal::default_base(500);
        let (is, id_) = (
            meanscape::fit_scores::internal::of_run(a.as_ref(), &sparse, &cs, &rs.best, &base),
            meanscape::fit_scores::internal::of_run(a.as_ref(), &dense, &cd, &rd.best, &base),
        );
        for (u, v) in [
            (is.silhouette, id_.silhouette),
            (is.calinski_harabasz, id_.calinski_harabasz),
            (is.davies_bouldin, id_.davies_bouldin),
            (is.cost, id_.cost),
        ] {
            assert!(
                u.is_finite() && (u - v).abs() <= 1e-9 * v.abs().max(1.0),
                "{id}: {u} vs {v}"
            );
        }
    }
}

#[test]
fn a_wide_vocabulary_is_guarded_by_its_frequencies() {
    // 50 rows of 4 million columns, 3 nonzeros each: the data is tiny but
    // Ω (p × D) is not, and the guard counts it before anything is built.
    let p = 4_000_000;
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
    for i in 0..50u32 {
        for t in 0..3u32 {
            indices.push((i * 7919 + t * 1_000_003) % p as u32);
            data.push(1.0 + f64::from(t));
        }
        indices[(3 * i) as usize..].sort_unstable();
        indptr.push(indices.len());
    }
    let x = Csr::new((50, p), indptr, indices, data).unwrap();
    let pr = Problem::from_csr(x);
    let a = algo::find("rff-power").unwrap();
    let cfg = configure(
        "rff-power",
        &pr,
        2,
        &[("rff_dim", 256.0), ("sigma", 1.0)],
        &[("max_memory", "1G")],
    );
    let e = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("frequencies") && !e.contains('\n'), "{e}");
    // The automatic D stops where Ω would take an eighth of the budget.
    assert_eq!(rff_dim::omega_cap(400_000, 8 << 30), 256);
    assert_eq!(rff_dim::omega_cap(10, u64::MAX), rff_dim::LADDER_MAX);
}

fn write_svmlight(dir: &Path, x: &Array2<f64>, y: &[usize]) -> std::path::PathBuf {
    let mut s = String::new();
    for (row, &l) in x.rows().into_iter().zip(y) {
        s.push_str(&l.to_string());
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                s.push_str(&format!(" {}:{v}", j + 1));
            }
        }
        s.push('\n');
    }
    let path = dir.join("x.svm");
    std::fs::write(&path, s).unwrap();
    path
}

#[test]
fn the_cli_runs_the_rff_family_on_a_sparse_file() {
    let dir = tempfile::tempdir().unwrap();
    let (x, y) = counts(240, 12, 8);
    let svm = write_svmlight(dir.path(), &x, &y);
    for id in ["rff-power", "rff-mkpower", "ip-rff-mkpower"] {
        let out = Command::new(env!("CARGO_BIN_EXE_meanscape"))
            .args(["run", "-d", svm.to_str().unwrap(), "--algo", id, "-k", "3"])
            .args(["-P", "rff_dim=64", "--json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{id}: {err}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((&v["n"], &v["p"]), (&240.into(), &12.into()), "{v}");
        // Labels from the svmlight file, scores in the feature space.
        let m = &v["metrics"];
        assert!(m["acc"].as_f64().is_some_and(|a| a > 0.6), "{id}: {m}");
        assert!(
            m["silhouette"].as_f64().is_some_and(f64::is_finite),
            "{id}: {m}"
        );
        assert_eq!(m["space"], "rff", "{id}: {m}");
    }
}
