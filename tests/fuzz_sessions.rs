//! A short, deterministic fuzzing run of the session file (`--session`):
//! the seeds are real sessions, written by the UI itself after runs of
//! several algorithms (and a hand-written one of the oldest layout); the
//! mutants change them as JSON (a node of another type, an extreme
//! number, a tricky string, a key dropped, added or renamed, an array
//! grown, deep nesting, a node of another session spliced in) and as
//! bytes.
//!
//! Each input is read as the UI reads it at start, then the UI is built
//! on it (`App::new`, which applies the settings and restores the
//! History) and drawn; one in four loads its dataset and runs with the
//! restored settings; its History is sorted, pinned, compared and grown
//! by a run. It must be restored, and then saved and read back the same, or be
//! refused with one line that names the file; no panic, no hang (a
//! watchdog fails the run instead of blocking), and no input may make the
//! reader hold much more than its size.

mod fuzz_support;

use fuzz_support::session_mutate::JsonMutator;
use fuzz_support::{Counting, held, peak_above, reset_peak};
use meanscape::data::LoadOptions;
use meanscape::tui::app::session_file::{self, Read, Saved, SessionFile};
use meanscape::tui::app::{Action, App, Pane, RunStatus, StartOptions};
use meanscape::tui::theme::Theme;
use meanscape::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Counting = Counting;

const SEED: u64 = 0x5e55_1011;
const MUTANTS: usize = 3_000;
/// The most the reader may hold per byte of the file (plus 1 MiB).
const READ_PER_BYTE: u64 = 8;
/// The memory limit the UI is started with: a mutated dataset spec
/// (`gen:…` of a billion rows) is refused by it, not built.
const CAP: u64 = 16 << 20;

#[derive(Debug)]
enum Outcome {
    /// Restored: runs in the History.
    Restored(usize),
    /// Refused with this one-line message.
    Refused(String),
    /// Anything that breaks the rules.
    Failure(String),
}

fn start(path: &Path) -> App {
    App::new(StartOptions {
        session: Some(path.to_path_buf()),
        load_opts: LoadOptions {
            max_memory: Some(CAP),
            ..LoadOptions::default()
        },
        options: vec![("max_memory".into(), CAP.to_string())],
        ..StartOptions::default()
    })
    .expect("the UI starts whatever the session holds")
}

fn draw(app: &mut App) {
    let theme = Theme {
        color: true,
        ascii: false,
    };
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| {
        ui::render(f, app, &theme);
    })
    .unwrap();
}

/// Lets the restored UI load its dataset and run with the restored
/// settings, drawing every frame, for at most a second (a restored
/// `restarts` may ask for a long run; that is no failure).
fn run_restored(app: &mut App) -> Result<(), String> {
    let t0 = Instant::now();
    let done = |a: &App| {
        a.loading.is_none()
            && matches!(
                a.status,
                RunStatus::Converged | RunStatus::Stopped | RunStatus::Error(_)
            )
    };
    while !done(app) && t0.elapsed() < Duration::from_secs(1) {
        app.tick(Instant::now() + Duration::from_secs(1));
        draw(app);
        std::thread::sleep(Duration::from_millis(2));
    }
    let said = format!("{:?} {:?}", app.status, app.message);
    // A panic caught on a job's thread is still a bug.
    if said.contains("failed unexpectedly") || said.contains("the solver failed") {
        return Err(format!("a job panicked: {said}"));
    }
    Ok(())
}

