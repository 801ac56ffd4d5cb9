//! Initial centres: k-means++ (greedy, as scikit-learn) or k random rows.
//! Both return row indices, so the same seed gives the same starting
//! points to every algorithm (matched starts), in input space or, through
//! the distance callback, in a kernel's feature space.

use crate::error::{Error, Result};
use ndarray::Array2;
use rand::Rng;
use rand::seq::index::sample;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Init {
    /// D²-weighted seeding with 2 + ⌊ln k⌋ candidates per step (greedy k-means++).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "kmeans++"))]
    #[serde(rename = "kmeans++")]
    KmeansPP,
    /// k distinct rows drawn uniformly.
    #[cfg_attr(feature = "cli", value(name = "random"))]
    #[serde(rename = "random")]
    Random,
}

impl std::fmt::Display for Init {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Init::KmeansPP => "kmeans++",
            Init::Random => "random",
        })
    }
}

/// Chooses `k` seed rows among `n`. `dist(cands)` returns the n × |cands|
/// squared distances from every point to each candidate row.
pub fn choose_seeds<R: Rng>(
    n: usize,
    k: usize,
    init: Init,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    weighted_seeds(n, None, k, init, rng, dist)
}

/// [`choose_seeds`] with rows weighted by their sample weights `w`, as
/// scikit-learn seeds a weighted fit: k-means++ draws the first seed ∝ w and
/// each next ∝ w·D², judging candidates by Σ w·min D²; random seeding
/// draws k distinct rows ∝ w. A row of weight 0 is never a seed. `None` is
/// [`choose_seeds`], to the bit.
pub fn weighted_seeds<R: Rng>(
    n: usize,
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    seeds(n, w, k, init, false, rng, dist)
}

/// [`weighted_seeds`], or with `repeat`, as scikit-learn seeds data with
/// fewer distinct points than k: instead of refusing, k-means++ repeats
/// its first seed once every point is a seed, and random seeding keeps k
/// distinct rows that are not distinct points. The clusters of repeated
/// seeds start empty (scikit-learn then warns of fewer distinct
/// clusters). On data with k distinct points, the same seeds.
fn seeds<R: Rng>(
    n: usize,
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    repeat: bool,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    if k == 0 || k > n {
        return Err(Error::param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    if let Some(w) = w
        && w.iter().filter(|&&v| v > 0.0).count() < k
    {
        return Err(Error::Data(format!(
            "fewer than k = {k} rows have a positive sample weight; lower k"
        )));
    }
    match init {
        Init::KmeansPP => kmeans_pp(n, w, k, repeat, rng, dist),
        Init::Random => random_distinct(n, w, k, repeat, rng, dist),
    }
}

/// Seeds for Euclidean rows: the data, or a feature map stored in f64 or
/// f32.
pub fn euclidean_seeds<'a, R: Rng>(
    x: impl Into<super::rows::Rows<'a>>,
    x_norms: &[f64],
    k: usize,
    init: Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    let x = x.into();
    weighted_euclidean_seeds(x, x_norms, None, k, init, rng)
}

/// [`euclidean_seeds`] with sample weights ([`weighted_seeds`]).
pub fn weighted_euclidean_seeds<'a, R: Rng>(
    x: impl Into<super::rows::Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    rng: &mut R,
) -> Result<Vec<usize>> {
    euclidean_seeds_or_repeats(x, x_norms, w, k, init, false, rng)
}

/// [`weighted_euclidean_seeds`]; with `repeat`, fewer distinct points
/// than k repeat seeds instead of being refused (see `seeds`).
pub fn euclidean_seeds_or_repeats<'a, R: Rng>(
    x: impl Into<super::rows::Rows<'a>>,
    x_norms: &[f64],
    w: Option<&[f64]>,
    k: usize,
    init: Init,
    repeat: bool,
    rng: &mut R,
) -> Result<Vec<usize>> {
    let x = x.into();
    seeds(x.nrows(), w, k, init, repeat, rng, |cands| {
        let c = x.select(cands);
        x.sq_dists(x_norms, c.view())
    })
}

fn too_few_distinct(k: usize) -> Error {
    Error::Data(format!(
        "the data has fewer than k = {k} distinct points; lower k or remove duplicate rows"
    ))
}

/// The index `r` falls at in the running sums `cumulative` (the last
/// index with a positive step when rounding puts `r` past the end).
fn draw(cumulative: &[f64], r: f64) -> usize {
    let n = cumulative.len();
    let i = cumulative.partition_point(|&c| c <= r).min(n - 1);
    // Only the clamp can land on a zero-weight row (no step of its own):
    // step back to the last row that has one.
    let mut j = i;
    while j > 0 && cumulative[j] <= cumulative[j - 1] {
        j -= 1;
    }
    j
}

