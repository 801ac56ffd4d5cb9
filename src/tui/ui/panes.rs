//! Each pane drawn from what it reads of `App` (`app/pane_draw.rs`), and
//! the views drawn over or in place of the panes: the wide views, the
//! options list, the sweep.

use crate::tui::app::{App, Pane, Wide};
use crate::tui::components::Component;
use crate::tui::components::controls::ControlsCtx;
use crate::tui::components::data::DataPane;
use crate::tui::components::inspector::InspectorView;
use crate::tui::components::metrics::MetricsPane;
use crate::tui::components::objective::ObjectivePane;
use crate::tui::components::parameters::ParamsDraw;
use crate::tui::components::sizes::SizesPane;
use crate::tui::components::sweep::SweepNow;
use crate::tui::components::weights::{WeightsDraw, WeightsPane};
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

pub fn data(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    DataPane.draw(f, area, app.data_draw(), theme);
}

pub fn algorithm(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    app.panes
        .algorithm
        .draw(f, area, app.algorithm_draw(), theme);
}

/// The sliders; returns the screen row of each, for the mouse.
pub fn parameters(f: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Vec<(usize, Rect)> {
    let sliders = app.sliders();
    let kernel = app.kernel_shown();
    let marks = app.marks();
    let ctx = ParamsDraw {
        sliders: &sliders,
        kernel: kernel.as_ref().map(|(k, uses)| (k.as_str(), *uses)),
        marks: &marks,
        focused: app.focus == Pane::Parameters,
    };
    app.panes.parameters.draw_hits(f, area, ctx, theme)
}

/// A right-hand pane (or the History), or the wide view shown in place of
/// the Weights or Metrics pane.
pub fn right(f: &mut Frame, p: Pane, r: Rect, app: &App, theme: &Theme) {
    if matches!(p, Pane::Weights | Pane::Metrics) && wide(f, r, app, theme).is_some() {
        return;
    }
    match p {
        Pane::Objective => objective(f, r, app, theme),
        Pane::Scatter => app.panes.scatter.draw(f, r, app.scatter_draw(), theme),
        Pane::Sizes => SizesPane.draw(f, r, app.sizes_draw(), theme),
        Pane::Weights => weights(f, r, app, theme),
        Pane::Metrics => MetricsPane.draw(f, r, app.metrics_draw(), theme),
        Pane::History => app.history.draw(f, r, app.focus == Pane::History, theme),
        _ => {}
    }
}

pub fn objective(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    ObjectivePane.draw(f, area, app.objective_draw(), theme);
}

/// The Feature weights pane, or the path in its place when shown.
pub fn weights(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if app.path.shown {
        return app.path.draw(f, area, app.path_draw(), theme);
    }
    let empty = app.no_weights();
    let ctx = WeightsDraw {
        view: &app.view,
        names: app.loaded().map_or(&[], |l| &l.dataset.feature_names),
        empty: &empty,
        focused: app.focus == Pane::Weights,
    };
    WeightsPane.draw(f, area, ctx, theme);
}

/// Draws the wide view shown now (the feature inspector, the path, the
/// confusion matrix with the profiles) into `area` and returns the pane it
/// belongs to (clicks on it focus that pane); None when there is none.
pub fn wide(f: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<Pane> {
    match app.wide_view()? {
        Wide::Inspector => {
            inspector(f, area, app, theme);
            Some(Pane::Weights)
        }
        Wide::Path => {
            app.path.draw(f, area, app.path_draw(), theme);
            Some(Pane::Weights)
        }
        Wide::Confusion => {
            app.confusion_view
                .draw(f, area, app.confusion_draw(), theme);
            Some(Pane::Metrics)
        }
    }
}

fn inspector(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let all = app.ranked_features();
    let rows = app.feature_rows();
    let weights = app.view.feature_weights.clone().unwrap_or_default();
    let empty = if all.is_empty() {
        app.no_weights()
    } else {
        String::new()
    };
    let ctx = InspectorView {
        all: &all,
        rows: &rows,
        filter: app.feature_filter(),
        weights: &weights,
        empty: &empty,
        focused: app.focus == Pane::Weights,
    };
    app.inspector.draw(f, area, ctx, theme);
}

/// The list of controls (O) over the panes, when open.
pub fn controls(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if app.controls_view.open {
        let controls = app.controls();
        let ctx = ControlsCtx {
            controls: &controls,
            algo: app.algo().id(),
        };
        app.controls_view.draw(f, area, ctx, theme);
    }
}

/// The sweep view, with how the settings now stand against the sweep's.
pub fn sweep(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let stale = app.sweep_stale();
    let same_data = !stale.is_empty() && app.sweep_same_data();
    app.sweep.draw(
        f,
        area,
        SweepNow {
            stale: &stale,
            same_data,
        },
        theme,
    );
}
