//! Multi-view RFF kernel power k-means: RFF-MKPKM (the ablation of Chen et
//! al.'s Table 2) and the loop it shares with IP-RFF-MKPKM (`ip_rff.rs`).
//! Method: docs/methods/rff-power-kmeans.md#multi-view-rff-mkpkm.
//!
//! L views, each with its own random Fourier feature map Φ̃_l (n × 2D) and
//! centroids θ_{j,l} in that map's space; one weight matrix W shared by
//! every view; view weights α on the simplex. Per iteration, at exponent s:
//!
//! 1. d̃_{ij,l} = u_ij^m ‖φ_l(xᵢ) − θ_{j,l}‖² + (1 − u_ij)^m η_{j,l}
//!    (u ≡ 1 for RFF-MKPKM, so d̃ = the squared feature distance), and
//!    D̄ = Σ_l α_l d̃_l;
//! 2. W from the power-mean MM weights of D̄ (eq. 22, log domain);
//! 3. (IP) typicality u from eq. 26 against the current centroids;
//! 4. θ_{j,l} = Σᵢ wᵢⱼ uᵢⱼ^m φ_l(xᵢ) / Σᵢ wᵢⱼ uᵢⱼ^m (one GEMM per view, with
//!    the column normalisation in the log domain);
//! 5. distances to the new centroids (one GEMM per view), then
//!    α = softmax(−E/λ), E_l = Σᵢⱼ wᵢⱼ d̃_{ij,l} (eq. 31);
//! 6. every T iterations s ← η·s.
//!
//! The objective Σᵢ M_s(D̄ᵢ·) + λ Σ_l α_l ln α_l never increases at fixed s
//! (majorisation–minimisation, each block exactly minimised; tested).
//!
//! **Views** (`--views`): `auto` (default) is three Gaussian bandwidths
//! σ/2, σ, 2σ on all columns; `sigmas=F,F,…` any bandwidth factors (so
//! `sigmas=1`, or `all`, is one view: exactly `rff-power`'s map and
//! iteration); `1-64,65-128` column groups (1-based, inclusive) as views of
//! multi-view data, each with its own KPK bandwidth rule scaled by
//! σ / σ_auto (so the default is each view's own rule; `sigma_abs=1` makes
//! `sigma` one absolute bandwidth for every view, the paper's σ = 1000).
//! View l draws its frequencies from stream l of `rff_seed`.
//!
//! **Label-free defaults for multi-view data** (issue 16; the paper's
//! settings are `view_dim=0 view_norm=0 s0_soft=0 --s0 -15 sigma_abs=1
//! rff_dim=108`):
//! - each column view gets max(D, min(⌈2·d_l⌉, 1024)) frequencies
//!   (`view_dim`), D itself chosen from the data since issue 27 (kernel
//!   error ≤ 0.03 on a sample, `kernel::rff_dim`): the paper's
//!   ⌈4·ln³(2k)⌉ = 108 for k = 10 is small for a 240-column view;
//! - each view's squared feature distances are divided by its total
//!   feature scatter (`view_norm`), so D̄ and α compare views by the share
//!   of their scatter the clusters leave, not by their bandwidths;
//! - s₀ is chosen per start from the k-means start's distances: the s at
//!   which the mean share of a point's weight outside its nearest cluster
//!   is `s0_soft` = 0.3 (`auto_s0`), never softer than `--s0` (default −1).
//!   At the paper's s₀ = −15 the weights are hard from the first
//!   iteration, so the method is k-means on the features started from
//!   k-means, with k-means' local optima; softer than the rule, the
//!   centres merge. The s₀ used is the trace's first `s`.
//!
//! **λ** is relative, as in `mkpower`: λ = lambda × median_l E_l at the
//! start of each run (E_l grows with n, so an absolute λ would have to
//! follow the data's size; docs/methods/rff-power-kmeans.md#view-weights-and-lambda).
//! The absolute value used is reported
//! as `lambda` in the JSON.

use super::common::{
    INIT_STAGE, INIT_TOL, checked_features, hard_schedule, init_iter_spec, kmeans_start,
    rff_auto_param, rff_schedule_specs,
};
use crate::error::Result;
use crate::kernel::{self, rff};
use crate::linalg;
use crate::solver::SpaceBlock;
use crate::solver::init;
use crate::solver::iterate::{Eval, Finish, Iteration, Loop, Rule, Step, iterate};
use crate::solver::lloyd::assign;
use crate::solver::lloyd::weight;
use crate::solver::mix::{alpha_step, choose_lambda, neg_entropy};
use crate::solver::params::{Default, ParamSpec, Scale, declare_params};
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::stopping::{Schedule, weighted_softness, zero_tolerance};
use crate::solver::weights::{
    normalize_columns, power_step, weighted_power_objective, weighted_power_step,
};
use crate::solver::{
    Common, Ctx, Fit, Problem, RunConfig, Solver, Start, Typicality as TypicalitySummary,
};
use ndarray::{Array1, Array2, ArrayView2, Axis, Zip, s};
use rayon::prelude::*;
use std::sync::Arc;

/// Softest s₀ of the multi-view algorithms: the s₀ rule ([`auto_s0`],
/// `s0_soft`) picks s₀ ≤ this per start. With `s0_soft=0`, s₀ itself; the
/// paper's is −15 (its "15" with the sign its algorithm requires,
/// docs/methods/rff-power-kmeans.md#sign-of-s0).
pub const MV_S0: f64 = -1.0;
/// Default target softness of the start for s₀ ([`auto_s0`]).
pub const S0_SOFTNESS: f64 = 0.3;
/// Default factor of the per-view D rule ([`view_dim`]).
pub const VIEW_DIM_FACTOR: f64 = 2.0;
/// The paper anneals every 2 iterations in Algorithm 2.
pub const MV_PERIOD: f64 = 2.0;
pub use crate::kernel::views::{Views, parse_views};

