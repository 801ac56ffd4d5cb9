//! Random Fourier features for the Gaussian kernel (Rahimi & Recht 2007) as
//! RFF-KPKM uses them (docs/methods/rff-power-kmeans.md#random-fourier-features).
//!
//! For a bandwidth σ and D frequencies ω₁…ω_D ~ N(0, σ⁻² I), the map is the
//! block form of the paper's eq. 2 (sin/cos pairs, no phase):
//!
//! ```text
//! φ(x) = [sin(Ωᵀx), cos(Ωᵀx)] / √D        (2D columns)
//! ```
//!
//! so that φ(x)·φ(y) = (1/D) Σ cos(ωᵢᵀ(x−y)), an unbiased estimate of
//! exp(−‖x−y‖²/2σ²) whose error falls like 1/√D, and ‖φ(x)‖² = 1 exactly
//! (every squared feature distance lies in [0, 4]).
//!
//! - **D** counts frequencies (the matrix has 2D columns). Default: the
//!   smallest D on 64, 128, … whose kernel error on a sample of rows is
//!   within a tolerance ([`super::rff_dim`]); the paper's ⌈4·ln³(2k)⌉
//!   ([`paper_dim`]; docs/methods/rff-power-kmeans.md#number-of-frequencies-d)
//!   is `-P rff_dim=` by hand.
//! - **Seed**: the frequencies come from their own seed, the `rff_seed`
//!   parameter, not from `--seed`: every restart of a run shares one map
//!   (built once), restart r stays reproducible alone with
//!   `--seed seed+r --restarts 1`, and changing the starts never rebuilds
//!   the features. View l of a multi-view algorithm draws from stream l of
//!   that seed, so view 0 at the same σ is exactly `rff-power`'s map.
//! - **Memory**: the features are computed in fixed blocks of rows (one
//!   GEMM X_b·Ω per block, then sin/cos in place), so the peak is the n×2D
//!   result plus one block: O(n·D), never O(n²). [`guard`] checks the
//!   estimate against `--max-memory` before anything is allocated.
//! - **Cache**: feature matrices are cached on the [`Problem`] keyed by
//!   (σ, D, seed, stream, columns); moving s₀, η, λ or k never rebuilds
//!   them. Matrices of an earlier parameter set are dropped when a new set
//!   is built, so a session that moves D or σ holds one set at a time.

use super::bandwidth::SIGMA_RULE;
use crate::error::{Error, Result};
use crate::linalg;
use crate::memory;
use crate::solver::params::{Default, ParamSpec, Scale};
use crate::solver::rows::Rows;
pub use crate::solver::space::map::{FeatureMap, MapSpec, Store};
use crate::solver::{Ctx, MapInfo, Problem};
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The rule behind the `rff_dim` parameter's automatic default
/// ([`super::rff_dim`] applies it).
pub const DIM_RULE: &str = "the smallest D in 64, 128, …, 4096 whose features approximate the Gaussian kernel (σ rule) to a relative Frobenius error ≤ 0.03 on 500 sampled rows";

/// Largest accepted D (frequencies).
pub const MAX_DIM: usize = 1 << 16;

/// Rows per parallel task when building features (fixed).
const BLOCK_ROWS: usize = 512;

/// The paper's D for k clusters: ⌈4·ln³(2k)⌉ (24 for k = 3, 108 for k = 10).
/// No longer the default (see [`super::rff_dim`]); `-P rff_dim=` with
/// this value gives the paper's setting.
pub fn paper_dim(k: usize) -> usize {
    let l = (2.0 * k.max(1) as f64).ln();
    ((4.0 * l * l * l).ceil() as usize).clamp(1, MAX_DIM)
}

/// The `rff_dim` parameter (D, the number of frequencies).
pub fn dim_spec() -> ParamSpec {
    ParamSpec {
        name: "rff_dim",
        symbol: "D",
        default: Default::Auto(DIM_RULE),
        min: 1.0,
        max: MAX_DIM as f64,
        scale: Scale::Log,
        step: 1.5,
        coarse: 2.0,
        integer: true,
        help: "Number of random Fourier frequencies D (the feature matrix has 2D columns, n·2D·8 bytes per view). Larger D approximates the Gaussian kernel better (error ~1/√D) at O(n·D·k) cost per iteration. Default: the smallest D in 64, 128, …, 4096 (and n·2D·8 bytes ≤ 1/8 of the memory budget) whose relative Frobenius kernel error on 500 sampled rows is ≤ 0.03, at the σ rule; the run reports each map's error (kernel_approx). The paper's ⌈4·ln³(2k)⌉ (108 for k = 10) by hand.",
    }
}

