//! Bounds that let Lloyd's assignment skip rows (Hamerly 2010), kept so
//! that the labels are exactly those every distance would give.
//!
//! Per row: an upper bound u on the distance to its centre and a lower
//! bound l on the distance to any other centre, loosened by how far the
//! centres move. A row is skipped when u² + 2m < max(l, h − u)², h being
//! the distance from its centre to the nearest other centre and m a bound
//! on the rounding error of a computed squared distance ‖x‖² + ‖c‖² −
//! 2x·c: then the computed distance to its centre is strictly below every
//! other computed distance, and the full pass would pick the same label.
//! The rows that are not skipped are recomputed by the same GEMM as the
//! full pass, in blocks of the same length (faer's result for a row
//! depends on the block's shape, not on the other rows), so their
//! distances are the full pass's to the last bit.

use super::assign::{CACHE_ROWS, Pass};
use super::nearest::argmin2_rows;
use super::rows::{Centres, Rows};
use ndarray::ArrayView2;
use rayon::prelude::*;

/// Rows per parallel task of the bound test: whole cache blocks.
const TEST_ROWS: usize = 16 * CACHE_ROWS;

/// Unsettled rows from which a cache block is recomputed where it lies
/// rather than gathered with others: a GEMM of a whole block costs what a
/// gathered one does, without the copy.
const DENSE: usize = CACHE_ROWS / 2;

#[derive(Debug, Default, Clone)]
pub(super) struct Bounds {
    upper: Vec<f64>,
    lower: Vec<f64>,
    /// How far each centre moved in the last update (rounded up).
    moved: Vec<f64>,
    /// The rounding-error factor of a squared distance, per unit of
    /// ‖x‖² + ‖c‖².
    gamma: f64,
    ready: bool,
}

/// The rounding error of ‖x‖² + ‖c‖² − 2x·c for rows of `x`, relative to
/// ‖x‖² + ‖c‖²: twice the dot product's bound (p + 1)·ε·‖x‖‖c‖, with room.
fn gamma(x: &Rows) -> f64 {
    let eps = match x {
        Rows::F64(_) => f64::EPSILON,
        Rows::F32(_) => f64::from(f32::EPSILON),
    };
    2.0 * (x.ncols() as f64 + 2.0) * eps
}

/// `v` rounded up (`up`) or down by a relative margin far above the
/// rounding of the square roots and sums that computed it.
fn widen(v: f64, up: bool) -> f64 {
    const REL: f64 = 1e-12;
    if up { v * (1.0 + REL) } else { v * (1.0 - REL) }
}

/// A row's tight bounds from its squared distances to the nearest and the
/// second nearest centre (`v1`, `v2`) and their rounding bound `m`.
fn tight(v1: f64, v2: f64, m: f64) -> (f64, f64) {
    (
        widen((v1 + m).sqrt(), true),
        widen((v2 - m).max(0.0).sqrt(), false),
    )
}

impl Bounds {
    pub(super) fn ready(&self) -> bool {
        self.ready
    }

    /// The per-row bounds (upper, lower) and the rounding factor: what a
    /// started bound set must keep between iterations ([`Bounds::moved`]
    /// sets the rest before each [`Bounds::assign`]).
    pub(super) fn parts(&self) -> (&[f64], &[f64], f64) {
        (&self.upper, &self.lower, self.gamma)
    }

    /// Started bounds from [`Bounds::parts`].
    pub(super) fn from_parts(upper: Vec<f64>, lower: Vec<f64>, gamma: f64) -> Bounds {
        Bounds {
            upper,
            lower,
            moved: Vec::new(),
            gamma,
            ready: true,
        }
    }

    /// Tight bounds from a full pass with second distances.
    pub(super) fn start(&mut self, x: Rows, pass: &Pass, x_norms: &[f64], c: &Centres) {
        self.gamma = gamma(&x);
        let cmax = c.norms.iter().copied().fold(0.0, f64::max);
        let n = pass.labels.len();
        self.upper.resize(n, 0.0);
        self.lower.resize(n, 0.0);
        for i in 0..n {
            let m = self.gamma * (x_norms[i] + cmax);
            (self.upper[i], self.lower[i]) = tight(pass.dists[i], pass.second[i], m);
        }
        self.moved.clear();
        self.ready = true;
    }

    /// The centres moved by the rows of `diff` (new − old).
    pub(super) fn moved(&mut self, diff: ArrayView2<f64>) {
        self.moved = diff
            .rows()
            .into_iter()
            .map(|r| widen(r.dot(&r).sqrt(), true))
            .collect();
    }

