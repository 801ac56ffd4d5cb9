//! The two products of a power iteration on f32 rows, in f32, without
//! losing what decides the run.
//!
//! While s is near −1 the centres nearly merge and must be able to part
//! again, so what matters is how the distances of a row to the different
//! centres differ, not their size. `‖x‖² + ‖c‖² − 2·x·c` in f32 loses those
//! differences to the size of ‖x‖ (usps at s₀ = −1 emptied 3 of 10 clusters
//! that way). Here the distances are taken about the centres' mean c̄:
//!
//!   ‖x − cⱼ‖² = ‖x − c̄‖² + ‖δⱼ‖² + 2·c̄·δⱼ − 2·x·δⱼ,   δⱼ = cⱼ − c̄,
//!
//! x·δⱼ is the f32 product, and its rounding scales with the centres'
//! spread |δ|, so it shrinks as the centres merge. A row's distance to its
//! nearest centre is then taken directly, Σ (x − cⱼ*)² in f64, and the
//! others as that plus their f64 difference to it: rows sit close to
//! their centre and far from c̄, and in ‖x − c̄‖² + … − 2·x·δⱼ the small
//! nearest distance would carry the rounding of the large terms (6e-7 of
//! the objective on separated blobs, enough to disturb a stopping rule of
//! 1e-6). The far distances keep that rounding, which is small beside them.
//! The weighted sums Wᵀ·X of a block are an f32 product added to the f64
//! running sums block by block.

use crate::linalg::gemm_seq_f32;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};

/// A run's centres as the f32 products read them, made once per iteration.
pub struct Centred {
    /// k × p: δⱼ = cⱼ − c̄ in f32.
    delta: Array2<f32>,
    /// ‖δⱼ‖² + 2·c̄·δⱼ = ‖cⱼ‖² − ‖c̄‖², in f64.
    offset: Vec<f64>,
}