/// The `rff_seed` parameter.
pub fn seed_spec() -> ParamSpec {
    ParamSpec {
        name: "rff_seed",
        symbol: "seed_ω",
        default: Default::Fixed(0.0),
        min: 0.0,
        max: u32::MAX as f64,
        scale: Scale::Linear,
        step: 1.0,
        coarse: 10.0,
        integer: true,
        help: "Seed of the random frequencies, separate from --seed: all restarts share one feature map, and changing the starts never rebuilds it.",
    }
}

/// The `rff_f32` switch of `rff-power`.
pub fn f32_spec() -> ParamSpec {
    ParamSpec {
        // An f32 run (`--dtype f32`) stores its features in f32 too,
        // unless the parameter is given.
        default: Default::Auto("1 when the run is f32 (--dtype), else 0"),
        ..ParamSpec::flag(
            "rff_f32",
            "f32",
            0.0,
            "1 stores the feature matrix in f32: half the memory and half the bytes read per iteration; every sum stays in f64, the features are rounded to ~7 digits. Default: 1 when the run is f32 (--dtype f32), else 0.",
        )
    }
}

/// The `sigma` parameter of the RFF algorithms (Gaussian bandwidth).
pub fn sigma_spec() -> ParamSpec {
    ParamSpec {
        name: "sigma",
        symbol: "σ",
        default: Default::Auto(SIGMA_RULE),
        min: 1e-6,
        max: 1e6,
        scale: Scale::Log,
        step: 1.1,
        coarse: 2.0,
        integer: false,
        help: "Bandwidth σ of the approximated Gaussian kernel exp(−‖x−y‖²/2σ²). The paper uses σ = 1000 on unstated scaling; the default is the KPK rule (as kpower), √(2p) after standardising.",
    }
}

/// Prefix of the cache keys of feature maps.
const FAMILY: &str = "rff|";

impl MapSpec {
    /// The cache key: every field, σ to the bit.
    pub fn key(&self) -> String {
        format!(
            "{FAMILY}sigma={:016x}|D={}|seed={}|stream={}|cols={}..{}|{}",
            self.sigma.to_bits(),
            self.dim,
            self.seed,
            self.stream,
            self.cols.start,
            self.cols.end,
            if self.f32 { "f32" } else { "f64" }
        )
    }

    /// The frequencies Ω (d × D), entries N(0, 1/σ²), drawn row-major from
    /// ChaCha8 (seed, stream).
    pub fn frequencies(&self) -> Array2<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(self.stream);
        let inv = 1.0 / self.sigma;
        Array2::from_shape_simple_fn((self.cols.len(), self.dim), || {
            let z: f64 = StandardNormal.sample(&mut rng);
            z * inv
        })
    }
}

crate::solver::cache::cache_key! {
    /// A feature map, under its spec's key ([`MapSpec::key`]).
    pub MapKey => FeatureMap
}

impl FeatureMap {
    /// Computes the features of the rows of `x` (all its columns; pass the
    /// view's column slice). Checks `ctx` between blocks and reports the
    /// progress as a stage named `label`.
    pub fn build<'x>(
        x: impl Into<Rows<'x>>,
        spec: &MapSpec,
        ctx: &Ctx,
        label: &str,
    ) -> Result<FeatureMap> {
        let x = x.into();
        let t0 = std::time::Instant::now();
        assert_eq!(x.ncols(), spec.cols.len(), "columns of the view");
        let omega = spec.frequencies();
        let store = if spec.f32 {
            Store::F32(map_rows(x, omega.view(), ctx, label)?)
        } else {
            Store::F64(map_rows(x, omega.view(), ctx, label)?)
        };
        Ok(FeatureMap::finish(spec, store, t0))
    }

    /// The built matrix with its row norms and build time.
    pub(super) fn finish(spec: &MapSpec, store: Store, t0: std::time::Instant) -> FeatureMap {
        let mut f = FeatureMap {
            spec: spec.clone(),
            store,
            norms: Vec::new(),
            build_secs: 0.0,
        };
        f.norms = f.rows().sq_norms();
        f.build_secs = t0.elapsed().as_secs_f64();
        f
    }

    /// The rows, as the solvers read them.
    pub fn rows(&self) -> Rows<'_> {
        match &self.store {
            Store::F64(a) => a.view().into(),
            Store::F32(a) => a.view().into(),
        }
    }

    /// The f64 matrix. Only `rff-power` asks for f32 storage; the
    /// multi-view algorithms, which use this, always build f64.
    pub fn phi(&self) -> &Array2<f64> {
        match &self.store {
            Store::F64(a) => a,
            Store::F32(_) => panic!("an f32 feature matrix has no f64 view"),
        }
    }

    pub fn bytes(&self) -> usize {
        match &self.store {
            Store::F64(a) => a.len() * 8,
            Store::F32(a) => a.len() * 4,
        }
    }
}

