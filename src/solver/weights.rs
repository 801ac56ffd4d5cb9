//! Power-mean MM weights, evaluated in the log domain
//! (docs/methods/power-kmeans.md#weights-in-the-log-domain).
//!
//! For a row of squared distances `d` and `s < 0`, the MM weights are
//! `w_l = k^{-1/s} r_l^{s-1} S^{1/s-1}` with `r_l = d_l / min(d)` and
//! `S = Σ_t r_t^s ∈ [1, k]`: every factor is bounded, so nothing overflows
//! whatever `s` is, and underflow of a term yields its true limit, 0.

use super::fastmath;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut1, Axis, Zip};

/// Result of one weight step over all rows.
pub struct PowerStep {
    /// log of the MM weights (−∞ for an exact zero weight).
    pub log_w: Array2<f64>,
    /// Σ_i M_s(d_i·), the power-mean objective at the current centres.
    pub objective: f64,
    /// argmin_j d_ij, ties to the lowest index.
    pub labels: Vec<usize>,
    /// M_s(d_i·) of each row (their sum is `objective`).
    pub row_objectives: Vec<f64>,
}

/// Weights, objective and labels for distances `d` (n×k) at exponent `s`
/// (`s < 0`, or `-inf` for hard k-means assignments). Distances at or
/// below `zero_tol` count as exact zeros: such a point is on a centre and
/// all its weight goes there (the one-hot limit of the formula).
pub fn power_step(d: ArrayView2<f64>, s: f64, zero_tol: f64) -> PowerStep {
    assert!(s < 0.0, "power weights need s < 0 (got {s})");
    let (n, k) = d.dim();
    let mut log_w = Array2::zeros((n, k));
    let mut row_obj = Array1::<f64>::zeros(n);
    let mut labels = Array1::<usize>::zeros(n);
    let log_k = (k as f64).ln();
    let body = |mut lw: ArrayViewMut1<f64>, dr: ArrayView1<f64>, obj: &mut f64, lab: &mut usize| {
        let (amin, m) = argmin(dr.iter().copied());
        *lab = amin;
        let zeros = dr.iter().filter(|&&v| v <= zero_tol).count();
        if zeros > 0 || s == f64::NEG_INFINITY {
            let (set_tol, count, hard_obj) = one_hot(dr, m, zero_tol);
            let lw_on = if s == f64::NEG_INFINITY {
                -(count as f64).ln()
            } else {
                -log_k / s + (1.0 / s - 1.0) * (count as f64).ln()
            };
            for (w, &v) in lw.iter_mut().zip(dr.iter()) {
                *w = if v <= set_tol {
                    lw_on
                } else {
                    f64::NEG_INFINITY
                };
            }
            *obj = hard_obj;
            return;
        }
        let log_m = m.ln();
        let mut sum = 0.0;
        for (w, &v) in lw.iter_mut().zip(dr.iter()) {
            let lr = v.ln() - log_m;
            *w = lr;
            sum += (s * lr).exp();
        }
        let log_s = sum.ln();
        let c = -log_k / s + (1.0 / s - 1.0) * log_s;
        lw.mapv_inplace(|lr| c + (s - 1.0) * lr);
        // M_s = m (S/k)^{1/s}
        *obj = m * ((log_s - log_k) / s).exp();
    };
    let zip = Zip::from(log_w.rows_mut())
        .and(d.rows())
        .and(&mut row_obj)
        .and(&mut labels);
    if n * k > 1 << 14 {
        zip.par_for_each(body);
    } else {
        zip.for_each(body);
    }
    let labels = labels.to_vec();
    PowerStep {
        log_w,
        objective: row_obj.iter().sum(),
        labels,
        row_objectives: row_obj.to_vec(),
    }
}

/// [`power_step`] on rows weighted by sample weights `w`: a row's MM
/// weights are multiplied by wᵢ (ln wᵢ added to its log weights: a row of
/// weight 0 drops out of every column) and the objective is Σᵢ wᵢ M_s(dᵢ·).
/// None is [`power_step`].
pub fn weighted_power_step(
    d: ArrayView2<f64>,
    s: f64,
    zero_tol: f64,
    w: Option<&[f64]>,
) -> PowerStep {
    let mut step = power_step(d, s, zero_tol);
    let Some(w) = w else {
        return step;
    };
    step.objective = step.row_objectives.iter().zip(w).map(|(o, w)| o * w).sum();
    for (mut row, &wi) in step.log_w.axis_iter_mut(Axis(0)).zip(w) {
        let lw = wi.ln();
        row.mapv_inplace(|v| v + lw);
    }
    step
}

