//! The list of non-numeric settings (O), drawn over the panes: ↑/↓
//! choose one, ←/→ step through its common values, Enter types one. The
//! values are `App`'s (`App::controls`); the list keeps only its cursor.

use super::{Component, Outcome, Request};
use crate::tui::app::prompt::{Prompt, PromptKind};
use crate::tui::keys::{Action, Context};
use crate::tui::panes::theme::Theme;
use crate::tui::panes::{clip, wrap};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

/// Where a control's value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// An option of the chosen algorithm (`--kernel`, `--kernels`, …).
    Algorithm,
    /// The seeding of every run.
    Run,
    /// How the data is read (changing it reloads the file).
    Data,
}

/// One row of the controls list.
#[derive(Debug, Clone)]
pub struct Control {
    /// The option's name (`kernel`, `init`, `label`, …), as on the
    /// command line.
    pub name: &'static str,
    pub value: String,
    /// Values ←/→ step through.
    pub presets: Vec<String>,
    pub scope: Scope,
    pub help: &'static str,
}

#[derive(Debug, Default)]
pub struct ControlsView {
    pub open: bool,
    pub cursor: usize,
}

impl ControlsView {
    /// Opens the list at its first row.
    pub fn show(&mut self) {
        self.open = true;
        self.cursor = 0;
    }
}

/// What the list shows: the controls now, and the algorithm whose options
/// they are.
#[derive(Clone, Copy)]
pub struct ControlsCtx<'a> {
    pub controls: &'a [Control],
    pub algo: &'a str,
}

impl Component for ControlsView {
    type DrawCtx<'a> = ControlsCtx<'a>;
    type KeyCtx<'a> = ControlsCtx<'a>;
    const CONTEXT: Context = Context::Controls;

    fn handle(&mut self, action: &Action, ctx: ControlsCtx<'_>) -> Outcome {
        let n = ctx.controls.len();
        let chosen = ctx.controls.get(self.cursor);
        match action {
            Action::Move(d) => {
                self.cursor = (self.cursor as i32 + d).clamp(0, n as i32 - 1) as usize;
            }
            Action::Step { steps, .. } => {
                let Some(c) = chosen else {
                    return Outcome::Handled;
                };
                let at = c.presets.iter().position(|p| *p == c.value);
                let len = c.presets.len() as i32;
                let next = match at {
                    Some(i) => (i as i32 + steps).rem_euclid(len) as usize,
                    None if *steps > 0 => 0,
                    None => (len - 1) as usize,
                };
                return Outcome::Request(Request::SetControl(c.name, c.presets[next].clone()));
            }
            Action::Activate => {
                let Some(c) = chosen else {
                    return Outcome::Handled;
                };
                return Outcome::Request(Request::Prompt(Prompt {
                    kind: PromptKind::Control(c.name),
                    text: c.value.clone(),
                    hint: c.help.to_string(),
                }));
            }
            Action::Cancel | Action::OpenControls => self.open = false,
            Action::Quit | Action::ToggleHelp => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ControlsCtx<'_>, theme: &Theme) {
        let controls = ctx.controls;
        let w = area.width.saturating_sub(4).min(90);
        let inner_w = w.saturating_sub(2) as usize;
        let name_w = 9;
        let mut lines: Vec<Line> = Vec::new();
        for (i, c) in controls.iter().enumerate() {
            let whose = match c.scope {
                Scope::Algorithm => ctx.algo.to_string(),
                Scope::Run => "every run".into(),
                Scope::Data => "reloads".into(),
            };
            let value_w = inner_w.saturating_sub(name_w + whose.chars().count() + 4);
            let text = format!(
                "{} {:<name_w$}{:<value_w$} {whose}",
                if i == self.cursor { '>' } else { ' ' },
                c.name,
                clip(&theme.text(&c.value), value_w),
            );
            let style = if i == self.cursor {
                theme.selected()
            } else {
                ratatui::style::Style::default()
            };
            lines.push(Line::from(Span::styled(text, style)));
        }
        lines.push(Line::from(""));
        if let Some(c) = controls.get(self.cursor) {
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
}
