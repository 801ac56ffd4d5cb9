//! Synthetic datasets with known clusters: `gen:NAME[,key=value…]`.
//!
//! Every generator takes `n` (number of points) and `seed` (default 0). The
//! result depends only on the parameters — one ChaCha8 stream seeded with
//! `seed`, drawn in a fixed order on one thread — never on the thread count.
//! Class sizes are as equal as possible (the first `n mod k` classes get one
//! point more) unless a generator says otherwise, and rows come in random
//! order. `Dataset::source` is the canonical spec with every parameter used,
//! defaults included, so it reproduces the data exactly.

use super::input::Budget;
use super::sizes::{NAME_BYTES, product};
use super::{Dataset, Labels};
use crate::error::{Error, Result};
use ndarray::Array2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Beta, ChiSquared, Distribution, StandardNormal};
use std::collections::HashMap;

/// One parameter of a generator, for help texts.
#[derive(Debug, Clone, PartialEq)]
pub struct GenParam {
    pub key: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// A generator, its one-line summary and its parameters (in canonical order).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratorInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: Vec<GenParam>,
}

/// Largest `n × p` a generator will produce (800 MB of values).
const MAX_VALUES: usize = 100_000_000;
const MAX_N: usize = 100_000_000;
const MAX_P: usize = 1_000_000;

fn param(key: &'static str, default: &'static str, help: &'static str) -> GenParam {
    GenParam { key, default, help }
}

const SEED_HELP: &str = "random seed, an integer from 0 to 2^64-1";

/// All generators, in the order they are listed to users.
pub fn generators() -> Vec<GeneratorInfo> {
    vec![
        GeneratorInfo {
            name: "blobs",
            summary: "isotropic Gaussian clusters with random centres",
            params: vec![
                param("n", "500", "number of points"),
                param("p", "2", "number of features"),
                param("k", "3", "number of clusters, 1 to n"),
                param(
                    "sep",
                    "4",
                    "separation: root-mean-square distance between two centres, in units of sd (≥ 0)",
                ),
                param(
                    "sd",
                    "1",
                    "within-cluster standard deviation per feature (> 0)",
                ),
                param("seed", "0", SEED_HELP),
            ],
        },
        GeneratorInfo {
            name: "rings",
            summary: "concentric rings in 2-D: pairs of circles of radii 1 and 3, centres 12 apart (an invented layout for the KPK paper's ten-rings example)",
            params: vec![
                param("n", "1000", "total number of points"),
                param(
                    "k",
                    "10",
                    "number of rings, 1 to n (k/2 concentric pairs; an odd k adds a single ring of radius 1)",
                ),
                param("noise", "0.1", "standard deviation of the radius (≥ 0)"),
                param("seed", "0", SEED_HELP),
            ],
        },
        GeneratorInfo {
            name: "sphere",
            summary: "von Mises-Fisher clusters on the unit sphere S^(p-1), means uniform on the sphere",
            params: vec![
                param("n", "500", "number of points"),
                param("p", "20", "ambient dimension, ≥ 2 (points lie on S^(p-1))"),
                param("k", "10", "number of clusters, 1 to n"),
                param(
                    "kappa",
                    "30",
                    "concentration of every cluster (≥ 0; 0 is uniform on the sphere)",
                ),
                param(
                    "balanced",
                    "true",
                    "true: cluster sizes as equal as possible; false: each label drawn independently and uniformly, as in the paper",
                ),
                param("seed", "0", SEED_HELP),
            ],
        },
        GeneratorInfo {
            name: "sparse",
            summary: "q informative features (the first q columns) among p; the rest are chi-squared noise (LW-k-means simulation VII-B)",
            params: vec![
                param("n", "300", "number of points"),
                param("p", "100", "number of features"),
                param("q", "20", "number of informative features, 1 to p"),
                param("k", "3", "number of clusters, 1 to n"),
                param(
                    "sep",
                    "5",
                    "informative features of cluster c are N(c·sep, 1), c = 0..k-1 (≥ 0)",
                ),
                param(
                    "df",
                    "5",
                    "degrees of freedom of the chi-squared noise features (> 0)",
                ),
                param("seed", "0", SEED_HELP),
            ],
        },
    ]
}