/// The weights of one block of rows, in the form the one-pass iteration wants:
/// besides `log w`, the factors `w_ij = exp(c_i)·u_ij` with
/// `u_ij = r_ij^{s−1}`, which give the weights with one exponential per
/// entry instead of two.
pub struct BlockWeights {
    pub log_w: Array2<f64>,
    /// `r^{s−1}`, or NaN on rows that need the log-domain path (a point on
    /// a centre, or s = −∞).
    pub u: Array2<f64>,
    /// The row constant `c_i = −ln k/s + (1/s − 1)·ln S_i` (NaN as above).
    pub c: Vec<f64>,
    pub labels: Vec<usize>,
    pub objective: f64,
    /// Σ_i M_{s_ref}(d_i·), when asked for.
    pub objective_ref: f64,
    /// Σ_i (1 − max_j w_ij / Σ_j w_ij): how far the rows are from hard
    /// memberships (see `kpower::softness`).
    pub softness: f64,
}

/// Reusable buffers of [`block_weights_in`]: the logarithms and powers of
/// the ratios and the row minima of a block (a task keeps one for all its
/// blocks, so they are allocated and zeroed once).
#[derive(Default)]
pub struct Scratch {
    lr: Vec<f64>,
    t: Vec<f64>,
    t_ref: Vec<f64>,
    mins: Vec<f64>,
}

impl Scratch {
    /// The first `len` entries of `v`, grown (zeroed) only when too short.
    fn take(v: &mut Vec<f64>, len: usize) -> &mut [f64] {
        if v.len() < len {
            v.resize(len, 0.0);
        }
        &mut v[..len]
    }
}

/// Σ xs, to the bit `ArrayView1::sum` (see [`crate::linalg::sum8_of`]).
#[inline(always)]
fn sum8(xs: &[f64]) -> f64 {
    crate::linalg::sum8_of(xs, |v| v)
}

/// Weights, labels and objective(s) of a block of rows, one logarithm and
/// one exponential per entry (the logarithms of the ratios are shared by
/// the objective at `s_ref`).
pub fn block_weights(
    d: ArrayView2<f64>,
    s: f64,
    s_ref: Option<f64>,
    zero_tol: f64,
    w: Option<&[f64]>,
) -> BlockWeights {
    block_weights_in(d, s, s_ref, zero_tol, w, &mut Scratch::default())
}

