//! `meanscape.sweep`: a grid over declared parameters with R seeds per
//! cell, returned as a dict of NumPy arrays (one entry per cell).

use crate::convert::{error, input_rows, run_cancellable};
use crate::parse_init;
use meanscape::algo::{self, Algorithm, Problem};
use meanscape::sweep::{self as engine, Axis, Plan, SweepResult, Truth};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

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
    let req = request(
        n_clusters, axes, seeds, seed, params, options, init, resamples,
    )?;
    let input = input_rows(x, None)?;
    let problem = Problem::from_rows(input.rows()?);
    let truth = truth_of(y, problem.n())?;
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
    let out = cells_dict(py, &plan, &result)?;
    out.set_item("seeds", plan.seeds)?;
    out.set_item("complete", result.complete)?;
    out.set_item("elapsed_ms", result.elapsed.as_secs_f64() * 1e3)?;
    Ok(out)
}

/// The same grid swept for several algorithms on the same data, as
/// `meanscape sweep -a kmeans,spectral --json`: one family of cells per
/// algorithm ([`engine::plan_family`]: each takes the parameters and
/// options it declares), `cells` every family's cells in turn, each naming
/// its algorithm, `families` each family's own dict (as [`sweep`] gives
/// it), and `recommended` the one setting over all of them
/// ([`engine::recommend::across`]), its `at` naming the algorithm.
#[pyfunction]
#[pyo3(signature = (algorithms, x, n_clusters, axes, seeds=10, seed=0, params=Vec::new(), options=Vec::new(), y=None, init="kmeans++", resamples=0))]
#[allow(clippy::too_many_arguments)]
pub fn sweep_many<'py>(
    py: Python<'py>,
    algorithms: Vec<String>,
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
    let mut algos: Vec<Box<dyn Algorithm>> = Vec::new();
    for id in &algorithms {
        if algos.iter().any(|a| a.id() == id.as_str()) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "algorithm {id} is named twice"
            )));
        }
        algos.push(algo::find(id).map_err(error)?);
    }
    if algos.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "algorithm: an empty list",
        ));
    }
    let refs: Vec<&dyn Algorithm> = algos.iter().map(|a| a.as_ref()).collect();
    engine::check_taken(
        &refs,
        options
            .iter()
            .map(|(n, _)| n)
            .chain(params.iter().map(|(n, _)| n)),
    )
    .map_err(error)?;
    let req = request(
        n_clusters, axes, seeds, seed, params, options, init, resamples,
    )?;
    let input = input_rows(x, None)?;
    let problem = Problem::from_rows(input.rows()?);
    let truth = truth_of(y, problem.n())?;
    let families = run_cancellable(py, |_ctx, cancel| {
        // Every family is planned (and so checked) before any runs.
        let plans = refs
            .iter()
            .map(|a| engine::plan_family(*a, &problem, req.clone()))
            .collect::<meanscape::Result<Vec<Plan>>>()?;
        let t = Truth {
            labels: truth.as_deref(),
            relevance: None,
        };
        let mut out = Vec::with_capacity(plans.len());
        for (a, plan) in refs.iter().zip(plans) {
            let result = engine::run(*a, &problem, &plan, t, cancel.clone(), &|_, _, _| {})?;
            out.push((plan, result));
        }
        Ok(out)
    })?;
    drop(problem);
    let out = PyDict::new(py);
    out.set_item("algorithms", &algorithms)?;
    let cells = PyList::empty(py);
    let fams = PyDict::new(py);
    let mut first_cell = Vec::with_capacity(families.len());
    for (id, (plan, result)) in algorithms.iter().zip(&families) {
        first_cell.push(cells.len());
        for c in &result.cells {
            let cell = PyDict::new(py);
            cell.set_item("algorithm", id)?;
            cell.set_item("at", at_dict(py, plan, &c.at, Some(id))?)?;
            cell.set_item("k", c.k)?;
            cell.set_item("collapsed", c.collapsed())?;
            let scores = PyDict::new(py);
            for (n, s) in &c.scores {
                let v = PyDict::new(py);
                v.set_item("mean", s.mean)?;
                v.set_item("sd", s.sd)?;
                scores.set_item(*n, v)?;
            }
            cell.set_item("scores", scores)?;
            cells.append(cell)?;
        }
        fams.set_item(id, cells_dict(py, plan, result)?)?;
    }
    out.set_item("cells", cells)?;
    out.set_item("families", fams)?;
    let lists: Vec<&[engine::CellResult]> =
        families.iter().map(|(_, r)| r.cells.as_slice()).collect();
    let by_k = families
        .first()
        .is_some_and(|(p, _)| p.axes.len() == 1 && p.axes[0].name == "k");
    if let Some(r) = engine::recommend::across(&lists, by_k) {
        let (plan, result) = &families[r.family];
        let rec = PyDict::new(py);
        let at = at_dict(
            py,
            plan,
            &result.cells[r.cell].at,
            Some(&algorithms[r.family]),
        )?;
        rec.set_item("at", at)?;
        rec.set_item("cell", first_cell[r.family] + r.cell)?;
        rec.set_item("by", r.by)?;
        out.set_item("recommended", rec)?;
    }
    out.set_item("seeds", seeds)?;
    out.set_item(
        "complete",
        families.iter().all(|(_, r)| r.complete) && families.len() == algorithms.len(),
    )?;
    let ms: f64 = families
        .iter()
        .map(|(_, r)| r.elapsed.as_secs_f64() * 1e3)
        .sum();
    out.set_item("elapsed_ms", ms)?;
    Ok(out)
}

