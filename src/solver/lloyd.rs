//! Lloyd's iteration with scikit-learn's semantics (for `kmeans`, and for
//! `spectral` on its embedding): tolerance relative to the
//! mean feature variance on the squared centre shift, strict convergence
//! when no label changes, empty clusters moved to the farthest points.

use super::fit::Fit;
use super::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use super::progress::Ctx;
use super::reduce::fold_blocks;
use super::weights::argmin;
use crate::error::Result;
use crate::linalg;
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
pub fn cluster_sums(x: ArrayView2<f64>, labels: &[usize], k: usize) -> (Array2<f64>, Vec<usize>) {
    let p = x.ncols();
    let block = |rows: std::ops::Range<usize>| {
        let mut sums = Array2::zeros((k, p));
        let mut counts = vec![0; k];
        for i in rows {
            let l = labels[i];
            counts[l] += 1;
            let mut row = sums.row_mut(l);
            row += &x.row(i);
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

/// Rows per cache block inside a task of [`assign_and_sum`].
const CACHE_ROWS: usize = 256;

/// Labels, squared distances, and per-cluster sums and counts, in one pass
/// over `x`: each cache block's distances (a GEMM) are taken and its rows
/// added to their cluster's sum while the block is hot — one read of a
/// large matrix per iteration instead of two. Fixed blocks combined in
/// order: the same result for any thread count.
pub fn assign_and_sum(
    x: ArrayView2<f64>,
    x_norms: &[f64],
    centres: ArrayView2<f64>,
) -> (Vec<usize>, Vec<f64>, Array2<f64>, Vec<usize>) {
    let (n, p) = x.dim();
    let k = centres.nrows();
    let c_norms = linalg::row_sq_norms(centres);
    let block = |rows: std::ops::Range<usize>| {
        let (lo, hi) = (rows.start, rows.end);
        let mut sums = Array2::<f64>::zeros((k, p));
        let mut counts = vec![0; k];
        let mut labels = Vec::with_capacity(hi - lo);
        let mut dists = Vec::with_capacity(hi - lo);
        let mut r0 = lo;
        while r0 < hi {
            let r1 = (r0 + CACHE_ROWS).min(hi);
            let xb = x.slice(ndarray::s![r0..r1, ..]);
            let d = linalg::sq_dists_with(xb, &x_norms[r0..r1], centres, &c_norms, false);
            for (row, dr) in xb.rows().into_iter().zip(d.rows()) {
                let (l, v) = argmin(dr.iter().copied());
                counts[l] += 1;
                let mut acc = sums.row_mut(l);
                acc += &row;
                labels.push(l);
                dists.push(v);
            }
            r0 = r1;
        }
        (labels, dists, sums, counts)
    };
    let init = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Array2::<f64>::zeros((k, p)),
        vec![0; k],
    );
    fold_blocks(
        n,
        BLOCK,
        block,
        init,
        |(mut labels, mut dists, mut sums, mut counts), (l, d, s, c)| {
            labels.extend(l);
            dists.extend(d);
            sums += &s;
            for (a, b) in counts.iter_mut().zip(c) {
                *a += b;
            }
            (labels, dists, sums, counts)
        },
    )
}

/// Lloyd iterations from the given centres. `tol_abs` bounds the total
/// squared centre shift.
pub fn lloyd_loop(
    x: ArrayView2<f64>,
    x_norms: &[f64],
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = centres.nrows();
    let mut step = LloydStep {
        x,
        x_norms,
        centres,
        tol_abs,
        shift: f64::INFINITY,
        pending: None,
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

/// One Lloyd iteration: assignment and cluster sums in one pass, then the
/// means (an empty cluster moves to the farthest point, as scikit-learn).
struct LloydStep<'a> {
    x: ArrayView2<'a, f64>,
    x_norms: &'a [f64],
    centres: Array2<f64>,
    tol_abs: f64,
    /// Squared centre shift of the last update.
    shift: f64,
    /// Distances, sums and counts of the last assignment.
    pending: Option<(Vec<f64>, Array2<f64>, Vec<usize>)>,
}

impl Step for LloydStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let (lab, dist, sums, counts) = assign_and_sum(self.x, self.x_norms, self.centres.view());
        let inertia: f64 = dist.iter().sum();
        let settled = lab == it.prev_labels || self.shift <= self.tol_abs;
        self.pending = Some((dist, sums, counts));
        Ok(Eval::new(inertia, lab, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let Some((dist, sums, counts)) = self.pending.take() else {
            return Ok(());
        };
        let k = self.centres.nrows();
        let mut next = sums;
        let far = farthest(&dist, counts.iter().filter(|&&c| c == 0).count());
        let mut far = far.into_iter();
        for j in 0..k {
            if counts[j] == 0 {
                // sklearn: an empty cluster moves to a far-away point.
                let i = far.next().expect("enough points");
                next.row_mut(j).assign(&self.x.row(i));
            } else {
                next.row_mut(j).mapv_inplace(|v| v / counts[j] as f64);
            }
        }
        self.shift = (&next - &self.centres).mapv(|v| v * v).sum();
        self.centres = next;
        Ok(())
    }
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
