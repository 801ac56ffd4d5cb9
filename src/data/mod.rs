//! Datasets: loading from files and bundled copies, generators and
//! preprocessing. Everything ends up as a [`Dataset`].

use crate::error::{Error, Result};
use crate::kernel::stack::KernelStack;
pub use crate::solver::Dtype;
use crate::solver::Matrix;
use crate::solver::csr::Csr;
use ndarray::Array2;
use std::sync::Arc;

pub mod bundled;
mod columnar;
pub(crate) mod delimited;
pub mod generate;
mod idx;
mod idx_header;
// Also what saved models and the UI's session file are read with.
pub(crate) mod input;
mod kernel_files;
mod matv5;
mod npy;
#[cfg(feature = "parquet")]
mod parquet_scan;
pub mod preprocess;
mod sizes;
mod source;
mod sparse;
#[cfg(feature = "parquet")]
mod thrift;
pub mod weights;

pub use preprocess::{Missing, Scaling};
pub use source::{DataSource, load};

/// Ground-truth class labels, as dense ids `0..names.len()` in order of
/// first appearance, with the original spelling of each class kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    pub ids: Vec<usize>,
    pub names: Vec<String>,
}

impl Labels {
    /// Builds dense ids from the raw label strings of each row.
    pub fn from_strings<S: AsRef<str>>(raw: &[S]) -> Self {
        let mut names: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let ids = raw
            .iter()
            .map(|s| {
                let s = s.as_ref().trim();
                *index.entry(s.to_string()).or_insert_with(|| {
                    names.push(s.to_string());
                    names.len() - 1
                })
            })
            .collect();
        Labels { ids, names }
    }

    /// Builds labels from numeric codes, naming each class by its code
    /// (`1`, not `1.0`, for integral codes).
    pub fn from_codes(codes: &[f64]) -> Self {
        let raw: Vec<String> = codes
            .iter()
            .map(|&c| {
                if c.fract() == 0.0 && c.abs() < 1e15 {
                    format!("{}", c as i64)
                } else {
                    format!("{c}")
                }
            })
            .collect();
        Self::from_strings(&raw)
    }

    pub fn n_classes(&self) -> usize {
        self.names.len()
    }

    /// Keeps only the rows whose index is in `keep` (sorted).
    pub fn select(&self, keep: &[usize]) -> Self {
        let raw: Vec<&str> = keep
            .iter()
            .map(|&i| self.names[self.ids[i]].as_str())
            .collect();
        Self::from_strings(&raw)
    }
}

/// A numeric data matrix with what is known about it.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Short name shown to users (file stem, bundled name or generator).
    pub name: String,
    /// Where it came from: a path, `bundled:NAME` or `gen:NAME,...`.
    pub source: String,
    /// n × p features, row-major, f64 or f32 (a float32 source read for an
    /// f32 run stays f32). Shared with the [`Problem`] built from it, so
    /// the matrix is held once; change it with `Arc::make_mut`.
    ///
    /// [`Problem`]: crate::solver::Problem
    pub x: Matrix,
    /// One name per feature (`f1..fp` when the source has none).
    pub feature_names: Vec<String>,
    /// Ground truth, when known.
    pub labels: Option<Labels>,
    /// Which features are informative, when known (the `sparse` generator).
    pub relevance: Option<Vec<bool>>,
    /// Things the loader or preprocessing did that the user should know.
    pub notes: Vec<String>,
    /// Precomputed kernels (a `.mat` with `KH`, a 3-D `.npy`): the dataset
    /// then has no features (`x` is n × 0) and is clustered by the kernel
    /// algorithms only.
    pub kernels: Option<Arc<KernelStack>>,
    /// Sparse rows (a `.npz`, svmlight or Matrix Market file): `x` is then
    /// n × 0 and the features are these CSR rows, f64, run by the
    /// algorithms that take sparse input.
    pub sparse: Option<Arc<Csr>>,
    /// Every file this dataset was read from (the data file and any
    /// companion, such as an IDX labels file): outputs must never replace
    /// one of them.
    pub inputs: Vec<std::path::PathBuf>,
    /// Whether the source stored the values as float32 (exact in `x`).
    pub float32: bool,
    /// The float type the solvers read the rows in.
    pub dtype: Dtype,
    /// With `--label none`, the column named like ground truth (label,
    /// class, …) that was left out of the features rather than clustered
    /// on (see [`LoadOptions::keep_label_column`]).
    pub label_left_out: Option<String>,
}

impl Dataset {
    pub fn new(name: impl Into<String>, source: impl Into<String>, x: impl Into<Matrix>) -> Self {
        let x: Matrix = x.into();
        let p = x.ncols();
        Dataset {
            name: name.into(),
            source: source.into(),
            x,
            feature_names: default_feature_names(p),
            labels: None,
            relevance: None,
            notes: Vec::new(),
            kernels: None,
            sparse: None,
            inputs: Vec::new(),
            float32: false,
            dtype: Dtype::F64,
            label_left_out: None,
        }
    }

    /// A dataset of precomputed kernels, n rows and no features.
    pub fn from_kernels(
        name: impl Into<String>,
        source: impl Into<String>,
        stack: KernelStack,
    ) -> Self {
        let n = stack.n();
        let mut ds = Dataset::new(name, source, Array2::<f64>::zeros((n, 0)));
        ds.kernels = Some(Arc::new(stack));
        ds
    }

