//! NumPy `.npy` files: one 2-D array, n × p, of floats, integers or booleans,
//! in C or Fortran order and either byte order.

use super::input::{self, Budget};
use super::sizes::{NAME_BYTES, product};
use super::{Dataset, Dtype, LabelChoice, Labels, LoadOptions, Missing};
use crate::error::{Error, Result};
use crate::solver::Real;
use ndarray::{Array2, Axis};
use ndarray_npy::npy::header::{Header, ParseHeaderError, ReadHeaderError};
use ndarray_npy::{ReadNpyError, ReadNpyExt};
use std::io::{BufReader, ErrorKind, Read, Seek};
use std::path::Path;

/// Reads a 2-D `.npy` array as features. An `.npy` file has no column
/// names, so labels come only from [`LabelChoice::Index`]: that column is
/// taken out of the features.
///
/// The file is streamed, not read whole first: the data lands straight in
/// the array (for little-endian f64, the common case, with no conversion),
/// so a large file is never in memory twice. The shape in the header is
/// checked against the file's length and the memory budget before any
/// of it is allocated.
pub fn read(path: &Path, opts: &LoadOptions) -> Result<Dataset> {
    let shown = input::shown(path);
    let (file, len) = input::open(path, &shown)?;
    let mut ds = parse_from(BufReader::new(file), len, &shown, opts)?;
    if ds.kernels.is_some() {
        // A stack has no label column: labels come from a companion file,
        // named by --label or beside it as STEM.labels.{npy,txt,csv}.
        let file = super::kernel_files::labels_file(
            path,
            &shown,
            &opts.label,
            &mut ds.notes,
            "a kernel stack",
        )?;
        if let Some(f) = file {
            let labels = super::kernel_files::read_labels(&f, ds.n(), &Budget::of(opts)).map_err(
                |e| match e {
                    Error::Resource(m) => Error::Resource(format!("{shown}: labels: {m}")),
                    e => Error::Data(format!("{shown}: labels: {e}")),
                },
            )?;
            ds.labels = Some(labels);
            ds.inputs.push(f);
        }
    }
    Ok(ds)
}

/// Reads `.npy` bytes; `origin` starts every message.
#[cfg(test)]
pub(crate) fn parse(bytes: &[u8], origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    parse_from(
        std::io::Cursor::new(bytes),
        bytes.len() as u64,
        origin,
        opts,
    )
}

/// The element types read, by their descriptor, with their size in bytes.
const DTYPES: [(&str, u64); 20] = [
    ("<f8", 8),
    (">f8", 8),
    ("<f4", 4),
    (">f4", 4),
    ("<i8", 8),
    (">i8", 8),
    ("<i4", 4),
    (">i4", 4),
    ("<i2", 2),
    (">i2", 2),
    ("<u8", 8),
    (">u8", 8),
    ("<u4", 4),
    (">u4", 4),
    ("<u2", 2),
    (">u2", 2),
    ("|i1", 1),
    ("|u1", 1),
    ("|b1", 1),
    ("i1", 1),
];

/// The size of one element of a supported dtype.
fn dtype_size(descr: &str) -> Option<u64> {
    match descr {
        "u1" | "b" | "B" => Some(1),
        _ => DTYPES.iter().find(|(d, _)| *d == descr).map(|&(_, s)| s),
    }
}

/// The header's problem in a few words (the parser's own text for a
/// malformed dictionary is a multi-line syntax diagram).
pub(crate) fn header_problem(e: &ReadHeaderError) -> String {
    let text = match e {
        ReadHeaderError::Io(e) if e.kind() == ErrorKind::UnexpectedEof => {
            "the header is cut short".to_string()
        }
        ReadHeaderError::Parse(ParseHeaderError::MagicString) => {
            "it does not start with the .npy magic string".to_string()
        }
        ReadHeaderError::Parse(ParseHeaderError::DictParse(_)) => {
            "the header is not a Python dictionary literal".to_string()
        }
        e => input::first_line(&e.to_string()).to_string(),
    };
    shorten(&text)
}

/// At most 120 characters of a third party's text (it may quote a value
/// from the file).
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// The longest header read: numpy writes about a hundred bytes (a few
/// thousand for structured dtypes, which are not read anyway).
const MAX_HEADER: u64 = 1 << 20;
/// The deepest nesting of brackets read: the dictionary and the shape tuple
/// need two. The header parser backtracks exponentially on deep nesting
/// (twelve unclosed braces take seconds, twenty would take days).
const MAX_DEPTH: usize = 4;

