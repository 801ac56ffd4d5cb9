//! Nearest-centre distances for rows whose usual computation would
//! overflow or underflow. The usual ‖x‖² + ‖c‖² − 2x·c (what the fit
//! used, so training rows get the fit's labels bit for bit) turns into
//! +∞ or NaN once squares pass f64::MAX, and every row would then land in
//! cluster 0; its squares of values below 2^−450 vanish the same way.
//! Such rows are computed again here with every value carried as a
//! mantissa and a power of two, and the distances of the row taken in
//! units of one common power of two: the order of the clusters, all that
//! the argmin needs, survives any finite input.

use crate::data::preprocess::{exponent, ldexp};
use ndarray::{ArrayView1, ArrayView2};

/// Whether the usual computation is safe for a row whose largest |value|
/// (and the centres') is `m`, with multipliers up to `v` over `p`
/// features: no square overflows, none vanishes.
pub(super) fn usual_is_safe(m: f64, v: f64, p: usize) -> bool {
    if !m.is_finite() {
        return false;
    }
    if m == 0.0 || v == 0.0 {
        return true;
    }
    let spread = (usize::BITS - p.max(1).leading_zeros()) as i32 + 3;
    let e = 2 * exponent(m) + exponent(v);
    (-900..=1000 - spread).contains(&e)
}

/// A finite value as m·2^e, m in [1, 2) up to sign; 0 as (0, None).
fn split(v: f64) -> (f64, Option<i32>) {
    if v == 0.0 {
        return (0.0, None);
    }
    let e = exponent(v);
    (ldexp(v, -e), Some(e))
}

/// m·2^(e − top) for e ≤ top, 0 when it would vanish anyway (and without
/// the long loop of a huge shift).
fn down(m: f64, e: Option<i32>, top: i32) -> f64 {
    match e {
        Some(e) if top - e <= 1100 => ldexp(m, e - top),
        _ => 0.0,
    }
}

/// One value of a standardised row, (x − mean)/sd (0 where sd is 0), as a
/// mantissa and exponent, whatever the magnitudes.
pub(super) fn standardized(x: f64, mean: f64, sd: f64) -> (f64, Option<i32>) {
    if sd <= 0.0 {
        return (0.0, None);
    }
    let (mt, et) = {
        let t = x - mean;
        if t.is_finite() {
            split(t)
        } else {
            let a = exponent(x.abs().max(mean.abs())) + 1;
            let (m, e) = split(ldexp(x, -a) - ldexp(mean, -a));
            (m, e.map(|e| e + a))
        }
    };
    let Some(et) = et else { return (0.0, None) };
    let (ms, es) = split(sd);
    let (mq, eq) = split(mt / ms);
    (mq, eq.map(|e| e + et - es.expect("sd > 0")))
}

/// The row's distances to every centre in units of 2^scale (returned):
/// Σ_l v_l (z_l − c_jl)², z given as mantissas and exponents, v the
/// multipliers (1 when `None`).
pub(super) fn distances(
    z: &[(f64, Option<i32>)],
    centres: ArrayView2<f64>,
    v: Option<&[f64]>,
) -> (Vec<f64>, i32) {
    let cmax = centres.iter().fold(0.0f64, |a, &c| a.max(c.abs()));
    let top = z
        .iter()
        .filter_map(|&(_, e)| e)
        .chain((cmax > 0.0).then(|| exponent(cmax)))
        .max()
        .unwrap_or(0)
        + 1;
    let zs: Vec<f64> = z.iter().map(|&(m, e)| down(m, e, top)).collect();
    let (vs, ve): (Vec<f64>, i32) = match v {
        Some(v) => {
            let vmax = v.iter().fold(0.0f64, |a, &b| a.max(b));
            let ve = if vmax > 0.0 { exponent(vmax) } else { 0 };
            (v.iter().map(|&w| ldexp(w, -ve)).collect(), ve)
        }
        None => (vec![1.0; z.len()], 0),
    };
    let row = |c: ArrayView1<f64>| -> f64 {
        c.iter()
            .zip(&zs)
            .zip(&vs)
            .map(|((&c, &z), &w)| {
                let (mc, ec) = split(c);
                let u = z - down(mc, ec, top);
                w * u * u
            })
            .sum()
    };
    let d = centres.rows().into_iter().map(row).collect();
    (d, 2 * top + ve)
}

/// The mantissas and exponents of a plain row.
pub(super) fn plain(x: ArrayView1<f64>) -> Vec<(f64, Option<i32>)> {
    x.iter().map(|&v| split(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn huge_and_tiny_rows_keep_the_order_of_the_clusters() {
        let c = array![[-1e300, 1e300], [1e300, -1e300]];
        let (d, _) = distances(&plain(array![9e299, -9e299].view()), c.view(), None);
        assert!(d[1] < d[0], "{d:?}");
        let c = array![[1e-300], [3e-300]];
        let (d, _) = distances(&plain(array![2.5e-300].view()), c.view(), None);
        assert!(d[1] < d[0], "{d:?}");
        assert!(!usual_is_safe(1e300, 1.0, 4));
        assert!(!usual_is_safe(1e-300, 1.0, 4));
        assert!(usual_is_safe(5.0, 1.0, 4));
        // Weighted, with a standardising that overflows as plain f64.
        let z = [standardized(1e308, -1e308, 1e10)];
        assert_eq!(z[0].1, Some(exponent(2e298)));
        let (d, _) = distances(&z, array![[0.0], [1e298]].view(), Some(&[1e-300]));
        assert!(d[1] < d[0], "{d:?}");
    }
}
