//! The scores of one run and of one cell (mean and sd over its seeds).

use crate::fit_scores::Internal;
use crate::fit_scores::internal::{ClusterSilhouette, OnSelected};
use crate::metrics::Scores;
use crate::solver::{Fit, RunResult};
use serde::Serialize;

/// What a sweep knows about the truth, when it knows anything.
#[derive(Clone, Copy, Default)]
pub struct Truth<'a> {
    pub labels: Option<&'a [usize]>,
    /// Which features are relevant (the `sparse` generator).
    pub relevance: Option<&'a [bool]>,
}

/// One seed of one cell.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub seed: u64,
    pub objective: f64,
    pub iterations: usize,
    pub converged: bool,
    pub time_ms: f64,
    #[serde(flatten)]
    pub internal: Internal,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub external: Option<Scores>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcc: Option<f64>,
    /// The silhouette on the input features, for runs whose own scores
    /// are in a kernel's or feature map's space (which a σ or D axis
    /// changes, so those are not comparable across its cells).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silhouette_input: Option<f64>,
    /// The label-free scores on the selected features (feature-weighted
    /// algorithms, [`crate::fit_scores::internal::on_selected`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub on_selected: Option<OnSelected>,
    /// Kept until the cell's stability is computed, then dropped.
    #[serde(skip)]
    pub labels: Vec<usize>,
    /// The silhouette of each cluster, on the rows and in the space of
    /// `silhouette` (the k-scan's per-cluster view); k values, kept.
    #[serde(skip)]
    pub silhouette_clusters: Vec<ClusterSilhouette>,
}

impl RunSummary {
    /// The summary of `result`, whose label-free scores are `internal`.
    pub fn new(seed: u64, result: RunResult, internal: Internal, truth: Truth<'_>) -> Self {
        let fit: Fit = result.best;
        let external = truth.labels.map(|t| Scores::compute(t, &fit.labels));
        let selected = fit
            .feature_weights
            .as_ref()
            .map(|w| w.iter().filter(|&&v| v > 0.0).count());
        // As `run` reports it: the features with weight > 0 against the
        // generator's relevance.
        let mcc = match (&fit.feature_weights, truth.relevance) {
            (Some(w), Some(r)) if w.len() == r.len() => {
                let sel: Vec<bool> = w.iter().map(|&v| v > 0.0).collect();
                Some(crate::metrics::mcc(&sel, r))
            }
            _ => None,
        };
        RunSummary {
            seed,
            objective: fit.objective,
            iterations: fit.iterations,
            converged: fit.converged,
            time_ms: result.elapsed.as_secs_f64() * 1e3,
            internal,
            external,
            selected,
            mcc,
            silhouette_input: None,
            on_selected: None,
            labels: fit.labels,
            silhouette_clusters: Vec::new(),
        }
    }
}

/// The mean and sample standard deviation of a score over a cell's
/// seeds (non-finite values left out; both NaN, written `null`, when none
/// is left; sd 0 for one value).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanSd {
    pub mean: f64,
    pub sd: f64,
}

impl MeanSd {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return MeanSd {
                mean: f64::NAN,
                sd: f64::NAN,
            };
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = if v.len() < 2 {
            0.0
        } else {
            (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
        };
        // Seeds that found the same partition with its clusters numbered
        // differently sum in another order: that is no spread.
        let sd = if sd <= 1e-12 * mean.abs() { 0.0 } else { sd };
        MeanSd { mean, sd }
    }
}

/// The score names, in output order: label-free ones always, the others
/// when they apply.
pub const LABEL_FREE: [&str; 9] = [
    "cost",
    "silhouette",
    "calinski_harabasz",
    "davies_bouldin",
    "stability",
    "clusters",
    "iterations",
    "converged",
    "time_ms",
];
pub const WITH_LABELS: [&str; 4] = ["nmi", "ari", "acc", "purity"];
/// The label-free scores on the selected features, for the
/// feature-weighted algorithms ([`OnSelected`]).
pub const SELECTED: [&str; 4] = [
    "cost_selected",
    "silhouette_selected",
    "calinski_harabasz_selected",
    "davies_bouldin_selected",
];