declare_params! {
    /// The declared parameters shared by the two multi-view algorithms.
    pub struct MvValues {
        /// λ relative to the median E_l of the initial state.
        lambda: f64 = lambda_spec(),
        /// Bandwidth σ (for column views: relative to the automatic value).
        sigma: f64 = rff::sigma_spec(),
        /// D, the number of frequencies per view.
        rff_dim: usize = rff::dim_spec(),
        /// Seed of the frequencies (view l uses stream l).
        rff_seed: u64 = rff::seed_spec(),
        /// Lloyd iterations of the k-means start Θ₀ (0: from the seeds).
        init_iter: usize = init_iter_spec(),
        /// Per-view D of column views: max(D, ⌈f·d_l⌉) frequencies, the rule's
        /// part capped at [`VIEW_DIM_CAP`] (0: every view gets D).
        view_dim: f64 = ParamSpec {
            name: "view_dim",
            symbol: "f_D",
            default: Default::Fixed(VIEW_DIM_FACTOR),
            min: 0.0,
            max: 64.0,
            scale: Scale::Linear,
            step: 0.5,
            coarse: 1.0,
            integer: false,
            help: "Per-view D of column views: view l gets max(D, min(⌈f·d_l⌉, 1024)) frequencies, d_l its number of columns (D: -P rff_dim or its automatic value from the kernel error). 0: every view gets D, the paper's setting.",
        },
        /// `sigma` is one absolute bandwidth for every view (the paper's
        /// σ = 1000) instead of a factor on each view's own rule.
        sigma_abs: bool = ParamSpec::flag(
            "sigma_abs",
            "σ abs",
            0.0,
            "0: with column views, sigma scales each view's own bandwidth rule (σ_l = σ/σ_auto × rule_l, so the default is each view's rule). 1: sigma is one absolute bandwidth for every view, the paper's setting (σ = 1000, on its unstated scaling).",
        ),
        /// Target softness of the start for s₀ (0: s₀ as given).
        s0_soft: f64 = ParamSpec {
            name: "s0_soft",
            symbol: "ε₀",
            default: Default::Fixed(S0_SOFTNESS),
            min: 0.0,
            max: 0.9,
            scale: Scale::Linear,
            step: 0.01,
            coarse: 0.05,
            integer: false,
            help: "s₀ from the start: the s at which the mean share of a point's weight outside its nearest cluster (after the k-means start) is s0_soft; s0 is then the softest start allowed (the rule may only go harder). 0: s0 as given (the paper: −15).",
        },
        /// Divide each view's squared feature distances by its total scatter
        /// (several views only).
        view_norm: bool = ParamSpec::flag(
            "view_norm",
            "norm",
            1.0,
            "1: each view's squared feature distances are divided by that view's total scatter (1 − ‖mean φ_l‖²), so views are compared by the share of their scatter the clusters leave, not by their bandwidth. 0: raw distances, the paper's setting. No effect with one view.",
        ),
        schedule: Schedule = rff_schedule_specs(MV_S0, MV_PERIOD),
        tol: f64 = tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ),
        max_iter: usize = max_iter_spec(500.0),
    }
}

/// The parameters of `rff-mkpower` and `ip-rff-mkpower`.
#[derive(Debug, Clone, PartialEq)]
pub struct MvParams {
    /// `--views`, parsed against the data's columns.
    pub views: Views,
    pub values: MvValues,
    /// `None`: RFF-MKPKM (u ≡ 1).
    pub possibilistic: Option<Possibilistic>,
}

impl MvParams {
    /// The parameters shared by the two multi-view algorithms ([`MvValues`]),
    /// with the typicalities given.
    ///
    /// # Errors
    /// [`Error::Param`] for a `--views` that does not parse or names
    /// columns the data does not have, a [`crate::solver::ParamError`] for
    /// a missing value.
    pub fn read(
        problem: &Problem,
        cfg: &RunConfig,
        possibilistic: Option<Possibilistic>,
    ) -> Result<Self> {
        Ok(MvParams {
            views: parse_views(cfg.option("views", "auto"), problem.p())?,
            values: MvValues::read(&cfg.params)?,
            possibilistic,
        })
    }
}

/// The feature maps of the views.
pub fn map_specs(problem: &Problem, p: &MvParams) -> Vec<rff::MapSpec> {
    let (sigma, dim, seed) = (p.values.sigma, p.values.rff_dim, p.values.rff_seed);
    match &p.views {
        Views::Bandwidths(f) => f
            .iter()
            .enumerate()
            .map(|(l, &c)| rff::MapSpec {
                cols: 0..problem.p(),
                sigma: sigma * c,
                dim,
                seed,
                stream: l as u64,
                f32: false,
            })
            .collect(),
        Views::Columns(groups) => {
            let ratio = sigma / kernel::auto_sigma(problem);
            groups
                .iter()
                .enumerate()
                .map(|(l, cols)| {
                    let sigma = if p.values.sigma_abs {
                        sigma
                    } else {
                        ratio * kernel::inputs::view_sigma_rule(problem, cols)
                    };
                    rff::MapSpec {
                        cols: cols.clone(),
                        sigma,
                        dim: view_dim(dim, p.values.view_dim, cols.len()),
                        seed,
                        stream: l as u64,
                        f32: false,
                    }
                })
                .collect()
        }
    }
}

/// Largest D the per-view rule gives by itself (an explicit `rff_dim`
/// above it is kept): 1024 frequencies, n·16 KiB per view.
pub const VIEW_DIM_CAP: usize = 1024;

