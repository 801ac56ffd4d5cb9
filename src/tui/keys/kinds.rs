//! The entries of the key map: keys and gestures, what they do, bindings.

use super::action::{Action, Context};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

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
    pub(super) fn has_modifier(self) -> bool {
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
