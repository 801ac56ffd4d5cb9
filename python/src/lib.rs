//! The Rust side of the `meanscape` Python package: fit, sweep and load on
//! NumPy arrays, with the GIL released while the engine works. The
//! scikit-learn estimators (`meanscape/_estimators.py`) are thin Python
//! classes over these functions.

mod block;
mod convert;
mod model;
mod sparse;
mod sweep;

use convert::{error, input_rows, run_cancellable};
use meanscape::algo::{self, Fit, Init, Problem, RunConfig};
use meanscape::data::preprocess::rescale;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// Every algorithm with its declared parameters and options, as JSON: the
/// tables the estimators' signatures and the CLI's checks both come from.
#[pyfunction]
fn algorithms() -> String {
    let list: Vec<serde_json::Value> = algo::registry()
        .iter()
        .map(|a| {
            let caps = a.caps();
            serde_json::json!({
                "id": a.id(),
                "name": a.name(),
                "summary": a.summary(),
                "params": a.params(),
                "options": a.options(),
                "default_scaling": a.default_scaling().to_string(),
                "takes_kernels": caps.kernels,
                "takes_sample_weights": caps.sample_weights,
                "takes_centres": caps.centres,
                "takes_sparse": caps.sparse,
                "family": caps.family.name(),
                "python_class": caps.python.name(),
                "python_generated": matches!(caps.python, algo::PyClass::Generated(_)),
                "model_kind": a.model_kind().map(|m| m.name()),
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

fn parse_init(init: &str) -> PyResult<Init> {
    match init {
        "kmeans++" | "k-means++" => Ok(Init::KmeansPP),
        "random" => Ok(Init::Random),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "init = '{other}' is not a seeding: must be 'k-means++' or 'random'"
        ))),
    }
}

/// Fits `algorithm` on the rows of `x` (float64 or float32, 2-D; a
/// C-contiguous float64 array is read in place) and returns a dict of the
/// result; `model` is the fitted [`model::Model`] or None with
/// `model_error` saying why (spectral has no out-of-sample rule).
/// `sample_weight`: one float64 weight per row; `centres`: k × p float64
/// initial centres (instead of the seeding). The engine refuses either
/// for an algorithm that does not take it, naming those that do.
#[pyfunction]
#[pyo3(signature = (algorithm, x, n_clusters, params, options, seed, restarts=1, init="kmeans++", sample_weight=None, centres=None))]
#[allow(clippy::too_many_arguments)]
fn fit<'py>(
    py: Python<'py>,
    algorithm: &str,
    x: &Bound<'py, PyAny>,
    n_clusters: usize,
    params: Vec<(String, f64)>,
    options: Vec<(String, String)>,
    seed: u64,
    restarts: usize,
    init: &str,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    centres: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let algo = algo::find(algorithm).map_err(error)?;
    let init = parse_init(init)?;
    let input = input_rows(x, None)?;
    let mut problem = Problem::from_rows(input.rows()?);
    if let Some(w) = sample_weight {
        problem
            .set_sample_weights(w.as_array().to_vec())
            .map_err(error)?;
    }
    // Centres meet the rows as the engine holds them: multiplied by the
    // same power of two when the values were rescaled.
    let centres = centres.map(|c| {
        let mut c = c.as_array().to_owned();
        if input.rescale_exp != 0 {
            rescale(&mut c, input.rescale_exp);
        }
        Arc::new(c)
    });
    let request = algo::Request {
        k: n_clusters,
        seed,
        restarts,
        init,
        given: &params,
        options: &options,
        centres,
    };
    run_fit(
        py,
        algo.as_ref(),
        problem,
        request,
        input.copied,
        input.rescale_exp,
    )
}

/// Runs a configured fit with the GIL released and returns the dict every
/// estimator reads (dense `fit` and sparse `fit_csr` alike): the fit, the
/// restarts, the timing, and the model or why there is none.
pub(crate) fn run_fit<'py>(
    py: Python<'py>,
    algo: &dyn algo::Algorithm,
    problem: Problem,
    request: algo::Request<'_>,
    copied: bool,
    rescale_exp: i32,
) -> PyResult<Bound<'py, PyDict>> {
    let (cfg, result, built) = run_cancellable(py, |ctx, _| {
        let cfg = algo::configure(algo, &problem, request, "X")?;
        let result = algo::run(algo, &problem, &cfg, ctx)?;
        let built = meanscape::model::Model::from_run(algo, &problem, &cfg, &result);
        Ok((cfg, result, built))
    })?;
    drop(problem);
    let out = PyDict::new(py);
    fit_items(py, &out, &result.best, &cfg)?;
    out.set_item("restart_objectives", result.restart_objectives.clone())?;
    out.set_item("best_restart", result.best_restart)?;
    out.set_item("elapsed_ms", result.elapsed.as_secs_f64() * 1e3)?;
    out.set_item("input_copied", copied)?;
    out.set_item("rescale_exp", rescale_exp)?;
    match built {
        Ok(m) => {
            out.set_item("model", model::Model::new(m, rescale_exp))?;
            out.set_item("model_error", py.None())?;
        }
        Err(e) => {
            out.set_item("model", py.None())?;
            out.set_item("model_error", e.to_string())?;
        }
    }
    Ok(out)
}

