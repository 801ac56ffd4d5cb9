use super::{block, inner};
use crate::report::fmt_sig;
use crate::tui::app::{App, CurvePoint, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

fn bounds(values: impl Iterator<Item = f64>) -> Option<[f64; 2]> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return None;
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-9).max(1e-12);
    Some([lo - pad, hi + pad])
}

fn marker(theme: &Theme) -> Marker {
    if theme.ascii {
        Marker::Custom('*')
    } else {
        Marker::Braille
    }
}

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Objective;
    let curve = &app.view.curve;
    let prev = &app.view.previous;
    let last = curve.last();
    let mut extra = match last {
        Some(p) => format!("f {} at iter {}", fmt_sig(p.objective), p.iter),
        None => String::new(),
    };
    if curve.iter().any(|p| p.s.is_some()) {
        extra.push_str(" · below: s");
    }
    if !prev.is_empty() {
        extra.push_str(" · grey: previous run");
    }
    f.render_widget(
        block(Pane::Objective, focused, theme, &extra, area.width),
        area,
    );
    let body = inner(area);
    if curve.is_empty() && prev.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled("waiting for the first iteration", theme.dim())),
            body,
        );
        return;
    }
    let has_s = curve.iter().any(|p| p.s.is_some()) && body.height >= 10;
    let [top, bottom] = if has_s {
        Layout::vertical([Constraint::Percentage(68), Constraint::Percentage(32)]).areas(body)
    } else {
        [body, Rect::default()]
    };
    let pts = |c: &[CurvePoint]| -> Vec<(f64, f64)> {
        c.iter().map(|p| (p.iter as f64, p.objective)).collect()
    };
    let now = pts(curve);
    let before = pts(prev);
    let max_iter = curve
        .iter()
        .chain(prev.iter())
        .map(|p| p.iter)
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let y = bounds(now.iter().chain(before.iter()).map(|p| p.1)).unwrap_or([0.0, 1.0]);
    let s: Vec<(f64, f64)> = curve
        .iter()
        .filter_map(|p| p.s.map(|s| (p.iter as f64, s)))
        .collect();
    let sb = bounds(s.iter().map(|p| p.1)).unwrap_or([-1.0, 0.0]);
    // Same label width on both charts, so their time axes line up.
    let mut ylabels = [fmt_sig(y[0]), fmt_sig(y[1]), fmt_sig(sb[0]), fmt_sig(sb[1])];
    let lw = if has_s {
        ylabels.iter().map(|l| l.len()).max().unwrap_or(0)
    } else {
        0
    };
    for l in ylabels.iter_mut() {
        *l = format!("{l:>lw$}");
    }
    let mut sets = Vec::new();
    if !before.is_empty() {
        sets.push(
            Dataset::default()
                .name("previous")
                .marker(marker(theme))
                .graph_type(GraphType::Line)
                .style(theme.dim())
                .data(&before),
        );
    }
    sets.push(
        Dataset::default()
            .name("objective")
            .marker(marker(theme))
            .graph_type(GraphType::Line)
            .style(theme.accent())
            .data(&now),
    );
    let x_axis = Axis::default()
        .bounds([1.0, max_iter])
        .labels(if has_s {
            vec![]
        } else {
            vec![
                Line::from("1"),
                Line::from(format!("{}", max_iter as usize)),
            ]
        })
        .style(theme.dim());
    let chart = Chart::new(sets)
        .x_axis(x_axis)
        .y_axis(
            Axis::default()
                .bounds(y)
                .labels(vec![
                    Line::from(ylabels[0].clone()),
                    Line::from(ylabels[1].clone()),
                ])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, top);
    if has_s {
        let chart = Chart::new(vec![
            Dataset::default()
                .name("s")
                .marker(marker(theme))
                .graph_type(GraphType::Line)
                .style(theme.warn())
                .data(&s),
        ])
        .x_axis(
            Axis::default()
                .bounds([1.0, max_iter])
                .labels(vec![
                    Line::from("1"),
                    Line::from(format!("{} iter", max_iter as usize)),
                ])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds(sb)
                .labels(vec![
                    Line::from(ylabels[2].clone()),
                    Line::from(ylabels[3].clone()),
                ])
                .style(theme.dim()),
        )
        .legend_position(None);
        f.render_widget(chart, bottom);
    }
}