fn kmeans_pp<R: Rng>(
    n: usize,
    w: Option<&[f64]>,
    k: usize,
    repeat: bool,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    let trials = 2 + (k as f64).ln().floor() as usize;
    let first = match w {
        None => rng.random_range(0..n),
        Some(w) => {
            let mut acc = 0.0;
            let cumulative: Vec<f64> = w
                .iter()
                .map(|&v| {
                    acc += v;
                    acc
                })
                .collect();
            draw(&cumulative, rng.random::<f64>() * acc)
        }
    };
    let wt = |i: usize| crate::solver::lloyd::weight(w, i);
    let mut seeds = vec![first];
    let mut closest: Vec<f64> = dist(&[first]).column(0).to_vec();
    let mut potential: f64 = match w {
        None => closest.iter().sum(),
        Some(w) => closest.iter().zip(w).map(|(c, v)| c * v).sum(),
    };
    // Reused by every step: a fresh n-long buffer per step cost its page
    // faults again.
    let mut cumulative = Vec::with_capacity(n);
    while seeds.len() < k {
        if potential <= 0.0 {
            if repeat {
                seeds.resize(k, first);
                break;
            }
            return Err(too_few_distinct(k));
        }
        cumulative.clear();
        let mut acc = 0.0;
        for (i, &c) in closest.iter().enumerate() {
            acc += match w {
                None => c,
                Some(w) => c * w[i],
            };
            cumulative.push(acc);
        }
        let cands: Vec<usize> = (0..trials)
            .map(|_| {
                let r = rng.random::<f64>() * acc;
                match w {
                    None => cumulative.partition_point(|&c| c <= r).min(n - 1),
                    Some(_) => draw(&cumulative, r),
                }
            })
            .collect();
        let d = dist(&cands);
        // Every candidate's potential Σ w·min(closest, d) in one read of
        // the rows of d: each sum still adds its terms in row order (from
        // −0.0, as `Iterator::sum`), so the same bits as one sum per column.
        let nc = cands.len();
        let mut pots = vec![-0.0f64; nc];
        let ds = d.as_standard_layout();
        let rows = ds.as_slice().expect("standard layout").chunks_exact(nc);
        for (i, (row, &a)) in rows.zip(&closest).enumerate() {
            let wi = wt(i);
            for (pot, &b) in pots.iter_mut().zip(row) {
                *pot += match w {
                    None => a.min(b),
                    Some(_) => a.min(b) * wi,
                };
            }
        }
        let mut best = (f64::INFINITY, 0);
        for (t, (&cand, &pot)) in cands.iter().zip(&pots).enumerate() {
            if pot < best.0 || (pot == best.0 && cand < cands[best.1]) {
                best = (pot, t);
            }
        }
        let chosen = cands[best.1];
        if closest[chosen] <= 0.0 && !repeat {
            return Err(too_few_distinct(k));
        }
        {
            use rayon::prelude::*;
            let col = best.1;
            let ds = ds.as_slice().expect("standard layout");
            closest
                .par_chunks_mut(1 << 14)
                .zip(ds.par_chunks(nc << 14))
                .for_each(|(cs, rows)| {
                    for (c, row) in cs.iter_mut().zip(rows.chunks_exact(nc)) {
                        *c = c.min(row[col]);
                    }
                });
        }
        potential = best.0;
        seeds.push(chosen);
    }
    Ok(seeds)
}

/// k random rows that are pairwise distinct as points (two identical
/// seeds would stay glued together for the whole run).
fn random_distinct<R: Rng>(
    n: usize,
    w: Option<&[f64]>,
    k: usize,
    repeat: bool,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    for _ in 0..20 {
        let seeds = match w {
            None => sample(rng, n, k).into_vec(),
            Some(w) => rand::seq::index::sample_weighted(rng, n, |i| w[i], k)
                .map_err(|_| too_few_distinct(k))?
                .into_vec(),
        };
        let d = dist(&seeds);
        let clash = (0..k).any(|a| (0..a).any(|b| d[[seeds[a], b]] <= 0.0));
        if !clash || repeat {
            return Ok(seeds);
        }
    }
    Err(too_few_distinct(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use rand::SeedableRng;

    fn rng() -> rand_chacha::ChaCha8Rng {
        rand_chacha::ChaCha8Rng::seed_from_u64(7)
    }

    #[test]
    fn kmeanspp_picks_one_seed_per_blob() {
        let x = array![
            [0.0, 0.0],
            [0.1, 0.0],
            [10.0, 10.0],
            [10.1, 10.0],
            [-10.0, 5.0]
        ];
        let norms = crate::linalg::row_sq_norms(x.view());
        for seed in 0..20 {
            let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let s = euclidean_seeds(x.view(), &norms, 3, Init::KmeansPP, &mut r).unwrap();
            let mut groups: Vec<usize> = s.iter().map(|&i| [0, 0, 1, 1, 2][i]).collect();
            groups.sort();
            assert_eq!(groups, vec![0, 1, 2], "seed {seed}: {s:?}");
        }
    }

    #[test]
    fn duplicates_and_bad_k_are_refused() {
        let x = array![[1.0], [1.0], [1.0], [2.0]];
        let norms = crate::linalg::row_sq_norms(x.view());
        for init in [Init::KmeansPP, Init::Random] {
            let e = euclidean_seeds(x.view(), &norms, 3, init, &mut rng()).unwrap_err();
            assert!(e.to_string().contains("distinct"), "{e}");
            let ok = euclidean_seeds(x.view(), &norms, 2, init, &mut rng()).unwrap();
            assert_ne!(x[[ok[0], 0]], x[[ok[1], 0]]);
        }
        for init in [Init::KmeansPP, Init::Random] {
            // As scikit-learn: three seeds on two distinct points, and the
            // same seeds as without repeats where k distinct points exist.
            let s = euclidean_seeds_or_repeats(x.view(), &norms, None, 3, init, true, &mut rng())
                .unwrap();
            assert_eq!(s.len(), 3);
            let mut values: Vec<f64> = s.iter().map(|&i| x[[i, 0]]).collect();
            values.sort_by(f64::total_cmp);
            values.dedup();
            assert_eq!(values, vec![1.0, 2.0], "{init}: {s:?}");
            let with =
                euclidean_seeds_or_repeats(x.view(), &norms, None, 2, init, true, &mut rng());
            let without = euclidean_seeds(x.view(), &norms, 2, init, &mut rng());
            assert_eq!(with.unwrap(), without.unwrap());
        }
        let e = euclidean_seeds(x.view(), &norms, 5, Init::Random, &mut rng()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "k = 5 is out of range: must be in [1, 4] (the number of rows)"
        );
    }
}
