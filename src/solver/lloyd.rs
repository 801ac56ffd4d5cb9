//! Lloyd's iteration with scikit-learn's semantics (for `kmeans`, and for
//! `spectral` on its embedding): tolerance relative to the
//! mean feature variance on the squared centre shift, strict convergence
//! when no label changes, empty clusters moved to the farthest points.

use super::bounded::Bounds;
use super::fit::Fit;
use super::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use super::progress::Ctx;
use super::reduce::fold_blocks;
use super::rows::{Centres, Rows};
use super::weights::argmin;
use crate::error::Result;
use ndarray::{Array1, Array2, ArrayView2, Axis, Zip};

/// Rows per block when summing clusters: fixed, so the order of the
/// floating-point additions never depends on the thread count.
const BLOCK: usize = 2048;

/// Nearest centre and squared distance of every row.
pub fn assign(d: ArrayView2<f64>) -> (Vec<usize>, Vec<f64>) {
    let mut lab = Array1::<usize>::zeros(d.nrows());
    let mut dist = Array1::<f64>::zeros(d.nrows());
    Zip::from(d.rows())
        .and(&mut lab)
        .and(&mut dist)
        .for_each(|r, l, v| (*l, *v) = argmin(r.iter().copied()));
    (lab.to_vec(), dist.to_vec())
}

/// Sums and counts of the rows of `x` per label.
pub fn cluster_sums<'a>(
    x: impl Into<Rows<'a>>,
    labels: &[usize],
    k: usize,
) -> (Array2<f64>, Vec<usize>) {
    let x = x.into();
    let p = x.ncols();
    let block = |rows: std::ops::Range<usize>| {
        let mut sums = Array2::zeros((k, p));
        let mut counts = vec![0; k];
        for i in rows {
            let l = labels[i];
            counts[l] += 1;
            x.add_row_to(i, sums.row_mut(l));
        }
        (sums, counts)
    };
    fold_blocks(
        x.nrows(),
        BLOCK,
        block,
        (Array2::zeros((k, p)), vec![0; k]),
        |(mut sums, mut counts), (s, c)| {
            sums += &s;
            for (a, b) in counts.iter_mut().zip(c) {
                *a += b;
            }
            (sums, counts)
        },
    )
}

/// Rows per cache block inside a task of [`assign_and_sum`]. A multiple
/// of it starts every task, so the blocks are `CACHE_ROWS` long but the
/// last (`bounded` recomputes rows in blocks of the same length).
pub(super) const CACHE_ROWS: usize = 256;

/// What one full pass of Lloyd's assignment finds.
pub(super) struct Pass {
    pub labels: Vec<usize>,
    /// Squared distance to the nearest centre.
    pub dists: Vec<f64>,
    /// Squared distance to the second nearest (when asked for; else empty).
    pub second: Vec<f64>,
    /// Per-cluster sums of the rows (f64) and counts.
    pub sums: Array2<f64>,
    pub counts: Vec<usize>,
}

/// Nearest and second-nearest centre of a row of distances: the nearest
/// as [`argmin`] picks it (lowest index on ties).
pub(super) fn argmin2(row: impl Iterator<Item = f64>) -> (usize, f64, f64) {
    let (mut j, mut v1, mut v2) = (0, f64::INFINITY, f64::INFINITY);
    for (l, v) in row.enumerate() {
        if v < v1 {
            (j, v2, v1) = (l, v1, v);
        } else if v < v2 {
            v2 = v;
        }
    }
    (j, v1, v2)
}

