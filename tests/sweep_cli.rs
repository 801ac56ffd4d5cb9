//! `meanscape sweep` as a user runs it: outputs, and every refusal (exit
//! 2, one line, nothing written).

mod tui_support;

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(args)
        .output()
        .expect("binary runs")
}

#[test]
fn json_csv_text_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--algo",
        "power",
        "--grid",
        "s0=-4:-1:4",
        "--grid",
        "eta=1.04,1.3",
        "--seeds",
        "2",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["complete"], true);
    assert_eq!(v["seeds"], 2);
    assert_eq!(v["axes"][0]["values"], serde_json::json!([-4, -3, -2, -1]));
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8);
    assert_eq!(cells[0]["at"], serde_json::json!({"s0": -4, "eta": 1.04}));
    for name in [
        "cost",
        "silhouette",
        "calinski_harabasz",
        "davies_bouldin",
        "stability",
        "clusters",
        "iterations",
        "converged",
        "time_ms",
        "nmi",
        "ari",
        "acc",
        "purity",
    ] {
        assert!(cells[0]["scores"][name]["mean"].is_number(), "{name}");
    }
    assert_eq!(cells[0]["runs"].as_array().unwrap().len(), 2);
    assert!(v["params"].get("s0").is_none() && v["params"]["k"] == 3);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("s₀") && text.contains("η"));

    let out = run(&[
        "sweep", "--data", "iris", "--grid", "s0=-3,-1", "--seeds", "2", "--csv",
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("s0,cost_mean,cost_sd,silhouette_mean"));

    // Without labels the table shows prediction strength, the score the
    // recommendation reads.
    let out = run(&[
        "sweep", "--data", "iris", "--label", "none", "--k", "3", "--grid", "s0=-3,-1", "--seeds",
        "2",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("prediction_strength (mean over seeds") && text.contains('*'),
        "{text}"
    );
}

#[test]
fn run_json_carries_the_label_free_scores() {
    let out = run(&[
        "run", "--data", "iris", "--label", "none", "--k", "3", "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for name in ["silhouette", "calinski_harabasz", "davies_bouldin", "cost"] {
        assert!(v["metrics"][name].is_number(), "{name}");
    }
    assert!(v["metrics"].get("nmi").is_none());
    let out = run(&["run", "--data", "iris", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["metrics"]["nmi"].is_number() && v["metrics"]["silhouette"].is_number());
}

#[test]
fn bad_input_is_refused_in_one_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("o.json");
    let plot = dir.path().join("o.svg");
    for (grid, needle) in [
        ("sigma=1:2:3", "does not apply to algorithm power"),
        ("s0=-4:2:3", "out of range"),
        ("s0=-1:-1:3", "empty"),
        ("s0=-1:-4:3", "reversed"),
        ("s0=-4:-1:0", "COUNT is 0"),
        ("s0=-1:1:3:log", "same side of 0"),
        ("s0=-4:-1:1000", "runs, above the limit"),
        ("eta=x", "not a number"),
    ] {
        let args = [
            "sweep",
            "--data",
            "iris",
            "--grid",
            grid,
            "--grid",
            "eta=1.01:1.3:30",
            "--seeds",
            "10",
            "--json",
            "--out",
            out_file.to_str().unwrap(),
            "--plot",
            plot.to_str().unwrap(),
        ];
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{grid}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{grid}: {err}");
        assert!(err.contains(needle), "{grid}: {err}");
        assert!(out.stdout.is_empty());
        assert!(!out_file.exists() && !plot.exists(), "{grid} wrote a file");
    }
    let out = run(&[
        "sweep", "--data", "iris", "--grid", "s0=-3", "--score", "bogus",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("choose one of"));
    // An output over the input file.
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "a,b\n1,2\n3,4\n5,6\n").unwrap();
    let out = run(&[
        "sweep",
        "--data",
        input.to_str().unwrap(),
        "--k",
        "2",
        "--grid",
        "s0=-3",
        "--csv",
        "--out",
        input.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("input file"));
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_finished_cells_marked_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("o.json");
    let child = Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args([
            "sweep",
            "--data",
            "iris",
            "--grid",
            "s0=-10:-0.1:200:log",
            "--grid",
            "eta=1.01:1.3:50",
            "--seeds",
            "2",
            "--json",
            "--out",
            out_file.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert_eq!(v["complete"], false);
    let cells = v["cells"].as_array().unwrap();
    assert!(!cells.is_empty() && cells.len() < 10_000, "{}", cells.len());
    assert!(
        cells
            .iter()
            .all(|c| c["runs"].as_array().unwrap().len() == 2)
    );
}

/// A kernel axis in every output: the JSON names each cell's kernel, the
/// CSV quotes a spec with commas, the text table shows the specs, and the
/// fixed parameters do not list the kernel.
#[test]
fn a_kernel_axis_in_json_csv_and_text() {
    let base = [
        "sweep",
        "--data",
        "iris",
        "--algo",
        "kpower",
        "--grid",
        "kernel=gaussian|poly:a=1,b=2",
        "--grid",
        "s0=-2,-1",
        "--seeds",
        "2",
        "-q",
    ];
    let out = run(&[&base[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["axes"][0]["name"], "kernel");
    assert_eq!(
        v["axes"][0]["values"],
        serde_json::json!(["gaussian", "poly:a=1,b=2"])
    );
    assert!(v["params"].get("kernel").is_none(), "{}", v["params"]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert_eq!(
        cells[3]["at"],
        serde_json::json!({"kernel": "poly:a=1,b=2", "s0": -1})
    );
    assert_eq!(cells[0]["runs"][0]["space"], "kernel");
    let out = run(&[&base[..], &["--csv"]].concat());
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.lines()
            .nth(3)
            .unwrap()
            .starts_with("\"poly:a=1,b=2\",-2,"),
        "{csv}"
    );
    let out = run(&base);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("poly:a=1,b=2") && text.contains("kernel\\s₀"),
        "{text}"
    );
    assert!(text.contains("kernel's feature space"), "{text}");
}

/// A kernel too narrow puts every point in one cluster: perfectly
/// stable, and useless. Such cells are marked collapsed and never the
/// best cell.
#[test]
fn collapsed_cells_are_marked_and_never_the_best() {
    let args = [
        "sweep",
        "--data",
        "iris",
        "--k",
        "3",
        "--label",
        "none",
        "--algo",
        "kpower",
        "--grid",
        "sigma=0.02,1",
        "--seeds",
        "2",
        "-q",
    ];
    let out = run(&[&args[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[0]["collapsed"], true);
    assert_eq!(cells[0]["scores"]["clusters"]["mean"], 1.0);
    assert_eq!(cells[0]["scores"]["stability"]["mean"], 1.0);
    assert!(cells[1].get("collapsed").is_none());
    let text = String::from_utf8(run(&args).stdout).unwrap();
    assert!(
        text.contains("best by prediction_strength: sigma=1\n"),
        "{text}"
    );
    assert!(
        text.contains("recommended without labels: sigma=1 "),
        "{text}"
    );
}

#[test]
fn a_sweep_longer_than_max_time_is_refused_after_its_first_runs() {
    let grid = ["--grid", "s0=-10:-0.1:100:log", "--grid", "eta=1.01:1.5:20"];
    let mut args = vec!["sweep", "--data", "iris", "--seeds", "10", "-q", "--json"];
    args.extend(grid);
    let out = run(&[args.as_slice(), &["--max-time", "0.01s"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("would take about") && err.contains("20000 runs") && err.contains("--yes"),
        "{err}"
    );
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--grid",
        "s0=-2,-1",
        "--max-time",
        "soon",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a duration"));
    // --yes lifts the limit (a small sweep, so the test stays short).
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--grid",
        "s0=-2,-1",
        "--seeds",
        "2",
        "--max-time",
        "0s",
        "--yes",
        "-q",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ------------------------------------------- issue 27: what misleads

/// The JSON names the best cell of every score, as `meanscape.sweep`
/// does in Python: its position in `cells`, its place on the axes, its
/// mean and sd; collapsed cells are never it (while some cell is whole).
#[test]
fn json_names_the_best_cell_of_every_score() {
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--grid",
        "s0=-4:-1:4",
        "--grid",
        "eta=1.04,1.3",
        "--seeds",
        "2",
        "--json",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = v["cells"].as_array().unwrap();
    let best = v["best"].as_object().unwrap();
    let lower = ["cost", "davies_bouldin", "iterations", "time_ms"];
    for name in [
        "nmi",
        "ari",
        "silhouette",
        "cost",
        "davies_bouldin",
        "stability",
    ] {
        let b = &best[name];
        let pos = b["cell"].as_u64().unwrap() as usize;
        let cell = &cells[pos];
        assert_eq!(b["at"], cell["at"], "{name}");
        assert_eq!(b["mean"], cell["scores"][name]["mean"], "{name}");
        assert_eq!(b["sd"], cell["scores"][name]["sd"], "{name}");
        let mean = b["mean"].as_f64().unwrap();
        for c in cells.iter().filter(|c| c.get("collapsed").is_none()) {
            let m = c["scores"][name]["mean"].as_f64().unwrap();
            if lower.contains(&name) {
                assert!(mean <= m, "{name}: best {mean}, another {m}");
            } else {
                assert!(mean >= m, "{name}: best {mean}, another {m}");
            }
        }
    }
    // The table's best cell is the JSON's best by the table's score.
    assert_eq!(v["score"], "nmi");

    // Collapsed cells are skipped: kpower with a tiny σ puts every point in
    // one cluster, perfectly stable.
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--k",
        "3",
        "--label",
        "none",
        "--algo",
        "kpower",
        "--grid",
        "sigma=0.02,1",
        "--seeds",
        "2",
        "-q",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cells"][0]["collapsed"], true);
    assert_eq!(v["best"]["stability"]["cell"], 1);
    assert_eq!(v["best"]["stability"]["at"]["sigma"], 1);
    assert!(v["best"]["stability"].get("collapsed").is_none());
    assert!(v["best"].get("nmi").is_none(), "no labels, no nmi");
}

/// The row labels of a heatmap, top to bottom: `<text class="row">` by
/// their y.
fn svg_rows(svg: &str) -> Vec<String> {
    let mut rows: Vec<(f64, String)> = svg
        .lines()
        .filter(|l| l.starts_with(r#"<text class="row""#))
        .map(|l| {
            let y = l
                .split(r#" y=""#)
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let label = l.split('>').nth(1).unwrap().split('<').next().unwrap();
            (y.parse().unwrap(), label.to_string())
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows.into_iter().map(|r| r.1).collect()
}

/// The SVG heatmap's rows run as the UI's: the first value of the first
/// axis at the top (they used to run the other way).
#[test]
fn svg_heatmap_rows_run_as_the_uis() {
    use meanscape::tui::app::{Action, Pane};
    use tui_support::{ASCII, finished, screen, settle, start, type_text};
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("h.svg");
    let out = run(&[
        "sweep",
        "--data",
        "iris",
        "--grid",
        "s0=-4:-1:4",
        "--grid",
        "eta=1.01,1.04,1.3",
        "--seeds",
        "2",
        "-q",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg_order = svg_rows(&std::fs::read_to_string(&svg).unwrap());
    assert_eq!(svg_order, ["-4", "-3", "-2", "-1"]);

    // The same sweep in the UI, and its heatmap's rows as drawn.
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Parameters));
    for name in ["s0", "eta"] {
        let i = app
            .sliders()
            .iter()
            .position(|s| s.spec.name == name)
            .unwrap();
        app.update(Action::Move(i as i32 - app.panes.parameters.cursor as i32));
        app.update(Action::Mark);
    }
    app.update(Action::OpenSweep);
    type_text(&mut app, "s0=-4:-1:4 eta=1.01,1.04,1.3 seeds=2");
    app.update(Action::Activate);
    settle(&mut app, |a| {
        a.sweep.last.as_ref().is_some_and(|s| !s.running)
    });
    let frame = screen(&mut app, 120, 40, ASCII);
    // The sweep pane is the right one: what follows the two borders.
    let right: Vec<&str> = frame
        .lines()
        .map(|l| l.split_once("||").map_or("", |x| x.1).trim_start())
        .collect();
    let head = right
        .iter()
        .position(|l| l.starts_with("s0"))
        .unwrap_or_else(|| panic!("no heatmap header:\n{frame}"));
    let ui_line = |label: &str| {
        right[head + 1..]
            .iter()
            .position(|l| l.starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("row {label} not drawn:\n{frame}"))
    };
    let mut ui_order: Vec<(usize, &str)> =
        svg_order.iter().map(|l| (ui_line(l), l.as_str())).collect();
    ui_order.sort();
    let ui_order: Vec<&str> = ui_order.into_iter().map(|r| r.1).collect();
    assert_eq!(ui_order, svg_order, "UI rows top to bottom vs the SVG's");
}

/// A k axis needs no --k, even without labels to take k from (the
/// label-free k-scan of `--label none` data).
#[test]
fn a_k_axis_needs_no_k_without_labels() {
    let out = run(&[
        "sweep", "--data", "iris", "--label", "none", "--grid", "k=2:4:3", "--seeds", "2", "-q",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ks: Vec<u64> = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["at"]["k"].as_u64().unwrap())
        .collect();
    assert_eq!(ks, [2, 3, 4]);
    assert!(v["best"]["silhouette"]["at"]["k"].is_u64());
    // Without a k axis it is still required.
    let out = run(&[
        "sweep", "--data", "iris", "--label", "none", "--grid", "s0=-3,-1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--k is required"));
}
