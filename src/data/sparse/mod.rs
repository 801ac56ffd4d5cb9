//! Sparse files read straight into CSR rows: scipy's `.npz`
//! (`scipy.sparse.save_npz`), svmlight/libsvm text and Matrix Market
//! `.mtx`. Memory is ∝ nnz: nothing n × p is ever allocated, and the
//! sizes a file declares (or the most its bytes could hold) are checked
//! against the budget before the arrays are.

pub(crate) mod mtx;
pub(crate) mod npz;
pub(crate) mod svmlight;

use super::input::{self, Budget};
use super::sizes::{NAME_BYTES, product};
use super::{Dataset, LabelChoice, LoadOptions};
use crate::error::{Error, Result};
use crate::solver::csr::Csr;
use std::path::{Path, PathBuf};

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

/// Bytes the CSR arrays of an n × p matrix with `nnz` stored values take,
/// with the feature names and the row norms the run adds.
pub(crate) fn csr_need(n: u64, p: u64, nnz: u64) -> u128 {
    // indptr twice: the CSR's, and the row cursors of a conversion.
    product(&[n.saturating_add(1), 16])
        + product(&[nnz, 12])
        + product(&[p, NAME_BYTES])
        + product(&[n, 8])
}

/// Refuses a sparse matrix whose arrays (plus `held` bytes already held)
/// would not fit the budget.
pub(crate) fn check_budget(
    origin: &str,
    budget: &Budget,
    (n, p, nnz): (u64, u64, u64),
    held: u128,
) -> Result<()> {
    budget.check(
        origin,
        csr_need(n, p, nnz).saturating_add(held),
        &format!("a {n} × {p} sparse matrix with {nnz} stored values"),
    )
}

/// The CSR rows of `entries`, given as (row, column, value) triples whose
/// rows are below `n` and columns below `p` (checked by the caller). The
/// triples are gone through twice (count, then place), so no copy of them
/// is held: memory is the CSR arrays and n + 1 counters.
pub(crate) fn from_triples<I>(
    (n, p): (usize, usize),
    nnz: usize,
    entries: impl Fn() -> I,
) -> Result<Csr>
where
    I: Iterator<Item = (usize, u32, f64)>,
{
    let mut indptr = vec![0usize; n + 1];
    for (i, _, _) in entries() {
        indptr[i + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let mut next = indptr.clone();
    let mut indices = vec![0u32; nnz];
    let mut data = vec![0f64; nnz];
    for (i, j, v) in entries() {
        let at = next[i];
        indices[at] = j;
        data[at] = v;
        next[i] += 1;
    }
    Csr::new((n, p), indptr, indices, data)
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
    let file = match &opts.label {
        LabelChoice::Name(f) => Some(PathBuf::from(f)),
        LabelChoice::Auto => {
            let (file, note) = super::kernels::sibling_labels(path);
            ds.notes.extend(note);
            file
        }
        LabelChoice::None => None,
        LabelChoice::Index(_) => {
            return Err(Error::Data(format!(
                "{shown}: a sparse matrix file has no label column; give the labels as a file \
                 (--label FILE, or STEM.labels.npy/.txt/.csv beside it)"
            )));
        }
    };
    if let Some(f) = file {
        let rows = format!("the matrix has {} rows", ds.n());
        let labels =
            super::kernels::read_labels_of(&f, ds.n(), budget, &rows).map_err(|e| match e {
                Error::Resource(m) => Error::Resource(format!("{shown}: labels: {m}")),
                e => Error::Data(format!("{shown}: labels: {e}")),
            })?;
        ds.labels = Some(labels);
        ds.inputs.push(f);
    }
    Ok(())
}

/// A one-line error about `origin`.
pub(crate) fn bad(origin: &str, why: impl std::fmt::Display) -> Error {
    Error::Data(format!("{origin}: {why}"))
}

/// The text of a svmlight or Matrix Market file (gzip inflated, capped by
/// the budget), refused in one line when it is not UTF-8.
pub(crate) fn text(path: &Path, origin: &str, budget: &Budget, what: &str) -> Result<String> {
    let bytes = input::read_maybe_gz(path, origin, budget)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        bad(
            origin,
            format!("line {line}: not UTF-8 text (invalid byte at offset {at}); expected {what}"),
        )
    })
}

#[cfg(test)]
mod tests {
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
