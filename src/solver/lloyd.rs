//! Lloyd's iteration with scikit-learn's semantics (for `kmeans`, and for
//! `spectral` on its embedding): tolerance relative to the
//! mean feature variance on the squared centre shift, strict convergence
//! when no label changes, empty clusters moved to the farthest points.

pub use super::assign::{assign, cluster_sums, weight, weighted_cluster_sums};
use super::assign::{full_pass, move_rows};
use super::bounded::Bounds;
use super::fit::Fit;
use super::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use super::progress::Ctx;
use super::rows::{Centres, Rows};
use crate::error::Result;
pub use crate::linalg::mean_variance;
use ndarray::Array2;

/// Lloyd iterations from the given centres, with bounds that skip the
/// rows whose nearest centre cannot have changed ([`super::bounded`]):
/// labels, centres, iterations and final objective are those of
/// [`plain_lloyd_loop`], bit for bit. `tol_abs` bounds the total squared
/// centre shift.
pub fn lloyd_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    run_lloyd(
        x.into(),
        x_norms,
        None,
        centres,
        tol_abs,
        max_iter,
        true,
        ctx,
    )
}

/// [`lloyd_loop`] (`bounded`) or [`plain_lloyd_loop`] on rows weighted by
/// their sample weights `w` (None: every weight 1, the same bits as the
/// unweighted loops): the centres are weighted means, the objective the
/// weighted sum of squared distances. A cluster whose weight is 0 is
/// empty.
#[allow(clippy::too_many_arguments)]
pub fn weighted_lloyd_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    bounded: bool,
    ctx: &Ctx,
) -> Result<Fit> {
    run_lloyd(
        x.into(),
        x_norms,
        w,
        centres,
        tol_abs,
        max_iter,
        bounded,
        ctx,
    )
}

/// Lloyd iterations with every distance computed at every iteration: the
/// reference [`lloyd_loop`] is checked against.
pub fn plain_lloyd_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    run_lloyd(
        x.into(),
        x_norms,
        None,
        centres,
        tol_abs,
        max_iter,
        false,
        ctx,
    )
}

#[allow(clippy::too_many_arguments)]
fn run_lloyd(
    x: Rows,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    bounded: bool,
    ctx: &Ctx,
) -> Result<Fit> {
    let settle = Settle::Shift { tol_abs };
    let (mut fit, shift, centres) =
        run_settling(x, x_norms, w, centres, settle, max_iter, bounded, ctx)?;
    say_why_stopped(&mut fit, shift, tol_abs);
    fit.centroids = Some(centres);
    Ok(fit)
}

/// Bounded Lloyd iterations that stop once the objective changes by at
/// most `rel_tol` (relative) from one iteration to the next, an empty
/// cluster keeping its centre: the power-mean iteration at s = −∞ with its
/// period check every iteration (the RFF papers' k-means start Θ₀), with
/// the rows whose nearest centre cannot have changed skipped. Between the
/// first iteration and the last the objective comes from the cluster sums,
/// so it agrees with the power-mean iteration's to rounding. Rows count by
/// their sample weights `w`. The Fit's centroids are the centres the last
/// iteration was evaluated at.
///
/// # Errors
/// [`crate::Error::Cancelled`] once `ctx` is cancelled.
pub fn lloyd_until_flat<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    rel_tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let settle = Settle::Flat { rel_tol };
    let (mut fit, _, centres) =
        run_settling(x.into(), x_norms, w, centres, settle, max_iter, true, ctx)?;
    fit.centroids = Some(centres);
    Ok(fit)
}

/// When a Lloyd run has settled, and what becomes of an empty cluster.
#[derive(Debug, Clone, Copy)]
enum Settle {
    /// scikit-learn's k-means: no label changed, or a total squared centre
    /// shift ≤ `tol_abs`; an empty cluster moves to the farthest rows, and
    /// the last objective is summed from every row's distance.
    Shift { tol_abs: f64 },
    /// The objective changed by at most `rel_tol` (relative) since the
    /// previous iteration; an empty cluster keeps its centre.
    Flat { rel_tol: f64 },
}

