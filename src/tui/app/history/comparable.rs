//! Which numbers of two runs can be set against each other. A difference
//! B − A means something only when both numbers measure the same thing:
//! scores against labels need the same rows and labels; the k-means cost
//! the same points in the same space and the same k; an algorithm's own
//! objective the same definition — for the power-mean family the value at
//! the final s, which s₀, η, T and the iteration count all move (the
//! docs/guide/sweeps.md: "comparable across s₀, unlike the power objective").

use super::entry::Entry;

/// Parameters that only say when a run stops: they change how far it
/// goes, not what its objective is (a different final s is caught by
/// itself).
const STOPPING: [&str; 3] = ["tol", "max_iter", "soft_tol"];

/// "s0 differs", "data, k differ", "s0, eta and 2 more differ".
fn said(what: &[String]) -> Option<String> {
    match what {
        [] => None,
        [one] => Some(format!("{one} differs")),
        [a, b] => Some(format!("{a}, {b} differ")),
        [a, b, rest @ ..] => Some(format!("{a}, {b} and {} more differ", rest.len())),
    }
}

/// The same rows with the same labels: the data and how it was read.
fn rows(a: &Entry, b: &Entry) -> Vec<String> {
    let mut out = Vec::new();
    if a.data != b.data {
        out.push("data".into());
    }
    if a.load != b.load {
        out.push("data reading".into());
    }
    out
}

/// The space the label-free scores were computed in: the run's record,
/// else what its algorithm clusters in (sessions older than the record).
fn space(e: &Entry) -> &str {
    if let Some(s) = &e.space {
        return s;
    }
    let family = crate::algo::find(&e.algo).map(|a| a.caps().family);
    match family {
        Ok(crate::algo::Family::Kernel) => "kernel",
        Ok(crate::algo::Family::Rff) => "rff",
        _ => "features",
    }
}

/// Settings that define a run's space or objective: the algorithm, its
/// options, and every parameter (but those in `skip`) by name.
fn definition(a: &Entry, b: &Entry, skip: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    if a.algo != b.algo {
        out.push("algorithm".into());
        return out;
    }
    let names: std::collections::BTreeSet<&String> =
        a.options.keys().chain(b.options.keys()).collect();
    for n in names {
        if n != "max_memory" && a.options.get(n) != b.options.get(n) {
            out.push(n.clone());
        }
    }
    let names: std::collections::BTreeSet<&String> =
        a.params.keys().chain(b.params.keys()).collect();
    for n in names {
        if !skip.contains(&n.as_str()) && a.params.get(n) != b.params.get(n) {
            out.push(n.clone());
        }
    }
    out
}

/// Scores against the labels (NMI, ARI, ACC): None when comparable, else
/// why not.
pub fn labels(a: &Entry, b: &Entry) -> Option<String> {
    said(&rows(a, b))
}

/// The label-free scores: the same points in the same space. A kernel or
/// random-feature space is the run's own (its kernel, bandwidth, weights,
/// map seed), so two such runs compare only when nothing differs;
/// `with_k` for the cost, which falls as k grows (the silhouette is made
/// to compare across k).
pub fn internal(a: &Entry, b: &Entry, with_k: bool) -> Option<String> {
    let mut what = rows(a, b);
    if a.scale != b.scale {
        what.push("scaling".into());
    }
    if with_k && a.k != b.k {
        what.push("k".into());
    }
    let (sa, sb) = (space(a), space(b));
    if sa != sb {
        what.push("space".into());
    } else if sa != "features" {
        what.extend(definition(a, b, &[]));
        if a.seed != b.seed {
            what.push("seed".into());
        }
        if a.restarts != b.restarts {
            what.push("restarts".into());
        }
    }
    said(&what)
}

/// The algorithms' own objectives: the same data, scaling, k, algorithm
/// and definition (every parameter but the stopping ones), the same
/// final s; for an algorithm whose start sets its objective's scale (lw: its
/// α comes from the initial partition, docs/guide/algorithms.md on
/// `--restarts`) also the same seed and restarts.
pub fn objective(a: &Entry, b: &Entry) -> Option<String> {
    let mut what = rows(a, b);
    if a.scale != b.scale {
        what.push("scaling".into());
    }
    if a.k != b.k {
        what.push("k".into());
    }
    what.extend(definition(a, b, &STOPPING));
    let start_scales =
        |id: &str| crate::algo::find(id).is_ok_and(|x| x.caps().start_scales_objective);
    if a.algo == b.algo && start_scales(&a.algo) {
        if a.seed != b.seed {
            what.push("seed".into());
        }
        if a.restarts != b.restarts {
            what.push("restarts".into());
        }
    }
    if what.is_empty() && !same_s(a.final_s, b.final_s) {
        what.push("final s".into());
    }
    said(&what)
}

/// The same annealing exponent to the 6 digits a user reads (a run with
/// finish=1 ends without s: then both must).
fn same_s(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::entry;
    use super::*;

    fn power(s0: f64, final_s: f64) -> Entry {
        let mut e = entry("power", Some(0.8));
        e.params = [("s0", s0), ("eta", 1.04), ("tol", 1e-6), ("period", 5.0)]
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        e.final_s = Some(final_s);
        e
    }

    #[test]
    fn power_objectives_with_different_s0_are_not_comparable() {
        let a = power(-1.0, -17.5);
        let b = power(-3.0, -17.5);
        assert_eq!(objective(&a, &b).as_deref(), Some("s0 differs"));
        // The k-means cost and the scores against labels still compare.
        assert_eq!(internal(&a, &b, true), None);
        assert_eq!(labels(&a, &b), None);
        // Same definition, other seed: comparable at the same final s only.
        let mut c = power(-1.0, -17.5);
        c.seed = 4;
        assert_eq!(objective(&a, &c), None);
        c.final_s = Some(-16.8);
        assert_eq!(objective(&a, &c).as_deref(), Some("final s differs"));
        // A stopping rule alone does not change the definition.
        let mut d = power(-1.0, -17.5);
        d.params.insert("tol".into(), 1e-3);
        assert_eq!(objective(&a, &d), None);
    }

    #[test]
    fn other_data_k_or_algorithm_compare_only_what_they_can() {
        let a = power(-1.0, -17.5);
        let mut b = power(-1.0, -17.5);
        b.k = 4;
        assert_eq!(objective(&a, &b).as_deref(), Some("k differs"));
        assert_eq!(internal(&a, &b, true).as_deref(), Some("k differs"));
        assert_eq!(internal(&a, &b, false), None);
        let mut km = entry("kmeans", Some(0.7));
        km.final_s = None;
        assert_eq!(objective(&a, &km).as_deref(), Some("algorithm differs"));
        assert_eq!(internal(&a, &km, true), None);
        let mut w = power(-1.0, -17.5);
        w.data = "wine".into();
        w.scale = "minmax".into();
        assert_eq!(labels(&a, &w).as_deref(), Some("data differs"));
        assert_eq!(objective(&a, &w).as_deref(), Some("data, scaling differ"));
        // Kernel spaces are the run's own.
        let mut k1 = entry("kpower", None);
        let mut k2 = k1.clone();
        k1.params.insert("sigma".into(), 1.0);
        k2.params.insert("sigma".into(), 2.0);
        assert_eq!(internal(&k1, &k2, true).as_deref(), Some("sigma differs"));
        // lw's objective scale comes from its initial partition.
        let l1 = entry("lw", None);
        let mut l2 = l1.clone();
        l2.seed = 1;
        assert_eq!(objective(&l1, &l2).as_deref(), Some("seed differs"));
    }
}
