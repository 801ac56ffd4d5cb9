//! The 2-D view of the data for the Scatter pane: the first two principal
//! components of a deterministic subsample (at most [`MAX_POINTS`] rows, so
//! drawing stays fast on 70 000 points).

use crate::kernel::KernelStack;
use crate::session::Loaded;
use crate::solver::csr::Csr;
use faer::Side;
use ndarray::{Array2, ArrayRef2, ArrayView2, Axis};
use std::sync::Arc;

/// The dataset as loaded, with its projection.
pub struct DataView {
    pub loaded: Arc<Loaded>,
    pub projection: Projection,
}

pub const MAX_POINTS: usize = 3000;
/// Rows of a kernel projection: its dense eigenproblem is m×m, so fewer
/// than a PCA's, to stay within a second.
pub const MAX_KERNEL_POINTS: usize = 1000;

#[derive(Debug, Clone)]
pub struct Projection {
    /// Rows of the data that are drawn.
    pub rows: Vec<usize>,
    /// Their first two principal component scores (empty when p = 1).
    pub pcs: Vec<[f64; 2]>,
    /// Share of the variance the two components explain.
    pub explained: f64,
}

impl Projection {
    pub fn pca(x: &ArrayRef2<f64>) -> Self {
        let n = x.nrows();
        if x.ncols() == 0 {
            return Projection {
                rows: Vec::new(),
                pcs: Vec::new(),
                explained: 0.0,
            };
        }
        let step = n.div_ceil(MAX_POINTS).max(1);
        let rows: Vec<usize> = (0..n).step_by(step).collect();
        let sub = x.select(Axis(0), &rows);
        let (pcs, explained) = top2(sub.view());
        Projection {
            rows,
            pcs,
            explained,
        }
    }

    /// Kernel PCA for data that are kernels: the leading two eigenvectors
    /// of the centred average kernel, scaled by √λ, on a subsample.
    pub fn kernel(stack: &KernelStack) -> Self {
        let n = stack.n();
        let step = n.div_ceil(MAX_KERNEL_POINTS).max(1);
        let rows: Vec<usize> = (0..n).step_by(step).collect();
        let m = rows.len();
        let w = 1.0 / stack.len().max(1) as f64;
        let mut k = Array2::<f64>::zeros((m, m));
        for g in &stack.grams {
            for (a, &i) in rows.iter().enumerate() {
                for (b, &j) in rows.iter().enumerate().take(a + 1) {
                    let v = w * g.get(i, j);
                    k[[a, b]] += v;
                    if a != b {
                        k[[b, a]] += v;
                    }
                }
            }
        }
        Self::of_gram(rows, k)
    }

    /// Kernel PCA with the linear kernel for sparse rows: the Gram matrix
    /// of a subsample from sparse dot products (nothing n × p, nor m × p,
    /// is made dense), centred, and its top two eigenvectors, which are
    /// the principal component scores of those rows.
    pub fn csr(x: &Csr) -> Self {
        let n = x.nrows();
        let step = n.div_ceil(MAX_KERNEL_POINTS).max(1);
        let rows: Vec<usize> = (0..n).step_by(step).collect();
        let m = rows.len();
        let mut k = Array2::<f64>::zeros((m, m));
        for a in 0..m {
            for b in 0..=a {
                let v = sparse_dot(x.row(rows[a]), x.row(rows[b]));
                k[[a, b]] = v;
                k[[b, a]] = v;
            }
        }
        Self::of_gram(rows, k)
    }

    /// The rows' scores on the top two eigenvectors of their Gram matrix
    /// `k`, centred in feature space (HKH).
    fn of_gram(rows: Vec<usize>, mut k: Array2<f64>) -> Self {
        let m = rows.len();
        let r = k.mean_axis(Axis(0)).expect("rows");
        let all = r.mean().unwrap_or(0.0);
        for a in 0..m {
            for b in 0..m {
                k[[a, b]] += all - r[a] - r[b];
            }
        }
        let (pcs, explained) = gram_top2(&k);
        Projection {
            rows,
            pcs,
            explained,
        }
    }

    /// [`Projection::features`] for sparse rows.
    pub fn csr_features(&self, x: &Csr, fx: usize, fy: usize) -> Vec<[f64; 2]> {
        self.rows
            .iter()
            .map(|&i| [x.get(i, fx), x.get(i, fy)])
            .collect()
    }

    /// Scores of the drawn rows on two features instead.
    pub fn features(&self, x: &ArrayRef2<f64>, fx: usize, fy: usize) -> Vec<[f64; 2]> {
        self.rows
            .iter()
            .map(|&i| [x[[i, fx]], x[[i, fy]]])
            .collect()
    }
}

/// The dot product of two sparse rows (sorted indices).
fn sparse_dot((ia, va): (&[u32], &[f64]), (ib, vb): (&[u32], &[f64])) -> f64 {
    let (mut s, mut a, mut b) = (0.0, 0, 0);
    while a < ia.len() && b < ib.len() {
        match ia[a].cmp(&ib[b]) {
            std::cmp::Ordering::Less => a += 1,
            std::cmp::Ordering::Greater => b += 1,
            std::cmp::Ordering::Equal => {
                s += va[a] * vb[b];
                a += 1;
                b += 1;
            }
        }
    }
    s
}