/// Checks the start of the file before the header parser sees it: the
/// header must fit in the `len` bytes of the file (a version-2 header may
/// claim 4 GiB, which the parser would allocate), be of a sane length, and
/// not nest brackets deeper than [`MAX_DEPTH`].
pub(crate) fn check_header_start<R: Read + Seek>(
    reader: &mut R,
    len: u64,
    origin: &str,
) -> Result<()> {
    let bad = |why: String| Error::Data(format!("{origin}: not a readable .npy file ({why})"));
    let mut pre = [0u8; 12];
    let got = read_up_to(reader, &mut pre).map_err(|e| Error::io(origin, e))?;
    if got >= 10 && pre.starts_with(b"\x93NUMPY") {
        let (header_len, prefix) = match pre[6] {
            1 => (u64::from(u16::from_le_bytes([pre[8], pre[9]])), 10),
            _ if got >= 12 => (
                u64::from(u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]])),
                12,
            ),
            _ => (0, 0),
        };
        if header_len + prefix > len {
            return Err(bad(format!(
                "its header claims {header_len} bytes, the file has {len}"
            )));
        }
        if header_len > MAX_HEADER {
            return Err(bad(format!("a header of {header_len} bytes")));
        }
        if prefix > 0 {
            reader
                .seek(std::io::SeekFrom::Start(prefix))
                .map_err(|e| Error::io(origin, e))?;
            let mut head = vec![0u8; header_len as usize];
            let got = read_up_to(reader, &mut head).map_err(|e| Error::io(origin, e))?;
            let depth = nesting(&head[..got]);
            if depth > MAX_DEPTH {
                return Err(bad(format!(
                    "the header nests brackets {depth} deep, not a .npy header dictionary"
                )));
            }
        }
    }
    reader.rewind().map_err(|e| Error::io(origin, e))?;
    Ok(())
}