/// An element the feature matrix can be stored as.
pub trait Element: Copy + Send + Sync {
    fn from_f64(v: f64) -> Self;
}

impl Element for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Element for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// φ for the rows of `x` with frequencies `omega` (d × D): n × 2D, built in
/// fixed blocks of rows in parallel (each row's features depend only on the
/// row, so the result does not depend on the thread count).
pub fn map_rows<'x, T: Element>(
    x: impl Into<Rows<'x>>,
    omega: ArrayView2<f64>,
    ctx: &Ctx,
    label: &str,
) -> Result<Array2<T>> {
    // f32 rows (`--dtype f32`) are widened per block: the products and
    // the sines stay f64, only the stored features take the map's type.
    let x: Rows = x.into();
    assert_eq!(x.ncols(), omega.nrows(), "frequencies and data differ in d");
    map_blocks(x.nrows(), omega.ncols(), ctx, label, |r0, r1, z| {
        let mut xbuf = Vec::new();
        let xb = x.block_in(r0, r1, &mut xbuf);
        linalg::gemm_seq(z.view_mut(), xb, omega, 1.0, false);
    })
}

/// The frame of every feature map: n × 2D features built in fixed blocks
/// of [`BLOCK_ROWS`] rows in parallel, `products(r0, r1, z)` writing the
/// block's arguments XΩ into the zeroed rows × D `z`, then sin/cos in
/// place; cancellation checked and progress reported as stage `label` per
/// block. Dense and sparse rows share it, so their maps have one layout.
pub(super) fn map_blocks<T: Element>(
    n: usize,
    dim: usize,
    ctx: &Ctx,
    label: &str,
    products: impl Fn(usize, usize, &mut Array2<f64>) + Sync,
) -> Result<Array2<T>> {
    let width = 2 * dim;
    let mut phi = Array2::from_elem((n, width), T::from_f64(0.0));
    if n == 0 || dim == 0 {
        return Ok(phi);
    }
    let scale = 1.0 / (dim as f64).sqrt();
    let blocks = n.div_ceil(BLOCK_ROWS);
    let done = AtomicUsize::new(0);
    ctx.stage(label, 0.0);
    phi.as_slice_mut()
        .expect("fresh array is contiguous")
        .par_chunks_mut(BLOCK_ROWS * width)
        .enumerate()
        .try_for_each(|(b, chunk)| -> Result<()> {
            if ctx.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let r0 = b * BLOCK_ROWS;
            let r1 = (r0 + BLOCK_ROWS).min(n);
            let mut z = Array2::<f64>::zeros((r1 - r0, dim));
            products(r0, r1, &mut z);
            let mut buf = vec![0.0; width];
            for (ii, zr) in z.outer_iter().enumerate() {
                let (sin, cos) = buf.split_at_mut(dim);
                sin_cos_into(zr.as_slice().expect("fresh array"), sin, cos, scale);
                let out = &mut chunk[ii * width..(ii + 1) * width];
                for (o, &v) in out.iter_mut().zip(&buf) {
                    *o = T::from_f64(v);
                }
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if d.is_multiple_of(16) {
                ctx.stage(label, d as f64 / blocks as f64);
            }
            Ok(())
        })?;
    ctx.stage(label, 1.0);
    Ok(phi)
}

/// Arguments at or beyond this go to libm (a Gaussian frequency only
/// produces them for absurdly scaled data).
const FAST_LIMIT: f64 = 1_048_576.0;

/// sin and cos of `x`, to within about 1 ulp: Cody–Waite reduction by π/2
/// and the fdlibm kernels on [−π/4, π/4], without libm calls (`round`
/// included) or branches on the quadrant; about twice as fast as libm's
/// sincos on the feature map's loop. Arguments beyond 2²⁰ go to libm.
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    if x.abs() < FAST_LIMIT {
        sin_cos_reduced(x)
    } else {
        x.sin_cos()
    }
}

