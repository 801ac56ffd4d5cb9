//! NumPy `.npy` files: one 2-D array, n × p, of floats, integers or booleans,
//! in C or Fortran order and either byte order.

use super::{Dataset, LabelChoice, Labels, LoadOptions, Missing};
use crate::error::{Error, Result};
use ndarray::{Array2, Axis};
use ndarray_npy::npy::header::{Header, ReadHeaderError};
use ndarray_npy::{ReadNpyError, ReadNpyExt};
use std::io::{BufReader, ErrorKind, Read, Seek};
use std::path::Path;

/// Reads a 2-D `.npy` array as features. An `.npy` file has no column
/// names, so labels come only from [`LabelChoice::Index`]: that column is
/// taken out of the features.
///
/// The file is streamed, not read whole first: the data lands straight in
/// the array (for little-endian f64, the common case, with no conversion),
/// so a large file is never in memory twice.
pub fn read(path: &Path, opts: &LoadOptions) -> Result<Dataset> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(&shown, e))?;
    parse_from(BufReader::new(file), &shown, opts)
}

/// Reads `.npy` bytes; `origin` starts every message.
#[cfg(test)]
pub(crate) fn parse(bytes: &[u8], origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    parse_from(std::io::Cursor::new(bytes), origin, opts)
}

/// Reads a `.npy` stream from its start; `origin` starts every message.
fn parse_from<R: Read + Seek>(mut reader: R, origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    let header = Header::from_reader(&mut reader).map_err(|e| match e {
        // A failing device or a directory, not a malformed file.
        ReadHeaderError::Io(e) if e.kind() != ErrorKind::UnexpectedEof => Error::io(origin, e),
        e => Error::Data(format!("{origin}: not a readable .npy file ({e})")),
    })?;
    let dtype = header.type_descriptor.to_string();
    let shape = &header.shape;
    if shape.len() != 2 {
        let dims = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let hint = match shape.len() {
            0 => "a single value",
            1 => "reshape it, e.g. x.reshape(-1, 1) for one feature",
            _ => "flatten the trailing axes, e.g. x.reshape(len(x), -1)",
        };
        return Err(Error::Data(format!(
            "{origin}: {}-D array of shape ({dims}{}), expected a 2-D array of n rows × p features ({hint})",
            shape.len(),
            if shape.len() == 1 { "," } else { "" },
        )));
    }

    let mut x = read_as_f64(&mut reader).map_err(|e| match e {
        ReadNpyError::WrongDescriptor(_) => Error::Data(format!(
            "{origin}: unsupported dtype {dtype}; expected floats, integers or booleans"
        )),
        e => Error::Data(format!("{origin}: cannot read the .npy data ({e})")),
    })?;
    if !x.is_standard_layout() {
        x = x.as_standard_layout().into_owned();
    }

    let labels = match &opts.label {
        LabelChoice::Auto | LabelChoice::None => None,
        LabelChoice::Name(name) => {
            return Err(Error::Data(format!(
                "{origin}: a .npy file has no column names, so no column is named {name:?}; \
                 give the label column as a 0-based index"
            )));
        }
        &LabelChoice::Index(i) => {
            let p = x.ncols();
            if i >= p {
                return Err(Error::Data(format!(
                    "{origin}: label column index {i} is out of range: the array has {p} \
                     column(s), indices 0 to {} (0-based)",
                    p.saturating_sub(1)
                )));
            }
            if p == 1 {
                return Err(Error::Data(format!(
                    "{origin}: no feature columns: the only column holds the labels"
                )));
            }
            let codes = x.column(i).to_vec();
            if let Some(r) = codes.iter().position(|c| !c.is_finite()) {
                return Err(Error::Data(format!(
                    "{origin}: row {}, column {}: label {} is not a finite number",
                    r + 1,
                    i + 1,
                    codes[r]
                )));
            }
            let keep: Vec<usize> = (0..p).filter(|&j| j != i).collect();
            x = x.select(Axis(1), &keep);
            Some(Labels::from_codes(&codes))
        }
    };

    check_finite(&mut x, origin, opts.missing)?;
    let mut ds = Dataset::new(origin, origin, x);
    ds.labels = labels;
    Ok(ds)
}

/// Reads the array as whatever numeric type the header declares, trying
/// each type from the start of the stream (a wrong type is refused on the
/// header, before any data is read).
fn read_as_f64<R: Read + Seek>(reader: &mut R) -> std::result::Result<Array2<f64>, ReadNpyError> {
    macro_rules! attempt {
        ($($t:ty),*) => {
            $(
                reader.rewind()?;
                match Array2::<$t>::read_npy(&mut *reader) {
                    Ok(a) => return Ok(a.mapv(|v| v as f64)),
                    Err(ReadNpyError::WrongDescriptor(_)) => {}
                    Err(e) => return Err(e),
                }
            )*
        };
    }
    // f64 as is: a converting copy of a large file would double its memory.
    reader.rewind()?;
    match Array2::<f64>::read_npy(&mut *reader) {
        Ok(a) => return Ok(a),
        Err(ReadNpyError::WrongDescriptor(_)) => {}
        Err(e) => return Err(e),
    }
    attempt!(f32, i64, i32, i16, i8, u64, u32, u16, u8);
    reader.rewind()?;
    match Array2::<bool>::read_npy(&mut *reader) {
        Ok(a) => Ok(a.mapv(|v| f64::from(u8::from(v)))),
        Err(e) => Err(e),
    }
}

