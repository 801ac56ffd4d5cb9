//! The confusion matrix of the last run against the labels, and the
//! per-cluster profiles (mean of each selected feature per cluster) of the
//! feature-weighted methods, computed for the confusion view
//! (`components/confusion.rs`).

use super::{App, FeatureRow, Pane};
use crate::tui::components::confusion::{Confusion, ConfusionDraw, Profiles, confusion};

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
