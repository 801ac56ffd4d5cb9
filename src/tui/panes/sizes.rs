use super::theme::Theme;
use super::{bar, block};
use crate::tui::app::Pane;
use crate::tui::components::sizes::SizesDraw;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(f: &mut Frame, area: Rect, ctx: SizesDraw, theme: &Theme) {
    let focused = ctx.focused;
    let sizes = &ctx.view.sizes;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let max = sizes.iter().copied().max().unwrap_or(0).max(1);
    let total: usize = sizes.iter().sum();
    let num_w = max.to_string().len();
    let bar_w = w.saturating_sub(num_w + 5).max(1);
    let mut lines: Vec<Line> = Vec::new();
    let shown = if sizes.len() > h {
        h.saturating_sub(1)
    } else {
        sizes.len()
    };
    for (j, &c) in sizes.iter().enumerate().take(shown) {
        let label = if theme.color {
            format!("{j:>2} ")
        } else {
            format!("{}{j:<1} ", theme.cluster_mark(j))
        };
        lines.push(Line::from(vec![
            Span::raw(label),
            Span::styled(bar(c as f64 / max as f64, bar_w, theme), theme.cluster(j)),
            Span::raw(format!(" {c:>num_w$}")),
        ]));
    }
    if shown < sizes.len() {
        let empty = sizes.iter().filter(|&&c| c == 0).count();
        lines.push(Line::from(Span::styled(
            format!("… {} more clusters ({empty} empty)", sizes.len() - shown),
            theme.dim(),
        )));
    }
    if sizes.is_empty() {
        lines.push(Line::from(Span::styled("no run yet", theme.dim())));
    }
    let extra = match (total > 0, ctx.view.carried) {
        (true, true) => format!("previous run · n={total}"),
        (true, false) => format!("n={total}"),
        _ => String::new(),
    };
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Sizes, focused, theme, &extra, area.width)),
        area,
    );
}
