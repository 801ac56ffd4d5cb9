//! What each label-free score prefers among a sweep's cells, and the one
//! setting the sweep recommends with its evidence.
//!
//! Each score picks a cell by its own published rule: the first k within a standard error of the gap's first
//! local maximum (R's `cluster::maxSE`, `firstSEmax`), the elbow of the
//! cost, otherwise the best value. Those rules read the k axis; on a sweep
//! without one, or with more axes, every score picks its best value. A
//! collapsed cell (a run lost a cluster) is never picked.

use super::cells::{CellResult, best};
use super::grid::Axis;
use super::resample::first_se_max;
use super::scores::MeanSd;
use serde::Serialize;
use std::borrow::Borrow;

/// The prediction strength Tibshirani & Walther call a good fit (fpc's
/// cutoff): drawn on the k-scan's chart.
pub const PS_CUTOFF: f64 = 0.8;
/// Standard errors below the highest prediction strength that a larger k
/// may be and still be picked (about a 95% band).
pub const PS_SE: f64 = 2.0;

/// The label-free scores that vote, in output order.
pub const VOTERS: [&str; 11] = [
    "prediction_strength",
    "resample_stability",
    "pac",
    "gap",
    "silhouette_input",
    "kernel_alignment",
    "silhouette",
    "calinski_harabasz",
    "davies_bouldin",
    "cost",
    "stability",
];

/// The cell one score prefers.
#[derive(Debug, Clone, Serialize)]
pub struct Pick {
    pub score: &'static str,
    /// The cell's position in the result's cells.
    #[serde(skip)]
    pub cell: usize,
    /// How the score chose it.
    pub rule: &'static str,
}

/// The sweep's recommendation.
#[derive(Debug, Clone)]
pub struct Recommendation {
    /// The recommended cell's position in the result's cells.
    pub cell: usize,
    /// The rule that chose it.
    pub by: String,
    /// The share of the scores that pick it.
    pub agreement: f64,
    pub picks: Vec<Pick>,
}

/// The only axis when it is k.
fn k_axis(axes: &[Axis]) -> bool {
    axes.len() == 1 && axes[0].name == "k"
}

fn usable(c: &CellResult) -> bool {
    !c.collapsed()
}

fn mean(c: &CellResult, score: &str) -> Option<f64> {
    c.score(score).map(|s| s.mean).filter(|m| m.is_finite())
}

/// The position of `chosen` in `cells`.
fn position<C: Borrow<CellResult>>(cells: &[C], chosen: &CellResult) -> Option<usize> {
    cells.iter().position(|c| std::ptr::eq(c.borrow(), chosen))
}

/// The cell `score` prefers, with the rule's name. `cells` are the
/// finished cells, owned or borrowed (the UI keeps them by grid place).
pub fn pick<C: Borrow<CellResult>>(
    cells: &[C],
    axes: &[Axis],
    score: &'static str,
) -> Option<Pick> {
    let cell_at = |i: usize| cells[i].borrow();
    let by_k = k_axis(axes);
    let ok: Vec<usize> = (0..cells.len())
        .filter(|&i| usable(cell_at(i)) && mean(cell_at(i), score).is_some())
        .collect();
    if ok.is_empty() {
        return None;
    }
    let (cell, rule) = match score {
        "prediction_strength" if by_k => {
            // Prediction strength falls with k (more clusters, more pairs
            // to split): the largest k not clearly below the best.
            let top = best_of(cells, &ok, score)?;
            let s = cell_at(top).score(score)?;
            let bar = s.mean - PS_SE * s.sd;
            let i = ok
                .iter()
                .copied()
                .filter(|&i| mean(cell_at(i), score).is_some_and(|v| v >= bar))
                .max_by_key(|&i| cell_at(i).k)?;
            (i, "the largest k within two standard errors of the highest")
        }
        "gap" if by_k => {
            let gaps: Vec<f64> = ok
                .iter()
                .map(|&i| mean(cell_at(i), "gap").unwrap())
                .collect();
            let ses: Vec<f64> = ok
                .iter()
                .map(|&i| cell_at(i).score("gap").map_or(0.0, |s: MeanSd| s.sd))
                .collect();
            (
                ok[first_se_max(&gaps, &ses)?],
                "the first k within one standard error of the gap's first local maximum (firstSEmax)",
            )
        }
        "cost" if by_k => (elbow(cells, &ok)?, "the elbow of the cost curve"),
        "cost" => return None,
        _ => (best_of(cells, &ok, score)?, best_rule(score)),
    };
    Some(Pick { score, cell, rule })
}

