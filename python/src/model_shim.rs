//! TEMPORARY stand-in for `meanscape::model` until it lands: nearest centroid.
use meanscape::algo::{Algorithm, Problem, RunConfig, RunResult};
use meanscape::{Error, Result};
use ndarray::{Array2, ArrayView2};

pub struct Model { c: Array2<f64>, algo: String }
impl Model {
    pub fn from_run(algo: &dyn Algorithm, _p: &Problem, _cfg: &RunConfig, r: &RunResult) -> Result<Model> {
        let c = r.best.centroids.clone().ok_or_else(|| Error::Param(format!("{} has no centres (shim)", algo.id())))?;
        Ok(Model { c, algo: algo.id().into() })
    }
    pub fn distances(&self, x: ArrayView2<f64>) -> Result<Array2<f64>> {
        if x.ncols() != self.c.ncols() { return Err(Error::Param(format!("the model was fit on {} features; the data has {}", self.c.ncols(), x.ncols()))); }
        Ok(Array2::from_shape_fn((x.nrows(), self.c.nrows()), |(i, j)| x.row(i).iter().zip(self.c.row(j)).map(|(a, b)| (a - b) * (a - b)).sum()))
    }
    pub fn predict(&self, x: ArrayView2<f64>) -> Result<Vec<usize>> {
        let d = self.distances(x)?;
        Ok(d.rows().into_iter().map(|r| { let mut b = 0; for j in 0..r.len() { if r[j] < r[b] { b = j; } } b }).collect())
    }
    pub fn n_features(&self) -> usize { self.c.ncols() }
    pub fn k(&self) -> usize { self.c.nrows() }
    pub fn algorithm(&self) -> &str { &self.algo }
    pub fn to_json(&self) -> String { serde_json::json!({"algo": self.algo, "c": self.c.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>()}).to_string() }
    pub fn from_json(t: &str) -> Result<Model> {
        let v: serde_json::Value = serde_json::from_str(t).map_err(|e| Error::Param(e.to_string()))?;
        let rows: Vec<Vec<f64>> = serde_json::from_value(v["c"].clone()).map_err(|e| Error::Param(e.to_string()))?;
        let (k, p) = (rows.len(), rows[0].len());
        Ok(Model { c: Array2::from_shape_vec((k, p), rows.concat()).unwrap(), algo: v["algo"].as_str().unwrap().into() })
    }
}
