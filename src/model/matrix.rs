//! Matrices in the model's JSON: an array of rows.

use ndarray::Array2;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub fn serialize<S: Serializer>(m: &Array2<f64>, s: S) -> Result<S::Ok, S::Error> {
    let rows: Vec<Vec<f64>> = m.rows().into_iter().map(|r| r.to_vec()).collect();
    rows.serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Array2<f64>, D::Error> {
    let rows: Vec<Vec<f64>> = Vec::deserialize(d)?;
    let cols = rows.first().map_or(0, Vec::len);
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
        return Err(serde::de::Error::custom(format!(
            "row {i} of a matrix has {} values, row 0 has {cols}",
            r.len()
        )));
    }
    let n = rows.len();
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    Array2::from_shape_vec((n, cols), flat).map_err(serde::de::Error::custom)
}
