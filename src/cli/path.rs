//! `meanscape path`: a regularisation path of `lw` (over λ) or
//! `sparse-kmeans` (over the bound s), as CSV or JSON, to stdout or
//! `--out`, with an SVG plot (`--plot`).

use super::args::{AlgoArgs, DataArgs};
use super::output::Failure;
use super::path_svg;
use crate::algo::params::fmt_num;
use crate::algo::path::{DEFAULT_POINTS, Grid, PathAlgo, PathResult, run_path};
use crate::algo::{self, Ctx, Event, RunConfig};
use crate::error::{Error, Result};
use crate::files;
use crate::report::{fmt_sig, insert_scale, params_map};
use crate::session;
use clap::Args;
use serde_json::{Map, Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Args)]
pub struct PathArgs {
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// The grid, FROM:TO:COUNT (log-spaced when both ends are > 0, run in
    /// that order, each point the better of a warm start from the previous one
    /// and a start from the shared initial partition): λ for lw
    /// (reference-code units), the L1 bound s for sparse-kmeans. Default: an
    /// automatic grid from the sparsest end (lw: lambda_max, where every
    /// weight is 0, down to the largest λ that keeps every feature, or to
    /// lambda_max × --min-ratio; sparse-kmeans: s from 1.1 up to the bound
    /// that keeps every feature).
    #[arg(long, value_name = "FROM:TO:COUNT")]
    pub lambda: Option<String>,
    /// Number of points of the automatic grid (the UI's path has as many).
    #[arg(long, default_value_t = DEFAULT_POINTS, value_parser = parse_points, allow_negative_numbers = true)]
    pub points: usize,
    /// lw's automatic grid ends at lambda_max × this (0 < ratio < 1)
    /// instead of the largest λ that keeps every feature.
    #[arg(long, allow_negative_numbers = true)]
    pub min_ratio: Option<f64>,
    /// One JSON object instead of CSV.
    #[arg(long)]
    pub json: bool,
    /// Write the CSV (or JSON) to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write a plot of the path: the weights of the heaviest features, and
    /// the number selected with the scores against the ground truth (when
    /// known), against the grid value.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Replace --out or --plot if it exists.
    #[arg(long)]
    pub force: bool,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(a: &PathArgs) -> Result<(), Failure> {
    if let Some(text) = output(a)? {
        super::output::print_text(&text)?;
    }
    Ok(())
}

impl PathArgs {
    /// Every output file checked against `inputs` before any work (as
    /// `sweep` does).
    fn check_targets(&self, inputs: &[&Path]) -> Result<()> {
        files::Outputs {
            cmd: "path",
            out: self.out.as_deref(),
            out_ext: if self.json { &["json"] } else { &["csv"] },
            plot: self.plot.as_deref(),
            force: self.force,
        }
        .check(inputs)
    }
}

/// The path as CSV, or as one JSON object; `None` when it went to --out.
fn output(a: &PathArgs) -> Result<Option<String>> {
    a.check_targets(&files::source_files(&a.data.data))?;
    let kind = PathAlgo::from_id(&a.algo.algo)?;
    if let Some(spec) = &a.lambda {
        grid_in_range(spec, algo::find(kind.id())?.as_ref(), kind)?;
    }
    let scale = session::resolve_scaling(a.data.scale, kind.id());
    let given = a.algo.given()?;
    let loaded = session::load(&a.data.data, &a.data.load_options(), scale)?;
    let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
    a.check_targets(&inputs)?;
    let algo = algo::find(kind.id())?;
    if given.iter().any(|(n, _)| n == kind.parameter()) {
        return Err(Error::param(format!(
            "-P {} is set by the path's grid; use --lambda FROM:TO:COUNT",
            kind.parameter()
        )));
    }
    let mut options = a.algo.options();
    options.extend(a.data.memory_option());
    if let Some((name, _)) = options.iter().find(|(n, _)| n == "tune") {
        return Err(Error::param(format!(
            "--{name} does not apply to path: the path runs the whole grid"
        )));
    }
    let k = loaded.choose_k(a.algo.k)?;
    let data = loaded.source.spec();
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
    let grid = match &a.lambda {
        Some(spec) => grid_in_range(spec, algo.as_ref(), kind)?,
        None => {
            if let Some(r) = a.min_ratio
                && !(r > 0.0 && r < 1.0)
            {
                return Err(Error::param(format!(
                    "--min-ratio {} is out of range: must be in (0, 1)",
                    fmt_num(r)
                )));
            }
            Grid::Auto {
                count: a.points,
                ratio: a.min_ratio,
            }
        }
    };
    let show = !a.quiet && std::io::stderr().is_terminal();
    let result = solve(kind, &loaded.problem, &cfg, &grid, show).map_err(|e| match e {
        Error::Data(_) => e.about(&data),
        e => e,
    })?;
    let ds = &loaded.dataset;
    let truth = ds.labels.as_ref().map(|l| l.ids.as_slice());
    let relevance = ds.relevance.as_deref();
    let text = if a.json {
        let mut params = params_map(&cfg);
        params.remove(kind.parameter());
        params.remove("tune");
        let scale_default = loaded.scale == algo.default_scaling();
        insert_scale(&mut params, loaded.scale, scale_default);
        let path: Vec<Value> = result
            .points
            .iter()
            .map(|pt| {
                json!({
                    "lambda": pt.lambda,
                    "selected": pt.selected,
                    "feature_weights": pt.feature_weights,
                    "objective": pt.objective,
                    "metrics": Value::Object(point_metrics(pt, &loaded.problem, truth, relevance)),
                    "iterations": pt.iterations,
                    "converged": pt.converged,
                })
            })
            .collect();
        let mut out = Map::new();
        out.insert("algorithm".into(), kind.id().into());
        out.insert("parameter".into(), kind.parameter().into());
        let mut data = json!({"name": ds.name, "source": loaded.source.spec(),
            "scale": loaded.scale, "scale_default": scale_default});
        if loaded.rescale_exp != 0 {
            data["rescale_exp"] = loaded.rescale_exp.into();
        }
        if let Some(c) = &ds.label_left_out {
            data["label_left_out"] = c.clone().into();
        }
        data["notes"] = ds.notes.clone().into();
        out.insert("data".into(), data);
        out.insert("n".into(), ds.n().into());
        out.insert("p".into(), ds.p().into());
        out.insert("k".into(), k.into());
        out.insert("params".into(), Value::Object(params));
        out.insert(
            "grid".into(),
            json!({"auto": a.lambda.is_none(), "values": result.points.iter().map(|p| p.lambda).collect::<Vec<_>>()}),
        );
        match kind {
            PathAlgo::Lw => {
                out.insert("lambda_max".into(), result.limit.into());
                out.insert("alpha".into(), result.alpha.into());
            }
            PathAlgo::SparseKMeans => {
                out.insert("wbound_all".into(), result.limit.into());
            }
        }
        out.insert("feature_names".into(), ds.feature_names.clone().into());
        out.insert("path".into(), Value::Array(path));
        out.insert(
            "elapsed_ms".into(),
            (result.elapsed.as_secs_f64() * 1e3).into(),
        );
        out.insert("load_ms".into(), loaded.load_ms.into());
        serde_json::to_string(&Value::Object(out)).expect("path serialises") + "\n"
    } else {
        csv_text(
            &result,
            &loaded.problem,
            &ds.feature_names,
            truth,
            relevance,
        )?
    };
    if let Some(p) = &a.plot {
        let title = format!("{} on {}: regularisation path, k={k}", kind.id(), data);
        let svg = path_svg::plot(&result, &title, &ds.feature_names, truth);
        files::write_atomic(p, svg.as_bytes())?;
    }
    match &a.out {
        Some(o) => {
            files::write_atomic(o, text.as_bytes())?;
            Ok(None)
        }
        None => Ok(Some(text)),
    }
}

fn parse_points(s: &str) -> std::result::Result<usize, String> {
    s.trim().parse().map_err(|_| {
        format!("'{s}' is not a valid number of points: a whole number from 1 to 10000")
    })
}

/// The grid of `--lambda FROM:TO:COUNT`, refused when an end lies outside
/// the declared range of the parameter it sweeps.
fn grid_in_range(spec: &str, algo: &dyn algo::Algorithm, kind: PathAlgo) -> Result<Grid> {
    let grid = Grid::parse(spec)?;
    let param = algo
        .params()
        .into_iter()
        .find(|p| p.name == kind.parameter())
        .expect("the path's parameter is declared");
    // Parsed above, so both ends are numbers; the ends, not the points in
    // between, which rounding may push past a bound by an ulp.
    for end in spec.split(':').take(2) {
        let v: f64 = end.trim().parse().unwrap_or(f64::NAN);
        param
            .check(v)
            .map_err(|e| Error::param(format!("--lambda: {e}")))?;
    }
    Ok(grid)
}

/// One row per point: the grid value, #selected, objective, iterations,
/// converged, the metrics that are known, then one weight per feature
/// (`w_NAME`).
fn csv_text(
    r: &PathResult,
    problem: &algo::Problem,
    names: &[String],
    truth: Option<&[usize]>,
    relevance: Option<&[bool]>,
) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let metric_names: Vec<String> = r
        .points
        .first()
        .map(|p| {
            point_metrics(p, problem, truth, relevance)
                .keys()
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut header = vec![
        r.algo.parameter().to_string(),
        "selected".into(),
        "objective".into(),
        "iterations".into(),
        "converged".into(),
    ];
    header.extend(metric_names.iter().cloned());
    header.extend(names.iter().map(|n| format!("w_{n}")));
    let err = |e: csv::Error| Error::param(format!("writing the path CSV: {e}"));
    w.write_record(&header).map_err(err)?;
    for p in &r.points {
        let m = point_metrics(p, problem, truth, relevance);
        let mut row = vec![
            format!("{}", p.lambda),
            p.selected.to_string(),
            format!("{}", p.objective),
            p.iterations.to_string(),
            p.converged.to_string(),
        ];
        // A score that does not apply (no feature selected: no
        // clustering) is an empty field, as a missing one.
        for name in &metric_names {
            row.push(
                m.get(name)
                    .filter(|v| !v.is_null())
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
            );
        }
        row.extend(p.feature_weights.iter().map(|v| format!("{v}")));
        w.write_record(&row).map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::param(format!("writing the path CSV: {e}")))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 strings"))
}

/// A point's scores ([`crate::algo::path::PathPoint::metrics`]) and its
/// label-free scores on its selected features
/// ([`crate::fit_scores::internal::on_selected`]), `null` where no feature is
/// selected (no clustering) or the rows are sparse, so every point has the
/// same fields.
fn point_metrics(
    p: &crate::algo::path::PathPoint,
    problem: &algo::Problem,
    truth: Option<&[usize]>,
    relevance: Option<&[bool]>,
) -> Map<String, Value> {
    let mut m = p.metrics(truth, relevance);
    let scores = p.clustering().and_then(|labels| {
        crate::fit_scores::internal::on_selected(problem, &p.feature_weights, labels)
    });
    let values = scores.map(|s| serde_json::to_value(s).expect("scores serialise"));
    for name in crate::sweep::scores::SELECTED {
        let v = values.as_ref().and_then(|v| v.get(name)).cloned();
        m.insert(name.into(), v.unwrap_or(Value::Null));
    }
    m
}

/// Runs the path, drawing a status line on stderr while it works.
fn solve(
    kind: PathAlgo,
    problem: &algo::Problem,
    cfg: &RunConfig,
    grid: &Grid,
    show: bool,
) -> Result<PathResult> {
    if crate::files::interrupt::requested() {
        return Err(Error::Cancelled);
    }
    let _watch = crate::files::interrupt::Watch::start();
    let ctx = Ctx::new().with_cancel(crate::files::interrupt::flag());
    if !show {
        return run_path(kind, problem, cfg, grid, &ctx);
    }
    let (tx, rx) = mpsc::channel();
    let ctx = ctx.with_events(tx, false);
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || run_path(kind, problem, cfg, grid, &ctx));
        let mut drawn = false;
        let mut point = String::new();
        let mut last = Instant::now() - Duration::from_secs(1);
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Event::Stage { label, done }) => {
                    point = format!("{label} {:.0}%", done * 100.0);
                    // Long stages (the initial k-means runs) show too.
                    if last.elapsed() >= Duration::from_millis(100) {
                        last = Instant::now();
                        eprint!("\r\x1b[2K{point}");
                        drawn = true;
                    }
                }
                Ok(Event::Iteration(p)) if last.elapsed() >= Duration::from_millis(100) => {
                    last = Instant::now();
                    let sel = p
                        .feature_weights
                        .as_ref()
                        .map_or(0, |w| w.iter().filter(|&&v| v > 0.0).count());
                    eprint!(
                        "\r\x1b[2K{point}  point {}  iter {}  objective {}  selected {sel}",
                        p.restart + 1,
                        p.iter,
                        fmt_sig(p.objective)
                    );
                    drawn = true;
                }
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if drawn {
            eprint!("\r\x1b[2K");
        }
        handle.join().expect("path thread panicked")
    })
}