/// A cell's place on the axes, by name (the option text, or the number),
/// with its algorithm first when given.
fn at_dict<'py>(
    py: Python<'py>,
    plan: &Plan,
    at: &[f64],
    algorithm: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    if let Some(a) = algorithm {
        d.set_item("algorithm", a)?;
    }
    for (a, v) in plan.axes.iter().zip(at) {
        if a.is_option() {
            d.set_item(&a.name, a.show(*v))?;
        } else if v.fract() == 0.0 && v.abs() < 9e15 {
            // Whole values as integers, as the CLI's JSON writes them (k).
            d.set_item(&a.name, *v as i64)?;
        } else {
            d.set_item(&a.name, *v)?;
        }
    }
    Ok(d)
}

/// The request of both sweeps: the axes parsed from their `--grid`
/// texts, no time limit (a script's own call: Ctrl-C, KeyboardInterrupt,
/// stops it).
#[allow(clippy::too_many_arguments)]
fn request(
    k: usize,
    axes: Vec<String>,
    seeds: usize,
    seed: u64,
    given: Vec<(String, f64)>,
    options: Vec<(String, String)>,
    init: &str,
    resamples: usize,
) -> PyResult<engine::Request> {
    let axes: Vec<Axis> = axes
        .iter()
        .map(|a| Axis::parse(a))
        .collect::<meanscape::Result<_>>()
        .map_err(error)?;
    Ok(engine::Request {
        k,
        seed,
        seeds,
        init: parse_init(init)?,
        given,
        options,
        axes,
        time_limit: None,
        resamples,
    })
}

/// The true classes `y` checked against `n` rows.
fn truth_of(y: Option<Vec<i64>>, n: usize) -> PyResult<Option<Vec<usize>>> {
    match y {
        Some(y) if y.len() != n => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "y has {} labels; X has {n} rows",
            y.len()
        ))),
        Some(y) if y.iter().any(|&v| v < 0) => Err(pyo3::exceptions::PyValueError::new_err(
            "y must hold class ids ≥ 0",
        )),
        Some(y) => Ok(Some(y.into_iter().map(|v| v as usize).collect())),
        None => Ok(None),
    }
}

/// One sweep's cells as a dict of arrays (one entry per cell in grid
/// order), its best cells and its recommendation.
fn cells_dict<'py>(
    py: Python<'py>,
    plan: &Plan,
    result: &SweepResult,
) -> PyResult<Bound<'py, PyDict>> {
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
    Ok(out)
}
