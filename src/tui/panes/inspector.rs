//! The feature-selection inspector: every feature by rank, name, weight
//! and selected flag, largest weight first, filtered by name, with the
//! all-features strip (one cell per group of columns) below.

use super::theme::Theme;
use super::weights::{short, strip};
use super::{bar, block, clip, fit_parts};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Weights;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let all = app.ranked_features();
    if all.is_empty() {
        // A new run has not produced its weights yet, or gives none.
        let text: Vec<Line> = super::wrap(&theme.text(&super::weights::no_weights(app)), w)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim())))
            .collect();
        f.render_widget(
            Paragraph::new(text).block(block(
                Pane::Weights,
                focused,
                theme,
                "inspector",
                area.width,
            )),
            area,
        );
        return;
    }
    let rows = app.feature_rows();
    let p = all.len();
    let selected = all.iter().filter(|r| r.selected).count();
    let filter = app.feature_filter();
    let mut head = vec![format!("{selected} of {p} selected")];
    if !filter.trim().is_empty() {
        head.push(format!(
            "filter \"{}\": {} of {p}",
            filter.trim(),
            rows.len()
        ));
    }
    head.push("/ filter".into());
    head.push("e export the selected names".into());
    head.push("Esc closes".into());
    let mut lines = vec![Line::from(Span::styled(
        theme.text(&fit_parts(&head, w)).into_owned(),
        theme.accent(),
    ))];
    let weights: Vec<f64> = app.view.feature_weights.clone().unwrap_or_default();
    // The strip takes a caption and one line when there is room.
    let strip_rows = if h >= 8 { 2 } else { 0 };
    let list_h = h.saturating_sub(2 + strip_rows);
    app.features.page.set(list_h.max(1));
    let rank_w = p.to_string().len().max(4);
    let name_w = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, w.saturating_sub(rank_w + 18).max(4));
    let bar_w = w.saturating_sub(rank_w + name_w + 16);
    lines.push(Line::from(Span::styled(
        clip(
            &format!(
                "{:>rank_w$} {:<name_w$} {:>8} sel",
                "rank", "feature", "weight"
            ),
            w,
        ),
        theme.dim(),
    )));
    let max = weights
        .iter()
        .cloned()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(1e-300);
    let top = app
        .features
        .top
        .min(rows.len().saturating_sub(list_h.max(1)));
    if rows.is_empty() {
        lines.push(Line::from(Span::styled(
            "no feature name contains the filter",
            theme.dim(),
        )));
    }
    for (i, r) in rows.iter().enumerate().skip(top).take(list_h) {
        let mark = if r.selected {
            theme.text("✓")
        } else {
            " ".into()
        };
        let name = theme.text(&r.name).into_owned();
        let mut spans = vec![Span::raw(format!(
            "{:>rank_w$} {:<name_w$} {:>8}  {mark} ",
            r.rank,
            clip(&name, name_w),
            short(r.weight)
        ))];
        if bar_w >= 4 {
            let style = if r.selected {
                theme.good()
            } else {
                theme.dim()
            };
            spans.push(Span::styled(bar(r.weight / max, bar_w, theme), style));
        }
        let mut line = Line::from(spans);
        if i == app.features.cursor {
            line = line.style(theme.selected());
        }
        lines.push(line);
    }
    if strip_rows > 0 {
        while lines.len() < h - strip_rows {
            lines.push(Line::from(""));
        }
        let shown = rows.len().min(list_h);
        let caption = format!(
            "rows {}-{} of {} · all {p} features in column order (blank = dropped):",
            (top + 1).min(rows.len()),
            top + shown,
            rows.len()
        );
        lines.push(Line::from(Span::styled(
            clip(&theme.text(&caption), w),
            theme.dim(),
        )));
        lines.push(Line::from(Span::styled(
            strip(&weights, w, theme.ascii),
            theme.good(),
        )));
    }
    let extra = format!("inspector · {selected}/{p}");
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Weights, focused, theme, &extra, area.width)),
        area,
    );
}
