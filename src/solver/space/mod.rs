//! The spaces a kernel or random-feature algorithm clusters in, as the
//! core sees them: Gram matrices, precomputed kernel stacks and feature
//! maps are stored in types held here, so a [`super::Problem`] can carry
//! precomputed kernels and a run can name the space it clustered in
//! ([`super::Solver::space`]) without the core depending on
//! `crate::kernel`, which builds and reads them.

pub mod gram;
pub mod map;

use std::sync::Arc;

/// One block of the space a run clustered in.
#[derive(Clone)]
pub enum SpaceBlock {
    /// A kernel's feature space, through its Gram matrix.
    Gram(Arc<gram::Gram>),
    /// A random Fourier feature map.
    Map(Arc<map::FeatureMap>),
}

/// Weighted blocks of the space a run clustered in (see
/// [`super::Solver::space`]); the squared distance is Σ_b w_b d_b².
pub type SpaceBlocks = Vec<(SpaceBlock, f64)>;
