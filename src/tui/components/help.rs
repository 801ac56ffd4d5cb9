//! The help overlay (? or F1): every key of the panes, the sweep view and
//! a prompt, as the components list them from the key table, scrolled
//! when it does not fit.

use super::{Component, Outcome};
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes::theme::Theme;
use crate::tui::panes::wrap;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

#[derive(Debug, Default)]
pub struct HelpView {
    pub open: bool,
    /// First line shown (it scrolls when it does not fit).
    pub scroll: u16,
}

impl HelpView {
    /// Opens the help at its top.
    pub fn show(&mut self) {
        self.open = true;
        self.scroll = 0;
    }
}

/// The closing note of the help overlay.
const HELP_NOTE: &str = "Any change cancels the run in flight and starts a new one; kernels and feature maps are reused. Sliders marked * differ from their default; on a bar, │ marks the default and a log-scale bar spans three decades either side of it.";

/// A part of the help: its heading (none for the first) and its rows,
/// (keys, what they do).
pub type Section = (Option<&'static str>, Vec<(String, &'static str)>);

/// The help overlay's lines at inner width `w`: each section's keys in a
/// column, their text wrapped beside them.
/// The help's own keys are in its title and the hint bar.
pub fn help_lines(parts: &[Section], w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let key_w = if w >= 70 { 22 } else { 12 };
    let text_w = w.saturating_sub(key_w).max(10);
    let mut lines = Vec::new();
    let mut rows = Vec::new();
    // Each section after the first starts at a row, with a heading.
    let mut sections = Vec::new();
    for (heading, part) in parts {
        if let Some(heading) = heading {
            sections.push((rows.len(), *heading));
        }
        rows.extend(part.iter().cloned());
    }
    for (i, (k, v)) in rows.iter().enumerate() {
        if let Some((_, heading)) = sections.iter().find(|(at, _)| *at == i) {
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(*heading, theme.title())));
        }
        let key = theme.text(k).into_owned();
        let parts = wrap(&theme.text(v), text_w);
        // A key longer than its column gets a line of its own.
        let own_line = key.chars().count() >= key_w;
        if own_line {
            lines.push(Line::from(Span::styled(key.clone(), theme.accent())));
        }
        for (i, part) in parts.into_iter().enumerate() {
            let k = if i == 0 && !own_line {
                key.clone()
            } else {
                String::new()
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{k:<key_w$}"), theme.accent()),
                Span::raw(part),
            ]));
        }
    }
    lines.push(Line::from(""));
    for l in wrap(&theme.text(HELP_NOTE), w) {
        lines.push(Line::from(Span::styled(l, theme.dim())));
    }
    lines
}

impl Component for HelpView {
    /// The sections to list.
    type DrawCtx<'a> = &'a [Section];
    type KeyCtx<'a> = ();
    const CONTEXT: Context = Context::Help;

    fn handle(&mut self, action: &Action, _: ()) -> Outcome {
        match action {
            Action::ToggleHelp | Action::Cancel | Action::Quit => self.open = false,
            Action::Move(d) => {
                // The help is at most about two lines a row of the key
                // map, plus its note.
                let max = 2 * keys::KEYS.len() as i32 + 6;
                self.scroll = (self.scroll as i32 + d).clamp(0, max) as u16
            }
            _ => {}
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, parts: &[Section], theme: &Theme) {
        let w = (area.width.saturating_sub(4)).min(100);
        let lines = help_lines(parts, w.saturating_sub(2) as usize, theme);
        let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
        let r = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        let rows = h.saturating_sub(2) as usize;
        let hidden = lines.len().saturating_sub(rows);
        let first = (self.scroll as usize).min(hidden);
        // The first hint (closing) always; scrolling once there is something to
        // scroll.
        let mut title = String::from(" Help");
        let hints = keys::hints(Context::Help);
        let shown = if hidden > 0 { hints.len() } else { 1 };
        for (k, what) in hints.iter().take(shown) {
            title.push_str(&format!(" · {k} {what}"));
        }
        if hidden > 0 {
            title.push_str(&format!(
                " ({}–{} of {})",
                first + 1,
                first + rows,
                lines.len()
            ));
        }
        title.push(' ');
        let shown: Vec<Line> = lines.into_iter().skip(first).take(rows).collect();
        crate::tui::panes::overlay(f, r, shown, &title, theme);
    }
}
