//! What each pane reads to draw itself, taken from `App`: a pane never
//! sees the whole of it. Also the panes' commands for the help.

use super::{App, Pane};
use crate::tui::components::Component;
use crate::tui::components::algorithm::AlgorithmDraw;
use crate::tui::components::data::{DataDraw, DataPane, ScaleDraw};
use crate::tui::components::metrics::{MetricsDraw, MetricsPane};
use crate::tui::components::objective::{ObjectiveDraw, ObjectivePane};
use crate::tui::components::scatter::ScatterDraw;
use crate::tui::components::sizes::{SizesDraw, SizesPane};
use crate::tui::components::weights::WeightsPane;
use crate::tui::keys::{self, Context};
use crate::tui::panes;

impl App {
    pub fn data_draw(&self) -> DataDraw<'_> {
        DataDraw {
            loaded: self.loaded(),
            loading: self
                .loading
                .as_ref()
                .map(|(_, since, spec)| (spec.as_str(), since.elapsed())),
            k: self.current_k(),
            scale: ScaleDraw {
                algo: self.algo().id(),
                own: self.algo().default_scaling(),
                now: self.scale,
                chosen: self.scale_chosen,
            },
            focused: self.focus == Pane::Data,
        }
    }

    pub fn algorithm_draw(&self) -> AlgorithmDraw<'_> {
        AlgorithmDraw {
            algos: &self.algos,
            chosen: self.algo_idx,
            focused: self.focus == Pane::Algorithm,
        }
    }

    pub fn objective_draw(&self) -> ObjectiveDraw<'_> {
        ObjectiveDraw {
            view: &self.view,
            status: &self.status,
            loading: self.loading.is_some(),
            focused: self.focus == Pane::Objective,
        }
    }

    pub fn scatter_draw(&self) -> ScatterDraw<'_> {
        ScatterDraw {
            data: self.data.as_ref(),
            labels: &self.view.labels,
            k: self.view.sizes.len(),
            carried: self.view.carried,
            focused: self.focus == Pane::Scatter,
        }
    }

    pub fn sizes_draw(&self) -> SizesDraw<'_> {
        SizesDraw {
            view: &self.view,
            focused: self.focus == Pane::Sizes,
        }
    }

    pub fn metrics_draw(&self) -> MetricsDraw<'_> {
        MetricsDraw {
            view: &self.view,
            status: &self.status,
            restarts: self.restarts,
            unlabelled: self.loaded().is_some_and(|l| l.dataset.labels.is_none()),
            focused: self.focus == Pane::Metrics,
        }
    }

    /// What the Feature weights pane (and the inspector) say when the
    /// run has no weights to draw.
    pub fn no_weights(&self) -> String {
        let p = self.loaded().map_or(0, |l| l.dataset.p());
        panes::weights::no_weights(self.algo(), p, &self.status, self.view.elapsed)
    }

    /// The help's panes section: what each pane and the views it holds
    /// list, and the keys `App` takes wherever the focus is, each row
    /// once, in the key table's order.
    pub fn panes_commands(&self) -> Vec<(String, &'static str)> {
        let listed = [
            super::pane_keys::own_commands(),
            DataPane.commands(),
            self.panes.algorithm.commands(),
            self.panes.parameters.commands(),
            ObjectivePane.commands(),
            self.panes.scatter.commands(),
            SizesPane.commands(),
            WeightsPane.commands(),
            MetricsPane.commands(),
            self.path.commands(),
            self.inspector.commands(),
            self.confusion_view.commands(),
            self.history.commands(),
        ]
        .concat();
        keys::in_table_order(Context::Panes, &listed)
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::keys::{self, Context};

    /// Every row of the panes' keys is listed by a pane, a view it holds
    /// or `App`: the help loses none, and lists none twice.
    #[test]
    fn the_panes_list_every_row_of_their_keys() {
        use crate::tui::components::*;
        let panes = Panes::default();
        let listed = [
            super::super::pane_keys::own_commands(),
            data::DataPane.commands(),
            panes.algorithm.commands(),
            panes.parameters.commands(),
            objective::ObjectivePane.commands(),
            panes.scatter.commands(),
            sizes::SizesPane.commands(),
            weights::WeightsPane.commands(),
            metrics::MetricsPane.commands(),
            path::PathPane::default().commands(),
            inspector::Inspector::default().commands(),
            confusion::ConfusionView::default().commands(),
            crate::tui::app::history::History::default().commands(),
        ]
        .concat();
        let all = keys::help_rows(Context::Panes);
        assert_eq!(keys::in_table_order(Context::Panes, &listed), all);
    }
}
