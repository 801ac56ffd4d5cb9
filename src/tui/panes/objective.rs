//! The objective (and the annealing exponent s) per iteration of the
//! current run, scaled to that run alone; the previous run is drawn only
//! where it falls inside, as dots, so the two differ without colour.

use super::theme::Theme;
use super::{bar, block, inner, wrap};
use crate::report::fmt_sig;
use crate::tui::app::{CurvePoint, Pane, RunStatus};
use crate::tui::components::objective::ObjectiveDraw;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

/// An axis over the values that occur: bounds are the smallest and largest
/// value (a flat series gets a sliver around it), labels are those values.
struct Range {
    bounds: [f64; 2],
    labels: Vec<String>,
}

/// A value for an axis label: six significant digits, no trailing zeros
/// (-1, not -1.00000).
fn label(v: f64) -> String {
    let s = fmt_sig(v);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn range(values: impl Iterator<Item = f64>) -> Option<Range> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return None;
    }
    if lo == hi {
        let pad = (lo.abs() * 1e-6).max(1e-12);
        // Three labels put the one value in the middle, where it is drawn.
        return Some(Range {
            bounds: [lo - pad, hi + pad],
            labels: vec![String::new(), label(lo), String::new()],
        });
    }
    Some(Range {
        bounds: [lo, hi],
        labels: vec![label(lo), label(hi)],
    })
}

fn inside(b: [f64; 2], v: f64) -> bool {
    v >= b[0] && v <= b[1]
}

/// The current run's marker and the previous run's: lines of Braille dots
/// against single dots (ASCII: `*` against `.`).
pub fn markers(theme: &Theme) -> (Marker, Marker) {
    if theme.ascii {
        (Marker::Custom('*'), Marker::Custom('.'))
    } else {
        (Marker::Braille, Marker::Dot)
    }
}

/// What the pane says while the run has no iteration to draw.
fn waiting(ctx: &ObjectiveDraw) -> String {
    if let Some((label, done)) = &ctx.view.stage {
        return format!("{label}: {:.0}%", done * 100.0);
    }
    match ctx.status {
        RunStatus::Running => format!(
            "running for {}; no iteration reported yet",
            crate::numfmt::duration(ctx.view.elapsed.as_secs_f64())
        ),
        RunStatus::Pending(_) => "starting".into(),
        RunStatus::Cancelled => "cancelled before its first iteration".into(),
        RunStatus::Error(_) => "the run failed: see the status line".into(),
        _ if ctx.loading => "loading the data".into(),
        _ => "no run yet".into(),
    }
}

/// The iteration axis both charts share, and the width of their value
/// labels (the same on both, so that their iteration axes line up).
struct Axes {
    first: usize,
    last: usize,
    x: [f64; 2],
    lw: usize,
}

impl Axes {
    fn x_axis(&self, labelled: bool, theme: &Theme) -> Axis<'static> {
        let (first, last) = (self.first, self.last);
        let labels = if !labelled {
            vec![]
        } else if last > first {
            vec![
                Line::from(first.to_string()),
                Line::from(format!("{last} iter")),
            ]
        } else {
            vec![
                Line::from(""),
                Line::from(format!("{last} iter")),
                Line::from(""),
            ]
        };
        Axis::default()
            .bounds(self.x)
            .labels(labels)
            .style(theme.dim())
    }

    fn y_axis(&self, r: &Range, theme: &Theme) -> Axis<'static> {
        let lw = self.lw;
        let labels: Vec<Line<'static>> = r
            .labels
            .iter()
            .map(|l| Line::from(format!("{l:>lw$}")))
            .collect();
        Axis::default()
            .bounds(r.bounds)
            .labels(labels)
            .style(theme.dim())
    }
}

/// The pane while the run has no iteration: what it is doing, and the
/// stage's progress.
fn render_waiting(f: &mut Frame, area: Rect, ctx: &ObjectiveDraw, theme: &Theme) {
    let body = inner(area);
    f.render_widget(
        block(Pane::Objective, ctx.focused, theme, "", area.width),
        area,
    );
    let mut lines: Vec<Line> = wrap(&theme.text(&waiting(ctx)), body.width as usize)
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.dim())))
        .collect();
    if let Some((_, done)) = &ctx.view.stage {
        lines.push(Line::from(Span::styled(
            bar(*done, body.width as usize, theme),
            theme.warn(),
        )));
    }
    f.render_widget(Paragraph::new(lines), body);
}

