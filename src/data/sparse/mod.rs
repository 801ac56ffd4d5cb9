//! Sparse files read straight into CSR rows: scipy's `.npz`
//! (`scipy.sparse.save_npz`), svmlight/libsvm text and Matrix Market
//! `.mtx`. Memory is ∝ nnz: nothing n × p is ever allocated, and the
//! sizes a file declares (or the most its bytes could hold) are checked
//! against the budget before the arrays are.

mod common;
pub(crate) mod mtx;
pub(crate) mod npz;
pub(crate) mod svmlight;

use super::input::{self, Budget};
use super::{Dataset, LoadOptions};
use crate::error::{Error, Result};
use std::path::Path;

/// The sparse formats, by extension (a `.gz` of svmlight or Matrix Market
/// text is read too: `x.svm.gz`, `x.mtx.gz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Npz,
    Svmlight,
    MatrixMarket,
}

impl Format {
    pub fn of(path: &Path) -> Option<Format> {
        let ext = |p: &Path| {
            p.extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
        };
        let mut e = ext(path)?;
        if e == "gz" {
            e = ext(Path::new(path.file_stem()?))?;
            if e == "npz" {
                return None;
            }
        }
        match e.as_str() {
            "npz" => Some(Format::Npz),
            "svm" | "svmlight" | "libsvm" => Some(Format::Svmlight),
            "mtx" => Some(Format::MatrixMarket),
            _ => None,
        }
    }
}

/// Reads a sparse file of `format` into a dataset of CSR rows.
pub(crate) fn read(path: &Path, format: Format, opts: &LoadOptions) -> Result<Dataset> {
    let shown = input::shown(path);
    let budget = Budget::of(opts);
    let mut ds = match format {
        Format::Npz => npz::read(path, &shown, &budget)?,
        Format::Svmlight => svmlight::read(path, &shown, opts, &budget)?,
        Format::MatrixMarket => mtx::read(path, &shown, &budget)?,
    };
    if format != Format::Svmlight {
        companion_labels(path, &shown, opts, &budget, &mut ds)?;
    }
    if opts.dtype == Some(super::Dtype::F32) {
        ds.notes
            .push("--dtype f32: sparse rows are held and computed in f64".into());
    }
    Ok(ds)
}

/// The labels of a `.npz` or `.mtx` (which hold none): `--label FILE`, or
/// `STEM.labels.npy|txt|csv` beside the file, as for a kernel stack.
fn companion_labels(
    path: &Path,
    shown: &str,
    opts: &LoadOptions,
    budget: &Budget,
    ds: &mut Dataset,
) -> Result<()> {
    let file = super::kernel_files::labels_file(
        path,
        shown,
        &opts.label,
        &mut ds.notes,
        "a sparse matrix file",
    )?;
    if let Some(f) = file {
        let rows = format!("the matrix has {} rows", ds.n());
        let labels = super::kernel_files::read_labels_of(&f, ds.n(), budget, &rows).map_err(
            |e| match e {
                Error::Resource(m) => Error::Resource(format!("{shown}: labels: {m}")),
                e => Error::Data(format!("{shown}: labels: {e}")),
            },
        )?;
        ds.labels = Some(labels);
        ds.inputs.push(f);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::common::from_triples;
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("a.npz")), Some(Format::Npz));
        assert_eq!(Format::of(Path::new("a.SVM")), Some(Format::Svmlight));
        assert_eq!(Format::of(Path::new("a.libsvm.gz")), Some(Format::Svmlight));
        assert_eq!(
            Format::of(Path::new("a.mtx.gz")),
            Some(Format::MatrixMarket)
        );
        assert_eq!(Format::of(Path::new("a.csv.gz")), None);
        assert_eq!(Format::of(Path::new("a.npz.gz")), None);
        assert_eq!(Format::of(Path::new("svm")), None);
    }

    #[test]
    fn triples_become_sorted_rows() {
        let t = [(1, 2u32, 3.0), (0, 1, 1.0), (1, 0, 2.0)];
        let x = from_triples((2, 3), 3, || t.iter().copied()).unwrap();
        assert_eq!(x.to_dense(), ndarray::array![[0., 1., 0.], [2., 0., 3.]]);
    }
}
