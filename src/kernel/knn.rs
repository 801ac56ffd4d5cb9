//! The k-nearest-neighbour graph affinity of `--kernel knn[:nn=10]`: W_ij = 1
//! when j is among the nn nearest rows of i (Euclidean, on the rows as the
//! solver sees them) or i among those of j (W = max(W, Wᵀ)), else 0; no
//! self-loops. A 0/1 graph is not a positive semi-definite kernel, so only
//! spectral clustering takes it (von Luxburg 2007, "A tutorial on spectral clustering", section 2.2).
//!
//! Stored sparse (CSR, ≤ 2·nn entries per row), so spectral clustering
//! needs no n×n matrix: the neighbours are found by blocks of rows against
//! all rows (one block × n distance matrix per thread at a time).

use crate::error::{Error, Result};
use crate::linalg;
use crate::solver::Ctx;
use ndarray::{Array2, ArrayView2, s};
use rayon::prelude::*;
use std::collections::HashMap;

/// Neighbours per row when the spec gives none.
pub const DEFAULT_NN: usize = 10;

/// Rows per block of the neighbour search.
const BLOCK: usize = 128;

/// A symmetric 0/1 graph without self-loops, in compressed rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Row i's neighbours are `indices[indptr[i]..indptr[i + 1]]`, ascending.
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
}

impl Graph {
    pub fn n(&self) -> usize {
        self.indptr.len() - 1
    }

    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.indices[self.indptr[i]..self.indptr[i + 1]]
    }

    /// Row sums of W: each row's number of neighbours.
    pub fn degrees(&self) -> Vec<f64> {
        (0..self.n())
            .map(|i| (self.indptr[i + 1] - self.indptr[i]) as f64)
            .collect()
    }

    /// W·v for an n×b block `v`.
    pub fn times(&self, v: ArrayView2<f64>) -> Array2<f64> {
        let b = v.ncols();
        let mut out = Array2::<f64>::zeros((self.n(), b));
        out.as_slice_mut()
            .expect("standard layout")
            .par_chunks_mut(b.max(1))
            .enumerate()
            .for_each(|(i, row)| {
                for &j in self.neighbours(i) {
                    for (o, x) in row.iter_mut().zip(v.row(j as usize)) {
                        *o += x;
                    }
                }
            });
        out
    }

    /// The dense n×n 0/1 matrix (tests and small n).
    pub fn to_dense(&self) -> Array2<f64> {
        let n = self.n();
        let mut w = Array2::zeros((n, n));
        for i in 0..n {
            for &j in self.neighbours(i) {
                w[[i, j as usize]] = 1.0;
            }
        }
        w
    }

    /// Bytes the graph holds.
    pub fn bytes(&self) -> usize {
        self.indptr.len() * 8 + self.indices.len() * 4
    }
}

/// Bytes the graph of n rows may hold at most (2·nn neighbours per row),
/// plus the directed lists while it is built, and the distance blocks of
/// the search (one per thread).
pub fn build_bytes(n: usize, nn: usize) -> f64 {
    let threads = rayon::current_num_threads().max(1) as f64;
    let n = n as f64;
    let nn = nn as f64;
    // Lists of nn + 1 (a duplicate's link), both directions, while built.
    n * 8.0 + n * 2.0 * (nn + 1.0) * 4.0 * 2.0 + threads * BLOCK as f64 * n * 8.0
}

