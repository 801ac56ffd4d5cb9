//! What the sparse readers share: the budget of CSR arrays, their
//! construction from (row, column, value) triples, one-line errors and the
//! text of a file.

use crate::data::input::{self, Budget};
use crate::data::sizes::{NAME_BYTES, product};
use crate::error::{Error, Result};
use crate::solver::csr::Csr;
use std::path::Path;

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
