//! Pieces shared by the feature-weighted family — WK-means (`wkmeans`),
//! LW-k-means (`lw`), sparse k-means (`sparse-kmeans`) — and by the
//! regularisation path (`path.rs`). Method: docs/methods/lw-kmeans.md.
//!
//! * per-feature within-cluster dispersions `D_l = Σ_i (x_il − z_{c(i),l})²`
//!   and total sums of squares, summed over fixed row blocks so the result
//!   never depends on the thread count;
//! * weighted squared distances `Σ_l v_l (x_il − z_jl)²` for all rows and
//!   centres as one matrix product (`X·(Z∘v)ᵀ`), restricted to the features
//!   with `v_l > 0` when few are left;
//! * the weight rules (Huang's WK-means weights, the LW lasso weights) in the
//!   log domain, with the `D_l = 0` guard;
//! * a silent Lloyd (no progress events) for initial partitions and for
//!   sparse k-means' cluster update;
//! * the block-coordinate loop WK-means and LW-k-means share.

use super::points::Points;
use crate::error::{Error, Result};
use crate::linalg;
use crate::solver::csr::Csr;
use crate::solver::iterate::{Eval, Iteration, Loop, Rule as LoopRule, Step, iterate};
use crate::solver::lloyd::{assign, cluster_sums};
use crate::solver::params::{Default, ParamSpec, Scale};
use crate::solver::reduce::fold_blocks;
use crate::solver::rows::Rows;
use crate::solver::{AssignRule, Ctx, Fit, Init, Problem, Rng, TracePoint};
use ndarray::{Array1, Array2, ArrayView2, Axis, Zip};
use rand::{Rng as _, SeedableRng};
use rayon::prelude::*;
use std::sync::Arc;

/// Rows per block in the per-feature sums: fixed, so the order of the
/// floating-point additions never depends on the thread count.
const BLOCK: usize = 256;

/// Sums `f(i, acc)` over the rows in fixed blocks, blocks in parallel, and
/// adds the block results in block order.
fn per_feature_sum(n: usize, p: usize, f: impl Fn(usize, &mut [f64]) + Sync) -> Vec<f64> {
    let block = |rows: std::ops::Range<usize>| {
        let mut acc = vec![0.0; p];
        for i in rows {
            f(i, &mut acc);
        }
        acc
    };
    fold_blocks(n, BLOCK, block, vec![0.0; p], |mut out, part| {
        for (o, v) in out.iter_mut().zip(part) {
            *o += v;
        }
        out
    })
}

/// Per-feature within-cluster sum of squares around `centres`:
/// `D_l = Σ_i s_i (x_il − z_{c(i),l})²`, `s` the sample weights (all 1
/// when None).
pub fn dispersions<'a>(
    x: impl Into<Points<'a>>,
    sw: Option<&[f64]>,
    labels: &[usize],
    centres: ArrayView2<f64>,
) -> Vec<f64> {
    let x = match x.into() {
        Points::Sparse(x) => return x.dispersions(sw, labels, centres),
        Points::Dense(x) => x,
    };
    per_feature_sum(x.nrows(), x.ncols(), |i, acc| {
        let z = centres.row(labels[i]);
        let s = crate::solver::lloyd::weight(sw, i);
        match x {
            Rows::F64(x) => {
                for ((a, &xv), &zv) in acc.iter_mut().zip(x.row(i)).zip(z) {
                    let d = xv - zv;
                    *a += if sw.is_some() { s * (d * d) } else { d * d };
                }
            }
            Rows::F32(x) => {
                for ((a, &xv), &zv) in acc.iter_mut().zip(x.row(i)).zip(z) {
                    let d = f64::from(xv) - zv;
                    *a += if sw.is_some() { s * (d * d) } else { d * d };
                }
            }
        }
    })
}

/// Per-feature total sum of squares around the column means, both
/// weighted by the sample weights `sw` (None: all 1).
pub fn total_ss<'a>(x: impl Into<Points<'a>>, sw: Option<&[f64]>) -> Vec<f64> {
    let x = match x.into() {
        Points::Sparse(x) => {
            let mean = column_means(x.into(), sw).insert_axis(Axis(0));
            return x.dispersions(sw, &vec![0; x.nrows()], mean.view());
        }
        Points::Dense(Rows::F64(x)) => x,
        Points::Dense(x) => return total_ss(x.f64_owned().view(), sw),
    };
    let mean = column_means(x.into(), sw);
    per_feature_sum(x.nrows(), x.ncols(), |i, acc| {
        let s = crate::solver::lloyd::weight(sw, i);
        for ((a, &xv), &m) in acc.iter_mut().zip(x.row(i)).zip(&mean) {
            let d = xv - m;
            *a += if sw.is_some() { s * (d * d) } else { d * d };
        }
    })
}

