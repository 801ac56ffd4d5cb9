//! One file per pane; each draws into the area it is given.

pub mod algorithm;
pub mod data;
pub mod metrics;
pub mod objective;
pub mod parameters;
pub mod scatter;
pub mod sizes;
pub mod weights;

use super::app::Pane;
use super::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

/// The bordered block of a pane, highlighted when focused.
/// A pane's frame. The title is the pane's name, then as many of the
/// ` · `-separated parts of `extra` as fit whole in `width`: a number cut
/// off by the border would read as another number.
pub fn block<'a>(pane: Pane, focused: bool, theme: &Theme, extra: &str, width: u16) -> Block<'a> {
    let mut title = format!(" {}", pane.title());
    for part in extra.split(" · ").filter(|p| !p.is_empty()) {
        let longer = format!("{title} · {part}");
        if longer.chars().count() + 3 > width as usize {
            break;
        }
        title = longer;
    }
    title.push(' ');
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(if focused {
            theme.focused_border()
        } else {
            theme.border()
        })
        .title(Line::from(Span::styled(title, theme.title())))
}

/// A text bar of `width` cells filled to `frac`.
pub fn bar(frac: f64, width: usize, theme: &Theme) -> String {
    let (full, empty) = theme.bar_chars();
    let f = if frac.is_finite() {
        frac.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let n = (f * width as f64).round() as usize;
    let mut s: String = std::iter::repeat_n(full, n).collect();
    s.extend(std::iter::repeat_n(empty, width - n));
    s
}

/// Inner area of a bordered rect.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Cuts a string to `w` display cells, marking the cut.
pub fn clip(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else if w == 0 {
        String::new()
    } else {
        let mut t: String = s.chars().take(w - 1).collect();
        t.push('…');
        t
    }
}
