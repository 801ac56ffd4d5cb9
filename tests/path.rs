//! Regularisation paths (`meanscape path`, `algo::path`): the automatic
//! grid runs from "nothing selected" to "everything selected", the number
//! selected moves monotonically along it, sparse k-means keeps its bounds
//! at every point, cancellation, and the CLI's CSV and JSON shapes; plus
//! the feature-selection fields of `meanscape run --json`.

mod tui_support;

use meanscape::Error;
use meanscape::algo::path::{DEFAULT_POINTS, Grid, PathAlgo, run_path};
use meanscape::algo::{self, Ctx, Init, RunConfig};
use meanscape::data::{LoadOptions, Scaling};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const SPARSE: &str = "gen:sparse,n=300,p=60,q=12,k=3,sep=3,seed=11";

fn load(spec: &str) -> meanscape::Loaded {
    meanscape::load(spec, &LoadOptions::default(), Scaling::Standard).unwrap()
}

fn config(id: &str, l: &meanscape::Loaded, k: usize) -> RunConfig {
    let a = algo::find(id).unwrap();
    RunConfig {
        k,
        seed: 2,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), &l.problem, k, &[]).unwrap(),
        options: Default::default(),
        centres: None,
    }
}

#[test]
fn lw_auto_path_goes_from_none_to_all_monotonically() {
    let l = load(SPARSE);
    let rel = l.dataset.relevance.clone().unwrap();
    let truth = l.dataset.labels.as_ref().unwrap().ids.clone();
    let cfg = config("lw", &l, 3);
    let grid = Grid::Auto {
        count: 25,
        ratio: None,
    };
    let r = run_path(PathAlgo::Lw, &l.problem, &cfg, &grid, &Ctx::new()).unwrap();
    assert_eq!(r.points.len(), 25);
    let first = &r.points[0];
    assert_eq!(first.lambda, r.limit, "starts at lambda_max");
    assert_eq!(first.selected, 0);
    assert_eq!(r.points.last().unwrap().selected, 60);
    for w in r.points.windows(2) {
        assert!(w[1].lambda < w[0].lambda, "λ decreases");
        assert!(
            w[1].selected >= w[0].selected,
            "selected {} then {}",
            w[0].selected,
            w[1].selected
        );
    }
    for p in &r.points {
        assert_eq!(
            p.selected,
            p.feature_weights.iter().filter(|&&v| v > 0.0).count()
        );
        assert!(p.feature_weights.iter().all(|v| v.is_finite() && *v >= 0.0));
        assert!(p.objective.is_finite());
    }
    // Somewhere along the path exactly the informative features survive.
    assert!(
        r.points
            .iter()
            .any(|p| p.metrics(Some(&truth), Some(&rel))["mcc"] == 1.0),
        "no point with MCC 1"
    );
    // An explicit grid runs in the given order.
    let grid = Grid::parse("0.001:0.1:4").unwrap();
    let r = run_path(PathAlgo::Lw, &l.problem, &cfg, &grid, &Ctx::new()).unwrap();
    let lams: Vec<f64> = r.points.iter().map(|p| p.lambda).collect();
    assert!((lams[0] - 0.001).abs() < 1e-15 && (lams[3] - 0.1).abs() < 1e-15);
    assert!(
        (lams[1] - 0.001 * 100f64.powf(1.0 / 3.0)).abs() < 1e-12,
        "log-spaced: {lams:?}"
    );
    assert!(r.points.windows(2).all(|w| w[1].selected <= w[0].selected));
}

