//! Background jobs for the UI: one solver run or one dataset load at a
//! time, each on its own thread, reporting through a channel the UI drains
//! without ever blocking.

use super::projection::Projection;
use crate::algo::path::{Grid, PathAlgo, PathResult, run_path};
use crate::algo::{self, Algorithm, Ctx, Event, RunConfig, RunResult};
use crate::data::{LoadOptions, Scaling};
use crate::error::Result;
use crate::session::{self, Loaded};
use crate::tui::terminal::contained;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};

/// What a job sends back.
pub enum Msg {
    Event(Event),
    RunDone(Result<RunResult>),
    /// The label-free scores of a finished run, computed on the solver's
    /// thread (a silhouette is too slow for the UI's), sent before RunDone.
    Internal(crate::fit_scores::Internal),
    Loaded(Result<Box<(Loaded, Projection)>>),
    PathDone(Result<PathResult>),
    /// A sweep's cell, as soon as its seeds are done, with its family
    /// (the algorithm's place in a k-scan over several; 0 otherwise).
    SweepCell(usize, Box<crate::sweep::CellResult>),
    SweepDone(Result<crate::sweep::SweepResult>),
}

/// A running job: dropping it (or calling `cancel`) asks it to stop and
/// forgets whatever it still sends.
pub struct Job {
    cancel: Arc<AtomicBool>,
    /// Set with `cancel` when the user stopped the job (rather than a new
    /// one replacing it): the problem's cached matrices are dropped too.
    release: Arc<AtomicBool>,
    rx: Receiver<Msg>,
}

impl Job {
    fn new(cancel: Arc<AtomicBool>, rx: Receiver<Msg>) -> Self {
        Job {
            cancel,
            release: Arc::new(AtomicBool::new(false)),
            rx,
        }
    }

    /// Stops the job; what it cached is kept for the run that follows.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Stops the job and drops the problem's cached matrices: nothing
    /// follows that would reuse them.
    pub fn abandon(&self) {
        self.release.store(true, Ordering::Relaxed);
        self.cancel();
    }

