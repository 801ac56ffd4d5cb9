//! Matrix Market `.mtx` (as `scipy.io.mmwrite` writes a sparse matrix):
//! `coordinate` format, `real`, `integer` or `pattern` values (pattern:
//! every listed entry is 1), `general`, `symmetric` or `skew-symmetric`
//! (both expanded: the mirror of each off-diagonal entry is stored too, as
//! `scipy.io.mmread` does). Dense `array` files and complex values are
//! refused. Repeated entries are summed, as scipy does.

use super::common::{bad, check_budget, from_triples};
use crate::data::Dataset;
use crate::data::input::Budget;
use crate::error::Result;
use std::path::Path;

const WHAT: &str = "Matrix Market text (%%MatrixMarket matrix coordinate …)";

/// The fewest bytes one entry line takes (`1 1\n`).
const MIN_ENTRY: u64 = 4;

pub(crate) fn read(path: &Path, origin: &str, budget: &Budget) -> Result<Dataset> {
    let text = super::common::text(path, origin, budget, WHAT)?;
    parse(&text, origin, budget)
}

/// The lines that are neither comments (the banner is one) nor blank.
fn data_lines<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> impl Iterator<Item = (usize, &'a str)> {
    lines.filter(|(_, l)| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with('%')
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Symmetry {
    General,
    Symmetric,
    Skew,
}

/// Reads Matrix Market text; `origin` starts every message.
pub(crate) fn parse(text: &str, origin: &str, budget: &Budget) -> Result<Dataset> {
    let mut lines = text.lines().enumerate();
    let banner = lines.next().map_or("", |(_, l)| l);
    let words: Vec<String> = banner
        .split_ascii_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    if words.first().map(String::as_str) != Some("%%matrixmarket") || words.len() != 5 {
        return Err(bad(
            origin,
            format!("line 1: not a Matrix Market banner; expected {WHAT}"),
        ));
    }
    if words[1] != "matrix" {
        return Err(bad(
            origin,
            format!("a Matrix Market {}, not a matrix", words[1]),
        ));
    }
    if words[2] != "coordinate" {
        return Err(bad(
            origin,
            format!(
                "Matrix Market '{}' (dense) format is not read; write the matrix as coordinate \
                 (scipy.io.mmwrite of a sparse matrix), or save dense data as .npy or CSV",
                words[2]
            ),
        ));
    }
    let pattern = match words[3].as_str() {
        "real" | "double" | "integer" => false,
        "pattern" => true,
        f => {
            return Err(bad(
                origin,
                format!("Matrix Market field '{f}' is not read; expected real, integer or pattern"),
            ));
        }
    };
    let symmetry = match words[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::Skew,
        s => {
            return Err(bad(
                origin,
                format!(
                    "Matrix Market symmetry '{s}' is not read; expected general, symmetric or \
                     skew-symmetric"
                ),
            ));
        }
    };
    // The size line: the first that is not a comment.
    let mut rest = data_lines(lines);
    let Some((size_line, size)) = rest.next() else {
        return Err(bad(
            origin,
            "no size line (rows columns entries) after the banner",
        ));
    };
    let nums: Vec<u64> = size
        .split_ascii_whitespace()
        .map(|w| w.parse::<u64>())
        .collect::<std::result::Result<_, _>>()
        .ok()
        .filter(|v: &Vec<u64>| v.len() == 3)
        .ok_or_else(|| {
            bad(
                origin,
                format!(
                    "line {}: the size line must be three whole numbers: rows columns entries",
                    size_line + 1
                ),
            )
        })?;
    let (m, n, entries) = (nums[0], nums[1], nums[2]);
    if m == 0 || n == 0 {
        return Err(bad(origin, format!("an empty {m} × {n} matrix")));
    }
    if symmetry != Symmetry::General && m != n {
        return Err(bad(
            origin,
            format!("a {} matrix must be square, not {m} × {n}", words[4]),
        ));
    }
    if n > u64::from(u32::MAX) + 1 {
        return Err(bad(origin, format!("{n} columns; at most 2^32 are read")));
    }
    let room = text.len() as u64 / MIN_ENTRY;
    if entries > room {
        return Err(bad(
            origin,
            format!(
                "the size line declares {entries} entries, but the file's {} bytes hold at most \
                 {room} (truncated, or a damaged size line)",
                text.len()
            ),
        ));
    }
    let stored = if symmetry == Symmetry::General {
        entries
    } else {
        entries.saturating_mul(2)
    };
    check_budget(origin, budget, (m, n, stored), text.len() as u128)?;
    let entry_at = size_line + 1;

    // First pass: check every entry and count what is stored.
    let entry = |line: usize, l: &str| -> Result<(usize, u32, f64)> {
        let at = |why: String| bad(origin, format!("line {}: {why}", line + 1));
        let mut w = l.split_ascii_whitespace();
        let mut index = |what: &str, most: u64| -> Result<u64> {
            let t = w.next().ok_or_else(|| at(format!("no {what} index")))?;
            match t.parse::<u64>() {
                Ok(i) if (1..=most).contains(&i) => Ok(i - 1),
                _ => Err(at(format!(
                    "{what} index '{}' is not in 1..={most}",
                    crate::data::npy::shorten(t)
                ))),
            }
        };
        let i = index("row", m)?;
        let j = index("column", n)?;
        let v = if pattern {
            1.0
        } else {
            let t = w.next().ok_or_else(|| at("no value".into()))?;
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    at(format!(
                        "value '{}' is not a finite number",
                        crate::data::npy::shorten(t)
                    ))
                })?
        };
        if w.next().is_some() {
            return Err(at(format!(
                "more fields than '{}' entries have",
                if pattern {
                    "row column"
                } else {
                    "row column value"
                }
            )));
        }
        Ok((i as usize, j as u32, v))
    };
    let mut count = 0u64;
    let mut nnz = 0usize;
    for (line, l) in rest {
        if count == entries {
            return Err(bad(
                origin,
                format!(
                    "line {}: more entries than the {entries} the size line (line {entry_at}) declares",
                    line + 1
                ),
            ));
        }
        let (i, j, _) = entry(line, l)?;
        if symmetry == Symmetry::Skew && i == j as usize {
            return Err(bad(
                origin,
                format!(
                    "line {}: a skew-symmetric matrix has no diagonal entries",
                    line + 1
                ),
            ));
        }
        count += 1;
        nnz += if symmetry != Symmetry::General && i != j as usize {
            2
        } else {
            1
        };
    }
    if count < entries {
        return Err(bad(
            origin,
            format!("{count} entries, but the size line declares {entries} (truncated or damaged)"),
        ));
    }
    // Second pass: place them (and their mirrors).
    let skew = if symmetry == Symmetry::Skew {
        -1.0
    } else {
        1.0
    };
    let triples = || {
        data_lines(text.lines().enumerate())
            .skip(1)
            .flat_map(|(line, l)| {
                let (i, j, v) = entry(line, l).expect("checked in the first pass");
                let mirror = (symmetry != Symmetry::General && i != j as usize).then_some((
                    j as usize,
                    i as u32,
                    skew * v,
                ));
                std::iter::once((i, j, v)).chain(mirror)
            })
    };
    let csr = from_triples((m as usize, n as usize), nnz, triples)
        .map_err(|e| bad(origin, e.to_string()))?;
    let mut ds = Dataset::from_csr(origin, origin, csr);
    if symmetry != Symmetry::General {
        ds.notes.push(format!(
            "Matrix Market {}: expanded to both triangles ({nnz} stored values)",
            words[4]
        ));
    }
    Ok(ds)
}
