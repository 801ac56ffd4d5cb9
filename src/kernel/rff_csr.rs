//! The random Fourier feature map on sparse (CSR) rows: the only step of
//! the RFF algorithms that reads X, done per nonzero. Row i's arguments
//! are zᵢ = Σ_j x_ij·Ω[j − start, :] over its nonzeros in the map's
//! columns, then sin/cos in the same fixed blocks as the dense map
//! ([`super::rff::map_rows`]), so a problem on CSR rows gets the dense
//! problem's features to rounding (only the order of the sums in XΩ
//! differs) and the same features whatever the thread count. Memory:
//! the n × 2D result plus one block, never n × p.

use super::rff::{Element, FeatureMap, MapSpec, Store, map_blocks};
use crate::error::Result;
use crate::solver::Ctx;
use crate::solver::csr::Csr;
use ndarray::{Array2, ArrayView2};
use std::ops::Range;

/// Adds row i's arguments x_i·Ω (its nonzeros in `cols`) to `out` (D
/// values); `omega` row-major, cols.len() × D.
#[inline]
fn row_args(x: &Csr, i: usize, cols: &Range<usize>, omega: &[f64], out: &mut [f64]) {
    let dim = out.len();
    let (idx, val) = x.row_in(i, cols);
    for (&j, &v) in idx.iter().zip(val) {
        let r = j as usize - cols.start;
        let w = &omega[r * dim..(r + 1) * dim];
        for (o, &f) in out.iter_mut().zip(w) {
            *o += v * f;
        }
    }
}

/// φ for the CSR rows of `x` on the columns `cols` with frequencies
/// `omega` (cols.len() × D): n × 2D, as [`super::rff::map_rows`] builds it
/// for the dense rows of those columns.
pub fn map_csr<T: Element>(
    x: &Csr,
    cols: Range<usize>,
    omega: ArrayView2<f64>,
    ctx: &Ctx,
    label: &str,
) -> Result<Array2<T>> {
    assert_eq!(
        cols.len(),
        omega.nrows(),
        "frequencies and view differ in d"
    );
    assert!(cols.end <= x.ncols(), "view columns within the matrix");
    let omega = omega.as_standard_layout();
    let om = omega.as_slice().expect("standard layout");
    map_blocks(x.nrows(), omega.ncols(), ctx, label, |r0, r1, z| {
        for (i, mut zr) in (r0..r1).zip(z.outer_iter_mut()) {
            row_args(x, i, &cols, om, zr.as_slice_mut().expect("fresh array"));
        }
    })
}

impl FeatureMap {
    /// [`FeatureMap::build`] on CSR rows: the map's columns are picked out of
    /// each row's nonzeros.
    pub fn build_csr(x: &Csr, spec: &MapSpec, ctx: &Ctx, label: &str) -> Result<FeatureMap> {
        let t0 = std::time::Instant::now();
        let omega = spec.frequencies();
        let cols = spec.cols.clone();
        let store = if spec.f32 {
            Store::F32(map_csr(x, cols, omega.view(), ctx, label)?)
        } else {
            Store::F64(map_csr(x, cols, omega.view(), ctx, label)?)
        };
        Ok(FeatureMap::finish(spec, store, t0))
    }
}

/// The arguments XΩ (m × D) of a few CSR rows (the kernel-error sample),
/// sequential.
pub fn sample_args(x: &Csr, cols: &Range<usize>, omega: ArrayView2<f64>) -> Array2<f64> {
    let omega = omega.as_standard_layout();
    let om = omega.as_slice().expect("standard layout");
    let mut z = Array2::zeros((x.nrows(), omega.ncols()));
    for (i, mut zr) in z.outer_iter_mut().enumerate() {
        row_args(x, i, cols, om, zr.as_slice_mut().expect("fresh array"));
    }
    z
}

