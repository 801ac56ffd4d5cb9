//! The UI's views as components, the way gitui splits its UI: each owns
//! its state, draws itself, takes the actions of its key context and
//! lists its commands for the help. The commands are read from the one key
//! table (`keys::KEYS`), never written again here.
//!
//! A component does not reach into `App`: what it needs from the rest of
//! the UI comes in as its context, and what only `App` can do (open a
//! prompt, change a setting) goes back as a [`Request`].

/// The `Component` of a pane that holds no state: it draws its context
/// with `$render` and takes no key itself (the keys it lists for the help
/// act wherever the focus is, and `App` carries them out, since they
/// open views or reload data that `App` holds).
macro_rules! stateless_pane {
    ($pane:ident, $draw:ident, $render:path, [$($key:expr),* $(,)?]) => {
        impl $crate::tui::components::Component for $pane {
            type DrawCtx<'a> = $draw<'a>;
            type KeyCtx<'a> = ();
            const CONTEXT: $crate::tui::keys::Context = $crate::tui::keys::Context::Panes;

            fn handle(
                &mut self,
                _: &$crate::tui::keys::Action,
                _: (),
            ) -> $crate::tui::components::Outcome {
                $crate::tui::components::Outcome::Ignored
            }

            fn draw(
                &self,
                f: &mut ratatui::Frame,
                area: ratatui::layout::Rect,
                ctx: $draw<'_>,
                theme: &$crate::tui::panes::theme::Theme,
            ) {
                $render(f, area, ctx, theme);
            }

            fn commands(&self) -> Vec<(String, &'static str)> {
                $crate::tui::keys::help_rows_for($crate::tui::keys::Context::Panes, &[$($key),*])
            }
        }
    };
}

pub mod algorithm;
pub mod confusion;
pub mod controls;
pub mod data;
pub mod help;
pub mod history;
pub mod inspector;
pub mod metrics;
pub mod objective;
pub mod parameters;
pub mod path;
pub mod scatter;
pub mod sizes;
pub mod sweep;
pub mod weights;

use crate::tui::app::prompt::Prompt;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

/// What a component made of an action.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Taken: nothing more to do.
    Handled,
    /// Not the component's: the keys every view shares (quit, help) get it.
    Ignored,
    /// Taken, and `App` carries out the rest: it owns what that touches.
    Request(Request),
}

/// Something a component asks of `App`.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Open this prompt.
    Prompt(Prompt),
    /// Set the control of this name to this value (refused with a reason
    /// on the status line).
    SetControl(&'static str, String),
    /// Say this on the status line for a few seconds.
    Note(String),
    /// Say this on the status line until the next key.
    Tell(String),
    /// Run the sweep's cursor cell as the sweep ran it.
    ApplyCell,
    /// Take the k the k-scan suggests.
    AdoptK,
    /// Restore the History's highlighted run.
    Restore,
    /// Set the path's parameter to the path cursor's value and re-run.
    ApplyPathPoint,
    /// Use the algorithm at this index of the list.
    ChooseAlgorithm(usize),
    /// Move the slider at `index` by `steps` (fine or coarse) steps.
    StepParam {
        index: usize,
        steps: i32,
        coarse: bool,
    },
    /// Mark the focused slider as a sweep axis, or unmark it.
    ToggleMark,
}

/// The panes that hold state of their own; the others (Data, Objective,
/// Sizes, Weights, Metrics) are drawn from the run and the data alone.
#[derive(Debug, Default)]
pub struct Panes {
    pub algorithm: algorithm::AlgorithmList,
    pub parameters: parameters::ParamsPane,
    pub scatter: scatter::ScatterPane,
}

pub trait Component {
    /// What the component reads from the rest of the UI to draw itself.
    type DrawCtx<'a>;
    /// What it reads to take its keys.
    type KeyCtx<'a>;

    /// The key context it takes while it is open.
    const CONTEXT: Context;

    fn draw(&self, f: &mut Frame, area: Rect, ctx: Self::DrawCtx<'_>, theme: &Theme);

    fn handle(&mut self, action: &Action, ctx: Self::KeyCtx<'_>) -> Outcome;

    /// Its keys and what they do, as the help lists them: the key table's
    /// rows of its context.
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows(Self::CONTEXT)
    }
}

#[cfg(test)]
mod tests {
    use super::Component;
    use crate::tui::keys::{self, Context};

    /// The help lists the panes' rows of the key table: every command a
    /// view of the panes names is there, so the table stays the one source.
    #[test]
    fn the_views_commands_are_the_panes_rows() {
        let panes = keys::help_rows(Context::Panes);
        let views = [
            super::path::PathPane::default().commands(),
            super::confusion::ConfusionView::default().commands(),
            crate::tui::app::history::History::default().commands(),
            super::inspector::Inspector::default().commands(),
        ];
        for commands in views {
            assert!(!commands.is_empty());
            for row in commands {
                assert!(panes.contains(&row), "{row:?}");
            }
        }
    }
}
