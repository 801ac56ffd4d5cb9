//! The label-free scores with sample weights and on sparse rows (issue 25):
//! a row of integer weight w scores as w copies of it, a row of weight 0
//! as no row, unit weights as none; CSR rows score as the same matrix held
//! dense; and `run` and `sweep` report the weighted scores as such.

use meanscape::algo::{self, Csr, Ctx, Init, Problem, RunConfig};
use meanscape::fit_scores::internal::{
    Internal, SILHOUETTE_SAMPLE_ERROR, SILHOUETTE_SAMPLE_ROWS, SilhouetteBase, base_for,
    default_base, default_base_weighted, internal_in, internal_weighted, of_run,
};
use meanscape::fit_scores::space::Block;
use meanscape::fit_scores::{Space, SpaceKind};
use meanscape::internals::kernel::{Gram, stack::raw_spec};
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use serde_json::Value;
use std::process::Command;
use std::sync::Arc;

/// `n` rows around `k` centres, and the partition by centre, with every
/// tenth row moved to the next cluster (so no score is at its bound).
fn blobs(seed: u64, n: usize, p: usize, k: usize, sep: f64) -> (Array2<f64>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres = Array2::from_shape_fn((k, p), |_| rng.random_range(-sep..sep));
    let x = Array2::from_shape_fn((n, p), |(i, j)| {
        let z: f64 = StandardNormal.sample(&mut rng);
        centres[[i % k, j]] + z
    });
    let labels = (0..n)
        .map(|i| if i % 10 == 3 { (i + 1) % k } else { i % k })
        .collect();
    (x, labels)
}

/// Every row i repeated w[i] times, and where each copy came from.
fn repeated(w: &[f64]) -> Vec<usize> {
    (0..w.len())
        .flat_map(|i| std::iter::repeat_n(i, w[i] as usize))
        .collect()
}

fn pick<T: Copy>(v: &[T], at: &[usize]) -> Vec<T> {
    at.iter().map(|&i| v[i]).collect()
}

fn near(a: f64, b: f64, rel: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= rel * b.abs().max(1.0)
}

/// The four scores and the clusters agree to `rel`.
fn same(what: &str, a: &Internal, b: &Internal, rel: f64) {
    for (x, y, name) in [
        (a.cost, b.cost, "cost"),
        (a.silhouette, b.silhouette, "silhouette"),
        (
            a.calinski_harabasz,
            b.calinski_harabasz,
            "calinski_harabasz",
        ),
        (a.davies_bouldin, b.davies_bouldin, "davies_bouldin"),
    ] {
        assert!(x.is_finite(), "{what}: {name} is {x}");
        assert!(near(x, y, rel), "{what}: {name} {x} vs {y}");
    }
    assert_eq!(a.clusters, b.clusters, "{what}: clusters");
}

/// The scores of `labels` on `x` with weights `w`, exact silhouette.
fn weighted_on(x: &Array2<f64>, labels: &[usize], w: &[f64]) -> Internal {
    let base = default_base_weighted(x.nrows(), Some(w));
    assert!(!base.sampled);
    internal_weighted(&Space::features(x.view()), labels, Some(w), &base)
}

fn plain_on(x: &Array2<f64>, labels: &[usize]) -> Internal {
    internal_in(&Space::features(x.view()), labels, &default_base(x.nrows()))
}

/// A positive definite kernel matrix of the rows (a polynomial kernel).
fn kmat(x: &Array2<f64>) -> Array2<f64> {
    x.dot(&x.t()).mapv(|v| (v / 4.0 + 1.0).powi(2))
}

fn gram(k: &Array2<f64>) -> Arc<Gram> {
    Arc::new(Gram::from_dense(k.view(), &raw_spec()))
}

fn kernel_space(g: Arc<Gram>) -> Space<'static> {
    Space {
        kind: SpaceKind::Kernel,
        blocks: vec![(Block::Gram(g), 1.0)],
    }
}

#[test]
fn integer_weights_score_as_repeated_rows() {
    let (x, labels) = blobs(1, 60, 3, 3, 4.0);
    let w: Vec<f64> = (0..60).map(|i| (1 + (i * 7) % 4) as f64).collect();
    let from = repeated(&w);
    let (xr, lr) = (x.select(Axis(0), &from), pick(&labels, &from));
    let got = weighted_on(&x, &labels, &w);
    assert!(got.weighted);
    same("features", &got, &plain_on(&xr, &lr), 1e-12);

    // In a kernel's feature space (a Gram matrix of the rows): the
    // repeated rows' Gram matrix is the rows' one repeated.
    let k = kmat(&x);
    let g = gram(&k);
    let gr = gram(&k.select(Axis(0), &from).select(Axis(1), &from));
    let base = default_base_weighted(60, Some(&w));
    let got = internal_weighted(&kernel_space(g), &labels, Some(&w), &base);
    let want = internal_in(&kernel_space(gr), &lr, &default_base(from.len()));
    same("kernel", &got, &want, 1e-12);
    assert_eq!(got.space, SpaceKind::Kernel);
}

