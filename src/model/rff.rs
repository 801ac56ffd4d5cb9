//! The random-feature family out of sample: every feature map is
//! regenerated from its seed, stream, σ and D (the frequencies are drawn
//! again, never stored), new rows are mapped, and the distance to each
//! cluster is Σ_l a_l ‖φ_l(x) − θ_jl‖², θ_jl the mean of cluster j's
//! training rows in map l and a_l the weight the method gives map l.

use super::rows::{Dist, shape};
use crate::error::{Error, Result};
use crate::kernel::rff::{FeatureMap, MapSpec, Store, map_rows};
use crate::linalg;
use crate::solver::Ctx;
use ndarray::{Array2, ArrayView2, s};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RffPayload {
    pub maps: Vec<RffMap>,
}

/// One feature map and the cluster means in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RffMap {
    /// The columns it reads, 0-based, end excluded.
    pub columns: [usize; 2],
    pub sigma: f64,
    /// D, the number of frequencies (the map has 2D features).
    pub rff_dim: usize,
    pub rff_seed: u64,
    pub stream: u64,
    /// Its weight in the distance (α_l × the view's scale).
    pub weight: f64,
    /// k × 2D: the cluster means in the map.
    #[serde(with = "super::matrix")]
    pub centres: Array2<f64>,
}

impl RffMap {
    fn spec(&self) -> MapSpec {
        MapSpec {
            cols: self.columns[0]..self.columns[1],
            sigma: self.sigma,
            dim: self.rff_dim,
            seed: self.rff_seed,
            stream: self.stream,
            f32: false,
        }
    }
}

fn phi(x: ArrayView2<f64>, omega: ArrayView2<f64>) -> Array2<f64> {
    map_rows::<f64>(x, omega, &Ctx::new(), "feature map").expect("nothing cancels it")
}

/// What every block uses: each map's frequencies (none for a map of
/// weight 0) and the squared norms of its cluster means.
pub struct RffPrep {
    maps: Vec<(Array2<f64>, Vec<f64>)>,
}

impl RffPayload {
    pub fn prepare(&self) -> RffPrep {
        RffPrep {
            maps: self
                .maps
                .iter()
                .map(|m| {
                    let omega = if m.weight == 0.0 {
                        Array2::zeros((0, 0))
                    } else {
                        m.spec().frequencies()
                    };
                    (omega, linalg::row_sq_norms(m.centres.view()))
                })
                .collect(),
        }
    }

    /// Σ_l a_l ‖φ_l(x) − θ_jl‖² for a block of rows starting at row `r0`;
    /// +∞ for a cluster without training rows. A row whose features are
    /// not finite (its values times a map's frequencies overflow) is
    /// refused, naming `who`, rather than given a distance of NaN.
    pub fn block(
        &self,
        xb: ArrayView2<f64>,
        r0: usize,
        prep: &RffPrep,
        sizes: &[usize],
        who: &str,
    ) -> Result<Dist> {
        let k = sizes.len();
        let mut d = Array2::<f64>::zeros((xb.nrows(), k));
        for (l, (m, (omega, c_norms))) in self.maps.iter().zip(&prep.maps).enumerate() {
            if m.weight == 0.0 {
                continue;
            }
            let f = phi(xb.slice(s![.., m.columns[0]..m.columns[1]]), omega.view());
            if let Some(i) = f
                .rows()
                .into_iter()
                .position(|r| r.iter().any(|v| !v.is_finite()))
            {
                return Err(Error::Model(format!(
                    "row {} of the data is too large for {who}: feature map {l} (σ = {}) turns it into non-finite values",
                    r0 + i + 1,
                    m.sigma
                )));
            }
            let norms = linalg::row_sq_norms(f.view());
            let dm = linalg::sq_dists_with(f.view(), &norms, m.centres.view(), c_norms, false);
            d.scaled_add(m.weight, &dm);
        }
        for (j, &c) in sizes.iter().enumerate() {
            if c == 0 {
                d.column_mut(j).fill(f64::INFINITY);
            }
        }
        Ok(Dist::plain(d))
    }

    pub fn check(&self, k: usize, p: usize) -> Option<String> {
        if self.maps.is_empty() {
            return Some("no feature map".into());
        }
        for (i, m) in self.maps.iter().enumerate() {
            let [c0, c1] = m.columns;
            if c0 >= c1 || c1 > p {
                return Some(format!("map {i}: columns {c0}..{c1} are not within 0..{p}"));
            }
            if !(m.sigma.is_finite() && m.sigma > 0.0) || m.rff_dim == 0 {
                return Some(format!("map {i}: sigma must be > 0 and rff_dim ≥ 1"));
            }
            if !(m.weight.is_finite() && m.weight >= 0.0) {
                return Some(format!("map {i}: weight {} is not ≥ 0", m.weight));
            }
            if let Some(w) = shape(
                &format!("map {i}: centres"),
                m.centres.dim(),
                (k, 2 * m.rff_dim),
            ) {
                return Some(w);
            }
        }
        None
    }
}

/// Training rows the regeneration check of [`map`] maps again.
pub const CHECK_ROWS: usize = 16;

/// One map of a finished run: the cluster means of its training rows,
/// after checking that the map regenerates from its seed. `head`: the
/// first rows (at most [`CHECK_ROWS`]) of the training data's columns
/// the map reads, dense (densified from sparse rows: the model predicts
/// dense rows, so the check is that the dense map gives the features).
pub fn map(
    f: &FeatureMap,
    head: ArrayView2<f64>,
    weight: f64,
    labels: &[usize],
    sw: Option<&[f64]>,
    k: usize,
) -> Result<RffMap> {
    let rows: Array2<f64> = match &f.store {
        Store::F64(a) => a.clone(),
        Store::F32(a) => a.mapv(f64::from),
    };
    // Weighted means for a fit with sample weights (its centres are).
    let (mut centres, counts) =
        crate::solver::lloyd::weighted_cluster_sums(rows.view(), sw, labels, k);
    for (j, &c) in counts.iter().enumerate() {
        if c > 0.0 {
            centres.row_mut(j).mapv_inplace(|v| v / c);
        }
    }
    let m = RffMap {
        columns: [f.spec.cols.start, f.spec.cols.end],
        sigma: f.spec.sigma,
        rff_dim: f.spec.dim,
        rff_seed: f.spec.seed,
        stream: f.spec.stream,
        weight,
        centres,
    };
    // The map must regenerate: the first rows mapped again agree.
    let check = head.nrows().min(CHECK_ROWS).min(rows.nrows());
    let again = phi(head.slice(s![..check, ..]), m.spec().frequencies().view());
    let tol = if f.spec.f32 { 1e-6 } else { 1e-12 };
    let worst = again
        .iter()
        .zip(rows.slice(s![..check, ..]).iter())
        .fold(0.0f64, |a, (u, v)| a.max((u - v).abs()));
    if worst > tol {
        return Err(Error::Model(format!(
            "the feature map (seed {}, stream {}) does not regenerate from its seed (difference {worst:e}); cannot build a model",
            m.rff_seed, m.stream
        )));
    }
    Ok(m)
}
