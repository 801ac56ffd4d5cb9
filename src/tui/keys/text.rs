//! The key map written out: key names, the hint bar, the help's rows and
//! the user guide's key table (docs/guide/tui.md).

use super::action::{Action, Context};
use super::kinds::{Binding, Does, Key};
use super::table::KEYS;
use crossterm::event::KeyCode;

fn code_name(code: KeyCode) -> String {
    match code {
        KeyCode::BackTab => "Shift-Tab".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    }
}

fn key_name(key: Key) -> String {
    match key {
        Key::Char(c) => c.to_string(),
        Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
        Key::Code(code) => code_name(code),
        Key::Shift(code) => format!("Shift-{}", code_name(code)),
        Key::Text => "other keys".into(),
        Key::Click => "click".into(),
        Key::WheelUp | Key::WheelDown => "wheel".into(),
    }
}

/// The row's keys as written, in order: a run of digits is one range
/// (1-8), a name that repeats (the wheel's two directions) is written once.
/// `quote` puts character keys in backticks, for Markdown.
fn names(b: &Binding, quote: bool) -> Vec<String> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut digits: Vec<char> = Vec::new();
    let flush = |digits: &mut Vec<char>, out: &mut Vec<(String, bool)>| {
        match digits.as_slice() {
            [] => {}
            [d] => out.push((d.to_string(), true)),
            [first, .., last] => out.push((format!("{first}-{last}"), true)),
        }
        digits.clear();
    };
    for (key, _) in b.keys {
        match key {
            Key::Char(c) if c.is_ascii_digit() => digits.push(*c),
            _ => {
                flush(&mut digits, &mut out);
                let name = (key_name(*key), matches!(key, Key::Char(_)));
                if out.last() != Some(&name) {
                    out.push(name);
                }
            }
        }
    }
    flush(&mut digits, &mut out);
    out.into_iter()
        .map(|(n, is_char)| {
            if quote && is_char {
                format!("`{n}`")
            } else {
                n
            }
        })
        .collect()
}

/// The row's keys for the help: "?, F1".
pub fn label(b: &Binding) -> String {
    names(b, false).join(", ")
}

/// The row's key in the hint bar: the first, or all the arrows it starts
/// with (←→, ↑↓←→).
pub fn hint_key(b: &Binding) -> String {
    let arrow = |n: &String| ["←", "→", "↑", "↓"].contains(&n.as_str());
    let names = names(b, false);
    let arrows: String = names.iter().take_while(|n| arrow(n)).cloned().collect();
    if arrows.chars().count() >= 2 {
        arrows
    } else {
        names.first().cloned().unwrap_or_default()
    }
}

fn rows(context: Context) -> impl Iterator<Item = &'static Binding> {
    KEYS.iter().filter(move |b| b.context == context)
}

/// Rows that act on the History only: their help starts so.
pub const HISTORY: &str = "History:";

/// The hint bar in `context`: (key, word), most useful first. The
/// History's own keys are left out ([`history_hints`] has them).
pub fn hints(context: Context) -> Vec<(String, &'static str)> {
    rows(context)
        .filter(|b| !b.hint.is_empty() && !b.help.starts_with(HISTORY))
        .map(|b| (hint_key(b), b.hint))
        .collect()
}

/// The hint bar in `context` with only the rows whose action `applies`
/// (a row of keys that act otherwise is kept).
pub fn hints_where(
    context: Context,
    applies: impl Fn(&Action) -> bool,
) -> Vec<(String, &'static str)> {
    rows(context)
        .filter(|b| !b.hint.is_empty() && !b.help.starts_with(HISTORY))
        .filter(|b| {
            b.keys.iter().any(|(_, d)| match d {
                Does::Act(a) => applies(a),
                _ => true,
            })
        })
        .map(|b| (hint_key(b), b.hint))
        .collect()
}

/// The hint bar's start while the History is focused: choosing a run,
/// Enter (which re-runs it there), then the History's own keys.
pub fn history_hints() -> Vec<(String, &'static str)> {
    let panes = || rows(Context::Panes);
    let key_of = |code: KeyCode| {
        panes()
            .find(|b| b.keys.iter().any(|(k, _)| *k == Key::Code(code)))
            .map(hint_key)
    };
    let mut out = Vec::new();
    // The row's first two keys are ↑↓: hint_key writes them together.
    if let Some(updown) = key_of(KeyCode::Up) {
        out.push((updown, "run"));
    }
    if let Some(enter) = key_of(KeyCode::Enter) {
        out.push((enter, "re-run"));
    }
    out.extend(
        panes()
            .filter(|b| !b.hint.is_empty() && b.help.starts_with(HISTORY))
            .map(|b| (hint_key(b), b.hint)),
    );
    out
}

/// The help's rows in `context`: (keys, what they do).
pub fn help_rows(context: Context) -> Vec<(String, &'static str)> {
    rows(context).map(|b| (label(b), b.help)).collect()
}

/// The help's rows in `context` that bind one of `actions`.
pub fn help_rows_for(context: Context, actions: &[Action]) -> Vec<(String, &'static str)> {
    help_rows_where(context, |a| actions.contains(a))
}

/// The help's rows in `context` that bind an action `pick` accepts.
pub fn help_rows_where(
    context: Context,
    pick: impl Fn(&Action) -> bool,
) -> Vec<(String, &'static str)> {
    rows(context)
        .filter(|b| {
            b.keys
                .iter()
                .any(|(_, d)| matches!(d, Does::Act(a) if pick(a)))
        })
        .map(|b| (label(b), b.help))
        .collect()
}

/// `listed` (rows the components list, some more than once) as the help
/// shows them: each once, in the key table's order.
pub fn in_table_order(
    context: Context,
    listed: &[(String, &'static str)],
) -> Vec<(String, &'static str)> {
    help_rows(context)
        .into_iter()
        .filter(|row| listed.contains(row))
        .collect()
}

/// The user guide's key table (docs/guide/tui.md), every context, as Markdown.
pub fn readme_table() -> String {
    let mut out = String::from("| key | |\n|---|---|\n");
    for (context, heading) in [
        (Context::Panes, None),
        (Context::Sweep, Some("in a sweep or k-scan")),
        (Context::Controls, Some("in the options list (O)")),
        (Context::Prompt, Some("in a prompt")),
        (Context::Help, Some("in the help")),
    ] {
        if let Some(h) = heading {
            out.push_str(&format!("| **{h}** | |\n"));
        }
        for b in rows(context) {
            let keys = names(b, true).join(", ");
            out.push_str(&format!("| {keys} | {} |\n", b.help.replace('|', "\\|")));
        }
    }
    out
}
