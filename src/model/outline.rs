//! The first pass over a model file: its JSON structure with every array
//! of numbers summarised (length, range, whole-number sum) instead of
//! stored. What the model declares (k, n_features, D, array lengths) is
//! checked on this outline, against itself and the memory budget, before
//! the second pass builds any array: a file of a few megabytes that
//! declares a billion numbers is refused here, in constant memory.
//!
//! Everything that is not a number inside an array (objects, strings,
//! lists of objects) is stored, and bounded: at most [`MAX_NODES`] values
//! and [`MAX_TEXT`] bytes of text in all, each text at most
//! [`MAX_STRING`] bytes. serde_json's own recursion limit (128) bounds
//! the nesting.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt;

/// Values stored outside arrays of numbers (object entries, list items).
pub(super) const MAX_NODES: usize = 50_000;
/// Bytes of text (strings and keys) stored in all.
pub(super) const MAX_TEXT: usize = 1 << 20;
/// Bytes of one string or key.
pub(super) const MAX_STRING: usize = 4096;

/// A JSON number as read: a whole number keeps its sign and exactness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::U(v) => v as f64,
            Num::I(v) => v as f64,
            Num::F(v) => v,
        }
    }
}

/// An array of numbers, summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Nums {
    pub len: u64,
    /// Every value is a whole number ≥ 0 written without a fraction or
    /// exponent (true for an empty array).
    pub all_uint: bool,
    /// Every value is a whole number (of either sign).
    pub all_int: bool,
    pub min: f64,
    pub max: f64,
    pub max_abs: f64,
    /// The sum of the values when all are whole and ≥ 0 (saturating).
    pub sum_uint: u128,
    /// The first and the last value (NaN for an empty array).
    pub first: f64,
    pub last: f64,
}

impl Nums {
    fn empty() -> Nums {
        Nums {
            len: 0,
            all_uint: true,
            all_int: true,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            max_abs: 0.0,
            sum_uint: 0,
            first: f64::NAN,
            last: f64::NAN,
        }
    }

    fn push(&mut self, n: Num) {
        self.len += 1;
        match n {
            Num::U(v) => self.sum_uint = self.sum_uint.saturating_add(u128::from(v)),
            Num::I(_) => self.all_uint = false,
            Num::F(_) => {
                self.all_uint = false;
                self.all_int = false;
            }
        }
        let v = n.as_f64();
        if self.len == 1 {
            self.first = v;
        }
        self.last = v;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.max_abs = self.max_abs.max(v.abs());
    }

    fn merge(&mut self, o: &Nums) {
        if self.len == 0 {
            self.first = o.first;
        }
        if o.len > 0 {
            self.last = o.last;
        }
        self.len += o.len;
        self.all_uint &= o.all_uint;
        self.all_int &= o.all_int;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.max_abs = self.max_abs.max(o.max_abs);
        self.sum_uint = self.sum_uint.saturating_add(o.sum_uint);
    }
}

/// An array of arrays of numbers, all of one length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Matrix {
    pub rows: u64,
    pub cols: u64,
    pub cells: Nums,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    /// An array of numbers (`[]` included).
    Nums(Nums),
    /// A non-empty array of arrays of numbers of one length.
    Matrix(Matrix),
    /// Any other array.
    List(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    /// What the value is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Num(_) => "a number",
            Node::Str(_) => "a string",
            Node::Nums(_) => "an array of numbers",
            Node::Matrix(_) => "an array of arrays of numbers",
            Node::List(_) => "an array",
            Node::Object(_) => "an object",
        }
    }
}

/// Where a value is in the file: `model.maps[0].centres`.
#[derive(Clone, Copy)]
pub(super) enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, u64),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Root => f.write_str("the top level"),
            At::Key(At::Root, k) => f.write_str(&crate::text::printable(k, &[])),
            At::Key(p, k) => write!(f, "{p}.{}", crate::text::printable(k, &[])),
            At::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

/// What the first pass keeps across the file.
struct Tally {
    nodes: Cell<usize>,
    text: Cell<usize>,
}

impl Tally {
    fn node<E: de::Error>(&self, at: &At) -> Result<(), E> {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > MAX_NODES {
            return Err(E::custom(format!(
                "{at}: more than {MAX_NODES} values outside arrays of numbers; a model has a few dozen"
            )));
        }
        Ok(())
    }

    fn text<E: de::Error>(&self, at: &At, s: &str) -> Result<(), E> {
        if s.len() > MAX_STRING {
            return Err(E::custom(format!(
                "{at}: a text of {} bytes (at most {MAX_STRING})",
                s.len()
            )));
        }
        let t = self.text.get() + s.len();
        self.text.set(t);
        if t > MAX_TEXT {
            return Err(E::custom(format!(
                "{at}: more than {MAX_TEXT} bytes of text in all"
            )));
        }
        Ok(())
    }
}

/// The outline of `text`, or serde_json's error (syntax, nesting, or one
/// of the bounds above, with where).
pub(super) fn outline(text: &str) -> serde_json::Result<Node> {
    let tally = Tally {
        nodes: Cell::new(0),
        text: Cell::new(0),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let node = Seed {
        at: &At::Root,
        tally: &tally,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(node)
}

#[derive(Clone, Copy)]
struct Seed<'a> {
    at: &'a At<'a>,
    tally: &'a Tally,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Node;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(self)
    }
}

