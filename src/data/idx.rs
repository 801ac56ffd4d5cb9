//! IDX files, the format of MNIST and Fashion-MNIST (`train-images-idx3-ubyte`,
//! optionally gzipped): a big-endian header (two zero bytes, a type code,
//! the number of dimensions, each dimension as u32) and the values. An
//! n × d₁ × d₂ … array becomes n rows of d₁·d₂·… features. With automatic
//! labels, the matching `…-labels-idx1-ubyte[.gz]` beside an
//! `…-images-idx3-ubyte[.gz]` file gives the ground truth.

use super::idx_header::{header, looks_like_idx};
use super::input::{self, Budget};
use super::sizes::{NAME_BYTES, product};
use super::{Dataset, Dtype, LabelChoice, Labels, LoadOptions};
use crate::error::{Error, Result};
use crate::solver::{Matrix, Real};
use ndarray::Array2;
use std::path::{Path, PathBuf};

/// Dimensions and values of an IDX array. The dimensions are checked
/// against the bytes there are before any value is stored, and `budget`
/// against the values as `T` (f64, or f32 for an f32 run) plus `extra`
/// bytes the caller will need.
fn parse<T: Real>(
    bytes: &[u8],
    origin: &str,
    budget: &Budget,
    extra: u128,
) -> Result<(Vec<usize>, Vec<T>)> {
    if !looks_like_idx(bytes) {
        return Err(Error::Data(format!(
            "{origin}: not an IDX file (it should start with 00 00, a type code and the number of dimensions)"
        )));
    }
    let Some(h) = header(bytes) else {
        return Err(Error::Data(format!(
            "{origin}: truncated IDX header ({} dimensions announced)",
            bytes[3]
        )));
    };
    let data = &bytes[h.head..];
    if h.data_len() != data.len() as u128 {
        return Err(Error::Data(format!(
            "{origin}: IDX dimensions {:?} need {} bytes of data, the file has {}",
            h.dims,
            if h.data_len() > u128::from(u64::MAX) {
                "more than 2^64".to_string()
            } else {
                h.data_len().to_string()
            },
            data.len()
        )));
    }
    let count = data.len() / h.size as usize;
    budget.check(
        origin,
        (count as u128) * size_of::<T>() as u128 + bytes.len() as u128 + extra,
        &format!(
            "{count} values as {}-byte floats, and the file's {} bytes",
            size_of::<T>(),
            bytes.len()
        ),
    )?;
    let mut values: Vec<T> = Vec::new();
    values.try_reserve_exact(count).map_err(|_| {
        Error::Resource(format!(
            "{origin}: out of memory for {count} values; lower --max-memory"
        ))
    })?;
    let to = |v: f64| T::from_f64(v);
    match h.code {
        0x08 => values.extend(data.iter().map(|&v| to(f64::from(v)))),
        0x09 => values.extend(data.iter().map(|&v| to(f64::from(v as i8)))),
        0x0B => values.extend(
            data.chunks_exact(2)
                .map(|c| to(f64::from(i16::from_be_bytes([c[0], c[1]])))),
        ),
        0x0C => values.extend(
            data.chunks_exact(4)
                .map(|c| to(f64::from(i32::from_be_bytes([c[0], c[1], c[2], c[3]])))),
        ),
        0x0D => values.extend(
            data.chunks_exact(4)
                .map(|c| to(f64::from(f32::from_be_bytes([c[0], c[1], c[2], c[3]])))),
        ),
        _ => values.extend(
            data.chunks_exact(8)
                .map(|c| to(f64::from_be_bytes(c.try_into().expect("8 bytes")))),
        ),
    }
    // Each dimension is at most u32::MAX, and their product is the count.
    let dims = h.dims.iter().map(|&d| d as usize).collect();
    Ok((dims, values))
}

/// The labels file that goes with an images file, by the MNIST naming,
/// and a note when something else has its name.
pub fn sibling_labels(path: &Path) -> (Option<PathBuf>, Option<String>) {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return (None, None);
    };
    let other = name.replace("images-idx3", "labels-idx1");
    if other == name {
        return (None, None);
    }
    input::companion([path.with_file_name(other)])
}

