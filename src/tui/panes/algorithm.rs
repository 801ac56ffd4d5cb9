use super::{block, clip};
use crate::tui::app::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Algorithm;
    let w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let n = app.algos.len();
    // Keep the cursor in view.
    let first = app
        .algo_cursor
        .saturating_sub(rows.saturating_sub(1))
        .min(n.saturating_sub(rows.max(1)));
    let lines: Vec<Line> = app
        .algos
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, a)| {
            let mark = if i == app.algo_idx { "● " } else { "  " };
            let text = clip(&format!("{mark}{:<14} {}", a.id(), a.name()), w);
            let style = if i == app.algo_cursor && focused {
                theme.selected()
            } else if i == app.algo_idx {
                theme.accent()
            } else {
                ratatui::style::Style::default()
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Algorithm, focused, theme, "", area.width)),
        area,
    );
}
