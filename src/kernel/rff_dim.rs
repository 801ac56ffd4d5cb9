//! D, the number of random Fourier frequencies, chosen from the data: the
//! smallest D on the ladder 64, 128, 256, … whose map approximates its
//! Gaussian kernel to within a tolerance on a fixed sample of rows.
//!
//! The error of a map is the relative Frobenius error
//! ‖ΦΦᵀ − K‖_F / ‖K‖_F over a sample of [`SAMPLE_ROWS`] rows (all rows
//! when there are fewer), drawn once from a fixed seed, so the same data
//! gives the same D on every run and platform. The map measured at each
//! rung is the one a run with that D would use (same σ, `rff_seed`,
//! stream), so the error reported for the chosen D is that of the run's
//! own map.
//!
//! Why not the paper's ⌈4·ln³(2k)⌉ (108 for k = 10): it depends on k only
//! (docs/methods/rff-power-kmeans.md#number-of-frequencies-d) and leaves a
//! kernel error of ≈ 0.06
//! at the σ rule on every view of the handwritten digits, where
//! `rff-power` then falls 0.2 ACC short of `kpower` (docs/paper-tables.md).
//! The error of a fixed D hardly depends on the number of columns at the
//! σ rule (it falls like 0.7/√D), but grows as σ narrows.
//!
//! The ladder stops at a cap: [`LADDER_MAX`] frequencies, and no more than
//! an eighth of the memory budget for one n × 2D feature matrix. At the
//! cap the rule takes the cap, whatever the error (reported).

use super::rff::MapSpec;
use super::rff_csr;
use crate::solver::Problem;
use crate::solver::csr::Csr;
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rand::seq::index::sample;
use std::ops::Range;

/// The tolerance of the automatic D: relative Frobenius error of the
/// kernel approximation on the sample.
pub const DIM_TOL: f64 = 0.03;
/// First rung of the ladder.
pub const LADDER_MIN: usize = 64;
/// Last rung of the ladder (n·64 KiB per map in f64).
pub const LADDER_MAX: usize = 4096;
/// Rows the error is measured on.
pub const SAMPLE_ROWS: usize = 500;
/// Seed of the row sample (fixed: the rows do not follow any run seed).
const SAMPLE_SEED: u64 = 0x5EED_D1A1;
/// One feature matrix may take at most this share of the memory budget.
const BUDGET_SHARE: f64 = 1.0 / 8.0;

crate::solver::cache::cache_key! {
    /// The D the rule chose for a map's columns and bandwidth.
    pub DimKey => DimChoice
}

crate::solver::cache::cache_key! {
    /// The kernel error of a map on the problem's sample.
    pub MapErrorKey => f64
}

/// The D the ladder chose and what it measured.
#[derive(Debug, Clone, PartialEq)]
pub struct DimChoice {
    pub dim: usize,
    /// The error at `dim`.
    pub error: f64,
    pub tol: f64,
    /// The last rung the ladder could reach.
    pub cap: usize,
    /// Whether the error at `dim` is within `tol` (false: stopped at the cap).
    pub within: bool,
    /// Every rung tried, with its error.
    pub tried: Vec<(usize, f64)>,
}

/// The rows of the sample: [`SAMPLE_ROWS`] of `n` without replacement from
/// a fixed seed, sorted; every row when n is smaller.
pub fn sample_rows(n: usize) -> Vec<usize> {
    if n <= SAMPLE_ROWS {
        return (0..n).collect();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SAMPLE_SEED);
    let mut v = sample(&mut rng, n, SAMPLE_ROWS).into_vec();
    v.sort_unstable();
    v
}

/// The largest rung a feature matrix of n rows may use: at most
/// [`LADDER_MAX`] and n·2D·8 bytes ≤ an eighth of `budget` bytes (at
/// least [`LADDER_MIN`]; the memory guard refuses what does not fit).
pub fn ladder_cap(n: usize, budget: u64) -> usize {
    let mut cap = LADDER_MIN;
    while cap * 2 <= LADDER_MAX
        && (n as f64) * 2.0 * (cap * 2) as f64 * 8.0 <= budget as f64 * BUDGET_SHARE
    {
        cap *= 2;
    }
    cap
}

/// ‖ΦΦᵀ − K‖_F / ‖K‖_F of the map `spec` on the rows `x` (the sample,
/// the map's columns only): K the exact Gaussian kernel at `spec.sigma`.
pub fn approx_error(x: ArrayView2<f64>, spec: &MapSpec) -> f64 {
    if x.nrows() == 0 || spec.dim == 0 {
        return 0.0;
    }
    let omega = spec.frequencies();
    error_of(x.dot(&omega), x.dot(&x.t()), spec)
}

/// [`approx_error`] on a sample of CSR rows (all the matrix's columns;
/// the map reads `spec.cols`): the same products per nonzero, never the
/// sample's dense rows.
pub fn approx_error_csr(x: &Csr, spec: &MapSpec) -> f64 {
    if x.nrows() == 0 || spec.dim == 0 {
        return 0.0;
    }
    let omega = spec.frequencies();
    let z = rff_csr::sample_args(x, &spec.cols, omega.view());
    error_of(z, rff_csr::sample_gram(x, &spec.cols), spec)
}

/// The error from the sample's arguments z = XΩ and Gram matrix XXᵀ.
fn error_of(z: Array2<f64>, gram: Array2<f64>, spec: &MapSpec) -> f64 {
    let m = z.nrows();
    let scale = 1.0 / (spec.dim as f64).sqrt();
    let (s, c) = (z.mapv(|t| t.sin() * scale), z.mapv(|t| t.cos() * scale));
    let approx = s.dot(&s.t()) + c.dot(&c.t());
    let norms: Vec<f64> = gram.diag().to_vec();
    let g = 1.0 / (2.0 * spec.sigma * spec.sigma);
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..m {
            let d2 = (norms[i] + norms[j] - 2.0 * gram[[i, j]]).max(0.0);
            let k = (-g * d2).exp();
            let e = approx[[i, j]] - k;
            num += e * e;
            den += k * k;
        }
    }
    (num / den).sqrt()
}

