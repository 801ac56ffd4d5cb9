//! Command-line arguments shared by the subcommands.

use crate::algo::Init;
use crate::data::{Dtype, LabelChoice, LoadOptions, Missing, Scaling};
use clap::Args;

/// Where the data comes from and how it is read and scaled.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// A file (.csv/.tsv/.txt, .npy, .mat, .parquet, .arrow/.feather), a
    /// bundled dataset (iris, wine, breast_cancer, digits) or a generator
    /// (gen:NAME[,key=value…], e.g. gen:blobs,n=100000,p=50,k=10). See
    /// `meanscape datasets`.
    #[arg(
        long,
        short = 'd',
        default_value = "iris",
        value_name = "PATH|NAME|gen:NAME"
    )]
    pub data: String,
    /// Feature scaling before clustering. Default: the algorithm's own
    /// (`meanscape algorithms ID`): standard, except none for lw (it
    /// z-scores after its initial k-means) and minmax for wkmeans.
    #[arg(long, value_enum)]
    pub scale: Option<Scaling>,
    /// The float type the solvers read the rows in: f32 reads half the
    /// bytes per iteration and runs its products at twice the rate (sums
    /// and objectives stay f64). Default: f32 when the file stores float32
    /// (a .npy of <f4, Parquet/Arrow float32 columns), else f64.
    #[arg(long, value_enum)]
    pub dtype: Option<Dtype>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// How a file is read: the label column, missing cells, non-numeric
/// columns, the memory budget (shared by `run`, `sweep`, the UI and
/// `predict`).
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Ground-truth labels: a column name, a 0-based column index, `none`
    /// (no ground truth: a column named like labels is still left out of
    /// the features, see --keep-label-column), or `auto` (a column named
    /// label, class, target, y or cluster; for
    /// .mat files a variable gnd, Y or label). For a v×n×n .npy of kernels: a
    /// labels file (default: STEM.labels.npy/.txt/.csv beside it).
    #[arg(long, default_value = "auto", value_name = "NAME|INDEX|none")]
    pub label: LabelChoice,
    /// With --label none: cluster on the column named label, class,
    /// target, y or cluster instead of leaving it out of the features.
    #[arg(long)]
    pub keep_label_column: bool,
    /// Sample weights: a feature column of that name (left out of the
    /// features) or a file of one number per row. A row of weight w counts
    /// as w copies of it; 0 leaves it out of the centres. For every
    /// algorithm but spectral, dmkkm and mkkm.
    #[arg(long, value_name = "COLUMN|FILE")]
    pub weights: Option<String>,
    /// .mat files: the variable holding the features (default: fea, X or data).
    #[arg(long, value_name = "NAME")]
    pub var: Option<String>,
    /// Replace empty, NaN and infinite cells with their column's mean.
    #[arg(long, value_enum, value_name = "mean")]
    pub impute: Option<Impute>,
    /// Drop rows that have an empty, NaN or infinite cell.
    #[arg(long, conflicts_with = "impute")]
    pub drop_incomplete: bool,
    /// Drop the columns that are not numeric (text, dates, …), with a note
    /// naming them, instead of refusing the file. Parquet/Arrow: by column
    /// type; CSV: the columns whose first data row is text.
    #[arg(long)]
    pub ignore_non_numeric: bool,
    /// Refuse work whose memory estimate exceeds this, for reading the data
    /// and for every algorithm (e.g. 4G, 500M; units K, M, G, T are powers
    /// of 1024; default: half the RAM).
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Impute {
    Mean,
}

impl DataArgs {
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            dtype: self.dtype,
            ..self.read.load_options()
        }
    }

    /// The budget as the algorithms take it: the option `max_memory`, in
    /// bytes.
    pub fn memory_option(&self) -> Option<(String, String)> {
        self.read
            .max_memory
            .map(|b| ("max_memory".to_string(), b.to_string()))
    }
}

impl ReadArgs {
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            label: self.label.clone(),
            var: self.var.clone(),
            missing: if self.impute.is_some() {
                Missing::ImputeMean
            } else if self.drop_incomplete {
                Missing::DropIncomplete
            } else {
                Missing::Error
            },
            max_memory: self.max_memory,
            ignore_non_numeric: self.ignore_non_numeric,
            dtype: None,
            keep_label_column: self.keep_label_column,
            weights: self.weights.clone(),
        }
    }
}

/// Clap's parser for `--max-memory`: bytes, refused with the reason.
pub fn parse_max_memory(s: &str) -> Result<u64, String> {
    crate::memory::size_bytes(s).map_err(|why| format!("'{s}' is not a size: {why}"))
}

/// A whole number ≥ 0 for `name`, with a message that says what it must
/// be (clap's own says "invalid digit found in string").
fn whole(s: &str, name: &str, what: &str) -> Result<usize, String> {
    s.trim().parse::<usize>().map_err(|_| {
        if s.trim().parse::<f64>().is_ok_and(f64::is_finite) && s.len() <= 24 {
            format!("{s} is not a valid {name}: {what}")
        } else {
            format!("'{s}' is not a valid {name}: {what}")
        }
    })
}

fn parse_k(s: &str) -> Result<usize, String> {
    whole(s, "k", "the number of clusters, a whole number ≥ 1")
}

fn parse_restarts(s: &str) -> Result<usize, String> {
    whole(s, "restart count", "a whole number ≥ 1")
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let what = format!("a whole number from 0 to {}", u64::MAX);
    s.trim()
        .parse::<u64>()
        .map_err(|_| whole(s, "seed", &what).unwrap_err())
}

