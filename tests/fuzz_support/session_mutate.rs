//! Mutations of session files (JSON) for tests/fuzz_sessions.rs, from one
//! seeded ChaCha stream: structure-aware ones (the file parsed, one node
//! changed: another type, an extreme number, a tricky string, a key
//! dropped or added, an array grown, deep nesting, a node of another
//! session spliced in) and byte-level ones (bits flipped, ranges cut or
//! repeated, JSON tokens inserted, files spliced).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

/// The largest input made (bigger ones are cut).
const MAX_INPUT: usize = 1 << 20;

/// Field names of the layout, for keys added or renamed.
const KEYS: [&str; 34] = [
    "meanscape_session",
    "settings",
    "history",
    "entries",
    "pinned",
    "sort",
    "descending",
    "data",
    "algo",
    "k",
    "seed",
    "restarts",
    "init",
    "scale",
    "overrides",
    "options",
    "id",
    "params",
    "changed",
    "trace",
    "sizes",
    "selected",
    "selected_names",
    "n_features",
    "command",
    "nmi",
    "objective",
    "iterations",
    "converged",
    "elapsed_ms",
    "max_memory",
    "kernel",
    "value",
    "param",
];

const TOKENS: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "\\",
    "\\u0000",
    "\\ud800",
    "1e999",
    "-0",
    "tru",
    "nul",
    "NaN",
    "Infinity",
    "18446744073709551616",
    "-9223372036854775809",
    "0.",
    ".5",
    "\u{feff}",
    "\0",
    "\n",
    "\"\":",
];

pub struct JsonMutator {
    pub rng: ChaCha8Rng,
}

/// The number of nodes of `v` (itself included).
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

/// The `i`-th node of `v` in pre-order (`i < count(v)`).
fn node(v: &mut Value, mut i: usize) -> &mut Value {
    if i == 0 {
        return v;
    }
    i -= 1;
    let children: Vec<&mut Value> = match v {
        Value::Array(a) => a.iter_mut().collect(),
        Value::Object(o) => o.values_mut().collect(),
        _ => unreachable!("a leaf has no node {i}"),
    };
    for c in children {
        let n = count(c);
        if i < n {
            return node(c, i);
        }
        i -= n;
    }
    unreachable!("fewer nodes than counted")
}

impl JsonMutator {
    pub fn new(seed: u64) -> Self {
        JsonMutator {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.random_range(0..xs.len())]
    }

    /// A value that tests a reader: another type, an extreme, a string
    /// that would break a line or a terminal.
    fn interesting(&mut self) -> Value {
        let long = "x".repeat(self.rng.random_range(1..20_000));
        let options = [
            Value::Null,
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(1),
            json!(2),
            json!(255),
            json!(65_535),
            json!(u32::MAX),
            json!(u64::from(u32::MAX) + 1),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(usize::MAX),
            json!(1e308),
            json!(-1e308),
            json!(5e-324),
            json!(0.5),
            json!(-0.0),
            json!(""),
            json!("x"),
            json!("iris"),
            json!("power"),
            json!("gen:blobs,n=1000000000,p=1000"),
            json!("/dev/zero"),
            json!("\u{1b}[2J\u{1b}[?1049l"),
            json!("a\nb\rc\td"),
            json!("\u{202e}\u{0}\u{7f}"),
            json!(long),
            json!([]),
            json!({}),
            json!([1, 2]),
            json!([[0, 1.0], [1, -1e308]]),
            json!({"power": 1}),
        ];
        self.pick(&options).clone()
    }

