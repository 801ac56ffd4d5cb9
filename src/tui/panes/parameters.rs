use super::theme::Theme;
use super::{block, clip, wrap};
use crate::algo::params::{Default as PDefault, Scale, fmt_num};
use crate::tui::app::slider::Slider;
use crate::tui::components::parameters::ParamsDraw;
use crate::tui::keys::Pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A log slider spans this factor either side of its default: the declared
/// ranges (σ in [10⁻⁶, 10⁶]) are far wider than what makes sense for one
/// dataset, and a bar over all of them would not move between values a
/// decade apart.
pub const LOG_SPAN: f64 = 1e3;

/// The part of a slider's range its bar shows: the declared range for a
/// linear slider, else `LOG_SPAN` either side of the default (the
/// automatic value on this data), within the declared range.
pub fn window(s: &Slider) -> (f64, f64) {
    let (lo, hi) = (s.spec.min, s.spec.max);
    if s.spec.scale != Scale::Log {
        return (lo, hi);
    }
    match s.default_value().filter(|d| *d != 0.0) {
        Some(d) if d > 0.0 => ((d / LOG_SPAN).max(lo), (d * LOG_SPAN).min(hi)),
        Some(d) => ((d * LOG_SPAN).max(lo), (d / LOG_SPAN).min(hi)),
        None => (lo, hi),
    }
}

/// Where `v` sits in the slider's window, 0 to 1, on the slider's scale
/// (values outside the window give 0 or 1).
pub fn position_of(s: &Slider, v: f64) -> f64 {
    let (lo, hi) = window(s);
    if hi <= lo || !v.is_finite() {
        return 0.0;
    }
    if s.spec.scale == Scale::Log && (lo > 0.0 || hi < 0.0) {
        let t = |x: f64| x.abs().max(1e-300).ln();
        let (a, b) = (t(lo), t(hi));
        if a != b {
            // 0 lies below a positive window (and above a negative one).
            if v == 0.0 || v.signum() != lo.signum() {
                return if lo > 0.0 { 0.0 } else { 1.0 };
            }
            return ((t(v) - a) / (b - a)).clamp(0.0, 1.0);
        }
    }
    ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
}

/// Where the slider's value sits, 0 to 1.
pub fn position(s: &Slider) -> f64 {
    position_of(s, s.value)
}

/// The bar of a slider: filled to the value, `|` at the default, `<` or
/// `>` at an end when the value lies beyond the window.
pub fn slider_bar(s: &Slider, width: usize, theme: &Theme) -> String {
    let mut cells: Vec<char> = super::bar(position(s), width, theme).chars().collect();
    if width == 0 {
        return String::new();
    }
    let cell = |p: f64| ((p * (width - 1) as f64).round() as usize).min(width - 1);
    if let Some(d) = s.default_value() {
        cells[cell(position_of(s, d))] = if theme.ascii { '|' } else { '│' };
    }
    let (lo, hi) = window(s);
    if s.value < lo {
        cells[0] = '<';
    } else if s.value > hi {
        cells[width - 1] = '>';
    }
    cells.into_iter().collect()
}

/// "σ sigma", "ε_w soft_tol", or just "k" when symbol and name agree; in
/// ASCII mode the symbol is spelt out (sigma, eps_w), never cut to a
/// letter that means something else.
pub fn label(s: &Slider, theme: &Theme) -> String {
    let symbol = theme.text(s.spec.symbol);
    let bare = |t: &str| t.replace([' ', '_'], "");
    // "max it" for max_iter says nothing the name does not.
    if bare(s.spec.name).starts_with(&bare(&symbol)) {
        s.spec.name.to_string()
    } else {
        format!("{symbol} {}", s.spec.name)
    }
}

/// The help of the focused slider: name, range, scale and default, then
/// the parameter's help text.
fn footer_text(s: &Slider, theme: &Theme) -> (String, String) {
    let default = match (s.spec.default, s.auto) {
        (PDefault::Auto(rule), Some(v)) => format!("auto {} ({rule})", fmt_num(v)),
        (PDefault::Auto(rule), None) => format!("auto ({rule})"),
        (PDefault::Fixed(v), _) => fmt_num(v),
    };
    let scale = if s.spec.scale == Scale::Log {
        let (lo, hi) = window(s);
        format!("log, bar {} to {}", fmt_num(lo), fmt_num(hi))
    } else {
        "lin".into()
    };
    let head = format!(
        "{} [{}, {}] {scale} · default {default}",
        label(s, theme),
        fmt_num(s.spec.min),
        fmt_num(s.spec.max)
    );
    (
        theme.text(&head).into_owned(),
        theme.text(s.spec.help).into_owned(),
    )
}

