//! The views that take the whole right-hand area (in a small terminal,
//! the area of the tabs): the feature inspector, the path, the confusion
//! matrix with the profiles.

use super::theme::Theme;
use crate::tui::app::{App, Pane, Wide};
use crate::tui::components::Component;
use crate::tui::components::inspector::InspectorView;
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the wide view shown now into `area` and returns the pane it
/// belongs to (clicks on it focus that pane); None when there is none.
pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<Pane> {
    match app.wide_view()? {
        Wide::Inspector => {
            let all = app.ranked_features();
            let rows = app.feature_rows();
            let weights = app.view.feature_weights.clone().unwrap_or_default();
            let empty = if all.is_empty() {
                super::weights::no_weights(app)
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