#[test]
fn sparse_kmeans_path_keeps_the_bounds() {
    let l = load(SPARSE);
    let cfg = config("sparse-kmeans", &l, 3);
    let grid = Grid::Auto {
        count: 12,
        ratio: None,
    };
    let r = run_path(PathAlgo::SparseKMeans, &l.problem, &cfg, &grid, &Ctx::new()).unwrap();
    assert!((r.points[0].lambda - 1.1).abs() < 1e-12);
    assert!((r.points.last().unwrap().lambda - r.limit).abs() < 1e-9 * r.limit);
    for w in r.points.windows(2) {
        assert!(w[1].lambda > w[0].lambda);
        assert!(w[1].selected >= w[0].selected);
    }
    for p in &r.points {
        let l1: f64 = p.feature_weights.iter().sum();
        let l2: f64 = p.feature_weights.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(l1 <= p.lambda * (1.0 + 1e-12) && (l2 - 1.0).abs() < 1e-12);
    }
    assert!(r.points[0].selected <= 3);
    let e = run_path(
        PathAlgo::SparseKMeans,
        &l.problem,
        &cfg,
        &Grid::Values(vec![2.0, 0.5]),
        &Ctx::new(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
}

#[test]
fn path_cancels_and_refuses_bad_grids() {
    let l = load(SPARSE);
    let cfg = config("lw", &l, 3);
    let ctx = Ctx::new().with_cancel(Arc::new(AtomicBool::new(true)));
    let auto = Grid::Auto {
        count: 5,
        ratio: None,
    };
    let e = run_path(PathAlgo::Lw, &l.problem, &cfg, &auto, &ctx).unwrap_err();
    assert!(matches!(e, Error::Cancelled));
    for bad in ["1:2", "a:1:3", "1:2:0", "-1:2:3", "1:inf:3"] {
        let e = Grid::parse(bad).unwrap_err();
        assert!(e.to_string().contains("FROM:TO:COUNT"), "{bad}: {e}");
    }
    assert!(PathAlgo::from_id("power").is_err());
    let cfg2 = RunConfig { restarts: 3, ..cfg };
    assert!(run_path(PathAlgo::Lw, &l.problem, &cfg2, &auto, &Ctx::new()).is_err());
}

// ---- the binary ----

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn refused(args: &[&str], needle: &str) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in {err}"
    );
}

#[test]
fn cli_path_json_shape() {
    let text = ok_stdout(&[
        "path", "--data", SPARSE, "--algo", "lw", "--points", "8", "--json",
    ]);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["algorithm"], "lw");
    assert_eq!(v["parameter"], "lambda");
    let params = v["params"].as_object().unwrap();
    assert!(
        params.contains_key("beta") && params.contains_key("k") && !params.contains_key("lambda")
    );
    assert!(v["lambda_max"].as_f64().unwrap() > 0.0);
    let path = v["path"].as_array().unwrap();
    assert_eq!(path.len(), 8);
    for pt in path {
        for key in [
            "lambda",
            "selected",
            "feature_weights",
            "objective",
            "metrics",
        ] {
            assert!(pt.get(key).is_some(), "point lacks {key}");
        }
        let w = pt["feature_weights"].as_array().unwrap();
        assert_eq!(w.len(), 60);
        let sel = w.iter().filter(|x| x.as_f64().unwrap() > 0.0).count() as u64;
        assert_eq!(pt["selected"].as_u64().unwrap(), sel);
        let m = pt["metrics"].as_object().unwrap();
        // Nothing selected: no clustering, so no score against the truth
        // (null), but the selection's MCC.
        let clustered = sel > 0;
        for key in ["nmi", "ari", "acc", "cer", "purity"] {
            if clustered {
                assert!(m[key].as_f64().unwrap().is_finite(), "metrics lack {key}");
            } else {
                assert!(m[key].is_null(), "{key} at 0 selected: {}", m[key]);
            }
        }
        assert!(m["mcc"].as_f64().unwrap().is_finite());
    }
    assert_eq!(path[0]["selected"], 0);
    assert_eq!(path[7]["selected"], 60);
    let sk = ok_stdout(&[
        "path",
        "--data",
        SPARSE,
        "--algo",
        "sparse-kmeans",
        "--lambda",
        "1.5:6:3",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&sk).unwrap();
    assert_eq!(v["parameter"], "wbound");
    assert_eq!(v["path"][0]["lambda"], 1.5);
    assert_eq!(v["path"].as_array().unwrap().len(), 3);
}