/// Whether a higher value of the score is better (for the best cell).
pub fn higher_is_better(name: &str) -> bool {
    !matches!(
        name,
        "cost"
            | "davies_bouldin"
            | "cost_selected"
            | "davies_bouldin_selected"
            | "pac"
            | "iterations"
            | "time_ms"
    )
}

/// The per-seed values of score `name` in `runs` (stability is not per seed).
fn per_seed(runs: &[RunSummary], name: &str) -> Option<Vec<f64>> {
    let pick = |f: &dyn Fn(&RunSummary) -> Option<f64>| -> Option<Vec<f64>> {
        runs.iter().map(f).collect()
    };
    Some(match name {
        "cost" => pick(&|r| Some(r.internal.cost))?,
        "silhouette" => pick(&|r| Some(r.internal.silhouette))?,
        "calinski_harabasz" => pick(&|r| Some(r.internal.calinski_harabasz))?,
        "davies_bouldin" => pick(&|r| Some(r.internal.davies_bouldin))?,
        "clusters" => pick(&|r| Some(r.internal.clusters as f64))?,
        "iterations" => pick(&|r| Some(r.iterations as f64))?,
        "converged" => pick(&|r| Some(f64::from(u8::from(r.converged))))?,
        "time_ms" => pick(&|r| Some(r.time_ms))?,
        "nmi" => pick(&|r| r.external.map(|s| s.nmi))?,
        "ari" => pick(&|r| r.external.map(|s| s.ari))?,
        "acc" => pick(&|r| r.external.map(|s| s.acc))?,
        "purity" => pick(&|r| r.external.map(|s| s.purity))?,
        "selected" => pick(&|r| r.selected.map(|v| v as f64))?,
        "mcc" => pick(&|r| r.mcc)?,
        "silhouette_input" => pick(&|r| r.silhouette_input)?,
        "kernel_alignment" => pick(&|r| r.internal.kernel_alignment)?,
        "cost_selected" => pick(&|r| r.on_selected.map(|s| s.cost_selected))?,
        "silhouette_selected" => pick(&|r| r.on_selected.map(|s| s.silhouette_selected))?,
        "calinski_harabasz_selected" => {
            pick(&|r| r.on_selected.map(|s| s.calinski_harabasz_selected))?
        }
        "davies_bouldin_selected" => pick(&|r| r.on_selected.map(|s| s.davies_bouldin_selected))?,
        _ => return None,
    })
}

/// The run of lowest objective among `runs` (finite objectives only).
pub fn lowest_objective(runs: &[RunSummary]) -> Option<&RunSummary> {
    runs.iter()
        .filter(|r| r.objective.is_finite())
        .min_by(|a, b| a.objective.total_cmp(&b.objective))
}

/// Stability: the ARI of every pair of seeds' partitions, as mean and sd
/// over the pairs (NaN with one seed).
pub fn stability(runs: &[RunSummary]) -> MeanSd {
    let mut aris = Vec::new();
    for a in 0..runs.len() {
        for b in a + 1..runs.len() {
            aris.push(crate::metrics::ari(&runs[a].labels, &runs[b].labels));
        }
    }
    MeanSd::of(aris)
}

/// Every score that applies to `runs`, by name, in output order.
pub fn cell_scores(runs: &[RunSummary]) -> Vec<(&'static str, MeanSd)> {
    let mut out = Vec::new();
    let extra = [
        "silhouette_input",
        "kernel_alignment",
        "nmi",
        "ari",
        "acc",
        "purity",
        "selected",
    ];
    for name in LABEL_FREE
        .iter()
        .chain(&extra)
        .chain(&SELECTED)
        .chain(&["mcc"])
    {
        if *name == "stability" {
            out.push(("stability", stability(runs)));
        } else if let Some(v) = per_seed(runs, name) {
            out.push((*name, MeanSd::of(v)));
        }
    }
    out
}