/// The smallest rung from [`LADDER_MIN`] up to `cap` whose error on the
/// sample `x` is ≤ `tol` (else `cap`), for the map of `base` with its D
/// replaced by the rung's. Deterministic: the sample and the frequencies
/// come from fixed seeds. A tighter `tol` never gives a smaller D (the
/// rungs' errors do not depend on it).
pub fn choose_dim(x: ArrayView2<f64>, base: &MapSpec, tol: f64, cap: usize) -> DimChoice {
    choose_dim_by(base, tol, cap, |spec| approx_error(x, spec))
}

/// [`choose_dim`] with the error of a map given by `error`.
fn choose_dim_by(
    base: &MapSpec,
    tol: f64,
    cap: usize,
    error: impl Fn(&MapSpec) -> f64,
) -> DimChoice {
    let mut tried = Vec::new();
    let mut dim = LADDER_MIN;
    loop {
        let spec = MapSpec {
            dim,
            ..base.clone()
        };
        let error = error(&spec);
        tried.push((dim, error));
        if error <= tol || dim * 2 > cap {
            return DimChoice {
                dim,
                error,
                tol,
                cap,
                within: error <= tol,
                tried,
            };
        }
        dim *= 2;
    }
}

/// The sample of the problem's rows, as they are held.
enum Sample {
    Dense(Array2<f64>),
    Sparse(Csr),
}

impl Sample {
    /// The sample's rows of the problem's (scaled) columns `cols`; sparse
    /// rows stay sparse (all their columns: the map picks its own).
    fn of(problem: &Problem, cols: &Range<usize>) -> Sample {
        let rows = sample_rows(problem.n());
        match problem.csr() {
            Some(x) => Sample::Sparse(x.select_csr(&rows)),
            None => Sample::Dense(problem.x.rows().cols(cols.clone()).select(&rows)),
        }
    }

    /// The error of the map `spec` (its columns the sample's, when dense).
    fn error(&self, spec: &MapSpec) -> f64 {
        match self {
            Sample::Dense(x) => approx_error(x.view(), spec),
            Sample::Sparse(x) => approx_error_csr(x, spec),
        }
    }
}

/// The largest rung whose frequencies Ω (d × D values) take at most an
/// eighth of `budget` bytes (at least [`LADDER_MIN`]): d can be large on
/// sparse rows (a vocabulary), where Ω, not the n × 2D features, would
/// outgrow the memory.
pub fn omega_cap(d: usize, budget: u64) -> usize {
    let mut cap = LADDER_MIN;
    while cap * 2 <= LADDER_MAX
        && (d as f64) * (cap * 2) as f64 * 8.0 <= budget as f64 * BUDGET_SHARE
    {
        cap *= 2;
    }
    cap
}

/// The automatic D of a map on the columns `cols` at bandwidth `sigma`
/// (frequencies from `rff_seed` 0, stream 0, as the default map), under
/// the default memory budget; cached on the problem.
pub fn auto_dim(problem: &Problem, cols: Range<usize>, sigma: f64) -> DimChoice {
    let budget = crate::memory::Budget::from_limit(None).limit;
    let cap = ladder_cap(problem.n(), budget).min(omega_cap(cols.len(), budget));
    let key = DimKey(format!(
        "dimrule|auto|sigma={:016x}|cols={}..{}|tol={}|cap={cap}",
        sigma.to_bits(),
        cols.start,
        cols.end,
        DIM_TOL
    ));
    let base = MapSpec {
        cols: cols.clone(),
        sigma,
        dim: LADDER_MIN,
        seed: 0,
        stream: 0,
        f32: false,
    };
    let choose = || {
        let sample = Sample::of(problem, &cols);
        choose_dim_by(&base, DIM_TOL, cap, |spec| sample.error(spec))
    };
    problem
        .cached(&key, || Ok(choose()))
        .map_or_else(|_| choose(), |c| (*c).clone())
}

/// The error of the map `spec` on the problem's sample (cached, under a
/// key outside the `rff` family, so it is not counted as a feature map): what a
/// run reports beside its D.
pub fn map_error(problem: &Problem, spec: &MapSpec) -> f64 {
    let key = MapErrorKey(format!("dimrule|err|{}", spec.key()));
    problem
        .cached(&key, || Ok(Sample::of(problem, &spec.cols).error(spec)))
        .map_or(f64::NAN, |e| *e)
}

/// The approximation report of `specs` for a run's extras.
pub fn describe(problem: &Problem, specs: &[MapSpec]) -> crate::solver::KernelApprox {
    crate::solver::KernelApprox {
        errors: specs.iter().map(|s| map_error(problem, s)).collect(),
        tolerance: DIM_TOL,
        sample_rows: problem.n().min(SAMPLE_ROWS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameter table's text (a `&'static str`, so it cannot be
    /// formatted from the constants) states the rule the constants apply.
    #[test]
    fn the_stated_rule_is_the_one_applied() {
        let rule = super::super::rff::DIM_RULE;
        for said in [
            format!("{LADDER_MIN}, {}", 2 * LADDER_MIN),
            format!("{LADDER_MAX}"),
            format!("≤ {DIM_TOL}"),
            format!("{SAMPLE_ROWS} sampled rows"),
        ] {
            assert!(rule.contains(&said), "{rule:?} does not say {said:?}");
        }
    }
}