/// Column means, weighted by the sample weights `sw` (None: all 1).
fn column_means(x: Points, sw: Option<&[f64]>) -> Array1<f64> {
    let x = match x {
        Points::Dense(Rows::F64(x)) => x,
        x => {
            let (sums, _) = x.cluster_sums(sw, &vec![0; x.nrows()], 1);
            let total = total_weight(x.nrows(), sw);
            return sums.row(0).mapv(|v| v / total.max(f64::MIN_POSITIVE));
        }
    };
    match sw {
        None => x.sum_axis(Axis(0)) / x.nrows().max(1) as f64,
        Some(w) => {
            let sums = per_feature_sum(x.nrows(), x.ncols(), |i, acc| {
                for (a, &xv) in acc.iter_mut().zip(x.row(i)) {
                    *a += w[i] * xv;
                }
            });
            let total = total_weight(x.nrows(), sw);
            Array1::from(sums) / total
        }
    }
}

/// The rows' total sample weight (their count without weights): the n
/// of the weighted sums, as if each row were repeated by its weight.
pub fn total_weight(n: usize, sw: Option<&[f64]>) -> f64 {
    match sw {
        None => n as f64,
        Some(w) => fold_blocks(
            w.len(),
            BLOCK,
            |r: std::ops::Range<usize>| w[r].iter().sum::<f64>(),
            0.0,
            |a, b| a + b,
        ),
    }
}

/// Cluster means, weighted by the sample weights `sw` (None: all 1). A
/// cluster with no weight keeps its row of `prev` (the previous centres)
/// or, without one, sits at the origin. Returns the weight totals too (the
/// counts without weights).
pub fn cluster_means<'a>(
    x: impl Into<Points<'a>>,
    sw: Option<&[f64]>,
    labels: &[usize],
    k: usize,
    prev: Option<ArrayView2<f64>>,
) -> (Array2<f64>, Vec<f64>) {
    let (mut z, totals) = x.into().cluster_sums(sw, labels, k);
    for (j, &c) in totals.iter().enumerate() {
        if c > 0.0 {
            z.row_mut(j).mapv_inplace(|v| v / c);
        } else if let Some(p) = prev {
            z.row_mut(j).assign(&p.row(j));
        }
    }
    (z, totals)
}

/// `Σ_l v_l (x_il − z_jl)²` for every row i and centre j, as
/// `Σ v x² + Σ v z² − 2·X·(Z∘v)ᵀ` (one GEMM), clamped at 0. Features with
/// `v_l = 0` contribute nothing and are left out of the product when they
/// are the majority.
pub fn weighted_sq_dists<'a>(
    x: impl Into<Points<'a>>,
    v: &[f64],
    centres: ArrayView2<f64>,
) -> Array2<f64> {
    let x = match x.into() {
        Points::Sparse(x) => return x.weighted_sq_dists(v, centres),
        Points::Dense(x) => x,
    };
    match x {
        Rows::F64(x) => weighted_sq_dists_f64(x, v, centres),
        // f32 rows (`--dtype f32`) are widened a block at a time: the
        // products stay f64 and no f64 copy of the data is made.
        x @ Rows::F32(_) => {
            let mut out = Array2::<f64>::zeros((x.nrows(), centres.nrows()));
            out.axis_chunks_iter_mut(Axis(0), F32_BLOCK)
                .into_par_iter()
                .enumerate()
                .for_each(|(b, mut o)| {
                    let lo = b * F32_BLOCK;
                    let mut buf = Vec::new();
                    let xb = x.block_in(lo, lo + o.nrows(), &mut buf);
                    o.assign(&weighted_sq_dists_f64(xb, v, centres));
                });
            out
        }
    }
}

/// Rows per block when f32 rows are widened for the weighted distances.
const F32_BLOCK: usize = 4096;

fn weighted_sq_dists_f64(x: ArrayView2<f64>, v: &[f64], centres: ArrayView2<f64>) -> Array2<f64> {
    let active: Vec<usize> = (0..v.len()).filter(|&l| v[l] > 0.0).collect();
    if active.is_empty() {
        return Array2::zeros((x.nrows(), centres.nrows()));
    }
    if active.len() * 2 < v.len() {
        let xs = x.select(Axis(1), &active);
        let zs = centres.select(Axis(1), &active);
        let vs: Vec<f64> = active.iter().map(|&l| v[l]).collect();
        return weighted_sq_dists_dense(xs.view(), &vs, zs.view());
    }
    weighted_sq_dists_dense(x, v, centres)
}

