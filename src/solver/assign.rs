//! Lloyd's assignment pass, shared by plain and bounded Lloyd and by
//! power k-means' settling test: nearest (and second-nearest) centres of
//! every row by one GEMM per cache block, the per-cluster sums, and the
//! sums moved by the rows that change cluster.

use super::nearest::argmin2_rows;
use super::reduce::fold_blocks;
use super::rows::{Centres, Rows, add_scaled};
use super::weights::argmin;
use ndarray::{Array1, Array2, ArrayView2, Zip};

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

/// Rows per cache block inside a task of [`full_pass`]. A multiple
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
    /// Per-cluster sums of the rows (f64, each row times its sample
    /// weight) and totals of the weights (the counts when unweighted).
    pub sums: Array2<f64>,
    pub totals: Vec<f64>,
}

/// Row `i`'s sample weight (1 without weights).
#[inline]
pub fn weight(w: Option<&[f64]>, i: usize) -> f64 {
    w.map_or(1.0, |w| w[i])
}

/// Per-cluster sums of the rows times their sample weights, and the
/// weight totals: [`cluster_sums`] when every weight is 1.
pub fn weighted_cluster_sums<'a>(
    x: impl Into<Rows<'a>>,
    w: Option<&[f64]>,
    labels: &[usize],
    k: usize,
) -> (Array2<f64>, Vec<f64>) {
    let x = x.into();
    let p = x.ncols();
    let block = |rows: std::ops::Range<usize>| {
        let mut sums = Array2::zeros((k, p));
        let mut totals = vec![0.0; k];
        for i in rows {
            let l = labels[i];
            let wi = weight(w, i);
            totals[l] += wi;
            x.add_scaled_row_to(i, wi, sums.row_mut(l));
        }
        (sums, totals)
    };
    fold_blocks(
        x.nrows(),
        BLOCK,
        block,
        (Array2::zeros((k, p)), vec![0.0; k]),
        |(mut sums, mut totals), (s, c)| {
            sums += &s;
            for (a, b) in totals.iter_mut().zip(c) {
                *a += b;
            }
            (sums, totals)
        },
    )
}

/// Labels, squared distances, and per-cluster sums and counts, in one pass
/// over `x`: each cache block's distances (a GEMM) are taken and its rows
/// added to their cluster's sum while the block is hot — one read of a
/// large matrix per iteration instead of two. Fixed blocks combined in
/// order: the same result for any thread count.
pub(super) fn full_pass(
    x: Rows,
    x_norms: Option<&[f64]>,
    w: Option<&[f64]>,
    c: &Centres,
    second: bool,
    sums: bool,
) -> Pass {
    let (n, p) = (x.nrows(), x.ncols());
    let k = c.k();
    let sums_wanted = sums;
    // Every row's label and distances are written in place by its task
    // (the outputs are allocated once, and their pages first touched by
    // the tasks in parallel); only the sums are combined, in task order.
    let mut labels = vec![0usize; n];
    let mut dists = vec![0.0f64; n];
    let mut seconds = vec![0.0f64; if second { n } else { 0 }];
    let tasks: Vec<_> = {
        let mut sec = seconds.chunks_mut(BLOCK);
        labels
            .chunks_mut(BLOCK)
            .zip(dists.chunks_mut(BLOCK))
            .enumerate()
            .map(|(t, (l, d))| (t * BLOCK, l, d, sec.next()))
            .collect()
    };
    let block =
        |(lo, labels, dists, mut second): (usize, &mut [usize], &mut [f64], Option<&mut [f64]>)| {
            let hi = lo + labels.len();
            let mut sums = Array2::<f64>::zeros((k, p));
            let mut totals = vec![0.0; k];
            let mut nearest = Vec::with_capacity(CACHE_ROWS);
            let mut r0 = lo;
            while r0 < hi {
                let r1 = (r0 + CACHE_ROWS).min(hi);
                // Without norms given, each cache block's are taken just
                // before its product, while its rows are in cache: one read of
                // the rows from memory instead of two.
                let own;
                let norms = match x_norms {
                    Some(all) => &all[r0..r1],
                    None => {
                        own = x.slice(r0, r1).sq_norms();
                        &own[..]
                    }
                };
                let d = x.block_dists(r0, r1, norms, c);
                let d = d.as_slice().expect("a fresh distance block");
                // The rows and sums as slices: `add_scaled_row_to`'s additions
                // without a view built per row.
                let flat = x.f64_slice(r0, r1).filter(|_| sums_wanted && p > 0);
                argmin2_rows(d, k, &mut nearest);
                for (i, &(l, v, v2)) in (r0..r1).zip(nearest.iter()) {
                    let wi = weight(w, i);
                    totals[l] += wi;
                    if let Some(xs) = flat {
                        let row = &xs[(i - r0) * p..(i - r0 + 1) * p];
                        let acc =
                            &mut sums.as_slice_mut().expect("a fresh sum")[l * p..(l + 1) * p];
                        add_scaled(acc, row, wi);
                    } else if sums_wanted {
                        x.add_scaled_row_to(i, wi, sums.row_mut(l));
                    }
                    labels[i - lo] = l;
                    dists[i - lo] = v;
                    if let Some(s) = second.as_deref_mut() {
                        s[i - lo] = v2;
                    }
                }
                r0 = r1;
            }
            (sums, totals)
        };
    use rayon::prelude::*;
    let parts: Vec<(Array2<f64>, Vec<f64>)> = tasks.into_par_iter().map(block).collect();
    let mut sums = Array2::<f64>::zeros((k, p));
    let mut totals = vec![0.0; k];
    for (s, t) in parts {
        sums += &s;
        for (a, b) in totals.iter_mut().zip(t) {
            *a += b;
        }
    }
    Pass {
        labels,
        dists,
        second: seconds,
        sums,
        totals,
    }
}

/// Moves the per-cluster sums and counts from the labels `prev` to
/// `next`: each row whose label changed is taken from its old cluster and
/// added to its new one, in fixed chunks of the changed rows combined in
/// order. Plain and bounded Lloyd both update their sums this way, so the
/// same labels give them the same centres, to the last bit.
pub(super) fn move_rows(
    x: Rows,
    w: Option<&[f64]>,
    prev: &[usize],
    next: &[usize],
    sums: &mut Array2<f64>,
    totals: &mut [f64],
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
                x.add_scaled_row_to(i, weight(w, i), row.view_mut());
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
        let wi = weight(w, i);
        totals[prev[i]] -= wi;
        totals[next[i]] += wi;
    }
}
