//! DMKKM's F-step (docs/methods/dmkkm.md#f-step, Algorithm 1): for a fixed kernel K,
//! maximise Σ_l A_l / n_l over hard partitions by exact single-point moves
//! (kernel k-means with Hartigan-style moves instead of Lloyd's batch
//! reassignment), A_l = Σ_{i,j∈C_l} K_ij.
//!
//! Point i in cluster m, with g_l = Σ_{j∈C_l} K_ij (one pass over row i of
//! K, bucketed by label), has the closed-form gains (Eqs. 22 and 27)
//!   L(m) = A_m/n_m − (A_m − 2g_m + K_ii)/(n_m − 1)
//!   L(s) = (A_s + 2g_s + K_ii)/(n_s + 1) − A_s/n_s,   s ≠ m,
//! and moving i from m to s changes the objective by L(s) − L(m). A point
//! moves only on a strict gain (above a rounding tolerance relative to the
//! gains), so every move increases the objective and the sweeps end; a
//! point alone in its cluster stays (no cluster ever empties, and Eq. 22
//! would divide by zero). A_l and n_l are cached and updated per move, and
//! recomputed exactly at the start of every sweep so that rounding cannot
//! drift over thousands of moves.

use crate::error::Result;
use crate::solver::Ctx;
use crate::solver::reduce::fold_blocks;
use ndarray::ArrayView2;

/// Relative size below which a gain counts as rounding noise.
const GAIN_EPS: f64 = 1e-12;

/// Rows per task when summing within clusters.
const BLOCK: usize = 64;

/// What the F-step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sweeps {
    /// Full passes over the points.
    pub sweeps: usize,
    /// Points moved, over all sweeps.
    pub moves: usize,
    /// Σ_l A_l / n_l at the end (Eq. 13).
    pub objective: f64,
}

/// g_l = Σ_{j: label j = l} row_j. Four partial sums, one per lane of
/// j mod 4: neighbouring points often share a label (data sorted by
/// class), and one running sum per label would make every add wait for
/// the previous one.
fn label_sums(row: &[f64], labels: &[usize], g4: &mut [f64], g: &mut [f64]) {
    let c = g.len();
    g4.iter_mut().for_each(|v| *v = 0.0);
    let (lanes, rest) = g4.split_at_mut(3 * c);
    let (g0, lanes) = lanes.split_at_mut(c);
    let (g1, g2) = lanes.split_at_mut(c);
    let g3 = rest;
    let mut rc = row.chunks_exact(4);
    let mut lc = labels.chunks_exact(4);
    for (v, l) in (&mut rc).zip(&mut lc) {
        g0[l[0]] += v[0];
        g1[l[1]] += v[1];
        g2[l[2]] += v[2];
        g3[l[3]] += v[3];
    }
    for (v, &l) in rc.remainder().iter().zip(lc.remainder()) {
        g0[l] += v;
    }
    for s in 0..c {
        g[s] = (g0[s] + g1[s]) + (g2[s] + g3[s]);
    }
}

/// A_l (within-cluster kernel sums) and n_l of `labels` on the dense,
/// symmetric `k`, by a fixed-block reduction (same bits for any thread
/// count).
pub fn cluster_sums(k: ArrayView2<f64>, labels: &[usize], c: usize) -> (Vec<f64>, Vec<usize>) {
    let n = labels.len();
    let a = fold_blocks(
        n,
        BLOCK,
        |rows| {
            let mut acc = vec![0.0; c];
            for i in rows {
                let li = labels[i];
                let row = k.row(i);
                let row = row.as_slice().expect("standard layout");
                // Branch-free, so that the loop vectorises.
                let s: f64 = row
                    .iter()
                    .zip(labels)
                    .map(|(&v, &lj)| if lj == li { v } else { 0.0 })
                    .sum();
                acc[li] += s;
            }
            acc
        },
        vec![0.0; c],
        |mut tot, part| {
            for (t, p) in tot.iter_mut().zip(part) {
                *t += p;
            }
            tot
        },
    );
    let mut sizes = vec![0usize; c];
    for &l in labels {
        sizes[l] += 1;
    }
    (a, sizes)
}

