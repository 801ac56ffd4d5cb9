//! Precomputed kernel files: a stack of v symmetric n×n matrices (a `.mat`
//! variable `KH`, n×n×v, or a v×n×n `.npy`), checked and stored as Gram
//! matrices one at a time, so a file is never in memory twice as dense
//! matrices. Labels of an `.npy` stack come from a companion file.

use super::input::{self, Budget};
use super::{Dataset, Labels};
use crate::error::{Error, Result};
use crate::kernel::Gram;
use crate::kernel::Precision;
use crate::kernel::gram::stored_bytes;
use crate::kernel::stack::{KernelStack, check_symmetric, raw_spec, symmetrise};
use ndarray::Array2;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Refuses a stack above the budget before any value is read: the file's
/// bytes (`held`), one dense n×n slice being checked, and v stored Gram
/// matrices of n²/2 entries.
pub(crate) fn check_budget(origin: &str, budget: &Budget, n: u64, v: u64, held: u64) -> Result<()> {
    let slice = u128::from(n) * u128::from(n) * 8;
    let one = stored_bytes(n.min(1 << 31) as usize, Precision::F64) as u128;
    let need = u128::from(held) + slice + one.saturating_mul(u128::from(v));
    budget.check(
        origin,
        need,
        &format!(
            "{v} kernel matri{} of {n}×{n}, ≈ n²/2 × 8 bytes each, and one dense n×n slice",
            if v == 1 { "x" } else { "ces" }
        ),
    )
}

/// Collects the kernels of a file as they are read.
pub(crate) struct StackBuilder {
    n: usize,
    grams: Vec<Arc<Gram>>,
    notes: Vec<String>,
}

impl StackBuilder {
    pub fn new(n: usize, v: usize) -> Self {
        StackBuilder {
            n,
            grams: Vec::with_capacity(v),
            notes: Vec::new(),
        }
    }

    /// Checks the next kernel (finite, symmetric up to rounding, which is
    /// then repaired with a note) and stores it.
    pub fn push(&mut self, k: &mut Array2<f64>) -> std::result::Result<(), String> {
        let name = format!("K{}", self.grams.len() + 1);
        debug_assert_eq!(k.dim(), (self.n, self.n));
        match check_symmetric(k.view()) {
            Err(why) => return Err(format!("kernel {name}: {why}")),
            Ok(Some(d)) => {
                symmetrise(k);
                self.notes.push(format!(
                    "kernel {name} is symmetric only up to rounding (largest difference {d:.1e} of max |K|): symmetrised as (K+Kᵀ)/2"
                ));
            }
            Ok(None) => {}
        }
        self.grams
            .push(Arc::new(Gram::from_dense(k.view(), &raw_spec())));
        Ok(())
    }

    pub fn finish(self, origin: &str) -> Dataset {
        let names = (1..=self.grams.len()).map(|l| format!("K{l}")).collect();
        let stack = KernelStack {
            grams: self.grams,
            names,
        };
        let mut ds = Dataset::from_kernels(origin, origin, stack);
        ds.notes = self.notes;
        ds
    }
}

/// The labels file of a data file that has no label column (`what` names
/// it): `--label FILE`, or [`sibling_labels`] beside it (its note, if any,
/// goes to `notes`); None for `--label none`.
///
/// # Errors
/// [`Error::Data`] for a label column index, which such a file lacks.
pub(crate) fn labels_file(
    path: &Path,
    shown: &str,
    label: &super::LabelChoice,
    notes: &mut Vec<String>,
    what: &str,
) -> crate::error::Result<Option<PathBuf>> {
    use super::LabelChoice;
    Ok(match label {
        LabelChoice::Name(f) => Some(PathBuf::from(f)),
        LabelChoice::Auto => {
            let (file, note) = sibling_labels(path);
            notes.extend(note);
            file
        }
        LabelChoice::None => None,
        LabelChoice::Index(_) => {
            return Err(crate::error::Error::Data(format!(
                "{shown}: {what} has no label column; give the labels as a file \
                 (--label FILE, or STEM.labels.npy/.txt/.csv beside it)"
            )));
        }
    })
}

/// The companion labels of a kernel `.npy`: `STEM.labels.npy`,
/// `STEM.labels.txt` or `STEM.labels.csv` beside it, first found, and a
/// note when one of those names is not a regular file.
pub(crate) fn sibling_labels(path: &Path) -> (Option<PathBuf>, Option<String>) {
    let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
        return (None, None);
    };
    input::companion(
        ["npy", "txt", "csv"]
            .iter()
            .map(|ext| path.with_file_name(format!("{stem}.labels.{ext}"))),
    )
}

/// Reads labels from a file: a 1-D `.npy` of numbers, or text with one
/// label per line (empty lines ignored). `n` is the number of rows the
/// labels must match.
pub(crate) fn read_labels(path: &Path, n: usize, budget: &Budget) -> Result<Labels> {
    read_labels_of(path, n, budget, &format!("the kernels are {n}×{n}"))
}

/// [`read_labels`] for `n` rows that `rows` describes in a mismatch.
pub(crate) fn read_labels_of(path: &Path, n: usize, budget: &Budget, rows: &str) -> Result<Labels> {
    let shown = input::shown(path);
    let bytes = input::read_all(path, &shown, budget)?;
    let labels = if bytes.starts_with(b"\x93NUMPY") {
        Labels::from_codes(&npy_codes(&bytes, &shown)?)
    } else {
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            Error::Data(format!(
                "{shown}: labels file is not UTF-8 text (invalid byte at offset {}); expected one label per line or a 1-D .npy",
                e.valid_up_to()
            ))
        })?;
        let rows: Vec<&str> = text
            .lines()
            .map(|l| l.trim().trim_end_matches(',').trim())
            .filter(|l| !l.is_empty())
            .collect();
        Labels::from_strings(&rows)
    };
    if labels.ids.len() != n {
        return Err(Error::Data(format!(
            "{shown}: {} labels, but {rows}",
            labels.ids.len()
        )));
    }
    Ok(labels)
}

/// The values of a 1-D `.npy` of integers or floats.
fn npy_codes(bytes: &[u8], shown: &str) -> Result<Vec<f64>> {
    use ndarray::Array1;
    use ndarray_npy::ReadNpyExt;
    let bad = |why: String| Error::Data(format!("{shown}: labels: {why}"));
    fn read1<T: ndarray_npy::ReadableElement>(b: &[u8], f: fn(T) -> f64) -> Option<Vec<f64>> {
        Array1::<T>::read_npy(b)
            .ok()
            .map(|a| a.into_iter().map(f).collect())
    }
    let read = read1::<f64>(bytes, |v| v)
        .or_else(|| read1::<f32>(bytes, f64::from))
        .or_else(|| read1::<i64>(bytes, |v| v as f64))
        .or_else(|| read1::<i32>(bytes, f64::from))
        .or_else(|| read1::<u8>(bytes, f64::from))
        .or_else(|| read1::<u64>(bytes, |v| v as f64));
    let codes = read.ok_or_else(|| {
        bad("expected a 1-D .npy array of integers or floats, one label per row".into())
    })?;
    if let Some(r) = codes.iter().position(|c| !c.is_finite()) {
        return Err(bad(format!(
            "label {} (row {}) is not a finite number",
            codes[r],
            r + 1
        )));
    }
    Ok(codes)
}
