//! `x·cᵀ` for f32 rows and a few f32 centres, both row-major: the
//! distance product of every f32 pass.
//!
//! faer computes a row-major n × k product as its k × n transpose. With k
//! about 10 that is its narrowest microkernel (one vector per column, four
//! columns: four chains of fused multiply-adds, bound by their latency),
//! after copying the rows transposed into its packed panels. Here the sums
//! run along the rows' columns instead: four rows by up to four centres at
//! a time, sixteen vector accumulators fed by eight loads, nothing packed.
//! 2.4× faster than faer on 256 × 512 blocks against 10 centres, the
//! random-feature map's shape.
//!
//! Each entry is summed the same way whatever the block it falls in (16
//! lanes in column order, then the lanes), so a row's products do not
//! depend on the other rows: a bounded Lloyd recomputing single rows gets
//! the bits of a full pass (see `bounded`).

use ndarray::{ArrayView2, ArrayViewMut2};

/// `out = x·cᵀ` (`x` rows × p, `c` k × p, `out` rows × k), on this thread.
pub fn row_dots(x: ArrayView2<f32>, c: ArrayView2<f32>, mut out: ArrayViewMut2<f32>) {
    assert_eq!(x.ncols(), c.ncols(), "rows and centres differ in columns");
    assert_eq!(out.dim(), (x.nrows(), c.nrows()), "output shape");
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && let (Some(xs), Some(cs)) = (x.as_slice(), c.as_slice())
        && let Some(os) = out.as_slice_mut()
    {
        // SAFETY: AVX-512F is present (checked above); the slices are the
        // whole row-major arrays whose shapes were checked.
        unsafe { avx512::row_dots(xs, cs, os, x.ncols()) };
        return;
    }
    crate::linalg::gemm_seq_f32(out, x, c.t(), 1.0, false);
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    /// # Safety
    /// AVX-512F must be present; `x` is rows × p, `c` k × p and `out`
    /// rows × k, all row-major.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn row_dots(x: &[f32], c: &[f32], out: &mut [f32], p: usize) {
        if p == 0 {
            out.fill(0.0);
            return;
        }
        let (rows, k) = (x.len() / p, c.len() / p);
        let mut i = 0;
        while i < rows {
            let mut j = 0;
            while j < k {
                // SAFETY: as the caller promises; the tile clamps its rows
                // and centres to the last valid one.
                unsafe {
                    match k - j {
                        1 => tile::<1>(x, c, out, p, i, j),
                        2 => tile::<2>(x, c, out, p, i, j),
                        3 => tile::<3>(x, c, out, p, i, j),
                        _ => tile::<4>(x, c, out, p, i, j),
                    }
                }
                j += 4;
            }
            i += 4;
        }
    }

    /// Rows i..i+4 (fewer at the end) against centres j..j+C.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile<const C: usize>(
        x: &[f32],
        c: &[f32],
        out: &mut [f32],
        p: usize,
        i: usize,
        j: usize,
    ) {
        let (rows, k) = (x.len() / p, c.len() / p);
        // Short tiles repeat the last row; their extra results are dropped.
        let xr: [*const f32; 4] = std::array::from_fn(|r| x[(i + r).min(rows - 1) * p..].as_ptr());
        let cr: [*const f32; C] = std::array::from_fn(|q| c[(j + q) * p..].as_ptr());
        let mut acc = [[_mm512_setzero_ps(); C]; 4];
        let full = p / LANES * LANES;
        let mut l = 0;
        while l < full {
            // SAFETY: l + 16 ≤ p, within every row.
            unsafe {
                let xv: [__m512; 4] = std::array::from_fn(|r| _mm512_loadu_ps(xr[r].add(l)));
                for q in 0..C {
                    let cv = _mm512_loadu_ps(cr[q].add(l));
                    for r in 0..4 {
                        acc[r][q] = _mm512_fmadd_ps(xv[r], cv, acc[r][q]);
                    }
                }
            }
            l += LANES;
        }
        if l < p {
            let mask: __mmask16 = ((1u32 << (p - l)) - 1) as __mmask16;
            // SAFETY: the masked loads read only the p − l columns left.
            unsafe {
                let xv: [__m512; 4] =
                    std::array::from_fn(|r| _mm512_maskz_loadu_ps(mask, xr[r].add(l)));
                for q in 0..C {
                    let cv = _mm512_maskz_loadu_ps(mask, cr[q].add(l));
                    for r in 0..4 {
                        acc[r][q] = _mm512_fmadd_ps(xv[r], cv, acc[r][q]);
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            if i + r >= rows {
                break;
            }
            for (q, &a) in acc.iter().enumerate().take(k - j) {
                out[(i + r) * k + j + q] = _mm512_reduce_add_ps(a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::row_dots;
    use ndarray::{Array2, s};

    fn reference(x: &Array2<f32>, c: &Array2<f32>) -> Array2<f64> {
        x.mapv(f64::from).dot(&c.mapv(f64::from).t())
    }

    #[test]
    fn every_shape_and_tail_gives_the_product() {
        for rows in [1, 3, 4, 5, 9] {
            for k in [1, 2, 3, 4, 5, 10, 11] {
                for p in [1, 7, 16, 17, 33, 50] {
                    let x = Array2::from_shape_fn((rows, p), |(i, l)| {
                        ((i * 7 + l * 3) % 11) as f32 * 0.25 - 1.0
                    });
                    let c = Array2::from_shape_fn((k, p), |(j, l)| ((j * 5 + l) % 13) as f32 * 0.5);
                    let mut out = Array2::<f32>::from_elem((rows, k), f32::NAN);
                    row_dots(x.view(), c.view(), out.view_mut());
                    let want = reference(&x, &c);
                    for (a, b) in out.iter().zip(&want) {
                        let scale: f64 = 1e-5 * (p as f64) * 10.0;
                        assert!(
                            (f64::from(*a) - b).abs() <= scale,
                            "rows {rows} k {k} p {p}: {a} vs {b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_row_gets_the_same_bits_in_any_block() {
        // What the AVX-512 path promises; faer's (the fallback) does not.
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let x = Array2::from_shape_fn((11, 37), |(i, l)| ((i * 13 + l * 7) % 17) as f32 * 0.3);
        let c = Array2::from_shape_fn((6, 37), |(j, l)| ((j * 3 + l * 11) % 19) as f32 * 0.7);
        let mut all = Array2::<f32>::zeros((11, 6));
        row_dots(x.view(), c.view(), all.view_mut());
        for i in 0..11 {
            let one = x.slice(s![i..i + 1, ..]).to_owned();
            let mut row = Array2::<f32>::zeros((1, 6));
            row_dots(one.view(), c.view(), row.view_mut());
            assert_eq!(row.row(0), all.row(i), "row {i}");
        }
    }
}
