//! Hostile Parquet and Arrow IPC files, made here: each is refused with one
//! line naming the file (or loads, for the valid ones) while the load
//! holds little memory, with a 100 MiB budget and with the default one.
//! What a load allocates is counted on its thread (fuzz_support/alloc.rs).

mod fuzz_support;
use fuzz_support::columnar::{
    Page, Parquet, T, batch, ipc_file_bytes, page_of, parquet_bytes, props, table,
};
use fuzz_support::{Counting, held, peak_above, reset_peak};
use meanscape::Error;
use meanscape::data::{DataSource, Dataset, LoadOptions, load};
use parquet::basic::{Compression, ZstdLevel};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[global_allocator]
static ALLOC: Counting = Counting;

const CAP: u64 = 100 << 20;
/// What a cheap refusal may hold at most.
const SMALL: u64 = 16 << 20;

fn with_cap(cap: Option<u64>) -> LoadOptions {
    LoadOptions {
        max_memory: cap,
        ..LoadOptions::default()
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn load_counted(path: &Path, opts: &LoadOptions) -> (meanscape::Result<Dataset>, u64) {
    let base = held();
    reset_peak();
    let r = load(&DataSource::File(path.to_path_buf()), opts);
    (r, peak_above(base))
}

/// The refusal of `path` with a 100 MiB budget and with the default one:
/// one line naming the file, little held. Returns the two messages.
fn refused(path: &Path) -> [String; 2] {
    [Some(CAP), None].map(|cap| {
        let (r, peak) = load_counted(path, &with_cap(cap));
        let m = match r {
            Err(e) => e.to_string(),
            Ok(ds) => panic!("{}: loaded {}×{}", path.display(), ds.n(), ds.p()),
        };
        assert!(
            !m.contains('\n') && m.starts_with(&path.display().to_string()),
            "{m}"
        );
        assert!(peak < SMALL, "{}: {peak} bytes held: {m}", path.display());
        m
    })
}

fn refused_saying(path: &Path, what: &str) {
    for m in refused(path) {
        assert!(m.contains(what), "{m}");
    }
}

/// A Parquet file of the given footer alone (no pages).
fn footer_only(footer: &T) -> Vec<u8> {
    let f = footer.encode();
    let mut out = b"PAR1".to_vec();
    out.extend(&f);
    out.extend((f.len() as u32).to_le_bytes());
    out.extend(b"PAR1");
    out
}

/// A schema node: name, repetition (0 required), children or a type.
fn node(name: &str, children: Option<i32>, physical: Option<i32>) -> T {
    let mut f = Vec::new();
    if let Some(p) = physical {
        f.push((1, T::I32(p)));
    }
    f.push((3, T::I32(0)));
    f.push((4, T::Bin(name.into(), None)));
    if let Some(c) = children {
        f.push((5, T::I32(c)));
    }
    T::Struct(f)
}

fn file_meta(schema: Vec<T>) -> T {
    T::Struct(vec![
        (1, T::I32(1)),
        (2, T::List(12, schema, None)),
        (3, T::I64(0)),
        (4, T::List(12, vec![], None)),
    ])
}

fn small_parquet(c: Compression) -> Parquet {
    Parquet::parse(&parquet_bytes(&table(120), props(c).build())).unwrap()
}

#[test]
fn a_dictionary_of_2_pow_31_entries_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, n) in [("max.parquet", i32::MAX), ("neg.parquet", i32::MIN)] {
        let mut pq = small_parquet(Compression::UNCOMPRESSED);
        let dict = page_of(&mut pq, 2).expect("a dictionary page");
        dict.header.get_mut(7).unwrap().set(1, T::I32(n));
        let p = write(dir.path(), name, &pq.build());
        refused_saying(&p, "dictionary");
    }
}

#[test]
fn a_schema_nested_100_000_deep_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = vec![node("root", Some(1), None)];
    for _ in 0..99_998 {
        schema.push(node("g", Some(1), None));
    }
    schema.push(node("x", None, Some(2)));
    let bytes = footer_only(&file_meta(schema));
    assert!(bytes.len() > 700_000, "{}", bytes.len());
    let p = write(dir.path(), "deep.parquet", &bytes);
    refused_saying(&p, "nests more than 64 levels");
}

