//! Lloyd's iteration on CSR rows, with the semantics of the dense
//! [`crate::solver::lloyd`]: tolerance (absolute here, the caller scales it
//! by [`Csr::mean_variance`]) on the squared centre shift, strict
//! convergence when no label changes, empty clusters moved to the farthest
//! points (the dense loop's relocation itself). From the same centres it takes the dense loop's labels and
//! iterations, and its centres and objective to rounding.

use super::Csr;
use super::products::CentresT;
use crate::error::Result;
use crate::solver::fit::Fit;
use crate::solver::init::{Init, weighted_seeds};
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::lloyd::{Far, average, farthest, relocate, say_why_stopped};
use crate::solver::progress::Ctx;
use crate::solver::{Common, Start};
use ndarray::Array2;

/// Seed rows (k-means++ or random, weighted by the sample weights `w`)
/// of a CSR matrix, as [`crate::solver::init::weighted_euclidean_seeds`]
/// picks them on the dense rows.
///
/// # Errors
/// As [`weighted_seeds`]: k out of range, fewer distinct points than k.
pub fn csr_seeds<R: rand::Rng>(
    x: &Csr,
    norms: &[f64],
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    weighted_seeds(x.nrows(), w, k, init, rng, |cands| {
        x.sq_dists_to_rows(norms, cands)
    })
}

/// The centres a start on CSR rows begins from: the given ones, or seeds
/// drawn with the start's generator (the dense starts' draws: matched
/// starts).
///
/// # Errors
/// As [`csr_seeds`].
pub fn initial_centres(
    x: &Csr,
    norms: &[f64],
    w: Option<&[f64]>,
    run: &Common,
    start: Start,
) -> Result<Array2<f64>> {
    if let Some(c) = &run.centres {
        return Ok((**c).clone());
    }
    let seeds = csr_seeds(x, norms, w, run.k, run.init, &mut start.rng())?;
    Ok(x.select(&seeds))
}

/// One start of `kmeans` on CSR rows: its centres, then Lloyd with `tol`
/// relative to the (unweighted) mean feature variance, as the dense
/// `kmeans`.
///
/// # Errors
/// As [`initial_centres`] and [`csr_lloyd`].
#[allow(clippy::too_many_arguments)]
pub fn kmeans_csr(
    x: &Csr,
    norms: &[f64],
    w: Option<&[f64]>,
    run: &Common,
    start: Start,
    tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let centres = initial_centres(x, norms, w, run, start)?;
    let tol_abs = tol * x.mean_variance();
    csr_lloyd(x, norms, w, centres, tol_abs, max_iter, ctx)
}

/// Peak bytes of one such start beyond the rows: the seeding, the
/// distances, and three k × p dense arrays (the centres transposed, the
/// cluster sums, the next centres).
pub fn start_memory(n: usize, p: usize, k: usize, init: Init) -> crate::solver::StartMemory {
    crate::solver::StartMemory::seeding(n, k, init).plus(
        (3.0 * k as f64 * p as f64 + n as f64) * 8.0,
        &format!("3 dense k × p arrays (p = {p}) and n distances"),
    )
}

/// Lloyd iterations from the given centres on CSR rows (`norms` their
/// squared norms), rows weighted by `w` (None: all 1; a cluster of total
/// weight 0 is empty); `tol_abs` bounds the total squared centre shift.
///
/// # Errors
/// [`crate::Error::Cancelled`] once `ctx` is cancelled.
pub fn csr_lloyd(
    x: &Csr,
    norms: &[f64],
    w: Option<&[f64]>,
    centres: Array2<f64>,
    tol_abs: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = centres.nrows();
    let mut step = CsrLloyd {
        x,
        norms,
        w,
        centres,
        tol_abs,
        shift: f64::INFINITY,
        sums: None,
        dists: Vec::new(),
        labels: Vec::new(),
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter,
        k,
        events: true,
    };
    let mut fit = iterate(&mut step, how, ctx)?;
    say_why_stopped(&mut fit, step.shift, tol_abs);
    fit.centroids = Some(step.centres);
    Ok(fit)
}