impl Centred {
    pub fn new(c: ArrayView2<f64>) -> Self {
        let (k, p) = c.dim();
        let mut mean = vec![0.0; p];
        for row in c.rows() {
            for (m, &v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        mean.iter_mut().for_each(|m| *m /= k.max(1) as f64);
        let mut delta = Array2::<f32>::zeros((k, p));
        let mut offset = vec![0.0; k];
        for (j, row) in c.rows().into_iter().enumerate() {
            let mut sq = 0.0;
            let mut cross = 0.0;
            for (l, (&v, &m)) in row.iter().zip(&mean).enumerate() {
                let d = v - m;
                delta[[j, l]] = d as f32;
                sq += d * d;
                cross += m * d;
            }
            offset[j] = sq + 2.0 * cross;
        }
        Centred { delta, offset }
    }

    /// Squared distances of the rows of `xb` to the centres `c` (those
    /// this was made from).
    pub fn sq_dists(&self, xb: ArrayView2<f32>, c: ArrayView2<f64>) -> Array2<f64> {
        let (rows, k) = (xb.nrows(), self.offset.len());
        let mut d = Array2::<f64>::zeros((rows, k));
        if k == 0 {
            return d;
        }
        let mut dot = Array2::<f32>::zeros((rows, k));
        super::row_dots::row_dots(xb, self.delta.view(), dot.view_mut());
        let dot = dot.as_slice().expect("standard layout");
        let out = d.as_slice_mut().expect("standard layout");
        for ((dot, out), x) in dot
            .chunks_exact(k)
            .zip(out.chunks_exact_mut(k))
            .zip(xb.rows())
        {
            // ‖x − cⱼ‖² − ‖x − c̄‖², up to f32 rounding.
            for ((v, &o), &t) in out.iter_mut().zip(&self.offset).zip(dot) {
                *v = o - 2.0 * f64::from(t);
            }
            let (near, base) =
                out.iter()
                    .copied()
                    .enumerate()
                    .fold(
                        (0, f64::INFINITY),
                        |m, (j, v)| if v < m.1 { (j, v) } else { m },
                    );
            let exact = sq_dist_wide(x, c.row(near));
            for v in out.iter_mut() {
                *v = (exact + (*v - base)).max(0.0);
            }
            out[near] = exact;
        }
        d
    }
}

/// ‖x − c‖² with x widened to f64, in a fixed order of 8 lanes (the same
/// bits with AVX-512, AVX2 or neither: no fused multiply-add).
fn sq_dist_wide(x: ndarray::ArrayView1<f32>, c: ndarray::ArrayView1<f64>) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F is present (checked above).
        return unsafe { sq_dist_wide_avx512(x, c) };
    }
    #[cfg(target_arch = "x86_64")]
    if super::fastmath::has_avx2() {
        // SAFETY: AVX2 is present (checked above).
        return unsafe { sq_dist_wide_avx2(x, c) };
    }
    sq_dist_wide_plain(x, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sq_dist_wide_avx2(x: ndarray::ArrayView1<f32>, c: ndarray::ArrayView1<f64>) -> f64 {
    sq_dist_wide_plain(x, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sq_dist_wide_avx512(x: ndarray::ArrayView1<f32>, c: ndarray::ArrayView1<f64>) -> f64 {
    sq_dist_wide_plain(x, c)
}

#[inline(always)]
fn sq_dist_wide_plain(x: ndarray::ArrayView1<f32>, c: ndarray::ArrayView1<f64>) -> f64 {
    const LANES: usize = 8;
    let (xo, co);
    let x = match x.as_slice() {
        Some(v) => v,
        None => {
            xo = x.to_vec();
            &xo[..]
        }
    };
    let c = match c.as_slice() {
        Some(v) => v,
        None => {
            co = c.to_vec();
            &co[..]
        }
    };
    let mut lanes = [0.0f64; LANES];
    let (xc, cc) = (x.chunks_exact(LANES), c.chunks_exact(LANES));
    let tail: f64 = xc
        .remainder()
        .iter()
        .zip(cc.remainder())
        .map(|(&a, &b)| (f64::from(a) - b) * (f64::from(a) - b))
        .sum();
    for (a, b) in xc.zip(cc) {
        for l in 0..LANES {
            let d = f64::from(a[l]) - b[l];
            lanes[l] += d * d;
        }
    }
    lanes.iter().sum::<f64>() + tail
}

/// `acc += eᵀ·xb`: the block's weighted sums as one f32 product, added to
/// the f64 sums. As with the distances, what must survive is how the
/// centres' weights differ: each row's weights are split into their mean
/// ēᵢ over the centres and the rest εᵢⱼ, and the product is taken of
/// [ε | ē]. The rounding of Σᵢ εᵢⱼ·xᵢ scales with ε, which vanishes as the
/// centres merge, and that of Σᵢ ēᵢ·xᵢ is the same for every centre.
/// Weights below f32's normal range are dropped (they are that far below
/// the block's largest, and subnormals would slow the product).
pub fn add_weighted_sums(mut acc: ArrayViewMut2<f64>, e: ArrayView2<f64>, xb: ArrayView2<f32>) {
    let (rows, k) = e.dim();
    let narrow = |v: f64| {
        let v = v as f32;
        if v.abs() < f32::MIN_POSITIVE { 0.0 } else { v }
    };
    let mut split = Array2::<f32>::zeros((rows, k + 1));
    for (w, mut out) in e.rows().into_iter().zip(split.rows_mut()) {
        let mean = w.sum() / k.max(1) as f64;
        for (o, &v) in out.iter_mut().zip(&w) {
            *o = narrow(v - mean);
        }
        out[k] = narrow(mean);
    }
    let p = acc.ncols();
    let mut part = Array2::<f32>::zeros((k + 1, p));
    gemm_seq_f32(part.view_mut(), split.t(), xb, 1.0, false);
    let part = part.as_slice().expect("standard layout");
    let (own, common) = part.split_at(k * p);
    let acc = acc.as_slice_mut().expect("the sums are one k × p array");
    for (a, o) in acc.chunks_exact_mut(p).zip(own.chunks_exact(p)) {
        for ((a, &o), &c) in a.iter_mut().zip(o).zip(common) {
            *a += f64::from(o) + f64::from(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn distances_about_the_mean_equal_the_f64_ones() {
        let x = Array2::from_shape_fn((37, 19), |(i, j)| {
            ((i * 7 + j * 3) % 11) as f32 * 0.5 + 100.0
        });
        let c = Array2::from_shape_fn((3, 19), |(j, l)| 100.0 + (j * 5 + l) as f64 * 0.25);
        let x64 = x.mapv(f64::from);
        let norms = crate::linalg::row_sq_norms(x64.view());
        let want = crate::linalg::sq_dists(x64.view(), &norms, c.view());
        let got = Centred::new(c.view()).sq_dists(x.view(), c.view());
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-3 * b.max(1.0), "{a} vs {b}");
        }
    }

    #[test]
    fn nearly_merged_centres_stay_apart() {
        // Rows far from the origin, centres 1e-3 apart: the plain f32
        // expansion cannot tell the centres apart, the centred one can.
        let x = array![[1000.0f32, 1000.0], [1000.5, 1000.0]];
        let c = array![[1000.0, 1000.0], [1000.001, 1000.0]];
        let x64 = x.mapv(f64::from);
        let norms = crate::linalg::row_sq_norms(x64.view());
        let d = Centred::new(c.view()).sq_dists(x.view(), c.view());
        let want = crate::linalg::sq_dists(x64.view(), &norms, c.view());
        // Row 1 is 0.5 from c₀ and 0.499 from c₁: the difference 0.000999
        // is kept to 1 %.
        let diff = d[[1, 0]] - d[[1, 1]];
        let want_diff = want[[1, 0]] - want[[1, 1]];
        assert!(
            (diff - want_diff).abs() < 0.01 * want_diff,
            "{diff} vs {want_diff}"
        );
        // x·c̄'s f32 rounding is the same for both centres of a row.
        assert!(
            (d[[0, 0]] - want[[0, 0]]).abs() <= 1e-6 * norms[0],
            "{}",
            d[[0, 0]]
        );
    }

    #[test]
    fn a_row_near_its_centre_far_from_the_others_keeps_its_distance() {
        // Separated blobs: ‖x − c̄‖² ≈ 1e4 while the nearest distance is
        // ≈ 1, the case where the expansion about c̄ loses the small one.
        let c = array![[100.0, 0.0, 0.0], [-100.0, 0.0, 0.0], [0.0, 100.0, 3.0]];
        let x = Array2::from_shape_fn((30, 3), |(i, l)| {
            (c[[i % 3, l]] + ((i * 7 + l * 5) % 13) as f64 * 0.1 - 0.6) as f32
        });
        let x64 = x.mapv(f64::from);
        let norms = crate::linalg::row_sq_norms(x64.view());
        let want = crate::linalg::sq_dists(x64.view(), &norms, c.view());
        let got = Centred::new(c.view()).sq_dists(x.view(), c.view());
        for i in 0..30 {
            let near = i % 3;
            let exact: f64 = x64
                .row(i)
                .iter()
                .zip(c.row(near))
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            assert!(
                (got[[i, near]] - exact).abs() <= 1e-12 * exact.max(1.0),
                "row {i}"
            );
            for j in 0..3 {
                assert!((got[[i, j]] - want[[i, j]]).abs() <= 1e-5 * want[[i, j]].max(1.0));
            }
        }
    }

    #[test]
    fn weighted_sums_add_to_the_f64_ones() {
        let x = Array2::from_shape_fn((50, 6), |(i, j)| (i + j) as f32 * 0.1);
        let e = Array2::from_shape_fn(
            (50, 2),
            |(i, j)| if j == 0 { 1.0 } else { 1e-50 * i as f64 },
        );
        let mut acc = Array2::<f64>::ones((2, 6));
        add_weighted_sums(acc.view_mut(), e.view(), x.view());
        let want = e.t().dot(&x.mapv(f64::from)) + 1.0;
        for (a, b) in acc.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-5 * b.abs(), "{a} vs {b}");
        }
    }
}
