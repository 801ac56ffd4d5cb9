//! The engine's per-block step for distributed drivers (`meanscape.dask`):
//! a block of rows (float64 or float32 NumPy, read in place) → its
//! sufficient statistics as a dict of NumPy arrays and floats (picklable,
//! so a scheduler can move them), the engine's merge of such dicts, the
//! update from merged statistics, and [`Annealer`], the engine's stopping
//! and annealing rule; the same for the feature-weighted family
//! (`weighted_block`, `dispersion_block`, `feature_rule`) and the random
//! Fourier feature map of `rff-power` (`rff_frequencies`, `rff_map`). The
//! GIL is released while a block is computed.

use meanscape::algo::Rows;
use meanscape::algo::block::{
    self, BlockState, Driver, Far, LloydStats, PassArgs, PowerStats, Previous, Schedule, Stop,
};
use meanscape::algo::weighted_block as wblock;
use meanscape::internals::LwStart;
use meanscape::internals::feature_weights::{Rule, lw_alpha as engine_lw_alpha};
use meanscape::internals::kernel::{bandwidth, rff};
use ndarray::{Array1, Array2, ArrayView2};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyType};

/// A block's rows as the engine reads them (kept borrowed from NumPy).
enum Block<'py> {
    F64(PyReadonlyArray2<'py, f64>),
    F32(PyReadonlyArray2<'py, f32>),
}

impl<'py> Block<'py> {
    fn read(x: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(a) = x.extract::<PyReadonlyArray2<'py, f64>>() {
            return Ok(Block::F64(a));
        }
        if let Ok(a) = x.extract::<PyReadonlyArray2<'py, f32>>() {
            return Ok(Block::F32(a));
        }
        Err(PyTypeError::new_err(
            "X block: a 2-D float64 or float32 NumPy array is required",
        ))
    }

    fn rows(&self) -> Rows<'_> {
        match self {
            Block::F64(a) => Rows::F64(a.as_array()),
            Block::F32(a) => Rows::F32(a.as_array()),
        }
    }

    fn shape(&self) -> [usize; 2] {
        let s = match self {
            Block::F64(a) => a.shape(),
            Block::F32(a) => a.shape(),
        };
        [s[0], s[1]]
    }
}

fn check_shapes(
    x: &Block,
    centres: ArrayView2<f64>,
    w: Option<&PyReadonlyArray1<f64>>,
) -> PyResult<()> {
    let [n, p] = x.shape();
    if centres.ncols() != p || centres.nrows() == 0 {
        return Err(PyValueError::new_err(format!(
            "centres of shape {:?} do not fit a block of {p} features",
            centres.dim()
        )));
    }
    if let Some(w) = w
        && w.len() != n
    {
        return Err(PyValueError::new_err(format!(
            "sample_weight of the block has {} entries; the block has {n} rows",
            w.len()
        )));
    }
    Ok(())
}

fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    d.get_item(key)?
        .ok_or_else(|| PyValueError::new_err(format!("block statistics without '{key}'")))
}

fn num<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<f64> {
    item(d, key)?
        .extract::<f64>()
        .map_err(|e| PyValueError::new_err(format!("block statistics '{key}': {e}")))
}

fn count<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<usize> {
    item(d, key)?
        .extract::<usize>()
        .map_err(|e| PyValueError::new_err(format!("block statistics '{key}': {e}")))
}

fn arr1<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<PyReadonlyArray1<'py, f64>> {
    item(d, key)?
        .extract::<PyReadonlyArray1<'py, f64>>()
        .map_err(|e| PyValueError::new_err(format!("block statistics '{key}': {e}")))
}

fn arr1_i64<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<PyReadonlyArray1<'py, i64>> {
    item(d, key)?
        .extract::<PyReadonlyArray1<'py, i64>>()
        .map_err(|e| PyValueError::new_err(format!("block statistics '{key}': {e}")))
}

fn arr2<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<PyReadonlyArray2<'py, f64>> {
    item(d, key)?
        .extract::<PyReadonlyArray2<'py, f64>>()
        .map_err(|e| PyValueError::new_err(format!("block statistics '{key}': {e}")))
}

