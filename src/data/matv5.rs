//! MATLAB v5/v6/v7 `.mat` files (not v7.3, which is HDF5), read by walking
//! the file's elements: every variable is listed with its class and size
//! (for messages, and to say plainly why one cannot be used), and the
//! numeric ones (double, single, int8 … uint64, logical; compressed or not;
//! either byte order) are read.
//!
//! Sizes are checked before anything is allocated: a variable's dimensions
//! against its data's declared length and the memory budget, and a
//! compressed variable is inflated only as far as its header and its data
//! go, streamed straight into the matrix (so a zlib bomb never inflates past
//! what the variable's dimensions call for).

use super::input::{self, Budget};
use super::npy::check_finite;
use super::sizes::{NAME_BYTES, product};
use super::{Dataset, LabelChoice, Labels, LoadOptions, kernel_files};
use crate::error::{Error, Result};
use ndarray::{Array2, Axis};
use std::io::{self, Read};
use std::path::Path;

/// Feature variables tried, in order, when none is named.
pub const AUTO_FEATURE_VARS: [&str; 3] = ["fea", "X", "data"];
/// Label variables tried, in order, with [`LabelChoice::Auto`].
pub const AUTO_LABEL_VARS: [&str; 3] = ["gnd", "Y", "label"];

/// Reads features (`opts.var`, else the first of `fea`, `X`, `data`) and
/// labels (`LabelChoice::Name(v)`, else with `Auto` the first of `gnd`, `Y`,
/// `label`) from a `.mat` file. Matrices are n × p as MATLAB shows them.
pub fn read(path: &Path, opts: &LoadOptions) -> Result<Dataset> {
    let shown = input::shown(path);
    let bytes = input::read_all(path, &shown, &Budget::of(opts))?;
    parse(&bytes, &shown, opts)
}