fn weighted_sq_dists_dense(x: ArrayView2<f64>, v: &[f64], centres: ArrayView2<f64>) -> Array2<f64> {
    let va = Array1::from(v.to_vec());
    let zv = &centres * &va;
    let zv2: Vec<f64> = zv
        .axis_iter(Axis(0))
        .zip(centres.axis_iter(Axis(0)))
        .map(|(a, b)| a.dot(&b))
        .collect();
    let mut xv2 = Array1::<f64>::zeros(x.nrows());
    let body = |r: ndarray::ArrayView1<f64>, o: &mut f64| {
        *o = r.iter().zip(v).map(|(&a, &w)| w * a * a).sum();
    };
    if x.len() > 1 << 16 {
        Zip::from(x.rows()).and(&mut xv2).par_for_each(body);
    } else {
        Zip::from(x.rows()).and(&mut xv2).for_each(body);
    }
    let mut d = Array2::zeros((x.nrows(), centres.nrows()));
    linalg::gemm_into(d.view_mut(), x, zv.t(), -2.0, false);
    linalg::par_rows_mut(&mut d, |i, row| {
        for (j, e) in row.iter_mut().enumerate() {
            *e = (*e + xv2[i] + zv2[j]).max(0.0);
        }
    });
    d
}

/// Nearest centre of every row, keeping the current label unless another
/// centre is strictly nearer (lowest index among those), so ties never move
/// a point and never raise the objective (docs/methods/lw-kmeans.md#ties).
/// Returns the labels
/// and how many changed.
pub fn assign_keep(d: ArrayView2<f64>, current: &[usize]) -> (Vec<usize>, usize) {
    let mut out = Vec::with_capacity(d.nrows());
    let mut changed = 0;
    for (i, row) in d.axis_iter(Axis(0)).enumerate() {
        let cur = current[i];
        let (mut best, mut bv) = (cur, row[cur]);
        for (j, &v) in row.iter().enumerate() {
            if v < bv {
                best = j;
                bv = v;
            }
        }
        if best != cur {
            changed += 1;
        }
        out.push(best);
    }
    (out, changed)
}

/// Dispersions at or below this are treated as exactly zero (a feature
/// constant within every cluster): far above rounding, far below any real
/// within-cluster spread.
pub fn zero_floor(d: &[f64]) -> f64 {
    let mean = d.iter().sum::<f64>() / d.len().max(1) as f64;
    1e-12 * mean
}

/// `log Σ_l D_l^{−1/(β−1)}` over the features with `D_l` above the zero
/// floor, or `None` when there is none.
fn log_sum_inv(d: &[f64], beta: f64) -> Option<f64> {
    let floor = zero_floor(d);
    let e = 1.0 / (beta - 1.0);
    let logs: Vec<f64> = d
        .iter()
        .filter(|&&v| v > floor && v > 0.0)
        .map(|&v| -e * v.ln())
        .collect();
    let m = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return None;
    }
    Some(m + logs.iter().map(|&l| (l - m).exp()).sum::<f64>().ln())
}

/// Huang et al.'s WK-means weights, `w_l = D_l^{−1/(β−1)} / Σ_t D_t^{−1/(β−1)}`
/// over the features with `D_t > 0`, and `w_l = 0` where `D_l = 0`
/// (docs/methods/lw-kmeans.md#wk-means). They sum to 1 (all zero only if every dispersion is zero).
pub fn huang_weights(d: &[f64], beta: f64) -> Vec<f64> {
    let floor = zero_floor(d);
    let Some(lse) = log_sum_inv(d, beta) else {
        return vec![0.0; d.len()];
    };
    let e = 1.0 / (beta - 1.0);
    d.iter()
        .map(|&v| {
            if v > floor && v > 0.0 {
                (-e * v.ln() - lse).exp()
            } else {
                0.0
            }
        })
        .collect()
}

/// The reference code's α (`α_c`, docs/methods/lw-kmeans.md#alpha-and-the-units-of-lambda):
/// `(Σ_l D_l^{−1/(β−1)})^{−(β−1)}`
/// over the features with non-zero dispersion. `None` when every feature
/// has zero dispersion.
pub fn lw_alpha(d: &[f64], beta: f64) -> Option<f64> {
    log_sum_inv(d, beta).map(|lse| (-(beta - 1.0) * lse).exp())
}

