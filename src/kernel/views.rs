//! Views: column groups of multi-view data (`--views 1-76,77-292,…`, or
//! named, `fou=1-76,fac=77-292,…`), or bandwidth factors on all columns
//! (`auto`, `all`, `sigmas=F,F,…`; the RFF multi-view algorithms only).
//! Shared by the random-feature family and the kernel family, so that
//! neither imports the other.

use crate::error::{Error, Result};
use std::ops::Range;

/// Bandwidth factors of the RFF family's default views.
pub const DEFAULT_FACTORS: [f64; 3] = [0.5, 1.0, 2.0];

/// What `--views` asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Views {
    /// All columns, one view per bandwidth σ·factor.
    Bandwidths(Vec<f64>),
    /// Column groups (0-based, end exclusive), one view each.
    Columns(Vec<Range<usize>>),
}

/// One column group, with the name it is shown under (`fou`, or its
/// 1-based range `1-76` when the user gave none).
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub name: String,
    pub cols: Range<usize>,
}

/// Parses `--views` for data with `p` columns. Names of column groups are
/// accepted and dropped here (see [`parse_column_views`]).
///
/// # Errors
/// [`Error::Param`] naming the item that does not parse or is out of range.
pub fn parse_views(text: &str, p: usize) -> Result<Views> {
    let t = text.trim();
    let bad = |why: String| Error::param(format!("--views '{text}': {why}"));
    match t {
        "auto" | "default" | "" => return Ok(Views::Bandwidths(DEFAULT_FACTORS.to_vec())),
        "all" => return Ok(Views::Bandwidths(vec![1.0])),
        _ => {}
    }
    if let Some(list) = t.strip_prefix("sigmas=") {
        let mut f = Vec::new();
        for item in list.split(',') {
            let v: f64 = item.trim().parse().map_err(|_| {
                bad(format!(
                    "'{}' is not a number (bandwidth factors, e.g. sigmas=0.5,1,2)",
                    item.trim()
                ))
            })?;
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(format!("bandwidth factor {v} must be positive")));
            }
            f.push(v);
        }
        return Ok(Views::Bandwidths(f));
    }
    Ok(Views::Columns(
        parse_groups(text, p)?.into_iter().map(|v| v.cols).collect(),
    ))
}

/// Parses `--views` as column groups only (the kernel family: one kernel
/// per view), each optionally named `NAME=A-B`.
///
/// # Errors
/// [`Error::Param`] for a bandwidth form (`auto`, `sigmas=…`), a range that
/// does not parse or is out of range, or a name given twice.
pub fn parse_column_views(text: &str, p: usize) -> Result<Vec<View>> {
    let t = text.trim();
    if matches!(t, "auto" | "default" | "" | "all") || t.starts_with("sigmas=") {
        return Err(Error::param(format!(
            "--views '{text}': the kernel algorithms take column groups (e.g. 1-76,77-292 or fou=1-76,fac=77-292), not bandwidth factors"
        )));
    }
    parse_groups(text, p)
}

fn parse_groups(text: &str, p: usize) -> Result<Vec<View>> {
    let bad = |why: String| Error::param(format!("--views '{text}': {why}"));
    let mut out: Vec<View> = Vec::new();
    for item in text.trim().split(',') {
        let item = item.trim();
        let (name, range) = match item.split_once('=') {
            Some((n, r)) => (Some(n.trim()), r.trim()),
            None => (None, item),
        };
        if name.is_some_and(|n| n.is_empty() || n.chars().any(|c| c.is_control())) {
            return Err(bad(format!(
                "'{item}' has an empty or unprintable view name"
            )));
        }
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (range, range),
        };
        let parse = |v: &str| {
            v.parse::<usize>().map_err(|_| {
                bad(format!(
                    "'{item}' is not a column range (1-based, inclusive, e.g. 1-64,65-128 or fou=1-76; or auto, all, sigmas=F,F,…)"
                ))
            })
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if a == 0 || b < a || b > p {
            return Err(bad(format!(
                "columns {a}-{b} are out of range: must be within 1-{p} (1-based, inclusive), start ≤ end"
            )));
        }
        let name = name.map_or_else(|| format!("{a}-{b}"), str::to_string);
        if out.iter().any(|v| v.name == name) {
            return Err(bad(format!("view '{name}' is given more than once")));
        }
        out.push(View {
            name,
            cols: a - 1..b,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_and_unnamed_groups() {
        let v = parse_column_views("fou=1-3, 4-5,mor=6", 6).unwrap();
        let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["fou", "4-5", "mor"]);
        assert_eq!(v[2].cols, 5..6);
        assert_eq!(
            parse_views("a=1-2,b=3-6", 6).unwrap(),
            Views::Columns(vec![0..2, 2..6])
        );
        for bad in ["auto", "sigmas=1", "a=1-2,a=3-4", "=1-2", "1-9"] {
            assert!(parse_column_views(bad, 6).is_err(), "{bad}");
        }
    }
}