fn names() -> String {
    generators()
        .iter()
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn find(name: &str) -> Result<GeneratorInfo> {
    generators()
        .into_iter()
        .find(|g| g.name == name)
        .ok_or_else(|| {
            Error::param(format!(
                "unknown generator '{name}' (valid generators: {})",
                names()
            ))
        })
}

/// Checks that `name` is a generator; the error lists the valid names.
///
/// # Errors
/// [`Error::Param`] for an unknown name.
pub fn check_name(name: &str) -> Result<()> {
    find(name).map(|_| ())
}

/// Runs generator `name` with `key=value` parameters (defaults for the
/// rest), within the default memory budget.
///
/// # Errors
/// [`Error::Param`] for an unknown generator, key or value,
/// [`Error::Resource`] above the memory budget.
pub fn generate(name: &str, params: &[(String, String)]) -> Result<Dataset> {
    generate_within(name, params, None)
}

/// Runs generator `name` within the memory budget `max_memory` (bytes;
/// `None` is the default budget, half the RAM): the size of
/// the data is checked against it before anything is generated.
///
/// # Errors
/// As [`generate`].
pub fn generate_within(
    name: &str,
    params: &[(String, String)],
    max_memory: Option<u64>,
) -> Result<Dataset> {
    let info = find(name)?;
    let mut a = Args::new(info, params)?;
    a.budget = Budget::from_limit(max_memory);
    let ds = match name {
        "blobs" => blobs(&mut a)?,
        "rings" => rings(&mut a)?,
        "sphere" => sphere(&mut a)?,
        "sparse" => sparse(&mut a)?,
        _ => unreachable!("generator listed but not implemented: {name}"),
    };
    Ok(ds)
}

/// Parameter values of one call: parses, range-checks and remembers the
/// canonical spelling of every value used.
struct Args {
    info: GeneratorInfo,
    given: HashMap<String, String>,
    used: HashMap<&'static str, String>,
    budget: Budget,
}

impl Args {
    fn new(info: GeneratorInfo, params: &[(String, String)]) -> Result<Self> {
        let mut given = HashMap::new();
        for (k, v) in params {
            let k = k.trim();
            if !info.params.iter().any(|p| p.key == k) {
                let keys: Vec<&str> = info.params.iter().map(|p| p.key).collect();
                return Err(Error::param(format!(
                    "gen:{}: unknown parameter '{k}' (valid keys: {})",
                    info.name,
                    keys.join(", ")
                )));
            }
            if given.insert(k.to_string(), v.trim().to_string()).is_some() {
                return Err(Error::param(format!(
                    "gen:{}: parameter '{k}' given more than once",
                    info.name
                )));
            }
        }
        Ok(Args {
            info,
            given,
            used: HashMap::new(),
            budget: Budget::from_limit(None),
        })
    }

    fn spec(&self, key: &str) -> &GenParam {
        self.info
            .params
            .iter()
            .find(|p| p.key == key)
            .expect("generator reads a key it declares")
    }

    fn raw(&self, key: &str) -> String {
        self.given
            .get(key)
            .cloned()
            .unwrap_or_else(|| self.spec(key).default.to_string())
    }

    fn bad(&self, key: &str, value: &str, why: &str) -> Error {
        Error::param(format!(
            "gen:{}: {key}={value} {why} ({key}: {})",
            self.info.name,
            self.spec(key).help
        ))
    }

    /// An integer in `lo..=hi`; `hi_name` spells the upper bound in errors
    /// when it comes from another parameter (as "n=500").
    fn int(&mut self, key: &'static str, lo: usize, hi: usize, hi_name: &str) -> Result<usize> {
        let raw = self.raw(key);
        let v: usize = raw
            .parse()
            .map_err(|_| self.bad(key, &raw, "is not a whole number"))?;
        if v < lo || v > hi {
            return Err(self.bad(
                key,
                &raw,
                &format!("is out of range: {key} must be from {lo} to {hi_name}"),
            ));
        }
        self.used.insert(key, v.to_string());
        Ok(v)
    }

    /// A finite number in `[lo, hi]`, or `(lo, hi]` when `open_lo`.
    fn num(&mut self, key: &'static str, lo: f64, open_lo: bool, hi: f64) -> Result<f64> {
        let raw = self.raw(key);
        let v: f64 = match raw.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => return Err(self.bad(key, &raw, "is not a finite number")),
        };
        let low_ok = if open_lo { v > lo } else { v >= lo };
        if !low_ok || v > hi {
            let lo_s = if open_lo { "> " } else { "≥ " };
            return Err(self.bad(
                key,
                &raw,
                &format!("is out of range: {key} must be {lo_s}{lo} and ≤ {hi}"),
            ));
        }
        self.used.insert(key, format!("{v}"));
        Ok(v)
    }

    fn flag(&mut self, key: &'static str) -> Result<bool> {
        let raw = self.raw(key);
        let v = match raw.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => true,
            "false" | "no" | "0" => false,
            _ => return Err(self.bad(key, &raw, "is not true or false")),
        };
        self.used.insert(key, v.to_string());
        Ok(v)
    }

    fn seed(&mut self) -> Result<ChaCha8Rng> {
        let raw = self.raw("seed");
        let v: u64 = raw
            .parse()
            .map_err(|_| self.bad("seed", &raw, "is not a whole number from 0 to 2^64-1"))?;
        self.used.insert("seed", v.to_string());
        Ok(ChaCha8Rng::seed_from_u64(v))
    }

    fn n(&mut self) -> Result<usize> {
        self.int("n", 1, MAX_N, &MAX_N.to_string())
    }

    fn k(&mut self, n: usize) -> Result<usize> {
        self.int("k", 1, n, &format!("n={n}"))
    }

    fn check_size(&self, n: usize, p: usize) -> Result<()> {
        if n.saturating_mul(p) > MAX_VALUES {
            return Err(Error::Resource(format!(
                "gen:{}: n×p = {n}×{p} values is more than the generator limit of {MAX_VALUES}",
                self.info.name
            )));
        }
        // The values, a label (id and name) per point, a name per feature.
        let (n, p) = (n as u64, p as u64);
        let need = product(&[n, p, 8]) + product(&[n, 8 + NAME_BYTES]) + product(&[p, NAME_BYTES]);
        self.budget.check_doing(
            &format!("gen:{}", self.info.name),
            "generating",
            need,
            &format!("n×p = {n}×{p} values as 8-byte floats"),
        )
    }

    /// `gen:NAME,key=value,…` with every parameter, in declared order.
    fn source(&self) -> String {
        let mut s = format!("gen:{}", self.info.name);
        for p in &self.info.params {
            let v = self.used.get(p.key).expect("every parameter is read");
            s.push_str(&format!(",{}={v}", p.key));
        }
        s
    }

    fn dataset(&self, x: Array2<f64>, labels: &[usize]) -> Dataset {
        let mut ds = Dataset::new(self.info.name, self.source(), x);
        let raw: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
        ds.labels = Some(Labels::from_strings(&raw));
        ds
    }
}

