//! The loader fuzzer, shared by tests/fuzz_loaders.rs (a short, bounded,
//! deterministic run), tests/fuzz_regressions.rs and
//! examples/fuzz_loaders.rs (the long run): a seed corpus per format from
//! tests/fixtures, a mutator driven by a seeded ChaCha stream, and an
//! executor that runs the real loaders (`DataSource::File` + `load`, with
//! a small memory cap) on a worker thread, with a watchdog and
//! `catch_unwind`, counting what each input allocates.
#![allow(dead_code)]

use meanscape::data::{DataSource, LabelChoice, LoadOptions, Missing, load};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

// ------------------------------------------------------------ allocation

/// A global allocator that counts the bytes each thread holds and the
/// most it held since [`reset_peak`]: the memory an input costs, measured
/// on the thread that loads it. Install with
/// `#[global_allocator] static A: Counting = Counting;`.
pub struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn held_add(n: isize) {
    let _ = HELD.try_with(|h| {
        let v = h.get() + n;
        h.set(v);
        let _ = PEAK.try_with(|p| {
            if v > p.get() {
                p.set(v)
            }
        });
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            held_add(l.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            held_add(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        held_add(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            held_add(new as isize - l.size() as isize);
        }
        q
    }
}

/// Starts a new peak at what this thread holds now.
pub fn reset_peak() {
    let now = HELD.with(Cell::get);
    PEAK.with(|p| p.set(now));
}

/// The most this thread held above `base` since [`reset_peak`].
pub fn peak_above(base: isize) -> u64 {
    (PEAK.with(Cell::get) - base).max(0) as u64
}

pub fn held() -> isize {
    HELD.with(Cell::get)
}

// ------------------------------------------------------------ formats

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Delimited,
    Gzip,
    Npy,
    Idx,
    Mat,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Delimited,
        Format::Gzip,
        Format::Npy,
        Format::Idx,
        Format::Mat,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Delimited => "delimited",
            Format::Gzip => "gzip",
            Format::Npy => "npy",
            Format::Idx => "idx",
            Format::Mat => "mat",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The file name an input of this format is written under (the loader
    /// picks the reader by extension, IDX and gzip by content).
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Delimited => "input.csv",
            Format::Gzip => "input.gz",
            Format::Npy => "input.npy",
            Format::Idx => "input-images-idx3-ubyte",
            Format::Mat => "input.mat",
        }
    }

    fn of_fixture(name: &str) -> Option<Format> {
        if name.ends_with(".gz") {
            Some(Format::Gzip)
        } else if name.ends_with(".npy") {
            Some(Format::Npy)
        } else if name.ends_with(".mat") {
            Some(Format::Mat)
        } else if name.contains("-idx") {
            Some(Format::Idx)
        } else if [".csv", ".tsv", ".txt"].iter().any(|e| name.ends_with(e)) {
            Some(Format::Delimited)
        } else {
            None
        }
    }
}

// ------------------------------------------------------------ corpus

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Decompresses at most `cap` bytes (what the mutator works on).
fn inflate_some<R: Read>(r: R, cap: u64) -> Vec<u8> {
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
    }
    out
}

// ------------------------------------------------------------ mutation