/// The loop of [`LloydStep`]: the fit, the last squared centre shift and
/// the last centres.
#[allow(clippy::too_many_arguments)]
fn run_settling(
    x: Rows,
    x_norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    settle: Settle,
    max_iter: usize,
    bounded: bool,
    ctx: &Ctx,
) -> Result<(Fit, f64, Array2<f64>)> {
    let k = centres.nrows();
    let mut step = LloydStep {
        x,
        x_norms,
        w,
        centres,
        settle,
        last_objective: None,
        xx: weighted_sum(x_norms, w),
        shift: f64::INFINITY,
        sums: None,
        dists: None,
        bounds: bounded.then(Bounds::default),
        labels: Vec::new(),
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter,
        k,
        events: true,
    };
    let fit = iterate(&mut step, how, ctx)?;
    Ok((fit, step.shift, step.centres))
}

/// Records on a Lloyd fit why it stopped and its last squared centre
/// shift. The shift is tested first: scikit-learn tests it one iteration
/// before it would see the labels unchanged.
pub(super) fn say_why_stopped(fit: &mut Fit, shift: f64, tol_abs: f64) {
    if fit.converged {
        fit.extra.converged_by = Some(if shift <= tol_abs { "shift" } else { "labels" });
    }
    if shift.is_finite() {
        fit.extra.centre_shift = Some(shift);
    }
}

/// One Lloyd iteration: the assignment (every row, or the rows the bounds
/// cannot settle), the cluster sums moved by the rows that changed, then
/// the means (an empty cluster moves to the farthest point, as
/// scikit-learn).
struct LloydStep<'x, 'n> {
    x: Rows<'x>,
    x_norms: &'n [f64],
    /// Sample weights (None: all 1).
    w: Option<&'n [f64]>,
    centres: Array2<f64>,
    settle: Settle,
    /// The previous iteration's objective ([`Settle::Flat`]).
    last_objective: Option<f64>,
    /// Σ w‖x‖², the sums' objective needs every bounded iteration.
    xx: f64,
    /// Squared centre shift of the last update.
    shift: f64,
    /// Per-cluster sums and weight totals of the rows at `labels`.
    sums: Option<(Array2<f64>, Vec<f64>)>,
    /// Every row's squared distance to its centre, when the last
    /// assignment computed them all (empty clusters need them).
    dists: Option<Vec<f64>>,
    /// None: plain Lloyd.
    bounds: Option<Bounds>,
    labels: Vec<usize>,
}

