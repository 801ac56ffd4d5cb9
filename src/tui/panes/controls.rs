//! The list of non-numeric settings (O), drawn over the panes.

use super::theme::Theme;
use super::{clip, wrap};
use crate::tui::app::App;
use crate::tui::app::controls::Scope;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let controls = app.controls();
    let w = area.width.saturating_sub(4).min(90);
    let inner_w = w.saturating_sub(2) as usize;
    let name_w = 9;
    let mut lines: Vec<Line> = Vec::new();
    for (i, c) in controls.iter().enumerate() {
        let whose = match c.scope {
            Scope::Algorithm => app.algo().id().to_string(),
            Scope::Run => "every run".into(),
            Scope::Data => "reloads".into(),
        };
        let value_w = inner_w.saturating_sub(name_w + whose.chars().count() + 4);
        let text = format!(
            "{} {:<name_w$}{:<value_w$} {whose}",
            if i == app.controls_cursor { '>' } else { ' ' },
            c.name,
            clip(&theme.text(&c.value), value_w),
        );
        let style = if i == app.controls_cursor {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
    lines.push(Line::from(""));
    if let Some(c) = controls.get(app.controls_cursor) {
        let presets = format!("←→: {}", c.presets.join(" · "));
        for l in wrap(&theme.text(&presets), inner_w) {
            lines.push(Line::from(Span::styled(l, theme.accent())));
        }
        for l in wrap(&theme.text(c.help), inner_w) {
            lines.push(Line::from(Span::styled(l, theme.dim())));
        }
    }
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect {
        x: area.x + (area.width.saturating_sub(w)) / 2,
        y: area.y + (area.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    };
    let title = theme
        .text(" Options · ↑↓ choose · ←→ value · Enter type · Esc close ")
        .into_owned();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_type(BorderType::Thick)
                .border_style(theme.focused_border())
                .title(Line::from(Span::styled(
                    clip(&title, w as usize - 2),
                    theme.title(),
                ))),
        ),
        r,
    );
}