const INTERESTING: [u64; 22] = [
    0,
    1,
    2,
    3,
    7,
    8,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    1_000_000_000_000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

const TOKENS: [&str; 24] = [
    "\r",
    "\n",
    "\r\n",
    ",",
    ";",
    "\t",
    "\"",
    " ",
    "NaN",
    "inf",
    "-",
    "1e308",
    "1e-320",
    "label",
    "#",
    "\u{feff}",
    "\0",
    "?",
    "class",
    "\"\"",
    "1,5",
    "9999999999999999999999999",
    ",,,,",
    "x",
];

/// The largest input the mutator makes (bigger ones are cut).
const MAX_INPUT: usize = 1 << 20;

pub struct Mutator {
    pub rng: ChaCha8Rng,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Mutator {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn pos(&mut self, len: usize) -> usize {
        if len == 0 {
            0
        } else {
            self.rng.random_range(0..=len)
        }
    }

    fn interesting(&mut self) -> u64 {
        let v = INTERESTING[self.rng.random_range(0..INTERESTING.len())];
        match self.rng.random_range(0..4) {
            0 => v.wrapping_add(1),
            1 => v.wrapping_sub(1),
            _ => v,
        }
    }

    /// Writes an interesting integer of 1, 2, 4 or 8 bytes, either byte
    /// order, at `at` (clipped to the input).
    fn put_int(&mut self, b: &mut [u8], at: usize) {
        let width = [1, 2, 4, 8][self.rng.random_range(0..4)];
        let v = self.interesting();
        let (le, be) = (v.to_le_bytes(), v.to_be_bytes());
        let src = if self.rng.random_bool(0.5) {
            &le[..width]
        } else {
            &be[8 - width..]
        };
        for (k, &x) in src.iter().enumerate() {
            if let Some(slot) = b.get_mut(at + k) {
                *slot = x;
            }
        }
    }

    /// One format-blind change.
    fn generic(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let len = b.len();
        match self.rng.random_range(0..10) {
            0 if len > 0 => {
                for _ in 0..self.rng.random_range(1..=8) {
                    let i = self.rng.random_range(0..len);
                    b[i] ^= 1 << self.rng.random_range(0..8);
                }
            }
            1 if len > 0 => {
                let i = self.rng.random_range(0..len);
                b[i] = self.rng.random();
            }
            2 => {
                let at = self.pos(len);
                let n = self.rng.random_range(1..=16);
                let ins: Vec<u8> = (0..n).map(|_| self.rng.random()).collect();
                b.splice(at..at, ins);
            }
            3 if len > 0 => {
                let a = self.rng.random_range(0..len);
                let e = (a + self.rng.random_range(1..=64)).min(len);
                b.drain(a..e);
            }
            4 => {
                let at = self.pos(len);
                b.truncate(at);
            }
            5 if !corpus.is_empty() => {
                let other = &corpus[self.rng.random_range(0..corpus.len())];
                let at = self.pos(len);
                let from = self.pos(other.len());
                b.truncate(at);
                b.extend_from_slice(&other[from..]);
            }
            6 if len > 0 => {
                let at = self.rng.random_range(0..len);
                self.put_int(b, at);
            }
            7 if len > 0 => {
                let a = self.rng.random_range(0..len);
                let e = (a + self.rng.random_range(1..=256)).min(len);
                let chunk = b[a..e].to_vec();
                let times = self.rng.random_range(1..=64);
                let at = self.pos(len);
                let rep: Vec<u8> = chunk.repeat(times);
                b.splice(at..at, rep);
            }
            8 => {
                let t = TOKENS[self.rng.random_range(0..TOKENS.len())]
                    .as_bytes()
                    .to_vec();
                let at = self.pos(len);
                b.splice(at..at, t);
            }
            _ => {
                // Replace a run of digits with an interesting number in text.
                let digits: Vec<usize> = (0..len).filter(|&i| b[i].is_ascii_digit()).collect();
                if let Some(&i) = digits.get(self.pos(digits.len().saturating_sub(1))) {
                    let mut e = i;
                    while e < len && b[e].is_ascii_digit() {
                        e += 1;
                    }
                    let v = self.interesting().to_string().into_bytes();
                    b.splice(i..e, v);
                }
            }
        }
    }

    /// A change that knows where the header fields of `format` are.
    fn structured(&mut self, format: Format, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        match format {
            Format::Npy => self.npy_field(b),
            Format::Idx => {
                if b.len() >= 4 {
                    match self.rng.random_range(0..4) {
                        0 => {
                            b[2] = [8, 9, 0xB, 0xC, 0xD, 0xE, 0, 0xff][self.rng.random_range(0..8)]
                        }
                        3 => {
                            // Small dimensions with exactly the data they need.
                            let code = [8, 9, 0xB, 0xC, 0xD, 0xE][self.rng.random_range(0..6)];
                            let size = [1, 1, 2, 4, 4, 8][[8, 9, 0xB, 0xC, 0xD, 0xE]
                                .iter()
                                .position(|&c| c == code)
                                .unwrap()];
                            let dims: Vec<u32> = (0..self.rng.random_range(1..=4))
                                .map(|_| self.rng.random_range(1..6))
                                .collect();
                            let n = dims.iter().product::<u32>() as usize * size;
                            let data: Vec<u8> = (0..n).map(|_| self.rng.random()).collect();
                            *b = idx(code, &dims, &data);
                        }
                        1 => b[3] = self.interesting() as u8,
                        _ => {
                            let ndim = (b[3] as usize).max(1);
                            let at = 4 + 4 * self.rng.random_range(0..ndim);
                            let v = (self.interesting() as u32).to_be_bytes();
                            for (k, &x) in v.iter().enumerate() {
                                if let Some(s) = b.get_mut(at + k) {
                                    *s = x;
                                }
                            }
                        }
                    }
                }
            }
            Format::Gzip => self.gzip_field(b, corpus),
            Format::Mat => self.mat_field(b, corpus),
            Format::Delimited => self.generic(b, corpus),
        }
    }

    /// Splits a `.npy` file into version, header text and data.
    fn split_npy(b: &[u8]) -> Option<(u8, String, Vec<u8>)> {
        if b.len() < 10 || !b.starts_with(b"\x93NUMPY") {
            return None;
        }
        let (len, pre) = if b[6] == 1 {
            (u16::from_le_bytes([b[8], b[9]]) as usize, 10)
        } else {
            (
                u32::from_le_bytes(b.get(8..12)?.try_into().ok()?) as usize,
                12,
            )
        };
        let head = b.get(pre..pre + len)?;
        Some((
            b[6],
            String::from_utf8_lossy(head).trim_end().to_string(),
            b[pre + len..].to_vec(),
        ))
    }

    fn npy_field(&mut self, b: &mut Vec<u8>) {
        let Some((version, mut dict, mut data)) = Self::split_npy(b) else {
            return self.generic(b, &[]);
        };
        let item = |dict: &str| -> usize {
            let Some(s) = dict.find("'descr': '") else {
                return 8;
            };
            let d = &dict[s + 10..];
            let d = &d[..d.find('\'').unwrap_or(0)];
            d.trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse::<usize>()
                .unwrap_or(1)
                .min(16)
        };
        let replace = |dict: &mut String, key: &str, end: char, new: &str| {
            if let Some(s) = dict.find(key) {
                let s = s + key.len();
                if let Some(len) = dict[s..].find(end) {
                    dict.replace_range(s..s + len, new);
                }
            }
        };
        match self.rng.random_range(0..7) {
            0 => {
                let n = self.interesting();
                let shape = match self.rng.random_range(0..4) {
                    0 => format!("{n}, 3"),
                    1 => format!("3, {n}"),
                    2 => format!("{n},"),
                    _ => format!("{n}, {n}, -1"),
                };
                replace(&mut dict, "'shape': (", ')', &shape);
            }
            1 => {
                let d = [
                    "<f8", ">f8", "|b1", "<c16", "|O", "<U10", "f8", "<f2", "|i1", ">u8", "<i2",
                    ">f4", "u1", "b",
                ][self.rng.random_range(0..14)];
                replace(&mut dict, "'descr': '", '\'', d);
            }
            2 => {
                let f = ["True", "False", "None", "1", "'x'"][self.rng.random_range(0..5)];
                replace(&mut dict, "'fortran_order': ", ',', f);
            }
            3 => {
                // A small shape with exactly the data it needs, of random
                // bytes (NaN patterns, bools that are not 0 or 1…).
                let (r, c) = (self.rng.random_range(1..6), self.rng.random_range(1..6));
                replace(&mut dict, "'shape': (", ')', &format!("{r}, {c}"));
                let n = r * c * item(&dict);
                data = (0..n).map(|_| self.rng.random()).collect();
            }
            4 => {
                let mut t = dict.into_bytes();
                self.generic(&mut t, &[]);
                dict = String::from_utf8_lossy(&t).into_owned();
            }
            _ => self.generic(&mut data, &[]),
        }
        // Mostly a consistent header length, sometimes the old one.
        let mut out = b"\x93NUMPY".to_vec();
        out.push(version);
        out.push(0);
        let unpadded = 10 + dict.len() + 1;
        let header = format!("{dict}{}\n", " ".repeat((64 - unpadded % 64) % 64));
        if version == 1 {
            out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(header.len() as u32 + 2).to_le_bytes());
            out.extend_from_slice(b"  ");
        }
        out.extend_from_slice(header.as_bytes());
        out.extend(data);
        if self.rng.random_bool(0.1) {
            let at = self.rng.random_range(0..out.len());
            self.put_int(&mut out, at.min(9));
        }
        *b = out;
    }

    fn gzip_field(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        match self.rng.random_range(0..4) {
            0 => {
                // Mutate what is inside, then compress it again.
                let mut plain = inflate_some(flate2::read::MultiGzDecoder::new(&b[..]), 1 << 20);
                self.generic(&mut plain, corpus);
                *b = gzip(&plain);
            }
            1 => {
                // Junk or another member after the end.
                if self.rng.random_bool(0.5) {
                    let n = self.rng.random_range(1..=16);
                    b.extend((0..n).map(|_| self.rng.random::<u8>()));
                } else {
                    let more = gzip(b"1,2\n");
                    b.extend(more);
                }
            }
            2 if b.len() >= 8 => {
                // CRC or ISIZE of the trailer.
                let at = b.len() - self.rng.random_range(1..=8);
                self.put_int(b, at);
            }
            _ if b.len() >= 4 => b[3] = self.rng.random(),
            _ => self.generic(b, corpus),
        }
    }

    /// Top-level elements of a .mat file: (offset, type, length).
    fn mat_elements(b: &[u8]) -> Vec<(usize, u32, usize)> {
        let mut out = Vec::new();
        let mut off = 128;
        while off + 8 <= b.len() && out.len() < 64 {
            let ty = u32::from_le_bytes(b[off..off + 4].try_into().unwrap());
            let n = u32::from_le_bytes(b[off + 4..off + 8].try_into().unwrap()) as usize;
            out.push((off, ty, n));
            let next = off + 8 + if ty == 14 { n.div_ceil(8) * 8 } else { n };
            if next <= off {
                break;
            }
            off = next;
        }
        out
    }

    fn mat_field(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let els = Self::mat_elements(b);
        if els.is_empty() {
            return self.generic(b, corpus);
        }
        let (off, ty, n) = els[self.rng.random_range(0..els.len())];
        match (ty, self.rng.random_range(0..3)) {
            (15, 0) | (15, 1) if off + 8 + n <= b.len() => {
                // Inside a compressed element: change the matrix, recompress.
                let mut inner = inflate_some(
                    flate2::read::ZlibDecoder::new(&b[off + 8..off + 8 + n]),
                    1 << 20,
                );
                if self.rng.random_bool(0.5) && inner.len() >= 8 {
                    self.matrix_field(&mut inner, 0);
                } else {
                    self.generic(&mut inner, corpus);
                }
                let z = zlib(&inner);
                let mut el = 15u32.to_le_bytes().to_vec();
                el.extend_from_slice(&(z.len() as u32).to_le_bytes());
                el.extend(z);
                b.splice(off..off + 8 + n, el);
            }
            (14, _) => self.matrix_field(b, off),
            _ => {
                let at = off + 4 * self.rng.random_range(0..2);
                let v = (self.interesting() as u32).to_le_bytes();
                for (k, &x) in v.iter().enumerate() {
                    if let Some(s) = b.get_mut(at + k) {
                        *s = x;
                    }
                }
            }
        }
    }

    /// Changes a tag or a dimension among a matrix element's sub-elements.
    fn matrix_field(&mut self, b: &mut [u8], off: usize) {
        let mut subs = Vec::new();
        let mut at = off + 8;
        while at + 8 <= b.len() && subs.len() < 8 {
            subs.push(at);
            let first = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            if first >> 16 != 0 {
                at += 8;
            } else {
                let n = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
                at += 8 + n.div_ceil(8) * 8;
            }
        }
        let targets: Vec<usize> = if subs.is_empty() {
            vec![off, off + 4]
        } else {
            // A sub-element's type, its length, or a value after the tag
            // (the class in the flags, a dimension).
            let s = subs[self.rng.random_range(0..subs.len())];
            vec![s, s + 4, s + 8, s + 12]
        };
        let at = targets[self.rng.random_range(0..targets.len())];
        let v = (self.interesting() as u32).to_le_bytes();
        for (k, &x) in v.iter().enumerate() {
            if let Some(s) = b.get_mut(at + k) {
                *s = x;
            }
        }
    }

    /// A mutant of a corpus entry: one to four changes, half of them
    /// format-aware.
    pub fn mutate(&mut self, format: Format, corpus: &[Vec<u8>]) -> Vec<u8> {
        let mut b = corpus[self.rng.random_range(0..corpus.len())].clone();
        for _ in 0..self.rng.random_range(1..=4) {
            if self.rng.random_bool(0.5) {
                self.structured(format, &mut b, corpus);
            } else {
                self.generic(&mut b, corpus);
            }
            b.truncate(MAX_INPUT);
        }
        b
    }

    /// Options for one execution: which labels, which .mat variable, and
    /// the missing-value policy vary.
    pub fn options(&mut self, max_memory: u64) -> LoadOptions {
        let label = match self.rng.random_range(0..6) {
            0 | 1 => LabelChoice::Auto,
            2 => LabelChoice::None,
            3 => LabelChoice::Index(self.rng.random_range(0..3)),
            4 => LabelChoice::Name(
                ["gnd", "label", "class", "x"][self.rng.random_range(0..4)].into(),
            ),
            _ => LabelChoice::Index(usize::MAX),
        };
        let var = match self.rng.random_range(0..4) {
            0 | 1 => Some(MAT_VARS[self.rng.random_range(0..MAT_VARS.len())].into()),
            _ => None,
        };
        let missing = [Missing::Error, Missing::ImputeMean, Missing::DropIncomplete]
            [self.rng.random_range(0..3)];
        LoadOptions {
            label,
            var,
            missing,
            max_memory: Some(max_memory),
        }
    }
}

/// Variable names of the .mat fixtures, for `--var`.
const MAT_VARS: [&str; 16] = [
    "fea",
    "big",
    "S",
    "names",
    "C",
    "gnd",
    "int8_u",
    "int8_z",
    "uint16_z",
    "int32_u",
    "int64_z",
    "uint64_u",
    "single_z",
    "double_u",
    "logical_z",
    "logical_u",
];

// ------------------------------------------------------------ execution

/// What one input did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Loaded: rows, columns.
    Loaded(usize, usize),
    /// Refused with this one-line message.
    Refused(String),
    /// Refused, but the message is empty, on several lines, or names no file.
    BadMessage(String),
    /// Loaded, but the dataset breaks an invariant.
    BadDataset(String),
    /// A panic, with its message.
    Panic(String),
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Outcome::BadMessage(_) | Outcome::BadDataset(_) | Outcome::Panic(_)
        )
    }
}

