//! The feature-selection inspector: every feature of the last run by
//! rank, name, weight and selected flag, largest weight first, filtered by
//! a part of its name, with the all-features strip (one cell per group of
//! columns) below. `App` ranks the features and writes the selected names
//! to a file; the inspector keeps its cursor, scroll and filter.

use super::{Component, Outcome, Request};
use crate::tui::app::prompt::{Prompt, PromptKind};
use crate::tui::keys::{self, Action, Context, Pane};
use crate::tui::panes::theme::Theme;
use crate::tui::panes::weight_fmt::{short, strip};
use crate::tui::panes::{bar, block, clip, fit_parts, wrap};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::cell::Cell;

/// One feature as the inspector lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureRow {
    /// Column of the feature in the data.
    pub index: usize,
    /// 1 for the largest weight.
    pub rank: usize,
    pub name: String,
    pub weight: f64,
    pub selected: bool,
}

/// Moves `cursor` by `d` within `n` rows and keeps it inside the `page`
/// rows shown from `top`.
fn scroll(cursor: &mut usize, top: &mut usize, d: i32, n: usize, page: usize) {
    if n == 0 {
        *cursor = 0;
        *top = 0;
        return;
    }
    *cursor = (*cursor as i64 + d as i64).clamp(0, n as i64 - 1) as usize;
    let page = page.max(1);
    if *cursor < *top {
        *top = *cursor;
    } else if *cursor >= *top + page {
        *top = *cursor + 1 - page;
    }
}

#[derive(Debug, Default)]
pub struct Inspector {
    pub open: bool,
    /// Highlighted row of the (filtered) list.
    pub cursor: usize,
    /// First row shown.
    pub top: usize,
    pub filter: String,
    /// Rows shown at the last frame: a page for PgUp/PgDn.
    pub page: Cell<usize>,
}

impl Inspector {
    /// Back to the first row (the list changed under the cursor).
    pub fn to_top(&mut self) {
        self.cursor = 0;
        self.top = 0;
    }
}

/// What the inspector reads to take a key.
#[derive(Clone, Copy)]
pub struct InspectorKeys<'a> {
    /// Rows of the filtered list.
    pub rows: usize,
    /// Features selected by the last run.
    pub selected: usize,
    /// The dataset's and algorithm's name, for the export's file name.
    pub base: &'a str,
}

/// What the inspector draws.
#[derive(Clone, Copy)]
pub struct InspectorView<'a> {
    /// Every feature, largest weight first.
    pub all: &'a [FeatureRow],
    /// Those whose name contains the filter.
    pub rows: &'a [FeatureRow],
    /// The filter (the search prompt's text while it is typed).
    pub filter: &'a str,
    /// The last run's feature weights, in column order.
    pub weights: &'a [f64],
    /// What to say when there are no weights.
    pub empty: &'a str,
    pub focused: bool,
}

