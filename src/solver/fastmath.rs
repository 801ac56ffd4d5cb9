//! `ln` and `exp` written without branches or libm calls, so that loops
//! over a block of weights compile to SIMD code (libm's scalar calls were a
//! quarter of a power k-means iteration). The kernels are fdlibm's
//! (`__ieee754_log`, `__ieee754_exp`), accurate to about 1 ulp, on the
//! domains the weights need: `ln` of positive normal numbers, `exp` of
//! numbers ≤ 0 (results below 2⁻¹⁰²² flush to 0, a weight that small is
//! zero for every purpose).

// fdlibm's constants as published.
#[allow(clippy::excessive_precision)]
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
#[allow(clippy::excessive_precision)]
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
const INV_LN2: f64 = std::f64::consts::LOG2_E;

/// ln x for positive normal x (other inputs give unspecified values).
#[allow(clippy::excessive_precision)]
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    const LG1: f64 = 6.666_666_666_666_735_13e-01;
    const LG2: f64 = 3.999_999_999_940_941_91e-01;
    const LG3: f64 = 2.857_142_874_366_239_15e-01;
    const LG4: f64 = 2.222_219_843_214_978_40e-01;
    const LG5: f64 = 1.818_357_216_161_805_01e-01;
    const LG6: f64 = 1.531_383_769_920_937_33e-01;
    const LG7: f64 = 1.479_819_860_511_658_59e-01;
    let bits = x.to_bits();
    // x = 2^e · m with m in [1, 2); then m in [√2/2, √2) by moving a factor 2.
    // The exponent becomes a float through the 2⁵² trick, not an integer
    // conversion (which has no SIMD form before AVX-512).
    let e = f64::from_bits(0x4330_0000_0000_0000 | (bits >> 52)) - 4_503_599_627_371_519.0;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let e = if big { e + 1.0 } else { e };
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    e * LN2_HI - ((hfsq - (s * (hfsq + r) + e * LN2_LO)) - f)
}

/// e^x for x ≤ 0 (NaN stays NaN; results below 2⁻¹⁰²² are 0).
#[allow(clippy::excessive_precision)]
#[inline(always)]
pub fn exp_neg(x: f64) -> f64 {
    const P1: f64 = 1.666_666_666_666_660_19e-01;
    const P2: f64 = -2.777_777_777_701_559_34e-03;
    const P3: f64 = 6.613_756_321_437_934_36e-05;
    const P4: f64 = -1.653_390_220_546_525_15e-06;
    const P5: f64 = 4.138_136_797_057_238_46e-08;
    // Round-to-nearest by the 1.5·2⁵² trick: no call, no branch.
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    // (Not f64::max: NaN must stay NaN.)
    let xc = if x < -708.0 { -708.0 } else { x };
    let ks = xc * INV_LN2 + SHIFT;
    let kf = ks - SHIFT;
    let hi = xc - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let r = hi - lo;
    let t = r * r;
    let c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    // y · 2^k by adding k to the exponent (k ≥ −1022 after the clamp); k
    // sits in the low bits of ks, and shifting it up wraps it in two's
    // complement, so an integer add does it.
    let scaled = f64::from_bits(y.to_bits().wrapping_add(ks.to_bits() << 52));
    if x < -708.0 { 0.0 } else { scaled }
}

#[inline(always)]
fn ln_each(x: &[f64], out: &mut [f64]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = ln(v.max(f64::MIN_POSITIVE));
    }
}

