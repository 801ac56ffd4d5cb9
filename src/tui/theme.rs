//! Colours and glyphs: 16 named colours (readable on any terminal),
//! nothing at all under NO_COLOR, and an ASCII-only mode.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

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

/// Distinguishes clusters where colour cannot.
const CLUSTER_MARKS: &[u8] = b"ox+*#%@&=?abcdefghijklmnpqrstuvwyz";

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

    /// Full and empty glyphs for bars.
    pub fn bar_chars(&self) -> (char, char) {
        if self.ascii {
            ('#', '.')
        } else {
            ('█', '░')
        }
    }
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
            '─' | '━' | '═' | '╌' | '┄' | '┈' => "-",
            '│' | '┃' | '║' | '╎' | '┆' | '┊' => "|",
            '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' | '╭' | '╮' | '╯' | '╰' | '╔'
            | '╗' | '╚' | '╝' | '┏' | '┓' | '┗' | '┛' => "+",
            '\u{2800}' => " ",
            '\u{2801}'..='\u{28FF}' => "*",
            '█' | '▓' | '▇' | '▆' | '▅' => "#",
            '▒' | '▄' | '▃' | '▂' | '▀' | '▌' | '▐' => "=",
            '░' | '▁' => ".",
            '•' | '●' | '◆' => "*",
            '…' => "~",
            '₀' => "0",
            '≈' => "~",
            '←' => "<",
            '→' => ">",
            '↑' => "^",
            '↓' => "v",
            '·' => ".",
            'α' => "a",
            'β' => "b",
            'η' => "n",
            'λ' => "l",
            'σ' => "s",
            'κ' => "k",
            '×' => "x",
            '−' => "-",
            '✓' => "v",
            '✗' => "x",
            _ => "?",
        };
        cell.set_symbol(rep);
    }
}
