//! The convex quadratic programme on the probability simplex
//!
//!   min_α  αᵀMα − 2 bᵀα   s.t.  α ≥ 0, 1ᵀα = 1,
//!
//! M symmetric positive semidefinite (a Gram matrix of kernels), v small.
//! DMKKM's kernel-weight step is this problem (docs/methods/dmkkm.md#alpha-step).
//!
//! Up to [`ENUMERATE_MAX`] variables the solution is exact: on every
//! support S the stationarity system [2M_SS −1; 1ᵀ 0][α_S; μ] = [2b_S; 1]
//! is solved, the feasible solutions are kept and the lowest objective
//! wins (ties: the first support in enumeration order, so the answer is
//! deterministic). A singular system is skipped rather than solved by a
//! pseudo-inverse: when M is singular (duplicated kernels) the optimal set
//! is a polytope, and one of its vertices lies in the relative interior of
//! a face on which the system is regular, so skipping loses no optimum and
//! never returns the minimum-norm point of a face that leaves the simplex.
//! Single-vertex supports are always regular, so a candidate always exists.
//! Above that size, projected gradient with the sort-based projection.

/// Largest v solved by support enumeration (2^v − 1 small solves).
pub const ENUMERATE_MAX: usize = 15;

/// α minimising αᵀMα − 2bᵀα on the simplex. `m` is v×v row-major.
pub fn solve(m: &[f64], b: &[f64]) -> Vec<f64> {
    let v = b.len();
    assert_eq!(m.len(), v * v, "M must be v×v");
    assert!(v > 0, "the simplex of dimension 0 is empty");
    if v == 1 {
        return vec![1.0];
    }
    if v <= ENUMERATE_MAX {
        enumerate(m, b)
    } else {
        projected_gradient(m, b)
    }
}

/// αᵀMα − 2bᵀα.
pub fn objective(m: &[f64], b: &[f64], a: &[f64]) -> f64 {
    let v = b.len();
    let mut q = 0.0;
    for p in 0..v {
        let mut row = 0.0;
        for r in 0..v {
            row += m[p * v + r] * a[r];
        }
        q += a[p] * row;
    }
    q - 2.0 * b.iter().zip(a).map(|(x, y)| x * y).sum::<f64>()
}

/// The largest violation of the KKT conditions at `a`, relative to the
/// gradient's scale: with g = 2Ma − 2b and μ = min_p g_p, every p with
/// a_p > 0 must have g_p = μ (and every other g_p ≥ μ holds by the choice
/// of μ), plus the simplex itself.
pub fn kkt_violation(m: &[f64], b: &[f64], a: &[f64]) -> f64 {
    let v = b.len();
    let g: Vec<f64> = (0..v)
        .map(|p| 2.0 * (0..v).map(|r| m[p * v + r] * a[r]).sum::<f64>() - 2.0 * b[p])
        .collect();
    let scale = g.iter().map(|x| x.abs()).fold(1e-300, f64::max);
    let mu = g.iter().copied().fold(f64::INFINITY, f64::min);
    let mut worst = (a.iter().sum::<f64>() - 1.0).abs();
    for p in 0..v {
        worst = worst.max(-a[p]);
        if a[p] > 1e-9 {
            worst = worst.max((g[p] - mu) / scale);
        }
    }
    worst
}

fn enumerate(m: &[f64], b: &[f64]) -> Vec<f64> {
    let v = b.len();
    let mut best: Option<(f64, Vec<f64>)> = None;
    let mut idx = Vec::with_capacity(v);
    for mask in 1u32..(1u32 << v) {
        idx.clear();
        idx.extend((0..v).filter(|&p| mask & (1 << p) != 0));
        let Some(sol) = face(m, b, &idx) else {
            continue;
        };
        let mut a = vec![0.0; v];
        for (&p, &x) in idx.iter().zip(&sol) {
            a[p] = x;
        }
        let f = objective(m, b, &a);
        if best.as_ref().is_none_or(|(fb, _)| f < *fb) {
            best = Some((f, a));
        }
    }
    best.expect("single-vertex supports are always regular").1
}

