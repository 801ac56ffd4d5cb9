//! The key map against the keys the UI had before it: each is driven
//! through the table, in its context.

use super::Context::{self, Controls, Help, Panes, Prompt, Sweep};
use super::{Action, HitMap, KEYS, Key, Pane, key_action, mouse_action, readme_table};
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A character as the terminal reports it: capitals come with Shift.
fn ch(c: char) -> KeyEvent {
    let m = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    KeyEvent::new(KeyCode::Char(c), m)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn shift(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::SHIFT)
}

fn step(steps: i32, coarse: bool) -> Option<Action> {
    Some(Action::Step { steps, coarse })
}

/// Every key of the UI before the table, with the action it gave.
fn key_cases() -> Vec<(Context, KeyEvent, Option<Action>)> {
    use Action::*;
    use KeyCode::{BackTab, Down, Enter, Esc, F, Left, PageDown, PageUp, Right, Tab, Up};
    let mut cases = vec![
        (Panes, ch('?'), Some(ToggleHelp)),
        (Panes, key(F(1)), Some(ToggleHelp)),
        (Panes, ch('q'), Some(Quit)),
        (Panes, ctrl('c'), Some(Quit)),
        (Panes, key(Tab), Some(NextPane)),
        (Panes, shift(BackTab), Some(PrevPane)),
        (Panes, key(Up), Some(Move(-1))),
        (Panes, ch('k'), Some(Move(-1))),
        (Panes, key(Down), Some(Move(1))),
        (Panes, ch('j'), Some(Move(1))),
        (Panes, key(Left), step(-1, false)),
        (Panes, ch('h'), step(-1, false)),
        (Panes, key(Right), step(1, false)),
        (Panes, ch('l'), step(1, false)),
        (Panes, shift(Left), step(-1, true)),
        (Panes, shift(Right), step(1, true)),
        (Panes, ch('H'), step(-1, true)),
        (Panes, ch('L'), step(1, true)),
        (Panes, key(PageDown), step(-1, true)),
        (Panes, key(PageUp), step(1, true)),
        // Modifiers other than Shift never made a step coarse.
        (
            Panes,
            KeyEvent::new(Left, KeyModifiers::CONTROL),
            step(-1, false),
        ),
        (Panes, key(Enter), Some(Activate)),
        (Panes, key(Esc), Some(Cancel)),
        (Panes, ch('r'), Some(Reseed)),
        (Panes, ch('R'), Some(ResetAll)),
        (Panes, ch('o'), Some(OpenFilePrompt)),
        (Panes, ch('d'), Some(NextBundled)),
        (Panes, ch('z'), Some(CycleScaling)),
        (Panes, ch('e'), Some(ExportPrompt)),
        (Panes, ch('s'), Some(ToggleScatterMode)),
        (Panes, ch('x'), Some(ScatterFeature(0))),
        (Panes, ch('y'), Some(ScatterFeature(1))),
        (Panes, ch('p'), Some(TogglePath)),
        (Panes, ch('i'), Some(ToggleInspector)),
        (Panes, ch('/'), Some(SearchPrompt)),
        (Panes, ch('t'), Some(ToggleConfusion)),
        (Panes, ch('a'), None),
        (Panes, ch('v'), Some(HistoryCompare)),
        (Panes, ch('c'), Some(HistorySort)),
        (Panes, ch('C'), Some(HistoryReverse)),
        (Panes, ch('E'), Some(HistoryExportPrompt)),
        (Panes, ch('b'), None),
        (Panes, key(F(2)), None),
        (Panes, key(KeyCode::Backspace), None),
        (Prompt, key(Enter), Some(Activate)),
        (Prompt, key(Esc), Some(Cancel)),
        (Prompt, key(KeyCode::Backspace), Some(Backspace)),
        (Prompt, key(Tab), Some(Complete)),
        (Prompt, ctrl('u'), Some(ClearInput)),
        (Prompt, ctrl('w'), Some(DeleteWord)),
        (Prompt, ctrl('c'), Some(Quit)),
        (Prompt, ctrl('a'), None),
        (Prompt, key(Up), None),
        (Prompt, key(F(1)), None),
        (Prompt, shift(BackTab), None),
        // In the help only closing and scrolling ever did anything.
        (Help, key(Esc), Some(Cancel)),
        (Help, ch('?'), Some(ToggleHelp)),
        (Help, key(F(1)), Some(ToggleHelp)),
        (Help, ch('q'), Some(Quit)),
        (Help, ctrl('c'), Some(Quit)),
        (Help, key(Up), Some(Move(-1))),
        (Help, ch('k'), Some(Move(-1))),
        (Help, key(Down), Some(Move(1))),
        (Help, ch('j'), Some(Move(1))),
        (Help, ch('r'), None),
        (Help, key(Left), None),
        (Help, key(Enter), None),
        // Sweeps.
        (Panes, ch('m'), Some(Mark)),
        (Panes, ch('S'), Some(OpenSweep)),
        (Panes, ch('K'), Some(KScan)),
        (Sweep, key(Up), Some(Move(-1))),
        (Sweep, ch('k'), Some(Move(-1))),
        (Sweep, key(Down), Some(Move(1))),
        (Sweep, ch('j'), Some(Move(1))),
        (Sweep, key(Left), step(-1, false)),
        (Sweep, ch('h'), step(-1, false)),
        (Sweep, key(Right), step(1, false)),
        (Sweep, ch('l'), step(1, false)),
        (Sweep, key(Enter), Some(Activate)),
        (Sweep, ch('s'), Some(SweepScore)),
        (Sweep, ch('n'), Some(SweepNumbers)),
        (Sweep, ch('b'), Some(SweepBest)),
        (Sweep, ch('a'), Some(AdoptK)),
        (Sweep, ch('c'), Some(SweepConsensus)),
        (Sweep, ch('w'), Some(SweepSilhouette)),
        (Sweep, key(Esc), Some(Cancel)),
        (Sweep, ch('v'), Some(ToggleSweep)),
        (Sweep, ch('S'), Some(OpenSweep)),
        (Sweep, ch('K'), Some(KScan)),
        (Sweep, ch('?'), Some(ToggleHelp)),
        (Sweep, key(F(1)), Some(ToggleHelp)),
        (Sweep, ch('q'), Some(Quit)),
        (Sweep, ctrl('c'), Some(Quit)),
        (Panes, ch('O'), Some(OpenControls)),
        (Controls, key(Up), Some(Move(-1))),
        (Controls, ch('k'), Some(Move(-1))),
        (Controls, key(Down), Some(Move(1))),
        (Controls, ch('j'), Some(Move(1))),
        (Controls, key(Left), step(-1, false)),
        (Controls, ch('h'), step(-1, false)),
        (Controls, key(Right), step(1, false)),
        (Controls, ch('l'), step(1, false)),
        (Controls, key(Enter), Some(Activate)),
        (Controls, key(Esc), Some(Cancel)),
        (Controls, ch('O'), Some(OpenControls)),
        (Controls, ch('q'), Some(Quit)),
        (Controls, ctrl('c'), Some(Quit)),
        (Controls, ch('?'), Some(ToggleHelp)),
        (Controls, ch('r'), None),
        // The panes' other keys do not reach the panes under the view.
        (Sweep, ch('r'), None),
        (Sweep, ch('d'), None),
        (Sweep, key(Tab), None),
    ];
    for (i, c) in ('1'..='9').enumerate() {
        cases.push((Panes, ch(c), Some(Focus(Pane::ALL[i]))));
    }
    // A prompt takes the keys that mean something elsewhere as text.
    for c in ['a', 'Q', 'q', '?', '1', 'y', 'k', ' ', '/', 'é'] {
        cases.push((Prompt, ch(c), Some(Input(c))));
    }
    cases
}