/// [`sin_cos`] for |x| < 2²⁰.
#[inline(always)]
fn sin_cos_reduced(x: f64) -> (f64, f64) {
    // π/2 split into 33-bit parts (fdlibm's pio2_1, pio2_2, pio2_3, pio2_3t).
    const PIO2_1: f64 = 1.570_796_326_734_125_6e0;
    const PIO2_2: f64 = 6.077_100_506_303_966e-11;
    const PIO2_3: f64 = 2.022_266_248_711_166_4e-21;
    const PIO2_3T: f64 = 8.478_427_660_368_9e-32;
    // Round to nearest by the 1.5·2⁵² trick (no libm call): exact for
    // |x·2/π| < 2⁵¹.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let qm = x * std::f64::consts::FRAC_2_PI + MAGIC;
    let q = qm - MAGIC;
    let quadrant = qm.to_bits() as u32 & 3;
    let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;
    let r = r - q * PIO2_3T;
    let (sn, cs) = (kernel_sin(r), kernel_cos(r));
    let odd = quadrant & 1 == 1;
    let (a, b) = if odd { (cs, sn) } else { (sn, cs) };
    // Quadrants 2, 3 negate sin; 1, 2 negate cos.
    let sa = if quadrant & 2 != 0 { -a } else { a };
    let sb = if (quadrant + 1) & 2 != 0 { -b } else { b };
    (sa, sb)
}

/// `sin[i], cos[i] = scale·sin(z[i]), scale·cos(z[i])`, vectorisable when
/// every argument is in the fast range.
fn sin_cos_into(z: &[f64], sin: &mut [f64], cos: &mut [f64], scale: f64) {
    let fast = z.iter().all(|v| v.abs() < FAST_LIMIT);
    for ((sv, cv), &t) in sin.iter_mut().zip(cos.iter_mut()).zip(z) {
        let (sn, cs) = if fast { sin_cos_reduced(t) } else { sin_cos(t) };
        *sv = sn * scale;
        *cv = cs * scale;
    }
}

/// sin on [−π/4, π/4] (fdlibm __kernel_sin; its coefficients as published).
#[allow(clippy::excessive_precision)]
#[inline]
fn kernel_sin(x: f64) -> f64 {
    const S1: f64 = -1.666_666_666_666_663_24e-1;
    const S2: f64 = 8.333_333_333_322_489_46e-3;
    const S3: f64 = -1.984_126_982_985_794_93e-4;
    const S4: f64 = 2.755_731_370_707_006_78e-6;
    const S5: f64 = -2.505_076_025_340_686_34e-8;
    const S6: f64 = 1.589_690_995_211_550_07e-10;
    let z = x * x;
    let v = z * x;
    let r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    x + v * (S1 + z * r)
}

/// cos on [−π/4, π/4] (fdlibm __kernel_cos; its coefficients as published).
#[allow(clippy::excessive_precision)]
#[inline]
fn kernel_cos(x: f64) -> f64 {
    const C1: f64 = 4.166_666_666_666_660_19e-2;
    const C2: f64 = -1.388_888_888_887_410_96e-3;
    const C3: f64 = 2.480_158_728_947_672_94e-5;
    const C4: f64 = -2.755_731_435_139_066_33e-7;
    const C5: f64 = 2.087_572_321_298_174_83e-9;
    const C6: f64 = -1.135_964_755_778_819_48e-11;
    let z = x * x;
    let r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + z * r)
}

/// Bytes of the feature matrices of `specs` for n rows.
pub fn feature_bytes(n: usize, specs: &[MapSpec]) -> f64 {
    specs
        .iter()
        .map(|s| n as f64 * 2.0 * s.dim as f64 * if s.f32 { 4.0 } else { 8.0 })
        .sum()
}