/// Fills `buf` as far as the stream goes; returns how much was read.
fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The deepest nesting of brackets outside quotes (closing ones ignored
/// when unmatched: what counts is how deep the parser may have to go).
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut quote) = (0usize, 0, None);
    for &c in text {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'(' | b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Reads a `.npy` stream of `len` bytes from its start; `origin` starts
/// every message.
fn parse_from<R: Read + Seek>(
    mut reader: R,
    len: u64,
    origin: &str,
    opts: &LoadOptions,
) -> Result<Dataset> {
    check_header_start(&mut reader, len, origin)?;
    let header = Header::from_reader(&mut reader).map_err(|e| match e {
        // A failing device, not a malformed file.
        ReadHeaderError::Io(e) if e.kind() != ErrorKind::UnexpectedEof => Error::io(origin, e),
        e => Error::Data(format!(
            "{origin}: not a readable .npy file ({})",
            header_problem(&e)
        )),
    })?;
    let data_start = reader.stream_position().map_err(|e| Error::io(origin, e))?;
    let dtype = shorten(&header.type_descriptor.to_string());
    let shape = &header.shape;
    if shape.len() == 3 {
        return kernel_stack(&mut reader, &header, len - data_start, origin, opts);
    }
    if shape.len() != 2 {
        let dims = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let hint = match shape.len() {
            0 => "a single value",
            1 => "reshape it, e.g. x.reshape(-1, 1) for one feature",
            _ => {
                "flatten the trailing axes, e.g. x.reshape(len(x), -1); a stack of kernels is 3-D, v×n×n"
            }
        };
        return Err(Error::Data(format!(
            "{origin}: {}-D array of shape ({}{}), expected a 2-D array of n rows × p features ({hint})",
            shape.len(),
            shorten(&dims),
            if shape.len() == 1 { "," } else { "" },
        )));
    }
    let descr = match &header.type_descriptor {
        py_literal::Value::String(s) => s.as_str(),
        _ => "",
    };
    let Some(size) = dtype_size(descr) else {
        return Err(Error::Data(format!(
            "{origin}: unsupported dtype {dtype}; expected floats, integers or booleans"
        )));
    };
    let (n, p) = (shape[0] as u64, shape[1] as u64);
    let want = product(&[n, p, size]);
    let have = len.saturating_sub(data_start);
    if want != u128::from(have) {
        let declared = format!(
            "{origin}: cannot read the .npy data: the header declares a {n} × {p} array of {dtype} ({}), but the file holds {have} bytes after the header",
            input::fmt_need(want)
        );
        return Err(Error::Data(if want > u128::from(have) {
            format!("{declared} (truncated or damaged)")
        } else {
            format!("{declared} (data appended or a damaged header)")
        }));
    }
    if n == 0 {
        return Err(Error::Data(format!(
            "{origin}: no data rows (shape ({n}, {p}))"
        )));
    }
    if p == 0 {
        return Err(Error::Data(format!(
            "{origin}: no feature columns (shape ({n}, {p}))"
        )));
    }
    // The array as read, its f64 copy unless it is f64, a C-order copy of
    // a Fortran-order array or one without the label column, and the
    // feature names.
    let keep_f32 = descr.ends_with("f4")
        && opts.dtype != Some(Dtype::F64)
        && matches!(opts.label, LabelChoice::Auto | LabelChoice::None);
    let count = product(&[n, p]);
    let width: u128 = if keep_f32 { 4 } else { 8 };
    let mut need = count * width + u128::from(p) * u128::from(NAME_BYTES);
    if !keep_f32 && (size != 8 || !descr.contains('f')) {
        need += count * u128::from(size);
    }
    if header.layout.is_fortran() || matches!(opts.label, LabelChoice::Index(_)) {
        need += count * width;
    }
    Budget::of(opts).check(
        origin,
        need,
        &if keep_f32 {
            format!("a {n} × {p} array of {dtype} kept as 4-byte floats")
        } else {
            format!("a {n} × {p} array of {dtype} read as 8-byte floats")
        },
    )?;

    // float32 for an f32 run (asked, or by default) stays f32: no f64
    // copy is made of it at any point.
    if keep_f32 {
        reader.rewind().map_err(|e| Error::io(origin, e))?;
        let mut x = Array2::<f32>::read_npy(&mut reader).map_err(|e| {
            Error::Data(format!(
                "{origin}: cannot read the .npy data ({})",
                shorten(input::first_line(&e.to_string()))
            ))
        })?;
        if !x.is_standard_layout() {
            x = x.as_standard_layout().into_owned();
        }
        check_finite(&mut x, origin, opts.missing)?;
        let mut ds = Dataset::new(origin, origin, x);
        ds.float32 = true;
        return Ok(ds);
    }
    let mut x = read_as_f64(&mut reader, descr).map_err(|e| match e {
        ReadNpyError::WrongDescriptor(_) => Error::Data(format!(
            "{origin}: unsupported dtype {dtype}; expected floats, integers or booleans"
        )),
        e => Error::Data(format!(
            "{origin}: cannot read the .npy data ({})",
            shorten(input::first_line(&e.to_string()))
        )),
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
    ds.float32 = descr.ends_with("f4");
    Ok(ds)
}

/// Reads a v×n×n stack of kernel matrices (C order, floats), one matrix
/// at a time, after checking the shape against the file's `have` bytes of
/// data and the budget.
fn kernel_stack<R: Read>(
    reader: &mut R,
    header: &Header,
    have: u64,
    origin: &str,
    opts: &LoadOptions,
) -> Result<Dataset> {
    let bad = |why: String| Error::Data(format!("{origin}: {why}"));
    let descr = match &header.type_descriptor {
        py_literal::Value::String(s) => s.as_str(),
        _ => "",
    };
    let (size, big) = match descr {
        "<f8" => (8, false),
        ">f8" => (8, true),
        "<f4" => (4, false),
        ">f4" => (4, true),
        _ => {
            return Err(bad(format!(
                "a kernel stack of dtype {}; expected float64 or float32",
                shorten(&header.type_descriptor.to_string())
            )));
        }
    };
    if header.layout.is_fortran() {
        return Err(bad(
            "a kernel stack in Fortran order; save it in C order (np.ascontiguousarray)".into(),
        ));
    }
    let (v, n, m) = (
        header.shape[0] as u64,
        header.shape[1] as u64,
        header.shape[2] as u64,
    );
    if n != m {
        return Err(bad(format!(
            "3-D array of shape ({v}, {n}, {m}): a stack of kernels must be v×n×n (square matrices); features must be 2-D (flatten the trailing axes, e.g. x.reshape(len(x), -1))"
        )));
    }
    if v == 0 || n == 0 {
        return Err(bad(format!("empty kernel stack (shape ({v}, {n}, {m}))")));
    }
    let want = product(&[v, n, n, size]);
    if want != u128::from(have) {
        return Err(bad(format!(
            "cannot read the .npy data: the header declares a {v}×{n}×{n} stack ({}), but the file holds {have} bytes after the header",
            input::fmt_need(want)
        )));
    }
    super::kernel_files::check_budget(origin, &Budget::of(opts), n, v, 0)?;
    let (n, v) = (n as usize, v as usize);
    let mut stack = super::kernel_files::StackBuilder::new(n, v);
    let mut slice = Array2::<f64>::zeros((n, n));
    let size = size as usize;
    let mut buf = vec![0u8; n * size];
    for _ in 0..v {
        for mut row in slice.rows_mut() {
            reader
                .read_exact(&mut buf)
                .map_err(|e| bad(format!("cannot read the .npy data ({e})")))?;
            for (x, c) in row.iter_mut().zip(buf.chunks_exact(size)) {
                *x = match (size, big) {
                    (8, false) => f64::from_le_bytes(c.try_into().expect("8 bytes")),
                    (8, true) => f64::from_be_bytes(c.try_into().expect("8 bytes")),
                    (_, false) => f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))),
                    (_, true) => f64::from(f32::from_be_bytes(c.try_into().expect("4 bytes"))),
                };
            }
        }
        stack.push(&mut slice).map_err(|why| {
            bad(format!(
                "a 3-D array is read as a stack of kernels (v×n×n): {why}"
            ))
        })?;
    }
    Ok(stack.finish(origin))
}

