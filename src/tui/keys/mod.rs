//! The one key map: every key and mouse gesture of the UI, with where it
//! applies and what it does, in [`table::KEYS`]. The event loop, the hint
//! bar, the help overlay and the user guide's key table all read that table.

pub mod action;
mod hits;
mod kinds;
mod table;
mod text;

pub use action::{Action, Context, Pane, RIGHT_PANES};
pub use hits::HitMap;
pub use kinds::{Binding, Does, Key};
pub use table::KEYS;
pub use text::{
    HISTORY, help_rows, help_rows_for, help_rows_where, hints, hints_where, history_hints,
    in_table_order, readme_table,
};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseEvent};

/// What `matches` picks in `context`, a key naming a modifier first.
fn lookup(context: Context, matches: impl Fn(Key) -> bool) -> Option<&'static Does> {
    let pairs = || {
        KEYS.iter()
            .filter(move |b| b.context == context)
            .flat_map(|b| b.keys.iter())
    };
    pairs()
        .find(|(k, _)| k.has_modifier() && matches(*k))
        .or_else(|| pairs().find(|(k, _)| !k.has_modifier() && matches(*k)))
        .map(|(_, does)| does)
}

/// The action of a key in `context`, if it has one.
pub fn key_action(key: KeyEvent, context: Context) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    match lookup(context, |k| k.matches(&key))? {
        Does::Act(a) => Some(a.clone()),
        Does::Type => match key.code {
            KeyCode::Char(c) => Some(Action::Input(c)),
            _ => None,
        },
        Does::FocusPointed | Does::Wheel(_) => None,
    }
}

/// The action of a mouse event in `context`, using where the panes were
/// drawn.
pub fn mouse_action(m: MouseEvent, context: Context, hits: &HitMap) -> Option<Action> {
    match lookup(context, |k| k.matches_mouse(&m))? {
        Does::Act(a) => Some(a.clone()),
        Does::FocusPointed => hits.pane_at(m.column, m.row).map(Action::Focus),
        Does::Wheel(steps) => {
            if let Some(index) = hits.slider_at(m.column, m.row) {
                Some(Action::StepParam {
                    index,
                    steps: *steps,
                })
            } else if matches!(
                hits.pane_at(m.column, m.row),
                Some(Pane::Algorithm | Pane::History)
            ) {
                Some(Action::Move(-steps))
            } else {
                None
            }
        }
        Does::Type => None,
    }
}

#[cfg(test)]
mod tests;