struct CsrLloyd<'x> {
    x: &'x Csr,
    norms: &'x [f64],
    w: Option<&'x [f64]>,
    centres: Array2<f64>,
    tol_abs: f64,
    /// Squared centre shift of the last update.
    shift: f64,
    /// Per-cluster sums and weight totals at the last labels.
    sums: Option<(Array2<f64>, Vec<f64>)>,
    /// Every row's squared distance to its centre (empty clusters).
    dists: Vec<f64>,
    /// The labels of the last assignment.
    labels: Vec<usize>,
}

impl Step for CsrLloyd<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let c = CentresT::new(self.centres.view());
        let (labels, dists) = self.x.nearest(self.norms, &c);
        let inertia = match self.w {
            None => dists.iter().sum(),
            Some(w) => dists.iter().zip(w).map(|(a, b)| a * b).sum(),
        };
        self.sums = Some(self.x.cluster_sums(&labels, c.k(), self.w));
        self.dists = dists;
        self.labels = labels.clone();
        let settled = labels == it.prev_labels || self.shift <= self.tol_abs;
        Ok(Eval::new(inertia, labels, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let (mut next, mut totals) = self.sums.take().expect("advance after eval");
        let far = self.farthest_rows(totals.iter().filter(|&&t| t == 0.0).count());
        relocate(&far, &mut next, &mut totals);
        average(&mut next, &totals);
        self.shift = (&next - &self.centres).mapv(|v| v * v).sum();
        self.centres = next;
        Ok(())
    }
}

