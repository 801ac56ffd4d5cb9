//! The sweep view, over the right-hand panes: a heatmap (two axes), a
//! line with its ±sd band (one axis) or the k-scan's curves, filling in as
//! cells finish; the cursor cell's scores below.

use super::objective::markers;
use super::theme::Theme;
use super::{clip, fit_parts, wrap};
use crate::algo::params::fmt_sig4;
use crate::sweep::recommend::{PS_CUTOFF, Recommendation};
use crate::sweep::resample::{CDF_STEPS, PAC_HIGH, PAC_LOW, cdf_points};
use crate::sweep::scores::higher_is_better;
use crate::sweep::{Axis as SweepAxis, Spacing};
use crate::tui::app::sweep_view::{Panel, SweepKind, SweepView, cell_line};
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
/// No `*` (the best cell) and no `o` (the sliders) among them.
const DENSITY: [char; 8] = ['.', ':', '-', '=', '+', '%', '#', '@'];
/// The best cell (by the score shown), on every view.
const BEST: char = '*';
/// The cell nearest the sliders' values when the sweep started.
const SLIDERS: char = 'o';
/// The cursor on a curve (the heatmap shows it in reverse video).
const CURSOR: char = 'O';
/// The recommended k, a vertical line on the k-scan's charts.
const RECOMMENDED: char = '|';

/// Whether the k-scan draws the score shown alone, on its own scale with
/// its spread (the resampled scores: prediction strength's cutoff and the
/// gap's standard error mean something only there), rather than among
/// the classic scores' curves scaled to [0, 1].
fn on_own_scale(sv: &SweepView) -> bool {
    crate::sweep::resample::NAMES.contains(&sv.score_name())
}

/// The prediction strength cutoff's line.
fn cutoff_glyph(theme: &Theme) -> char {
    if theme.ascii { '=' } else { '─' }
}

/// The sweep `sv`; `stale` names the settings that differ now, and
/// `same_data` says whether Enter can still restore a cell's.
pub fn render(
    f: &mut Frame,
    area: Rect,
    sv: &SweepView,
    stale: &[String],
    same_data: bool,
    theme: &Theme,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.focused_border())
        .title(Line::from(Span::styled(
            fit_title(&title(sv), theme, area.width.saturating_sub(2) as usize),
            theme.title(),
        )));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height < 3 || inner.width < 12 {
        return;
    }
    let w = inner.width as usize;
    // Under the picture: the legend and the cursor cell's scores.
    let mut below: Vec<Line> = legend(sv, theme, w);
    // The settings it ran with, and any that differ now (Enter restores
    // them, or refuses on other data).
    for l in wrap(
        &theme.text(&format!("ran with {}", sv.context.summary())),
        w,
    ) {
        below.push(Line::from(Span::styled(l, theme.dim())));
    }
    if !stale.is_empty() {
        let then = if same_data {
            "Enter restores the sweep's"
        } else {
            "Enter is refused here"
        };
        let text = format!("differs now: {}; {then}", stale.join(", "));
        for l in wrap(&theme.text(&text), w) {
            below.push(Line::from(Span::styled(l, theme.warn())));
        }
    }
    // The recommendation takes more rows where the view is tall.
    let detail = advice_line(sv, w, if inner.height >= 30 { 3 } else { 2 });
    if !detail.is_empty() {
        for l in wrap(&theme.text(&detail), w) {
            below.push(Line::from(Span::styled(l, theme.accent())));
        }
    }
    let (r, c) = sv.cursor;
    let text = match (sv.cell(r, c), &sv.error) {
        (_, Some(e)) => format!("error: {e}"),
        (Some(cell), _) => format!("{}{}", family_prefix(sv), cell_line(sv, cell)),
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
        (SweepKind::KScan, _) if sv.panel == Panel::Consensus => consensus_chart(f, top, sv, theme),
        (SweepKind::KScan, _) if sv.panel == Panel::Silhouette => {
            silhouette_bars(f, top, sv, theme)
        }
        (_, 2) => heatmap(f, top, sv, theme),
        (_, _) if sv.numbers => table(f, top, sv, theme),
        (SweepKind::KScan, _) if !on_own_scale(sv) => kscan_chart(f, top, sv, theme),
        _ => line_chart(f, top, sv, theme),
    }
    f.render_widget(Paragraph::new(below), bottom);
}

fn title(sv: &SweepView) -> Vec<String> {
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
            format!(
                ", ~{} left",
                crate::numfmt::duration(per * (total - sv.done) as f64)
            )
        } else {
            String::new()
        };
        format!("{}/{total} cells{eta}", sv.done)
    } else if sv.cancelled {
        format!("cancelled: {}/{total} cells kept", sv.done)
    } else {
        format!(
            "{total} cells in {}",
            crate::numfmt::duration(sv.elapsed.as_secs_f64())
        )
    };
    let k = sv.context.k.map_or(String::new(), |k| format!(" k={k}"));
    // In the order they are given up when the title is too wide for them
    // (from the end): the resamples and seed count before the state.
    let mut parts = vec![
        what,
        format!("{}{k}", algos_text(sv)),
        state,
        format!("{} seeds", sv.plan.seeds),
    ];
    if sv.plan.resampling.count > 0 {
        parts.push(format!("{} resamples", sv.plan.resampling.count));
    }
    parts
}

/// The marker and style of the curve of family `fam` (> 0) of a k-scan
/// that compares algorithms; the first is drawn as a single sweep's.
fn family_style(theme: &Theme, fam: usize) -> (Marker, Style) {
    (theme.series_marker(fam), theme.cluster(fam))
}

/// The legend's key of every family's curve ("- kmeans x spectral").
fn family_keys(sv: &SweepView, theme: &Theme) -> Line<'static> {
    let first = if theme.ascii { "-" } else { "⠤" };
    let spans: Vec<Span<'static>> = (0..sv.families())
        .map(|fam| {
            let (key, style) = if fam == 0 {
                (first.to_string(), theme.accent())
            } else {
                (theme.series_key(fam), family_style(theme, fam).1)
            };
            Span::styled(format!("{key} {} ", sv.family_context(fam).algo), style)
        })
        .collect();
    Line::from(spans)
}