    /// A value of the same JSON type as `v` (for a leaf): an extreme
    /// number, a tricky string, the other boolean.
    fn same_kind(&mut self, v: &Value) -> Option<Value> {
        Some(match v {
            Value::Bool(b) => json!(!b),
            // Integers where the layout has integers (ids, k, seeds).
            Value::Number(x) if x.is_u64() => {
                let xs = [
                    json!(0),
                    json!(1),
                    json!(2),
                    json!(3),
                    json!(1000),
                    json!(u32::MAX),
                    json!(u64::MAX),
                    json!(usize::MAX - 1),
                    json!(x.as_u64().unwrap().wrapping_add(1)),
                ];
                self.pick(&xs).clone()
            }
            Value::Number(_) => {
                let xs = [
                    json!(0),
                    json!(1),
                    json!(2),
                    json!(3),
                    json!(1000),
                    json!(u32::MAX),
                    json!(u64::MAX),
                    json!(usize::MAX - 1),
                    json!(-1),
                    json!(i64::MIN),
                    json!(0.0),
                    json!(-0.0),
                    json!(1e-300),
                    json!(1e300),
                    json!(-1e300),
                    json!(f64::MAX),
                    json!(0.5),
                    json!(-7.25),
                ];
                self.pick(&xs).clone()
            }
            Value::String(_) => {
                let long = "y".repeat(self.rng.random_range(1..20_000));
                let xs = [
                    json!(""),
                    json!("iris"),
                    json!("wine"),
                    json!("kmeans"),
                    json!("kpower"),
                    json!("lw"),
                    json!("no-such-algorithm"),
                    json!("random"),
                    json!("minmax"),
                    json!("none"),
                    json!("nonsense"),
                    json!("gen:blobs,n=1000000000,p=1000"),
                    json!("gen:blobs,n=50,k=3"),
                    json!("/dev/zero"),
                    json!("/nonexistent/x.csv"),
                    json!("Cargo.toml"),
                    json!("\u{1b}[2J\u{1b}[?1049l"),
                    json!("a\nb"),
                    json!("\u{0}"),
                    json!("s0"),
                    json!("eta"),
                    json!("lambda"),
                    json!("rbf"),
                    json!(long),
                ];
                self.pick(&xs).clone()
            }
            _ => return None,
        })
    }

    /// One change at a random node of the parsed file; None when the
    /// bytes are not JSON.
    fn structured(&mut self, b: &[u8], corpus: &[Vec<u8>]) -> Option<Vec<u8>> {
        let mut v: Value = serde_json::from_slice(b).ok()?;
        let donor: Option<Value> = {
            let other = self.pick(corpus).clone();
            serde_json::from_slice::<Value>(&other).ok().map(|mut d| {
                let i = self.rng.random_range(0..count(&d));
                node(&mut d, i).clone()
            })
        };
        let i = self.rng.random_range(0..count(&v));
        let kind = self.rng.random_range(0..12);
        let fresh = self.interesting();
        let same = self.same_kind(node(&mut v, i));
        let key = self.pick(&KEYS).to_string();
        let times = self.rng.random_range(2..2_000);
        let depth = self.rng.random_range(2..400);
        let n = node(&mut v, i);
        let done = match (kind, n.is_object(), n.is_array()) {
            (1, true, _) => {
                let o = n.as_object_mut().unwrap();
                match o.keys().nth(times % o.len().max(1)).cloned() {
                    Some(k) => o.remove(&k).is_some(),
                    None => false,
                }
            }
            (2, true, _) => n
                .as_object_mut()
                .unwrap()
                .insert(key.clone(), fresh.clone())
                .is_none(),
            (3, _, true) => {
                let a = n.as_array_mut().unwrap();
                if a.is_empty() {
                    a.push(fresh.clone());
                } else if times % 7 == 0 {
                    a.clear();
                } else {
                    let x = a[times % a.len()].clone();
                    a.extend(std::iter::repeat_n(x, times));
                }
                true
            }
            (4, _, _) => {
                let mut x = n.take();
                for d in 0..depth {
                    x = if d % 2 == 0 {
                        Value::Array(vec![x])
                    } else {
                        let mut m = Map::new();
                        m.insert("k".into(), x);
                        Value::Object(m)
                    };
                }
                *n = x;
                true
            }
            (5, _, _) => match donor {
                Some(d) => {
                    *n = d;
                    true
                }
                None => false,
            },
            (6, _, _) if n.is_number() => {
                let f = n.as_f64().unwrap_or(0.0);
                *n = match times % 5 {
                    0 => json!(-f),
                    1 => json!(f * 1e300),
                    2 => json!(n.as_u64().map_or(u64::MAX, |u| u.wrapping_add(1))),
                    3 => json!(f + 0.5),
                    _ => json!(
                        n.as_i64()
                            .map_or(i64::MIN, |u| u.wrapping_neg().wrapping_sub(1))
                    ),
                };
                true
            }
            (7, _, _) if n.is_string() => {
                let s = n.as_str().unwrap().to_string();
                *n = Value::String(match times % 4 {
                    0 => s.repeat(times.min(200)),
                    1 => format!("{s}\n{s}"),
                    2 => String::new(),
                    _ => format!("../{s}/\u{0}"),
                });
                true
            }
            // A key renamed.
            (8, true, _) => {
                let o = n.as_object_mut().unwrap();
                match o.keys().nth(times % o.len().max(1)).cloned() {
                    Some(k) => {
                        let x = o.remove(&k).unwrap();
                        o.insert(key, x);
                        true
                    }
                    None => false,
                }
            }
            // The same type, another value: gets past the typed reader to
            // what the UI does with the value.
            (9..=11, _, _) => match same {
                Some(x) => {
                    *n = x;
                    true
                }
                None => false,
            },
            _ => false,
        };
        if !done {
            *n = fresh;
        }
        let out = if self.rng.random_bool(0.5) {
            serde_json::to_vec(&v)
        } else {
            serde_json::to_vec_pretty(&v)
        };
        out.ok()
    }

