//! scipy's sparse `.npz` (`scipy.sparse.save_npz`, compressed or not): a
//! zip of `.npy` members `format`, `shape`, `data` and `indices` +
//! `indptr` (csr, csc) or `row` + `col` (coo). csc and coo are converted
//! to CSR rows; bsr and dia are refused. A `.npz` of dense arrays
//! (`np.savez`) is refused with what to do.
//!
//! Each member's declared size is checked against the budget before it is
//! inflated, and inflating stops at that size (a member that inflates
//! further is damaged, or a zip bomb).

use super::common::{bad, check_budget, from_triples};
use crate::data::Dataset;
use crate::data::input::Budget;
use crate::data::input::{self, read_capped};
use crate::data::npy::{check_header_start, header_problem, shorten};
use crate::error::{Error, Result};
use crate::solver::csr::Csr;
use ndarray_npy::npy::header::Header;
use std::io::{Cursor, Read, Seek};
use std::path::Path;

pub(crate) fn read(path: &Path, origin: &str, budget: &Budget) -> Result<Dataset> {
    let bytes = input::read_all(path, origin, budget)?;
    parse(&bytes, origin, budget)
}

/// One `.npy` member: its element type, shape and raw data.
struct Member {
    descr: String,
    shape: Vec<usize>,
    data: Vec<u8>,
}

/// Reads the zip in `bytes` as a scipy sparse matrix.
pub(crate) fn parse(bytes: &[u8], origin: &str, budget: &Budget) -> Result<Dataset> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        bad(
            origin,
            format!(
                "not a readable .npz (zip) file ({}); expected scipy.sparse.save_npz output",
                shorten(input::first_line(&e.to_string()))
            ),
        )
    })?;
    let held = bytes.len() as u128;
    let mut member = |name: &str| -> Result<Option<Member>> {
        read_member(&mut zip, name, origin, budget, held)
    };
    let need = |m: Option<Member>, name: &str| {
        m.ok_or_else(|| {
            bad(
                origin,
                format!(
                    "no '{name}' member: not a scipy.sparse .npz (a .npz of dense arrays from \
                     np.savez is not read: save the matrix with scipy.sparse.save_npz, or as .npy)"
                ),
            )
        })
    };
    let format = need(member("format")?, "format")?;
    let format = format_name(&format, origin)?;
    let shape = need(member("shape")?, "shape")?;
    let shape = ints(&shape, origin, "shape")?;
    let &[n, p] = shape.as_slice() else {
        return Err(bad(
            origin,
            format!("shape has {} entries, not 2", shape.len()),
        ));
    };
    let (n, p) = (to_usize(n, origin, "shape")?, to_usize(p, origin, "shape")?);
    if n == 0 || p == 0 {
        return Err(bad(origin, format!("an empty {n} × {p} matrix")));
    }
    if p > u32::MAX as usize + 1 {
        return Err(bad(origin, format!("{p} columns; at most 2^32 are read")));
    }
    let data = need(member("data")?, "data")?;
    let nnz = data.count();
    check_budget(
        origin,
        budget,
        (n as u64, p as u64, nnz as u64),
        // The raw data member, and the raw and i64 copies of the indices
        // while they are turned into CSR's u32.
        held + data.data.len() as u128 + nnz as u128 * 16,
    )?;
    let values = values(&data, origin)?;
    drop(data);
    let csr = match format.as_str() {
        "csr" | "csc" => {
            let indptr = need(member("indptr")?, "indptr")?;
            let indptr = ints(&indptr, origin, "indptr")?;
            let indices = need(member("indices")?, "indices")?;
            let indices = ints(&indices, origin, "indices")?;
            let (major, minor) = if format == "csr" { (n, p) } else { (p, n) };
            check_compressed(&indptr, &indices, values.len(), major, minor, origin)?;
            if format == "csr" {
                let indptr = indptr.iter().map(|&v| v as usize).collect();
                let indices = indices.iter().map(|&v| v as u32).collect();
                Csr::new((n, p), indptr, indices, values)
            } else {
                let (indptr, indices, values) = (&indptr, &indices, &values);
                let triples = || {
                    (0..p).flat_map(move |j| {
                        (indptr[j] as usize..indptr[j + 1] as usize)
                            .map(move |t| (indices[t] as usize, j as u32, values[t]))
                    })
                };
                from_triples((n, p), values.len(), triples)
            }
        }
        "coo" => {
            let row = need(member("row")?, "row")?;
            let row = ints(&row, origin, "row")?;
            let col = need(member("col")?, "col")?;
            let col = ints(&col, origin, "col")?;
            if row.len() != values.len() || col.len() != values.len() {
                return Err(bad(
                    origin,
                    format!(
                        "row, col and data have {}, {} and {} entries; they must be equal",
                        row.len(),
                        col.len(),
                        values.len()
                    ),
                ));
            }
            in_range(&row, n, "row", origin)?;
            in_range(&col, p, "col", origin)?;
            let triples = || (0..values.len()).map(|t| (row[t] as usize, col[t] as u32, values[t]));
            from_triples((n, p), values.len(), triples)
        }
        f => {
            return Err(bad(
                origin,
                format!(
                    "scipy.sparse format '{}' is not read; save it as csr (X.tocsr())",
                    esc(f)
                ),
            ));
        }
    }
    .map_err(|e| bad(origin, e.to_string()))?;
    let mut ds = Dataset::from_csr(origin, origin, csr);
    if format != "csr" {
        ds.notes.push(format!(
            "scipy.sparse {format} matrix converted to CSR rows"
        ));
    }
    Ok(ds)
}

