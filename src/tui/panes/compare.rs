//! The History's compare view of the two pinned runs A and B: the
//! settings that differ, the scores with B − A where the two measure the
//! same thing (else why not: "objectives not comparable: s0 differs"),
//! the Jaccard index of the selected feature sets, both objective curves
//! (A a line, B dots, so they differ without colour; on shared axes only
//! when comparable), and the cluster sizes side by side.

use super::fmt_ms;
use super::theme::Theme;
use super::{bar, block, clip, inner};
use crate::algo::params::fmt_num;
use crate::numfmt::fit;
use crate::report::fmt_sig;
use crate::tui::app::history::{Diff, Entry, Score, diff};
use crate::tui::keys::Pane;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

/// Width of a value column of the score table.
const VW: usize = 10;

fn score_text(name: &str, v: f64) -> String {
    match name {
        "time" => fmt_ms(v * 1e3),
        "iterations" => fmt_num(v),
        "NMI" | "ARI" | "ACC" | "silhouette" => format!("{v:.3}"),
        // Rounded to the column, never cut.
        _ => fit(crate::algo::params::round_sig(v, 4), VW),
    }
}

fn delta(name: &str, a: f64, b: f64) -> String {
    let d = b - a;
    let sign = if d > 0.0 {
        "+"
    } else if d < 0.0 {
        "-"
    } else {
        ""
    };
    let m = d.abs();
    match name {
        "NMI" | "ARI" | "ACC" | "silhouette" => format!("{sign}{m:.3}"),
        "iterations" => format!("{sign}{}", fmt_num(m)),
        "time" => format!("{sign}{}", fmt_ms(m * 1e3)),
        _ => format!(
            "{sign}{}",
            fit(crate::algo::params::round_sig(m, 4), VW - 1)
        ),
    }
}

/// A setting's value in `w` cells: a number rounded to fit, text cut
/// with `…`.
fn value_cell(v: &str, w: usize) -> String {
    match v.parse::<f64>() {
        Ok(x) if v.chars().count() > w => fit(x, w),
        _ => clip(v, w),
    }
}

/// The settings that differ, as lines of `w` cells, at most `max` (the
/// last then says how many more there are).
fn settings_lines(d: &Diff, w: usize, max: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        clip("setting       A          B", w),
        theme.title(),
    ))];
    if d.settings.is_empty() {
        out.push(Line::from(Span::styled(
            "the same settings (another seed's luck aside)",
            theme.dim(),
        )));
    }
    // "what A B": 13 cells, a space, A in vw (one of them a space), a
    // space, B in what is left; nothing is cut after that.
    let vw = w.saturating_sub(14) / 2;
    let bw = w.saturating_sub(15 + vw);
    for (what, a, b) in &d.settings {
        let t = format!(
            "{:<13} {:<vw$} {}",
            clip(what, 13),
            value_cell(a, vw.saturating_sub(1)),
            value_cell(b, bw)
        );
        out.push(Line::from(clip(&theme.text(&t), w)));
    }
    if out.len() > max.max(2) {
        let keep = max.max(2) - 1;
        let more = out.len() - keep;
        out.truncate(keep);
        out.push(Line::from(Span::styled(
            format!("… {more} more differ"),
            theme.dim(),
        )));
    }
    out
}

/// The scores of A and B with the change, and the Jaccard index.
fn score_lines(d: &Diff, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        clip("score              A          B        B-A", w),
        theme.title(),
    ))];
    // Not comparable: "n/c" instead of B − A, and why, once per reason.
    let mut why: Vec<(String, Vec<&str>)> = Vec::new();
    for sc in &d.scores {
        let Score {
            name,
            a,
            b,
            not_comparable,
        } = sc;
        if a.is_none() && b.is_none() {
            continue;
        }
        let show = |v: Option<f64>| v.map_or("-".to_string(), |v| score_text(name, v));
        let dl = match (a, b, not_comparable) {
            (Some(_), Some(_), Some(r)) => {
                match why.iter_mut().find(|(x, _)| x == r) {
                    Some((_, names)) => names.push(name),
                    None => why.push((r.clone(), vec![name])),
                }
                "n/c".to_string()
            }
            (Some(a), Some(b), None) => delta(name, *a, *b),
            _ => String::new(),
        };
        let t = format!("{name:<10} {:>VW$} {:>VW$} {dl:>VW$}", show(*a), show(*b));
        out.push(Line::from(clip(&t, w)));
    }
    for (reason, names) in why {
        let what = match names.as_slice() {
            ["objective"] => "objectives".to_string(),
            [one] => one.to_string(),
            many => many.join(", "),
        };
        let t = format!("{what} not comparable: {reason}");
        for l in super::wrap(&theme.text(&t), w) {
            out.push(Line::from(Span::styled(l, theme.warn())));
        }
    }
    let j = match d.jaccard {
        Some(j) => format!(
            "Jaccard of selected features {j:.2} ({} shared of {})",
            d.shared, d.either
        ),
        None => "Jaccard: no feature selection in both runs".into(),
    };
    for l in super::wrap(&theme.text(&j), w) {
        out.push(Line::from(Span::styled(l, theme.accent())));
    }
    out
}

