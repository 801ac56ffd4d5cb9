//! The confusion view as a component: the confusion matrix of the last run
//! against the labels and the per-cluster profiles, in place of the
//! Metrics pane. It owns whether it is open and how far its profile rows
//! are scrolled; `App` computes what it draws.

use super::{Component, Outcome};
use crate::data::Scaling;
use crate::tui::components::inspector::FeatureRow;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use pathfinding::prelude::{Matrix, kuhn_munkres};
use ratatui::Frame;
use ratatui::layout::Rect;
use std::cell::Cell;

/// Clusters × classes counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Confusion {
    pub classes: Vec<String>,
    /// `counts[cluster][class]`.
    pub counts: Vec<Vec<usize>>,
    /// The class each cluster is matched to (the one-to-one matching of
    /// the accuracy score); None for a cluster left without one.
    pub matched: Vec<Option<usize>>,
    /// Points in their cluster's matched class.
    pub correct: usize,
    pub n: usize,
}

/// The table of `pred` (clusters 0..) against `truth` (classes 0..,
/// named by `names`), with the best one-to-one matching.
pub fn confusion(truth: &[usize], names: &[String], pred: &[usize]) -> Confusion {
    let k = pred.iter().max().map_or(0, |m| m + 1);
    let c = truth.iter().max().map_or(0, |m| m + 1).max(names.len());
    let mut counts = vec![vec![0usize; c]; k];
    for (&t, &p) in truth.iter().zip(pred) {
        counts[p][t] += 1;
    }
    // Matched on a square table padded with zeros, as the accuracy is.
    let m = k.max(c);
    let mut matched = vec![None; k];
    let mut correct = 0;
    if m > 0 {
        let rows: Vec<Vec<i64>> = (0..m)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        counts
                            .get(i)
                            .and_then(|r| r.get(j))
                            .map_or(0, |&v| v as i64)
                    })
                    .collect()
            })
            .collect();
        if let Ok(w) = Matrix::from_rows(rows) {
            let (_, assign) = kuhn_munkres(&w);
            for (i, slot) in matched.iter_mut().enumerate() {
                let j = assign[i];
                if j < c {
                    *slot = Some(j);
                    correct += counts[i][j];
                }
            }
        }
    }
    let classes = (0..c)
        .map(|j| {
            names
                .get(j)
                .cloned()
                .unwrap_or_else(|| format!("class {j}"))
        })
        .collect();
    Confusion {
        classes,
        counts,
        matched,
        correct,
        n: truth.len().min(pred.len()),
    }
}

/// Mean of each selected feature per cluster, in the data's units after
/// scaling.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiles {
    /// The selected features, largest weight first.
    pub features: Vec<FeatureRow>,
    /// `means[feature][cluster]`; NaN for an empty cluster.
    pub means: Vec<Vec<f64>>,
    pub sizes: Vec<usize>,
}

#[derive(Debug, Default)]
pub struct ConfusionView {
    pub open: bool,
    /// First profile row shown.
    pub top: usize,
    /// Profile rows the last frame had room for: a page of the scroll.
    pub page: Cell<usize>,
}

impl ConfusionView {
    /// Opens the view at its top, or closes it.
    pub fn toggle(&mut self) {
        self.open = !self.open;
        if self.open {
            self.top = 0;
        }
    }
}

/// What the confusion view reads from the rest of the UI to draw itself.
pub struct ConfusionDraw {
    pub focused: bool,
    pub confusion: Option<Confusion>,
    /// The data have no labels (else the run has not labelled them yet).
    pub unlabelled: bool,
    pub profiles: Option<Profiles>,
    /// The data's scaling, when they are loaded.
    pub scale: Option<Scaling>,
    /// The run gave feature weights.
    pub weighted: bool,
}

impl Component for ConfusionView {
    type DrawCtx<'a> = ConfusionDraw;
    /// The number of profile rows.
    type KeyCtx<'a> = usize;
    const CONTEXT: Context = Context::Panes;

    /// The view scrolls its profile rows; the cursor is its top row.
    fn handle(&mut self, action: &Action, rows: usize) -> Outcome {
        let page = self.page.get().max(1);
        let max = (rows.saturating_sub(page) as i64).max(0);
        match action {
            Action::Move(d) => self.top = (self.top as i64 + *d as i64).clamp(0, max) as usize,
            Action::Step {
                steps,
                coarse: true,
            } => {
                let by = (*steps as i64) * page as i64;
                self.top = (self.top as i64 - by).clamp(0, max) as usize;
            }
            Action::Cancel => self.open = false,
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ConfusionDraw, theme: &Theme) {
        panes::confusion::render(f, area, self, &ctx, theme);
    }

    /// The panes' row that opens the view.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(Context::Panes, &[Action::ToggleConfusion])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_and_matching() {
        let truth = [0, 0, 0, 1, 1, 2, 2, 2];
        let pred = [1, 1, 0, 0, 0, 2, 2, 1];
        let names = ["a".to_string(), "b".into(), "c".into()];
        let c = super::confusion(&truth, &names, &pred);
        assert_eq!(c.counts, vec![vec![1, 2, 0], vec![2, 0, 1], vec![0, 0, 2]]);
        assert_eq!(c.matched, vec![Some(1), Some(0), Some(2)]);
        assert_eq!(c.correct, 6);
        // More clusters than classes: one is left unmatched.
        let c = super::confusion(&[0, 0, 1], &names[..2], &[0, 2, 1]);
        assert_eq!(c.matched.iter().filter(|m| m.is_none()).count(), 1);
        assert_eq!(c.correct, 2);
    }
}
