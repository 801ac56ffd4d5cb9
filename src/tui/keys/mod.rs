//! The one key map: every key and mouse gesture of the UI, with where it
//! applies and what it does, in [`table::KEYS`]. The event loop, the hint
//! bar, the help overlay and the README's key table all read that table.

mod table;
mod text;

pub use table::KEYS;
pub use text::{help_rows, hints, readme_table};

use super::app::{Action, Pane};
use super::ui::HitMap;
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// Where the user is, which decides what a key means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The panes, with no overlay open.
    Panes,
    /// A prompt (a value, a path, an export name) is open.
    Prompt,
    /// The help overlay is open.
    Help,
}

/// A key or mouse gesture, as matched and as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A character, whatever modifiers come with it.
    Char(char),
    /// A character with Ctrl held.
    Ctrl(char),
    /// A named key (Enter, Esc, Tab, an arrow, …), whatever the modifiers.
    Code(KeyCode),
    /// A named key with Shift held.
    Shift(KeyCode),
    /// Any character typed without Ctrl.
    Text,
    Click,
    WheelUp,
    WheelDown,
}

/// What a key does: one action, or one that depends on what was typed or
/// where the pointer is.
#[derive(Debug, Clone, PartialEq)]
pub enum Does {
    Act(Action),
    /// The typed character goes into the prompt.
    Type,
    /// Focus the pane (or tab) under the pointer.
    FocusPointed,
    /// Step the slider under the pointer by this many fine steps; over the
    /// algorithm list, move the choice the other way (up the list).
    Wheel(i32),
}

/// One line of the help: keys that belong together, each with what it does.
#[derive(Debug)]
pub struct Binding {
    pub context: Context,
    pub keys: &'static [(Key, Does)],
    /// The word in the hint bar; empty when the keys are not hinted there.
    pub hint: &'static str,
    pub help: &'static str,
}

impl Key {
    /// Whether this key asks for a modifier: it then wins over the same
    /// key without one (Shift-← is coarse, ← is fine).
    fn has_modifier(self) -> bool {
        matches!(self, Key::Ctrl(_) | Key::Shift(_))
    }

    pub fn matches(self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match self {
            Key::Char(c) => key.code == KeyCode::Char(c),
            Key::Ctrl(c) => ctrl && key.code == KeyCode::Char(c),
            Key::Code(code) => key.code == code,
            Key::Shift(code) => shift && key.code == code,
            Key::Text => !ctrl && matches!(key.code, KeyCode::Char(_)),
            Key::Click | Key::WheelUp | Key::WheelDown => false,
        }
    }

    pub fn matches_mouse(self, m: &MouseEvent) -> bool {
        match self {
            Key::Click => m.kind == MouseEventKind::Down(MouseButton::Left),
            Key::WheelUp => m.kind == MouseEventKind::ScrollUp,
            Key::WheelDown => m.kind == MouseEventKind::ScrollDown,
            _ => false,
        }
    }
}

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
            } else if hits.pane_at(m.column, m.row) == Some(Pane::Algorithm) {
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
