//! Where a dataset comes from: a file, a bundled name or a generator.

use super::input::{self, Budget};
use super::{
    Dataset, Dtype, LoadOptions, bundled, columnar, delimited, generate, idx, idx_header, matv5,
    npy, preprocess, sparse,
};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub enum DataSource {
    File(PathBuf),
    Bundled(&'static str),
    /// `gen:NAME[,key=value…]`
    Generator {
        name: String,
        params: Vec<(String, String)>,
    },
}

impl DataSource {
    /// Reads `PATH|NAME|gen:NAME[,key=value…]`. An existing file wins over
    /// a bundled dataset of the same name.
    ///
    /// # Errors
    /// [`Error::Data`] for a spec that names no file, bundled dataset or
    /// generator, or a generator spec that does not parse.
    pub fn parse(spec: &str) -> Result<Self> {
        let spec = spec.trim();
        if let Some(rest) = spec.strip_prefix("gen:") {
            let mut parts = rest.split(',');
            let name = parts.next().unwrap_or("").trim().to_string();
            let mut params = Vec::new();
            for (i, part) in parts.enumerate() {
                if part.trim().is_empty() {
                    return Err(Error::param(format!(
                        "{spec}: parameter {} is empty; give key=value pairs separated by single commas, as in gen:blobs,n=1000,k=5",
                        i + 1
                    )));
                }
                let (k, v) = part.split_once('=').ok_or_else(|| {
                    Error::param(format!(
                        "generator parameter '{part}' must be key=value, as in gen:blobs,n=1000,k=5"
                    ))
                })?;
                params.push((k.trim().to_string(), v.trim().to_string()));
            }
            generate::check_name(&name)?;
            return Ok(DataSource::Generator { name, params });
        }
        let path = Path::new(spec);
        if path.exists() {
            return Ok(DataSource::File(path.to_path_buf()));
        }
        if let Some(b) = bundled::find(spec) {
            return Ok(DataSource::Bundled(b.name));
        }
        let names: Vec<&str> = bundled::BUNDLED.iter().map(|b| b.name).collect();
        Err(Error::Data(format!(
            "{spec}: no such file, and not a bundled dataset ({}) or a generator (gen:NAME)",
            names.join(", ")
        )))
    }

    /// The text that reproduces this source on the command line.
    pub fn spec(&self) -> String {
        match self {
            DataSource::File(p) => p.display().to_string(),
            DataSource::Bundled(n) => n.to_string(),
            DataSource::Generator { name, params } => {
                let mut s = format!("gen:{name}");
                for (k, v) in params {
                    s.push_str(&format!(",{k}={v}"));
                }
                s
            }
        }
    }
}

/// Loads a source into a validated dataset (not yet scaled).
///
/// Only regular files are read: a FIFO, socket, device or directory is
/// refused from its metadata, before it is opened (a FIFO would block the
/// open forever, `/dev/urandom` never ends). Every size a file declares,
/// and every decompressed length, is checked against the bytes there are
/// and against `opts.max_memory` before it is allocated; a refusal is one
/// line naming the file, the limit and what to do.
///
/// # Errors
/// [`Error::Data`] for a file that cannot be read as given (naming the
/// file, line and column), [`Error::Io`], [`Error::Resource`] above the
/// memory budget.
pub fn load(src: &DataSource, opts: &LoadOptions) -> Result<Dataset> {
    if opts.keep_label_column && opts.label != super::LabelChoice::None {
        return Err(Error::param(
            "--keep-label-column applies with --label none only (it makes the column named \
             label, class, target, y or cluster a feature)",
        ));
    }
    let mut ds = match src {
        DataSource::Bundled(name) => bundled::load(bundled::find(name).expect("known"), opts)?,
        DataSource::Generator { name, params } => {
            generate::generate_within(name, params, opts.max_memory)?
        }
        DataSource::File(path) => load_file(path, opts)?,
    };
    preprocess::resolve_missing(&mut ds, opts.missing)?;
    ds.validate()?;
    ds.dtype = opts
        .dtype
        .unwrap_or(if ds.float32 { Dtype::F32 } else { Dtype::F64 });
    if ds.sparse.is_some() {
        // CSR rows are f64 (the loader noted a --dtype f32 it could not honour).
        ds.dtype = Dtype::F64;
    }
    // The matrix is held in the run's type only (a loader that read f32
    // for an f32 run made no f64 copy; others convert here, once).
    if ds.x.dtype() != ds.dtype {
        ds.x = ds.x.to_dtype(ds.dtype);
    }
    Ok(ds)
}

/// `train-images-idx3-ubyte.gz` → `train-images`.
fn idx_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let name = name.trim_end_matches(".gz");
    name.split("-idx").next().unwrap_or(name).to_string()
}