    /// One format-blind change.
    fn bytes(&mut self, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let len = b.len();
        let at = |rng: &mut ChaCha8Rng| {
            if len == 0 {
                0
            } else {
                rng.random_range(0..=len)
            }
        };
        match self.rng.random_range(0..7) {
            0 if len > 0 => {
                for _ in 0..self.rng.random_range(1..=8) {
                    let i = self.rng.random_range(0..len);
                    b[i] ^= 1 << self.rng.random_range(0..8);
                }
            }
            1 if len > 0 => {
                let i = self.rng.random_range(0..len);
                let j = self.rng.random_range(i..=len);
                b.drain(i..j);
            }
            2 => {
                let i = at(&mut self.rng);
                let t = self.pick(&TOKENS).as_bytes().to_vec();
                b.splice(i..i, t);
            }
            3 if len > 0 => {
                let i = self.rng.random_range(0..len);
                let j = self.rng.random_range(i..=len.min(i + 4096));
                let piece = b[i..j].to_vec();
                let times = self.rng.random_range(1..64);
                let k = at(&mut self.rng);
                b.splice(k..k, piece.repeat(times));
            }
            4 => {
                let i = at(&mut self.rng);
                b.truncate(i);
            }
            5 => {
                let other = self.pick(corpus).clone();
                let i = at(&mut self.rng);
                let j = if other.is_empty() {
                    0
                } else {
                    self.rng.random_range(0..other.len())
                };
                b.truncate(i);
                b.extend_from_slice(&other[j..]);
            }
            _ => {
                // A run of digits made huge.
                if let Some(i) = (0..len)
                    .map(|_| self.rng.random_range(0..len.max(1)))
                    .take(16)
                    .find(|&i| b.get(i).is_some_and(u8::is_ascii_digit))
                {
                    let digits = "9".repeat(self.rng.random_range(1..400));
                    b.splice(i..i, digits.into_bytes());
                }
            }
        }
    }

    /// A mutant of a random corpus entry: one or two changes, most of
    /// them structured.
    pub fn mutate(&mut self, corpus: &[Vec<u8>]) -> Vec<u8> {
        let mut out = self.pick(corpus).clone();
        for _ in 0..self.rng.random_range(1..=2) {
            if self.rng.random_bool(0.8)
                && let Some(b) = self.structured(&out, corpus)
            {
                out = b;
                continue;
            }
            self.bytes(&mut out, corpus);
        }
        out.truncate(MAX_INPUT);
        out
    }
}