impl Component for Inspector {
    type DrawCtx<'a> = InspectorView<'a>;
    type KeyCtx<'a> = InspectorKeys<'a>;
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, ctx: InspectorKeys<'_>) -> Outcome {
        let n = ctx.rows;
        // Before the first frame the page is not known: about ten rows.
        let page = match self.page.get() {
            0 => 10,
            n => n,
        };
        match action {
            Action::Move(d) => scroll(&mut self.cursor, &mut self.top, *d, n, page),
            // PgUp is a coarse step up (+1).
            Action::Step {
                steps,
                coarse: true,
            } => scroll(
                &mut self.cursor,
                &mut self.top,
                -steps * page as i32,
                n,
                page,
            ),
            Action::Step { .. } => {}
            Action::Cancel if !self.filter.is_empty() => {
                self.filter.clear();
                self.to_top();
            }
            Action::Cancel => self.open = false,
            Action::ExportPrompt => {
                return Outcome::Request(Request::Prompt(Prompt {
                    kind: PromptKind::ExportNames,
                    text: format!("{}-selected.txt", ctx.base),
                    hint: format!("file for the {} selected names, one a line", ctx.selected),
                }));
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    /// The keys that open the inspector and filter it.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(
            Context::Panes,
            &[Action::ToggleInspector, Action::SearchPrompt],
        )
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: InspectorView<'_>, theme: &Theme) {
        let focused = ctx.focused;
        let w = area.width.saturating_sub(2) as usize;
        let h = area.height.saturating_sub(2) as usize;
        let all = ctx.all;
        if all.is_empty() {
            return draw_empty(f, area, &ctx, theme);
        }
        let rows = ctx.rows;
        let p = all.len();
        let selected = all.iter().filter(|r| r.selected).count();
        let mut lines = vec![head_line(&ctx, selected, w, theme)];
        let weights = ctx.weights;
        // The strip takes a caption and one line when there is room.
        let strip_rows = if h >= 8 { 2 } else { 0 };
        let list_h = h.saturating_sub(2 + strip_rows);
        self.page.set(list_h.max(1));
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
        let top = self.top.min(rows.len().saturating_sub(list_h.max(1)));
        if rows.is_empty() {
            lines.push(Line::from(Span::styled(
                "no feature name contains the filter",
                theme.dim(),
            )));
        }
        for (i, r) in rows.iter().enumerate().skip(top).take(list_h) {
            let mut line = feature_line(r, [rank_w, name_w, bar_w], max, theme);
            if i == self.cursor {
                line = line.style(theme.selected());
            }
            lines.push(line);
        }
        if strip_rows > 0 {
            while lines.len() < h - strip_rows {
                lines.push(Line::from(""));
            }
            let shown = (top, rows.len().min(list_h), rows.len());
            lines.extend(strip_lines(weights, shown, w, theme));
        }
        let extra = format!("inspector · {selected}/{p}");
        f.render_widget(
            Paragraph::new(lines).block(block(Pane::Weights, focused, theme, &extra, area.width)),
            area,
        );
    }
}

/// The inspector before the run has weights (or for one that gives none).
fn draw_empty(f: &mut Frame, area: Rect, ctx: &InspectorView, theme: &Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let text: Vec<Line> = wrap(&theme.text(ctx.empty), w)
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.dim())))
        .collect();
    let b = block(Pane::Weights, ctx.focused, theme, "inspector", area.width);
    f.render_widget(Paragraph::new(text).block(b), area);
}

/// The strip of every feature in column order, under its caption: the
/// rows of the list in view (`shown`: the first, how many, of how many).
fn strip_lines(
    weights: &[f64],
    (top, shown, n): (usize, usize, usize),
    w: usize,
    theme: &Theme,
) -> [Line<'static>; 2] {
    let p = weights.len();
    let caption = format!(
        "rows {}-{} of {n} · all {p} features in column order (blank = dropped):",
        (top + 1).min(n),
        top + shown,
    );
    [
        Line::from(Span::styled(clip(&theme.text(&caption), w), theme.dim())),
        Line::from(Span::styled(strip(weights, w, theme.ascii), theme.good())),
    ]
}

/// The first line: how many are selected, the filter's matches, the keys.
fn head_line(ctx: &InspectorView, selected: usize, w: usize, theme: &Theme) -> Line<'static> {
    let p = ctx.all.len();
    let filter = ctx.filter.trim();
    let mut head = vec![format!("{selected} of {p} selected")];
    if !filter.is_empty() {
        head.push(format!("filter \"{filter}\": {} of {p}", ctx.rows.len()));
    }
    head.push("/ filter".into());
    head.push("e export the selected names".into());
    head.push("Esc closes".into());
    Line::from(Span::styled(
        theme.text(&fit_parts(&head, w)).into_owned(),
        theme.accent(),
    ))
}

/// A feature's row: rank, name, weight, ✓ when selected, and a bar when
/// there are four cells for it. `widths`: of the rank, name and bar.
fn feature_line(r: &FeatureRow, widths: [usize; 3], max: f64, theme: &Theme) -> Line<'static> {
    let [rank_w, name_w, bar_w] = widths;
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
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    #[test]
    fn scrolling_keeps_the_cursor_in_view() {
        let (mut c, mut t) = (0, 0);
        super::scroll(&mut c, &mut t, 5, 20, 4);
        assert_eq!((c, t), (5, 2));
        super::scroll(&mut c, &mut t, -4, 20, 4);
        assert_eq!((c, t), (1, 1));
        super::scroll(&mut c, &mut t, 100, 20, 4);
        assert_eq!((c, t), (19, 16));
        super::scroll(&mut c, &mut t, 1, 0, 4);
        assert_eq!((c, t), (0, 0));
    }
}
