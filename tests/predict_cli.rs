//! `meanscape run --save-model` and `meanscape predict` as scripts use
//! them: the saved model reproduces the run's labels, applies the fit's
//! scaling to new raw data, and bad models or data exit 2 with one line.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Refused: exit 2, one line on stderr containing `needle`, no stdout.
fn refused(args: &[&str], needle: &str) {
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
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn lines(out: &Output) -> Vec<usize> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().expect("one label per line"))
        .collect()
}

/// The labels a run wrote with --out (row,cluster).
fn csv_labels(path: &Path) -> Vec<usize> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_saved_model_predicts_the_runs_own_labels() {
    let dir = tempfile::tempdir().unwrap();
    for (algo, extra) in [
        ("power", vec![]),
        ("wkmeans", vec![]),
        ("kpower", vec!["--kernel", "gaussian:normalize"]),
        ("rff-power", vec![]),
    ] {
        let model = dir.path().join(format!("{algo}.json"));
        let out = dir.path().join(format!("{algo}.csv"));
        let mut args = vec![
            "run",
            "-d",
            "iris",
            "-a",
            algo,
            "-q",
            "--save-model",
            s(&model),
            "--out",
            s(&out),
        ];
        args.extend(extra);
        ok(&args);
        let fit = csv_labels(&out);
        let got = ok(&["predict", "-m", s(&model), "-d", "iris"]);
        let pred = lines(&got);
        assert_eq!(pred.len(), 150);
        let agree = pred.iter().zip(&fit).filter(|(a, b)| a == b).count();
        if algo == "power" || algo == "wkmeans" {
            assert_eq!(pred, fit, "{algo}");
        } else {
            assert!(agree >= 143, "{algo}: {agree} of 150 agree");
        }
        // The summary (with the scores against iris' classes) is on stderr.
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(err.contains("NMI") && err.contains("ARI"), "{err}");
    }
}

