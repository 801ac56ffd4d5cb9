//! A [`Problem`] on CSR rows: the dense rows are then n × 0, the sparse
//! matrix is held beside them, and only the algorithms that take sparse
//! input (`Caps::sparse`) run on it; the others are refused in one line.

use super::Csr;
use crate::error::{Error, Result};
use crate::solver::problem::Problem;
use ndarray::Array2;
use std::sync::Arc;

impl Problem {
    /// A problem on CSR rows (held once; nothing n × p is allocated).
    pub fn from_csr(x: impl Into<Arc<Csr>>) -> Self {
        let x: Arc<Csr> = x.into();
        let mut p = Problem::new(Array2::zeros((x.nrows(), 0)));
        p.x_norms = x.sq_norms();
        p.sparse = Some(x);
        p
    }

    /// The sparse rows, when the problem holds them.
    pub fn csr(&self) -> Option<&Csr> {
        self.sparse.as_deref()
    }

    /// Bytes the problem holds for its rows and their norms: n·p values
    /// when dense, the three CSR arrays when sparse.
    pub fn data_bytes(&self) -> f64 {
        let n = self.n() as f64;
        match self.csr() {
            Some(x) => x.bytes() as f64 + n * 8.0,
            None => n * (self.p() as f64 + 1.0) * 8.0,
        }
    }

    /// Refuses a sparse problem for an algorithm that needs dense rows.
    ///
    /// # Errors
    /// [`Error::Param`], one line naming `takes`, the algorithms that
    /// take sparse input.
    pub fn require_dense(&self, algo: &str, takes: &str) -> Result<()> {
        if self.sparse.is_some() {
            return Err(Error::param(format!(
                "{algo} needs dense rows; sparse input runs with {takes} (or densify it first)"
            )));
        }
        Ok(())
    }
}
