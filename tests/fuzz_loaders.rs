//! A short, deterministic fuzzing run of every loader: the seed corpus of
//! each format (tests/fixtures) and a fixed number of mutants from a fixed
//! seed, each loaded through the public path (`DataSource::File` + `load`)
//! with a 64 MiB memory cap. Every input must load (with a consistent
//! dataset) or be refused with a one-line message that names the file; no
//! panic, no hang (a watchdog fails the run instead of blocking), and no
//! input may make the loader hold much more than the cap.
//!
//! The long run is `cargo run --release --example fuzz_loaders -- --seconds N`.

mod fuzz_support;
use fuzz_support::{Counting, Exec, Executor, Format, Outcome, Session, save};
use std::time::Duration;

#[global_allocator]
static ALLOC: Counting = Counting;

const SEED: u64 = 0x5eed_2024;
const CAP: u64 = 64 << 20;
/// Mutants per format: a few seconds of work each in release.
const MUTANTS: usize = 10_000;

fn fuzz(format: Format) {
    let exec = Executor::new(Duration::from_secs(30));
    let mut session = Session::new(format, SEED, CAP);
    let total = session.corpus.len() + MUTANTS;
    let (mut loaded, mut refused, mut worst) = (0, 0, 0u64);
    let mut failures = Vec::new();
    for i in 0..total {
        let input = session.next_input();
        match exec.run(input.clone()) {
            Exec::Hang => {
                let at = save(&input, &format!("{}-hang-{i}", format.name()));
                panic!(
                    "{}: input {i} did not finish within {:?} (saved as {})",
                    format.name(),
                    exec.timeout,
                    at.display()
                );
            }
            Exec::Done(run) => {
                worst = worst.max(run.peak);
                // Allocation is counted as asked for, before the OS commits
                // a page: twice the cap leaves room for a buffer doubling.
                if run.peak > 2 * CAP {
                    let at = save(&input, &format!("{}-memory-{i}", format.name()));
                    failures.push(format!(
                        "input {i} held {} bytes (cap {CAP}), saved as {}",
                        run.peak,
                        at.display()
                    ));
                }
                match run.outcome {
                    Outcome::Loaded(..) => loaded += 1,
                    Outcome::Refused(_) => refused += 1,
                    bad => {
                        let at = save(&input, &format!("{}-{i}", format.name()));
                        failures.push(format!("input {i}: {bad:?}, saved as {}", at.display()));
                    }
                }
            }
        }
    }
    eprintln!(
        "{}: {total} inputs, {loaded} loaded, {refused} refused, {} failures, worst peak {} bytes",
        format.name(),
        failures.len(),
        worst
    );
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        format.name(),
        failures.join("\n")
    );
    // The corpus and the mutator reach both sides of every loader.
    assert!(
        loaded > 0 && refused > 0,
        "{}: {loaded} loaded, {refused} refused",
        format.name()
    );
}

#[test]
fn fuzz_delimited() {
    fuzz(Format::Delimited);
}

#[test]
fn fuzz_gzip() {
    fuzz(Format::Gzip);
}

#[test]
fn fuzz_npy() {
    fuzz(Format::Npy);
}

#[test]
fn fuzz_idx() {
    fuzz(Format::Idx);
}

#[test]
fn fuzz_mat() {
    fuzz(Format::Mat);
}

#[cfg(feature = "parquet")]
#[test]
fn fuzz_parquet() {
    fuzz(Format::Parquet);
}

#[cfg(feature = "parquet")]
#[test]
fn fuzz_arrow() {
    fuzz(Format::Arrow);
}

#[test]
fn fuzz_svmlight() {
    fuzz(Format::Svmlight);
}

#[test]
fn fuzz_mtx() {
    fuzz(Format::Mtx);
}

#[test]
fn fuzz_npz() {
    fuzz(Format::Npz);
}
