//! Colours and glyphs: 16 named colours (readable on any terminal),
//! nothing at all under NO_COLOR, and an ASCII-only mode.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub ascii: bool,
}

const CLUSTER_COLORS: [Color; 12] = [
    Color::Cyan,
    Color::Yellow,
    Color::Magenta,
    Color::Green,
    Color::Red,
    Color::Blue,
    Color::LightCyan,
    Color::LightYellow,
    Color::LightMagenta,
    Color::LightGreen,
    Color::LightRed,
    Color::LightBlue,
];

/// Distinguishes clusters where colour cannot. No `x`: it would pass for
/// a centre's `X` ([`CENTRE_MARK`]).
const CLUSTER_MARKS: &[u8] = b"o+*#%@&=?abcdefghijklmnpqrstuvwyz";

/// A cluster's centre in the scatter plot, in every mode.
pub const CENTRE_MARK: char = 'X';

/// A Braille line, as the legend's sample of a curve drawn in Braille.
const BRAILLE_LINE: &str = "⠤⠤";

impl Theme {
    pub fn from_env(ascii: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme {
            color: !no_color,
            ascii,
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    pub fn cluster(&self, j: usize) -> Style {
        self.fg(CLUSTER_COLORS[j % CLUSTER_COLORS.len()])
    }

    /// The character for cluster j when colours are off or in ASCII mode.
    pub fn cluster_mark(&self, j: usize) -> char {
        CLUSTER_MARKS[j % CLUSTER_MARKS.len()] as char
    }

    /// What starts a pane's title when it has the focus and colour does
    /// not show it: `▶ ` (`> ` in ASCII, where the thick border is lost).
    pub fn focus_mark(&self, focused: bool) -> &'static str {
        match (focused && !self.color, self.ascii) {
            (false, _) => "",
            (true, false) => "▶ ",
            (true, true) => "> ",
        }
    }

    /// The marker curve j of a line chart is drawn with: Braille lines
    /// told apart by colour, else j's mark ([`Theme::cluster_mark`]).
    pub fn series_marker(&self, j: usize) -> Marker {
        if self.color && !self.ascii {
            Marker::Braille
        } else {
            Marker::Custom(self.cluster_mark(j))
        }
    }

    /// The legend's sample of curve j: what [`Theme::series_marker`]
    /// draws (to be styled with [`Theme::cluster`]), so that the legend
    /// names only glyphs that are on the chart.
    pub fn series_key(&self, j: usize) -> String {
        match self.series_marker(j) {
            Marker::Custom(c) => c.to_string(),
            _ => BRAILLE_LINE.to_string(),
        }
    }

    pub fn focused_border(&self) -> Style {
        if self.color {
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }

    pub fn border(&self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }

    pub fn title(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn good(&self) -> Style {
        self.fg(Color::Green)
    }

    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn bad(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Black).bg(Color::Cyan)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    /// `text` as drawn: transliterated to ASCII words in ASCII mode (σ →
    /// sigma), so that no Greek letter turns into a letter that means
    /// something else on screen (s is the power exponent, n the row count).
    pub fn text<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.ascii && !text.is_ascii() {
            std::borrow::Cow::Owned(to_ascii(text))
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// Full and empty glyphs for bars.
    pub fn bar_chars(&self) -> (char, char) {
        if self.ascii {
            ('#', '.')
        } else {
            ('█', '░')
        }
    }
}

/// ASCII for the symbols used in names, help texts and messages.
fn ascii_for(c: char) -> Option<&'static str> {
    Some(match c {
        'α' => "alpha",
        'β' => "beta",
        'γ' => "gamma",
        'δ' | 'Δ' => "delta",
        'ε' => "eps",
        'η' => "eta",
        'θ' => "theta",
        'Θ' => "Theta",
        'κ' => "kappa",
        'λ' => "lambda",
        'μ' => "mu",
        'π' => "pi",
        'σ' => "sigma",
        'Σ' => "sum",
        'φ' | 'Φ' => "phi",
        'χ' => "chi",
        'ω' => "omega",
        'Ω' => "Omega",
        '−' | '–' => "-",
        '—' => "--",
        '·' => ".",
        '×' => "x",
        '‖' => "||",
        '…' => "...",
        '→' | '↦' => "->",
        '←' => "<-",
        '↔' => "<->",
        '↑' => "^",
        '↓' => "v",
        '≤' => "<=",
        '≥' => ">=",
        '≈' => "~",
        '≡' => "==",
        '∝' => "~",
        '∈' => " in ",
        '∞' => "inf",
        '√' => "sqrt",
        '∘' => "o",
        '½' => "1/2",
        '′' => "'",
        '⌊' | '⌈' => "[",
        '⌋' | '⌉' => "]",
        '²' => "^2",
        '³' => "^3",
        '¹' => "^1",
        '⁰' => "^0",
        '⁵' => "^5",
        '⁻' => "^-",
        '⁽' => "^(",
        '⁾' => ")",
        'ᵀ' => "^T",
        'ˡ' => "^l",
        'ʲ' => "^j",
        '₀' => "0",
        '₁' => "1",
        '₂' => "2",
        'ᵢ' => "_i",
        'ⱼ' => "_j",
        '§' => "S",
        'ŷ' => "y^",
        '●' | '•' => "*",
        '▶' => ">",
        '✓' => "v",
        '±' => "+-",
        '✗' => "x",
        // Combining marks (x̄, ŷ written as two code points).
        '\u{0300}'..='\u{036F}' => "",
        _ => return None,
    })
}

/// `text` in ASCII: Greek letters become their names, other symbols their
/// usual ASCII spelling, anything else `?`.
pub fn to_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(ascii_for(c).unwrap_or("?"));
        }
    }
    out
}