#[test]
fn every_key_keeps_its_action() {
    for (context, ev, want) in key_cases() {
        assert_eq!(key_action(ev, context), want, "{ev:?} in {context:?}");
    }
    // Releases are not presses.
    let mut release = ch('q');
    release.kind = KeyEventKind::Release;
    assert_eq!(key_action(release, Panes), None);
}

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

/// The algorithm list at rows 0-4, the parameters at 5-9 with slider 2 on
/// row 7.
fn hits() -> HitMap {
    HitMap {
        panes: vec![
            (Pane::Algorithm, Rect::new(0, 0, 10, 5)),
            (Pane::Parameters, Rect::new(0, 5, 10, 5)),
        ],
        sliders: vec![(2, Rect::new(0, 7, 10, 1))],
    }
}

fn mouse_cases() -> Vec<(Context, MouseEvent, Option<Action>)> {
    use Action::*;
    use MouseEventKind::{Down, ScrollDown, ScrollUp};
    let click = Down(MouseButton::Left);
    vec![
        (Panes, mouse(click, 1, 1), Some(Focus(Pane::Algorithm))),
        (Panes, mouse(click, 1, 8), Some(Focus(Pane::Parameters))),
        (Panes, mouse(click, 50, 50), None),
        (Panes, mouse(Down(MouseButton::Right), 1, 1), None),
        (
            Panes,
            mouse(ScrollUp, 3, 7),
            Some(StepParam { index: 2, steps: 1 }),
        ),
        (
            Panes,
            mouse(ScrollDown, 3, 7),
            Some(StepParam {
                index: 2,
                steps: -1,
            }),
        ),
        (Panes, mouse(ScrollUp, 1, 1), Some(Move(-1))),
        (Panes, mouse(ScrollDown, 1, 1), Some(Move(1))),
        (Panes, mouse(ScrollUp, 1, 6), None),
        (Prompt, mouse(click, 1, 1), None),
        (Prompt, mouse(ScrollUp, 3, 7), None),
        // The wheel scrolls the help wherever the pointer is.
        (Help, mouse(ScrollUp, 50, 50), Some(Move(-1))),
        (Help, mouse(ScrollDown, 3, 7), Some(Move(1))),
        (Help, mouse(click, 1, 1), None),
    ]
}

