//! A prompt, drawn over the panes near the bottom: the text typed, then
//! the reason a value was refused or the completions, and for a value
//! the parameter's whole help.

use crate::tui::app::{App, Prompt, PromptKind, Slider};
use crate::tui::panes::theme::Theme;
use crate::tui::panes::{self, wrap};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render_prompt(f: &mut Frame, area: Rect, p: &Prompt, app: &App, theme: &Theme) {
    let w = area.width.saturating_sub(4).min(100);
    let inner_w = w.saturating_sub(2) as usize;
    let sliders = app.sliders();
    let slider = match &p.kind {
        PromptKind::Value(i) => sliders.get(*i),
        _ => None,
    };
    // Under the entry: the reason a value was refused or the completion
    // candidates, then (for a value) the parameter's whole help.
    let mut below: Vec<Line> = wrap(&theme.text(&p.hint), inner_w)
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| Line::from(Span::styled(l, theme.accent())))
        .collect();
    if let Some(s) = slider {
        for l in wrap(&theme.text(s.spec.help), inner_w) {
            below.push(Line::from(Span::styled(l, theme.dim())));
        }
    }
    let max_below = area.height.saturating_sub(6) as usize;
    if below.len() > max_below {
        below.truncate(max_below);
    }
    let h = below.len() as u16 + 3;
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + area.height.saturating_sub(h + 2),
        width: w,
        height: h,
    };
    let title = title(&p.kind, slider, theme);
    let text = format!("> {}_", p.text);
    let shown: String = if text.chars().count() > inner_w {
        text.chars().skip(text.chars().count() - inner_w).collect()
    } else {
        text
    };
    let mut lines = vec![Line::from(shown)];
    lines.extend(below);
    panes::overlay(f, r, lines, &title, theme);
}

/// The prompt's frame title: what it asks for.
fn title(kind: &PromptKind, slider: Option<&Slider>, theme: &Theme) -> String {
    match kind {
        PromptKind::Value(_) => {
            let name = slider
                .map(|s| panes::parameters::label(s, theme))
                .unwrap_or_else(|| "value".into());
            format!(" Set {name} ")
        }
        PromptKind::OpenFile => " Open file ".into(),
        PromptKind::Export => " Export ".into(),
        PromptKind::Sweep => " Sweep ".into(),
        PromptKind::KScan => " k-scan ".into(),
        PromptKind::Control(name) => format!(" Set {name} "),
        PromptKind::HistoryExport => " Export the History ".into(),
        PromptKind::ConfirmExport(_)
        | PromptKind::ConfirmHistoryExport(_)
        | PromptKind::ConfirmNames(_) => " Replace? ".into(),
        PromptKind::Search => " Filter features ".into(),
        PromptKind::ExportNames => " Export the selected names ".into(),
    }
}