/// LW-k-means weights in reference-code units
/// (docs/methods/lw-kmeans.md#alpha-and-the-units-of-lambda):
/// `w_l = (α/D_l − λ/p²)^{1/(β−1)}` when `α > (λ/p²)·D_l`, else exactly 0;
/// also 0 when `D_l = 0` (Algorithm 1's rule). `lam_p2` is `λ/p²`.
pub fn lw_weights(d: &[f64], alpha: f64, lam_p2: f64, beta: f64) -> Vec<f64> {
    let floor = zero_floor(d);
    let e = 1.0 / (beta - 1.0);
    d.iter()
        .map(|&v| {
            if v > floor && v > 0.0 && alpha > lam_p2 * v {
                let t = alpha / v - lam_p2;
                if beta == 4.0 { t.cbrt() } else { t.powf(e) }
            } else {
                0.0
            }
        })
        .collect()
}

/// The weight rule of a block-coordinate loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// WK-means: Huang's weights; objective `Σ_l w_l^β D_l`.
    Huang { beta: f64 },
    /// LW-k-means in reference-code units: `alpha` = α_c, `lam_p2` = λ/p².
    /// The objective reported is the paper's eq. (4) with λ_paper = β·λ and
    /// α = α_R2 = β·α_c/n, i.e. `(β/n)·[Σ_l (w_l^β/β + (λ/p²) w_l) D_l − α_c Σ_l w_l]`;
    /// the assignment uses `v_l = w_l^β + β(λ/p²) w_l` (exact block-coordinate
    /// descent) or, with `code_assign`, `w_l^β + (λ/p²) w_l` as `lwkmeans.m`.
    Lasso {
        beta: f64,
        alpha: f64,
        lam_p2: f64,
        /// The number of rows (their total sample weight when weighted).
        n: f64,
        code_assign: bool,
    },
}

impl Rule {
    pub fn weights(&self, d: &[f64]) -> Vec<f64> {
        match *self {
            Rule::Huang { beta } => huang_weights(d, beta),
            Rule::Lasso {
                beta,
                alpha,
                lam_p2,
                ..
            } => lw_weights(d, alpha, lam_p2, beta),
        }
    }

    /// The objective and the sum of the magnitudes of its terms (the scale
    /// the stopping rule measures changes against).
    pub fn objective(&self, d: &[f64], w: &[f64]) -> (f64, f64) {
        match *self {
            Rule::Huang { beta } => {
                let f: f64 = d.iter().zip(w).map(|(&d, &w)| w.powf(beta) * d).sum();
                (f, f.abs())
            }
            Rule::Lasso {
                beta,
                alpha,
                lam_p2,
                n,
                ..
            } => {
                let data: f64 = d
                    .iter()
                    .zip(w)
                    .map(|(&d, &w)| (w.powf(beta) / beta + lam_p2 * w) * d)
                    .sum();
                let reward = alpha * w.iter().sum::<f64>();
                let c = beta / n;
                (c * (data - reward), c * (data + reward))
            }
        }
    }

    /// Per-feature multipliers of the squared differences in the assignment.
    pub fn assign_weights(&self, w: &[f64]) -> Vec<f64> {
        match *self {
            Rule::Huang { beta } => w.iter().map(|&w| w.powf(beta)).collect(),
            Rule::Lasso {
                beta,
                lam_p2,
                code_assign,
                ..
            } => {
                let c = if code_assign { lam_p2 } else { beta * lam_p2 };
                w.iter().map(|&w| w.powf(beta) + c * w).collect()
            }
        }
    }
}

/// Where a block-coordinate loop ended.
#[derive(Debug, Clone)]
pub struct WeightedFit {
    pub labels: Vec<usize>,
    pub centres: Array2<f64>,
    pub weights: Vec<f64>,
    pub dispersions: Vec<f64>,
    pub objective: f64,
    pub trace: Vec<TracePoint>,
    pub iterations: usize,
    pub converged: bool,
}

/// The loop WK-means and LW-k-means share, from a partition: every
/// iteration computes the centres (means; an empty cluster keeps its
/// previous centre), the dispersions D, the weights (`rule`), records the
/// objective, then reassigns every point by the weighted distance (keeping
/// its label on ties). Each step exactly minimises the objective over its
/// block, so the recorded objective never increases
/// (docs/methods/lw-kmeans.md#algorithm), except
/// where the `D_l = 0` convention applies. Stops when no label changes,
/// when the objective moves by at most `tol` × the size of its terms, or at
/// `max_iter`. Events carry the weights unless `quiet`.
#[allow(clippy::too_many_arguments)]
pub fn weighted_loop<'x>(
    x: impl Into<Points<'x>>,
    sw: Option<&'x [f64]>,
    labels: Vec<usize>,
    prev_centres: Option<Array2<f64>>,
    k: usize,
    rule: &Rule,
    tol: f64,
    max_iter: usize,
    ctx: &Ctx,
    quiet: bool,
) -> Result<WeightedFit> {
    let mut step = WeightedStep {
        x: x.into(),
        sw,
        k,
        rule,
        tol,
        labels,
        centres: prev_centres,
        prev_obj: None,
        state: None,
        next: None,
    };
    let how = Loop {
        rule: LoopRule::Step,
        max_iter: max_iter.max(1),
        k,
        events: !quiet,
    };
    let fit = iterate(&mut step, how, ctx)?;
    let (z, w, d) = step.state.expect("at least one iteration");
    Ok(WeightedFit {
        labels: fit.labels,
        centres: z,
        weights: w,
        dispersions: d,
        objective: fit.objective,
        iterations: fit.iterations,
        trace: fit.trace,
        converged: fit.converged,
    })
}

