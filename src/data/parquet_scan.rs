//! What a Parquet file declares, checked before the parquet crate reads it.
//!
//! The parquet crate trusts the sizes a file declares: it reserves a
//! page's declared uncompressed size, a dictionary's declared entry count
//! and a schema node's declared child count before reading them, and it
//! builds the schema tree by recursion. A file of a few hundred bytes can
//! thus ask for gigabytes or overflow the stack. So the footer is walked
//! here first ([`footer`]), with the Thrift reader of thrift.rs, which
//! allocates nothing from a declared size: the schema tree must be
//! consistent and at most [`MAX_SCHEMA_DEPTH`] deep, every column chunk
//! must lie inside the file. Then, for the columns that will be read,
//! every page header ([`Footer::pages`]): each page lies inside its chunk
//! and matches its CRC when it has one, a dictionary holds no more entries
//! than its bytes can, the values of the data pages add up to no more than
//! the chunk's, and what the pages decompress to is known before any is
//! decompressed: declared sizes are confirmed from the snappy preamble and
//! the zstd frame headers, and by a trial decompression into a small
//! buffer for the codecs the parquet crate decompresses without a bound
//! (gzip, LZ4 frames: [`Pages::trial`]); an LZ4 block cannot declare more
//! than 255 times its size. zstd, LZ4 raw, Hadoop LZ4 and snappy output is
//! bounded by the declared size, which is budgeted.
//!
//! The page index is not read (the reader is told so), nor are bloom
//! filters, so their offsets are not checked.

use super::thrift::{BINARY, I32, I64, LIST, Reader, STRUCT, TRUE, expect};

/// How deep the schema may nest (the parquet crate and the Arrow schema
/// conversion recurse once per level).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

type Result<T> = std::result::Result<T, String>;

/// Physical types.
const BOOLEAN: i32 = 0;
const INT32: i32 = 1;
const INT64: i32 = 2;
const INT96: i32 = 3;
const FLOAT: i32 = 4;
const DOUBLE: i32 = 5;
const BYTE_ARRAY: i32 = 6;
const FIXED_LEN_BYTE_ARRAY: i32 = 7;

/// Codecs.
const UNCOMPRESSED: i32 = 0;
const SNAPPY: i32 = 1;
const GZIP: i32 = 2;
const LZ4_HADOOP: i32 = 5;
const ZSTD: i32 = 6;
const LZ4_RAW: i32 = 7;

/// Encodings.
const PLAIN_DICTIONARY: i32 = 2;
const RLE: i32 = 3;
const BIT_PACKED: i32 = 4;
const DELTA_LENGTH_BYTE_ARRAY: i32 = 6;
const DELTA_BYTE_ARRAY: i32 = 7;
const RLE_DICTIONARY: i32 = 8;

/// Page types.
const DATA_PAGE: i32 = 0;
const INDEX_PAGE: i32 = 1;
const DICTIONARY_PAGE: i32 = 2;
const DATA_PAGE_V2: i32 = 3;

fn codec_name(c: i32) -> &'static str {
    match c {
        UNCOMPRESSED => "uncompressed",
        SNAPPY => "snappy",
        GZIP => "gzip",
        3 => "LZO",
        4 => "brotli",
        LZ4_HADOOP => "LZ4",
        ZSTD => "zstd",
        LZ4_RAW => "LZ4 raw",
        _ => "unknown",
    }
}

/// A primitive column of the schema.
#[derive(Debug)]
pub(crate) struct Leaf {
    pub name: String,
    physical: i32,
    type_length: i32,
    /// Whether some node on its path is repeated (a list).
    repeated: bool,
    /// Its maximum definition level: the nodes on its path that are not
    /// required.
    max_def: u32,
}

#[derive(Debug)]
struct Chunk {
    codec: i32,
    num_values: u64,
    /// Where its pages start in the file, and their bytes.
    start: usize,
    len: usize,
}

#[derive(Debug)]
struct RowGroup {
    num_rows: u64,
    /// One per leaf, in schema order.
    chunks: Vec<Chunk>,
}

