//! The kernel family out of sample. A cluster's centre is the mean of its
//! training rows in the kernel's feature space (weights 1/|C_j| on the
//! hard labels; s_i/Σ_{C_j} s for a fit with sample weights s, whose
//! centres are weighted means), so the squared distance of a new point x to it is
//! k(x,x) − 2·Σ_i w_ij k(x,x_i) + Σ_i Σ_i' w_ij w_i'j k(x_i,x_i'); the
//! last term is fixed at build time. A multi-kernel method's combined
//! kernel Σ_l a_l K_l gives Σ_l a_l d_l. Post-processing is applied to the
//! new rows exactly as the training Gram matrix had it: centring by the
//! training rows' feature-space mean, normalising by the (centred)
//! diagonals, the same min–max rescaling.

use super::rows::{Dist, len, shape};
use crate::error::{Error, Result};
use crate::kernel::gram::entry;
use crate::kernel::{Gram, KernelSpec, Kind, Resolved};
use crate::linalg;
use crate::solver::lloyd::weight;
use ndarray::{Array2, ArrayView2, s};
use serde::{Deserialize, Serialize};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelPayload {
    /// The training rows (in the fit's space): the kernel's expansion points.
    #[serde(with = "super::matrix")]
    pub train: Array2<f64>,
    /// The cluster of every training row.
    pub labels: Vec<usize>,
    /// The kernels and their weights in the combined kernel.
    pub kernels: Vec<KernelBlock>,
    /// The training rows' sample weights, when the fit had them: the
    /// cluster means are weighted means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_weights: Option<Vec<f64>>,
}