/// The algorithm and its parameters.
#[derive(Debug, Clone, Args)]
pub struct AlgoArgs {
    /// Algorithm id (see `meanscape algorithms`). `sweep` also takes a
    /// comma list (kmeans,spectral): the grid for each, one recommendation.
    #[arg(long, short = 'a', default_value = "power", value_name = "ID")]
    pub algo: String,
    /// Number of clusters (default: the number of ground-truth classes).
    #[arg(long, short = 'k', value_parser = parse_k, allow_negative_numbers = true)]
    pub k: Option<usize>,
    /// Seed of the run; restart r uses seed + r.
    #[arg(long, default_value_t = 0, value_parser = parse_seed, allow_negative_numbers = true)]
    pub seed: u64,
    /// Starts run in parallel; the lowest objective wins.
    #[arg(long, default_value_t = 1, value_parser = parse_restarts, allow_negative_numbers = true)]
    pub restarts: usize,
    /// How the initial centres are chosen.
    #[arg(long, value_enum, default_value_t = Init::KmeansPP)]
    pub init: Init,
    /// Initial power-mean exponent s₀ (< 0).
    #[arg(long, allow_negative_numbers = true)]
    pub s0: Option<f64>,
    /// Annealing factor η (s ← η·s every period T).
    #[arg(long, allow_negative_numbers = true)]
    pub eta: Option<f64>,
    /// Iteration cap.
    #[arg(long, allow_negative_numbers = true)]
    pub max_iter: Option<f64>,
    /// Convergence tolerance (its meaning per algorithm: `meanscape algorithms ID`).
    #[arg(long, allow_negative_numbers = true)]
    pub tol: Option<f64>,
    /// Kernel for kernel algorithms, e.g. gaussian:sigma=2.5, poly:a=1,b=2,
    /// linear, cosine, laplacian:sigma=1, geodesic:sigma=1; spectral also
    /// takes knn:nn=10 (the 0/1 nearest-neighbour graph).
    #[arg(long, value_name = "SPEC")]
    pub kernel: Option<String>,
    /// Kernel list for multi-kernel algorithms, separated by ';', or
    /// `precomputed` for the kernels of a kernel file (.mat with KH, v×n×n .npy).
    /// Default `auto`: one Gaussian per view with --views, else the
    /// 12-kernel set (`default`).
    #[arg(long, value_name = "SPEC;SPEC…")]
    pub kernels: Option<String>,
    /// Column groups treated as views by multi-view algorithms, e.g. 1-64,65-128 (1-based, inclusive), optionally named: fou=1-76,fac=77-292. Multi-kernel algorithms: one Gaussian per view, or every kernel of --kernels on every view.
    #[arg(long, value_name = "RANGES")]
    pub views: Option<String>,
    /// Choose a parameter from the data: `gap` picks sparse-kmeans' bound
    /// s by the permutation gap statistic (largest gap, as R's sparcl);
    /// `gap-1sd` the smallest bound within one sd of the largest gap.
    #[arg(long, value_name = "gap|gap-1sd|none")]
    pub tune: Option<String>,
    /// Any declared parameter, e.g. -P period=5 -P s_min=-200.
    #[arg(long = "param", short = 'P', value_name = "NAME=VALUE", value_parser = parse_param, allow_negative_numbers = true)]
    pub params: Vec<(String, f64)>,
}

impl AlgoArgs {
    /// The non-numeric options the user set, by name.
    pub fn options(&self) -> Vec<(String, String)> {
        [
            ("kernel", &self.kernel),
            ("kernels", &self.kernels),
            ("views", &self.views),
            ("tune", &self.tune),
        ]
        .into_iter()
        .filter_map(|(n, v)| v.as_ref().map(|v| (n.to_string(), v.clone())))
        .collect()
    }

    /// Every parameter the user set, named as the algorithms declare them.
    ///
    /// # Errors
    /// [`crate::Error::Param`] for a parameter given twice (`--s0 -2 -P
    /// s0=-3`): neither silently wins.
    pub fn given(&self) -> crate::Result<Vec<(String, f64)>> {
        let mut v: Vec<(String, String, f64)> = Vec::new();
        for (name, val) in [
            ("s0", self.s0),
            ("eta", self.eta),
            ("max_iter", self.max_iter),
            ("tol", self.tol),
        ] {
            if let Some(x) = val {
                v.push((
                    name.to_string(),
                    format!("--{} {x}", name.replace('_', "-")),
                    x,
                ));
            }
        }
        for (name, x) in &self.params {
            v.push((name.clone(), format!("-P {name}={x}"), *x));
        }
        for (i, (name, flag, _)) in v.iter().enumerate() {
            if let Some((_, first, _)) = v[..i].iter().find(|(n, _, _)| n == name) {
                return Err(crate::Error::param(format!(
                    "{name} is given twice ({first} and {flag}); give it once"
                )));
            }
        }
        Ok(v.into_iter().map(|(n, _, x)| (n, x)).collect())
    }
}

pub fn parse_param(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' must be NAME=VALUE"))?;
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("'{v}' is not a number (in {s})"))?;
    // 1e400 parses as infinity; no parameter takes it.
    if !x.is_finite() {
        return Err(format!("'{v}' is not a finite number (in {s})"));
    }
    Ok((k.trim().to_string(), x))
}
