//! A short, deterministic fuzzing run of the model reader and predictor.
//! The seed corpus is the models real runs save (`Model::from_run` with
//! the fit's scaling, what `meanscape run --save-model` writes) for every
//! family that has one: centroids, weighted, kernel (with post-processing,
//! several kernels, views) and random features. Mutants come from a fixed
//! seed (tests/fuzz_support/model_mutate.rs): structure-aware changes of
//! the JSON and byte changes of its text.
//!
//! Each input is written to a file and read with `Model::load_within`
//! under a small memory budget ([`CAP`]); a model that loads predicts a
//! few rows (ordinary values, and values near f64's limits). Every input
//! must load and predict, or be refused with one line that names the file;
//! no panic, no hang (a watchdog fails the run), and the thread that reads
//! and predicts (rayon runs on it too) may not allocate more than the cap.

#[path = "fuzz_support/alloc.rs"]
mod alloc;
#[path = "fuzz_support/model_mutate.rs"]
mod model_mutate;

use alloc::{Counting, held, peak_above, reset_peak};
use meanscape::algo::{self, Ctx, RunConfig};
use meanscape::data::{self, DataSource, LoadOptions};
use meanscape::model::Model;
use model_mutate::ModelMutator;
use ndarray::Array2;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

#[global_allocator]
static ALLOC: Counting = Counting;

const SEED: u64 = 0x5eed_0de1;
/// The memory budget every input is read under.
const CAP: u64 = 32 << 20;
/// Mutants: a few seconds of work in release. A longer run:
/// `FUZZ_MODELS_MUTANTS=100000 FUZZ_MODELS_SEED=7 cargo test --release --test fuzz_models`.
const MUTANTS: usize = 2000;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
const SPEC: &str = "gen:blobs,n=60,p=4,k=3,sep=8,seed=3";

/// The models real runs save, one per family and shape of payload.
fn corpus() -> Vec<String> {
    let runs: [(&str, &[(&str, &str)]); 12] = [
        ("kmeans", &[]),
        ("power", &[]),
        ("khm", &[]),
        ("wkmeans", &[]),
        ("lw", &[]),
        ("sparse-kmeans", &[]),
        ("kpower", &[("kernel", "gaussian:center,normalize,rescale")]),
        ("kernel-kmeans", &[("kernel", "poly:a=1,b=2")]),
        ("mkpower", &[("views", "1-2,3-4")]),
        ("mkkm", &[("kernels", "gaussian:t=0.1;linear")]),
        ("rff-power", &[]),
        ("rff-mkpower", &[("views", "1-2,3-4")]),
    ];
    runs.iter()
        .map(|(id, opts)| {
            let source = DataSource::parse(SPEC).unwrap();
            let ds = data::load(&source, &LoadOptions::default()).unwrap();
            let a = algo::find(id).unwrap();
            let loaded = meanscape::prepare(source, ds, a.default_scaling());
            let mut cfg = RunConfig::new(a.as_ref(), &loaded.problem, 3, &[], opts).unwrap();
            cfg.seed = 1;
            let result = a.run(&loaded.problem, &cfg, &Ctx::new()).unwrap();
            Model::from_run(a.as_ref(), &loaded.problem, &cfg, &result)
                .unwrap()
                .with_scaling(loaded.scaling.clone())
                .unwrap()
                .to_json()
        })
        .collect()
}

/// What one input did.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Loaded and predicted (its rows), or loaded and refused the rows
    /// with a one-line message naming the file.
    Predicted,
    Refused(String),
    /// Refused, but the message is not one line naming the file, or holds
    /// a control character.
    BadMessage(String),
    /// Predicted labels out of range, or the wrong number of them.
    BadLabels(String),
    Panic(String),
}