/// The Gram matrix XXᵀ (m × m) of a few CSR rows on the columns `cols`,
/// through one dense scratch row of cols.len() values: row i scattered,
/// every row j read against it per nonzero.
pub fn sample_gram(x: &Csr, cols: &Range<usize>) -> Array2<f64> {
    let m = x.nrows();
    let mut g = Array2::zeros((m, m));
    let mut dense = vec![0.0; cols.len()];
    for i in 0..m {
        let (idx, val) = x.row_in(i, cols);
        for (&j, &v) in idx.iter().zip(val) {
            dense[j as usize - cols.start] = v;
        }
        for jj in 0..m {
            let (ix, vx) = x.row_in(jj, cols);
            g[[i, jj]] = ix
                .iter()
                .zip(vx)
                .map(|(&j, &v)| v * dense[j as usize - cols.start])
                .sum();
        }
        for &j in idx {
            dense[j as usize - cols.start] = 0.0;
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::rff::map_rows;
    use ndarray::s;

    fn sparse_rows(n: usize, p: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, p), |(i, j)| {
            if (i * 7 + j * 13) % 5 == 0 {
                ((i * p + j) as f64 * 0.37).sin() * 2.0
            } else {
                0.0
            }
        })
    }

    fn spec(cols: Range<usize>) -> MapSpec {
        MapSpec {
            cols,
            sigma: 1.7,
            dim: 24,
            seed: 3,
            stream: 1,
            f32: false,
        }
    }

    #[test]
    fn the_csr_map_is_the_dense_map_on_any_view() {
        let d = sparse_rows(1100, 12);
        let x = Csr::from_dense(d.view()).unwrap();
        for cols in [0..12, 3..8, 11..12] {
            let sp = spec(cols.clone());
            let om = sp.frequencies();
            let ctx = Ctx::new();
            let got: Array2<f64> = map_csr(&x, cols.clone(), om.view(), &ctx, "t").unwrap();
            let dense = d.slice(s![.., cols.clone()]);
            let want: Array2<f64> = map_rows(dense, om.view(), &ctx, "t").unwrap();
            assert_eq!(got.dim(), want.dim());
            let worst = got
                .iter()
                .zip(&want)
                .fold(0.0f64, |a, (u, v)| a.max((u - v).abs()));
            // Features are O(1/√D): 1e-14 absolute is ~1e-13 relative.
            assert!(worst < 1e-14, "{cols:?}: {worst}");
            let f32s: Array2<f32> = map_csr(&x, cols.clone(), om.view(), &ctx, "t").unwrap();
            assert!(
                f32s.iter()
                    .zip(&want)
                    .all(|(a, b)| (f64::from(*a) - b).abs() < 1e-6)
            );
        }
    }

    #[test]
    fn the_csr_map_does_not_depend_on_the_thread_count() {
        let d = sparse_rows(2500, 30);
        let x = Csr::from_dense(d.view()).unwrap();
        let sp = spec(2..29);
        let om = sp.frequencies();
        let run = || map_csr::<f64>(&x, 2..29, om.view(), &Ctx::new(), "t").unwrap();
        let with = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(run)
        };
        assert_eq!(with(1), with(3));
    }

    #[test]
    fn sample_products_are_the_dense_ones() {
        let d = sparse_rows(40, 9);
        let x = Csr::from_dense(d.view()).unwrap();
        let cols = 1..7;
        let dv = d.slice(s![.., cols.clone()]);
        let om = spec(cols.clone()).frequencies();
        let (z, g) = (sample_args(&x, &cols, om.view()), sample_gram(&x, &cols));
        let close =
            |a: &Array2<f64>, b: &Array2<f64>| a.iter().zip(b).all(|(u, v)| (u - v).abs() < 1e-12);
        assert!(close(&z, &dv.dot(&om)));
        assert!(close(&g, &dv.dot(&dv.t())));
    }

    #[test]
    fn a_cancelled_csr_map_stops() {
        let x = Csr::from_dense(sparse_rows(600, 5).view()).unwrap();
        let om = spec(0..5).frequencies();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let ctx = Ctx::new().with_cancel(flag);
        let e = map_csr::<f64>(&x, 0..5, om.view(), &ctx, "t").unwrap_err();
        assert!(matches!(e, crate::error::Error::Cancelled));
    }
}
