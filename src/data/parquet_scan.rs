//! What a Parquet file declares, checked before the parquet crate reads it.
//!
//! The parquet crate trusts the sizes a file declares: it reserves a
//! page's declared uncompressed size, a dictionary's declared entry count,
//! a delta page's declared value count and a schema node's declared child
//! count before reading them, and it builds the schema tree by recursion.
//! A file of a few hundred bytes can thus ask for gigabytes or overflow
//! the stack. So the footer is walked here first ([`footer`]), with the
//! Thrift reader of thrift.rs, which allocates nothing from a declared
//! size: the schema tree must be consistent and at most
//! [`MAX_SCHEMA_DEPTH`] deep, every column chunk must lie inside the file.
//! Then, for the columns that will be read, every page header
//! (`Footer::pages`, pages.rs): each page lies inside its chunk and
//! matches its CRC when it has one, a dictionary holds no more entries
//! than its bytes can, the values of the data pages add up to no more than
//! the chunk's, a compressed page declares no more bytes than its values
//! can take (for fixed-width types and dictionary indices), and what the
//! pages decompress to is known before any is decompressed: from the
//! snappy preamble and the zstd frame headers, an LZ4 block cannot declare
//! more than 255 times its size, and the codecs the parquet crate
//! decompresses without a bound (gzip, LZ4 frames) are tried into a small
//! buffer first (`Pages::trial`, pages/decode.rs). zstd, LZ4 and snappy
//! output is bounded by the declared size, which is budgeted.
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

mod pages;

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
