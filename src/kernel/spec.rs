//! Kernel specifications: the strings users write (`gaussian:sigma=2.5`,
//! `poly:a=1,b=2,normalize`) and their resolved, cache-keyed form.
//! `knn[:nn=10]` is the 0/1 nearest-neighbour graph of spectral
//! clustering, not a kernel matrix (see [`super::knn`]).
//!
//! Grammar: `NAME[:ITEM,ITEM…]` where `NAME` is one of `gaussian` (alias
//! `rbf`), `laplacian`, `geodesic`, `poly` (alias `polynomial`), `linear`,
//! `cosine`, and an `ITEM` is `key=value` or a bare flag (a flag alone means
//! `flag=true`). Keys:
//!
//! | key | kernels | meaning |
//! |---|---|---|
//! | `sigma` | gaussian, laplacian, geodesic | bandwidth σ > 0 (default: the `sigma` parameter) |
//! | `t` | gaussian, laplacian | bandwidth relative to the data: σ² = t·d²_max (Du et al. 2015) |
//! | `a` | poly | offset a ≥ 0 in (a + xᵀy)^b (default 1) |
//! | `b` | poly | integer degree 1..=20 (default 2) |
//! | `nn` | knn | neighbours per row, ≥ 1 (default 10); the only key knn takes |
//! | `center` | all | centre the matrix in feature space, K ← HKH |
//! | `normalize` | all | unit diagonal, K_ij / √(K_ii K_jj) |
//! | `rescale` | all | min–max rescale of the entries to [0, 1] |
//! | `gram` | all | storage of the matrix: `f64` (default) or `f32` (half the memory) |
//!
//! Post-processing runs in the order centre → normalise → rescale.

use crate::error::{Error, Result};
pub use crate::solver::space::gram::{Kind, Post, Precision, Resolved};
use std::fmt;

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gaussian => "gaussian",
            Kind::Laplacian => "laplacian",
            Kind::Geodesic => "geodesic",
            Kind::Poly => "poly",
            Kind::Linear => "linear",
            Kind::Cosine => "cosine",
            Kind::Precomputed => "precomputed",
            Kind::Knn => "knn",
        }
    }

    /// Whether the kernel has a bandwidth σ.
    pub fn has_sigma(self) -> bool {
        matches!(self, Kind::Gaussian | Kind::Laplacian | Kind::Geodesic)
    }

    fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "gaussian" | "rbf" => Kind::Gaussian,
            "laplacian" | "laplace" => Kind::Laplacian,
            "geodesic" => Kind::Geodesic,
            "poly" | "polynomial" => Kind::Poly,
            "linear" => Kind::Linear,
            "cosine" => Kind::Cosine,
            "knn" => Kind::Knn,
            _ => return None,
        })
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Gaussian | Kind::Laplacian => &["sigma", "t"],
            Kind::Geodesic => &["sigma"],
            Kind::Poly => &["a", "b"],
            Kind::Knn => &["nn"],
            Kind::Linear | Kind::Cosine | Kind::Precomputed => &[],
        }
    }
}

/// How a bandwidth is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Width {
    /// From the algorithm's `sigma` parameter (whose default is the
    /// paper's rule).
    Param,
    /// σ given in the spec.
    Sigma(f64),
    /// σ² = t · (largest pairwise squared distance).
    T(f64),
}

impl Precision {
    pub fn bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            Precision::F32 => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        }
    }
}

/// A parsed kernel spec, as the user wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSpec {
    pub kind: Kind,
    pub width: Width,
    pub a: f64,
    pub b: u32,
    /// Neighbours per row (knn).
    pub nn: usize,
    pub post: Post,
    /// Flags the user set explicitly (so a multi-kernel default does not
    /// override them).
    pub post_given: [bool; 3],
    pub precision: Precision,
    /// The text it was parsed from (for messages and the JSON).
    pub source: String,
}