fn vec_of<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Vec<f64>> {
    Ok(arr1(d, key)?.as_array().to_vec())
}

fn counts_of<'py>(d: &Bound<'py, PyDict>) -> PyResult<Vec<u64>> {
    let c = arr1_i64(d, "counts")?;
    Ok(c.as_array().iter().map(|&v| v.max(0) as u64).collect())
}

fn counts_out<'py>(py: Python<'py>, c: &[u64]) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, c.iter().map(|&v| v as i64).collect())
}

// ---------------------------------------------------------------- power

fn power_dict<'py>(py: Python<'py>, s: PowerStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("max", PyArray1::from_vec(py, s.max))?;
    d.set_item("acc", s.acc.into_pyarray(py))?;
    d.set_item("sums", PyArray1::from_vec(py, s.sums))?;
    d.set_item("objective", s.objective)?;
    d.set_item("objective_ref", s.objective_ref)?;
    d.set_item("softness", s.softness)?;
    d.set_item("counts", counts_out(py, &s.counts))?;
    d.set_item("rows", s.rows)?;
    d.set_item("weight", s.weight)?;
    Ok(d)
}

fn power_stats<'py>(d: &Bound<'py, PyDict>) -> PyResult<PowerStats> {
    let acc = arr2(d, "acc")?.as_array().to_owned();
    let k = acc.nrows();
    let s = PowerStats {
        max: vec_of(d, "max")?,
        sums: vec_of(d, "sums")?,
        acc,
        objective: num(d, "objective")?,
        objective_ref: num(d, "objective_ref")?,
        softness: num(d, "softness")?,
        labels: Vec::new(),
        counts: counts_of(d)?,
        rows: count(d, "rows")?,
        weight: num(d, "weight")?,
    };
    if s.max.len() != k || s.sums.len() != k || s.counts.len() != k {
        return Err(PyValueError::new_err(
            "block statistics of different cluster counts",
        ));
    }
    Ok(s)
}

/// Power-mean statistics of one block of rows at `centres` (k × p
/// float64) and exponent `s` (and `s_ref`, the period check's earlier
/// exponent): per-centre max log weight `max`, rescaled Wᵀ·X `acc` and
/// weight sums `sums`, `objective`, `objective_ref`, `softness` (a sum),
/// `counts` (rows per label), `rows`, `weight` (Σ sample weights).
/// `zero_tol`: distances at or below it count as zero (see
/// [`zero_tolerance`]).
#[pyfunction]
#[pyo3(signature = (x, centres, s, s_ref=None, sample_weight=None, zero_tol=0.0))]
pub fn power_block<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
    s: f64,
    s_ref: Option<f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    zero_tol: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, sample_weight.as_ref())?;
    // −∞ is the hard limit (Lloyd's iteration), which rff-power's k-means
    // start Θ₀ runs.
    if s.is_nan() || s >= 0.0 {
        return Err(PyValueError::new_err(format!(
            "s = {s} must be negative (−inf: the hard limit)"
        )));
    }
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let rows = x.rows();
    let stats = py.detach(|| {
        let mut st = block::power_block(
            rows,
            &PassArgs {
                centres: c,
                s,
                s_ref,
                zero_tol,
                weights: w,
            },
        );
        st.labels = Vec::new();
        st
    });
    power_dict(py, stats)
}

/// The engine's merge of power statistics (a list of `power_block`
/// dicts, in row order): rescaled to the common maxima, then summed.
#[pyfunction]
pub fn power_merge<'py>(
    py: Python<'py>,
    parts: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyDict>> {
    let parts: Vec<PowerStats> = parts
        .iter()
        .map(|p| power_stats(p.cast::<PyDict>()?))
        .collect::<PyResult<_>>()?;
    if parts.is_empty() {
        return Err(PyValueError::new_err("nothing to merge"));
    }
    let k = parts[0].max.len();
    let p = parts[0].acc.ncols();
    if parts.iter().any(|s| s.acc.dim() != (k, p)) {
        return Err(PyValueError::new_err(
            "block statistics of different shapes",
        ));
    }
    power_dict(py, py.detach(|| PowerStats::merge(parts)))
}