/// D of a column view with `cols` columns: max(D, min(⌈f·cols⌉, cap)).
/// The paper's ⌈4·ln³(2k)⌉ depends on k only; the kernel approximation of
/// a view of many columns needs more frequencies than one of a few.
pub fn view_dim(dim: usize, factor: f64, cols: usize) -> usize {
    if factor <= 0.0 {
        return dim;
    }
    let rule = ((factor * cols as f64).ceil() as usize).min(VIEW_DIM_CAP);
    dim.max(rule).min(rff::MAX_DIM)
}

/// Per-view factors on the squared feature distances: 1/T_l, T_l =
/// (1/n) Σᵢ ‖φ_l(xᵢ) − φ̄_l‖² = mean ‖φ‖² − ‖φ̄_l‖² the view's total scatter
/// in its feature space, when `on` and there are several views; else 1.
/// A narrow bandwidth puts every point near distance 2 of every other, a
/// wide one near 0: without this, D̄ = Σ α_l d_l is dominated by the
/// narrowest view and α (softmax of −E_l/λ) favours the view with the
/// widest bandwidth, whatever its clusters. After it, E_l is the share of
/// the view's scatter left inside the clusters.
/// Rows weighted by the sample weights `sw` (None: all 1): the means are
/// weighted means.
pub fn view_scales(views: &[&rff::FeatureMap], sw: Option<&[f64]>, on: bool) -> Vec<f64> {
    if !on || views.len() < 2 {
        return vec![1.0; views.len()];
    }
    views
        .iter()
        .map(|f| {
            let phi = f.phi();
            let (mean_sq, c2) = match sw {
                None => {
                    let n = phi.nrows().max(1) as f64;
                    let centre = phi.mean_axis(Axis(0));
                    (
                        f.norms.iter().sum::<f64>() / n,
                        centre.map_or(0.0, |c| c.dot(&c)),
                    )
                }
                Some(w) => {
                    let total: f64 = w.iter().sum();
                    let centre = linalg::dot_tn(
                        Array2::from_shape_vec((w.len(), 1), w.to_vec())
                            .expect("one column")
                            .view(),
                        phi.view(),
                    )
                    .row(0)
                    .mapv(|v| v / total);
                    let sq: f64 = f.norms.iter().zip(w).map(|(a, b)| a * b).sum();
                    (sq / total, centre.dot(&centre))
                }
            };
            let t = mean_sq - c2;
            if t.is_finite() && t > 1e-12 {
                1.0 / t
            } else {
                1.0
            }
        })
        .collect()
}

/// The possibilistic part of IP-RFF-MKPKM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Possibilistic {
    /// Fuzzifier m > 1.
    pub m: f64,
    /// Multiplier on η_{j,l} (1 = Krishnapuram & Keller's scale).
    pub eta_scale: f64,
    /// α from the possibilistic distances d̃ (the paper's α-step, an exact
    /// MM step); `false`: from each view's own distances, as rff-mkpower.
    pub alpha_on_typicality: bool,
}

/// Everything the multi-view loop needs besides the features and centres.
#[derive(Debug, Clone)]
pub struct MvSettings {
    pub sched: Schedule,
    /// λ relative to the median E_l of the initial state.
    pub lambda_rel: f64,
    /// `None`: RFF-MKPKM (u ≡ 1).
    pub possibilistic: Option<Possibilistic>,
    pub tol: f64,
    pub max_iter: usize,
    /// Per-view factors on the squared distances ([`view_scales`]; empty
    /// or all 1: none).
    pub scales: Vec<f64>,
    /// `Some(ε)`: s₀ from the start's softness ([`auto_s0`]), no softer
    /// than `sched.s0`; `None`: `sched.s0` as given.
    pub s0_softness: Option<f64>,
}

/// s₀ chosen from the start: the s at which the mean share of a point's
/// MM weight outside its nearest cluster, [`softness`], of the initial
/// distances `dbar` equals `eps`, by bisection on ln(−s), clamped to
/// [`s_min`, `s_max`] (`s_max` = the given s₀: the rule may start harder,
/// never softer). The softness of a given s depends on how much nearer
/// a point is to its own centre than to the others, which the bandwidth,
/// D, the views' number of columns and the data all change: a fixed s₀
/// that anneals well on one problem merges centres (too soft) or is
/// k-means from the first iteration (too hard) on another.
/// Rows weighted by `sw` (None: all 1) in the mean softness.
pub fn auto_s0(
    dbar: ArrayView2<f64>,
    sw: Option<&[f64]>,
    eps: f64,
    zero_tol: f64,
    s_max: f64,
    s_min: f64,
) -> f64 {
    let soft = |s: f64| weighted_softness(&power_step(dbar, s, zero_tol).log_w, sw);
    let (hi_s, lo_s) = (s_max.min(-1e-3), s_min.min(s_max).min(-1e-3));
    if soft(hi_s) <= eps {
        return hi_s;
    }
    if soft(lo_s) > eps {
        return lo_s;
    }
    // t = ln(−s): soft at t_a, hard enough at t_b.
    let (mut t_a, mut t_b) = ((-hi_s).ln(), (-lo_s).ln());
    for _ in 0..40 {
        let mid = 0.5 * (t_a + t_b);
        if soft(-mid.exp()) > eps {
            t_a = mid;
        } else {
            t_b = mid;
        }
        if t_b - t_a < 1e-4 {
            break;
        }
    }
    -t_b.exp()
}

/// Rows per parallel task and per cache block of the distance pass: the
/// values of the engine's fused pass (`power_pass.rs`), so that one view gives
/// `rff-power`'s distances bit for bit.
const TASK_ROWS: usize = 4096;
const BLOCK_ROWS: usize = 256;

/// Working memory of the loop per row, in f64 values.
pub fn work_per_row(k: usize, views: usize) -> usize {
    k * (views + 8) + 8
}