/// [`block_weights`] with its temporaries in `scratch` (the same numbers,
/// bit for bit). Inlined into its caller, so that a caller built for AVX2
/// (`block::PowerStats::add`) runs these loops in AVX2 too.
#[inline(always)]
pub fn block_weights_in(
    d: ArrayView2<f64>,
    s: f64,
    s_ref: Option<f64>,
    zero_tol: f64,
    w: Option<&[f64]>,
    scratch: &mut Scratch,
) -> BlockWeights {
    assert!(s < 0.0, "power weights need s < 0 (got {s})");
    let (n, k) = d.dim();
    let nk = n * k;
    // Rows as slices of k (chunks of at least 1: k = 0 has no entries).
    let kc = k.max(1);
    let log_k = (k as f64).ln();
    let dd = d.as_standard_layout();
    let ds = dd.as_slice().expect("standard layout");
    // Row minima first; a row with a point on a centre (or s = −∞) takes
    // the general routine.
    let mut labels = vec![0; n];
    let mins = Scratch::take(&mut scratch.mins, n);
    // `argmin` of each row, eight rows side by side (the same picks).
    let mut nearest = Vec::with_capacity(n);
    super::nearest::argmin2_rows(ds, k, &mut nearest);
    for ((lab, m), &(j, v, _)) in labels.iter_mut().zip(mins.iter_mut()).zip(&nearest) {
        (*lab, *m) = (j, v);
    }
    if s == f64::NEG_INFINITY {
        return hard_rows(dd.view(), labels, mins, s_ref, zero_tol, w);
    }
    // ln r = ln d − ln m over the whole block, then r^s = exp(s·ln r):
    // two branch-free passes the compiler vectorises (`fastmath`). ln m is
    // the row's own entry at its argmin.
    let lr = Scratch::take(&mut scratch.lr, nk);
    fastmath::ln_slice(ds, lr);
    for (row, &lab) in lr.chunks_exact_mut(kc).zip(&labels) {
        let lm = row[lab];
        row.iter_mut().for_each(|v| *v -= lm);
    }
    let t = Scratch::take(&mut scratch.t, nk);
    fastmath::exp_scaled_slice(s, lr, t);
    // r^{s_ref} too, when asked: the same exponential, a slice at a time.
    let t_ref: &[f64] = match s_ref {
        Some(sr) => {
            let tr = Scratch::take(&mut scratch.t_ref, nk);
            fastmath::exp_scaled_slice(sr, lr, tr);
            tr
        }
        None => &[],
    };
    // Every entry of log_w and u is written once, row after row.
    let mut log_w = Vec::with_capacity(nk);
    let mut u = Vec::with_capacity(nk);
    let mut c = Vec::with_capacity(n);
    let (mut objective, mut objective_ref, mut softness) = (0.0, 0.0, 0.0);
    let c0 = -log_k / s;
    let c1 = 1.0 / s - 1.0;
    let sm1 = s - 1.0;
    let rows = ds
        .chunks_exact(kc)
        .zip(lr.chunks_exact(kc))
        .zip(t.chunks_exact(kc))
        .zip(mins.iter());
    for (i, (((dr, lri), tr), &m)) in rows.enumerate() {
        let (wi, lwi) = row_weight(w, i);
        if m <= zero_tol {
            // Rare: reuse the general routine for this row.
            let one = power_step(d.slice(ndarray::s![i..i + 1, ..]), s, zero_tol);
            log_w.extend(one.log_w.iter().map(|&b| b + lwi));
            softness += wi * super::stopping::softness(&one.log_w);
            u.extend(std::iter::repeat_n(f64::NAN, k));
            c.push(f64::NAN);
            objective += wi * one.objective;
            if let Some(sr) = s_ref {
                objective_ref +=
                    wi * power_objective(d.slice(ndarray::s![i..i + 1, ..]), sr, zero_tol);
            }
            continue;
        }
        let sum = sum8(tr);
        // r^{s−1} = r^s / r, and 1/r = m/d.
        let ui = u.len();
        u.extend(tr.iter().zip(dr).map(|(&tj, &dj)| tj * m / dj));
        // The largest u is 1 (at the nearest centre), so the row's share
        // outside its cluster is 1 − 1/Σ_j u_ij.
        // A sample weight wᵢ multiplies the row's weights: ln wᵢ joins its
        // constant (−∞ for a weight of 0: the row drops out of the sums).
        softness += wi * (1.0 - 1.0 / sum8(&u[ui..]));
        let log_s = sum.ln();
        let ci = c0 + c1 * log_s + lwi;
        c.push(ci);
        log_w.extend(lri.iter().map(|&l| ci + sm1 * l));
        objective += wi * (m * ((log_s - log_k) / s).exp());
        if let Some(sr) = s_ref {
            let sum_ref: f64 = t_ref[i * k..(i + 1) * k].iter().sum();
            objective_ref += wi * (m * ((sum_ref.ln() - log_k) / sr).exp());
        }
    }
    BlockWeights {
        log_w: Array2::from_shape_vec((n, k), log_w).expect("n × k entries"),
        u: Array2::from_shape_vec((n, k), u).expect("n × k entries"),
        c,
        labels,
        objective,
        objective_ref,
        softness,
    }
}

/// The one-hot limit of a row whose smallest distance is `m`: equal
/// shares on its zero set (distances at most `zero_tol`: a point on a
/// centre), else on its argmin set (s = −∞). Gives the set's bound, its
/// size and the row's objective (0 on a centre, else `m`).
fn one_hot(dr: ArrayView1<f64>, m: f64, zero_tol: f64) -> (f64, usize, f64) {
    let zeros = dr.iter().filter(|&&v| v <= zero_tol).count();
    if zeros > 0 {
        (zero_tol, zeros, 0.0)
    } else {
        (m, dr.iter().filter(|&&v| v <= m).count(), m)
    }
}

