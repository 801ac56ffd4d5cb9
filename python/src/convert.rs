//! Between Python and the engine: errors as Python exceptions, NumPy input
//! read in place where its layout allows, fits that release the GIL and
//! still stop on Ctrl-C, and the data loader.

use meanscape::algo::Ctx;
use meanscape::algo::Matrix;
use meanscape::data::preprocess::{max_abs_finite, range_exponent, rescale};
use meanscape::data::{DataSource, LabelChoice, LoadOptions, Missing};
use meanscape::{Error, algo};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The engine's errors as the exceptions scikit-learn users expect:
/// parameters and data as `ValueError`, the memory budget as
/// `MemoryError`, files as `OSError`, cancellation as `KeyboardInterrupt`.
pub fn error(e: Error) -> PyErr {
    let text = e.to_string();
    match e {
        Error::Param(_) | Error::Data(_) | Error::Model(_) => PyValueError::new_err(text),
        Error::Resource(_) => PyMemoryError::new_err(text),
        Error::Io { .. } => PyOSError::new_err(text),
        Error::Cancelled => PyKeyboardInterrupt::new_err(text),
    }
}

/// The rows a fit or prediction reads: the caller's C-contiguous float64
/// or float32 buffer itself (float32 then runs as f32 end to end), or one
/// converted copy (Fortran order or strided input, or values outside the
/// range the solvers compute in), in the input's float type.
pub struct Input<'py> {
    borrowed: Option<PyReadonlyArray2<'py, f64>>,
    borrowed32: Option<PyReadonlyArray2<'py, f32>>,
    owned: Option<Matrix>,
    /// Whether the data was copied.
    pub copied: bool,
    /// The power of two the values were multiplied by (0: none), as
    /// `meanscape run` does (`fit_range`).
    pub rescale_exp: i32,
}

/// Keeps a NumPy array alive while the engine reads its buffer.
struct KeepAlive(#[allow(dead_code)] Py<PyArray2<f64>>);

/// As [`KeepAlive`], for a float32 array.
struct KeepAlive32(#[allow(dead_code)] Py<PyArray2<f32>>);

/// Reads a 2-D float64 or float32 NumPy array; anything else is refused
/// (the Python side converts with scikit-learn's `check_array` first).
/// `rescale_by`: the power of two to multiply by, as the fit did; `None`
/// computes it from the data as `meanscape run` does (a fit).
pub fn input_rows<'py>(x: &Bound<'py, PyAny>, rescale_by: Option<i32>) -> PyResult<Input<'py>> {
    if let Ok(a) = x.extract::<PyReadonlyArray2<'py, f64>>() {
        let view = a.as_array();
        let e = match rescale_by {
            Some(e) => e,
            None => range_exponent(largest(x.py(), a.as_slice().ok(), || view.iter().copied())?),
        };
        if a.is_c_contiguous() && e == 0 {
            return Ok(Input {
                borrowed: Some(a),
                borrowed32: None,
                owned: None,
                copied: false,
                rescale_exp: 0,
            });
        }
        return Ok(owned(view.as_standard_layout().into_owned().into(), e));
    }
    if let Ok(a) = x.extract::<PyReadonlyArray2<'py, f32>>() {
        let view = a.as_array();
        let e = match rescale_by {
            Some(e) => e,
            None => range_exponent(largest(x.py(), a.as_slice().ok(), || {
                view.iter().map(|&v| f64::from(v))
            })?),
        };
        if a.is_c_contiguous() && e == 0 {
            return Ok(Input {
                borrowed: None,
                borrowed32: Some(a),
                owned: None,
                copied: false,
                rescale_exp: 0,
            });
        }
        return Ok(owned(view.as_standard_layout().into_owned().into(), e));
    }
    Err(PyTypeError::new_err(
        "X must be a 2-D float64 or float32 NumPy array",
    ))
}

fn owned(mut x: Matrix, e: i32) -> Input<'static> {
    if e != 0 {
        match &mut x {
            Matrix::F64(a) => rescale(Arc::make_mut(a), e),
            Matrix::F32(a) => {
                // A power of two: exact unless a value leaves f32's range,
                // which the range fit's target [2^-64, 2^64) does not.
                let f = 2f64.powi(e);
                Arc::make_mut(a).mapv_inplace(|v| (f64::from(v) * f) as f32);
            }
        }
    }
    Input {
        borrowed: None,
        borrowed32: None,
        owned: Some(x),
        copied: true,
        rescale_exp: e,
    }
}