/// Squared distances from the rows of `phi` to `centres`, computed in the
/// same blocks as the engine's fused sweep (so a single view reproduces
/// `rff-power`'s distances exactly).
fn dists(phi: ArrayView2<f64>, norms: &[f64], centres: ArrayView2<f64>) -> Array2<f64> {
    let n = phi.nrows();
    let k = centres.nrows();
    let c_norms = linalg::row_sq_norms(centres);
    let mut d = Array2::<f64>::zeros((n, k));
    if n == 0 || k == 0 {
        return d;
    }
    d.as_slice_mut()
        .expect("fresh array")
        .par_chunks_mut(TASK_ROWS * k)
        .enumerate()
        .for_each(|(t, chunk)| {
            let lo = t * TASK_ROWS;
            let hi = (lo + TASK_ROWS).min(n);
            let mut b = lo;
            while b < hi {
                let e = (b + BLOCK_ROWS).min(hi);
                let db = linalg::sq_dists_with(
                    phi.slice(s![b..e, ..]),
                    &norms[b..e],
                    centres,
                    &c_norms,
                    false,
                );
                chunk[(b - lo) * k..(e - lo) * k]
                    .copy_from_slice(db.as_slice().expect("fresh array"));
                b = e;
            }
        });
    d
}

/// ln u and ln(1 − u) from eq. 26: u = 1 / (1 + (a/b)^{1/(m−1)}) with
/// a_ij = Σ_l α_l y_ij,l and b_j = Σ_l α_l η_j,l, through softplus so that
/// neither u nor 1 − u underflows to a spurious 0
/// (docs/methods/rff-power-kmeans.md#typicality).
struct Typicality {
    ln_u: Array2<f64>,
    ln_1mu: Array2<f64>,
}

fn softplus(t: f64) -> f64 {
    t.max(0.0) + (-t.abs()).exp().ln_1p()
}

fn typicality(y: &[Array2<f64>], alpha: &[f64], eta: &[Vec<f64>], m: f64) -> Typicality {
    let (n, k) = y[0].dim();
    let b: Vec<f64> = (0..k)
        .map(|j| {
            let v: f64 = alpha.iter().zip(eta).map(|(a, e)| a * e[j]).sum();
            v.max(f64::MIN_POSITIVE)
        })
        .collect();
    let ln_b: Vec<f64> = b.iter().map(|v| v.ln()).collect();
    let mut ln_u = Array2::<f64>::zeros((n, k));
    let mut ln_1mu = Array2::<f64>::zeros((n, k));
    let inv = 1.0 / (m - 1.0);
    Zip::indexed(&mut ln_u)
        .and(&mut ln_1mu)
        .par_for_each(|(i, j), lu, l1| {
            let a: f64 = y.iter().zip(alpha).map(|(yl, al)| al * yl[[i, j]]).sum();
            if a <= 0.0 {
                *lu = 0.0;
                *l1 = f64::NEG_INFINITY;
            } else {
                let t = (a.ln() - ln_b[j]) * inv;
                *lu = -softplus(t);
                *l1 = -softplus(-t);
            }
        });
    Typicality { ln_u, ln_1mu }
}

/// d̃ of view l at (i, j).
#[inline]
fn dtilde(y: f64, typ: Option<(&Typicality, f64)>, eta: f64, i: usize, j: usize) -> f64 {
    match typ {
        None => y,
        Some((t, m)) => (m * t.ln_u[[i, j]]).exp() * y + (m * t.ln_1mu[[i, j]]).exp() * eta,
    }
}

/// D̄ = Σ_l α_l d̃_l.
fn combine(
    y: &[Array2<f64>],
    alpha: &[f64],
    typ: Option<(&Typicality, f64)>,
    eta: &[Vec<f64>],
) -> Array2<f64> {
    if y.len() == 1 && typ.is_none() {
        // α = 1: exactly the distances (a single view is rff-power).
        return y[0].clone();
    }
    let (n, k) = y[0].dim();
    let mut out = Array2::<f64>::zeros((n, k));
    Zip::indexed(&mut out).par_for_each(|(i, j), o| {
        *o = y
            .iter()
            .zip(alpha)
            .zip(eta)
            .map(|((yl, &a), el)| a * dtilde(yl[[i, j]], typ, el[j], i, j))
            .sum();
    });
    out
}

/// E_l = Σᵢⱼ wᵢⱼ d̃_ij,l with the raw weights w = exp(log_w); row sums in
/// parallel, added in row order.
fn scatter(
    log_w: &Array2<f64>,
    y: &[Array2<f64>],
    typ: Option<(&Typicality, f64)>,
    eta: &[Vec<f64>],
) -> Vec<f64> {
    y.iter()
        .zip(eta)
        .map(|(yl, el)| {
            let rows: Array1<f64> =
                Zip::indexed(log_w.rows())
                    .and(yl.rows())
                    .par_map_collect(|i, lw, yr| {
                        let mut acc = 0.0;
                        for j in 0..lw.len() {
                            let w = lw[j].exp();
                            if w > 0.0 {
                                acc += w * dtilde(yr[j], typ, el[j], i, j);
                            }
                        }
                        acc
                    });
            rows.iter().sum()
        })
        .collect()
}

/// argmaxⱼ (ln wᵢⱼ + m ln uᵢⱼ), the paper's final membership γ = w·u^m
/// (ties to the lowest index).
fn gamma_labels(log_w: &Array2<f64>, ln_u: &Array2<f64>, m: f64) -> Vec<usize> {
    Zip::from(log_w.rows())
        .and(ln_u.rows())
        .par_map_collect(|lw, lu| {
            let mut best = (0, f64::NEG_INFINITY);
            for j in 0..lw.len() {
                let g = lw[j] + m * lu[j];
                if g > best.1 {
                    best = (j, g);
                }
            }
            best.0
        })
        .to_vec()
}