/// The algorithm swept, or those a k-scan compares ("kmeans vs spectral").
fn algos_text(sv: &SweepView) -> String {
    (0..sv.families())
        .map(|f| sv.family_context(f).algo.clone())
        .collect::<Vec<_>>()
        .join(" vs ")
}

/// The algorithm of the cursor's column, before a cell's text, when a
/// k-scan compares several ("spectral: ").
fn family_prefix(sv: &SweepView) -> String {
    if sv.families() > 1 {
        format!("{}: ", sv.family_context(sv.cursor.1).algo)
    } else {
        String::new()
    }
}

/// The title's parts that fit `room` whole (a part that does not fit is
/// left out, never cut: [`fit_parts`]), padded with a space each side
/// where there is room. The theme's ASCII keeps the width of `·`.
fn fit_title(parts: &[String], theme: &Theme, room: usize) -> String {
    let parts: Vec<String> = parts.iter().map(|p| theme.text(p).into_owned()).collect();
    let out = theme.text(&fit_parts(&parts, room)).into_owned();
    match room.saturating_sub(out.chars().count()) {
        0 => out,
        1 => format!(" {out}"),
        _ => format!(" {out} "),
    }
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

/// What the sliders' marker stands for: their values, or the cell
/// nearest them (the grid does not hold their values).
fn sliders_text(sv: &SweepView) -> Option<String> {
    sv.current_at()?;
    Some(if sv.current_exact() {
        format!("{SLIDERS} sliders ({})", sv.current_text())
    } else {
        format!("{SLIDERS} nearest the sliders ({})", sv.current_text())
    })
}

/// `text` as the theme draws it, wrapped to `w`, one line per row.
fn wrapped_lines(theme: &Theme, text: &str, w: usize) -> Vec<Line<'static>> {
    wrap(&theme.text(text), w)
        .into_iter()
        .map(Line::from)
        .collect()
}

/// The k-scan's legend over its curves: each score's glyph, the
/// recommended k's mark, then `marks` (best, cursor); its numbers' when
/// they are shown instead.
fn kscan_legend(sv: &SweepView, theme: &Theme, w: usize, marks: &str) -> Vec<Line<'static>> {
    let name = sv.score_name();
    let mut spans = Vec::new();
    for ((_, label), (mark, st)) in KSCAN_CURVES.iter().zip(curve_styles(theme)) {
        let glyph = if theme.ascii { mark } else { '━' };
        spans.push(Span::styled(format!("{glyph} {label} "), st));
    }
    if sv.numbers {
        let text = format!("{BEST} best {name} · cursor in reverse · ↑↓ scroll");
        return wrapped_lines(theme, &text, w);
    }
    let used: usize = spans.iter().map(|sp| sp.content.chars().count()).sum();
    let suggested = Span::styled(format!("{RECOMMENDED} recommended"), theme.bad());
    // At 80 columns the curves' names take the line: the mark of the
    // recommended k goes below rather than being cut.
    let mut out = if used + suggested.content.chars().count() <= w {
        spans.push(suggested);
        vec![Line::from(spans)]
    } else {
        vec![Line::from(spans), Line::from(suggested)]
    };
    let of = if sv.families() > 1 {
        format!(
            " · {}'s curves, ↑↓ another algorithm",
            sv.family_context(sv.cursor.1).algo
        )
    } else {
        String::new()
    };
    out.extend(wrapped_lines(
        theme,
        &format!("{marks} (on the {name} curve){of}"),
        w,
    ));
    out
}

/// The legend under the picture, wrapped to `w`.
fn legend(sv: &SweepView, theme: &Theme, w: usize) -> Vec<Line<'static>> {
    let wrapped = |text: String| wrapped_lines(theme, &text, w);
    let name = sv.score_name();
    let range = sv.range().map_or(String::new(), |(lo, hi)| {
        format!(" {} to {}", fmt_sig4(lo), fmt_sig4(hi))
    });
    let marks = format!("{BEST} best {name} · {CURSOR} cursor");
    if sv.kind == SweepKind::KScan && sv.panel != Panel::Scores {
        return panel_legend(sv, theme, w);
    }
    // The scores on their own scale are the resampled ones, whose sd is
    // a standard error (over the splits, the gap's over its references).
    if sv.kind == SweepKind::KScan && on_own_scale(sv) && !sv.numbers {
        let (line, dots) = if theme.ascii {
            ('-', '.')
        } else {
            ('⠤', '•')
        };
        let cut = if name == "prediction_strength" {
            format!(" · {} {PS_CUTOFF} cutoff", cutoff_glyph(theme))
        } else {
            String::new()
        };
        let text = format!(
            "{name}{range} · {line} mean · {dots} ±SE{cut} · {RECOMMENDED} recommended · {BEST} best · {CURSOR} cursor"
        );
        if sv.families() > 1 {
            let mut out = vec![family_keys(sv, theme)];
            out.extend(wrapped(format!("{text} · ↑↓ algorithm")));
            return out;
        }
        return wrapped(text);
    }
    if sv.kind == SweepKind::KScan {
        return kscan_legend(sv, theme, w, &marks);
    }
    if sv.plan.axes.len() == 1 {
        let (line, dots) = if theme.ascii {
            ('-', '.')
        } else {
            ('⠤', '•')
        };
        let mut text = if sv.numbers {
            format!("{name}{range} · {BEST} best · cursor in reverse")
        } else {
            format!("{name}{range} · {line} mean over the seeds · {dots} ±sd · {marks}")
        };
        if let Some(t) = sliders_text(sv).filter(|_| !sv.numbers) {
            text.push_str(&format!(" · {t}"));
        }
        return wrapped(text);
    }
    let mut spans = vec![Span::raw(
        theme.text(&format!("{name}{range}: worse ")).into_owned(),
    )];
    for l in 0..8 {
        let (ch, st) = shade(theme, l);
        spans.push(Span::styled(ch.to_string(), st));
    }
    spans.push(Span::raw(" better"));
    let mut out = vec![Line::from(spans)];
    let mut text = format!("{BEST} best · cursor in reverse");
    if let Some(t) = sliders_text(sv) {
        text.push_str(&format!(" · {t}"));
    }
    text.push_str(" · blank: to do");
    out.extend(wrapped(text));
    out
}

