//! The model as saved: its JSON header, the per-family payload, checks on
//! reading, and the public API.

use super::footprint::{Dims, Shape};
use super::payload::Payload;
use super::rows::{BLOCK, Dist, by_blocks};
use crate::algo::{Algorithm, Problem, RunConfig, RunResult};
use crate::data::input::{self, Reading};
use crate::data::preprocess::ScaleParams;
use crate::error::{Error, Result};
use crate::memory::Budget;
use crate::text::printable;
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
    /// Where the model was read from, for messages.
    #[serde(skip)]
    pub(super) origin: Origin,
}

/// The file a model was read from (`None`: built in memory or read from
/// text). Not part of the model's value: two models that differ only in
/// where they came from are equal.
#[derive(Debug, Clone, Default)]
pub(super) struct Origin(Option<String>);

impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

impl Origin {
    /// "the model m.json", or "the model".
    fn the_model(&self) -> String {
        match &self.0 {
            Some(p) => format!("the model {p}"),
            None => "the model".into(),
        }
    }
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
            origin: Origin::default(),
        })
    }

    /// Whether a run of `algo` on `problem` can give a model:
    /// the check [`Model::from_run`] starts with, to make before a run.
    ///
    /// # Errors
    /// [`Error::Model`] for spectral and precomputed kernels, with the reason.
    pub fn supports(algo: &dyn crate::algo::Algorithm, problem: &Problem) -> Result<()> {
        super::build::supports(algo, problem)
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
    /// Rows whose distances would overflow or vanish in the usual
    /// computation are compared robustly (centroid and weighted models), or
    /// refused (kernel and random-feature models), never all put in
    /// cluster 0.
    ///
    /// # Errors
    /// [`Error::Model`] for another number of columns, a non-finite value,
    /// or a row too large for a kernel or feature map.
    pub fn predict(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        self.check_rows(x, "the data")?;
        let parts = self.by_blocks(x, |d| Ok(d.argmins()))?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// n × k distances (squared; in a kernel's or feature map's space for
    /// those families) of each row of `x` to each cluster: what
    /// [`Model::predict`] takes the argmin of. An empty cluster is at +∞,
    /// and so is a distance beyond f64's range.
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn distances(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        self.check_rows(x, "the data")?;
        let parts = self.by_blocks(x, |d| Ok(d.into_values()))?;
        let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
        if views.is_empty() {
            return Ok(Array2::zeros((0, self.k)));
        }
        Ok(ndarray::concatenate(ndarray::Axis(0), &views).expect("blocks of k columns"))
    }

    /// The dimensions that decide the model's memory.
    fn dims(&self) -> Dims {
        let shape = match &self.model {
            Payload::Centroids(_) | Payload::Medians(_) => Shape::Centroids,
            Payload::Weighted(_) => Shape::Weighted,
            Payload::Kernel(p) => Shape::Kernel {
                n: p.train.nrows() as u64,
                kernels: p
                    .kernels
                    .iter()
                    .map(|b| (b.center.is_some(), b.normalize.is_some()))
                    .collect(),
            },
            Payload::Rff(p) => Shape::Rff {
                maps: p
                    .maps
                    .iter()
                    .map(|m| ((m.columns[1] - m.columns[0]) as u64, m.rff_dim as u64))
                    .collect(),
            },
        };
        Dims {
            k: self.k as u64,
            p: self.n_features as u64,
            shape,
        }
    }

    /// The distances of every block of rows of `x` (checked), each turned
    /// into a `T` by `f`, in order.
    fn by_blocks<T: Send>(
        &self,
        x: ArrayView2<f64>,
        f: impl Fn(Dist) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let rows = self.dims().block_rows(BLOCK);
        let who = self.origin.the_model();
        match &self.model {
            Payload::Centroids(p) | Payload::Medians(p) => {
                let prep = p.prepare();
                by_blocks(x, rows, |_, xb| f(p.block(xb, &prep)))
            }
            Payload::Weighted(p) => {
                let prep = p.prepare();
                by_blocks(x, rows, |_, xb| f(p.block(xb, &prep)))
            }
            Payload::Kernel(p) => {
                let prep = p.prepare(self.k)?;
                by_blocks(x, rows, |r0, xb| f(p.block(xb, r0, &prep, &who)?))
            }
            Payload::Rff(p) => {
                let prep = p.prepare();
                by_blocks(x, rows, |r0, xb| {
                    f(p.block(xb, r0, &prep, &self.fit.sizes, &who)?)
                })
            }
        }
    }

    /// Refuses predicting `rows` rows when that needs more memory than
    /// `max_memory` (`None`: the default, half the RAM) allows: the model,
    /// what predicting prepares, the blocks in flight and a scaled copy of
    /// the rows.
    ///
    /// # Errors
    /// [`Error::Resource`], one line naming the model.
    pub fn check_memory(&self, rows: usize, max_memory: Option<u64>) -> Result<()> {
        let dims = self.dims();
        let need = dims.predict_need(rows as u64, rayon::current_num_threads(), BLOCK);
        Budget::from_limit(max_memory).check_doing(
            &self.origin.0.clone().unwrap_or_else(|| "the model".into()),
            "predicting",
            need,
            &format!("{rows} rows with k = {}", self.k),
        )
    }

    /// The rows of `x` as read (before scaling) mapped by the recorded
    /// scaling (unchanged when there is none).
    ///
    /// # Errors
    /// As [`Model::predict`], and [`Error::Model`] for a value the scaling
    /// maps beyond f64's range (far outside the training data's).
    pub fn scale(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        self.check_rows(x, "the data")?;
        let Some(s) = &self.scaling else {
            return Ok(x.to_owned());
        };
        let out = s.apply(x);
        if let Some(((i, j), v)) = out.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(Error::Model(format!(
                "the value {:e} at row {}, column {} of the data is far outside what {} was fit on: its scaling maps it to {v}",
                x[[i, j]],
                i + 1,
                j + 1,
                self.origin.the_model()
            )));
        }
        Ok(out)
    }

    /// [`Model::predict`] on rows as read: the recorded scaling first.
    ///
    /// # Errors
    /// As [`Model::scale`].
    pub fn predict_raw(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        let scaled = self.scale(x)?;
        self.predict(scaled.view())
    }

    /// [`Model::distances`] on rows as read: the recorded scaling first.
    ///
    /// # Errors
    /// As [`Model::scale`].
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

    /// The kind of payload (`ModelKind::name`): `centroids`, `medians`,
    /// `weighted`, `kernel` or `rff`.
    pub fn kind(&self) -> &'static str {
        match &self.model {
            Payload::Centroids(_) => "centroids",
            Payload::Medians(_) => "medians",
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

    /// Reads a model written by [`Model::to_json`], within the default
    /// memory budget (half the RAM).
    ///
    /// # Errors
    /// As [`Model::from_json_within`].
    pub fn from_json(text: &str) -> Result<Model> {
        Model::from_json_within(text, None)
    }

    /// Reads a model written by [`Model::to_json`]. The text is read twice:
    /// first its structure, with arrays of numbers only counted, checked
    /// field by field (types, declared sizes against the arrays, value
    /// ranges; `docs/model-format.md` lists them) and against the memory
    /// budget `max_memory` (`None`: half the RAM); then, when it passes,
    /// its arrays are built.
    ///
    /// # Errors
    /// [`Error::Model`] for text that is not a meanscape model, another
    /// format version, or a field that is missing, of the wrong type, out
    /// of range or inconsistent (the message names it), [`Error::Resource`]
    /// for a model that needs more memory than the budget.
    pub fn from_json_within(text: &str, max_memory: Option<u64>) -> Result<Model> {
        read(text, "the model", &Budget::from_limit(max_memory))
    }

    /// Writes the model as JSON to `path` (replacing it).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_json()).map_err(|e| Error::io(path.display(), e))
    }

    /// Reads a model file within the default memory budget.
    ///
    /// # Errors
    /// As [`Model::load_within`].
    pub fn load(path: &Path) -> Result<Model> {
        Model::load_within(path, None)
    }

    /// Reads a model file, as data files are read: only a regular file (a
    /// FIFO, a device such as /dev/zero or a directory is refused before it
    /// is opened, and the open never blocks), no larger than the memory
    /// budget `max_memory` (`None`: half the RAM); then as
    /// [`Model::from_json_within`]. Every message names the file.
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::Model`], [`Error::Resource`].
    pub fn load_within(path: &Path, max_memory: Option<u64>) -> Result<Model> {
        let origin = input::shown(path);
        let budget = Budget::from_limit(max_memory);
        let bytes = input::read_all_as(path, &origin, &budget, Reading::Model)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            Error::Model(format!(
                "{origin}: not a model file: not UTF-8 text (byte {})",
                e.valid_up_to()
            ))
        })?;
        let mut m = read(text, &origin, &budget).map_err(|e| match e {
            Error::Model(m) => Error::Model(format!("{origin}: {m}")),
            e => e,
        })?;
        m.origin = Origin(Some(origin));
        Ok(m)
    }

    fn check_rows(&self, x: ArrayView2<f64>, what: &str) -> Result<()> {
        if x.ncols() != self.n_features {
            return Err(Error::Model(format!(
                "{} was fit on {} features; {what} has {}",
                self.origin.the_model(),
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
            Payload::Centroids(p) | Payload::Medians(p) => p.check(self.k, self.n_features),
            Payload::Weighted(p) => p.check(self.k, self.n_features),
            Payload::Kernel(p) => p.check(self.k, self.n_features).or_else(|| {
                let mut counts = vec![0usize; self.k];
                for &l in &p.labels {
                    counts[l] += 1;
                }
                (counts != self.fit.sizes)
                    .then(|| "model.labels: the clusters' sizes do not match fit.sizes".to_string())
            }),
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
    let (lo, hi) = super::schema::EXPS;
    if s.exps
        .iter()
        .any(|&e| i64::from(e) < lo || i64::from(e) > hi)
    {
        return Err(Error::Model(format!(
            "malformed model: scaling.exps: an exponent is outside [{lo}, {hi}]"
        )));
    }
    let (lo, hi) = super::schema::RESCALE_EXPS;
    if i64::from(s.rescale_exp) < lo || i64::from(s.rescale_exp) > hi {
        return Err(Error::Model(format!(
            "malformed model: scaling.rescale_exp: {} is outside [{lo}, {hi}]",
            s.rescale_exp
        )));
    }
    Ok(())
}

/// Reads a model from its text (`origin` names it in budget messages).
fn read(text: &str, origin: &str, budget: &Budget) -> Result<Model> {
    let bad = |why: String| Error::Model(format!("malformed model: {why}"));
    let outline = super::outline::outline(text).map_err(|e| {
        let m = printable(&e.to_string(), &[]).into_owned();
        if e.is_syntax() || e.is_eof() {
            Error::Model(format!("not a model file: not JSON ({m})"))
        } else {
            bad(m)
        }
    })?;
    header(&outline)?;
    let dims = super::schema::check(&outline).map_err(bad)?;
    drop(outline);
    dims.check(origin, text.len() as u64, budget, BLOCK)?;
    let m: Model =
        serde_json::from_str(text).map_err(|e| bad(printable(&e.to_string(), &[]).into_owned()))?;
    m.validate()?;
    if m.dims() != dims {
        return Err(bad(
            "the arrays do not have the sizes the outline had".into()
        ));
    }
    Ok(m)
}

/// Refuses text that is not a meanscape model, or of another version.
fn header(root: &super::outline::Node) -> Result<()> {
    use super::outline::{Node, Num};
    let Node::Object(entries) = root else {
        return Err(Error::Model("not a model file: not a JSON object".into()));
    };
    let get = |k: &str| entries.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    match get("format") {
        Some(Node::Str(f)) if f == FORMAT => {}
        Some(Node::Str(other)) => {
            return Err(Error::Model(format!(
                "not a model file: format is '{}', expected '{FORMAT}'",
                printable(other, &[])
            )));
        }
        _ => {
            return Err(Error::Model(format!(
                "not a model file: no \"format\": \"{FORMAT}\" field"
            )));
        }
    }
    match get("version") {
        Some(Node::Num(Num::U(v))) if *v == u64::from(VERSION) => Ok(()),
        Some(Node::Num(Num::U(v))) => {
            let by = match get("meanscape") {
                Some(Node::Str(m)) => format!(" (written by meanscape {})", printable(m, &[])),
                _ => String::new(),
            };
            Err(Error::Model(format!(
                "model format version {v}{by} is not supported: this meanscape ({}) reads version {VERSION}",
                env!("CARGO_PKG_VERSION")
            )))
        }
        _ => Err(Error::Model(
            "malformed model: \"version\" is missing or not a whole number".into(),
        )),
    }
}