/// Eq. 13: Σ_l A_l / n_l over the non-empty clusters.
pub fn objective(a: &[f64], sizes: &[usize]) -> f64 {
    a.iter()
        .zip(sizes)
        .filter(|(_, n)| **n > 0)
        .map(|(a, &n)| a / n as f64)
        .sum()
}

/// L(s) for every cluster s of a point in cluster `m` with diagonal `kii`
/// and bucketed row sums `g` (Eqs. 22 and 27). `sizes[m]` must be ≥ 2.
pub fn gains(a: &[f64], sizes: &[usize], g: &[f64], kii: f64, m: usize) -> Vec<f64> {
    let mut out = vec![0.0; a.len()];
    fill_gains(a, sizes, g, kii, m, &mut out);
    out
}

fn fill_gains(a: &[f64], sizes: &[usize], g: &[f64], kii: f64, m: usize, out: &mut [f64]) {
    for s in 0..a.len() {
        let ns = sizes[s] as f64;
        out[s] = if s == m {
            a[m] / ns - (a[m] - 2.0 * g[m] + kii) / (ns - 1.0)
        } else if sizes[s] == 0 {
            // An empty cluster would become the singleton {i}.
            kii
        } else {
            (a[s] + 2.0 * g[s] + kii) / (ns + 1.0) - a[s] / ns
        };
    }
}

