//! Loading a dataset ready to cluster: read, scale, and wrap it in a
//! [`Problem`] whose caches outlive individual runs. Shared by the CLI and
//! the terminal UI.

use crate::algo::Problem;
use crate::data::{self, DataSource, Dataset, LoadOptions, Scaling};
use crate::error::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

pub struct Loaded {
    pub source: DataSource,
    /// The dataset after scaling (notes say what scaling did).
    pub dataset: Dataset,
    pub problem: Arc<Problem>,
    pub scale: Scaling,
    /// Reading plus preprocessing, in milliseconds.
    pub load_ms: f64,
}

impl Loaded {
    /// k from the ground truth, when there is one.
    pub fn default_k(&self) -> Option<usize> {
        self.dataset.labels.as_ref().map(|l| l.n_classes())
    }

    /// The k the user gave, else the number of classes, else an error.
    pub fn choose_k(&self, given: Option<usize>) -> Result<usize> {
        given.or(self.default_k()).ok_or_else(|| {
            Error::Param(format!(
                "--k is required: {} has no ground-truth labels to take k from; give --k N",
                self.source.spec()
            ))
        })
    }
}

pub fn load(spec: &str, opts: &LoadOptions, scale: Scaling) -> Result<Loaded> {
    let t0 = Instant::now();
    let source = DataSource::parse(spec)?;
    let mut dataset = data::load(&source, opts)?;
    data::preprocess::scale(&mut dataset, scale);
    let problem = Arc::new(Problem::from_shared(dataset.x.clone()));
    Ok(Loaded {
        source,
        dataset,
        problem,
        scale,
        load_ms: t0.elapsed().as_secs_f64() * 1e3,
    })
}
