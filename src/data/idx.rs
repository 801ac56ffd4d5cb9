//! IDX files, the format of MNIST and Fashion-MNIST (`train-images-idx3-ubyte`,
//! optionally gzipped): a big-endian header (two zero bytes, a type code,
//! the number of dimensions, each dimension as u32) and the values. An
//! n × d₁ × d₂ … array becomes n rows of d₁·d₂·… features. With automatic
//! labels, the matching `…-labels-idx1-ubyte[.gz]` beside an
//! `…-images-idx3-ubyte[.gz]` file gives the ground truth.

use super::{Dataset, LabelChoice, Labels, LoadOptions};
use crate::error::{Error, Result};
use ndarray::Array2;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Whether `bytes` (already decompressed) start like an IDX file.
pub fn looks_like_idx(bytes: &[u8]) -> bool {
    bytes.len() >= 4
        && bytes[0] == 0
        && bytes[1] == 0
        && matches!(bytes[2], 0x08 | 0x09 | 0x0B | 0x0C | 0x0D | 0x0E)
        && bytes[3] >= 1
}

/// The file's bytes, gunzipped when it is gzip.
pub fn read_maybe_gz(path: &Path) -> Result<Vec<u8>> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::io(&shown, e))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        libflate::gzip::Decoder::new(&bytes[..])
            .and_then(|mut d| d.read_to_end(&mut out))
            .map_err(|e| Error::Data(format!("{shown}: not a readable gzip file ({e})")))?;
        return Ok(out);
    }
    Ok(bytes)
}

/// Dimensions and values of an IDX array.
fn parse(bytes: &[u8], origin: &str) -> Result<(Vec<usize>, Vec<f64>)> {
    if !looks_like_idx(bytes) {
        return Err(Error::Data(format!(
            "{origin}: not an IDX file (it should start with 00 00, a type code and the number of dimensions)"
        )));
    }
    let (code, ndim) = (bytes[2], bytes[3] as usize);
    let head = 4 + 4 * ndim;
    if bytes.len() < head {
        return Err(Error::Data(format!(
            "{origin}: truncated IDX header ({ndim} dimensions announced)"
        )));
    }
    let dims: Vec<usize> = (0..ndim)
        .map(|i| {
            let b = &bytes[4 + 4 * i..8 + 4 * i];
            u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
        })
        .collect();
    let size = match code {
        0x08 | 0x09 => 1,
        0x0B => 2,
        0x0C | 0x0D => 4,
        _ => 8,
    };
    let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let want = count.and_then(|c| c.checked_mul(size));
    let data = &bytes[head..];
    if want != Some(data.len()) {
        return Err(Error::Data(format!(
            "{origin}: IDX dimensions {dims:?} need {} bytes of data, the file has {}",
            want.map_or("more than usize".into(), |w| w.to_string()),
            data.len()
        )));
    }
    let values: Vec<f64> = match code {
        0x08 => data.iter().map(|&v| f64::from(v)).collect(),
        0x09 => data.iter().map(|&v| f64::from(v as i8)).collect(),
        0x0B => data
            .chunks_exact(2)
            .map(|c| f64::from(i16::from_be_bytes([c[0], c[1]])))
            .collect(),
        0x0C => data
            .chunks_exact(4)
            .map(|c| f64::from(i32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        0x0D => data
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        _ => data
            .chunks_exact(8)
            .map(|c| f64::from_be_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    };
    Ok((dims, values))
}

/// The labels file that goes with an images file, by the MNIST naming.
pub fn sibling_labels(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let other = name.replace("images-idx3", "labels-idx1");
    if other == name {
        return None;
    }
    let p = path.with_file_name(other);
    p.is_file().then_some(p)
}

/// Reads an IDX file (raw or gzipped) whose bytes are `bytes`.
pub fn read(path: &Path, bytes: &[u8], opts: &LoadOptions) -> Result<Dataset> {
    let shown = path.display().to_string();
    let (dims, values) = parse(bytes, &shown)?;
    if dims.len() < 2 {
        return Err(Error::Data(format!(
            "{shown}: a 1-D IDX array (a labels file?); give the images file, the labels beside it are found by name"
        )));
    }
    let n = dims[0];
    let p: usize = dims[1..].iter().product();
    let x = Array2::from_shape_vec((n, p), values).expect("size checked");
    let labels = match &opts.label {
        LabelChoice::None => None,
        LabelChoice::Auto => match sibling_labels(path) {
            Some(lp) => Some(read_labels(&lp, n)?),
            None => None,
        },
        other => {
            return Err(Error::Data(format!(
                "{shown}: an IDX file has no label column ({other:?}); its labels come from the matching …-labels-idx1-ubyte file beside it"
            )));
        }
    };
    let mut ds = Dataset::new(&shown, &shown, x);
    if labels.is_some() {
        ds.inputs.extend(sibling_labels(path));
    }
    ds.labels = labels;
    Ok(ds)
}

fn read_labels(path: &Path, n: usize) -> Result<Labels> {
    let shown = path.display().to_string();
    let bytes = read_maybe_gz(path)?;
    let (dims, codes) = parse(&bytes, &shown)?;
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

    pub(crate) fn idx_bytes(code: u8, dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 0, code, dims.len() as u8];
        for d in dims {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b.extend_from_slice(data);
        b
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
    }
}