/// Labels `0..k` with sizes as equal as possible (classes `0..n mod k` get
/// one point more), in random order.
fn balanced_labels(n: usize, k: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    labels.shuffle(rng);
    labels
}

fn normal(rng: &mut ChaCha8Rng) -> f64 {
    StandardNormal.sample(rng)
}

/// Gaussian blobs. Centres are drawn i.i.d. N(0, s²I_p) with
/// s = sep·sd/√(2p), so that the root-mean-square distance between two
/// centres, √(2p)·s, is sep × sd; points are centre + N(0, sd²I_p).
fn blobs(a: &mut Args) -> Result<Dataset> {
    let n = a.n()?;
    let p = a.int("p", 1, MAX_P, &MAX_P.to_string())?;
    let k = a.k(n)?;
    let sep = a.num("sep", 0.0, false, 1e6)?;
    let sd = a.num("sd", 0.0, true, 1e6)?;
    let mut rng = a.seed()?;
    a.check_size(n, p)?;

    let s = sep * sd / (2.0 * p as f64).sqrt();
    let centres = Array2::from_shape_simple_fn((k, p), || s * normal(&mut rng));
    let labels = balanced_labels(n, k, &mut rng);
    let mut x = Array2::zeros((n, p));
    for (i, &c) in labels.iter().enumerate() {
        for j in 0..p {
            x[[i, j]] = centres[[c, j]] + sd * normal(&mut rng);
        }
    }
    Ok(a.dataset(x, &labels))
}

/// Centre and radius of ring `j` in the rings layout.
///
/// This layout is a *placeholder reconstruction*
/// (docs/methods/kernel-power-kmeans.md#ten-rings) — invented, not the paper's (the paper gives
/// no n, radii, centres or noise for its "ten rings" figure): ring pairs
/// `2m` (radius 1) and `2m+1` (radius 3) are concentric about (12·m, 0); with
/// an odd k the last ring, `k−1`, is a single ring of radius 1 about
/// (12·(k−1)/2, 0).
pub fn ring_layout(j: usize) -> ([f64; 2], f64) {
    let centre = [12.0 * (j / 2) as f64, 0.0];
    let radius = if j.is_multiple_of(2) { 1.0 } else { 3.0 };
    (centre, radius)
}

