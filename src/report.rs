//! The result of a run as users and scripts see it: the JSON object of
//! `meanscape run --json`, the human summary, and the command line that
//! reproduces it.

use crate::data::{Dataset, Scaling};
use crate::fit_scores::{Internal, SpaceKind};
use crate::metrics::Scores;
use crate::solver::params::fmt_num;
pub use crate::solver::params::fmt_sig;
use crate::solver::{Algorithm, Extras, RunConfig, RunResult, TracePoint};
use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Serialize)]
pub struct DataInfo {
    pub name: String,
    pub source: String,
    pub scale: Scaling,
    /// Whether `scale` is the algorithm's own default (`--scale` not given,
    /// or given as that same value).
    pub scale_default: bool,
    /// The float type the solvers read the rows in.
    pub dtype: crate::data::Dtype,
    /// Set when every value was multiplied by 2^rescale_exp to bring the
    /// data into the range computed directly (see
    /// [`crate::data::preprocess::fit_range`]): centres and objectives are
    /// then in those units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescale_exp: Option<i32>,
    /// The column named like labels left out of the features under
    /// `--label none` (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_left_out: Option<String>,
    pub notes: Vec<String>,
}

/// One feature's name and weight, for the JSON.
#[derive(Debug, Clone, Serialize)]
pub struct NamedWeight {
    pub name: String,
    pub weight: f64,
}

/// The scores of a run: against the ground truth when there is one, and
/// the label-free ones always (computed on the scaled input features; the
/// silhouette on a fixed-seed sample above
/// [`crate::fit_scores::internal::SILHOUETTE_EXACT_MAX`] rows), so a run
/// without labels can still be judged.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RunMetrics {
    #[serde(flatten)]
    pub external: Option<Scores>,
    // A score undefined for the partition (one cluster, one per row) or
    // beyond f64 (data near f64's limits) is left out: the JSON of a run
    // never holds a null.
    #[serde(skip_serializing_if = "not_finite")]
    pub silhouette: f64,
    /// Rows of the fixed-seed sample the silhouette was computed on (with
    /// sample weights: draws in proportion to the weights); absent when
    /// it was computed on every row (up to
    /// [`crate::fit_scores::internal::SILHOUETTE_EXACT_MAX`] rows, of
    /// weight > 0 with sample weights).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silhouette_sample: Option<usize>,
    #[serde(skip_serializing_if = "not_finite")]
    pub calinski_harabasz: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub davies_bouldin: f64,
    /// The k-means cost of the partition (within-cluster sum of squares).
    #[serde(skip_serializing_if = "not_finite")]
    pub cost: f64,
    /// Where the label-free scores were computed: `features` (the scaled
    /// input), `kernel` (the kernel's feature space, combined with the
    /// final kernel weights for several) or `rff` (the feature maps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<SpaceKind>,
    /// Kernel runs without sample weights: the centred alignment of the
    /// kernel with the partition (comparable across σ, where the scores
    /// in the kernel's own space are not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_alignment: Option<f64>,
    /// True when the label-free scores weigh each row by its sample
    /// weight (`--weights`), as that many copies of it: weighted means
    /// and dispersions, n the weights' sum, rows of weight 0 left out
    /// (absent without sample weights).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub weighted: bool,
    /// The label-free scores on the selected features (weight > 0), for
    /// the feature-weighted algorithms: `cost_selected`,
    /// `silhouette_selected`, `calinski_harabasz_selected`,
    /// `davies_bouldin_selected`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub on_selected: Option<crate::fit_scores::internal::OnSelected>,
    /// The resampled scores (`run --resamples B`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub resampled: Option<RunResampled>,
}

/// A run's resampled label-free scores ([`crate::sweep::resample`]), each
/// with its standard error over the splits; `resamples` is B. A score no
/// split could give is left out.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RunResampled {
    #[serde(skip_serializing_if = "not_finite")]
    pub prediction_strength: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub prediction_strength_se: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub resample_stability: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub resample_stability_se: f64,
    #[serde(skip_serializing_if = "not_finite")]
    pub pac: f64,
    pub resamples: usize,
    /// Time of the resampled scores (2B half-size runs), after the
    /// solver's `elapsed_ms` and the other scores' `scores_ms`.
    pub resamples_ms: f64,
}

