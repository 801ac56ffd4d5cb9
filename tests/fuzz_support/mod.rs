//! The loader fuzzer, shared by tests/fuzz_loaders.rs (a short, bounded,
//! deterministic run), tests/fuzz_regressions.rs and
//! examples/fuzz_loaders.rs (the long run): a seed corpus per format from
//! tests/fixtures (corpus.rs), a mutator driven by a seeded ChaCha stream
//! (mutate.rs), and an executor that runs the real loaders
//! (`DataSource::File` + `load`, with a small memory cap) on a worker
//! thread, with a watchdog and `catch_unwind`, counting what each input
//! allocates (alloc.rs).
// Each of the three users takes a different part.
#![allow(dead_code, unused_imports)]

mod alloc;
#[cfg(feature = "parquet")]
pub mod columnar;
mod corpus;
mod mutate;
pub mod session_mutate;

pub use alloc::{Counting, held, peak_above, reset_peak};
pub use corpus::{corpus, fixtures_dir, gzip, idx, npy, npz, sparse_npz};
pub use mutate::Mutator;

use meanscape::data::{DataSource, LoadOptions, load};
use rand::Rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

// ------------------------------------------------------------ formats

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Delimited,
    Gzip,
    Npy,
    Idx,
    Mat,
    /// Parquet (needs the `parquet` feature, as the Arrow formats do).
    Parquet,
    /// Arrow IPC: Feather v2 files and streams.
    Arrow,
    /// svmlight / libsvm text.
    Svmlight,
    /// Matrix Market coordinate text.
    Mtx,
    /// scipy.sparse `.npz` (a zip of `.npy` members).
    Npz,
}

impl Format {
    #[cfg(feature = "parquet")]
    pub const ALL: [Format; 10] = [
        Format::Delimited,
        Format::Gzip,
        Format::Npy,
        Format::Idx,
        Format::Mat,
        Format::Parquet,
        Format::Arrow,
        Format::Svmlight,
        Format::Mtx,
        Format::Npz,
    ];
    #[cfg(not(feature = "parquet"))]
    pub const ALL: [Format; 8] = [
        Format::Delimited,
        Format::Gzip,
        Format::Npy,
        Format::Idx,
        Format::Mat,
        Format::Svmlight,
        Format::Mtx,
        Format::Npz,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Delimited => "delimited",
            Format::Gzip => "gzip",
            Format::Npy => "npy",
            Format::Idx => "idx",
            Format::Mat => "mat",
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
            Format::Svmlight => "svmlight",
            Format::Mtx => "mtx",
            Format::Npz => "npz",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The file name an input of this format is written under (the loader
    /// picks the reader by extension, IDX and gzip by content).
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Delimited => "input.csv",
            Format::Gzip => "input.gz",
            Format::Npy => "input.npy",
            Format::Idx => "input-images-idx3-ubyte",
            Format::Mat => "input.mat",
            Format::Parquet => "input.parquet",
            Format::Arrow => "input.arrow",
            Format::Svmlight => "input.svm",
            Format::Mtx => "input.mtx",
            Format::Npz => "input.npz",
        }
    }

    fn of_fixture(name: &str) -> Option<Format> {
        if name.ends_with(".svm") {
            Some(Format::Svmlight)
        } else if name.ends_with(".mtx") {
            Some(Format::Mtx)
        } else if name.ends_with(".npz") {
            Some(Format::Npz)
        } else if name.ends_with(".gz") {
            Some(Format::Gzip)
        } else if name.ends_with(".npy") {
            Some(Format::Npy)
        } else if name.ends_with(".mat") {
            Some(Format::Mat)
        } else if name.contains("-idx") {
            Some(Format::Idx)
        } else if [".csv", ".tsv", ".txt"].iter().any(|e| name.ends_with(e)) {
            Some(Format::Delimited)
        } else {
            None
        }
    }
}

// ------------------------------------------------------------ execution

/// What one input did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Loaded: rows, columns.
    Loaded(usize, usize),
    /// Refused with this one-line message.
    Refused(String),
    /// Refused, but the message is empty, on several lines, or names no file.
    BadMessage(String),
    /// Loaded, but the dataset breaks an invariant.
    BadDataset(String),
    /// A panic, with its message.
    Panic(String),
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Outcome::BadMessage(_) | Outcome::BadDataset(_) | Outcome::Panic(_)
        )
    }
}

/// One input to run: the data file's bytes, and for IDX sometimes a
/// labels file beside it.
#[derive(Debug, Clone)]
pub struct Input {
    pub format: Format,
    pub data: Vec<u8>,
    pub companion: Option<Vec<u8>>,
    pub opts: LoadOptions,
}