/// The footer, checked.
#[derive(Debug)]
pub(crate) struct Footer {
    pub leaves: Vec<Leaf>,
    row_groups: Vec<RowGroup>,
    elements: usize,
    footer_len: usize,
    /// The length of the Arrow schema kept in the metadata (base64).
    arrow_schema: usize,
}

impl Footer {
    /// The rows of all row groups.
    pub fn rows(&self) -> u128 {
        self.row_groups.iter().map(|g| u128::from(g.num_rows)).sum()
    }

    /// What the parquet crate holds for this metadata once parsed, with
    /// room to spare: a KiB per schema node (its node, column descriptor
    /// and Arrow field are a few hundred bytes) and per column chunk, the
    /// footer's strings copied, and the Arrow schema it keeps, whose
    /// fields take up to some 150 bytes each where each can take as few
    /// as 10 bytes of base64.
    pub fn metadata_bytes(&self) -> u128 {
        let chunks: usize = self.row_groups.iter().map(|g| g.chunks.len()).sum();
        2 * self.footer_len as u128
            + 16 * self.arrow_schema as u128
            + 1024 * self.elements as u128
            + 1024 * chunks as u128
            + 512 * self.row_groups.len() as u128
    }
}

/// Reads and checks the footer of the Parquet file `file`.
pub(crate) fn footer(file: &[u8]) -> Result<Footer> {
    let n = file.len();
    if n < 12 || !file.starts_with(b"PAR1") {
        return Err("no Parquet magic at the start".into());
    }
    if &file[n - 4..] != b"PAR1" {
        return Err(if &file[n - 4..] == b"PARE" {
            "an encrypted Parquet file, which meanscape does not read".into()
        } else {
            "no Parquet magic at the end".into()
        });
    }
    let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().expect("4 bytes")) as usize;
    if len > n - 12 {
        return Err(format!(
            "the footer declares {len} bytes in a file of {n} bytes"
        ));
    }
    let data_end = n - 8 - len;
    let mut r = Reader::new(&file[data_end..n - 8]);
    let mut schema = None;
    let mut row_groups = None;
    let mut num_rows = None;
    let mut arrow_schema = 0;
    r.fields(|r, ty, id| {
        match id {
            5 => {
                expect(ty, LIST, "the key-value metadata")?;
                let (elem, n) = r.list()?;
                expect(elem, STRUCT, "a key-value pair")?;
                for _ in 0..n {
                    let mut key: &[u8] = &[];
                    r.fields(|r, ty, id| {
                        if id != 1 && id != 2 {
                            return Ok(false);
                        }
                        expect(ty, BINARY, "a key or value")?;
                        let s = r.binary()?;
                        if id == 1 {
                            key = s;
                        } else if key == b"ARROW:schema" {
                            arrow_schema += s.len();
                        }
                        Ok(true)
                    })?;
                }
            }
            2 => {
                expect(ty, LIST, "the schema")?;
                schema = Some(read_schema(r)?);
            }
            3 => {
                expect(ty, I64, "num_rows")?;
                num_rows = Some(non_negative(r.i64()?, "the file's row count")?);
            }
            4 => {
                expect(ty, LIST, "the row groups")?;
                let Some((leaves, _)) = &schema else {
                    return Err("the row groups come before the schema".into());
                };
                row_groups = Some(read_row_groups(r, leaves, data_end)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let (leaves, elements) = schema.ok_or("the footer has no schema")?;
    num_rows.ok_or("the footer has no row count")?;
    Ok(Footer {
        leaves,
        row_groups: row_groups.ok_or("the footer has no row groups")?,
        elements,
        footer_len: len,
        arrow_schema,
    })
}

fn non_negative(v: i64, what: &str) -> Result<u64> {
    u64::try_from(v).map_err(|_| format!("{what} is negative ({v})"))
}

/// The schema: its leaves and its number of nodes. The list is flat, each
/// group node followed by its children; the tree is rebuilt with an
/// explicit stack, checking that every declared child is there and that
/// the tree nests at most [`MAX_SCHEMA_DEPTH`] deep.
fn read_schema(r: &mut Reader) -> Result<(Vec<Leaf>, usize)> {
    let (elem, n) = r.list()?;
    expect(elem, STRUCT, "a schema element")?;
    if n == 0 {
        return Err("the schema is empty".into());
    }
    /// A group whose children are being read.
    struct Open {
        left: u64,
        repeated: bool,
        max_def: u32,
    }
    let mut open: Vec<Open> = Vec::new();
    let mut leaves = Vec::new();
    for i in 0..n {
        let e = read_element(r)?;
        let children = match e.num_children {
            Some(c) if c < 0 => {
                return Err(format!("schema node {:?} declares {c} children", e.name));
            }
            c => c.unwrap_or(0) as u64,
        };
        if i == 0 {
            open.push(Open {
                left: children,
                repeated: false,
                max_def: 0,
            });
        } else {
            let Some(parent) = open.last_mut() else {
                return Err(format!(
                    "schema node {:?} is outside the tree (the root declares fewer columns)",
                    e.name
                ));
            };
            parent.left -= 1;
            let repeated = parent.repeated || e.repetition == Some(2);
            let max_def = parent.max_def + u32::from(e.repetition != Some(0));
            if e.repetition.is_none() {
                return Err(format!("schema node {:?} has no repetition", e.name));
            }
            if children > 0 {
                if open.len() >= MAX_SCHEMA_DEPTH {
                    return Err(format!(
                        "the schema nests more than {MAX_SCHEMA_DEPTH} levels deep"
                    ));
                }
                open.push(Open {
                    left: children,
                    repeated,
                    max_def,
                });
            } else if let Some(physical) = e.physical {
                if !(BOOLEAN..=FIXED_LEN_BYTE_ARRAY).contains(&physical) {
                    return Err(format!(
                        "column {:?} has an unknown physical type {physical}",
                        e.name
                    ));
                }
                leaves.push(Leaf {
                    name: e.name,
                    physical,
                    type_length: e.type_length.unwrap_or(-1),
                    repeated,
                    max_def,
                });
            }
        }
        while open.last().is_some_and(|o| o.left == 0) {
            open.pop();
        }
    }
    if !open.is_empty() {
        return Err(format!(
            "the schema declares more columns than its {n} nodes (num_children)"
        ));
    }
    Ok((leaves, n))
}

struct Element {
    name: String,
    physical: Option<i32>,
    type_length: Option<i32>,
    repetition: Option<i32>,
    num_children: Option<i32>,
}

fn read_element(r: &mut Reader) -> Result<Element> {
    let mut e = Element {
        name: String::new(),
        physical: None,
        type_length: None,
        repetition: None,
        num_children: None,
    };
    r.fields(|r, ty, id| {
        match id {
            1 | 2 | 3 | 5 => {
                expect(ty, I32, "a schema field")?;
                let v = Some(r.i32()?);
                match id {
                    1 => e.physical = v,
                    2 => e.type_length = v,
                    3 => e.repetition = v,
                    _ => e.num_children = v,
                }
            }
            4 => {
                expect(ty, BINARY, "a column name")?;
                e.name = String::from_utf8_lossy(r.binary()?).into_owned();
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(e)
}

fn read_row_groups(r: &mut Reader, leaves: &[Leaf], data_end: usize) -> Result<Vec<RowGroup>> {
    let (elem, n) = r.list()?;
    expect(elem, STRUCT, "a row group")?;
    // Pushed as read (not reserved for n): each takes bytes of the footer.
    let mut groups = Vec::new();
    for g in 0..n {
        let mut chunks = None;
        let mut num_rows = None;
        r.fields(|r, ty, id| {
            match id {
                1 => {
                    expect(ty, LIST, "the column chunks")?;
                    let (elem, count) = r.list()?;
                    expect(elem, STRUCT, "a column chunk")?;
                    if count != leaves.len() {
                        return Err(format!(
                            "row group {} has {count} column chunks for {} columns",
                            g + 1,
                            leaves.len()
                        ));
                    }
                    let mut v = Vec::new();
                    for leaf in leaves {
                        v.push(read_chunk(r, leaf, data_end).map_err(|e| {
                            format!("row group {}, column {:?}: {e}", g + 1, leaf.name)
                        })?);
                    }
                    chunks = Some(v);
                }
                3 => {
                    expect(ty, I64, "a row group's row count")?;
                    num_rows = Some(non_negative(r.i64()?, "a row group's row count")?);
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        let (Some(chunks), Some(num_rows)) = (chunks, num_rows) else {
            return Err(format!(
                "row group {} lacks its columns or row count",
                g + 1
            ));
        };
        groups.push(RowGroup { num_rows, chunks });
    }
    Ok(groups)
}

fn read_chunk(r: &mut Reader, leaf: &Leaf, data_end: usize) -> Result<Chunk> {
    let mut chunk = None;
    r.fields(|r, ty, id| {
        match id {
            3 => {
                expect(ty, STRUCT, "the column metadata")?;
                chunk = Some(read_column_meta(r, leaf, data_end)?);
            }
            8 | 9 => return Err("an encrypted column, which meanscape does not read".into()),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    chunk.ok_or_else(|| "a column chunk without metadata".into())
}

fn read_column_meta(r: &mut Reader, leaf: &Leaf, data_end: usize) -> Result<Chunk> {
    let (mut physical, mut codec, mut num_values) = (None, None, None);
    let (mut compressed, mut data_page, mut dict_page) = (None, None, None);
    r.fields(|r, ty, id| {
        match id {
            1 | 4 => {
                expect(ty, I32, "a column's type or codec")?;
                let v = Some(r.i32()?);
                if id == 1 {
                    physical = v;
                } else {
                    codec = v;
                }
            }
            5 | 7 | 9 | 11 => {
                expect(ty, I64, "a column's size or offset")?;
                let v = r.i64()?;
                let what = match id {
                    5 => "the value count",
                    7 => "the compressed size",
                    _ => "a page offset",
                };
                let v = Some(non_negative(v, what)?);
                match id {
                    5 => num_values = v,
                    7 => compressed = v,
                    9 => data_page = v,
                    _ => dict_page = v,
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let (Some(physical), Some(codec), Some(num_values), Some(compressed), Some(data_page)) =
        (physical, codec, num_values, compressed, data_page)
    else {
        return Err("its metadata lacks a required field".into());
    };
    if physical != leaf.physical {
        return Err(format!(
            "its pages are of physical type {physical} where the schema says {}",
            leaf.physical
        ));
    }
    if !matches!(
        codec,
        UNCOMPRESSED | SNAPPY | GZIP | LZ4_HADOOP | ZSTD | LZ4_RAW
    ) {
        return Err(format!(
            "{} compression (codec {codec}), which meanscape does not read; save the file with \
             snappy, zstd, gzip or LZ4",
            codec_name(codec)
        ));
    }
    // Where the parquet crate starts reading (ColumnChunkMetaData::byte_range).
    let start = dict_page.unwrap_or(data_page);
    let end = start.checked_add(compressed);
    if start < 4 || end.is_none_or(|e| e > data_end as u64) {
        return Err(format!(
            "its {compressed} bytes at offset {start} run outside the file's data"
        ));
    }
    Ok(Chunk {
        codec,
        num_values,
        start: start as usize,
        len: compressed as usize,
    })
}

// ------------------------------------------------------------ pages

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

impl Pages {
    /// Decompresses the pages the parquet crate would decompress without
    /// a bound, into a small buffer, stopping past the declared size: each
    /// must decompress to exactly what it declares.
    pub fn trial(&self, file: &[u8]) -> Result<()> {
        use std::io::Read;
        let mut buf = vec![0u8; 64 << 10];
        for t in &self.trials {
            let part = &file[t.at.clone()];
            let mut dec: Box<dyn Read> = if t.codec == GZIP {
                Box::new(flate2::read::MultiGzDecoder::new(part))
            } else {
                Box::new(lz4_flex::frame::FrameDecoder::new(part))
            };
            let mut got = 0u64;
            loop {
                match dec.read(&mut buf) {
                    Ok(0) => break,
                    Ok(k) => {
                        got += k as u64;
                        if got > t.expect {
                            return Err(format!(
                                "{}: {} data decompresses to more than the {} bytes it declares",
                                t.what,
                                codec_name(t.codec),
                                t.expect
                            ));
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Err(format!(
                            "{}: not {} data ({e})",
                            t.what,
                            codec_name(t.codec)
                        ));
                    }
                }
            }
            if got != t.expect {
                return Err(format!(
                    "{}: {} data of {got} bytes where the page declares {}",
                    t.what,
                    codec_name(t.codec),
                    t.expect
                ));
            }
        }
        for d in &self.deltas {
            let part = &file[d.at.clone()];
            let plain;
            let bytes = if d.codec == UNCOMPRESSED {
                part
            } else {
                plain =
                    decompress(part, d.codec, d.expect).map_err(|e| format!("{}: {e}", d.what))?;
                &plain[..]
            };
            delta_counts(bytes, d).map_err(|e| format!("{}: {e}", d.what))?;
        }
        Ok(())
    }
}

/// A page's bytes decompressed, `expect` of them (what the parquet crate
/// will decompress them to; confirmed already where it can be).
fn decompress(part: &[u8], codec: i32, expect: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let bad = |e: String| format!("not {} data ({e})", codec_name(codec));
    let take = |r: &mut dyn Read| -> Result<Vec<u8>> {
        let mut v = Vec::new();
        r.take(expect as u64)
            .read_to_end(&mut v)
            .map_err(|e| bad(e.to_string()))?;
        Ok(v)
    };
    let v = match codec {
        SNAPPY => snap::raw::Decoder::new()
            .decompress_vec(part)
            .map_err(|e| bad(e.to_string()))?,
        GZIP => take(&mut flate2::read::MultiGzDecoder::new(part))?,
        ZSTD => zstd::bulk::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
        LZ4_HADOOP if is_lz4_frame(part) => take(&mut lz4_flex::frame::FrameDecoder::new(part))?,
        LZ4_HADOOP => match lz4_hadoop(part, expect) {
            Some(v) => v,
            None => lz4_flex::block::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
        },
        _ => lz4_flex::block::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
    };
    if v.len() != expect {
        return Err(format!(
            "{} data of {} bytes where the page declares {expect}",
            codec_name(codec),
            v.len()
        ));
    }
    Ok(v)
}

/// The Hadoop LZ4 framing: blocks each after their sizes (big-endian).
fn lz4_hadoop(mut part: &[u8], expect: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    while !part.is_empty() {
        let be = |k: usize| Some(u32::from_be_bytes(part.get(k..k + 4)?.try_into().ok()?) as usize);
        let (d, c) = (be(0)?, be(4)?);
        let block = part.get(8..8usize.checked_add(c)?)?;
        let start = out.len();
        if d > expect - start {
            return None;
        }
        out.resize(start + d, 0);
        if lz4_flex::block::decompress_into(block, &mut out[start..]).ok()? != d {
            return None;
        }
        part = &part[8 + c..];
    }
    Some(out)
}

fn vlq(b: &[u8], at: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*at).ok_or("a delta header runs past the page")?;
        *at += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("a delta header holds a varint too long".into())
}

/// Checks the value counts of a delta-encoded byte-array page against the
/// page's: the parquet crate allocates a length per value they declare.
fn delta_counts(b: &[u8], d: &Delta) -> Result<()> {
    let mut at = 0usize;
    if let Some((repeated, max_def, def_encoding)) = d.levels {
        let rle = |at: &mut usize| -> Result<()> {
            let len = b
                .get(*at..at.saturating_add(4))
                .map(|l| u32::from_le_bytes(l.try_into().expect("4 bytes")) as usize)
                .ok_or("its levels run past the page")?;
            *at = at.saturating_add(4 + len);
            Ok(())
        };
        if repeated {
            rle(&mut at)?;
        }
        if max_def > 0 {
            match def_encoding {
                RLE => rle(&mut at)?,
                BIT_PACKED => {
                    let bits = u64::from(32 - max_def.leading_zeros());
                    at = at.saturating_add((d.num_values * bits).div_ceil(8) as usize);
                }
                e => return Err(format!("definition levels in encoding {e}")),
            }
        }
    }
    let header = |at: &mut usize| -> Result<(u64, u64, u64)> {
        let block = vlq(b, at)?;
        let minis = vlq(b, at)?;
        let count = vlq(b, at)?;
        vlq(b, at)?;
        let valid = block > 0
            && block % 128 == 0
            && minis > 0
            && block % minis == 0
            && (block / minis) % 32 == 0;
        if !valid {
            return Err(format!("a delta block of {block} values in {minis} parts"));
        }
        if count > d.num_values {
            return Err(format!(
                "its delta encoding declares {count} values where the page has {}",
                d.num_values
            ));
        }
        Ok((block / minis, minis, count))
    };
    let (per_mini, minis, count) = header(&mut at)?;
    if d.prefixed {
        // The prefix lengths' blocks, to reach the suffixes' header.
        let mut left = count.saturating_sub(1);
        while left > 0 {
            vlq(b, &mut at)?;
            let end = at.saturating_add(usize::try_from(minis).unwrap_or(usize::MAX));
            let widths = b.get(at..end).ok_or("a delta block runs past the page")?;
            at = end;
            for &w in widths {
                if left == 0 {
                    break;
                }
                if w > 32 {
                    return Err(format!("a delta bit width of {w}"));
                }
                let bytes = u64::from(w).saturating_mul(per_mini) / 8;
                at = at.saturating_add(usize::try_from(bytes).unwrap_or(usize::MAX));
                left = left.saturating_sub(per_mini);
            }
        }
        header(&mut at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the given footer alone.
    fn file(footer: &[u8]) -> Vec<u8> {
        let mut out = b"PAR1".to_vec();
        out.extend(footer);
        out.extend((footer.len() as u32).to_le_bytes());
        out.extend(b"PAR1");
        out
    }

    /// FileMetaData {2: [root {4: "r", 5: 1}, x {1: INT64, 3: 0, 4: "x"}],
    /// 3: 0, 4: [], 5: [{1: key, 2: value}]}.
    fn footer_with(key: &[u8], value_len: usize) -> Vec<u8> {
        let mut f = vec![0x29, 0x2c, 0x48, 1, b'r', 0x15, 2, 0];
        f.extend([0x15, 4, 0x25, 0, 0x18, 1, b'x', 0]);
        f.extend([0x16, 0, 0x19, 0x0c, 0x19, 0x1c, 0x18, key.len() as u8]);
        f.extend(key);
        f.push(0x18);
        let mut n = value_len;
        while n >= 0x80 {
            f.push(n as u8 | 0x80);
            n >>= 7;
        }
        f.push(n as u8);
        f.extend(vec![b'A'; value_len]);
        f.extend([0, 0]);
        f
    }

    #[test]
    fn the_arrow_schema_in_the_metadata_is_budgeted() {
        let plain = footer(&file(&footer_with(b"ARROW:schemX", 10_000))).unwrap();
        let arrow = footer(&file(&footer_with(b"ARROW:schema", 10_000))).unwrap();
        assert_eq!(plain.leaves.len(), 1);
        assert_eq!(arrow.metadata_bytes() - plain.metadata_bytes(), 160_000);
    }

    #[test]
    fn a_footer_longer_than_the_file_is_refused() {
        let mut f = file(&footer_with(b"k", 1));
        let n = f.len();
        f[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = footer(&f).unwrap_err();
        assert!(e.contains("the footer declares 4294967295 bytes"), "{e}");
    }
}
