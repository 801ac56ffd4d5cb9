//! The regularisation path: per-feature weight curves of the top features
//! along log λ (as glmnet plots its coefficients), the score and the
//! selected count along the same axis, the slider's value marked and a
//! cursor that Enter applies. Small, only the selected count is drawn.

use super::theme::Theme;
use super::{bar, block, clip, fit_parts};
use crate::algo::params::fmt_num;
use crate::algo::path::{PathAlgo, PathResult};
use crate::tui::app::Pane;
use crate::tui::components::path::{PathDraw, PathPane, PathSeries, path_series};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

/// Feature curves drawn.
pub const TOP: usize = 8;

/// A value in at most 8 characters.
fn num(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v != 0.0 && (v.abs() < 0.01 || v.abs() >= 1e4) {
        format!("{v:.2e}")
    } else {
        fmt_num(crate::algo::params::round_sig(v, 3))
    }
}

/// The marker of series `j`: Braille in colour, else a character per
/// series so that curves differ without colour.
fn marker(theme: &Theme, j: usize) -> Marker {
    theme.series_marker(j)
}

/// A vertical line at `x` from `y0` to `y1`, as points.
fn vline(x: f64, y0: f64, y1: f64) -> Vec<(f64, f64)> {
    (0..=24)
        .map(|i| (x, y0 + (y1 - y0) * i as f64 / 24.0))
        .collect()
}

fn x_axis<'a>(x0: f64, x1: f64, theme: &Theme) -> Axis<'a> {
    Axis::default()
        .bounds([x0, x1])
        .labels(vec![
            Line::from(num(10f64.powf(x0))),
            Line::from(num(10f64.powf(x1))),
        ])
        .style(theme.dim())
}

pub fn render(f: &mut Frame, area: Rect, path: &PathPane, ctx: &PathDraw, theme: &Theme) {
    let focused = ctx.focused;
    let w = area.width.saturating_sub(2) as usize;
    let param = PathAlgo::from_id(&path.for_algo).map_or("lambda", |a| a.parameter());
    let sym = theme
        .text(if param == "lambda" { "λ" } else { "s" })
        .into_owned();
    match (&path.result, &path.job) {
        (Some(Ok(res)), _) => {
            let s = path_series(res, ctx.truth, TOP);
            if s.order.is_empty() {
                let p = Paragraph::new("the path has no point with a value > 0").block(block(
                    Pane::Weights,
                    focused,
                    theme,
                    "path",
                    area.width,
                ));
                f.render_widget(p, area);
                return;
            }
            let title = format!(
                "path · {sym} (log) · {} points · k={}",
                s.order.len(),
                ctx.k
            );
            let b = block(Pane::Weights, focused, theme, &title, area.width);
            let inner = b.inner(area);
            f.render_widget(b, area);
            let cursor = path.cursor_at(ctx.now);
            render_series(f, inner, ctx, cursor, (res, &s), &sym, theme);
        }
        (Some(Err(e)), _) => {
            let p = Paragraph::new(Line::from(Span::styled(
                clip(&format!("path failed: {}", theme.text(e)), w),
                theme.bad(),
            )))
            .block(block(Pane::Weights, focused, theme, "path", area.width));
            f.render_widget(p, area);
        }
        (None, Some(_)) => {
            let p = Paragraph::new(Line::from(format!(
                "computing the path ({} points) {} {:.0}%",
                crate::tui::app::worker::PATH_POINTS,
                bar(path.progress, w.saturating_sub(34).max(4), theme),
                path.progress * 100.0
            )))
            .block(block(Pane::Weights, focused, theme, "path", area.width));
            f.render_widget(p, area);
        }
        (None, None) => f.render_widget(
            block(Pane::Weights, focused, theme, "path", area.width),
            area,
        ),
    }
}