/// Principal component scores through the smaller of the covariance
/// (p×p) and Gram (m×m) eigenproblems.
fn top2(x: ArrayView2<f64>) -> (Vec<[f64; 2]>, f64) {
    let (m, p) = x.dim();
    let mean = x.mean_axis(Axis(0)).expect("rows");
    let xc = &x - &mean;
    if p == 1 {
        return (xc.column(0).iter().map(|&v| [v, 0.0]).collect(), 1.0);
    }
    let (small, via_gram) = if p <= m {
        (crate::linalg::dot_tn(xc.view(), xc.view()), false)
    } else {
        (crate::linalg::dot_nt(xc.view(), xc.view()), true)
    };
    let d = small.nrows();
    let mat = faer::Mat::from_fn(d, d, |i, j| small[[i, j]]);
    let Ok(eig) = mat.self_adjoint_eigen(Side::Lower) else {
        return (vec![[0.0, 0.0]; m], 0.0);
    };
    let vals: Vec<f64> = (0..d).map(|i| eig.S()[i].max(0.0)).collect();
    let total: f64 = vals.iter().sum();
    let u = eig.U();
    // Eigenvalues come in ascending order: the last two are the top ones.
    let top = [d - 1, d - 2];
    let mut pcs = vec![[0.0; 2]; m];
    for (c, &t) in top.iter().enumerate() {
        // Fix the sign so the picture does not flip between runs.
        let col: Vec<f64> = (0..d).map(|i| u[(i, t)]).collect();
        let sign = if col
            .iter()
            .cloned()
            .fold(0.0, |a: f64, v| if v.abs() > a.abs() { v } else { a })
            < 0.0
        {
            -1.0
        } else {
            1.0
        };
        if via_gram {
            let scale = vals[t].sqrt();
            for i in 0..m {
                pcs[i][c] = sign * col[i] * scale;
            }
        } else {
            for i in 0..m {
                pcs[i][c] = sign * xc.row(i).iter().zip(&col).map(|(a, b)| a * b).sum::<f64>();
            }
        }
    }
    let explained = if total > 0.0 {
        (vals[d - 1] + vals[d - 2]) / total
    } else {
        0.0
    };
    (pcs, explained)
}

/// The leading two eigenvectors of a centred Gram matrix scaled by √λ,
/// and their share of the trace.
fn gram_top2(k: &Array2<f64>) -> (Vec<[f64; 2]>, f64) {
    let m = k.nrows();
    if m < 2 {
        return (vec![[0.0, 0.0]; m], 0.0);
    }
    let mat = faer::Mat::from_fn(m, m, |i, j| k[[i, j]]);
    let Ok(eig) = mat.self_adjoint_eigen(Side::Lower) else {
        return (vec![[0.0, 0.0]; m], 0.0);
    };
    let vals: Vec<f64> = (0..m).map(|i| eig.S()[i].max(0.0)).collect();
    let total: f64 = vals.iter().sum();
    let u = eig.U();
    let mut pcs = vec![[0.0; 2]; m];
    for (c, t) in [m - 1, m - 2].into_iter().enumerate() {
        let col: Vec<f64> = (0..m).map(|i| u[(i, t)]).collect();
        // Fix the sign so the picture does not flip between runs.
        let big = col
            .iter()
            .fold(0.0f64, |a, &v| if v.abs() > a.abs() { v } else { a });
        let sign = if big < 0.0 { -1.0 } else { 1.0 };
        let scale = vals[t].sqrt();
        for i in 0..m {
            pcs[i][c] = sign * col[i] * scale;
        }
    }
    let explained = if total > 0.0 {
        (vals[m - 1] + vals[m - 2]) / total
    } else {
        0.0
    };
    (pcs, explained)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn recovers_the_main_axis_either_way() {
        // Points along (1, 1, 0) with a little spread along (0, 0, 1),
        // uncorrelated with the position along the line.
        let x = array![
            [0.0, 0.0, 0.1],
            [1.0, 1.0, -0.1],
            [2.0, 2.0, -0.1],
            [3.0, 3.0, 0.1]
        ];
        let p = Projection::pca(&x);
        let first: Vec<f64> = p.pcs.iter().map(|s| s[0]).collect();
        let gaps: Vec<f64> = first.windows(2).map(|w| w[1] - w[0]).collect();
        for g in gaps {
            assert!((g.abs() - 2f64.sqrt()).abs() < 1e-9, "{g}");
        }
        assert!(p.explained > 0.99);
        // More features than rows: the Gram route gives the same scores.
        let wide =
            ndarray::concatenate(Axis(1), &[x.view(), Array2::zeros((4, 5)).view()]).unwrap();
        let q = Projection::pca(&wide);
        for (a, b) in p.pcs.iter().zip(&q.pcs) {
            assert!((a[0].abs() - b[0].abs()).abs() < 1e-9);
        }
    }
}