#[test]
fn cli_path_csv_shape() {
    let text = ok_stdout(&[
        "path",
        "--data",
        SPARSE,
        "--algo",
        "lw",
        "--lambda",
        "0.05:0.005:5",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "header + 5 points");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(
        &header[..5],
        ["lambda", "selected", "objective", "iterations", "converged"]
    );
    assert!(header.contains(&"mcc") && header.contains(&"cer"));
    // Six scores against the truth, four on the selected features.
    assert!(header.contains(&"silhouette_selected"));
    assert_eq!(header.len(), 5 + 6 + 4 + 60);
    assert_eq!(header[15], "w_f1");
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), header.len());
        let sel: usize = f[1].parse().unwrap();
        let nz = f[15..]
            .iter()
            .filter(|x| x.parse::<f64>().unwrap() > 0.0)
            .count();
        assert_eq!(sel, nz);
    }
    assert_eq!(lines[1].split(',').next().unwrap(), "0.05");
    // Real data without relevance: no mcc column.
    let text = ok_stdout(&["path", "--data", "wine", "--algo", "lw", "--points", "3"]);
    let header = text.lines().next().unwrap();
    assert!(
        header.contains("cer") && !header.contains("mcc") && header.contains("w_alcohol"),
        "{header}"
    );
    refused(
        &["path", "--data", "wine", "--algo", "power"],
        "no regularisation path",
    );
    refused(
        &["path", "--data", "wine", "--algo", "lw", "-P", "lambda=0.1"],
        "--lambda",
    );
    refused(
        &["path", "--data", "wine", "--algo", "lw", "--lambda", "1:2"],
        "FROM:TO:COUNT",
    );
    refused(
        &["path", "--data", "wine", "--algo", "lw", "--restarts", "2"],
        "--restarts",
    );
    refused(
        &["path", "--data", "wine", "--algo", "lw", "--min-ratio", "2"],
        "ratio",
    );
}

#[test]
fn cli_run_reports_the_selection() {
    let text = ok_stdout(&[
        "run",
        "--data",
        SPARSE,
        "--algo",
        "lw",
        "-P",
        "lambda=0.03",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["feature_weights"].as_array().unwrap().len(), 60);
    assert_eq!(v["selected_features"], 12);
    assert_eq!(v["selection_mcc"], 1.0);
    assert!(v["lambda_max"].as_f64().unwrap() > 0.03 && v["alpha"].as_f64().unwrap() > 0.0);
    let cmd = v["command"].as_str().unwrap();
    assert!(
        cmd.contains("--algo lw") && cmd.contains("-P lambda=0.03"),
        "{cmd}"
    );
    // No relevance vector, no MCC.
    let v: Value = serde_json::from_str(&ok_stdout(&[
        "run", "--data", "wine", "--algo", "wkmeans", "--json",
    ]))
    .unwrap();
    assert!(v.get("selection_mcc").is_none() && v["selected_features"] == 13);
    let human = ok_stdout(&[
        "run",
        "--data",
        SPARSE,
        "--algo",
        "sparse-kmeans",
        "-P",
        "wbound=2",
    ]);
    assert!(human.contains("selection MCC"), "{human}");
    let v: Value = serde_json::from_str(&ok_stdout(&[
        "run",
        "--data",
        SPARSE,
        "--algo",
        "sparse-kmeans",
        "--tune",
        "gap",
        "-P",
        "nperms=4",
        "--json",
    ]))
    .unwrap();
    assert!(v["gap"]["best_wbound"].as_f64().unwrap() >= 1.2);
    assert!(v["command"].as_str().unwrap().contains("--tune gap"));
    refused(
        &["run", "--data", "wine", "--algo", "lw", "--tune", "gap"],
        "--tune",
    );
    refused(
        &[
            "run",
            "--data",
            "wine",
            "--algo",
            "sparse-kmeans",
            "--tune",
            "cv",
        ],
        "cv",
    );
    refused(
        &["run", "--data", "wine", "--algo", "lw", "-P", "beta=1"],
        "beta",
    );
    refused(
        &[
            "run",
            "--data",
            "wine",
            "--algo",
            "sparse-kmeans",
            "-P",
            "wbound=0.5",
        ],
        "wbound",
    );
}

#[test]
fn cli_json_says_the_scaling_and_pairs_weights_with_names() {
    // lw's own default is no pre-scaling; --scale overrides it.
    let v: Value = serde_json::from_str(&ok_stdout(&[
        "run", "--data", "wine", "--algo", "lw", "--json",
    ]))
    .unwrap();
    assert_eq!(v["params"]["scale"], "none");
    assert_eq!(v["params"]["scale_default"], true);
    assert_eq!(v["data"]["scale"], "none");
    assert!(!v["command"].as_str().unwrap().contains("--scale"));
    let features = v["features"].as_array().unwrap();
    let weights = v["feature_weights"].as_array().unwrap();
    assert_eq!(features.len(), 13);
    assert_eq!(features[0]["name"], "alcohol");
    for (f, w) in features.iter().zip(weights) {
        assert_eq!(&f["weight"], w);
    }
    let v: Value = serde_json::from_str(&ok_stdout(&[
        "run", "--data", "wine", "--algo", "lw", "--scale", "standard", "--json",
    ]))
    .unwrap();
    assert_eq!(v["params"]["scale"], "standard");
    assert_eq!(v["params"]["scale_default"], false);
    assert!(v["command"].as_str().unwrap().contains("--scale standard"));
    // Every other algorithm keeps its own default.
    for (id, scale) in [("power", "standard"), ("wkmeans", "minmax")] {
        let v: Value = serde_json::from_str(&ok_stdout(&[
            "run", "--data", "wine", "--algo", id, "--json",
        ]))
        .unwrap();
        assert_eq!(v["params"]["scale"], scale, "{id}");
        assert_eq!(v["params"]["scale_default"], true, "{id}");
        assert!(v.get("features").is_none() || id == "wkmeans");
    }
    let text = ok_stdout(&[
        "path", "--data", "wine", "--algo", "lw", "--points", "3", "--json",
    ]);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["params"]["scale"], "none");
    assert_eq!(v["data"]["scale_default"], true);
    let info = ok_stdout(&["algorithms", "lw"]);
    assert!(info.contains("default scaling: --scale none"), "{info}");
}

