//! The History pane: finished runs listed, sorted, pinned and compared,
//! restored with Enter, exported with their commands, and kept in a
//! session file. State through `App::update`, screens through TestBackend
//! and insta.

mod tui_support;

use meanscape::tui::app::history::{Column, History};
use meanscape::tui::app::{Action, App, Pane, PromptKind, RunStatus, StartOptions};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};
use tui_support::{ASCII, COLOR, PLAIN, finished, screen, settle, start, type_value};

fn start_session(path: &Path) -> App {
    App::new(StartOptions {
        session: Some(path.to_path_buf()),
        ..StartOptions::default()
    })
    .unwrap()
}

/// Waits until the History holds `n` runs and nothing is running.
fn runs(app: &mut App, n: usize) {
    settle(app, |a| a.history.entries.len() >= n && finished(a));
    assert_eq!(app.history.entries.len(), n);
}

fn choose(app: &mut App, id: &str) {
    app.update(Action::Focus(Pane::Algorithm));
    app.panes.algorithm.cursor = app.algos.iter().position(|a| a.id() == id).unwrap();
    app.update(Action::Activate);
}

/// Highlights run `id` in the History (focused) with the arrow keys.
fn highlight(app: &mut App, id: usize) {
    app.update(Action::Focus(Pane::History));
    app.update(Action::Move(-1000));
    for _ in 0..app.history.entries.len() {
        if app.history.selected_entry().map(|e| e.id) == Some(id) {
            return;
        }
        app.update(Action::Move(1));
    }
    panic!("run #{id} is not in the History");
}

#[test]
fn a_finished_run_appears_in_the_history() {
    let mut app = start("iris", "power");
    runs(&mut app, 1);
    let e = &app.history.entries[0];
    assert_eq!(
        (e.id, e.algo.as_str(), e.data.as_str()),
        (1, "power", "iris")
    );
    assert_eq!((e.k, e.seed, e.restarts), (3, 0, 1));
    assert!(e.changed.is_empty(), "{:?}", e.changed);
    assert_eq!(e.nmi, app.view.scores.map(|s| s.nmi));
    assert!(e.silhouette.is_some() && e.cost.is_some());
    assert_eq!(
        e.iterations,
        app.view.result.as_ref().unwrap().best.iterations
    );
    assert_eq!(e.trace.len(), app.view.curve.len());
    assert_eq!(e.sizes.iter().sum::<usize>(), 150);
    assert_eq!(e.params.get("s0"), Some(&-1.0));
    assert_eq!(e.command, app.command_line().unwrap());
    assert!(
        e.command
            .starts_with("meanscape run --data iris --algo power --k 3 --seed 0")
    );
    // A changed parameter is listed as changed; the run after it is #2.
    type_value(&mut app, "s0", "-3");
    runs(&mut app, 2);
    let e = &app.history.entries[1];
    assert_eq!(e.id, 2);
    assert_eq!(e.changed.get("s0"), Some(&-3.0));
    assert_eq!(e.changed.len(), 1);
    assert_eq!(e.changed_text(), "s0=-3");
    assert!(e.command.contains("-P s0=-3"), "{}", e.command);
    // A cancelled run is not a finished one.
    app.update(Action::Reseed);
    app.tick(Instant::now() + Duration::from_secs(1));
    app.update(Action::Cancel);
    app.tick(Instant::now() + Duration::from_secs(1));
    assert_eq!(app.history.entries.len(), 2);
}