/// The focused slider's help below the sliders: its range and default,
/// then its help text, cut with a pointer to Enter when it does not fit.
/// It takes what it needs of the `h` rows, but the `n` sliders keep at
/// least five rows (or all, if fewer).
fn footer(s: &Slider, n: usize, w: usize, h: usize, theme: &Theme) -> Vec<Line<'static>> {
    let (head, help) = footer_text(s, theme);
    let room = h.saturating_sub(n.min((h / 2).max(5)) + usize::from(h >= 12));
    let mut lines: Vec<Line> = wrap(&head, w)
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.accent())))
        .collect();
    let mut help_lines = wrap(&help, w);
    let left = room.saturating_sub(lines.len());
    if help_lines.len() > left && left > 0 {
        help_lines.truncate(left);
        let last = help_lines.last_mut().expect("left > 0");
        let more = theme.text(" … Enter: all").into_owned();
        let keep = w.saturating_sub(more.chars().count());
        // Whole words only, then the pointer to the rest.
        let head = wrap(last, keep).into_iter().next().unwrap_or_default();
        *last = format!("{head}{more}");
    } else if left == 0 {
        help_lines.clear();
    }
    lines.extend(
        help_lines
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim()))),
    );
    lines.truncate(room);
    lines
}

/// Draws the sliders; returns the screen row of each slider, for the mouse.
pub fn render(
    f: &mut Frame,
    area: Rect,
    cursor: usize,
    ctx: ParamsDraw<'_>,
    theme: &Theme,
) -> Vec<(usize, Rect)> {
    let focused = ctx.focused;
    let sliders = ctx.sliders;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    // The footer (the focused slider's help) takes what it needs, but the
    // sliders keep at least five rows (or all, if fewer).
    let footer = match sliders.get(cursor) {
        Some(s) if h >= 6 => footer(s, sliders.len(), w, h, theme),
        _ => Vec::new(),
    };
    // A blank line sets the help apart, when there is room for one.
    let gap = usize::from(!footer.is_empty() && h >= 12);
    // The kernel in force heads the list (O changes it), so it is always
    // in sight with σ.
    let kernel = ctx.kernel;
    let head = usize::from(kernel.is_some() && h >= 4);
    let rows = h.saturating_sub(footer.len() + gap + head);
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines = Vec::new();
    if let (1, Some((k, uses_sigma))) = (head, kernel) {
        let note = if uses_sigma { "" } else { " (σ unused)" };
        let text = theme.text(&format!("kernel {k}{note} (O)")).into_owned();
        lines.push(Line::from(Span::styled(clip(&text, w), theme.accent())));
    }
    let mut hits = Vec::new();
    let val_w = 10;
    let marks = ctx.marks;
    let labels = marked_labels(sliders, marks, theme);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    // The bar keeps at least 6 cells; names get the rest, up to their length.
    let name_w = (longest + 1).min(w.saturating_sub(val_w + 2 + 6)).max(5);
    let bar_w = w.saturating_sub(name_w + val_w + 2).max(3);
    for (i, s) in sliders.iter().enumerate().skip(first).take(rows) {
        let mark = if s.is_default { ' ' } else { '*' };
        let text = format!(
            "{:<name_w$}{:>val_w$}{mark} {}",
            clip(&labels[i], name_w - 1),
            // Rounded to the column, never cut (0.000450123 → 0.0004501).
            crate::numfmt::fit(s.value, val_w),
            slider_bar(s, bar_w, theme),
        );
        // σ means nothing to a linear, polynomial or cosine kernel.
        let unused = s.spec.name == "sigma" && kernel.as_ref().is_some_and(|(_, uses)| !uses);
        let style = if i == cursor && focused {
            theme.selected()
        } else if unused {
            theme.dim()
        } else {
            ratatui::style::Style::default()
        };
        // Where the mouse finds the slider: its row inside the border.
        let y = area.y + 1 + (head + i - first) as u16;
        hits.push((i, Rect::new(area.x + 1, y, area.width.saturating_sub(2), 1)));
        lines.push(Line::from(Span::styled(clip(&text, w), style)));
    }
    if !footer.is_empty() {
        while lines.len() < rows + gap + head {
            lines.push(Line::from(""));
        }
        lines.extend(footer);
    }
    let below = sliders.len().saturating_sub(first + rows);
    let extra = title_extra(first, below, focused, marks);
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Parameters, focused, theme, &extra, area.width)),
        area,
    );
    hits
}

/// Each slider's label; one marked as a sweep axis (m) starts with ~.
fn marked_labels(sliders: &[Slider], marks: &[String], theme: &Theme) -> Vec<String> {
    sliders
        .iter()
        .map(|s| {
            let l = label(s, theme);
            if marks.iter().any(|m| m == s.spec.name) {
                format!("~{l}")
            } else {
                l
            }
        })
        .collect()
}

/// The title after the pane's name: how many sliders are scrolled off
/// (`first` above, `below`), the keys when focused, the sweep axes.
fn title_extra(first: usize, below: usize, focused: bool, marks: &[String]) -> String {
    let more = match (first, below) {
        (0, 0) => String::new(),
        (0, b) => format!("↓ {b} more"),
        (a, 0) => format!("↑ {a} more"),
        (a, b) => format!("↑ {a} ↓ {b} more"),
    };
    let mut extra = if focused {
        format!("{more} · ←→ adjust · Enter edit · * changed")
    } else {
        more
    };
    if !marks.is_empty() {
        extra.push_str(&format!(" · ~ sweep axis (S sweeps {})", marks.join("×")));
    }
    extra
}