impl KernelSpec {
    pub fn new(kind: Kind) -> Self {
        KernelSpec {
            kind,
            width: Width::Param,
            a: 1.0,
            b: 2,
            nn: super::knn::DEFAULT_NN,
            post: Post::default(),
            post_given: [false; 3],
            precision: Precision::F64,
            source: kind.name().to_string(),
        }
    }

    /// Parses one spec; `ctx_flag` names the option in error messages
    /// (`--kernel`, `--kernels`).
    pub fn parse(text: &str, ctx_flag: &str) -> Result<Self> {
        let text = text.trim();
        let bad = |why: String| Error::param(format!("{ctx_flag} '{text}': {why}"));
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(Error::param(format!(
                "{ctx_flag}: empty kernel spec; expected e.g. gaussian:sigma=2.5, poly:a=1,b=2, linear, cosine, laplacian, geodesic:sigma=1"
            )));
        }
        let kind = Kind::parse(name).ok_or_else(|| {
            bad(format!(
                "unknown kernel '{name}' (expected gaussian, laplacian, geodesic, poly, linear, cosine or knn)"
            ))
        })?;
        let mut spec = KernelSpec::new(kind);
        spec.source = text.to_string();
        let Some(rest) = rest else {
            return Ok(spec);
        };
        let mut seen: Vec<String> = Vec::new();
        for item in rest.split(',') {
            let item = item.trim();
            if item.is_empty() {
                return Err(bad(
                    "empty item (two commas, or a trailing ':' or ',')".into()
                ));
            }
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim())),
                None => (item.to_ascii_lowercase(), None),
            };
            if seen.contains(&key) {
                return Err(bad(format!("'{key}' is given more than once")));
            }
            seen.push(key.clone());
            if kind == Kind::Knn && key != "nn" {
                return Err(bad(format!(
                    "kernel knn takes only nn (a 0/1 graph has no '{key}')"
                )));
            }
            let num = |v: Option<&str>| -> Result<f64> {
                let v = v.ok_or_else(|| bad(format!("'{key}' needs a value ({key}=NUMBER)")))?;
                match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => Ok(x),
                    _ => Err(bad(format!("'{v}' is not a number (in {key}={v})"))),
                }
            };
            let flag = |v: Option<&str>| -> Result<bool> {
                match v.map(|s| s.to_ascii_lowercase()).as_deref() {
                    None | Some("true") | Some("1") | Some("yes") => Ok(true),
                    Some("false") | Some("0") | Some("no") => Ok(false),
                    Some(other) => Err(bad(format!(
                        "'{key}={other}': expected true or false (or the bare flag '{key}')"
                    ))),
                }
            };
            match key.as_str() {
                "center" | "centre" => {
                    spec.post.center = flag(value)?;
                    spec.post_given[0] = true;
                }
                "normalize" | "normalise" => {
                    spec.post.normalize = flag(value)?;
                    spec.post_given[1] = true;
                }
                "rescale" => {
                    spec.post.rescale = flag(value)?;
                    spec.post_given[2] = true;
                }
                "gram" => {
                    spec.precision = match value.map(|s| s.to_ascii_lowercase()).as_deref() {
                        Some("f64") => Precision::F64,
                        Some("f32") => Precision::F32,
                        _ => {
                            return Err(bad(format!(
                                "'{item}': gram must be f64 or f32 (e.g. gram=f32 halves the memory)"
                            )));
                        }
                    }
                }
                k if kind.keys().contains(&k) => match k {
                    "sigma" => {
                        if matches!(spec.width, Width::T(_)) {
                            return Err(bad("give sigma or t, not both".into()));
                        }
                        let s = num(value)?;
                        if s <= 0.0 {
                            return Err(bad(format!("sigma = {s} must be > 0")));
                        }
                        spec.width = Width::Sigma(s);
                    }
                    "t" => {
                        if matches!(spec.width, Width::Sigma(_)) {
                            return Err(bad("give sigma or t, not both".into()));
                        }
                        let t = num(value)?;
                        if t <= 0.0 {
                            return Err(bad(format!("t = {t} must be > 0")));
                        }
                        spec.width = Width::T(t);
                    }
                    "a" => {
                        let a = num(value)?;
                        if a < 0.0 {
                            return Err(bad(format!(
                                "a = {a} must be ≥ 0 (a negative offset is not a valid kernel)"
                            )));
                        }
                        spec.a = a;
                    }
                    "b" => {
                        let b = num(value)?;
                        if b.fract() != 0.0 || !(1.0..=20.0).contains(&b) {
                            return Err(bad(format!("b = {b} must be an integer in [1, 20]")));
                        }
                        spec.b = b as u32;
                    }
                    "nn" => {
                        let v = num(value)?;
                        if v.fract() != 0.0 || !(1.0..=1e6).contains(&v) {
                            return Err(bad(format!("nn = {v} must be a whole number ≥ 1")));
                        }
                        spec.nn = v as usize;
                    }
                    _ => unreachable!(),
                },
                _ => {
                    let mut keys: Vec<&str> = kind.keys().to_vec();
                    keys.extend(["center", "normalize", "rescale", "gram"]);
                    return Err(bad(format!(
                        "kernel {} does not take '{key}' (it takes {})",
                        kind.name(),
                        keys.join(", ")
                    )));
                }
            }
        }
        Ok(spec)
    }

    /// Sets the post-processing flags the user did not set explicitly.
    pub fn with_default_post(mut self, post: Post) -> Self {
        if !self.post_given[0] {
            self.post.center = post.center;
        }
        if !self.post_given[1] {
            self.post.normalize = post.normalize;
        }
        if !self.post_given[2] {
            self.post.rescale = post.rescale;
        }
        self
    }

    /// Fixes the bandwidth: `param_sigma` is the algorithm's `sigma`
    /// parameter; `dmax2` gives the largest pairwise squared distance (only
    /// called for `t=`).
    pub fn resolve(&self, param_sigma: f64, dmax2: impl FnOnce() -> f64) -> Result<Resolved> {
        let sigma = if self.kind.has_sigma() {
            let s = match self.width {
                Width::Param => param_sigma,
                Width::Sigma(s) => s,
                Width::T(t) => (t * dmax2()).sqrt(),
            };
            if !(s.is_finite() && s > 0.0) {
                return Err(Error::param(format!(
                    "kernel {}: the bandwidth σ = {s} is not positive (the data has no spread?); give sigma= explicitly",
                    self.kind.name()
                )));
            }
            Some(s)
        } else {
            None
        };
        Ok(Resolved {
            kind: self.kind,
            sigma,
            a: self.a,
            b: self.b,
            nn: (self.kind == Kind::Knn).then_some(self.nn),
            post: self.post,
            precision: self.precision,
        })
    }
}