fn load_file(path: &Path, opts: &LoadOptions) -> Result<Dataset> {
    let shown = input::shown(path);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut ds = match ext.as_str() {
        _ if sparse::Format::of(path).is_some() => {
            sparse::read(path, sparse::Format::of(path).expect("sparse"), opts)?
        }
        "npy" => npy::read(path, opts)?,
        "mat" => matv5::read(path, opts)?,
        e if columnar::by_extension(e).is_some() => {
            let bytes = input::read_all(path, &shown, &Budget::of(opts))?;
            let hint = columnar::by_extension(e).expect("columnar");
            columnar::read(bytes, hint, &shown, opts)?
        }
        _ => {
            // IDX (MNIST's format) is recognised by its header, gzipped or
            // not; everything else is delimited text (also inside .gz).
            let mut bytes = input::read_maybe_gz(path, &shown, &Budget::of(opts))?;
            if idx_header::looks_like_idx(&bytes) {
                let mut ds = idx::read(path, &bytes, opts)?;
                ds.name = idx_name(path);
                ds.source = shown;
                ds.inputs.insert(0, path.to_path_buf());
                return Ok(ds);
            }
            // Parquet or Arrow under another name.
            if let Some(format) = columnar::sniff(&bytes) {
                columnar::read(bytes, format, &shown, opts)?
            } else {
                if let Some(pos) = bytes.iter().position(|&b| b == 0) {
                    return Err(input::binary_data(&shown, pos, ""));
                }
                delimited::lone_cr_to_lf(&mut bytes);
                let text = String::from_utf8(bytes).map_err(|e| {
                    Error::Data(format!(
                        "{shown}: not UTF-8 text (invalid byte at offset {}); expected a delimited text file, .npy, .mat, .parquet, .arrow or IDX (MNIST)",
                        e.utf8_error().valid_up_to()
                    ))
                })?;
                delimited::parse(&text, &shown, opts)?
            }
        }
    };
    ds.name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or(shown.clone());
    ds.source = shown;
    ds.inputs.insert(0, path.to_path_buf());
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_generator_specs() {
        let s = DataSource::parse("gen:blobs,n=100, k=3").unwrap();
        assert_eq!(
            s,
            DataSource::Generator {
                name: "blobs".into(),
                params: vec![("n".into(), "100".into()), ("k".into(), "3".into())]
            }
        );
        assert_eq!(s.spec(), "gen:blobs,n=100,k=3");
        assert!(DataSource::parse("gen:blobs,n").is_err());
        assert!(DataSource::parse("gen:nosuch").is_err());
        let e = DataSource::parse("gen:blobs,,,").unwrap_err().to_string();
        assert!(e.starts_with("gen:blobs,,,: parameter 1 is empty"), "{e}");
        let e = DataSource::parse("gen:blobs,n=5,").unwrap_err().to_string();
        assert!(e.contains("parameter 2 is empty"), "{e}");
    }

    #[test]
    fn bundled_names_and_unknowns() {
        assert_eq!(
            DataSource::parse("iris").unwrap(),
            DataSource::Bundled("iris")
        );
        let e = DataSource::parse("no_such_thing.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such file") && e.contains("iris"), "{e}");
    }

    #[test]
    fn every_bundled_dataset_loads_with_labels() {
        for b in bundled::BUNDLED.iter() {
            let ds = load(&DataSource::Bundled(b.name), &LoadOptions::default()).unwrap();
            assert!(ds.n() > 100 && ds.p() >= 4, "{}", b.name);
            assert!(ds.labels.is_some(), "{}", b.name);
        }
    }
}
