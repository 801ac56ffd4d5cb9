//! Random-feature algorithms on explicit random Fourier feature maps
//! (`crate::kernel::rff`): RFF kernel power k-means and its multi-view
//! relatives, with and without possibilistic typicalities.

pub mod common;
pub mod ip;
pub mod multiview;
pub mod power;
