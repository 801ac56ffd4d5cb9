//! Sample weights for a loaded dataset (`--weights COLUMN|FILE`): a
//! feature column taken out of the features, or a file of one number per
//! row.

use super::Dataset;
use crate::error::{Error, Result};
use crate::solver::Matrix;
use ndarray::Axis;
use std::path::Path;

/// Largest weights file read (a number per row: far below any budget).
const MAX_FILE: u64 = 1 << 30;

/// The weights named by `spec`: the feature column of that name (removed
/// from the features, so it is not clustered on) or, failing that, the
/// file at that path (numbers separated by white space, commas or new
/// lines). The weights' own checks (one per row, finite, ≥ 0) come when
/// the problem takes them.
///
/// # Errors
/// [`Error::Data`] when `spec` is neither a column nor a readable file of
/// numbers.
pub fn take_weights(ds: &mut Dataset, spec: &str) -> Result<Vec<f64>> {
    // Sparse rows have no dense column to take: weights come from a file.
    let column = ds.sparse.is_none();
    if let Some(j) = ds.feature_names.iter().position(|n| column && n == spec) {
        let w: Vec<f64> = match &ds.x {
            Matrix::F64(x) => x.column(j).to_vec(),
            Matrix::F32(x) => x.column(j).iter().map(|&v| f64::from(v)).collect(),
        };
        let keep: Vec<usize> = (0..ds.feature_names.len()).filter(|&c| c != j).collect();
        ds.x = match &ds.x {
            Matrix::F64(x) => Matrix::from(x.select(Axis(1), &keep)),
            Matrix::F32(x) => Matrix::from(x.select(Axis(1), &keep)),
        };
        ds.feature_names.remove(j);
        ds.notes.push(format!(
            "sample weights: column '{spec}' (left out of the features)"
        ));
        return Ok(w);
    }
    let path = Path::new(spec);
    if !path.is_file() {
        return Err(Error::Data(format!(
            "--weights {spec}: {}",
            if column {
                format!("no feature column named '{spec}' and no such file")
            } else {
                "no such file (sparse input takes weights from a file of one number per row)"
                    .to_string()
            }
        )));
    }
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_FILE {
        return Err(Error::Data(format!(
            "--weights {spec}: {size} bytes is too large for a file of weights"
        )));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Data(format!("--weights {spec}: {e}")))?;
    let w = parse_weights(&text).map_err(|why| Error::Data(format!("--weights {spec}: {why}")))?;
    ds.notes
        .push(format!("sample weights: {} from {spec}", w.len()));
    Ok(w)
}

/// Numbers separated by white space, commas or new lines.
fn parse_weights(text: &str) -> std::result::Result<Vec<f64>, String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, t)| {
            t.parse::<f64>()
                .map_err(|_| format!("value {} ('{t}') is not a number", i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_from_lines_or_commas() {
        assert_eq!(parse_weights("1\n2.5\n\n3\n").unwrap(), vec![1.0, 2.5, 3.0]);
        assert_eq!(parse_weights("1, 2,3").unwrap(), vec![1.0, 2.0, 3.0]);
        let e = parse_weights("1\nabc\n").unwrap_err();
        assert!(e.contains("value 2 ('abc')"), "{e}");
    }
}
