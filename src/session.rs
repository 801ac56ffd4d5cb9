//! Loading a dataset ready to cluster: read, scale, and wrap it in a
//! [`Problem`] whose caches outlive individual runs. Shared by the CLI and
//! the terminal UI.

use crate::data::{self, DataSource, Dataset, LoadOptions, Scaling, bundled};
use crate::error::{Error, Result};
use crate::solver::{Init, Problem};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

pub struct Loaded {
    pub source: DataSource,
    /// The dataset after scaling (notes say what scaling did).
    pub dataset: Dataset,
    pub problem: Arc<Problem>,
    pub scale: Scaling,
    /// The power of two every value was multiplied by to bring the data
    /// into the range the solvers compute in directly (0: none; see
    /// [`data::preprocess::fit_range`]). Centres and objectives are in
    /// these units.
    pub rescale_exp: i32,
    /// The map the scaling (and the range fit) applied to every column, to
    /// bring new rows into the same space (`None` for precomputed kernels).
    pub scaling: Option<data::preprocess::ScaleParams>,
    /// Reading plus preprocessing, in milliseconds.
    pub load_ms: f64,
}

impl Loaded {
    /// k from the ground truth, when there is one.
    pub fn default_k(&self) -> Option<usize> {
        self.dataset.labels.as_ref().map(|l| l.n_classes())
    }

    /// The k the user gave, else the number of classes, else an error.
    ///
    /// # Errors
    /// [`Error::Param`] when k is neither given nor known from labels.
    pub fn choose_k(&self, given: Option<usize>) -> Result<usize> {
        given.or(self.default_k()).ok_or_else(|| {
            Error::param(format!(
                "--k is required: {} has no ground-truth labels to take k from; give --k N",
                self.source.spec()
            ))
        })
    }
}

/// The scaling a run uses: the one the user chose, else the algorithm's
/// own default ([`crate::solver::Algorithm::default_scaling`]; `standard` for
/// an id that is not an algorithm, whose error comes later).
pub fn resolve_scaling(given: Option<Scaling>, algo_id: &str) -> Scaling {
    given.unwrap_or_else(|| {
        crate::algo::find(algo_id).map_or(Scaling::default(), |a| a.default_scaling())
    })
}

/// Reads the data of `spec` (a file, a bundled dataset or `gen:NAME…`),
/// scales it and wraps it in a [`Problem`] ready to cluster.
///
/// # Errors
/// As [`crate::data::load`]: [`Error::Data`] for data that cannot be
/// read as given, [`Error::Io`], [`Error::Resource`] above the memory
/// budget.
pub fn load(spec: &str, opts: &LoadOptions, scale: Scaling) -> Result<Loaded> {
    let t0 = Instant::now();
    let source = DataSource::parse(spec)?;
    let mut dataset = data::load(&source, opts)?;
    let weights = match &opts.weights {
        Some(spec) => Some(data::weights::take_weights(&mut dataset, spec)?),
        None => None,
    };
    let mut loaded = prepare(source, dataset, scale);
    if let Some(w) = weights {
        let problem = Arc::get_mut(&mut loaded.problem).expect("a problem just built");
        problem
            .set_sample_weights(w)
            .map_err(|e| e.about(&loaded.dataset.name))?;
    }
    loaded.load_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(loaded)
}

/// Scales a dataset already in memory, brings it into the solvers' range,
/// and wraps it in a problem (what [`load`] does after reading).
pub fn prepare(source: DataSource, mut dataset: Dataset, scale: Scaling) -> Loaded {
    let t0 = Instant::now();
    if let Some(stack) = dataset.kernels.clone() {
        if scale != Scaling::None {
            dataset.notes.push(format!(
                "--scale {scale} does not apply to precomputed kernels (ignored)"
            ));
        }
        return Loaded {
            source,
            dataset,
            problem: Arc::new(Problem::from_kernels(stack)),
            scale,
            rescale_exp: 0,
            scaling: None,
            load_ms: t0.elapsed().as_secs_f64() * 1e3,
        };
    }
    if dataset.sparse.is_some() {
        return prepare_sparse(source, dataset, scale, t0);
    }
    let (_, mut scaling) = data::preprocess::scale_recorded(&mut dataset, scale);
    let rescale_exp = data::preprocess::fit_range(&mut dataset);
    scaling.rescale_exp = rescale_exp;
    // The dataset and the problem share the one matrix in the run's float
    // type (`data::load` leaves it so; a dataset built elsewhere may not).
    if dataset.x.dtype() != dataset.dtype {
        dataset.x = dataset.x.to_dtype(dataset.dtype);
    }
    let problem = Arc::new(Problem::from_matrix(dataset.x.clone()));
    Loaded {
        source,
        dataset,
        problem,
        scale,
        rescale_exp,
        scaling: Some(scaling),
        load_ms: t0.elapsed().as_secs_f64() * 1e3,
    }
}

/// [`prepare`] for sparse rows. They are not scaled: centring (standard)
/// would make every zero nonzero and min-max would move the zeros, so the
/// values are used as read, only brought into the solvers' range by a
/// power of two (exact), as dense data is.
fn prepare_sparse(source: DataSource, mut dataset: Dataset, scale: Scaling, t0: Instant) -> Loaded {
    if scale != Scaling::None {
        dataset.notes.push(format!(
            "scaling ({scale}) does not apply to sparse rows (it would fill in the zeros): \
             the values are used as read"
        ));
    }
    let csr = Arc::make_mut(dataset.sparse.as_mut().expect("sparse rows"));
    let m = csr.max_abs();
    let rescale_exp = data::preprocess::range_exponent(m);
    if rescale_exp != 0 {
        csr.map_values(|v| data::preprocess::ldexp(v, rescale_exp));
        dataset.notes.push(format!(
            "values reach {m:.3e}: every value was multiplied by 2^{rescale_exp} (exact); \
             centres and objectives refer to the rescaled values"
        ));
    }
    let problem = Arc::new(Problem::from_csr(
        dataset.sparse.clone().expect("sparse rows"),
    ));
    Loaded {
        source,
        dataset,
        problem,
        // What was applied: the report then says `scale none`.
        scale: Scaling::None,
        rescale_exp,
        scaling: None,
        load_ms: t0.elapsed().as_secs_f64() * 1e3,
    }
}

/// What the terminal UI starts with: the command line builds it (`meanscape
/// [tui] …`), so neither face depends on the other.
pub struct UiOptions {
    pub start: StartOptions,
    /// Draw with ASCII only.
    pub ascii: bool,
}

/// The data, algorithm and settings the UI opens with.
pub struct StartOptions {
    pub data: String,
    pub load_opts: LoadOptions,
    /// None: the chosen algorithm's default, following later choices.
    pub scale: Option<Scaling>,
    pub algo: String,
    pub k: Option<usize>,
    pub seed: u64,
    pub restarts: usize,
    pub init: Init,
    pub given: Vec<(String, f64)>,
    pub options: Vec<(String, String)>,
    /// `--session FILE`: history and settings restored from it and saved
    /// to it.
    pub session: Option<PathBuf>,
}

impl std::default::Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            data: bundled::DEFAULT.into(),
            load_opts: LoadOptions::default(),
            scale: None,
            algo: "power".into(),
            k: None,
            seed: 0,
            restarts: 1,
            init: Init::KmeansPP,
            given: Vec::new(),
            options: Vec::new(),
            session: None,
        }
    }
}