/// One input to run: the data file's bytes, and for IDX sometimes a
/// labels file beside it.
#[derive(Debug, Clone)]
pub struct Input {
    pub format: Format,
    pub data: Vec<u8>,
    pub companion: Option<Vec<u8>>,
    pub opts: LoadOptions,
}

/// Writes the input into `dir` and loads it; checks what comes back.
pub fn run_in(dir: &Path, input: &Input) -> Outcome {
    let path = dir.join(input.format.file_name());
    let labels = dir.join("input-labels-idx1-ubyte");
    let _ = std::fs::remove_file(&labels);
    std::fs::write(&path, &input.data).unwrap();
    if let Some(c) = &input.companion {
        std::fs::write(&labels, c).unwrap();
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        load(&DataSource::File(path.clone()), &input.opts)
    }));
    match result {
        Err(p) => Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
        Ok(Err(e)) => {
            let m = e.to_string();
            let names_file = m.contains(&path.display().to_string())
                || m.contains(&labels.display().to_string());
            if m.trim().is_empty() || m.contains('\n') || m.contains('\r') || !names_file {
                Outcome::BadMessage(m)
            } else {
                Outcome::Refused(m)
            }
        }
        Ok(Ok(ds)) => {
            let bad =
                if ds.n() == 0 || ds.p() == 0 {
                    Some(format!("{}×{} dataset", ds.n(), ds.p()))
                } else if ds.x.iter().any(|v| !v.is_finite()) {
                    Some("non-finite value".to_string())
                } else if ds.feature_names.len() != ds.p() {
                    Some("feature names do not match".to_string())
                } else if ds.labels.as_ref().is_some_and(|l| {
                    l.ids.len() != ds.n() || l.ids.iter().any(|&i| i >= l.names.len())
                }) {
                    Some("labels do not match".to_string())
                } else if ds.inputs.first() != Some(&path) {
                    Some(format!(
                        "inputs {:?} do not start with the data file",
                        ds.inputs
                    ))
                } else {
                    None
                };
            match bad {
                Some(why) => Outcome::BadDataset(why),
                None => Outcome::Loaded(ds.n(), ds.p()),
            }
        }
    }
}