// ------------------------------------------- issue 27: what misleads

/// Where no feature is selected the path has no clustering: the library
/// gives no partition and null scores, never the initial partition's
/// (Leukemia: "0 selected · CER 0.028").
#[test]
fn a_point_with_nothing_selected_has_no_scores() {
    let l = load(SPARSE);
    let truth = l.dataset.labels.as_ref().unwrap().ids.clone();
    let rel = l.dataset.relevance.clone().unwrap();
    let cfg = config("lw", &l, 3);
    let r = run_path(
        PathAlgo::Lw,
        &l.problem,
        &cfg,
        &Grid::Auto {
            count: 6,
            ratio: None,
        },
        &Ctx::new(),
    )
    .unwrap();
    let empty = &r.points[0];
    assert_eq!(empty.selected, 0);
    assert!(empty.clustering().is_none());
    let m = empty.metrics(Some(&truth), Some(&rel));
    for key in ["nmi", "ari", "acc", "cer", "purity"] {
        assert!(m[key].is_null(), "{key}: {}", m[key]);
    }
    assert!(m["mcc"].is_number());
    let full = r.points.last().unwrap();
    assert!(full.selected > 0 && full.clustering().is_some());
    assert!(full.metrics(Some(&truth), None)["cer"].is_number());
}

/// The CSV leaves those scores empty.
#[test]
fn cli_csv_leaves_the_scores_of_nothing_selected_empty() {
    let text = ok_stdout(&["path", "--data", SPARSE, "--algo", "lw", "--points", "4"]);
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut seen_empty = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let sel: usize = f[col("selected")].parse().unwrap();
        for name in ["nmi", "ari", "acc", "cer", "purity"] {
            if sel == 0 {
                assert_eq!(f[col(name)], "", "{name} at 0 selected: {line}");
            } else {
                assert!(f[col(name)].parse::<f64>().is_ok(), "{name}: {line}");
            }
        }
        assert!(f[col("mcc")].parse::<f64>().is_ok());
        seen_empty += usize::from(sel == 0);
    }
    assert_eq!(seen_empty, 1, "the automatic grid starts at lambda_max");
}

