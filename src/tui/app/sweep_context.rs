//! The settings a sweep or k-scan ran with, apart from its axes. A cell
//! means what it shows only with all of them: Enter restores them before
//! running the cell (and refuses on other data), and the view names them.

use crate::algo::Init;
use crate::algo::params::fmt_num;
use crate::data::Scaling;

/// Everything a sweep's cells depend on besides their axis values.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepContext {
    /// The dataset as `--data` takes it, and its display name.
    pub data: String,
    pub dataset: String,
    /// How the data was read where it differs from the default (label
    /// column, missing cells), as `meanscape run` flags.
    pub load: Vec<(String, String)>,
    pub scale: Scaling,
    pub algo: String,
    /// None when k is an axis (a k-scan).
    pub k: Option<usize>,
    /// The first seed of every cell.
    pub seed: u64,
    pub init: Init,
    /// Parameter values set by the user (not on an axis), by name.
    pub given: Vec<(String, f64)>,
    /// Options set (not on an axis), by name; the memory limit is left
    /// out: it changes no result.
    pub options: Vec<(String, String)>,
}

fn flags(f: &[(String, String)]) -> String {
    if f.is_empty() {
        return "the default way".into();
    }
    f.iter()
        .map(|(n, v)| {
            if v.is_empty() {
                n.clone()
            } else {
                format!("{n} {v}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `name=value` pairs of two sorted lists that differ: (name, here, there),
/// "default" where a list has no value.
fn changed<T: PartialEq>(
    a: &[(String, T)],
    b: &[(String, T)],
    show: impl Fn(&T) -> String,
) -> Vec<(String, String, String)> {
    let mut names: Vec<&String> = a.iter().chain(b).map(|(n, _)| n).collect();
    names.sort();
    names.dedup();
    let get = |l: &[(String, T)], n: &str| l.iter().find(|(m, _)| m == n).map(|(_, v)| show(v));
    names
        .into_iter()
        .filter_map(|n| {
            let (x, y) = (get(a, n), get(b, n));
            (x != y).then(|| {
                let d = || "default".to_string();
                (n.clone(), x.unwrap_or_else(d), y.unwrap_or_else(d))
            })
        })
        .collect()
}

impl SweepContext {
    /// The same data, read and scaled the same way: only then can a cell
    /// be run again here.
    pub fn same_data(&self, now: &SweepContext) -> bool {
        self.data == now.data && self.load == now.load && self.scale == now.scale
    }

    /// What differs in `now`, each as "k 3 (now 4)" with `word` for "now".
    pub fn differences(&self, now: &SweepContext, word: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut say = |what: &str, a: String, b: String| {
            out.push(format!("{what} {a} ({word} {b})"));
        };
        if self.data != now.data {
            say("data", self.data.clone(), now.data.clone());
        }
        if self.load != now.load {
            say("read", flags(&self.load), flags(&now.load));
        }
        if self.scale != now.scale {
            say("scale", self.scale.to_string(), now.scale.to_string());
        }
        if self.algo != now.algo {
            // The parameters of two algorithms are not compared.
            say("algorithm", self.algo.clone(), now.algo.clone());
            return out;
        }
        if let (Some(a), Some(b)) = (self.k, now.k)
            && a != b
        {
            say("k", a.to_string(), b.to_string());
        }
        if self.seed != now.seed {
            say("seed", self.seed.to_string(), now.seed.to_string());
        }
        if self.init != now.init {
            say("init", self.init.to_string(), now.init.to_string());
        }
        for (n, a, b) in changed(&self.given, &now.given, |v| fmt_num(*v)) {
            say(&n, a, b);
        }
        for (n, a, b) in changed(&self.options, &now.options, |v| v.clone()) {
            say(&n, a, b);
        }
        out
    }

    /// The settings as one line: "iris · scale standard · k 3 · seed 0 ·
    /// kmeans++ · lambda=0.1".
    pub fn summary(&self) -> String {
        let mut parts = vec![self.dataset.clone(), format!("scale {}", self.scale)];
        if !self.load.is_empty() {
            parts.push(format!("read {}", flags(&self.load)));
        }
        if let Some(k) = self.k {
            parts.push(format!("k {k}"));
        }
        parts.push(format!("seed {}", self.seed));
        parts.push(self.init.to_string());
        parts.extend(
            self.given
                .iter()
                .map(|(n, v)| format!("{n}={}", fmt_num(*v))),
        );
        parts.extend(self.options.iter().map(|(n, v)| format!("{n}={v}")));
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> SweepContext {
        SweepContext {
            data: "seeds.csv".into(),
            dataset: "seeds".into(),
            load: Vec::new(),
            scale: Scaling::Standard,
            algo: "power".into(),
            k: Some(3),
            seed: 0,
            init: Init::KmeansPP,
            given: vec![("eta".into(), 1.1)],
            options: Vec::new(),
        }
    }

    #[test]
    fn differences_name_each_setting_with_both_values() {
        let a = ctx();
        assert!(a.differences(&a, "now").is_empty());
        let mut b = ctx();
        b.k = Some(4);
        b.given.clear();
        b.options.push(("kernel".into(), "rbf".into()));
        assert_eq!(
            a.differences(&b, "now"),
            [
                "k 3 (now 4)",
                "eta 1.1 (now default)",
                "kernel default (now rbf)"
            ]
        );
        assert!(a.same_data(&b));
        b.scale = Scaling::Minmax;
        assert!(!a.same_data(&b));
        assert_eq!(a.differences(&b, "now")[0], "scale standard (now minmax)");
    }

    #[test]
    fn the_summary_names_k_unless_it_is_the_axis() {
        let mut a = ctx();
        assert_eq!(
            a.summary(),
            "seeds · scale standard · k 3 · seed 0 · kmeans++ · eta=1.1"
        );
        a.k = None;
        assert!(!a.summary().contains("k 3"));
    }
}