#[test]
fn sorting_by_any_column_keeps_the_highlighted_run() {
    let mut app = start("iris", "kmeans");
    runs(&mut app, 1);
    for n in 2..=4 {
        app.update(Action::Reseed);
        runs(&mut app, n);
    }
    highlight(&mut app, 3);
    assert_eq!(app.history.sort, Column::Run);
    // c cycles through every column and back.
    let mut seen = vec![app.history.sort];
    for _ in 0..Column::ALL.len() {
        app.update(Action::HistorySort);
        seen.push(app.history.sort);
        assert_eq!(app.history.selected_entry().unwrap().id, 3);
    }
    assert_eq!(seen.first(), seen.last());
    assert_eq!(seen[..Column::ALL.len()], Column::ALL);
    // By seed, reversed: 3, 2, 1, 0.
    while app.history.sort != Column::Seed {
        app.update(Action::HistorySort);
    }
    app.update(Action::HistoryReverse);
    let seeds: Vec<u64> = app
        .history
        .order()
        .iter()
        .map(|&i| app.history.entries[i].seed)
        .collect();
    assert_eq!(seeds, [3, 2, 1, 0]);
    // By score: ascending, then descending after C.
    while app.history.sort != Column::Score {
        app.update(Action::HistorySort);
    }
    let scores = |h: &History| -> Vec<f64> {
        h.order()
            .iter()
            .map(|&i| h.entries[i].score().unwrap())
            .collect()
    };
    let up = scores(&app.history);
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    app.update(Action::HistoryReverse);
    let down = scores(&app.history);
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    // The arrows move along the sorted order.
    app.update(Action::Move(-1000));
    let top = app.history.order()[0];
    assert_eq!(
        app.history.selected_entry().unwrap().id,
        app.history.entries[top].id
    );
    // Outside the History the keys say where it is and change nothing.
    app.update(Action::Focus(Pane::Objective));
    let before = app.history.sort;
    app.update(Action::HistorySort);
    assert_eq!(app.history.sort, before);
    assert!(app.message.as_deref().unwrap().contains("press 9"));
}

/// Runs lw on iris with the default λ, then with a smaller one (more
/// features kept), and kmeans: three runs.
fn lw_runs() -> App {
    let mut app = start("iris", "lw");
    runs(&mut app, 1);
    type_value(&mut app, "lambda", "0.01");
    runs(&mut app, 2);
    choose(&mut app, "kmeans");
    runs(&mut app, 3);
    app
}

#[test]
fn pinning_two_runs_compares_settings_scores_and_selected_features() {
    let mut app = lw_runs();
    let (a, b) = (&app.history.entries[0], &app.history.entries[1]);
    let sa: BTreeSet<usize> = a.selected.clone().unwrap().into_iter().collect();
    let sb: BTreeSet<usize> = b.selected.clone().unwrap().into_iter().collect();
    assert!(sa.len() < sb.len(), "smaller λ keeps more: {sa:?} {sb:?}");
    let want = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
    let (nmi_a, nmi_b) = (a.nmi.unwrap(), b.nmi.unwrap());
    // Not comparing with fewer than two pins.
    app.update(Action::Focus(Pane::History));
    app.update(Action::HistoryCompare);
    assert!(!app.history.comparing);
    highlight(&mut app, 1);
    app.update(Action::Mark);
    highlight(&mut app, 2);
    app.update(Action::Mark);
    assert_eq!(app.history.pinned, [1, 2]);
    app.update(Action::HistoryCompare);
    assert!(app.history.comparing);
    let (pa, pb) = app.history.pinned_pair().unwrap();
    let d = meanscape::tui::app::history::diff(pa, pb);
    // Only λ differs (the algorithm, k, seed are the same).
    assert_eq!(d.settings.len(), 1, "{:?}", d.settings);
    assert_eq!(d.settings[0].0, "lambda");
    assert_eq!(d.settings[0].1, "0.25");
    assert_eq!(d.settings[0].2, "0.01");
    assert_eq!(d.jaccard, Some(want));
    assert_eq!(d.shared, sa.intersection(&sb).count());
    let nmi = d.scores.iter().find(|s| s.name == "NMI").unwrap();
    assert_eq!((nmi.a, nmi.b), (Some(nmi_a), Some(nmi_b)));
    assert_eq!(nmi.not_comparable, None);
    // λ is part of lw's objective: those are not set against each other.
    let obj = d.scores.iter().find(|s| s.name == "objective").unwrap();
    assert_eq!(obj.not_comparable.as_deref(), Some("lambda differs"));
    // A third pin replaces the oldest; unpinning leaves the compare view.
    highlight(&mut app, 3);
    app.update(Action::Mark);
    assert_eq!(app.history.pinned, [2, 3]);
    let d = meanscape::tui::app::history::diff(
        app.history.get(2).unwrap(),
        app.history.get(3).unwrap(),
    );
    let algo = d.settings.iter().find(|s| s.0 == "algorithm").unwrap();
    assert_eq!((algo.1.as_str(), algo.2.as_str()), ("lw", "kmeans"));
    // kmeans weighs no features: no Jaccard.
    assert_eq!(d.jaccard, None);
    app.update(Action::Mark);
    assert_eq!(app.history.pinned, [2]);
    assert!(!app.history.comparing);
}

