//! One file per pane; each draws into the area it is given.

pub mod algorithm;
pub mod compare;
pub mod confusion;
pub mod data;
pub mod history;
pub mod metrics;
pub mod objective;
pub mod parameters;
pub mod path;
pub mod scatter;
pub mod sizes;
pub mod sweep;
pub mod theme;
pub mod weight_fmt;
pub mod weights;

use super::keys::Pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use theme::Theme;

/// `lines` drawn over whatever is under `r`, in a focused frame titled
/// `title`: the help and the prompts.
pub fn overlay(f: &mut Frame, r: Rect, lines: Vec<Line>, title: &str, theme: &Theme) {
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.focused_border())
                .title(theme.text(title).into_owned()),
        ),
        r,
    );
}

/// A pane's frame, highlighted when focused. The title is the pane's name,
/// then those of the ` · `-separated parts of `extra` that fit whole in
/// `width`, in order: a number cut off by the border would read as another
/// number.
pub fn block<'a>(pane: Pane, focused: bool, theme: &Theme, extra: &str, width: u16) -> Block<'a> {
    // Without colour the thick border may be all that marks the focus
    // (and ASCII has none): the title says it too.
    let mut title = format!(" {}{}", theme.focus_mark(focused), pane.title());
    for part in extra.split(" · ").filter(|p| !p.is_empty()) {
        let longer = format!("{title} · {part}");
        if longer.chars().count() + 3 <= width as usize {
            title = longer;
        }
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

/// Greedy word wrap to `w` cells; a word longer than a line is split.
pub fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for word in para.split(' ') {
            let mut word: String = word.to_string();
            loop {
                let used = line.chars().count();
                let need = word.chars().count() + usize::from(used > 0);
                if used + need <= w {
                    if used > 0 {
                        line.push(' ');
                    }
                    line.push_str(&word);
                    break;
                }
                if used > 0 {
                    out.push(std::mem::take(&mut line));
                    continue;
                }
                // A word wider than the line: split it.
                let head: String = word.chars().take(w).collect();
                word = word.chars().skip(w).collect();
                out.push(head);
                if word.is_empty() {
                    break;
                }
            }
        }
        out.push(line);
    }
    out
}

/// Joins as many of `parts` (in order of importance) as fit in `w` cells
/// with " · ", dropping whole parts rather than cutting one.
pub fn fit_parts(parts: &[String], w: usize) -> String {
    let mut out = String::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        let longer = if out.is_empty() {
            p.clone()
        } else {
            format!("{out} · {p}")
        };
        if longer.chars().count() <= w {
            out = longer;
        }
    }
    out
}

/// A duration in milliseconds, written as every time in the UI is
/// (`850 ms`, `1.25 s`, `2 min 03 s`: [`crate::numfmt::duration`]).
pub fn fmt_ms(ms: f64) -> String {
    crate::numfmt::duration(ms / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_word_and_the_width() {
        let t = "Bandwidth σ of the approximated Gaussian kernel exp(−‖x−y‖²/2σ²).";
        let lines = wrap(t, 12);
        assert!(lines.iter().all(|l| l.chars().count() <= 12), "{lines:?}");
        // Every character kept, in order (a split word loses no letter).
        let bare = |s: &str| s.replace(' ', "");
        assert_eq!(bare(&lines.concat()), bare(t));
        assert_eq!(lines[0], "Bandwidth σ");
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), vec![""]);
    }

    #[test]
    fn fit_parts_drops_whole_parts() {
        let parts = ["running".to_string(), "NMI 0.8".into(), "iter 310".into()];
        assert_eq!(fit_parts(&parts, 100), "running · NMI 0.8 · iter 310");
        assert_eq!(fit_parts(&parts, 20), "running · NMI 0.8");
        assert_eq!(fit_parts(&parts, 15), "running");
    }
}