/// What every chart of the path shares.
struct Plot<'a> {
    res: &'a PathResult,
    s: &'a PathSeries,
    /// The x axis's range (log₁₀ of the parameter).
    xr: (f64, f64),
    /// The number of features.
    p_all: f64,
    /// The slider's value on the x axis, kept within the range.
    now: Option<f64>,
    /// The cursor's position in the series' order.
    cur: Option<usize>,
}

fn render_series(
    f: &mut Frame,
    inner: Rect,
    ctx: &PathDraw,
    cursor: Option<usize>,
    (res, s): (&PathResult, &PathSeries),
    sym: &str,
    theme: &Theme,
) {
    let w = inner.width as usize;
    let (x0, x1) = match (s.x.first(), s.x.last()) {
        (Some(&a), Some(&b)) if a < b => (a, b),
        (Some(&a), _) => (a - 1.0, a + 1.0),
        _ => (-1.0, 1.0),
    };
    // The slider's value, on the same axis as the points (log₁₀ of the
    // same parameter): the marker and the curves agree.
    let now = ctx.now.map(|v| v.log10());
    let plot = Plot {
        res,
        s,
        xr: (x0, x1),
        p_all: res.points[0].feature_weights.len().max(1) as f64,
        now: now.map(|c| c.clamp(x0, x1)),
        cur: cursor.and_then(|c| s.order.iter().position(|&i| i == c)),
    };
    let mut info = cursor_info(&plot, sym);
    if let Some(v) = ctx.now {
        // A value beyond the path's ends is marked at the nearer end.
        let out = now.is_some_and(|c| c < x0 || c > x1);
        let note = if out { " (beyond the path)" } else { "" };
        info.push(format!("now {sym} {}{note}", num(v)));
    }
    let small = inner.height < 12 || inner.width < 36;
    let hint = "←/→ cursor · Enter sets it · p closes";
    if small {
        let [top, chart] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
        f.render_widget(
            Paragraph::new(Span::styled(fit_parts(&info, w), theme.accent())),
            top,
        );
        render_count(f, chart, theme, &plot);
        return;
    }
    let [top, curves, scores, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Percentage(55),
        Constraint::Min(5),
        Constraint::Length(1),
    ])
    .areas(inner);
    f.render_widget(
        Paragraph::new(Span::styled(fit_parts(&info, w), theme.accent())),
        top,
    );
    f.render_widget(
        Paragraph::new(Span::styled(clip(&theme.text(hint), w), theme.dim())),
        keys,
    );
    render_curves(f, curves, theme, &plot, ctx.names);
    render_scores(f, scores, theme, &plot);
}

/// What Enter would set: the cursor's value and what the path has there.
fn cursor_info(plot: &Plot, sym: &str) -> Vec<String> {
    let (res, s, p_all) = (plot.res, plot.s, plot.p_all);
    let mut info = Vec::new();
    if let Some(j) = plot.cur {
        let pt = &res.points[s.order[j]];
        info.push(format!("cursor {sym} {}", num(pt.lambda)));
        if pt.clustering().is_some() {
            info.push(format!("{} of {} selected", pt.selected, p_all as usize));
            info.push(format!("{} {:.3}", s.score_name, s.score[j]));
            if let Some(c) = &s.cer {
                info.push(format!("CER {:.3}", c[j]));
            }
        } else {
            // Nothing selected: no clustering, so no score (the partition
            // there is only the start's).
            // Short, and before the dashes: at 80 columns it is what must fit.
            info.push(format!("0 of {}: no feature kept", p_all as usize));
            info.push(format!("{} —", s.score_name));
            if s.cer.is_some() {
                info.push("CER —".into());
            }
        }
    }
    info
}