/// Seeds in the concatenated feature space [Φ̃_1, …, Φ̃_L] (distances
/// averaged over views; one view is exactly the Euclidean seeding of
/// `rff-power` on its features).
pub fn mv_seeds<R: rand::Rng>(
    views: &[&rff::FeatureMap],
    scales: &[f64],
    sw: Option<&[f64]>,
    k: usize,
    init: crate::solver::Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    let n = views[0].phi().nrows();
    let a = 1.0 / views.len() as f64;
    init::weighted_seeds(n, sw, k, init, rng, |cands| {
        let d_of = |f: &rff::FeatureMap| {
            let c = f.phi().select(Axis(0), cands);
            linalg::sq_dists(f.phi().view(), &f.norms, c.view())
        };
        if views.len() == 1 {
            return d_of(views[0]);
        }
        let sc = |l: usize| scales.get(l).copied().unwrap_or(1.0);
        let mut d = d_of(views[0]) * (a * sc(0));
        for (l, f) in views.iter().enumerate().skip(1) {
            d.scaled_add(a * sc(l), &d_of(f));
        }
        d
    })
}

/// The paper's Θ₀ for several views: Lloyd's k-means on the concatenated
/// features [Φ̃_1, …, Φ̃_L] (distances summed over views, centroids the
/// per-view cluster means, one GEMM per view), without forming the
/// concatenation. One view is exactly `rff-power`'s start; otherwise the
/// same rule: at most `max_iter` iterations, stop when the inertia changes
/// by less than `INIT_TOL` (relative); an empty cluster keeps its centre.
/// Rows count by their sample weights `sw` (None: all 1).
pub fn mv_kmeans_start(
    views: &[&rff::FeatureMap],
    scales: &[f64],
    sw: Option<&[f64]>,
    mut centres: Vec<Array2<f64>>,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<(Vec<Array2<f64>>, usize)> {
    if views.len() == 1 {
        let (c, it) = kmeans_start(
            views[0].phi().view(),
            &views[0].norms,
            sw,
            centres.remove(0),
            max_iter,
            ctx,
        )?;
        return Ok((vec![c], it));
    }
    if max_iter == 0 {
        return Ok((centres, 0));
    }
    ctx.stage(INIT_STAGE, 0.0);
    let k = centres[0].nrows();
    let mut step = MvLloydStep {
        views,
        scales,
        sw,
        centres,
        labels: Vec::new(),
    };
    let how = Loop {
        rule: Rule::PowerMean {
            schedule: hard_schedule(),
            tol: INIT_TOL,
            soft_tol: 1.0,
            finish: Finish::Off,
        },
        max_iter,
        k,
        events: true,
    };
    let inner = ctx.iterations_as_stage(INIT_STAGE, max_iter);
    let fit = iterate(&mut step, how, &inner)?;
    ctx.stage(INIT_STAGE, 1.0);
    Ok((step.centres, fit.iterations))
}

/// One Lloyd iteration on the concatenated features of every view: the
/// summed distances, the nearest centre, then per-view cluster means (an
/// empty cluster keeps its centre).
struct MvLloydStep<'a> {
    views: &'a [&'a rff::FeatureMap],
    scales: &'a [f64],
    /// Sample weights (None: all 1).
    sw: Option<&'a [f64]>,
    centres: Vec<Array2<f64>>,
    /// The assignment of the last evaluation.
    labels: Vec<usize>,
}

impl Step for MvLloydStep<'_> {
    fn eval(&mut self, _it: Iteration) -> Result<Eval> {
        let d = combined(&view_dists(self.views, &self.centres, self.scales));
        let (labels, dmin) = assign(d.view());
        let inertia: f64 = match self.sw {
            None => dmin.iter().sum(),
            Some(w) => dmin.iter().zip(w).map(|(d, w)| w * d).sum(),
        };
        self.labels = labels.clone();
        Ok(Eval::new(inertia, labels, false))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let (n, k) = (self.views[0].phi().nrows(), self.centres[0].nrows());
        let mut onehot = Array2::<f64>::zeros((n, k));
        let mut counts = vec![0.0f64; k];
        for (i, &l) in self.labels.iter().enumerate() {
            let wi = weight(self.sw, i);
            onehot[[i, l]] = wi;
            counts[l] += wi;
        }
        for (f, c) in self.views.iter().zip(self.centres.iter_mut()) {
            let sums = linalg::dot_tn(onehot.view(), f.phi().view());
            for j in 0..k {
                if counts[j] > 0.0 {
                    let inv = 1.0 / counts[j];
                    c.row_mut(j).assign(&sums.row(j).mapv(|v| v * inv));
                }
            }
        }
        Ok(())
    }
}