/// `v` in at most `w` characters: fewer significant digits, then no
/// leading zero (.731), before it is cut.
pub fn fit_num(v: f64, w: usize) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    for sig in [4, 3, 2, 1] {
        let t = fmt_sig4(crate::algo::params::round_sig(v, sig));
        if t.chars().count() <= w {
            return t;
        }
        let bare = t.replacen("0.", ".", 1);
        if (t.starts_with("0.") || t.starts_with("-0.")) && bare.chars().count() <= w {
            return bare;
        }
    }
    let e = format!("{v:.0e}");
    if e.chars().count() <= w {
        return e;
    }
    crate::numfmt::fit(v, w)
}

/// An axis value as a tick label: three significant digits.
fn tick(a: &SweepAxis, v: f64) -> String {
    if a.is_option() {
        a.show(v)
    } else {
        crate::algo::params::fmt_num(crate::algo::params::round_sig(v, 3))
    }
}

fn heatmap(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let (rows, cols) = sv.shape();
    let row_labels: Vec<String> = a.values.iter().map(|v| tick(a, *v)).collect();
    let lw = row_labels
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1)
        .max(short(&a.symbol).chars().count())
        .min(12);
    let avail = (area.width as usize).saturating_sub(lw + 1);
    let cw = (avail / cols.max(1)).clamp(1, 9);
    let range = sv.range();
    let best = sv.best();
    let here = sv.current_at();
    let mut lines: Vec<Line> = Vec::new();
    let head = heatmap_head(sv, lw, cw);
    lines.push(Line::from(Span::styled(
        clip(&theme.text(&head), area.width as usize),
        theme.dim(),
    )));
    let max_rows = (area.height as usize).saturating_sub(1);
    // Taller cells where there is room, so the map reads as a map.
    let ch = (max_rows / rows.max(1)).clamp(1, 3);
    // Rows that do not fit: a window that keeps the cursor in view.
    let fit = (max_rows / ch).max(1);
    let first = if rows > fit {
        sv.cursor.0.saturating_sub(fit - 1).min(rows - fit)
    } else {
        0
    };
    for (r, label) in row_labels.iter().enumerate().skip(first).take(fit) {
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
    if rows > fit && lines.len() < area.height as usize {
        lines.push(Line::from(Span::styled(
            format!(
                "rows {}-{} of {rows}: ↑↓ scroll",
                first + 1,
                (first + fit).min(rows)
            ),
            theme.dim(),
        )));
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// The heatmap's first line: the corner naming the axes, then the column
/// labels, every column when they fit, else every second, third, …
/// column (the label starts at its column and may run over the next).
/// `lw`: the row labels' width; `cw`: a column's.
fn heatmap_head(sv: &SweepView, lw: usize, cw: usize) -> String {
    let (a, b) = (&sv.plan.axes[0], &sv.plan.axes[1]);
    let cols = sv.shape().1;
    let col_labels: Vec<String> = b.values.iter().map(|v| tick(b, *v)).collect();
    let widest = col_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1);
    let every = (1..=cols.max(1))
        .find(|&s| {
            if s == 1 {
                widest < cw
            } else {
                widest + 2 <= s * cw
            }
        })
        .unwrap_or(cols.max(1));
    // The corner names both axes where it fits, else the rows' axis.
    let both = format!("{}\\{}", short(&a.symbol), short(&b.symbol));
    let corner = if both.chars().count() <= lw {
        both
    } else {
        short(&a.symbol)
    };
    let mut head = clip(&format!("{corner:>lw$} "), lw + 1);
    let mut c = 0;
    while c < cols {
        let span = (every * cw).min((cols - c) * cw);
        let l = &col_labels[c];
        if every == 1 {
            head.push_str(&format!("{:^span$}", clip(l, span)));
        } else {
            // A space before, so that it does not run into the corner.
            // The last group may be narrower: no label there rather
            // than a cut one.
            let w = span.saturating_sub(1);
            let shown = if l.chars().count() < w {
                l.as_str()
            } else {
                ""
            };
            head.push_str(&format!(" {shown:<w$}"));
        }
        c += every;
    }
    head
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
        BEST
    } else if here == Some((r, c)) {
        SLIDERS
    } else {
        ' '
    };
    let (mut text, mut style) = match (sv.value(r, c), range) {
        (Some(v), Some(rg)) => {
            let (ch, st) = shade(theme, level(sv, v.mean, rg));
            if sv.numbers {
                let mut t = fit_num(v.mean, fill);
                // Where some values lose their leading zero, all do, so
                // that the cells read alike (.717 beside .7384).
                if fill < 6 && (t.starts_with("0.") || t.starts_with("-0.")) {
                    t = t.replacen("0.", ".", 1);
                }
                (format!("{t:>fill$}"), Style::default())
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

/// Labels under a chart at the x of each axis value, as many as fit with
/// a space between them (the two ends always), `name` under the y labels.
/// `yw` is the width of the y labels (as the chart lays them out).
fn tick_row(area: Rect, yw: u16, xb: [f64; 2], ticks: &[(f64, String)], name: &str) -> String {
    let width = area.width as usize;
    let left = (yw.min(area.width / 3) + 1) as usize;
    let gw = width.saturating_sub(left).max(1);
    let mut row: Vec<char> = vec![' '; width];
    let col = |x: f64| {
        let t = if xb[1] > xb[0] {
            (x - xb[0]) / (xb[1] - xb[0])
        } else {
            0.0
        };
        left + (t.clamp(0.0, 1.0) * (gw - 1) as f64).round() as usize
    };
    let span = |x: f64, l: &str| {
        let n = l.chars().count();
        let start = col(x).saturating_sub(n / 2).min(width.saturating_sub(n));
        (start, start + n)
    };
    let mut put = |start: usize, l: &str| {
        for (i, ch) in l.chars().enumerate() {
            if let Some(c) = row.get_mut(start + i) {
                *c = ch;
            }
        }
    };
    let Some(((x0, l0), (x1, l1))) = ticks.first().zip(ticks.last()) else {
        return String::new();
    };
    let first = span(*x0, l0);
    let last = span(*x1, l1);
    if ticks.len() > 1 && first.1 >= last.0 {
        // Not even the ends fit apart: the first only.
        put(first.0, l0);
    } else {
        put(first.0, l0);
        put(last.0, l1);
        let mut end = first.1;
        for (x, l) in &ticks[1..ticks.len().saturating_sub(1)] {
            let (s, e) = span(*x, l);
            if s > end && e < last.0 {
                put(s, l);
                end = e;
            }
        }
    }
    if name.chars().count() < first.0 {
        put(0, name);
    }
    row.into_iter().collect::<String>().trim_end().to_string()
}

/// The chart with an x axis line but its labels left to [`tick_row`].
fn render_with_ticks(
    f: &mut Frame,
    area: Rect,
    chart: Chart,
    (yw, xb): (u16, [f64; 2]),
    (ticks, name): (&[(f64, String)], &str),
    theme: &Theme,
) {
    f.render_widget(chart, area);
    if area.height < 3 {
        return;
    }
    let row = Rect {
        y: area.bottom() - 1,
        height: 1,
        ..area
    };
    let text = tick_row(area, yw, xb, ticks, &theme.text(name));
    f.render_widget(Paragraph::new(Span::styled(text, theme.dim())), row);
}

/// A chart of `sets` in bounds (x, y), its x labels left to
/// [`render_with_ticks`], no legend (the view writes its own).
fn framed<'a>(
    sets: Vec<Dataset<'a>>,
    (xb, yb): ([f64; 2], [f64; 2]),
    ylabels: Vec<Line<'a>>,
    theme: &Theme,
) -> Chart<'a> {
    Chart::new(sets)
        .x_axis(
            Axis::default()
                .bounds(xb)
                .labels(blank_labels())
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds(yb)
                .labels(ylabels)
                .style(theme.dim()),
        )
        .legend_position(None)
}

/// A series of a chart: its name, glyph, line or dots, style and points.
fn series<'a>(
    name: impl Into<Line<'a>>,
    marker: Marker,
    kind: GraphType,
    style: Style,
    data: &'a [(f64, f64)],
) -> Dataset<'a> {
    Dataset::default()
        .name(name)
        .marker(marker)
        .graph_type(kind)
        .style(style)
        .data(data)
}

