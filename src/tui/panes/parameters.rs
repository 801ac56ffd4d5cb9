use super::{bar, block, clip};
use crate::algo::params::{Default as PDefault, Scale, fmt_num};
use crate::tui::app::{App, Pane, Slider};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Where a value sits in its slider's range, 0 to 1, on the slider's scale.
pub fn position(s: &Slider) -> f64 {
    let (lo, hi, v) = (s.spec.min, s.spec.max, s.value);
    if hi <= lo {
        return 0.0;
    }
    if s.spec.scale == Scale::Log {
        let floor = 1e-12;
        let t = |x: f64| x.abs().max(floor).ln();
        if lo.signum() == hi.signum() || lo == 0.0 || hi == 0.0 {
            let (a, b) = (t(lo), t(hi));
            if a != b {
                return ((t(v) - a) / (b - a)).clamp(0.0, 1.0);
            }
        }
    }
    ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
}

/// Draws the sliders; returns the screen row of each slider, for the mouse.
pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Vec<(usize, Rect)> {
    let focused = app.focus == Pane::Parameters;
    let sliders = app.sliders();
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let footer = if h >= 6 { 2 } else { 0 };
    let rows = h.saturating_sub(footer);
    let first = app.param_cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines = Vec::new();
    let mut hits = Vec::new();
    let val_w = 11;
    let name_w = 9;
    let bar_w = w.saturating_sub(name_w + val_w + 2).max(3);
    for (i, s) in sliders.iter().enumerate().skip(first).take(rows) {
        let mark = if s.is_default { ' ' } else { '*' };
        let text = format!(
            "{:<name_w$}{:>val_w$}{mark} {}",
            clip(s.spec.symbol, name_w - 1),
            clip(&fmt_num(s.value), val_w),
            bar(position(s), bar_w, theme),
        );
        let style = if i == app.param_cursor && focused {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        hits.push((
            i,
            Rect {
                x: area.x + 1,
                y: area.y + 1 + (i - first) as u16,
                width: area.width.saturating_sub(2),
                height: 1,
            },
        ));
        lines.push(Line::from(Span::styled(clip(&text, w), style)));
    }
    if footer > 0 {
        while lines.len() < rows {
            lines.push(Line::from(""));
        }
        if let Some(s) = sliders.get(app.param_cursor) {
            let default = match (s.spec.default, s.auto) {
                (PDefault::Auto(rule), Some(v)) => format!("auto {} ({rule})", fmt_num(v)),
                (PDefault::Auto(rule), None) => format!("auto ({rule})"),
                (PDefault::Fixed(v), _) => fmt_num(v),
            };
            let scale = if s.spec.scale == Scale::Log {
                "log"
            } else {
                "lin"
            };
            lines.push(Line::from(Span::styled(
                clip(
                    &format!(
                        "{} [{}, {}] {scale} · default {default}",
                        s.spec.name,
                        fmt_num(s.spec.min),
                        fmt_num(s.spec.max)
                    ),
                    w,
                ),
                theme.accent(),
            )));
            lines.push(Line::from(Span::styled(clip(s.spec.help, w), theme.dim())));
        }
    }
    let extra = if focused {
        "←→ adjust, Enter edit"
    } else {
        ""
    };
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Parameters, focused, theme, extra, area.width)),
        area,
    );
    hits
}