#[test]
fn a_root_declaring_2_pow_31_columns_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let schema = vec![node("root", Some(i32::MAX), None), node("x", None, Some(5))];
    let p = write(dir.path(), "wide.parquet", &footer_only(&file_meta(schema)));
    refused_saying(&p, "declares more columns");
    // And a list of 2^31 schema nodes in a few bytes.
    let mut meta = file_meta(vec![node("root", Some(1), None)]);
    if let Some(T::List(_, _, n)) = meta.get_mut(2) {
        *n = Some(1 << 31);
    }
    let p = write(dir.path(), "list.parquet", &footer_only(&meta));
    refused_saying(&p, "2147483648 elements");
}

/// The refusal of `path` under the 100 MiB budget: one line naming the
/// file, saying the budget is exceeded, little held.
fn over_budget(path: &Path) {
    let (r, peak) = load_counted(path, &with_cap(Some(CAP)));
    let m = r.expect_err("refused").to_string();
    assert!(
        m.starts_with(&path.display().to_string()) && !m.contains('\n'),
        "{m}"
    );
    assert!(m.contains("above the memory limit of 100.0 MiB"), "{m}");
    assert!(peak < SMALL, "{peak}: {m}");
}

/// The last data page of the text column "label", which no width bounds
/// when it is stored plain (without a dictionary).
fn label_page(pq: &mut Parquet) -> &mut Page {
    pq.chunks[0][4].last_mut().unwrap()
}

fn small_plain_parquet(c: Compression) -> Parquet {
    let props = props(c).set_dictionary_enabled(false).build();
    Parquet::parse(&parquet_bytes(&table(120), props)).unwrap()
}

#[test]
fn a_page_declaring_2_pow_31_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 64 floats cannot take 2 GiB in any encoding.
    for c in [Compression::SNAPPY, Compression::ZSTD(ZstdLevel::default())] {
        let mut pq = small_plain_parquet(c);
        page_of(&mut pq, 0).unwrap().header.set(2, T::I32(i32::MAX));
        let p = write(dir.path(), "floats.parquet", &pq.build());
        refused_saying(&p, "declares 2147483647 bytes for 64 values of 8 bytes");
    }
    // Text: snappy says its size, whatever the budget.
    let mut pq = small_plain_parquet(Compression::SNAPPY);
    label_page(&mut pq).header.set(2, T::I32(i32::MAX));
    let p = write(dir.path(), "snappy.parquet", &pq.build());
    refused_saying(&p, "where the page declares 2147483647");
    // LZ4 blocks cannot grow that much.
    let mut pq = small_plain_parquet(Compression::LZ4_RAW);
    label_page(&mut pq).header.set(2, T::I32(i32::MAX));
    let p = write(dir.path(), "lz4.parquet", &pq.build());
    refused_saying(&p, "cannot hold the 2147483647 bytes");
    // Dictionary indices take 4 bytes at most, whatever the type.
    let mut pq = small_parquet(Compression::ZSTD(ZstdLevel::default()));
    label_page(&mut pq).header.set(2, T::I32(i32::MAX));
    let p = write(dir.path(), "indices.parquet", &pq.build());
    refused_saying(&p, "declares 2147483647 bytes for 64 values of 4 bytes");
    // zstd without its size in the frame: the budget refuses it (the
    // default budget, half the RAM, lets the parquet crate reserve it).
    let mut pq = small_plain_parquet(Compression::ZSTD(ZstdLevel::default()));
    let page = label_page(&mut pq);
    page.header.set(2, T::I32(i32::MAX));
    page.data = zstd_bomb(1000, false);
    page.header.set(3, T::I32(page.data.len() as i32));
    let p = write(dir.path(), "zstd.parquet", &pq.build());
    over_budget(&p);
    // Uncompressed pages are not decompressed: what they declare is not
    // what is held, and the file loads.
    let mut pq = small_parquet(Compression::UNCOMPRESSED);
    page_of(&mut pq, 0).unwrap().header.set(2, T::I32(i32::MAX));
    let p = write(dir.path(), "plain.parquet", &pq.build());
    let (r, peak) = load_counted(&p, &impute(Some(CAP)));
    assert_eq!(r.map(|ds| ds.n()).ok(), Some(120));
    assert!(peak < SMALL, "{peak}");
}

fn impute(cap: Option<u64>) -> LoadOptions {
    LoadOptions {
        missing: meanscape::data::Missing::ImputeMean,
        ignore_non_numeric: true,
        ..with_cap(cap)
    }
}

