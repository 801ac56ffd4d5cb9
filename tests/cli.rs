//! The binary as scripts use it: JSON output, exit codes, files.

mod tui_support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn fixtures(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind)
}

/// A refused command: exit code 2, one line on stderr naming `needle`,
/// nothing on stdout, no panic.
fn refused(args: &[&str], needle: &str) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    err
}

#[test]
fn json_has_the_documented_fields() {
    let v = json(&[
        "run", "--data", "iris", "--algo", "power", "--json", "--seed", "4",
    ]);
    for key in [
        "algorithm",
        "params",
        "n",
        "p",
        "k",
        "seed",
        "labels",
        "objective",
        "trace",
        "iterations",
        "converged",
        "elapsed_ms",
        "load_ms",
        "scores_ms",
        "metrics",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    // The label-free scores' time, apart from the solver's.
    let scores_ms = v["scores_ms"].as_f64().unwrap();
    assert!(scores_ms.is_finite() && scores_ms >= 0.0, "{scores_ms}");
    assert_eq!(v["algorithm"], "power");
    assert_eq!(
        (v["n"].as_u64(), v["p"].as_u64(), v["k"].as_u64()),
        (Some(150), Some(4), Some(3))
    );
    assert_eq!(v["seed"], 4);
    let params = v["params"].as_object().unwrap();
    for key in [
        "k", "seed", "restarts", "init", "s0", "eta", "period", "s_min", "tol", "max_iter",
    ] {
        assert!(params.contains_key(key), "params lacks {key}");
    }
    assert_eq!(params["s0"], -1);
    assert_eq!(params["eta"], 1.04);
    let labels = v["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 150);
    assert!(labels.iter().all(|l| l.as_u64().unwrap() < 3));
    let trace = v["trace"].as_array().unwrap();
    assert_eq!(trace.len() as u64, v["iterations"].as_u64().unwrap());
    assert!(trace[0]["s"].as_f64().unwrap() == -1.0);
    let last = trace.last().unwrap()["objective"].as_f64().unwrap();
    assert_eq!(last, v["objective"].as_f64().unwrap());
    let nmi = v["metrics"]["nmi"].as_f64().unwrap();
    assert!(nmi > 0.5 && nmi <= 1.0, "{nmi}");
    assert!(
        v["command"]
            .as_str()
            .unwrap()
            .starts_with("meanscape run --data iris --algo power")
    );
}

#[test]
fn every_algorithm_runs_and_kmeans_has_no_s() {
    for algo in ["kmeans", "khm", "power"] {
        let v = json(&["run", "--data", "wine", "--algo", algo, "--json"]);
        assert_eq!(v["algorithm"], algo);
        let s = &v["trace"][0]["s"];
        assert_eq!(s.is_null(), algo == "kmeans", "{algo}: {s}");
        assert!(v["metrics"]["ari"].as_f64().unwrap() > 0.6, "{algo}");
    }
}

#[test]
fn same_output_for_any_thread_count() {
    let args = [
        "run",
        "--data",
        "gen:blobs,n=4000,p=6,k=5,seed=2",
        "--restarts",
        "3",
        "--json",
    ];
    let strip = |o: Output| {
        let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
        for k in ["elapsed_ms", "load_ms", "scores_ms"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    let one = strip(
        bin()
            .args(args)
            .env("RAYON_NUM_THREADS", "1")
            .output()
            .unwrap(),
    );
    let two = strip(
        bin()
            .args(args)
            .env("RAYON_NUM_THREADS", "2")
            .output()
            .unwrap(),
    );
    assert_eq!(one, two);
}

/// Above one chunk of the scores' sums (4096 rows) and the exact
/// silhouette's 2500 rows, in an f32 feature map: the scores are the same
/// for any thread count.
#[test]
fn scores_are_the_same_for_any_thread_count() {
    let args = [
        "run",
        "--data",
        "gen:blobs,n=9000,p=5,k=4,seed=3",
        "--algo",
        "rff-power",
        "-P",
        "rff_dim=64",
        "-P",
        "rff_f32=1",
        "-P",
        "max_iter=20",
        "--json",
    ];
    let metrics = |threads: &str| {
        let o = bin()
            .args(args)
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["metrics"].clone()
    };
    let one = metrics("1");
    assert!(one["silhouette"].as_f64().is_some(), "{one}");
    assert_eq!(one["space"], "rff");
    assert_eq!(one, metrics("2"));
}

/// Above 2500 rows the silhouette is computed on a fixed-seed sample and
/// the JSON says on how many rows; up to 2500 it is exact and says
/// nothing. `--no-scores` leaves every label-free score and their time
/// out, and keeps the labels and the external scores.
#[test]
fn scores_say_their_sample_and_can_be_skipped() {
    let big = json(&[
        "run",
        "--data",
        "gen:blobs,n=3000,p=4,k=3,seed=1",
        "--algo",
        "kmeans",
        "--json",
    ]);
    assert_eq!(
        big["metrics"]["silhouette_sample"], 1000,
        "{}",
        big["metrics"]
    );
    assert!(big["metrics"]["silhouette"].as_f64().is_some());
    let small = json(&[
        "run", "--data", "iris", "--algo", "kmeans", "--json", "--seed", "1",
    ]);
    assert!(small["metrics"].get("silhouette_sample").is_none());
    assert!(small["metrics"]["silhouette"].as_f64().is_some());
    let args = [
        "run",
        "--data",
        "gen:blobs,n=3000,p=4,k=3,seed=1",
        "--algo",
        "kmeans",
        "--json",
        "--no-scores",
    ];
    let none = json(&args);
    assert!(none.get("scores_ms").is_none(), "{none}");
    let m = none["metrics"].as_object().unwrap();
    for key in [
        "silhouette",
        "silhouette_sample",
        "calinski_harabasz",
        "davies_bouldin",
        "cost",
        "space",
    ] {
        assert!(!m.contains_key(key), "{key} in {m:?}");
    }
    assert!(m.contains_key("nmi"));
    assert_eq!(none["labels"], big["labels"]);
    // The summary leaves the scores' line out rather than print NaN.
    let text = run(&args[..args.len() - 2]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("silhouette on a 1000-row sample"), "{text}");
    let out = run(&[
        "run",
        "--data",
        "gen:blobs,n=3000,p=4,k=3,seed=1",
        "--no-scores",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("cluster sizes"),
        "{text}"
    );
    assert!(
        !text.contains("silhouette") && !text.contains("NaN"),
        "{text}"
    );
}

#[test]
fn bad_parameters_are_refused_with_the_range() {
    refused(
        &["run", "--data", "iris", "--k", "0"],
        "k = 0 is out of range: must be in [1, 150]",
    );
    refused(&["run", "--data", "iris", "--k", "151"], "[1, 150]");
    refused(
        &["run", "--data", "iris", "--algo", "nope"],
        "'nope' is not an algorithm",
    );
    refused(
        &["run", "--data", "iris", "--s0", "2"],
        "s0 = 2 is out of range: must be in [-1000, -0.01]",
    );
    refused(
        &["run", "--data", "iris", "--eta", "0.5"],
        "eta = 0.5 is out of range",
    );
    refused(
        &["run", "--data", "iris", "--algo", "kmeans", "--s0", "-2"],
        "does not apply to algorithm kmeans",
    );
    refused(&["run", "--data", "iris", "-P", "period=2.5"], "an integer");
    refused(&["run", "--data", "no/such/file.csv"], "no such file");
    refused(&["run", "--data", "gen:blobs,n=0"], "n");
    refused(
        &["run", "--data", "gen:blobs", "--algo", "power", "--k", "0"],
        "k = 0",
    );
}

#[test]
fn k_defaults_to_the_classes_and_is_required_without_labels() {
    let v = json(&["run", "--data", "wine", "--algo", "kmeans", "--json"]);
    assert_eq!(v["k"], 3);
    refused(
        &["run", "--data", "iris", "--label", "none"],
        "--k is required",
    );
}

#[test]
fn bad_files_exit_2_with_one_line_naming_the_file() {
    let dir = fixtures("bad");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/bad exists") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        refused(
            &["run", "--data", path.to_str().unwrap(), "--k", "2"],
            &name,
        );
        seen += 1;
    }
    assert!(seen >= 8, "only {seen} bad fixtures");
}

#[test]
fn labels_file_is_written_atomically_and_never_clobbers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("labels.csv");
    let o = out.to_str().unwrap();
    let v = json(&["run", "--data", "iris", "--json", "--out", o]);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "row,cluster");
    assert_eq!(lines.len(), 151);
    assert_eq!(lines[1], format!("0,{}", v["labels"][0]));
    refused(&["run", "--data", "iris", "--out", o], "--force");
    assert!(
        run(&["run", "--data", "iris", "--out", o, "--force", "-q"])
            .status
            .success()
    );
    // The input file itself is never a target, even with --force.
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "a,b\n1,2\n3,4\n5,7\n").unwrap();
    let i = input.to_str().unwrap();
    refused(
        &["run", "--data", i, "--k", "2", "--out", i, "--force"],
        "input file",
    );
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "a,b\n1,2\n3,4\n5,7\n"
    );
}