/// Empty labels that make the chart keep a row for [`tick_row`].
fn blank_labels<'a>() -> Vec<Line<'a>> {
    vec![Line::from(""), Line::from("")]
}

fn line_chart(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let (means, band) = means_and_band(sv, a);
    let kscan = sv.kind == SweepKind::KScan;
    let marks = point_marks(sv, a);
    let (line, dots) = if theme.ascii {
        (Marker::Custom('-'), Marker::Custom('.'))
    } else {
        markers(theme)
    };
    let xb = bounds(a.values.iter().map(|v| x_of(a, *v)));
    let cut = kscan && sv.score_name() == "prediction_strength";
    let cutoff: Vec<(f64, f64)> = if cut {
        vec![(xb[0], PS_CUTOFF), (xb[1], PS_CUTOFF)]
    } else {
        Vec::new()
    };
    let yb = bounds(
        band.iter()
            .chain(means.concat().iter())
            .chain(&cutoff)
            .map(|p| p.1),
    );
    let rec: Vec<(f64, f64)> = match sv.recommended_at().filter(|_| kscan) {
        Some((r, _)) => {
            let x = x_of(a, a.values[r]);
            (0..=10)
                .map(|i| (x, yb[0] + (yb[1] - yb[0]) * i as f64 / 10.0))
                .collect()
        }
        None => Vec::new(),
    };
    let mut sets = vec![
        series(
            "cutoff",
            Marker::Custom(cutoff_glyph(theme)),
            GraphType::Line,
            theme.dim(),
            &cutoff,
        ),
        series(
            "recommended",
            Marker::Custom(RECOMMENDED),
            GraphType::Scatter,
            theme.bad(),
            &rec,
        ),
        series("±sd", dots, GraphType::Scatter, theme.dim(), &band),
        series(
            sv.score_name(),
            line,
            GraphType::Line,
            theme.accent(),
            &means[0],
        ),
    ];
    for (fam, mean) in means.iter().enumerate().skip(1) {
        let (mark, style) = family_style(theme, fam);
        sets.push(series(
            sv.family_context(fam).algo.clone(),
            mark,
            GraphType::Line,
            style,
            mean,
        ));
    }
    let [sliders, best, cursor] = &marks;
    let dot =
        |name, glyph, style, at| series(name, Marker::Custom(glyph), GraphType::Scatter, style, at);
    sets.extend([
        dot("sliders", SLIDERS, theme.accent(), sliders),
        dot("best", BEST, theme.good(), best),
        dot("cursor", CURSOR, theme.warn(), cursor),
    ]);
    draw_over_axis(f, area, sets, a, (xb, yb), theme);
}

/// The points marked on the curve: where the sliders stand (not on a
/// k-scan: k is no slider, it marks its recommendation instead), the best
/// cell and the cursor's.
fn point_marks(sv: &SweepView, a: &SweepAxis) -> [Vec<(f64, f64)>; 3] {
    let at = |(r, c): (usize, usize)| {
        sv.value(r, c)
            .map(|s| vec![(x_of(a, a.values[r]), s.mean)])
            .unwrap_or_default()
    };
    let sliders = if sv.kind == SweepKind::KScan {
        Vec::new()
    } else {
        sv.current_at().map(at).unwrap_or_default()
    };
    let best = sv.best().map(at).unwrap_or_default();
    [sliders, best, at(sv.cursor)]
}

