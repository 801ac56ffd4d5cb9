//! The run history: every finished run with what it took and what it
//! gave, sortable by any column, two runs pinned for comparison, and
//! written out as CSV or JSON (each row with the `meanscape run` command
//! that repeats it). Plain data with serde, so a session file holds it.

use crate::algo::params::fmt_num;
use serde::{Deserialize, Serialize};

pub mod comparable;
mod entry;
pub use entry::Entry;
use std::cmp::Ordering;
use std::collections::BTreeSet;

impl Entry {
    /// The score the table shows: NMI with labels, else the silhouette.
    pub fn score(&self) -> Option<f64> {
        self.nmi.or(self.silhouette)
    }

    /// "s0=-3 eta=1.1" (and the options), or "defaults".
    pub fn changed_text(&self) -> String {
        let parts = self.changed_parts();
        if parts.is_empty() {
            "defaults".into()
        } else {
            parts.join(" ")
        }
    }

    /// Each changed parameter and option as `name=value`.
    pub fn changed_parts(&self) -> Vec<String> {
        let mut parts: Vec<String> = self
            .changed
            .iter()
            .map(|(n, v)| format!("{n}={}", fmt_num(*v)))
            .collect();
        parts.extend(
            self.options
                .iter()
                .filter(|(n, _)| n.as_str() != "max_memory")
                .map(|(n, v)| format!("{n}={v}")),
        );
        parts
    }

    /// "12/50" selected features, or "" when the algorithm weighs none.
    pub fn features_text(&self) -> String {
        self.selected
            .as_ref()
            .map(|s| format!("{}/{}", s.len(), self.n_features))
            .unwrap_or_default()
    }
}

/// A column of the table (and what it sorts by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Column {
    #[default]
    Run,
    Algorithm,
    Changed,
    K,
    Seed,
    Score,
    Cost,
    Iters,
    Time,
    Features,
}

impl Column {
    pub const ALL: [Column; 10] = [
        Column::Run,
        Column::Algorithm,
        Column::Changed,
        Column::K,
        Column::Seed,
        Column::Score,
        Column::Cost,
        Column::Iters,
        Column::Time,
        Column::Features,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Run => "#",
            Column::Algorithm => "algorithm",
            Column::Changed => "changed",
            Column::K => "k",
            Column::Seed => "seed",
            Column::Score => "score",
            Column::Cost => "cost",
            Column::Iters => "iters",
            Column::Time => "time",
            Column::Features => "features",
        }
    }

    fn next(self) -> Column {
        let i = Column::ALL.iter().position(|c| *c == self).unwrap_or(0);
        Column::ALL[(i + 1) % Column::ALL.len()]
    }
}

/// A value to sort by: numbers, or text for the columns that are words.
#[derive(PartialEq, PartialOrd)]
enum Key {
    Num(Option<f64>),
    Text(String),
}

fn key(e: &Entry, c: Column) -> Key {
    use Key::{Num, Text};
    match c {
        Column::Run => Num(Some(e.id as f64)),
        Column::Algorithm => Text(e.algo.clone()),
        Column::Changed => Text(e.changed_text()),
        Column::K => Num(Some(e.k as f64)),
        Column::Seed => Num(Some(e.seed as f64)),
        Column::Score => Num(e.score()),
        Column::Cost => Num(e.cost),
        Column::Iters => Num(Some(e.iterations as f64)),
        Column::Time => Num(Some(e.elapsed_ms)),
        Column::Features => Num(e.selected.as_ref().map(|s| s.len() as f64)),
    }
}

/// Missing and NaN values go last whichever the direction: a run without
/// a score is never the best one.
fn compare(a: &Key, b: &Key, descending: bool) -> Ordering {
    let flip = |o: Ordering| if descending { o.reverse() } else { o };
    match (a, b) {
        (Key::Num(x), Key::Num(y)) => {
            let x = x.filter(|v| !v.is_nan());
            let y = y.filter(|v| !v.is_nan());
            match (x, y) {
                (Some(x), Some(y)) => flip(x.partial_cmp(&y).unwrap_or(Ordering::Equal)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        (Key::Text(x), Key::Text(y)) => flip(x.cmp(y)),
        _ => Ordering::Equal,
    }
}

/// The runs of a session and how the table shows them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub entries: Vec<Entry>,
    #[serde(default)]
    pub sort: Column,
    #[serde(default)]
    pub descending: bool,
    /// Ids of the pinned runs, oldest pin first (at most two).
    #[serde(default)]
    pub pinned: Vec<usize>,
    /// The highlighted run's id.
    #[serde(skip)]
    pub selected: Option<usize>,
    /// The compare view is shown instead of the table.
    #[serde(skip)]
    pub comparing: bool,
}

/// One score of both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub name: &'static str,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// Why A and B measure different things ("s0 differs"); None when
    /// B − A is a change.
    pub not_comparable: Option<String>,
}

/// What differs between two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// (what, value in A, value in B) for every setting that differs.
    pub settings: Vec<(String, String, String)>,
    /// The scores of A and B, each with whether B − A means anything.
    pub scores: Vec<Score>,
    /// Jaccard index of the selected feature sets, when both runs select.
    pub jaccard: Option<f64>,
    /// Features both runs select, and either.
    pub shared: usize,
    pub either: usize,
}