#[test]
fn every_click_and_wheel_keeps_its_action() {
    let hits = hits();
    for (context, m, want) in mouse_cases() {
        assert_eq!(
            mouse_action(m, context, &hits),
            want,
            "{m:?} in {context:?}"
        );
    }
}

#[test]
fn every_key_of_the_table_is_tested_above() {
    let keys = key_cases();
    let mice = mouse_cases();
    for b in KEYS {
        for (k, _) in b.keys {
            let tested = keys
                .iter()
                .any(|(c, ev, _)| *c == b.context && k.matches(ev))
                || mice
                    .iter()
                    .any(|(c, m, _)| *c == b.context && k.matches_mouse(m));
            assert!(tested, "{k:?} in {:?} has no case", b.context);
        }
    }
}

#[test]
fn a_key_means_one_thing_in_a_context() {
    let pairs: Vec<(Context, Key)> = KEYS
        .iter()
        .flat_map(|b| b.keys.iter().map(move |(k, _)| (b.context, *k)))
        .collect();
    for (i, p) in pairs.iter().enumerate() {
        assert!(!pairs[..i].contains(p), "{p:?} is bound twice");
    }
}

#[test]
fn pointer_and_text_actions_sit_on_their_keys() {
    use super::Does;
    for b in KEYS {
        for (k, does) in b.keys {
            let fits = match does {
                Does::Act(_) => true,
                Does::Type => *k == Key::Text,
                Does::FocusPointed => *k == Key::Click,
                Does::Wheel(_) => matches!(k, Key::WheelUp | Key::WheelDown),
            };
            assert!(fits, "{k:?} cannot {does:?}");
        }
    }
}

/// The user guide's key table: the lines from its `| key | |` header in
/// docs/guide/tui.md to the first line that is not a table row.
fn readme_key_table(page: &str) -> Option<String> {
    let section = page;
    let start = section.find("\n| key | |\n")? + 1;
    let rows: Vec<&str> = section[start..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .collect();
    Some(rows.join("\n") + "\n")
}

#[test]
fn readme_key_table_is_the_key_map() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide/tui.md");
    let readme = std::fs::read_to_string(path).expect("docs/guide/tui.md is readable");
    let found = readme_key_table(&readme).expect("docs/guide/tui.md has a `| key | |` table");
    let want = readme_table();
    assert!(
        found == want,
        "docs/guide/tui.md's key table differs from the key map (src/tui/keys/table.rs); \
         replace it with:\n\n{want}"
    );
}
