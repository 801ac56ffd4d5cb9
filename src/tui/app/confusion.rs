//! The confusion matrix of the last run against the labels, and the
//! per-cluster profiles (mean of each selected feature per cluster) of the
//! feature-weighted methods, computed for the confusion view
//! (`components/confusion.rs`).

use super::{App, FeatureRow, Pane};
use crate::tui::components::confusion::ConfusionDraw;
use pathfinding::prelude::{Matrix, kuhn_munkres};

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

impl App {
    /// The last run's confusion matrix, when the data have labels.
    pub fn confusion(&self) -> Option<Confusion> {
        let t = self.loaded()?.dataset.labels.as_ref()?;
        let pred = &self.view.labels;
        if pred.is_empty() || pred.len() != t.ids.len() {
            return None;
        }
        Some(confusion(&t.ids, &t.names, pred))
    }

    /// What the confusion view reads to draw itself.
    pub fn confusion_draw(&self) -> ConfusionDraw {
        ConfusionDraw {
            focused: self.focus == Pane::Metrics,
            confusion: self.confusion(),
            unlabelled: self.loaded().is_some_and(|l| l.dataset.labels.is_none()),
            profiles: self.profiles(),
            scale: self.loaded().map(|l| l.scale),
            weighted: self.view.feature_weights.is_some(),
        }
    }

    /// The per-cluster profiles of the selected features, for a run with
    /// feature weights.
    pub fn profiles(&self) -> Option<Profiles> {
        let x = self.loaded()?.dataset.x.rows();
        let labels = &self.view.labels;
        if labels.is_empty() || labels.len() != x.nrows() {
            return None;
        }
        let features: Vec<FeatureRow> = self
            .ranked_features()
            .into_iter()
            .filter(|r| r.selected && r.index < x.ncols())
            .collect();
        if features.is_empty() {
            return None;
        }
        let k = labels.iter().max().map_or(0, |m| m + 1);
        let mut sizes = vec![0usize; k];
        for &l in labels {
            sizes[l] += 1;
        }
        let means = features
            .iter()
            .map(|f| {
                let mut sum = vec![0.0; k];
                for (i, &l) in labels.iter().enumerate() {
                    sum[l] += x.get(i, f.index);
                }
                sum.iter()
                    .zip(&sizes)
                    .map(|(s, &n)| if n > 0 { s / n as f64 } else { f64::NAN })
                    .collect()
            })
            .collect();
        Some(Profiles {
            features,
            means,
            sizes,
        })
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