impl CsrLloyd<'_> {
    /// The `m` rows of positive weight farthest from their centre, as the
    /// dense loop's relocation takes them (farthest first, ties to the
    /// lower index).
    fn farthest_rows(&self, m: usize) -> Vec<Far> {
        if m == 0 {
            return Vec::new();
        }
        let weight = |i: usize| self.w.map_or(1.0, |w| w[i]);
        // Rows of weight 0 last, as the dense loop ranks them.
        let ranked: Vec<f64> = (0..self.dists.len())
            .map(|i| {
                if weight(i) > 0.0 {
                    self.dists[i]
                } else {
                    f64::NEG_INFINITY
                }
            })
            .collect();
        let idx = farthest(&ranked, m);
        idx.into_iter()
            .map(|i| {
                let mut row = vec![0.0; self.x.ncols()];
                self.x.add_row_to(i, &mut row, 1.0);
                Far {
                    dist: ranked[i],
                    index: i,
                    label: self.labels[i],
                    weight: weight(i),
                    row,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::lloyd::{lloyd_loop, mean_variance};
    use rand::{Rng, SeedableRng};

    /// n × p with about `density` nonzeros, an empty row, an all-zero
    /// column and a duplicated row; values clustered around k sparse
    /// prototypes so Lloyd takes a few iterations.
    fn sparse_data(n: usize, p: usize, density: f64, seed: u64) -> Array2<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let protos = 4;
        let mut x = Array2::<f64>::zeros((n, p));
        for i in 0..n {
            let g = i % protos;
            for j in 0..p - 1 {
                let near = j % protos == g;
                let pr = if near { 3.0 * density } else { density };
                if rng.random::<f64>() < pr.min(1.0) {
                    x[[i, j]] = rng.random::<f64>() * if near { 4.0 } else { 1.0 };
                }
            }
        }
        x.row_mut(1).fill(0.0);
        let r = x.row(2).to_owned();
        x.row_mut(n - 1).assign(&r);
        x
    }

    #[test]
    fn csr_lloyd_is_dense_lloyd_from_the_same_centres() {
        let ctx = Ctx::default();
        for &(n, p, density, k) in &[
            (60, 8, 0.3, 3),
            (300, 40, 0.1, 5),
            (1200, 200, 0.02, 8),
            (2500, 30, 0.5, 4),
            (700, 500, 0.005, 6),
        ] {
            let d = sparse_data(n, p, density, n as u64);
            let x = Csr::from_dense(d.view()).unwrap();
            let norms = x.sq_norms();
            let tol = 1e-4 * x.mean_variance();
            let dense_tol = 1e-4 * mean_variance(d.view());
            assert!((tol - dense_tol).abs() <= 1e-12 * dense_tol);
            for seed in 0..3 {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let seeds = csr_seeds(&x, &norms, None, k, Init::KmeansPP, &mut rng).unwrap();
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let dense_seeds = crate::solver::init::euclidean_seeds(
                    d.view(),
                    &norms,
                    k,
                    Init::KmeansPP,
                    &mut rng,
                )
                .unwrap();
                assert_eq!(seeds, dense_seeds, "{n}×{p} seed {seed}");
                let c0 = x.select(&seeds);
                let a = csr_lloyd(&x, &norms, None, c0.clone(), tol, 300, &ctx).unwrap();
                let b = lloyd_loop(d.view(), &norms, c0, dense_tol, 300, &ctx).unwrap();
                let what = format!("{n}×{p} at {density}, k = {k}, seed {seed}");
                assert_eq!(a.labels, b.labels, "{what}");
                assert_eq!(a.iterations, b.iterations, "{what}");
                assert_eq!(a.converged, b.converged, "{what}");
                let rel = |u: f64, v: f64| (u - v).abs() <= 1e-12 * v.abs().max(1.0);
                assert!(rel(a.objective, b.objective), "{what}");
                let (ca, cb) = (a.centroids.unwrap(), b.centroids.unwrap());
                assert!(ca.iter().zip(&cb).all(|(&u, &v)| rel(u, v)), "{what}");
            }
        }
    }

    #[test]
    fn an_empty_cluster_moves_to_the_farthest_row_as_dense() {
        // Centre 2 is far from everything: its cluster is empty at once.
        let d = sparse_data(200, 20, 0.2, 9);
        let x = Csr::from_dense(d.view()).unwrap();
        let norms = x.sq_norms();
        let mut c0 = x.select(&[0, 1, 3]);
        c0.row_mut(2).fill(1e3);
        let ctx = Ctx::default();
        let a = csr_lloyd(&x, &norms, None, c0.clone(), 0.0, 50, &ctx).unwrap();
        let b = lloyd_loop(d.view(), &norms, c0, 0.0, 50, &ctx).unwrap();
        assert_eq!(a.labels, b.labels);
        assert_eq!(a.iterations, b.iterations);
        assert_eq!(a.extra.converged_by, b.extra.converged_by);
        assert!(a.labels.contains(&2), "the emptied centre took rows again");
    }

    #[test]
    fn relocation_is_the_dense_loops_with_weights_and_repeated_rows() {
        // Two empty clusters at once, rows of weight 0 among the farthest,
        // and repeated rows: the relocated row leaves its old cluster, as in
        // the dense loop (and scikit-learn).
        let mut d = sparse_data(150, 12, 0.3, 4);
        for i in 100..150 {
            let r = d.row(i % 5).to_owned();
            d.row_mut(i).assign(&r);
        }
        let x = Csr::from_dense(d.view()).unwrap();
        let norms = x.sq_norms();
        let w: Vec<f64> = (0..150).map(|i| [0.0, 1.0, 2.5][i % 3]).collect();
        let mut c0 = x.select(&[0, 1, 3, 4]);
        c0.row_mut(2).fill(1e3);
        c0.row_mut(3).fill(-1e3);
        let ctx = Ctx::default();
        for w in [None, Some(&w[..])] {
            let a = csr_lloyd(&x, &norms, w, c0.clone(), 1e-9, 50, &ctx).unwrap();
            let dense = crate::solver::lloyd::weighted_lloyd_loop;
            let b = dense(d.view(), &norms, w, c0.clone(), 1e-9, 50, false, &ctx).unwrap();
            let what = if w.is_some() {
                "weighted"
            } else {
                "unweighted"
            };
            assert_eq!(a.labels, b.labels, "{what}");
            assert_eq!(a.iterations, b.iterations, "{what}");
            assert_eq!(a.extra.converged_by, b.extra.converged_by, "{what}");
            let (ca, cb) = (a.centroids.unwrap(), b.centroids.unwrap());
            let close = |u: f64, v: f64| (u - v).abs() <= 1e-12 * v.abs().max(1.0);
            assert!(ca.iter().zip(&cb).all(|(&u, &v)| close(u, v)), "{what}");
        }
    }

    #[test]
    fn too_few_distinct_rows_are_refused() {
        let d = ndarray::array![[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]];
        let x = Csr::from_dense(d.view()).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let e = csr_seeds(&x, &x.sq_norms(), None, 3, Init::KmeansPP, &mut rng).unwrap_err();
        assert!(e.to_string().contains("distinct"), "{e}");
    }
}
