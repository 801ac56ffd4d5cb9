//! Kernel algorithms on a Gram matrix (`crate::kernel`): kernel k-means,
//! kernel power k-means, multi-kernel power k-means, discrete multiple
//! kernel k-means and its relaxed baseline, spectral clustering and its
//! eigensolver.

pub mod dmkkm;
pub mod dmkkm_fstep;
pub mod dmkkm_passes;
pub mod eigs;
pub mod kernel_kmeans;
pub mod kpower;
pub mod mkkm;
pub mod mkpower;
pub mod spectral;