/// Writes the input into `dir` and loads it; checks what comes back.
pub fn run_in(dir: &Path, input: &Input) -> Outcome {
    let path = dir.join(input.format.file_name());
    let labels = dir.join("input-labels-idx1-ubyte");
    let _ = std::fs::remove_file(&labels);
    std::fs::write(&path, &input.data).unwrap();
    if let Some(c) = &input.companion {
        std::fs::write(&labels, c).unwrap();
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        load(&DataSource::File(path.clone()), &input.opts)
    }));
    match result {
        Err(p) => Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
        Ok(Err(e)) => {
            let m = e.to_string();
            let names_file = m.contains(&path.display().to_string())
                || m.contains(&labels.display().to_string());
            if m.trim().is_empty() || m.contains('\n') || m.contains('\r') || !names_file {
                Outcome::BadMessage(m)
            } else {
                Outcome::Refused(m)
            }
        }
        Ok(Ok(ds)) => {
            let bad =
                if ds.n() == 0 || (ds.p() == 0 && ds.kernels.is_none()) {
                    Some(format!("{}×{} dataset", ds.n(), ds.p()))
                } else if ds
                    .kernels
                    .as_ref()
                    .is_some_and(|k| k.is_empty() || k.n() != ds.n())
                {
                    Some("kernels do not match the rows".to_string())
                } else if ds.x.f64().iter().any(|v| !v.is_finite()) {
                    Some("non-finite value".to_string())
                } else if ds.feature_names.len() != ds.p() {
                    Some("feature names do not match".to_string())
                } else if ds.labels.as_ref().is_some_and(|l| {
                    l.ids.len() != ds.n() || l.ids.iter().any(|&i| i >= l.names.len())
                }) {
                    Some("labels do not match".to_string())
                } else if ds.inputs.first() != Some(&path) {
                    Some(format!(
                        "inputs {:?} do not start with the data file",
                        ds.inputs
                    ))
                } else {
                    None
                };
            match bad {
                Some(why) => Outcome::BadDataset(why),
                None => Outcome::Loaded(ds.n(), ds.p()),
            }
        }
    }
}

/// The result of one execution with what it cost.
#[derive(Debug, Clone)]
pub struct Run {
    pub outcome: Outcome,
    /// Most bytes allocated at once while loading.
    pub peak: u64,
}

/// Runs inputs one by one on a worker thread; a run that takes longer than
/// the timeout is reported as a hang (and the worker abandoned).
pub struct Executor {
    jobs: mpsc::Sender<Input>,
    results: mpsc::Receiver<Run>,
    pub timeout: Duration,
    _dir: tempfile::TempDir,
}

pub enum Exec {
    Done(Run),
    Hang,
}

/// Caps the address space of this process (4 GiB), so that a runaway
/// allocation fails here instead of pushing the machine into swap or the
/// OOM killer.
pub fn limit_address_space() {
    #[cfg(unix)]
    unsafe {
        let mut cur = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_AS, &mut cur) == 0 {
            let want: libc::rlim_t = 4 << 30;
            if cur.rlim_cur == libc::RLIM_INFINITY || cur.rlim_cur > want {
                cur.rlim_cur = want;
                libc::setrlimit(libc::RLIMIT_AS, &cur);
            }
        }
    }
}

impl Executor {
    pub fn new(timeout: Duration) -> Self {
        limit_address_space();
        // Memory-backed where there is one: on a disk, writing each input
        // takes far longer than loading it.
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let path = dir.path().to_path_buf();
        let (jobs, rx) = mpsc::channel::<Input>();
        let (tx, results) = mpsc::channel::<Run>();
        std::thread::Builder::new()
            .name("fuzz-worker".into())
            .spawn(move || {
                for input in rx {
                    let base = held();
                    reset_peak();
                    let outcome = run_in(&path, &input);
                    let peak = peak_above(base);
                    if tx.send(Run { outcome, peak }).is_err() {
                        break;
                    }
                }
            })
            .unwrap();
        Executor {
            jobs,
            results,
            timeout,
            _dir: dir,
        }
    }

    pub fn run(&self, input: Input) -> Exec {
        self.jobs.send(input).expect("worker alive");
        match self.results.recv_timeout(self.timeout) {
            Ok(r) => Exec::Done(r),
            Err(_) => Exec::Hang,
        }
    }
}

/// The inputs of a fuzzing session of one format: the corpus first (with
/// default options), then `mutants` mutants, all from `seed`.
pub struct Session {
    pub format: Format,
    pub corpus: Vec<Vec<u8>>,
    labels: Vec<Vec<u8>>,
    mutator: Mutator,
    next_seed: usize,
    pub max_memory: u64,
}

impl Session {
    pub fn new(format: Format, seed: u64, max_memory: u64) -> Self {
        Session {
            format,
            corpus: corpus(format),
            labels: vec![
                idx(0x08, &[4], &[3, 1, 3, 0]),
                idx(0x08, &[2], &[1, 2]),
                idx(0x0D, &[4], &[0x7f, 0xc0, 0, 0].repeat(4)),
            ],
            mutator: Mutator::new(seed ^ (format as u64).wrapping_mul(0x9e37_79b9)),
            next_seed: 0,
            max_memory,
        }
    }

    /// The next input: a corpus entry as it is while any are left, then
    /// mutants.
    pub fn next_input(&mut self) -> Input {
        let companion =
            (self.format == Format::Idx && self.mutator.rng.random_bool(0.3)).then(|| {
                let base = self.labels[self.mutator.rng.random_range(0..self.labels.len())].clone();
                if self.mutator.rng.random_bool(0.5) {
                    base
                } else {
                    self.mutator
                        .mutate(Format::Idx, std::slice::from_ref(&base))
                }
            });
        if self.next_seed < self.corpus.len() {
            let data = self.corpus[self.next_seed].clone();
            self.next_seed += 1;
            return Input {
                format: self.format,
                data,
                companion,
                opts: LoadOptions {
                    max_memory: Some(self.max_memory),
                    ..LoadOptions::default()
                },
            };
        }
        let data = self.mutator.mutate(self.format, &self.corpus);
        let opts = self.mutator.options(self.max_memory);
        Input {
            format: self.format,
            data,
            companion,
            opts,
        }
    }

    pub fn seeds_done(&self) -> bool {
        self.next_seed >= self.corpus.len()
    }
}

/// Saves a failing input for reproduction; returns where.
pub fn save(input: &Input, tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}-{}", input.format.file_name()));
    std::fs::write(&path, &input.data).unwrap();
    if let Some(c) = &input.companion {
        std::fs::write(dir.join(format!("{tag}-input-labels-idx1-ubyte")), c).unwrap();
    }
    path
}
