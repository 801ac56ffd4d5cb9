//! `meanscape run`.

use super::args::{AlgoArgs, DataArgs};
use super::output::Failure;
use crate::algo::{self, Ctx, Event, RunConfig, RunResult};
use crate::error::{Error, Result};
use crate::files::{self, interrupt};
use crate::report::{ReportInput, RunReport, fmt_sig};
use crate::session;
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// Print one JSON object on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Write the labels (row,cluster; 0-based, input order) to this CSV file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Save the fitted model (JSON, with the fit's scaling) to this file,
    /// for `meanscape predict --model FILE --data NEW` (see
    /// docs/model-format.md). Not for spectral or precomputed kernels,
    /// which have no rule for new points.
    #[arg(long, value_name = "FILE")]
    pub save_model: Option<PathBuf>,
    /// Replace --out and --save-model if they exist.
    #[arg(long)]
    pub force: bool,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Skip the label-free scores (silhouette, Calinski-Harabasz,
    /// Davies-Bouldin, cost): the run's output leaves them out.
    #[arg(long)]
    pub no_scores: bool,
    /// Splits for the resampled label-free scores (prediction strength,
    /// resample stability, PAC; not the gap statistic, which compares
    /// values of k: `meanscape sweep --grid k=…`). Each split clusters
    /// two halves of the rows (of at most 2000 rows) with one restart.
    /// 0: none.
    #[arg(long, value_name = "B", default_value_t = 0)]
    pub resamples: usize,
}

pub fn run(a: &RunArgs) -> Result<(), Failure> {
    let text = output(a)?;
    Ok(super::output::print_text(&text)?)
}

/// The run's summary, or its JSON object.
fn output(a: &RunArgs) -> Result<String> {
    if let Some(out) = &a.out {
        files::check_target(out, &files::source_files(&a.data.data), a.force)?;
    }
    if let Some(m) = &a.save_model {
        files::check_target(m, &files::source_files(&a.data.data), a.force)?;
        if a.out.as_ref().is_some_and(|o| o == m) {
            return Err(Error::param(format!(
                "{}: --out and --save-model name the same file; give two names",
                m.display()
            )));
        }
    }
    let scale = session::resolve_scaling(a.data.scale, &a.algo.algo);
    let given = a.algo.given()?;
    let loaded = session::load(&a.data.data, &a.data.load_options(), scale)?;
    let data = loaded.source.spec();
    let algo = algo::find(&a.algo.algo)?;
    let k = loaded.choose_k(a.algo.k)?;
    let mut options = a.algo.options();
    options.extend(a.data.memory_option());
    let request = algo::Request {
        k,
        seed: a.algo.seed,
        restarts: a.algo.restarts,
        init: a.algo.init,
        given: &given,
        options: &options,
        centres: None,
    };
    let cfg = algo::configure(algo.as_ref(), &loaded.problem, request, &data)?;
    if let Some(out) = &a.out {
        // Now with every file the data came from (an IDX labels companion).
        let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
        files::check_target(out, &inputs, a.force)?;
        files::check_extension(out, "run --out", &["csv", "txt"])?;
    }
    if let Some(m) = &a.save_model {
        let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
        files::check_target(m, &inputs, a.force)?;
        files::check_extension(m, "run --save-model", &["json"])?;
        crate::model::Model::supports(algo.as_ref(), &loaded.problem)?;
        if loaded.problem.csr().is_some() {
            // The Python package keeps the model of a sparse fit (its
            // predict_csr reads it); the file format has no sparse rows to
            // predict from yet.
            return Err(Error::Model(format!(
                "{} ran on sparse rows: `meanscape predict` reads dense rows only, so no model \
                 is saved for sparse input",
                algo.id()
            )));
        }
    }
    let show_progress = !a.quiet && std::io::stderr().is_terminal();
    let result =
        solve(algo.as_ref(), &loaded.problem, &cfg, show_progress).map_err(|e| match e {
            Error::Data(_) => e.about(&data),
            e => e,
        })?;
    let spec = loaded.source.spec();
    let t_scores = Instant::now();
    let internal = (!a.no_scores).then(|| {
        crate::fit_scores::internal::of_run(
            algo.as_ref(),
            &loaded.problem,
            &cfg,
            &result.best,
            &crate::fit_scores::internal::base_for(&loaded.problem),
        )
    });
    let on_selected = (!a.no_scores)
        .then(|| {
            let w = result.best.feature_weights.as_deref()?;
            crate::fit_scores::internal::on_selected(&loaded.problem, w, &result.best.labels)
        })
        .flatten();
    let scores_ms = internal
        .is_some()
        .then(|| t_scores.elapsed().as_secs_f64() * 1e3);
    let resampled =
        resampled(a.resamples, algo.as_ref(), &loaded.problem, &cfg).map_err(|e| e.about(&data))?;
    let mut report = RunReport::build(ReportInput {
        algo: algo.as_ref(),
        cfg: &cfg,
        result: &result,
        dataset: &loaded.dataset,
        data_spec: &spec,
        scale: loaded.scale,
        load_ms: loaded.load_ms,
        load: &a.data.load_options(),
        internal,
    });
    report.scores_ms = scores_ms;
    if let Some(m) = report.metrics.as_mut() {
        m.on_selected = on_selected;
        m.resampled = resampled;
    }
    report.data.rescale_exp = (loaded.rescale_exp != 0).then_some(loaded.rescale_exp);
    if let Some(m) = &a.save_model {
        let model = crate::model::Model::from_run(algo.as_ref(), &loaded.problem, &cfg, &result)?
            .with_scaling(loaded.scaling.clone())?;
        files::write_atomic(m, model.to_json().as_bytes())?;
    }
    if let Some(out) = &a.out {
        files::write_atomic(out, report.labels_csv().as_bytes())?;
    }
    Ok(if a.json {
        serde_json::to_string(&report).expect("report serialises") + "\n"
    } else {
        report.human()
    })
}