/// The mean of each cell along the axis, one curve per algorithm of a
/// k-scan that compares several, and the ±sd band around every mean.
#[allow(clippy::type_complexity)]
fn means_and_band(sv: &SweepView, a: &SweepAxis) -> (Vec<Vec<(f64, f64)>>, Vec<(f64, f64)>) {
    let mut means: Vec<Vec<(f64, f64)>> = vec![Vec::new(); sv.families()];
    let mut band = Vec::new();
    for (fam, mean) in means.iter_mut().enumerate() {
        for (i, &v) in a.values.iter().enumerate() {
            if let Some(s) = sv.value(i, fam) {
                let x = x_of(a, v);
                mean.push((x, s.mean));
                let sd = if s.sd.is_finite() { s.sd } else { 0.0 };
                band.push((x, s.mean + sd));
                band.push((x, s.mean - sd));
            }
        }
    }
    (means, band)
}

/// The chart of `sets` framed, with the y range at its ends and the
/// axis's values as ticks below.
fn draw_over_axis(
    f: &mut Frame,
    area: Rect,
    sets: Vec<Dataset>,
    a: &SweepAxis,
    (xb, yb): ([f64; 2], [f64; 2]),
    theme: &Theme,
) {
    let ylabels = vec![fmt_sig4(yb[0]), fmt_sig4(yb[1])];
    let yw = ylabels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16;
    let ylabels = ylabels.into_iter().map(Line::from).collect();
    let chart = framed(sets, (xb, yb), ylabels, theme);
    let ticks: Vec<(f64, String)> = a.values.iter().map(|&v| (x_of(a, v), tick(a, v))).collect();
    let log = if a.spacing == Spacing::Log {
        " log"
    } else {
        ""
    };
    let name = format!("{}{log}", a.symbol);
    render_with_ticks(f, area, chart, (yw, xb), (&ticks, &name), theme);
}

/// The values as a table: one axis (value, mean, ±sd) or the k-scan (k
/// and every label-free score), the best row marked, the cursor's row in
/// reverse; a window that keeps the cursor in view.
fn table(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let (rows, _) = sv.shape();
    let best = sv.best().map(|(r, _)| r);
    let cols: Vec<(&str, &str)> = match sv.kind {
        SweepKind::KScan => {
            let mut c: Vec<(&str, &str)> = KSCAN_CURVES.to_vec();
            let name = sv.score_name();
            if !c.iter().any(|(n, _)| *n == name) {
                c.push((name, name));
            }
            c
        }
        SweepKind::Grid => vec![(sv.score_name(), sv.score_name())],
    };
    let head_of = |label: &str| -> String {
        if sv.kind == SweepKind::Grid {
            label.to_string()
        } else {
            label.chars().take(6).collect()
        }
    };
    let vw = a
        .values
        .iter()
        .map(|v| tick(a, *v).chars().count())
        .max()
        .unwrap_or(1)
        .max(a.symbol.chars().count());
    let nw = 7;
    let mut lines = Vec::new();
    let mut head = format!("  {:>vw$}", a.symbol);
    for (_, label) in &cols {
        head.push_str(&format!(" {:>nw$}", head_of(label)));
    }
    if sv.kind == SweepKind::Grid {
        head.push_str(&format!(" {:>nw$}", "±sd"));
    }
    lines.push(Line::from(Span::styled(
        clip(&theme.text(&head), area.width as usize),
        theme.dim(),
    )));
    let fit = (area.height as usize).saturating_sub(1).max(1);
    let first = if rows > fit {
        sv.cursor.0.saturating_sub(fit - 1).min(rows - fit)
    } else {
        0
    };
    for r in first..(first + fit).min(rows) {
        let mark = if best == Some(r) { BEST } else { ' ' };
        let mut text = format!("{mark} {:>vw$}", tick(a, a.values[r]));
        let cell = sv.cell(r, sv.cursor.1);
        for (name, _) in &cols {
            let v = cell.and_then(|c| c.score(name)).map(|s| s.mean);
            let t = v.map_or("…".to_string(), |v| fit_num(v, nw));
            text.push_str(&format!(" {t:>nw$}"));
        }
        if sv.kind == SweepKind::Grid {
            let sd = sv.value(r, sv.cursor.1).map(|s| s.sd);
            let t = sd.map_or(String::new(), |v| fit_num(v, nw));
            text.push_str(&format!(" {t:>nw$}"));
        }
        let style = if r == sv.cursor.0 {
            theme.selected()
        } else {
            Style::default()
        };
        lines.push(Line::from(Span::styled(
            clip(&theme.text(&text), area.width as usize),
            style,
        )));
    }
    f.render_widget(Paragraph::new(lines), area);
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
        .map(|(name, _)| scaled_curve(sv, name))
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
            series(
                *label,
                if theme.ascii {
                    Marker::Custom(styles[i].0)
                } else {
                    Marker::Braille
                },
                GraphType::Line,
                styles[i].1,
                pts,
            )
        })
        .collect();
    sets.push(series(
        "recommended",
        Marker::Custom(RECOMMENDED),
        GraphType::Scatter,
        theme.bad(),
        &sug,
    ));
    // The best k and the cursor, on the curve of the score shown (scaled
    // as the curves are).
    let shown: Vec<Option<f64>> = (0..a.values.len())
        .map(|i| sv.value(i, sv.cursor.1).map(|s| s.mean))
        .collect();
    let [lo, hi] = bounds(shown.iter().flatten().copied());
    let at = |r: usize| -> Vec<(f64, f64)> {
        shown
            .get(r)
            .copied()
            .flatten()
            .map(|v| vec![(a.values[r], (v - lo) / (hi - lo))])
            .unwrap_or_default()
    };
    let best = sv.best().map(|(r, _)| at(r)).unwrap_or_default();
    let cursor = at(sv.cursor.0);
    for (name, mark, style, pts) in [
        ("best", BEST, theme.good(), &best),
        ("cursor", CURSOR, theme.warn(), &cursor),
    ] {
        sets.push(series(
            name,
            Marker::Custom(mark),
            GraphType::Scatter,
            style,
            pts,
        ));
    }
    let xb = bounds(a.values.iter().copied());
    let ylabels = vec![Line::from("min"), Line::from("max")];
    let chart = framed(sets, (xb, [0.0, 1.0]), ylabels, theme);
    let ticks: Vec<(f64, String)> = a.values.iter().map(|&k| (k, a.show(k))).collect();
    render_with_ticks(f, area, chart, (3, xb), (&ticks, "k"), theme);
}