impl History {
    /// Adds a finished run; it gets the next number. The highlight follows
    /// the newest run unless the user moved it to an older one.
    pub fn push(&mut self, mut e: Entry) -> usize {
        let newest = self.entries.iter().map(|e| e.id).max();
        e.id = newest.map_or(1, |n| n + 1);
        if self.selected.is_none() || self.selected == newest {
            self.selected = Some(e.id);
        }
        let id = e.id;
        self.entries.push(e);
        id
    }

    pub fn get(&self, id: usize) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Indices into `entries` in the table's order.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.entries.len()).collect();
        let keys: Vec<Key> = self.entries.iter().map(|e| key(e, self.sort)).collect();
        // Ties keep the run order: stable sort on the run number first.
        idx.sort_by(|&a, &b| {
            compare(&keys[a], &keys[b], self.descending)
                .then(self.entries[a].id.cmp(&self.entries[b].id))
        });
        idx
    }

    /// Where the highlighted run is in the table's order.
    pub fn cursor(&self) -> usize {
        let order = self.order();
        self.selected
            .and_then(|id| order.iter().position(|&i| self.entries[i].id == id))
            .unwrap_or(0)
    }

    pub fn selected_entry(&self) -> Option<&Entry> {
        self.selected
            .and_then(|id| self.get(id))
            .or_else(|| self.order().first().map(|&i| &self.entries[i]))
    }

    /// Moves the highlight `d` rows down the table (up when negative).
    pub fn move_cursor(&mut self, d: i32) {
        let order = self.order();
        if order.is_empty() {
            return;
        }
        let at = self.cursor() as i32 + d;
        let at = at.clamp(0, order.len() as i32 - 1) as usize;
        self.selected = Some(self.entries[order[at]].id);
    }

    /// Sorts by the next column (ascending first).
    pub fn next_sort(&mut self) {
        self.sort = self.sort.next();
        self.descending = false;
    }

    pub fn reverse(&mut self) {
        self.descending = !self.descending;
    }

    /// Pins the highlighted run, or unpins it. A third pin replaces the
    /// oldest. Returns what happened, for the status line.
    pub fn toggle_pin(&mut self) -> String {
        let Some(id) = self.selected_entry().map(|e| e.id) else {
            return "no run to pin yet".into();
        };
        if let Some(i) = self.pinned.iter().position(|&p| p == id) {
            self.pinned.remove(i);
            if self.pinned.len() < 2 {
                self.comparing = false;
            }
            return format!("run #{id} unpinned");
        }
        let mut dropped = None;
        if self.pinned.len() == 2 {
            dropped = Some(self.pinned.remove(0));
        }
        self.pinned.push(id);
        match (self.pinned.as_slice(), dropped) {
            ([a, b], Some(d)) => {
                format!("run #{id} pinned (#{d} unpinned); v compares #{a} with #{b}")
            }
            ([a, b], None) => format!("run #{id} pinned; v compares #{a} with #{b}"),
            _ => format!("run #{id} pinned; pin one more to compare"),
        }
    }

    /// The two pinned runs, oldest pin first.
    pub fn pinned_pair(&self) -> Option<(&Entry, &Entry)> {
        match self.pinned.as_slice() {
            [a, b] => Some((self.get(*a)?, self.get(*b)?)),
            _ => None,
        }
    }

    /// Makes a History read from a session file consistent: runs numbered
    /// again from 1 (pins following) when their numbers are not distinct
    /// or too large to count on from, and pins of runs that are no longer
    /// there dropped.
    pub fn tidy(&mut self) {
        let mut seen = BTreeSet::new();
        let numbered = self
            .entries
            .iter()
            .all(|e| (1..=MAX_ID).contains(&e.id) && seen.insert(e.id));
        if !numbered {
            let old: Vec<usize> = self.entries.iter().map(|e| e.id).collect();
            for (i, e) in self.entries.iter_mut().enumerate() {
                e.id = i + 1;
            }
            self.pinned = self
                .pinned
                .iter()
                .filter_map(|p| old.iter().position(|o| o == p).map(|i| i + 1))
                .collect();
        }
        let ids: BTreeSet<usize> = self.entries.iter().map(|e| e.id).collect();
        let mut pins = BTreeSet::new();
        self.pinned.retain(|p| ids.contains(p) && pins.insert(*p));
        self.pinned.truncate(2);
        self.selected = self.entries.iter().map(|e| e.id).max();
        self.comparing = false;
    }
}