/// The iteration count, convergence and traces of a fit (`s_trace` None
/// when the algorithm has no s), shared by fits and the block driver.
pub(crate) fn set_trace(py: Python<'_>, out: &Bound<'_, PyDict>, fit: &Fit) -> PyResult<()> {
    out.set_item("n_iter", fit.iterations)?;
    out.set_item("converged", fit.converged)?;
    let objectives: Vec<f64> = fit.trace.iter().map(|t| t.objective).collect();
    out.set_item("objective_trace", PyArray1::from_vec(py, objectives))?;
    let s: Option<Vec<f64>> = fit.trace.iter().map(|t| t.s).collect();
    match s {
        Some(s) if !s.is_empty() => out.set_item("s_trace", PyArray1::from_vec(py, s)),
        _ => out.set_item("s_trace", py.None()),
    }
}

/// The parts of a fit every estimator reads.
pub(crate) fn fit_items<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyDict>,
    fit: &Fit,
    cfg: &RunConfig,
) -> PyResult<()> {
    let labels: Vec<i64> = fit.labels.iter().map(|&l| l as i64).collect();
    out.set_item("labels", labels.into_pyarray(py))?;
    match &fit.centroids {
        Some(c) => out.set_item("centroids", c.clone().into_pyarray(py))?,
        None => out.set_item("centroids", py.None())?,
    }
    out.set_item("objective", fit.objective)?;
    set_trace(py, out, fit)?;
    let vec_or_none = |v: &Option<Vec<f64>>| -> PyResult<Py<PyAny>> {
        Ok(match v {
            Some(v) => PyArray1::from_vec(py, v.clone()).into_any().unbind(),
            None => py.None(),
        })
    };
    out.set_item("feature_weights", vec_or_none(&fit.feature_weights)?)?;
    out.set_item("kernel_weights", vec_or_none(&fit.kernel_weights)?)?;
    out.set_item("warnings", fit.warnings.clone())?;
    out.set_item(
        "extras",
        serde_json::to_string(&*fit.extra).expect("extras serialise"),
    )?;
    let params = PyDict::new(py);
    for (name, v) in cfg.params.iter() {
        params.set_item(name, v)?;
    }
    out.set_item("params", params)?;
    let options = PyDict::new(py);
    for (name, v) in &cfg.options {
        options.set_item(name, v)?;
    }
    out.set_item("options", options)?;
    Ok(())
}

#[pymodule]
fn _meanscape(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::fit_csr, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::predict_csr, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::distances_csr, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_many, m)?)?;
    m.add_function(wrap_pyfunction!(convert::load, m)?)?;
    m.add_class::<model::Model>()?;
    m.add_function(wrap_pyfunction!(block::power_block, m)?)?;
    m.add_function(wrap_pyfunction!(block::power_merge, m)?)?;
    m.add_function(wrap_pyfunction!(block::power_finish, m)?)?;
    m.add_function(wrap_pyfunction!(block::zero_tolerance, m)?)?;
    m.add_function(wrap_pyfunction!(block::mean_variance, m)?)?;
    m.add_function(wrap_pyfunction!(block::labelled_cost, m)?)?;
    m.add_function(wrap_pyfunction!(block::lloyd_block, m)?)?;
    m.add_function(wrap_pyfunction!(block::lloyd_block_bounded, m)?)?;
    m.add_class::<block::LloydState>()?;
    m.add_function(wrap_pyfunction!(block::lloyd_merge, m)?)?;
    m.add_function(wrap_pyfunction!(block::lloyd_next, m)?)?;
    m.add_function(wrap_pyfunction!(block::nearest, m)?)?;
    for f in [
        wrap_pyfunction!(block::weighted_block, m)?,
        wrap_pyfunction!(block::label_sums, m)?,
        wrap_pyfunction!(block::weighted_centres, m)?,
        wrap_pyfunction!(block::dispersion_block, m)?,
        wrap_pyfunction!(block::feature_rule, m)?,
        wrap_pyfunction!(block::lw_alpha, m)?,
        wrap_pyfunction!(block::rff_sigma, m)?,
        wrap_pyfunction!(block::rff_frequencies, m)?,
        wrap_pyfunction!(block::rff_map, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_class::<block::Annealer>()?;
    Ok(())
}
