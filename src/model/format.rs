//! The model as saved: its JSON header, the per-family payload, checks on
//! reading, and the public API.

use super::payload::Payload;
use crate::algo::{Algorithm, Problem, RunConfig, RunResult};
use crate::data::preprocess::ScaleParams;
use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The value of the `format` field.
pub const FORMAT: &str = "meanscape-model";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// What assigns new points to the clusters of a finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub(super) format: String,
    pub(super) version: u32,
    /// The crate version that wrote it.
    pub(super) meanscape: String,
    pub(super) algorithm: String,
    pub(super) k: usize,
    pub(super) n_features: usize,
    /// Every declared parameter of the run, resolved.
    pub(super) params: BTreeMap<String, f64>,
    /// The non-numeric options of the run (`kernel`, `kernels`, `views`, …).
    #[serde(default)]
    pub(super) options: BTreeMap<String, String>,
    /// The seed and size of the fit.
    pub(super) fit: FitInfo,
    /// The map from the data as read to the space the model was fit in;
    /// `null`: rows are taken as they are.
    #[serde(default)]
    pub(super) scaling: Option<ScaleParams>,
    /// The per-family payload, tagged by `kind`.
    pub(super) model: Payload,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitInfo {
    pub seed: u64,
    pub restarts: usize,
    /// Training rows.
    pub n: usize,
    pub objective: f64,
    /// Training rows per cluster.
    pub sizes: Vec<usize>,
}

impl Model {
    /// Everything needed to assign new points, built right after a fit
    /// (`problem` and `cfg` as the run used them, `result` its outcome).
    ///
    /// # Errors
    /// [`Error::Model`] for an algorithm or configuration without an
    /// out-of-sample rule (spectral, precomputed kernels), and what
    /// rebuilding the run's kernels or feature maps fails with.
    pub fn from_run(
        algo: &dyn Algorithm,
        problem: &Problem,
        cfg: &RunConfig,
        result: &RunResult,
    ) -> Result<Model> {
        let fit = &result.best;
        if fit.labels.len() != problem.n() {
            return Err(Error::Model(format!(
                "the result has {} labels but the data {} rows: build the model from the run's own problem",
                fit.labels.len(),
                problem.n()
            )));
        }
        let payload = super::build::payload(algo, problem, cfg, fit)?;
        Ok(Model {
            format: FORMAT.into(),
            version: VERSION,
            meanscape: env!("CARGO_PKG_VERSION").into(),
            algorithm: algo.id().into(),
            k: cfg.k,
            n_features: problem.p(),
            params: cfg.params.iter().map(|(n, v)| (n.to_string(), v)).collect(),
            options: cfg
                .options
                .iter()
                .filter(|(n, _)| n.as_str() != crate::solver::algorithm::MAX_MEMORY)
                .map(|(n, v)| (n.clone(), v.clone()))
                .collect(),
            fit: FitInfo {
                seed: cfg.seed,
                restarts: cfg.restarts,
                n: problem.n(),
                objective: fit.objective,
                sizes: fit.sizes(cfg.k),
            },
            scaling: None,
            model: payload,
        })
    }

    /// Whether a run of algorithm `algo_id` on `problem` can give a model:
    /// the check [`Model::from_run`] starts with, to make before a run.
    ///
    /// # Errors
    /// [`Error::Model`] for spectral and precomputed kernels, with the reason.
    pub fn supports(algo_id: &str, problem: &Problem) -> Result<()> {
        super::build::supports(algo_id, problem)
    }

    /// The model with the fit's scaling recorded ([`crate::Loaded::scaling`]),
    /// applied by [`Model::predict_raw`] to new rows.
    ///
    /// # Errors
    /// [`Error::Model`] when the scaling maps another number of columns.
    pub fn with_scaling(mut self, scaling: Option<ScaleParams>) -> Result<Model> {
        if let Some(s) = &scaling {
            check_scaling(s, self.n_features)?;
        }
        self.scaling = scaling;
        Ok(self)
    }

    /// The scaling recorded with the model, if any.
    pub fn scaling(&self) -> Option<&ScaleParams> {
        self.scaling.as_ref()
    }

    /// Cluster of each row of `x` (rows × n_features, in the space the
    /// model was fit in, i.e. already scaled as the training data was).
    ///
    /// # Errors
    /// [`Error::Model`] for another number of columns or a non-finite value.
    pub fn predict(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        let d = self.distances(x)?;
        Ok(d.rows()
            .into_iter()
            .map(|r| crate::solver::weights::argmin(r.iter().copied()).0)
            .collect())
    }

    /// n × k distances (squared; in a kernel's or feature map's space for
    /// those families) of each row of `x` to each cluster: what
    /// [`Model::predict`] takes the argmin of. An empty cluster is at +∞.
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn distances(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        self.check_rows(x, "the data")?;
        Ok(match &self.model {
            Payload::Centroids(p) => p.distances(x),
            Payload::Weighted(p) => p.distances(x),
            Payload::Kernel(p) => p.distances(x, self.k),
            Payload::Rff(p) => p.distances(x, &self.fit.sizes),
        })
    }