/// Title parts, most needed first: what the dots are, the value now,
/// what the lower chart is; those that do not fit are left out.
fn title(previous: bool, now: &str, has_s: bool, theme: &Theme) -> String {
    let mut parts = Vec::new();
    if previous {
        parts.push(if theme.color {
            "grey: previous run"
        } else if theme.ascii {
            ". previous run"
        } else {
            "• previous run"
        });
    }
    parts.push(now);
    if has_s {
        parts.push("below: s");
    }
    parts.join(" · ")
}

/// The objective's line over the previous run's dots (when any).
fn objective_sets<'a>(
    before: &'a [(f64, f64)],
    now: &'a [(f64, f64)],
    theme: &Theme,
) -> Vec<Dataset<'a>> {
    let (now_marker, prev_marker) = markers(theme);
    let mut sets = Vec::new();
    if !before.is_empty() {
        sets.push(
            Dataset::default()
                .name("previous")
                .marker(prev_marker)
                .graph_type(GraphType::Scatter)
                .style(theme.dim())
                .data(before),
        );
    }
    sets.push(
        Dataset::default()
            .name("objective")
            .marker(now_marker)
            .graph_type(GraphType::Line)
            .style(theme.accent())
            .data(now),
    );
    sets
}

pub fn render(f: &mut Frame, area: Rect, ctx: ObjectiveDraw, theme: &Theme) {
    let focused = ctx.focused;
    let curve = &ctx.view.curve;
    if curve.is_empty() {
        return render_waiting(f, area, &ctx, theme);
    }
    let body = inner(area);
    let pts = |c: &[CurvePoint]| -> Vec<(f64, f64)> {
        c.iter().map(|p| (p.iter as f64, p.objective)).collect()
    };
    let now = pts(curve);
    let first = curve.first().map_or(0, |p| p.iter);
    let last = curve.last().map_or(1, |p| p.iter);
    let x = if last > first {
        [first as f64, last as f64]
    } else {
        [first as f64 - 0.5, first as f64 + 0.5]
    };
    let y = range(now.iter().map(|p| p.1)).unwrap_or(Range {
        bounds: [0.0, 1.0],
        labels: vec![],
    });
    // Only the part of the previous run that falls in this run's window.
    let before: Vec<(f64, f64)> = pts(&ctx.view.previous)
        .into_iter()
        .filter(|p| inside(x, p.0) && inside(y.bounds, p.1))
        .collect();
    let s: Vec<(f64, f64)> = curve
        .iter()
        .filter_map(|p| p.s.map(|s| (p.iter as f64, s)))
        .collect();
    let has_s = !s.is_empty() && body.height >= 10;
    let (now_marker, _) = markers(theme);
    let now_text = format!(
        "{} at iter {last}",
        label(curve.last().map_or(f64::NAN, |p| p.objective))
    );
    let extra = title(!before.is_empty(), &now_text, has_s, theme);
    f.render_widget(
        block(Pane::Objective, focused, theme, &extra, area.width),
        area,
    );
    let [top, bottom] = if has_s {
        Layout::vertical([Constraint::Percentage(68), Constraint::Percentage(32)]).areas(body)
    } else {
        [body, Rect::default()]
    };
    let sr = range(s.iter().map(|p| p.1));
    let lw = y
        .labels
        .iter()
        .chain(sr.iter().flat_map(|r| r.labels.iter()))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let axes = Axes { first, last, x, lw };
    let chart = Chart::new(objective_sets(&before, &now, theme))
        .x_axis(axes.x_axis(!has_s, theme))
        .y_axis(axes.y_axis(&y, theme))
        .legend_position(None);
    f.render_widget(chart, top);
    if let (true, Some(sr)) = (has_s, sr) {
        let chart = Chart::new(vec![
            Dataset::default()
                .name("s")
                .marker(now_marker)
                .graph_type(GraphType::Line)
                .style(theme.warn())
                .data(&s),
        ])
        .x_axis(axes.x_axis(true, theme))
        .y_axis(axes.y_axis(&sr, theme))
        .legend_position(None);
        f.render_widget(chart, bottom);
    }
}