fn best_rule(score: &str) -> &'static str {
    if super::scores::higher_is_better(score) {
        "the highest"
    } else {
        "the lowest"
    }
}

fn best_of<C: Borrow<CellResult>>(cells: &[C], ok: &[usize], score: &str) -> Option<usize> {
    let chosen = best(ok.iter().map(|&i| cells[i].borrow()), score)?;
    position(cells, chosen)
}

/// The elbow of the cost over k: the cell farthest below the chord from
/// the first to the last k, both scaled to [0, 1].
fn elbow<C: Borrow<CellResult>>(cells: &[C], ok: &[usize]) -> Option<usize> {
    let pts: Vec<(usize, f64, f64)> = ok
        .iter()
        .map(|&i| (i, cells[i].borrow()))
        .filter_map(|(i, c)| mean(c, "cost").map(|y| (i, c.k as f64, y)))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let span = |f: &dyn Fn(&(usize, f64, f64)) -> f64| {
        let lo = pts.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = pts.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        (lo, if hi > lo { hi - lo } else { 1.0 })
    };
    let (x0, dx) = span(&|p| p.1);
    let (y0, dy) = span(&|p| p.2);
    let norm: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| ((p.1 - x0) / dx, (p.2 - y0) / dy))
        .collect();
    let (first, last) = (norm[0], norm[norm.len() - 1]);
    let below = |p: (f64, f64)| {
        let t = (p.0 - first.0) / (last.0 - first.0);
        (first.1 + t * (last.1 - first.1)) - p.1
    };
    (0..pts.len())
        .max_by(|&a, &b| below(norm[a]).total_cmp(&below(norm[b])))
        .map(|j| pts[j].0)
}

/// Every voter's pick.
pub fn picks<C: Borrow<CellResult>>(cells: &[C], axes: &[Axis]) -> Vec<Pick> {
    VOTERS
        .iter()
        .filter_map(|&s| pick(cells, axes, s))
        .collect()
}

/// The recommendation of a finished sweep, or None when no cell can be
/// recommended (none finished, every cell collapsed, no label-free score).
pub fn recommend<C: Borrow<CellResult>>(cells: &[C], axes: &[Axis]) -> Option<Recommendation> {
    let picks = picks(cells, axes);
    let (cell, by) = rule(&picks)?;
    let agree = picks.iter().filter(|p| p.cell == cell).count();
    Some(Recommendation {
        cell,
        by,
        agreement: agree as f64 / picks.len().max(1) as f64,
        picks,
    })
}

/// The one rule for every data set: prediction strength's pick (on a k
/// axis the largest k within two standard errors of the highest, else the
/// highest; measured on the battery of `bench/choose_k.py` against the other
/// scores' rules, fpc's cutoff 0.8 included: docs/guide/choosing.md);
/// without the resampled scores, the highest silhouette, on the input
/// features where the algorithm's own space changes along an axis.
fn rule(picks: &[Pick]) -> Option<(usize, String)> {
    ["prediction_strength", "silhouette_input", "silhouette"]
        .iter()
        .find_map(|s| picks.iter().find(|p| p.score == *s))
        .map(|p| (p.cell, format!("{}: {}", p.score, p.rule)))
}

/// The rule of a sweep over several algorithms on a k axis ([`across`]).
pub const ACROSS_RULE: &str = "prediction_strength: the largest k within two standard errors of the highest over every (algorithm, k) cell; at that k the earlier algorithm";
/// [`across`] on other axes.
pub const ACROSS_BEST: &str =
    "prediction_strength: the highest over every cell; ties to the earlier algorithm";
/// [`across`] without the resampled scores.
pub const ACROSS_FALLBACK: &str =
    "silhouette: the highest over every cell (no resampled scores); ties to the earlier algorithm";

