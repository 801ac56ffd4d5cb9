//! The storage of kernel matrices: a Gram matrix, what it was built
//! from, and a stack of precomputed kernels. The core holds their types so
//! a [`crate::solver::Problem`] can carry precomputed kernels and a run can
//! hand back the matrices it clustered on; building and reading them is
//! `crate::kernel`'s (its `impl` blocks live there).

use std::ops::Range;
use std::sync::Arc;

/// The kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// exp(−‖x−y‖² / 2σ²)
    Gaussian,
    /// exp(−‖x−y‖ / σ) (Euclidean distance, not squared)
    Laplacian,
    /// exp(−arccos(x̂ᵀŷ) / 2σ²) on the unit sphere (x̂ = x/‖x‖), as in the
    /// KPK paper's sphere simulation (the arccos is not squared)
    Geodesic,
    /// (a + xᵀy)^b
    Poly,
    /// xᵀy
    Linear,
    /// xᵀy / (‖x‖‖y‖)
    Cosine,
    /// A matrix read from a file (`--kernels precomputed`): never built
    /// from features.
    Precomputed,
    /// The symmetrised 0/1 nn-nearest-neighbour graph: spectral
    /// clustering's affinity, not a positive semi-definite kernel.
    Knn,
}

/// Storage precision of a Gram matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    #[default]
    F64,
    /// Entries rounded to f32 (half the memory); all arithmetic stays f64.
    F32,
}

/// Post-processing of a Gram matrix, in the order centre → normalise → rescale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Post {
    pub center: bool,
    pub normalize: bool,
    pub rescale: bool,
}

/// A kernel with every parameter fixed: what a Gram matrix is built from
/// and cached under.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub kind: Kind,
    pub sigma: Option<f64>,
    pub a: f64,
    pub b: u32,
    /// Neighbours per row: knn only.
    pub nn: Option<usize>,
    pub post: Post,
    pub precision: Precision,
}

/// Storage of the tiles.
pub(crate) enum Store {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

/// Where the tiles of an n×n lower triangle live.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) n: usize,
    /// Number of row (and column) blocks.
    pub(crate) nb: usize,
}

/// A kernel matrix K (n×n, symmetric) with its diagonal in f64.
pub struct Gram {
    pub(crate) layout: Layout,
    pub(crate) store: Store,
    pub(crate) diag: Vec<f64>,
    pub(crate) spec: Resolved,
    pub(crate) build_secs: f64,
    /// Points whose diagonal was not positive when normalising.
    pub(crate) guarded: usize,
    /// The feature columns it was built on, for a kernel on a view;
    /// `None`: every column (or a precomputed kernel).
    pub(crate) cols: Option<Range<usize>>,
}

/// The kernels of a kernels-only dataset, as read (symmetrised, no
/// post-processing), each with the name it is shown under.
pub struct KernelStack {
    pub grams: Vec<Arc<Gram>>,
    pub names: Vec<String>,
}