/// One block-coordinate iteration: the centres, dispersions and weights of
/// the current partition, then (unless the objective has settled or the
/// cap is reached) the reassignment by the weighted distance.
struct WeightedStep<'a, 'x> {
    x: Points<'x>,
    /// Sample weights (None: all 1).
    sw: Option<&'x [f64]>,
    k: usize,
    rule: &'a Rule,
    tol: f64,
    labels: Vec<usize>,
    /// The previous centres (an empty cluster keeps its own).
    centres: Option<Array2<f64>>,
    prev_obj: Option<f64>,
    /// Centres, weights and dispersions of the current partition.
    state: Option<(Array2<f64>, Vec<f64>, Vec<f64>)>,
    /// The reassignment, when there is one to move to.
    next: Option<Vec<usize>>,
}

impl Step for WeightedStep<'_, '_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let (x, k) = (self.x, self.k);
        let prev = self.centres.as_ref().map(|c| c.view());
        let (z, _) = cluster_means(x, self.sw, &self.labels, k, prev);
        let d = dispersions(x, self.sw, &self.labels, z.view());
        let w = self.rule.weights(&d);
        let (obj, scale) = self.rule.objective(&d, &w);
        // Stop on a small change of the objective, on a fixed point (no
        // label moves), or at the cap; the state returned is consistent:
        // centres and weights are those of the labels.
        let mut converged = self
            .prev_obj
            .is_some_and(|p| (p - obj).abs() <= self.tol * scale);
        self.prev_obj = Some(obj);
        self.next = None;
        if !converged && !it.at_cap {
            let v = self.rule.assign_weights(&w);
            let dist = weighted_sq_dists(x, &v, z.view());
            let (lab, changed) = assign_keep(dist.view(), &self.labels);
            converged = changed == 0;
            self.next = (!converged).then_some(lab);
        }
        self.state = Some((z, w, d));
        Ok(Eval::new(obj, self.labels.clone(), converged))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        if let Some(lab) = self.next.take() {
            self.labels = lab;
            self.centres = self.state.as_ref().map(|(z, _, _)| z.clone());
        }
        Ok(())
    }

    fn feature_weights(&self) -> Option<Vec<f64>> {
        self.state.as_ref().map(|(_, w, _)| w.clone())
    }
}

/// Lloyd's iterations on the weighted distance `Σ_l v_l (x_l − z_l)²` from
/// `centres`, without progress events (cancellation is still checked). An
/// empty cluster moves to the point farthest from its centre, as in
/// `lloyd.rs`. Stops when no label changes, when the squared centre shift
/// is at most `tol_abs`, or at `max_iter`. Returns the labels and their
/// weighted within-cluster sum of squares.
pub fn lloyd_weighted<'a>(
    x: impl Into<Points<'a>>,
    sw: Option<&[f64]>,
    v: &[f64],
    mut centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<(Vec<usize>, f64)> {
    let x = x.into();
    let k = centres.nrows();
    let mut labels: Vec<usize> = Vec::new();
    let mut inertia = f64::INFINITY;
    for m in 1..=max_iter.max(1) {
        ctx.check()?;
        let d = weighted_sq_dists(x, v, centres.view());
        let (lab, dist) = assign(d.view());
        inertia = weighted_total(&dist, sw);
        let unchanged = lab == labels;
        labels = lab;
        if unchanged || m == max_iter {
            break;
        }
        let (mut next, counts) = match (sw, x) {
            (None, Points::Dense(x)) => {
                let (s, c) = cluster_sums(x, &labels, k);
                (s, c.iter().map(|&c| c as f64).collect::<Vec<f64>>())
            }
            _ => x.cluster_sums(sw, &labels, k),
        };
        let mut far: Vec<usize> = Vec::new();
        if counts.contains(&0.0) {
            // A row of weight 0 is no row: it cannot hold a cluster.
            far = (0..dist.len())
                .filter(|&i| crate::solver::lloyd::weight(sw, i) > 0.0)
                .collect();
            far.sort_by(|&a, &b| dist[b].total_cmp(&dist[a]).then(a.cmp(&b)));
        }
        let mut far = far.into_iter();
        for j in 0..k {
            if counts[j] == 0.0 {
                let i = far.next().expect("enough points");
                next.row_mut(j).assign(&x.select(&[i]).row(0));
            } else {
                next.row_mut(j).mapv_inplace(|e| e / counts[j]);
            }
        }
        let shift: f64 = (&next - &centres)
            .axis_iter(Axis(1))
            .zip(v)
            .map(|(c, &w)| w * c.dot(&c))
            .sum();
        centres = next;
        if shift <= tol_abs {
            // The centres moved too little to matter: one last assignment.
            let d = weighted_sq_dists(x, v, centres.view());
            let (lab, dist) = assign(d.view());
            let f = weighted_total(&dist, sw);
            if f <= inertia {
                labels = lab;
                inertia = f;
            }
            break;
        }
    }
    Ok((labels, inertia))
}