/// The update from merged statistics: `centres` (the next ones),
/// `objective`, `objective_ref` (None unless `s_ref`), `softness` (mean).
#[pyfunction]
pub fn power_finish<'py>(
    py: Python<'py>,
    stats: &Bound<'py, PyDict>,
    centres: PyReadonlyArray2<'py, f64>,
    s_ref: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let st = power_stats(stats)?;
    let c = centres.as_array();
    if c.dim() != st.acc.dim() {
        return Err(PyValueError::new_err(
            "centres and statistics differ in shape",
        ));
    }
    let denominator = st.denominator();
    let sw = st.finish(c, s_ref, denominator);
    let d = PyDict::new(py);
    d.set_item("centres", sw.next.into_pyarray(py))?;
    d.set_item("objective", sw.objective)?;
    d.set_item("objective_ref", sw.objective_ref)?;
    d.set_item("softness", sw.softness)?;
    Ok(d)
}

/// The mean over features of each feature's variance (ddof 0), as the
/// engine's k-means takes it for its tolerance (float32 summed in f64).
#[pyfunction]
pub fn mean_variance(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<f64> {
    let x = Block::read(x)?;
    let rows = x.rows();
    Ok(py.detach(|| rows.mean_variance()))
}

/// Σᵢ wᵢ‖xᵢ − c_{labels[i]}‖²: the k-means cost of given labels (the
/// estimators' `inertia_`), in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (x, centres, labels, sample_weight=None))]
pub fn labelled_cost<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<f64> {
    let (x, labels) = labelled_block(x, &centres, &labels, sample_weight.as_ref())?;
    let c = centres.as_array();
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let rows = x.rows();
    py.detach(|| block::labelled_cost(rows, c, &labels, w))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The engine's zero-distance threshold for data whose largest squared
/// row norm is `max_sq_norm`.
#[pyfunction]
pub fn zero_tolerance(max_sq_norm: f64) -> f64 {
    block::zero_tolerance(&[max_sq_norm])
}

// ---------------------------------------------------------------- Lloyd

fn lloyd_dict<'py>(py: Python<'py>, s: LloydStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let p = s.sums.ncols();
    let m = s.far.len();
    let mut far_rows = Array2::<f64>::zeros((m, p));
    for (i, f) in s.far.iter().enumerate() {
        far_rows.row_mut(i).assign(&Array1::from(f.row.clone()));
    }
    d.set_item("sums", s.sums.into_pyarray(py))?;
    d.set_item("totals", PyArray1::from_vec(py, s.totals))?;
    d.set_item("inertia", s.inertia)?;
    d.set_item("counts", counts_out(py, &s.counts))?;
    d.set_item("changed", s.changed)?;
    d.set_item("rows", s.rows)?;
    let col = |f: fn(&Far) -> f64| PyArray1::from_vec(py, s.far.iter().map(f).collect());
    d.set_item("far_dist", col(|f| f.dist))?;
    d.set_item("far_weight", col(|f| f.weight))?;
    let idx: Vec<i64> = s.far.iter().map(|f| f.index as i64).collect();
    let lab: Vec<i64> = s.far.iter().map(|f| f.label as i64).collect();
    d.set_item("far_index", PyArray1::from_vec(py, idx))?;
    d.set_item("far_label", PyArray1::from_vec(py, lab))?;
    d.set_item("far_rows", far_rows.into_pyarray(py))?;
    Ok(d)
}

fn lloyd_stats<'py>(d: &Bound<'py, PyDict>) -> PyResult<LloydStats> {
    let sums = arr2(d, "sums")?.as_array().to_owned();
    let k = sums.nrows();
    let dist = vec_of(d, "far_dist")?;
    let weight = vec_of(d, "far_weight")?;
    let index = arr1_i64(d, "far_index")?.as_array().to_vec();
    let label = arr1_i64(d, "far_label")?.as_array().to_vec();
    let rows = arr2(d, "far_rows")?.as_array().to_owned();
    let m = dist.len();
    if [weight.len(), index.len(), label.len(), rows.nrows()] != [m; 4]
        || label.iter().any(|&l| l < 0 || l as usize >= k)
    {
        return Err(PyValueError::new_err(
            "block statistics: inconsistent far rows",
        ));
    }
    let far = (0..m)
        .map(|i| Far {
            dist: dist[i],
            index: index[i].max(0) as usize,
            label: label[i] as usize,
            weight: weight[i],
            row: rows.row(i).to_vec(),
        })
        .collect();
    let s = LloydStats {
        totals: vec_of(d, "totals")?,
        sums,
        inertia: num(d, "inertia")?,
        counts: counts_of(d)?,
        changed: count(d, "changed")? as u64,
        rows: count(d, "rows")?,
        far,
    };
    if s.totals.len() != k || s.counts.len() != k {
        return Err(PyValueError::new_err(
            "block statistics of different cluster counts",
        ));
    }
    Ok(s)
}

