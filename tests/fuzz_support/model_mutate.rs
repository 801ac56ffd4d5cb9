//! The mutator of model files, from one seeded ChaCha stream: changes
//! that know the JSON structure (numbers made huge, negative, fractional
//! or strings such as "NaN"; arrays lengthened, shortened or emptied;
//! fields deleted or added; kinds and algorithms swapped; values nested
//! deeply; control characters in strings; declared sizes blown up with
//! compact arrays to match) and plain byte changes of the text.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const NUMBERS: [f64; 20] = [
    0.0,
    -0.0,
    -1.0,
    0.5,
    1.5,
    1e300,
    -1e300,
    1e308,
    -1.7976931348623157e308,
    5e-324,
    1e-310,
    2147483647.0,
    -2147483648.0,
    4294967296.0,
    9007199254740993.0,
    1e19,
    18446744073709551615.0,
    1e154,
    3.4e153,
    -9.3e18,
];

const WHOLE: [i128; 12] = [
    0,
    1,
    2,
    3,
    -1,
    255,
    65536,
    1_000_000,
    2_147_483_647,
    -2_147_483_648,
    18_446_744_073_709_551_615,
    -9_223_372_036_854_775_808,
];

const STRINGS: [&str; 16] = [
    "NaN",
    "inf",
    "-Infinity",
    "1e400",
    "",
    "centroids",
    "weighted",
    "kernel",
    "rff",
    "precomputed",
    "gaussian:sigma=-1",
    "poly:a=1e300,b=4000000000",
    "linear",
    "spectral",
    "meanscape-model",
    "standard",
];

const ALGORITHMS: [&str; 14] = [
    "kmeans",
    "khm",
    "power",
    "kernel-kmeans",
    "kpower",
    "mkpower",
    "dmkkm",
    "mkkm",
    "rff-power",
    "rff-mkpower",
    "ip-rff-mkpower",
    "wkmeans",
    "lw",
    "sparse-kmeans",
];

const CONTROLS: [&str; 8] = [
    "\u{1b}[2J",
    "\n",
    "\r",
    "\u{7}",
    "\u{0}",
    "\u{7f}",
    "\u{9b}31m",
    "\u{202e}",
];

/// Fields that declare sizes: blown up, they test the budget checks.
const SIZES: [&str; 5] = ["k", "n_features", "rff_dim", "n", "restarts"];

pub struct ModelMutator {
    pub rng: ChaCha8Rng,
}

/// Where a value is: keys and indices from the root.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Array(a) => {
            // Every row of a big matrix would drown the rest: a few.
            for (i, x) in a.iter().enumerate().take(4) {
                at.push(Step::Index(i));
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                at.push(Step::Key(k.clone()));
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    let mut cur = v;
    for s in path {
        cur = match s {
            Step::Key(k) => &mut cur[k.as_str()],
            Step::Index(i) => &mut cur[*i],
        };
    }
    cur
}

