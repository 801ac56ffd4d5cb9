//! The views that take the whole right-hand area (in a small terminal,
//! the area of the tabs): the feature inspector, the path, the confusion
//! matrix with the profiles.

use super::theme::Theme;
use crate::tui::app::{App, Pane, Wide};
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the wide view shown now into `area` and returns the pane it
/// belongs to (clicks on it focus that pane); None when there is none.
pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<Pane> {
    match app.wide_view()? {
        Wide::Inspector => {
            super::inspector::render(f, area, app, theme);
            Some(Pane::Weights)
        }
        Wide::Path => {
            super::path::render(f, area, app, theme);
            Some(Pane::Weights)
        }
        Wide::Confusion => {
            super::confusion::render(f, area, app, theme);
            Some(Pane::Metrics)
        }
    }
}