/// Σ sᵢ dᵢ (Σ dᵢ without sample weights).
fn weighted_total(d: &[f64], sw: Option<&[f64]>) -> f64 {
    match sw {
        None => d.iter().sum(),
        Some(w) => d.iter().zip(w).map(|(d, w)| w * d).sum(),
    }
}

/// Counts finished units of a long stage (k-means runs, say) from any
/// thread and reports each as the stage's progress.
pub struct StageCounter<'a> {
    ctx: &'a Ctx,
    label: &'a str,
    done: std::sync::atomic::AtomicUsize,
    total: usize,
}

impl<'a> StageCounter<'a> {
    /// Reports the stage at 0 of `total`.
    pub fn new(ctx: &'a Ctx, label: &'a str, total: usize) -> Self {
        ctx.stage(label, 0.0);
        StageCounter {
            ctx,
            label,
            done: 0.into(),
            total: total.max(1),
        }
    }

    /// Reports the stage as done (its units were not needed).
    pub fn tick_all(&self) {
        self.ctx.stage(self.label, 1.0);
    }

    pub fn tick(&self) {
        let d = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.ctx
            .stage(self.label, (d as f64 / self.total as f64).min(1.0));
    }
}

/// The best (lowest inertia; the earliest on a tie) of `nstart` Lloyd runs
/// on `x`, each seeded by `init` (k-means++ or random rows) from its own
/// seed drawn from `rng`, run in parallel. scikit-learn's stopping rule
/// (tol 1e-4 × mean feature variance, at most 300 iterations). Every
/// cluster is non-empty. Each finished run ticks `progress` (50 runs on
/// usps take 15–20 s on two cores). Rows weighted by the sample weights
/// `sw` (None: all 1): weighted seeding, means, inertia and tolerance.
/// Given centres (`given`, scikit-learn's `init=array`) replace the
/// starts: one Lloyd run from them.
#[allow(clippy::too_many_arguments)]
pub fn kmeans_partition<'a>(
    x: impl Into<Points<'a>>,
    sw: Option<&[f64]>,
    k: usize,
    nstart: usize,
    init_kind: Init,
    given: Option<&Array2<f64>>,
    rng: &mut Rng,
    ctx: &Ctx,
    progress: Option<&StageCounter>,
) -> Result<Vec<usize>> {
    let x = x.into();
    let ones = vec![1.0; x.ncols()];
    let tol = 1e-4
        * match sw {
            None => x.mean_variance(),
            Some(_) => weighted_mean_variance(x, sw),
        };
    if let Some(c) = given {
        let (labels, _) = lloyd_weighted(x, sw, &ones, c.clone(), tol, 300, ctx)?;
        if let Some(p) = progress {
            p.tick_all();
        }
        return Ok(labels);
    }
    let norms = x.sq_norms();
    let seeds: Vec<u64> = (0..nstart.max(1)).map(|_| rng.random::<u64>()).collect();
    let runs: Vec<Result<(Vec<usize>, f64)>> = seeds
        .par_iter()
        .map(|&s| {
            let mut r = Rng::seed_from_u64(s);
            let idx = x.seeds(&norms, sw, k, init_kind, &mut r)?;
            let c = x.select(&idx);
            let out = lloyd_weighted(x, sw, &ones, c, tol, 300, ctx);
            if let Some(p) = progress {
                p.tick();
            }
            out
        })
        .collect();
    let mut best: Option<(Vec<usize>, f64)> = None;
    for r in runs {
        let (lab, f) = r?;
        if best.as_ref().is_none_or(|b| f < b.1) {
            best = Some((lab, f));
        }
    }
    Ok(best.expect("at least one start").0)
}