/// Summary of the typicalities u_{i,label(i)} for the JSON: how many points
/// look like outliers (u < ½, i.e. farther from their centre than that
/// centre's scale b_j when m = 2) and the lower quantiles.
///
/// With sample weights `sw`, the rows of weight 0 are left out, the mean
/// and the outlier fraction are shares of the weight and the quantiles
/// are those of the rows repeated by their weights.
fn typicality_summary(
    ln_u: &Array2<f64>,
    labels: &[usize],
    sw: Option<&[f64]>,
) -> TypicalitySummary {
    const THRESHOLD: f64 = 0.5;
    const MAX_ROWS: usize = 10_000;
    let n = labels.len();
    let u: Vec<f64> = labels
        .iter()
        .enumerate()
        .map(|(i, &l)| ln_u[[i, l]].exp())
        .collect();
    let wt = |i: usize| weight(sw, i);
    let rows: Vec<usize> = (0..n)
        .filter(|&i| u[i] < THRESHOLD && wt(i) > 0.0)
        .collect();
    let mut sorted: Vec<(f64, f64)> = (0..n)
        .filter(|&i| wt(i) > 0.0)
        .map(|i| (u[i], wt(i)))
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = sorted.iter().map(|p| p.1).sum();
    let q = |p: f64| {
        if sorted.is_empty() {
            return 0.0;
        }
        if sw.is_none() {
            return sorted[((sorted.len() - 1) as f64 * p).round() as usize].0;
        }
        // The value at rank p·(W − 1) among the rows repeated by weight.
        let rank = ((total - 1.0).max(0.0) * p).round();
        let mut acc = 0.0;
        for &(v, w) in &sorted {
            acc += w;
            if acc > rank {
                return v;
            }
        }
        sorted[sorted.len() - 1].0
    };
    let mean = match sw {
        _ if total <= 0.0 => 0.0,
        None => u.iter().sum::<f64>() / n as f64,
        Some(w) => u.iter().zip(w).map(|(v, w)| v * w).sum::<f64>() / total,
    };
    let outliers = rows.len();
    let outlier_weight: f64 = rows.iter().map(|&i| wt(i)).sum();
    TypicalitySummary {
        threshold: THRESHOLD,
        outliers,
        outlier_fraction: if total > 0.0 {
            outlier_weight / total
        } else {
            0.0
        },
        mean,
        min: q(0.0),
        q01: q(0.01),
        q05: q(0.05),
        q25: q(0.25),
        median: q(0.5),
        outlier_rows_truncated: outliers > MAX_ROWS,
        outlier_rows: rows.into_iter().take(MAX_ROWS).collect(),
    }
}

/// The multi-view loop from the given centroids (one k × 2D array per
/// view). `possibilistic: None` is RFF-MKPKM, `Some` IP-RFF-MKPKM.
/// Rows weighted by the sample weights `sw` (None: all 1): the MM weights
/// of a row times its weight, so the centroids, the scatters E_l (hence
/// α and λ), the scales η and the objective are weighted sums.
pub fn mv_loop(
    views: &[&rff::FeatureMap],
    sw: Option<&[f64]>,
    centres: Vec<Array2<f64>>,
    set: &MvSettings,
    ctx: &Ctx,
) -> Result<Fit> {
    let l_count = views.len();
    assert!(
        l_count > 0 && centres.len() == l_count,
        "one centre set per view"
    );
    let k = centres[0].nrows();
    let mut sched = set.sched;
    let m = set.possibilistic.map_or(1.0, |p| p.m);
    let scales: Vec<f64> = if set.scales.len() == l_count {
        set.scales.clone()
    } else {
        vec![1.0; l_count]
    };
    let zero_tol = views
        .iter()
        .zip(&scales)
        .map(|(v, f)| f * zero_tolerance(&v.norms))
        .fold(0.0, f64::max);
    let y = view_dists(views, &centres, &scales);
    let alpha = vec![1.0 / l_count as f64; l_count];
    // η_{j,l} = (1/n) Σᵢ y_ij,l at the start, held fixed
    // (docs/methods/rff-power-kmeans.md#possibilistic-scales).
    let eta: Vec<Vec<f64>> = y
        .iter()
        .map(|yl| {
            column_means(yl, sw)
                .into_iter()
                .map(|e| {
                    (e * set.possibilistic.map_or(1.0, |p| p.eta_scale)).max(f64::MIN_POSITIVE)
                })
                .collect()
        })
        .collect();
    let typ: Option<Typicality> = set.possibilistic.map(|_| typicality(&y, &alpha, &eta, m));
    // s₀ from the start's softness, then λ from its scatter.
    let lambda = {
        let t = typ.as_ref().map(|t| (t, m));
        let dbar = combine(&y, &alpha, t, &eta);
        if let Some(eps) = set.s0_softness {
            // On the plain feature distances (u ≡ 1), so that IP-RFF-MKPKM
            // starts at its ablation's s₀: d̃'s η terms flatten the contrast
            // and would start it harder.
            let plain = combine(&y, &alpha, None, &eta);
            sched.s0 = auto_s0(plain.view(), sw, eps, zero_tol, sched.s0, sched.s_min);
        }
        let step = weighted_power_step(dbar.view(), sched.s0, zero_tol, sw);
        let on = set.possibilistic.is_some_and(|p| p.alpha_on_typicality);
        choose_lambda(
            &scatter(&step.log_w, &y, alpha_typ(t, on), &eta),
            set.lambda_rel,
        )
    };
    let mut step = MvStep {
        views,
        sw,
        scales,
        possibilistic: set.possibilistic.is_some(),
        alpha_on_typicality: set.possibilistic.is_some_and(|p| p.alpha_on_typicality),
        m,
        zero_tol,
        lambda,
        eta,
        centres,
        y,
        alpha,
        typ,
        pending: None,
    };
    let how = Loop {
        rule: Rule::PowerMean {
            schedule: sched,
            tol: set.tol,
            soft_tol: 1.0,
            finish: Finish::Off,
        },
        max_iter: set.max_iter,
        k,
        events: true,
    };
    let mut fit = iterate(&mut step, how, ctx)?;
    fit.kernel_weights = Some(step.alpha);
    fit.extra.lambda = Some(lambda);
    if let Some((_, Some(t))) = step.pending {
        fit.extra.typicality = Some(typicality_summary(&t.ln_u, &fit.labels, sw));
        fit.extra.possibilistic_scales = Some(step.eta);
    }
    Ok(fit)
}

/// Column means of `y`, weighted by the sample weights `sw` (None: all 1).
fn column_means(y: &Array2<f64>, sw: Option<&[f64]>) -> Vec<f64> {
    let k = y.ncols();
    match sw {
        None => y.mean_axis(Axis(0)).map_or(vec![0.0; k], |v| v.to_vec()),
        Some(w) => {
            let total: f64 = w.iter().sum();
            let mut m = vec![0.0; k];
            for (row, &wi) in y.rows().into_iter().zip(w) {
                for (a, &v) in m.iter_mut().zip(row) {
                    *a += wi * v;
                }
            }
            m.iter().map(|v| v / total).collect()
        }
    }
}

