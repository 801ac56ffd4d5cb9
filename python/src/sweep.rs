//! `meanscape.sweep`: a grid over declared parameters with R seeds per
//! cell, returned as a dict of NumPy arrays (one entry per cell).

use crate::convert::{error, input_rows, run_cancellable};
use crate::parse_init;
use meanscape::algo::{self, Problem};
use meanscape::sweep::{self as engine, Axis, Truth};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Runs the sweep; `axes` are `meanscape sweep --grid` texts
/// (`s0=-10:-0.1:6:log`, `eta=1.01,1.04`, `kernel=gaussian|laplacian`),
/// `y` the true classes for the external scores (NMI, ARI, …).
#[pyfunction]
#[pyo3(signature = (algorithm, x, n_clusters, axes, seeds=10, seed=0, params=Vec::new(), options=Vec::new(), y=None, init="kmeans++", resamples=0))]
#[allow(clippy::too_many_arguments)]
pub fn sweep<'py>(
    py: Python<'py>,
    algorithm: &str,
    x: &Bound<'py, PyAny>,
    n_clusters: usize,
    axes: Vec<String>,
    seeds: usize,
    seed: u64,
    params: Vec<(String, f64)>,
    options: Vec<(String, String)>,
    y: Option<Vec<i64>>,
    init: &str,
    resamples: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let algo = algo::find(algorithm).map_err(error)?;
    let axes: Vec<Axis> = axes
        .iter()
        .map(|a| Axis::parse(a))
        .collect::<meanscape::Result<_>>()
        .map_err(error)?;
    let input = input_rows(x, None)?;
    let problem = Problem::from_rows(input.rows()?);
    let truth: Option<Vec<usize>> = match y {
        Some(y) if y.len() != problem.n() => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "y has {} labels; X has {} rows",
                y.len(),
                problem.n()
            )));
        }
        Some(y) if y.iter().any(|&v| v < 0) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "y must hold class ids ≥ 0",
            ));
        }
        Some(y) => Some(y.into_iter().map(|v| v as usize).collect()),
        None => None,
    };
    let req = engine::Request {
        k: n_clusters,
        seed,
        seeds,
        init: parse_init(init)?,
        given: params,
        options,
        axes,
        // A script's own call: Ctrl-C (KeyboardInterrupt) stops it.
        time_limit: None,
        resamples,
    };
    let (plan, result) = run_cancellable(py, |_ctx, cancel| {
        let plan = engine::plan(algo.as_ref(), &problem, req)?;
        let t = Truth {
            labels: truth.as_deref(),
            relevance: None,
        };
        let result = engine::run(
            algo.as_ref(),
            &problem,
            &plan,
            t,
            cancel.clone(),
            &|_, _, _| {},
        )?;
        Ok((plan, result))
    })?;
    drop(problem);
    let out = PyDict::new(py);
    let names: Vec<&str> = plan.axes.iter().map(|a| a.name.as_str()).collect();
    out.set_item("axes", names)?;
    let at = PyDict::new(py);
    for (i, a) in plan.axes.iter().enumerate() {
        if a.is_option() {
            let v: Vec<String> = result.cells.iter().map(|c| a.show(c.at[i])).collect();
            at.set_item(&a.name, v)?;
        } else {
            let v: Vec<f64> = result.cells.iter().map(|c| c.at[i]).collect();
            at.set_item(&a.name, PyArray1::from_vec(py, v))?;
        }
    }
    out.set_item("at", at)?;
    let ks: Vec<i64> = result.cells.iter().map(|c| c.k as i64).collect();
    out.set_item("k", ks.into_pyarray(py))?;
    let collapsed: Vec<bool> = result.cells.iter().map(|c| c.collapsed()).collect();
    out.set_item("collapsed", PyArray1::from_vec(py, collapsed))?;
    let scores = PyDict::new(py);
    let mut score_names: Vec<&str> = Vec::new();
    for c in &result.cells {
        for (n, _) in &c.scores {
            if !score_names.contains(n) {
                score_names.push(n);
            }
        }
    }
    let best = PyDict::new(py);
    for name in &score_names {
        let (mean, sd): (Vec<f64>, Vec<f64>) = result
            .cells
            .iter()
            .map(|c| {
                c.score(name)
                    .map_or((f64::NAN, f64::NAN), |s| (s.mean, s.sd))
            })
            .unzip();
        scores.set_item(*name, PyArray1::from_vec(py, mean))?;
        scores.set_item(format!("{name}_sd"), PyArray1::from_vec(py, sd))?;
        if let Some(b) = engine::best(result.cells.iter(), name) {
            let pos = result.cells.iter().position(|c| c.index == b.index);
            best.set_item(*name, pos)?;
        }
    }
    out.set_item("scores", scores)?;
    out.set_item("best", best)?;
    if let Some(r) = engine::recommend::recommend(&result.cells, &plan.axes) {
        let rec = PyDict::new(py);
        rec.set_item("cell", r.cell)?;
        rec.set_item("by", r.by)?;
        rec.set_item("agreement", r.agreement)?;
        let per = PyDict::new(py);
        for p in &r.picks {
            per.set_item(p.score, p.cell)?;
        }
        rec.set_item("per_score", per)?;
        out.set_item("recommended", rec)?;
    }
    out.set_item("seeds", plan.seeds)?;
    out.set_item("complete", result.complete)?;
    out.set_item("elapsed_ms", result.elapsed.as_secs_f64() * 1e3)?;
    Ok(out)
}