/// A score of the k-scan along k, for the cursor's algorithm, scaled to
/// its own range (0 at its lowest, 1 at its highest).
fn scaled_curve(sv: &SweepView, name: &str) -> Vec<(f64, f64)> {
    let a = &sv.plan.axes[0];
    let pts: Vec<(f64, f64)> = a
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, &k)| {
            sv.cell(i, sv.cursor.1)
                .and_then(|c| c.score(name))
                .map(|s| (k, s.mean))
                .filter(|p| p.1.is_finite())
        })
        .collect();
    let [lo, hi] = bounds(pts.iter().map(|p| p.1));
    pts.into_iter()
        .map(|(k, v)| (k, (v - lo) / (hi - lo)))
        .collect()
}

/// The k whose curve or bars the k-scan's panels show: the cursor's.
fn cursor_k(sv: &SweepView) -> Option<usize> {
    sv.cell(sv.cursor.0, sv.cursor.1).map(|c| c.k)
}

/// The legend of the consensus and silhouette panels.
fn panel_legend(sv: &SweepView, theme: &Theme, w: usize) -> Vec<Line<'static>> {
    let lines = |text: String| wrapped_lines(theme, &text, w);
    if sv.panel == Panel::Consensus {
        let a = &sv.plan.axes[0];
        // The curves' keys, on as many rows as they take.
        let mut out = Vec::new();
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        for (j, &k) in a.values.iter().enumerate() {
            if sv
                .cell(j, sv.cursor.1)
                .is_some_and(|c| !c.consensus_cdf.is_empty())
            {
                let key = format!("{} k={} ", theme.series_key(j), a.show(k));
                let len = key.chars().count();
                if used + len > w && !spans.is_empty() {
                    out.push(Line::from(std::mem::take(&mut spans)));
                    used = 0;
                }
                used += len;
                spans.push(Span::styled(key, theme.cluster(j)));
            }
        }
        out.push(Line::from(spans));
        let mut text = format!(
            "consensus CDF: the share of pairs of rows put together at most x of the time · {CONSENSUS_MARK} 0.1 and 0.9 · a stable k is flat between them"
        );
        if let Some(c) = sv
            .cell(sv.cursor.0, sv.cursor.1)
            .filter(|c| c.consensus_cdf.len() == CDF_STEPS + 1)
        {
            let at = |x: f64| c.consensus_cdf[(x * CDF_STEPS as f64).round() as usize];
            text.push_str(&format!(
                " · k={}: PAC {} (CDF {} at 0.9 − {} at 0.1), area {}",
                c.k,
                fit_num(c.score("pac").map_or(f64::NAN, |s| s.mean), 6),
                fit_num(at(PAC_HIGH), 6),
                fit_num(at(PAC_LOW), 6),
                fit_num(c.consensus_area, 6),
            ));
        }
        text.push_str(" · ←→ k · c scores");
        out.extend(lines(text));
        return out;
    }
    lines(
        "silhouette per cluster of the lowest-objective run, on the rows and in the space of the silhouette score · bars from 0, red below · ←→ k · w scores"
            .to_string(),
    )
}

/// The vertical marks at 0.1 and 0.9 on the consensus chart.
const CONSENSUS_MARK: char = ':';

/// One curve per finished k: the consensus CDF, x the consensus, y the
/// share of pairs at or below it; the cursor's k drawn last (on top).
fn consensus_chart(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let a = &sv.plan.axes[0];
    let xs = cdf_points();
    let curves: Vec<(usize, Vec<(f64, f64)>)> = (0..a.values.len())
        .filter_map(|j| {
            let c = sv.cell(j, sv.cursor.1)?;
            let pts: Vec<(f64, f64)> = xs
                .iter()
                .zip(&c.consensus_cdf)
                .map(|(&x, &y)| (x, y))
                .filter(|p| p.1.is_finite())
                .collect();
            (!pts.is_empty()).then_some((j, pts))
        })
        .collect();
    if curves.is_empty() {
        let text = if sv.running {
            "the consensus CDFs appear as the cells finish"
        } else {
            "no consensus: no cell had enough rows for its resamples"
        };
        f.render_widget(Paragraph::new(Span::styled(text, theme.dim())), area);
        return;
    }
    let marks: Vec<(f64, f64)> = [PAC_LOW, PAC_HIGH]
        .iter()
        .flat_map(|&x| (0..=10).map(move |i| (x, i as f64 / 10.0)))
        .collect();
    let mut sets = vec![series(
        "0.1, 0.9",
        Marker::Custom(CONSENSUS_MARK),
        GraphType::Scatter,
        theme.dim(),
        &marks,
    )];
    let on_top = sv.cursor.0;
    let mut order: Vec<&(usize, Vec<(f64, f64)>)> = curves.iter().collect();
    order.sort_by_key(|(j, _)| *j == on_top);
    for (j, pts) in order {
        sets.push(series(
            a.show(a.values[*j]),
            theme.series_marker(*j),
            GraphType::Line,
            theme.cluster(*j),
            pts,
        ));
    }
    let ylabels = vec![Line::from("0"), Line::from("1")];
    let chart = framed(sets, ([0.0, 1.0], [0.0, 1.0]), ylabels, theme);
    let ticks: Vec<(f64, String)> = [0.0, PAC_LOW, 0.5, PAC_HIGH, 1.0]
        .iter()
        .map(|&x| (x, fmt_sig4(x)))
        .collect();
    render_with_ticks(f, area, chart, (1, [0.0, 1.0]), (&ticks, "x"), theme);
}

