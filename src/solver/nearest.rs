//! The nearest and second-nearest centre of rows of distances: per row,
//! and eight rows side by side with the same comparisons.

/// Nearest and second-nearest centre of a row of distances: the nearest
/// as [`argmin`](super::weights::argmin) picks it (lowest index on ties).
pub(super) fn argmin2(row: impl Iterator<Item = f64>) -> (usize, f64, f64) {
    let (mut j, mut v1, mut v2) = (0, f64::INFINITY, f64::INFINITY);
    // Selects, not branches: on data the comparisons are unpredictable,
    // and a mispredicted branch per entry cost more than the distances.
    for (l, v) in row.enumerate() {
        let (below1, below2) = (v < v1, v < v2);
        v2 = if below1 {
            v1
        } else if below2 {
            v
        } else {
            v2
        };
        j = if below1 { l } else { j };
        v1 = if below1 { v } else { v1 };
    }
    (j, v1, v2)
}

/// [`argmin2`] of each `k`-long row of the row-major `d`, into `out`:
/// eight rows at a time, each lane making its row's comparisons in the
/// row's order (the same results, bit for bit), so that the rows' chains
/// of dependent selects overlap instead of queueing.
pub(super) fn argmin2_rows(d: &[f64], k: usize, out: &mut Vec<(usize, f64, f64)>) {
    out.clear();
    if k == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F is present (checked above).
        return unsafe { argmin2_rows_avx512(d, k, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::linalg::has_avx2() {
        // SAFETY: AVX2 is present (checked above).
        return unsafe { argmin2_rows_avx2(d, k, out) };
    }
    argmin2_rows_plain(d, k, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn argmin2_rows_avx2(d: &[f64], k: usize, out: &mut Vec<(usize, f64, f64)>) {
    argmin2_rows_plain(d, k, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn argmin2_rows_avx512(d: &[f64], k: usize, out: &mut Vec<(usize, f64, f64)>) {
    argmin2_rows_plain(d, k, out)
}

#[inline(always)]
fn argmin2_rows_plain(d: &[f64], k: usize, out: &mut Vec<(usize, f64, f64)>) {
    const LANES: usize = 8;
    let mut groups = d.chunks_exact(LANES * k);
    for g in &mut groups {
        let (mut j, mut v1, mut v2) = (
            [0u64; LANES],
            [f64::INFINITY; LANES],
            [f64::INFINITY; LANES],
        );
        for l in 0..k {
            let mut v = [0.0; LANES];
            for (r, v) in v.iter_mut().enumerate() {
                *v = g[r * k + l];
            }
            for r in 0..LANES {
                let (below1, below2) = (v[r] < v1[r], v[r] < v2[r]);
                v2[r] = if below1 {
                    v1[r]
                } else if below2 {
                    v[r]
                } else {
                    v2[r]
                };
                j[r] = if below1 { l as u64 } else { j[r] };
                v1[r] = if below1 { v[r] } else { v1[r] };
            }
        }
        out.extend((0..LANES).map(|r| (j[r] as usize, v1[r], v2[r])));
    }
    out.extend(
        groups
            .remainder()
            .chunks_exact(k)
            .map(|row| argmin2(row.iter().copied())),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    #[test]
    fn rows_in_lanes_are_the_scalar_argmin2_to_the_bit() {
        let mut rng = StdRng::seed_from_u64(3);
        // Ties (few distinct values), zeros, infinities and NaN, k from 1
        // to 13 and row counts that leave a remainder of every length.
        let pool = [0.0, 1.0, 1.0, 2.5, f64::INFINITY, f64::NAN, -0.0, 7.25];
        for k in 1..=13 {
            for m in [0, 1, 7, 8, 9, 23, 64, 67] {
                let d: Vec<f64> = (0..m * k)
                    .map(|_| {
                        if rng.random_bool(0.5) {
                            pool[rng.random_range(0..pool.len())]
                        } else {
                            rng.random::<f64>() * 10.0
                        }
                    })
                    .collect();
                let mut got = Vec::new();
                argmin2_rows(&d, k, &mut got);
                assert_eq!(got.len(), m);
                for (row, &(j, v1, v2)) in d.chunks_exact(k).zip(&got) {
                    let (j0, a, b) = argmin2(row.iter().copied());
                    assert_eq!(j, j0, "k {k}, row {row:?}");
                    assert_eq!(v1.to_bits(), a.to_bits(), "k {k}, row {row:?}");
                    assert_eq!(v2.to_bits(), b.to_bits(), "k {k}, row {row:?}");
                }
            }
        }
    }
}
