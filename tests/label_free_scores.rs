//! The label-free scores of issue 24 beyond the sweep's own: those on the
//! selected features of the feature-weighted methods, the resampled scores
//! of a single run, and the messages for scores a sweep cannot give.

use meanscape::algo::Problem;
use meanscape::fit_scores::internal::on_selected;
use ndarray::array;
use serde_json::Value;
use std::process::Command;

fn meanscape(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(args)
        .output()
        .unwrap()
}

/// The words of a command line (no argument here holds a space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

fn json_of(args: &[&str]) -> Value {
    let out = meanscape(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn refusal(args: &[&str]) -> String {
    let out = meanscape(args);
    assert!(!out.status.success(), "{args:?} was accepted");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn selected_scores_are_those_of_the_selected_columns_by_hand() {
    // Column 0 holds the two clusters, column 1 is noise, and weight 0
    // drops it: the scores are those of column 0 alone.
    let x = array![[0.0, 5.0], [1.0, -5.0], [10.0, 5.0], [11.0, -5.0]];
    let labels = [0, 0, 1, 1];
    let s = on_selected(&Problem::new(x.clone()), &[0.7, 0.0], &labels).unwrap();
    // Silhouette: a = 1 for every row, b = 10.5, 9.5, 9.5, 10.5.
    let sil = 1.0 - (1.0 / 10.5 + 1.0 / 9.5) / 2.0;
    assert!((s.silhouette_selected - sil).abs() < 1e-12);
    // Means 0.5 and 10.5: W = 4 · 0.25 = 1, B = 4 · 25 = 100.
    assert!((s.cost_selected - 1.0).abs() < 1e-12);
    assert!((s.calinski_harabasz_selected - 100.0 / 1.0 * (4.0 - 2.0) / (2.0 - 1.0)).abs() < 1e-9);
    // Davies–Bouldin: spreads 0.5 and 0.5, centres 10 apart.
    assert!((s.davies_bouldin_selected - 0.1).abs() < 1e-12);
    // Unweighted: the weight's size does not matter, only that it is > 0.
    let t = on_selected(&Problem::new(x.clone()), &[3.0, 0.0], &labels).unwrap();
    assert_eq!(s, t);
    // With the noise column kept, the silhouette drops.
    let all = on_selected(&Problem::new(x.clone()), &[0.7, 0.2], &labels).unwrap();
    assert!(all.silhouette_selected < s.silhouette_selected);
    // Nothing selected, or weights of another length: no scores.
    assert!(on_selected(&Problem::new(x.clone()), &[0.0, 0.0], &labels).is_none());
    assert!(on_selected(&Problem::new(x), &[1.0], &labels).is_none());
}

const SPARSE: &str = "gen:sparse,n=300,p=60,q=6,k=3,sep=3,seed=7";

#[test]
fn the_selected_silhouette_follows_lambda() {
    // λ = 0 keeps every feature; λ = 3/p drops the noise features.
    let v = json_of(&words(&format!(
        "sweep -d {SPARSE} -a lw --grid lambda=0,0.05 --seeds 2 --resamples 0 --score silhouette_selected --json -q"
    )));
    assert_eq!(v["score"], "silhouette_selected");
    let cells = v["cells"].as_array().unwrap();
    let mean = |c: &Value, n: &str| c["scores"][n]["mean"].as_f64().unwrap();
    let (all, some) = (&cells[0], &cells[1]);
    assert_eq!(mean(all, "selected"), 60.0);
    assert!(mean(some, "selected") < 60.0, "{}", mean(some, "selected"));
    // On every feature the two cells look alike; on the selected ones
    // the cell that kept the informative features scores higher.
    assert_eq!(mean(all, "silhouette_selected"), mean(all, "silhouette"));
    assert!(
        mean(some, "silhouette_selected") > mean(all, "silhouette_selected") + 0.05,
        "{} vs {}",
        mean(some, "silhouette_selected"),
        mean(all, "silhouette_selected")
    );
    for n in [
        "cost_selected",
        "calinski_harabasz_selected",
        "davies_bouldin_selected",
    ] {
        assert!(some["scores"][n]["mean"].is_f64(), "{n}");
        assert!(some["runs"][0][n].is_f64(), "{n}");
    }
    assert_eq!(v["best"]["silhouette_selected"]["cell"], 1);
}

#[test]
fn run_json_has_the_selected_scores_for_weighted_methods_only() {
    let v = json_of(&["run", "-d", SPARSE, "-a", "sparse-kmeans", "--json", "-q"]);
    let m = &v["metrics"];
    let sil = m["silhouette_selected"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&sil));
    assert!(sil > m["silhouette"].as_f64().unwrap());
    assert!(m["davies_bouldin_selected"].is_f64());
    let v = json_of(&["run", "-d", SPARSE, "-a", "kmeans", "--json", "-q"]);
    assert!(v["metrics"].get("silhouette_selected").is_none());
}

#[test]
fn run_resamples_gives_the_resampled_scores_with_their_errors() {
    let data = "gen:blobs,n=300,k=3,sep=10,seed=1";
    let args = ["run", "-d", data, "-a", "kmeans", "-k", "3"];
    let v = json_of(&[&args[..], &["--resamples", "8", "--json", "-q"]].concat());
    let m = &v["metrics"];
    assert_eq!(m["resamples"], 8);
    let ps = m["prediction_strength"].as_f64().unwrap();
    assert!(ps > 0.8 && ps <= 1.0, "{ps}");
    assert!(m["prediction_strength_se"].as_f64().unwrap() >= 0.0);
    let st = m["resample_stability"].as_f64().unwrap();
    assert!(st > 0.8 && st <= 1.0, "{st}");
    assert!(m["resample_stability_se"].as_f64().unwrap() >= 0.0);
    let pac = m["pac"].as_f64().unwrap();
    assert!((0.0..0.1).contains(&pac), "{pac}");
    // The gap compares values of k: not for one run.
    assert!(m.get("gap").is_none());
    // The same again on one thread (the splits are drawn from the seed).
    let out = Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args([&args[..], &["--resamples", "8", "--json", "-q"]].concat())
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    for n in ["prediction_strength", "resample_stability", "pac"] {
        assert_eq!(again["metrics"][n], m[n], "{n}");
    }
    // Too many clusters for the data: the halves split them differently.
    let k6 = json_of(&words(&format!(
        "run -d {data} -a kmeans -k 6 --resamples 8 --json -q"
    )));
    let m6 = &k6["metrics"];
    assert!(m6["prediction_strength"].as_f64().unwrap() < ps - 0.2);
    assert!(m6["pac"].as_f64().unwrap() > pac);
    // Default 0: none of them.
    let v = json_of(&[&args[..], &["--json", "-q"]].concat());
    assert!(v["metrics"].get("prediction_strength").is_none());
    assert!(v["metrics"].get("resamples").is_none());
}

#[test]
fn gap_without_a_k_axis_is_refused_saying_why() {
    let err = refusal(&words(
        "sweep -d gen:blobs,n=120,k=3,seed=1 --label none -a power -k 3 --grid s0=-3,-1 --seeds 1 --resamples 2 --score gap",
    ));
    assert!(err.contains("--score gap"), "{err}");
    assert!(err.contains("needs a k axis"), "{err}");
    // Not offered among the scores of this sweep either.
    assert!(!err.contains(", gap"), "{err}");
    // With a k axis it is a score.
    let v = json_of(&words(
        "sweep -d gen:blobs,n=120,k=3,seed=1 --label none -a kmeans --grid k=2:3:2 --seeds 1 --resamples 2 --score gap --json -q",
    ));
    assert!(v["cells"][0]["scores"]["gap"]["mean"].is_f64());
}

#[test]
fn resampled_scores_without_resampling_name_the_flag() {
    for name in ["prediction_strength", "resample_stability", "pac"] {
        let err = refusal(&words(&format!(
            "sweep -d gen:blobs,n=120,k=3,seed=1 -a kmeans --grid k=2:3:2 --seeds 1 --score {name}"
        )));
        assert!(err.contains(&format!("--score {name}")), "{err}");
        assert!(err.contains("--resamples B"), "{err}");
    }
}

/// The attribute `name` of the first element of `svg` that has class
/// `recommended` and starts with `tag`.
fn recommended_attr(svg: &str, tag: &str, name: &str) -> Option<f64> {
    let line = svg
        .lines()
        .find(|l| l.starts_with(tag) && l.contains(r#"class="recommended""#))?;
    let rest = &line[line.find(&format!(" {name}=\""))? + name.len() + 3..];
    rest[..rest.find('"')?].parse().ok()
}

#[test]
fn the_sweep_plot_marks_the_recommended_cell() {
    let dir = tempfile::tempdir().unwrap();
    let line = dir.path().join("k.svg");
    let data = "gen:blobs,n=240,k=4,sep=12,seed=3";
    json_of(&words(&format!(
        "sweep -d {data} --label none -a kmeans --grid k=2:6:5 --seeds 2 --resamples 4 --score silhouette --json -q --plot {}",
        line.to_str().unwrap()
    )));
    let svg = std::fs::read_to_string(&line).unwrap();
    assert!(
        svg.contains("recommended without labels (dashed): k=4 (by prediction_strength)"),
        "{svg}"
    );
    // The dashed line stands at k = 4's tick.
    let x = recommended_attr(&svg, "<line", "x1").expect("a recommended line");
    let tick = svg
        .lines()
        .find(|l| l.starts_with("<text x=") && l.ends_with(">4</text>"))
        .unwrap();
    let tick_x: f64 = tick[9..tick[9..].find('"').unwrap() + 9].parse().unwrap();
    assert!((x - tick_x).abs() < 0.05, "{x} vs {tick_x}");
    // A heatmap outlines the recommended cell, once.
    let map = dir.path().join("map.svg");
    let v = json_of(&words(&format!(
        "sweep -d {data} --label none -a power --grid k=3:5:3 --grid s0=-2,-1 --seeds 1 --resamples 4 --json -q --plot {}",
        map.to_str().unwrap()
    )));
    let svg = std::fs::read_to_string(&map).unwrap();
    assert_eq!(svg.matches(r#"<rect class="recommended""#).count(), 1);
    let at = &v["recommended"]["at"];
    let named = format!(
        "recommended without labels (dashed): k={}, s0={}",
        at["k"], at["s0"]
    );
    assert!(svg.contains(&named), "{named} in {svg}");
}

#[test]
fn the_path_gives_each_point_its_selected_scores() {
    let v = json_of(&words(
        "path -d gen:sparse,n=200,p=20,q=4,k=3,seed=1 -a lw --points 4 --json -q",
    ));
    let path = v["path"].as_array().unwrap();
    let sil = |i: usize| path[i]["metrics"]["silhouette_selected"].as_f64();
    // λ_max selects nothing: no clustering, no score (null, as the NMI).
    assert_eq!(path[0]["selected"], 0);
    assert!(path[0]["metrics"]["silhouette_selected"].is_null());
    // The 4 informative features against all 20.
    assert_eq!(path[1]["selected"], 4);
    assert_eq!(path[3]["selected"], 20);
    assert!(sil(1).unwrap() > sil(3).unwrap() + 0.3, "{path:?}");
}

/// The text summary (no `--json`) prints the scores beyond the four
/// label-free ones when the run has them, with the values the JSON has.
#[test]
fn the_text_summary_prints_the_resampled_selected_and_kernel_scores() {
    let text = |args: &[&str]| String::from_utf8(meanscape(args).stdout).unwrap();
    let blobs = [
        "run",
        "-d",
        "gen:blobs,n=500,p=2,k=3,seed=1",
        "-a",
        "kmeans",
        "-k",
        "3",
        "--resamples",
        "10",
    ];
    let out = text(&blobs);
    let json = json_of(&[&blobs[..], &["--json"]].concat());
    let ps = json["metrics"]["prediction_strength"].as_f64().unwrap();
    let line = out
        .lines()
        .find(|l| l.contains("resampled (10 splits)"))
        .expect(&out);
    assert!(
        line.contains(&format!("prediction strength {ps:.4}")),
        "{line}"
    );
    assert!(!out.contains("kernel alignment") && !out.contains("selected features:"));

    let lw = [
        "run",
        "-d",
        "gen:sparse,n=300,p=60,q=6,k=3,sep=3,seed=7",
        "-a",
        "lw",
        "-k",
        "3",
        "-P",
        "lambda=0.05",
    ];
    let out = text(&lw);
    let sil = json_of(&[&lw[..], &["--json"]].concat())["metrics"]["silhouette_selected"]
        .as_f64()
        .unwrap();
    let line = out
        .lines()
        .find(|l| l.contains("on the selected features"))
        .expect(&out);
    assert!(line.contains(&format!("silhouette {sil:.4}")), "{line}");
    assert!(!out.contains("resampled ("));

    let rings = [
        "run",
        "-d",
        "gen:rings",
        "-a",
        "kpower",
        "--label",
        "none",
        "-P",
        "sigma=0.69",
    ];
    let out = text(&rings);
    let a = json_of(&[&rings[..], &["--json"]].concat())["metrics"]["kernel_alignment"]
        .as_f64()
        .unwrap();
    assert!(out.contains(&format!("kernel alignment {a:.4}")), "{out}");
}
