//! `meanscape sweep -a kmeans,spectral --kernel knn`: one family of cells
//! per algorithm, named in the cells and in the recommendation; the
//! single-algorithm JSON keeps its shape; refusals are one line.

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn two_families_name_the_algorithm_in_cells_and_recommendation() {
    let out = run(&[
        "sweep",
        "-d",
        "iris",
        "--label",
        "none",
        "-a",
        "kmeans,spectral",
        "--kernel",
        "knn",
        "--grid",
        "k=2:4:3",
        "--seeds",
        "2",
        "--resamples",
        "4",
        "--json",
        "-q",
    ]);
    let j = json(&out);
    assert_eq!(j["algorithm"], "kmeans,spectral");
    assert_eq!(j["algorithms"], serde_json::json!(["kmeans", "spectral"]));
    let cells = j["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for (i, c) in cells.iter().enumerate() {
        let algo = if i < 3 { "kmeans" } else { "spectral" };
        assert_eq!(c["algorithm"], algo);
        assert_eq!(c["at"]["algorithm"], algo);
        assert_eq!(c["at"]["k"], (i % 3 + 2) as u64);
        assert!(c["scores"]["prediction_strength"]["mean"].is_number());
    }
    // The gap statistic only for the algorithm without a kernel.
    assert!(cells[0]["scores"]["gap"].is_object());
    assert!(cells[3]["scores"].get("gap").is_none());
    // The kernel reached spectral only.
    assert_eq!(j["families"]["spectral"]["params"]["kernel"], "knn");
    assert!(j["families"]["kmeans"]["params"].get("kernel").is_none());
    let rec = &j["recommended"];
    let cell = rec["cell"].as_u64().unwrap() as usize;
    assert_eq!(rec["at"], cells[cell]["at"]);
    assert!(
        rec["by"]
            .as_str()
            .unwrap()
            .starts_with("prediction_strength")
    );
    // The largest k within two standard errors of the highest prediction
    // strength of all cells, the earlier algorithm at that k.
    let ps = |c: &Value| c["scores"]["prediction_strength"]["mean"].as_f64().unwrap();
    let se = |c: &Value| c["scores"]["prediction_strength"]["sd"].as_f64().unwrap();
    let live: Vec<&Value> = cells
        .iter()
        .filter(|c| c.get("collapsed").is_none())
        .collect();
    let top = live
        .iter()
        .copied()
        .reduce(|a, b| if ps(b) > ps(a) { b } else { a })
        .unwrap();
    let bar = ps(top) - 2.0 * se(top);
    let k_of = |c: &Value| c["at"]["k"].as_u64().unwrap();
    let want_k = live
        .iter()
        .filter(|c| ps(c) >= bar)
        .map(|c| k_of(c))
        .max()
        .unwrap();
    assert_eq!(k_of(&cells[cell]), want_k);
    assert!(ps(&cells[cell]) >= bar);
    let first = live
        .iter()
        .find(|c| k_of(c) == want_k && ps(c) >= bar)
        .unwrap();
    assert_eq!(cells[cell]["algorithm"], first["algorithm"]);

    let text = run(&[
        "sweep",
        "-d",
        "iris",
        "--label",
        "none",
        "-a",
        "kmeans,spectral",
        "--kernel",
        "knn",
        "--grid",
        "k=2:3:2",
        "--seeds",
        "1",
        "--resamples",
        "2",
        "-q",
    ]);
    assert!(text.status.success());
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(t.contains("sweep of kmeans on iris"), "{t}");
    assert!(t.contains("sweep of spectral on iris"), "{t}");
    assert!(
        t.contains("recommended without labels over kmeans, spectral: algorithm="),
        "{t}"
    );
}

#[test]
fn one_family_keeps_its_json() {
    let j = json(&run(&[
        "sweep",
        "-d",
        "iris",
        "--label",
        "none",
        "-a",
        "kmeans",
        "--grid",
        "k=2:3:2",
        "--seeds",
        "1",
        "--resamples",
        "2",
        "--json",
        "-q",
    ]));
    assert_eq!(j["algorithm"], "kmeans");
    assert!(j.get("algorithms").is_none() && j.get("families").is_none());
    assert!(j["cells"][0].get("algorithm").is_none());
    assert!(j["cells"][0]["at"].get("algorithm").is_none());
    assert!(j["recommended"]["at"].get("algorithm").is_none());
}

#[test]
fn refusals_are_one_line() {
    let base = [
        "sweep", "-d", "iris", "--label", "none", "--grid", "k=2:3:2", "-q",
    ];
    let cases: [(&[&str], &str); 5] = [
        (
            &["-a", "kmeans,spectral", "--csv"],
            "--csv and --plot take one algorithm",
        ),
        (&["-a", "kmeans,kmeans"], "kmeans is named twice"),
        (&["-a", "kmeans,nosuch"], "nosuch"),
        (
            &["-a", "kmeans,power", "--kernel", "knn"],
            "--kernel: none of kmeans, power takes it",
        ),
        (
            &["-a", "kmeans,kpower", "--kernel", "knn"],
            "not a positive semi-definite kernel",
        ),
    ];
    for (extra, want) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra);
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
}
