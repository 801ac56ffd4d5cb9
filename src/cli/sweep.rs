//! `meanscape sweep`: a grid over declared parameters, R seeds per cell,
//! scores per cell as a table, JSON or CSV, and an SVG plot.

use super::output::Failure;
use super::svg;
pub use super::sweep_args::SweepArgs;
use super::sweep_out::{self, Report};
use crate::algo;
use crate::error::{Error, Result};
use crate::files::{self, interrupt};
use crate::session;
use crate::sweep::{self, Axis, Truth};
use std::io::IsTerminal;
use std::path::Path;

pub fn run(a: &SweepArgs) -> Result<(), Failure> {
    let (text, cancelled) = output(a)?;
    if let Some(text) = text {
        super::output::print_text(&text)?;
    }
    if cancelled {
        return Err(Failure::Cancelled);
    }
    Ok(())
}

/// The output text (None when it went to --out) and whether the sweep
/// was cancelled.
fn output(a: &SweepArgs) -> Result<(Option<String>, bool)> {
    a.check_targets(&files::source_files(&a.data.data))?;
    if let Some(ids) = super::sweep_multi::algorithms(&a.algo.algo) {
        if a.algo.restarts != 1 {
            return Err(Error::param(format!(
                "--restarts {}: every run of a sweep has one restart; use --seeds R for R seeds per cell",
                a.algo.restarts
            )));
        }
        return super::sweep_multi::output(a, &ids);
    }
    if a.algo.restarts != 1 {
        return Err(Error::param(format!(
            "--restarts {}: every run of a sweep has one restart; use --seeds R for R seeds per cell",
            a.algo.restarts
        )));
    }
    let axes = a
        .grid
        .iter()
        .map(|g| Axis::parse(g))
        .collect::<Result<Vec<_>>>()?;
    if a.plot.is_some() && axes.len() > 2 {
        return Err(Error::param(format!(
            "--plot draws a grid of 1 or 2 axes, not {}",
            axes.len()
        )));
    }
    let scale = session::resolve_scaling(a.data.scale, &a.algo.algo);
    let algo = algo::find(&a.algo.algo)?;
    let given = a.algo.given()?;
    let loaded = session::load(&a.data.data, &a.data.load_options(), scale)?;
    let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
    a.check_targets(&inputs)?;
    // A k axis sets k in every cell: --k is not needed then, even without
    // labels to take it from.
    let k_axis = axes.iter().find(|x| x.name == "k").map(|x| x.values[0]);
    let k = match (a.algo.k, k_axis) {
        (None, Some(first)) => loaded.choose_k(None).unwrap_or(first as usize),
        (given, _) => loaded.choose_k(given)?,
    };
    let mut options = a.algo.options();
    options.extend(a.data.memory_option());
    let data = loaded.source.spec();
    let req = sweep::Request {
        k,
        seed: a.algo.seed,
        seeds: a.seeds,
        init: a.algo.init,
        given,
        options,
        axes,
        time_limit: (!a.yes).then_some(a.max_time),
        resamples: a.resamples.unwrap_or(if loaded.dataset.labels.is_some() {
            0
        } else {
            sweep::resample::DEFAULT_RESAMPLES
        }),
    };
    let plan = sweep::plan(algo.as_ref(), &loaded.problem, req).map_err(|e| e.about(&data))?;
    let truth = Truth {
        labels: loaded.dataset.labels.as_ref().map(|l| l.ids.as_slice()),
        relevance: loaded.dataset.relevance.as_deref(),
    };
    let score = sweep_out::choose_score(a.score.as_deref(), algo.as_ref(), truth, &plan)?;
    if interrupt::requested() {
        return Err(Error::Cancelled);
    }
    let bar = (!a.quiet && std::io::stderr().is_terminal()).then(|| progress_bar(plan.cells.len()));
    let result = {
        let _watch = interrupt::Watch::start();
        let on_cell = |done: usize, _total: usize, _cell: &sweep::CellResult| {
            if let Some(b) = &bar {
                b.set_position(done as u64);
            }
        };
        sweep::run(
            algo.as_ref(),
            &loaded.problem,
            &plan,
            truth,
            interrupt::flag(),
            &on_cell,
        )
        .map_err(|e| e.about(&data))?
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let cancelled = !result.complete;
    // The finished cells are written even after Ctrl-C; a second one
    // ends the program at once (the handler removes any temporary).
    interrupt::clear();
    let report = Report {
        algo: algo.as_ref(),
        data: &data,
        dataset: &loaded.dataset,
        plan: &plan,
        result: &result,
        score,
    };
    let text = report.render(a.format());
    if let Some(p) = &a.plot {
        files::write_atomic(p, svg::plot(&report).as_bytes())?;
    }
    match &a.out {
        Some(o) => {
            files::write_atomic(o, text.as_bytes())?;
            Ok((None, cancelled))
        }
        None => Ok((Some(text), cancelled)),
    }
}

fn progress_bar(cells: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(cells as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "sweep {bar:30} {pos}/{len} cells  {elapsed_precise} elapsed, ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
