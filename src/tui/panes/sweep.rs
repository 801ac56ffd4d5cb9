//! The sweep view, over the right-hand panes: a heatmap (two axes), a
//! line with its ±sd band (one axis) or the k-scan's curves, filling in as
//! cells finish; the cursor cell's scores below.

use super::objective::markers;
use super::theme::Theme;
use super::{clip, wrap};
use crate::algo::params::fmt_sig4;
use crate::sweep::scores::higher_is_better;
use crate::sweep::{Axis as SweepAxis, Spacing};
use crate::tui::app::App;
use crate::tui::app::sweep_view::{SweepKind, SweepView, cell_line};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, BorderType, Borders, Chart, Dataset, GraphType, Paragraph};

/// Shades from worst to best: colours, or characters of increasing
/// density where there is no colour.
const COLOURS: [Color; 8] = [
    Color::Blue,
    Color::LightBlue,
    Color::Cyan,
    Color::LightCyan,
    Color::Green,
    Color::LightGreen,
    Color::Yellow,
    Color::LightYellow,
];
const DENSITY: [char; 8] = ['.', ':', '-', '=', '+', '*', '#', '@'];

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(sv) = &app.sweep else { return };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.focused_border())
        .title(Line::from(Span::styled(
            clip(
                &theme.text(&title(sv)),
                area.width.saturating_sub(2) as usize,
            ),
            theme.title(),
        )));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height < 3 || inner.width < 12 {
        return;
    }
    let w = inner.width as usize;
    // Under the picture: the legend and the cursor cell's scores.
    let mut below: Vec<Line> = Vec::new();
    let legend = legend(sv, theme);
    below.push(legend);
    let detail = match sv.kind {
        SweepKind::KScan => kscan_line(sv),
        SweepKind::Grid => String::new(),
    };
    if !detail.is_empty() {
        for l in wrap(&theme.text(&detail), w) {
            below.push(Line::from(Span::styled(l, theme.accent())));
        }
    }
    let (r, c) = sv.cursor;
    let text = match (sv.cell(r, c), &sv.error) {
        (_, Some(e)) => format!("error: {e}"),
        (Some(cell), _) => cell_line(sv, cell),
        (None, _) => format!("{}: not done yet", sweep_at(sv, r, c)),
    };
    for l in wrap(&theme.text(&text), w) {
        below.push(Line::from(l));
    }
    let max_below = (inner.height as usize / 2).max(2);
    below.truncate(max_below);
    let [top, bottom] =
        Layout::vertical([Constraint::Min(2), Constraint::Length(below.len() as u16)]).areas(inner);
    match (sv.kind, sv.plan.axes.len()) {
        (SweepKind::KScan, _) => kscan_chart(f, top, sv, theme),
        (_, 2) => heatmap(f, top, sv, theme),
        _ => line_chart(f, top, sv, theme),
    }
    f.render_widget(Paragraph::new(below), bottom);
}

fn title(sv: &SweepView) -> String {
    let axes: Vec<&str> = sv.plan.axes.iter().map(|a| a.symbol.as_str()).collect();
    let what = match sv.kind {
        SweepKind::KScan => "k-scan".to_string(),
        SweepKind::Grid => format!("Sweep {}", axes.join(" × ")),
    };
    let total = sv.cells.len();
    let state = if sv.error.is_some() {
        "failed".to_string()
    } else if sv.running {
        let eta = if sv.done > 0 {
            let per = sv.elapsed.as_secs_f64() / sv.done as f64;
            format!(", ~{:.0} s left", per * (total - sv.done) as f64)
        } else {
            String::new()
        };
        format!("{}/{total} cells{eta}", sv.done)
    } else if sv.cancelled {
        format!("cancelled: {}/{total} cells kept", sv.done)
    } else {
        format!("{total} cells in {:.1} s", sv.elapsed.as_secs_f64())
    };
    format!(" {what} · {} · {} seeds · {state} ", sv.algo, sv.plan.seeds)
}

/// `s0=-3, eta=1.04` of a grid position.
fn sweep_at(sv: &SweepView, r: usize, c: usize) -> String {
    let axes = &sv.plan.axes;
    let mut at = vec![axes[0].values[r.min(axes[0].values.len() - 1)]];
    if let Some(b) = axes.get(1) {
        at.push(b.values[c.min(b.values.len() - 1)]);
    }
    crate::sweep::describe(axes, &at)
}