impl Resolved {
    /// The cache key: exact (f64 values print with round-trip precision)
    /// and ending in `|`, so no key is a prefix of another.
    pub fn key(&self) -> String {
        format!("{}{self}|", GRAM_FAMILY)
    }
}

impl fmt::Display for Resolved {
    /// The canonical spec string; it parses back to the same kernel.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<String> = Vec::new();
        if let Some(s) = self.sigma {
            items.push(format!("sigma={s}"));
        }
        if self.kind == Kind::Poly {
            items.push(format!("a={}", self.a));
            items.push(format!("b={}", self.b));
        }
        if let Some(nn) = self.nn {
            items.push(format!("nn={nn}"));
        }
        if self.post.center {
            items.push("center".into());
        }
        if self.post.normalize {
            items.push("normalize".into());
        }
        if self.post.rescale {
            items.push("rescale".into());
        }
        if self.precision == Precision::F32 {
            items.push("gram=f32".into());
        }
        if items.is_empty() {
            write!(f, "{}", self.kind.name())
        } else {
            write!(f, "{}:{}", self.kind.name(), items.join(","))
        }
    }
}

/// The multi-kernel default of the KPK paper, after Du et al. 2015
/// (docs/methods/kernel-power-kmeans.md#the-12-kernel-set): 7 Gaussians
/// with σ² = t·d²_max, t ∈ {0.01, 0.05, 0.1, 1, 10, 50,
/// 100}; 4 polynomials (a + xᵀy)^b, a ∈ {0, 1}, b ∈ {2, 4}; 1 cosine. Every
/// one normalised to unit diagonal and min–max rescaled to [0, 1].
pub const DEFAULT_SET: [&str; 12] = [
    "gaussian:t=0.01",
    "gaussian:t=0.05",
    "gaussian:t=0.1",
    "gaussian:t=1",
    "gaussian:t=10",
    "gaussian:t=50",
    "gaussian:t=100",
    "poly:a=0,b=2",
    "poly:a=0,b=4",
    "poly:a=1,b=2",
    "poly:a=1,b=4",
    "cosine",
];

