//! The label-free scores of a fit (silhouette, Calinski–Harabasz,
//! Davies–Bouldin, the k-means cost, kernel alignment), computed in the
//! space the algorithm clustered in: its rows, its feature map or its
//! kernel's Gram matrix. They read the solver's rows and the kernels'
//! matrices, so they sit with the session, above both; the scores against
//! known labels, which need only two labelings, stay in `metrics`.

pub mod internal;
pub mod space;
pub use internal::{
    Internal, SilhouetteBase, calinski_harabasz, davies_bouldin, internal as label_free,
    internal_in, silhouette, wcss,
};
pub use space::{Space, SpaceKind};