/// Shade index 0..8 of a value (best = 7), given the range.
fn level(sv: &SweepView, v: f64, (lo, hi): (f64, f64)) -> usize {
    let t = if hi > lo { (v - lo) / (hi - lo) } else { 1.0 };
    let t = if higher_is_better(sv.score_name()) {
        t
    } else {
        1.0 - t
    };
    ((t * 7.0).round() as usize).min(7)
}

fn shade(theme: &Theme, lvl: usize) -> (char, Style) {
    if theme.color && !theme.ascii {
        ('█', Style::default().fg(COLOURS[lvl]))
    } else {
        (DENSITY[lvl], Style::default())
    }
}

/// The k-scan's curves: their glyphs (ASCII) and styles, by curve.
fn curve_styles(theme: &Theme) -> [(char, Style); 5] {
    [
        ('s', theme.accent()),
        ('c', theme.good()),
        ('d', theme.warn()),
        ('.', theme.dim()),
        ('x', theme.cluster(2)),
    ]
}

fn legend(sv: &SweepView, theme: &Theme) -> Line<'static> {
    if sv.kind == SweepKind::KScan {
        let mut spans = Vec::new();
        for ((_, label), (mark, st)) in KSCAN_CURVES.iter().zip(curve_styles(theme)) {
            let glyph = if theme.ascii { mark } else { '━' };
            spans.push(Span::styled(format!("{glyph} {label} "), st));
        }
        spans.push(Span::styled("| suggested", theme.bad()));
        return Line::from(spans);
    }
    let name = sv.score_name();
    let range = sv.range().map_or(String::new(), |(lo, hi)| {
        format!(" {}…{}", fmt_sig4(lo), fmt_sig4(hi))
    });
    if sv.plan.axes.len() == 1 {
        let (line, dots) = if theme.ascii {
            ('*', '.')
        } else {
            ('⠤', '•')
        };
        return Line::from(
            theme
                .text(&format!(
                    "{name}{range} · {line} mean over the seeds · {dots} ±sd · O cursor"
                ))
                .into_owned(),
        );
    }
    let mut spans = vec![Span::raw(
        theme.text(&format!("{name}{range}: worse ")).into_owned(),
    )];
    for l in 0..8 {
        let (ch, st) = shade(theme, l);
        spans.push(Span::styled(ch.to_string(), st));
    }
    spans.push(Span::raw(" better · * best · o sliders · blank: to do"));
    Line::from(spans)
}

fn heatmap(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let (a, b) = (&sv.plan.axes[0], &sv.plan.axes[1]);
    let (rows, cols) = sv.shape();
    let row_labels: Vec<String> = a.values.iter().map(|v| a.show(*v)).collect();
    let lw = row_labels
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1)
        .max(a.symbol.chars().count())
        .min(12);
    let avail = (area.width as usize).saturating_sub(lw + 1);
    let cw = (avail / cols.max(1)).clamp(1, 9);
    let range = sv.range();
    let best = sv.best();
    let here = sv.current_at();
    let mut lines: Vec<Line> = Vec::new();
    // Column labels: every column when they fit, else the first and last.
    let col_labels: Vec<String> = b.values.iter().map(|v| b.show(*v)).collect();
    let fits = col_labels.iter().all(|l| l.chars().count() < cw);
    let mut head = format!(
        "{:>lw$} ",
        format!("{}\\{}", short(&a.symbol), short(&b.symbol))
    );
    head = clip(&head, lw + 1);
    if fits {
        for l in &col_labels {
            head.push_str(&format!("{l:^cw$}"));
        }
    } else {
        let first = &col_labels[0];
        let last = &col_labels[cols - 1];
        let gap = (cw * cols).saturating_sub(first.chars().count() + last.chars().count());
        head.push_str(&format!("{first}{}{last}", " ".repeat(gap)));
    }
    lines.push(Line::from(Span::styled(
        clip(&theme.text(&head), area.width as usize),
        theme.dim(),
    )));
    let max_rows = (area.height as usize).saturating_sub(1);
    // Taller cells where there is room, so the map reads as a map.
    let ch = (max_rows / rows.max(1)).clamp(1, 3);
    for (r, label) in row_labels.iter().enumerate().take(max_rows) {
        for line in 0..ch {
            let text = if line == ch / 2 {
                clip(label, lw)
            } else {
                String::new()
            };
            let mut spans = vec![Span::styled(format!("{text:>lw$} "), theme.dim())];
            for c in 0..cols {
                let mut span = cell_span(sv, theme, r, c, cw, range, best, here);
                if line != ch / 2 && sv.numbers {
                    // Numbers once per cell, in its middle line.
                    span.content = " ".repeat(cw).into();
                }
                spans.push(span);
            }
            lines.push(Line::from(spans));
        }
    }
    if rows > max_rows {
        lines.push(Line::from(Span::styled(
            format!("… {} more rows: enlarge the terminal", rows - max_rows),
            theme.dim(),
        )));
    }
    f.render_widget(Paragraph::new(lines), area);
}

