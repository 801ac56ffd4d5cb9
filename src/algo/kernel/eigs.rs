//! Symmetric eigenproblems: dense (faer) for small matrices, and the k
//! leading eigenpairs of a large symmetric operator by block Lanczos.
//!
//! The Lanczos solver only multiplies the operator with n×b blocks — for
//! spectral clustering one pass over the stored Gram matrix per block — so
//! it needs no n×n working matrix and O(n²·b) time per block instead of the
//! dense O(n³). Every new block is orthogonalised against the whole basis
//! (twice, "twice is enough"), and Rayleigh–Ritz on the basis gives the
//! Ritz pairs; it stops when the k leading residuals ‖Ay − θy‖ fall below
//! the tolerance. The start block comes from a fixed seed and every product
//! has a fixed task split, so the result does not depend on the thread
//! count.

use crate::error::{Error, Result};
use crate::linalg;
use crate::solver::Ctx;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::{Mat, Par};
use ndarray::{Array2, ArrayView2, s};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Eigenvalues (ascending) and eigenvectors (columns) of the symmetric
/// matrix `a` (its lower triangle is read).
pub fn symmetric(a: &Mat<f64>, par: Par) -> Result<(Vec<f64>, Mat<f64>)> {
    let n = a.nrows();
    let mut s = faer::diag::Diag::<f64>::zeros(n);
    let mut u = Mat::<f64>::zeros(n, n);
    let scratch = faer::linalg::evd::self_adjoint_evd_scratch::<f64>(
        n,
        faer::linalg::evd::ComputeEigenvectors::Yes,
        par,
        Default::default(),
    );
    let mut mem = MemBuffer::try_new(scratch).map_err(|_| {
        Error::Resource(format!(
            "cannot allocate the eigensolver's workspace for n = {n}"
        ))
    })?;
    faer::linalg::evd::self_adjoint_evd(
        a.as_ref(),
        s.as_mut(),
        Some(u.as_mut()),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| Error::Resource("the eigendecomposition did not converge".to_string()))?;
    Ok(((0..n).map(|i| s[i]).collect(), u))
}

/// The k leading eigenpairs found by [`leading`].
#[derive(Debug, Clone)]
pub struct Leading {
    /// Largest first.
    pub values: Vec<f64>,
    /// n×k, orthonormal columns in the order of `values`.
    pub vectors: Array2<f64>,
    /// max_j ‖A·y_j − θ_j·y_j‖ at the end.
    pub residual: f64,
    /// Columns the operator was applied to.
    pub products: usize,
}

/// The k algebraically largest eigenpairs of the symmetric n×n operator
/// `apply` (which maps an n×b block to its product), by block Lanczos with
/// at most `max_dim` basis vectors, stopping at residual `tol`. Reports its
/// progress as stage `label` and stops when `ctx` is cancelled.
pub fn leading(
    n: usize,
    k: usize,
    apply: impl Fn(ArrayView2<f64>) -> Array2<f64>,
    tol: f64,
    max_dim: usize,
    ctx: &Ctx,
    label: &str,
) -> Result<Leading> {
    assert!(k >= 1 && k <= n, "1 ≤ k ≤ n");
    let b = (k + 8).min(n);
    let max_dim = max_dim.max(k + b).min(n);
    let mut q = Array2::<f64>::zeros((n, max_dim));
    let mut w = Array2::<f64>::zeros((n, max_dim));
    let mut m = 0;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x01a2_c205);
    let mut block = Array2::from_shape_simple_fn((n, b), || {
        let z: f64 = StandardNormal.sample(&mut rng);
        z
    });
    let mut blocks = 0;
    let mut last_rr = 0;
    ctx.stage(label, 0.0);
    loop {
        ctx.check()?;
        let kept = extend_basis(&mut q, m, block.view());
        if kept == 0 && m < k {
            // Fewer than k directions so far (a tiny or degenerate
            // operator): restart the block from fresh random vectors.
            block = Array2::from_shape_simple_fn((n, b), || {
                let z: f64 = StandardNormal.sample(&mut rng);
                z
            });
            continue;
        }
        if kept > 0 {
            let prod = apply(q.slice(s![.., m..m + kept]));
            w.slice_mut(s![.., m..m + kept]).assign(&prod);
            m += kept;
            blocks += 1;
        }
        // Rayleigh–Ritz (O(m³) on the basis) once the basis has grown by a
        // quarter since the last one, and whenever it cannot grow: its cost
        // stays a small multiple of the last one's.
        let full = kept == 0 || m + 1 > max_dim;
        if m >= k && (full || (blocks >= 2 && m * 4 >= last_rr * 5)) {
            last_rr = m;
            let ritz = rayleigh_ritz(q.slice(s![.., ..m]), w.slice(s![.., ..m]), k)?;
            ctx.stage(label, (m as f64 / max_dim as f64).min(0.99));
            if ritz.residual <= tol || full {
                ctx.stage(label, 1.0);
                return Ok(Leading {
                    products: m,
                    ..ritz
                });
            }
        }
        block = w.slice(s![.., m - kept..m]).to_owned();
    }
}