/// α_S on the face `idx` when its system is regular and the solution is
/// feasible (tiny negatives from rounding clipped, then renormalised).
fn face(m: &[f64], b: &[f64], idx: &[usize]) -> Option<Vec<f64>> {
    let v = b.len();
    let s = idx.len();
    let w = s + 1;
    // Augmented system [2M_SS −1 | 2b_S; 1ᵀ 0 | 1].
    let mut a = vec![0.0; w * (w + 1)];
    for (r, &p) in idx.iter().enumerate() {
        for (c, &q) in idx.iter().enumerate() {
            a[r * (w + 1) + c] = 2.0 * m[p * v + q];
        }
        a[r * (w + 1) + s] = -1.0;
        a[r * (w + 1) + w] = 2.0 * b[p];
        a[s * (w + 1) + r] = 1.0;
    }
    a[s * (w + 1) + w] = 1.0;
    let scale = idx
        .iter()
        .map(|&p| 2.0 * m[p * v + p].abs())
        .fold(1.0, f64::max);
    let x = gauss(&mut a, w, 1e-11 * scale)?;
    let sol = &x[..s];
    if sol.iter().any(|&t| !t.is_finite() || t < -1e-10) {
        return None;
    }
    let clipped: Vec<f64> = sol.iter().map(|&t| t.max(0.0)).collect();
    let total: f64 = clipped.iter().sum();
    (total > 0.0).then(|| clipped.iter().map(|t| t / total).collect())
}

/// Gaussian elimination with full pivoting on the w×(w+1) augmented
/// matrix; `None` when a pivot falls below `tol` (singular).
fn gauss(a: &mut [f64], w: usize, tol: f64) -> Option<Vec<f64>> {
    let cols = w + 1;
    let mut perm: Vec<usize> = (0..w).collect();
    for k in 0..w {
        let (mut pr, mut pc, mut big) = (k, k, 0.0);
        for r in k..w {
            for c in k..w {
                let t = a[r * cols + c].abs();
                if t > big {
                    (pr, pc, big) = (r, c, t);
                }
            }
        }
        if big <= tol {
            return None;
        }
        if pr != k {
            for c in 0..cols {
                a.swap(k * cols + c, pr * cols + c);
            }
        }
        if pc != k {
            for r in 0..w {
                a.swap(r * cols + k, r * cols + pc);
            }
            perm.swap(k, pc);
        }
        let piv = a[k * cols + k];
        for r in k + 1..w {
            let f = a[r * cols + k] / piv;
            if f != 0.0 {
                for c in k..cols {
                    a[r * cols + c] -= f * a[k * cols + c];
                }
            }
        }
    }
    let mut y = vec![0.0; w];
    for k in (0..w).rev() {
        let mut t = a[k * cols + w];
        for c in k + 1..w {
            t -= a[k * cols + c] * y[c];
        }
        y[k] = t / a[k * cols + k];
    }
    let mut x = vec![0.0; w];
    for (k, &p) in perm.iter().enumerate() {
        x[p] = y[k];
    }
    Some(x)
}

/// Euclidean projection onto the simplex (sort-based).
pub fn project(y: &[f64]) -> Vec<f64> {
    let mut u = y.to_vec();
    u.sort_by(|a, b| b.total_cmp(a));
    let mut cum = 0.0;
    let mut theta = 0.0;
    for (j, &uj) in u.iter().enumerate() {
        cum += uj;
        let t = (cum - 1.0) / (j + 1) as f64;
        if uj - t > 0.0 {
            theta = t;
        }
    }
    y.iter().map(|&x| (x - theta).max(0.0)).collect()
}

