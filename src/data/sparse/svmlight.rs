//! svmlight / libsvm text: one row a line, `label [qid:N] index:value …`,
//! `#` starting a comment. Indices are taken as scikit-learn's
//! `load_svmlight_file` takes them by default (`zero_based="auto"`):
//! one-based unless an index 0 occurs. The label field becomes the
//! labels; `qid` is ignored, with a note.

use super::common::{bad, check_budget};
use crate::data::input::Budget;
use crate::data::{Dataset, LabelChoice, Labels, LoadOptions};
use crate::error::Result;
use crate::solver::csr::Csr;
use std::path::Path;

const WHAT: &str = "svmlight/libsvm text (label index:value …)";

pub(crate) fn read(
    path: &Path,
    origin: &str,
    opts: &LoadOptions,
    budget: &Budget,
) -> Result<Dataset> {
    let keep_labels = match &opts.label {
        LabelChoice::Auto => true,
        LabelChoice::None => false,
        _ => {
            return Err(bad(
                origin,
                "the labels of a svmlight file are the first field of each line; \
                 --label takes auto or none for it",
            ));
        }
    };
    let text = super::common::text(path, origin, budget, WHAT)?;
    let ds = parse(&text, origin, keep_labels, budget)?;
    Ok(ds)
}

/// Reads svmlight text; `origin` starts every message.
pub(crate) fn parse(
    text: &str,
    origin: &str,
    keep_labels: bool,
    budget: &Budget,
) -> Result<Dataset> {
    // The most rows and values the text can hold, checked against the
    // budget (with the text itself) before anything is allocated.
    let rows_most = text.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let nnz_most = text.bytes().filter(|&b| b == b':').count() as u64;
    budget.check(
        origin,
        super::common::csr_need(rows_most, 0, nnz_most)
            .saturating_add(text.len() as u128 + u128::from(rows_most) * 8),
        &format!(
            "up to {rows_most} rows and {nnz_most} stored values, by its lines and colons, \
             with its text"
        ),
    )?;
    let mut indptr: Vec<usize> = vec![0];
    let mut indices: Vec<u32> = Vec::new();
    let mut data: Vec<f64> = Vec::new();
    let oom = || crate::error::Error::Resource(format!("{origin}: out of memory"));
    indices
        .try_reserve_exact(nnz_most as usize)
        .map_err(|_| oom())?;
    data.try_reserve_exact(nnz_most as usize)
        .map_err(|_| oom())?;
    let mut codes: Vec<f64> = Vec::new();
    let (mut zero_seen, mut max_index, mut qid) = (false, 0u64, false);
    for (l, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let mut fields = line.split_ascii_whitespace();
        let Some(label) = fields.next() else {
            continue;
        };
        let at = |why: String| bad(origin, format!("line {}: {why}", l + 1));
        let code: f64 = label
            .parse()
            .ok()
            .filter(|c: &f64| c.is_finite())
            .ok_or_else(|| {
                at(format!(
                    "label '{}' is not a finite number (multilabel files are not read)",
                    crate::data::npy::shorten(label)
                ))
            })?;
        codes.push(code);
        for (f, field) in fields.enumerate() {
            let Some((idx, val)) = field.split_once(':') else {
                return Err(at(format!(
                    "'{}' is not index:value",
                    crate::data::npy::shorten(field)
                )));
            };
            if idx == "qid" && f == 0 {
                qid = true;
                continue;
            }
            let j: u64 = idx.parse().map_err(|_| {
                at(format!(
                    "feature index '{}' is not a whole number ≥ 0",
                    crate::data::npy::shorten(idx)
                ))
            })?;
            if j > u64::from(u32::MAX) {
                return Err(at(format!(
                    "feature index {j} is above {}, the most columns read",
                    u32::MAX
                )));
            }
            let v: f64 = val
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    at(format!(
                        "value '{}' of feature {j} is not a finite number",
                        crate::data::npy::shorten(val)
                    ))
                })?;
            zero_seen |= j == 0;
            max_index = max_index.max(j);
            indices.push(j as u32);
            data.push(v);
        }
        indptr.push(data.len());
    }
    let n = codes.len();
    if n == 0 {
        return Err(bad(origin, format!("no data rows; expected {WHAT}")));
    }
    let p = if zero_seen { max_index + 1 } else { max_index };
    if p == 0 {
        return Err(bad(origin, "no features: no line has an index:value pair"));
    }
    check_budget(
        origin,
        budget,
        (n as u64, p, data.len() as u64),
        text.len() as u128,
    )?;
    if !zero_seen {
        indices.iter_mut().for_each(|j| *j -= 1);
    }
    let csr =
        Csr::new((n, p as usize), indptr, indices, data).map_err(|e| bad(origin, e.to_string()))?;
    let mut ds = Dataset::from_csr(origin, origin, csr);
    if keep_labels {
        ds.labels = Some(Labels::from_codes(&codes));
    }
    if qid {
        ds.notes
            .push("svmlight: qid fields ignored (rows are clustered without queries)".into());
    }
    ds.notes.push(format!(
        "svmlight: feature indices read as {}-based ({})",
        if zero_seen { 0 } else { 1 },
        if zero_seen {
            "index 0 occurs"
        } else {
            "no index 0 occurs, as scikit-learn's zero_based=\"auto\""
        }
    ));
    Ok(ds)
}
