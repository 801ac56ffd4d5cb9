//! Text on its way to a terminal. Names and values from files (a column
//! name, a model's algorithm) may hold control characters: an ESC would
//! be a terminal command, a newline a forged line of output.

use std::borrow::Cow;

/// Characters a terminal acts on instead of showing: C0/C1 controls (ESC,
/// newline, DEL, …) and the bidirectional overrides that reorder a line.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character but those in `keep` escaped as Rust
/// does (`\u{1b}`, `\n`): printable, and still telling what was there.
pub fn printable<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    let escaped = |c: char| is_unsafe(c) && !keep.contains(&c);
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !escaped(c) {
            out.push(c);
        } else if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.extend(c.escape_unicode());
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

/// A shell word for `s`: as it is when it is plain, else single-quoted.
pub fn quote_arg(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:,=+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::{clipped, is_unsafe, printable};

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
        assert_eq!(printable("x\u{202e}y", &[]), "x\\u{202e}y");
        assert!(!printable("\u{7f}\u{85}\r", &[]).chars().any(is_unsafe));
    }
}