impl Member {
    fn count(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The member `name` (or `name.npy`), read within its declared size and
/// the budget; `None` when the archive has no such member.
fn read_member<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
    origin: &str,
    budget: &Budget,
    held: u128,
) -> Result<Option<Member>> {
    let file_name = format!("{name}.npy");
    let index = zip
        .index_for_name(&file_name)
        .or_else(|| zip.index_for_name(name));
    let Some(index) = index else {
        return Ok(None);
    };
    let at = format!("{origin}: member {file_name}");
    let mut file = zip.by_index(index).map_err(|e| {
        Error::Data(format!(
            "{at}: cannot be read ({})",
            shorten(input::first_line(&e.to_string()))
        ))
    })?;
    let size = file.size();
    budget.check(
        &at,
        held + u128::from(size),
        &format!("it inflates to {}", input::fmt_need(u128::from(size))),
    )?;
    let bytes = match read_capped(&mut file, size, size) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Err(Error::Data(format!(
                "{at}: inflates to more than the {size} bytes the archive declares (damaged)"
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => {
            return Err(Error::Resource(format!("{at}: out of memory")));
        }
        Err(e) => {
            return Err(Error::Data(format!(
                "{at}: cannot be read ({})",
                shorten(input::first_line(&e.to_string()))
            )));
        }
    };
    let mut cur = Cursor::new(&bytes[..]);
    check_header_start(&mut cur, bytes.len() as u64, &at)?;
    let header = Header::from_reader(&mut cur).map_err(|e| {
        Error::Data(format!(
            "{at}: not a readable .npy member ({})",
            header_problem(&e)
        ))
    })?;
    let start = cur.position() as usize;
    let descr = match &header.type_descriptor {
        py_literal::Value::String(s) => s.clone(),
        v => {
            return Err(Error::Data(format!(
                "{at}: unsupported dtype {}",
                esc(&v.to_string())
            )));
        }
    };
    if header.shape.len() > 1 {
        return Err(Error::Data(format!(
            "{at}: a {}-D array; the members of a sparse .npz are 1-D",
            header.shape.len()
        )));
    }
    let width = element_size(&descr)
        .ok_or_else(|| Error::Data(format!("{at}: unsupported dtype {}", esc(&descr))))?;
    let count = header.shape.iter().product::<usize>() as u128;
    let have = (bytes.len() - start) as u128;
    if count.saturating_mul(width as u128) != have {
        return Err(Error::Data(format!(
            "{at}: the header declares {count} values of {} ({} bytes), but {have} bytes follow \
             it (truncated or damaged)",
            esc(&descr),
            count.saturating_mul(width as u128)
        )));
    }
    let mut data = bytes;
    data.drain(..start);
    Ok(Some(Member {
        descr,
        shape: header.shape,
        data,
    }))
}

/// Bytes per element of the dtypes a sparse member may have (numbers, and
/// the fixed-width strings of `format`).
fn element_size(descr: &str) -> Option<usize> {
    let kind = descr.trim_start_matches(['<', '>', '|', '=']);
    let (k, w) = kind.split_at(kind.len().min(1));
    let w: usize = w.parse().ok()?;
    match k {
        "f" if matches!(w, 4 | 8) => Some(w),
        "i" | "u" if matches!(w, 1 | 2 | 4 | 8) => Some(w),
        "b" if w == 1 => Some(1),
        "S" => Some(w),
        "U" => w.checked_mul(4),
        _ => None,
    }
}

/// Text from the file, shortened and with control characters escaped, so
/// that a message stays on one line.
fn esc(text: &str) -> String {
    shorten(text).escape_debug().to_string()
}

fn big_endian(descr: &str) -> bool {
    descr.starts_with('>')
}

/// The `format` member: a 0-d string array (`'csr'`; bytes in files from
/// older scipy).
fn format_name(m: &Member, origin: &str) -> Result<String> {
    let kind = m.descr.trim_start_matches(['<', '>', '|', '=']);
    let text = if kind.starts_with('U') {
        let big = big_endian(&m.descr);
        m.data
            .chunks_exact(4)
            .map(|c| {
                let c: [u8; 4] = c.try_into().expect("4 bytes");
                let v = if big {
                    u32::from_be_bytes(c)
                } else {
                    u32::from_le_bytes(c)
                };
                char::from_u32(v).unwrap_or('?')
            })
            .collect::<String>()
    } else if kind.starts_with('S') {
        String::from_utf8_lossy(&m.data).into_owned()
    } else {
        return Err(bad(
            origin,
            format!("member format.npy holds {}, not a string", esc(&m.descr)),
        ));
    };
    Ok(text.trim_end_matches('\0').to_ascii_lowercase())
}

/// The elements of an integer member, as i64 (u64 above i64::MAX refused).
fn ints(m: &Member, origin: &str, name: &str) -> Result<Vec<i64>> {
    let kind = m.descr.trim_start_matches(['<', '>', '|', '=']);
    let big = big_endian(&m.descr);
    let w = match kind {
        "i1" | "u1" => 1,
        "i2" | "u2" => 2,
        "i4" | "u4" => 4,
        "i8" | "u8" => 8,
        _ => {
            return Err(bad(
                origin,
                format!(
                    "member {name}.npy holds {}; expected integers",
                    esc(&m.descr)
                ),
            ));
        }
    };
    let signed = kind.starts_with('i');
    let mut out = Vec::new();
    out.try_reserve_exact(m.data.len() / w)
        .map_err(|_| Error::Resource(format!("{origin}: out of memory")))?;
    for c in m.data.chunks_exact(w) {
        let mut b = [0u8; 8];
        if big {
            b[8 - w..].copy_from_slice(c);
            b.reverse();
        } else {
            b[..w].copy_from_slice(c);
        }
        let raw = u64::from_le_bytes(b);
        let v = if signed {
            // Sign-extend from w bytes.
            let shift = 64 - 8 * w as u32;
            ((raw << shift) as i64) >> shift
        } else {
            i64::try_from(raw).map_err(|_| {
                bad(
                    origin,
                    format!("member {name}.npy: value {raw} out of range"),
                )
            })?
        };
        out.push(v);
    }
    Ok(out)
}

/// The values of the `data` member, as f64 (finite; checked by [`Csr`]).
fn values(m: &Member, origin: &str) -> Result<Vec<f64>> {
    let kind = m.descr.trim_start_matches(['<', '>', '|', '=']);
    match kind {
        "f8" | "f4" => {
            let big = big_endian(&m.descr);
            let w = if kind == "f8" { 8 } else { 4 };
            let mut out = Vec::new();
            out.try_reserve_exact(m.data.len() / w)
                .map_err(|_| Error::Resource(format!("{origin}: out of memory")))?;
            out.extend(m.data.chunks_exact(w).map(|c| match (w, big) {
                (8, false) => f64::from_le_bytes(c.try_into().expect("8")),
                (8, true) => f64::from_be_bytes(c.try_into().expect("8")),
                (_, false) => f64::from(f32::from_le_bytes(c.try_into().expect("4"))),
                (_, true) => f64::from(f32::from_be_bytes(c.try_into().expect("4"))),
            }));
            Ok(out)
        }
        "b1" => Ok(m
            .data
            .iter()
            .map(|&b| f64::from(u8::from(b != 0)))
            .collect()),
        _ if kind.starts_with(['i', 'u']) => Ok(ints(m, origin, "data")?
            .into_iter()
            .map(|v| v as f64)
            .collect()),
        _ => Err(bad(
            origin,
            format!(
                "member data.npy holds {}; expected floats, integers or booleans",
                esc(&m.descr)
            ),
        )),
    }
}

fn to_usize(v: i64, origin: &str, name: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| bad(origin, format!("{name} has a negative entry {v}")))
}

/// Every entry of `v` in 0..`most`.
fn in_range(v: &[i64], most: usize, name: &str, origin: &str) -> Result<()> {
    match v.iter().find(|&&i| i < 0 || i as u64 >= most as u64) {
        Some(i) => Err(bad(
            origin,
            format!("{name} index {i} is out of range 0..{most}"),
        )),
        None => Ok(()),
    }
}

/// Checks a compressed (csr or csc) layout before it is used to index:
/// `indptr` of `major + 1` non-decreasing entries from 0 to `nnz`, and
/// every index below `minor`.
fn check_compressed(
    indptr: &[i64],
    indices: &[i64],
    nnz: usize,
    major: usize,
    minor: usize,
    origin: &str,
) -> Result<()> {
    if indptr.len() != major + 1 {
        return Err(bad(
            origin,
            format!(
                "indptr has {} entries; the shape needs {}",
                indptr.len(),
                major + 1
            ),
        ));
    }
    if indptr[0] != 0 {
        return Err(bad(
            origin,
            format!("indptr starts at {}, not 0", indptr[0]),
        ));
    }
    if let Some(i) = indptr.windows(2).position(|w| w[1] < w[0]) {
        return Err(bad(origin, format!("indptr decreases at entry {}", i + 1)));
    }
    if indices.len() != nnz || indptr[major] != nnz as i64 {
        return Err(bad(
            origin,
            format!(
                "indptr ends at {} but there are {} indices and {nnz} values",
                indptr[major],
                indices.len()
            ),
        ));
    }
    in_range(indices, minor, "indices", origin)
}