/// Squared feature distances of every view to its centroids, times the
/// view's factor (`scales`; a factor of 1 leaves them untouched).
fn view_dists(
    views: &[&rff::FeatureMap],
    centres: &[Array2<f64>],
    scales: &[f64],
) -> Vec<Array2<f64>> {
    views
        .iter()
        .zip(centres)
        .enumerate()
        .map(|(l, (v, c))| {
            let mut d = dists(v.phi().view(), &v.norms, c.view());
            let f = scales.get(l).copied().unwrap_or(1.0);
            if f != 1.0 {
                d.mapv_inplace(|x| x * f);
            }
            d
        })
        .collect()
}

/// Σ_l d_l, the distances on the concatenated features.
fn combined(d: &[Array2<f64>]) -> Array2<f64> {
    let mut out = d[0].clone();
    for x in &d[1..] {
        out += x;
    }
    out
}

/// The typicalities the α-step sees: none unless α is to come from the
/// possibilistic distances. In a view of pure noise every point is about
/// as far from every centre as the scale η, so its d̃ = u^m·y + (1−u)^m·η
/// shrinks by up to half while an informative view's barely does: α from
/// d̃ drifts to the noise view (issue 16: NMI 0.52 against k-means' 0.98 on
/// the good view), α from the views' own distances does not.
fn alpha_typ(t: Option<(&Typicality, f64)>, on: bool) -> Option<(&Typicality, f64)> {
    t.filter(|_| on)
}

/// One multi-view iteration: the α-mix D̄ of the (possibilistic) view
/// distances, the MM weights at s, the typicalities; the next state has
/// the centroids of those weights, their distances, and α from the scatter.
struct MvStep<'a> {
    views: &'a [&'a rff::FeatureMap],
    /// Sample weights (None: all 1).
    sw: Option<&'a [f64]>,
    scales: Vec<f64>,
    possibilistic: bool,
    /// The α-step reads the possibilistic distances ([`alpha_typ`]).
    alpha_on_typicality: bool,
    /// Fuzzifier (1 without typicalities).
    m: f64,
    zero_tol: f64,
    lambda: f64,
    eta: Vec<Vec<f64>>,
    centres: Vec<Array2<f64>>,
    /// Distances of every view to its centroids.
    y: Vec<Array2<f64>>,
    alpha: Vec<f64>,
    typ: Option<Typicality>,
    /// Log MM weights and typicalities of the last evaluation.
    pending: Option<(Array2<f64>, Option<Typicality>)>,
}

impl Step for MvStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let s = it.s.expect("the power-mean rule gives s");
        let (m, zero_tol) = (self.m, self.zero_tol);
        let t = self.typ.as_ref().map(|t| (t, m));
        let dbar = combine(&self.y, &self.alpha, t, &self.eta);
        let mut step = power_step(dbar.view(), s, zero_tol);
        let ent = neg_entropy(&self.alpha);
        let new_typ = self
            .possibilistic
            .then(|| typicality(&self.y, &self.alpha, &self.eta, m));
        // Labels from the row's own memberships (a row of weight 0 still
        // gets one), then the MM weights times the row's sample weight.
        let labels = match &new_typ {
            Some(nt) => gamma_labels(&step.log_w, &nt.ln_u, m),
            None => std::mem::take(&mut step.labels),
        };
        if let Some(w) = self.sw {
            step.objective = step.row_objectives.iter().zip(w).map(|(o, w)| o * w).sum();
            for (mut row, &wi) in step.log_w.axis_iter_mut(Axis(0)).zip(w) {
                let lw = wi.ln();
                row.mapv_inplace(|v| v + lw);
            }
        }
        let objective = step.objective + self.lambda * ent;
        let objective_ref = it.s_ref.map(|r| {
            weighted_power_objective(dbar.view(), r, zero_tol, self.sw) + self.lambda * ent
        });
        self.pending = Some((step.log_w, new_typ));
        Ok(Eval {
            objective,
            objective_ref,
            labels,
            settled: false,
        })
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let Some((log_w, new_typ)) = self.pending.take() else {
            return Ok(());
        };
        let m = self.m;
        let k = self.centres[0].nrows();
        let log_g = match &new_typ {
            Some(nt) => {
                let mut g = log_w.clone();
                g.zip_mut_with(&nt.ln_u, |a, &b| *a += m * b);
                g
            }
            None => log_w.clone(),
        };
        let (omega, alive) = normalize_columns(&log_g);
        drop(log_g);
        for (v, c) in self.views.iter().zip(self.centres.iter_mut()) {
            let next = linalg::dot_tn(omega.view(), v.phi().view());
            for j in 0..k {
                // A centre with no finite weight at all stays where it was.
                if alive[j] {
                    c.row_mut(j).assign(&next.row(j));
                }
            }
        }
        drop(omega);
        self.y = view_dists(self.views, &self.centres, &self.scales);
        let nt = new_typ.as_ref().map(|t| (t, m));
        let e = scatter(
            &log_w,
            &self.y,
            alpha_typ(nt, self.alpha_on_typicality),
            &self.eta,
        );
        self.alpha = alpha_step(&e, self.lambda);
        self.typ = new_typ;
        Ok(())
    }

    fn kernel_weights(&self) -> Option<Vec<f64>> {
        Some(self.alpha.clone())
    }
}

/// The λ parameter (relative, as `mkpower`'s).
pub fn lambda_spec() -> ParamSpec {
    ParamSpec {
        name: "lambda",
        symbol: "λ",
        default: Default::Fixed(1.0),
        min: 1e-4,
        max: 1e4,
        scale: Scale::Log,
        step: 1.25,
        coarse: 10.0,
        integer: false,
        help: "Entropy penalty on the view weights α, relative: λ = lambda × median_l E_l (the per-view weighted scatter at the start). Small: α concentrates on one view; large: α stays uniform.",
    }
}

