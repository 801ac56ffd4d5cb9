//! Export from the UI: labels and the full result, atomically, never over
//! the input, and only over existing files once the user said yes.

use super::App;
use crate::error::{Error, Result};
use crate::files;
use crate::report::{ReportInput, RunReport};
use std::path::{Path, PathBuf};

pub enum Outcome {
    Written(Vec<String>),
    /// These files exist; ask first.
    NeedsConfirm(Vec<String>),
}

fn targets(base: &Path) -> [PathBuf; 2] {
    let b = base.display().to_string();
    let b = b
        .strip_suffix(".json")
        .or_else(|| b.strip_suffix(".csv"))
        .unwrap_or(&b)
        .to_string();
    [
        PathBuf::from(format!("{b}.labels.csv")),
        PathBuf::from(format!("{b}.json")),
    ]
}

pub fn export(app: &App, base: &Path, confirmed: bool) -> Result<Outcome> {
    let loaded = app.loaded().ok_or_else(|| Error::param("no data loaded"))?;
    let result = app
        .view
        .result
        .as_ref()
        .ok_or_else(|| Error::param("no finished run to export"))?;
    let [labels_path, json_path] = targets(base);
    // Every file the data came from, an IDX labels companion included.
    let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
    for t in [&labels_path, &json_path] {
        files::check_target(t, &inputs, true)?;
    }
    let existing: Vec<String> = [&labels_path, &json_path]
        .iter()
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() && !confirmed {
        return Ok(Outcome::NeedsConfirm(existing));
    }
    let (id, cfg) = app
        .view
        .config
        .as_ref()
        .ok_or_else(|| Error::param("no finished run to export"))?;
    let algo = crate::algo::find(id)?;
    let algo = algo.as_ref();
    let spec = loaded.source.spec();
    let report = RunReport::build(ReportInput {
        algo,
        cfg,
        result,
        dataset: &loaded.dataset,
        data_spec: &spec,
        scale: loaded.scale,
        load_ms: loaded.load_ms,
        internal: app.view.internal,
        load: &app.load_opts,
    });
    files::write_atomic(&labels_path, report.labels_csv().as_bytes())?;
    // The same object as `meanscape run --json` (feature weights paired
    // with their names in `features`), indented for reading.
    let json = serde_json::to_string_pretty(&report).expect("report serialises") + "\n";
    files::write_atomic(&json_path, json.as_bytes())?;
    // The full paths: a relative name says nothing about where the UI runs.
    let full = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    Ok(Outcome::Written(vec![full(&labels_path), full(&json_path)]))
}
