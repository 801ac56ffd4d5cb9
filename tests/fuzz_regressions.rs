//! Inputs that once broke a loader (aborted on an allocation, hung, read
//! without end), made here rather than checked in, each refused cleanly
//! and cheaply: what a load allocates is counted on its thread, with a
//! 100 MiB cap and with the default budget.
//!
//! Inputs that the fuzzer (tests/fuzz_loaders.rs, examples/fuzz_loaders.rs)
//! finds breaking a loader go here too.

mod fuzz_support;
use flate2::{Compress, Compression, Crc, FlushCompress};
use fuzz_support::{Counting, held, npy, peak_above, reset_peak};
use meanscape::Error;
use meanscape::data::{DataSource, Dataset, LoadOptions, load};
use std::path::Path;

#[global_allocator]
static ALLOC: Counting = Counting;

const CAP: u64 = 100 << 20;
/// What a cheap refusal may allocate at most.
const SMALL: u64 = 16 << 20;

fn with_cap(cap: Option<u64>) -> LoadOptions {
    LoadOptions {
        max_memory: cap,
        ..LoadOptions::default()
    }
}

/// Loads `path` and returns the result with the most bytes held at once.
fn load_counted(path: &Path, opts: &LoadOptions) -> (meanscape::Result<Dataset>, u64) {
    let base = held();
    reset_peak();
    let r = load(&DataSource::File(path.to_path_buf()), opts);
    (r, peak_above(base))
}

/// The refusal of `path` under `opts`: its one-line message, which names
/// the file, and a peak below `most`.
fn refused(path: &Path, opts: &LoadOptions, most: u64) -> Error {
    let (r, peak) = load_counted(path, opts);
    let e = match r {
        Err(e) => e,
        Ok(ds) => panic!("{}: loaded {}×{}", path.display(), ds.n(), ds.p()),
    };
    let m = e.to_string();
    assert!(
        !m.contains('\n') && m.starts_with(&path.display().to_string()),
        "{m}"
    );
    assert!(
        peak < most,
        "{}: {peak} bytes held to refuse it: {m}",
        path.display()
    );
    e
}

/// A raw deflate stream of `head` then `times` copies of `chunk`, made
/// without compressing them all: after a full flush the compressor starts
/// afresh, so every copy compresses to the same bytes.
fn deflate_repeated(head: &[u8], chunk: &[u8], times: usize) -> Vec<u8> {
    let mut c = Compress::new(Compression::best(), false);
    let mut run = |input: &[u8], flush| {
        let mut out = Vec::with_capacity(input.len() + 1024);
        c.compress_vec(input, &mut out, flush).unwrap();
        out
    };
    let mut out = run(head, FlushCompress::Full);
    let one = run(chunk, FlushCompress::Full);
    assert_eq!(run(chunk, FlushCompress::Full), one);
    out.extend(one.repeat(times - 1));
    out.extend(run(chunk, FlushCompress::Finish));
    out
}

/// `1 GiB` of zeros as a 1 MB gzip file, with a valid trailer.
fn gzip_bomb_of_zeros() -> Vec<u8> {
    let chunk = vec![0u8; 1 << 20];
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255];
    gz.extend(deflate_repeated(&[], &chunk, 1024));
    let mut crc = Crc::new();
    for _ in 0..1024 {
        crc.update(&chunk);
    }
    gz.extend(crc.sum().to_le_bytes());
    gz.extend((1u32 << 30).to_le_bytes());
    gz
}

/// A `.mat` file whose one compressed variable `fea` is a rows × cols
/// double matrix of zeros, with `data_bytes` declared for its data.
fn mat_zlib_bomb(rows: u32, cols: u32, data_bytes: u64) -> Vec<u8> {
    let el = |ty: u32, data: &[u8]| {
        let mut v = ty.to_le_bytes().to_vec();
        v.extend((data.len() as u32).to_le_bytes());
        v.extend(data);
        while !v.len().is_multiple_of(8) {
            v.push(0);
        }
        v
    };
    let mut body = el(6, &[6, 0, 0, 0, 0, 0, 0, 0]);
    body.extend(el(5, &[rows.to_le_bytes(), cols.to_le_bytes()].concat()));
    body.extend(el(1, b"fea"));
    body.extend(9u32.to_le_bytes());
    body.extend((data_bytes as u32).to_le_bytes());
    let mut head = 14u32.to_le_bytes().to_vec();
    head.extend(((body.len() as u64 + data_bytes) as u32).to_le_bytes());
    head.extend(&body);
    let chunk = vec![0u8; 1 << 20];
    let mut z = vec![0x78, 0xda];
    z.extend(deflate_repeated(&head, &chunk, (data_bytes >> 20) as usize));
    // Adler-32 of head + zeros: zeros leave `a` and add `a` to `b` each.
    let (mut a, mut b) = (1u64, 0u64);
    for &x in &head {
        a = (a + u64::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    b = (b + (data_bytes % 65521) * a) % 65521;
    z.extend((((b << 16) | a) as u32).to_be_bytes());
    let mut f = format!("{:<116}", "MATLAB 5.0 MAT-file, zlib bomb").into_bytes();
    f.extend([0; 8]);
    f.extend(0x0100u16.to_le_bytes());
    f.extend(b"IM");
    f.extend(15u32.to_le_bytes());
    f.extend((z.len() as u32).to_le_bytes());
    f.extend(z);
    f
}

#[test]
fn npy_header_claiming_a_trillion_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.npy");
    let b = npy("<f8", false, "(1000000000000, 3)", &[0; 24]);
    assert_eq!(b.len(), 152);
    std::fs::write(&path, b).unwrap();
    for cap in [Some(CAP), None] {
        let e = refused(&path, &with_cap(cap), SMALL).to_string();
        assert!(
            e.contains("declares a 1000000000000 × 3 array of '<f8' (21.8 TiB), but the file holds 24 bytes"),
            "{e}"
        );
    }
}

#[test]
fn idx_header_with_zero_images_of_65536_squared_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x-images-idx3-ubyte");
    let mut b = vec![0, 0, 8, 3];
    for d in [0u32, 65536, 65536] {
        b.extend(d.to_be_bytes());
    }
    assert_eq!(b.len(), 16);
    std::fs::write(&path, b).unwrap();
    for cap in [Some(CAP), None] {
        let e = refused(&path, &with_cap(cap), SMALL).to_string();
        assert!(
            e.ends_with("no data rows (the IDX header declares dimensions [0, 65536, 65536])"),
            "{e}"
        );
    }
}