impl RunResampled {
    pub fn from(r: &crate::sweep::resample::Resampled, resamples: usize, ms: f64) -> Self {
        RunResampled {
            prediction_strength: r.prediction_strength.mean,
            prediction_strength_se: r.prediction_strength.sd,
            resample_stability: r.stability.mean,
            resample_stability_se: r.stability.sd,
            pac: r.pac,
            resamples,
            resamples_ms: ms,
        }
    }
}

/// The summary's lines for the scores beyond the four label-free ones:
/// kernel alignment, those on the selected features, the resampled ones
/// (each only when the run has it).
fn extra_score_lines(m: &RunMetrics) -> String {
    let mut out = String::new();
    if let Some(a) = m.kernel_alignment {
        out.push_str(&format!("  kernel alignment {a:.4}\n"));
    }
    if let Some(s) = m.on_selected.filter(|s| s.cost_selected.is_finite()) {
        out.push_str(&format!(
            "  on the selected features: silhouette {:.4}  Calinski-Harabasz {}  Davies-Bouldin {:.4}  cost {}\n",
            s.silhouette_selected,
            fmt_sig(s.calinski_harabasz_selected),
            s.davies_bouldin_selected,
            fmt_sig(s.cost_selected)
        ));
    }
    if let Some(r) = &m.resampled {
        out.push_str(&format!(
            "  resampled ({} splits): prediction strength {:.4} ± {:.4}  stability {:.4} ± {:.4}  PAC {:.4}\n",
            r.resamples,
            r.prediction_strength,
            r.prediction_strength_se,
            r.resample_stability,
            r.resample_stability_se,
            r.pac
        ));
    }
    out
}

fn not_finite(v: &f64) -> bool {
    !v.is_finite()
}

impl RunMetrics {
    /// Every score of `labels` on the rows of `x` (`truth`: the ground
    /// truth, if any).
    pub fn compute(x: ndarray::ArrayView2<f64>, labels: &[usize], truth: Option<&[usize]>) -> Self {
        let base = crate::fit_scores::internal::default_base(x.nrows());
        Self::from(
            crate::fit_scores::label_free(x, labels, &base),
            labels,
            truth,
        )
    }