/// One kernel of the combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelBlock {
    /// The kernel with its bandwidth fixed and its post-processing
    /// (`gaussian:sigma=1.2,normalize,rescale`).
    pub spec: String,
    /// The columns it reads, 0-based, end excluded.
    pub columns: [usize; 2],
    /// Its weight in the combined kernel (1 for a single kernel).
    pub weight: f64,
    /// Σ_i Σ_i' w_ij w_i'j K(x_i, x_i') per cluster.
    pub within: Vec<f64>,
    /// `center`: the training rows' mean kernel value per row, and their mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<CenterStats>,
    /// `normalize`: the training diagonal (after centring) and the floor
    /// below which a diagonal counts as zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalize: Option<NormalizeStats>,
    /// `rescale`: the smallest and largest entry before rescaling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rescale: Option<RescaleStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CenterStats {
    pub row_means: Vec<f64>,
    pub mean: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalizeStats {
    pub diag: Vec<f64>,
    pub floor: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RescaleStats {
    pub min: f64,
    pub max: f64,
}

/// The kernel of a spec string as saved.
fn resolved(text: &str) -> Result<Resolved> {
    let spec = KernelSpec::parse(text, "model kernel")
        .map_err(|e| Error::Model(format!("malformed model: {e}")))?;
    spec.resolve(f64::NAN, || f64::NAN)
        .map_err(|e| Error::Model(format!("malformed model: {e}")))
}

/// Raw kernel values between the rows of `a` and of `t` (one GEMM).
fn cross(
    r: &Resolved,
    a: ArrayView2<f64>,
    a_norms: &[f64],
    t: ArrayView2<f64>,
    t_norms: &[f64],
) -> Array2<f64> {
    let mut g = linalg::dot_nt(a, t);
    linalg::par_rows_mut(&mut g, |i, row| {
        for (j, v) in row.iter_mut().enumerate() {
            *v = entry(r, *v, a_norms[i], t_norms[j], false);
        }
    });
    g
}

/// k(x, x) for every row.
fn self_values(r: &Resolved, norms: &[f64]) -> Vec<f64> {
    norms.iter().map(|&n| entry(r, n, n, n, true)).collect()
}

impl KernelBlock {
    fn cols(&self) -> Range<usize> {
        self.columns[0]..self.columns[1]
    }

    /// Applies the post-processing to a block of cross values `kx`
    /// (rows × training rows) and the rows' own values `kxx`.
    fn post(&self, kx: &mut Array2<f64>, kxx: &mut [f64]) {
        if let Some(c) = &self.center {
            let n = kx.ncols().max(1) as f64;
            for (i, mut row) in kx.rows_mut().into_iter().enumerate() {
                let ri = row.sum() / n;
                for (v, &rj) in row.iter_mut().zip(&c.row_means) {
                    *v = (*v + c.mean) - (ri + rj);
                }
                kxx[i] = (kxx[i] + c.mean) - (ri + ri);
            }
        }
        if let Some(nm) = &self.normalize {
            let sq_t: Vec<f64> = nm
                .diag
                .iter()
                .map(|&d| if d > nm.floor { d.sqrt() } else { 0.0 })
                .collect();
            for (i, mut row) in kx.rows_mut().into_iter().enumerate() {
                let sx = if kxx[i] > nm.floor {
                    kxx[i].sqrt()
                } else {
                    0.0
                };
                for (v, &st) in row.iter_mut().zip(&sq_t) {
                    let den = sx * st;
                    *v = if den > 0.0 { *v / den } else { 0.0 };
                }
                kxx[i] = 1.0;
            }
        }
        if let Some(rs) = &self.rescale {
            let range = rs.max - rs.min;
            let f = |v: f64| {
                if range > 0.0 {
                    (v - rs.min) / range
                } else {
                    0.0
                }
            };
            kx.mapv_inplace(f);
            for v in kxx.iter_mut() {
                *v = f(*v);
            }
        }
    }
}

/// What every block uses: each kernel resolved with its training rows'
/// squared norms, and the training rows per cluster.
pub struct KernelPrep {
    kernels: Vec<(Resolved, Vec<f64>)>,
    /// Each cluster's training weight (its row count without weights).
    counts: Vec<f64>,
}

/// The largest squared norm of a row the kernels take: ‖x‖² + ‖t‖² −
/// 2x·t stays finite.
const NORM_MAX: f64 = f64::MAX / 8.0;

impl KernelPayload {
    pub fn prepare(&self, k: usize) -> Result<KernelPrep> {
        let sw = self.sample_weights.as_deref();
        let mut counts = vec![0.0f64; k];
        for (i, &l) in self.labels.iter().enumerate() {
            counts[l] += weight(sw, i);
        }
        let kernels = self
            .kernels
            .iter()
            .map(|b| {
                let t = self.train.slice(s![.., b.cols()]);
                Ok((resolved(&b.spec)?, linalg::row_sq_norms(t)))
            })
            .collect::<Result<_>>()?;
        Ok(KernelPrep { kernels, counts })
    }

    /// The kernel distances Σ_l a_l d_l of a block of rows starting at row
    /// `r0`; +∞ for a cluster without training rows. A row whose kernel
    /// values are not finite (too large for a linear or polynomial kernel)
    /// is refused, naming `who`, rather than given a wrong distance.
    pub fn block(
        &self,
        xb: ArrayView2<f64>,
        r0: usize,
        prep: &KernelPrep,
        who: &str,
    ) -> Result<Dist> {
        let k = prep.counts.len();
        let too_large = |i: usize, why: &str| {
            Error::Model(format!(
                "row {} of the data is too large for {who}: {why}",
                r0 + i + 1
            ))
        };
        let mut d = Array2::<f64>::zeros((xb.nrows(), k));
        for (b, (r, t_norms)) in self.kernels.iter().zip(&prep.kernels) {
            if b.weight == 0.0 {
                continue;
            }
            let t = self.train.slice(s![.., b.cols()]);
            let xs = xb.slice(s![.., b.cols()]);
            let norms = linalg::row_sq_norms(xs);
            if let Some(i) = norms.iter().position(|n| n.is_nan() || *n > NORM_MAX) {
                return Err(too_large(i, "its squared norm overflows"));
            }
            let mut kx = cross(r, xs, &norms, t, t_norms);
            let mut kxx = self_values(r, &norms);
            b.post(&mut kx, &mut kxx);
            for (i, row) in kx.rows().into_iter().enumerate() {
                // Σ_{t ∈ C_j} s_t k(x, x_t) / Σ_{C_j} s, without an n × k
                // matrix (s = 1 without sample weights).
                let mut kh = vec![0.0; k];
                match &self.sample_weights {
                    None => {
                        for (&v, &l) in row.iter().zip(&self.labels) {
                            kh[l] += v;
                        }
                    }
                    Some(sw) => {
                        for ((&v, &l), &st) in row.iter().zip(&self.labels).zip(sw) {
                            kh[l] += st * v;
                        }
                    }
                }
                for (j, s) in kh.iter().enumerate() {
                    if prep.counts[j] == 0.0 {
                        continue;
                    }
                    let dj = kxx[i] - 2.0 * (s / prep.counts[j]) + b.within[j];
                    // Negative by rounding only; NaN stays NaN (max would hide it).
                    let dj = if dj < 0.0 { 0.0 } else { dj };
                    d[[i, j]] += b.weight * dj;
                }
            }
        }
        for (i, row) in d.rows().into_iter().enumerate() {
            let bad = row
                .iter()
                .zip(&prep.counts)
                .any(|(v, &c)| c > 0.0 && !v.is_finite());
            if bad {
                return Err(too_large(i, "its kernel distances are not finite"));
            }
        }
        for (j, &c) in prep.counts.iter().enumerate() {
            if c == 0.0 {
                d.column_mut(j).fill(f64::INFINITY);
            }
        }
        Ok(Dist::plain(d))
    }

    pub fn check(&self, k: usize, p: usize) -> Option<String> {
        let n = self.train.nrows();
        if self.train.ncols() != p {
            return shape("train", self.train.dim(), (n, p));
        }
        if let Some(m) = len("labels", self.labels.len(), n) {
            return Some(m);
        }
        if self.labels.iter().any(|&l| l >= k) {
            return Some(format!("a label is not below k = {k}"));
        }
        if let Some(sw) = &self.sample_weights {
            if let Some(m) = len("sample_weights", sw.len(), n) {
                return Some(m);
            }
            if sw.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
                return Some("a sample weight is negative or not finite".into());
            }
        }
        if self.kernels.is_empty() {
            return Some("no kernel".into());
        }
        for (i, b) in self.kernels.iter().enumerate() {
            let r = match resolved(&b.spec) {
                Ok(r) => r,
                Err(e) => return Some(format!("kernel {i}: {e}")),
            };
            if r.kind == Kind::Precomputed {
                return Some(format!("kernel {i}: a precomputed kernel cannot predict"));
            }
            let at = format!("model.kernels[{i}].spec");
            if let Some(Err(e)) = r.sigma.map(|s| super::schema::check_sigma(&at, s)) {
                return Some(e);
            }
            // (a + xᵀy)^b: the offset alone may not overflow every row.
            if r.kind == Kind::Poly && r.a > 1.0 && f64::from(r.b) * r.a.log2() > 900.0 {
                return Some(format!(
                    "{at}: a = {:e} with b = {}: (a + xᵀy)^b would overflow for every row",
                    r.a, r.b
                ));
            }
            let [c0, c1] = b.columns;
            if c0 >= c1 || c1 > p {
                return Some(format!(
                    "kernel {i}: columns {c0}..{c1} are not within 0..{p}"
                ));
            }
            if !(b.weight.is_finite() && b.weight >= 0.0) {
                return Some(format!("kernel {i}: weight {} is not ≥ 0", b.weight));
            }
            let flags = [r.post.center, r.post.normalize, r.post.rescale];
            let stats = [
                b.center.is_some(),
                b.normalize.is_some(),
                b.rescale.is_some(),
            ];
            if flags != stats {
                return Some(format!(
                    "kernel {i}: the statistics of its post-processing do not match the spec {}",
                    b.spec
                ));
            }
            let lens = len(&format!("kernel {i}: within"), b.within.len(), k)
                .or_else(|| {
                    b.center.as_ref().and_then(|c| {
                        len(
                            &format!("kernel {i}: center.row_means"),
                            c.row_means.len(),
                            n,
                        )
                    })
                })
                .or_else(|| {
                    b.normalize
                        .as_ref()
                        .and_then(|c| len(&format!("kernel {i}: normalize.diag"), c.diag.len(), n))
                });
            if lens.is_some() {
                return lens;
            }
        }
        None
    }
}

