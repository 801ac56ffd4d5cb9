//! Sparse rows in compressed sparse row (CSR) form, as scipy.sparse holds
//! them: text and count data whose dense n × p matrix would not fit. Every
//! product the Lloyd iteration needs is done per nonzero, so a run's memory
//! is ∝ nnz + (n + p)·k, never n × p.

pub mod lloyd;
pub mod power;
pub mod problem;
pub mod products;
pub mod weighted;

use crate::error::{Error, Result};
use ndarray::Array2;

/// An n × p sparse matrix: row i's column indices are
/// `indices[indptr[i]..indptr[i + 1]]`, strictly increasing, with their
/// values in `data` (f64, finite).
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    n: usize,
    p: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
}

impl Csr {
    /// Checks and takes the three arrays of a CSR matrix of `shape`. Rows
    /// whose indices are unsorted are sorted; repeated indices in a row are
    /// summed, as scipy reads them (`toarray()` adds duplicates).
    ///
    /// # Errors
    /// [`Error::Data`], one line, when the arrays do not describe a CSR
    /// matrix of that shape or a value is not finite.
    pub fn new(
        shape: (usize, usize),
        indptr: Vec<usize>,
        mut indices: Vec<u32>,
        mut data: Vec<f64>,
    ) -> Result<Csr> {
        let (n, p) = shape;
        let bad = |m: String| Err(Error::Data(format!("sparse matrix: {m}")));
        if p > u32::MAX as usize + 1 {
            return bad(format!("{p} columns; at most 2^32 are supported"));
        }
        if indptr.len() != n + 1 {
            return bad(format!(
                "indptr has {} entries; {} rows need {}",
                indptr.len(),
                n,
                n + 1
            ));
        }
        if indptr[0] != 0 {
            return bad(format!("indptr starts at {}, not 0", indptr[0]));
        }
        if let Some(i) = (0..n).find(|&i| indptr[i + 1] < indptr[i]) {
            return bad(format!("indptr decreases at row {i}"));
        }
        if indices.len() != data.len() || indptr[n] != data.len() {
            return bad(format!(
                "indptr ends at {} but there are {} indices and {} values",
                indptr[n],
                indices.len(),
                data.len()
            ));
        }
        if let Some(&j) = indices.iter().find(|&&j| j as usize >= p) {
            return bad(format!("column index {j} is out of range for {p} columns"));
        }
        if let Some(v) = data.iter().find(|v| !v.is_finite()) {
            return bad(format!(
                "a value is {v}; remove or impute non-finite values first"
            ));
        }
        let sorted = (0..n).all(|i| {
            indices[indptr[i]..indptr[i + 1]]
                .windows(2)
                .all(|w| w[0] < w[1])
        });
        if sorted {
            return Ok(Csr {
                n,
                p,
                indptr,
                indices,
                data,
            });
        }
        // Canonical form: sort each row, sum repeated indices.
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let mut w = 0;
        let mut pairs: Vec<(u32, f64)> = Vec::new();
        for i in 0..n {
            pairs.clear();
            pairs.extend((indptr[i]..indptr[i + 1]).map(|t| (indices[t], data[t])));
            pairs.sort_by_key(|&(j, _)| j);
            let start = w;
            for &(j, v) in &pairs {
                if w > start && indices[w - 1] == j {
                    data[w - 1] += v;
                } else {
                    indices[w] = j;
                    data[w] = v;
                    w += 1;
                }
            }
            ptr.push(w);
        }
        indices.truncate(w);
        data.truncate(w);
        if let Some(v) = data.iter().find(|v| !v.is_finite()) {
            return bad(format!("repeated entries sum to {v}"));
        }
        Ok(Csr {
            n,
            p,
            indptr: ptr,
            indices,
            data,
        })
    }

    /// The nonzeros of a dense matrix (tests, small inputs).
    pub fn from_dense(x: ndarray::ArrayView2<f64>) -> Result<Csr> {
        let (n, p) = x.dim();
        let mut indptr = vec![0];
        let (mut indices, mut data) = (Vec::new(), Vec::new());
        for r in x.rows() {
            for (j, &v) in r.iter().enumerate() {
                if v != 0.0 {
                    indices.push(j as u32);
                    data.push(v);
                }
            }
            indptr.push(data.len());
        }
        Csr::new((n, p), indptr, indices, data)
    }

