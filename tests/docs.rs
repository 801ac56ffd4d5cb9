//! The commands the README and the user guide (docs/guide/) print still
//! run: every `meanscape` line of every `sh` block, through `sh` in a
//! fresh folder per block (so a block may write a file and read it on its
//! next line), with `meanscape` on the PATH. A line that opens the
//! terminal UI is run in tmux and must come up without an error and quit
//! cleanly with `q`.
//!
//! A block may be marked on the line above it:
//! - `<!-- docs-test: reference-data -->`: it reads the papers' data sets,
//!   linked into its folder from ../shared/data; skipped with a note when
//!   they are absent;
//! - `<!-- docs-test: skip REASON -->`: not run (the reason is required).
//!
//! Lines that do not start with `meanscape` (cargo, pip) are not run.

#![cfg(target_os = "linux")]

mod tui_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tui_support::tmux::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_meanscape");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Not a timing goal: a guard so that a hung command fails the test
/// instead of blocking it.
const HANG: Duration = Duration::from_secs(600);

#[derive(Debug, PartialEq)]
enum Mark {
    Run,
    ReferenceData,
    Skip(String),
}

#[derive(Debug)]
struct Block {
    file: String,
    line: usize,
    mark: Mark,
    commands: Vec<String>,
}

/// The `sh` blocks of a Markdown page, each with the mark above it.
fn blocks(file: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let above = (0..i)
            .rev()
            .map(|j| lines[j].trim())
            .find(|l| !l.is_empty())
            .unwrap_or("");
        let mark = match above.strip_prefix("<!-- docs-test:") {
            None => Mark::Run,
            Some(rest) => {
                let rest = rest.trim_end_matches("-->").trim();
                if rest == "reference-data" {
                    Mark::ReferenceData
                } else if let Some(why) = rest.strip_prefix("skip") {
                    let why = why.trim();
                    assert!(!why.is_empty(), "{file}:{i}: a skip needs a reason");
                    Mark::Skip(why.to_string())
                } else {
                    panic!("{file}:{i}: unknown docs-test mark {above:?}");
                }
            }
        };
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim_end() != "```" {
            end += 1;
        }
        let commands = lines[start..end]
            .iter()
            .filter(|l| l.starts_with("meanscape"))
            .map(|l| l.to_string())
            .collect();
        out.push(Block {
            file: file.to_string(),
            line: start,
            mark,
            commands,
        });
        i = end + 1;
    }
    out
}

/// README.md and every page of docs/guide/.
fn pages() -> Vec<(String, String)> {
    let mut files = vec![PathBuf::from(ROOT).join("README.md")];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs/guide"))
        .expect("docs/guide exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    files.extend(guide);
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(ROOT).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Whether a `meanscape …` line opens the terminal UI: no subcommand
/// (only flags) or `tui`.
fn opens_ui(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.get(1) {
        None => true,
        Some(w) if w.starts_with('#') => true,
        Some(w) => *w == "tui" || w.starts_with('-'),
    }
}

/// A folder whose `meanscape` is the binary under test.
fn bin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(BIN, dir.path().join("meanscape")).unwrap();
    dir
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn reference_data() -> Option<PathBuf> {
    let dir = Path::new(ROOT).join("../shared/data");
    dir.join("seeds.csv").is_file().then_some(dir)
}

/// Runs a headless line in `cwd`; returns what it printed on failure.
fn run_line(cwd: &Path, path: &str, command: &str) -> Result<(), String> {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t0.elapsed() > HANG {
            child.kill().ok();
            return Err(format!("still running after {HANG:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("error") {
        return Err(format!(
            "{}\nstderr:\n{stderr}\nstdout (start):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
                .chars()
                .take(2000)
                .collect::<String>()
        ));
    }
    if out.stdout.is_empty() && !command.contains("--out") {
        return Err("printed nothing".into());
    }
    Ok(())
}

/// Opens the UI as the line says, in tmux; it must come up, show no
/// error, and quit with `q` leaving exit status 0.
fn run_ui_line(n: usize, cwd: &Path, path: &str, command: &str) -> Result<(), String> {
    let script = format!("cd '{}' && {command}", cwd.display());
    let path_var = format!("PATH={path}");
    let t = Tmux::start(
        &format!("docs{n}"),
        &[&path_var, "NO_COLOR=1", "sh", "-c", &script],
    );
    t.wait_ui();
    // Let the first run start and draw.
    std::thread::sleep(Duration::from_millis(1500));
    let screen = t.screen();
    if screen.to_lowercase().contains("error") {
        return Err(format!("the UI shows an error:\n{screen}"));
    }
    t.keys(&["q"]);
    t.wait_exit();
    let after = t.screen();
    if !after.contains("EXIT=0") {
        return Err(format!("the UI did not end cleanly:\n{}", t.all()));
    }
    Ok(())
}

#[test]
fn the_printed_commands_run() {
    let bin = bin_dir();
    let path = path_with(bin.path());
    let tmux = Tmux::available();
    let data = reference_data();
    let mut ran = 0;
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    for (file, text) in pages() {
        for (b, block) in blocks(&file, &text).into_iter().enumerate() {
            let at = format!("{}:{}", block.file, block.line);
            match &block.mark {
                Mark::Skip(why) => {
                    notes.push(format!("{at}: not run ({why})"));
                    continue;
                }
                Mark::ReferenceData if data.is_none() => {
                    notes.push(format!("{at}: not run (the reference data is absent)"));
                    continue;
                }
                _ => {}
            }
            let cwd = tempfile::tempdir().unwrap();
            if block.mark == Mark::ReferenceData {
                for entry in std::fs::read_dir(data.as_ref().unwrap()).unwrap() {
                    let entry = entry.unwrap();
                    std::os::unix::fs::symlink(entry.path(), cwd.path().join(entry.file_name()))
                        .unwrap();
                }
            }
            for (i, command) in block.commands.iter().enumerate() {
                let result = if opens_ui(command) {
                    if !tmux {
                        notes.push(format!("{at}: `{command}` not run (no tmux)"));
                        continue;
                    }
                    run_ui_line(b * 100 + i, cwd.path(), &path, command)
                } else {
                    run_line(cwd.path(), &path, command)
                };
                ran += 1;
                if let Err(why) = result {
                    failures.push(format!("{at}: `{command}`: {why}"));
                }
            }
        }
    }
    for note in &notes {
        eprintln!("{note}");
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} printed commands failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The README alone prints more than a dozen; an extraction that finds
    // none would pass vacuously.
    assert!(ran >= 15, "only {ran} commands found");
}

#[test]
fn marks_and_ui_lines_are_read_as_meant() {
    let page = "text\n\n<!-- docs-test: skip takes an hour -->\n```sh\nmeanscape run --data x\n```\n\
                \n```sh\nmeanscape   # the UI\nmeanscape tui --data iris\nmeanscape --data wine\n\
                cargo test\nmeanscape run --data iris\n```\n\
                <!-- docs-test: reference-data -->\n```sh\nmeanscape sweep --data seeds.csv\n```\n";
    let found = blocks("page.md", page);
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].mark, Mark::Skip("takes an hour".into()));
    assert_eq!(found[1].mark, Mark::Run);
    assert_eq!(found[1].commands.len(), 4, "cargo lines are not run");
    let ui: Vec<bool> = found[1].commands.iter().map(|c| opens_ui(c)).collect();
    assert_eq!(ui, [true, true, true, false]);
    assert_eq!(found[2].mark, Mark::ReferenceData);
}