#[test]
fn enter_restores_a_runs_settings_and_runs_it_again() {
    let mut app = start("iris", "power");
    runs(&mut app, 1);
    type_value(&mut app, "s0", "-3");
    type_value(&mut app, "eta", "1.2");
    app.update(Action::Reseed);
    runs(&mut app, 2);
    choose(&mut app, "kmeans");
    type_value(&mut app, "k", "5");
    runs(&mut app, 3);
    assert_eq!(app.algo().id(), "kmeans");
    highlight(&mut app, 2);
    app.update(Action::Activate);
    assert_eq!(app.algo().id(), "power");
    assert_eq!((app.current_k(), app.seed), (3, 1));
    assert!(matches!(app.status, RunStatus::Pending(_)));
    let o = |p: &str| {
        app.overrides
            .get(&("power".to_string(), p.to_string()))
            .copied()
    };
    assert_eq!((o("s0"), o("eta")), (Some(-3.0), Some(1.2)));
    runs(&mut app, 4);
    let (two, four) = (&app.history.entries[1], &app.history.entries[3]);
    assert_eq!(four.changed, two.changed);
    assert_eq!((four.algo.as_str(), four.k, four.seed), ("power", 3, 1));
    assert_eq!(four.nmi, two.nmi);
    assert_eq!(four.command, two.command);
}

#[test]
fn the_history_survives_switching_dataset_and_enter_brings_the_dataset_back() {
    let mut app = start("iris", "power");
    runs(&mut app, 1);
    choose(&mut app, "kmeans");
    runs(&mut app, 2);
    // d: the next bundled dataset.
    app.update(Action::NextBundled);
    runs(&mut app, 3);
    assert_ne!(app.loaded().unwrap().source.spec(), "iris");
    let data: Vec<&str> = app
        .history
        .entries
        .iter()
        .map(|e| e.data.as_str())
        .collect();
    assert_eq!(data[..2], ["iris", "iris"]);
    assert_ne!(data[2], "iris");
    // Enter on run 1: iris is loaded again, then power runs with k = 3.
    highlight(&mut app, 1);
    app.update(Action::Activate);
    assert!(app.message.as_deref().unwrap().contains("loading iris"));
    runs(&mut app, 4);
    assert_eq!(app.loaded().unwrap().source.spec(), "iris");
    let e = &app.history.entries[3];
    assert_eq!(
        (e.data.as_str(), e.algo.as_str(), e.k),
        ("iris", "power", 3)
    );
    assert_eq!(e.nmi, app.history.entries[0].nmi);
}

#[test]
fn a_session_is_saved_after_each_run_and_restored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let mut app = start_session(&path);
    assert!(app.message.as_deref().unwrap().contains("is new"));
    runs(&mut app, 1);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["history"]["entries"].as_array().unwrap().len(), 1);
    type_value(&mut app, "s0", "-2");
    app.update(Action::Reseed);
    runs(&mut app, 2);
    choose(&mut app, "kpower");
    runs(&mut app, 3);
    highlight(&mut app, 1);
    app.update(Action::Mark);
    app.update(Action::Quit);
    let entries = app.history.entries.clone();
    let settings = app.settings();
    // Settings of another start are replaced by the session's.
    let mut back = App::new(StartOptions {
        data: "wine".into(),
        algo: "kmeans".into(),
        session: Some(path.clone()),
        ..StartOptions::default()
    })
    .unwrap();
    assert!(back.message.as_deref().unwrap().contains("3 runs"));
    // Exactly the same runs (every float read back bit for bit).
    assert!(
        back.history.entries == entries,
        "the runs differ once read back"
    );
    assert_eq!(back.history.pinned, [1]);
    assert_eq!(back.settings(), settings);
    assert_eq!((back.algo().id(), back.seed), ("kpower", 1));
    assert_eq!(
        back.overrides.get(&("power".into(), "s0".into())),
        Some(&-2.0)
    );
    settle(&mut back, finished);
    assert_eq!(back.loaded().unwrap().source.spec(), "iris");
    // The next run is #4 and the file has all four.
    runs(&mut back, 4);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["history"]["entries"][3]["id"], 4);
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s.json"]);
}