/// Lloyd statistics of one block at `centres`: per-cluster `sums` and
/// `totals`, `inertia`, `counts`, `changed` (rows whose label differs
/// from `prev_labels`, the block's labels of the previous iteration, or
/// else from the nearest of `prev`, the previous centres; all rows
/// without either), `rows`, and the `keep` (default k) rows farthest from
/// their centre (`far_*`; `offset` is the global index of the block's
/// first row). With `return_labels`, also the block's `labels` (int64).
#[pyfunction]
#[pyo3(signature = (x, centres, sample_weight=None, prev=None, offset=0, keep=None, prev_labels=None, return_labels=false))]
#[allow(clippy::too_many_arguments)]
pub fn lloyd_block<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    prev: Option<PyReadonlyArray2<'py, f64>>,
    offset: usize,
    keep: Option<usize>,
    prev_labels: Option<PyReadonlyArray1<'py, i64>>,
    return_labels: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, sample_weight.as_ref())?;
    let pc = prev.as_ref().map(|p| p.as_array());
    if let Some(pc) = pc
        && pc.dim() != c.dim()
    {
        return Err(PyValueError::new_err("prev and centres differ in shape"));
    }
    let k = c.nrows();
    let labels = prev_labels
        .as_ref()
        .map(|l| block_labels(l, x.shape()[0], k, "prev_labels"))
        .transpose()?;
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let keep = keep.unwrap_or(k);
    let rows = x.rows();
    let before = match (&labels, pc) {
        (Some(l), _) => Previous::Labels(l),
        (None, Some(pc)) => Previous::Centres(pc),
        (None, None) => Previous::Nothing,
    };
    let (stats, labels) = py.detach(|| block::lloyd_block(rows, w, c, before, offset, keep));
    let d = lloyd_dict(py, stats)?;
    if return_labels {
        let labels: Vec<i64> = labels.into_iter().map(|l| l as i64).collect();
        d.set_item("labels", PyArray1::from_vec(py, labels))?;
    }
    Ok(d)
}

/// What one block keeps between two iterations of bounded Lloyd
/// (`lloyd_block_bounded`): the rows' Hamerly bounds, labels and squared
/// norms, the centres and per-cluster sums (32 bytes per row). Opaque;
/// pickled as its bytes, so a scheduler can move it between processes.
#[pyclass(module = "meanscape._meanscape", frozen)]
pub struct LloydState(BlockState);

#[pymethods]
impl LloydState {
    /// A state from the bytes `__reduce__` gives.
    #[classmethod]
    fn from_bytes(_cls: &Bound<'_, PyType>, data: &[u8]) -> PyResult<LloydState> {
        BlockState::from_bytes(data)
            .map(LloydState)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        let py = slf.py();
        let st = &slf.get().0;
        let bytes = py.detach(|| st.to_bytes());
        Ok((from_bytes, (PyBytes::new(py, &bytes),)))
    }

    /// Rows of the block.
    #[getter]
    fn rows(&self) -> usize {
        self.0.rows()
    }

    /// The block's labels at the iteration that made the state (int64).
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.0.labels().iter().map(|&l| l as i64).collect())
    }

    fn __repr__(&self) -> String {
        format!("LloydState(rows={})", self.0.rows())
    }
}

