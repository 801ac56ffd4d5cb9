//! Matrices in the model's JSON: an array of rows. Read straight into one
//! flat buffer (no vector per row), so building a matrix takes its own
//! size (twice, at worst, while the buffer grows), never more.

use ndarray::Array2;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserializer, Serialize, Serializer};
use std::fmt;

pub fn serialize<S: Serializer>(m: &Array2<f64>, s: S) -> Result<S::Ok, S::Error> {
    let rows: Vec<Vec<f64>> = m.rows().into_iter().map(|r| r.to_vec()).collect();
    rows.serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Array2<f64>, D::Error> {
    d.deserialize_seq(Rows)
}

struct Rows;

impl<'de> Visitor<'de> for Rows {
    type Value = Array2<f64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows of numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Array2<f64>, A::Error> {
        let mut flat: Vec<f64> = Vec::new();
        let mut cols = None;
        let mut n = 0usize;
        loop {
            let before = flat.len();
            if seq.next_element_seed(Row(&mut flat))?.is_none() {
                break;
            }
            let len = flat.len() - before;
            match cols {
                None => cols = Some(len),
                Some(c) if c != len => {
                    return Err(de::Error::custom(format!(
                        "row {n} of a matrix has {len} values, row 0 has {c}"
                    )));
                }
                Some(_) => {}
            }
            n += 1;
        }
        Array2::from_shape_vec((n, cols.unwrap_or(0)), flat).map_err(de::Error::custom)
    }
}

/// One row, appended to the flat buffer.
struct Row<'a>(&'a mut Vec<f64>);

impl<'de> DeserializeSeed<'de> for Row<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Row<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row of numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<f64>()? {
            if self.0.len() == self.0.capacity() {
                let more = self.0.capacity().max(64);
                self.0
                    .try_reserve(more)
                    .map_err(|_| de::Error::custom("out of memory for a matrix"))?;
            }
            self.0.push(v);
        }
        Ok(())
    }
}
