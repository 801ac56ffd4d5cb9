//! Missing values and feature scaling.

use super::Dataset;
use crate::error::{Error, Result};
use crate::solver::Real;
pub use crate::solver::Scaling;
use ndarray::parallel::prelude::*;
use ndarray::{Array2, Axis};
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

/// Resolves the non-finite cells a loader left as NaN, by `policy`.
/// With [`Missing::Error`] the loader has already refused such a file; here
/// it only guards the invariant.
///
/// # Errors
/// [`Error::Data`] when no row or no feature is left.
pub fn resolve_missing(ds: &mut Dataset, policy: Missing) -> Result<()> {
    let bad_rows: Vec<usize> = crate::with_matrix!(&ds.x, x => x
        .axis_iter(Axis(0))
        .enumerate()
        .filter(|(_, r)| r.iter().any(|&v| !f64::from(v).is_finite()))
        .map(|(i, _)| i)
        .collect());
    if bad_rows.is_empty() {
        return Ok(());
    }
    match policy {
        Missing::Error => ds.validate(),
        Missing::ImputeMean => {
            let filled = crate::with_matrix!(&mut ds.x, x => impute_means(Arc::make_mut(x)))
                .map_err(|j| {
                    Error::Data(format!(
                        "{}: column {} ({}) has no numeric value to impute a mean from",
                        ds.source,
                        j + 1,
                        ds.feature_names[j]
                    ))
                })?;
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
            ds.x = ds.x.select_rows(&keep);
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

/// Replaces the non-finite cells of each column by the mean of its finite
/// ones; the count filled, or the first column with no finite value.
fn impute_means<T: Real>(x: &mut Array2<T>) -> std::result::Result<usize, usize> {
    let mut filled = 0usize;
    for (j, mut col) in x.axis_iter_mut(Axis(1)).enumerate() {
        let (sum, count) = col
            .iter()
            .map(|&v| v.into())
            .filter(|v: &f64| v.is_finite())
            .fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
        if count == 0 {
            return Err(j);
        }
        let mean = T::from_f64(sum / count as f64);
        for v in col.iter_mut().filter(|v| !(**v).into().is_finite()) {
            *v = mean;
            filled += 1;
        }
    }
    Ok(filled)
}

/// Sets every value to `f(column, value)`, computed in f64 and stored in
/// the matrix's own float type.
fn map_values<T: Real>(x: &mut Array2<T>, f: impl Fn(usize, f64) -> f64 + Sync) {
    x.axis_iter_mut(Axis(0))
        .into_par_iter()
        .for_each(|mut row| {
            for (j, v) in row.iter_mut().enumerate() {
                *v = T::from_f64(f(j, (*v).into()));
            }
        });
}

/// Scales the features in place. Constant columns are set to 0 rather than
/// divided by zero; their indices are returned and noted on the dataset.
/// Statistics are gathered row by row (the matrix is row-major), so a
/// 70 000 × 784 matrix is read a few times, not once per column.
///
/// Each column's statistics are taken on its values times 2^−e, e the
/// exponent of its largest |value|: an exact multiplication that keeps
/// sums and squares of values near 1e300 from overflowing and of values
/// near 1e-300 from underflowing. For columns already in an ordinary
/// range the result is bit for bit what the plain formulas give.
pub fn scale(ds: &mut Dataset, how: Scaling) -> Vec<usize> {
    scale_recorded(ds, how).0
}

/// The per-column map a scaling applied, recorded so that new rows can be
/// brought into the same space (a saved model's `scaling`): column j maps
/// x ↦ (x·2^−exps[j] − shift[j])·mult[j] (mult 0: a constant column, set
/// to 0), then every value is multiplied by 2^rescale_exp
/// ([`fit_range`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScaleParams {
    pub method: Scaling,
    pub exps: Vec<i32>,
    pub shift: Vec<f64>,
    pub mult: Vec<f64>,
    #[serde(default)]
    pub rescale_exp: i32,
}

impl ScaleParams {
    /// No scaling of `p` columns (the identity map).
    pub fn identity(p: usize) -> Self {
        ScaleParams {
            method: Scaling::None,
            exps: vec![0; p],
            shift: vec![0.0; p],
            mult: vec![1.0; p],
            rescale_exp: 0,
        }
    }

    /// Columns the map reads.
    pub fn n_features(&self) -> usize {
        self.exps.len()
    }

    /// The map applied to one value of column `j`: bit for bit what the
    /// training data went through.
    #[inline]
    pub fn apply_value(&self, j: usize, v: f64) -> f64 {
        let y = if self.method == Scaling::None {
            v
        } else if self.mult[j] == 0.0 {
            0.0
        } else {
            (ldexp(v, -self.exps[j]) - self.shift[j]) * self.mult[j]
        };
        if self.rescale_exp == 0 {
            y
        } else {
            ldexp(y, self.rescale_exp)
        }
    }

    /// The rows of `x` mapped (x must have [`ScaleParams::n_features`]
    /// columns).
    pub fn apply(&self, x: ndarray::ArrayView2<f64>) -> ndarray::Array2<f64> {
        let mut out = x.to_owned();
        out.axis_iter_mut(Axis(0))
            .into_par_iter()
            .for_each(|mut row| {
                for (j, v) in row.iter_mut().enumerate() {
                    *v = self.apply_value(j, *v);
                }
            });
        out
    }
}

/// As [`scale`], returning also the map it applied.
pub fn scale_recorded(ds: &mut Dataset, how: Scaling) -> (Vec<usize>, ScaleParams) {
    if how == Scaling::None {
        return (Vec::new(), ScaleParams::identity(ds.x.ncols()));
    }
    let (n, p) = ds.x.dim();
    let mut amax = vec![0.0f64; p];
    crate::with_matrix!(&ds.x, x => for row in x.rows() {
        for (m, &v) in amax.iter_mut().zip(row.iter()) {
            *m = m.max(f64::from(v).abs());
        }
    });
    // Per column: y = x·2^−e with max |y| in [1, 2).
    let exps: Vec<i32> = amax
        .iter()
        .map(|&m| if m > 0.0 { exponent(m) } else { 0 })
        .collect();
    let mut sum = vec![0.0; p];
    let mut lo = vec![f64::INFINITY; p];
    let mut hi = vec![f64::NEG_INFINITY; p];
    crate::with_matrix!(&ds.x, x => for row in x.rows() {
        for (j, &v) in row.iter().enumerate() {
            let y = ldexp(f64::from(v), -exps[j]);
            sum[j] += y;
            lo[j] = lo[j].min(y);
            hi[j] = hi[j].max(y);
        }
    });
    let mean: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let mut var = vec![0.0; p];
    crate::with_matrix!(&ds.x, x => for row in x.rows() {
        for (j, &v) in row.iter().enumerate() {
            var[j] += (ldexp(f64::from(v), -exps[j]) - mean[j]).powi(2);
        }
    });
    let mut constant = Vec::new();
    // Per column: x ↦ (x·2^−e − shift)·mult.
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
    let f = |j: usize, v: f64| {
        // A constant column has mult 0: it becomes exactly 0.
        if mult[j] == 0.0 {
            0.0
        } else {
            (ldexp(v, -exps[j]) - shift[j]) * mult[j]
        }
    };
    crate::with_matrix!(&mut ds.x, x => map_values(Arc::make_mut(x), f));
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
    let params = ScaleParams {
        method: how,
        exps,
        shift,
        mult,
        rescale_exp: 0,
    };
    (constant, params)
}

/// The largest |value| the solvers work on directly is below 2^RANGE_EXP
/// and at least 2^−RANGE_EXP. Inside that range, squared distances summed
/// over a million features, kernel values such as (xᵀy)⁴ and every
/// intermediate of the algorithms stay far from overflow and underflow, so
/// results do not depend on the data's units (beyond rounding).
pub const RANGE_EXP: i32 = 64;

/// Brings data whose largest |value| M lies outside [2^−64, 2^64) into that
/// range by multiplying every value by the power of two 2^e that puts M in
/// [1, 2): exact (no digit changes; only values more than ~2^−1000 below M
/// can lose digits, and they cannot affect any distance). Returns e, 0 when
/// nothing was done, and notes the factor on the dataset: centres,
/// objectives and parameters in data units (σ, for instance) then refer to
/// the rescaled values.
pub fn fit_range(ds: &mut Dataset) -> i32 {
    let m =
        crate::with_matrix!(&ds.x, x => x.iter().fold(0.0f64, |m, &v| m.max(f64::from(v).abs())));
    let e = range_exponent(m);
    if e == 0 {
        return 0;
    }
    crate::with_matrix!(&mut ds.x, x => map_values(Arc::make_mut(x), |_, v| ldexp(v, e)));
    ds.notes.push(format!(
        "values reach {m:.3e}, outside the range 2^±{RANGE_EXP} computed directly: every value was multiplied by 2^{e} (exact); centres, objectives and parameters in data units (σ, …) refer to the rescaled values"
    ));
    e
}

/// The largest |value| of `xs`, or None when a value is NaN or infinite:
/// tasks of a fixed size in parallel (a maximum does not depend on their
/// order), each a loop without early exit that the compiler vectorises.
pub fn max_abs_finite<T: Copy + Into<f64> + Sync>(xs: &[T]) -> Option<f64> {
    use rayon::slice::ParallelSlice;
    const TASK: usize = 1 << 15;
    xs.par_chunks(TASK)
        .map(|c| {
            let (mut m, mut finite) = (0.0f64, true);
            for &v in c {
                let a = v.into().abs();
                // False for NaN and ±∞.
                finite &= a <= f64::MAX;
                m = if a > m { a } else { m };
            }
            finite.then_some(m)
        })
        .try_reduce(|| 0.0, |a, b| Some(if b > a { b } else { a }))
}

/// The power of two [`fit_range`] multiplies by when the largest |value|
/// is `max_abs`: 0 inside [2^−64, 2^64) (and for 0 or non-finite values).
pub fn range_exponent(max_abs: f64) -> i32 {
    if max_abs == 0.0 || !max_abs.is_finite() {
        return 0;
    }
    let em = exponent(max_abs);
    if (-RANGE_EXP..RANGE_EXP).contains(&em) {
        0
    } else {
        -em
    }
}

/// Multiplies every value by 2^e, exactly (through [`ldexp`], so even
/// e beyond f64's exponent range gives the right values).
pub fn rescale(x: &mut ndarray::Array2<f64>, e: i32) {
    x.axis_iter_mut(Axis(0))
        .into_par_iter()
        .for_each(|mut row| row.mapv_inplace(|v| ldexp(v, e)));
}

/// ⌊log₂ |v|⌋ for a finite non-zero v, exactly (subnormals included).
pub fn exponent(v: f64) -> i32 {
    let bits = v.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // Subnormal: normalise first (exact).
        exponent(v * f64::from_bits(((64 + 1023) as u64) << 52)) - 64
    } else {
        biased - 1023
    }
}

/// v·2^e, exact whenever the result is a normal number. Done in steps so
/// that 2^e itself never overflows or underflows.
pub fn ldexp(v: f64, e: i32) -> f64 {
    let step = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    let mut v = v;
    let mut e = e;
    while e > 1000 {
        v *= step(1000);
        e -= 1000;
    }
    while e < -1000 {
        v *= step(-1000);
        e += 1000;
    }
    v * step(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Labels;
    use ndarray::array;

    #[test]
    fn max_abs_finite_finds_the_largest_and_refuses_nan_and_infinity() {
        // Longer than one task, the largest value negative and in the last task.
        let mut xs: Vec<f64> = (0..100_000).map(|i| (i % 977) as f64 - 400.0).collect();
        xs[99_999] = -1e300;
        assert_eq!(max_abs_finite(&xs), Some(1e300));
        assert_eq!(max_abs_finite::<f64>(&[]), Some(0.0));
        assert_eq!(max_abs_finite(&[-0.0f64, 0.0]), Some(0.0));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut ys = xs.clone();
            ys[3] = bad;
            assert_eq!(max_abs_finite(&ys), None, "{bad}");
        }
        assert_eq!(
            max_abs_finite(&[1.5f32, -f32::MAX]),
            Some(f64::from(f32::MAX))
        );
        assert_eq!(max_abs_finite(&[1.5f32, f32::NAN]), None);
    }

    fn ds(x: ndarray::Array2<f64>) -> Dataset {
        Dataset::new("t", "t.csv", x)
    }

    #[test]
    fn standard_scaling_uses_sample_sd_and_reports_constants() {
        let mut d = ds(array![[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]);
        let c = scale(&mut d, Scaling::Standard);
        assert_eq!(c, vec![1]);
        assert_eq!(d.x.f64().column(0).to_vec(), vec![-1.0, 0.0, 1.0]);
        assert_eq!(d.x.f64().column(1).to_vec(), vec![0.0, 0.0, 0.0]);
        assert!(d.notes[0].contains("f2"));
    }

    #[test]
    fn minmax_maps_to_unit_interval() {
        let mut d = ds(array![[2.0], [4.0], [3.0]]);
        scale(&mut d, Scaling::Minmax);
        assert_eq!(d.x.f64().column(0).to_vec(), vec![0.0, 1.0, 0.5]);
    }

    #[test]
    fn scaling_is_exact_for_any_magnitude() {
        let base = array![
            [5.1, 3.5, 1.0],
            [4.9, 3.0, 1.0],
            [6.2, 2.9, 1.0],
            [7.9, 3.8, 1.0]
        ];
        for how in [Scaling::Standard, Scaling::Minmax] {
            let mut want = ds(base.clone());
            scale(&mut want, how);
            for f in [1e300, 1e-300, 1e-310] {
                let mut d = ds(base.mapv(|v| v * f));
                let c = scale(&mut d, how);
                assert_eq!(c, vec![2], "{how} × {f:e}");
                for (a, b) in d.x.f64().iter().zip(want.x.f64().iter()) {
                    // Subnormal inputs carry fewer digits.
                    let tol = if f < 1e-300 { 1e-9 } else { 1e-12 };
                    assert!((a - b).abs() <= tol, "{how} × {f:e}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn fit_range_rescales_only_outside_the_range() {
        let mut d = ds(array![[1e-7, 2.0], [3e5, -4.0]]);
        assert_eq!(fit_range(&mut d), 0);
        assert!(d.notes.is_empty());
        for f in [1e155, 1e-170, 1e-310, f64::MAX / 8.0] {
            let x = array![[1.0, 2.0], [3.0, -4.0]].mapv(|v| v * f);
            let mut d = ds(x.clone());
            let e = fit_range(&mut d);
            assert_ne!(e, 0);
            let m = d.x.f64().iter().fold(0.0f64, |m, v| m.max(v.abs()));
            assert!((1.0..2.0).contains(&m), "{f:e}: {m}");
            // Exact: scaling back gives the input.
            for (a, b) in d.x.f64().iter().zip(x.iter()) {
                assert_eq!(ldexp(*a, -e), *b);
            }
            assert!(d.notes[0].contains(&format!("2^{e}")), "{:?}", d.notes);
        }
        let mut z = ds(array![[0.0], [0.0]]);
        assert_eq!(fit_range(&mut z), 0);
    }

    #[test]
    fn exponent_and_ldexp() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(1.999), 0);
        assert_eq!(exponent(-2.0), 1);
        assert_eq!(exponent(f64::MIN_POSITIVE), -1022);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
        assert_eq!(exponent(f64::MAX), 1023);
        assert_eq!(ldexp(f64::from_bits(1), 1074), 1.0);
        assert_eq!(ldexp(f64::MAX, -1023), f64::MAX / 2f64.powi(1023));
        assert_eq!(ldexp(3.0, 0), 3.0);
    }

    #[test]
    fn impute_and_drop() {
        let x = array![[1.0, f64::NAN], [3.0, 4.0], [f64::NAN, 8.0]];
        let mut d = ds(x.clone());
        resolve_missing(&mut d, Missing::ImputeMean).unwrap();
        assert_eq!(d.x.f64(), array![[1.0, 6.0], [3.0, 4.0], [2.0, 8.0]]);

        let mut d = ds(x);
        d.labels = Some(Labels::from_strings(&["a", "b", "c"]));
        resolve_missing(&mut d, Missing::DropIncomplete).unwrap();
        assert_eq!(d.x.f64(), array![[3.0, 4.0]]);
        assert_eq!(d.labels.unwrap().names, vec!["b"]);

        let mut d = ds(array![[f64::NAN]]);
        assert!(resolve_missing(&mut d, Missing::Error).is_err());
    }
}
