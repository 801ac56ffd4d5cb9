//! The feature-weighted family's per-block step for distributed drivers
//! (`meanscape.dask`'s `WKMeans` and `LWKMeans`): what one block of rows
//! contributes to an iteration of [`super::common::weighted_loop`] (and
//! to the plain Lloyd of `lw`'s initial partition), and how blocks merge.
//!
//! An iteration of the block-coordinate loop needs two passes over the
//! rows, because the dispersions are taken about the centres of the whole
//! partition: pass 1 reassigns every row at the previous centres and
//! weights ([`assign_block`], the block's labels stay with the block) and
//! sums the rows per cluster (Lloyd's statistics, [`LloydStats`], merged
//! by [`LloydStats::merge`]; [`cluster_means`] gives the means);
//! pass 2 adds up the per-feature dispersions about those means
//! ([`dispersion_block`], a plain sum over blocks). Each step is the one
//! the in-memory loop runs (the same distances, tie rule and sums), so
//! the two agree up to the order of the floating-point additions.

use super::common::{assign_keep, dispersions, weighted_sq_dists};
use super::points::Points;
use crate::solver::block::{LloydStats, far_rows};
use crate::solver::lloyd::assign;
use crate::solver::rows::Rows;
use ndarray::{Array2, ArrayView2};

/// The cluster means of merged statistics; a cluster with no weight keeps
/// its row of `prev` or, without one, sits at the origin (as
/// [`super::common::cluster_means`]).
pub fn cluster_means(stats: &LloydStats, prev: Option<ArrayView2<f64>>) -> Array2<f64> {
    let mut z = stats.sums.clone();
    for (j, &c) in stats.totals.iter().enumerate() {
        if c > 0.0 {
            z.row_mut(j).mapv_inplace(|v| v / c);
        } else if let Some(p) = prev {
            z.row_mut(j).assign(&p.row(j));
        }
    }
    z
}

/// Assigns the rows of a block to `centres` and sums them per cluster
/// (Lloyd's statistics: the same merge serves both families).
/// `multipliers`: the per-feature factors `v_l` of the weighted distance
/// `Σ_l v_l (x_l − z_l)²` (None: the plain squared distance, the loop's
/// first assignment). `current`: the block's labels so far, kept on ties
/// (`assign_keep`); None takes the nearest centre, lowest index on ties
/// (`assign`). `sw`: the block's sample weights. The `keep` rows farthest
/// from their new centre come along (`offset`: the global index of the
/// block's first row), for lw's initial k-means, which moves an empty
/// cluster there. Returns the statistics and the new labels.
pub fn assign_block(
    x: Rows,
    sw: Option<&[f64]>,
    centres: ArrayView2<f64>,
    multipliers: Option<&[f64]>,
    current: Option<&[usize]>,
    offset: usize,
    keep: usize,
) -> (LloydStats, Vec<usize>) {
    let d = match multipliers {
        Some(v) => weighted_sq_dists(x, v, centres),
        None => x.sq_dists(&x.sq_norms(), centres),
    };
    let (labels, changed) = match current {
        Some(cur) => assign_keep(d.view(), cur),
        None => (assign(d.view()).0, x.nrows()),
    };
    let dists: Vec<f64> = labels.iter().enumerate().map(|(i, &l)| d[[i, l]]).collect();
    let inertia = match sw {
        None => dists.iter().sum(),
        Some(w) => dists.iter().zip(w).map(|(d, w)| w * d).sum(),
    };
    let mut stats = label_sums(x, sw, &labels, centres.nrows());
    stats.inertia = inertia;
    stats.changed = changed as u64;
    stats.far = far_rows(x, sw, &dists, &labels, offset, keep);
    (stats, labels)
}

/// The rows of a block summed per cluster of the given `labels` (k
/// clusters): sums, totals and counts; nothing else.
pub fn label_sums(x: Rows, sw: Option<&[f64]>, labels: &[usize], k: usize) -> LloydStats {
    let mut counts = vec![0u64; k];
    for &l in labels {
        counts[l] += 1;
    }
    let (sums, totals) = Points::Dense(x).cluster_sums(sw, labels, k);
    LloydStats {
        sums,
        totals,
        inertia: 0.0,
        counts,
        changed: 0,
        rows: x.nrows(),
        far: Vec::new(),
    }
}

