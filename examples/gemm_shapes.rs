//! Thin products against stacked ones, the shapes of a batch's cache
//! block: B runs of k centres each over a block of n rows and p features.
//! Times B thin distance products (n × p)·(p × k) against one stacked
//! (n × p)·(p × kB), and B thin weighted sums (k × n)·(n × p) against one
//! stacked, on one thread, and says whether every entry has the same bits
//! (what the power pass's `Stack` relies on; a transposed formulation is
//! timed beside them).
//!
//!     cargo run --release --example gemm_shapes -- 256 256 10 8   # n p k B

use meanscape::internals::linalg::gemm_seq;
use ndarray::{Array2, s};
use rand::{Rng, SeedableRng};
use std::time::Instant;

/// Seconds per call of `f`, over `reps` calls.
fn per_rep(reps: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() / reps as f64
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let (n, p, k, b) = (args[0], args[1], args[2], args[3]);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let x = Array2::from_shape_fn((n, p), |_| rng.random::<f64>());
    let c = Array2::from_shape_fn((k * b, p), |_| rng.random::<f64>());
    let reps = 2000;
    // (a) B thin products
    let mut d1 = Array2::<f64>::zeros((n, k));
    let ta = per_rep(reps, || {
        for r in 0..b {
            gemm_seq(
                d1.view_mut(),
                x.view(),
                c.slice(s![r * k..(r + 1) * k, ..]).t(),
                -2.0,
                false,
            );
        }
    });
    // (b) one stacked product
    let mut db = Array2::<f64>::zeros((n, k * b));
    let tb = per_rep(reps, || {
        gemm_seq(db.view_mut(), x.view(), c.t(), -2.0, false);
    });
    // (c) transposed thin: dT = C·Xᵀ
    let mut dt = Array2::<f64>::zeros((k, n));
    let tc = per_rep(reps, || {
        for r in 0..b {
            gemm_seq(
                dt.view_mut(),
                c.slice(s![r * k..(r + 1) * k, ..]),
                x.t(),
                -2.0,
                false,
            );
        }
    });
    // bits
    gemm_seq(
        d1.view_mut(),
        x.view(),
        c.slice(s![(b - 1) * k..b * k, ..]).t(),
        -2.0,
        false,
    );
    gemm_seq(
        dt.view_mut(),
        c.slice(s![(b - 1) * k..b * k, ..]),
        x.t(),
        -2.0,
        false,
    );
    let same_b = d1
        .iter()
        .zip(db.slice(s![.., (b - 1) * k..]).iter())
        .all(|(u, v)| u.to_bits() == v.to_bits());
    let same_c = d1
        .iter()
        .zip(dt.t().iter())
        .all(|(u, v)| u.to_bits() == v.to_bits());
    // weighted sums: acc(k×p) += eᵀ·x, B thin vs stacked
    let e = Array2::from_shape_fn((n, k * b), |_| rng.random::<f64>());
    let mut acc1 = Array2::<f64>::zeros((k, p));
    let td = per_rep(reps, || {
        for r in 0..b {
            gemm_seq(
                acc1.view_mut(),
                e.slice(s![.., r * k..(r + 1) * k]).t(),
                x.view(),
                1.0,
                true,
            );
        }
    });
    let mut accb = Array2::<f64>::zeros((k * b, p));
    let te = per_rep(reps, || {
        gemm_seq(accb.view_mut(), e.t(), x.view(), 1.0, true);
    });
    let mut a1 = Array2::<f64>::zeros((k, p));
    let mut a2 = Array2::<f64>::zeros((k * b, p));
    for _ in 0..3 {
        gemm_seq(
            a1.view_mut(),
            e.slice(s![.., (b - 1) * k..]).t(),
            x.view(),
            1.0,
            true,
        );
        gemm_seq(a2.view_mut(), e.t(), x.view(), 1.0, true);
    }
    let same_e = a1
        .iter()
        .zip(a2.slice(s![(b - 1) * k.., ..]).iter())
        .all(|(u, v)| u.to_bits() == v.to_bits());
    // (f) transposed sums: accᵀ (p×k) += xᵀ·e
    let mut acc3 = Array2::<f64>::zeros((k, p));
    let tf = per_rep(reps, || {
        for r in 0..b {
            gemm_seq(
                acc3.view_mut().reversed_axes(),
                x.t(),
                e.slice(s![.., r * k..(r + 1) * k]),
                1.0,
                true,
            );
        }
    });
    let mut a3 = Array2::<f64>::zeros((k, p));
    let mut a4 = Array2::<f64>::zeros((k, p));
    for _ in 0..3 {
        gemm_seq(
            a3.view_mut().reversed_axes(),
            x.t(),
            e.slice(s![.., (b - 1) * k..]),
            1.0,
            true,
        );
        gemm_seq(
            a4.view_mut(),
            e.slice(s![.., (b - 1) * k..]).t(),
            x.view(),
            1.0,
            true,
        );
    }
    let same_f = a3
        .iter()
        .zip(a4.iter())
        .all(|(u, v)| u.to_bits() == v.to_bits());
    let gf = |t: f64| 2.0 * (n * p * k * b) as f64 / t / 1e9;
    println!("n={n} p={p} k={k} B={b}");
    println!(
        "dist  thin x{b}: {:.1} us ({:.1} GF/s) | stacked: {:.1} us ({:.1} GF/s) same={same_b} | transposed thin: {:.1} us ({:.1} GF/s) same={same_c}",
        ta * 1e6,
        gf(ta),
        tb * 1e6,
        gf(tb),
        tc * 1e6,
        gf(tc)
    );
    println!(
        "sums  thin x{b}: {:.1} us ({:.1} GF/s) | stacked: {:.1} us ({:.1} GF/s) same={same_e} | transposed thin: {:.1} us ({:.1} GF/s) same={same_f}",
        td * 1e6,
        gf(td),
        te * 1e6,
        gf(te),
        tf * 1e6,
        gf(tf)
    );
}
