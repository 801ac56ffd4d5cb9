//! Text on its way to a terminal. Names and values from files (a column
//! name, a model's algorithm) may hold control characters: an ESC would
//! be a terminal command, a newline a forged line of output.

use std::borrow::Cow;

/// `text` with every control character but those in `keep` escaped as
/// Rust does (`\u{1b}`, `\n`): printable, and still telling what was there.
pub fn printable<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    let escaped = |c: char| c.is_control() && !keep.contains(&c);
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` cut to its first `max` characters, with `…` where it was cut:
/// an argument of many thousand values is quoted, not echoed whole.
pub fn clipped(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
    }
}

#[cfg(test)]
mod tests {
    use super::{clipped, printable};

    #[test]
    fn long_text_is_clipped_with_an_ellipsis() {
        assert_eq!(clipped("short", 10), "short");
        assert_eq!(clipped("0123456789", 10), "0123456789");
        assert_eq!(clipped("0123456789a", 10), "0123456789…");
        assert_eq!(clipped("ééé", 2), "éé…");
    }

    #[test]
    fn control_characters_are_escaped_unless_kept() {
        assert_eq!(printable("plain", &[]), "plain");
        assert!(matches!(
            printable("plain", &[]),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(printable("a\u{1b}[31mb\u{7}", &[]), "a\\u{1b}[31mb\\u{7}");
        assert_eq!(printable("one\ntwo\r", &[]), "one\\ntwo\\r");
        assert_eq!(printable("one\ntwo\t", &['\n', '\t']), "one\ntwo\t");
        assert_eq!(printable("\u{9b}x", &['\n']), "\\u{9b}x");
    }
}