/// [`block_weights`] at s = −∞ (the k-means start of the RFF algorithms):
/// every row is one-hot on its argmin set (its zero set when a distance is
/// at most `zero_tol`), the numbers [`power_step`]'s one-hot limit gives a
/// row, bit for bit, without building a one-row step per row.
fn hard_rows(
    d: ArrayView2<f64>,
    labels: Vec<usize>,
    mins: &[f64],
    s_ref: Option<f64>,
    zero_tol: f64,
    w: Option<&[f64]>,
) -> BlockWeights {
    let (n, k) = d.dim();
    let mut log_w = Vec::with_capacity(n * k);
    let (mut objective, mut objective_ref, mut softness) = (0.0, 0.0, 0.0);
    for (i, dr) in d.rows().into_iter().enumerate() {
        let (set_tol, count, row_obj) = one_hot(dr, mins[i], zero_tol);
        let lw_on = -(count as f64).ln();
        let (wi, lwi) = row_weight(w, i);
        log_w.extend(dr.iter().map(|&v| {
            (if v <= set_tol {
                lw_on
            } else {
                f64::NEG_INFINITY
            }) + lwi
        }));
        // A one-hot row's share outside its nearest set, as
        // `stopping::softness` reads it from the log weights.
        softness += wi * (1.0 - 1.0 / count as f64);
        objective += wi * row_obj;
        if let Some(sr) = s_ref {
            objective_ref += wi * power_objective(d.slice(ndarray::s![i..i + 1, ..]), sr, zero_tol);
        }
    }
    BlockWeights {
        log_w: Array2::from_shape_vec((n, k), log_w).expect("n × k entries"),
        u: Array2::from_elem((n, k), f64::NAN),
        c: vec![f64::NAN; n],
        labels,
        objective,
        objective_ref,
        softness,
    }
}

/// Row `i`'s sample weight and its logarithm ((1, 0) without weights: the
/// same bits as no weight at all).
fn row_weight(w: Option<&[f64]>, i: usize) -> (f64, f64) {
    match w {
        None => (1.0, 0.0),
        Some(w) => (w[i], w[i].ln()),
    }
}

/// Σ_i M_s(d_i·) alone, without the weights.
pub fn power_objective(d: ArrayView2<f64>, s: f64, zero_tol: f64) -> f64 {
    weighted_power_objective(d, s, zero_tol, None)
}

/// Σ_i wᵢ M_s(d_i·), the objective of [`weighted_power_step`] alone (None:
/// [`power_objective`]).
pub fn weighted_power_objective(
    d: ArrayView2<f64>,
    s: f64,
    zero_tol: f64,
    w: Option<&[f64]>,
) -> f64 {
    let log_k = (d.ncols() as f64).ln();
    let mut rows = Array1::<f64>::zeros(d.nrows());
    let body = |dr: ArrayView1<f64>, out: &mut f64| {
        let (_, m) = argmin(dr.iter().copied());
        *out = if m <= zero_tol {
            0.0
        } else if s == f64::NEG_INFINITY {
            m
        } else {
            let log_m = m.ln();
            let sum: f64 = dr.iter().map(|&v| (s * (v.ln() - log_m)).exp()).sum();
            m * ((sum.ln() - log_k) / s).exp()
        };
    };
    let zip = Zip::from(d.rows()).and(&mut rows);
    if d.len() > 1 << 14 {
        zip.par_for_each(body);
    } else {
        zip.for_each(body);
    }
    match w {
        None => rows.iter().sum(),
        Some(w) => rows.iter().zip(w).map(|(o, w)| o * w).sum(),
    }
}

/// Index and value of the smallest element, ties to the lowest index.
pub fn argmin(it: impl Iterator<Item = f64>) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (j, v) in it.enumerate() {
        if v < best.1 {
            best = (j, v);
        }
    }
    best
}

/// Moves Ω to the column-normalised MM weights of the last evaluation
/// (`log_w`, taken); a column with no finite weight keeps its centroid.
pub fn advance_omega(omega: &mut Array2<f64>, log_w: Option<Array2<f64>>) {
    let Some(log_w) = log_w else {
        return;
    };
    let (next, alive) = normalize_columns(&log_w);
    for (j, col) in next.axis_iter(Axis(1)).enumerate() {
        if alive[j] {
            omega.column_mut(j).assign(&col);
        }
    }
}