#[test]
fn generated_files_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("b.csv");
    let fs = f.to_str().unwrap();
    let o = run(&[
        "gen", "blobs", "--n", "300", "--seed", "5", "p=3", "k=4", "--out", fs,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_file = json(&["run", "--data", fs, "--algo", "kmeans", "--json"]);
    let direct = json(&[
        "run",
        "--data",
        "gen:blobs,n=300,seed=5,p=3,k=4",
        "--algo",
        "kmeans",
        "--json",
    ]);
    assert_eq!(from_file["k"], 4);
    assert_eq!(from_file["labels"], direct["labels"]);
    assert_eq!(from_file["metrics"], direct["metrics"]);
    refused(&["gen", "blobs", "--out", fs], "--force");
    let npy = dir.path().join("b.npy");
    let o = run(&[
        "gen",
        "sparse",
        "--seed",
        "1",
        "--out",
        npy.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let v = json(&[
        "run",
        "--data",
        npy.to_str().unwrap(),
        "--k",
        "3",
        "--algo",
        "kmeans",
        "--json",
    ]);
    assert_eq!((v["n"].as_u64(), v["p"].as_u64()), (Some(300), Some(100)));
}

#[test]
fn listings_name_everything() {
    let d = String::from_utf8(run(&["datasets"]).stdout).unwrap();
    for name in [
        "iris",
        "wine",
        "breast_cancer",
        "digits",
        "blobs",
        "rings",
        "sphere",
        "sparse",
    ] {
        assert!(d.contains(name), "datasets lacks {name}");
    }
    let a = String::from_utf8(run(&["algorithms", "power"]).stdout).unwrap();
    assert!(
        a.contains("s0") && a.contains("-1") && a.contains("1.04"),
        "{a}"
    );
    let h = String::from_utf8(run(&["run", "--help"]).stdout).unwrap();
    assert!(h.contains("Stopping rules") && h.contains("s_min"), "{h}");
}

#[test]
fn usage_errors_are_one_line_in_our_style() {
    let e = refused(&["run", "--foo"], "unexpected argument '--foo'");
    assert!(e.starts_with("meanscape: error: "), "{e}");
    assert!(
        e.trim_end().ends_with("(see 'meanscape run --help')"),
        "{e}"
    );
    refused(&["run", "--dat", "iris"], "did you mean '--data'?");
    refused(&["gen"], "<NAME>");
    refused(&["datasets", "--x"], "(see 'meanscape datasets --help')");
    // A negative k is a bad k, not an unknown option.
    refused(&["run", "--k", "-1"], "--k: -1 is not a valid k");
    refused(&["run", "--k", "two"], "'two' is not a valid k");
    refused(
        &["run", "--restarts", "-2"],
        "-2 is not a valid restart count",
    );
    refused(
        &["path", "--algo", "lw", "--seed", "-1"],
        "-1 is not a valid seed",
    );
    // A value that overflows to infinity is named as written.
    refused(
        &["run", "-P", "s0=-1e330"],
        "'-1e330' is not a finite number (in s0=-1e330)",
    );
}

#[test]
fn max_memory_is_checked_when_parsed() {
    for (value, why) in [
        ("abc", "not a number"),
        ("0", "below 1 byte"),
        ("1e400", "too large"),
        ("-5M", "cannot be negative"),
        ("12Q", "unknown unit 'Q'"),
    ] {
        let e = refused(
            &["run", "--data", "iris", "--max-memory", value],
            &format!("--max-memory: '{value}' is not a size: "),
        );
        assert!(e.contains(why), "{e}");
    }
    let v = json(&["run", "--data", "iris", "--max-memory", "1G", "--json"]);
    assert_eq!(v["n"], 150);
}

#[test]
fn every_algorithm_is_refused_above_the_budget_before_allocating() {
    // 10^5 rows and k = 1000: the data fit 8 MiB (5.3 MiB), the seeding (~10 MiB) does not.
    let base = ["run", "--data", "gen:blobs,n=100000,p=2", "--k", "1000"];
    let mut args = base.to_vec();
    args.extend(["--max-memory", "8M", "-q"]);
    let e = refused(&args, "power needs");
    assert!(
        e.contains("kmeans++ seeding") && e.contains("lower k") && e.contains("--max-memory"),
        "{e}"
    );
    for algo in [
        "kmeans",
        "khm",
        "wkmeans",
        "lw",
        "sparse-kmeans",
        "kernel-kmeans",
        "kpower",
        "mkpower",
        "spectral",
        "rff-power",
        "rff-mkpower",
        "ip-rff-mkpower",
    ] {
        let mut a = args.clone();
        a.extend(["--algo", algo]);
        refused(&a, &format!("{algo} needs"));
    }
    // The same run fits a generous budget's estimate (it is refused by no
    // check up to the solver: --max-iter 1 keeps it short).
    let ok = run(&[
        "run",
        "--data",
        "gen:blobs,n=2000,p=2",
        "--k",
        "100",
        "--max-memory",
        "64M",
        "--max-iter",
        "1",
        "-q",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn errors_about_the_data_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.csv");
    std::fs::write(&same, "a,b\n1,2\n1,2\n1,2\n1,2\n").unwrap();
    let f = same.to_str().unwrap();
    let e = refused(
        &["run", "--data", f, "--k", "2", "-q"],
        "fewer than k = 2 distinct",
    );
    assert!(e.contains(f), "{e}");
    let e = refused(
        &["run", "--data", f, "--k", "9", "-q"],
        "k = 9 is out of range",
    );
    assert!(e.contains(f), "{e}");
    refused(
        &["run", "--data", f, "-q"],
        &format!("--k is required: {f} has no ground-truth labels"),
    );
    refused(
        &["path", "--data", f, "--algo", "lw", "--k", "9", "-q"],
        &format!("{f}: k = 9 is out of range"),
    );
}

#[test]
fn path_grids_stay_in_the_declared_range_and_print_compactly() {
    let e = refused(
        &["path", "--algo", "sparse-kmeans", "--lambda", "1e-300:2:3"],
        "wbound = 1e-300 is out of range: must be in [1, 10000]",
    );
    assert!(e.len() < 200, "{e}");
    refused(
        &["path", "--algo", "lw", "--lambda", "1e300:1:3"],
        "lambda = 1e300 is out of range: must be in [0, 1000000]",
    );
    refused(
        &["path", "--algo", "sparse-kmeans", "--lambda", "2:20000:3"],
        "wbound = 20000 is out of range",
    );
    refused(
        &["path", "--algo", "lw", "--min-ratio", "2"],
        "--min-ratio 2 is out of range",
    );
    let long = format!("-0.{}1", "0".repeat(300));
    refused(
        &["path", "--algo", "lw", "--min-ratio", &long],
        "--min-ratio -1e-301 is out of range: must be in (0, 1)",
    );
}

#[test]
fn json_is_one_document_on_success_and_nothing_on_error() {
    let ok = run(&["run", "--data", "iris", "--json", "-q"]);
    assert!(ok.status.success());
    let mut docs = serde_json::Deserializer::from_slice(&ok.stdout).into_iter::<Value>();
    assert!(docs.next().unwrap().unwrap().is_object());
    assert!(docs.next().is_none(), "more than one JSON document");
    let ok = run(&["path", "--algo", "lw", "--points", "3", "--json", "-q"]);
    assert!(ok.status.success());
    let v: Value = serde_json::from_slice(&ok.stdout).expect("one JSON document");
    assert_eq!(v["path"].as_array().map(|p| p.len()), Some(3));
    let dir = tempfile::tempdir().unwrap();
    let exists = dir.path().join("x.csv");
    std::fs::write(&exists, "x").unwrap();
    for args in [
        vec!["run", "--json", "--bogus"],
        vec!["run", "--json", "--k", "-1"],
        vec!["run", "--json", "--data", "no/such.csv"],
        vec!["run", "--json", "--data", "iris", "--k", "0"],
        vec!["run", "--json", "--data", "iris", "--algo", "nope"],
        vec!["run", "--json", "--data", "iris", "--max-memory", "1K"],
        vec![
            "run",
            "--json",
            "--data",
            "iris",
            "--out",
            exists.to_str().unwrap(),
        ],
        vec!["path", "--json", "--algo", "lw", "--lambda", "5:1:0"],
        vec!["path", "--json", "--algo", "kmeans"],
    ] {
        refused(&args, "meanscape: error: ");
    }
}

/// A full disk under stdout is an error in one line with the context of
/// what failed (it used to panic in `print!`); a closed pipe is not.
#[cfg(target_os = "linux")]
#[test]
fn output_write_errors_are_one_line_and_closed_pipes_are_quiet() {
    for args in [
        &["datasets"][..],
        &["run", "--data", "iris", "--algo", "kmeans"],
    ] {
        let full = std::fs::File::create("/dev/full").expect("/dev/full");
        let out = bin().args(args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.starts_with("meanscape: error: writing the output to stdout: "),
            "{err}"
        );
    }
    let mut child = bin()
        .args(["algorithms"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `command` of a run read with a chosen label column and imputed
/// cells carries those flags, and running it gives the same result.
#[test]
fn the_command_keeps_how_the_data_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("with gaps.csv");
    let mut text = String::from("a,b,kind\n");
    for i in 0..40 {
        let (x, y) = if i < 20 {
            (i as f64 * 0.1, 0.0)
        } else {
            (5.0 + i as f64 * 0.1, 5.0)
        };
        let y = if i == 7 { String::new() } else { y.to_string() };
        text.push_str(&format!("{x},{y},{}\n", i / 20));
    }
    std::fs::write(&f, text).unwrap();
    let path = f.to_str().unwrap();
    let v = json(&[
        "run", "--data", path, "--label", "kind", "--impute", "mean", "--k", "2", "--json",
    ]);
    let cmd = v["command"].as_str().unwrap().to_string();
    assert!(
        cmd.contains("--label kind") && cmd.contains("--impute mean"),
        "{cmd}"
    );
    assert!(cmd.contains("'"), "the path with a space is quoted: {cmd}");
    // The command, run by a shell, repeats the run.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} --json",
            cmd.replacen("meanscape", env!("CARGO_BIN_EXE_meanscape"), 1)
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["labels"], v["labels"]);
    assert_eq!(again["metrics"]["nmi"], v["metrics"]["nmi"]);
}

// ------------------------------------------- issue 27: --label none

/// A yeast-like file: features, then a numeric `label` column.
fn labelled_csv(dir: &Path) -> PathBuf {
    let path = dir.join("labelled.csv");
    let mut text = String::from("a,b,label\n");
    for i in 0..40 {
        let c = i % 2;
        text.push_str(&format!(
            "{},{},{}\n",
            c as f64 * 5.0 + (i % 7) as f64 * 0.1,
            (i % 5) as f64 * 0.2,
            c * 9
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// `--label none` is "no ground truth", not "cluster on the labels": the
/// label column is left out of the features and the JSON says which;
/// `--keep-label-column` makes it a feature on request.
#[test]
fn label_none_leaves_the_label_column_out_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let csv = labelled_csv(dir.path());
    let data = csv.to_str().unwrap();
    let base = [
        "run", "--data", data, "--algo", "kmeans", "-k", "2", "--json",
    ];
    let v = json(&[&base[..], &["--label", "none"]].concat());
    assert_eq!(v["p"], 2);
    assert_eq!(v["data"]["label_left_out"], "label");
    assert!(v["metrics"].get("nmi").is_none(), "no ground truth");
    let notes = v["data"]["notes"].to_string();
    assert!(
        notes.contains("column 'label' left out of the features"),
        "{notes}"
    );
    assert!(notes.contains("--keep-label-column"), "{notes}");
    let kept = json(&[&base[..], &["--label", "none", "--keep-label-column"]].concat());
    assert_eq!(kept["p"], 3);
    assert!(kept["data"].get("label_left_out").is_none());
    assert!(
        kept["command"]
            .as_str()
            .unwrap()
            .contains("--label none --keep-label-column")
    );
    // With labels (auto) the JSON has no such field.
    let auto = json(&base);
    assert_eq!(auto["p"], 2);
    assert!(auto["data"].get("label_left_out").is_none());
    // The flag alone is a mistake.
    refused(
        &[&base[..], &["--keep-label-column"]].concat(),
        "--keep-label-column applies with --label none",
    );
    // The other commands read the data the same way.
    let text = String::from_utf8(run(&["info", "--data", data, "--label", "none"]).stdout).unwrap();
    assert!(text.contains("left out of the features"), "{text}");
}

/// The Data pane says which column `--label none` left out.
#[test]
fn the_data_pane_says_which_column_was_left_out() {
    use meanscape::data::{LabelChoice, LoadOptions};
    use meanscape::tui::app::{App, StartOptions};
    let dir = tempfile::tempdir().unwrap();
    let csv = labelled_csv(dir.path());
    let mut app = App::new(StartOptions {
        data: csv.to_str().unwrap().into(),
        algo: "kmeans".into(),
        k: Some(2),
        load_opts: LoadOptions {
            label: LabelChoice::None,
            ..LoadOptions::default()
        },
        ..StartOptions::default()
    })
    .unwrap();
    tui_support::settle(&mut app, tui_support::finished);
    assert_eq!(app.loaded().unwrap().dataset.p(), 2);
    let frame = tui_support::screen(&mut app, 120, 40, tui_support::ASCII);
    assert!(frame.contains("40 x 2"), "{frame}");
    assert!(frame.contains("no labels ('label' left out)"), "{frame}");
}

/// On the real yeast data (1484 × 8 and a label column): `--label none`
/// gives 8 features, as the labels merely ignored, not 9.
#[test]
fn yeast_with_label_none_has_eight_features() {
    let yeast = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/yeast.csv");
    if !yeast.exists() {
        eprintln!("skipped: {} is absent", yeast.display());
        return;
    }
    let v = json(&[
        "run",
        "--data",
        yeast.to_str().unwrap(),
        "--label",
        "none",
        "--algo",
        "kmeans",
        "-k",
        "10",
        "--json",
    ]);
    assert_eq!((v["n"].as_u64(), v["p"].as_u64()), (Some(1484), Some(8)));
}

/// `--weights COLUMN` takes the column out of the features and weighs the
/// rows by it; the same weights from a file give the same run; integer
/// weights give the run on repeated rows (from the same seeds: the seeds
/// here are drawn ∝ w, so the check is on the objective of the partition
/// both runs end at); the algorithms without weights refuse them.
#[test]
fn weights_come_from_a_column_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("a,b,w\n");
    let mut plain = String::from("a,b\n");
    let mut file = String::new();
    let mut repeated = String::from("a,b\n");
    for i in 0..45 {
        let (a, b) = (
            (i % 3) as f64 * 6.0 + (i as f64 * 0.37).sin(),
            (i as f64 * 0.91).cos(),
        );
        let w = 1 + i % 3;
        csv.push_str(&format!("{a},{b},{w}\n"));
        plain.push_str(&format!("{a},{b}\n"));
        file.push_str(&format!("{w}\n"));
        for _ in 0..w {
            repeated.push_str(&format!("{a},{b}\n"));
        }
    }
    let path = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (csv, plain, file, repeated) = (
        path("w.csv", &csv),
        path("plain.csv", &plain),
        path("w.txt", &file),
        path("rep.csv", &repeated),
    );
    let base = [
        "run", "--algo", "kmeans", "--k", "3", "--label", "none", "--scale", "none", "--json",
    ];
    let with = |data: &str, extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(["--data", data]);
        args.extend(extra);
        json(&args)
    };
    let by_column = with(&csv, &["--weights", "w"]);
    assert_eq!(by_column["p"], 2, "the weights column is not a feature");
    assert!(
        by_column["command"]
            .as_str()
            .unwrap()
            .contains("--weights w")
    );
    let by_file = with(&plain, &["--weights", &file]);
    assert_eq!(by_column["labels"], by_file["labels"]);
    assert_eq!(by_column["objective"], by_file["objective"]);
    let rep = with(&repeated, &[]);
    let (a, b) = (
        by_column["objective"].as_f64().unwrap(),
        rep["objective"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1e-9 * b, "{a} vs {b}");
    let unweighted = with(&plain, &[]);
    assert_ne!(unweighted["objective"], by_column["objective"]);
    refused(
        &[
            "run",
            "--data",
            &csv,
            "--algo",
            "spectral",
            "--k",
            "3",
            "--label",
            "none",
            "--weights",
            "w",
        ],
        "spectral does not take sample weights (its normalised cut is a sum over edges",
    );
    refused(
        &[
            "run",
            "--data",
            &csv,
            "--algo",
            "kmeans",
            "--k",
            "3",
            "--label",
            "none",
            "--weights",
            "nope",
        ],
        "no feature column named 'nope'",
    );
}