impl Step for LloydStep<'_, '_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let c = Centres::new(self.centres.view(), &self.x);
        let first = self.sums.is_none();
        let bounded = self.bounds.as_ref().is_some_and(Bounds::ready);
        let (labels, mut inertia) = if bounded {
            let b = self.bounds.as_mut().expect("bounds");
            let labels = b.assign(self.x, self.x_norms, &c, &self.labels);
            self.dists = None;
            (labels, None)
        } else {
            let pass = full_pass(
                self.x,
                Some(self.x_norms),
                self.w,
                &c,
                self.bounds.is_some(),
                first,
            );
            let inertia = weighted_sum(&pass.dists, self.w);
            if let Some(b) = &mut self.bounds {
                b.start(self.x, &pass, self.x_norms, &c);
            }
            if first {
                self.sums = Some((pass.sums, pass.totals));
            }
            self.dists = Some(pass.dists);
            (pass.labels, Some(inertia))
        };
        if !first {
            if self.w.is_some() {
                // Weighted totals moved row by row would leave a rounding
                // residue where a cluster's weight should be exactly 0.
                self.sums = Some(weighted_cluster_sums(
                    self.x,
                    self.w,
                    &labels,
                    self.centres.nrows(),
                ));
            } else {
                let (sums, totals) = self.sums.as_mut().expect("sums after the first pass");
                move_rows(self.x, None, &self.labels, &labels, sums, totals);
            }
        }
        let (sums, totals) = self.sums.as_ref().expect("sums");
        let settled = match self.settle {
            Settle::Shift { tol_abs } => labels == it.prev_labels || self.shift <= tol_abs,
            Settle::Flat { .. } => false,
        };
        // An empty cluster moves to the farthest rows, and the objective the
        // run ends with is summed from every row's distance: both need the
        // full pass (whose labels are the bounded ones).
        let exact_end = matches!(self.settle, Settle::Shift { .. });
        if inertia.is_none() && exact_end && (settled || it.at_cap || totals.contains(&0.0)) {
            let pass = full_pass(self.x, Some(self.x_norms), self.w, &c, true, false);
            debug_assert_eq!(pass.labels, labels, "bounded labels are the full pass's");
            inertia = Some(weighted_sum(&pass.dists, self.w));
            if let Some(b) = &mut self.bounds {
                b.start(self.x, &pass, self.x_norms, &c);
            }
            self.dists = Some(pass.dists);
        }
        // Between the first and the last, the objective of the bounded
        // iterations is Σ‖x‖² − 2Σ c·S + Σ n‖c‖², from the sums.
        let inertia = inertia.unwrap_or_else(|| sums_inertia(self.xx, &c, sums, totals));
        let settled = match self.settle {
            Settle::Shift { .. } => settled,
            Settle::Flat { rel_tol } => self
                .last_objective
                .is_some_and(|f0| (inertia - f0).abs() <= rel_tol * f0.abs()),
        };
        self.last_objective = Some(inertia);
        self.labels = labels.clone();
        Ok(Eval::new(inertia, labels, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let (sums, totals) = self.sums.as_ref().expect("advance after eval");
        let mut next = sums.clone();
        let mut totals = totals.clone();
        match self.settle {
            Settle::Shift { .. } => {
                relocate_empty(
                    self.x,
                    self.w,
                    self.dists.as_deref(),
                    &self.labels,
                    &mut next,
                    &mut totals,
                );
                average(&mut next, &totals);
            }
            Settle::Flat { .. } => average_keeping(&mut next, &totals, &self.centres),
        }
        let diff = &next - &self.centres;
        self.shift = diff.mapv(|v| v * v).sum();
        if let Some(b) = &mut self.bounds {
            b.moved(diff.view());
        }
        self.centres = next;
        Ok(())
    }
}

/// scikit-learn's relocation of empty clusters, on the per-cluster sums
/// and weight totals of the rows at `labels`: each empty cluster takes one
/// of the rows farthest from their centre (`dists`, rows of weight 0
/// aside), and that row leaves its old cluster's sum. When every row sits
/// on its centre (fewer distinct points than clusters) there is nothing
/// to move to and the clusters stay empty.
fn relocate_empty(
    x: Rows,
    w: Option<&[f64]>,
    dists: Option<&[f64]>,
    labels: &[usize],
    sums: &mut Array2<f64>,
    totals: &mut [f64],
) {
    let empty = totals.iter().filter(|&&t| t == 0.0).count();
    if empty == 0 {
        return;
    }
    let dists = dists.expect("a full pass before an update with empty clusters");
    let candidates: Vec<f64> = dists
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if weight(w, i) > 0.0 {
                d
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect();
    let far: Vec<Far> = farthest(&candidates, empty)
        .into_iter()
        .map(|i| Far {
            dist: candidates[i],
            index: i,
            label: labels[i],
            weight: weight(w, i),
            row: x.select(&[i]).row(0).to_vec(),
        })
        .collect();
    relocate(&far, sums, totals);
}

/// A row an empty cluster may move to: its squared distance to its
/// centre, index, label, sample weight and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Far {
    pub dist: f64,
    pub index: usize,
    pub label: usize,
    pub weight: f64,
    pub row: Vec<f64>,
}

