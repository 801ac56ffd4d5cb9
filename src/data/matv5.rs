//! MATLAB v5/v6/v7 `.mat` files (not v7.3, which is HDF5).
//!
//! The numeric data are read with the `matfile` crate. That crate skips
//! every variable it does not support (sparse, char, cell, struct…) without
//! a word, and refuses whole files for some valid encodings (an `int32`
//! matrix, for one), so this module also walks the file's elements itself:
//! to list the variables with their class and size in messages, to say
//! plainly why a variable cannot be used, and to read the numeric data
//! itself when `matfile` gives up on the file.

use super::npy::check_finite;
use super::{Dataset, LabelChoice, Labels, LoadOptions};
use crate::error::{Error, Result};
use ndarray::{Array2, Axis, ShapeBuilder};
use std::path::Path;

/// Feature variables tried, in order, when none is named.
pub const AUTO_FEATURE_VARS: [&str; 3] = ["fea", "X", "data"];
/// Label variables tried, in order, with [`LabelChoice::Auto`].
pub const AUTO_LABEL_VARS: [&str; 3] = ["gnd", "Y", "label"];

/// Reads features (`opts.var`, else the first of `fea`, `X`, `data`) and
/// labels (`LabelChoice::Name(v)`, else with `Auto` the first of `gnd`, `Y`,
/// `label`) from a `.mat` file. Matrices are n × p as MATLAB shows them.
pub fn read(path: &Path, opts: &LoadOptions) -> Result<Dataset> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::io(&shown, e))?;
    parse(&bytes, &shown, opts)
}