/// The top features' weight curves, with their legend on the right.
fn render_curves(f: &mut Frame, area: Rect, theme: &Theme, plot: &Plot, names: &[String]) {
    let (res, s) = (plot.res, plot.s);
    let legend_w = (area.width / 3).clamp(10, 24);
    let [chart_area, legend_area] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(legend_w)]).areas(area);
    let curves_data: Vec<Vec<(f64, f64)>> = s
        .top
        .iter()
        .map(|&j| {
            s.order
                .iter()
                .zip(&s.x)
                .map(|(&i, &x)| {
                    let v = res.points[i].feature_weights.get(j).copied();
                    (x, v.filter(|v| v.is_finite()).unwrap_or(0.0))
                })
                .collect()
        })
        .collect();
    let ymax = curves_data
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1e-12);
    let mut sets: Vec<Dataset> = curves_data
        .iter()
        .enumerate()
        .map(|(j, d)| {
            Dataset::default()
                .marker(marker(theme, j))
                .graph_type(GraphType::Line)
                .style(theme.cluster(j))
                .data(d)
        })
        .collect();
    let marks = marks(plot, 0.0, ymax);
    push_marks(&mut sets, &marks, theme);
    let chart = Chart::new(sets)
        .x_axis(x_axis(plot.xr.0, plot.xr.1, theme))
        .y_axis(
            Axis::default()
                .bounds([0.0, ymax])
                .labels(vec![Line::from("0"), Line::from(num(ymax))])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, chart_area);
    let lw = legend_w.saturating_sub(3) as usize;
    let mut legend: Vec<Line> = vec![Line::from(Span::styled("weight of", theme.dim()))];
    for (j, &feat) in s.top.iter().enumerate() {
        let name = names
            .get(feat)
            .cloned()
            .unwrap_or_else(|| format!("f{}", feat + 1));
        // The glyphs the curve is drawn with (a Braille line in colour).
        let key = theme.series_key(j);
        let room = (lw + 1).saturating_sub(key.chars().count());
        legend.push(Line::from(vec![
            Span::styled(format!("{key} "), theme.cluster(j)),
            Span::raw(clip(&theme.text(&name), room)),
        ]));
    }
    f.render_widget(Paragraph::new(legend), legend_area);
}

/// Where the slider's value (|) and the cursor (:) sit, as vertical lines.
struct Marks {
    now: Vec<(f64, f64)>,
    cursor: Vec<(f64, f64)>,
}

fn marks(plot: &Plot, y0: f64, y1: f64) -> Marks {
    Marks {
        now: plot.now.map(|c| vline(c, y0, y1)).unwrap_or_default(),
        cursor: plot
            .cur
            .map(|j| vline(plot.s.x[j], y0, y1))
            .unwrap_or_default(),
    }
}

fn push_marks<'a>(sets: &mut Vec<Dataset<'a>>, m: &'a Marks, theme: &Theme) {
    let mk = |c: char| {
        if theme.ascii || !theme.color {
            Marker::Custom(c)
        } else {
            Marker::Braille
        }
    };
    if !m.now.is_empty() {
        sets.push(
            Dataset::default()
                .marker(mk('|'))
                .graph_type(GraphType::Scatter)
                .style(theme.warn())
                .data(&m.now),
        );
    }
    if !m.cursor.is_empty() {
        sets.push(
            Dataset::default()
                .marker(mk(':'))
                .graph_type(GraphType::Scatter)
                .style(theme.accent())
                .data(&m.cursor),
        );
    }
}

/// The selected count on a log scale: log(1 + count) / log(1 + p), in
/// [0, 1] with the score.
fn log_count(c: usize, p: f64) -> f64 {
    (1.0 + c as f64).ln() / (1.0 + p).ln()
}