/// The state of an array as its items arrive.
enum Items {
    Empty,
    Nums(Nums),
    Matrix(Matrix),
    List(Vec<Node>),
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Num(Num::U(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(if v >= 0 {
            Node::Num(Num::U(v as u64))
        } else {
            Node::Num(Num::I(v))
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Num(Num::F(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        self.tally.text(self.at, v)?;
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Items::Empty;
        let mut i: u64 = 0;
        loop {
            let at = At::Index(self.at, i);
            let Some(item) = seq.next_element_seed(Seed {
                at: &at,
                tally: self.tally,
            })?
            else {
                break;
            };
            items = match (items, item) {
                (Items::Empty, Node::Num(n)) => {
                    let mut s = Nums::empty();
                    s.push(n);
                    Items::Nums(s)
                }
                (Items::Nums(mut s), Node::Num(n)) => {
                    s.push(n);
                    Items::Nums(s)
                }
                (Items::Nums(_), other) => {
                    return Err(de::Error::custom(format!(
                        "{at}: {} in an array of numbers",
                        other.kind()
                    )));
                }
                (Items::Empty, Node::Nums(r)) => Items::Matrix(Matrix {
                    rows: 1,
                    cols: r.len,
                    cells: r,
                }),
                (Items::Matrix(mut m), Node::Nums(r)) => {
                    if r.len != m.cols {
                        return Err(de::Error::custom(format!(
                            "{}: row {i} has {} values, row 0 has {}",
                            self.at, r.len, m.cols
                        )));
                    }
                    m.rows += 1;
                    m.cells.merge(&r);
                    Items::Matrix(m)
                }
                (Items::Matrix(_), other) => {
                    return Err(de::Error::custom(format!(
                        "{at}: {} in an array of rows of numbers",
                        other.kind()
                    )));
                }
                (Items::Empty, other) => {
                    self.tally.node(&at)?;
                    Items::List(vec![other])
                }
                (Items::List(mut v), other) => {
                    self.tally.node(&at)?;
                    v.push(other);
                    Items::List(v)
                }
            };
            i += 1;
        }
        Ok(match items {
            Items::Empty => Node::Nums(Nums::empty()),
            Items::Nums(s) => Node::Nums(s),
            Items::Matrix(m) => Node::Matrix(m),
            Items::List(v) => Node::List(v),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key_seed(Key {
            at: self.at,
            tally: self.tally,
        })? {
            let at = At::Key(self.at, &key);
            self.tally.node(&at)?;
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("{at}: the field appears twice")));
            }
            let value = map.next_value_seed(Seed {
                at: &at,
                tally: self.tally,
            })?;
            entries.push((key, value));
        }
        Ok(Node::Object(entries))
    }
}

/// An object's key, bounded as the strings are.
struct Key<'a> {
    at: &'a At<'a>,
    tally: &'a Tally,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.tally.text(self.at, v)?;
        Ok(v.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_of_numbers_are_summarised_not_stored() {
        let n = outline(r#"{"a": [1, 2, 3], "m": [[1, -2.5], [3, 4]], "e": [], "l": [{}, "x"]}"#)
            .unwrap();
        let Node::Object(e) = n else { panic!() };
        let Node::Nums(a) = &e[0].1 else { panic!() };
        assert_eq!((a.len, a.all_uint, a.sum_uint, a.max), (3, true, 6, 3.0));
        let Node::Matrix(m) = &e[1].1 else { panic!() };
        assert_eq!(
            (m.rows, m.cols, m.cells.all_int, m.cells.min),
            (2, 2, false, -2.5)
        );
        assert!(matches!(&e[2].1, Node::Nums(s) if s.len == 0));
        assert!(matches!(&e[3].1, Node::List(v) if v.len() == 2));
    }

    #[test]
    fn ragged_mixed_duplicate_and_oversized_inputs_name_where() {
        let e = outline(r#"{"m": {"c": [[1, 2], [3]]}}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.c: row 1 has 1 values, row 0 has 2"),
            "{e}"
        );
        let e = outline(r#"{"a": [1, "x"]}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a[1]: a string in an array of numbers"),
            "{e}"
        );
        let e = outline(r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert!(
            e.to_string().starts_with("a: the field appears twice"),
            "{e}"
        );
        let long = format!(r#"{{"a": "{}"}}"#, "x".repeat(MAX_STRING + 1));
        assert!(
            outline(&long)
                .unwrap_err()
                .to_string()
                .starts_with("a: a text of")
        );
        let many = format!("[{}{{}}]", "{},".repeat(MAX_NODES));
        assert!(
            outline(&many)
                .unwrap_err()
                .to_string()
                .contains("more than")
        );
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(
            outline(&deep)
                .unwrap_err()
                .to_string()
                .contains("recursion limit")
        );
        let e = outline("{\"\\u001b[31m\": [1, \"x\"]}")
            .unwrap_err()
            .to_string();
        assert!(!e.chars().any(char::is_control), "{e}");
    }
}