/// The restored UI, used: drawn, run (for some inputs), its History
/// sorted, pinned, compared, grown by a run; then saved and read back.
fn use_restored(app: &mut App, dir: &Path, run: bool) -> Result<usize, String> {
    draw(app);
    if run {
        run_restored(app)?;
    }
    app.update(Action::Focus(Pane::History));
    draw(app);
    for a in [
        Action::HistorySort,
        Action::HistoryReverse,
        Action::Mark,
        Action::Move(1),
        Action::Mark,
        Action::HistoryCompare,
    ] {
        app.update(a);
        draw(app);
    }
    app.update(Action::HistoryCompare);
    if let Some(e) = app.history.entries.first().cloned() {
        app.history.push(e);
        draw(app);
    }
    let saved = Saved {
        meanscape_session: session_file::VERSION,
        settings: app.settings(),
        history: app.history.clone(),
    };
    let back = dir.join("back.json");
    let _ = std::fs::remove_file(&back);
    SessionFile::new(back.clone(), &Read::Missing)
        .write(&saved)
        .map_err(|e| format!("the restored session cannot be saved: {e}"))?;
    match session_file::read(&back) {
        Read::Restored(again, _) => {
            if again.history.entries != saved.history.entries
                || again.history.pinned != saved.history.pinned
                || again.settings != saved.settings
            {
                return Err("saved and read back, the session differs".into());
            }
        }
        _ => return Err("the saved session is not read back".into()),
    }
    Ok(app.history.entries.len())
}

fn one_line(m: &str, path: &Path) -> Result<(), String> {
    if m.trim().is_empty() || m.contains('\n') || m.contains('\r') {
        return Err(format!("message not one line: {m:?}"));
    }
    if !m.contains(&path.display().to_string()) {
        return Err(format!("message names no file: {m:?}"));
    }
    Ok(())
}