/// `lloyd_block` with Hamerly bounds kept between iterations: the
/// block's Lloyd statistics at `centres` and the `LloydState` the next
/// iteration starts from. Without `state` (the previous iteration's, for
/// the same block), or with `exact`, every distance is computed: the
/// statistics are `lloyd_block`'s (far rows included) and `changed`
/// counts against the state's labels. Otherwise only the rows the bounds
/// cannot settle are recomputed (the same labels), the inertia comes from
/// the cluster sums and no far rows are reported. `state` is not changed.
#[pyfunction]
#[pyo3(signature = (x, centres, state=None, exact=false, sample_weight=None, offset=0, keep=None))]
#[allow(clippy::too_many_arguments)]
pub fn lloyd_block_bounded<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
    state: Option<Bound<'py, LloydState>>,
    exact: bool,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    offset: usize,
    keep: Option<usize>,
) -> PyResult<(Bound<'py, PyDict>, LloydState)> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, sample_weight.as_ref())?;
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let keep = keep.unwrap_or(c.nrows());
    let rows = x.rows();
    let st = state.as_ref().map(|s| &s.get().0);
    let (stats, next) = py
        .detach(|| block::lloyd_block_bounded(rows, w, c, st, exact, offset, keep))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((lloyd_dict(py, stats)?, LloydState(next)))
}

/// The engine's merge of Lloyd statistics (sums added in list order; the
/// `keep` farthest rows overall).
#[pyfunction]
pub fn lloyd_merge<'py>(
    py: Python<'py>,
    parts: &Bound<'py, PyList>,
    keep: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let parts: Vec<LloydStats> = parts
        .iter()
        .map(|p| lloyd_stats(p.cast::<PyDict>()?))
        .collect::<PyResult<_>>()?;
    if parts.is_empty() {
        return Err(PyValueError::new_err("nothing to merge"));
    }
    let dim = parts[0].sums.dim();
    if parts.iter().any(|s| s.sums.dim() != dim) {
        return Err(PyValueError::new_err(
            "block statistics of different shapes",
        ));
    }
    lloyd_dict(py, py.detach(|| LloydStats::merge(parts, keep)))
}

/// The next centres from merged Lloyd statistics (empty clusters moved to
/// the farthest rows, then the means) and their squared shift.
#[pyfunction]
pub fn lloyd_next<'py>(
    py: Python<'py>,
    stats: &Bound<'py, PyDict>,
    centres: PyReadonlyArray2<'py, f64>,
) -> PyResult<(Bound<'py, numpy::PyArray2<f64>>, f64)> {
    let st = lloyd_stats(stats)?;
    let c = centres.as_array();
    if c.dim() != st.sums.dim() {
        return Err(PyValueError::new_err(
            "centres and statistics differ in shape",
        ));
    }
    let (next, shift) = st.next_centres(c);
    Ok((next.into_pyarray(py), shift))
}

/// The nearest centre of every row of a block (int64), as Lloyd's pass
/// assigns it.
#[pyfunction]
pub fn nearest<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, None)?;
    let rows = x.rows();
    let labels = py.detach(|| block::nearest(rows, c));
    Ok(PyArray1::from_vec(
        py,
        labels.into_iter().map(|l| l as i64).collect(),
    ))
}

// ---------------------------------------------------------------- feature weights

/// A block and its labels, checked against `centres` and the sample
/// weights (`labelled_cost`, `dispersion_block`).
fn labelled_block<'py>(
    x: &Bound<'py, PyAny>,
    centres: &PyReadonlyArray2<f64>,
    labels: &PyReadonlyArray1<i64>,
    w: Option<&PyReadonlyArray1<f64>>,
) -> PyResult<(Block<'py>, Vec<usize>)> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, w)?;
    let labels = block_labels(labels, x.shape()[0], c.nrows(), "labels")?;
    Ok((x, labels))
}

