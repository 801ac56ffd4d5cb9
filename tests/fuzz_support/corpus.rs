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

/// A zip of `.npy` members, as numpy's `savez` (stored) or
/// `savez_compressed` (deflated) writes them.
pub fn npz(members: &[(&str, Vec<u8>)], deflate: bool) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in members {
        w.start_file(
            format!("{name}.npy"),
            SimpleFileOptions::default().compression_method(method),
        )
        .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The members of a zip (names without `.npy`), if it reads.
pub fn unzip(b: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(b)).ok()?;
    let mut out = Vec::new();
    for i in 0..z.len() {
        let mut f = z.by_index(i).ok()?;
        if f.size() > 1 << 20 {
            return None;
        }
        let name = f.name().ok()?.trim_end_matches(".npy").to_string();
        let mut data = Vec::new();
        f.read_to_end(&mut data).ok()?;
        out.push((name, data));
    }
    Some(out)
}

/// A scipy.sparse `.npz` of `format` ("csr", "csc", "coo") from its arrays
/// (int32 indices, f64 data), as `save_npz` writes it.
pub fn sparse_npz(
    format: &str,
    shape: (i64, i64),
    index_arrays: &[(&str, Vec<i32>)],
    data: &[f64],
    deflate: bool,
) -> Vec<u8> {
    let i32s = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let f: Vec<u8> = format
        .chars()
        .flat_map(|c| (c as u32).to_le_bytes())
        .collect();
    let mut members = vec![(
        "format",
        npy(&format!("<U{}", format.len()), false, "()", &f),
    )];
    members.push((
        "shape",
        npy(
            "<i8",
            false,
            "(2,)",
            &[shape.0.to_le_bytes(), shape.1.to_le_bytes()].concat(),
        ),
    ));
    for (name, v) in index_arrays {
        members.push((
            name,
            npy("<i4", false, &format!("({},)", v.len()), &i32s(v)),
        ));
    }
    let d: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    members.push(("data", npy("<f8", false, &format!("({},)", data.len()), &d)));
    npz(&members, deflate)
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
        Format::Svmlight => {
            out.push(b"1 1:0.5 3:2\n2 2:1.5\n1 qid:3 1:1 # note\n".to_vec());
            out.push(b"0 0:1 2:3\n1 1:2\n\n-1 2:0.25\n".to_vec());
            out.push(b"1 3:1 1:2 3:4\n2 2:1\n".to_vec());
            out.push(b"1 4294967295:1\n".to_vec());
            out.push(b"1 1:nan\n".to_vec());
            out.push(b"x 1:1\n".to_vec());
            out.push(b"1 1:\xff\n".to_vec());
            out.push(gzip(b"3 1:1 2:2\n4 2:5\n"));
        }
        Format::Mtx => {
            let h = "%%MatrixMarket matrix coordinate";
            out.push(
                format!("{h} real general\n% c\n3 4 4\n1 1 1.5\n2 3 -2\n3 4 1e3\n1 4 2\n")
                    .into_bytes(),
            );
            out.push(format!("{h} pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n").into_bytes());
            out.push(format!("{h} integer skew-symmetric\n2 2 1\n2 1 3\n").into_bytes());
            out.push(
                format!("{h} real general\n1000000 1000000 1000000000000\n1 1 1\n").into_bytes(),
            );
            out.push(format!("{h} real general\n1000000000000 5 1\n1 1 1\n").into_bytes());
            out.push(format!("{h} complex general\n1 1 1\n1 1 1 0\n").into_bytes());
            out.push(b"%%MatrixMarket matrix array real general\n2 1\n1\n2\n".to_vec());
            out.push(gzip(
                format!("{h} real general\n2 2 2\n1 1 1\n2 2 2\n").as_bytes(),
            ));
        }
        Format::Npz => {
            let csr = [("indices", vec![0, 2, 1]), ("indptr", vec![0, 2, 3])];
            out.push(sparse_npz("csr", (2, 3), &csr, &[1.0, 2.0, 3.0], true));
            out.push(sparse_npz("csr", (2, 3), &csr, &[1.0, 2.0, 3.0], false));
            let csc = [("indices", vec![0, 1, 0]), ("indptr", vec![0, 1, 2, 3])];
            out.push(sparse_npz("csc", (2, 3), &csc, &[1.0, 3.0, 2.0], true));
            let coo = [("row", vec![1, 0, 0]), ("col", vec![1, 0, 2])];
            out.push(sparse_npz("coo", (2, 3), &coo, &[3.0, 1.0, 2.0], false));
            let huge = [("indices", vec![0]), ("indptr", vec![0, 1])];
            out.push(sparse_npz(
                "csr",
                (1_000_000_000_000, 3),
                &huge,
                &[1.0],
                true,
            ));
            out.push(sparse_npz("csr", (1, 1 << 40), &huge, &[1.0], true));
            out.push(npz(&[("x", npy("<f8", false, "(1, 1)", &[0; 8]))], false));
        }
        #[cfg(feature = "parquet")]
        Format::Parquet => out.extend(super::columnar::parquet_seeds()),
        #[cfg(feature = "parquet")]
        Format::Arrow => out.extend(super::columnar::ipc_seeds()),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet | Format::Arrow => {}
    }
    out
}