#[test]
fn zero_weights_score_as_removed_rows() {
    let (x, mut labels) = blobs(2, 60, 4, 3, 4.0);
    let mut w: Vec<f64> = (0..60).map(|i| [2.0, 0.0, 1.0, 3.0][i % 4]).collect();
    // A fourth cluster of rows of weight 0 alone: no cluster at all.
    for i in [5, 17, 29] {
        labels[i] = 3;
        w[i] = 0.0;
    }
    let from = repeated(&w);
    let kept: Vec<usize> = (0..60).filter(|&i| w[i] > 0.0).collect();
    let got = weighted_on(&x, &labels, &w);
    assert_eq!(got.clusters, 3);
    let xr = x.select(Axis(0), &from);
    same(
        "repeated",
        &got,
        &plain_on(&xr, &pick(&labels, &from)),
        1e-12,
    );
    // Weights 1 and 0: the kept rows alone.
    let ones: Vec<f64> = w.iter().map(|&v| f64::from(v > 0.0)).collect();
    let got = weighted_on(&x, &labels, &ones);
    let want = plain_on(&x.select(Axis(0), &kept), &pick(&labels, &kept));
    same("removed", &got, &want, 1e-12);
}

#[test]
fn unit_weights_are_no_weights() {
    let (x, labels) = blobs(3, 80, 3, 4, 3.0);
    let ones = vec![1.0; 80];
    let got = weighted_on(&x, &labels, &ones);
    let want = plain_on(&x, &labels);
    for (a, b) in [
        (got.cost, want.cost),
        (got.silhouette, want.silhouette),
        (got.calinski_harabasz, want.calinski_harabasz),
        (got.davies_bouldin, want.davies_bouldin),
    ] {
        assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
    }
    // A problem drops unit weights: its scores are the unweighted ones.
    let mut p = Problem::new(x.clone());
    p.set_sample_weights(ones).unwrap();
    assert!(p.sample_weights().is_none());
    assert!(!base_for(&p).weighted());
}

/// Undefined cases follow the weighted data: one cluster of weight > 0
/// (others of weight 0 alone) has no score; as many clusters as the
/// rows' total weight neither.
#[test]
fn weighted_scores_are_undefined_where_the_repeated_rows_are() {
    let (x, _) = blobs(4, 6, 2, 2, 3.0);
    let labels = [0, 0, 0, 1, 1, 1];
    let w = [1.0, 2.0, 1.0, 0.0, 0.0, 0.0];
    let got = weighted_on(&x, &labels, &w);
    assert!(got.silhouette.is_nan() && got.calinski_harabasz.is_nan());
    assert!(got.davies_bouldin.is_nan());
    assert_eq!(got.clusters, 1);
    assert!(got.cost.is_finite());
    // Two rows of weight 1, one per cluster: n − 1 < k.
    let w = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let got = weighted_on(&x, &labels, &w);
    assert!(got.silhouette.is_nan() && got.calinski_harabasz.is_nan());
    // A row of weight 3 alone in its cluster is three copies: not alone.
    let w = [3.0, 0.0, 0.0, 1.0, 1.0, 0.0];
    let from = repeated(&w);
    let got = weighted_on(&x, &labels, &w);
    let want = plain_on(&x.select(Axis(0), &from), &pick(&labels, &from));
    same("a heavy singleton", &got, &want, 1e-12);
}

/// Above the exact silhouette's rows the sample is drawn in proportion to
/// the weights: never a row of weight 0, 1000 draws, and within the
/// sampled silhouette's bound of the exact weighted value.
#[test]
fn the_weighted_silhouette_sample_is_drawn_by_weight() {
    let n = 6000;
    let (x, labels) = blobs(5, n, 4, 4, 2.5);
    let w: Vec<f64> = (0..n).map(|i| [0.0, 1.0, 2.0, 5.0, 0.5][i % 5]).collect();
    let base = default_base_weighted(n, Some(&w));
    assert!(base.sampled && base.weighted());
    assert_eq!(base.size(), SILHOUETTE_SAMPLE_ROWS);
    assert!(base.rows.iter().all(|&i| w[i] > 0.0));
    let space = Space::features(x.view());
    let sampled = base.score_in(&space, &labels);
    let exact =
        SilhouetteBase::sized_weighted(n, Some(&w), usize::MAX, 0, 0).score_in(&space, &labels);
    assert!(
        (sampled - exact).abs() <= SILHOUETTE_SAMPLE_ERROR,
        "sampled {sampled} vs exact {exact}"
    );
    // The same draws every time.
    let again = default_base_weighted(n, Some(&w));
    assert_eq!(again.rows, base.rows);
    let got = internal_weighted(&space, &labels, Some(&w), &base);
    assert_eq!(got.silhouette_sample, Some(SILHOUETTE_SAMPLE_ROWS));
}