/// Column-normalised weights `Ω_ij = w_ij / Σ_i w_ij`, computed from log
/// weights so that a column whose raw weights all underflow still gives a
/// usable distribution. Returns `None` for a column with no finite weight
/// at all (every point is pinned to another centre); the caller keeps that
/// centre where it was.
pub fn normalize_columns(log_w: &Array2<f64>) -> (Array2<f64>, Vec<bool>) {
    let (n, k) = log_w.dim();
    let mut max = vec![f64::NEG_INFINITY; k];
    for row in log_w.axis_iter(Axis(0)) {
        for (m, &v) in max.iter_mut().zip(row.iter()) {
            *m = m.max(v);
        }
    }
    let mut omega = Array2::zeros((n, k));
    let mut sums = vec![0.0; k];
    for (mut orow, row) in omega.axis_iter_mut(Axis(0)).zip(log_w.axis_iter(Axis(0))) {
        for j in 0..k {
            if max[j] > f64::NEG_INFINITY {
                let e = (row[j] - max[j]).exp();
                orow[j] = e;
                sums[j] += e;
            }
        }
    }
    let alive: Vec<bool> = max.iter().map(|&m| m > f64::NEG_INFINITY).collect();
    for mut orow in omega.axis_iter_mut(Axis(0)) {
        for j in 0..k {
            if alive[j] {
                orow[j] /= sums[j];
            }
        }
    }
    (omega, alive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn naive(d: &[f64], s: f64) -> (Vec<f64>, f64) {
        let k = d.len() as f64;
        let inner: f64 = d.iter().map(|v| v.powf(s)).sum::<f64>() / k;
        let w = d
            .iter()
            .map(|v| v.powf(s - 1.0) / k / inner.powf(1.0 - 1.0 / s))
            .collect();
        (w, inner.powf(1.0 / s))
    }

    #[test]
    fn matches_naive_formula() {
        let d = array![[1.0, 2.0, 4.0], [0.5, 0.25, 3.0]];
        for s in [-1.0, -2.5, -10.0] {
            let st = power_step(d.view(), s, 0.0);
            let mut f = 0.0;
            for i in 0..2 {
                let (w, m) = naive(&d.row(i).to_vec(), s);
                f += m;
                for j in 0..3 {
                    let got = st.log_w[[i, j]].exp();
                    assert!((got - w[j]).abs() < 1e-12 * w[j].max(1.0), "s={s}");
                }
            }
            assert!((st.objective - f).abs() < 1e-12 * f);
            assert_eq!(power_objective(d.view(), s, 0.0), st.objective);
            assert_eq!(st.labels, vec![0, 1]);
        }
    }

    #[test]
    fn hard_block_weights_are_the_one_hot_limit_bit_for_bit() {
        // Ties, a point on a centre, a zero sample weight.
        let d = array![
            [1.0, 2.0, 4.0],
            [0.5, 0.25, 0.25],
            [0.0, 1.0, 0.0],
            [9.0, 1e-3, 1e3],
            [3.0, 3.0, 3.0]
        ];
        let w = [1.0, 2.5, 0.5, 0.0, 1.5];
        for weights in [None, Some(&w[..])] {
            let got = block_weights(d.view(), f64::NEG_INFINITY, Some(-2.0), 1e-12, weights);
            // What each row was before the fast path: the general routine on it.
            let (mut objective, mut objective_ref, mut softness) = (0.0, 0.0, 0.0);
            for i in 0..d.nrows() {
                let one = power_step(d.slice(ndarray::s![i..i + 1, ..]), f64::NEG_INFINITY, 1e-12);
                let (wi, lwi) = row_weight(weights, i);
                for j in 0..3 {
                    assert_eq!(
                        got.log_w[[i, j]].to_bits(),
                        (one.log_w[[0, j]] + lwi).to_bits()
                    );
                    assert!(got.u[[i, j]].is_nan());
                }
                assert_eq!(got.labels[i], one.labels[0]);
                assert!(got.c[i].is_nan());
                objective += wi * one.objective;
                softness += wi * crate::solver::stopping::softness(&one.log_w);
                objective_ref +=
                    wi * power_objective(d.slice(ndarray::s![i..i + 1, ..]), -2.0, 1e-12);
            }
            assert_eq!(got.objective.to_bits(), objective.to_bits());
            assert_eq!(got.softness.to_bits(), softness.to_bits());
            assert_eq!(got.objective_ref.to_bits(), objective_ref.to_bits());
        }
    }

    #[test]
    fn block_weights_agree_with_power_step() {
        let d = array![
            [1.0, 2.0, 4.0],
            [0.5, 0.25, 3.0],
            [0.0, 1.0, 2.0],
            [9.0, 1e-3, 1e3]
        ];
        for s in [-1.0, -3.0, -40.0] {
            let a = power_step(d.view(), s, 1e-12);
            let b = block_weights(d.view(), s, Some(-2.0), 1e-12, None);
            assert_eq!(a.labels, b.labels);
            assert!((a.objective - b.objective).abs() < 1e-12 * a.objective);
            assert!((b.objective_ref - power_objective(d.view(), -2.0, 1e-12)).abs() < 1e-12);
            for i in 0..4 {
                for j in 0..3 {
                    let (x, y) = (a.log_w[[i, j]], b.log_w[[i, j]]);
                    assert!(
                        x == y || (x - y).abs() < 1e-12 * x.abs().max(1.0),
                        "{x} {y}"
                    );
                    if !b.c[i].is_nan() {
                        let w = b.c[i].exp() * b.u[[i, j]];
                        assert!((w - x.exp()).abs() < 1e-12 * x.exp().max(1e-300));
                    }
                }
            }
            // The row on a centre takes the log-domain path.
            assert!(b.c[2].is_nan());
        }
    }

    #[test]
    fn weights_are_the_gradient_of_the_power_mean() {
        let d = [1.3, 0.7, 2.2];
        let s = -3.0;
        let m = |y: &[f64]| (y.iter().map(|v| v.powf(s)).sum::<f64>() / 3.0).powf(1.0 / s);
        let st = power_step(array![[1.3, 0.7, 2.2]].view(), s, 0.0);
        for j in 0..3 {
            let mut up = d;
            up[j] += 1e-6;
            let mut dn = d;
            dn[j] -= 1e-6;
            let g = (m(&up) - m(&dn)) / 2e-6;
            assert!((st.log_w[[0, j]].exp() - g).abs() < 1e-8);
        }
    }

    #[test]
    fn zero_distance_gives_one_hot_limit() {
        let d = array![[0.0, 4.0, 9.0], [0.0, 0.0, 1.0]];
        let st = power_step(d.view(), -1.0, 1e-12);
        // k^{-1/s} with s = -1, k = 3.
        assert!((st.log_w[[0, 0]].exp() - 3.0).abs() < 1e-12);
        assert_eq!(st.log_w[[0, 1]], f64::NEG_INFINITY);
        // Two zeros share: k^{-1/s} |Z|^{1/s-1} = 3 · 2^{-2}.
        assert!((st.log_w[[1, 0]].exp() - 0.75).abs() < 1e-12);
        assert_eq!(st.objective, 0.0);
    }

    #[test]
    fn extreme_s_stays_finite_and_tends_to_min() {
        let d = array![[2.0, 3.0, 1e6], [1e-300, 1e300, 5.0]];
        for s in [-1000.0, -1e6, f64::NEG_INFINITY] {
            let st = power_step(d.view(), s, 0.0);
            assert!(st.objective.is_finite());
            assert!(st.log_w.iter().all(|v| !v.is_nan()));
            let (om, alive) = normalize_columns(&st.log_w);
            assert!(om.iter().all(|v| v.is_finite()));
            // Finite s keeps every centre alive; hard assignments (s = -inf)
            // leave the two centres nobody is closest to without weight.
            let expect = if s.is_finite() {
                vec![true; 3]
            } else {
                vec![true, false, false]
            };
            assert_eq!(alive, expect);
            assert!(
                (st.objective - (2.0 + 1e-300)).abs() < 1e-2,
                "{}",
                st.objective
            );
        }
    }

    #[test]
    fn all_underflowed_column_still_normalises() {
        // At s = -2000 the middle centre's raw weights underflow to 0;
        // in the log domain its column concentrates on the closest ratio.
        let d = array![[1.0, 3.0, 9.0], [9.0, 2.0, 1.0], [1.0, 1.5, 8.0]];
        let st = power_step(d.view(), -2000.0, 0.0);
        assert!(st.log_w.column(1).iter().all(|v| v.exp() == 0.0));
        let (om, alive) = normalize_columns(&st.log_w);
        assert!(alive[1]);
        assert!((om.column(1).sum() - 1.0).abs() < 1e-12);
        assert!(om[[2, 1]] > 0.99);
    }

    // The block weights as they were computed with ndarray rows, kept
    // verbatim: the slice code must give the same bits.
    fn reference(
        d: ArrayView2<f64>,
        s: f64,
        s_ref: Option<f64>,
        zero_tol: f64,
        w: Option<&[f64]>,
    ) -> BlockWeights {
        assert!(s < 0.0, "power weights need s < 0 (got {s})");
        let (n, k) = d.dim();
        let log_k = (k as f64).ln();
        let mut out = BlockWeights {
            log_w: Array2::zeros((n, k)),
            u: Array2::zeros((n, k)),
            c: vec![f64::NAN; n],
            labels: vec![0; n],
            objective: 0.0,
            objective_ref: 0.0,
            softness: 0.0,
        };
        // Row minima first; a row with a point on a centre (or s = −∞) takes
        // the general routine.
        let mut mins = vec![0.0; n];
        let mut rare = vec![false; n];
        for i in 0..n {
            let (amin, m) = argmin(d.row(i).iter().copied());
            out.labels[i] = amin;
            mins[i] = m;
            rare[i] = m <= zero_tol || s == f64::NEG_INFINITY;
        }
        let dd = d.as_standard_layout();
        if s == f64::NEG_INFINITY {
            reference_hard(&mut out, dd.view(), &mins, s_ref, zero_tol, w);
            return out;
        }
        // ln r = ln d − ln m over the whole block, then r^s = exp(s·ln r):
        // two branch-free passes the compiler vectorises (`fastmath`). ln m is
        // the row's own entry at its argmin.
        let mut lr = Array2::<f64>::zeros((n, k));
        fastmath::ln_slice(
            dd.as_slice().expect("standard layout"),
            lr.as_slice_mut().expect("fresh array"),
        );
        for (i, mut row) in lr.axis_iter_mut(Axis(0)).enumerate() {
            let lm = row[out.labels[i]];
            row.iter_mut().for_each(|v| *v -= lm);
        }
        let mut t = Array2::<f64>::zeros((n, k));
        fastmath::exp_scaled_slice(
            s,
            lr.as_slice().expect("fresh array"),
            t.as_slice_mut().expect("fresh array"),
        );
        for i in 0..n {
            let dr = dd.row(i);
            if rare[i] {
                // Rare: reuse the general routine for this row.
                let one = power_step(d.slice(ndarray::s![i..i + 1, ..]), s, zero_tol);
                let (wi, lwi) = row_weight(w, i);
                out.log_w
                    .row_mut(i)
                    .zip_mut_with(&one.log_w.row(0), |a, &b| *a = b + lwi);
                out.softness += wi * crate::solver::stopping::softness(&one.log_w);
                out.u.row_mut(i).fill(f64::NAN);
                out.objective += wi * one.objective;
                if let Some(sr) = s_ref {
                    out.objective_ref +=
                        wi * power_objective(d.slice(ndarray::s![i..i + 1, ..]), sr, zero_tol);
                }
                continue;
            }
            let m = mins[i];
            let (tr, lri) = (t.row(i), lr.row(i));
            let sum: f64 = tr.sum();
            let mut u = out.u.row_mut(i);
            // r^{s−1} = r^s / r, and 1/r = m/d.
            for ((uj, &tj), &dj) in u.iter_mut().zip(tr).zip(dr) {
                *uj = tj * m / dj;
            }
            // The largest u is 1 (at the nearest centre), so the row's share
            // outside its cluster is 1 − 1/Σ_j u_ij.
            // A sample weight wᵢ multiplies the row's weights: ln wᵢ joins its
            // constant (−∞ for a weight of 0: the row drops out of the sums).
            let (wi, lwi) = row_weight(w, i);
            out.softness += wi * (1.0 - 1.0 / u.sum());
            let log_s = sum.ln();
            let c = -log_k / s + (1.0 / s - 1.0) * log_s + lwi;
            out.c[i] = c;
            for (w, &l) in out.log_w.row_mut(i).iter_mut().zip(lri) {
                *w = c + (s - 1.0) * l;
            }
            out.objective += wi * (m * ((log_s - log_k) / s).exp());
            if let Some(sr) = s_ref {
                let sum_ref: f64 = lri.iter().map(|&l| fastmath::exp_neg(sr * l)).sum();
                out.objective_ref += wi * (m * ((sum_ref.ln() - log_k) / sr).exp());
            }
        }
        out
    }

    fn reference_hard(
        out: &mut BlockWeights,
        d: ArrayView2<f64>,
        mins: &[f64],
        s_ref: Option<f64>,
        zero_tol: f64,
        w: Option<&[f64]>,
    ) {
        for (i, dr) in d.rows().into_iter().enumerate() {
            let (set_tol, count, row_obj) = one_hot(dr, mins[i], zero_tol);
            let lw_on = -(count as f64).ln();
            let (wi, lwi) = row_weight(w, i);
            for (a, &v) in out.log_w.row_mut(i).iter_mut().zip(dr) {
                *a = (if v <= set_tol {
                    lw_on
                } else {
                    f64::NEG_INFINITY
                }) + lwi;
            }
            // A one-hot row's share outside its nearest set, as
            // `stopping::softness` reads it from the log weights.
            out.softness += wi * (1.0 - 1.0 / count as f64);
            out.u.row_mut(i).fill(f64::NAN);
            out.objective += wi * row_obj;
            if let Some(sr) = s_ref {
                out.objective_ref +=
                    wi * power_objective(d.slice(ndarray::s![i..i + 1, ..]), sr, zero_tol);
            }
        }
    }

    #[test]
    fn sum8_is_ndarrays_sum_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for len in 0..40 {
            let x: Vec<f64> = (0..len)
                .map(|_| rng.random::<f64>() * 10f64.powi(rng.random_range(-8..8)))
                .collect();
            let want = ndarray::aview1(&x).sum();
            assert_eq!(sum8(&x).to_bits(), want.to_bits(), "len {len}");
        }
        assert_eq!(
            sum8(&[-0.0]).to_bits(),
            ndarray::aview1(&[-0.0f64]).sum().to_bits()
        );
    }

    #[test]
    fn block_weights_are_the_row_code_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let zero_tol = 1e-12;
        let bits = |a: &Array2<f64>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let cb = |c: &[f64]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let mut scratch = Scratch::default();
        for k in [1, 3, 8, 10, 17] {
            for n in [0, 1, 37] {
                let mut d = Array2::from_shape_fn((n, k), |_| {
                    rng.random::<f64>() * 10f64.powi(rng.random_range(-3..4))
                });
                if n > 2 {
                    // A point on a centre, a tie, a row near a centre.
                    d[[1, k - 1]] = 0.0;
                    d[[2, 0]] = 1.0;
                    d[[2, k - 1]] = 1.0;
                    d[[n - 1, 0]] = 1e-13;
                }
                let mut w: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 3.0).collect();
                if n > 4 {
                    w[1] = 0.0;
                    w[4] = 0.0;
                }
                for s in [-1.0, -3.0, -40.0, -1e4, f64::NEG_INFINITY] {
                    for s_ref in [None, Some(-2.0)] {
                        for weights in [None, Some(&w[..])] {
                            let want = reference(d.view(), s, s_ref, zero_tol, weights);
                            let got = block_weights(d.view(), s, s_ref, zero_tol, weights);
                            let again = block_weights_in(
                                d.view(),
                                s,
                                s_ref,
                                zero_tol,
                                weights,
                                &mut scratch,
                            );
                            for g in [got, again] {
                                let at =
                                    format!("k {k} n {n} s {s} {s_ref:?} {}", weights.is_some());
                                assert_eq!(bits(&g.log_w), bits(&want.log_w), "{at}");
                                assert_eq!(bits(&g.u), bits(&want.u), "{at}");
                                assert_eq!(cb(&g.c), cb(&want.c), "{at}");
                                assert_eq!(g.labels, want.labels, "{at}");
                                assert_eq!(g.objective.to_bits(), want.objective.to_bits(), "{at}");
                                assert_eq!(
                                    g.objective_ref.to_bits(),
                                    want.objective_ref.to_bits(),
                                    "{at}"
                                );
                                assert_eq!(g.softness.to_bits(), want.softness.to_bits(), "{at}");
                            }
                        }
                    }
                }
            }
        }
    }
}
