//! `--dtype f32` against f64: the same runs (same seeds, same starts) give
//! the same partition up to a small share of rows, on the bundled data and
//! on a large synthetic set; `.npy` files of float32 are read as f32
//! unless asked otherwise; the report says which was used.

use meanscape::algo::{self, Ctx, RunConfig};
use meanscape::data::{Dtype, LoadOptions, Scaling};

/// The share of rows on which two labellings of the same run agree.
fn agreement(a: &[usize], b: &[usize]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

fn labels(data: &str, algo_id: &str, dtype: Dtype, seed: u64) -> (Vec<usize>, usize) {
    let opts = LoadOptions {
        dtype: Some(dtype),
        ..Default::default()
    };
    let l = meanscape::load(data, &opts, Scaling::Standard).unwrap();
    assert_eq!(l.problem.dtype(), dtype);
    let a = algo::find(algo_id).unwrap();
    let k = l.default_k().unwrap_or(5);
    let mut cfg = RunConfig::new(a.as_ref(), &l.problem, k, &[], &[]).unwrap();
    cfg.seed = seed;
    let r = a.run(&l.problem, &cfg, &Ctx::new()).unwrap();
    (r.best.labels, r.best.iterations)
}

#[test]
fn f32_runs_agree_with_f64_on_nearly_every_row() {
    // The share stated in the README: at least 99.9 % of rows, per run.
    // Power k-means is compared where its run is stable: on data where its
    // centres merge near s = −1 (digits, usps standardised) the merge is
    // decided by differences far below f32's resolution of the data, and
    // runs that differ in the data's last bits part differently.
    let cases: [(&str, &[&str]); 5] = [
        ("iris", &["kmeans", "power", "khm"]),
        ("wine", &["kmeans", "power", "khm"]),
        ("breast_cancer", &["kmeans", "power", "khm"]),
        ("digits", &["kmeans", "khm"]),
        ("gen:blobs,n=20000,p=30,k=8,seed=3", &["kmeans", "khm"]),
    ];
    for (data, algos) in cases {
        for algo_id in algos {
            for seed in 0..3 {
                let (a, ia) = labels(data, algo_id, Dtype::F64, seed);
                let (b, ib) = labels(data, algo_id, Dtype::F32, seed);
                let share = agreement(&a, &b);
                assert!(share >= 0.999, "{data} {algo_id} seed {seed}: {share}");
                assert!(
                    ia.abs_diff(ib) <= 5,
                    "{data} {algo_id} seed {seed}: {ia} vs {ib} iterations"
                );
            }
        }
    }
}

#[test]
fn float32_npy_is_read_as_f32_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npy");
    let x = ndarray::Array2::from_shape_fn((40, 3), |(i, j)| (i * 3 + j) as f32 / 7.0);
    ndarray_npy::write_npy(&path, &x).unwrap();
    let spec = path.to_str().unwrap();
    let auto = meanscape::load(spec, &LoadOptions::default(), Scaling::None).unwrap();
    assert_eq!(auto.problem.dtype(), Dtype::F32);
    let asked = LoadOptions {
        dtype: Some(Dtype::F64),
        ..Default::default()
    };
    let f64_run = meanscape::load(spec, &asked, Scaling::None).unwrap();
    assert_eq!(f64_run.problem.dtype(), Dtype::F64);
    // A CSV is f64 unless asked.
    let csv = meanscape::load("iris", &LoadOptions::default(), Scaling::None).unwrap();
    assert_eq!(csv.problem.dtype(), Dtype::F64);
}

#[test]
fn the_report_and_the_command_say_f32() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args([
            "run", "--data", "wine", "--algo", "kmeans", "--dtype", "f32", "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["dtype"], "f32");
    assert!(
        v["command"].as_str().unwrap().contains("--dtype f32"),
        "{}",
        v["command"]
    );
}