fn render_scores(f: &mut Frame, area: Rect, theme: &Theme, plot: &Plot) {
    let (s, xr, p_all) = (plot.s, plot.xr, plot.p_all);
    let [legend_area, chart_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    // Where nothing is selected there is no clustering to score: those
    // points have no score and no CER.
    let kept = |j: &usize| s.selected[*j] > 0;
    let score: Vec<(f64, f64)> = (0..s.x.len())
        .filter(kept)
        .map(|j| (s.x[j], s.score[j]))
        .collect();
    let cer: Vec<(f64, f64)> = s
        .cer
        .as_ref()
        .map(|c| {
            (0..s.x.len())
                .filter(kept)
                .map(|j| (s.x[j], c[j]))
                .collect()
        })
        .unwrap_or_default();
    let count: Vec<(f64, f64)> =
        s.x.iter()
            .zip(&s.selected)
            .map(|(&x, &c)| (x, log_count(c, p_all)))
            .collect();
    // Three series: marks o (score), x (CER), + (count) without colour.
    let styles: [(Style, usize); 3] = [(theme.good(), 0), (theme.bad(), 1), (theme.accent(), 2)];
    let mut sets = vec![
        Dataset::default()
            .marker(marker(theme, styles[0].1))
            .graph_type(GraphType::Line)
            .style(styles[0].0)
            .data(&score),
    ];
    if !cer.is_empty() {
        sets.push(
            Dataset::default()
                .marker(marker(theme, styles[1].1))
                .graph_type(GraphType::Line)
                .style(styles[1].0)
                .data(&cer),
        );
    }
    sets.push(
        Dataset::default()
            .marker(marker(theme, styles[2].1))
            .graph_type(GraphType::Line)
            .style(styles[2].0)
            .data(&count),
    );
    let m = marks(plot, 0.0, 1.0);
    push_marks(&mut sets, &m, theme);
    let chart = Chart::new(sets)
        .x_axis(x_axis(xr.0, xr.1, theme))
        .y_axis(
            Axis::default()
                .bounds([0.0, 1.0])
                .labels(vec![Line::from("0"), Line::from("1")])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, chart_area);
    let legend = scores_legend(theme, plot, &styles, legend_area.width as usize);
    f.render_widget(Paragraph::new(Line::from(legend)), legend_area);
}

/// The score chart's legend in `w` cells: each series in its style, then
/// the marks' meaning when there is room.
fn scores_legend(
    theme: &Theme,
    plot: &Plot,
    styles: &[(Style, usize); 3],
    w: usize,
) -> Vec<Span<'static>> {
    let s = plot.s;
    let mark = |j: usize| {
        if theme.color && !theme.ascii {
            "─".to_string()
        } else {
            theme.cluster_mark(j).to_string()
        }
    };
    let mut legend = vec![Span::styled(
        format!("{} {}", mark(0), s.score_name),
        styles[0].0,
    )];
    if s.cer.is_some() {
        legend.push(Span::styled(format!("  {} CER", mark(1)), styles[1].0));
    }
    legend.push(Span::styled(
        format!("  {} selected (log, 1-{})", mark(2), plot.p_all as usize),
        styles[2].0,
    ));
    legend.push(Span::styled("  | now  : cursor", theme.dim()));
    let text: String = legend.iter().map(|s| s.content.as_ref()).collect();
    if text.chars().count() > w {
        legend.pop();
    }
    legend
}

/// The small view: the selected count against log λ.
fn render_count(f: &mut Frame, area: Rect, theme: &Theme, plot: &Plot) {
    let (s, xr, p_all) = (plot.s, plot.xr, plot.p_all);
    let pts: Vec<(f64, f64)> =
        s.x.iter()
            .zip(&s.selected)
            .map(|(&x, &c)| (x, c as f64))
            .collect();
    let mut sets = vec![
        Dataset::default()
            .marker(marker(theme, 0))
            .graph_type(GraphType::Line)
            .style(theme.good())
            .data(&pts),
    ];
    let m = marks(plot, 0.0, p_all);
    push_marks(&mut sets, &m, theme);
    let chart = Chart::new(sets)
        .x_axis(x_axis(xr.0, xr.1, theme))
        .y_axis(
            Axis::default()
                .bounds([0.0, p_all])
                .labels(vec![Line::from("0"), Line::from(format!("{p_all}"))])
                .style(theme.dim()),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}