#[inline(always)]
fn exp_each(s: f64, x: &[f64], out: &mut [f64]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = exp_neg(s * v);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn ln_each_avx2(x: &[f64], out: &mut [f64]) {
    ln_each(x, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn exp_each_avx2(s: f64, x: &[f64], out: &mut [f64]) {
    exp_each(s, x, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn ln_each_avx512(x: &[f64], out: &mut [f64]) {
    ln_each(x, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn exp_each_avx512(s: f64, x: &[f64], out: &mut [f64]) {
    exp_each(s, x, out)
}

#[cfg(target_arch = "x86_64")]
pub(super) use crate::linalg::has_avx2;

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

/// `out[i] = ln(max(x[i], smallest normal))`, 8 lanes at a time where the
/// CPU has AVX-512, 4 with AVX2. Without FMA contraction the lanes compute
/// exactly what the scalar code does, so results do not depend on the CPU.
pub fn ln_slice(x: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has AVX-512F (checked just above).
        return unsafe { ln_each_avx512(x, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { ln_each_avx2(x, out) };
    }
    ln_each(x, out)
}

/// `out[i] = e^(s·x[i])` for `s·x[i] ≤ 0`, as [`ln_slice`].
pub fn exp_scaled_slice(s: f64, x: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has AVX-512F (checked just above).
        return unsafe { exp_each_avx512(s, x, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { exp_each_avx2(s, x, out) };
    }
    exp_each(s, x, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn ulps(a: f64, b: f64) -> f64 {
        if a == b {
            return 0.0;
        }
        (a - b).abs() / (b.abs() * f64::EPSILON)
    }

    #[test]
    fn slices_equal_the_scalar_functions() {
        let x: Vec<f64> = (0..1003).map(|i| 1.0 + i as f64 * 0.37).collect();
        let mut a = vec![0.0; x.len()];
        ln_slice(&x, &mut a);
        for (v, r) in x.iter().zip(&a) {
            assert_eq!(r.to_bits(), ln(*v).to_bits());
        }
        let mut b = vec![0.0; x.len()];
        exp_scaled_slice(-0.7, &a, &mut b);
        for (v, r) in a.iter().zip(&b) {
            assert_eq!(r.to_bits(), exp_neg(-0.7 * v).to_bits());
        }
        // Every build this CPU can run gives the scalar bits, whichever
        // the dispatch picks (lengths not a multiple of any lane count).
        #[cfg(target_arch = "x86_64")]
        {
            let bits = |v: &[f64]| v.iter().map(|r| r.to_bits()).collect::<Vec<_>>();
            let (mut c, mut e) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            if has_avx2() {
                // SAFETY: the CPU has AVX2.
                unsafe { ln_each_avx2(&x, &mut c) };
                unsafe { exp_each_avx2(-0.7, &a, &mut e) };
                assert_eq!(bits(&c), bits(&a));
                assert_eq!(bits(&e), bits(&b));
            }
            if has_avx512() {
                // SAFETY: the CPU has AVX-512F.
                unsafe { ln_each_avx512(&x, &mut c) };
                unsafe { exp_each_avx512(-0.7, &a, &mut e) };
                assert_eq!(bits(&c), bits(&a));
                assert_eq!(bits(&e), bits(&b));
            }
        }
    }

    #[test]
    fn ln_matches_libm() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200_000 {
            // Log-uniform over the normal range.
            let x = 2f64.powf(rng.random_range(-1020.0..1020.0)) * rng.random_range(1.0..2.0);
            let (a, b) = (ln(x), x.ln());
            assert!(
                ulps(a, b) <= 2.0 || (a - b).abs() < 1e-300,
                "ln {x}: {a} vs {b}"
            );
        }
        for x in [
            1.0,
            2.0,
            0.5,
            std::f64::consts::SQRT_2,
            1.0 + 1e-15,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            let (a, b) = (ln(x), x.ln());
            assert!(
                (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(1e-300),
                "ln {x}: {a} vs {b}"
            );
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn exp_matches_libm_and_flushes_only_below_the_normal_range() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        for _ in 0..200_000 {
            let x = -rng.random_range(0.0f64..1.0).powi(3) * 708.0;
            let (a, b) = (exp_neg(x), x.exp());
            assert!(ulps(a, b) <= 2.0, "exp {x}: {a} vs {b}");
        }
        assert_eq!(exp_neg(0.0), 1.0);
        assert_eq!(exp_neg(-0.0), 1.0);
        assert_eq!(exp_neg(-800.0), 0.0);
        assert_eq!(exp_neg(f64::NEG_INFINITY), 0.0);
        assert!(exp_neg(-700.0) > 0.0);
        assert!(exp_neg(f64::NAN).is_nan());
    }
}