/// Coordinate-descent sweeps over the points in index order from `labels`
/// (every cluster 0..c non-empty), until a sweep moves nothing, the
/// relative increase of Eq. 13 over a sweep falls below `inner_tol`, or
/// `max_sweeps`. `k` must be symmetric and in standard layout (row i is
/// column i). Checks `ctx` for cancellation inside the sweeps and reports
/// each sweep as stage progress.
///
/// # Errors
/// [`crate::Error::Cancelled`].
pub fn f_step(
    k: ArrayView2<f64>,
    labels: &mut [usize],
    c: usize,
    inner_tol: f64,
    max_sweeps: usize,
    ctx: &Ctx,
) -> Result<Sweeps> {
    let n = labels.len();
    assert_eq!(k.dim(), (n, n), "K must be n×n");
    let mut g = vec![0.0; c];
    let mut g4 = vec![0.0; 4 * c];
    let mut l = vec![0.0; c];
    let mut out = Sweeps {
        sweeps: 0,
        moves: 0,
        objective: 0.0,
    };
    let (mut a, mut sizes) = cluster_sums(k, labels, c);
    out.objective = objective(&a, &sizes);
    for sweep in 1..=max_sweeps {
        if sweep > 1 {
            (a, sizes) = cluster_sums(k, labels, c);
        }
        let before = objective(&a, &sizes);
        let mut moved = 0;
        for i in 0..n {
            if i % 256 == 0 {
                ctx.check()?;
            }
            let m = labels[i];
            if sizes[m] <= 1 {
                continue;
            }
            let row = k.row(i);
            let row = row.as_slice().expect("standard layout");
            label_sums(row, labels, &mut g4, &mut g);
            let kii = row[i];
            fill_gains(&a, &sizes, &g, kii, m, &mut l);
            // The first best cluster other than m.
            let mut best = usize::MAX;
            for s in 0..c {
                if s != m && (best == usize::MAX || l[s] > l[best]) {
                    best = s;
                }
            }
            if best == usize::MAX {
                continue;
            }
            let gain = l[best] - l[m];
            if gain > GAIN_EPS * l[m].abs().max(l[best].abs()) && gain > 0.0 {
                a[m] -= 2.0 * g[m] - kii;
                sizes[m] -= 1;
                a[best] += 2.0 * g[best] + kii;
                sizes[best] += 1;
                labels[i] = best;
                moved += 1;
            }
        }
        out.sweeps = sweep;
        out.moves += moved;
        ctx.stage(
            "dmkkm: F-step sweeps",
            sweep as f64 / max_sweeps.max(1) as f64,
        );
        out.objective = objective(&a, &sizes);
        let rise = (out.objective - before) / before.abs().max(f64::MIN_POSITIVE);
        if moved == 0 || rise < inner_tol {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};

    /// A random PSD K = XXᵀ and labels with every cluster non-empty.
    fn random_case(n: usize, c: usize, seed: u64) -> (Array2<f64>, Vec<usize>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let x = Array2::from_shape_fn((n, 3), |_| rng.random_range(-1.0..1.0));
        let k = x.dot(&x.t());
        let labels = (0..n)
            .map(|i| if i < c { i } else { rng.random_range(0..c) })
            .collect();
        (k, labels)
    }

    fn brute(k: &Array2<f64>, labels: &[usize], c: usize) -> f64 {
        let (a, s) = cluster_sums(k.view(), labels, c);
        objective(&a, &s)
    }

    #[test]
    fn closed_form_gains_equal_brute_force_differences() {
        let c = 4;
        let (k, labels) = random_case(30, c, 1);
        let (a, sizes) = cluster_sums(k.view(), &labels, c);
        let base = brute(&k, &labels, c);
        for i in 0..30 {
            let m = labels[i];
            if sizes[m] < 2 {
                continue;
            }
            let mut g = vec![0.0; c];
            for j in 0..30 {
                g[labels[j]] += k[[i, j]];
            }
            let l = gains(&a, &sizes, &g, k[[i, i]], m);
            for s in 0..c {
                let mut moved = labels.clone();
                moved[i] = s;
                let want = brute(&k, &moved, c) - base;
                let got = l[s] - l[m];
                assert!((want - got).abs() < 1e-10, "i {i} s {s}: {want} vs {got}");
            }
        }
    }

    #[test]
    fn every_sweep_increases_the_objective_and_keeps_every_cluster() {
        for seed in 0..5 {
            let c = 5;
            let (k, mut labels) = random_case(60, c, seed);
            let mut last = brute(&k, &labels, c);
            for _ in 0..10 {
                let s = f_step(k.view(), &mut labels, c, 0.0, 1, &Ctx::new()).unwrap();
                let now = brute(&k, &labels, c);
                assert!(now >= last - 1e-12 * last.abs(), "{now} < {last}");
                assert!((now - s.objective).abs() < 1e-9 * now.abs().max(1.0));
                let (_, sizes) = cluster_sums(k.view(), &labels, c);
                assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
                last = now;
            }
        }
    }

    #[test]
    fn converged_partitions_have_no_improving_move() {
        let c = 3;
        let (k, mut labels) = random_case(40, c, 9);
        f_step(k.view(), &mut labels, c, 0.0, 1000, &Ctx::new()).unwrap();
        let base = brute(&k, &labels, c);
        let (_, sizes) = cluster_sums(k.view(), &labels, c);
        for i in 0..40 {
            if sizes[labels[i]] < 2 {
                continue;
            }
            for s in 0..c {
                let mut moved = labels.clone();
                moved[i] = s;
                assert!(brute(&k, &moved, c) <= base + 1e-9 * base.abs());
            }
        }
    }

    #[test]
    fn positive_scaling_of_k_does_not_change_the_moves() {
        let c = 4;
        let (k, labels) = random_case(50, c, 4);
        let (mut a, mut b) = (labels.clone(), labels);
        f_step(k.view(), &mut a, c, 0.0, 100, &Ctx::new()).unwrap();
        let k2 = &k * 8.0;
        f_step(k2.view(), &mut b, c, 0.0, 100, &Ctx::new()).unwrap();
        assert_eq!(a, b);
    }
}