/// 90 × 14 counts, about a fifth nonzero (as `tests/sparse_files.rs`),
/// with a few rows repeated and one row empty.
fn counts() -> Array2<f64> {
    let mut x = Array2::from_shape_fn((90, 14), |(i, j)| {
        let h = (i * 7919 + j * 104_729 + i * j) % 101;
        let own = j % 3 == i % 3;
        if (own && h % 3 != 0) || h % 17 == 0 {
            1.0 + (h % 7) as f64
        } else {
            0.0
        }
    });
    let r = x.row(4).to_owned();
    x.row_mut(40).assign(&r);
    x.row_mut(88).fill(0.0);
    x
}

#[test]
fn sparse_rows_score_as_the_same_matrix_dense() {
    let d = counts();
    let csr = Csr::from_dense(d.view()).unwrap();
    let labels: Vec<usize> = (0..90)
        .map(|i| if i % 11 == 0 { 3 } else { i % 3 })
        .collect();
    let (dense, sparse) = (Space::features(d.view()), Space::sparse(&csr));
    for base in [
        SilhouetteBase::new(90, 100, 0),
        // A sample of the rows, and the sweep's kept distances.
        SilhouetteBase::new(90, 40, 7),
        SilhouetteBase::new(90, 40, 7).keeping(),
    ] {
        let want = internal_in(&dense, &labels, &base);
        let got = internal_in(&sparse, &labels, &base);
        same("sparse", &got, &want, 1e-10);
    }
    // With weights (zeros included).
    let w: Vec<f64> = (0..90).map(|i| [1.0, 3.0, 0.0, 2.0][i % 4]).collect();
    let base = default_base_weighted(90, Some(&w));
    same(
        "sparse, weighted",
        &internal_weighted(&sparse, &labels, Some(&w), &base),
        &internal_weighted(&dense, &labels, Some(&w), &base),
        1e-10,
    );
    // Singleton clusters: their spread is 0 on both.
    let mut lone = labels.clone();
    lone[7] = 4;
    lone[40] = 5;
    let base = default_base(90);
    same(
        "singletons",
        &internal_in(&sparse, &lone, &base),
        &internal_in(&dense, &lone, &base),
        1e-10,
    );
}

fn config(a: &dyn algo::Algorithm, problem: &Problem, k: usize) -> RunConfig {
    RunConfig {
        k,
        seed: 3,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a, problem, k, &[]).unwrap(),
        options: Default::default(),
        centres: None,
    }
}

/// A run on CSR rows is scored (it was left unscored before), as its
/// partition of the dense matrix; with sample weights too.
#[test]
fn runs_on_sparse_rows_are_scored_as_dense_ones() {
    let d = counts();
    let w: Vec<f64> = (0..90).map(|i| [1.0, 2.0, 0.0][i % 3]).collect();
    for weights in [None, Some(&w)] {
        let mut sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
        let mut dense = Problem::new(d.clone());
        if let Some(w) = weights {
            sparse.set_sample_weights(w.clone()).unwrap();
            dense.set_sample_weights(w.clone()).unwrap();
        }
        for id in ["kmeans", "power"] {
            let a = algo::find(id).unwrap();
            let cfg = config(a.as_ref(), &sparse, 3);
            let fit = a.run(&sparse, &cfg, &Ctx::new()).unwrap().best;
            // A base made without the weights is replaced by the problem's.
            let got = of_run(a.as_ref(), &sparse, &cfg, &fit, &default_base(90));
            assert_eq!(got.weighted, weights.is_some());
            let want = internal_weighted(
                &Space::features(d.view()),
                &fit.labels,
                dense.sample_weights(),
                &base_for(&dense),
            );
            same(id, &got, &want, 1e-10);
        }
    }
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
}

