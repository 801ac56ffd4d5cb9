//! Sparse input from Python: the three arrays of a scipy.sparse CSR matrix
//! (`X.indptr`, `X.indices`, `X.data`) and its shape, fitted without ever
//! densifying (the algorithms that take sparse rows run on the nonzeros:
//! the centroid family and the RFF family's feature map; the others refuse
//! sparse input with a ValueError naming those).

use crate::convert::error;
use crate::{model, parse_init};
use meanscape::algo::{self, Csr, Problem};
use meanscape::data::preprocess::{ldexp, range_exponent};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// An index array (int32 or int64, any other integer type is converted
/// by the caller) as unsigned values; negative entries refused.
fn indices_of(a: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
    let neg = || PyValueError::new_err(format!("sparse X: {what} has a negative entry"));
    if let Ok(v) = a.extract::<PyReadonlyArray1<'_, i32>>() {
        return v
            .as_array()
            .iter()
            .map(|&i| u64::try_from(i).map_err(|_| neg()))
            .collect();
    }
    if let Ok(v) = a.extract::<PyReadonlyArray1<'_, i64>>() {
        return v
            .as_array()
            .iter()
            .map(|&i| u64::try_from(i).map_err(|_| neg()))
            .collect();
    }
    Err(PyTypeError::new_err(format!(
        "sparse X: {what} must be a 1-D int32 or int64 NumPy array"
    )))
}

/// The values (float64 or float32) as f64.
fn values_of(a: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    if let Ok(v) = a.extract::<PyReadonlyArray1<'_, f64>>() {
        return Ok(v.as_array().to_vec());
    }
    if let Ok(v) = a.extract::<PyReadonlyArray1<'_, f32>>() {
        return Ok(v.as_array().iter().map(|&x| f64::from(x)).collect());
    }
    Err(PyTypeError::new_err(
        "sparse X: data must be a 1-D float64 or float32 NumPy array",
    ))
}

/// The CSR matrix of the three arrays, checked, and the power of two its
/// values were multiplied by: `rescale_by`, as a fit did, or (None) the
/// one that brings them into the solvers' range, as `fit` does for dense X.
fn csr_of(
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    shape: (usize, usize),
    rescale_by: Option<i32>,
) -> PyResult<(Csr, i32)> {
    let too_big = |w: &str| PyValueError::new_err(format!("sparse X: {w} out of range"));
    let ptr: Vec<usize> = indices_of(indptr, "indptr")?
        .into_iter()
        .map(|v| usize::try_from(v).map_err(|_| too_big("an indptr entry is")))
        .collect::<PyResult<_>>()?;
    let idx: Vec<u32> = indices_of(indices, "indices")?
        .into_iter()
        .map(|v| u32::try_from(v).map_err(|_| too_big(&format!("column index {v} is"))))
        .collect::<PyResult<_>>()?;
    let mut val = values_of(data)?;
    let mut max = 0.0f64;
    for &v in &val {
        if !v.is_finite() {
            return Err(PyValueError::new_err(
                "Input X contains NaN or infinity: meanscape clusters finite values only",
            ));
        }
        max = max.max(v.abs());
    }
    let e = rescale_by.unwrap_or_else(|| range_exponent(max));
    if e != 0 {
        val.iter_mut().for_each(|v| *v = ldexp(*v, e));
    }
    let x = Csr::new(shape, ptr, idx, val).map_err(error)?;
    Ok((x, e))
}