#[test]
fn a_corrupt_session_file_is_reported_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let junk = "{\"meanscape_session\": 1, \"history\": [oops";
    std::fs::write(&path, junk).unwrap();
    let mut app = start_session(&path);
    let msg = app.message.clone().unwrap();
    assert!(msg.contains("is not a meanscape session"), "{msg}");
    assert!(msg.contains("left as it is"), "{msg}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), junk);
    // The first save moves it aside, and says so.
    runs(&mut app, 1);
    let aside = dir.path().join("s.json.corrupt-1");
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), junk);
    let msg = app.message.clone().unwrap();
    assert!(
        msg.contains("kept as") && msg.contains("corrupt-1"),
        "{msg}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["history"]["entries"].as_array().unwrap().len(), 1);
    // A second corrupt file goes to corrupt-2; the first stays.
    std::fs::write(&path, "{\"settings\": {}}").unwrap();
    let mut again = start_session(&path);
    runs(&mut again, 1);
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), junk);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.json.corrupt-2")).unwrap(),
        "{\"settings\": {}}"
    );
    // A file that is not JSON at all (a dataset given by mistake) is
    // neither moved nor written.
    let csv = dir.path().join("data.csv");
    std::fs::write(&csv, "a,b\n1,2\n").unwrap();
    let mut app = start_session(&csv);
    assert!(app.message.as_deref().unwrap().contains("is not JSON"));
    runs(&mut app, 1);
    app.update(Action::Quit);
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "a,b\n1,2\n");
    assert!(!dir.path().join("data.csv.corrupt-1").exists());
    // A folder is no session file: said, and nothing is written.
    let folder = dir.path().join("d");
    std::fs::create_dir(&folder).unwrap();
    let mut app = start_session(&folder);
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("this session is not saved")
    );
    settle(&mut app, |a| a.loaded().is_some());
    // Said again after the data is in (the "loaded" note would hide it).
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("this session is not saved")
    );
    runs(&mut app, 1);
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
}