#[test]
fn json_output_and_the_labels_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    ok(&[
        "run",
        "-d",
        "iris",
        "-a",
        "kmeans",
        "-q",
        "--save-model",
        s(&model),
    ]);
    let text = std::fs::read_to_string(&model).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m["format"], "meanscape-model");
    assert_eq!(m["version"], 1);
    assert_eq!(m["algorithm"], "kmeans");
    assert_eq!(m["scaling"]["method"], "standard");
    let out = ok(&["predict", "-m", s(&model), "-d", "iris", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n"], 150);
    assert_eq!(v["labels"].as_array().unwrap().len(), 150);
    assert_eq!(v["model"]["algorithm"], "kmeans");
    assert!(v["scores"]["nmi"].as_f64().unwrap() > 0.6, "{v}");
    assert!(v["scores"]["ari"].as_f64().is_some());
    let labels = dir.path().join("labels.csv");
    ok(&[
        "predict",
        "-m",
        s(&model),
        "-d",
        "iris",
        "--out",
        s(&labels),
    ]);
    let from_file = csv_labels(&labels);
    let from_json: Vec<usize> = v["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(from_file, from_json);
    // No silent overwrite of the labels file or the model.
    refused(
        &[
            "predict",
            "-m",
            s(&model),
            "-d",
            "iris",
            "--out",
            s(&labels),
        ],
        "already exists",
    );
    refused(
        &[
            "run",
            "-d",
            "iris",
            "-a",
            "kmeans",
            "-q",
            "--save-model",
            s(&model),
        ],
        "already exists",
    );
    ok(&[
        "run",
        "-d",
        "iris",
        "-a",
        "kmeans",
        "-q",
        "--save-model",
        s(&model),
        "--force",
    ]);
}

#[test]
fn new_raw_data_gets_the_training_scaling() {
    // Three groups whose columns are in very different units: only with
    // the training scaling applied do new points land with their group.
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.csv");
    let mut text = String::from("a,b,class\n");
    let centres = [(1000.0, 0.001), (3000.0, 0.003), (5000.0, 0.001)];
    for (c, (a, b)) in centres.iter().enumerate() {
        for i in 0..30 {
            let da = ((i * 37) % 11) as f64 * 20.0 - 100.0;
            let db = ((i * 17) % 7) as f64 * 0.00005 - 0.00015;
            text.push_str(&format!("{},{},g{c}\n", a + da, b + db));
        }
    }
    std::fs::write(&train, &text).unwrap();
    let new = dir.path().join("new.csv");
    std::fs::write(
        &new,
        "a,b,class\n1010,0.00102,g0\n2990,0.00298,g1\n5020,0.00099,g2\n3005,0.00301,g1\n",
    )
    .unwrap();
    let model = dir.path().join("m.json");
    let out = dir.path().join("fit.csv");
    ok(&[
        "run",
        "-d",
        s(&train),
        "-a",
        "kmeans",
        "-q",
        "--save-model",
        s(&model),
        "--out",
        s(&out),
    ]);
    let fit = csv_labels(&out);
    let got = ok(&["predict", "-m", s(&model), "-d", s(&new), "--json"]);
    let v: Value = serde_json::from_slice(&got.stdout).unwrap();
    let pred: Vec<u64> = v["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect();
    assert_eq!(
        pred,
        vec![
            fit[0] as u64,
            fit[30] as u64,
            fit[60] as u64,
            fit[30] as u64
        ]
    );
    assert_eq!(v["scores"]["ari"], 1.0);
}

#[test]
fn bad_models_and_mismatched_data_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    ok(&[
        "run",
        "-d",
        "iris",
        "-a",
        "power",
        "-q",
        "--save-model",
        s(&model),
    ]);
    // wine has 13 features; the message names the data and the model.
    refused(
        &["predict", "-m", s(&model), "-d", "wine"],
        &format!(
            "wine: the model {} was fit on 4 features; the data has 13",
            model.display()
        ),
    );
    let text = std::fs::read_to_string(&model).unwrap();
    let v2 = dir.path().join("v2.json");
    std::fs::write(&v2, text.replacen("\"version\": 1", "\"version\": 2", 1)).unwrap();
    refused(
        &["predict", "-m", s(&v2), "-d", "iris"],
        "model format version 2 (written by meanscape 0.1.0) is not supported: this meanscape (0.1.0) reads version 1",
    );
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "not a model").unwrap();
    refused(
        &["predict", "-m", s(&junk), "-d", "iris"],
        "not a model file",
    );
    refused(
        &[
            "predict",
            "-m",
            s(&dir.path().join("missing.json")),
            "-d",
            "iris",
        ],
        "missing.json",
    );
    // Spectral is refused before it runs, and writes nothing.
    let sm = dir.path().join("s.json");
    refused(
        &[
            "run",
            "-d",
            "iris",
            "-a",
            "spectral",
            "-q",
            "--save-model",
            s(&sm),
        ],
        "spectral has no out-of-sample rule",
    );
    assert!(!sm.exists());
    refused(
        &[
            "run",
            "-d",
            "iris",
            "-a",
            "power",
            "-q",
            "--save-model",
            s(&dir.path().join("m.txt")),
        ],
        "--save-model writes .json files",
    );
}

/// `args` run with a watchdog: a process still running after 60 s is
/// killed and the test fails (a FIFO as --model used to block forever).
fn run_bounded(args: &[&str]) -> Output {
    use std::time::{Duration, Instant};
    let mut child = bin()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{args:?} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Refused as a model: exit 2, one line on stderr that names the model
/// file and contains `needle`, no control character, nothing on stdout.
fn model_refused(model: &Path, extra: &[&str], needle: &str) -> String {
    let mut args = vec!["predict", "-m", s(model), "-d", "iris"];
    args.extend(extra);
    let out = run_bounded(&args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let line = err.trim_end();
    assert!(!line.chars().any(char::is_control), "{line:?}");
    assert!(line.contains(s(model)), "names the model: {line}");
    assert!(!line.contains("iris:"), "blames the data: {line}");
    assert!(line.contains(needle), "expected '{needle}' in: {line}");
    line.to_string()
}

#[test]
fn hostile_model_files_exit_2_with_one_line_naming_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("power.json");
    ok(&[
        "run",
        "-d",
        "iris",
        "-a",
        "power",
        "-q",
        "--save-model",
        s(&model),
    ]);
    let base: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let write = |name: &str, v: &Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    // Special files: refused from their type, without blocking or reading.
    #[cfg(unix)]
    {
        let fifo = dir.path().join("fifo.json");
        let c = std::ffi::CString::new(s(&fifo)).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        model_refused(&fifo, &[], "is a named pipe (FIFO), not a regular file");
        model_refused(Path::new("/dev/zero"), &[], "is a character device");
    }
    // 2 million centres, written compactly (24 MB), under a 100 MiB budget.
    let k = 2_000_000;
    let mut v = base.clone();
    v["k"] = k.into();
    v["model"]["centroids"] = serde_json::json!([]);
    v["fit"]["sizes"] = serde_json::json!([]);
    let n = v["fit"]["n"].as_u64().unwrap().to_string();
    let mut sizes = vec!["0"; k];
    sizes[0] = &n;
    let text = v
        .to_string()
        .replacen(
            "\"centroids\":[]",
            &format!("\"centroids\":[{}]", vec!["[0,0,0,0]"; k].join(",")),
            1,
        )
        .replacen(
            "\"sizes\":[]",
            &format!("\"sizes\":[{}]", sizes.join(",")),
            1,
        );
    let big = dir.path().join("centres_2m.json");
    std::fs::write(&big, text).unwrap();
    model_refused(
        &big,
        &["--max-memory", "100M"],
        "k = 2000000, n_features = 4 declared",
    );
    // Exponents that f64 scaling cannot use.
    let mut v = base.clone();
    v["scaling"]["exps"] = serde_json::json!([2147483647, 2, 2, 1]);
    model_refused(&write("exp.json", &v), &[], "scaling.exps");
    let mut v = base.clone();
    v["scaling"]["rescale_exp"] = (-2147483648i64).into();
    model_refused(&write("rescale.json", &v), &[], "scaling.rescale_exp");
    // ESC and a newline in the algorithm: refused, and never printed raw.
    let mut v = base.clone();
    v["algorithm"] = "power\u{1b}[2J\u{1b}[31mpwned\nsecond line".into();
    let line = model_refused(&write("esc.json", &v), &[], "algorithm:");
    assert!(line.contains("\\u{1b}[2J"), "{line}");
    // Centres whose squared distances overflow.
    let mut v = base.clone();
    v["model"]["centroids"][1] = serde_json::json!([1e300, -1e300, 1e300, -1e300]);
    model_refused(&write("extreme.json", &v), &[], "model.centroids");
}

#[test]
fn a_big_but_consistent_model_is_refused_from_its_declared_sizes_then_runs_within_a_larger_budget()
{
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("rff.json");
    ok(&[
        "run",
        "-d",
        "iris",
        "-a",
        "rff-power",
        "-q",
        "--save-model",
        s(&model),
    ]);
    let base: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    // D = 10^6: beyond any run's D, refused from the field.
    let wide = |d: usize, k: usize| {
        let mut v = base.clone();
        let n = v["fit"]["n"].as_u64().unwrap();
        let mut sizes = vec![0; k];
        sizes[0] = n;
        v["k"] = k.into();
        v["fit"]["sizes"] = sizes.into();
        v["model"]["maps"][0]["rff_dim"] = d.into();
        v["model"]["maps"][0]["centres"] = serde_json::json!([]);
        let row = format!("[{}]", vec!["0"; 2 * d].join(","));
        let text = v.to_string().replacen(
            "\"centres\":[]",
            &format!("\"centres\":[{}]", vec![row; k].join(",")),
            1,
        );
        let p = dir.path().join(format!("rff_{d}_{k}.json"));
        std::fs::write(&p, text).unwrap();
        p
    };
    model_refused(
        &wide(1_000_000, 3),
        &["--max-memory", "100M"],
        "model.maps[0].rff_dim: 1000000 is above 65536",
    );
    // The largest D with 64 clusters: over 100 MiB, within 1 GiB.
    let big = wide(65536, 64);
    model_refused(&big, &["--max-memory", "100M"], "D = 65536 declared");
    let out = run_bounded(&["predict", "-m", s(&big), "-d", "iris", "--max-memory", "1G"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(lines(&out).len(), 150);
}
