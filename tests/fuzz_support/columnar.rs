//! Parquet and Arrow IPC inputs, for the fuzzer and tests/parquet_hardening.rs:
//! small valid files written with the arrow-rs writers (the seed corpus), a
//! Thrift compact-protocol value tree to change the fields of a Parquet
//! footer or page header (with lengths that may lie), a Parquet file taken
//! apart into its pages and built again with consistent offsets, and the
//! places in an Arrow IPC file where it keeps sizes and offsets.

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::types::Int8Type;
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use std::sync::Arc;

// ------------------------------------------------------------ thrift

/// A Thrift compact-protocol value. A list or binary may carry a length to
/// write in place of its true one.
#[derive(Debug, Clone, PartialEq)]
pub enum T {
    Bool(bool),
    Byte(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Double(f64),
    Bin(Vec<u8>, Option<u64>),
    /// Element type, elements, declared count.
    List(u8, Vec<T>, Option<u64>),
    /// Key and value types, entries.
    Map(u8, u8, Vec<(T, T)>),
    Struct(Vec<(i16, T)>),
}

pub const STRUCT: u8 = 12;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl T {
    fn code(&self) -> u8 {
        match self {
            T::Bool(true) => 1,
            T::Bool(false) => 2,
            T::Byte(_) => 3,
            T::I16(_) => 4,
            T::I32(_) => 5,
            T::I64(_) => 6,
            T::Double(_) => 7,
            T::Bin(..) => 8,
            T::List(..) => 9,
            T::Map(..) => 11,
            T::Struct(_) => 12,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out, false);
        out
    }

    fn write(&self, out: &mut Vec<u8>, in_list: bool) {
        match self {
            T::Bool(b) => {
                if in_list {
                    out.push(if *b { 1 } else { 2 });
                }
            }
            T::Byte(v) => out.push(*v as u8),
            T::I16(v) => varint(out, zigzag(i64::from(*v))),
            T::I32(v) => varint(out, zigzag(i64::from(*v))),
            T::I64(v) => varint(out, zigzag(*v)),
            T::Double(v) => out.extend(v.to_le_bytes()),
            T::Bin(b, n) => {
                varint(out, n.unwrap_or(b.len() as u64));
                out.extend(b);
            }
            T::List(e, items, n) => {
                let n = n.unwrap_or(items.len() as u64);
                if n < 15 {
                    out.push((n as u8) << 4 | e);
                } else {
                    out.push(0xf0 | e);
                    varint(out, n);
                }
                for i in items {
                    i.write(out, true);
                }
            }
            T::Map(k, v, items) => {
                varint(out, items.len() as u64);
                if !items.is_empty() {
                    out.push(k << 4 | v);
                }
                for (a, b) in items {
                    a.write(out, true);
                    b.write(out, true);
                }
            }
            T::Struct(fields) => {
                let mut last = 0i16;
                for (id, v) in fields {
                    let d = i32::from(*id) - i32::from(last);
                    if (1..=15).contains(&d) {
                        out.push((d as u8) << 4 | v.code());
                    } else {
                        out.push(v.code());
                        varint(out, zigzag(i64::from(*id)));
                    }
                    v.write(out, false);
                    last = *id;
                }
                out.push(0);
            }
        }
    }

    /// Decodes a struct at the start of `b`; returns it and the bytes used.
    pub fn decode_struct(b: &[u8]) -> Option<(T, usize)> {
        let mut at = 0;
        let v = read(b, &mut at, STRUCT, false, 0)?;
        Some((v, at))
    }

    pub fn get(&self, id: i16) -> Option<&T> {
        match self {
            T::Struct(f) => f.iter().find(|(i, _)| *i == id).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, id: i16) -> Option<&mut T> {
        match self {
            T::Struct(f) => f.iter_mut().find(|(i, _)| *i == id).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets field `id` (added in order when missing).
    pub fn set(&mut self, id: i16, v: T) {
        if let T::Struct(f) = self {
            match f.iter_mut().find(|(i, _)| *i == id) {
                Some(slot) => slot.1 = v,
                None => {
                    f.push((id, v));
                    f.sort_by_key(|(i, _)| *i);
                }
            }
        }
    }

    pub fn remove(&mut self, id: i16) {
        if let T::Struct(f) = self {
            f.retain(|(i, _)| *i != id);
        }
    }

    pub fn int(&self) -> Option<i64> {
        match self {
            T::Byte(v) => Some(i64::from(*v)),
            T::I16(v) => Some(i64::from(*v)),
            T::I32(v) => Some(i64::from(*v)),
            T::I64(v) => Some(*v),
            _ => None,
        }
    }

    pub fn items_mut(&mut self) -> Option<&mut Vec<T>> {
        match self {
            T::List(_, items, _) => Some(items),
            _ => None,
        }
    }

    /// Every integer, list and binary in the tree, as paths of child
    /// positions (for a mutator to pick one).
    pub fn paths(&self, out: &mut Vec<Vec<usize>>, path: &mut Vec<usize>) {
        match self {
            T::Struct(f) => {
                for (k, (_, v)) in f.iter().enumerate() {
                    path.push(k);
                    out.push(path.clone());
                    v.paths(out, path);
                    path.pop();
                }
            }
            T::List(_, items, _) => {
                for (k, v) in items.iter().enumerate().take(64) {
                    path.push(k);
                    out.push(path.clone());
                    v.paths(out, path);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    pub fn at_mut(&mut self, path: &[usize]) -> Option<&mut T> {
        let Some((&k, rest)) = path.split_first() else {
            return Some(self);
        };
        match self {
            T::Struct(f) => f.get_mut(k)?.1.at_mut(rest),
            T::List(_, items, _) => items.get_mut(k)?.at_mut(rest),
            _ => None,
        }
    }
}

fn read(b: &[u8], at: &mut usize, ty: u8, in_list: bool, depth: usize) -> Option<T> {
    if depth > 64 {
        return None;
    }
    let byte = |at: &mut usize| -> Option<u8> {
        let v = *b.get(*at)?;
        *at += 1;
        Some(v)
    };
    let var = |at: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let x = byte(at)?;
            v |= u64::from(x & 0x7f) << shift;
            if x & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let zz = |v: u64| (v >> 1) as i64 ^ -((v & 1) as i64);
    Some(match ty {
        1 | 2 if !in_list => T::Bool(ty == 1),
        1 | 2 => T::Bool(byte(at)? == 1),
        3 => T::Byte(byte(at)? as i8),
        4 => T::I16(zz(var(at)?) as i16),
        5 => T::I32(zz(var(at)?) as i32),
        6 => T::I64(zz(var(at)?)),
        7 => {
            let v = f64::from_le_bytes(b.get(*at..*at + 8)?.try_into().ok()?);
            *at += 8;
            T::Double(v)
        }
        8 => {
            let n = usize::try_from(var(at)?).ok()?;
            let v = b.get(*at..at.checked_add(n)?)?.to_vec();
            *at += n;
            T::Bin(v, None)
        }
        9 | 10 => {
            let h = byte(at)?;
            let n = match h >> 4 {
                15 => var(at)?,
                n => u64::from(n),
            };
            if n > (b.len() - *at) as u64 {
                return None;
            }
            let items = (0..n)
                .map(|_| read(b, at, h & 0x0f, true, depth + 1))
                .collect::<Option<Vec<_>>>()?;
            T::List(h & 0x0f, items, None)
        }
        11 => {
            let n = var(at)?;
            if n > (b.len() - *at) as u64 {
                return None;
            }
            let kv = if n > 0 { byte(at)? } else { 0 };
            let mut items = Vec::new();
            for _ in 0..n {
                let k = read(b, at, kv >> 4, true, depth + 1)?;
                let v = read(b, at, kv & 0x0f, true, depth + 1)?;
                items.push((k, v));
            }
            T::Map(kv >> 4, kv & 0x0f, items)
        }
        12 => {
            let mut fields = Vec::new();
            let mut last = 0i16;
            loop {
                let h = byte(at)?;
                if h == 0 {
                    break;
                }
                let id = match h >> 4 {
                    0 => zz(var(at)?) as i16,
                    d => last.checked_add(i16::from(d))?,
                };
                last = id;
                fields.push((id, read(b, at, h & 0x0f, false, depth + 1)?));
            }
            T::Struct(fields)
        }
        _ => return None,
    })
}

// ------------------------------------------------------------ parquet

/// One page: its header and its bytes as stored.
#[derive(Debug, Clone)]
pub struct Page {
    pub header: T,
    pub data: Vec<u8>,
}

/// A Parquet file taken apart: the footer and, per row group and column,
/// the pages of the chunk.
#[derive(Debug, Clone)]
pub struct Parquet {
    pub footer: T,
    pub chunks: Vec<Vec<Vec<Page>>>,
}

impl Parquet {
    pub fn parse(file: &[u8]) -> Option<Parquet> {
        let n = file.len();
        if n < 12 || !file.starts_with(b"PAR1") || !file.ends_with(b"PAR1") {
            return None;
        }
        let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().ok()?) as usize;
        let (footer, _) = T::decode_struct(file.get(n.checked_sub(8 + len)?..n - 8)?)?;
        let mut chunks = Vec::new();
        let T::List(_, groups, _) = footer.get(4)? else {
            return None;
        };
        for g in groups {
            let T::List(_, cols, _) = g.get(1)? else {
                return None;
            };
            let mut pages_of = Vec::new();
            for c in cols {
                let meta = c.get(3)?;
                let start = meta.get(11).or(meta.get(9))?.int()? as usize;
                let end = start.checked_add(meta.get(7)?.int()? as usize)?;
                let mut at = start;
                let mut pages = Vec::new();
                while at < end {
                    let (header, used) = T::decode_struct(file.get(at..end)?)?;
                    let size = header.get(3)?.int()? as usize;
                    let data = file.get(at + used..at + used + size)?.to_vec();
                    at += used + size;
                    pages.push(Page { header, data });
                }
                pages_of.push(pages);
            }
            chunks.push(pages_of);
        }
        Some(Parquet { footer, chunks })
    }

    /// The file again: the pages in order, each column chunk's offsets
    /// and sizes set to where they are now (the page index dropped).
    pub fn build(&self) -> Vec<u8> {
        let mut out = b"PAR1".to_vec();
        let mut footer = self.footer.clone();
        if let Some(T::List(_, groups, _)) = footer.get_mut(4) {
            for (g, group) in groups.iter_mut().enumerate() {
                group.remove(5);
                group.remove(6);
                let Some(T::List(_, cols, _)) = group.get_mut(1) else {
                    continue;
                };
                for (c, col) in cols.iter_mut().enumerate() {
                    let pages = self.chunks.get(g).and_then(|p| p.get(c));
                    let start = out.len() as i64;
                    let (mut dict_at, mut data_at) = (None, None);
                    let mut uncompressed = 0i64;
                    for p in pages.into_iter().flatten() {
                        let at = out.len() as i64;
                        let dict = p.header.get(1).and_then(T::int) == Some(2);
                        if dict && dict_at.is_none() && data_at.is_none() {
                            dict_at = Some(at);
                        } else if data_at.is_none() {
                            data_at = Some(at);
                        }
                        let h = p.header.encode();
                        uncompressed +=
                            h.len() as i64 + p.header.get(2).and_then(T::int).unwrap_or(0);
                        out.extend(h);
                        out.extend(&p.data);
                    }
                    for id in 4..=7 {
                        col.remove(id);
                    }
                    col.set(2, T::I64(start));
                    if let Some(meta) = col.get_mut(3) {
                        meta.set(9, T::I64(data_at.unwrap_or(start)));
                        match dict_at {
                            Some(d) => meta.set(11, T::I64(d)),
                            None => meta.remove(11),
                        }
                        meta.set(7, T::I64(out.len() as i64 - start));
                        meta.set(6, T::I64(uncompressed));
                    }
                }
            }
        }
        let f = footer.encode();
        out.extend(&f);
        out.extend((f.len() as u32).to_le_bytes());
        out.extend(b"PAR1");
        out
    }

    pub fn pages_mut(&mut self) -> impl Iterator<Item = &mut Page> {
        self.chunks.iter_mut().flatten().flatten()
    }

    /// Gives every page the CRC of its bytes.
    pub fn with_crc(mut self) -> Self {
        for p in self.pages_mut() {
            let mut c = flate2::Crc::new();
            c.update(&p.data);
            p.header.set(4, T::I32(c.sum() as i32));
        }
        self
    }
}

/// The first page of type `kind` (0 data, 2 dictionary, 3 data v2).
pub fn page_of(pq: &mut Parquet, kind: i64) -> Option<&mut Page> {
    pq.pages_mut()
        .find(|p| p.header.get(1).and_then(T::int) == Some(kind))
}

// ------------------------------------------------------------ writers

pub fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(cols.into_iter().map(|(n, a)| (n.to_string(), a))).unwrap()
}

pub fn parquet_bytes(batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out
}

pub fn props(c: Compression) -> parquet::file::properties::WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_compression(c)
        .set_max_row_group_row_count(Some(64))
}

pub fn ipc_file_bytes(
    batches: &[RecordBatch],
    compression: Option<arrow_ipc::CompressionType>,
) -> Vec<u8> {
    use arrow_ipc::writer::{FileWriter, IpcWriteOptions};
    let opts = IpcWriteOptions::default()
        .try_with_compression(compression)
        .unwrap();
    let mut out = Vec::new();
    let mut w = FileWriter::try_new_with_options(&mut out, &batches[0].schema(), opts).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    out
}

pub fn ipc_stream_bytes(batches: &[RecordBatch]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, &batches[0].schema()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    out
}

/// A small table: three float columns, an integer one with a null, and a
/// text label; `rows` rows in batches of 50.
pub fn table(rows: usize) -> Vec<RecordBatch> {
    (0..rows)
        .step_by(50)
        .map(|s| {
            let r = s..(s + 50).min(rows);
            let f = |k: f64| -> ArrayRef {
                Arc::new(Float64Array::from(
                    r.clone().map(|i| (i as f64 * k).sin()).collect::<Vec<_>>(),
                ))
            };
            let ints: Vec<Option<i64>> = r
                .clone()
                .map(|i| (i % 7 != 3).then_some((i % 5) as i64))
                .collect();
            let labels: Vec<&str> = r.clone().map(|i| ["a", "b", "c"][i % 3]).collect();
            batch(vec![
                ("x", f(1.0)),
                ("y", f(0.5)),
                ("z", f(0.25)),
                ("n", Arc::new(Int64Array::from(ints))),
                ("label", Arc::new(StringArray::from(labels))),
            ])
        })
        .collect()
}

/// Other column types: f32, i32, a boolean label, a categorical.
pub fn typed_table() -> Vec<RecordBatch> {
    let mut cat = StringDictionaryBuilder::<Int8Type>::new();
    for i in 0..20 {
        cat.append_value(["u", "v"][i % 2]);
    }
    vec![batch(vec![
        (
            "a",
            Arc::new(Float32Array::from(
                (0..20).map(|i| i as f32 / 3.0).collect::<Vec<_>>(),
            )),
        ),
        (
            "b",
            Arc::new(Int32Array::from((0..20).collect::<Vec<i32>>())),
        ),
        (
            "target",
            Arc::new(BooleanArray::from(
                (0..20).map(|i| i % 3 == 0).collect::<Vec<_>>(),
            )),
        ),
        ("c", Arc::new(cat.finish())),
    ])]
}

/// The seed corpus of Parquet: each codec, both page versions, plain and
/// delta encodings, with and without CRCs.
pub fn parquet_seeds() -> Vec<Vec<u8>> {
    let t = table(120);
    let mut out = Vec::new();
    for c in [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::GZIP(GzipLevel::default()),
        Compression::LZ4,
        Compression::LZ4_RAW,
        Compression::ZSTD(ZstdLevel::default()),
    ] {
        out.push(parquet_bytes(&t, props(c).build()));
    }
    out.push(parquet_bytes(
        &t,
        props(Compression::SNAPPY)
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .build(),
    ));
    out.push(parquet_bytes(
        &t,
        props(Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("label"), Encoding::DELTA_BYTE_ARRAY)
            .set_column_encoding(ColumnPath::from("n"), Encoding::DELTA_BINARY_PACKED)
            .build(),
    ));
    out.push(parquet_bytes(
        &t,
        props(Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("label"), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            .build(),
    ));
    out.push(parquet_bytes(
        &t,
        props(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("label"), Encoding::DELTA_BYTE_ARRAY)
            .build(),
    ));
    out.push(parquet_bytes(
        &typed_table(),
        props(Compression::UNCOMPRESSED).build(),
    ));
    // With CRCs, rebuilt without the page index.
    for k in [0, 5] {
        let pq = Parquet::parse(&out[k]).unwrap().with_crc();
        out.push(pq.build());
    }
    out
}

/// The seed corpus of Arrow IPC: the file format uncompressed, lz4 and
/// zstd, and the stream format.
pub fn ipc_seeds() -> Vec<Vec<u8>> {
    use arrow_ipc::CompressionType;
    let t = table(120);
    vec![
        ipc_file_bytes(&t, None),
        ipc_file_bytes(&t, Some(CompressionType::LZ4_FRAME)),
        ipc_file_bytes(&t, Some(CompressionType::ZSTD)),
        ipc_file_bytes(&typed_table(), None),
        ipc_stream_bytes(&t),
        ipc_stream_bytes(&typed_table()),
    ]
}

// ------------------------------------------------------------ ipc

/// Where an Arrow IPC file or stream keeps its sizes and offsets: the
/// message length prefixes, the footer length, the footer's blocks, and
/// each record batch's field nodes, buffers and compressed-buffer length
/// prefixes. Positions of 4- or 8-byte little-endian integers.
pub fn ipc_fields(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let base = b.as_ptr() as usize;
    let i32_at = |at: usize| -> Option<i32> {
        Some(i32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let message = |at: usize, out: &mut Vec<(usize, usize)>| -> Option<usize> {
        let (len_at, start) = if i32_at(at)? == -1 {
            (at + 4, at + 8)
        } else {
            (at, at + 4)
        };
        out.push((len_at, 4));
        let len = usize::try_from(i32_at(len_at)?).ok()?;
        let meta = b.get(start..start.checked_add(len)?)?;
        let msg = arrow_ipc::root_as_message(meta).ok()?;
        let body = start + len;
        if let Some(rb) = msg
            .header_as_record_batch()
            .or_else(|| msg.header_as_dictionary_batch().and_then(|d| d.data()))
        {
            for v in [
                rb.nodes().map(|n| n.bytes()),
                rb.buffers().map(|n| n.bytes()),
            ]
            .into_iter()
            .flatten()
            {
                let at = v.as_ptr() as usize - base;
                for k in (0..v.len()).step_by(8) {
                    out.push((at + k, 8));
                }
            }
            if rb.compression().is_some() {
                for buf in rb.buffers().into_iter().flatten() {
                    if buf.length() >= 8 {
                        out.push((body + buf.offset() as usize, 8));
                    }
                }
            }
        }
        body.checked_add(usize::try_from(msg.bodyLength()).ok()?)
    };
    if b.starts_with(b"ARROW1") && b.len() > 16 {
        let n = b.len();
        out.push((n - 10, 4));
        let footer = i32_at(n - 10)
            .and_then(|l| usize::try_from(l).ok())
            .and_then(|flen| n.checked_sub(10 + flen))
            .and_then(|s| arrow_ipc::root_as_footer(&b[s..n - 10]).ok());
        if let Some(f) = footer {
            for v in [f.recordBatches(), f.dictionaries()].into_iter().flatten() {
                let bytes = v.bytes();
                let at = bytes.as_ptr() as usize - base;
                for k in (0..bytes.len()).step_by(8) {
                    out.push((at + k, 8));
                }
                for blk in v.iter() {
                    if let Ok(o) = usize::try_from(blk.offset()) {
                        message(o, &mut out);
                    }
                }
            }
        }
    } else {
        let mut at = 0;
        while let Some(next) = message(at, &mut out) {
            if next <= at || out.len() > 4096 {
                break;
            }
            at = next;
        }
    }
    out
}