/// Reads the array as the type `descr` names, from the start of the stream
/// (the reader parses the header again).
fn read_as_f64<R: Read + Seek>(
    reader: &mut R,
    descr: &str,
) -> std::result::Result<Array2<f64>, ReadNpyError> {
    fn as_f64<T: Copy + Into<f64>>(a: Array2<T>) -> Array2<f64> {
        a.mapv(Into::into)
    }
    reader.rewind()?;
    let r = &mut *reader;
    // f64 as is: a converting copy of a large file would double its memory.
    Ok(match &descr[descr.len().saturating_sub(2)..] {
        "f8" => Array2::<f64>::read_npy(r)?,
        "f4" => as_f64(Array2::<f32>::read_npy(r)?),
        "i8" => Array2::<i64>::read_npy(r)?.mapv(|v| v as f64),
        "i4" => as_f64(Array2::<i32>::read_npy(r)?),
        "i2" => as_f64(Array2::<i16>::read_npy(r)?),
        "u8" => Array2::<u64>::read_npy(r)?.mapv(|v| v as f64),
        "u4" => as_f64(Array2::<u32>::read_npy(r)?),
        "u2" => as_f64(Array2::<u16>::read_npy(r)?),
        "b1" => Array2::<bool>::read_npy(r)?.mapv(|v| f64::from(u8::from(v))),
        "i1" | "b" => as_f64(Array2::<i8>::read_npy(r)?),
        _ => as_f64(Array2::<u8>::read_npy(r)?),
    })
}

/// Applies the missing-value policy to non-finite cells: refuse the file
/// naming the first one, or mark them all NaN for `resolve_missing`.
pub(crate) fn check_finite<T: Real + std::fmt::Display>(
    x: &mut Array2<T>,
    origin: &str,
    missing: Missing,
) -> Result<()> {
    if missing == Missing::Error {
        if let Some(((i, j), v)) = x.indexed_iter().find(|(_, v)| !(**v).into().is_finite()) {
            return Err(Error::Data(format!(
                "{origin}: row {}, column {}: value {v} is not a finite number \
                 (use --impute mean or --drop-incomplete)",
                i + 1,
                j + 1
            )));
        }
    } else {
        x.mapv_inplace(|v| {
            if v.into().is_finite() {
                v
            } else {
                T::from_f64(f64::NAN)
            }
        });
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
        assert_eq!(ds.x.f64(), ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
        let f = npy_bytes("<f8", true, "(2, 3)", &f64s(&[1., 4., 2., 5., 3., 6.]));
        let ds = parse(&f, "f.npy", &o).unwrap();
        assert_eq!(ds.x.f64(), ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
        assert!(ds.x.f64().is_standard_layout());
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
        assert_eq!(ds.x.f64(), ndarray::array![[1., 10.], [2., 20.], [3., 30.]]);
        let l = ds.labels.unwrap();
        assert_eq!(
            (l.ids, l.names),
            (vec![0, 1, 0], vec!["0".into(), "1".into()])
        );
        let b = npy_bytes("|u1", false, "(1, 2)", &[7, 255]);
        let ds = parse(&b, "u.npy", &LoadOptions::default()).unwrap();
        assert_eq!(ds.x.f64(), ndarray::array![[7., 255.]]);
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
    fn deeply_nested_headers_are_refused_before_parsing() {
        assert_eq!(nesting(b"{'descr': '<f8', 'shape': (2, 3), }"), 2);
        assert_eq!(nesting(b"{'a': '((((((', 'b': [(1,)]}"), 3);
        let o = LoadOptions::default();
        let mut b = npy_bytes("<f8", false, "(1, 1)", &f64s(&[1.0]));
        // Twenty unclosed braces: days of backtracking in the parser.
        b[10..30].copy_from_slice(&[b'{'; 20]);
        let e = parse(&b, "d.npy", &o).unwrap_err().to_string();
        assert_eq!(
            e,
            "d.npy: not a readable .npy file (the header nests brackets 20 deep, not a .npy header dictionary)"
        );
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
        assert!(ds.x.f64()[[1, 0]].is_nan());
    }
}
