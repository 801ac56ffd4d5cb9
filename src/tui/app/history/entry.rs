//! One finished run as the History keeps it (and a session file stores
//! it): on its own so that what reads entries (the comparability rules)
//! needs nothing else of the History.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Run number in this history, from 1, in the order runs finished.
    pub id: usize,
    /// The dataset as `--data` takes it (a path, a bundled name, `gen:…`).
    pub data: String,
    /// The dataset's display name.
    pub dataset: String,
    pub algo: String,
    pub k: usize,
    pub seed: u64,
    pub restarts: usize,
    /// `kmeans++` or `random`.
    pub init: String,
    /// `standard`, `minmax` or `none`.
    pub scale: String,
    /// The scaling is the algorithm's default (it follows the algorithm).
    #[serde(default)]
    pub scale_default: bool,
    /// Every declared parameter as the run used it.
    pub params: BTreeMap<String, f64>,
    /// The parameters that differ from their defaults (a fixed default, or
    /// a value typed over an automatic one): what Enter restores.
    pub changed: BTreeMap<String, f64>,
    /// The non-numeric options the user set (kernel, kernels, views,
    /// tune); the memory limit is the session's, not the run's.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// How the data was read where it differs from the default (`label`,
    /// `impute`, `drop-incomplete`, `ignore-non-numeric`), as `meanscape
    /// run` flags.
    #[serde(default)]
    pub load: BTreeMap<String, String>,
    #[serde(default)]
    pub nmi: Option<f64>,
    #[serde(default)]
    pub ari: Option<f64>,
    #[serde(default)]
    pub acc: Option<f64>,
    #[serde(default)]
    pub silhouette: Option<f64>,
    /// The k-means cost of the partition (label-free; comparable across
    /// algorithms, unlike their own objectives).
    #[serde(default)]
    pub cost: Option<f64>,
    #[serde(default)]
    pub calinski_harabasz: Option<f64>,
    #[serde(default)]
    pub davies_bouldin: Option<f64>,
    /// The algorithm's own objective at the end.
    pub objective: f64,
    /// The annealing exponent s the objective was evaluated at (the
    /// power-mean family; absent when the run finished without s).
    #[serde(default)]
    pub final_s: Option<f64>,
    /// Where the label-free scores were computed: `features`, `kernel` or
    /// `rff` (absent in older sessions).
    #[serde(default)]
    pub space: Option<String>,
    pub iterations: usize,
    pub converged: bool,
    pub elapsed_ms: f64,
    /// Indices of the features with a weight > 0, for the algorithms that
    /// weigh features.
    #[serde(default)]
    pub selected: Option<Vec<usize>>,
    #[serde(default)]
    pub selected_names: Option<Vec<String>>,
    /// Features of the dataset (0 for kernel data).
    #[serde(default)]
    pub n_features: usize,
    /// (iteration, objective) of the best restart.
    #[serde(default)]
    pub trace: Vec<(usize, f64)>,
    #[serde(default)]
    pub sizes: Vec<usize>,
    /// The `meanscape run` command that repeats this run.
    pub command: String,
}