    /// The label-free scores `i` (computed where the run clustered) and
    /// the external ones of `labels`.
    pub fn from(i: Internal, labels: &[usize], truth: Option<&[usize]>) -> Self {
        RunMetrics {
            external: truth.map(|t| Scores::compute(t, labels)),
            silhouette: i.silhouette,
            silhouette_sample: i.silhouette_sample.filter(|_| i.silhouette.is_finite()),
            calinski_harabasz: i.calinski_harabasz,
            davies_bouldin: i.davies_bouldin,
            cost: i.cost,
            space: i.cost.is_finite().then_some(i.space),
            kernel_alignment: i.kernel_alignment,
            weighted: i.weighted && i.cost.is_finite(),
            on_selected: None,
            resampled: None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub algorithm: String,
    pub algorithm_name: String,
    pub data: DataInfo,
    /// Every parameter actually used, defaults included.
    pub params: Map<String, Value>,
    pub n: usize,
    pub p: usize,
    pub k: usize,
    pub seed: u64,
    /// 0-based cluster per row, input order.
    pub labels: Vec<usize>,
    pub sizes: Vec<usize>,
    pub objective: f64,
    pub trace: Vec<TracePoint>,
    pub iterations: usize,
    pub converged: bool,
    /// Solver time, loading and preprocessing excluded.
    pub elapsed_ms: f64,
    /// Loading and preprocessing time.
    pub load_ms: f64,
    /// Time of the label-free scores (cost, silhouette, CH, DB in the
    /// space the run clustered in), after the solver's `elapsed_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores_ms: Option<f64>,
    pub restarts: usize,
    pub best_restart: usize,
    pub restart_objectives: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<RunMetrics>,
    /// One weight per feature, in input order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_weights: Option<Vec<f64>>,
    /// The same weights paired with the feature names, in input order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<NamedWeight>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_features: Option<usize>,
    /// Matthews correlation of the selected features (weight > 0) with the
    /// true relevance, when the data has one (the `sparse` generator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection_mcc: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_weights: Option<Vec<f64>>,
    #[serde(flatten)]
    pub extra: Extras,
    pub warnings: Vec<String>,
    /// The `meanscape run` command that reproduces this result.
    pub command: String,
}

/// Every parameter of a run, run-level ones first.
pub fn params_map(cfg: &RunConfig) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("k".into(), cfg.k.into());
    m.insert("seed".into(), cfg.seed.into());
    m.insert("restarts".into(), cfg.restarts.into());
    m.insert("init".into(), cfg.init.to_string().into());
    for (name, v) in cfg.params.iter() {
        let val = if v.fract() == 0.0 && v.abs() < 9e15 {
            Value::from(v as i64)
        } else {
            Value::from(v)
        };
        m.insert(name.into(), val);
    }
    for (name, v) in &cfg.options {
        m.insert(name.clone(), v.clone().into());
    }
    m
}

/// Adds the scaling to a run's parameters: `scale` and whether it is the
/// algorithm's default (`scale_default`).
pub fn insert_scale(params: &mut Map<String, Value>, scale: Scaling, is_default: bool) {
    params.insert("scale".into(), scale.to_string().into());
    params.insert("scale_default".into(), is_default.into());
}

/// How the data was read, where it differs from the defaults, as
/// `meanscape run` flags (name, value; an empty value for a switch).
pub fn load_flags(opts: &crate::data::LoadOptions) -> Vec<(String, String)> {
    use crate::data::{LabelChoice, Missing};
    let mut out = Vec::new();
    match &opts.label {
        LabelChoice::Auto => {}
        LabelChoice::None => {
            out.push(("label".into(), "none".into()));
            if opts.keep_label_column {
                out.push(("keep-label-column".into(), String::new()));
            }
        }
        LabelChoice::Name(n) => out.push(("label".into(), n.clone())),
        LabelChoice::Index(i) => out.push(("label".into(), i.to_string())),
    }
    if let Some(v) = &opts.var {
        out.push(("var".into(), v.clone()));
    }
    match opts.missing {
        Missing::Error => {}
        Missing::ImputeMean => out.push(("impute".into(), "mean".into())),
        Missing::DropIncomplete => out.push(("drop-incomplete".into(), String::new())),
    }
    if opts.ignore_non_numeric {
        out.push(("ignore-non-numeric".into(), String::new()));
    }
    if let Some(d) = opts.dtype {
        out.push(("dtype".into(), d.to_string()));
    }
    if let Some(w) = &opts.weights {
        out.push(("weights".into(), w.clone()));
    }
    out
}

pub fn command_line(
    data_spec: &str,
    scale: Scaling,
    algo: &dyn Algorithm,
    cfg: &RunConfig,
    load: &crate::data::LoadOptions,
) -> String {
    let quote = crate::text::quote_arg;
    let mut parts = vec![
        "meanscape run".to_string(),
        format!("--data {}", quote(data_spec)),
        format!("--algo {}", algo.id()),
        format!("--k {}", cfg.k),
        format!("--seed {}", cfg.seed),
    ];
    if cfg.restarts != 1 {
        parts.push(format!("--restarts {}", cfg.restarts));
    }
    if cfg.init != crate::solver::Init::default() {
        parts.push(format!("--init {}", cfg.init));
    }
    if scale != algo.default_scaling() {
        parts.push(format!("--scale {scale}"));
    }
    for spec in algo.params() {
        let Some(v) = cfg.params.value(spec.name) else {
            continue;
        };
        let is_default = matches!(spec.default, crate::solver::params::Default::Fixed(d) if d == v);
        // A value outside the declared range cannot have been given (it
        // would have been refused): it is an automatic default (σ of data
        // in units of 1e-9, say), which the same rule gives again.
        let from_rule =
            matches!(spec.default, crate::solver::params::Default::Auto(_)) && !spec.contains(v);
        if !is_default && !from_rule {
            parts.push(format!("-P {}={}", spec.name, fmt_num(v)));
        }
    }
    for (name, v) in &cfg.options {
        parts.push(format!("--{} {}", name.replace('_', "-"), quote(v)));
    }
    for (flag, v) in load_flags(load) {
        parts.push(if v.is_empty() {
            format!("--{flag}")
        } else {
            format!("--{flag} {}", quote(&v))
        });
    }
    parts.join(" ")
}

pub struct ReportInput<'a> {
    pub algo: &'a dyn Algorithm,
    pub cfg: &'a RunConfig,
    pub result: &'a RunResult,
    pub dataset: &'a Dataset,
    pub data_spec: &'a str,
    pub scale: Scaling,
    pub load_ms: f64,
    /// How the data was read (its flags go into `command`).
    pub load: &'a crate::data::LoadOptions,
    /// The run's label-free scores, computed where it clustered
    /// ([`crate::fit_scores::internal::of_run`]); none leaves them out.
    pub internal: Option<Internal>,
}