/// A zstd frame of `size` zero bytes in RLE blocks (4 bytes per 128 KiB):
/// with its content size in the header, or with a window only.
fn zstd_bomb(size: u64, with_size: bool) -> Vec<u8> {
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd];
    if with_size {
        out.push(0b1110_0000);
        out.extend(size.to_le_bytes());
    } else {
        out.push(0);
        out.push(7 << 3);
    }
    let block = 128u64 << 10;
    let mut left = size;
    while left > 0 {
        let n = left.min(block);
        left -= n;
        let last = u32::from(left == 0);
        let h = (n as u32) << 3 | 1 << 1 | last;
        out.extend(&h.to_le_bytes()[..3]);
        out.push(0);
    }
    out
}

#[test]
fn a_zstd_bomb_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = (1u64 << 31) - 1;
    let bomb = zstd_bomb(big, true);
    assert!(bomb.len() < 70_000);
    let with_page = |text: bool, declared: i32, data: Vec<u8>| {
        let mut pq = small_plain_parquet(Compression::ZSTD(ZstdLevel::default()));
        let page = if text {
            label_page(&mut pq)
        } else {
            page_of(&mut pq, 0).unwrap()
        };
        page.data = data;
        page.header.set(2, T::I32(declared));
        page.header.set(3, T::I32(page.data.len() as i32));
        pq.build()
    };
    // In a float column, declaring its 2 GiB: more than 64 floats take.
    let p = write(
        dir.path(),
        "f.parquet",
        &with_page(false, big as i32, bomb.clone()),
    );
    refused_saying(&p, "declares 2147483647 bytes for 64 values of 8 bytes");
    // In a text column: above the budget (the default budget lets the
    // parquet crate decompress the 2 GiB it declares).
    let p = write(
        dir.path(),
        "t.parquet",
        &with_page(true, big as i32, bomb.clone()),
    );
    over_budget(&p);
    // Declaring 4 KiB: its frame says more.
    let p = write(dir.path(), "small.parquet", &with_page(true, 4096, bomb));
    refused_saying(
        &p,
        "zstd data of 2147483647 bytes where the page declares 4096",
    );
    // Without its size in the frame: decompressed into the 4 KiB declared,
    // which it overflows.
    let p = write(
        dir.path(),
        "nosize.parquet",
        &with_page(true, 4096, zstd_bomb(big, false)),
    );
    refused(&p);
}

#[test]
fn gzip_and_lz4_pages_must_decompress_to_what_they_declare() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    // 64 MiB of zeros in a gzip member of 64 KiB, in a page declaring 4 KiB.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        e.write_all(&zeros).unwrap();
    }
    let gz = e.finish().unwrap();
    let mut lz = lz4_frame(&zeros);
    for (name, c, data) in [
        ("gz.parquet", Compression::GZIP(Default::default()), gz),
        ("lz4.parquet", Compression::LZ4, std::mem::take(&mut lz)),
    ] {
        let mut pq = small_plain_parquet(c);
        let page = label_page(&mut pq);
        page.data = data;
        let len = page.data.len() as i32;
        page.header.set(2, T::I32(4096));
        page.header.set(3, T::I32(len));
        let p = write(dir.path(), name, &pq.build());
        refused_saying(&p, "decompresses to more than the 4096 bytes it declares");
    }
}

