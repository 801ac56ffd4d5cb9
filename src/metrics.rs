//! Clustering scores (STUB — being written).
