//! Feature-weighted algorithms: WK-means, LW-k-means, sparse k-means, and
//! the regularisation path of the last two.

pub mod block;
pub mod common;
pub mod lw;
pub mod path;
pub mod points;
pub mod sparse;
pub mod wkmeans;