/// What one input did, with the most the reader held (reading the file
/// as the UI does at start) and the most held in all (the UI built,
/// used, its session saved and read back).
fn run_one(dir: &Path, bytes: &[u8], run: bool) -> (Outcome, u64, u64) {
    let path = dir.join("s.json");
    std::fs::write(&path, bytes).unwrap();
    let base = held();
    reset_peak();
    let mut read_peak = 0;
    let r = catch_unwind(AssertUnwindSafe(|| {
        let restored = matches!(session_file::read(&path), Read::Restored(..));
        read_peak = peak_above(base);
        let mut app = start(&path);
        let msg = app.message.clone().unwrap_or_default();
        if let Err(e) = one_line(&msg, &path) {
            return Outcome::Failure(e);
        }
        if !restored {
            if msg.contains("restored") {
                return Outcome::Failure(format!("refused, yet: {msg}"));
            }
            draw(&mut app);
            return Outcome::Refused(msg);
        }
        match use_restored(&mut app, dir, run) {
            Ok(n) => Outcome::Restored(n),
            Err(e) => Outcome::Failure(e),
        }
    }));
    let outcome = r.unwrap_or_else(|p| {
        Outcome::Failure(format!(
            "panic: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        ))
    });
    (outcome, read_peak, peak_above(base))
}

/// Real sessions: the UI run on iris with several algorithms, pins and
/// overrides, saved by the UI itself; and the oldest layout by hand.
fn corpus(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (i, algos) in [
        &["power"][..],
        &["lw", "kmeans"],
        &["kpower", "sparse-kmeans", "power"],
    ]
    .iter()
    .enumerate()
    {
        let path = dir.join(format!("seed-{i}.json"));
        let mut app = App::new(StartOptions {
            algo: algos[0].into(),
            session: Some(path.clone()),
            ..StartOptions::default()
        })
        .unwrap();
        for (n, algo) in algos.iter().enumerate() {
            if n > 0 {
                app.update(Action::Focus(Pane::Algorithm));
                app.panes.algorithm.cursor =
                    app.algos.iter().position(|a| a.id() == *algo).unwrap();
                app.update(Action::Activate);
            }
            let t0 = Instant::now();
            while app.history.entries.len() <= n {
                assert!(t0.elapsed() < Duration::from_secs(120), "seed run");
                app.tick(Instant::now() + Duration::from_secs(1));
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        app.update(Action::Focus(Pane::History));
        app.update(Action::Mark);
        app.update(Action::Quit);
        out.push(std::fs::read(&path).unwrap());
    }
    out.push(
        br#"{"meanscape_session": 1,
            "settings": {"data": "iris", "algo": "power", "k": null, "seed": 0,
                         "restarts": 1, "init": "kmeans++", "scale": null,
                         "overrides": [], "options": {}},
            "history": {"entries": [{"id": 1, "data": "iris", "dataset": "iris",
                "algo": "power", "k": 3, "seed": 0, "restarts": 1, "init": "kmeans++",
                "scale": "standard", "params": {"s0": -1.0}, "changed": {},
                "objective": 1.5, "iterations": 7, "converged": true,
                "elapsed_ms": 3.0, "command": "meanscape run --data iris"}]}}"#
            .to_vec(),
    );
    out
}

#[test]
fn session_files_restore_or_are_refused_cleanly() {
    fuzz_support::limit_address_space();
    let dir = tempfile::tempdir().unwrap();
    let seeds = corpus(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let (jobs, rx) = mpsc::channel::<(Vec<u8>, bool)>();
    let (tx, results) = mpsc::channel::<(Outcome, u64, u64)>();
    std::thread::Builder::new()
        .name("fuzz-sessions".into())
        .spawn(move || {
            for (bytes, run) in rx {
                if tx.send(run_one(&work, &bytes, run)).is_err() {
                    break;
                }
            }
        })
        .unwrap();
    let mut mutator = JsonMutator::new(SEED);
    let (mut restored, mut refused, mut worst_ratio, mut worst_peak) = (0, 0, 0.0f64, 0u64);
    let (mut runs, mut kinds) = (0, std::collections::BTreeMap::<String, usize>::new());
    let mut failures: Vec<(PathBuf, String)> = Vec::new();
    let total = seeds.len() + MUTANTS;
    for i in 0..total {
        let input = if i < seeds.len() {
            seeds[i].clone()
        } else {
            mutator.mutate(&seeds)
        };
        // One input in four (and every seed) is also run.
        jobs.send((input.clone(), i < seeds.len() || i % 4 == 0))
            .unwrap();
        let failed = |why: String, failures: &mut Vec<(PathBuf, String)>| {
            let saved = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("target/fuzz-failures/session-{i}.json"));
            std::fs::create_dir_all(saved.parent().unwrap()).unwrap();
            std::fs::write(&saved, &input).unwrap();
            failures.push((saved, why));
        };
        match results.recv_timeout(Duration::from_secs(30)) {
            Err(_) => {
                failed("hang (over 30 s)".into(), &mut failures);
                break;
            }
            Ok((outcome, read_peak, peak)) => {
                // The reader holds the file and what it is parsed into: a
                // few times the file, whatever the file says.
                let len = input.len() as u64;
                if read_peak > READ_PER_BYTE * len + (1 << 20) {
                    failed(
                        format!("the reader held {read_peak} bytes for a {len}-byte file"),
                        &mut failures,
                    );
                }
                // All of it: the UI itself, the restored session kept,
                // copied, saved and read back.
                if peak > 4 * READ_PER_BYTE * len + (32 << 20) {
                    failed(
                        format!("held {peak} bytes for a {len}-byte file"),
                        &mut failures,
                    );
                }
                worst_peak = worst_peak.max(peak);
                if len >= 64 << 10 {
                    worst_ratio = worst_ratio.max(read_peak as f64 / len as f64);
                }
                match outcome {
                    Outcome::Restored(n) => {
                        restored += 1;
                        runs += n;
                    }
                    Outcome::Refused(m) => {
                        refused += 1;
                        // What kind of refusal: the words after the path.
                        let kind = m.split(':').next().unwrap_or("").to_string();
                        let kind = kind
                            .split_whitespace()
                            .skip(2)
                            .take(4)
                            .collect::<Vec<_>>()
                            .join(" ");
                        *kinds.entry(kind).or_default() += 1;
                    }
                    Outcome::Failure(why) => failed(why, &mut failures),
                }
                if i < seeds.len() {
                    assert_eq!(restored, i + 1, "a seed must be restored");
                }
            }
        }
    }
    eprintln!(
        "sessions: {total} tried, {restored} restored ({runs} runs in all), {refused} refused, \
         {} failures; most held: {worst_peak} bytes; most the reader held per byte of an input \
         of 64 KiB or more: {worst_ratio:.1}; refusals: {kinds:?}",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the inputs saved:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(p, w)| format!("{}: {w}", p.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The mix is worth its name: many mutants get through to the restore.
    assert!(
        restored > MUTANTS / 10 && refused > MUTANTS / 10,
        "{restored} / {refused}"
    );
}