/// Reads `path` as a model under the cap and predicts rows with it.
fn run_one(path: &Path) -> Outcome {
    let shown = path.display().to_string();
    let judge = |e: meanscape::Error| {
        let m = e.to_string();
        if m.contains(&shown) && !m.chars().any(char::is_control) {
            Outcome::Refused(m)
        } else {
            Outcome::BadMessage(m)
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| -> Outcome {
        let m = match Model::load_within(path, Some(CAP)) {
            Ok(m) => m,
            Err(e) => return judge(e),
        };
        let p = m.n_features();
        // Ordinary rows, and rows near f64's limits.
        let mut x = Array2::from_shape_fn((4, p), |(i, j)| (i as f64 - 1.5) * 0.7 + j as f64 * 0.1);
        x.row_mut(2).fill(1e300);
        x.row_mut(3).fill(-1e-300);
        // The ordinary rows decide; the extreme ones may be refused (too
        // large for a kernel or map), in one line naming the file.
        let mut outcome = None;
        for rows in [x.slice(ndarray::s![..2, ..]), x.view()] {
            if let Err(e) = m.check_memory(rows.nrows(), Some(CAP)) {
                return judge(e);
            }
            match m.predict_raw(rows) {
                Ok(l) if l.len() != rows.nrows() || l.iter().any(|&c| c >= m.k()) => {
                    return Outcome::BadLabels(format!("{l:?} for k = {}", m.k()));
                }
                Ok(_) => {}
                Err(e) => match judge(e) {
                    Outcome::Refused(m) if outcome.is_none() => return Outcome::Refused(m),
                    Outcome::Refused(_) => {}
                    bad => return bad,
                },
            }
            outcome.get_or_insert(Outcome::Predicted);
        }
        outcome.unwrap_or(Outcome::Predicted)
    }));
    result.unwrap_or_else(|p| {
        Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        )
    })
}

struct Run {
    outcome: Outcome,
    peak: u64,
}

/// Runs inputs on one worker thread, which is also the only thread of the
/// rayon pool predicting runs on, so that the counting allocator sees all
/// of an input's allocations; a run past the timeout is a hang.
struct Executor {
    jobs: mpsc::Sender<Vec<u8>>,
    results: mpsc::Receiver<Run>,
    timeout: Duration,
    dir: tempfile::TempDir,
}

