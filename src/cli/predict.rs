//! `meanscape predict`: a saved model's clusters for new data.

use super::args::ReadArgs;
use super::output::Failure;
use crate::data::{self, DataSource};
use crate::error::{Error, Result};
use crate::files;
use crate::metrics::Scores;
use crate::model::Model;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Args)]
pub struct PredictArgs {
    /// The model, as written by `meanscape run … --save-model FILE`.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub model: PathBuf,
    /// The new data: a file, a bundled dataset or a generator, read as
    /// `run` reads it. Its feature columns must be those the model was fit
    /// on, in the same order and units; the model's own scaling is applied
    /// (there is no --scale).
    #[arg(long, short = 'd', value_name = "PATH|NAME|gen:NAME")]
    pub data: String,
    /// How the new data is read, as for `run` (with ground truth, NMI and
    /// ARI are reported; --impute uses the new data's own means).
    #[command(flatten)]
    pub read: ReadArgs,
    /// Print one JSON object: {"model": …, "data": …, "n": …, "labels": […]}
    /// and, with ground truth, "scores".
    #[arg(long)]
    pub json: bool,
    /// Write the labels (row,cluster; 0-based, input order) to this CSV
    /// file instead of printing them.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: &PredictArgs) -> Result<(), Failure> {
    let text = output(a)?;
    Ok(super::output::print_text(&text)?)
}

#[derive(serde::Serialize)]
struct ModelInfo<'a> {
    path: String,
    algorithm: &'a str,
    k: usize,
    n_features: usize,
    kind: &'static str,
}

#[derive(serde::Serialize)]
struct Output<'a> {
    model: ModelInfo<'a>,
    data: String,
    n: usize,
    labels: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<Scores>,
}

fn output(a: &PredictArgs) -> Result<String> {
    let mut inputs: Vec<&Path> = files::source_files(&a.data);
    inputs.push(a.model.as_path());
    if let Some(out) = &a.out {
        files::check_target(out, &inputs, a.force)?;
        files::check_extension(out, "predict --out", &["csv", "txt"])?;
    }
    // Special files refused, the file and the sizes it declares checked
    // against the budget before any array is built.
    let model = Model::load_within(&a.model, a.read.max_memory)?;
    let source = DataSource::parse(&a.data)?;
    let spec = source.spec();
    let opts = a.read.load_options();
    let ds = data::load(&source, &opts)?;
    if ds.kernels.is_some() && ds.p() == 0 {
        return Err(Error::Model(format!(
            "{spec}: holds precomputed kernels, not features; a model predicts from the features it was fit on"
        )));
    }
    if ds.sparse.is_some() {
        return Err(Error::Model(format!(
            "{spec}: holds sparse rows; a saved model predicts dense rows only (save them as \
             .npy or CSV)"
        )));
    }
    if let Some(out) = &a.out {
        let mut all: Vec<&Path> = ds.inputs.iter().map(|p| p.as_path()).collect();
        all.push(a.model.as_path());
        files::check_target(out, &all, a.force)?;
    }
    model.check_memory(ds.n(), a.read.max_memory)?;
    let labels = model
        .predict_raw(ds.x.f64().view())
        .map_err(|e| e.about(&spec))?;
    let scores = ds.labels.as_ref().map(|t| Scores::compute(&t.ids, &labels));
    if let Some(out) = &a.out {
        let mut text = String::with_capacity(labels.len() * 8 + 16);
        text.push_str("row,cluster\n");
        for (i, l) in labels.iter().enumerate() {
            text.push_str(&format!("{i},{l}\n"));
        }
        files::write_atomic(out, text.as_bytes())?;
    }
    // Text from the file, shown without its control characters (a reader
    // refuses them, but a model built another way is printed the same).
    let algorithm = crate::text::printable(model.algorithm(), &[]);
    let model_path = crate::data::input::shown(&a.model);
    if a.json {
        let o = Output {
            model: ModelInfo {
                path: a.model.display().to_string(),
                algorithm: &algorithm,
                k: model.k(),
                n_features: model.n_features(),
                kind: model.kind(),
            },
            data: spec,
            n: labels.len(),
            labels: &labels,
            scores,
        };
        return Ok(serde_json::to_string(&o).expect("output serialises") + "\n");
    }
    let summary = {
        let mut s = format!(
            "{} rows of {spec} assigned by the {} model {} (k = {})",
            labels.len(),
            algorithm,
            model_path,
            model.k()
        );
        if let Some(sc) = scores {
            s.push_str(&format!(
                "; against its labels: NMI {:.4}, ARI {:.4}",
                sc.nmi, sc.ari
            ));
        }
        s
    };
    Ok(match &a.out {
        Some(out) => format!("{summary}\nlabels written to {}\n", out.display()),
        None => {
            // The labels on stdout, one per row; the summary on stderr so
            // that the output pipes as a column.
            eprintln!("{summary}");
            let mut text = String::with_capacity(labels.len() * 3);
            for l in &labels {
                text.push_str(&format!("{l}\n"));
            }
            text
        }
    })
}
