//! A data matrix held once, in the float type of the run.
//!
//! A dataset and the problem built from it share one `Matrix`: f64, or f32
//! for `--dtype f32` (half the bytes; no f64 copy of the n × p matrix is
//! kept). Code that needs f64 reads f32 rows widened per block
//! ([`super::rows::Rows::block_in`]) or, where it has not been made
//! blockwise, widened whole for the time of one call ([`Matrix::f64`]).

use super::rows::Rows;
use ndarray::{Array2, Axis, CowArray, Ix2};
use std::sync::Arc;

/// The float type the solvers read the rows in: f32 halves the bytes an
/// iteration reads and doubles the rate of its products (every sum that
/// decides convergence, and the objective, stay f64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    #[default]
    F64,
    F32,
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dtype::F64 => "f64",
            Dtype::F32 => "f32",
        })
    }
}

/// Equal when of the same float type with equal values.
#[derive(Debug, Clone, PartialEq)]
pub enum Matrix {
    F64(Arc<Array2<f64>>),
    F32(Arc<Array2<f32>>),
}

/// The two float types a matrix is stored in, for code written once for
/// both (scaling, imputing): reads widen to f64, writes round from f64.
pub trait Real: Copy + Send + Sync + Into<f64> + 'static {
    fn from_f64(v: f64) -> Self;
}

impl Real for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Real for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl From<Array2<f64>> for Matrix {
    fn from(x: Array2<f64>) -> Self {
        Matrix::F64(Arc::new(x))
    }
}

impl From<Array2<f32>> for Matrix {
    fn from(x: Array2<f32>) -> Self {
        Matrix::F32(Arc::new(x))
    }
}

/// Applies `$body` to the array inside a matrix, whatever its float type
/// (`$x` is bound to `&Arc<Array2<T>>`).
#[macro_export]
macro_rules! with_matrix {
    ($m:expr, $x:ident => $body:expr) => {
        match $m {
            // The body is written once for both types: a widening that is
            // needed for f32 is the identity for f64.
            #[allow(clippy::useless_conversion)]
            $crate::solver::Matrix::F64($x) => $body,
            $crate::solver::Matrix::F32($x) => $body,
        }
    };
}

impl Matrix {
    pub fn nrows(&self) -> usize {
        with_matrix!(self, x => x.nrows())
    }

    pub fn ncols(&self) -> usize {
        with_matrix!(self, x => x.ncols())
    }

    pub fn dim(&self) -> (usize, usize) {
        with_matrix!(self, x => x.dim())
    }

    pub fn dtype(&self) -> Dtype {
        match self {
            Matrix::F64(_) => Dtype::F64,
            Matrix::F32(_) => Dtype::F32,
        }
    }

    /// Bytes of the values.
    pub fn bytes(&self) -> usize {
        match self {
            Matrix::F64(x) => x.len() * 8,
            Matrix::F32(x) => x.len() * 4,
        }
    }

    /// The rows, in their storage type.
    pub fn rows(&self) -> Rows<'_> {
        match self {
            Matrix::F64(x) => Rows::F64(x.view()),
            Matrix::F32(x) => Rows::F32(x.view()),
        }
    }

    /// The values as f64: borrowed when stored so, else a widened copy
    /// that lives as long as the result (for code not read blockwise).
    pub fn f64(&self) -> CowArray<'_, f64, Ix2> {
        match self {
            Matrix::F64(x) => CowArray::from(x.view()),
            Matrix::F32(x) => CowArray::from(x.mapv(f64::from)),
        }
    }

    /// The matrix in `dtype`: itself (shared), or a converted copy.
    pub fn to_dtype(&self, dtype: Dtype) -> Matrix {
        match (self, dtype) {
            (Matrix::F64(x), Dtype::F32) => Matrix::from(x.mapv(|v| v as f32)),
            (Matrix::F32(x), Dtype::F64) => Matrix::from(x.mapv(f64::from)),
            _ => self.clone(),
        }
    }

    /// Rows `keep` (indices), in the storage type.
    pub fn select_rows(&self, keep: &[usize]) -> Matrix {
        match self {
            Matrix::F64(x) => Matrix::from(x.select(Axis(0), keep)),
            Matrix::F32(x) => Matrix::from(x.select(Axis(0), keep)),
        }
    }

    /// A row-major layout (copied once if not already).
    pub fn standard(self) -> Matrix {
        match self {
            Matrix::F64(x) if !x.is_standard_layout() => {
                Matrix::from(x.as_standard_layout().into_owned())
            }
            Matrix::F32(x) if !x.is_standard_layout() => {
                Matrix::from(x.as_standard_layout().into_owned())
            }
            m => m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn f32_storage_widens_exactly_and_halves_the_bytes() {
        let m = Matrix::from(array![[1.5f32, -2.0], [0.1, 3.0]]);
        assert_eq!(m.dtype(), Dtype::F32);
        assert_eq!(m.bytes(), 16);
        let w = m.f64();
        assert_eq!(w[[1, 0]], f64::from(0.1f32));
        let back = m.to_dtype(Dtype::F64);
        assert_eq!(back.bytes(), 32);
        assert_eq!(back.to_dtype(Dtype::F32).rows().nrows(), 2);
    }
}