/// The labels of a block (int64, one in 0..k per row) as the engine's;
/// `name` the argument, for the error.
fn block_labels(l: &PyReadonlyArray1<i64>, n: usize, k: usize, name: &str) -> PyResult<Vec<usize>> {
    let l = l.as_array();
    if l.len() != n || l.iter().any(|&v| v < 0 || v as usize >= k) {
        return Err(PyValueError::new_err(format!(
            "{name}: one label in 0..k per row of the block is required"
        )));
    }
    Ok(l.iter().map(|&v| v as usize).collect())
}

/// One block's share of a WK-means / LW-k-means iteration (or of the
/// plain Lloyd of lw's start): the rows assigned to `centres` by the
/// distance Σ_l v_l (x_l − z_l)² (`multipliers` v; None: the plain squared
/// distance), keeping `labels` (the block's previous ones) on ties or,
/// without them, the nearest centre; then summed per cluster. Returns
/// Lloyd's statistics (as `lloyd_block`, merged by `lloyd_merge`; `keep`
/// farthest rows, `offset` the global index of the block's first row)
/// and the new `labels` (int64).
#[pyfunction]
#[pyo3(signature = (x, centres, multipliers=None, labels=None, sample_weight=None, offset=0, keep=0))]
#[allow(clippy::too_many_arguments)]
pub fn weighted_block<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centres: PyReadonlyArray2<'py, f64>,
    multipliers: Option<PyReadonlyArray1<'py, f64>>,
    labels: Option<PyReadonlyArray1<'py, i64>>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    offset: usize,
    keep: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let x = Block::read(x)?;
    let c = centres.as_array();
    check_shapes(&x, c, sample_weight.as_ref())?;
    let [n, p] = x.shape();
    let v = multipliers.as_ref().map(|v| v.as_slice()).transpose()?;
    if let Some(v) = v
        && v.len() != p
    {
        return Err(PyValueError::new_err(format!(
            "multipliers: {} for {p} features",
            v.len()
        )));
    }
    let cur = labels
        .as_ref()
        .map(|l| block_labels(l, n, c.nrows(), "labels"))
        .transpose()?;
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let rows = x.rows();
    let (stats, labels) =
        py.detach(|| wblock::assign_block(rows, w, c, v, cur.as_deref(), offset, keep));
    let d = lloyd_dict(py, stats)?;
    let labels: Vec<i64> = labels.into_iter().map(|l| l as i64).collect();
    d.set_item("labels", PyArray1::from_vec(py, labels))?;
    Ok(d)
}

/// A block's rows summed per cluster of its `labels` (int64, k
/// clusters), as Lloyd's statistics with nothing else.
#[pyfunction]
#[pyo3(signature = (x, labels, k, sample_weight=None))]
pub fn label_sums<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    labels: PyReadonlyArray1<'py, i64>,
    k: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = Block::read(x)?;
    let [n, _] = x.shape();
    let labels = block_labels(&labels, n, k, "labels")?;
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    if w.is_some_and(|w| w.len() != n) {
        return Err(PyValueError::new_err(
            "sample_weight: one weight per row of the block is required",
        ));
    }
    let rows = x.rows();
    let stats = py.detach(|| wblock::label_sums(rows, w, &labels, k));
    lloyd_dict(py, stats)
}

/// The cluster means of merged statistics; an empty cluster keeps its
/// row of `prev` (or sits at the origin without one).
#[pyfunction]
#[pyo3(signature = (stats, prev=None))]
pub fn weighted_centres<'py>(
    py: Python<'py>,
    stats: &Bound<'py, PyDict>,
    prev: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let st = lloyd_stats(stats)?;
    let prev = prev.as_ref().map(|p| p.as_array());
    if let Some(p) = prev
        && p.dim() != st.sums.dim()
    {
        return Err(PyValueError::new_err(
            "prev and the statistics differ in shape",
        ));
    }
    Ok(wblock::cluster_means(&st, prev).into_pyarray(py))
}