    /// The labels at the centres `c`, from `prev` (the labels at the
    /// centres before the last move): rows the bounds settle keep theirs,
    /// the others are recomputed.
    pub(super) fn assign(
        &mut self,
        x: Rows,
        x_norms: &[f64],
        c: &Centres,
        prev: &[usize],
    ) -> Vec<usize> {
        let k = c.k();
        let n = prev.len();
        // The largest and second largest move, for the lower bounds.
        let (mut j1, mut d1, mut d2) = (0, 0.0, 0.0);
        for (j, &d) in self.moved.iter().enumerate() {
            if d > d1 {
                (j1, d2, d1) = (j, d1, d);
            } else if d > d2 {
                d2 = d;
            }
        }
        // Distance from each centre to the nearest other, rounded down.
        let mut nearest = vec![f64::INFINITY; k];
        for a in 0..k {
            for b in 0..k {
                if a != b {
                    let d = &c.c.row(a) - &c.c.row(b);
                    nearest[a] = nearest[a].min(widen(d.dot(&d).sqrt(), false));
                }
            }
        }
        let cmax = c.norms.iter().copied().fold(0.0, f64::max);
        let gamma = self.gamma;
        let moved = &self.moved;
        let mut labels = vec![0usize; n];
        // Loosen the bounds by the moves and test every row, in tasks that
        // own their rows' labels and bounds. A cache block (aligned as the
        // full pass's) where most rows are unsettled is recomputed where it
        // lies, its distances those of the full pass by construction; the
        // unsettled rows of the other blocks are gathered below.
        let sparse: Vec<usize> = self
            .upper
            .par_chunks_mut(TEST_ROWS)
            .zip(self.lower.par_chunks_mut(TEST_ROWS))
            .zip(labels.par_chunks_mut(TEST_ROWS))
            .enumerate()
            .map(|(t, ((up, lo), lab))| {
                let start = t * TEST_ROWS;
                lab.copy_from_slice(&prev[start..start + lab.len()]);
                let mut out = Vec::new();
                let mut rows = Vec::with_capacity(CACHE_ROWS);
                let mut found = Vec::with_capacity(CACHE_ROWS);
                for b0 in (0..lab.len()).step_by(CACHE_ROWS) {
                    let b1 = (b0 + CACHE_ROWS).min(lab.len());
                    rows.clear();
                    for r in b0..b1 {
                        let i = start + r;
                        let a = lab[r];
                        let (u, l) = (&mut up[r], &mut lo[r]);
                        *u = widen(*u + moved[a], true);
                        *l = (*l - if a == j1 { d2 } else { d1 }).max(0.0);
                        let reach = l.max(nearest[a] - *u);
                        let m = gamma * (x_norms[i] + cmax);
                        if !(reach > 0.0 && *u * *u + 2.0 * m < reach * reach) {
                            rows.push(r);
                        }
                    }
                    if rows.len() < DENSE {
                        out.extend(rows.iter().map(|&r| start + r));
                        continue;
                    }
                    let (i0, i1) = (start + b0, start + b1);
                    let d = x.block_dists(i0, i1, &x_norms[i0..i1], c);
                    argmin2_rows(d.as_slice().expect("a fresh distance block"), k, &mut found);
                    for &r in &rows {
                        let (l, v1, v2) = found[r - b0];
                        let m = gamma * (x_norms[start + r] + cmax);
                        lab[r] = l;
                        (up[r], lo[r]) = tight(v1, v2, m);
                    }
                }
                out
            })
            .flatten()
            .collect();
        // Recompute the other rows in blocks as long as the full pass's:
        // the rows of full blocks together, those of the short last block
        // apart.
        let full_end = n / CACHE_ROWS * CACHE_ROWS;
        let split = sparse.partition_point(|&i| i < full_end);
        let mut chunks: Vec<(&[usize], usize)> = sparse[..split]
            .chunks(CACHE_ROWS)
            .map(|ch| (ch, CACHE_ROWS))
            .collect();
        if split < sparse.len() {
            chunks.push((&sparse[split..], n - full_end));
        }
        let found: Vec<Vec<(usize, f64, f64)>> = chunks
            .par_iter()
            .map(|&(rows, len)| {
                let block = x.gather_padded(rows, len);
                let mut norms = vec![0.0; len];
                for (r, &i) in rows.iter().enumerate() {
                    norms[r] = x_norms[i];
                }
                let d = block.view().block_dists(0, len, &norms, c);
                let mut found = Vec::with_capacity(len);
                argmin2_rows(
                    d.as_slice().expect("a fresh distance block"),
                    c.k(),
                    &mut found,
                );
                found.truncate(rows.len());
                found
            })
            .collect();
        for (&(rows, _), found) in chunks.iter().zip(found) {
            for (&i, (l, v1, v2)) in rows.iter().zip(found) {
                let m = gamma * (x_norms[i] + cmax);
                labels[i] = l;
                (self.upper[i], self.lower[i]) = tight(v1, v2, m);
            }
        }
        labels
    }
}