/// Features of every view (memory-guarded, cached).
pub fn mv_features(
    algo: &str,
    problem: &Problem,
    run: &Common,
    p: &MvParams,
    ctx: &Ctx,
) -> Result<Vec<Arc<rff::FeatureMap>>> {
    let specs = map_specs(problem, p);
    checked_features(
        algo,
        problem,
        run.max_memory,
        &specs,
        work_per_row(run.k, specs.len()),
        ctx,
    )
}

/// One start of a multi-view algorithm.
pub fn mv_fit(
    algo: &str,
    problem: &Problem,
    run: &Common,
    p: &MvParams,
    start: Start,
    ctx: &Ctx,
) -> Result<Fit> {
    let fs = mv_features(algo, problem, run, p, ctx)?;
    let views: Vec<&rff::FeatureMap> = fs.iter().map(|f| f.as_ref()).collect();
    let sw = problem.sample_weights();
    let scales = view_scales(&views, sw, p.values.view_norm);
    let mut rng = start.rng();
    let seeds = mv_seeds(&views, &scales, sw, run.k, run.init, &mut rng)?;
    let centres = views
        .iter()
        .map(|f| f.phi().select(Axis(0), &seeds))
        .collect();
    let (centres, init_iters) =
        mv_kmeans_start(&views, &scales, sw, centres, p.values.init_iter, ctx)?;
    let set = MvSettings {
        sched: p.values.schedule,
        lambda_rel: p.values.lambda,
        possibilistic: p.possibilistic,
        tol: p.values.tol,
        max_iter: p.values.max_iter,
        scales,
        s0_softness: (p.values.s0_soft > 0.0).then_some(p.values.s0_soft),
    };
    let mut fit = mv_loop(&views, sw, centres, &set, ctx)?;
    fit.extra.init_iterations = Some(init_iters);
    fit.extra.views = Some(views.iter().map(|f| rff::describe(f)).collect());
    let specs: Vec<rff::MapSpec> = views.iter().map(|f| f.spec.clone()).collect();
    fit.extra.kernel_approx = Some(crate::kernel::rff_dim::describe(problem, &specs));
    Ok(fit)
}

/// The space a multi-view run clustered in: every view's map, weighted by
/// its final α and its scale, as the distances Σ_l α_l f_l d_l combine
/// them.
pub fn mv_space(
    algo: &str,
    problem: &Problem,
    run: &Common,
    p: &MvParams,
    fit: &Fit,
    ctx: &Ctx,
) -> Result<crate::solver::SpaceBlocks> {
    let fs = mv_features(algo, problem, run, p, ctx)?;
    let views: Vec<&rff::FeatureMap> = fs.iter().map(|f| f.as_ref()).collect();
    let scales = view_scales(&views, problem.sample_weights(), p.values.view_norm);
    let alpha = fit.kernel_weights.clone().unwrap_or_default();
    Ok(fs
        .iter()
        .zip(alpha.iter().zip(&scales))
        .map(|(f, (a, s))| (SpaceBlock::Map(f.clone()), a * s))
        .collect())
}

pub struct RffMkPower;

impl Solver for RffMkPower {
    type Params = MvParams;
    fn id(&self) -> &'static str {
        "rff-mkpower"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            // Only the feature map reads X, per nonzero (kernel::rff_csr).
            sparse: true,
            ..crate::solver::Caps::new(crate::solver::Family::Rff, "RFFMultiViewPowerKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Kernels
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Rff)
    }
    fn name(&self) -> &'static str {
        "RFF multi-view kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Chen et al. (RFF-MKPKM, the ablation of Table 2): power k-means on several random Fourier feature maps (bandwidths or column-group views) with view weights α by an entropy-penalised softmax; O(n·D·L) memory."
    }
    fn params(&self) -> Vec<ParamSpec> {
        MvValues::specs()
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        rff_auto_param(name, problem, k)
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("views", "auto")]
    }
    /// rff-power's weighting, per view: weighted seeds, Θ₀, MM weights,
    /// scatters (hence α) and view scales.
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<MvParams> {
        MvParams::read(problem, cfg, None)
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &MvParams, ctx: &Ctx) -> Result<()> {
        mv_features(self.id(), problem, run, p, ctx).map(|_| ())
    }
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MvParams,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        mv_space(self.id(), problem, run, p, fit, ctx)
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MvParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        mv_fit(self.id(), problem, run, p, start, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_view_dim_rule() {
        assert_eq!(view_dim(108, 2.0, 240), 480);
        assert_eq!(view_dim(108, 2.0, 6), 108);
        assert_eq!(view_dim(108, 2.0, 4000), VIEW_DIM_CAP);
        assert_eq!(view_dim(2048, 2.0, 4000), 2048);
        assert_eq!(view_dim(108, 0.0, 240), 108);
    }

    #[test]
    fn auto_s0_hits_the_target_softness_within_its_bounds() {
        let d = ndarray::array![[1.0, 1.2, 2.0], [1.5, 1.0, 1.1], [3.0, 2.0, 1.0]];
        let soft = |s: f64| crate::solver::stopping::softness(&power_step(d.view(), s, 0.0).log_w);
        let s = auto_s0(d.view(), None, 0.2, 0.0, -1.0, -1000.0);
        assert!((soft(s) - 0.2).abs() < 1e-3, "{s}: {}", soft(s));
        assert!(soft(s) <= 0.2);
        // Never softer than the given s₀; no harder than s_min.
        assert_eq!(auto_s0(d.view(), None, 0.2, 0.0, -50.0, -1000.0), -50.0);
        assert_eq!(auto_s0(d.view(), None, 1e-9, 0.0, -1.0, -2.0), -2.0);
    }
}