fn axis_label(v: f64) -> String {
    let s = fmt_sig(v);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Both objective traces: on one pair of axes when the objectives are
/// comparable; else (`not_comparable` says why) each scaled to its own
/// range, so that only their shapes are set side by side.
fn curves(
    f: &mut Frame,
    r: Rect,
    a: &Entry,
    b: &Entry,
    not_comparable: Option<&str>,
    theme: &Theme,
) {
    let own_scale = not_comparable.is_some();
    let (pa, pb) = (trace_points(a, own_scale), trace_points(b, own_scale));
    let chart_area = caption(f, r, not_comparable, theme);
    if pa.is_empty() && pb.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled("no objective trace", theme.dim())),
            chart_area,
        );
        return;
    }
    trace_chart(f, chart_area, [&pa, &pb], not_comparable, theme);
}

/// A run's objective per iteration, its finite values; on its own scale
/// (0 at its lowest, 1 at its highest) when `own_scale`.
fn trace_points(e: &Entry, own_scale: bool) -> Vec<(f64, f64)> {
    let p: Vec<(f64, f64)> = e
        .trace
        .iter()
        .filter(|p| p.1.is_finite())
        .map(|&(i, v)| (i as f64, v))
        .collect();
    if !own_scale {
        return p;
    }
    let (lo, hi) = p
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), q| {
            (l.min(q.1), h.max(q.1))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    p.iter().map(|&(i, v)| (i, (v - lo) / span)).collect()
}

/// What the chart shows, above it; returns the area left for the chart.
fn caption(f: &mut Frame, r: Rect, not_comparable: Option<&str>, theme: &Theme) -> Rect {
    let key = if theme.ascii {
        "A * line, B . dots"
    } else {
        "A line, B dots"
    };
    let caption = match not_comparable {
        None => vec![format!("objective: {key}")],
        Some(why) => vec![
            format!("objectives not comparable: {why}"),
            format!("each on its own scale: {key}"),
        ],
    };
    let [cap, chart_area] =
        Layout::vertical([Constraint::Length(caption.len() as u16), Constraint::Min(1)]).areas(r);
    let cap_lines: Vec<Line> = caption
        .iter()
        .map(|c| {
            Line::from(Span::styled(
                clip(&theme.text(c), cap.width as usize),
                theme.dim(),
            ))
        })
        .collect();
    f.render_widget(Paragraph::new(cap_lines), cap);
    chart_area
}

/// The two traces on one chart: A as a line, B as dots.
fn trace_chart(
    f: &mut Frame,
    chart_area: Rect,
    [pa, pb]: [&[(f64, f64)]; 2],
    not_comparable: Option<&str>,
    theme: &Theme,
) {
    let all = || pa.iter().chain(pb.iter());
    let (x0, x1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p.0), hi.max(p.0))
    });
    let (y0, y1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let xb = if x1 > x0 {
        [x0, x1]
    } else {
        [x0 - 0.5, x0 + 0.5]
    };
    let yb = if y1 > y0 {
        [y0, y1]
    } else {
        let pad = (y0.abs() * 1e-6).max(1e-12);
        [y0 - pad, y0 + pad]
    };
    let (ma, mb) = if theme.ascii {
        (Marker::Custom('*'), Marker::Custom('.'))
    } else {
        (Marker::Braille, Marker::Dot)
    };
    // On their own scales the values mean nothing: the ends say so.
    let (lo_label, hi_label) = match not_comparable {
        None => (axis_label(y0), axis_label(y1)),
        Some(_) => ("min".to_string(), "max".to_string()),
    };
    let lw = lo_label.len().max(hi_label.len());
    let chart = Chart::new(vec![
        Dataset::default()
            .name("A")
            .marker(ma)
            .graph_type(GraphType::Line)
            .style(theme.accent())
            .data(pa),
        Dataset::default()
            .name("B")
            .marker(mb)
            .graph_type(GraphType::Scatter)
            .style(theme.warn())
            .data(pb),
    ])
    .x_axis(
        Axis::default()
            .bounds(xb)
            .labels(vec![
                Line::from(fmt_num(xb[0].max(0.0).round())),
                Line::from(format!("{} iter", fmt_num(x1.round()))),
            ])
            .style(theme.dim()),
    )
    .y_axis(
        Axis::default()
            .bounds(yb)
            .labels(vec![
                Line::from(format!("{lo_label:>lw$}")),
                Line::from(format!("{hi_label:>lw$}")),
            ])
            .style(theme.dim()),
    )
    .legend_position(None);
    f.render_widget(chart, chart_area);
}

