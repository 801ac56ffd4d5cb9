//! A fitted model as a Python object: predictions and distances for new
//! rows, and pickling through its versioned JSON.

use crate::convert::{error, input_rows};
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyType;

/// What a fit keeps to assign new points (`meanscape::model::Model`): the
/// centres, or the training rows and kernels, or the feature maps.
#[pyclass(module = "meanscape._meanscape", frozen)]
pub struct Model {
    inner: meanscape::model::Model,
    /// The power of two the training rows were multiplied by (values
    /// outside the solvers' range); new rows get the same.
    rescale_exp: i32,
}

impl Model {
    pub fn new(inner: meanscape::model::Model, rescale_exp: i32) -> Self {
        Model { inner, rescale_exp }
    }

    /// The engine's model and the fit's power of two (`sparse::predict_csr`).
    pub(crate) fn parts(&self) -> (&meanscape::model::Model, i32) {
        (&self.inner, self.rescale_exp)
    }
}

#[pymethods]
impl Model {
    /// The cluster (0-based) of every row of `x`.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let input = input_rows(x, Some(self.rescale_exp))?;
        let view = input.view();
        let labels = py
            .detach(|| self.inner.predict(view.view()))
            .map_err(error)?;
        let labels: Vec<i64> = labels.into_iter().map(|l| l as i64).collect();
        Ok(labels.into_pyarray(py))
    }

    /// n × k distances of the rows of `x` to every cluster (squared, in the
    /// space the algorithm clustered in); `predict` takes their argmin.
    fn distances<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let input = input_rows(x, Some(self.rescale_exp))?;
        let view = input.view();
        let d = py
            .detach(|| self.inner.distances(view.view()))
            .map_err(error)?;
        Ok(d.into_pyarray(py))
    }

    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    #[getter]
    fn k(&self) -> usize {
        self.inner.k()
    }

    #[getter]
    fn algorithm(&self) -> String {
        self.inner.algorithm().to_string()
    }

    /// The model as the JSON `meanscape predict --model` reads.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// A model from its JSON; `rescale_exp` as the fit's.
    #[classmethod]
    #[pyo3(signature = (text, rescale_exp=0))]
    fn from_json(_cls: &Bound<'_, PyType>, text: &str, rescale_exp: i32) -> PyResult<Model> {
        meanscape::model::Model::from_json(text)
            .map(|m| Model::new(m, rescale_exp))
            .map_err(error)
    }

    #[getter]
    fn rescale_exp(&self) -> i32 {
        self.rescale_exp
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, i32))> {
        let from_json = slf.get_type().getattr("from_json")?;
        let m = slf.get();
        Ok((from_json, (m.inner.to_json(), m.rescale_exp)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Model(algorithm='{}', k={}, n_features={})",
            self.inner.algorithm(),
            self.inner.k(),
            self.inner.n_features()
        )
    }
}