/// Concentric rings: angle ~ U(0, 2π), radius = r + N(0, noise²).
fn rings(a: &mut Args) -> Result<Dataset> {
    let n = a.n()?;
    let k = a.k(n)?;
    let noise = a.num("noise", 0.0, false, 1e6)?;
    let mut rng = a.seed()?;
    a.check_size(n, 2)?;

    let labels = balanced_labels(n, k, &mut rng);
    let mut x = Array2::zeros((n, 2));
    for (i, &c) in labels.iter().enumerate() {
        let ([cx, cy], r) = ring_layout(c);
        let theta = rng.random::<f64>() * std::f64::consts::TAU;
        let rho = r + noise * normal(&mut rng);
        x[[i, 0]] = cx + rho * theta.cos();
        x[[i, 1]] = cy + rho * theta.sin();
    }
    Ok(a.dataset(x, &labels))
}

/// Uniform on the unit sphere S^(d-1): a normalised standard normal vector.
fn unit_vector(d: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..d).map(|_| normal(rng)).collect();
        let norm = v.iter().map(|t| t * t).sum::<f64>().sqrt();
        if norm > 0.0 {
            return v.into_iter().map(|t| t / norm).collect();
        }
    }
}

/// Wood's (1994) rejection sampler for W = μᵀx of vMF(μ, κ) on S^(m-1),
/// as in docs/methods/kernel-power-kmeans.md#clusters-on-the-sphere. `b` is
/// written as (m−1)/(2κ + √(4κ² + (m−1)²)), algebraically the usual
/// (−2κ + √(4κ² + (m−1)²))/(m−1) without its cancellation at large κ.
struct Wood {
    kappa: f64,
    m1: f64,
    b: f64,
    x0: f64,
    c: f64,
    beta: Beta<f64>,
}

impl Wood {
    fn new(m: usize, kappa: f64) -> Self {
        let m1 = (m - 1) as f64;
        let b = m1 / (2.0 * kappa + (4.0 * kappa * kappa + m1 * m1).sqrt());
        let x0 = (1.0 - b) / (1.0 + b);
        let c = kappa * x0 + m1 * (1.0 - x0 * x0).ln();
        let beta = Beta::new(m1 / 2.0, m1 / 2.0).expect("valid beta parameters");
        Wood {
            kappa,
            m1,
            b,
            x0,
            c,
            beta,
        }
    }

    fn sample(&self, rng: &mut ChaCha8Rng) -> f64 {
        loop {
            let z = self.beta.sample(rng);
            let u: f64 = rng.random();
            let w = (1.0 - (1.0 + self.b) * z) / (1.0 - (1.0 - self.b) * z);
            if self.kappa * w + self.m1 * (1.0 - self.x0 * w).ln() - self.c >= u.ln() {
                return w;
            }
        }
    }
}

/// von Mises–Fisher clusters
/// (docs/methods/kernel-power-kmeans.md#clusters-on-the-sphere): means
/// uniform on S^(p-1); W by Wood's sampler; V uniform on S^(p-2);
/// y = (√(1−W²)·V, W) has mean direction e_p; x = H y with the Householder
/// reflection H = I − 2uuᵀ/(uᵀu), u = e_p − μ, which maps e_p to μ (skipped
/// when μ = e_p); x renormalised to unit length.
fn sphere(a: &mut Args) -> Result<Dataset> {
    let n = a.n()?;
    let p = a.int("p", 2, MAX_P, &MAX_P.to_string())?;
    let k = a.k(n)?;
    let kappa = a.num("kappa", 0.0, false, 1e8)?;
    let balanced = a.flag("balanced")?;
    let mut rng = a.seed()?;
    a.check_size(n, p)?;

    // Householder vectors u = e_p − μ and 2/(uᵀu) per cluster (0 = skip).
    let reflections: Vec<(Vec<f64>, f64)> = (0..k)
        .map(|_| {
            let mu = unit_vector(p, &mut rng);
            let mut u: Vec<f64> = mu.iter().map(|t| -t).collect();
            u[p - 1] += 1.0;
            let uu: f64 = u.iter().map(|t| t * t).sum();
            (u, if uu > 0.0 { 2.0 / uu } else { 0.0 })
        })
        .collect();
    let labels = if balanced {
        balanced_labels(n, k, &mut rng)
    } else {
        (0..n).map(|_| rng.random_range(0..k)).collect()
    };
    let wood = Wood::new(p, kappa);
    let mut x = Array2::zeros((n, p));
    let mut y = vec![0.0; p];
    for (i, &c) in labels.iter().enumerate() {
        let w = wood.sample(&mut rng);
        let v = unit_vector(p - 1, &mut rng);
        let s = (1.0 - w * w).max(0.0).sqrt();
        for (yj, vj) in y.iter_mut().zip(&v) {
            *yj = s * vj;
        }
        y[p - 1] = w;
        let (u, scale) = &reflections[c];
        let dot: f64 = u.iter().zip(&y).map(|(a, b)| a * b).sum();
        for (yj, uj) in y.iter_mut().zip(u) {
            *yj -= scale * dot * uj;
        }
        let norm = y.iter().map(|t| t * t).sum::<f64>().sqrt();
        for (j, yj) in y.iter().enumerate() {
            x[[i, j]] = yj / norm;
        }
    }
    Ok(a.dataset(x, &labels))
}