impl Far {
    /// Farthest first, ties by the lower row index ([`farthest`]'s order).
    pub fn order(a: &Far, b: &Far) -> std::cmp::Ordering {
        b.dist.total_cmp(&a.dist).then(a.index.cmp(&b.index))
    }
}

/// Moves each empty cluster (total 0) to the next of the farthest rows
/// `far` (farthest first): the row leaves its old cluster's sum. Nothing
/// moves when no row lies off its centre.
pub(super) fn relocate(far: &[Far], sums: &mut Array2<f64>, totals: &mut [f64]) {
    let empty: Vec<usize> = (0..totals.len()).filter(|&j| totals[j] == 0.0).collect();
    if empty.is_empty() || far.iter().all(|f| f.dist <= 0.0) {
        return;
    }
    for (&j, f) in empty.iter().zip(far) {
        if f.dist <= 0.0 {
            break;
        }
        let row = ndarray::ArrayView1::from(&f.row[..]);
        let (wi, old) = (f.weight, f.label);
        sums.row_mut(old).scaled_add(-wi, &row);
        totals[old] -= wi;
        sums.row_mut(j).assign(&(&row * wi));
        totals[j] = wi;
    }
}

/// The means from the sums; a cluster still empty takes the centre of the
/// heaviest cluster (scikit-learn's choice: the empty centre stays among
/// the data's points).
pub(super) fn average(sums: &mut Array2<f64>, totals: &[f64]) {
    let heaviest = (0..totals.len()).fold(0, |b, j| if totals[j] > totals[b] { j } else { b });
    for j in 0..totals.len() {
        if totals[j] > 0.0 {
            let t = totals[j];
            sums.row_mut(j).mapv_inplace(|v| v / t);
        }
    }
    for j in 0..totals.len() {
        if totals[j] <= 0.0 {
            let c = sums.row(heaviest).to_owned();
            sums.row_mut(j).assign(&c);
        }
    }
}

/// The means from the sums; an empty cluster keeps its centre in `old`.
fn average_keeping(sums: &mut Array2<f64>, totals: &[f64], old: &Array2<f64>) {
    for (j, &t) in totals.iter().enumerate() {
        if t > 0.0 {
            sums.row_mut(j).mapv_inplace(|v| v / t);
        } else {
            sums.row_mut(j).assign(&old.row(j));
        }
    }
}

/// Σ (sample weight ×) squared distance to the centre from `xx` = Σ
/// w‖x‖² and the per-cluster sums and totals: xx − 2Σⱼ cⱼ·Sⱼ +
/// Σⱼ nⱼ‖cⱼ‖², floored at 0.
pub(super) fn sums_inertia(xx: f64, c: &Centres, sums: &Array2<f64>, totals: &[f64]) -> f64 {
    let mut total = xx;
    for j in 0..c.k() {
        total += totals[j] * c.norms[j] - 2.0 * c.c.row(j).dot(&sums.row(j));
    }
    total.max(0.0)
}

/// Σᵢ wᵢvᵢ (Σᵢ vᵢ without weights, summed in the same order).
pub(super) fn weighted_sum(v: &[f64], w: Option<&[f64]>) -> f64 {
    match w {
        None => v.iter().sum(),
        Some(w) => v.iter().zip(w).map(|(a, b)| a * b).sum(),
    }
}

/// Indices of the `m` rows farthest from their centre, farthest first.
pub(super) fn farthest(dist: &[f64], m: usize) -> Vec<usize> {
    if m == 0 {
        return Vec::new();
    }
    let mut idx: Vec<usize> = (0..dist.len()).collect();
    idx.sort_by(|&a, &b| dist[b].total_cmp(&dist[a]).then(a.cmp(&b)));
    idx.truncate(m);
    idx
}