    pub fn nrows(&self) -> usize {
        self.n
    }

    pub fn ncols(&self) -> usize {
        self.p
    }

    pub fn nnz(&self) -> usize {
        self.data.len()
    }

    /// The largest |value| (0 for an empty matrix).
    pub fn max_abs(&self) -> f64 {
        self.data.iter().fold(0.0, |m, v| m.max(v.abs()))
    }

    /// Maps every stored value through `f`, which must keep a value finite
    /// (the implicit zeros are not visited: `f` is a scaling).
    pub fn map_values(&mut self, f: impl Fn(f64) -> f64) {
        self.data.iter_mut().for_each(|v| *v = f(*v));
    }

    /// Bytes of the three arrays.
    pub fn bytes(&self) -> usize {
        self.indptr.len() * 8 + self.indices.len() * 4 + self.data.len() * 8
    }

    /// Row i's column indices and values.
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.data[r])
    }

    /// Row i's nonzeros within the columns `cols` (the row's indices are
    /// sorted, so two binary searches find them): a view's part of a row.
    pub fn row_in(&self, i: usize, cols: &std::ops::Range<usize>) -> (&[u32], &[f64]) {
        let (idx, val) = self.row(i);
        let lo = idx.partition_point(|&j| (j as usize) < cols.start);
        let hi = lo + idx[lo..].partition_point(|&j| (j as usize) < cols.end);
        (&idx[lo..hi], &val[lo..hi])
    }

    /// Rows `rows` of the columns `cols`, dense (a block at a time for
    /// code that reads dense rows: memory ∝ the block, never n × p).
    pub fn dense_block(
        &self,
        rows: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
    ) -> Array2<f64> {
        let mut out = Array2::zeros((rows.len(), cols.len()));
        for (r, i) in rows.enumerate() {
            let (idx, val) = self.row_in(i, &cols);
            for (&j, &v) in idx.iter().zip(val) {
                out[[r, j as usize - cols.start]] = v;
            }
        }
        out
    }

    /// The given rows as a CSR matrix of their own (a sample: memory ∝
    /// their nonzeros).
    pub fn select_csr(&self, rows: &[usize]) -> Csr {
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        indptr.push(0);
        let (mut indices, mut data) = (Vec::new(), Vec::new());
        for &i in rows {
            let (idx, val) = self.row(i);
            indices.extend_from_slice(idx);
            data.extend_from_slice(val);
            indptr.push(data.len());
        }
        Csr {
            n: rows.len(),
            p: self.p,
            indptr,
            indices,
            data,
        }
    }

    /// The value at row i, column j (0 where none is stored).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let (idx, val) = self.row(i);
        u32::try_from(j)
            .ok()
            .and_then(|j| idx.binary_search(&j).ok())
            .map_or(0.0, |t| val[t])
    }

    /// Adds row i to a dense row of length p.
    pub fn add_row_to(&self, i: usize, acc: &mut [f64], scale: f64) {
        let (idx, val) = self.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            acc[j as usize] += scale * v;
        }
    }

    /// Squared norm of every row.
    pub fn sq_norms(&self) -> Vec<f64> {
        (0..self.n)
            .map(|i| self.row(i).1.iter().map(|v| v * v).sum())
            .collect()
    }

    /// The given rows, dense (seeds: k × p).
    pub fn select(&self, rows: &[usize]) -> Array2<f64> {
        let mut out = Array2::zeros((rows.len(), self.p));
        for (r, &i) in rows.iter().enumerate() {
            let row = out.row_mut(r).into_slice().expect("row-major");
            self.add_row_to(i, row, 1.0);
        }
        out
    }

    /// The dense matrix (tests only: n × p).
    pub fn to_dense(&self) -> Array2<f64> {
        self.select(&(0..self.n).collect::<Vec<_>>())
    }

    /// The mean over columns of each column's variance (ddof 0), counting
    /// the implicit zeros: scikit-learn's `mean_variance_axis`, the unit of
    /// k-means' `tol`.
    pub fn mean_variance(&self) -> f64 {
        let (n, p) = (self.n, self.p);
        if n == 0 || p == 0 {
            return 0.0;
        }
        let mut sum = vec![0.0f64; p];
        let mut count = vec![0usize; p];
        for (&j, &v) in self.indices.iter().zip(&self.data) {
            sum[j as usize] += v;
            count[j as usize] += 1;
        }
        let mean: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
        let mut ss = vec![0.0f64; p];
        for (&j, &v) in self.indices.iter().zip(&self.data) {
            ss[j as usize] += (v - mean[j as usize]).powi(2);
        }
        let var: f64 = (0..p)
            .map(|j| (ss[j] + (n - count[j]) as f64 * mean[j] * mean[j]) / n as f64)
            .sum();
        var / p as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn unsorted_rows_are_sorted_and_repeats_summed() {
        // Row 0: (2, 1.0), (0, 2.0), (2, 0.5); row 1 empty; row 2: (1, 3.0).
        let x = Csr::new(
            (3, 3),
            vec![0, 3, 3, 4],
            vec![2, 0, 2, 1],
            vec![1.0, 2.0, 0.5, 3.0],
        )
        .unwrap();
        assert_eq!(x.nnz(), 3);
        assert_eq!(
            x.to_dense(),
            array![[2.0, 0.0, 1.5], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0]]
        );
        assert_eq!(x.row(0), (&[0u32, 2][..], &[2.0, 1.5][..]));
    }

    #[test]
    fn malformed_arrays_are_refused_in_one_line() {
        type Case = ((usize, usize), Vec<usize>, Vec<u32>, Vec<f64>, &'static str);
        let cases: Vec<Case> = vec![
            (
                (2, 2),
                vec![0, 1],
                vec![0],
                vec![1.0],
                "indptr has 2 entries",
            ),
            ((1, 2), vec![1, 1], vec![0], vec![1.0], "indptr starts at 1"),
            (
                (2, 2),
                vec![0, 2, 1],
                vec![0, 1],
                vec![1.0, 1.0],
                "decreases at row 1",
            ),
            ((1, 2), vec![0, 2], vec![0], vec![1.0], "indptr ends at 2"),
            ((1, 2), vec![0, 1], vec![2], vec![1.0], "column index 2"),
            (
                (1, 2),
                vec![0, 1],
                vec![0],
                vec![f64::NAN],
                "a value is NaN",
            ),
        ];
        for (shape, ptr, idx, val, want) in cases {
            let e = Csr::new(shape, ptr, idx, val).unwrap_err();
            let m = e.to_string();
            assert!(matches!(e, Error::Data(_)), "{m}");
            assert!(m.contains(want) && !m.contains('\n'), "{m} (want {want})");
        }
    }

    #[test]
    fn norms_and_mean_variance_are_the_dense_ones() {
        let d = array![
            [0.0, 1.5, 0.0, 0.0],
            [2.0, 0.0, 0.0, -1.0],
            [0.0, 0.0, 0.0, 0.0],
            [4.0, 0.5, 0.0, 3.0]
        ];
        let x = Csr::from_dense(d.view()).unwrap();
        assert_eq!(x.sq_norms(), crate::linalg::row_sq_norms(d.view()));
        let want = crate::linalg::mean_variance(d.view());
        assert!((x.mean_variance() - want).abs() < 1e-15 * want, "{want}");
        assert_eq!(x.dense_block(1..4, 1..4), d.slice(ndarray::s![1..4, 1..4]));
        assert_eq!(x.row_in(3, &(1..3)), (&[1u32][..], &[0.5][..]));
        assert_eq!(x.select_csr(&[3, 1]).to_dense(), x.select(&[3, 1]));
        assert_eq!(
            x.select(&[3, 0]),
            array![[4.0, 0.5, 0.0, 3.0], [0.0, 1.5, 0.0, 0.0]]
        );
    }
}
