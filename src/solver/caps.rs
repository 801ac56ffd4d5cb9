//! What an algorithm can do, declared once on the algorithm ([`Caps`],
//! returned by `Solver::caps`) and read by everything else: the refusals
//! below name the algorithms that take what another refused, the Python
//! estimators are generated from it, the UI and the reports ask it.
//!
//! The core imports no algorithm, so the refusals read the registry's
//! capabilities from a roster the registry enrols on its first call
//! (`algo::registry`); every algorithm a caller holds came from there.

use std::sync::OnceLock;

/// Feature scaling applied before clustering: an algorithm declares its
/// default ([`super::Solver::default_scaling`]); the data layer applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    /// Centre each column and divide by its sample standard deviation.
    #[default]
    Standard,
    /// Map each column onto [0, 1].
    Minmax,
    /// Use the values as they are.
    None,
}

impl std::fmt::Display for Scaling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scaling::Standard => "standard",
            Scaling::Minmax => "minmax",
            Scaling::None => "none",
        })
    }
}

/// The family an algorithm belongs to: what its fit holds and the kind of
/// Python estimator it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Centres in the input space (`kmeans`, `power`, …).
    Centroid,
    /// Centres and feature weights.
    Weighted,
    /// Clusters in a kernel's feature space.
    Kernel,
    /// Clusters in a random Fourier feature map's space.
    Rff,
    /// A spectral embedding: no out-of-sample rule.
    Spectral,
}

impl Family {
    /// Its name in `algorithms()` (the Python generator reads it).
    pub fn name(self) -> &'static str {
        match self {
            Family::Centroid => "centroid",
            Family::Weighted => "weighted",
            Family::Kernel => "kernel",
            Family::Rff => "rff",
            Family::Spectral => "spectral",
        }
    }

    /// Whether its scores are computed in a space of its own (a kernel's or
    /// a feature map's) rather than on the input features.
    pub fn own_space(self) -> bool {
        matches!(self, Family::Kernel | Family::Rff)
    }
}

/// The algorithm's Python estimator class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyClass {
    /// Written by `python/tools/gen_estimators.py` from the declared tables.
    Generated(&'static str),
    /// Written by hand in the package (`KMeans`, scikit-learn's twin).
    Written(&'static str),
}

impl PyClass {
    pub fn name(self) -> &'static str {
        match self {
            PyClass::Generated(n) | PyClass::Written(n) => n,
        }
    }
}

/// What an algorithm takes besides dense features, and its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    pub family: Family,
    pub python: PyClass,
    /// Runs on precomputed kernels (a kernels-only dataset) and takes
    /// `--kernel`/`--kernels`/`--views`.
    pub kernels: bool,
    /// Weighs rows by sample weights.
    pub sample_weights: bool,
    /// Starts from given centres in the input space.
    pub centres: bool,
    /// Runs on sparse (CSR) rows.
    pub sparse: bool,
    /// Its objective's scale is set by the start (lw's α comes from the
    /// initial partition), so two runs' objectives compare only from the
    /// same seed and restarts.
    pub start_scales_objective: bool,
}

impl Caps {
    /// An algorithm of `family` with Python class `class` (generated) that
    /// takes nothing but dense features; set the rest with `..`.
    pub const fn new(family: Family, class: &'static str) -> Caps {
        Caps {
            family,
            python: PyClass::Generated(class),
            kernels: false,
            sample_weights: false,
            centres: false,
            sparse: false,
            start_scales_objective: false,
        }
    }
}

static ROSTER: OnceLock<Vec<(&'static str, Caps)>> = OnceLock::new();

/// Records every algorithm's capabilities, in the order users see them
/// (the registry calls it; later calls keep the first roster).
pub fn enrol(roster: impl FnOnce() -> Vec<(&'static str, Caps)>) {
    ROSTER.get_or_init(roster);
}

/// The ids of `roster` whose capabilities `pick` accepts, as a user reads
/// them: "a", "a or b", "a, b or c".
pub fn named(roster: &[(&'static str, Caps)], pick: impl Fn(&Caps) -> bool) -> String {
    let ids: Vec<&str> = roster
        .iter()
        .filter(|(_, c)| pick(c))
        .map(|(id, _)| *id)
        .collect();
    sentence(&ids, "or")
}

/// `ids` as a user reads them: "a", "a or b", "a, b or c" (`conj` "or").
pub fn sentence(ids: &[&str], conj: &str) -> String {
    match ids.split_last() {
        None => "none".into(),
        Some((last, [])) => (*last).into(),
        Some((last, rest)) => format!("{} {conj} {last}", rest.join(", ")),
    }
}

/// The enrolled algorithms that `pick` accepts ([`named`]).
pub fn takers(pick: impl Fn(&Caps) -> bool) -> String {
    match ROSTER.get() {
        Some(r) => named(r, pick),
        // Only an algorithm built outside the registry gets here (a unit
        // test): point at the list instead of naming none.
        None => "those `meanscape algorithms` lists".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_join_as_a_sentence() {
        let c = Caps::new(Family::Centroid, "A");
        let yes = Caps { sparse: true, ..c };
        let r = [("a", yes), ("b", c), ("c", yes), ("d", yes)];
        assert_eq!(named(&r, |c| c.sparse), "a, c or d");
        assert_eq!(named(&r[..3], |c| c.sparse), "a or c");
        assert_eq!(named(&r[..1], |c| c.sparse), "a");
        assert_eq!(named(&r[1..2], |c| c.sparse), "none");
    }
}