/// The mean over features of the weighted variances (Σ sᵢ (x − x̄)² / Σ sᵢ),
/// the scale of Lloyd's tolerance as if each row were repeated by its
/// weight.
fn weighted_mean_variance(x: Points, sw: Option<&[f64]>) -> f64 {
    let (n, p) = (x.nrows(), x.ncols());
    if n == 0 || p == 0 {
        return 0.0;
    }
    let z = Array2::zeros((1, p));
    let sums = x.cluster_sums(sw, &vec![0; n], 1).0;
    let total = total_weight(n, sw);
    let mean = if total > 0.0 { sums / total } else { z };
    let ss = dispersions(x, sw, &vec![0; n], mean.view());
    ss.iter().sum::<f64>() / (total * p as f64).max(f64::MIN_POSITIVE)
}

/// The data z-scored column by column (sample standard deviation, n − 1),
/// with the means and deviations to map centres back. Constant columns
/// become 0.
#[derive(Debug)]
pub struct Standardized {
    pub x: Scaled,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
}

/// The standardised rows. CSR rows are only divided by the deviations,
/// not centred (centring would fill in every zero): every quantity the
/// feature-weighted family computes (dispersions, between-cluster sums,
/// distances to cluster means) is unchanged by a shift of a column, so
/// the runs are those of the z-scores, with centres shifted by m/sd.
#[derive(Debug)]
pub enum Scaled {
    Dense(Array2<f64>),
    Sparse(Csr),
}

impl Standardized {
    /// Weighted by the sample weights `sw` (None: all 1): the weighted
    /// mean and the deviation of the rows repeated by their weights
    /// (denominator Σ s − 1).
    pub fn of<'a>(x: impl Into<Points<'a>>, sw: Option<&[f64]>) -> Self {
        let x = x.into();
        let n = x.nrows();
        let dense = match x {
            Points::Dense(x) => Some(x.f64_owned()),
            Points::Sparse(_) => None,
        };
        let (mean, ss) = match &dense {
            Some(d) => (column_means(d.view().into(), sw), total_ss(d.view(), sw)),
            None => (column_means(x, sw), total_ss(x, sw)),
        };
        let denom = match sw {
            None => n.saturating_sub(1).max(1) as f64,
            Some(_) => {
                let t = total_weight(n, sw);
                if t > 1.0 { t - 1.0 } else { 1.0 }
            }
        };
        let sd: Vec<f64> = ss
            .iter()
            .zip(&mean)
            .map(|(&s, &m)| {
                let sd = (s / denom).sqrt();
                // Constant up to rounding: no spread to standardise.
                if sd > 1e-12 * m.abs().max(f64::MIN_POSITIVE) {
                    sd
                } else {
                    0.0
                }
            })
            .collect();
        let scaled = match (dense, x) {
            (Some(mut z), _) => {
                linalg::par_rows_mut(&mut z, |_, row| {
                    for ((e, &m), &s) in row.iter_mut().zip(&mean).zip(&sd) {
                        *e = if s > 0.0 { (*e - m) / s } else { 0.0 };
                    }
                });
                Scaled::Dense(z)
            }
            (None, Points::Sparse(c)) => {
                let inv: Vec<f64> = sd
                    .iter()
                    .map(|&s| if s > 0.0 { 1.0 / s } else { 0.0 })
                    .collect();
                Scaled::Sparse(c.scale_columns(&inv))
            }
            (None, Points::Dense(_)) => unreachable!("dense rows are copied above"),
        };
        Standardized {
            x: scaled,
            mean: mean.to_vec(),
            sd,
        }
    }

    /// The standardised rows, as the family's steps read them.
    pub fn points(&self) -> Points<'_> {
        match &self.x {
            Scaled::Dense(z) => Points::from(z.view()),
            Scaled::Sparse(c) => Points::Sparse(c),
        }
    }

    /// Maps centres from the standardised space back to the input space.
    pub fn unscale(&self, z: &Array2<f64>) -> Array2<f64> {
        let centred = matches!(self.x, Scaled::Dense(_));
        let mut out = z.clone();
        for mut row in out.axis_iter_mut(Axis(0)) {
            for ((e, &m), &s) in row.iter_mut().zip(&self.mean).zip(&self.sd) {
                *e = match (centred, s > 0.0) {
                    (true, _) => m + *e * s,
                    (false, true) => *e * s,
                    // A constant column: its value (every centre's mean).
                    (false, false) => m,
                };
            }
        }
        out
    }

    /// Maps centres from the input space to the z-scores (the model's
    /// space: new rows are z-scored, then compared).
    pub fn zscore_centres(&self, c: &Array2<f64>) -> Array2<f64> {
        let mut z = c.clone();
        for mut row in z.rows_mut() {
            for ((e, &m), &s) in row.iter_mut().zip(&self.mean).zip(&self.sd) {
                *e = if s > 0.0 { (*e - m) / s } else { 0.0 };
            }
        }
        z
    }
}

