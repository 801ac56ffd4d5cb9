//! Centroid algorithms on the data's own space: k-means (Lloyd),
//! k-harmonic means and power k-means.

pub mod khm;
pub mod kmeans;
pub mod power;