fn json(args: &[&str]) -> Value {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Three groups of 45 rows with weights 1–3 in a column, and the same
/// rows repeated by their weights.
fn weighted_files(dir: &std::path::Path) -> (String, String) {
    let mut csv = String::from("a,b,w\n");
    let mut repeated = String::from("a,b\n");
    for i in 0..45 {
        let (a, b) = (
            (i % 3) as f64 * 6.0 + (i as f64 * 0.37).sin(),
            (i as f64 * 0.91).cos(),
        );
        let w = 1 + i % 4 % 3;
        csv.push_str(&format!("{a},{b},{w}\n"));
        for _ in 0..w {
            repeated.push_str(&format!("{a},{b}\n"));
        }
    }
    let path = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    (path("w.csv", &csv), path("rep.csv", &repeated))
}

const SCORES: [&str; 4] = ["cost", "silhouette", "calinski_harabasz", "davies_bouldin"];

/// `run --weights` reports the scores of the repeated rows, says they are
/// weighted, and a run without weights says nothing of it.
#[test]
fn run_reports_weighted_scores() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, rep) = weighted_files(dir.path());
    let base = [
        "run", "--algo", "kmeans", "--k", "3", "--label", "none", "--scale", "none",
    ];
    let with = |data: &str, extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(["--data", data, "--json"]);
        args.extend(extra);
        json(&args)
    };
    let weighted = with(&csv, &["--weights", "w"]);
    let plain = with(&rep, &[]);
    let (m, r) = (&weighted["metrics"], &plain["metrics"]);
    assert_eq!(m["weighted"], true, "{m}");
    assert!(r.get("weighted").is_none(), "{r}");
    for s in SCORES {
        let (a, b) = (m[s].as_f64().unwrap(), r[s].as_f64().unwrap());
        assert!(near(a, b, 1e-9), "{s}: {a} vs {b}");
    }
    let out = bin()
        .args(base)
        .args(["--data", &csv, "--weights", "w"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("weighted by the sample weights"), "{text}");
}

/// A sweep with `--weights` scores its runs weighted (the k = 3 cell as
/// the repeated rows' one) and says so in its notes.
#[test]
fn sweeps_report_weighted_scores() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, rep) = weighted_files(dir.path());
    let sweep = |data: &str, extra: &[&str]| {
        let mut args = vec![
            "sweep", "--data", data, "--algo", "kmeans", "--label", "none", "--scale", "none",
            "--grid", "k=2:3:2", "--seeds", "1", "--json",
        ];
        args.extend(extra);
        json(&args)
    };
    let weighted = sweep(&csv, &["--weights", "w"]);
    let plain = sweep(&rep, &[]);
    let notes = weighted["notes"].to_string();
    assert!(notes.contains("sample weight"), "{notes}");
    assert!(!plain["notes"].to_string().contains("sample weight"));
    let cell = |v: &Value| -> Value {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["at"]["k"] == 3)
            .unwrap_or_else(|| panic!("no k = 3 cell: {v}"))
            .clone()
    };
    let (a, b) = (cell(&weighted), cell(&plain));
    for s in ["cost", "silhouette", "calinski_harabasz", "davies_bouldin"] {
        let find = |c: &Value| -> f64 {
            c["scores"][s]["mean"]
                .as_f64()
                .unwrap_or_else(|| panic!("no {s} in {c}"))
        };
        let (x, y) = (find(&a), find(&b));
        assert!(near(x, y, 1e-9), "{s}: {x} vs {y}");
    }
}

/// `run` on a sparse file reports the scores the same matrix from a CSV
/// gets for the same partition.
#[test]
fn run_scores_sparse_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = counts();
    let mut svm = String::new();
    let mut csv = (1..=14)
        .map(|j| format!("f{j}"))
        .collect::<Vec<_>>()
        .join(",")
        + "\n";
    for r in d.rows() {
        svm.push('0');
        for (j, v) in r.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            svm.push_str(&format!(" {}:{v}", j + 1));
        }
        svm.push('\n');
        csv.push_str(
            &(r.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(","))
            .to_string(),
        );
        csv.push('\n');
    }
    let (ps, pc) = (dir.path().join("x.svm"), dir.path().join("x.csv"));
    std::fs::write(&ps, svm).unwrap();
    std::fs::write(&pc, csv).unwrap();
    let run = |p: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--data",
            p.to_str().unwrap(),
            "--algo",
            "kmeans",
            "--k",
            "3",
            "--scale",
            "none",
            "--json",
        ];
        args.extend(extra);
        json(&args)
    };
    let (s, c) = (run(&ps, &[]), run(&pc, &["--label", "none"]));
    assert_eq!(s["labels"], c["labels"], "the same partition");
    for k in SCORES {
        let (a, b) = (
            s["metrics"][k].as_f64().unwrap_or(f64::NAN),
            c["metrics"][k].as_f64().unwrap(),
        );
        assert!(near(a, b, 1e-10), "{k}: {a} vs {b} ({})", s["metrics"]);
    }
    assert_eq!(s["metrics"]["space"], "features");
}
