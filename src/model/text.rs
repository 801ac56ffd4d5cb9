//! Text from a model file as it may be shown: a hostile file must not be
//! able to move the cursor, clear the screen or split a message over
//! lines when its algorithm name, an option or a key is printed.

/// Characters a terminal acts on instead of showing: C0/C1 controls (ESC,
/// newline, DEL, …) and the bidirectional overrides that reorder a line.
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every unsafe character escaped (`\u{1b}`, `\n`).
pub(crate) fn printable(s: &str) -> String {
    if !s.chars().any(is_unsafe) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if is_unsafe(c) {
                c.escape_unicode().to_string().replace("\\u{a}", "\\n")
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(printable("power"), "power");
        assert_eq!(printable("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\\nc");
        assert_eq!(printable("x\u{202e}y"), "x\\u{202e}y");
        assert!(!printable("\u{7f}\u{85}\r").chars().any(is_unsafe));
    }
}