/// The memory guard of the RFF algorithms: the feature matrices of `specs`,
/// the largest map's frequencies and `work` bytes of working memory (n×k
/// arrays) against `--max-memory`
/// (default half the RAM). Refuses in one line, before anything is built.
pub fn guard(
    algo: &str,
    n: usize,
    specs: &[MapSpec],
    work: f64,
    max_memory: Option<u64>,
) -> Result<()> {
    let feats = feature_bytes(n, specs);
    let cols: usize = specs.iter().map(|s| 2 * s.dim).sum();
    let bytes = if specs.iter().all(|s| s.f32) { 4 } else { 8 };
    let what = if specs.len() == 1 {
        "its feature matrix".to_string()
    } else {
        format!("{} feature matrices", specs.len())
    };
    let fix = format!(
        "lower rff_dim (-P rff_dim=…){}",
        if specs.len() > 1 {
            " or use fewer views"
        } else if bytes == 8 {
            " or store the features in f32 (-P rff_f32=1, half the memory)"
        } else {
            ""
        }
    );
    // The frequencies Ω (d × D) of the map being built: small beside the
    // features on dense data, but d is a vocabulary on sparse rows. The
    // maps are built one at a time, so the largest counts.
    let omega = specs
        .iter()
        .map(|s| s.cols.len() as f64 * s.dim as f64 * 8.0)
        .fold(0.0, f64::max);
    memory::check(
        algo,
        feats + work + omega,
        &format!(
            "{what}, frequencies and working arrays (n = {n} rows × {cols} feature columns × {bytes} bytes = {}; frequencies {})",
            memory::fmt_bytes(feats),
            memory::fmt_bytes(omega)
        ),
        &fix,
        max_memory,
    )
}

/// The feature matrices of `specs` on the problem's (scaled) data, from its
/// cache or built now (call [`guard`] first). Matrices cached earlier under
/// other specs are dropped first.
pub fn features(problem: &Problem, specs: &[MapSpec], ctx: &Ctx) -> Result<Vec<Arc<FeatureMap>>> {
    let wanted: Vec<String> = specs.iter().map(|s| s.key()).collect();
    problem.retain_family(FAMILY, &wanted);
    let mut out = Vec::with_capacity(specs.len());
    for (v, (spec, key)) in specs.iter().zip(wanted).enumerate() {
        ctx.check()?;
        if spec.cols.end > problem.p() || spec.cols.is_empty() {
            return Err(Error::param(format!(
                "view columns {}-{} are out of range: the data has {} columns",
                spec.cols.start + 1,
                spec.cols.end,
                problem.p()
            )));
        }
        let label = if specs.len() == 1 {
            format!("random features ({} × {})", problem.n(), 2 * spec.dim)
        } else {
            format!(
                "random features, view {}/{} ({} × {})",
                v + 1,
                specs.len(),
                problem.n(),
                2 * spec.dim
            )
        };
        let f = problem.cached(&MapKey(key), || match problem.csr() {
            // Sparse rows: per nonzero, never densified.
            Some(x) => FeatureMap::build_csr(x, spec, ctx, &label),
            None => FeatureMap::build(problem.x.rows().cols(spec.cols.clone()), spec, ctx, &label),
        })?;
        out.push(f);
    }
    Ok(out)
}

/// Whether the features of `spec` are cached (the UI can say "features
/// reused").
pub fn is_cached(problem: &Problem, spec: &MapSpec) -> bool {
    problem.is_cached(&MapKey(spec.key()))
}

/// JSON description of a feature map, for `Fit::extra`.
pub fn describe(f: &FeatureMap) -> MapInfo {
    MapInfo {
        columns: format!("{}-{}", f.spec.cols.start + 1, f.spec.cols.end),
        sigma: f.spec.sigma,
        rff_dim: f.spec.dim,
        feature_columns: 2 * f.spec.dim,
        rff_seed: f.spec.seed,
        stream: f.spec.stream,
        feature_bytes: f.bytes(),
        storage: if f.spec.f32 { "f32" } else { "f64" },
        build_secs: f.build_secs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_dimension_rule() {
        // The paper's rule (docs/methods/rff-power-kmeans.md#number-of-frequencies-d).
        for (k, d) in [
            (3, 24),
            (7, 74),
            (10, 108),
            (15, 158),
            (20, 201),
            (100, 595),
        ] {
            assert_eq!(paper_dim(k), d, "k = {k}");
        }
        assert_eq!(paper_dim(1), 2);
    }

    #[test]
    fn fast_sin_cos_matches_libm() {
        let mut worst: f64 = 0.0;
        let mut x = -2000.0;
        while x < 2000.0 {
            let (s, c) = sin_cos(x);
            worst = worst.max((s - x.sin()).abs()).max((c - x.cos()).abs());
            x += 0.0123;
        }
        assert!(worst < 4e-16, "{worst}");
        for x in [0.0, -0.0, 1e-300, 1e7, -3e9, f64::MAX] {
            let (s, c) = sin_cos(x);
            assert!(
                (s - x.sin()).abs() < 1e-15 && (c - x.cos()).abs() < 1e-15,
                "{x}"
            );
        }
        let (s, c) = sin_cos(f64::NAN);
        assert!(s.is_nan() && c.is_nan());
    }
}