impl RunReport {
    pub fn build(inp: ReportInput) -> Self {
        let fit = &inp.result.best;
        let ds = inp.dataset;
        let truth = ds.labels.as_ref().map(|t| t.ids.as_slice());
        let metrics = (fit.labels.len() == ds.n()).then(|| {
            let i = inp.internal.unwrap_or(Internal::none(&fit.labels));
            RunMetrics::from(i, &fit.labels, truth)
        });
        let selected = fit
            .feature_weights
            .as_ref()
            .map(|w| w.iter().filter(|&&v| v > 0.0).count());
        let selection_mcc = match (&fit.feature_weights, &ds.relevance) {
            (Some(w), Some(r)) if w.len() == r.len() => {
                let sel: Vec<bool> = w.iter().map(|&v| v > 0.0).collect();
                Some(crate::metrics::mcc(&sel, r))
            }
            _ => None,
        };
        let scale_default = inp.scale == inp.algo.default_scaling();
        let mut params = params_map(inp.cfg);
        insert_scale(&mut params, inp.scale, scale_default);
        let features = fit.feature_weights.as_ref().and_then(|w| {
            (w.len() == ds.feature_names.len()).then(|| {
                ds.feature_names
                    .iter()
                    .zip(w)
                    .map(|(name, &weight)| NamedWeight {
                        name: name.clone(),
                        weight,
                    })
                    .collect()
            })
        });
        RunReport {
            algorithm: inp.algo.id().to_string(),
            algorithm_name: inp.algo.name().to_string(),
            data: DataInfo {
                name: ds.name.clone(),
                source: inp.data_spec.to_string(),
                scale: inp.scale,
                scale_default,
                dtype: ds.dtype,
                rescale_exp: None,
                label_left_out: ds.label_left_out.clone(),
                notes: ds.notes.clone(),
            },
            params,
            n: ds.n(),
            p: ds.p(),
            k: inp.cfg.k,
            seed: inp.cfg.seed,
            labels: fit.labels.clone(),
            sizes: fit.sizes(inp.cfg.k),
            objective: fit.objective,
            trace: fit.trace.clone(),
            iterations: fit.iterations,
            converged: fit.converged,
            elapsed_ms: inp.result.elapsed.as_secs_f64() * 1e3,
            load_ms: inp.load_ms,
            scores_ms: None,
            restarts: inp.cfg.restarts,
            best_restart: inp.result.best_restart,
            restart_objectives: inp.result.restart_objectives.clone(),
            metrics,
            feature_weights: fit.feature_weights.clone(),
            features,
            selected_features: selected,
            selection_mcc,
            kernel_weights: fit.kernel_weights.clone(),
            extra: (*fit.extra).clone(),
            warnings: fit.warnings.clone(),
            command: command_line(inp.data_spec, inp.scale, inp.algo, inp.cfg, inp.load),
        }
    }

    /// A few lines for people.
    /// The labels as `row,cluster` CSV (0-based, input order), as
    /// `run --out` and the UI's export write them.
    pub fn labels_csv(&self) -> String {
        let mut text = String::with_capacity(self.labels.len() * 8 + 16);
        text.push_str("row,cluster\n");
        for (i, l) in self.labels.iter().enumerate() {
            text.push_str(&format!("{i},{l}\n"));
        }
        text
    }

