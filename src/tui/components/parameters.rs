//! The Parameters pane as a component: the sliders and which one has the
//! focus. ↑/↓ move the focus; a step, Enter and m act on the focused
//! slider through `App`, which owns the values (and the sweep's marks).

use super::{Component, Outcome, Request};
use crate::tui::app::prompt::{Prompt, PromptKind};
use crate::tui::app::slider::Slider;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

#[derive(Debug, Default)]
pub struct ParamsPane {
    /// The focused slider.
    pub cursor: usize,
}

/// What the sliders draw.
#[derive(Clone, Copy)]
pub struct ParamsDraw<'a> {
    pub sliders: &'a [Slider],
    /// The kernel in force, and whether it reads σ.
    pub kernel: Option<(&'a str, bool)>,
    /// The sliders marked as sweep axes.
    pub marks: &'a [String],
    pub focused: bool,
}

impl ParamsPane {
    /// Draws the sliders; returns the screen row of each, for the mouse.
    pub fn draw_hits(
        &self,
        f: &mut Frame,
        area: Rect,
        ctx: ParamsDraw<'_>,
        theme: &Theme,
    ) -> Vec<(usize, Rect)> {
        panes::parameters::render(f, area, self.cursor, ctx, theme)
    }
}

impl Component for ParamsPane {
    type DrawCtx<'a> = ParamsDraw<'a>;
    /// The sliders now.
    type KeyCtx<'a> = &'a [Slider];
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, sliders: &[Slider]) -> Outcome {
        match *action {
            Action::Move(d) => {
                let n = sliders.len() as i32;
                self.cursor = (self.cursor as i32 + d).clamp(0, n - 1) as usize;
            }
            Action::Step { steps, coarse } => {
                return Outcome::Request(Request::StepParam {
                    index: self.cursor,
                    steps,
                    coarse,
                });
            }
            // The mouse wheel over a slider focuses it first.
            Action::StepParam { index, steps } => {
                self.cursor = index;
                return Outcome::Request(Request::StepParam {
                    index,
                    steps,
                    coarse: false,
                });
            }
            Action::Activate => {
                let s = &sliders[self.cursor];
                return Outcome::Request(Request::Prompt(Prompt {
                    kind: PromptKind::Value(self.cursor),
                    text: String::new(),
                    hint: format!("{} {}", s.spec.name, s.spec.range_text()),
                }));
            }
            Action::Mark => return Outcome::Request(Request::ToggleMark),
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: ParamsDraw<'_>, theme: &Theme) {
        self.draw_hits(f, area, ctx, theme);
    }

    /// The slider keys: choose, step, type a value, mark an axis.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_where(Context::Panes, |a| {
            matches!(
                a,
                Action::Move(_) | Action::Step { .. } | Action::Activate | Action::Mark
            )
        })
    }
}