fn short(s: &str) -> String {
    clip(s, 5)
}

#[allow(clippy::too_many_arguments)]
fn cell_span(
    sv: &SweepView,
    theme: &Theme,
    r: usize,
    c: usize,
    cw: usize,
    range: Option<(f64, f64)>,
    best: Option<(usize, usize)>,
    here: Option<(usize, usize)>,
) -> Span<'static> {
    let fill = cw.saturating_sub(1).max(1);
    let mark = if best == Some((r, c)) {
        '*'
    } else if here == Some((r, c)) {
        'o'
    } else {
        ' '
    };
    let (mut text, mut style) = match (sv.value(r, c), range) {
        (Some(v), Some(rg)) => {
            let (ch, st) = shade(theme, level(sv, v.mean, rg));
            if sv.numbers {
                let t = fmt_sig4(v.mean);
                (format!("{:>fill$}", clip(&t, fill)), Style::default())
            } else {
                (ch.to_string().repeat(fill), st)
            }
        }
        _ => (" ".repeat(fill), Style::default()),
    };
    if cw > 1 {
        text.push(mark);
    } else if mark != ' ' {
        text = mark.to_string();
    }
    if sv.cursor == (r, c) {
        style = theme.selected();
    }
    Span::styled(text, style)
}

/// Plot coordinate of an axis value (log10 on a log axis).
fn x_of(a: &SweepAxis, v: f64) -> f64 {
    if a.spacing == Spacing::Log && v != 0.0 {
        v.abs().log10() * v.signum()
    } else {
        v
    }
}

fn bounds(v: impl Iterator<Item = f64>) -> [f64; 2] {
    let (lo, hi) = v
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if lo > hi {
        [0.0, 1.0]
    } else if lo == hi {
        [lo - 0.5, hi + 0.5]
    } else {
        [lo, hi]
    }
}