/// Reads `.mat` bytes; `origin` starts every message.
pub(crate) fn parse(bytes: &[u8], origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    let data_err = |msg: String| Error::Data(format!("{origin}: {msg}"));
    let budget = Budget::of(opts);
    let endian = check_header(bytes).map_err(data_err)?;
    let max_vars = budget.limit.saturating_sub(bytes.len() as u64) / VAR_BYTES;
    let listing = scan(bytes, endian, max_vars)
        .map_err(|e| data_err(format!("cannot read this .mat file ({e})")))?;
    let files_vars = || {
        if listing.is_empty() {
            "the file has no variables".to_string()
        } else {
            const SHOWN: usize = 20;
            let mut s = listing
                .iter()
                .take(SHOWN)
                .map(VarInfo::describe)
                .collect::<Vec<_>>()
                .join(", ");
            if listing.len() > SHOWN {
                s.push_str(&format!(", … ({} in all)", listing.len()));
            }
            format!("the file has {s}")
        }
    };
    let find = |name: &str| -> Option<&VarInfo> {
        listing
            .iter()
            .find(|v| v.name == name)
            .or_else(|| listing.iter().find(|v| v.name.eq_ignore_ascii_case(name)))
    };

    // A stack of precomputed kernels: `KH` (n×n×v, as the multiple-kernel
    // clustering datasets ship them), or a 3-D variable named with --var.
    let kernel_var = match &opts.var {
        Some(v) => find(v).filter(|i| i.dims.len() == 3),
        None => find("KH").filter(|_| !AUTO_FEATURE_VARS.iter().any(|v| find(v).is_some())),
    };
    if let Some(kh) = kernel_var {
        let gnd = match &opts.label {
            LabelChoice::Name(v) => Some(find(v).ok_or_else(|| {
                data_err(format!("no label variable named {v:?}; {}", files_vars()))
            })?),
            LabelChoice::Auto => AUTO_LABEL_VARS.iter().find_map(|v| find(v)),
            LabelChoice::None | LabelChoice::Index(_) => None,
        };
        return read_kernels(bytes, endian, kh, gnd, origin, &budget);
    }

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

    // Their data: the file is held, and the matrix may be copied once (to
    // transpose it or to take a label column out).
    let load = |info: &VarInfo, copies: u128| -> Result<(usize, usize, Vec<f64>)> {
        info.check_usable().map_err(data_err)?;
        let (rows, cols) = (info.dims[0], info.dims[1]);
        if rows == 0 || cols == 0 {
            return Err(data_err(format!(
                "variable {:?} is empty ({rows}×{cols})",
                info.name
            )));
        }
        let count = product(&[rows, cols]);
        budget.check(
            origin,
            bytes.len() as u128
                + count.saturating_mul(8 * copies)
                + u128::from(cols) * u128::from(NAME_BYTES),
            &format!(
                "variable {:?}, {rows}×{cols}, as 8-byte floats with room for a copy, and the file's {} bytes",
                info.name,
                bytes.len()
            ),
        )?;
        let values = read_values(bytes, endian, info).map_err(data_err)?;
        Ok((rows as usize, cols as usize, values))
    };
    let (rows, cols, values) = load(fea, 2)?;
    let mut x = Array2::from_shape_vec((rows, cols), values).expect("size checked");
    let mut notes = Vec::new();

    let labels = match (gnd, &opts.label) {
        (Some(g), _) => {
            let (lr, lc, codes) = load(g, 1)?;
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

/// Reads the kernel stack `kh` (n×n or n×n×v) and the labels `gnd`.
fn read_kernels(
    bytes: &[u8],
    endian: Endian,
    kh: &VarInfo,
    gnd: Option<&VarInfo>,
    origin: &str,
    budget: &Budget,
) -> Result<Dataset> {
    let data_err = |msg: String| Error::Data(format!("{origin}: {msg}"));
    kh.check_numeric().map_err(data_err)?;
    let (n, m, v) = match kh.dims[..] {
        [n, m] => (n, m, 1),
        [n, m, v] => (n, m, v),
        _ => {
            return Err(data_err(format!(
                "variable {:?} is {}; expected kernel matrices n×n×v",
                kh.name,
                kh.describe()
            )));
        }
    };
    if n != m {
        return Err(data_err(format!(
            "variable {:?} is {}: kernel matrices must be square (n×n×v)",
            kh.name,
            dims_text(&kh.dims)
        )));
    }
    if n == 0 || v == 0 {
        return Err(data_err(format!("variable {:?} is empty", kh.name)));
    }
    kernel_files::check_budget(origin, budget, n, v, bytes.len() as u64)?;
    let labels = match gnd {
        Some(g) => {
            g.check_usable().map_err(data_err)?;
            let count = product(&g.dims);
            if g.dims.iter().filter(|&&d| d != 1).count() > 1 {
                return Err(data_err(format!(
                    "label variable {:?} is {}; expected a vector with one label per row",
                    g.name,
                    dims_text(&g.dims)
                )));
            }
            if count != u128::from(n) {
                return Err(data_err(format!(
                    "label variable {:?} has {count} values but the kernels are {n}×{n}",
                    g.name
                )));
            }
            let codes = read_values(bytes, endian, g).map_err(data_err)?;
            Some(labels_from(&codes, &g.name).map_err(data_err)?)
        }
        None => None,
    };
    let (n, v) = (n as usize, v as usize);
    let mut stack = kernel_files::StackBuilder::new(n, v);
    // Allocated at the first value, once the data's length is checked.
    let mut slice = ndarray::Array2::<f64>::zeros((0, 0));
    let nn = n * n;
    stream_values(bytes, endian, kh, |k, x| {
        if k == 0 {
            slice = ndarray::Array2::zeros((n, n));
        }
        let r = k % nn;
        // Column-major: row fastest, then column, then the kernel.
        slice[[r % n, r / n]] = x;
        if r + 1 == nn {
            stack.push(&mut slice)?;
        }
        Ok(())
    })
    .map_err(data_err)?;
    let mut ds = stack.finish(origin);
    ds.labels = labels;
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

// ------------------------------------------------------------ file layout

const MI_INT8: u32 = 1;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;

const CLASS_SPARSE: u8 = 5;
const CLASS_FUNCTION: u8 = 16;

/// Deflate expands at most about 1032 times: a compressed variable that
/// declares more data than that is damaged, whatever the budget.
const MAX_INFLATE_RATIO: u64 = 1032;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endian {
    Little,
    Big,
}

/// Checks the 128-byte header and returns the byte order.
fn check_header(b: &[u8]) -> std::result::Result<Endian, String> {
    // MATLAB writes its text header, then the HDF5 signature at 512.
    if b.starts_with(b"MATLAB 7.3") || b.get(512..516) == Some(b"\x89HDF") {
        return Err("a MATLAB v7.3 file (HDF5), which is not supported; \
             re-save it as v5 with save(FILE, ..., '-v7') in MATLAB or scipy.io.savemat"
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

/// One top-level data element: its type, its data, and where the next one
/// starts (a top-level compressed element is not padded to 8 bytes).
fn element(b: &[u8], off: usize, e: Endian) -> std::result::Result<(u32, &[u8], usize), String> {
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
    let next = if first == MI_MATRIX {
        start + n.div_ceil(8) * 8
    } else {
        start + n
    };
    Ok((first, data, next))
}

/// What the file says about one top-level variable, and where it is.
#[derive(Debug, Clone, PartialEq)]
struct VarInfo {
    name: String,
    class: u8,
    dims: Vec<u64>,
    complex: bool,
    logical: bool,
    /// The element's data in the file: offset, length, compressed or not.
    at: (usize, usize, bool),
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
        let mut name: String = self.name.escape_debug().take(64).collect();
        if self.name.chars().count() > 64 {
            name.push('…');
        }
        format!("{name} ({size}{complex}{sep}{})", self.class_name())
    }

    /// Whether this variable can be a numeric matrix, and if not why.
    fn check_usable(&self) -> std::result::Result<(), String> {
        self.check_numeric()?;
        if self.dims.len() != 2 {
            return Err(format!(
                "variable {:?} has {} dimensions ({}); expected a 2-D matrix",
                self.name,
                self.dims.len(),
                self.describe()
            ));
        }
        Ok(())
    }

    /// Whether this variable is a real numeric array, and if not why.
    fn check_numeric(&self) -> std::result::Result<(), String> {
        let name = &self.name;
        if self.class == CLASS_SPARSE {
            return Err(format!(
                "variable {name:?} is a sparse matrix, which is not supported; \
                 save it as a full matrix ({} = full({}))",
                name.escape_debug(),
                name.escape_debug()
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
        Ok(())
    }
}

/// The text of a read error inside an element.
fn io_msg(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        "truncated data element".to_string()
    } else {
        format!(
            "corrupt or truncated compressed data ({})",
            input::first_line(&e.to_string())
        )
    }
}

/// A sub-element's tag: type, byte count, and the data of a small element.
struct Tag {
    ty: u32,
    n: usize,
    small: Option<[u8; 4]>,
}

fn read_tag<R: Read>(r: &mut R, e: Endian) -> std::result::Result<Tag, String> {
    let mut t = [0u8; 8];
    r.read_exact(&mut t).map_err(|e| io_msg(&e))?;
    let first = u32_at(&t, 0, e).expect("8 bytes");
    if first >> 16 != 0 {
        let n = (first >> 16) as usize;
        if n > 4 {
            return Err("malformed small data element".into());
        }
        return Ok(Tag {
            ty: first & 0xffff,
            n,
            small: Some([t[4], t[5], t[6], t[7]]),
        });
    }
    Ok(Tag {
        ty: first,
        n: u32_at(&t, 4, e).expect("8 bytes") as usize,
        small: None,
    })
}

/// Reads a sub-element of at most `max` bytes whole, with its padding.
fn read_sub<R: Read>(
    r: &mut R,
    e: Endian,
    max: usize,
    what: &str,
) -> std::result::Result<(u32, Vec<u8>), String> {
    let tag = read_tag(r, e)?;
    if let Some(small) = tag.small {
        return Ok((tag.ty, small[..tag.n].to_vec()));
    }
    if tag.n > max {
        return Err(format!("malformed {what} ({} bytes)", tag.n));
    }
    let mut data = vec![0u8; tag.n.div_ceil(8) * 8];
    r.read_exact(&mut data).map_err(|e| io_msg(&e))?;
    data.truncate(tag.n);
    Ok((tag.ty, data))
}

/// Reads the flags, dimensions and name of a matrix from the start of its
/// data (the stream is then at its first data sub-element).
fn read_matrix_header<R: Read>(
    r: &mut R,
    e: Endian,
    at: (usize, usize, bool),
) -> std::result::Result<VarInfo, String> {
    let (ty, flags) = read_sub(r, e, 8, "array flags")?;
    if ty != MI_UINT32 || flags.len() != 8 {
        return Err("malformed array flags".into());
    }
    let f = u32_at(&flags, 0, e).expect("8 bytes");
    let class = (f & 0xff) as u8;
    // Objects (MATLAB strings, tables…) have no dimensions sub-element.
    let dims = if class >= CLASS_FUNCTION {
        Vec::new()
    } else {
        let (ty, raw) = read_sub(r, e, 4 * 256, "array dimensions")?;
        if ty != MI_INT32 {
            return Err("malformed array dimensions".into());
        }
        let mut dims = Vec::with_capacity(raw.len() / 4);
        for k in 0..raw.len() / 4 {
            let d = u32_at(&raw, 4 * k, e).expect("in range") as i32;
            dims.push(u64::try_from(d).map_err(|_| format!("negative array dimension {d}"))?);
        }
        dims
    };
    // MATLAB's names have at most 63 characters.
    let (ty, name) = read_sub(r, e, 4096, "array name")?;
    if ty != MI_INT8 {
        return Err("malformed array name".into());
    }
    Ok(VarInfo {
        name: String::from_utf8_lossy(&name).into_owned(),
        class,
        dims,
        complex: f & 0x0800 != 0,
        logical: f & 0x0200 != 0,
        at,
    })
}

/// How many header bytes of a compressed element are inflated to list it
/// (flags, up to 256 dimensions, a name of up to 4096 bytes, and tags).
const LIST_PREFIX: u64 = 8 * 1024;

/// What listing one variable costs, roughly.
const VAR_BYTES: u64 = 160;

/// Walks the top-level elements and describes every variable, up to
/// `max_vars` of them.
fn scan(b: &[u8], e: Endian, max_vars: u64) -> std::result::Result<Vec<VarInfo>, String> {
    let mut vars: Vec<VarInfo> = Vec::new();
    let mut first_error = None;
    let mut off = 128;
    // One inflater for all compressed elements: a file of many small ones
    // must not cost a fresh one each.
    let mut z = flate2::bufread::ZlibDecoder::new(&b[..0]);
    while off + 8 <= b.len() {
        if vars.len() as u64 >= max_vars {
            return Err(format!(
                "more than {max_vars} variables, beyond what the memory limit allows to list"
            ));
        }
        let (ty, data, next) = element(b, off, e)?;
        let start = data.as_ptr() as usize - b.as_ptr() as usize;
        let parsed = match ty {
            MI_MATRIX => {
                read_matrix_header(&mut &data[..], e, (start, data.len(), false)).map(Some)
            }
            MI_COMPRESSED => {
                z.reset(data);
                let mut z = (&mut z).take(LIST_PREFIX);
                match read_tag(&mut z, e) {
                    Ok(tag) if tag.ty == MI_MATRIX && tag.small.is_none() => {
                        read_matrix_header(&mut z, e, (start, data.len(), true)).map(Some)
                    }
                    Ok(_) => Ok(None),
                    Err(err) => Err(err),
                }
            }
            _ => Ok(None),
        };
        match parsed {
            // MATLAB's unnamed subsystem element is not a variable.
            Ok(Some(info)) if !info.name.is_empty() => vars.push(info),
            Ok(_) => {}
            // One element we cannot make sense of need not hide the others.
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
        off = next;
    }
    match first_error {
        Some(err) if vars.is_empty() => Err(err),
        _ => Ok(vars),
    }
}

/// Bytes per value of a numeric storage type.
fn storage_size(ty: u32) -> Option<usize> {
    match ty {
        1 | 2 => Some(1),
        3 | 4 => Some(2),
        5..=7 => Some(4),
        9 | 12 | 13 => Some(8),
        _ => None,
    }
}

/// One value of storage type `ty` (whose size `c` has).
fn decode(ty: u32, c: &[u8], e: Endian) -> f64 {
    macro_rules! conv {
        ($t:ty) => {{
            let a = c.try_into().expect("value size");
            (match e {
                Endian::Little => <$t>::from_le_bytes(a),
                Endian::Big => <$t>::from_be_bytes(a),
            }) as f64
        }};
    }
    match ty {
        1 => conv!(i8),
        2 => conv!(u8),
        3 => conv!(i16),
        4 => conv!(u16),
        5 => conv!(i32),
        6 => conv!(u32),
        7 => conv!(f32),
        9 => conv!(f64),
        12 => conv!(i64),
        _ => conv!(u64),
    }
}

/// Reads the real part of a numeric matrix (already checked usable, within
/// the budget, and non-empty), in row-major order: the values are placed
/// as they stream in, with no column-major copy.
fn read_values(b: &[u8], e: Endian, info: &VarInfo) -> std::result::Result<Vec<f64>, String> {
    let (rows, cols) = (info.dims[0] as usize, info.dims[1] as usize);
    let count = rows * cols;
    let mut out: Vec<f64> = Vec::new();
    stream_values(b, e, info, |k, v| {
        // Allocated at the first value, once the data's length is checked
        // against the dimensions.
        if out.is_empty() {
            out.try_reserve_exact(count)
                .map_err(|_| format!("out of memory for {count} values"))?;
            out.resize(count, 0.0);
        }
        out[(k % rows) * cols + k / rows] = v;
        Ok(())
    })?;
    Ok(out)
}

/// Inflates the rest of a compressed element (at most the `declared`
/// bytes its tag gives, into a small buffer) to the end of its zlib
/// stream, where the Adler-32 checksum is verified: a damaged stream can
/// inflate to other numbers without any other sign.
fn finish_stream(
    z: &mut flate2::bufread::ZlibDecoder<&[u8]>,
    declared: u64,
) -> std::result::Result<(), String> {
    let left = declared.saturating_sub(z.total_out());
    std::io::copy(&mut (&mut *z).take(left), &mut std::io::sink()).map_err(|e| io_msg(&e))?;
    // Ok(0) only at the stream's end, once the checksum matched; flate2
    // reports a stream cut short or a wrong checksum as an error.
    match z.read(&mut [0u8; 1]) {
        Ok(0) => Ok(()),
        Ok(_) => Err("the compressed element holds more than its tag declares".into()),
        Err(e) => Err(io_msg(&e)),
    }
}

/// Streams the `count` values of the real part, in the file's
/// (column-major) order, to `place(index, value)`.
fn stream_real_part<R: Read>(
    r: &mut R,
    e: Endian,
    info: &VarInfo,
    count: usize,
    compressed_len: Option<u64>,
    mut place: impl FnMut(usize, f64) -> std::result::Result<(), String>,
) -> std::result::Result<(), String> {
    let tag = read_tag(r, e)?;
    let size = storage_size(tag.ty)
        .ok_or_else(|| format!("unsupported numeric storage type {}", tag.ty))?;
    if tag.n % size != 0 || tag.n / size != count {
        let what = if info.dims.len() == 2 {
            "matrix"
        } else {
            "array"
        };
        return Err(format!(
            "{} values for a {} {what}",
            tag.n / size,
            dims_text(&info.dims)
        ));
    }
    if let Some(clen) = compressed_len
        && tag.n as u64 > clen.saturating_mul(MAX_INFLATE_RATIO)
    {
        return Err(format!(
            "its {clen} compressed bytes cannot hold the {} bytes of data its header declares (a damaged file)",
            tag.n
        ));
    }
    if let Some(small) = tag.small {
        for (k, c) in small[..tag.n].chunks_exact(size).enumerate() {
            place(k, decode(tag.ty, c, e))?;
        }
        return Ok(());
    }
    let mut chunk = vec![0u8; 64 * 1024];
    let mut k = 0;
    let mut left = tag.n;
    while left > 0 {
        // Whole values per chunk: 64 KiB is a multiple of every size.
        let m = left.min(chunk.len());
        r.read_exact(&mut chunk[..m]).map_err(|e| io_msg(&e))?;
        for c in chunk[..m].chunks_exact(size) {
            place(k, decode(tag.ty, c, e))?;
            k += 1;
        }
        left -= m;
    }
    Ok(())
}

fn dims_text(dims: &[u64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("×")
}

/// Streams every value of a numeric variable (already checked numeric,
/// real and within the budget) in column-major order to `place`.
fn stream_values(
    b: &[u8],
    e: Endian,
    info: &VarInfo,
    place: impl FnMut(usize, f64) -> std::result::Result<(), String>,
) -> std::result::Result<(), String> {
    let (start, len, compressed) = info.at;
    let data = &b[start..start + len];
    let count = usize::try_from(product(&info.dims)).map_err(|_| "too many values".to_string())?;
    if compressed {
        let mut z = flate2::bufread::ZlibDecoder::new(data);
        let tag = read_tag(&mut z, e)?;
        read_matrix_header(&mut z, e, info.at)?;
        stream_real_part(&mut z, e, info, count, Some(len as u64), place)
            .and_then(|()| finish_stream(&mut z, 8 + tag.n as u64))
    } else {
        let mut r = data;
        read_matrix_header(&mut r, e, info.at)?;
        stream_real_part(&mut r, e, info, count, None, place)
    }
    .map_err(|m| format!("variable {:?}: {m}", info.name))
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
    fn reads_column_major_with_labels() {
        // fea = [1 2 3; 4 5 6], stored column-major; gnd as uint8 storage.
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        let gnd = matrix("gnd", 6, &[2, 1], 2, &[1, 2]);
        for b in [
            file(&[fea.clone(), gnd.clone()]),
            file(&[compressed(&fea), compressed(&gnd)]),
        ] {
            let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
            assert_eq!(ds.x.f64(), ndarray::array![[1., 2., 3.], [4., 5., 6.]]);
            assert_eq!(ds.labels.unwrap().names, ["1", "2"]);
        }
    }

    #[test]
    fn a_damaged_compressed_variable_is_refused_by_its_checksum() {
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        let gnd = matrix("gnd", 6, &[2, 1], 2, &[1, 2]);
        let good = file(&[compressed(&fea), compressed(&gnd)]);
        // A byte of the first value, inside a stored block of `fea`: it
        // still inflates, to another number; only the Adler-32 tells.
        let at = good
            .windows(8)
            .position(|w| w == 1f64.to_le_bytes())
            .unwrap();
        let mut bad = good.clone();
        bad[at + 7] ^= 0x01;
        let e = parse(&bad, "t.mat", &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("variable \"fea\"") && e.contains("corrupt"),
            "{e}"
        );
        // The checksum itself damaged.
        let mut bad = good.clone();
        let end_of_fea = 128 + 8 + zlib_stored(&fea).len();
        bad[end_of_fea - 1] ^= 0x01;
        let e = parse(&bad, "t.mat", &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("corrupt"), "{e}");
        // The labels are checked too.
        let mut bad = good;
        let last = bad.len() - 1;
        bad[last] ^= 0x01;
        let e = parse(&bad, "t.mat", &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("corrupt"), "{e}");
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
    fn int32_matrices_read() {
        let data: Vec<u8> = [1i32, -3, 2, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b = file(&[matrix("X", 12, &[2, 2], 5, &data)]);
        let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!(ds.x.f64(), ndarray::array![[1., 2.], [-3., 4.]]);
    }

    #[test]
    fn transposes_when_labels_match_columns() {
        let fea = matrix("fea", 6, &[2, 3], 9, &f64s(&[1., 4., 2., 5., 3., 6.]));
        let gnd = matrix("gnd", 6, &[1, 3], 9, &f64s(&[1., 1., 2.]));
        let ds = parse(&file(&[fea, gnd]), "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!((ds.n(), ds.p()), (3, 2));
        assert_eq!(ds.x.f64().row(0).to_vec(), [1., 4.]);
        assert_eq!(ds.notes.len(), 1);
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
        let ds = parse(&b, "t.mat", &LoadOptions::default()).unwrap();
        assert_eq!(ds.x.f64(), ndarray::array![[1.], [2.]]);
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