#[test]
fn export_writes_csv_and_json_with_a_command_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("hist");
    let mut app = start("iris", "power");
    runs(&mut app, 1);
    type_value(&mut app, "s0", "-3");
    runs(&mut app, 2);
    app.update(Action::Focus(Pane::History));
    let export = |app: &mut App| {
        app.update(Action::HistoryExportPrompt);
        let p = app.prompt.as_mut().expect("the export prompt");
        assert_eq!(p.kind, PromptKind::HistoryExport);
        p.text = base.display().to_string();
        app.update(Action::Activate);
    };
    export(&mut app);
    let csv = std::fs::read_to_string(dir.path().join("hist.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("run,data,algorithm,") && lines[0].ends_with(",command"));
    for (line, e) in lines[1..].iter().zip(&app.history.entries) {
        assert!(line.ends_with(&format!(",{}", e.command)), "{line}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("hist.json")).unwrap())
            .unwrap();
    assert_eq!(json[1]["changed"]["s0"], -3.0);
    assert_eq!(json[1]["command"], app.history.entries[1].command.as_str());
    // The command repeats the run: same NMI.
    let cmd = &app.history.entries[1].command;
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(&args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nmi = report["metrics"]["nmi"].as_f64().unwrap();
    assert!((nmi - app.history.entries[1].nmi.unwrap()).abs() < 1e-12);
    // Again: it asks before replacing, and n keeps the files.
    std::fs::write(dir.path().join("hist.csv"), "keep me").unwrap();
    export(&mut app);
    assert!(matches!(
        app.prompt.as_ref().unwrap().kind,
        PromptKind::ConfirmHistoryExport(_)
    ));
    app.update(Action::Input('n'));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hist.csv")).unwrap(),
        "keep me"
    );
    export(&mut app);
    app.update(Action::Input('y'));
    assert!(
        std::fs::read_to_string(dir.path().join("hist.csv"))
            .unwrap()
            .starts_with("run,")
    );
}

fn body_is_ascii(s: &str) -> bool {
    s.lines().map(|l| l.trim_matches('"')).all(|l| l.is_ascii())
}

#[test]
fn snapshot_history_table() {
    let mut app = lw_runs();
    highlight(&mut app, 2);
    app.update(Action::Mark);
    for (name, w, h, theme) in [
        ("history_120x40", 120, 40, COLOR),
        ("history_120x40_ascii", 120, 40, ASCII),
        ("history_80x24", 80, 24, COLOR),
        ("history_80x24_ascii", 80, 24, ASCII),
        ("history_80x24_plain", 80, 24, PLAIN),
    ] {
        let s = screen(&mut app, w, h, theme);
        assert!(s.contains("History"), "{s}");
        assert!(
            s.contains("lambda=0.01"),
            "{name}: the changed λ is shown\n{s}"
        );
        if theme.ascii {
            assert!(body_is_ascii(&s), "{name} drew non-ASCII glyphs");
        }
        insta::assert_snapshot!(name, s);
    }
}

#[test]
fn snapshot_compare_view() {
    let mut app = lw_runs();
    highlight(&mut app, 1);
    app.update(Action::Mark);
    highlight(&mut app, 2);
    app.update(Action::Mark);
    app.update(Action::HistoryCompare);
    for (name, w, h, theme) in [
        ("compare_120x40", 120, 40, COLOR),
        ("compare_120x40_ascii", 120, 40, ASCII),
        ("compare_80x24", 80, 24, COLOR),
        ("compare_80x24_ascii", 80, 24, ASCII),
        ("compare_80x24_plain", 80, 24, PLAIN),
    ] {
        let s = screen(&mut app, w, h, theme);
        assert!(s.contains("Jaccard of selected features"), "{name}\n{s}");
        assert!(s.contains("lambda"), "{name}\n{s}");
        if theme.ascii {
            assert!(body_is_ascii(&s), "{name} drew non-ASCII glyphs");
        }
        insta::assert_snapshot!(name, s);
    }
}

#[test]
fn the_history_renders_at_every_size_without_panicking() {
    let mut app = lw_runs();
    highlight(&mut app, 1);
    app.update(Action::Mark);
    highlight(&mut app, 3);
    app.update(Action::Mark);
    for comparing in [false, true] {
        app.history.comparing = comparing;
        for (w, h) in [(1, 1), (40, 12), (60, 20), (80, 24), (100, 30), (200, 60)] {
            for theme in [COLOR, ASCII] {
                screen(&mut app, w, h, theme);
            }
        }
    }
}

/// The power runs of item 6: defaults, then s0 = -3 (the objective at
/// another final s: not comparable), pinned A and B, compared.
fn power_runs_compared() -> App {
    let mut app = start("iris", "power");
    runs(&mut app, 1);
    type_value(&mut app, "s0", "-3");
    runs(&mut app, 2);
    highlight(&mut app, 1);
    app.update(Action::Mark);
    highlight(&mut app, 2);
    app.update(Action::Mark);
    app.update(Action::HistoryCompare);
    app
}

#[test]
fn objectives_of_power_runs_with_another_s0_are_not_subtracted() {
    let mut app = power_runs_compared();
    let (a, b) = app.history.pinned_pair().unwrap();
    let d = meanscape::tui::app::history::diff(a, b);
    let get = |n: &str| d.scores.iter().find(|s| s.name == n).unwrap().clone();
    assert_eq!(
        get("objective").not_comparable.as_deref(),
        Some("s0 differs")
    );
    // What is comparable still is: the labels' scores and the k-means cost.
    for n in [
        "NMI",
        "ARI",
        "ACC",
        "silhouette",
        "cost",
        "iterations",
        "time",
    ] {
        assert_eq!(get(n).not_comparable, None, "{n}");
    }
    let s = screen(&mut app, 80, 24, PLAIN);
    assert!(s.contains("objectives not comparable: s0 differs"), "{s}");
    let row = s.lines().find(|l| l.contains("objective ")).unwrap();
    assert!(row.contains("n/c"), "no difference of objectives: {row}");
    assert!(s.contains("each on its own scale"), "{s}");
    // Time in the one format (screen() sets 10 ms and 20 ms).
    assert!(s.contains("10 ms") && s.contains("+10 ms"), "{s}");
    insta::assert_snapshot!("compare_power_s0_80x24_plain", s);
}

/// The History's time, the Metrics' time and the status line's are one
/// measurement in one format.
#[test]
fn a_runs_time_reads_the_same_everywhere() {
    let mut app = start("iris", "kmeans");
    runs(&mut app, 1);
    let e = &app.history.entries[0];
    let secs = app.view.elapsed.as_secs_f64();
    assert!(
        (e.elapsed_ms - secs * 1e3).abs() < 1e-9,
        "History {} ms, Metrics {secs} s",
        e.elapsed_ms
    );
    app.update(Action::Focus(Pane::History));
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    app.message = None;
    t.draw(|f| {
        meanscape::tui::ui::render(f, &app, &PLAIN);
    })
    .unwrap();
    let s = format!("{}", t.backend());
    let row = s.lines().find(|l| l.contains(">   1 kmeans")).unwrap();
    let status = s.lines().rev().nth(1).unwrap();
    // The time cell: the last "N ms" or "N.NN s" of the row; the status
    // line holds the same text.
    let words: Vec<&str> = row.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| *w == "ms" || *w == "s")
        .expect("a time in the row");
    let time = format!("{} {}", words[at - 1], words[at]);
    assert!(status.contains(&format!(" {time} ")), "{time} vs {status}");
}

#[test]
fn the_detail_shows_the_whole_command_at_80x24() {
    // A long path: the command wraps over lines, every part of it shown.
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a-rather-long-folder-name/and-another-one");
    std::fs::create_dir_all(&sub).unwrap();
    let csv = sub.join("measurements-of-flowers.csv");
    let mut text = String::from("f1,f2,label\n");
    for i in 0..40 {
        let c = i % 2;
        text.push_str(&format!("{}.{},{}.5,{c}\n", c * 5 + i % 3, i % 7, i % 4));
    }
    std::fs::write(&csv, text).unwrap();
    let mut app = start(csv.to_str().unwrap(), "power");
    runs(&mut app, 1);
    type_value(&mut app, "s0", "-3");
    runs(&mut app, 2);
    type_value(&mut app, "eta", "1.324");
    runs(&mut app, 3);
    highlight(&mut app, 3);
    for theme in [PLAIN, ASCII] {
        let s = screen(&mut app, 80, 24, theme);
        let body: String = s
            .lines()
            .map(|l| l.trim_matches('"').chars().skip(1).collect::<String>())
            .map(|l| {
                l.chars()
                    .take(78)
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" ");
        let cmd = &app.history.get(3).unwrap().command;
        // Wrapping splits the command at spaces, or a long word anywhere:
        // without the spaces, the text is all there, in order.
        let bare = |t: &str| t.replace(' ', "");
        assert!(
            bare(&body).contains(&bare(cmd)),
            "the command is cut:\n{cmd}\n{s}"
        );
        // No value cut mid-number: the changed column says how many more.
        assert!(
            !s.contains("eta=1.324 s…") && !s.contains("eta=1.324 s~"),
            "{s}"
        );
    }
}

/// No number on screen ends in the cut mark (`…`, `~` in ASCII): a cut
/// `0.000450…` reads as another number.
fn assert_no_cut_number(s: &str) {
    let chars: Vec<char> = s.chars().collect();
    for (i, w) in chars.windows(2).enumerate() {
        assert!(
            !(w[0].is_ascii_digit() && (w[1] == '…' || w[1] == '~')),
            "a number cut at {i}:\n{s}"
        );
    }
}

#[test]
fn compared_settings_are_rounded_to_their_column_never_cut() {
    let mut app = start("iris", "lw");
    runs(&mut app, 1);
    type_value(&mut app, "lambda", "0.000450123");
    runs(&mut app, 2);
    highlight(&mut app, 1);
    app.update(Action::Mark);
    highlight(&mut app, 2);
    app.update(Action::Mark);
    app.update(Action::HistoryCompare);
    for (w, h) in [(80, 24), (100, 30), (120, 40)] {
        for theme in [PLAIN, ASCII] {
            let s = screen(&mut app, w, h, theme);
            let row = s
                .lines()
                .find(|l| l.contains("lambda "))
                .unwrap_or_else(|| panic!("no lambda row\n{s}"));
            assert!(row.contains("0.0004501"), "{row}");
            assert_no_cut_number(&s);
        }
    }
    // The table and its changed column too: the value rounded to fit.
    app.update(Action::HistoryCompare);
    for theme in [PLAIN, ASCII] {
        let s = screen(&mut app, 80, 24, theme);
        assert_no_cut_number(&s);
        let row = s.lines().find(|l| l.contains(" 2 lw")).unwrap();
        assert!(row.contains("lambda=0.00045"), "{row}");
    }
}