#[test]
fn csv_with_a_wide_header_one_row_and_three_million_blank_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.csv");
    let mut text = (1..=20_000)
        .map(|j| format!("c{j}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    text.push_str(&vec!["1.5"; 20_000].join(","));
    text.push_str(&"\n".repeat(3_000_000));
    std::fs::write(&path, text).unwrap();
    for cap in [Some(CAP), None] {
        let (r, peak) = load_counted(&path, &with_cap(cap));
        let ds = r.unwrap();
        assert_eq!((ds.n(), ds.p()), (1, 20_000));
        assert!(peak < 32 << 20, "{peak} bytes held");
    }
    // Refused, not aborted, when the cap is below what the text needs.
    let e = refused(&path, &with_cap(Some(1 << 20)), SMALL);
    assert!(matches!(e, Error::Resource(_)), "{e}");
}

#[test]
fn gzip_bomb_of_zeros_stops_at_the_first_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.csv.gz");
    let gz = gzip_bomb_of_zeros();
    assert!(gz.len() < 1_100_000);
    std::fs::write(&path, gz).unwrap();
    for cap in [Some(CAP), None] {
        let e = refused(&path, &with_cap(cap), SMALL).to_string();
        assert!(
            e.contains("binary data (a NUL byte at offset 0 once decompressed)"),
            "{e}"
        );
    }
}

#[test]
fn gzip_bomb_of_text_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.csv.gz");
    // 1 GiB of "1,2\n", about 1 MB compressed.
    let chunk = b"1,2\n".repeat(1 << 18);
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255];
    gz.extend(deflate_repeated(&[], &chunk, 1024));
    gz.extend([0; 8]);
    std::fs::write(&path, gz).unwrap();
    let e = refused(&path, &with_cap(Some(CAP)), 2 * CAP + SMALL);
    let m = e.to_string();
    assert!(
        matches!(e, Error::Resource(_)) && m.contains("decompresses to more than"),
        "{m}"
    );
    assert!(m.contains("raise --max-memory"), "{m}");
}

#[test]
fn mat_zlib_bomb_within_its_dimensions_is_refused_by_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.mat");
    // fea: 16384 × 16384 doubles of zeros, 2 GiB, in about 2 MB.
    let b = mat_zlib_bomb(16384, 16384, 2 << 30);
    assert!(b.len() < 2_200_000, "{}", b.len());
    std::fs::write(&path, b).unwrap();
    let e = refused(&path, &with_cap(Some(CAP)), SMALL);
    assert!(matches!(e, Error::Resource(_)), "{e}");
    assert!(
        e.to_string().contains("variable \"fea\", 16384×16384"),
        "{e}"
    );
}

#[test]
fn mat_zlib_bomb_beyond_its_dimensions_is_refused_at_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.mat");
    // fea is 10 × 10, but its data element declares 2 GiB of zeros.
    std::fs::write(&path, mat_zlib_bomb(10, 10, 2 << 30)).unwrap();
    for cap in [Some(CAP), None] {
        let e = refused(&path, &with_cap(cap), SMALL).to_string();
        assert!(
            e.ends_with("variable \"fea\": 268435456 values for a 10×10 matrix"),
            "{e}"
        );
    }
    // Dimensions far beyond what the compressed bytes can hold.
    std::fs::write(&path, mat_zlib_bomb(1 << 20, 1 << 20, 2 << 30)).unwrap();
    refused(&path, &with_cap(None), SMALL);
}

#[test]
fn one_line_of_twenty_million_commas() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("commas.csv");
    std::fs::write(&path, ",".repeat(20_000_000)).unwrap();
    // Splitting it would take over a gigabyte; the text alone is 20 MB.
    let e = refused(&path, &with_cap(Some(CAP)), 24 << 20);
    assert!(
        e.to_string()
            .contains("its first row of 20000001 fields and its longest line of 20000000 bytes"),
        "{e}"
    );
}

/// Loads on another thread; `None` if it does not finish in 20 s.
fn load_within(path: &Path) -> Option<meanscape::Result<Dataset>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(load(&DataSource::File(path), &with_cap(Some(CAP))));
    });
    rx.recv_timeout(std::time::Duration::from_secs(20)).ok()
}

/// Found by the fuzzer (seed 11): headers nesting brackets deeply made the
/// .npy header parser backtrack for minutes.
#[test]
fn npy_headers_nesting_brackets_deeply() {
    for name in ["fuzz_hang_nested_tuples.npy", "fuzz_hang_nested_braces.npy"] {
        let path = fuzz_support::fixtures_dir().join("bad").join(name);
        let r = load_within(&path).unwrap_or_else(|| panic!("{name}: the load hung"));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("the header nests brackets"), "{e}");
    }
}