crate::solver::cache::cache_key! {
    /// The z-scored data.
    pub ZscoreKey => Standardized
}

/// The z-scored problem data, built once per problem and cached.
pub fn standardized(problem: &Problem) -> Result<Arc<Standardized>> {
    problem.cached(&ZscoreKey("feature-weights:zscore".into()), || {
        Ok(Standardized::of(
            Points::of(problem),
            problem.sample_weights(),
        ))
    })
}

/// Refuses β ≤ 1 and non-finite values (the ParamSpec ranges already do;
/// this guards library callers).
pub fn check_beta(beta: f64) -> Result<()> {
    if beta.is_finite() && beta > 1.0 {
        Ok(())
    } else {
        Err(Error::param(format!(
            "beta = {beta} is out of range: must be greater than 1"
        )))
    }
}

/// The assignment rule of a fit in the input space: its centres, and
/// the multipliers `rule` derives from its feature weights (None when the
/// fit lacks either).
pub fn fitted_rule(fit: &Fit, rule: impl Fn(&[f64]) -> Vec<f64>) -> Option<AssignRule> {
    Some(AssignRule {
        centroids: fit.centroids.clone()?,
        multipliers: rule(fit.feature_weights.as_deref()?),
        standardize: None,
    })
}

/// Fills a [`Fit`] from a loop's outcome.
pub fn to_fit(w: WeightedFit, centroids: Array2<f64>) -> Fit {
    Fit {
        labels: w.labels,
        centroids: Some(centroids),
        objective: w.objective,
        trace: w.trace,
        iterations: w.iterations,
        converged: w.converged,
        feature_weights: Some(w.weights),
        ..Fit::default()
    }
}

/// β, the weight exponent of WK-means and LW-k-means.
pub fn beta_spec() -> ParamSpec {
    ParamSpec {
        name: "beta",
        symbol: "β",
        default: Default::Fixed(4.0),
        min: 1.05,
        max: 20.0,
        scale: Scale::Linear,
        step: 0.1,
        coarse: 1.0,
        integer: false,
        help: "Weight exponent β > 1 (the papers use 4; the theory asks for an even integer).",
    }
}

pub fn nstart_spec(default: f64, help: &'static str) -> ParamSpec {
    ParamSpec {
        name: "nstart",
        symbol: "nstart",
        default: Default::Fixed(default),
        min: 1.0,
        max: 1000.0,
        scale: Scale::Linear,
        step: 1.0,
        coarse: 10.0,
        integer: true,
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn weighted_distances_match_the_direct_sum() {
        let x = array![[1.0, 2.0, 3.0], [0.0, -1.0, 4.0], [2.0, 2.0, 2.0]];
        let z = array![[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]];
        for v in [vec![1.0, 0.5, 2.0], vec![0.0, 0.0, 3.0], vec![0.0; 3]] {
            let d = weighted_sq_dists(x.view(), &v, z.view());
            for i in 0..3 {
                for j in 0..2 {
                    let want: f64 = (0..3).map(|l| v[l] * (x[[i, l]] - z[[j, l]]).powi(2)).sum();
                    assert!((d[[i, j]] - want).abs() < 1e-12, "{i} {j}");
                }
            }
        }
    }

    #[test]
    fn ties_keep_the_current_label() {
        let d = array![[1.0, 1.0, 2.0], [3.0, 2.0, 2.0], [0.0, 0.0, 0.0]];
        let (lab, changed) = assign_keep(d.view(), &[1, 0, 2]);
        assert_eq!(lab, vec![1, 1, 2]);
        assert_eq!(changed, 1);
    }

    #[test]
    fn zero_dispersion_gets_zero_weight() {
        let d = [2.0, 0.0, 1.0];
        let w = huang_weights(&d, 4.0);
        assert_eq!(w[1], 0.0);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let a = lw_alpha(&d, 4.0).unwrap();
        let w = lw_weights(&d, a, 0.0, 4.0);
        assert_eq!(w[1], 0.0);
        assert!(w.iter().all(|v| v.is_finite()));
        assert!(lw_alpha(&[0.0, 0.0], 4.0).is_none());
    }
}