/// The resampled scores of the run's configuration over `count` splits
/// (the sweep's, [`crate::sweep::resample::of_cell`], without the gap);
/// None for 0.
fn resampled(
    count: usize,
    algo: &dyn algo::Algorithm,
    problem: &algo::Problem,
    cfg: &RunConfig,
) -> Result<Option<crate::report::RunResampled>> {
    if count == 0 {
        return Ok(None);
    }
    if problem.csr().is_some() {
        return Err(Error::param(format!(
            "--resamples {count}: the resampled scores read dense rows; sparse input has none yet"
        )));
    }
    let res = crate::sweep::resample::Resampling {
        count,
        seed: cfg.seed,
        gap: false,
    };
    let _watch = interrupt::Watch::start();
    let ctx = Ctx::new().with_cancel(interrupt::flag());
    let t0 = Instant::now();
    let r = crate::sweep::resample::of_cell(algo, problem, cfg, &[], res, None, &ctx)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(Some(crate::report::RunResampled::from(&r, count, ms)))
}

/// Runs the solver, drawing a status line on stderr while it works.
fn solve(
    algo: &dyn algo::Algorithm,
    problem: &algo::Problem,
    cfg: &RunConfig,
    show_progress: bool,
) -> Result<RunResult> {
    if interrupt::requested() {
        return Err(Error::Cancelled);
    }
    let _watch = interrupt::Watch::start();
    let ctx = Ctx::new().with_cancel(interrupt::flag());
    if !show_progress {
        return algo::run(algo, problem, cfg, &ctx);
    }
    let (tx, rx) = mpsc::channel();
    let ctx = ctx.with_events(tx, false);
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || algo::run(algo, problem, cfg, &ctx));
        let mut last = Instant::now() - Duration::from_secs(1);
        let mut line = String::new();
        let mut drawn = false;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(ev) => line = status(&ev, cfg.restarts).unwrap_or(line),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if last.elapsed() >= Duration::from_millis(100) && !line.is_empty() {
                eprint!("\r\x1b[2K{line}");
                drawn = true;
                last = Instant::now();
            }
        }
        if drawn {
            eprint!("\r\x1b[2K");
        }
        handle.join().expect("solver thread panicked")
    })
}

fn status(ev: &Event, restarts: usize) -> Option<String> {
    match ev {
        Event::Iteration(p) => {
            let s =
                p.s.map(|s| format!("  s {}", fmt_sig(s)))
                    .unwrap_or_default();
            let r = if restarts > 1 {
                format!("restart {}/{restarts}  ", p.restart + 1)
            } else {
                String::new()
            };
            Some(format!(
                "{r}iter {}{s}  objective {}  changed {}",
                p.iter,
                fmt_sig(p.objective),
                p.changed
            ))
        }
        Event::Stage { label, done } => Some(format!("{label} {:.0}%", done * 100.0)),
        Event::RestartDone { .. } => None,
    }
}