fn line_chart(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let mut mean = Vec::new();
    let mut band = Vec::new();
    for (i, &v) in a.values.iter().enumerate() {
        if let Some(s) = sv.value(i, 0) {
            let x = x_of(a, v);
            mean.push((x, s.mean));
            let sd = if s.sd.is_finite() { s.sd } else { 0.0 };
            band.push((x, s.mean + sd));
            band.push((x, s.mean - sd));
        }
    }
    let cursor: Vec<(f64, f64)> = sv
        .value(sv.cursor.0, 0)
        .map(|s| vec![(x_of(a, a.values[sv.cursor.0]), s.mean)])
        .unwrap_or_default();
    let (line, dots) = markers(theme);
    let xb = bounds(a.values.iter().map(|v| x_of(a, *v)));
    let yb = bounds(band.iter().chain(&mean).map(|p| p.1));
    let sets = vec![
        Dataset::default()
            .name("±sd")
            .marker(dots)
            .graph_type(GraphType::Scatter)
            .style(theme.dim())
            .data(&band),
        Dataset::default()
            .name(sv.score_name())
            .marker(line)
            .graph_type(GraphType::Line)
            .style(theme.accent())
            .data(&mean),
        Dataset::default()
            .name("cursor")
            .marker(Marker::Custom('O'))
            .graph_type(GraphType::Scatter)
            .style(theme.warn())
            .data(&cursor),
    ];
    let log = if a.spacing == Spacing::Log {
        " (log)"
    } else {
        ""
    };
    let first = a.show(a.values[0]);
    let last = a.show(*a.values.last().expect("an axis has values"));
    let chart = Chart::new(sets)
        .x_axis(
            Axis::default()
                .bounds(xb)
                .labels(vec![
                    Line::from(first),
                    Line::from(theme.text(&format!("{}{log}", a.symbol)).to_string()),
                    Line::from(last),
                ])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds(yb)
                .labels(vec![
                    Line::from(fmt_sig4(yb[0])),
                    Line::from(fmt_sig4(yb[1])),
                ])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}

/// The label-free scores a k-scan draws, each scaled to [0, 1] over k.
const KSCAN_CURVES: [(&str, &str); 5] = [
    ("silhouette", "silh"),
    ("calinski_harabasz", "CH"),
    ("davies_bouldin", "DB"),
    ("cost", "cost"),
    ("stability", "stability"),
];

fn kscan_chart(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let styles = curve_styles(theme);
    let curves: Vec<Vec<(f64, f64)>> = KSCAN_CURVES
        .iter()
        .map(|(name, _)| {
            let pts: Vec<(f64, f64)> = a
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, &k)| {
                    sv.cell(i, 0)
                        .and_then(|c| c.score(name))
                        .map(|s| (k, s.mean))
                        .filter(|p| p.1.is_finite())
                })
                .collect();
            let [lo, hi] = bounds(pts.iter().map(|p| p.1));
            pts.into_iter()
                .map(|(k, v)| (k, (v - lo) / (hi - lo)))
                .collect()
        })
        .collect();
    let sug: Vec<(f64, f64)> = sv
        .suggested_k()
        .map(|k| (0..=10).map(|i| (k as f64, i as f64 / 10.0)).collect())
        .unwrap_or_default();
    let mut sets: Vec<Dataset> = KSCAN_CURVES
        .iter()
        .zip(&curves)
        .enumerate()
        .map(|(i, ((_, label), pts))| {
            Dataset::default()
                .name(*label)
                .marker(if theme.ascii {
                    Marker::Custom(styles[i].0)
                } else {
                    Marker::Braille
                })
                .graph_type(GraphType::Line)
                .style(styles[i].1)
                .data(pts)
        })
        .collect();
    sets.push(
        Dataset::default()
            .name("suggested")
            .marker(Marker::Custom('|'))
            .graph_type(GraphType::Scatter)
            .style(theme.bad())
            .data(&sug),
    );
    let xb = bounds(a.values.iter().copied());
    let chart = Chart::new(sets)
        .x_axis(
            Axis::default()
                .bounds(xb)
                .labels(vec![
                    Line::from(format!("k={}", a.show(a.values[0]))),
                    Line::from(format!("k={}", a.show(*a.values.last().expect("values")))),
                ])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, 1.0])
                .labels(vec![Line::from("min"), Line::from("max")])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}

/// The k-scan's suggestion and what each score prefers.
fn kscan_line(sv: &SweepView) -> String {
    let pref = |n: &str| sv.preferred_k(n).map_or("-".to_string(), |k| k.to_string());
    let elbow = elbow_k(sv).map_or("-".to_string(), |k| k.to_string());
    match sv.suggested_k() {
        Some(k) => format!(
            "suggested k = {k} (best silhouette; a adopts it) · CH {} · DB {} · stability {} · cost elbow {elbow}",
            pref("calinski_harabasz"),
            pref("davies_bouldin"),
            pref("stability"),
        ),
        None => "no suggestion yet".into(),
    }
}

/// The elbow of the cost curve: the k farthest below the chord from the
/// first to the last k (both scaled to [0, 1]).
pub fn elbow_k(sv: &SweepView) -> Option<usize> {
    let a = &sv.plan.axes[0];
    let pts: Vec<(f64, f64)> = a
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, &k)| {
            sv.cell(i, 0)
                .and_then(|c| c.score("cost"))
                .map(|s| (k, s.mean))
                .filter(|p| p.1.is_finite())
        })
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let [x0, x1] = bounds(pts.iter().map(|p| p.0));
    let [y0, y1] = bounds(pts.iter().map(|p| p.1));
    let norm: Vec<(f64, f64)> = pts
        .iter()
        .map(|&(x, y)| ((x - x0) / (x1 - x0), (y - y0) / (y1 - y0)))
        .collect();
    let (first, last) = (norm[0], norm[norm.len() - 1]);
    let below = |p: (f64, f64)| {
        let t = (p.0 - first.0) / (last.0 - first.0);
        (first.1 + t * (last.1 - first.1)) - p.1
    };
    norm.iter()
        .zip(&pts)
        .max_by(|a, b| below(*a.0).total_cmp(&below(*b.0)))
        .map(|(_, p)| p.0 as usize)
}
