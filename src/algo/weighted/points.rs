//! The rows the feature-weighted family reads: dense (f64 or f32, as the
//! Euclidean solvers store them) or sparse CSR rows. Every step of WK-means,
//! LW-k-means and sparse k-means is a per-feature sum or a weighted
//! distance, both of which CSR rows give per nonzero, so text and count
//! data run without an n × p copy.

use crate::error::Result;
use crate::solver::csr::Csr;
use crate::solver::lloyd::weighted_cluster_sums;
use crate::solver::rows::Rows;
use crate::solver::{Init, Problem, Rng, init};
use ndarray::{Array2, ArrayView2};

#[derive(Debug, Clone, Copy)]
pub enum Points<'a> {
    Dense(Rows<'a>),
    Sparse(&'a Csr),
}

impl<'a> From<Rows<'a>> for Points<'a> {
    fn from(x: Rows<'a>) -> Self {
        Points::Dense(x)
    }
}

impl<'a> From<ArrayView2<'a, f64>> for Points<'a> {
    fn from(x: ArrayView2<'a, f64>) -> Self {
        Points::Dense(Rows::F64(x))
    }
}

impl<'a> From<&'a Csr> for Points<'a> {
    fn from(x: &'a Csr) -> Self {
        Points::Sparse(x)
    }
}

impl<'a> Points<'a> {
    /// The problem's rows: its CSR matrix when it holds one.
    pub fn of(problem: &'a Problem) -> Self {
        match problem.csr() {
            Some(x) => Points::Sparse(x),
            None => Points::Dense(problem.x.rows()),
        }
    }

    pub fn nrows(&self) -> usize {
        match self {
            Points::Dense(x) => x.nrows(),
            Points::Sparse(x) => x.nrows(),
        }
    }

    pub fn ncols(&self) -> usize {
        match self {
            Points::Dense(x) => x.ncols(),
            Points::Sparse(x) => x.ncols(),
        }
    }

    /// Squared row norms.
    pub fn sq_norms(&self) -> Vec<f64> {
        match self {
            Points::Dense(x) => x.sq_norms(),
            Points::Sparse(x) => x.sq_norms(),
        }
    }

    /// The given rows as a dense f64 matrix (seeds).
    pub fn select(&self, rows: &[usize]) -> Array2<f64> {
        match self {
            Points::Dense(x) => x.select(rows),
            Points::Sparse(x) => x.select(rows),
        }
    }

    /// The mean over features of each feature's variance (ddof 0).
    pub fn mean_variance(&self) -> f64 {
        match self {
            Points::Dense(x) => x.mean_variance(),
            Points::Sparse(x) => x.mean_variance(),
        }
    }

    /// Per-cluster sums of the rows times their sample weights (`sw`;
    /// None: 1), and the weight totals.
    pub fn cluster_sums(
        &self,
        sw: Option<&[f64]>,
        labels: &[usize],
        k: usize,
    ) -> (Array2<f64>, Vec<f64>) {
        match self {
            Points::Dense(x) => weighted_cluster_sums(*x, sw, labels, k),
            Points::Sparse(x) => x.cluster_sums(labels, k, sw),
        }
    }

    /// Plain squared distances from every row (squared norms `norms`) to
    /// the rows of `c`.
    pub fn sq_dists(&self, norms: &[f64], c: ArrayView2<f64>) -> Array2<f64> {
        match self {
            Points::Dense(x) => x.sq_dists(norms, c),
            Points::Sparse(x) => x.sq_dists(norms, &crate::solver::csr::products::CentresT::new(c)),
        }
    }

    /// Seed rows (k-means++ or random, weighted by `sw`), as the dense
    /// and CSR Lloyd loops pick them.
    ///
    /// # Errors
    /// k out of range, too few distinct points or weighted rows.
    pub fn seeds(
        &self,
        norms: &[f64],
        sw: Option<&[f64]>,
        k: usize,
        how: Init,
        rng: &mut Rng,
    ) -> Result<Vec<usize>> {
        match self {
            Points::Dense(x) => init::weighted_euclidean_seeds(*x, norms, sw, k, how, rng),
            Points::Sparse(x) => crate::solver::csr::lloyd::csr_seeds(x, norms, sw, k, how, rng),
        }
    }
}