/// The largest run number a History keeps: far more runs than a session
/// holds, and room to count on.
const MAX_ID: usize = u32::MAX as usize;

/// Points of an objective trace kept in the History: more than a chart is
/// wide; a session of many long runs stays small.
pub const TRACE_POINTS: usize = 400;

/// At most [`TRACE_POINTS`] points of `trace`, evenly spread, the first and
/// the last kept.
pub fn thin(trace: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let n = trace.len();
    if n <= TRACE_POINTS {
        return trace.to_vec();
    }
    (0..TRACE_POINTS)
        .map(|i| trace[i * (n - 1) / (TRACE_POINTS - 1)])
        .collect()
}

/// Jaccard index |A ∩ B| / |A ∪ B| of two selections, with the sizes of
/// both; two empty selections are the same selection.
pub fn jaccard<T: Ord + Clone>(a: &[T], b: &[T]) -> (f64, usize, usize) {
    let a: BTreeSet<T> = a.iter().cloned().collect();
    let b: BTreeSet<T> = b.iter().cloned().collect();
    let shared = a.intersection(&b).count();
    let either = a.union(&b).count();
    let j = if either == 0 {
        1.0
    } else {
        shared as f64 / either as f64
    };
    (j, shared, either)
}

/// What differs between run `a` and run `b`.
pub fn diff(a: &Entry, b: &Entry) -> Diff {
    let mut settings = Vec::new();
    let mut add = |what: &str, x: String, y: String| {
        if x != y {
            settings.push((what.to_string(), x, y));
        }
    };
    add("data", a.data.clone(), b.data.clone());
    add("algorithm", a.algo.clone(), b.algo.clone());
    add("k", a.k.to_string(), b.k.to_string());
    add("seed", a.seed.to_string(), b.seed.to_string());
    add("restarts", a.restarts.to_string(), b.restarts.to_string());
    add("init", a.init.clone(), b.init.clone());
    add("scale", a.scale.clone(), b.scale.clone());
    let show = |v: Option<&f64>| v.map_or("-".to_string(), |v| fmt_num(*v));
    let names: BTreeSet<&String> = a.params.keys().chain(b.params.keys()).collect();
    for n in names {
        add(n, show(a.params.get(n)), show(b.params.get(n)));
    }
    let opts: BTreeSet<&String> = a.options.keys().chain(b.options.keys()).collect();
    for n in opts {
        let get = |e: &Entry| e.options.get(n).cloned().unwrap_or_else(|| "-".into());
        add(n, get(a), get(b));
    }
    let labels = comparable::labels(a, b);
    let score = |name, a, b, not_comparable: &Option<String>| Score {
        name,
        a,
        b,
        not_comparable: not_comparable.clone(),
    };
    // Iterations and time are measurements of any two runs.
    let scores = vec![
        score("NMI", a.nmi, b.nmi, &labels),
        score("ARI", a.ari, b.ari, &labels),
        score("ACC", a.acc, b.acc, &labels),
        score(
            "silhouette",
            a.silhouette,
            b.silhouette,
            &comparable::internal(a, b, false),
        ),
        score("cost", a.cost, b.cost, &comparable::internal(a, b, true)),
        score(
            "objective",
            Some(a.objective),
            Some(b.objective),
            &comparable::objective(a, b),
        ),
        score(
            "iterations",
            Some(a.iterations as f64),
            Some(b.iterations as f64),
            &None,
        ),
        score(
            "time",
            Some(a.elapsed_ms / 1e3),
            Some(b.elapsed_ms / 1e3),
            &None,
        ),
    ];
    // Same dataset: compare feature indices; else names (the same gene in
    // two files).
    let (jaccard, shared, either) = match (&a.selected, &b.selected) {
        (Some(x), Some(y)) if a.data == b.data => {
            let (j, s, e) = self::jaccard(x, y);
            (Some(j), s, e)
        }
        _ => match (&a.selected_names, &b.selected_names) {
            (Some(x), Some(y)) => {
                let (j, s, e) = self::jaccard(x, y);
                (Some(j), s, e)
            }
            _ => (None, 0, 0),
        },
    };
    Diff {
        settings,
        scores,
        jaccard,
        shared,
        either,
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| format!("{v}")).unwrap_or_default()
}