/// The symmetrised nn-nearest-neighbour graph of the rows of `x`. Ties in
/// distance go to the lower row index, so the result does not depend on
/// the thread count. Exact duplicate rows are one place: a row's nn
/// neighbours are the nearest rows at other places, and every duplicate
/// is also linked to the first row at its place, so a group of more than
/// nn duplicates does not split off as a component of its own.
///
/// # Errors
/// [`Error::Param`] when nn is 0 or not below the number of rows,
/// [`Error::Cancelled`].
pub fn graph(x: ArrayView2<f64>, nn: usize, ctx: &Ctx) -> Result<Graph> {
    let n = x.nrows();
    if nn == 0 || nn >= n {
        return Err(Error::param(format!(
            "--kernel knn: nn = {nn} must be in [1, {}] (below the number of rows, {n})",
            n.saturating_sub(1)
        )));
    }
    let label = format!("knn graph (nn = {nn}, {n} rows)");
    ctx.stage(&label, 0.0);
    let place = places(x);
    let norms = linalg::row_sq_norms(x);
    let starts: Vec<usize> = (0..n).step_by(BLOCK).collect();
    let lists: Vec<Result<Vec<Vec<u32>>>> = starts
        .par_iter()
        .map(|&lo| {
            ctx.check()?;
            let hi = (lo + BLOCK).min(n);
            let xb = x.slice(s![lo..hi, ..]);
            let d = linalg::sq_dists_with(xb, &norms[lo..hi], x, &norms, false);
            let mut out = Vec::with_capacity(hi - lo);
            let mut order: Vec<u32> = Vec::with_capacity(n);
            for (r, row) in d.rows().into_iter().enumerate() {
                let i = lo + r;
                order.clear();
                order.extend((0..n as u32).filter(|&j| place[j as usize] != place[i]));
                let mut mine = Vec::with_capacity(nn + 1);
                let take = nn.min(order.len());
                if take > 0 {
                    let by = |a: &u32, b: &u32| {
                        row[*a as usize].total_cmp(&row[*b as usize]).then(a.cmp(b))
                    };
                    order.select_nth_unstable_by(take - 1, by);
                    mine.extend_from_slice(&order[..take]);
                }
                if place[i] != i {
                    mine.push(place[i] as u32);
                }
                out.push(mine);
            }
            Ok(out)
        })
        .collect();
    let mut directed = Vec::with_capacity(n);
    for l in lists {
        directed.extend(l?);
    }
    ctx.stage(&label, 0.9);
    Ok(symmetrise(&directed))
}

/// For every row, the first row with exactly the same values.
fn places(x: ArrayView2<f64>) -> Vec<usize> {
    let mut first: HashMap<Vec<u64>, usize> = HashMap::with_capacity(x.nrows());
    x.rows()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            // +0.0 and −0.0 are the same place.
            let key: Vec<u64> = r.iter().map(|v| (v + 0.0).to_bits()).collect();
            *first.entry(key).or_insert(i)
        })
        .collect()
}

/// W = max(W, Wᵀ) of the directed lists.
fn symmetrise(directed: &[Vec<u32>]) -> Graph {
    let n = directed.len();
    let mut rows: Vec<Vec<u32>> = directed.to_vec();
    for (i, l) in directed.iter().enumerate() {
        for &j in l {
            rows[j as usize].push(i as u32);
        }
    }
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::new();
    indptr.push(0);
    for mut r in rows {
        r.sort_unstable();
        r.dedup();
        indices.extend(r);
        indptr.push(indices.len());
    }
    Graph { indptr, indices }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn symmetrised_by_max() {
        // 0 → 1, 1 → 0, 2 → 1: 1–2 is added from 2's side only.
        let g = symmetrise(&[vec![1], vec![0], vec![1]]);
        assert_eq!(g.neighbours(0), &[1]);
        assert_eq!(g.neighbours(1), &[0, 2]);
        assert_eq!(g.neighbours(2), &[1]);
        assert_eq!(g.degrees(), vec![1.0, 2.0, 1.0]);
    }

    #[test]
    fn times_is_the_dense_product() {
        let x = array![[0.0], [1.0], [3.0], [7.0], [7.5]];
        let g = graph(x.view(), 2, &Ctx::new()).unwrap();
        let v = array![[1.0, 0.5], [2.0, 0.0], [3.0, -1.0], [4.0, 2.0], [5.0, 1.0]];
        let want = linalg::dot(g.to_dense().view(), v.view());
        assert_eq!(g.times(v.view()), want);
    }

    #[test]
    fn nn_out_of_range_is_refused() {
        let x = array![[0.0], [1.0], [2.0]];
        let e = graph(x.view(), 3, &Ctx::new()).unwrap_err().to_string();
        assert!(e.contains("nn = 3 must be in [1, 2]"), "{e}");
        assert!(graph(x.view(), 0, &Ctx::new()).is_err());
    }
}
