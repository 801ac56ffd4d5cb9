//! The page headers of the column chunks to be read (see the parent
//! module): what each page declares, checked against its chunk, its CRC,
//! its type and its codec.

use super::*;

mod decode;

struct PageHeader {
    kind: i32,
    uncompressed: i32,
    compressed: i32,
    crc: Option<i32>,
    /// Data pages: values (with nulls); dictionary pages: entries.
    num_values: Option<i32>,
    encoding: Option<i32>,
    /// Data page v2: the level bytes (stored uncompressed) and whether the
    /// rest is compressed.
    levels: Option<(i32, i32)>,
    v2_compressed: bool,
    num_nulls: Option<i32>,
    /// Data page v1: how its definition levels are encoded.
    def_encoding: Option<i32>,
}

fn read_page_header(r: &mut Reader) -> Result<PageHeader> {
    let mut h = PageHeader {
        kind: -1,
        uncompressed: -1,
        compressed: -1,
        crc: None,
        num_values: None,
        encoding: None,
        levels: None,
        v2_compressed: true,
        num_nulls: None,
        def_encoding: None,
    };
    r.fields(|r, ty, id| {
        match id {
            1..=4 => {
                expect(ty, I32, "a page header field")?;
                let v = r.i32()?;
                match id {
                    1 => h.kind = v,
                    2 => h.uncompressed = v,
                    3 => h.compressed = v,
                    _ => h.crc = Some(v),
                }
            }
            // The data page (v1), dictionary page and data page v2
            // headers: their fields by (header, field) id.
            5 | 7 | 8 => {
                expect(ty, STRUCT, "a page's own header")?;
                let (mut def, mut rep) = (None, None);
                r.fields(|r, ty, sub| {
                    if (id, sub) == (8, 7) {
                        expect(ty, TRUE, "is_compressed")?;
                        h.v2_compressed = ty == TRUE;
                        return Ok(true);
                    }
                    let slot = match (id, sub) {
                        (_, 1) => &mut h.num_values,
                        (5 | 7, 2) | (8, 4) => &mut h.encoding,
                        (5, 3) => &mut h.def_encoding,
                        (8, 2) => &mut h.num_nulls,
                        (8, 5) => &mut def,
                        (8, 6) => &mut rep,
                        _ => return Ok(false),
                    };
                    expect(ty, I32, "a page header field")?;
                    *slot = Some(r.i32()?);
                    Ok(true)
                })?;
                if id == 8 {
                    h.levels = Some((
                        def.ok_or("a v2 page header without its level sizes")?,
                        rep.ok_or("a v2 page header without its level sizes")?,
                    ));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(h)
}

/// A page the parquet crate would decompress without a bound, to be
/// decompressed here first into a small buffer.
struct Trial {
    /// Where its compressed bytes are in the file.
    at: std::ops::Range<usize>,
    codec: i32,
    /// What it must decompress to.
    expect: u64,
    /// For the message.
    what: String,
}

/// The pages of the columns to be read, checked.
pub(crate) struct Pages {
    /// What decoding them holds at most: the decompressed pages and the
    /// dictionaries as values.
    pub decoded: u128,
    trials: Vec<Trial>,
    deltas: Vec<Delta>,
}

/// A data page in a delta encoding for byte arrays, whose value counts
/// (in the page's own data) the parquet crate allocates from: they are
/// read here first, the page decompressed if it must be.
struct Delta {
    /// Where its bytes after the v2 levels are, and their codec
    /// (`UNCOMPRESSED` if stored so).
    at: std::ops::Range<usize>,
    codec: i32,
    /// What they decompress to.
    expect: usize,
    /// v1: the levels before the values (repetition, definition and how
    /// those are encoded); v2: none.
    levels: Option<(bool, u32, i32)>,
    num_values: u64,
    /// DELTA_BYTE_ARRAY: two value counts, not one.
    prefixed: bool,
    what: String,
}

/// Refuses a compressed page that declares more bytes than its `n`
/// values can take in any encoding: at most their plain width each (4
/// bytes, an index, in a dictionary-encoded data page), with levels and
/// delta-block headers below 8 bytes a value, and a few length prefixes.
/// Byte arrays stored as such have no bound.
fn plausible(
    leaf: &Leaf,
    n: u64,
    declared: u64,
    decompressed: bool,
    encoding: Option<i32>,
) -> Result<()> {
    let width = match (encoding, leaf.physical) {
        (Some(PLAIN_DICTIONARY | RLE_DICTIONARY), _) => 4,
        (_, BOOLEAN) => 1,
        (_, INT32 | FLOAT) => 4,
        (_, INT64 | DOUBLE) => 8,
        (_, INT96) => 12,
        (_, FIXED_LEN_BYTE_ARRAY) => u64::try_from(leaf.type_length).unwrap_or(0),
        _ => return Ok(()),
    };
    let most = n.saturating_mul(width + 8).saturating_add(64);
    if decompressed && declared > most {
        return Err(format!(
            "declares {declared} bytes for {n} values of {width} bytes"
        ));
    }
    Ok(())
}

/// The smallest size a dictionary entry takes in a PLAIN page, in bits,
/// and what it takes once decoded, in bytes.
fn entry_sizes(leaf: &Leaf) -> Result<(u64, u64)> {
    Ok(match leaf.physical {
        BOOLEAN => (1, 1),
        INT32 | FLOAT => (32, 4),
        INT64 | DOUBLE => (64, 8),
        INT96 => (96, 12),
        // A length prefix at least; as offsets, a view or a hash entry.
        BYTE_ARRAY => (32, 24),
        _ => {
            let w = u64::try_from(leaf.type_length)
                .ok()
                .filter(|&w| w > 0)
                .ok_or_else(|| format!("a fixed-size column of {} bytes", leaf.type_length))?;
            (8 * w, w + 24)
        }
    })
}

impl Footer {
    /// Walks the page headers of the leaves for which `read(leaf)` holds,
    /// in every row group (see the module's documentation).
    pub fn pages(&self, file: &[u8], read: impl Fn(usize) -> bool) -> Result<Pages> {
        let mut out = Pages {
            decoded: 0,
            trials: Vec::new(),
            deltas: Vec::new(),
        };
        for (g, group) in self.row_groups.iter().enumerate() {
            for (j, (chunk, leaf)) in group.chunks.iter().zip(&self.leaves).enumerate() {
                if !read(j) {
                    continue;
                }
                let label = format!("row group {}, column {:?}", g + 1, leaf.name);
                if !leaf.repeated && chunk.num_values > group.num_rows {
                    return Err(format!(
                        "{label}: {} values in {} rows",
                        chunk.num_values, group.num_rows
                    ));
                }
                chunk_pages(file, chunk, leaf, &label, &mut out)?;
            }
        }
        Ok(out)
    }
}

/// The pages of one column chunk; `label` names it in messages.
fn chunk_pages(
    file: &[u8],
    chunk: &Chunk,
    leaf: &Leaf,
    label: &str,
    out: &mut Pages,
) -> Result<()> {
    let end = chunk.start + chunk.len;
    let mut at = chunk.start;
    let mut values = 0u64;
    let mut dictionary = false;
    let mut index = 0usize;
    while at < end {
        index += 1;
        let mut r = Reader::new(&file[at..end]);
        let page = |e: String| format!("{label}, page {index}: {e}");
        let h = read_page_header(&mut r).map_err(page)?;
        let (Ok(c), Ok(u)) = (usize::try_from(h.compressed), u64::try_from(h.uncompressed)) else {
            return Err(page(format!(
                "declares sizes {} and {}",
                h.compressed, h.uncompressed
            )));
        };
        let data = at + r.pos();
        if c > end - data {
            return Err(page(format!(
                "declares {c} bytes where its column chunk has {} left",
                end - data
            )));
        }
        let payload = &file[data..data + c];
        at = data + c;
        if let Some(crc) = h.crc {
            let mut sum = flate2::Crc::new();
            sum.update(payload);
            if sum.sum() != crc as u32 {
                return Err(page(
                    "its CRC does not match its bytes; the file is damaged".into(),
                ));
            }
        }
        let v2 = h.kind == DATA_PAGE_V2;
        let (offset, compressed) = match h.levels {
            Some((def, rep)) if v2 => {
                let levels = u64::try_from(def)
                    .ok()
                    .zip(u64::try_from(rep).ok())
                    .map(|(d, r)| d + r)
                    .filter(|&l| l <= u && l <= c as u64)
                    .ok_or_else(|| page(format!("declares {def} + {rep} bytes of levels")))?;
                (levels as usize, h.v2_compressed)
            }
            _ => (0, true),
        };
        let decompressed = chunk.codec != UNCOMPRESSED && compressed;
        // What the page holds once decompressed: the parquet crate reserves
        // the declared size, which is confirmed below.
        let real = if decompressed { u } else { c as u64 };
        match h.kind {
            DICTIONARY_PAGE => {
                if dictionary || index > 1 {
                    return Err(page("a dictionary page that is not the first".into()));
                }
                dictionary = true;
                let n = h
                    .num_values
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| page("a dictionary page without a valid entry count".into()))?;
                plausible(leaf, n, u, decompressed, None).map_err(page)?;
                let (bits, held) = entry_sizes(leaf).map_err(page)?;
                if n.saturating_mul(bits).div_ceil(8) > real {
                    return Err(page(format!("a dictionary of {n} entries in {real} bytes")));
                }
                out.decoded += u128::from(n) * u128::from(held);
            }
            DATA_PAGE | DATA_PAGE_V2 => {
                let n = h
                    .num_values
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| page("a data page without a valid value count".into()))?;
                plausible(leaf, n, u, decompressed, h.encoding).map_err(page)?;
                if v2 && h.num_nulls.is_none_or(|z| z < 0 || z as u64 > n) {
                    return Err(page(format!("{:?} nulls among {n} values", h.num_nulls)));
                }
                values += n;
                if values > chunk.num_values {
                    return Err(page(format!(
                        "its pages hold more values than the chunk's {}",
                        chunk.num_values
                    )));
                }
                let encoding = h
                    .encoding
                    .ok_or_else(|| page("a data page without an encoding".into()))?;
                if encoding == DELTA_LENGTH_BYTE_ARRAY || encoding == DELTA_BYTE_ARRAY {
                    out.deltas.push(Delta {
                        at: data + offset..data + c,
                        codec: if decompressed {
                            chunk.codec
                        } else {
                            UNCOMPRESSED
                        },
                        expect: if decompressed {
                            (u - offset as u64) as usize
                        } else {
                            c - offset
                        },
                        levels: (!v2)
                            .then(|| (leaf.repeated, leaf.max_def, h.def_encoding.unwrap_or(-1))),
                        num_values: n,
                        prefixed: encoding == DELTA_BYTE_ARRAY,
                        what: format!("{label}, page {index}"),
                    });
                }
            }
            INDEX_PAGE => continue,
            k => return Err(page(format!("an unknown page type {k}"))),
        }
        if decompressed {
            out.decoded += u128::from(u);
            let part = &payload[offset..];
            let expect = u - offset as u64;
            if expect > 0 {
                check_size(part, chunk.codec, expect).map_err(page)?;
                if chunk.codec == GZIP || (chunk.codec == LZ4_HADOOP && is_lz4_frame(part)) {
                    out.trials.push(Trial {
                        at: data + offset..data + c,
                        codec: chunk.codec,
                        expect,
                        what: format!("{label}, page {index}"),
                    });
                }
            }
        }
    }
    Ok(())
}

fn is_lz4_frame(b: &[u8]) -> bool {
    b.starts_with(&[0x04, 0x22, 0x4d, 0x18])
}

/// Confirms a page's declared size where the format says it cheaply.
fn check_size(part: &[u8], codec: i32, expect: u64) -> Result<()> {
    let actual = match codec {
        SNAPPY => Some(
            snap::raw::decompress_len(part).map_err(|e| format!("not snappy data ({e})"))? as u64,
        ),
        // The first frame's size, when it says: more than the page declares
        // is refused (the parquet crate would stop at the declared size).
        ZSTD => zstd::zstd_safe::get_frame_content_size(part)
            .map_err(|_| "not zstd data".to_string())?
            .filter(|&a| a > expect),
        // An LZ4 block makes at most 255 bytes of each byte it has (a
        // match length grows by 255 per byte); the parquet crate reserves
        // the declared size before it tries.
        LZ4_RAW | LZ4_HADOOP if !is_lz4_frame(part) => {
            let most = 256 * part.len() as u64 + 64;
            if expect > most {
                return Err(format!(
                    "{} bytes of LZ4 data cannot hold the {expect} bytes the page declares",
                    part.len()
                ));
            }
            None
        }
        _ => None,
    };
    match actual {
        Some(a) if a != expect => Err(format!(
            "{} data of {a} bytes where the page declares {expect}",
            codec_name(codec)
        )),
        _ => Ok(()),
    }
}