fn projected_gradient(m: &[f64], b: &[f64]) -> Vec<f64> {
    let v = b.len();
    // Gershgorin bound on λ_max(M): the step 1/(2L) never overshoots.
    let lip = (0..v)
        .map(|p| (0..v).map(|r| m[p * v + r].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    if lip.is_nan() || lip <= 0.0 {
        // M = 0: a linear programme, solved by the best vertex.
        let best = (0..v).fold(0, |i, p| if b[p] > b[i] { p } else { i });
        let mut a = vec![0.0; v];
        a[best] = 1.0;
        return a;
    }
    let step = 1.0 / (2.0 * lip);
    let mut a = vec![1.0 / v as f64; v];
    for _ in 0..200_000 {
        let g: Vec<f64> = (0..v)
            .map(|p| 2.0 * (0..v).map(|r| m[p * v + r] * a[r]).sum::<f64>() - 2.0 * b[p])
            .collect();
        let y: Vec<f64> = a.iter().zip(&g).map(|(x, d)| x - step * d).collect();
        let next = project(&y);
        let moved = next
            .iter()
            .zip(&a)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        a = next;
        if moved <= 1e-15 {
            break;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// M = GᵀG for random G (rank ≤ rows), b random.
    fn random_problem(v: usize, rows: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let g: Vec<f64> = (0..rows * v).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut m = vec![0.0; v * v];
        for p in 0..v {
            for q in 0..v {
                m[p * v + q] = (0..rows).map(|r| g[r * v + p] * g[r * v + q]).sum();
            }
        }
        let b = (0..v).map(|_| rng.random_range(-1.0..2.0)).collect();
        (m, b)
    }

    fn assert_kkt(m: &[f64], b: &[f64], a: &[f64], what: &str) {
        assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{what}: {a:?}");
        assert!(a.iter().all(|&x| x >= 0.0), "{what}: {a:?}");
        let k = kkt_violation(m, b, a);
        assert!(k < 1e-8, "{what}: KKT violation {k}, α = {a:?}");
        // No vertex or random point of the simplex does better.
        let f = objective(m, b, a);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let y: Vec<f64> = (0..b.len()).map(|_| rng.random_range(0.0..1.0)).collect();
            let s: f64 = y.iter().sum();
            let y: Vec<f64> = y.iter().map(|t| t / s).collect();
            assert!(objective(m, b, &y) >= f - 1e-9 * f.abs().max(1.0), "{what}");
        }
    }

    #[test]
    fn random_problems_meet_the_kkt_conditions() {
        for (seed, v) in [(1, 2), (2, 3), (3, 5), (4, 8), (5, 12)] {
            let (m, b) = random_problem(v, v + 3, seed);
            assert_kkt(&m, &b, &solve(&m, &b), &format!("v = {v}"));
            // Rank-deficient M (fewer rows than kernels).
            let (m, b) = random_problem(v, 1, seed + 100);
            assert_kkt(&m, &b, &solve(&m, &b), &format!("rank 1, v = {v}"));
        }
    }

    #[test]
    fn a_duplicated_kernel_splits_its_weight_without_changing_the_optimum() {
        let (m3, b3) = random_problem(3, 6, 11);
        // Kernel 3 duplicated as kernel 4: M gets a repeated row and column.
        let idx = [0, 1, 2, 2];
        let m4: Vec<f64> = (0..16).map(|t| m3[idx[t / 4] * 3 + idx[t % 4]]).collect();
        let b4: Vec<f64> = idx.iter().map(|&p| b3[p]).collect();
        let a3 = solve(&m3, &b3);
        let a4 = solve(&m4, &b4);
        assert_kkt(&m4, &b4, &a4, "duplicated");
        assert!((objective(&m3, &b3, &a3) - objective(&m4, &b4, &a4)).abs() < 1e-10);
        assert!((a4[2] + a4[3] - a3[2]).abs() < 1e-9, "{a3:?} {a4:?}");
        assert!((a4[0] - a3[0]).abs() < 1e-9 && (a4[1] - a3[1]).abs() < 1e-9);
    }

    #[test]
    fn one_kernel_gets_all_the_weight() {
        assert_eq!(solve(&[4.0], &[-3.0]), vec![1.0]);
        assert_eq!(solve(&[0.0], &[0.0]), vec![1.0]);
    }

    #[test]
    fn projected_gradient_agrees_with_enumeration() {
        for (seed, v) in [(21, 4), (22, 9)] {
            let (m, b) = random_problem(v, v + 2, seed);
            let exact = enumerate(&m, &b);
            let pg = projected_gradient(&m, &b);
            let (fe, fp) = (objective(&m, &b, &exact), objective(&m, &b, &pg));
            assert!((fe - fp).abs() < 1e-8 * fe.abs().max(1.0), "{fe} vs {fp}");
        }
        // Above the enumeration limit.
        let (m, b) = random_problem(20, 25, 23);
        assert_kkt(&m, &b, &solve(&m, &b), "v = 20");
    }

    #[test]
    fn the_projection_lands_on_the_simplex() {
        let p = project(&[0.5, 2.0, -1.0]);
        assert_eq!(p, vec![0.0, 1.0, 0.0]);
        let p = project(&[0.4, 0.4, 0.4]);
        assert!(p.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15));
    }
}