/// Rows per block of the build's passes over the training kernel.
const PASS_ROWS: usize = 256;

/// One kernel of a finished run: its training statistics and the
/// within-cluster term from its Gram matrix.
/// `sw` the fit's sample weights (None: all 1).
pub fn block(
    gram: &Gram,
    train: ArrayView2<f64>,
    cols: Range<usize>,
    weight: f64,
    labels: &[usize],
    sw: Option<&[f64]>,
    k: usize,
) -> Result<KernelBlock> {
    let r = gram.spec().clone();
    if r.kind == Kind::Precomputed {
        return Err(Error::Model(
            "a model cannot predict with precomputed kernels (--kernels precomputed): there are no features to evaluate the kernel on for new points".into(),
        ));
    }
    let t = train.slice(s![.., cols.clone()]);
    let n = t.nrows();
    let norms = linalg::row_sq_norms(t);
    let d_raw = self_values(&r, &norms);
    // The raw kernel, one block of rows at a time, its diagonal exact.
    let raw_block = |r0: usize| {
        let r1 = (r0 + PASS_ROWS).min(n);
        let mut kb = cross(&r, t.slice(s![r0..r1, ..]), &norms[r0..r1], t, &norms);
        for i in r0..r1 {
            kb[[i - r0, i]] = d_raw[i];
        }
        kb
    };
    let starts: Vec<usize> = (0..n).step_by(PASS_ROWS).collect();
    let center = if r.post.center {
        use rayon::prelude::*;
        let row_means: Vec<f64> = starts
            .par_iter()
            .map(|&r0| {
                raw_block(r0)
                    .rows()
                    .into_iter()
                    .map(|row| row.sum() / n as f64)
                    .collect::<Vec<f64>>()
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect();
        let mean = row_means.iter().sum::<f64>() / n as f64;
        Some(CenterStats { row_means, mean })
    } else {
        None
    };
    let diag: Vec<f64> = match &center {
        Some(c) => (0..n)
            .map(|i| (d_raw[i] + c.mean) - (c.row_means[i] + c.row_means[i]))
            .collect(),
        None => d_raw.clone(),
    };
    let normalize = r.post.normalize.then(|| NormalizeStats {
        floor: 1e-12 * diag.iter().fold(0.0, |a: f64, &b| a.max(b.abs())),
        diag: diag.clone(),
    });
    let mut out = KernelBlock {
        spec: r.to_string(),
        columns: [cols.start, cols.end],
        weight,
        within: Vec::new(),
        center,
        normalize,
        rescale: None,
    };
    if r.post.rescale {
        use rayon::prelude::*;
        let (mn, mx) = starts
            .par_iter()
            .map(|&r0| {
                let mut kb = raw_block(r0);
                if let Some(c) = &out.center {
                    // Centre with the training rows' own means.
                    for (ii, mut row) in kb.rows_mut().into_iter().enumerate() {
                        let ri = c.row_means[r0 + ii];
                        for (v, &rj) in row.iter_mut().zip(&c.row_means) {
                            *v = (*v + c.mean) - (ri + rj);
                        }
                    }
                }
                if let Some(nm) = &out.normalize {
                    let sq: Vec<f64> = nm
                        .diag
                        .iter()
                        .map(|&d| if d > nm.floor { d.sqrt() } else { 0.0 })
                        .collect();
                    for (ii, mut row) in kb.rows_mut().into_iter().enumerate() {
                        let i = r0 + ii;
                        for (j, v) in row.iter_mut().enumerate() {
                            let den = sq[i] * sq[j];
                            *v = if i == j {
                                1.0
                            } else if den > 0.0 {
                                *v / den
                            } else {
                                0.0
                            };
                        }
                    }
                }
                kb.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                        (a.min(v), b.max(v))
                    })
            })
            .reduce(
                || (f64::INFINITY, f64::NEG_INFINITY),
                |(a, b), (c, d)| (a.min(c), b.max(d)),
            );
        out.rescale = Some(RescaleStats { min: mn, max: mx });
    }
    // Σ w w K per cluster from the Gram matrix the run used.
    let mut counts = vec![0.0f64; k];
    for (i, &l) in labels.iter().enumerate() {
        counts[l] += self::weight(sw, i);
    }
    let mut h = Array2::<f64>::zeros((n, k));
    for (i, &l) in labels.iter().enumerate() {
        if counts[l] > 0.0 {
            h[[i, l]] = self::weight(sw, i) / counts[l];
        }
    }
    let g = gram.times(h.view());
    out.within = (0..k)
        .map(|j| (0..n).map(|i| h[[i, j]] * g[[i, j]]).sum())
        .collect();
    Ok(out)
}
