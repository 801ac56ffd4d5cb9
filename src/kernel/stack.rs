//! Precomputed kernels: a stack of v symmetric n×n matrices read from a
//! file (the form multiple-kernel clustering datasets ship in), carried by
//! the dataset and the problem in place of features.

use super::spec::{Kind, Post, Precision, Resolved};
pub use crate::solver::space::gram::KernelStack;
use ndarray::ArrayView2;

/// Entries may differ from their mirror by this much, relative to the
/// largest |K_ij|, and still count as symmetric up to rounding.
pub const SYMMETRY_TOL: f64 = 1e-10;

impl std::fmt::Debug for KernelStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "KernelStack({} of {}×{}: {})",
            self.len(),
            self.n(),
            self.n(),
            self.names.join(", ")
        )
    }
}

impl KernelStack {
    pub fn len(&self) -> usize {
        self.grams.len()
    }

    pub fn is_empty(&self) -> bool {
        self.grams.is_empty()
    }

    pub fn n(&self) -> usize {
        self.grams.first().map_or(0, |g| g.n())
    }

    /// "6 kernels of 2000×2000 (K1, K2, …)", for the Data pane and `info`.
    pub fn describe(&self) -> String {
        const SHOWN: usize = 8;
        let mut names = self
            .names
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.len() > SHOWN {
            names.push_str(", …");
        }
        let n = self.n();
        let s = if self.len() == 1 { "" } else { "s" };
        format!("{} precomputed kernel{s} of {n}×{n} ({names})", self.len())
    }
}

/// The spec of a precomputed kernel as stored (no post-processing).
pub fn raw_spec() -> Resolved {
    Resolved {
        kind: Kind::Precomputed,
        sigma: None,
        a: 1.0,
        b: 2,
        nn: None,
        post: Post::default(),
        precision: Precision::F64,
    }
}

/// What is wrong with a dense kernel matrix, if anything: a non-finite
/// entry, or an asymmetry beyond rounding. `Ok(Some(d))` means it is
/// symmetric up to rounding (largest relative difference `d` > 0) and
/// should be symmetrised; `Ok(None)` that it is exactly symmetric.
pub fn check_symmetric(k: ArrayView2<f64>) -> Result<Option<f64>, String> {
    let n = k.nrows();
    let mut big = 0.0f64;
    for ((i, j), &v) in k.indexed_iter() {
        if !v.is_finite() {
            return Err(format!(
                "entry ({}, {}) is {v}, not a finite number",
                i + 1,
                j + 1
            ));
        }
        big = big.max(v.abs());
    }
    let mut worst = (0.0f64, 0, 0);
    for i in 0..n {
        for j in 0..i {
            let d = (k[[i, j]] - k[[j, i]]).abs();
            if d > worst.0 {
                worst = (d, i, j);
            }
        }
    }
    let (d, i, j) = worst;
    if d == 0.0 {
        return Ok(None);
    }
    let rel = d / big;
    if rel <= SYMMETRY_TOL {
        return Ok(Some(rel));
    }
    Err(format!(
        "not symmetric: K({}, {}) = {} but K({}, {}) = {} (a difference of {rel:.1e} of the largest |K|, above the rounding tolerance {SYMMETRY_TOL:e}); a kernel matrix must be symmetric",
        i + 1,
        j + 1,
        k[[i, j]],
        j + 1,
        i + 1,
        k[[j, i]]
    ))
}

/// (K + Kᵀ)/2 in place.
pub fn symmetrise(k: &mut ndarray::Array2<f64>) {
    let n = k.nrows();
    for i in 0..n {
        for j in 0..i {
            let m = 0.5 * (k[[i, j]] + k[[j, i]]);
            k[[i, j]] = m;
            k[[j, i]] = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Gram;
    use ndarray::array;

    #[test]
    fn symmetry_within_rounding_is_repaired_and_beyond_refused() {
        let k = array![[2.0, 1.0], [1.0, 2.0]];
        assert_eq!(check_symmetric(k.view()), Ok(None));
        let mut k = array![[2.0, 1.0], [1.0 + 1e-14, 2.0]];
        assert!(check_symmetric(k.view()).unwrap().is_some());
        symmetrise(&mut k);
        assert_eq!(k[[0, 1]], k[[1, 0]]);
        let e = check_symmetric(array![[2.0, 1.0], [1.5, 2.0]].view()).unwrap_err();
        assert!(e.starts_with("not symmetric: K(2, 1) = 1.5"), "{e}");
        let e = check_symmetric(array![[f64::NAN]].view()).unwrap_err();
        assert!(e.contains("not a finite number"), "{e}");
    }

    #[test]
    fn a_dense_gram_round_trips() {
        let k = ndarray::Array2::from_shape_fn((300, 300), |(i, j)| {
            ((i + 1) * (j + 1)) as f64 / 1000.0
        });
        let g = Gram::from_dense(k.view(), &raw_spec());
        assert_eq!(g.to_array(), k);
        assert_eq!(g.diag()[299], k[[299, 299]]);
    }
}
