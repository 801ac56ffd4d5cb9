//! What `meanscape sweep` writes: the table of one score, the JSON object,
//! the CSV rows.

use crate::algo::Algorithm;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::fit_scores::SpaceKind;
use crate::fit_scores::internal::SILHOUETTE_EXACT_MAX;
use crate::solver::params::fmt_num;
pub use crate::solver::params::fmt_sig4;
use crate::sweep::recommend::recommend;
use crate::sweep::resample::{CONSENSUS_ROWS, SPLIT_ROWS};
use crate::sweep::scores::{LABEL_FREE, SELECTED, WITH_LABELS, higher_is_better};
use crate::sweep::{CellResult, Plan, SweepResult, Truth};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Csv,
}

/// Everything the outputs are made from.
pub struct Report<'a> {
    pub algo: &'a dyn Algorithm,
    pub data: &'a str,
    pub dataset: &'a Dataset,
    pub plan: &'a Plan,
    pub result: &'a SweepResult,
    /// The score of the table and the plot.
    pub score: &'static str,
}

/// The score names that apply to this sweep of `algo` planned as `plan`.
fn available(algo: &dyn Algorithm, truth: Truth<'_>, plan: &Plan) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = LABEL_FREE.to_vec();
    if plan.resampling.count > 0 {
        // The gap's reference sets judge k only: listed on a k axis.
        v.extend(
            crate::sweep::resample::NAMES
                .into_iter()
                .filter(|n| *n != "gap" || plan.resampling.gap),
        );
    }
    // The kernel and random-feature methods score in their own space
    // (spectral's embedding is not one: it scores on the features).
    let own_space = algo.caps().family.own_space();
    if own_space {
        v.push("silhouette_input");
    }
    if algo.caps().family == crate::solver::Family::Kernel {
        v.push("kernel_alignment");
    }
    if truth.labels.is_some() {
        v.extend(WITH_LABELS);
    }
    // The feature-weighted algorithms report feature weights.
    let weighted = algo.weighs() == crate::algo::Weighs::Features;
    if weighted {
        v.push("selected");
        v.extend(SELECTED);
        if truth.relevance.is_some() {
            v.push("mcc");
        }
    }
    v
}

/// Why `name` is not a score of this sweep, when there is a reason beyond
/// the name being unknown.
fn why_not(name: &str, plan: &Plan) -> String {
    let on_k = plan.axes.iter().any(|a| a.name == "k");
    let why = if WITH_LABELS.contains(&name) || name == "mcc" {
        " (the data has no ground truth for it)"
    } else if crate::sweep::resample::NAMES.contains(&name) && plan.resampling.count == 0 {
        " (it is computed when the sweep resamples: --resamples B, e.g. --resamples 20)"
    } else if name == "gap" && !on_k {
        " (the gap statistic compares values of k: it needs a k axis, --grid k=FROM:TO:COUNT)"
    } else if name == "gap" {
        " (not computed for an algorithm with a kernel: its reference sets would need a graph or Gram matrix each)"
    } else if SELECTED.contains(&name) {
        let weighing = crate::algo::ids(|a| a.weighs() == crate::algo::Weighs::Features);
        return format!(
            " (it is computed for the feature-weighted algorithms: {})",
            weighing.join(", ")
        );
    } else {
        ""
    };
    why.to_string()
}

/// The score `--score` names (checked before any work), or the default:
/// NMI with labels, else prediction strength when the sweep resamples,
/// else stability.
///
/// # Errors
/// [`Error::Param`] for a name that is not a score of this sweep, saying
/// what would provide it.
pub fn choose_score(
    given: Option<&str>,
    algo: &dyn Algorithm,
    truth: Truth<'_>,
    plan: &Plan,
) -> Result<&'static str> {
    let names = available(algo, truth, plan);
    match given {
        None => Ok(if truth.labels.is_some() {
            "nmi"
        } else if plan.resampling.count > 0 {
            "prediction_strength"
        } else {
            "stability"
        }),
        Some(g) => names.iter().copied().find(|n| *n == g).ok_or_else(|| {
            Error::param(format!(
                "--score {g}: not a score of this sweep{}; choose one of {}",
                why_not(g, plan),
                names.join(", ")
            ))
        }),
    }
}

