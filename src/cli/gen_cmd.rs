//! `meanscape gen`.

use super::output::Failure;
use crate::data::generate;
use crate::error::Error;
use crate::files;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct GenArgs {
    /// Generator: blobs, rings, sphere or sparse (see `meanscape datasets`).
    pub name: String,
    /// Generator parameters as key=value (e.g. p=50 k=10 sep=3).
    #[arg(value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Number of points.
    #[arg(long)]
    pub n: Option<usize>,
    /// Seed: the same seed gives the same data.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output file: .csv (features then a label column) or .npy (features
    /// only). Without it, CSV goes to stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Refuse to generate data larger than this (e.g. 4G, 500M; default:
    /// half the RAM).
    #[arg(long, value_name = "SIZE", value_parser = super::args::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

pub fn run(a: &GenArgs) -> std::result::Result<(), Failure> {
    generate::check_name(&a.name)?;
    let mut params = Vec::new();
    for kv in &a.params {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            Error::param(format!(
                "'{kv}' must be KEY=VALUE, as in `meanscape gen blobs p=5 k=4`"
            ))
        })?;
        params.push((k.trim().to_string(), v.trim().to_string()));
    }
    if let Some(n) = a.n {
        params.push(("n".into(), n.to_string()));
    }
    if let Some(s) = a.seed {
        params.push(("seed".into(), s.to_string()));
    }
    if let Some(out) = &a.out {
        files::check_extension(out, "gen", &["csv", "npy"])?;
        files::check_target(out, &[], a.force)?;
    }
    let ds = generate::generate_within(&a.name, &params, a.max_memory)?;
    if crate::files::interrupt::requested() {
        return Err(Failure::Cancelled);
    }
    let is_npy = a
        .out
        .as_ref()
        .and_then(|p| p.extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let bytes = if is_npy {
        let mut buf = Vec::new();
        crate::with_matrix!(&ds.x, x => ndarray_npy::WriteNpyExt::write_npy(&**x, &mut buf))
            .map_err(|e| Error::Data(format!("cannot encode .npy: {e}")))?;
        buf
    } else {
        to_csv(&ds).into_bytes()
    };
    match &a.out {
        Some(out) => {
            files::write_atomic(out, &bytes)?;
            eprintln!(
                "wrote {} ({} × {}{}) from {}",
                out.display(),
                ds.n(),
                ds.p(),
                if ds.labels.is_some() && !is_npy {
                    ", labels in the last column"
                } else {
                    ""
                },
                ds.source
            );
        }
        None => super::output::print(&bytes)?,
    }
    if let Some(rel) = &ds.relevance {
        let names: Vec<&str> = rel
            .iter()
            .zip(&ds.feature_names)
            .filter(|(r, _)| **r)
            .map(|(_, n)| n.as_str())
            .collect();
        eprintln!("informative features: {}", names.join(","));
    }
    Ok(())
}

fn to_csv(ds: &crate::data::Dataset) -> String {
    let mut out = String::with_capacity(ds.n() * ds.p() * 12);
    out.push_str(&ds.feature_names.join(","));
    if ds.labels.is_some() {
        out.push_str(",label");
    }
    out.push('\n');
    for (i, row) in ds.x.f64().rows().into_iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|v| format!("{v}")).collect();
        out.push_str(&cells.join(","));
        if let Some(l) = &ds.labels {
            out.push(',');
            out.push_str(&l.names[l.ids[i]]);
        }
        out.push('\n');
    }
    out
}
