//! Precomputed kernels (`--kernels precomputed`, `.mat` with `KH`, v×n×n
//! `.npy`) and the kernel family's `--views`. Fixtures are written here.

use meanscape::algo::{self, Ctx, Problem, RunConfig};
use meanscape::data::{LoadOptions, Scaling};
use meanscape::internals::kernel::{Gram, KernelSpec, inputs};
use ndarray::{Array2, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod mat_support;
use mat_support::write_mat;

// ------------------------------------------------------------ fixtures

fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
    let header = format!("{dict}{}\n", " ".repeat(pad));
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A v×n×n `.npy` stack, and its labels beside it as STEM.labels.txt.
fn write_npy(path: &Path, kh: &[Array2<f64>], y: Option<&[f64]>) {
    let (n, m) = kh[0].dim();
    let data: Vec<u8> = kh
        .iter()
        .flat_map(|k| k.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
        .collect();
    std::fs::write(
        path,
        npy("<f8", &format!("({}, {n}, {m})", kh.len()), &data),
    )
    .unwrap();
    if let Some(y) = y {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text: String = y.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(path.with_file_name(format!("{stem}.labels.txt")), text).unwrap();
    }
}

/// Two well-separated groups in 3-D (n = 40) and their classes.
fn two_groups() -> (Array2<f64>, Vec<f64>) {
    let x = Array2::from_shape_fn((40, 3), |(i, j)| {
        let c = if i < 20 { 0.0 } else { 4.0 };
        c + ((i * 7 + j * 13) % 11) as f64 / 10.0
    });
    let y = (0..40).map(|i| if i < 20 { 1.0 } else { 2.0 }).collect();
    (x, y)
}

fn raw_gram(x: &Array2<f64>, spec: &str) -> Array2<f64> {
    let r = KernelSpec::parse(spec, "--kernels")
        .unwrap()
        .resolve(1.0, || 1.0)
        .unwrap();
    Gram::build(x.view(), &r, &Ctx::new()).unwrap().to_array()
}

fn mkpower(problem: &Problem, options: &[(&str, &str)]) -> algo::Fit {
    fit_of("mkpower", problem, options)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(args)
        .output()
        .unwrap()
}

/// A refused command: exit code 2, one line naming `needle`.
fn refused(args: &[&str], needle: &str) -> String {
    let out = bin(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    err
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

// ------------------------------------------------------------ tests

#[test]
fn precomputed_stacks_give_the_result_of_the_same_kernels_from_features() {
    let (x, y) = two_groups();
    let specs = "gaussian:sigma=2;linear";
    let from_features = mkpower(&Problem::new(x.clone()), &[("kernels", specs)]);
    let kh = [raw_gram(&x, "gaussian:sigma=2"), raw_gram(&x, "linear")];
    let d = dir();
    let mat = d.path().join("two_Kmatrix.mat");
    let stack = d.path().join("two.npy");
    write_mat(&mat, &kh, Some(&y));
    write_npy(&stack, &kh, Some(&y));
    for file in [&mat, &stack] {
        let loaded = meanscape::load(p(file), &LoadOptions::default(), Scaling::Standard).unwrap();
        assert!(loaded.problem.kernels_only());
        assert_eq!(loaded.dataset.labels.as_ref().unwrap().n_classes(), 2);
        assert!(
            loaded
                .dataset
                .notes
                .iter()
                .any(|n| n.contains("does not apply")),
            "{:?}",
            loaded.dataset.notes
        );
        let fit = mkpower(&loaded.problem, &[("kernels", "precomputed")]);
        assert_eq!(fit.labels, from_features.labels, "{file:?}");
        assert_eq!(fit.kernel_weights, from_features.kernel_weights, "{file:?}");
        assert_eq!(fit.objective, from_features.objective, "{file:?}");
        let names: Vec<String> = fit
            .extra
            .kernels
            .as_ref()
            .unwrap()
            .iter()
            .map(|k| k.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["K1", "K2"]);
        // The default kernel list on a kernel file means its kernels.
        let again = mkpower(&loaded.problem, &[]);
        assert_eq!(again.labels, fit.labels);
    }
}

#[test]
fn single_kernel_algorithms_use_the_average_and_feature_algorithms_refuse() {
    let (x, y) = two_groups();
    let kh = [
        raw_gram(&x, "gaussian:sigma=2"),
        raw_gram(&x, "gaussian:sigma=4"),
    ];
    let d = dir();
    let mat = d.path().join("k.mat");
    write_mat(&mat, &kh, Some(&y));
    let loaded = meanscape::load(p(&mat), &LoadOptions::default(), Scaling::None).unwrap();
    for id in ["kernel-kmeans", "kpower", "spectral"] {
        let a = algo::find(id).unwrap();
        let cfg = RunConfig::new(a.as_ref(), &loaded.problem, 2, &[], &[]).unwrap();
        let fit = a.run(&loaded.problem, &cfg, &Ctx::new()).unwrap().best;
        let truth = &loaded.dataset.labels.as_ref().unwrap().ids;
        let ari = meanscape::metrics::Scores::compute(truth, &fit.labels).ari;
        assert!(ari > 0.99, "{id}: ARI {ari}");
    }
    for id in [
        "power",
        "kmeans",
        "lw",
        "rff-mkpower",
        "sparse-kmeans",
        "wkmeans",
        "khm",
    ] {
        let a = algo::find(id).unwrap();
        let e = a
            .check(
                &loaded.problem,
                &RunConfig {
                    k: 2,
                    seed: 0,
                    restarts: 1,
                    init: Default::default(),
                    params: Default::default(),
                    options: Default::default(),
                    centres: None,
                },
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "{id} needs features; this file holds precomputed kernels — use kernel-kmeans, kpower, mkpower, dmkkm, mkkm or spectral"
            )
        );
    }
    refused(
        &["run", "--data", p(&mat), "--algo", "power"],
        "k.mat: power needs features; this file holds precomputed kernels",
    );
    refused(
        &[
            "run",
            "--data",
            p(&mat),
            "--algo",
            "mkpower",
            "--kernels",
            "gaussian",
        ],
        "use --kernels precomputed",
    );
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--algo",
            "mkpower",
            "--kernels",
            "precomputed",
        ],
        "the data holds features, not kernels",
    );
}

#[test]
fn bad_kernel_files_are_refused_with_the_reason() {
    let (x, y) = two_groups();
    let good = raw_gram(&x, "gaussian:sigma=2");
    let d = dir();
    let case = |name: &str, kh: Vec<Array2<f64>>, y: &[f64]| -> PathBuf {
        let f = d.path().join(name);
        if name.ends_with(".mat") {
            write_mat(&f, &kh, Some(y));
        } else {
            write_npy(&f, &kh, Some(y));
        }
        f
    };
    let mut asym = good.clone();
    asym[[3, 1]] += 0.25;
    let mut nan = good.clone();
    nan[[5, 5]] = f64::NAN;
    let tall = good.slice(s![.., ..39]).to_owned();
    for ext in ["mat", "npy"] {
        let f = case(&format!("asym.{ext}"), vec![good.clone(), asym.clone()], &y);
        refused(
            &["run", "--data", p(&f), "--algo", "mkpower"],
            "kernel K2: not symmetric: K(4, 2)",
        );
        let f = case(&format!("nan.{ext}"), vec![nan.clone()], &y);
        refused(
            &["run", "--data", p(&f), "--algo", "mkpower"],
            "kernel K1: entry (6, 6) is NaN",
        );
        let f = case(&format!("square.{ext}"), vec![tall.clone()], &y);
        refused(&["run", "--data", p(&f), "--algo", "mkpower"], "square");
        let f = case(&format!("short.{ext}"), vec![good.clone()], &y[..39]);
        let e = refused(&["run", "--data", p(&f), "--algo", "mkpower"], "39");
        assert!(e.contains("40×40"), "{e}");
        assert!(e.contains(p(&f)) || e.contains("short.labels"), "{e}");
    }
    // MAT 7.3: a text header, then HDF5 at 512.
    let f = d.path().join("v73.mat");
    let mut b = format!(
        "{:<116}",
        "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: x HDF5 schema 1.00 ."
    )
    .into_bytes();
    b.resize(512, 0);
    b.extend_from_slice(b"\x89HDF\r\n\x1a\n");
    b.resize(2048, 0);
    std::fs::write(&f, &b).unwrap();
    refused(
        &["run", "--data", p(&f), "--algo", "mkpower"],
        "re-save it as v5 with save(FILE, ..., '-v7')",
    );
    // Above the budget: refused from the header, before a value is read.
    let big: Vec<Array2<f64>> = (0..4).map(|_| Array2::eye(300)).collect();
    let f = d.path().join("big.npy");
    write_npy(&f, &big, None);
    refused(
        &[
            "run",
            "--data",
            p(&f),
            "--algo",
            "mkpower",
            "-k",
            "2",
            "--max-memory",
            "1M",
        ],
        "4 kernel matrices of 300×300",
    );
}

#[test]
fn kernels_symmetric_up_to_rounding_are_symmetrised_with_a_note() {
    let (x, y) = two_groups();
    let mut k = raw_gram(&x, "gaussian:sigma=2");
    k[[7, 2]] *= 1.0 + 1e-13;
    let d = dir();
    let f = d.path().join("round.npy");
    write_npy(&f, &[k], Some(&y));
    let out = bin(&["run", "--data", p(&f), "--algo", "mkpower", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = v["data"]["notes"].to_string();
    assert!(
        notes.contains("kernel K1 is symmetric only up to rounding"),
        "{notes}"
    );
    assert!(notes.contains("symmetrised as (K+Kᵀ)/2"), "{notes}");
}

/// View 1 (columns 1–2) holds the groups, view 2 (3–4) is noise.
fn two_views() -> Array2<f64> {
    Array2::from_shape_fn((60, 4), |(i, j)| {
        let noise = ((i * 31 + j * 17) % 23) as f64 / 23.0;
        if j < 2 {
            (i % 2) as f64 * 5.0 + noise * 0.5
        } else {
            noise * 5.0 + ((i * i + 3 * j) % 7) as f64
        }
    })
}

#[test]
fn views_give_one_kernel_each_with_its_own_bandwidth() {
    let x = two_views();
    let problem = Problem::new(x.clone());
    let sigma = meanscape::internals::kernel::auto_sigma(&problem);
    let post = meanscape::internals::kernel::Post::default();
    let source = inputs::KernelSource::parse(
        &problem,
        "gaussian;linear",
        "default",
        Some("a=1-2,b=3-4"),
        post,
    )
    .unwrap();
    let grams = inputs::kernel_grams(&problem, &source, sigma, None, &Ctx::new(), "test").unwrap();
    assert_eq!(grams.len(), 4);
    let names: Vec<&str> = grams.iter().map(|g| g.part.as_deref().unwrap()).collect();
    assert_eq!(names, ["a", "a", "b", "b"]);
    for (g, cols) in [(&grams[0], 0..2), (&grams[2], 2..4)] {
        let rule = meanscape::internals::kernel::bandwidth::sigma_rule(x.slice(s![.., cols]));
        let got = g.gram.spec().sigma.unwrap();
        assert!((got - rule).abs() <= 1e-12 * rule, "{got} vs {rule}");
        assert!(
            g.name
                .starts_with(&format!("{}: gaussian σ=", g.part.as_deref().unwrap())),
            "{}",
            g.name
        );
    }
    assert_ne!(grams[0].gram.spec().sigma, grams[2].gram.spec().sigma);
    assert!(grams[1].name.starts_with("a: linear"), "{}", grams[1].name);
}

#[test]
fn the_informative_view_gets_the_larger_weight() {
    let problem = Problem::new(two_views());
    let fit = mkpower(
        &problem,
        &[("kernels", "gaussian"), ("views", "signal=1-2,noise=3-4")],
    );
    let alpha = fit.kernel_weights.unwrap();
    assert!(alpha[0] > alpha[1], "α = {alpha:?}");
    let names: Vec<String> = fit
        .extra
        .kernels
        .unwrap()
        .iter()
        .map(|k| k.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["signal", "noise"]);
    // Without views nothing changes: no names in the JSON's kernels.
    let plain = mkpower(&problem, &[("kernels", "gaussian")]);
    assert!(plain.extra.kernels.unwrap()[0].name.is_none());
}

#[test]
fn info_describes_a_kernel_file() {
    let (x, y) = two_groups();
    let d = dir();
    let f = d.path().join("k.mat");
    write_mat(
        &f,
        &[raw_gram(&x, "linear"), raw_gram(&x, "gaussian:sigma=1")],
        Some(&y),
    );
    let out = bin(&["info", "--data", p(&f)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("2 precomputed kernels of 40×40 (K1, K2)"),
        "{text}"
    );
    assert!(text.contains("labels: 2 classes (sizes 20/20)"), "{text}");
}

#[test]
fn npy_labels_come_from_a_named_file_or_a_1d_npy_beside_it() {
    let (x, y) = two_groups();
    let d = dir();
    let f = d.path().join("stack.npy");
    write_npy(&f, &[raw_gram(&x, "linear")], None);
    // No labels file: no labels, k must be given.
    let loaded = meanscape::load(p(&f), &LoadOptions::default(), Scaling::None).unwrap();
    assert!(loaded.dataset.labels.is_none());
    // A 1-D .npy of integers beside it.
    let codes: Vec<u8> = y.iter().flat_map(|v| (*v as i64).to_le_bytes()).collect();
    std::fs::write(
        d.path().join("stack.labels.npy"),
        npy("<i8", "(40,)", &codes),
    )
    .unwrap();
    let loaded = meanscape::load(p(&f), &LoadOptions::default(), Scaling::None).unwrap();
    assert_eq!(loaded.dataset.labels.unwrap().names, ["1", "2"]);
    // Any file with --label.
    let other = d.path().join("classes.txt");
    std::fs::write(&other, "a\nb\n".repeat(20)).unwrap();
    let opts = LoadOptions {
        label: meanscape::data::LabelChoice::Name(p(&other).into()),
        ..Default::default()
    };
    let loaded = meanscape::load(p(&f), &opts, Scaling::None).unwrap();
    assert_eq!(loaded.dataset.labels.unwrap().n_classes(), 2);
    assert_eq!(loaded.dataset.inputs.len(), 2);
    // The human summary names the precomputed kernels' weights.
    let out = bin(&["run", "--data", p(&f), "--algo", "mkpower"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("kernel weights: K1 1.000"), "{text}");
}

fn fit_of(id: &str, problem: &Problem, options: &[(&str, &str)]) -> algo::Fit {
    let a = algo::find(id).unwrap();
    let cfg = RunConfig::new(a.as_ref(), problem, 2, &[], options).unwrap();
    a.run(problem, &cfg, &Ctx::new()).unwrap().best
}

/// dmkkm and mkkm read the same file as mkpower and, with the same
/// post-processing (centre, unit diagonal), find what they find from the
/// features.
#[test]
fn dmkkm_and_mkkm_on_a_kernel_file_equal_the_same_kernels_from_features() {
    let (x, y) = two_groups();
    let kh = [raw_gram(&x, "gaussian:sigma=2"), raw_gram(&x, "linear")];
    let d = dir();
    let mat = d.path().join("two_Kmatrix.mat");
    write_mat(&mat, &kh, Some(&y));
    let loaded = meanscape::load(p(&mat), &LoadOptions::default(), Scaling::None).unwrap();
    let features = Problem::new(x.clone());
    for id in ["dmkkm", "mkkm"] {
        let a = fit_of(id, &features, &[("kernels", "gaussian:sigma=2;linear")]);
        let b = fit_of(id, &loaded.problem, &[("kernels", "precomputed")]);
        assert_eq!(a.labels, b.labels, "{id}");
        let (wa, wb) = (a.kernel_weights.unwrap(), b.kernel_weights.unwrap());
        for (u, v) in wa.iter().zip(&wb) {
            assert!((u - v).abs() < 1e-9, "{id}: {wa:?} vs {wb:?}");
        }
        assert!(
            (a.objective - b.objective).abs() <= 1e-9 * a.objective.abs(),
            "{id}"
        );
        let names: Vec<String> = b
            .extra
            .kernels
            .as_ref()
            .unwrap()
            .iter()
            .map(|k| k.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["K1", "K2"], "{id}");
    }
    // Views do not apply to a kernel file: refused with the reason.
    let a = algo::find("dmkkm").unwrap();
    let e = RunConfig::new(
        a.as_ref(),
        &loaded.problem,
        2,
        &[],
        &[("kernels", "precomputed"), ("views", "1-2")],
    )
    .and_then(|cfg| a.check(&loaded.problem, &cfg))
    .unwrap_err()
    .to_string();
    assert!(e.contains("does not apply to precomputed kernels"), "{e}");
}

/// Kernel data has no features: the label-free scores are computed in the
/// space the algorithm clustered in, the kernels combined with its final
/// weights, and say so.
#[test]
fn label_free_scores_on_kernel_data_are_in_the_kernels_space() {
    let (x, y) = two_groups();
    let kh = [raw_gram(&x, "gaussian:sigma=2"), raw_gram(&x, "linear")];
    let d = dir();
    let mat = d.path().join("two_Kmatrix.mat");
    write_mat(&mat, &kh, Some(&y));
    let out = bin(&[
        "run",
        "--data",
        p(&mat),
        "--algo",
        "dmkkm",
        "--k",
        "2",
        "--json",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = v["metrics"].as_object().unwrap();
    assert_eq!(m["space"], "kernel", "{m:?}");
    // Two well separated groups, found: a clear silhouette, a cost well
    // under the total scatter.
    assert!(m["silhouette"].as_f64().unwrap() > 0.5, "{m:?}");
    assert!(m["davies_bouldin"].as_f64().unwrap() < 1.0, "{m:?}");
    assert!(m["calinski_harabasz"].as_f64().unwrap() > 10.0, "{m:?}");
    assert!(m["cost"].as_f64().unwrap() > 0.0, "{m:?}");
    assert!(m["nmi"].as_f64().unwrap() > 0.99, "{m:?}");
}