    /// A dataset of sparse rows: `x` is n × 0, the features are `csr`.
    pub fn from_csr(name: impl Into<String>, source: impl Into<String>, csr: Csr) -> Self {
        let (n, p) = (csr.nrows(), csr.ncols());
        let mut ds = Dataset::new(name, source, Array2::<f64>::zeros((n, 0)));
        ds.feature_names = default_feature_names(p);
        ds.sparse = Some(Arc::new(csr));
        ds
    }

    pub fn n(&self) -> usize {
        self.x.nrows()
    }

    pub fn p(&self) -> usize {
        self.sparse.as_ref().map_or(self.x.ncols(), |s| s.ncols())
    }

    /// Checks the invariants every loader must leave: at least one row and
    /// one feature, consistent names and labels, every value finite.
    ///
    /// # Errors
    /// [`Error::Data`] naming the first broken invariant.
    pub fn validate(&self) -> Result<()> {
        if self.n() == 0 {
            return Err(Error::Data(format!("{}: no data rows", self.source)));
        }
        if self.p() == 0 && self.kernels.is_none() {
            return Err(Error::Data(format!(
                "{}: no feature columns (only labels?)",
                self.source
            )));
        }
        assert_eq!(self.feature_names.len(), self.p());
        if let Some(l) = &self.labels {
            assert_eq!(l.ids.len(), self.n());
        }
        if let Some(r) = &self.relevance {
            assert_eq!(r.len(), self.p());
        }
        let bad = crate::with_matrix!(&self.x, x => x
            .indexed_iter()
            .find(|(_, v)| !f64::from(**v).is_finite())
            .map(|(i, _)| i));
        if let Some(idx) = bad {
            return Err(Error::Data(format!(
                "{}: row {}, column {} ({}): value is not finite",
                self.source,
                idx.0 + 1,
                idx.1 + 1,
                self.feature_names[idx.1]
            )));
        }
        Ok(())
    }
}

pub fn default_feature_names(p: usize) -> Vec<String> {
    (1..=p).map(|j| format!("f{j}")).collect()
}

/// Which column or variable holds the ground-truth labels.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LabelChoice {
    /// A column named label, class, target, y or cluster (any case); for
    /// `.mat` files a variable `gnd`, `Y` or `label`.
    #[default]
    Auto,
    /// No ground truth. A column named like labels (label, class, target,
    /// y, cluster) is still left out of the features unless
    /// [`LoadOptions::keep_label_column`] is set: "none" means "do not
    /// score against it", not "cluster on it".
    None,
    /// The column (or `.mat` variable) with this name.
    Name(String),
    /// The column at this 0-based index.
    Index(usize),
}

impl std::str::FromStr for LabelChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let t = s.trim();
        Ok(match t.to_ascii_lowercase().as_str() {
            "" => return Err("empty label choice".into()),
            "auto" => LabelChoice::Auto,
            "none" => LabelChoice::None,
            _ => match t.parse::<usize>() {
                Ok(i) => LabelChoice::Index(i),
                Err(_) => LabelChoice::Name(t.to_string()),
            },
        })
    }
}

/// Column names taken as labels by [`LabelChoice::Auto`].
pub const AUTO_LABEL_NAMES: [&str; 5] = ["label", "class", "target", "y", "cluster"];

/// The column [`LabelChoice::Auto`] takes as labels: by the order of
/// [`AUTO_LABEL_NAMES`], then of the columns (in `x,y,label` the labels
/// are `label`, not the coordinate `y`).
pub(crate) fn auto_label_column<S: AsRef<str>>(names: &[S]) -> Option<usize> {
    AUTO_LABEL_NAMES.iter().find_map(|a| {
        names
            .iter()
            .position(|name| name.as_ref().trim().eq_ignore_ascii_case(a))
    })
}

/// The column left out of the features under `--label none` (the one
/// `auto` would have taken as labels), unless the user keeps it.
pub(crate) fn left_out_column<S: AsRef<str>>(opts: &LoadOptions, names: &[S]) -> Option<usize> {
    (opts.label == LabelChoice::None && !opts.keep_label_column)
        .then(|| auto_label_column(names))
        .flatten()
}

/// The note of a dataset read with `--label none` whose column `name` was
/// left out of the features.
pub(crate) fn left_out_note(name: &str) -> String {
    format!(
        "--label none: column '{name}' left out of the features (no ground truth); \
         --keep-label-column clusters on it"
    )
}

/// How to read a source: which labels, which `.mat` variable, and what to
/// do with missing cells.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub label: LabelChoice,
    /// `.mat` files: the variable that holds the features.
    pub var: Option<String>,
    pub missing: Missing,
    /// The memory budget in bytes (`--max-memory`); `None` is the default
    /// budget (half the RAM). Loaders check sizes taken from
    /// headers and decompressed lengths against it before allocating.
    pub max_memory: Option<u64>,
    /// Drop the columns that are not numeric (text, dates, …) with a note
    /// naming them, instead of refusing the file (`--ignore-non-numeric`).
    /// Parquet and Arrow files go by each column's type; delimited text by
    /// the first data row (a column whose first value is text).
    pub ignore_non_numeric: bool,
    /// The float type the solvers read (`--dtype`); `None`: f32 when the
    /// file stores its values as float32 (a `.npy` of `<f4`, Parquet or
    /// Arrow feature columns all float32), else f64.
    pub dtype: Option<Dtype>,
    /// With [`LabelChoice::None`]: cluster on the column named like
    /// labels instead of leaving it out (`--keep-label-column`).
    pub keep_label_column: bool,
    /// Sample weights: a feature column (taken out of the features) or a
    /// file of one number per row (`--weights`).
    pub weights: Option<String>,
}