impl Executor {
    fn new(timeout: Duration) -> Self {
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let path = dir.path().join("model.json");
        let (jobs, rx) = mpsc::channel::<Vec<u8>>();
        let (tx, results) = mpsc::channel::<Run>();
        std::thread::Builder::new()
            .name("fuzz-models".into())
            .spawn(move || {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .use_current_thread()
                    .build()
                    .unwrap();
                // faer's GEMM sets up a 64 MiB workspace (address space,
                // barely touched) on a thread's first large product, once
                // per thread: made here, so that the peaks are the inputs'.
                let (a, b) = (Array2::<f64>::ones((4, 4)), Array2::<f64>::ones((4, 1000)));
                let mut out = Array2::<f64>::zeros((4, 1000));
                meanscape::internals::linalg::gemm_seq(
                    out.view_mut(),
                    a.view(),
                    b.view(),
                    1.0,
                    false,
                );
                for bytes in rx {
                    std::fs::write(&path, &bytes).unwrap();
                    drop(bytes);
                    let base = held();
                    reset_peak();
                    let outcome = pool.install(|| run_one(&path));
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
            dir,
        }
    }

    fn run(&self, bytes: Vec<u8>) -> Option<Run> {
        self.jobs.send(bytes).expect("worker alive");
        self.results.recv_timeout(self.timeout).ok()
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("model.json")
    }
}

/// Saves a failing input for reproduction; returns where.
fn save(bytes: &[u8], tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("model-{tag}.json"));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn model_files_load_and_predict_or_are_refused_in_one_line() {
    let seeds = corpus();
    let parsed: Vec<serde_json::Value> = seeds
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    let exec = Executor::new(Duration::from_secs(30));
    let mut mutator = ModelMutator::new(env_or("FUZZ_MODELS_SEED", SEED));
    let total = seeds.len() + env_or("FUZZ_MODELS_MUTANTS", MUTANTS);
    let (mut predicted, mut refused, mut over, mut worst) = (0, 0, 0, 0u64);
    let mut failures = Vec::new();
    let (mut t_mutate, mut t_run) = (Duration::ZERO, Duration::ZERO);
    for i in 0..total {
        let t0 = std::time::Instant::now();
        let bytes = match seeds.get(i) {
            Some(s) => s.clone().into_bytes(),
            None => mutator.mutate(&parsed),
        };
        let t1 = std::time::Instant::now();
        t_mutate += t1 - t0;
        let run = exec.run(bytes.clone());
        t_run += t1.elapsed();
        let Some(run) = run else {
            let at = save(&bytes, &format!("hang-{i}"));
            panic!(
                "input {i} did not finish within {:?} (saved as {})",
                exec.timeout,
                at.display()
            );
        };
        worst = worst.max(run.peak);
        if run.peak > CAP {
            over += 1;
            let at = save(&bytes, &format!("memory-{i}"));
            failures.push(format!(
                "input {i} allocated {} bytes at once (cap {CAP}), saved as {}",
                run.peak,
                at.display()
            ));
        }
        match run.outcome {
            Outcome::Predicted => predicted += 1,
            Outcome::Refused(m) => {
                refused += 1;
                if std::env::var_os("FUZZ_MODELS_VERBOSE").is_some() {
                    eprintln!("refused: {m}");
                }
            }
            bad => {
                let at = save(&bytes, &i.to_string());
                failures.push(format!("input {i}: {bad:?}, saved as {}", at.display()));
            }
        }
        if i < seeds.len() {
            assert_eq!(
                predicted,
                i + 1,
                "seed {i} from a real run must load and predict ({})",
                exec.path().display()
            );
        }
    }
    eprintln!(
        "model fuzzing: {total} inputs ({} seeds), {predicted} loaded and predicted, {refused} refused, \
         {} failures, {over} over the {CAP}-byte cap, worst peak {worst} bytes \
         ({t_mutate:.1?} mutating, {t_run:.1?} reading and predicting)",
        seeds.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The mutants reach both sides.
    assert!(
        predicted > seeds.len() && refused > 0,
        "{predicted} predicted, {refused} refused"
    );
}

/// The models of the hardening issue, read under the counting allocator:
/// refused from their declared sizes with a peak of about their text.
#[test]
fn huge_declared_models_are_refused_holding_little_more_than_their_text() {
    let seeds = corpus();
    let mut v: serde_json::Value = serde_json::from_str(&seeds[0]).unwrap();
    let k = 2_000_000;
    v["k"] = k.into();
    v["model"]["centroids"] = serde_json::json!([]);
    v["fit"]["sizes"] = serde_json::json!([]);
    let n = v["fit"]["n"].as_u64().unwrap().to_string();
    let mut sizes = vec!["0"; k];
    sizes[0] = &n;
    let text = v
        .to_string()
        .replacen(
            "\"centroids\":[]",
            &format!("\"centroids\":[{}]", vec!["[0,0,0,0]"; k].join(",")),
            1,
        )
        .replacen(
            "\"sizes\":[]",
            &format!("\"sizes\":[{}]", sizes.join(",")),
            1,
        );
    let len = text.len() as u64;
    let exec = Executor::new(Duration::from_secs(60));
    let run = exec.run(text.into_bytes()).expect("no hang");
    let Outcome::Refused(m) = &run.outcome else {
        panic!("{:?}", run.outcome)
    };
    assert!(m.contains("k = 2000000"), "{m}");
    // The file's text, and a little for the outline: nothing per number.
    assert!(
        run.peak < len + (4 << 20),
        "peak {} for a {len}-byte file",
        run.peak
    );
    eprintln!(
        "2 million centres: {len}-byte file refused with a peak of {} bytes",
        run.peak
    );
}
