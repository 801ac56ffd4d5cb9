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
    if k == 0 || k > n {
        return Err(Error::Param(format!(
            "k = {k} is out of range: must be in [1, {n}] (the number of rows)"
        )));
    }
    match init {
        Init::KmeansPP => kmeans_pp(n, k, rng, dist),
        Init::Random => random_distinct(n, k, rng, dist),
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
    choose_seeds(x.nrows(), k, init, rng, |cands| {
        let c = x.select(cands);
        x.sq_dists(x_norms, c.view())
    })
}

fn too_few_distinct(k: usize) -> Error {
    Error::Data(format!(
        "the data has fewer than k = {k} distinct points; lower k or remove duplicate rows"
    ))
}

fn kmeans_pp<R: Rng>(
    n: usize,
    k: usize,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    let trials = 2 + (k as f64).ln().floor() as usize;
    let first = rng.random_range(0..n);
    let mut seeds = vec![first];
    let mut closest: Vec<f64> = dist(&[first]).column(0).to_vec();
    let mut potential: f64 = closest.iter().sum();
    while seeds.len() < k {
        if potential <= 0.0 {
            return Err(too_few_distinct(k));
        }
        let mut cumulative = Vec::with_capacity(n);
        let mut acc = 0.0;
        for &c in &closest {
            acc += c;
            cumulative.push(acc);
        }
        let cands: Vec<usize> = (0..trials)
            .map(|_| {
                let r = rng.random::<f64>() * acc;
                cumulative.partition_point(|&c| c <= r).min(n - 1)
            })
            .collect();
        let d = dist(&cands);
        let mut best = (f64::INFINITY, 0);
        for (t, &cand) in cands.iter().enumerate() {
            let pot: f64 = closest
                .iter()
                .zip(d.column(t))
                .map(|(&a, &b)| a.min(b))
                .sum();
            if pot < best.0 || (pot == best.0 && cand < cands[best.1]) {
                best = (pot, t);
            }
        }
        let chosen = cands[best.1];
        if closest[chosen] <= 0.0 {
            return Err(too_few_distinct(k));
        }
        for (c, &v) in closest.iter_mut().zip(d.column(best.1)) {
            *c = c.min(v);
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
    k: usize,
    rng: &mut R,
    dist: impl Fn(&[usize]) -> Array2<f64>,
) -> Result<Vec<usize>> {
    for _ in 0..20 {
        let seeds = sample(rng, n, k).into_vec();
        let d = dist(&seeds);
        let clash = (0..k).any(|a| (0..a).any(|b| d[[seeds[a], b]] <= 0.0));
        if !clash {
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
        let e = euclidean_seeds(x.view(), &norms, 5, Init::Random, &mut rng()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "k = 5 is out of range: must be in [1, 4] (the number of rows)"
        );
    }
}