/// The silhouette of each cluster of the cursor's k (its cell's
/// lowest-objective run): a row per cluster with its rows, mean, share
/// below 0 and a bar from 0 (left for a negative mean), then the overall
/// value, as the classic silhouette plot summarised per cluster.
fn silhouette_bars(f: &mut Frame, area: Rect, sv: &SweepView, theme: &Theme) {
    let w = area.width as usize;
    let k = cursor_k(sv);
    let recommended = sv.suggested_k().is_some_and(|r| Some(r) == k);
    let run = sv.cell(sv.cursor.0, sv.cursor.1).and_then(|c| c.best_run());
    let mut lines = Vec::new();
    let Some((k, run)) = k.zip(run) else {
        let text = format!("{}: not done yet", sweep_at(sv, sv.cursor.0, 0));
        f.render_widget(Paragraph::new(Span::styled(text, theme.dim())), area);
        return;
    };
    let overall = run.internal.silhouette;
    let clusters = &run.silhouette_clusters;
    let rows_scored: f64 = clusters.iter().map(|c| c.size).sum();
    let head = silhouette_head(sv, k, recommended, run, rows_scored);
    for l in wrap(&theme.text(&head), w) {
        lines.push(Line::from(Span::styled(l, theme.accent())));
    }
    if clusters.is_empty() {
        lines.push(Line::from(Span::styled(
            "no silhouette: the partition has fewer than two clusters among the rows scored",
            theme.dim(),
        )));
        f.render_widget(Paragraph::new(lines), area);
        return;
    }
    let (full, _) = theme.bar_chars();
    let fixed = "cluster   rows    mean   <0  ".chars().count();
    let bar_w = w.saturating_sub(fixed).max(4);
    lines.push(Line::from(Span::styled(
        clip(
            &format!(
                "{:>7} {:>6} {:>7} {:>4}  silhouette from 0",
                "cluster", "rows", "mean", "<0"
            ),
            w,
        ),
        theme.dim(),
    )));
    let room = (area.height as usize).saturating_sub(lines.len() + 1);
    let shown = if clusters.len() > room {
        room.saturating_sub(1)
    } else {
        clusters.len()
    };
    let row = |name: String, size: f64, mean: f64, neg: Option<f64>, style: Style| {
        // Below 0 the bar says so in the colour of a bad value.
        let style = if mean < 0.0 { theme.bad() } else { style };
        silhouette_row(&name, [size, mean], neg, (bar_w, full), style)
    };
    for c in clusters.iter().take(shown) {
        lines.push(row(
            c.label.to_string(),
            c.size,
            c.mean,
            Some(c.negative),
            theme.cluster(c.label),
        ));
    }
    if shown < clusters.len() {
        lines.push(Line::from(Span::styled(
            format!(
                "… {} more clusters (a taller terminal shows them)",
                clusters.len() - shown
            ),
            theme.dim(),
        )));
    }
    lines.push(row(
        "overall".into(),
        rows_scored,
        overall,
        None,
        theme.accent(),
    ));
    f.render_widget(Paragraph::new(lines), area);
}

/// The silhouette view's head: the k (and whether it is the one
/// recommended), the overall value, the rows scored, in which space, and
/// the run it was measured on.
fn silhouette_head(
    sv: &SweepView,
    k: usize,
    recommended: bool,
    run: &crate::sweep::RunSummary,
    rows_scored: f64,
) -> String {
    format!(
        "{}k = {k}{} · silhouette {} on {} {}rows in the {} · run of seed {} (lowest objective)",
        family_prefix(sv),
        if recommended { " (recommended)" } else { "" },
        fit_num(run.internal.silhouette, 6),
        fit_num(rows_scored, 8),
        if run.internal.silhouette_sample.is_some() {
            "sampled "
        } else {
            ""
        },
        match run.internal.space {
            crate::fit_scores::SpaceKind::Features => "input features",
            crate::fit_scores::SpaceKind::Kernel => "kernel's space",
            crate::fit_scores::SpaceKind::Rff => "RFF map's space",
        },
        run.seed,
    )
}

/// A row of the silhouette view: the cluster's name, its rows and mean
/// (`[size, mean]`), its share below 0, and the bar (`bar`: its width and
/// glyph) drawn in `style`.
fn silhouette_row(
    name: &str,
    [size, mean]: [f64; 2],
    neg: Option<f64>,
    (bar_w, full): (usize, char),
    style: Style,
) -> Line<'static> {
    let (pad, b) = silhouette_bar(mean, bar_w, full);
    let neg = neg.map_or(String::new(), |v| format!("{:.0}%", v * 100.0));
    let text = format!(
        "{name:>7} {:>6} {:>7} {neg:>4}  ",
        fit_num(size, 6),
        fit_num(mean, 7)
    );
    Line::from(vec![
        Span::raw(text),
        Span::raw(pad),
        Span::styled(b, style),
    ])
}

/// A silhouette `v` as a bar of `bar_w` cells of `full`: (the blank
/// before it, the bar). A quarter of the room is left of 0: a silhouette
/// below 0 is rarely far below it.
fn silhouette_bar(v: f64, bar_w: usize, full: char) -> (String, String) {
    let zero = bar_w / 4;
    let v = v.clamp(-1.0, 1.0);
    if v >= 0.0 {
        let n = (v * (bar_w - zero) as f64).round() as usize;
        (" ".repeat(zero), full.to_string().repeat(n))
    } else {
        let n = ((-v) * zero as f64).round().max(1.0) as usize;
        (
            " ".repeat(zero - n.min(zero)),
            full.to_string().repeat(n.min(zero)),
        )
    }
}

/// A score's name in the recommendation line.
fn score_label(score: &str) -> &str {
    match score {
        "prediction_strength" => "prediction strength",
        "resample_stability" => "resampled stability",
        "pac" => "PAC",
        "calinski_harabasz" => "CH",
        "davies_bouldin" => "DB",
        "stability" => "seed stability",
        other => other,
    }
}