impl Report<'_> {
    pub fn render(&self, f: Format) -> String {
        match f {
            Format::Text => self.text(),
            Format::Json => serde_json::to_string_pretty(&self.json()).expect("JSON") + "\n",
            Format::Csv => self.csv(),
        }
    }

    /// The cell with the best mean of the chosen score, among those
    /// whose runs all kept k clusters (any cell when none did).
    pub fn best(&self) -> Option<&CellResult> {
        crate::sweep::best(self.result.cells.iter(), self.score)
    }

    /// What the cost and the silhouette are computed on.
    pub fn notes(&self) -> Vec<String> {
        let r = self.result;
        let sil = match (r.silhouette_sampled, r.weighted) {
            (true, false) => format!(
                "silhouette on a fixed-seed sample of {} of {} rows (exact up to {SILHOUETTE_EXACT_MAX})",
                r.silhouette_rows,
                self.dataset.n()
            ),
            (true, true) => format!(
                "silhouette on a fixed-seed sample of {} draws from the {} rows in proportion to their sample weights (exact up to {SILHOUETTE_EXACT_MAX} rows of weight > 0)",
                r.silhouette_rows,
                self.dataset.n()
            ),
            (false, false) => format!("silhouette exact on all {} rows", r.silhouette_rows),
            (false, true) => format!(
                "silhouette exact on all {} rows of weight > 0",
                r.silhouette_rows
            ),
        };
        let space = self
            .result
            .cells
            .first()
            .and_then(|c| c.runs.first())
            .map_or(SpaceKind::Features, |r| r.internal.space);
        let where_ = match space {
            SpaceKind::Features => "on the scaled input features",
            SpaceKind::Kernel => {
                "in the kernel's feature space the algorithm clustered in (several kernels: combined with each run's final weights)"
            }
            SpaceKind::Rff => {
                "in the random Fourier feature space the algorithm clustered in (several views: weighted by each run's final view weights)"
            }
        };
        let mut notes = vec![
            format!(
                "cost, silhouette, calinski_harabasz and davies_bouldin are computed {where_}, so cells with different parameters are judged in the same space as far as the space does not depend on them (a σ, D or kernel axis changes it)"
            ),
            sil,
        ];
        if r.weighted {
            notes.push(
                "the label-free scores weigh each row by its sample weight, as that many copies of it (weighted means and dispersions, n = the weights' sum; rows of weight 0 left out)".into(),
            );
        }
        notes.extend([
            "stability: mean pairwise ARI between the seeds' partitions".to_string(),
            "the best cell is chosen among those whose every run kept k non-empty clusters (a collapsed partition is perfectly stable); such cells are marked \"collapsed\"".to_string(),
        ]);
        let b = self.plan.resampling.count;
        if b > 0 {
            let n = self.dataset.n();
            let rows = if n > SPLIT_ROWS {
                format!("a fixed sample of {SPLIT_ROWS} of the {n} rows")
            } else {
                format!("the {n} rows")
            };
            notes.push(format!(
                "prediction_strength, resample_stability and pac: {b} splits of {rows} into halves, each half clustered with the cell's settings and carried to the other half by its clusters (the nearest row for algorithms without an out-of-sample rule); pac over the {} half clusterings of {CONSENSUS_ROWS} rows",
                2 * b
            ));
            // Only where it was computed: on a k axis, and in a sweep over
            // several algorithms not for those with a kernel.
            if self.plan.resampling.gap {
                notes.push(format!(
                "gap: log W of {b} uniform reference sets in the box of the data's principal axes minus log W of the cell's lowest-objective run, W the within-cluster sum of squares in the input features; its sd is the standard error"
            ));
            }
        }
        notes.push(
            "recommended: prediction strength's pick (on a k axis the largest k within two standard errors of the highest, else the highest; without resampling the highest silhouette, on the input features for kernel and RFF methods), never a collapsed cell; per_score is each score's own rule".into(),
        );
        notes
    }

    /// The JSON object (a sweep over several algorithms nests it).
    pub(super) fn json_value(&self) -> Value {
        self.json()
    }

    fn json(&self) -> Value {
        let mut params = Map::new();
        for (name, v) in self.plan.fixed() {
            params.insert(name, num(v));
        }
        if let Some(c) = self.plan.cells.first() {
            for (n, v) in &c.cfg.options {
                if self.plan.axes.iter().any(|a| a.name == *n) {
                    continue;
                }
                params.insert(n.clone(), v.clone().into());
            }
            params.insert("init".into(), c.cfg.init.to_string().into());
        }
        let axes: Vec<Value> = self
            .plan
            .axes
            .iter()
            .map(|a| {
                let values: Vec<Value> = a.values.iter().map(|v| at_value(a, *v)).collect();
                json!({"name": a.name, "symbol": a.symbol, "spacing": a.spacing, "values": values})
            })
            .collect();
        let cells: Vec<Value> = self
            .result
            .cells
            .iter()
            .map(|c| {
                let at = self.at_of(&c.at);
                let scores: Map<String, Value> = c
                    .scores
                    .iter()
                    .map(|(n, s)| (n.to_string(), json!({"mean": s.mean, "sd": s.sd})))
                    .collect();
                let mut cell = json!({"at": at, "scores": scores, "runs": c.runs});
                if c.collapsed() {
                    cell["collapsed"] = true.into();
                }
                if !c.consensus_cdf.is_empty() {
                    cell["consensus_cdf"] = c.consensus_cdf.iter().map(|&v| num(v)).collect();
                    cell["consensus_area"] = num(c.consensus_area);
                }
                cell
            })
            .collect();
        let seed0 = self.plan.cells.first().map_or(0, |c| c.cfg.seed);
        let mut out = json!({
            "algorithm": self.algo.id(),
            "data": self.data,
            "n": self.dataset.n(),
            "p": self.dataset.p(),
            "params": params,
            "axes": axes,
            "seeds": self.plan.seeds,
            "first_seed": seed0,
            "score": self.score,
            "notes": self.notes(),
            "cache_builds": self.result.builds,
            "elapsed_ms": self.result.elapsed.as_secs_f64() * 1e3,
            "cells": cells,
            "best": self.best_cells(),
            "complete": self.result.complete,
        });
        if let Some(r) = self.recommended() {
            out["recommended"] = r;
        }
        // The x of every cell's consensus_cdf, once.
        if self
            .result
            .cells
            .iter()
            .any(|c| !c.consensus_cdf.is_empty())
        {
            out["consensus_cdf_at"] = crate::sweep::resample::cdf_points().into();
        }
        if let Some(c) = &self.dataset.label_left_out {
            out["label_left_out"] = c.clone().into();
        }
        out
    }

    /// A cell's place on the axes, by axis name.
    fn at_of(&self, at: &[f64]) -> Map<String, Value> {
        self.plan
            .axes
            .iter()
            .zip(at)
            .map(|(a, v)| (a.name.clone(), at_value(a, *v)))
            .collect()
    }

    /// The label-free recommendation ([`crate::sweep::recommend`]).
    pub(super) fn recommendation(&self) -> Option<crate::sweep::recommend::Recommendation> {
        recommend(&self.result.cells, &self.plan.axes)
    }

    /// The label-free recommendation and what each score picked
    /// ([`crate::sweep::recommend`]).
    fn recommended(&self) -> Option<Value> {
        let cells = &self.result.cells;
        let r = self.recommendation()?;
        let mut per_score = Map::new();
        for p in &r.picks {
            per_score.insert(
                p.score.to_string(),
                json!({"at": self.at_of(&cells[p.cell].at), "cell": p.cell, "rule": p.rule}),
            );
        }
        let disagree: Vec<&str> = r
            .picks
            .iter()
            .filter(|p| p.cell != r.cell)
            .map(|p| p.score)
            .collect();
        Some(json!({
            "at": self.at_of(&cells[r.cell].at),
            "cell": r.cell,
            "by": r.by,
            "agreement": r.agreement,
            "disagree": disagree,
            "per_score": per_score,
        }))
    }

    /// The recommendation as text: the setting, its rule, the agreement.
    fn recommended_text(&self) -> Option<String> {
        let cells = &self.result.cells;
        let r = self.recommendation()?;
        let at = |c: usize| crate::sweep::describe(&self.plan.axes, &cells[c].at);
        let agree: Vec<&str> = r
            .picks
            .iter()
            .filter(|p| p.cell == r.cell)
            .map(|p| p.score)
            .collect();
        let other: Vec<String> = r
            .picks
            .iter()
            .filter(|p| p.cell != r.cell)
            .map(|p| format!("{} {}", p.score, at(p.cell)))
            .collect();
        let mut out = format!(
            "\nrecommended without labels: {} (by {})\n  agree ({} of {}): {}\n",
            at(r.cell),
            r.by,
            agree.len(),
            r.picks.len(),
            agree.join(", ")
        );
        if !other.is_empty() {
            out.push_str(&format!("  disagree: {}\n", other.join(", ")));
        }
        Some(out)
    }

    /// The best cell by every score, as `meanscape.sweep` gives it in
    /// Python: `cell` is its position in `cells`, chosen among the cells
    /// whose every run kept k clusters (see [`crate::sweep::best`]: among
    /// all, marked `collapsed`, only when every cell collapsed); a score no
    /// cell has is left out.
    fn best_cells(&self) -> Value {
        let cells = &self.result.cells;
        let mut names: Vec<&str> = Vec::new();
        for c in cells {
            for (n, _) in &c.scores {
                if !names.contains(n) {
                    names.push(n);
                }
            }
        }
        let mut best = Map::new();
        for name in names {
            let Some(b) = crate::sweep::best(cells.iter(), name) else {
                continue;
            };
            let Some(pos) = cells.iter().position(|c| c.index == b.index) else {
                continue;
            };
            let at = self.at_of(&b.at);
            let s = b.score(name).expect("the best cell has the score");
            let mut entry = json!({"cell": pos, "at": at, "mean": s.mean, "sd": s.sd});
            // Only when every cell collapsed (the choice falls back to all).
            if b.collapsed() {
                entry["collapsed"] = true.into();
            }
            best.insert(name.to_string(), entry);
        }
        Value::Object(best)
    }

    fn csv(&self) -> String {
        let names: Vec<&str> = self
            .result
            .cells
            .first()
            .map(|c| c.scores.iter().map(|(n, _)| *n).collect())
            .unwrap_or_default();
        let mut head: Vec<String> = self.plan.axes.iter().map(|a| a.name.clone()).collect();
        for n in &names {
            head.push(format!("{n}_mean"));
            head.push(format!("{n}_sd"));
        }
        let mut out = head.join(",") + "\n";
        for c in &self.result.cells {
            let mut row: Vec<String> = self
                .plan
                .axes
                .iter()
                .zip(&c.at)
                .map(|(a, v)| csv_text(&a.show(*v)))
                .collect();
            for n in &names {
                let s = c.score(n);
                row.push(s.map_or(String::new(), |s| csv_num(s.mean)));
                row.push(s.map_or(String::new(), |s| csv_num(s.sd)));
            }
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }

    fn text(&self) -> String {
        let r = self.result;
        let mut out = format!(
            "sweep of {} on {}: n = {}, {} cells × {} seeds{}\n",
            self.algo.id(),
            self.data,
            self.dataset.n(),
            r.total,
            self.plan.seeds,
            if r.complete {
                String::new()
            } else {
                format!(
                    ", INCOMPLETE: {} of {} cells finished",
                    r.cells.len(),
                    r.total
                )
            }
        );
        let fixed: Vec<String> = self
            .plan
            .fixed()
            .iter()
            .map(|(n, v)| format!("{n}={}", fmt_num(*v)))
            .collect();
        out.push_str(&format!("  fixed: {}\n", fixed.join(" ")));
        let dir = if higher_is_better(self.score) {
            "higher"
        } else {
            "lower"
        };
        out.push_str(&format!(
            "  {} (mean over seeds; {dir} is better; * the best cell)\n\n",
            self.score
        ));
        out.push_str(&self.table());
        if let Some(b) = self.best() {
            out.push_str(&format!(
                "\nbest by {}: {}\n",
                self.score,
                crate::sweep::describe(&self.plan.axes, &b.at)
            ));
            let line: Vec<String> = b
                .scores
                .iter()
                .map(|(n, s)| format!("{n} {}±{}", fmt_sig4(s.mean), fmt_sig4(s.sd)))
                .collect();
            out.push_str(&format!("  {}\n", line.join("  ")));
        }
        if let Some(r) = self.recommended_text() {
            out.push_str(&r);
        }
        for n in self.notes() {
            out.push_str(&format!("  note: {n}\n"));
        }
        out
    }

    /// The chosen score as a grid (2 axes), a column (1 axis) or a list.
    fn table(&self) -> String {
        let axes = &self.plan.axes;
        let best = self.best().map(|c| c.index);
        let cell_text = |c: &CellResult, with_sd: bool| {
            let s = c.score(self.score);
            let mark = if Some(c.index) == best { "*" } else { " " };
            match s {
                Some(s) if with_sd => format!("{}±{}{mark}", fmt_sig4(s.mean), fmt_sig4(s.sd)),
                Some(s) => format!("{}{mark}", fmt_sig4(s.mean)),
                None => "-".into(),
            }
        };
        let find = |idx: usize| self.result.cells.iter().find(|c| c.index == idx);
        let mut out = String::new();
        if axes.len() == 2 {
            let (a, b) = (&axes[0], &axes[1]);
            let w = a
                .values
                .iter()
                .map(|v| a.show(*v).chars().count())
                .chain(b.values.iter().map(|v| b.show(*v).chars().count()))
                .max()
                .unwrap_or(0)
                .max(10)
                + 1;
            out.push_str(&format!("{:>w$}", format!("{}\\{}", a.symbol, b.symbol)));
            for v in &b.values {
                out.push_str(&format!(" {:>w$}", b.show(*v)));
            }
            out.push('\n');
            for (i, va) in a.values.iter().enumerate() {
                out.push_str(&format!("{:>w$}", a.show(*va)));
                for j in 0..b.values.len() {
                    let t =
                        find(i * b.values.len() + j).map_or("-".into(), |c| cell_text(c, false));
                    out.push_str(&format!(" {t:>w$}"));
                }
                out.push('\n');
            }
            return out;
        }
        let head: Vec<String> = axes.iter().map(|a| format!("{:>10}", a.symbol)).collect();
        out.push_str(&format!("{}  {}\n", head.join(" "), self.score));
        for c in &self.result.cells {
            let at: Vec<String> = axes
                .iter()
                .zip(&c.at)
                .map(|(a, v)| format!("{:>10}", a.show(*v)))
                .collect();
            out.push_str(&format!("{}  {}\n", at.join(" "), cell_text(c, true)));
        }
        out
    }
}

fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

/// An axis value for the JSON: the option text, or the number.
/// A value on an axis as the JSON writes it.
pub(super) fn axis_value(a: &crate::sweep::Axis, v: f64) -> Value {
    at_value(a, v)
}

fn at_value(a: &crate::sweep::Axis, v: f64) -> Value {
    if a.is_option() {
        Value::from(a.show(v))
    } else {
        num(v)
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (a
/// kernel spec such as `poly:a=1,b=2`).
fn csv_text(t: &str) -> String {
    if t.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", t.replace('"', "\"\""))
    } else {
        t.to_string()
    }
}

fn csv_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}