/// Reads `.mat` bytes; `origin` starts every message.
pub(crate) fn parse(bytes: &[u8], origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    let data_err = |msg: String| Error::Data(format!("{origin}: {msg}"));
    let endian = check_header(bytes).map_err(data_err)?;
    let parsed = matfile::MatFile::parse(bytes);
    let listing: Vec<VarInfo> = match (scan(bytes, endian, None), &parsed) {
        (Ok((vars, _)), _) => vars,
        (Err(_), Ok(mf)) if !mf.arrays().is_empty() => mf
            .arrays()
            .iter()
            .map(|a| VarInfo {
                name: a.name().to_string(),
                class: class_of(a.data()),
                dims: a.size().clone(),
                complex: is_complex(a.data()),
                logical: false,
            })
            .collect(),
        (Err(own), Err(theirs)) => {
            return Err(data_err(format!(
                "cannot read this .mat file ({own}; matfile: {theirs})"
            )));
        }
        (Err(own), Ok(_)) => {
            return Err(data_err(format!("cannot read this .mat file ({own})")));
        }
    };
    let files_vars = || {
        if listing.is_empty() {
            "the file has no variables".to_string()
        } else {
            format!(
                "the file has {}",
                listing
                    .iter()
                    .map(VarInfo::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    let find = |name: &str| -> Option<&VarInfo> {
        listing
            .iter()
            .find(|v| v.name == name)
            .or_else(|| listing.iter().find(|v| v.name.eq_ignore_ascii_case(name)))
    };

    // Which variables.
    let fea = match &opts.var {
        Some(v) => {
            find(v).ok_or_else(|| data_err(format!("no variable named {v:?}; {}", files_vars())))?
        }
        None => AUTO_FEATURE_VARS
            .iter()
            .find_map(|v| find(v))
            .ok_or_else(|| {
                data_err(format!(
                    "none of the variables {} holds the features; {} (name one with --var)",
                    quoted_list(&AUTO_FEATURE_VARS),
                    files_vars()
                ))
            })?,
    };
    let gnd =
        match &opts.label {
            LabelChoice::Name(v) => Some(find(v).ok_or_else(|| {
                data_err(format!("no label variable named {v:?}; {}", files_vars()))
            })?),
            LabelChoice::Auto => AUTO_LABEL_VARS
                .iter()
                .find_map(|v| find(v))
                .filter(|g| g.name != fea.name),
            LabelChoice::None | LabelChoice::Index(_) => None,
        };

    // Their data.
    let load = |info: &VarInfo| -> Result<(usize, usize, Vec<f64>)> {
        info.check_usable().map_err(data_err)?;
        let (rows, cols) = (info.dims[0], info.dims[1]);
        let values = match &parsed {
            Ok(mf) => match mf.find_by_name(&info.name) {
                Some(a) => to_f64(a.data()),
                None => read_var(bytes, endian, &info.name).map_err(data_err)?,
            },
            Err(_) => read_var(bytes, endian, &info.name).map_err(data_err)?,
        };
        if values.len() != rows * cols {
            return Err(data_err(format!(
                "variable {:?}: {} values for a {rows}×{cols} matrix",
                info.name,
                values.len()
            )));
        }
        Ok((rows, cols, values))
    };
    let (rows, cols, values) = load(fea)?;
    // MATLAB stores column-major.
    let mut x = Array2::from_shape_vec((rows, cols).f(), values)
        .expect("size checked")
        .as_standard_layout()
        .into_owned();
    let mut notes = Vec::new();

    let labels = match (gnd, &opts.label) {
        (Some(g), _) => {
            let (lr, lc, codes) = load(g)?;
            if lr != 1 && lc != 1 {
                return Err(data_err(format!(
                    "label variable {:?} is {lr}×{lc}; expected a vector with one label per row",
                    g.name
                )));
            }
            if codes.len() != x.nrows() {
                if codes.len() == x.ncols() && x.nrows() != x.ncols() {
                    x = x.t().as_standard_layout().into_owned();
                    notes.push(format!(
                        "{:?} is stored p × n ({rows}×{cols}); transposed it to n × p to match the {} labels in {:?}",
                        fea.name,
                        codes.len(),
                        g.name
                    ));
                } else {
                    return Err(data_err(format!(
                        "label variable {:?} has {} values but {:?} has {} rows",
                        g.name,
                        codes.len(),
                        fea.name,
                        x.nrows()
                    )));
                }
            }
            Some(labels_from(&codes, &g.name).map_err(data_err)?)
        }
        (None, &LabelChoice::Index(i)) => {
            let p = x.ncols();
            if i >= p {
                return Err(data_err(format!(
                    "label column index {i} is out of range: {:?} has {p} column(s), indices 0 to {} (0-based)",
                    fea.name,
                    p.saturating_sub(1)
                )));
            }
            if p == 1 {
                return Err(data_err(format!(
                    "no feature columns: the only column of {:?} holds the labels",
                    fea.name
                )));
            }
            let codes = x.column(i).to_vec();
            let keep: Vec<usize> = (0..p).filter(|&j| j != i).collect();
            x = x.select(Axis(1), &keep);
            Some(labels_from(&codes, &format!("column {}", i + 1)).map_err(data_err)?)
        }
        _ => None,
    };

    check_finite(&mut x, origin, opts.missing)?;
    let mut ds = Dataset::new(origin, origin, x);
    ds.labels = labels;
    ds.notes = notes;
    Ok(ds)
}

fn labels_from(codes: &[f64], what: &str) -> std::result::Result<Labels, String> {
    if let Some(r) = codes.iter().position(|c| !c.is_finite()) {
        return Err(format!(
            "label {} of {what:?} (row {}) is not a finite number",
            codes[r],
            r + 1
        ));
    }
    Ok(Labels::from_codes(codes))
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn to_f64(d: &matfile::NumericData) -> Vec<f64> {
    use matfile::NumericData as N;
    match d {
        N::Int8 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::UInt8 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::Int16 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::UInt16 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::Int32 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::UInt32 { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::Int64 { real, .. } => real.iter().map(|&v| v as f64).collect(),
        N::UInt64 { real, .. } => real.iter().map(|&v| v as f64).collect(),
        N::Single { real, .. } => real.iter().map(|&v| f64::from(v)).collect(),
        N::Double { real, .. } => real.clone(),
    }
}

fn class_of(d: &matfile::NumericData) -> u8 {
    use matfile::NumericData as N;
    match d {
        N::Double { .. } => 6,
        N::Single { .. } => 7,
        N::Int8 { .. } => 8,
        N::UInt8 { .. } => 9,
        N::Int16 { .. } => 10,
        N::UInt16 { .. } => 11,
        N::Int32 { .. } => 12,
        N::UInt32 { .. } => 13,
        N::Int64 { .. } => 14,
        N::UInt64 { .. } => 15,
    }
}

fn is_complex(d: &matfile::NumericData) -> bool {
    use matfile::NumericData as N;
    match d {
        N::Int8 { imag, .. } => imag.is_some(),
        N::UInt8 { imag, .. } => imag.is_some(),
        N::Int16 { imag, .. } => imag.is_some(),
        N::UInt16 { imag, .. } => imag.is_some(),
        N::Int32 { imag, .. } => imag.is_some(),
        N::UInt32 { imag, .. } => imag.is_some(),
        N::Int64 { imag, .. } => imag.is_some(),
        N::UInt64 { imag, .. } => imag.is_some(),
        N::Single { imag, .. } => imag.is_some(),
        N::Double { imag, .. } => imag.is_some(),
    }
}

// ------------------------------------------------------------ file layout

const MI_INT8: u32 = 1;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;

const CLASS_SPARSE: u8 = 5;
const CLASS_FUNCTION: u8 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endian {
    Little,
    Big,
}

/// Checks the 128-byte header and returns the byte order.
fn check_header(b: &[u8]) -> std::result::Result<Endian, String> {
    if b.starts_with(b"MATLAB 7.3") {
        return Err("a MATLAB v7.3 file (HDF5), which is not supported; \
             save it with save(..., '-v7') or scipy.io.savemat"
            .into());
    }
    if b.len() < 128 || b[..4].contains(&0) {
        return Err(
            "not a MATLAB v5 .mat file (v4 files are not supported: save with '-v7')".into(),
        );
    }
    match &b[126..128] {
        b"IM" => Ok(Endian::Little),
        b"MI" => Ok(Endian::Big),
        _ => Err("not a MATLAB v5 .mat file (no byte-order mark in the header)".into()),
    }
}

fn u32_at(b: &[u8], off: usize, e: Endian) -> Option<u32> {
    let s: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(s),
        Endian::Big => u32::from_be_bytes(s),
    })
}

/// One data element: its type, its data, and where the next one starts
/// (`padded`: sub-elements are padded to 8 bytes; a top-level compressed
/// element is not).
fn element(
    b: &[u8],
    off: usize,
    e: Endian,
    padded: bool,
) -> std::result::Result<(u32, &[u8], usize), String> {
    let truncated = || "truncated data element".to_string();
    let first = u32_at(b, off, e).ok_or_else(truncated)?;
    if first >> 16 != 0 {
        // Small format: type and size in one word, up to 4 bytes of data.
        let n = (first >> 16) as usize;
        if n > 4 {
            return Err("malformed small data element".into());
        }
        let data = b.get(off + 4..off + 4 + n).ok_or_else(truncated)?;
        return Ok((first & 0xffff, data, off + 8));
    }
    let n = u32_at(b, off + 4, e).ok_or_else(truncated)? as usize;
    let start = off + 8;
    let data = b.get(start..start + n).ok_or_else(truncated)?;
    let next = if padded {
        start + n.div_ceil(8) * 8
    } else {
        start + n
    };
    Ok((first, data, next))
}

/// What the file says about one top-level variable.
#[derive(Debug, Clone, PartialEq)]
struct VarInfo {
    name: String,
    class: u8,
    dims: Vec<usize>,
    complex: bool,
    logical: bool,
}

impl VarInfo {
    fn class_name(&self) -> &'static str {
        if self.logical {
            return "logical";
        }
        match self.class {
            1 => "cell",
            2 => "struct",
            3 => "object",
            4 => "char",
            5 => "sparse",
            6 => "double",
            7 => "single",
            8 => "int8",
            9 => "uint8",
            10 => "int16",
            11 => "uint16",
            12 => "int32",
            13 => "uint32",
            14 => "int64",
            15 => "uint64",
            16 => "function handle",
            17 => "opaque object",
            _ => "unknown class",
        }
    }

    fn is_numeric(&self) -> bool {
        (6..=15).contains(&self.class)
    }

    fn describe(&self) -> String {
        let size = self
            .dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("×");
        let complex = if self.complex { " complex" } else { "" };
        let sep = if size.is_empty() { "" } else { " " };
        format!("{} ({size}{complex}{sep}{})", self.name, self.class_name())
    }

    /// Whether this variable can be a numeric matrix, and if not why.
    fn check_usable(&self) -> std::result::Result<(), String> {
        let name = &self.name;
        if self.class == CLASS_SPARSE {
            return Err(format!(
                "variable {name:?} is a sparse matrix, which is not supported; \
                 save it as a full matrix ({name} = full({name}))"
            ));
        }
        if !self.is_numeric() {
            return Err(format!(
                "variable {name:?} is a {} array, not a numeric matrix",
                self.class_name()
            ));
        }
        if self.complex {
            return Err(format!(
                "variable {name:?} is complex; only real matrices are supported"
            ));
        }
        if self.dims.len() != 2 {
            return Err(format!(
                "variable {name:?} has {} dimensions ({}); expected a 2-D matrix",
                self.dims.len(),
                self.describe()
            ));
        }
        Ok(())
    }
}

/// Parses the sub-elements of a matrix: flags, dimensions, name and, when
/// `with_data` and the class is numeric, the real part as f64.
fn parse_matrix(
    b: &[u8],
    e: Endian,
    with_data: bool,
) -> std::result::Result<(VarInfo, Option<Vec<f64>>), String> {
    let (ty, flags, off) = element(b, 0, e, true)?;
    if ty != MI_UINT32 || flags.len() != 8 {
        return Err("malformed array flags".into());
    }
    let f = u32_at(flags, 0, e).unwrap_or(0);
    let class = (f & 0xff) as u8;
    // Objects (MATLAB strings, tables…) have no dimensions sub-element.
    let (dims, off) = if class >= CLASS_FUNCTION {
        (Vec::new(), off)
    } else {
        let (ty, dims, off) = element(b, off, e, true)?;
        if ty != MI_INT32 {
            return Err("malformed array dimensions".into());
        }
        let dims: Vec<usize> = (0..dims.len() / 4)
            .map(|k| u32_at(dims, 4 * k, e).unwrap_or(0) as usize)
            .collect();
        (dims, off)
    };
    let (ty, name, off) = element(b, off, e, true)?;
    if ty != MI_INT8 {
        return Err("malformed array name".into());
    }
    let info = VarInfo {
        name: String::from_utf8_lossy(name).into_owned(),
        class,
        dims,
        complex: f & 0x0800 != 0,
        logical: f & 0x0200 != 0,
    };
    if !with_data || !info.is_numeric() {
        return Ok((info, None));
    }
    let (ty, raw, _) = element(b, off, e, true)?;
    let values = numbers(ty, raw, e)?;
    Ok((info, Some(values)))
}

/// Decodes a numeric sub-element of any storage type.
fn numbers(ty: u32, raw: &[u8], e: Endian) -> std::result::Result<Vec<f64>, String> {
    macro_rules! conv {
        ($t:ty, $n:expr) => {
            raw.chunks_exact($n)
                .map(|c| {
                    let a: [u8; $n] = c.try_into().expect("chunk");
                    (match e {
                        Endian::Little => <$t>::from_le_bytes(a),
                        Endian::Big => <$t>::from_be_bytes(a),
                    }) as f64
                })
                .collect()
        };
    }
    Ok(match ty {
        1 => conv!(i8, 1),
        2 => conv!(u8, 1),
        3 => conv!(i16, 2),
        4 => conv!(u16, 2),
        5 => conv!(i32, 4),
        6 => conv!(u32, 4),
        7 => conv!(f32, 4),
        9 => conv!(f64, 8),
        12 => conv!(i64, 8),
        13 => conv!(u64, 8),
        _ => return Err(format!("unsupported numeric storage type {ty}")),
    })
}

/// Walks the top-level elements: every variable's description, and the
/// data of the one named `want` if any.
#[allow(clippy::type_complexity)]
fn scan(
    b: &[u8],
    e: Endian,
    want: Option<&str>,
) -> std::result::Result<(Vec<VarInfo>, Option<Vec<f64>>), String> {
    let mut vars: Vec<VarInfo> = Vec::new();
    let mut found = None;
    let mut first_error = None;
    let mut off = 128;
    while off + 8 <= b.len() {
        let (ty, data, next) = element(b, off, e, false)?;
        let parsed = match ty {
            MI_MATRIX => parse_matrix_top(data, e, want).map(Some),
            MI_COMPRESSED => compressed_matrix(data, e, want),
            _ => Ok(None),
        };
        match parsed {
            Ok(Some((info, values))) => {
                if values.is_some() {
                    found = values;
                }
                // MATLAB's unnamed subsystem element is not a variable.
                if !info.name.is_empty() {
                    vars.push(info);
                }
            }
            Ok(None) => {}
            // One element we cannot make sense of need not hide the others.
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
        off = if ty == MI_MATRIX {
            off + 8 + data.len().div_ceil(8) * 8
        } else {
            next
        };
    }
    match first_error {
        Some(err) if vars.is_empty() => Err(err),
        _ => Ok((vars, found)),
    }
}

/// A compressed top-level element: its description from the first bytes,
/// and its data, fully inflated, when it is the one wanted.
#[allow(clippy::type_complexity)]
fn compressed_matrix(
    data: &[u8],
    e: Endian,
    want: Option<&str>,
) -> std::result::Result<Option<(VarInfo, Option<Vec<f64>>)>, String> {
    /// Enough of an inflated element for its flags, dimensions and name.
    const PREFIX: usize = 1024;
    let head = inflate::zlib(data, PREFIX)?;
    let (ty, inner) = match element(&head, 0, e, false) {
        Ok((ty, inner, _)) => (ty, inner),
        // The prefix cut the element short: read just its start.
        Err(_) if head.len() >= 8 && u32_at(&head, 0, e) == Some(MI_MATRIX) => {
            (MI_MATRIX, &head[8..])
        }
        Err(_) => return Err("malformed compressed element".into()),
    };
    if ty != MI_MATRIX {
        return Ok(None);
    }
    let (info, _) = parse_matrix(inner, e, false)?;
    if want == Some(info.name.as_str()) && info.is_numeric() {
        let full = inflate::zlib(data, usize::MAX)?;
        let (_, inner, _) = element(&full, 0, e, false)?;
        let values = parse_matrix(inner, e, true)?.1;
        return Ok(Some((info, values)));
    }
    Ok(Some((info, None)))
}

fn parse_matrix_top(
    data: &[u8],
    e: Endian,
    want: Option<&str>,
) -> std::result::Result<(VarInfo, Option<Vec<f64>>), String> {
    let (info, _) = parse_matrix(data, e, false)?;
    if want == Some(info.name.as_str()) && info.is_numeric() {
        return parse_matrix(data, e, true);
    }
    Ok((info, None))
}

/// Reads one numeric variable's data (column-major) without `matfile`.
fn read_var(b: &[u8], e: Endian, name: &str) -> std::result::Result<Vec<f64>, String> {
    scan(b, e, Some(name))?
        .1
        .ok_or_else(|| format!("cannot read the data of variable {name:?}"))
}

/// zlib streams of compressed `.mat` elements, via `libflate` (already
/// `matfile`'s decompressor).
mod inflate {
    use std::io::Read;

    type R<T> = std::result::Result<T, String>;

    /// Decompresses a zlib stream, stopping once `limit` bytes are out (the
    /// head of an element is enough to list it).
    pub(super) fn zlib(data: &[u8], limit: usize) -> R<Vec<u8>> {
        let decoder = libflate::zlib::Decoder::new(data)
            .map_err(|e| format!("compressed element is not a zlib stream ({e})"))?;
        let mut out = Vec::new();
        decoder
            .take(limit.try_into().unwrap_or(u64::MAX))
            .read_to_end(&mut out)
            .map_err(|e| format!("corrupt or truncated compressed data ({e})"))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zlib stream made of stored blocks (no compression).
    fn zlib_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x78, 0x01];
        let chunks: Vec<&[u8]> = data.chunks(100).collect();
        for (k, c) in chunks.iter().enumerate() {
            out.push(u8::from(k + 1 == chunks.len()));
            let len = c.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(c);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for &x in data {
            a = (a + u32::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        out.extend_from_slice(&(b << 16 | a).to_be_bytes());
        out
    }

    fn el(ty: u32, data: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&ty.to_le_bytes());
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(data);
        while v.len() % 8 != 0 {
            v.push(0);
        }
        v
    }

    fn matrix(name: &str, class: u32, dims: &[i32], ty: u32, data: &[u8]) -> Vec<u8> {
        let mut flags = class.to_le_bytes().to_vec();
        flags.extend_from_slice(&[0; 4]);
        let dims: Vec<u8> = dims.iter().flat_map(|d| d.to_le_bytes()).collect();
        let mut body = el(MI_UINT32, &flags);
        body.extend(el(MI_INT32, &dims));
        body.extend(el(MI_INT8, name.as_bytes()));
        body.extend(el(ty, data));
        let mut m = MI_MATRIX.to_le_bytes().to_vec();
        m.extend_from_slice(&(body.len() as u32).to_le_bytes());
        m.extend(body);
        m
    }

    fn file(elements: &[Vec<u8>]) -> Vec<u8> {
        let mut h = format!("{:<116}", "MATLAB 5.0 MAT-file, test").into_bytes();
        h.extend_from_slice(&[0; 8]);
        h.extend_from_slice(&0x0100u16.to_le_bytes());
        h.extend_from_slice(b"IM");
        for e in elements {
            h.extend_from_slice(e);
        }
        h
    }

    fn compressed(element: &[u8]) -> Vec<u8> {
        let z = zlib_stored(element);
        let mut v = MI_COMPRESSED.to_le_bytes().to_vec();
        v.extend_from_slice(&(z.len() as u32).to_le_bytes());
        v.extend(z);
        v
    }

    fn f64s(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn inflates_stored_blocks_and_stops_at_the_limit() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let z = zlib_stored(&data);
        assert_eq!(inflate::zlib(&z, usize::MAX).unwrap(), data);
        assert!(inflate::zlib(&z, 150).unwrap().len() < 1000);
        assert!(inflate::zlib(&z[..50], usize::MAX).is_err());
    }

    #[test]
    fn reads_column_major_with_labels() {
        // fea = [1 2 3; 4 5 6], stored column-major; gnd as uint8 storage.
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        let gnd = matrix("gnd", 6, &[2, 1], 2, &[1, 2]);
        for b in [
            file(&[fea.clone(), gnd.clone()]),
            file(&[compressed(&fea), compressed(&gnd)]),
        ] {
            let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
            assert_eq!(*ds.x, ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
            assert_eq!(ds.labels.unwrap().names, ["1", "2"]);
        }
    }

    #[test]
    fn lists_variables_and_explains_unusable_ones() {
        let fea = matrix("fea", 6, &[2, 1], 9, &f64s(&[1., 2.]));
        let chars = matrix("names", 4, &[1, 2], 4, &[65, 0, 66, 0]);
        let b = file(&[compressed(&fea), chars]);
        let o = LoadOptions {
            var: Some("nosuch".into()),
            ..Default::default()
        };
        let e = parse(&b, "t.mat", &o).unwrap_err().to_string();
        assert!(
            e.contains("no variable named \"nosuch\"")
                && e.contains("fea (2×1 double), names (1×2 char)"),
            "{e}"
        );
        let o = LoadOptions {
            var: Some("names".into()),
            ..Default::default()
        };
        let e = parse(&b, "t.mat", &o).unwrap_err().to_string();
        assert!(e.contains("\"names\" is a char array"), "{e}");
    }

    #[test]
    fn int32_matrices_read_without_matfile() {
        let data: Vec<u8> = [1i32, -3, 2, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b = file(&[matrix("X", 12, &[2, 2], 5, &data)]);
        // The reason for the fallback: matfile 0.5 refuses int32 storage.
        assert!(matfile::MatFile::parse(&b[..]).is_err());
        let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!(*ds.x, ndarray::array![[1., 2.], [-3., 4.]]);
    }

    #[test]
    fn transposes_when_labels_match_columns() {
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        let gnd = matrix("gnd", 6, &[1, 3], 9, &f64s(&[1., 1., 2.]));
        let ds = parse(&file(&[fea, gnd]), "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!((ds.n(), ds.p()), (3, 2));
        assert_eq!(ds.x.row(0).to_vec(), [1., 4.]);
        assert_eq!(ds.notes.len(), 1);
    }

    /// The fallback reader (and its inflater) against `matfile` on files
    /// MATLAB wrote and compressed.
    #[test]
    fn own_reader_matches_matfile_on_reference_files() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data"));
        if !dir.is_dir() {
            eprintln!("skipping: {} is absent", dir.display());
            return;
        }
        for f in ["lung_discrete.mat", "isolet.mat"] {
            let b = std::fs::read(dir.join(f)).unwrap();
            let e = check_header(&b).unwrap();
            let mf = matfile::MatFile::parse(&b[..]).unwrap();
            let (vars, _) = scan(&b, e, None).unwrap();
            assert_eq!(
                vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
                ["fea", "gnd"]
            );
            for v in &vars {
                let a = mf.find_by_name(&v.name).unwrap();
                assert_eq!(&v.dims, a.size(), "{f} {}", v.name);
                assert_eq!(
                    read_var(&b, e, &v.name).unwrap(),
                    to_f64(a.data()),
                    "{f} {}",
                    v.name
                );
            }
        }
    }

    #[test]
    fn objects_and_the_subsystem_element_do_not_get_in_the_way() {
        let fea = matrix("fea", 6, &[2, 1], 9, &f64s(&[1., 2.]));
        // A MATLAB string object: flags, name, class name, then data.
        let mut body = el(MI_UINT32, &[17, 0, 0, 0, 0, 0, 0, 0]);
        body.extend(el(MI_INT8, b"s"));
        body.extend(el(MI_INT8, b"string"));
        body.extend(matrix("", 13, &[1, 1], 6, &[0; 4]));
        let mut obj = MI_MATRIX.to_le_bytes().to_vec();
        obj.extend_from_slice(&(body.len() as u32).to_le_bytes());
        obj.extend(body);
        let subsystem = matrix("", 9, &[1, 8], 2, &[0; 8]);
        let b = file(&[fea, compressed(&obj), subsystem]);
        assert!(matfile::MatFile::parse(&b[..]).is_err());
        let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!(*ds.x, ndarray::array![[1.], [2.]]);
        let o = LoadOptions {
            var: Some("nosuch".into()),
            ..Default::default()
        };
        let e = parse(&b, "t.mat", &o).unwrap_err().to_string();
        assert!(
            e.ends_with("the file has fea (2×1 double), s (opaque object)"),
            "{e}"
        );
    }

    #[test]
    fn truncated_files_say_so() {
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        for b in [file(std::slice::from_ref(&fea)), file(&[compressed(&fea)])] {
            let cut = &b[..b.len() - 20];
            let e = parse(cut, "t.mat", &LoadOptions::default())
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("t.mat: cannot read this .mat file (truncated"),
                "{e}"
            );
        }
    }

    #[test]
    fn rejects_other_versions() {
        let o = LoadOptions::default();
        let mut v73 = b"MATLAB 7.3 MAT-file".to_vec();
        v73.resize(512, b' ');
        let e = parse(&v73, "t.mat", &o).unwrap_err().to_string();
        assert!(e.contains("v7.3"), "{e}");
        let e = parse(&[0u8; 200], "t.mat", &o).unwrap_err().to_string();
        assert!(e.contains("not a MATLAB v5 .mat file"), "{e}");
    }
}
