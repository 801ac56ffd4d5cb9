//! Kernel algorithms on a Gram matrix (`crate::kernel`): kernel k-means,
//! kernel power k-means, multi-kernel power k-means, spectral clustering
//! and its eigensolver.

pub mod dmkkm;
pub mod dmkkm_fstep;
pub mod eigs;
pub mod kernel_kmeans;
pub mod kpower;
pub mod mkpower;
pub mod spectral;