/// Fits `algorithm` on a CSR matrix given by its arrays and shape, and
/// returns the dict `fit` returns for dense X. `sample_weight`: one
/// float64 weight per row; `centres`: k × p float64 initial centres
/// (scikit-learn's `init=array`), for the algorithms that take them.
#[pyfunction]
#[pyo3(signature = (algorithm, indptr, indices, data, shape, n_clusters, params, options, seed, restarts=1, init="kmeans++", sample_weight=None, centres=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_csr<'py>(
    py: Python<'py>,
    algorithm: &str,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    shape: (usize, usize),
    n_clusters: usize,
    params: Vec<(String, f64)>,
    options: Vec<(String, String)>,
    seed: u64,
    restarts: usize,
    init: &str,
    sample_weight: Option<&Bound<'py, PyAny>>,
    centres: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let algo = algo::find(algorithm).map_err(error)?;
    let init = parse_init(init)?;
    let (x, rescale_exp) = csr_of(indptr, indices, data, shape, None)?;
    let mut problem = Problem::from_csr(x);
    if let Some(w) = sample_weight.filter(|w| !w.is_none()) {
        let w = w
            .extract::<PyReadonlyArray1<'_, f64>>()
            .map_err(|_| PyTypeError::new_err("sample_weight must be a 1-D float64 NumPy array"))?;
        problem
            .set_sample_weights(w.as_array().to_vec())
            .map_err(error)?;
    }
    // Given centres are in the caller's units: scaled as the rows were.
    let centres = match centres.filter(|c| !c.is_none()) {
        None => None,
        Some(c) => {
            let c = c
                .extract::<PyReadonlyArray2<'_, f64>>()
                .map_err(|_| PyTypeError::new_err("centres must be a 2-D float64 NumPy array"))?;
            Some(Arc::new(c.as_array().mapv(|v| ldexp(v, rescale_exp))))
        }
    };
    let request = algo::Request {
        k: n_clusters,
        seed,
        restarts,
        init,
        given: &params,
        options: &options,
        centres,
    };
    // The arrays are always read into the engine's own CSR (u32 indices).
    crate::run_fit(py, algo.as_ref(), problem, request, true, rescale_exp)
}

/// Dense values this many at most per block of [`predict_csr`] (32 MB).
const PREDICT_BLOCK_VALUES: usize = 1 << 22;

/// `each` on the rows of a CSR matrix given by its arrays, densified a
/// block at a time (at most 2²² values, 32 MB), the values scaled as the
/// model's training rows were (not by their own range); memory ∝ nnz plus
/// one block. The GIL is released meanwhile.
fn by_dense_blocks<T: Send>(
    py: Python<'_>,
    model: &model::Model,
    arrays: (&Bound<'_, PyAny>, &Bound<'_, PyAny>, &Bound<'_, PyAny>),
    shape: (usize, usize),
    each: impl Fn(&meanscape::model::Model, ndarray::ArrayView2<f64>) -> meanscape::Result<T> + Sync,
) -> PyResult<Vec<T>> {
    let (m, e) = model.parts();
    let (x, _) = csr_of(arrays.0, arrays.1, arrays.2, shape, Some(e))?;
    let (rows, p) = (x.nrows(), x.ncols());
    let block = (PREDICT_BLOCK_VALUES / p.max(1)).max(1);
    py.detach(|| {
        let mut out = Vec::new();
        let mut lo = 0;
        while lo < rows {
            let hi = (lo + block).min(rows);
            out.push(each(m, x.dense_block(lo..hi, 0..p).view())?);
            lo = hi;
        }
        Ok(out)
    })
    .map_err(error)
}

/// The cluster of every row of a CSR matrix given by its arrays, by a
/// fitted model (`fit`'s or `fit_csr`'s), block by block
/// ([`by_dense_blocks`]) by the model's own rule, so its checks and robust
/// comparisons hold.
#[pyfunction]
pub fn predict_csr<'py>(
    py: Python<'py>,
    model: &model::Model,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    shape: (usize, usize),
) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
    use numpy::IntoPyArray;
    let parts = by_dense_blocks(py, model, (indptr, indices, data), shape, |m, d| {
        m.predict(d)
    })?;
    let labels: Vec<i64> = parts.into_iter().flatten().map(|l| l as i64).collect();
    Ok(labels.into_pyarray(py))
}

/// The model's squared distances (n × k, in the space the algorithm
/// clustered in) of the rows of a CSR matrix given by its arrays, block by
/// block as [`predict_csr`]: `transform` of sparse X for the models whose
/// distances are not plain Euclidean ones in the input space (feature
/// weights, random feature maps).
#[pyfunction]
pub fn distances_csr<'py>(
    py: Python<'py>,
    model: &model::Model,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    shape: (usize, usize),
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    use numpy::IntoPyArray;
    let parts = by_dense_blocks(py, model, (indptr, indices, data), shape, |m, d| {
        m.distances(d)
    })?;
    let k = model.parts().0.k();
    let views: Vec<_> = parts.iter().map(|a| a.view()).collect();
    let d = if views.is_empty() {
        ndarray::Array2::zeros((0, k))
    } else {
        ndarray::concatenate(ndarray::Axis(0), &views)
            .map_err(|e| PyValueError::new_err(e.to_string()))?
    };
    Ok(d.into_pyarray(py))
}