/// Cluster sizes of A and B, cluster by cluster, bars on one scale.
fn sizes(f: &mut Frame, r: Rect, a: &Entry, b: &Entry, theme: &Theme) {
    let w = r.width as usize;
    let h = r.height as usize;
    let n = a.sizes.len().max(b.sizes.len());
    let max = a
        .sizes
        .iter()
        .chain(&b.sizes)
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let num_w = max.to_string().len();
    // "jj " + bar + " n" twice with a separator.
    let bar_w = w.saturating_sub(3 + 2 * (num_w + 1) + 3) / 2;
    let mut lines = vec![Line::from(Span::styled(
        clip(
            &format!(
                "sizes{:>w2$}",
                "A | B",
                w2 = w.saturating_sub(5).min(bar_w + num_w + 6)
            ),
            w,
        ),
        theme.dim(),
    ))];
    let room = h.saturating_sub(1);
    let shown = if n > room { room.saturating_sub(1) } else { n };
    let side = |s: Option<&usize>| -> (String, String) {
        match s {
            Some(&c) => (
                bar(c as f64 / max as f64, bar_w, theme),
                format!("{c:>num_w$}"),
            ),
            None => (" ".repeat(bar_w), format!("{:>num_w$}", "-")),
        }
    };
    for j in 0..shown {
        let (ba, na) = side(a.sizes.get(j));
        let (bb, nb) = side(b.sizes.get(j));
        lines.push(Line::from(vec![
            Span::raw(format!("{j:>2} ")),
            Span::styled(ba, theme.accent()),
            Span::raw(format!(" {na} | ")),
            Span::styled(bb, theme.warn()),
            Span::raw(format!(" {nb}")),
        ]));
    }
    if shown < n {
        lines.push(Line::from(Span::styled(
            format!("… {} more clusters", n - shown),
            theme.dim(),
        )));
    }
    f.render_widget(Paragraph::new(lines), r);
}

pub fn render(f: &mut Frame, area: Rect, focused: bool, a: &Entry, b: &Entry, theme: &Theme) {
    let extra = format!("compare A #{} with B #{} · v: table", a.id, b.id);
    f.render_widget(
        block(
            Pane::History,
            focused,
            theme,
            &theme.text(&extra),
            area.width,
        ),
        area,
    );
    let body = inner(area);
    let d = diff(a, b);
    let w = body.width as usize;
    // The text takes at most half a small pane: the curves need rows.
    let max_text = (body.height / 2).max(body.height.saturating_sub(24)) as usize;
    let (left, right, text_h) = if w >= 60 {
        let lw = (w * 45 / 100).max(26);
        let l = settings_lines(&d, lw.saturating_sub(1), max_text, theme);
        let r = score_lines(&d, w - lw, theme);
        let h = l.len().max(r.len());
        (l, r, h)
    } else {
        let mut l = settings_lines(&d, w, max_text / 2, theme);
        l.extend(score_lines(&d, w, theme));
        let h = l.len();
        (l, Vec::new(), h)
    };
    // The charts keep at least 6 rows; the text gives way.
    let text_h = (text_h as u16).min(body.height.saturating_sub(7));
    let [top, bottom] =
        Layout::vertical([Constraint::Length(text_h), Constraint::Min(1)]).areas(body);
    if right.is_empty() {
        f.render_widget(Paragraph::new(left), top);
    } else {
        let lw = (w * 45 / 100).max(26) as u16;
        let [tl, tr] = Layout::horizontal([Constraint::Length(lw), Constraint::Min(1)]).areas(top);
        f.render_widget(Paragraph::new(left), tl);
        f.render_widget(Paragraph::new(right), tr);
    }
    let [gap, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(bottom);
    let _ = gap;
    let [chart, bars] =
        Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(rest);
    let objective = d.scores.iter().find(|s| s.name == "objective");
    let why = objective.and_then(|s| s.not_comparable.as_deref());
    curves(f, chart, a, b, why, theme);
    sizes(f, bars, a, b, theme);
}