/// Applies the missing-value policy to non-finite cells: refuse the file
/// naming the first one, or mark them all NaN for `resolve_missing`.
pub(crate) fn check_finite(x: &mut Array2<f64>, origin: &str, missing: Missing) -> Result<()> {
    if missing == Missing::Error {
        if let Some(((i, j), v)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(Error::Data(format!(
                "{origin}: row {}, column {}: value {v} is not a finite number \
                 (use --impute mean or --drop-incomplete)",
                i + 1,
                j + 1
            )));
        }
    } else {
        x.mapv_inplace(|v| if v.is_finite() { v } else { f64::NAN });
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The bytes of a version-1.0 `.npy` file: `descr` such as `<f8`,
    /// `shape` such as `(2, 3)`, and the raw data.
    pub(crate) fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        let unpadded = 10 + dict.len() + 1;
        let pad = (64 - unpadded % 64) % 64;
        let header = format!("{dict}{}\n", " ".repeat(pad));
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn f64s(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn reads_c_and_fortran_order() {
        let o = LoadOptions::default();
        let c = npy_bytes("<f8", false, "(2, 3)", &f64s(&[1., 2., 3., 4., 5., 6.]));
        let ds = parse(&c, "c.npy", &o).unwrap();
        assert_eq!(*ds.x, ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
        let f = npy_bytes("<f8", true, "(2, 3)", &f64s(&[1., 4., 2., 5., 3., 6.]));
        let ds = parse(&f, "f.npy", &o).unwrap();
        assert_eq!(*ds.x, ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
        assert!(ds.x.is_standard_layout());
        assert_eq!(ds.feature_names, ["f1", "f2", "f3"]);
    }

    #[test]
    fn reads_integers_and_label_columns() {
        let data: Vec<u8> = [1i32, 10, 0, 2, 20, 1, 3, 30, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b = npy_bytes("<i4", false, "(3, 3)", &data);
        let o = LoadOptions {
            label: LabelChoice::Index(2),
            ..Default::default()
        };
        let ds = parse(&b, "i.npy", &o).unwrap();
        assert_eq!(*ds.x, ndarray::array![[1., 10.], [2., 20.], [3., 30.]]);
        let l = ds.labels.unwrap();
        assert_eq!(
            (l.ids, l.names),
            (vec![0, 1, 0], vec!["0".into(), "1".into()])
        );
        let b = npy_bytes("|u1", false, "(1, 2)", &[7, 255]);
        let ds = parse(&b, "u.npy", &LoadOptions::default()).unwrap();
        assert_eq!(*ds.x, ndarray::array![[7., 255.]]);
        let o = LoadOptions {
            label: LabelChoice::Index(5),
            ..Default::default()
        };
        assert!(
            parse(&b, "u.npy", &o)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }

    #[test]
    fn rejects_wrong_dimensions_and_types() {
        let o = LoadOptions::default();
        let b = npy_bytes("<f8", false, "(3,)", &f64s(&[1., 2., 3.]));
        let e = parse(&b, "v.npy", &o).unwrap_err().to_string();
        assert!(e.starts_with("v.npy: 1-D array of shape (3,)"), "{e}");
        let b = npy_bytes("<f8", false, "(1, 1, 2)", &f64s(&[1., 2.]));
        let e = parse(&b, "c.npy", &o).unwrap_err().to_string();
        assert!(e.contains("3-D array of shape (1, 1, 2)"), "{e}");
        let b = npy_bytes("<c16", false, "(1, 1)", &[0; 16]);
        let e = parse(&b, "z.npy", &o).unwrap_err().to_string();
        assert!(e.contains("unsupported dtype"), "{e}");
        let e = parse(b"hello", "h.npy", &o).unwrap_err().to_string();
        assert!(e.contains("not a readable .npy file"), "{e}");
        let b = npy_bytes("<f8", false, "(2, 2)", &f64s(&[1., 2., 3.]));
        let e = parse(&b, "t.npy", &o).unwrap_err().to_string();
        assert!(e.contains("cannot read the .npy data"), "{e}");
    }

    #[test]
    fn non_finite_values_follow_the_policy() {
        let b = npy_bytes("<f8", false, "(2, 2)", &f64s(&[1., 2., f64::INFINITY, 4.]));
        let e = parse(&b, "n.npy", &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2, column 1: value inf"), "{e}");
        let o = LoadOptions {
            missing: Missing::DropIncomplete,
            ..Default::default()
        };
        let ds = parse(&b, "n.npy", &o).unwrap();
        assert!(ds.x[[1, 0]].is_nan());
    }
}