fn svg_polylines(svg: &str, class: &str) -> usize {
    svg.matches(&format!(r#"<polyline class="{class}""#))
        .count()
}

/// `path --out FILE` and `--plot FILE.svg`, under the rules of `sweep`'s
/// outputs: nothing replaced without --force, never the input, the
/// extension of the format.
#[test]
fn cli_path_writes_out_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    let svg = dir.path().join("p.svg");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "path", "--data", SPARSE, "--algo", "lw", "--points", "5", "-q",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (csv_s, svg_s) = (s(&csv), s(&svg));
    let out = run(&args(&["--out", &csv_s, "--plot", &svg_s])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "the CSV went to --out");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 6);
    assert!(text.starts_with("lambda,selected,"));
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.trim_end().ends_with("</svg>"));
    // The weights, the share selected, NMI and CER (the data has labels),
    // and the band where nothing is selected.
    assert!(svg_polylines(&plot, "weight") >= 1);
    assert_eq!(svg_polylines(&plot, "selected"), 1);
    assert!(svg_polylines(&plot, "nmi") >= 1 && svg_polylines(&plot, "cer") >= 1);
    assert!(plot.contains(r#"class="no-feature""#) && plot.contains("no feature kept"));
    assert!(plot.contains("λ (log scale)"));
    // Again: refused without --force, nothing changed.
    let again = |extra: &[&str]| run(&args(extra).iter().map(String::as_str).collect::<Vec<_>>());
    let o = again(&["--out", &csv_s]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("already exists; pass --force"), "{e}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), text);
    let o = again(&["--out", &csv_s, "--force", "--json"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("path --out writes .json files"), "{e}");
    let json = dir.path().join("p.json");
    let o = again(&["--out", &s(&json), "--json"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["path"].as_array().unwrap().len(), 5);
    let o = again(&["--plot", &s(&dir.path().join("p.png"))]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("path --plot writes .svg files"));
    let o = again(&["--out", &csv_s, "--plot", &csv_s, "--force"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("name the same file"));
    // Never over the input, even with --force.
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "a,b,label\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n").unwrap();
    let o = run(&[
        "path",
        "--data",
        &s(&input),
        "--algo",
        "lw",
        "--points",
        "2",
        "--out",
        &s(&input),
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to overwrite the input"));
    assert!(
        std::fs::read_to_string(&input)
            .unwrap()
            .starts_with("a,b,label")
    );
    // Nothing but the three outputs was left in the folder.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["in.csv", "p.csv", "p.json", "p.svg"]);
}

/// One λ grid for every face: without --points the CLI's path has the
/// library's default number of points, and the UI's path on the same data
/// and settings has the very same λ values.
#[test]
fn the_ui_and_the_cli_share_the_path_grid() {
    use meanscape::tui::app::Action;
    let text = ok_stdout(&["path", "--data", "wine", "--algo", "lw", "--json", "-q"]);
    let v: Value = serde_json::from_str(&text).unwrap();
    let cli: Vec<f64> = v["grid"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(cli.len(), DEFAULT_POINTS);
    let mut app = tui_support::start("wine", "lw");
    tui_support::settle(&mut app, tui_support::finished);
    app.update(Action::TogglePath);
    tui_support::settle(&mut app, |a| {
        a.path.job.is_none() && a.path.result.is_some()
    });
    let res = app.path.result.as_ref().unwrap().as_ref().unwrap();
    let ui: Vec<f64> = res.points.iter().map(|p| p.lambda).collect();
    assert_eq!(ui, cli, "the UI's path λ values differ from the CLI's");
}

/// The UI's path at a point where nothing is selected shows no score:
/// "no feature kept", NMI and CER "—".
#[test]
fn the_ui_path_shows_no_score_where_nothing_is_selected() {
    use meanscape::tui::app::Action;
    let mut app = tui_support::start("wine", "lw");
    tui_support::settle(&mut app, tui_support::finished);
    app.update(Action::TogglePath);
    tui_support::settle(&mut app, |a| {
        a.path.job.is_none() && a.path.result.is_some()
    });
    let res = app.path.result.clone().unwrap().unwrap();
    let empty = res.points.iter().position(|p| p.selected == 0).unwrap();
    let full = res.points.iter().position(|p| p.selected > 0).unwrap();
    app.path.cursor = Some(empty);
    let frame = tui_support::screen(&mut app, 120, 40, tui_support::COLOR);
    assert!(frame.contains("0 of 13: no feature kept"), "{frame}");
    assert!(
        frame.contains("NMI —") && frame.contains("CER —"),
        "{frame}"
    );
    assert!(!frame.contains("CER 0."), "{frame}");
    // At 80×24 the reason still shows (the dashes may give way).
    app.update(Action::Focus(meanscape::tui::app::Pane::Weights));
    let small = tui_support::screen(&mut app, 80, 24, tui_support::COLOR);
    assert!(small.contains("0 of 13: no feature kept"), "{small}");
    // Elsewhere the scores are there.
    app.path.cursor = Some(full);
    let frame = tui_support::screen(&mut app, 120, 40, tui_support::COLOR);
    assert!(
        frame.contains("CER 0.") && !frame.contains("no feature kept"),
        "{frame}"
    );
}
