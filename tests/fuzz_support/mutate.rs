//! The mutator: generic byte-level changes and changes that know where a
//! format keeps its header fields, from one seeded ChaCha stream.

use super::Format;
#[cfg(feature = "parquet")]
use super::columnar::{Parquet, T, ipc_fields};
use super::corpus::{gzip, idx, inflate_some, zlib};
use meanscape::data::{LabelChoice, LoadOptions, Missing};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
            Format::Delimited | Format::Svmlight | Format::Mtx => self.generic(b, corpus),
            Format::Npz => self.npz_member(b),
            #[cfg(feature = "parquet")]
            Format::Parquet => self.parquet_field(b, corpus),
            #[cfg(feature = "parquet")]
            Format::Arrow => self.ipc_field(b, corpus),
            #[cfg(not(feature = "parquet"))]
            Format::Parquet | Format::Arrow => self.generic(b, corpus),
        }
    }

    /// Mutates one `.npy` member of a `.npz` (as a `.npy` is mutated) and
    /// zips the members again, stored or deflated, so that the change
    /// reaches the reader past the zip's checksums.
    fn npz_member(&mut self, b: &mut Vec<u8>) {
        let Some(mut members) = super::corpus::unzip(b) else {
            return;
        };
        if members.is_empty() {
            return;
        }
        let at = self.rng.random_range(0..members.len());
        if self.rng.random_bool(0.2) {
            members.remove(at);
        } else {
            self.npy_field(&mut members[at].1);
        }
        let named: Vec<(&str, Vec<u8>)> = members
            .iter()
            .map(|(n, d)| (n.as_str(), d.clone()))
            .collect();
        *b = super::corpus::npz(&named, self.rng.random_bool(0.5));
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
            ignore_non_numeric: false,
            dtype: None,
            // No draw from the generator: the saved cases replay as before.
            keep_label_column: false,
            weights: None,
        }
    }
}

#[cfg(feature = "parquet")]
impl Mutator {
    /// An interesting value of the width of `v` (which it replaces).
    fn like(&mut self, v: &T) -> T {
        let x = self.interesting();
        let x = if self.rng.random_bool(0.2) {
            x.wrapping_neg()
        } else {
            x
        };
        match v {
            T::Byte(_) => T::Byte(x as i8),
            T::I16(_) => T::I16(x as i16),
            T::I32(_) => T::I32(x as i32),
            T::Bool(b) => T::Bool(!b),
            T::Double(_) => T::Double(f64::from_bits(x)),
            _ => T::I64(x as i64),
        }
    }

    /// Changes one value of a Thrift tree: an integer, a list's declared
    /// count or its elements, a string's declared length or its bytes.
    fn thrift_value(&mut self, v: &mut T) {
        match v {
            T::List(_, items, n) => match self.rng.random_range(0..3) {
                0 => *n = Some(self.interesting()),
                1 if !items.is_empty() => {
                    let k = self.rng.random_range(0..items.len());
                    let copy = items[k].clone();
                    items.insert(k, copy);
                }
                _ if !items.is_empty() => {
                    items.remove(self.rng.random_range(0..items.len()));
                }
                _ => {}
            },
            T::Bin(b, n) => {
                if self.rng.random_bool(0.5) {
                    *n = Some(self.interesting());
                } else {
                    self.generic(b, &[]);
                }
            }
            T::Struct(_) | T::Map(..) => {}
            other => *other = self.like(other),
        }
    }

    /// Picks a value of a Thrift tree, or a field of `hot` (ids from the
    /// root, the last the field changed) when it is there.
    fn thrift_change(&mut self, t: &mut T, hot: &[&[i16]]) {
        if self.rng.random_bool(0.5) {
            let path = hot[self.rng.random_range(0..hot.len())];
            let mut at = Some(&mut *t);
            for &id in path {
                at = at.and_then(|v| {
                    if let T::List(_, items, _) = v {
                        let k = items.len();
                        if k == 0 {
                            return None;
                        }
                        let pick = self.rng.random_range(0..k);
                        items[pick].get_mut(id)
                    } else {
                        v.get_mut(id)
                    }
                });
            }
            if let Some(v) = at {
                self.thrift_value(v);
                return;
            }
        }
        let mut paths = Vec::new();
        t.paths(&mut paths, &mut Vec::new());
        if paths.is_empty() {
            return;
        }
        let p = paths[self.rng.random_range(0..paths.len())].clone();
        if let Some(v) = t.at_mut(&p) {
            self.thrift_value(v);
        }
    }

    fn parquet_field(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let Some(mut pq) = Parquet::parse(b) else {
            return self.generic(b, corpus);
        };
        match self.rng.random_range(0..4) {
            0 => {
                // The footer: schema counts and types, row counts, the
                // column chunks' codec, sizes, offsets and value counts.
                const HOT: [&[i16]; 9] = [
                    &[2, 5],
                    &[2, 1],
                    &[2],
                    &[3],
                    &[4, 3],
                    &[4, 1, 3, 4],
                    &[4, 1, 3, 5],
                    &[4, 1, 3, 7],
                    &[4, 1, 3, 9],
                ];
                self.thrift_change(&mut pq.footer, &HOT);
            }
            1 | 2 => {
                // A page header: its type, sizes, CRC, value or entry
                // counts, encoding, level sizes.
                const HOT: [&[i16]; 9] = [
                    &[1],
                    &[2],
                    &[3],
                    &[4],
                    &[5, 1],
                    &[7, 1],
                    &[8, 1],
                    &[8, 5],
                    &[5, 2],
                ];
                let n = pq.pages_mut().count();
                if n > 0 {
                    let k = self.rng.random_range(0..n);
                    let page = pq.pages_mut().nth(k).expect("a page");
                    self.thrift_change(&mut page.header, &HOT);
                }
            }
            _ => {
                // A page's bytes, its header mostly kept consistent.
                let n = pq.pages_mut().count();
                if n > 0 {
                    let k = self.rng.random_range(0..n);
                    let page = pq.pages_mut().nth(k).expect("a page");
                    self.generic(&mut page.data, &[]);
                    if self.rng.random_bool(0.8) {
                        let len = page.data.len() as i32;
                        page.header.set(3, T::I32(len));
                    }
                }
            }
        }
        *b = pq.build();
    }

    fn ipc_field(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let fields = ipc_fields(b);
        if fields.is_empty() {
            return self.generic(b, corpus);
        }
        let (at, width) = fields[self.rng.random_range(0..fields.len())];
        let v = self.interesting();
        let v = if self.rng.random_bool(0.2) {
            v.wrapping_neg()
        } else {
            v
        };
        for (k, x) in v.to_le_bytes().into_iter().take(width).enumerate() {
            if let Some(s) = b.get_mut(at + k) {
                *s = x;
            }
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