/// The block's per-feature dispersions about its clusters' centres:
/// `Σ_i s_i (x_il − z_{c(i),l})²`; the blocks' vectors add up to the
/// whole data's.
pub fn dispersion_block(
    x: Rows,
    sw: Option<&[f64]>,
    labels: &[usize],
    centres: ArrayView2<f64>,
) -> Vec<f64> {
    dispersions(x, sw, labels, centres)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::s;

    fn data(n: usize, p: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, p), |(i, j)| {
            ((i * 7 + j * 13) % 17) as f64 * 0.37 + (i % 3) as f64 * 5.0 + (j as f64) * 0.1
        })
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn halves_merge_to_the_whole() {
        let x = data(301, 4);
        let c = x.slice(s![0..3, ..]).to_owned();
        let w: Vec<f64> = (0..301).map(|i| 0.5 + (i % 4) as f64).collect();
        let v = [1.0, 0.25, 0.0, 2.0];
        let cur: Vec<usize> = (0..301).map(|i| i % 3).collect();
        for (mult, sw, keep) in [
            (None, None, None),
            (Some(&v[..]), Some(&w[..]), Some(&cur[..])),
        ] {
            let (whole, lab) = assign_block(x.view().into(), sw, c.view(), mult, keep, 0, 3);
            let cut = 120;
            let (a, la) = assign_block(
                x.slice(s![..cut, ..]).into(),
                sw.map(|w| &w[..cut]),
                c.view(),
                mult,
                keep.map(|l| &l[..cut]),
                0,
                3,
            );
            let (b, lb) = assign_block(
                x.slice(s![cut.., ..]).into(),
                sw.map(|w| &w[cut..]),
                c.view(),
                mult,
                keep.map(|l| &l[cut..]),
                cut,
                3,
            );
            assert_eq!([la, lb].concat(), lab);
            let m = LloydStats::merge(vec![a, b], 3);
            assert_eq!(m.far, whole.far);
            assert_eq!(m.far.len(), 3);
            assert_eq!(m.counts, whole.counts);
            assert_eq!(m.changed, whole.changed);
            assert_eq!(m.rows, 301);
            assert!(m.counts.iter().all(|&c| c > 0));
            assert!(close(m.inertia, whole.inertia));
            for (p, q) in m.sums.iter().zip(whole.sums.iter()) {
                assert!(close(*p, *q));
            }
            for (p, q) in m.totals.iter().zip(&whole.totals) {
                assert!(close(*p, *q));
            }
            // The dispersions about the merged means add up the same way.
            let z = cluster_means(&m, None);
            let by_labels = label_sums(x.view().into(), sw, &lab, 3);
            assert_eq!(by_labels.counts, m.counts);
            let d = dispersion_block(x.view().into(), sw, &lab, z.view());
            let da = dispersion_block(
                x.slice(s![..cut, ..]).into(),
                sw.map(|w| &w[..cut]),
                &lab[..cut],
                z.view(),
            );
            let db = dispersion_block(
                x.slice(s![cut.., ..]).into(),
                sw.map(|w| &w[cut..]),
                &lab[cut..],
                z.view(),
            );
            for l in 0..4 {
                assert!(
                    close(da[l] + db[l], d[l]),
                    "{l}: {} vs {}",
                    da[l] + db[l],
                    d[l]
                );
                assert!(d[l] > 0.0);
            }
        }
    }

    #[test]
    fn an_empty_cluster_keeps_its_previous_centre() {
        let x = data(20, 2);
        let mut c = x.slice(s![0..2, ..]).to_owned();
        c.row_mut(1).fill(1e6);
        let (st, labels) = assign_block(x.view().into(), None, c.view(), None, None, 0, 0);
        assert!(labels.iter().all(|&l| l == 0));
        assert_eq!(st.counts, vec![20, 0]);
        let z = cluster_means(&st, Some(c.view()));
        assert_eq!(z.row(1), c.row(1));
        let mean = x.sum_axis(ndarray::Axis(0)) / 20.0;
        for (a, b) in z.row(0).iter().zip(&mean) {
            assert!(close(*a, *b));
        }
    }
}