/// The block's per-feature dispersions Σ_i s_i (x_il − z_{c(i),l})² about
/// `centres` (`labels`: the block's, int64).
#[pyfunction]
#[pyo3(signature = (x, labels, centres, sample_weight=None))]
pub fn dispersion_block<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    labels: PyReadonlyArray1<'py, i64>,
    centres: PyReadonlyArray2<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (x, labels) = labelled_block(x, &centres, &labels, sample_weight.as_ref())?;
    let c = centres.as_array();
    let w = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let rows = x.rows();
    let d = py.detach(|| wblock::dispersion_block(rows, w, &labels, c));
    Ok(PyArray1::from_vec(py, d))
}

/// The weight step of the feature-weighted loop from the dispersions `d`:
/// Huang's WK-means weights (`alpha` None), or LW-k-means' lasso weights
/// in the reference code's units (`alpha` α_c, `lam_p2` λ/p², `n` the
/// rows or their total weight). Returns `weights`, `objective`, `scale`
/// (the size of its terms, for the stopping rule) and `multipliers` (the
/// assignment's v_l).
#[pyfunction]
#[pyo3(signature = (d, beta, alpha=None, lam_p2=0.0, n=1.0, code_assign=false))]
pub fn feature_rule<'py>(
    py: Python<'py>,
    d: Vec<f64>,
    beta: f64,
    alpha: Option<f64>,
    lam_p2: f64,
    n: f64,
    code_assign: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if !(beta.is_finite() && beta > 1.0) {
        return Err(PyValueError::new_err(format!(
            "beta = {beta} must be greater than 1"
        )));
    }
    let rule = match alpha {
        None => Rule::Huang { beta },
        Some(alpha) => Rule::Lasso {
            beta,
            alpha,
            lam_p2,
            n,
            code_assign,
        },
    };
    let w = rule.weights(&d);
    let (objective, scale) = rule.objective(&d, &w);
    let out = PyDict::new(py);
    out.set_item(
        "multipliers",
        PyArray1::from_vec(py, rule.assign_weights(&w)),
    )?;
    out.set_item("weights", PyArray1::from_vec(py, w))?;
    out.set_item("objective", objective)?;
    out.set_item("scale", scale)?;
    Ok(out)
}

/// LW-k-means' α (code units) and λ_max from the dispersions `d0` at the
/// initial partition: (α, λ_max), or None when every dispersion is zero.
#[pyfunction]
pub fn lw_alpha(d0: Vec<f64>, beta: f64) -> PyResult<Option<(f64, f64)>> {
    let Some(alpha) = engine_lw_alpha(&d0, beta) else {
        return Ok(None);
    };
    let start = LwStart {
        std: None,
        labels: Vec::new(),
        alpha,
        d0,
        mass: None,
    };
    Ok(Some((alpha, start.lambda_max())))
}

// ---------------------------------------------------------------- rff

/// The KPK bandwidth rule from the sum of squares `ss` of `n` rows about
/// their mean (σ² = 2·ss/(n − 1)), with the engine's fallback of 1 when
/// that is not positive.
#[pyfunction]
pub fn rff_sigma(ss: f64, n: usize) -> f64 {
    let s = if n < 2 {
        0.0
    } else {
        bandwidth::sigma_of_ss(ss, n)
    };
    if s > 0.0 { s } else { 1.0 }
}

/// The frequencies Ω (p × D) of `rff-power`'s map: entries N(0, 1/σ²)
/// from ChaCha8 (seed, stream 0), the in-memory estimator's.
#[pyfunction]
pub fn rff_frequencies<'py>(
    py: Python<'py>,
    p: usize,
    sigma: f64,
    dim: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    if !(sigma.is_finite() && sigma > 0.0) || dim == 0 {
        return Err(PyValueError::new_err(format!(
            "sigma = {sigma}, rff_dim = {dim}: a positive bandwidth and at least one frequency are required"
        )));
    }
    let spec = rff::MapSpec {
        cols: 0..p,
        sigma,
        dim,
        seed,
        stream: 0,
        f32: false,
    };
    Ok(spec.frequencies().into_pyarray(py))
}