/// The recommendation (and the scores that agree, and where the others
/// point), then the k where runs stopped at max_iter or lost a cluster.
/// Wrapped to `w` it takes at most `rows` rows: the rule's words, the agreeing scores and the others' picks are left
/// out in that order until it does.
fn advice_line(sv: &SweepView, w: usize, rows: usize) -> String {
    if !sv.recommends() {
        return String::new();
    }
    let at = |pos: usize| -> String {
        let (_, cols) = sv.shape();
        match sv.kind {
            SweepKind::KScan => sv
                .cell(pos / cols, pos % cols)
                .map_or("-".into(), |c| c.k.to_string()),
            SweepKind::Grid => sweep_at(sv, pos / cols, pos % cols),
        }
    };
    let so_far = if sv.running { "so far " } else { "" };
    let recommendation = if sv.families() > 1 {
        None
    } else {
        sv.recommendation()
    };
    let mut line = match recommendation {
        _ if sv.families() > 1 => match sv.across() {
            Some(((r, c), by)) => {
                let what = format!(
                    "{so_far}recommended {} k = {}",
                    sv.family_context(c).algo,
                    sv.cell(r, c).map_or(0, |c| c.k)
                );
                let (score, rule) = by.split_once(": ").unwrap_or((by, ""));
                [
                    format!("{what} ({}: {rule}; a adopts both)", score_label(score)),
                    format!("{what} (by {}; a adopts both)", score_label(score)),
                ]
                .into_iter()
                .find(|t| wrap(t, w).len() <= rows)
                .unwrap_or_else(|| format!("{what}; a adopts both"))
            }
            None if sv.running => "no recommendation yet".into(),
            None => "no recommendation: no cell kept its clusters".into(),
        },
        // Over the cells done: another may change it.
        Some(r) if sv.running => {
            format!(
                "so far {}",
                recommended_text(sv, &r, w.saturating_sub(7), rows, &at)
            )
        }
        Some(r) => recommended_text(sv, &r, w, rows, &at),
        None if sv.running => "no recommendation yet".into(),
        None => "no recommendation: no cell kept its clusters".into(),
    };
    if sv.kind != SweepKind::KScan {
        return line;
    }
    // Scores of runs that stopped at max_iter or lost a cluster describe
    // a partition the algorithm did not finish or could not keep.
    let capped = sv.ks_where(|c| c.runs.iter().any(|r| !r.converged));
    if !capped.is_empty() {
        line.push_str(&format!(" · stopped at max_iter: k {capped}"));
    }
    let collapsed = sv.ks_where(|c| c.collapsed());
    if !collapsed.is_empty() {
        line.push_str(&format!(
            " · lost a cluster (never recommended): k {collapsed}"
        ));
    }
    line
}

/// The recommendation `r` in at most `rows` rows of `w`; `at` names a
/// cell by its grid position.
fn recommended_text(
    sv: &SweepView,
    r: &Recommendation,
    w: usize,
    rows: usize,
    at: &dyn Fn(usize) -> String,
) -> String {
    let what = match sv.kind {
        SweepKind::KScan => format!("k = {}", at(r.cell)),
        SweepKind::Grid => at(r.cell),
    };
    let agree: Vec<&str> = r
        .picks
        .iter()
        .filter(|p| p.cell == r.cell)
        .map(|p| score_label(p.score))
        .collect();
    let others: Vec<String> = r
        .picks
        .iter()
        .filter(|p| p.cell != r.cell)
        .map(|p| format!("{} {}", score_label(p.score), at(p.cell)))
        .collect();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" · {}", others.join(" · "))
    };
    let (score, rule) = r.by.split_once(": ").unwrap_or((r.by.as_str(), ""));
    let score = score_label(score);
    let (n, of) = (agree.len(), r.picks.len());
    let agree = agree.join(", ");
    // From the most said to the least, the first that fits.
    let tries = [
        format!(
            "recommended {what} ({score}: {rule}; a adopts it) · agree {n}/{of}: {agree}{others}"
        ),
        format!("recommended {what} (by {score}; a adopts it) · agree {n}/{of}: {agree}{others}"),
        format!("recommended {what} (by {score}; a adopts it) · agree {n}/{of}{others}"),
    ];
    tries
        .into_iter()
        .find(|t| wrap(t, w).len() <= rows)
        .unwrap_or_else(|| {
            // Still too long: the agreement alone.
            format!("recommended {what} (by {score}; a adopts it) · agree {n}/{of}")
        })
}

#[cfg(test)]
mod tests {
    use super::{Theme, fit_num, fit_title};

    #[test]
    fn a_title_too_wide_leaves_parts_out_whole() {
        let parts: Vec<String> = ["Sweep s₀ × η", "power k=3", "25 cells in 207 ms", "3 seeds"]
            .iter()
            .map(|p| p.to_string())
            .collect();
        let plain = Theme {
            color: false,
            ascii: false,
        };
        // 80×24: 46 columns inside the border.
        let t = fit_title(&parts, &plain, 46);
        assert_eq!(t.trim(), "Sweep s₀ × η · power k=3 · 25 cells in 207 ms");
        assert!(t.chars().count() <= 46 && !t.contains('…'));
        // Wide: everything, padded.
        let t = fit_title(&parts, &plain, 120);
        assert_eq!(
            t,
            " Sweep s₀ × η · power k=3 · 25 cells in 207 ms · 3 seeds "
        );
    }

    #[test]
    fn numbers_lose_digits_before_they_are_cut() {
        assert_eq!(fit_num(0.73124, 6), "0.7312");
        assert_eq!(fit_num(0.73124, 5), ".7312");
        assert_eq!(fit_num(0.73124, 4), ".731");
        assert_eq!(fit_num(-0.73124, 4), "-.73");
        assert_eq!(
            fit_num(138.94, 4),
            "138.9".chars().take(0).collect::<String>() + "139"
        );
        assert_eq!(fit_num(f64::NAN, 4), "-");
        for w in 3..9 {
            for v in [2_186_300.0, 0.000_123_4, -48.5625, 1.0] {
                assert!(
                    fit_num(v, w).chars().count() <= w,
                    "{v} in {w}: {}",
                    fit_num(v, w)
                );
            }
        }
    }
}