/// Labels, squared distances, and per-cluster sums and counts, in one pass
/// over `x`: each cache block's distances (a GEMM) are taken and its rows
/// added to their cluster's sum while the block is hot — one read of a
/// large matrix per iteration instead of two. Fixed blocks combined in
/// order: the same result for any thread count.
pub(super) fn full_pass(x: Rows, x_norms: &[f64], c: &Centres, second: bool, sums: bool) -> Pass {
    let (n, p) = (x.nrows(), x.ncols());
    let k = c.k();
    let block = |rows: std::ops::Range<usize>| {
        let (lo, hi) = (rows.start, rows.end);
        let mut part = Pass {
            labels: Vec::with_capacity(hi - lo),
            dists: Vec::with_capacity(hi - lo),
            second: Vec::with_capacity(if second { hi - lo } else { 0 }),
            sums: Array2::<f64>::zeros((k, p)),
            counts: vec![0; k],
        };
        let mut r0 = lo;
        while r0 < hi {
            let r1 = (r0 + CACHE_ROWS).min(hi);
            let d = x.block_dists(r0, r1, &x_norms[r0..r1], c);
            for (i, dr) in (r0..r1).zip(d.rows()) {
                let (l, v, v2) = argmin2(dr.iter().copied());
                part.counts[l] += 1;
                if sums {
                    x.add_row_to(i, part.sums.row_mut(l));
                }
                part.labels.push(l);
                part.dists.push(v);
                if second {
                    part.second.push(v2);
                }
            }
            r0 = r1;
        }
        part
    };
    let init = Pass {
        labels: Vec::with_capacity(n),
        dists: Vec::with_capacity(n),
        second: Vec::with_capacity(if second { n } else { 0 }),
        sums: Array2::<f64>::zeros((k, p)),
        counts: vec![0; k],
    };
    fold_blocks(n, BLOCK, block, init, |mut all, part| {
        all.labels.extend(part.labels);
        all.dists.extend(part.dists);
        all.second.extend(part.second);
        all.sums += &part.sums;
        for (a, b) in all.counts.iter_mut().zip(part.counts) {
            *a += b;
        }
        all
    })
}

/// Moves the per-cluster sums and counts from the labels `prev` to
/// `next`: each row whose label changed is taken from its old cluster and
/// added to its new one, in fixed chunks of the changed rows combined in
/// order. Plain and bounded Lloyd both update their sums this way, so the
/// same labels give them the same centres, to the last bit.
pub(super) fn move_rows(
    x: Rows,
    prev: &[usize],
    next: &[usize],
    sums: &mut Array2<f64>,
    counts: &mut [usize],
) {
    let moved: Vec<usize> = (0..next.len()).filter(|&i| prev[i] != next[i]).collect();
    if moved.is_empty() {
        return;
    }
    let (k, p) = sums.dim();
    let delta = fold_blocks(
        moved.len(),
        CACHE_ROWS,
        |r| {
            let mut d = Array2::<f64>::zeros((k, p));
            let mut row = Array1::<f64>::zeros(p);
            for &i in &moved[r] {
                row.fill(0.0);
                x.add_row_to(i, row.view_mut());
                d.row_mut(next[i]).scaled_add(1.0, &row);
                d.row_mut(prev[i]).scaled_add(-1.0, &row);
            }
            d
        },
        Array2::<f64>::zeros((k, p)),
        |acc, d| acc + d,
    );
    *sums += &delta;
    for &i in &moved {
        counts[prev[i]] -= 1;
        counts[next[i]] += 1;
    }
}

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
    run_lloyd(x.into(), x_norms, centres, tol_abs, max_iter, true, ctx)
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
    run_lloyd(x.into(), x_norms, centres, tol_abs, max_iter, false, ctx)
}

