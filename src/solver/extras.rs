//! What some algorithms report besides labels and objective: the kernels
//! and feature maps they used, λ, eigenvalues, typicalities, the gap
//! statistic. Typed, so that the UI reads them directly; the JSON output
//! of a run is their serialisation (one key per field that is set).

use serde::Serialize;

/// Algorithm-specific results of a start; every field is absent from the
/// JSON unless set. The fields are in the order the JSON lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Extras {
    /// The absolute entropy penalty λ used (mkpower, the multi-view RFF
    /// algorithms: `lambda` × the median per-kernel scatter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<f64>,
    /// The multi-kernel algorithms: which kernel set `--kernels` gave and
    /// why (`auto` resolves against `--views`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_set: Option<KernelSet>,
    /// mkpower: every kernel, in the order of the kernel weights α.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernels: Option<Vec<KernelInfo>>,
    /// The kernel of a single-kernel algorithm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<KernelInfo>,
    /// spectral: the k leading eigenvalues of the normalised affinity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eigenvalues: Option<Vec<f64>>,
    /// rff-power: its feature map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rff: Option<MapInfo>,
    /// ip-rff-mkpower: the typicalities at each point's own cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typicality: Option<Typicality>,
    /// ip-rff-mkpower: η_{j,l}, per view and cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub possibilistic_scales: Option<Vec<Vec<f64>>>,
    /// Lloyd (kmeans): why a converged run stopped, `labels` (no label
    /// changed) or `shift` (the squared centre shift of the last update
    /// was within the tolerance; scikit-learn then counts one iteration
    /// fewer, the last assignment being its final E-step).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converged_by: Option<&'static str>,
    /// Lloyd (kmeans): the squared centre shift of the last update.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub centre_shift: Option<f64>,
    /// The RFF algorithms: iterations of the k-means start Θ₀.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_iterations: Option<usize>,
    /// The multi-view RFF algorithms: every view's map, in α's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub views: Option<Vec<MapInfo>>,
    /// The RFF algorithms: how well each map (in the order of `rff` /
    /// `views`) approximates its Gaussian kernel on a sample of rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_approx: Option<KernelApprox>,
    /// lw: α in the reference code's units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// lw: the smallest λ that drops every feature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda_max: Option<f64>,
    /// sparse-kmeans: the L1 bound used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wbound: Option<f64>,
    /// sparse-kmeans: the bound at and above which the L1 constraint stops
    /// binding for the final partition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wbound_binding: Option<f64>,
    /// sparse-kmeans with `--tune`: the gap statistic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
    /// dmkkm: the work of its two steps over the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
    /// `-P sample=N`: the run on the sample and the refinement on every row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleInfo>,
}

/// What subsample-then-refine did (`solver::sample`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleInfo {
    /// Rows the algorithm ran on.
    pub rows: usize,
    /// Rows of the data.
    pub of: usize,
    /// Iterations on the sample, and the algorithm's own objective there.
    pub iterations: usize,
    pub objective: f64,
    /// Whether the run on the sample met its stopping rule.
    pub converged: bool,
    /// Lloyd iterations on every row.
    pub refine_iterations: usize,
}

/// dmkkm's steps: coordinate-descent sweeps of the F-step and α-steps,
/// with their wall time (seconds; the only fields that vary between
/// identical runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Phases {
    /// Full passes over the points, over every F-step.
    pub sweeps: usize,
    /// Points moved, over every F-step.
    pub moves: usize,
    /// F-steps (one per outer iteration).
    pub f_steps: usize,
    /// α-steps: d at the new partition and the simplex QP.
    pub alpha_steps: usize,
    /// Seconds in the F-steps, forming K_α included.
    pub f_step_secs: f64,
    /// Seconds in the α-steps.
    pub alpha_step_secs: f64,
}

/// One kernel as used: its spec with σ fixed, and how its matrix is stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelInfo {
    pub spec: String,
    /// `f64` or `f32`.
    pub gram: &'static str,
    /// The bandwidth (distance kernels only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// mkpower: the spec as given, with the post-processing defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// The view (`--views fou=1-76,…`) or precomputed kernel it is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The kernel set of a multi-kernel algorithm: the `--kernels` text, the
/// list it stood for and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSet {
    /// `--kernels` as given, or its default `auto`.
    pub option: String,
    /// The kernel list used (`gaussian`, `default`, `precomputed`, …).
    pub used: String,
    pub reason: String,
}

/// The RFF maps' approximation of their Gaussian kernels: the relative
/// Frobenius error ‖ΦΦᵀ − K‖_F / ‖K‖_F on a fixed sample of rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelApprox {
    /// One per map, in the order of the maps.
    pub errors: Vec<f64>,
    /// The tolerance the automatic D aims below.
    pub tolerance: f64,
    /// Rows in the sample (all rows when there are fewer).
    pub sample_rows: usize,
}

/// One random Fourier feature map as used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapInfo {
    /// The data's columns it reads, 1-based and inclusive (`1-64`).
    pub columns: String,
    pub sigma: f64,
    pub rff_dim: usize,
    pub feature_columns: usize,
    pub rff_seed: u64,
    pub stream: u64,
    pub feature_bytes: usize,
    /// `f64` or `f32`.
    pub storage: &'static str,
    pub build_secs: f64,
}

/// The typicalities u_{i,label(i)}: how many points look like outliers
/// (u below `threshold`) and the lower quantiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Typicality {
    pub threshold: f64,
    pub outliers: usize,
    pub outlier_fraction: f64,
    pub mean: f64,
    pub min: f64,
    pub q01: f64,
    pub q05: f64,
    pub q25: f64,
    pub median: f64,
    /// Whether `outlier_rows` stops short of `outliers`.
    pub outlier_rows_truncated: bool,
    /// 0-based rows of the outliers (the first 10 000).
    pub outlier_rows: Vec<usize>,
}

/// The gap statistic over a grid of bounds (sparcl's
/// `KMeansSparseCluster.permute`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    /// The bound at which the L1 constraint stops binding at the real
    /// data's initial partition; the grid ends at 0.9 times it.
    pub binding_wbound: f64,
    pub wbounds: Vec<f64>,
    pub gaps: Vec<f64>,
    /// Standard deviation of log O_b(s) over the permutations.
    pub sd: Vec<f64>,
    /// Non-zero weights at each bound on the real data.
    pub nonzero: Vec<usize>,
    /// The bound with the largest gap (sparcl's `bestw`, `--tune gap`).
    pub best_wbound: f64,
    /// The smallest bound whose gap is within one standard deviation of
    /// the largest, `Gap(s) ≥ max Gap − sd(s)` (Witten & Tibshirani's
    /// alternative, `--tune gap-1sd`): sparser when the gap curve plateaus.
    pub one_sd_wbound: f64,
    pub nperms: usize,
}
