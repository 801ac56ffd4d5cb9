//! The long fuzzing run of the loaders (the short one is the test
//! tests/fuzz_loaders.rs, which shares this harness):
//!
//! ```text
//! cargo run --release --example fuzz_loaders -- --seconds 120 [--format F] [--seed S] [--cap BYTES] [--messages]
//! ```
//!
//! For each format (delimited, gzip, npy, idx, mat) it runs the seed corpus,
//! then mutants until its share of the time is up, and prints a table:
//! inputs tried (corpus + mutants), clean refusals, successes, crashes
//! (panics, multi-line or anonymous messages, broken datasets), hangs, and
//! the worst refused input: what it allocated at most (counted in-process)
//! and the peak resident memory (VmHWM) of a child process that loads it
//! alone. Failing inputs are saved under target/fuzz-failures/.
//! `--messages` also lists the most frequent refusals per format.
//!
//! `--load FILE [--cap BYTES]` loads one file instead (default options,
//! the cap as the memory budget) and prints the outcome and VmHWM.

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{Counting, Exec, Executor, Format, Input, Outcome, Session, run_in, save};
use meanscape::data::LoadOptions;
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Counting = Counting;

struct Row {
    format: Format,
    corpus: usize,
    mutants: usize,
    refused: usize,
    loaded: usize,
    crashes: usize,
    hangs: usize,
    worst: Option<(u64, Input)>,
    messages: HashMap<String, usize>,
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The message without the file name and with numbers blanked, to count
/// kinds of refusal.
fn kind(m: &str) -> String {
    let m = m.split_once(": ").map_or(m, |(_, rest)| rest);
    let mut out = String::new();
    let mut last_digit = false;
    for c in m.chars().take(90) {
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    out
}

fn fuzz(format: Format, seconds: f64, seed: u64, cap: u64) -> Row {
    let mut exec = Executor::new(Duration::from_secs(10));
    let mut session = Session::new(format, seed, cap);
    let mut row = Row {
        format,
        corpus: 0,
        mutants: 0,
        refused: 0,
        loaded: 0,
        crashes: 0,
        hangs: 0,
        worst: None,
        messages: HashMap::new(),
    };
    let start = Instant::now();
    let mut i = 0;
    while !session.seeds_done() || start.elapsed().as_secs_f64() < seconds {
        let from_corpus = !session.seeds_done();
        let input = session.next_input();
        if from_corpus {
            row.corpus += 1;
        } else {
            row.mutants += 1;
        }
        match exec.run(input.clone()) {
            Exec::Hang => {
                row.hangs += 1;
                let at = save(&input, &format!("{}-hang-{seed}-{i}", format.name()));
                eprintln!("hang: {}", at.display());
                exec = Executor::new(Duration::from_secs(10));
            }
            Exec::Done(run) => match &run.outcome {
                Outcome::Loaded(..) => row.loaded += 1,
                Outcome::Refused(m) => {
                    row.refused += 1;
                    *row.messages.entry(kind(m)).or_default() += 1;
                    if row.worst.as_ref().is_none_or(|(p, _)| run.peak > *p) {
                        row.worst = Some((run.peak, input));
                    }
                }
                bad => {
                    row.crashes += 1;
                    let at = save(&input, &format!("{}-crash-{seed}-{i}", format.name()));
                    eprintln!("crash: {bad:?}: {}", at.display());
                }
            },
        }
        i += 1;
    }
    row
}

/// Loads the input alone in a child process and returns its VmHWM in KiB.
fn child_peak(input: &Input) -> Option<u64> {
    let dir = std::env::temp_dir().join(format!("fuzz-worst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(dir.join(input.format.file_name()), &input.data).ok()?;
    if let Some(c) = &input.companion {
        std::fs::write(dir.join("input-labels-idx1-ubyte"), c).ok()?;
    }
    let out = std::process::Command::new(std::env::current_exe().ok()?)
        .args([
            "--replay",
            input.format.name(),
            &dir.display().to_string(),
            &input.opts.max_memory.unwrap_or(0).to_string(),
        ])
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--replay") {
        // Child: load one saved input with default options and the cap.
        let format = Format::parse(&args[i + 1]).expect("format");
        let dir = std::path::PathBuf::from(&args[i + 2]);
        let cap: u64 = args[i + 3].parse().expect("cap");
        let input = Input {
            format,
            data: std::fs::read(dir.join(format.file_name())).expect("input"),
            companion: None,
            opts: LoadOptions {
                max_memory: Some(cap),
                ..LoadOptions::default()
            },
        };
        let _ = run_in(&dir, &input);
        println!("{}", vm_hwm_kib());
        return;
    }
    if let Some(file) = arg(&args, "--load") {
        let opts = LoadOptions {
            max_memory: arg(&args, "--cap").map(|c| c.parse().expect("--cap BYTES")),
            ..LoadOptions::default()
        };
        let src = meanscape::data::DataSource::File(file.into());
        match meanscape::data::load(&src, &opts) {
            Ok(ds) => println!("loaded {}×{}", ds.n(), ds.p()),
            Err(e) => println!("refused: {e}"),
        }
        println!("VmHWM {:.1} MiB", vm_hwm_kib() as f64 / 1024.0);
        return;
    }
    let seconds: f64 = arg(&args, "--seconds").map_or(60.0, |s| s.parse().expect("--seconds N"));
    let seed: u64 = arg(&args, "--seed").map_or(1, |s| s.parse().expect("--seed S"));
    let cap: u64 = arg(&args, "--cap").map_or(64 << 20, |s| s.parse().expect("--cap BYTES"));
    let formats: Vec<Format> = match arg(&args, "--format") {
        Some(f) => vec![Format::parse(&f).unwrap_or_else(|| panic!("unknown format {f}"))],
        None => Format::ALL.to_vec(),
    };
    let share = seconds / formats.len() as f64;
    // Panics are counted, not printed as they happen.
    std::panic::set_hook(Box::new(|_| {}));
    println!(
        "{:<10} {:>7} {:>9} {:>9} {:>8} {:>8} {:>6}  worst refused input: allocated / child VmHWM (size)",
        "format", "corpus", "mutants", "refused", "loaded", "crashes", "hangs"
    );
    let mut total_fail = 0;
    for f in formats {
        let row = fuzz(f, share, seed, cap);
        total_fail += row.crashes + row.hangs;
        let worst = match &row.worst {
            Some((peak, input)) => {
                let child = child_peak(input)
                    .map_or("?".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
                format!(
                    "{:.1} MiB / {child} ({} bytes)",
                    *peak as f64 / (1 << 20) as f64,
                    input.data.len()
                )
            }
            None => "-".to_string(),
        };
        println!(
            "{:<10} {:>7} {:>9} {:>9} {:>8} {:>8} {:>6}  {worst}",
            row.format.name(),
            row.corpus,
            row.mutants,
            row.refused,
            row.loaded,
            row.crashes,
            row.hangs
        );
        if args.iter().any(|a| a == "--messages") {
            let mut kinds: Vec<(&String, &usize)> = row.messages.iter().collect();
            kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (k, n) in kinds.iter().take(25) {
                println!("    {n:>6}  {k}");
            }
        }
    }
    if total_fail > 0 {
        std::process::exit(1);
    }
}
