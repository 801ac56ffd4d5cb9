//! What a run produces: the outcome of one start and the best of all
//! restarts, with the objective trace.

use super::extras::Extras;
use ndarray::Array2;
use std::time::Duration;

/// One point of an objective trace.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TracePoint {
    pub iter: usize,
    /// The annealing exponent at this iteration (power-mean algorithms;
    /// absent from the JSON for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s: Option<f64>,
    pub objective: f64,
    /// Kernel weights α after this iteration (multi-kernel algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_weights: Option<Vec<f64>>,
}

/// The outcome of one start.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    /// 0-based cluster of every row, in input order.
    pub labels: Vec<usize>,
    /// k × p centres in the (scaled) input space, where they exist.
    pub centroids: Option<Array2<f64>>,
    /// The algorithm's own objective at the end (lower is better).
    pub objective: f64,
    pub trace: Vec<TracePoint>,
    pub iterations: usize,
    pub converged: bool,
    pub feature_weights: Option<Vec<f64>>,
    pub kernel_weights: Option<Vec<f64>>,
    /// Algorithm-specific results (kernels, λ, typicalities, …).
    pub extra: Box<Extras>,
    /// Things about the result the user should know (empty clusters, …).
    pub warnings: Vec<String>,
}

impl Fit {
    pub fn sizes(&self, k: usize) -> Vec<usize> {
        cluster_sizes(&self.labels, k)
    }
}

pub fn cluster_sizes(labels: &[usize], k: usize) -> Vec<usize> {
    let mut sizes = vec![0; k];
    for &l in labels {
        sizes[l] += 1;
    }
    sizes
}

/// The best of all restarts.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub best: Fit,
    pub best_restart: usize,
    /// Final objective of every restart, in restart order.
    pub restart_objectives: Vec<f64>,
    /// Solver time (preparation and all restarts), loading excluded; for
    /// runs batched together (`Algorithm::run_many`, a sweep), an equal
    /// share of the batch's time.
    pub elapsed: Duration,
}

/// How a feature-weighted fit places new rows: the nearest centre by
/// `Σ_l m_l (z_l − c_l)²`, z the row itself or, with `standardize`
/// (means, deviations), the row z-scored as the fit's data was. Each
/// algorithm of the family says its own (`Solver::assign_rule`).
#[derive(Debug, Clone, PartialEq)]
pub struct AssignRule {
    pub centroids: ndarray::Array2<f64>,
    pub multipliers: Vec<f64>,
    pub standardize: Option<(Vec<f64>, Vec<f64>)>,
}