/// The result of one execution with what it cost.
#[derive(Debug, Clone)]
pub struct Run {
    pub outcome: Outcome,
    /// Most bytes allocated at once while loading.
    pub peak: u64,
}

/// Runs inputs one by one on a worker thread; a run that takes longer than
/// the timeout is reported as a hang (and the worker abandoned).
pub struct Executor {
    jobs: mpsc::Sender<Input>,
    results: mpsc::Receiver<Run>,
    pub timeout: Duration,
    _dir: tempfile::TempDir,
}

pub enum Exec {
    Done(Run),
    Hang,
}

/// Caps the address space of this process (4 GiB), so that a runaway
/// allocation fails here instead of pushing the machine into swap or the
/// OOM killer.
pub fn limit_address_space() {
    #[cfg(unix)]
    unsafe {
        let mut cur = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_AS, &mut cur) == 0 {
            let want: libc::rlim_t = 4 << 30;
            if cur.rlim_cur == libc::RLIM_INFINITY || cur.rlim_cur > want {
                cur.rlim_cur = want;
                libc::setrlimit(libc::RLIMIT_AS, &cur);
            }
        }
    }
}

impl Executor {
    pub fn new(timeout: Duration) -> Self {
        limit_address_space();
        // Memory-backed where there is one: on a disk, writing each input
        // takes far longer than loading it.
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let path = dir.path().to_path_buf();
        let (jobs, rx) = mpsc::channel::<Input>();
        let (tx, results) = mpsc::channel::<Run>();
        std::thread::Builder::new()
            .name("fuzz-worker".into())
            .spawn(move || {
                for input in rx {
                    let base = held();
                    reset_peak();
                    let outcome = run_in(&path, &input);
                    let peak = peak_above(base);
                    if tx.send(Run { outcome, peak }).is_err() {
                        break;
                    }
                }
            })
            .unwrap();
        Executor {
            jobs,
            results,
            timeout,
            _dir: dir,
        }
    }