/// Reads an IDX file (raw or gzipped) whose bytes are `bytes`.
pub fn read(path: &Path, bytes: &[u8], opts: &LoadOptions) -> Result<Dataset> {
    let shown = input::shown(path);
    let budget = Budget::of(opts);
    if let Some(h) = header(bytes) {
        if h.dims.len() < 2 {
            return Err(Error::Data(format!(
                "{shown}: a 1-D IDX array (a labels file?); give the images file, the labels beside it are found by name"
            )));
        }
        if h.dims[0] == 0 {
            return Err(Error::Data(format!(
                "{shown}: no data rows (the IDX header declares dimensions {:?})",
                h.dims
            )));
        }
        if h.dims[1..].contains(&0) {
            return Err(Error::Data(format!(
                "{shown}: no feature columns (the IDX header declares dimensions {:?})",
                h.dims
            )));
        }
    }
    // Names cost little next to the values, but count them all the same.
    let names = product(&header(bytes).map_or(Vec::new(), |h| h.dims[1..].to_vec()))
        .saturating_mul(u128::from(NAME_BYTES));
    // For an f32 run the values are stored as f32 from the start (bytes,
    // small integers and float32 are exact in f32); no f64 copy is made.
    let (n, x): (usize, Matrix) = if opts.dtype == Some(Dtype::F32) {
        let (dims, values) = parse::<f32>(bytes, &shown, &budget, names)?;
        let p: usize = dims[1..].iter().product();
        let x = Array2::from_shape_vec((dims[0], p), values).expect("size checked");
        (dims[0], x.into())
    } else {
        let (dims, values) = parse::<f64>(bytes, &shown, &budget, names)?;
        let p: usize = dims[1..].iter().product();
        let x = Array2::from_shape_vec((dims[0], p), values).expect("size checked");
        (dims[0], x.into())
    };
    let (companion, note) = sibling_labels(path);
    let labels = match &opts.label {
        LabelChoice::None => None,
        LabelChoice::Auto => match &companion {
            Some(lp) => Some(read_labels(lp, n, &budget)?),
            None => None,
        },
        other => {
            return Err(Error::Data(format!(
                "{shown}: an IDX file has no label column ({other:?}); its labels come from the matching …-labels-idx1-ubyte file beside it"
            )));
        }
    };
    let mut ds = Dataset::new(&shown, &shown, x);
    // The companion belongs to the input whether or not it was read: no
    // output may replace it.
    ds.inputs.extend(companion);
    ds.labels = labels;
    if opts.label == LabelChoice::Auto {
        ds.notes.extend(note);
    }
    Ok(ds)
}

fn read_labels(path: &Path, n: usize, budget: &Budget) -> Result<Labels> {
    let shown = input::shown(path);
    let bytes = input::read_maybe_gz(path, &shown, budget)?;
    let (dims, codes) = parse::<f64>(&bytes, &shown, budget, 0)?;
    if dims.len() != 1 || dims[0] != n {
        return Err(Error::Data(format!(
            "{shown}: labels of shape {dims:?} do not match the {n} images"
        )));
    }
    Ok(Labels::from_codes(&codes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::idx_header::declared_len;

    pub(crate) fn idx_bytes(code: u8, dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 0, code, dims.len() as u8];
        for d in dims {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b.extend_from_slice(data);
        b
    }

    fn parse(b: &[u8], origin: &str) -> Result<(Vec<usize>, Vec<f64>)> {
        super::parse::<f64>(b, origin, &Budget::from_limit(Some(1 << 30)), 0)
    }

    #[test]
    fn images_become_rows_and_types_are_read_big_endian() {
        let b = idx_bytes(0x08, &[3, 2, 2], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255]);
        let (dims, v) = parse(&b, "t").unwrap();
        assert_eq!(dims, vec![3, 2, 2]);
        assert_eq!(v[11], 255.0);
        let b = idx_bytes(0x0B, &[2], &[0xff, 0xfe, 0x01, 0x00]);
        assert_eq!(parse(&b, "t").unwrap().1, vec![-2.0, 256.0]);
        let b = idx_bytes(0x0D, &[1], &1.5f32.to_be_bytes());
        assert_eq!(parse(&b, "t").unwrap().1, vec![1.5]);
        assert_eq!(declared_len(&b), Some(12));
        assert_eq!(declared_len(&b[..7]), None);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let e = parse(b"PK\x03\x04", "f").unwrap_err().to_string();
        assert!(e.contains("not an IDX file"), "{e}");
        let b = idx_bytes(0x08, &[3, 2], &[1, 2, 3]);
        let e = parse(&b, "f").unwrap_err().to_string();
        assert!(e.contains("need 6 bytes") && e.contains("has 3"), "{e}");
        let e = parse(&[0, 0, 8, 3, 0, 0], "f").unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        // Dimensions whose product overflows are just more than there is.
        let b = idx_bytes(0x0E, &[u32::MAX; 5], &[]);
        let e = parse(&b, "f").unwrap_err().to_string();
        assert!(e.contains("need more than 2^64 bytes"), "{e}");
    }

    #[test]
    fn values_beyond_the_budget_are_refused_before_they_are_stored() {
        let b = idx_bytes(0x08, &[1000, 100], &[0; 100_000]);
        let e = super::parse::<f64>(&b, "f", &Budget::from_limit(Some(500_000)), 0)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f: loading it needs 878.9 KiB"), "{e}");
    }
}