/// LW-k-means simulation VII-B (docs/methods/lw-kmeans.md#simulation-vii-b),
/// generalised to k
/// clusters: the first q features of a point of cluster c are i.i.d.
/// N(c·sep, 1) (the paper: q = 50 of p = 1000, k = 3, means 0, 5, 10); the
/// other p − q are i.i.d. χ²_df in every cluster (the paper: df = 5).
/// Informative features are the leading columns, as in the paper and its
/// s-sets; sizes are balanced as in the paper (3 × 100), but rows are
/// shuffled rather than ordered by cluster.
fn sparse(a: &mut Args) -> Result<Dataset> {
    let n = a.n()?;
    let p = a.int("p", 1, MAX_P, &MAX_P.to_string())?;
    let q = a.int("q", 1, p, &format!("p={p}"))?;
    let k = a.k(n)?;
    let sep = a.num("sep", 0.0, false, 1e6)?;
    let df = a.num("df", 0.0, true, 1e6)?;
    let mut rng = a.seed()?;
    a.check_size(n, p)?;

    let chi = ChiSquared::new(df).expect("df > 0 checked");
    let labels = balanced_labels(n, k, &mut rng);
    let mut x = Array2::zeros((n, p));
    for (i, &c) in labels.iter().enumerate() {
        let mean = c as f64 * sep;
        for j in 0..q {
            x[[i, j]] = mean + normal(&mut rng);
        }
        for j in q..p {
            x[[i, j]] = chi.sample(&mut rng);
        }
    }
    let mut ds = a.dataset(x, &labels);
    ds.relevance = Some((0..p).map(|j| j < q).collect());
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(s: &[(&str, &str)]) -> Vec<(String, String)> {
        s.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_budget_is_checked_before_generating() {
        let e = generate_within(
            "blobs",
            &kv(&[("n", "1000000"), ("p", "20")]),
            Some(100 << 20),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("gen:blobs: generating it needs 190.7 MiB (n×p = 1000000×20 values"),
            "{e}"
        );
        assert!(e.contains("limit of 100.0 MiB (--max-memory)"), "{e}");
        let ds = generate_within("blobs", &kv(&[("n", "1000"), ("p", "20")]), Some(100 << 20));
        assert_eq!(ds.unwrap().n(), 1000);
    }

    #[test]
    fn canonical_source_lists_every_parameter() {
        let ds = generate("blobs", &kv(&[("k", "04"), ("sep", "2.50")])).unwrap();
        assert_eq!(ds.source, "gen:blobs,n=500,p=2,k=4,sep=2.5,sd=1,seed=0");
        for g in generators() {
            let ds = generate(g.name, &[]).unwrap();
            let want: Vec<String> = g
                .params
                .iter()
                .map(|p| format!("{}={}", p.key, p.default))
                .collect();
            assert_eq!(ds.source, format!("gen:{},{}", g.name, want.join(",")));
            ds.validate().unwrap();
        }
    }

    #[test]
    fn wood_sampler_matches_the_vmf_mean() {
        // E[W] = A_p(κ); for p = 3 it is coth κ − 1/κ.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let w = Wood::new(3, 5.0);
        let m = 200_000;
        let mean = (0..m).map(|_| w.sample(&mut rng)).sum::<f64>() / m as f64;
        let want = 1.0 / 5f64.tanh() - 1.0 / 5.0;
        assert!((mean - want).abs() < 3e-3, "{mean} vs {want}");
    }
}