/// The recommendation of a sweep over several algorithms: which
/// algorithm (its position in the families) and which of its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Across {
    pub family: usize,
    pub cell: usize,
    pub by: &'static str,
}

/// The cell a sweep over several algorithms (one family of cells per
/// algorithm, the same axes) recommends. On a k axis: the largest k whose
/// prediction strength is within two standard errors of the highest over
/// all families' usable cells, the earlier family at that k — the single
/// sweep's rule over both families, measured on the battery against the
/// plain highest ("PS-2F" of the research run): the same 19 of 35 sets,
/// mean |error| 1.49 against 1.63, NMI 0.641 against 0.606
/// (bench/out/choose_k/table.md). On other axes the highest, ties to the
/// earlier family. Prediction strength compares partitions, not distances,
/// so it compares cells of different algorithms. Without it, the highest
/// silhouette (on the input features). Never a collapsed cell.
pub fn across<C: Borrow<CellResult>>(families: &[&[C]], by_k: bool) -> Option<Across> {
    let live = |score: &'static str| {
        families.iter().enumerate().flat_map(move |(f, cells)| {
            cells.iter().enumerate().filter_map(move |(i, c)| {
                let c = c.borrow();
                mean(c, score).filter(|_| usable(c)).map(|v| (f, i, v, c))
            })
        })
    };
    for (score, by) in [
        ("prediction_strength", ACROSS_BEST),
        ("silhouette", ACROSS_FALLBACK),
    ] {
        // The highest; ties to the earlier family, then the smaller k.
        let mut top: Option<(usize, usize, f64, &CellResult)> = None;
        for (f, i, v, c) in live(score) {
            if top.is_none_or(|(tf, _, tv, tc)| v > tv || (v == tv && tf == f && c.k < tc.k)) {
                top = Some((f, i, v, c));
            }
        }
        let Some((f, i, v, c)) = top else {
            continue;
        };
        if !(by_k && score == "prediction_strength") {
            return Some(Across {
                family: f,
                cell: i,
                by,
            });
        }
        let bar = v - PS_SE * c.score(score).map_or(0.0, |s| s.sd);
        let mut pick = (f, i, c.k);
        for (f2, i2, v2, c2) in live(score) {
            if v2 >= bar && (c2.k > pick.2 || (c2.k == pick.2 && f2 < pick.0)) {
                pick = (f2, i2, c2.k);
            }
        }
        return Some(Across {
            family: pick.0,
            cell: pick.1,
            by: ACROSS_RULE,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::scores::MeanSd;

    fn cell(k: usize, ps: f64) -> CellResult {
        CellResult {
            index: k,
            at: vec![k as f64],
            k,
            scores: vec![("prediction_strength", MeanSd { mean: ps, sd: 0.01 })],
            runs: Vec::new(),
            consensus_cdf: Vec::new(),
            consensus_area: f64::NAN,
        }
    }

    #[test]
    fn across_on_k_takes_the_largest_k_within_two_se_of_the_highest() {
        // Highest: spectral k = 3 (0.97, se 0.01): the bar is 0.95.
        let km = [cell(2, 0.9), cell(3, 0.95), cell(4, 0.7)];
        let sp = [cell(2, 0.95), cell(3, 0.97), cell(4, 0.955)];
        let r = across(&[&km[..], &sp[..]], true).unwrap();
        assert_eq!((r.family, r.cell, r.by), (1, 2, ACROSS_RULE));
        // At the largest k within the bar, the earlier family.
        let km = [cell(2, 0.9), cell(3, 0.96), cell(4, 0.7)];
        let sp = [cell(2, 0.95), cell(3, 0.97), cell(4, 0.5)];
        let r = across(&[&km[..], &sp[..]], true).unwrap();
        assert_eq!((r.family, r.cell), (0, 1));
        // Not a k axis: the highest, a tie to the earlier family.
        let sp = [cell(2, 0.95), cell(3, 0.96)];
        let r = across(&[&km[..], &sp[..]], false).unwrap();
        assert_eq!((r.family, r.cell, r.by), (0, 1, ACROSS_BEST));
        // No score anywhere: no recommendation.
        let none: Vec<CellResult> = Vec::new();
        assert!(across::<CellResult>(&[&none[..]], true).is_none());
    }
}