/// Replaces every non-ASCII glyph in the frame by an ASCII stand-in, after
/// all widgets have drawn: box drawing becomes + - |, Braille and block
/// elements become * or #.
pub fn asciify(buf: &mut Buffer) {
    for cell in buf.content.iter_mut() {
        let sym = cell.symbol();
        if sym.is_ascii() {
            continue;
        }
        let c = sym.chars().next().unwrap_or(' ');
        let rep = match c {
            // The focused pane's thick border stays apart from the others.
            '━' => "=",
            '─' | '═' | '╌' | '┄' | '┈' => "-",
            '│' | '┃' | '║' | '╎' | '┆' | '┊' => "|",
            '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' | '╭' | '╮' | '╯' | '╰' | '╔'
            | '╗' | '╚' | '╝' | '┏' | '┓' | '┗' | '┛' => "+",
            '\u{2800}' => " ",
            '\u{2801}'..='\u{28FF}' => "*",
            '█' | '▓' | '▇' | '▆' | '▅' => "#",
            '▒' | '▄' | '▃' | '▂' | '▀' | '▌' | '▐' => "=",
            '░' | '▁' => ".",
            '•' | '●' | '◆' => "*",
            '▶' => ">",
            '…' => "~",
            '₀' => "0",
            '≈' => "~",
            '←' => "<",
            '→' => ">",
            '↑' => "^",
            '↓' => "v",
            '·' => ".",
            '×' => "x",
            '−' => "-",
            '✓' => "v",
            '✗' => "x",
            // Text drawn through `Theme::text` is ASCII already; a Greek
            // letter reaching here must not pass for a Latin one.
            _ => "?",
        };
        cell.set_symbol(rep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_names_do_not_collide() {
        assert_eq!(to_ascii("σ"), "sigma");
        assert_eq!(to_ascii("η"), "eta");
        assert_eq!(to_ascii("ε_w"), "eps_w");
        assert_eq!(to_ascii("it₀"), "it0");
        assert_eq!(to_ascii("exp(−‖x−y‖²/2σ²)"), "exp(-||x-y||^2/2sigma^2)");
        assert_eq!(to_ascii("x̄"), "x");
        let t = Theme {
            color: false,
            ascii: true,
        };
        assert_eq!(t.text("λ = 1/p"), "lambda = 1/p");
        let u = Theme { ascii: false, ..t };
        assert_eq!(u.text("λ"), "λ");
    }

    #[test]
    fn cluster_marks_never_pass_for_a_centre() {
        let t = Theme {
            color: false,
            ascii: true,
        };
        for j in 0..CLUSTER_MARKS.len() {
            let m = t.cluster_mark(j);
            assert!(!m.eq_ignore_ascii_case(&CENTRE_MARK), "cluster {j}: {m}");
        }
    }

    #[test]
    fn legend_keys_are_what_the_curves_are_drawn_with() {
        for (color, ascii) in [(true, false), (false, false), (false, true), (true, true)] {
            let t = Theme { color, ascii };
            for j in 0..6 {
                match t.series_marker(j) {
                    Marker::Custom(c) => assert_eq!(t.series_key(j), c.to_string()),
                    Marker::Braille => {
                        assert!(color && !ascii);
                        assert!(
                            t.series_key(j)
                                .chars()
                                .all(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
                        );
                    }
                    m => panic!("unexpected marker {m:?}"),
                }
            }
        }
        // Without colour the glyphs differ curve by curve.
        let plain = Theme {
            color: false,
            ascii: false,
        };
        assert_ne!(plain.series_key(0), plain.series_key(1));
    }

    #[test]
    fn focus_shows_without_colour() {
        let plain = Theme {
            color: false,
            ascii: false,
        };
        assert_eq!(plain.focus_mark(true), "▶ ");
        assert_eq!(plain.focus_mark(false), "");
        let ascii = Theme {
            ascii: true,
            ..plain
        };
        assert_eq!(ascii.focus_mark(true), "> ");
        let colour = Theme {
            color: true,
            ascii: false,
        };
        assert_eq!(colour.focus_mark(true), "");
        let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 2, 1));
        buf[(0, 0)].set_symbol("━");
        buf[(1, 0)].set_symbol("─");
        asciify(&mut buf);
        assert_eq!((buf[(0, 0)].symbol(), buf[(1, 0)].symbol()), ("=", "-"));
    }
}