    pub fn human(&self) -> String {
        let mut out = String::new();
        let last_s = self.trace.last().and_then(|t| t.s);
        let default = if self.data.scale_default {
            " (its default)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{} ({}) on {}: n = {}, p = {}, k = {}, scale {}{default}\n",
            self.algorithm,
            self.algorithm_name,
            self.data.name,
            self.n,
            self.p,
            self.k,
            self.data.scale
        ));
        let state = if self.converged {
            format!("converged after {} iterations", self.iterations)
        } else {
            format!("stopped at the iteration cap ({})", self.iterations)
        };
        let s_text = last_s
            .map(|s| format!(", final s = {}", fmt_num(s)))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {state}{s_text}; objective {}; {:.1} ms (load {:.1} ms)\n",
            fmt_sig(self.objective),
            self.elapsed_ms,
            self.load_ms
        ));
        if self.restarts > 1 {
            out.push_str(&format!(
                "  best of {} restarts: #{} (seed {})\n",
                self.restarts,
                self.best_restart,
                self.seed + self.best_restart as u64
            ));
        }
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        out.push_str(&format!("  cluster sizes: {}\n", sizes.join(" ")));
        if let Some(m) = self.metrics.as_ref().and_then(|m| m.external) {
            out.push_str(&format!(
                "  NMI {:.4}  ARI {:.4}  ACC {:.4}  purity {:.4}\n",
                m.nmi, m.ari, m.acc, m.purity
            ));
        }
        // No line when no label-free score was computed (`--no-scores`).
        if let Some(m) = self.metrics.as_ref().filter(|m| {
            [m.silhouette, m.calinski_harabasz, m.davies_bouldin, m.cost]
                .iter()
                .any(|v| v.is_finite())
        }) {
            let mut sample = m
                .silhouette_sample
                .map(|r| format!(" (silhouette on a {r}-row sample)"))
                .unwrap_or_default();
            if m.weighted {
                sample.push_str(" (weighted by the sample weights)");
            }
            out.push_str(&format!(
                "  silhouette {:.4}  Calinski-Harabasz {}  Davies-Bouldin {:.4}  cost {}{sample}\n",
                m.silhouette,
                fmt_sig(m.calinski_harabasz),
                m.davies_bouldin,
                fmt_sig(m.cost)
            ));
        }
        if let Some(m) = &self.metrics {
            out.push_str(&extra_score_lines(m));
        }
        if let (Some(sel), Some(w)) = (self.selected_features, &self.feature_weights) {
            out.push_str(&format!("  selected features: {sel} of {}\n", w.len()));
            if let Some(m) = self.selection_mcc {
                out.push_str(&format!(
                    "  selection MCC against the true relevance: {m:.4}\n"
                ));
            }
        }
        if let Some(a) = &self.kernel_weights {
            // Named where the kernels are views or precomputed (`fou 0.154`).
            let names: Vec<Option<&str>> = self.extra.kernels.as_ref().map_or_else(
                || vec![None; a.len()],
                |ks| ks.iter().map(|k| k.name.as_deref()).collect(),
            );
            let s: Vec<String> = a
                .iter()
                .enumerate()
                .map(|(l, v)| match names.get(l).copied().flatten() {
                    Some(name) => format!("{name} {v:.3}"),
                    None => format!("{v:.3}"),
                })
                .collect();
            out.push_str(&format!("  kernel weights: {}\n", s.join(" ")));
        }
        if let Some(ks) = &self.extra.kernel_set
            && ks.option != ks.used
        {
            out.push_str(&format!(
                "  kernels: {} = {} ({})\n",
                ks.option, ks.used, ks.reason
            ));
        }
        if let Some(a) = &self.extra.kernel_approx {
            let dims: Vec<usize> = match (&self.extra.rff, &self.extra.views) {
                (Some(m), _) => vec![m.rff_dim],
                (None, Some(v)) => v.iter().map(|m| m.rff_dim).collect(),
                _ => Vec::new(),
            };
            let each: Vec<String> = a
                .errors
                .iter()
                .zip(&dims)
                .map(|(e, d)| format!("D={d} {e:.3}"))
                .collect();
            out.push_str(&format!(
                "  kernel approximation (relative Frobenius error on {} rows; automatic D aims ≤ {}): {}\n",
                a.sample_rows,
                a.tolerance,
                each.join(", ")
            ));
        }
        if let Some(sm) = &self.extra.sample {
            out.push_str(&format!(
                "  sample: {} iterations on {} of {} rows (objective {}{}), then {} Lloyd iterations on every row\n",
                sm.iterations,
                sm.rows,
                sm.of,
                fmt_sig(sm.objective),
                if sm.converged { "" } else { ", not converged" },
                sm.refine_iterations
            ));
        }
        let params: Vec<String> = self
            .params
            .iter()
            // The scaling is on the first line.
            .filter(|(k, _)| !k.starts_with("scale"))
            .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
            .collect();
        out.push_str(&format!("  parameters: {}\n", params.join(" ")));
        for w in &self.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        for note in &self.data.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
        out
    }
}