/// Parses a `;`-separated kernel list. The item `default` (optionally
/// `default:FLAGS`, e.g. `default:gram=f32`) stands for [`DEFAULT_SET`],
/// with the flags applied to each of its kernels.
pub fn parse_list(text: &str, ctx_flag: &str) -> Result<Vec<KernelSpec>> {
    let mut out = Vec::new();
    for item in text.split(';') {
        let item = item.trim();
        if item.is_empty() {
            if text.trim().is_empty() {
                return Err(Error::param(format!(
                    "{ctx_flag}: empty kernel list; give SPEC;SPEC… or 'default'"
                )));
            }
            continue;
        }
        let (head, flags) = match item.split_once(':') {
            Some((h, f)) => (h.trim(), Some(f)),
            None => (item, None),
        };
        // `auto` (the multi-kernel algorithms' default) is resolved against
        // --views before a list is parsed (`inputs::resolve_auto`); a list
        // read without views, as a sweep's axis check does, is the set.
        if head.eq_ignore_ascii_case("default") || head.eq_ignore_ascii_case("auto") {
            for k in DEFAULT_SET {
                let s = match flags {
                    Some(f) => format!("{k},{f}"),
                    None => k.to_string(),
                };
                let s = if k.contains(':') {
                    s
                } else {
                    s.replacen(',', ":", 1)
                };
                out.push(KernelSpec::parse(&s, ctx_flag)?);
            }
        } else {
            let spec = KernelSpec::parse(item, ctx_flag)?;
            if spec.kind == Kind::Knn {
                return Err(not_psd(ctx_flag, item));
            }
            out.push(spec);
        }
    }
    Ok(out)
}

/// The refusal of the knn graph where a positive semi-definite kernel is
/// needed (every kernel algorithm but spectral).
pub fn not_psd(ctx_flag: &str, text: &str) -> Error {
    Error::param(format!(
        "{ctx_flag} '{text}': knn is a 0/1 neighbour graph, not a positive semi-definite kernel; only -a spectral takes it"
    ))
}

/// Prefix of the cache keys of Gram matrices.
pub const GRAM_FAMILY: &str = "gram:";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_round_trip() {
        for text in [
            "gaussian:sigma=2.5",
            "poly:a=1,b=2",
            "linear",
            "cosine:normalize,rescale",
            "laplacian:sigma=0.1,gram=f32",
            "geodesic:sigma=1,center",
            "knn:nn=7",
        ] {
            let r = KernelSpec::parse(text, "--kernel")
                .unwrap()
                .resolve(9.0, || 1.0)
                .unwrap();
            assert_eq!(r.to_string(), text);
            let again = KernelSpec::parse(&r.to_string(), "--kernel")
                .unwrap()
                .resolve(9.0, || 1.0)
                .unwrap();
            assert_eq!(again, r);
        }
    }

    #[test]
    fn default_list_has_twelve() {
        let l = parse_list("default", "--kernels").unwrap();
        assert_eq!(l.len(), 12);
        let l = parse_list("default:gram=f32;linear", "--kernels").unwrap();
        assert_eq!(l.len(), 13);
        assert!(l[..12].iter().all(|k| k.precision == Precision::F32));
        assert_eq!(l[11].kind, Kind::Cosine);
    }
}