fn lz4_frame(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn vlq(v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut v = v;
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// Replaces the value count of the first delta header of a v1 page (after
/// its RLE definition levels if the column is optional).
fn lie_about_delta_count(values: &mut Vec<u8>, count: u64, optional: bool) {
    let mut at = 0;
    if optional {
        at = 4 + u32::from_le_bytes(values[..4].try_into().unwrap()) as usize;
    }
    for _ in 0..2 {
        while values[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1;
    }
    let mut end = at;
    while values[end] & 0x80 != 0 {
        end += 1;
    }
    values.splice(at..=end, vlq(count));
}

#[test]
fn a_delta_page_declaring_2_pow_40_values_is_refused() {
    use parquet::basic::Encoding;
    use parquet::schema::types::ColumnPath;
    let dir = tempfile::tempdir().unwrap();
    // The label column without nulls (required), and with one (optional).
    let plain = table(50).remove(0);
    let labels: Vec<Option<&str>> = (0..50).map(|i| (i != 7).then_some("a")).collect();
    let mut cols: Vec<(&str, arrow_array::ArrayRef)> = ["x", "y", "z", "n"]
        .iter()
        .zip(plain.columns())
        .map(|(n, c)| (*n, c.clone()))
        .collect();
    cols.push(("label", Arc::new(arrow_array::StringArray::from(labels))));
    let nullable = batch(cols);
    for (c, enc, b) in [
        (
            Compression::UNCOMPRESSED,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            &plain,
        ),
        (Compression::SNAPPY, Encoding::DELTA_BYTE_ARRAY, &plain),
        (
            Compression::UNCOMPRESSED,
            Encoding::DELTA_BYTE_ARRAY,
            &nullable,
        ),
    ] {
        let props = props(c)
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("label"), enc)
            .build();
        let optional = b.schema().field(4).is_nullable();
        let mut pq = Parquet::parse(&parquet_bytes(std::slice::from_ref(b), props)).unwrap();
        let page = pq.chunks[0][4].first_mut().unwrap();
        let mut values = if c == Compression::SNAPPY {
            snap::raw::Decoder::new()
                .decompress_vec(&page.data)
                .unwrap()
        } else {
            page.data.clone()
        };
        lie_about_delta_count(&mut values, 1 << 40, optional);
        page.header.set(2, T::I32(values.len() as i32));
        page.data = if c == Compression::SNAPPY {
            snap::raw::Encoder::new().compress_vec(&values).unwrap()
        } else {
            values
        };
        page.header.set(3, T::I32(page.data.len() as i32));
        let p = write(
            dir.path(),
            &format!("{enc:?}{optional}.parquet"),
            &pq.build(),
        );
        refused_saying(&p, "declares 1099511627776 values where the page has 50");
    }
}

#[test]
fn page_crcs_are_verified() {
    let dir = tempfile::tempdir().unwrap();
    let pq = small_parquet(Compression::SNAPPY).with_crc();
    let good = write(dir.path(), "crc.parquet", &pq.build());
    let ds = load(&DataSource::File(good), &impute(Some(CAP))).unwrap();
    assert_eq!((ds.n(), ds.p()), (120, 4));
    let mut bad = pq.clone();
    let page: &mut Page = page_of(&mut bad, 0).unwrap();
    let k = page.data.len() / 2;
    page.data[k] ^= 0x10;
    let p = write(dir.path(), "flipped.parquet", &bad.build());
    refused_saying(&p, "CRC does not match");
}

#[test]
fn every_compression_still_loads_within_the_budget() {
    // The seeds of the fuzzer: each codec, page v2, delta encodings, CRCs.
    let dir = tempfile::tempdir().unwrap();
    for (k, bytes) in fuzz_support::columnar::parquet_seeds().iter().enumerate() {
        let p = write(dir.path(), &format!("seed{k}.parquet"), bytes);
        let (r, peak) = load_counted(&p, &impute(Some(CAP)));
        let ds = r.unwrap_or_else(|e| panic!("seed {k}: {e}"));
        assert!(ds.n() == 120 || ds.n() == 20, "seed {k}: {}", ds.n());
        assert!(peak < SMALL, "seed {k}: {peak}");
    }
}

#[test]
fn a_wide_table_loads_from_feather_and_parquet() {
    // 72 rows × 7129 columns (a gene-expression table): 4 MB of floats in
    // one record batch, whose columns all point into one body buffer in
    // an uncompressed Feather file.
    let dir = tempfile::tempdir().unwrap();
    let cols: Vec<(String, arrow_array::ArrayRef)> = (0..7129)
        .map(|j| {
            let v: Vec<f64> = (0..72).map(|i| (i * 7129 + j) as f64).collect();
            let a: arrow_array::ArrayRef = Arc::new(arrow_array::Float64Array::from(v));
            (format!("g{j}"), a)
        })
        .collect();
    let b = batch(cols.iter().map(|(n, a)| (n.as_str(), a.clone())).collect());
    let feather = write(
        dir.path(),
        "wide.feather",
        &ipc_file_bytes(std::slice::from_ref(&b), None),
    );
    let props = props(Compression::SNAPPY).build();
    let parquet = write(dir.path(), "wide.parquet", &parquet_bytes(&[b], props));
    drop(cols);
    for p in [feather, parquet] {
        for cap in [Some(CAP), None] {
            let (r, peak) = load_counted(&p, &with_cap(cap));
            let ds = r.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((ds.n(), ds.p()), (72, 7129));
            assert_eq!(ds.x.f64()[[71, 7128]], (71 * 7129 + 7128) as f64);
            assert!(peak < CAP, "{}: {peak}", p.display());
        }
    }
}

/// The position of the first element of a flatbuffer vector in `b`.
fn at_of(b: &[u8], v: &[u8]) -> usize {
    v.as_ptr() as usize - b.as_ptr() as usize
}

#[test]
fn an_arrow_schema_of_2_pow_31_columns_or_nested_deep_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = ipc_file_bytes(&table(10), None);
    let n = bytes.len();
    let flen = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    let start = n - 10 - flen;
    let fields_at = {
        let f = arrow_ipc::root_as_footer(&bytes[start..n - 10]).unwrap();
        at_of(&bytes, f.schema().unwrap().fields().unwrap().bytes())
    };
    // The vector's length is the u32 before its elements.
    bytes[fields_at - 4..fields_at].copy_from_slice(&(i32::MAX as u32).to_le_bytes());
    let p = write(dir.path(), "wide.arrow", &bytes);
    refused_saying(&p, "RangeOutOfBounds");
    // 200 nested structs: beyond the flatbuffer verifier's depth of 64.
    use arrow_array::{Array, StructArray};
    use arrow_schema::{DataType, Field};
    let mut a: Arc<dyn Array> = Arc::new(arrow_array::Float64Array::from(vec![1.0]));
    for _ in 0..200 {
        let f = Field::new("s", a.data_type().clone(), false);
        a = Arc::new(StructArray::from(vec![(Arc::new(f), a)]));
    }
    let x: Arc<dyn Array> = Arc::new(arrow_array::Float64Array::from(vec![2.0]));
    let b = batch(vec![("x", x), ("deep", a)]);
    assert!(matches!(
        b.schema().field(1).data_type(),
        DataType::Struct(_)
    ));
    let p = write(dir.path(), "deep.arrow", &ipc_file_bytes(&[b], None));
    refused_saying(&p, "DepthLimitReached");
}

#[test]
fn the_command_line_refuses_crafted_files_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut pq = small_parquet(Compression::SNAPPY);
    page_of(&mut pq, 0).unwrap().header.set(2, T::I32(i32::MAX));
    let p = write(dir.path(), "page.parquet", &pq.build());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(["info", "--data"])
        .arg(&p)
        .args(["--max-memory", "100M"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("page.parquet"), "{err}");
}

#[test]
fn crafted_refusals_are_data_or_resource_errors() {
    let dir = tempfile::tempdir().unwrap();
    let schema = vec![node("root", Some(i32::MAX), None), node("x", None, Some(5))];
    let p = write(dir.path(), "w.parquet", &footer_only(&file_meta(schema)));
    let (r, _) = load_counted(&p, &with_cap(Some(CAP)));
    assert!(matches!(r, Err(Error::Data(_))), "{r:?}");
}

#[test]
fn an_arrow_footer_declaring_2_pow_31_bytes_is_refused() {
    // The reader allocated the declared footer before seeking to it.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = ipc_file_bytes(&table(10), None);
    let n = bytes.len();
    bytes[n - 10..n - 6].copy_from_slice(&i32::MAX.to_le_bytes());
    let p = write(dir.path(), "footer.arrow", &bytes);
    refused_saying(&p, "the footer declares 2147483647 bytes");
}

#[test]
fn an_arrow_buffer_declaring_2_pow_52_bytes_is_refused_however_its_message_is_framed() {
    // The reader parses a block's message up to the block's end, not up to
    // the length its prefix declares: a short prefix once hid the
    // compressed buffers from the size check, and lz4 reserved 2^52 bytes.
    let dir = tempfile::tempdir().unwrap();
    let lz4 = Some(arrow_ipc::CompressionType::LZ4_FRAME);
    let mut bytes = ipc_file_bytes(&table(10), lz4);
    let n = bytes.len();
    let flen = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    let (offset, meta) = {
        let f = arrow_ipc::root_as_footer(&bytes[n - 10 - flen..n - 10]).unwrap();
        let b = f.recordBatches().unwrap().get(0);
        (b.offset() as usize, b.metaDataLength() as usize)
    };
    assert_eq!(bytes[offset..offset + 4], [0xff; 4]);
    let body = offset + meta;
    let starts: Vec<usize> = {
        let m = arrow_ipc::root_as_message(&bytes[offset + 8..body]).unwrap();
        let rb = m.header_as_record_batch().unwrap();
        rb.buffers()
            .unwrap()
            .iter()
            .filter(|b| b.length() >= 8)
            .map(|b| body + b.offset() as usize)
            .collect()
    };
    for at in starts {
        bytes[at..at + 8].copy_from_slice(&(1u64 << 52).to_le_bytes());
    }
    bytes[offset + 4..offset + 8].copy_from_slice(&8i32.to_le_bytes());
    let p = write(dir.path(), "framed.arrow", &bytes);
    refused_saying(&p, "once decompressed");
}
