//! The storage of a random Fourier feature map: the map's spec and its
//! n × 2D matrix. The core holds the types so a run can hand back the map
//! it clustered in; building and reading it is `crate::kernel::rff`'s (its
//! `impl` blocks live there).

use ndarray::Array2;
use std::ops::Range;

/// One feature map: which columns of the data, at which bandwidth, from
/// which random stream.
#[derive(Debug, Clone, PartialEq)]
pub struct MapSpec {
    /// Columns of the (scaled) data the map reads.
    pub cols: Range<usize>,
    pub sigma: f64,
    /// D, the number of frequencies.
    pub dim: usize,
    pub seed: u64,
    /// Random stream of `seed` (the view's index).
    pub stream: u64,
    /// Store the matrix in f32 (half the memory; arithmetic stays f64).
    pub f32: bool,
}

/// The feature matrix, n × 2D: [sin(XΩ), cos(XΩ)] / √D.
pub enum Store {
    F64(Array2<f64>),
    F32(Array2<f32>),
}

/// A built feature matrix.
pub struct FeatureMap {
    pub spec: MapSpec,
    pub store: Store,
    /// Squared row norms of the stored rows (1 up to rounding).
    pub norms: Vec<f64>,
    pub build_secs: f64,
}