impl ModelMutator {
    pub fn new(seed: u64) -> Self {
        ModelMutator {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// A mutant of one of `seeds` (parsed JSON).
    pub fn mutate(&mut self, seeds: &[Value]) -> Vec<u8> {
        let mut v = seeds.choose(&mut self.rng).expect("a corpus").clone();
        let structural = self.rng.random_range(0..4usize);
        for _ in 0..structural.max(1) {
            self.structural(&mut v);
        }
        let text = if self.rng.random_bool(0.5) {
            v.to_string()
        } else {
            serde_json::to_string_pretty(&v).unwrap()
        };
        let mut bytes = expand(&text).into_bytes();
        if self.rng.random_bool(0.25) {
            for _ in 0..self.rng.random_range(1..4) {
                self.bytes(&mut bytes);
            }
        }
        bytes
    }

    fn number(&mut self) -> Value {
        if self.rng.random_bool(0.5) {
            json!(*NUMBERS.choose(&mut self.rng).unwrap())
        } else {
            let w = *WHOLE.choose(&mut self.rng).unwrap();
            if let Ok(u) = u64::try_from(w) {
                json!(u)
            } else {
                json!(w as i64)
            }
        }
    }

    fn structural(&mut self, v: &mut Value) {
        let mut all = Vec::new();
        paths(v, &mut Vec::new(), &mut all);
        let path = all.choose(&mut self.rng).unwrap().clone();
        let node = get_mut(v, &path);
        match self.rng.random_range(0..14u32) {
            // A number: extreme, whole, fractional, or a string.
            0..=2 => {
                *node = match self.rng.random_range(0..3u32) {
                    0 => json!(*STRINGS[..4].choose(&mut self.rng).unwrap()),
                    _ => self.number(),
                };
            }
            // Another type altogether.
            3 => {
                *node = match self.rng.random_range(0..6u32) {
                    0 => Value::Null,
                    1 => json!(true),
                    2 => json!({}),
                    3 => json!([]),
                    4 => json!(*STRINGS.choose(&mut self.rng).unwrap()),
                    _ => json!([[1, 2], [3]]),
                };
            }
            // An array lengthened, shortened or emptied.
            4 | 5 => {
                if let Value::Array(a) = node {
                    match self.rng.random_range(0..4u32) {
                        0 => a.clear(),
                        1 => {
                            let keep = self.rng.random_range(0..=a.len());
                            a.truncate(keep);
                        }
                        2 if !a.is_empty() => {
                            let times = self.rng.random_range(1..4);
                            let copy = a.clone();
                            for _ in 0..times {
                                a.extend(copy.iter().cloned());
                            }
                        }
                        _ => {
                            let n = self.number();
                            a.push(n);
                        }
                    }
                } else {
                    *node = json!([]);
                }
            }
            // A field deleted, or an unknown one added.
            6 => {
                if let Value::Object(o) = node {
                    if !o.is_empty() && self.rng.random_bool(0.7) {
                        let i = self.rng.random_range(0..o.len());
                        let key = o.keys().nth(i).unwrap().clone();
                        o.remove(&key);
                    } else {
                        o.insert("extra".into(), json!([1, [2, {"x": null}]]));
                    }
                }
            }
            // Kinds and algorithms swapped.
            7 => {
                if self.rng.random_bool(0.5) {
                    let a = json!(*ALGORITHMS.choose(&mut self.rng).unwrap());
                    put(v, &["algorithm"], a);
                } else {
                    let k = json!(*STRINGS[5..10].choose(&mut self.rng).unwrap());
                    put(v, &["model", "kind"], k);
                }
            }
            // Deep nesting.
            8 => {
                let depth = self.rng.random_range(20..300);
                let mut x = self.number();
                for i in 0..depth {
                    x = if i % 2 == 0 {
                        json!([x])
                    } else {
                        json!({ "a": x })
                    };
                }
                *node = x;
            }
            // Control characters in a string (or a key).
            9 => {
                let c = *CONTROLS.choose(&mut self.rng).unwrap();
                match node {
                    Value::String(s) => {
                        let at = s
                            .char_indices()
                            .map(|(i, _)| i)
                            .collect::<Vec<_>>()
                            .choose(&mut self.rng)
                            .copied()
                            .unwrap_or(0);
                        s.insert_str(at, c);
                    }
                    Value::Object(o) => {
                        o.insert(format!("key{c}"), json!(1));
                    }
                    _ => put(v, &["algorithm"], json!(format!("power{c}"))),
                }
            }
            // A declared size blown up, with compact arrays to match.
            10 => self.blow_up(v),
            // A size field set to a huge or odd whole number.
            11 => {
                let field = *SIZES.choose(&mut self.rng).unwrap();
                let n = self.number();
                set_everywhere(v, field, &n);
            }
            // The whole payload of another kind's shape.
            12 => {
                if let Some(o) = at(v, &["model"]).and_then(Value::as_object_mut) {
                    let (k, x) = match self.rng.random_range(0..3u32) {
                        0 => (
                            "maps",
                            json!([{"columns": [0, 1], "sigma": 1, "rff_dim": 2, "rff_seed": 0, "stream": 0, "weight": 1, "centres": [[0, 0, 0, 0]]}]),
                        ),
                        1 => (
                            "kernels",
                            json!([{"spec": "gaussian:sigma=1", "columns": [0, 1], "weight": 1, "within": [0]}]),
                        ),
                        _ => ("centroids", json!([[0.0]])),
                    };
                    o.insert(k.into(), x);
                }
            }
            // A value replaced by a big number or a long string.
            _ => {
                *node = if self.rng.random_bool(0.5) {
                    json!("x".repeat(self.rng.random_range(1000..6000)))
                } else {
                    zeros(self.rng.random_range(1000..50_000), 0)
                };
            }
        }
    }

    /// Sets k (or D) to a large value and fills the arrays it sizes with
    /// zeros written compactly: little text, many numbers declared.
    fn blow_up(&mut self, v: &mut Value) {
        let big = *[1_000usize, 20_000, 200_000].choose(&mut self.rng).unwrap();
        let num = |v: &mut Value, keys: &[&str]| at(v, keys).and_then(|x| x.as_u64());
        let p = num(v, &["n_features"]).unwrap_or(4).min(8) as usize;
        let map = at(v, &["model", "maps"])
            .and_then(Value::as_array_mut)
            .and_then(|m| m.first_mut())
            .filter(|m| m.is_object())
            .is_some();
        if self.rng.random_bool(0.5) || !map {
            put(v, &["k"], json!(big));
            let n = num(v, &["fit", "n"]).unwrap_or(1);
            put(v, &["fit", "sizes"], zeros(big, n));
            if at(v, &["model", "centroids"]).is_some() {
                put(v, &["model", "centroids"], rows(big, p));
            }
        } else {
            let d = big.min(50_000);
            let k = num(v, &["k"]).unwrap_or(1).min(4) as usize;
            let m = &mut v["model"]["maps"][0];
            m["rff_dim"] = json!(d);
            m["centres"] = rows(k, 2 * d);
        }
    }

    fn bytes(&mut self, b: &mut Vec<u8>) {
        if b.is_empty() {
            b.push(b'{');
            return;
        }
        let at = self.rng.random_range(0..b.len());
        match self.rng.random_range(0..6u32) {
            0 => b[at] ^= 1 << self.rng.random_range(0..8),
            1 => b[at] = self.rng.random(),
            2 => b.truncate(at),
            3 => {
                let tok: &[u8] = [
                    b"\0".as_slice(),
                    b"\xff\xfe",
                    b"]",
                    b"}",
                    b",",
                    b"\"",
                    b"1e999",
                    b"-",
                    b"\\u0000",
                    b"\\ud800",
                ]
                .choose(&mut self.rng)
                .unwrap();
                b.splice(at..at, tok.iter().copied());
            }
            4 => {
                let end = (at + self.rng.random_range(1..64)).min(b.len());
                let piece = b[at..end].to_vec();
                b.splice(at..at, piece);
            }
            _ => {
                let end = (at + self.rng.random_range(1..32)).min(b.len());
                b.drain(at..end);
            }
        }
    }
}

/// A placeholder for `len` numbers, the first `first` and the others 0,
/// written out by [`expand`]: big arrays without big JSON values.
fn zeros(len: usize, first: u64) -> Value {
    json!(format!("@@nums:{len}:{first}@@"))
}

/// A placeholder for a rows × cols matrix of zeros.
fn rows(rows: usize, cols: usize) -> Value {
    json!(format!("@@rows:{rows}:{cols}@@"))
}

/// The text with its placeholders written out (compactly).
fn expand(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("\"@@") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 3..];
        let Some(j) = tail.find("@@\"") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let parts: Vec<&str> = tail[..j].split(':').collect();
        let nums: Vec<usize> = parts[1..].iter().filter_map(|p| p.parse().ok()).collect();
        match (parts[0], nums.as_slice()) {
            ("nums", &[len, first]) if len > 0 => {
                out.push('[');
                out.push_str(&first.to_string());
                out.push_str(&",0".repeat(len - 1));
                out.push(']');
            }
            ("rows", &[r, c]) if c > 0 => {
                let row = format!("[0{}]", ",0".repeat(c - 1));
                out.push('[');
                out.push_str(&vec![row; r].join(","));
                out.push(']');
            }
            _ => out.push_str("[]"),
        }
        rest = &tail[j + 3..];
    }
    out.push_str(rest);
    out
}

/// The value at `keys` (objects all the way), if the mutants so far left
/// one there.
fn at<'a>(v: &'a mut Value, keys: &[&str]) -> Option<&'a mut Value> {
    keys.iter()
        .try_fold(v, |cur, k| cur.as_object_mut()?.get_mut(*k))
}

/// Sets the value at `keys` when its parent is an object.
fn put(v: &mut Value, keys: &[&str], to: Value) {
    let (last, parent) = keys.split_last().unwrap();
    if let Some(o) = at(v, parent).and_then(Value::as_object_mut) {
        o.insert((*last).to_string(), to);
    }
}

/// Sets every field named `name` to `to`.
fn set_everywhere(v: &mut Value, name: &str, to: &Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if k == name {
                    *x = to.clone();
                } else {
                    set_everywhere(x, name, to);
                }
            }
        }
        Value::Array(a) => a
            .iter_mut()
            .take(8)
            .for_each(|x| set_everywhere(x, name, to)),
        _ => {}
    }
}
