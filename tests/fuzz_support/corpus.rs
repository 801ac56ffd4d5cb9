//! The seed corpus of each format.

use super::Format;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub(super) fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Decompresses at most `cap` bytes (what the mutator works on).
pub(super) fn inflate_some<R: Read>(r: R, cap: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = r.take(cap).read_to_end(&mut out);
    out
}

pub fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
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

pub fn idx(code: u8, dims: &[u32], data: &[u8]) -> Vec<u8> {
    let mut b = vec![0, 0, code, dims.len() as u8];
    for d in dims {
        b.extend_from_slice(&d.to_be_bytes());
    }
    b.extend_from_slice(data);
    b
}

/// The seed corpus of a format: every fixture of that format (good and
/// bad), plus a few made here for encodings the fixtures lack, and small
/// hostile ones (huge declared sizes, a bomb).
pub fn corpus(format: Format) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut text_and_idx: Vec<Vec<u8>> = Vec::new();
    for sub in ["good", "bad"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let Some(f) = Format::of_fixture(&name) else {
                continue;
            };
            let bytes = std::fs::read(&p).unwrap();
            if matches!(f, Format::Delimited | Format::Idx) {
                text_and_idx.push(bytes.clone());
            }
            if f == format {
                out.push(bytes);
            }
        }
    }
    let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    match format {
        Format::Delimited => {
            out.push(b"a b label\n1 2 x\n3 4 y\n".to_vec());
            out.push(b"1;2,5\n3;4\n".to_vec());
            let mut wide = (0..300)
                .map(|j| format!("c{j}"))
                .collect::<Vec<_>>()
                .join(",");
            wide.push('\n');
            wide.push_str(&vec!["1"; 300].join(","));
            wide.push_str(&"\n".repeat(5000));
            out.push(wide.into_bytes());
        }
        Format::Gzip => {
            for t in &text_and_idx {
                out.push(gzip(t));
            }
            // A small bomb of zeros, and one of text.
            out.push(gzip(&vec![0u8; 4 << 20]));
            out.push(gzip(&b"1,2\n".repeat(1 << 18)));
        }
        Format::Npy => {
            out.push(npy("<f4", false, "(2, 2)", &[0; 16]));
            out.push(npy(">f8", true, "(2, 1)", &[0; 16]));
            out.push(npy("|b1", false, "(1, 3)", &[1, 0, 1]));
            out.push(npy("|u1", false, "(2, 2)", &[1, 2, 3, 4]));
            out.push(npy("<i8", false, "(1, 2)", &[0; 16]));
            out.push(npy("<f8", false, "(1000000000000, 3)", &f64s(&[1.0; 3])));
            out.push(npy("<f8", false, "(0, 1000000000000)", &[]));
        }
        Format::Idx => {
            out.push(idx(0x09, &[2, 2], &[0x80, 1, 2, 0xff]));
            out.push(idx(0x0B, &[1, 2], &[0xff, 0xfe, 1, 0]));
            out.push(idx(0x0C, &[2, 1], &[0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]));
            out.push(idx(0x0E, &[1, 1], &1.5f64.to_be_bytes()));
            out.push(idx(0x08, &[1, 65536, 65536], &[]));
        }
        Format::Mat => {}
        #[cfg(feature = "parquet")]
        Format::Parquet => out.extend(super::columnar::parquet_seeds()),
        #[cfg(feature = "parquet")]
        Format::Arrow => out.extend(super::columnar::ipc_seeds()),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet | Format::Arrow => {}
    }
    out
}