fn run_lloyd(
    x: Rows,
    x_norms: &[f64],
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    bounded: bool,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = centres.nrows();
    let mut step = LloydStep {
        x,
        x_norms,
        centres,
        tol_abs,
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
    let mut fit = iterate(&mut step, how, ctx)?;
    fit.centroids = Some(step.centres);
    Ok(fit)
}

/// One Lloyd iteration: the assignment (every row, or the rows the bounds
/// cannot settle), the cluster sums moved by the rows that changed, then
/// the means (an empty cluster moves to the farthest point, as
/// scikit-learn).
struct LloydStep<'x, 'n> {
    x: Rows<'x>,
    x_norms: &'n [f64],
    centres: Array2<f64>,
    tol_abs: f64,
    /// Squared centre shift of the last update.
    shift: f64,
    /// Per-cluster sums and counts of the rows at `labels`.
    sums: Option<(Array2<f64>, Vec<usize>)>,
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
            let pass = full_pass(self.x, self.x_norms, &c, self.bounds.is_some(), first);
            let inertia: f64 = pass.dists.iter().sum();
            if let Some(b) = &mut self.bounds {
                b.start(self.x, &pass, self.x_norms, &c);
            }
            if first {
                self.sums = Some((pass.sums, pass.counts));
            }
            self.dists = Some(pass.dists);
            (pass.labels, Some(inertia))
        };
        if !first {
            let (sums, counts) = self.sums.as_mut().expect("sums after the first pass");
            move_rows(self.x, &self.labels, &labels, sums, counts);
        }
        let settled = labels == it.prev_labels || self.shift <= self.tol_abs;
        let (sums, counts) = self.sums.as_ref().expect("sums");
        // An empty cluster moves to the farthest rows, and the objective the
        // run ends with is summed from every row's distance: both need the
        // full pass (whose labels are the bounded ones).
        if inertia.is_none() && (settled || it.at_cap || counts.contains(&0)) {
            let pass = full_pass(self.x, self.x_norms, &c, true, false);
            debug_assert_eq!(pass.labels, labels, "bounded labels are the full pass's");
            inertia = Some(pass.dists.iter().sum());
            if let Some(b) = &mut self.bounds {
                b.start(self.x, &pass, self.x_norms, &c);
            }
            self.dists = Some(pass.dists);
        }
        // Between the first and the last, the objective of the bounded
        // iterations is Σ‖x‖² − 2Σ c·S + Σ n‖c‖², from the sums.
        let inertia = inertia.unwrap_or_else(|| inertia_from_sums(self.x_norms, &c, sums, counts));
        self.labels = labels.clone();
        Ok(Eval::new(inertia, labels, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let (sums, counts) = self.sums.as_ref().expect("advance after eval");
        let k = self.centres.nrows();
        let mut next = sums.clone();
        let empty = counts.iter().filter(|&&c| c == 0).count();
        let far = match &self.dists {
            Some(d) => farthest(d, empty),
            None => Vec::new(),
        };
        let mut far = far.into_iter();
        for j in 0..k {
            if counts[j] == 0 {
                // sklearn: an empty cluster moves to a far-away point.
                let i = far.next().expect("enough points");
                next.row_mut(j).assign(&self.x.select(&[i]).row(0));
            } else {
                next.row_mut(j).mapv_inplace(|v| v / counts[j] as f64);
            }
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

/// Σᵢ ‖xᵢ − c_{l(i)}‖² from the per-cluster sums: Σ‖x‖² − 2Σⱼ cⱼ·Sⱼ +
/// Σⱼ nⱼ‖cⱼ‖² (at the centres the labels were assigned at).
fn inertia_from_sums(x_norms: &[f64], c: &Centres, sums: &Array2<f64>, counts: &[usize]) -> f64 {
    let xx: f64 = x_norms.iter().sum();
    let mut total = xx;
    for j in 0..c.k() {
        total += counts[j] as f64 * c.norms[j] - 2.0 * c.c.row(j).dot(&sums.row(j));
    }
    total.max(0.0)
}

/// Indices of the `m` rows farthest from their centre, farthest first.
fn farthest(dist: &[f64], m: usize) -> Vec<usize> {
    if m == 0 {
        return Vec::new();
    }
    let mut idx: Vec<usize> = (0..dist.len()).collect();
    idx.sort_by(|&a, &b| dist[b].total_cmp(&dist[a]).then(a.cmp(&b)));
    idx.truncate(m);
    idx
}

/// Mean of the per-feature variances: sklearn's unit for `tol`.
pub fn mean_variance(x: ArrayView2<f64>) -> f64 {
    let n = x.nrows() as f64;
    let var = x.var_axis(Axis(0), 0.0);
    if n == 0.0 {
        0.0
    } else {
        var.mean().unwrap_or(0.0)
    }
}