/// The history as CSV, one row a run in run order, the command last.
pub fn to_csv(h: &History) -> String {
    let mut out = String::from(
        "run,data,algorithm,k,seed,restarts,init,scale,changed,nmi,ari,acc,silhouette,cost,calinski_harabasz,davies_bouldin,objective,iterations,converged,elapsed_ms,selected_features,n_features,selected_names,command\n",
    );
    for e in &h.entries {
        let row = [
            e.id.to_string(),
            e.data.clone(),
            e.algo.clone(),
            e.k.to_string(),
            e.seed.to_string(),
            e.restarts.to_string(),
            e.init.clone(),
            e.scale.clone(),
            e.changed_text(),
            opt(e.nmi),
            opt(e.ari),
            opt(e.acc),
            opt(e.silhouette),
            opt(e.cost),
            opt(e.calinski_harabasz),
            opt(e.davies_bouldin),
            format!("{}", e.objective),
            e.iterations.to_string(),
            e.converged.to_string(),
            format!("{:.1}", e.elapsed_ms),
            e.selected
                .as_ref()
                .map(|s| s.len().to_string())
                .unwrap_or_default(),
            e.n_features.to_string(),
            e.selected_names
                .as_ref()
                .map(|n| n.join(" "))
                .unwrap_or_default(),
            e.command.clone(),
        ];
        let row: Vec<String> = row.iter().map(|f| field(f)).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The history as JSON: every run with all it holds, in run order.
pub fn to_json(h: &History) -> String {
    serde_json::to_string_pretty(&h.entries).expect("entries serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    pub(super) fn entry(algo: &str, nmi: Option<f64>) -> Entry {
        Entry {
            id: 0,
            data: "iris".into(),
            dataset: "iris".into(),
            algo: algo.into(),
            k: 3,
            seed: 0,
            restarts: 1,
            init: "kmeans++".into(),
            scale: "standard".into(),
            scale_default: true,
            load: BTreeMap::new(),
            params: BTreeMap::new(),
            changed: BTreeMap::new(),
            options: BTreeMap::new(),
            nmi,
            ari: None,
            acc: None,
            silhouette: Some(0.4),
            cost: None,
            calinski_harabasz: None,
            davies_bouldin: None,
            objective: 1.0,
            final_s: None,
            space: None,
            iterations: 3,
            converged: true,
            elapsed_ms: 1.0,
            selected: None,
            selected_names: None,
            n_features: 4,
            trace: vec![],
            sizes: vec![],
            command: "meanscape run --data 'a, b.csv'".into(),
        }
    }

    #[test]
    fn missing_scores_sort_last_both_ways() {
        let mut h = History::default();
        h.push(entry("a", Some(0.5)));
        h.push(entry("b", None));
        h.push(entry("c", Some(0.9)));
        h.entries[1].silhouette = None;
        h.sort = Column::Score;
        assert_eq!(h.order(), vec![0, 2, 1]);
        h.reverse();
        assert_eq!(h.order(), vec![2, 0, 1]);
    }

    #[test]
    fn thinning_keeps_the_ends() {
        let t: Vec<(usize, f64)> = (1..=1000).map(|i| (i, i as f64)).collect();
        let s = thin(&t);
        assert_eq!(s.len(), TRACE_POINTS);
        assert_eq!((s[0], s[TRACE_POINTS - 1]), (t[0], t[999]));
        assert_eq!(thin(&t[..10]), t[..10]);
    }

    #[test]
    fn jaccard_of_sets() {
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), (0.5, 2, 4));
        assert_eq!(jaccard::<usize>(&[], &[]), (1.0, 0, 0));
    }

    #[test]
    fn csv_quotes_fields_with_commas_and_quotes() {
        let mut h = History::default();
        h.push(entry("a", None));
        let csv = to_csv(&h);
        assert!(
            csv.contains(",\"meanscape run --data 'a, b.csv'\"\n"),
            "{csv}"
        );
        assert_eq!(field("say \"hi\", x"), "\"say \"\"hi\"\", x\"");
    }
}