    pub fn run(&self, input: Input) -> Exec {
        self.jobs.send(input).expect("worker alive");
        match self.results.recv_timeout(self.timeout) {
            Ok(r) => Exec::Done(r),
            Err(_) => Exec::Hang,
        }
    }
}

/// The inputs of a fuzzing session of one format: the corpus first (with
/// default options), then `mutants` mutants, all from `seed`.
pub struct Session {
    pub format: Format,
    pub corpus: Vec<Vec<u8>>,
    labels: Vec<Vec<u8>>,
    mutator: Mutator,
    next_seed: usize,
    pub max_memory: u64,
}

impl Session {
    pub fn new(format: Format, seed: u64, max_memory: u64) -> Self {
        Session {
            format,
            corpus: corpus(format),
            labels: vec![
                idx(0x08, &[4], &[3, 1, 3, 0]),
                idx(0x08, &[2], &[1, 2]),
                idx(0x0D, &[4], &[0x7f, 0xc0, 0, 0].repeat(4)),
            ],
            mutator: Mutator::new(seed ^ (format as u64).wrapping_mul(0x9e37_79b9)),
            next_seed: 0,
            max_memory,
        }
    }

    /// The next input: a corpus entry as it is while any are left, then
    /// mutants.
    pub fn next_input(&mut self) -> Input {
        let companion =
            (self.format == Format::Idx && self.mutator.rng.random_bool(0.3)).then(|| {
                let base = self.labels[self.mutator.rng.random_range(0..self.labels.len())].clone();
                if self.mutator.rng.random_bool(0.5) {
                    base
                } else {
                    self.mutator
                        .mutate(Format::Idx, std::slice::from_ref(&base))
                }
            });
        if self.next_seed < self.corpus.len() {
            let data = self.corpus[self.next_seed].clone();
            self.next_seed += 1;
            return Input {
                format: self.format,
                data,
                companion,
                opts: LoadOptions {
                    max_memory: Some(self.max_memory),
                    ..LoadOptions::default()
                },
            };
        }
        let data = self.mutator.mutate(self.format, &self.corpus);
        let opts = self.mutator.options(self.max_memory);
        Input {
            format: self.format,
            data,
            companion,
            opts,
        }
    }

    pub fn seeds_done(&self) -> bool {
        self.next_seed >= self.corpus.len()
    }
}

/// Saves a failing input for reproduction; returns where.
pub fn save(input: &Input, tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}-{}", input.format.file_name()));
    std::fs::write(&path, &input.data).unwrap();
    if let Some(c) = &input.companion {
        std::fs::write(dir.join(format!("{tag}-input-labels-idx1-ubyte")), c).unwrap();
    }
    path
}
