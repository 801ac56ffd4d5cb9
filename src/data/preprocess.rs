//! Missing values and feature scaling.

use super::Dataset;
use crate::error::{Error, Result};
use ndarray::Axis;
use ndarray::parallel::prelude::*;
use std::sync::Arc;

/// What to do with empty, NaN or infinite cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// Refuse the file, naming the first bad cell.
    #[default]
    Error,
    /// Replace each bad cell with its column's mean over the good cells.
    ImputeMean,
    /// Drop every row that has a bad cell.
    DropIncomplete,
}

/// Feature scaling applied before clustering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    /// Centre each column and divide by its sample standard deviation.
    #[default]
    Standard,
    /// Map each column onto [0, 1].
    Minmax,
    /// Use the values as they are.
    None,
}

impl std::fmt::Display for Scaling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scaling::Standard => "standard",
            Scaling::Minmax => "minmax",
            Scaling::None => "none",
        })
    }
}

/// Resolves the non-finite cells a loader left as NaN, by `policy`.
/// With [`Missing::Error`] the loader has already refused such a file; here
/// it only guards the invariant.
pub fn resolve_missing(ds: &mut Dataset, policy: Missing) -> Result<()> {
    let bad_rows: Vec<usize> =
        ds.x.axis_iter(Axis(0))
            .enumerate()
            .filter(|(_, r)| r.iter().any(|v| !v.is_finite()))
            .map(|(i, _)| i)
            .collect();
    if bad_rows.is_empty() {
        return Ok(());
    }
    match policy {
        Missing::Error => ds.validate(),
        Missing::ImputeMean => {
            let mut filled = 0usize;
            for (j, mut col) in Arc::make_mut(&mut ds.x).axis_iter_mut(Axis(1)).enumerate() {
                let (sum, count) = col
                    .iter()
                    .filter(|v| v.is_finite())
                    .fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
                if count == 0 {
                    return Err(Error::Data(format!(
                        "{}: column {} ({}) has no numeric value to impute a mean from",
                        ds.source,
                        j + 1,
                        ds.feature_names[j]
                    )));
                }
                let mean = sum / count as f64;
                for v in col.iter_mut().filter(|v| !v.is_finite()) {
                    *v = mean;
                    filled += 1;
                }
            }
            ds.notes.push(format!(
                "imputed {filled} missing cell(s) with column means"
            ));
            Ok(())
        }
        Missing::DropIncomplete => {
            let keep: Vec<usize> = (0..ds.n()).filter(|i| !bad_rows.contains(i)).collect();
            if keep.is_empty() {
                return Err(Error::Data(format!(
                    "{}: every row has a missing value; nothing left after --drop-incomplete",
                    ds.source
                )));
            }
            ds.x = Arc::new(ds.x.select(Axis(0), &keep));
            ds.labels = ds.labels.as_ref().map(|l| l.select(&keep));
            ds.notes.push(format!(
                "dropped {} incomplete row(s), {} left",
                bad_rows.len(),
                keep.len()
            ));
            Ok(())
        }
    }
}

/// Scales the features in place. Constant columns are set to 0 rather than
/// divided by zero; their indices are returned and noted on the dataset.
/// Statistics are gathered row by row (the matrix is row-major), so a
/// 70 000 × 784 matrix is read a few times, not once per column.
pub fn scale(ds: &mut Dataset, how: Scaling) -> Vec<usize> {
    if how == Scaling::None {
        return Vec::new();
    }
    let (n, p) = ds.x.dim();
    let mut sum = vec![0.0; p];
    let mut lo = vec![f64::INFINITY; p];
    let mut hi = vec![f64::NEG_INFINITY; p];
    for row in ds.x.rows() {
        for (j, &v) in row.iter().enumerate() {
            sum[j] += v;
            lo[j] = lo[j].min(v);
            hi[j] = hi[j].max(v);
        }
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let mut var = vec![0.0; p];
    for row in ds.x.rows() {
        for (j, &v) in row.iter().enumerate() {
            var[j] += (v - mean[j]).powi(2);
        }
    }
    let mut constant = Vec::new();
    // Per column: x ↦ (x − shift)·mult.
    let mut shift = vec![0.0; p];
    let mut mult = vec![0.0; p];
    for j in 0..p {
        let spread = hi[j] - lo[j];
        if spread == 0.0 || spread <= 1e-12 * hi[j].abs().max(lo[j].abs()) {
            constant.push(j);
            continue;
        }
        match how {
            Scaling::Standard => {
                shift[j] = mean[j];
                mult[j] = 1.0 / (var[j] / (n as f64 - 1.0).max(1.0)).sqrt();
            }
            Scaling::Minmax => {
                shift[j] = lo[j];
                mult[j] = 1.0 / spread;
            }
            Scaling::None => unreachable!(),
        }
    }
    Arc::make_mut(&mut ds.x)
        .axis_iter_mut(Axis(0))
        .into_par_iter()
        .for_each(|mut row| {
            for (j, v) in row.iter_mut().enumerate() {
                // A constant column has mult 0: it becomes exactly 0.
                *v = if mult[j] == 0.0 {
                    0.0
                } else {
                    (*v - shift[j]) * mult[j]
                };
            }
        });
    if !constant.is_empty() {
        let names: Vec<&str> = constant
            .iter()
            .take(8)
            .map(|&j| ds.feature_names[j].as_str())
            .collect();
        let more = if constant.len() > 8 { ", …" } else { "" };
        ds.notes.push(format!(
            "{} constant column(s) set to 0 instead of scaled: {}{more}",
            constant.len(),
            names.join(", ")
        ));
    }
    constant
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Labels;
    use ndarray::array;

    fn ds(x: ndarray::Array2<f64>) -> Dataset {
        Dataset::new("t", "t.csv", x)
    }

    #[test]
    fn standard_scaling_uses_sample_sd_and_reports_constants() {
        let mut d = ds(array![[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]);
        let c = scale(&mut d, Scaling::Standard);
        assert_eq!(c, vec![1]);
        assert_eq!(d.x.column(0).to_vec(), vec![-1.0, 0.0, 1.0]);
        assert_eq!(d.x.column(1).to_vec(), vec![0.0, 0.0, 0.0]);
        assert!(d.notes[0].contains("f2"));
    }

    #[test]
    fn minmax_maps_to_unit_interval() {
        let mut d = ds(array![[2.0], [4.0], [3.0]]);
        scale(&mut d, Scaling::Minmax);
        assert_eq!(d.x.column(0).to_vec(), vec![0.0, 1.0, 0.5]);
    }

    #[test]
    fn impute_and_drop() {
        let x = array![[1.0, f64::NAN], [3.0, 4.0], [f64::NAN, 8.0]];
        let mut d = ds(x.clone());
        resolve_missing(&mut d, Missing::ImputeMean).unwrap();
        assert_eq!(*d.x, array![[1.0, 6.0], [3.0, 4.0], [2.0, 8.0]]);

        let mut d = ds(x);
        d.labels = Some(Labels::from_strings(&["a", "b", "c"]));
        resolve_missing(&mut d, Missing::DropIncomplete).unwrap();
        assert_eq!(*d.x, array![[3.0, 4.0]]);
        assert_eq!(d.labels.unwrap().names, vec!["b"]);

        let mut d = ds(array![[f64::NAN]]);
        assert!(resolve_missing(&mut d, Missing::Error).is_err());
    }
}