    /// The rows of `x` as read (before scaling) mapped by the recorded
    /// scaling (unchanged when there is none).
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn scale(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        self.check_rows(x, "the data")?;
        Ok(match &self.scaling {
            Some(s) => s.apply(x),
            None => x.to_owned(),
        })
    }

    /// [`Model::predict`] on rows as read: the recorded scaling first.
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn predict_raw(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        let scaled = self.scale(x)?;
        self.predict(scaled.view())
    }

    /// [`Model::distances`] on rows as read: the recorded scaling first.
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn distances_raw(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        let scaled = self.scale(x)?;
        self.distances(scaled.view())
    }

    pub fn n_features(&self) -> usize {
        self.n_features
    }

    pub fn k(&self) -> usize {
        self.k
    }

    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The kind of payload: `centroids`, `weighted`, `kernel` or `rff`.
    pub fn kind(&self) -> &'static str {
        match self.model {
            Payload::Centroids(_) => "centroids",
            Payload::Weighted(_) => "weighted",
            Payload::Kernel(_) => "kernel",
            Payload::Rff(_) => "rff",
        }
    }

    /// Training rows per cluster.
    pub fn sizes(&self) -> &[usize] {
        &self.fit.sizes
    }

    /// The model as pretty JSON (`docs/model-format.md`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a model serialises") + "\n"
    }

    /// Reads a model written by [`Model::to_json`].
    ///
    /// # Errors
    /// [`Error::Model`] for text that is not a meanscape model, another
    /// format version, or a payload whose shapes do not agree.
    pub fn from_json(text: &str) -> Result<Model> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::Model(format!("not a model file: not JSON ({e})")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| Error::Model("not a model file: not a JSON object".into()))?;
        match obj.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(Error::Model(format!(
                    "not a model file: format is '{other}', expected '{FORMAT}'"
                )));
            }
            None => {
                return Err(Error::Model(format!(
                    "not a model file: no \"format\": \"{FORMAT}\" field"
                )));
            }
        }
        match obj.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                let by = obj
                    .get("meanscape")
                    .and_then(|m| m.as_str())
                    .map(|m| format!(" (written by meanscape {m})"))
                    .unwrap_or_default();
                return Err(Error::Model(format!(
                    "model format version {v}{by} is not supported: this meanscape ({}) reads version {VERSION}",
                    env!("CARGO_PKG_VERSION")
                )));
            }
            None => {
                return Err(Error::Model(
                    "malformed model: \"version\" is missing or not a whole number".into(),
                ));
            }
        }
        let m: Model =
            serde_json::from_value(v).map_err(|e| Error::Model(format!("malformed model: {e}")))?;
        m.validate()?;
        Ok(m)
    }

    /// Writes the model as JSON to `path` (replacing it).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_json()).map_err(|e| Error::io(path.display(), e))
    }

    /// Reads a model file.
    ///
    /// # Errors
    /// [`Error::Io`], and as [`Model::from_json`] (the message names the file).
    pub fn load(path: &Path) -> Result<Model> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path.display(), e))?;
        Model::from_json(&text).map_err(|e| match e {
            Error::Model(m) => Error::Model(format!("{}: {m}", path.display())),
            e => e,
        })
    }

    fn check_rows(&self, x: ArrayView2<f64>, what: &str) -> Result<()> {
        if x.ncols() != self.n_features {
            return Err(Error::Model(format!(
                "the model was fit on {} features; {what} has {}",
                self.n_features,
                x.ncols()
            )));
        }
        if let Some((i, j, v)) = x
            .indexed_iter()
            .find(|(_, v)| !v.is_finite())
            .map(|((i, j), v)| (i, j, *v))
        {
            return Err(Error::Model(format!(
                "{what} has a non-finite value ({v}) at row {}, column {}: impute or drop incomplete rows first",
                i + 1,
                j + 1
            )));
        }
        Ok(())
    }

    /// Shapes that agree with k and n_features.
    fn validate(&self) -> Result<()> {
        let bad = |why: String| Err(Error::Model(format!("malformed model: {why}")));
        if self.k == 0 {
            return bad("k is 0".into());
        }
        if self.fit.sizes.len() != self.k {
            return bad(format!(
                "fit.sizes has {} entries for k = {}",
                self.fit.sizes.len(),
                self.k
            ));
        }
        if let Some(s) = &self.scaling {
            check_scaling(s, self.n_features)?;
        }
        let why = match &self.model {
            Payload::Centroids(p) => p.check(self.k, self.n_features),
            Payload::Weighted(p) => p.check(self.k, self.n_features),
            Payload::Kernel(p) => p.check(self.k, self.n_features),
            Payload::Rff(p) => p.check(self.k, self.n_features),
        };
        match why {
            Some(w) => bad(w),
            None => Ok(()),
        }
    }
}

fn check_scaling(s: &ScaleParams, p: usize) -> Result<()> {
    let lens = [s.exps.len(), s.shift.len(), s.mult.len()];
    if lens.iter().any(|&l| l != p) {
        return Err(Error::Model(format!(
            "malformed model: the scaling maps {} columns, the model has {p} features",
            s.exps.len()
        )));
    }
    if s.shift.iter().chain(&s.mult).any(|v| !v.is_finite()) {
        return Err(Error::Model(
            "malformed model: the scaling has a non-finite value".into(),
        ));
    }
    Ok(())
}