/// The random Fourier features [sin(XΩ), cos(XΩ)]/√D of a block (n × 2D),
/// stored in float32 with `f32` (the sums stay float64), as the in-memory
/// map builds them.
#[pyfunction]
#[pyo3(signature = (x, omega, f32=false))]
pub fn rff_map<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    omega: PyReadonlyArray2<'py, f64>,
    f32: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let x = Block::read(x)?;
    let om = omega.as_array();
    if om.nrows() != x.shape()[1] {
        return Err(PyValueError::new_err(format!(
            "frequencies of shape {:?} do not fit a block of {} features",
            om.dim(),
            x.shape()[1]
        )));
    }
    let rows = x.rows();
    let ctx = meanscape::algo::Ctx::new();
    let err = |e: meanscape::Error| PyRuntimeError::new_err(e.to_string());
    Ok(if f32 {
        let z = py
            .detach(|| rff::map_rows::<f32>(rows, om, &ctx, "rff"))
            .map_err(err)?;
        z.into_pyarray(py).into_any()
    } else {
        let z = py
            .detach(|| rff::map_rows::<f64>(rows, om, &ctx, "rff"))
            .map_err(err)?;
        z.into_pyarray(py).into_any()
    })
}

// ---------------------------------------------------------------- the rule

/// The next iteration: its number (1-based), s and s_ref.
type Next = (usize, Option<f64>, Option<f64>);

/// The engine's iteration rule for a driver that evaluates each
/// iteration itself: `iteration()` says which (m, s, s_ref) to evaluate
/// (None once stopped), `record(...)` applies the rule and returns why
/// the loop stops ("converged", "cap") or None, `result()` the trace.
#[pyclass(module = "meanscape._meanscape")]
pub struct Annealer {
    driver: Option<Driver>,
}

impl Annealer {
    fn driver(&self) -> PyResult<&Driver> {
        self.driver
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("the Annealer's result was taken"))
    }
}

#[pymethods]
impl Annealer {
    /// Power k-means' rule: s₀·η^⌊m/T⌋ floored at s_min, the period
    /// check at `tol`, the hardness condition at `soft_tol` (1: off).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn power(
        s0: f64,
        eta: f64,
        period: usize,
        s_min: f64,
        tol: f64,
        soft_tol: f64,
        max_iter: usize,
        k: usize,
    ) -> PyResult<Self> {
        if period == 0 || s0.is_nan() || s0 >= 0.0 || eta.is_nan() || eta < 1.0 {
            return Err(PyValueError::new_err(format!(
                "s0 = {s0}, eta = {eta}, period = {period}: s0 must be negative, eta ≥ 1, period ≥ 1"
            )));
        }
        let schedule = Schedule {
            s0,
            eta,
            period,
            s_min,
        };
        Ok(Annealer {
            driver: Some(Driver::power(schedule, tol, soft_tol, max_iter, k)),
        })
    }

    /// Lloyd's rule: stop when `record` is told the iteration settled.
    #[staticmethod]
    fn lloyd(max_iter: usize, k: usize) -> Self {
        Annealer {
            driver: Some(Driver::lloyd(max_iter, k)),
        }
    }

    /// (m, s, s_ref) of the next iteration; None once the loop stopped.
    fn iteration(&self) -> PyResult<Option<Next>> {
        Ok(self.driver()?.iteration())
    }

    #[pyo3(signature = (objective, objective_ref, counts, softness=0.0, settled=false))]
    fn record(
        &mut self,
        objective: f64,
        objective_ref: Option<f64>,
        counts: Vec<i64>,
        softness: f64,
        settled: bool,
    ) -> PyResult<Option<&'static str>> {
        let d = self
            .driver
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the Annealer's result was taken"))?;
        let counts: Vec<u64> = counts.iter().map(|&c| c.max(0) as u64).collect();
        let stop = d
            .record(objective, objective_ref, &counts, softness, settled)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(stop.map(|s| match s {
            Stop::Converged => "converged",
            Stop::Cap => "cap",
            Stop::Settled => "settled",
        }))
    }

    /// n_iter, converged, objective_trace and s_trace (None for Lloyd).
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self
            .driver
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the Annealer's result was taken"))?;
        let fit = d.finish();
        let out = PyDict::new(py);
        crate::set_trace(py, &out, &fit)?;
        Ok(out)
    }
}