    /// Everything the job has sent so far, without waiting. The flag is
    /// true once the job has finished and its channel is closed.
    pub fn drain(&self) -> (Vec<Msg>, bool) {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(m) => out.push(m),
                Err(TryRecvError::Empty) => return (out, false),
                Err(TryRecvError::Disconnected) => return (out, true),
            }
        }
    }

    /// Blocks until the job sends something (tests only).
    pub fn recv_blocking(&self) -> Option<Msg> {
        self.rx.recv().ok()
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Starts one run of `algo` on `problem`.
pub fn start_run(algo: Box<dyn Algorithm>, problem: Arc<algo::Problem>, cfg: RunConfig) -> Job {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let (etx, erx) = mpsc::channel::<Event>();
    let flag = cancel.clone();
    let job = Job::new(cancel, rx);
    let release = job.release.clone();
    let fwd = tx.clone();
    // Forward solver events into the job's one channel, tagged.
    std::thread::spawn(move || {
        for ev in erx {
            if fwd.send(Msg::Event(ev)).is_err() {
                break;
            }
        }
    });
    std::thread::Builder::new()
        .name("meanscape-solver".into())
        .spawn(move || {
            let ctx = Ctx::new().with_events(etx, true).with_cancel(flag);
            let r = contained(|| algo::run(algo.as_ref(), &problem, &cfg, &ctx)).unwrap_or_else(
                |what| Err(crate::Error::Resource(format!("the solver failed: {what}"))),
            );
            drop(ctx);
            // Scored where it clustered, before the Gram matrices and maps
            // it used are released.
            if let Ok(res) = &r {
                let base = crate::fit_scores::internal::base_for(&problem);
                let i = crate::fit_scores::internal::of_run(
                    algo.as_ref(),
                    &problem,
                    &cfg,
                    &res.best,
                    &base,
                );
                let _ = tx.send(Msg::Internal(i));
            }
            if release.load(Ordering::Relaxed) {
                problem.clear_cache();
            }
            let _ = tx.send(Msg::RunDone(r));
        })
        .expect("spawn solver thread");
    job
}

/// Loads a dataset (and its 2-D projection) in the background.
pub fn start_load(spec: String, opts: LoadOptions, scale: Scaling) -> Job {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("meanscape-loader".into())
        .spawn(move || {
            // A reader that panics on a crafted file is a bug, but the UI
            // says so and goes on with the data it had.
            let r = contained(|| {
                session::load(&spec, &opts, scale).map(|l| {
                    let proj = match &l.problem.kernels {
                        Some(stack) if l.problem.kernels_only() => Projection::kernel(stack),
                        _ => match l.problem.csr() {
                            Some(x) => Projection::csr(x),
                            None => Projection::pca(&l.problem.x.f64()),
                        },
                    };
                    Box::new((l, proj))
                })
            })
            .unwrap_or_else(|what| {
                Err(crate::Error::Resource(format!(
                    "reading it failed unexpectedly ({what})"
                )))
            });
            let _ = tx.send(Msg::Loaded(r));
        })
        .expect("spawn loader thread");
    Job::new(cancel, rx)
}

/// Points of the regularisation path the UI computes: the library's
/// default, as `meanscape path` without --points.
pub const PATH_POINTS: usize = crate::algo::path::DEFAULT_POINTS;

/// Computes a regularisation path in the background; its `Stage` events
/// give the progress.
pub fn start_path(algo: PathAlgo, problem: Arc<algo::Problem>, mut cfg: RunConfig) -> Job {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let (etx, erx) = mpsc::channel::<Event>();
    let fwd = tx.clone();
    std::thread::spawn(move || {
        for ev in erx {
            // Only the progress matters here, not every iteration.
            if matches!(ev, Event::Stage { .. }) && fwd.send(Msg::Event(ev)).is_err() {
                break;
            }
        }
    });
    let flag = cancel.clone();
    std::thread::Builder::new()
        .name("meanscape-path".into())
        .spawn(move || {
            cfg.restarts = 1;
            let ctx = Ctx::new().with_events(etx, false).with_cancel(flag);
            let grid = Grid::default();
            let r =
                contained(|| run_path(algo, &problem, &cfg, &grid, &ctx)).unwrap_or_else(|_| {
                    Err(crate::Error::Resource("the path computation failed".into()))
                });
            drop(ctx);
            let _ = tx.send(Msg::PathDone(r));
        })
        .expect("spawn path thread");
    Job::new(cancel, rx)
}

/// Runs a planned sweep in the background, sending every finished cell.
/// Its runs share the rayon pool with nothing else the UI does: drawing
/// stays on the UI's thread.
///
/// Several families (a k-scan over several algorithms) run one after the
/// other on the same data; the first that fails or is cancelled ends it.
pub fn start_sweep(
    loaded: Arc<Loaded>,
    families: Vec<(Box<dyn Algorithm>, crate::sweep::Plan)>,
) -> Job {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = cancel.clone();
    std::thread::Builder::new()
        .name("meanscape-sweep".into())
        .spawn(move || {
            let ds = &loaded.dataset;
            let truth = crate::sweep::Truth {
                labels: ds.labels.as_ref().map(|l| l.ids.as_slice()),
                relevance: ds.relevance.as_deref(),
            };
            let cell_tx = std::sync::Mutex::new(tx.clone());
            let mut last = Err(crate::Error::Resource("nothing to sweep".into()));
            for (f, (algo, plan)) in families.iter().enumerate() {
                last = contained(|| {
                    crate::sweep::run(
                        algo.as_ref(),
                        &loaded.problem,
                        plan,
                        truth,
                        flag.clone(),
                        &|_, _, cell| {
                            let _ = cell_tx
                                .lock()
                                .expect("sweep channel")
                                .send(Msg::SweepCell(f, Box::new(cell.clone())));
                        },
                    )
                })
                .unwrap_or_else(|_| Err(crate::Error::Resource("the sweep failed".into())));
                if !last.as_ref().is_ok_and(|r| r.complete) {
                    break;
                }
            }
            let _ = tx.send(Msg::SweepDone(last));
        })
        .expect("spawn sweep thread");
    Job::new(cancel, rx)
}
