use super::theme::Theme;
use super::{block, clip};
use crate::tui::app::Pane;
use crate::tui::components::algorithm::AlgorithmDraw;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(f: &mut Frame, area: Rect, cursor: usize, ctx: AlgorithmDraw<'_>, theme: &Theme) {
    let focused = ctx.focused;
    let w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let n = ctx.algos.len();
    // Keep the cursor in view.
    let first = cursor
        .saturating_sub(rows.saturating_sub(1))
        .min(n.saturating_sub(rows.max(1)));
    let lines: Vec<Line> = ctx
        .algos
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, a)| {
            let mark = if i == ctx.chosen { "● " } else { "  " };
            let text = clip(&format!("{mark}{:<14} {}", a.id(), a.name()), w);
            let style = if i == cursor && focused {
                theme.selected()
            } else if i == ctx.chosen {
                theme.accent()
            } else {
                ratatui::style::Style::default()
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let below = n.saturating_sub(first + rows);
    let more = match (first, below) {
        (0, 0) => String::new(),
        (0, b) => format!(" ↓ {b} more "),
        (a, 0) => format!(" ↑ {a} more "),
        (a, b) => format!(" ↑ {a} · ↓ {b} more "),
    };
    let mut b = block(Pane::Algorithm, focused, theme, "", area.width);
    if !more.is_empty() {
        b = b.title_bottom(Line::from(Span::styled(more, theme.accent())).right_aligned());
    }
    f.render_widget(Paragraph::new(lines).block(b), area);
}