/// The largest |value|, refusing NaN and infinity: a contiguous buffer
/// in parallel without the GIL, else `values` one by one.
fn largest<T, I>(py: Python<'_>, slice: Option<&[T]>, values: impl FnOnce() -> I) -> PyResult<f64>
where
    T: Copy + Into<f64> + Sync,
    I: Iterator<Item = f64>,
{
    let m = match slice {
        Some(xs) => py.detach(|| max_abs_finite(xs)),
        None => values().try_fold(0.0f64, |m, v| v.is_finite().then(|| m.max(v.abs()))),
    };
    m.ok_or_else(|| {
        PyValueError::new_err(
            "Input X contains NaN or infinity: meanscape clusters finite values only",
        )
    })
}

impl Input<'_> {
    /// The engine's view of the rows.
    pub fn rows(&self) -> PyResult<algo::Features> {
        if let Some(x) = &self.owned {
            return Ok(algo::Features::shared(x.clone()));
        }
        if let Some(a) = &self.borrowed32 {
            let (n, p) = (a.shape()[0], a.shape()[1]);
            let keep = KeepAlive32(a.as_unbound().clone_ref(a.py()));
            // SAFETY: as below, for a C-contiguous float32 array.
            return Ok(unsafe { algo::Features::borrowed_f32(Arc::new(keep), a.data(), n, p) });
        }
        let a = self.borrowed.as_ref().expect("borrowed or owned");
        let (n, p) = (a.shape()[0], a.shape()[1]);
        let keep = KeepAlive(a.as_unbound().clone_ref(a.py()));
        // SAFETY: the array is C-contiguous float64 (checked above) and
        // held by a read-only borrow for as long as `self` lives; the fit
        // drops its problem before `self`, and `keep` holds a reference to
        // the array besides.
        Ok(unsafe { algo::Features::borrowed(Arc::new(keep), a.data(), n, p) })
    }

    /// The rows as f64 (for predictions): borrowed, or widened from f32.
    pub fn view(&self) -> ndarray::CowArray<'_, f64, ndarray::Ix2> {
        match (&self.owned, &self.borrowed, &self.borrowed32) {
            (Some(x), _, _) => x.f64(),
            (None, Some(a), _) => a.as_array().into(),
            (None, None, Some(a)) => a.as_array().mapv(f64::from).into(),
            _ => unreachable!("borrowed or owned"),
        }
    }
}

/// Runs `work` with the GIL released, checking every 50 ms for Ctrl-C (or
/// any signal handler that raises): then the engine is cancelled and the
/// exception is raised once it has stopped.
pub fn run_cancellable<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Ctx, &Arc<AtomicBool>) -> meanscape::Result<T> + Send,
) -> PyResult<T> {
    let cancel = Arc::new(AtomicBool::new(false));
    let ctx = Ctx::new().with_cancel(cancel.clone());
    let (result, interrupt) = py.detach(|| {
        std::thread::scope(|s| {
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let worker_cancel = cancel.clone();
            let handle = s.spawn(move || {
                let r = work(&ctx, &worker_cancel);
                let _ = done_tx.send(());
                r
            });
            let mut interrupt = None;
            // Wakes as soon as the work is done; every 50 ms meanwhile it
            // looks for Ctrl-C.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                done_rx.recv_timeout(Duration::from_millis(50))
            {
                if interrupt.is_none()
                    && let Err(e) = Python::attach(|py| py.check_signals())
                {
                    cancel.store(true, Ordering::Relaxed);
                    interrupt = Some(e);
                }
            }
            (handle.join(), interrupt)
        })
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    match result {
        Ok(r) => r.map_err(error),
        Err(_) => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "the meanscape engine panicked (a bug: please report it)",
        )),
    }
}

/// Reads a data file as `meanscape run --data` does (CSV/TSV, `.npy`,
/// `.mat`, IDX, Parquet, Arrow/Feather, a bundled dataset or `gen:…`),
/// unscaled: a dict with `X`, `y` (0-based class ids or None),
/// `label_names`, `feature_names`, `name`, `notes` and `label_left_out`
/// (with `label="none"`, the column named like labels that was left out
/// of `X`; `keep_label_column=True` keeps it as a feature).
#[pyfunction]
#[pyo3(signature = (path, label=None, missing="error", keep_label_column=false))]
pub fn load<'py>(
    py: Python<'py>,
    path: &str,
    label: Option<&str>,
    missing: &str,
    keep_label_column: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let label = match label {
        Some(l) => l.parse::<LabelChoice>().map_err(PyValueError::new_err)?,
        None => LabelChoice::Auto,
    };
    let missing = match missing {
        "error" => Missing::Error,
        "impute" => Missing::ImputeMean,
        "drop" => Missing::DropIncomplete,
        other => {
            return Err(PyValueError::new_err(format!(
                "missing = '{other}': must be 'error', 'impute' or 'drop'"
            )));
        }
    };
    let opts = LoadOptions {
        label,
        missing,
        keep_label_column,
        ..LoadOptions::default()
    };
    let source = DataSource::parse(path).map_err(error)?;
    let ds = py
        .detach(|| meanscape::data::load(&source, &opts))
        .map_err(error)?;
    if ds.kernels.is_some() && ds.x.ncols() == 0 {
        return Err(PyValueError::new_err(format!(
            "{path} holds precomputed kernels, not features: use the CLI (--kernels precomputed)"
        )));
    }
    let out = PyDict::new(py);
    // A float32 file read for an f32 run comes back as float32.
    match ds.x {
        Matrix::F64(x) => {
            let x = Arc::try_unwrap(x).unwrap_or_else(|shared| (*shared).clone());
            out.set_item("X", x.into_pyarray(py))?;
        }
        Matrix::F32(x) => {
            let x = Arc::try_unwrap(x).unwrap_or_else(|shared| (*shared).clone());
            out.set_item("X", x.into_pyarray(py))?;
        }
    }
    match &ds.labels {
        Some(l) => {
            let ids: Vec<i64> = l.ids.iter().map(|&i| i as i64).collect();
            out.set_item("y", ids.into_pyarray(py))?;
            out.set_item("label_names", l.names.clone())?;
        }
        None => {
            out.set_item("y", py.None())?;
            out.set_item("label_names", py.None())?;
        }
    }
    out.set_item("feature_names", ds.feature_names.clone())?;
    out.set_item("name", ds.name.clone())?;
    out.set_item("notes", ds.notes.clone())?;
    out.set_item("label_left_out", ds.label_left_out.clone())?;
    Ok(out)
}