/// Orthonormalises the columns of `block` against `q[:, ..m]` and each
/// other and appends the independent ones to `q` (up to its width);
/// returns how many were kept.
fn extend_basis(q: &mut Array2<f64>, m: usize, block: ArrayView2<f64>) -> usize {
    let mut v = block.to_owned();
    let before: Vec<f64> = v.columns().into_iter().map(|c| c.dot(&c).sqrt()).collect();
    // Classical Gram–Schmidt against the basis, twice: one GEMM each way.
    if m > 0 {
        for _ in 0..2 {
            let basis = q.slice(s![.., ..m]);
            let c = linalg::dot_tn(basis, v.view());
            v -= &linalg::dot(basis, c.view());
        }
    }
    let room = q.ncols() - m;
    let mut kept = 0;
    for j in 0..v.ncols() {
        if kept == room {
            break;
        }
        let mut col = v.column(j).to_owned();
        let norm0 = before[j];
        if norm0 == 0.0 || !norm0.is_finite() {
            continue;
        }
        for _ in 0..2 {
            for i in 0..kept {
                let qi = q.column(m + i);
                let c = qi.dot(&col);
                col.scaled_add(-c, &qi);
            }
        }
        let norm = col.dot(&col).sqrt();
        // A column that was (numerically) in the span adds nothing.
        if norm <= 1e-10 * norm0 {
            continue;
        }
        col /= norm;
        q.column_mut(m + kept).assign(&col);
        kept += 1;
    }
    kept
}

fn rayleigh_ritz(q: ArrayView2<f64>, w: ArrayView2<f64>, k: usize) -> Result<Leading> {
    let m = q.ncols();
    let t = linalg::dot_tn(q, w);
    // Symmetrise: T = QᵀAQ up to rounding.
    let tm = Mat::<f64>::from_fn(m, m, |i, j| 0.5 * (t[[i, j]] + t[[j, i]]));
    let (vals, vecs) = symmetric(&tm, Par::Seq)?;
    let top: Vec<usize> = (0..k).map(|t| m - 1 - t).collect();
    let s_k = Array2::from_shape_fn((m, k), |(i, c)| vecs[(i, top[c])]);
    let values: Vec<f64> = top.iter().map(|&c| vals[c]).collect();
    let y = linalg::dot(q, s_k.view());
    let ay = linalg::dot(w, s_k.view());
    let mut residual: f64 = 0.0;
    for (c, &theta) in values.iter().enumerate() {
        let r = &ay.column(c) - &(&y.column(c) * theta);
        residual = residual.max(r.dot(&r).sqrt());
    }
    Ok(Leading {
        values,
        vectors: y,
        residual,
        products: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_symmetric(n: usize, seed: u64) -> Array2<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let g = Array2::from_shape_simple_fn((n, n), || {
            let z: f64 = StandardNormal.sample(&mut rng);
            z
        });
        (&g + &g.t()) / (2.0 * (n as f64).sqrt())
    }

    #[test]
    fn lanczos_agrees_with_the_dense_solver() {
        let n = 300;
        let a = random_symmetric(n, 3);
        let dense = Mat::<f64>::from_fn(n, n, |i, j| a[[i, j]]);
        let (vals, vecs) = symmetric(&dense, Par::Seq).unwrap();
        let k = 5;
        let got = leading(
            n,
            k,
            |v| linalg::dot(a.view(), v),
            1e-9,
            n,
            &Ctx::new(),
            "t",
        )
        .unwrap();
        assert!(got.residual <= 1e-9, "residual {}", got.residual);
        for c in 0..k {
            let want = vals[n - 1 - c];
            assert!(
                (got.values[c] - want).abs() < 1e-8,
                "{c}: {} vs {want}",
                got.values[c]
            );
            // Same vector up to sign.
            let dot: f64 = (0..n)
                .map(|i| got.vectors[[i, c]] * vecs[(i, n - 1 - c)])
                .sum();
            assert!((dot.abs() - 1.0).abs() < 1e-6, "{c}: |cos| = {}", dot.abs());
        }
        // Orthonormal columns.
        let g = linalg::dot_tn(got.vectors.view(), got.vectors.view());
        for i in 0..k {
            for j in 0..k {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((g[[i, j]] - want).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn low_rank_operators_end_when_the_krylov_space_is_exhausted() {
        // Rank 3: the basis cannot grow past 3 directions that matter.
        let n = 200;
        let u = Array2::from_shape_fn((n, 3), |(i, j)| ((i * (j + 1)) as f64 * 0.1).sin());
        let a = linalg::dot_nt(u.view(), u.view());
        let got = leading(
            n,
            2,
            |v| linalg::dot(a.view(), v),
            1e-8,
            n,
            &Ctx::new(),
            "t",
        )
        .unwrap();
        assert!(got.residual <= 1e-8);
        assert!(got.values.iter().all(|v| v.is_finite()));
        assert!(got.values[0] >= got.values[1]);
    }
}
