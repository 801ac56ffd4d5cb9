//! Screens at 80×24 without colour (NO_COLOR) that must not mislead: the
//! focused pane visible without colour, scatter glyphs that cannot be
//! taken for one another (with a legend), values rounded instead of cut,
//! a weight legend that shows the glyphs the curves are drawn with.

mod tui_support;

use meanscape::tui::app::{Action, Pane};
use tui_support::{ASCII, COLOR, PLAIN, finished, screen, settle, start, type_value};

/// The rows of a frame without the quotes TestBackend puts around them.
fn rows(s: &str) -> Vec<String> {
    s.lines().map(|l| l.trim_matches('"').to_string()).collect()
}

#[test]
fn the_focused_pane_shows_without_colour() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Parameters));
    let plain = screen(&mut app, 80, 24, PLAIN);
    assert!(plain.contains("┏ ▶ Parameters"), "{plain}");
    // Only the focused pane is marked.
    assert_eq!(plain.matches('▶').count(), 1, "{plain}");
    let ascii = screen(&mut app, 80, 24, ASCII);
    let line = rows(&ascii)
        .into_iter()
        .find(|l| l.contains("> Parameters"))
        .unwrap_or_else(|| panic!("no marked title\n{ascii}"));
    // The thick border stays apart from the plain ones in ASCII too.
    assert!(
        line.contains("+ > Parameters") && line.contains("=="),
        "{line}"
    );
    assert!(!ascii.contains("+ > Data"), "{ascii}");
    // Colour shows it already: no marker there.
    let colour = screen(&mut app, 80, 24, COLOR);
    assert!(!colour.contains('▶'), "{colour}");
    insta::assert_snapshot!("focus_80x24_plain", plain);
}

#[test]
fn scatter_glyphs_are_told_apart_and_named() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Scatter));
    for theme in [PLAIN, ASCII] {
        let s = screen(&mut app, 80, 24, theme);
        let r = rows(&s);
        // The scatter is the right-hand pane; its legend names every mark.
        let at = r
            .iter()
            .position(|l| l.contains("X centres"))
            .unwrap_or_else(|| panic!("no legend\n{s}"));
        assert!(r[at].contains("o0 +1 *2"), "{}", r[at]);
        // A lower-case x is no mark: it cannot pass for a centre's X.
        let plot: String = r[2..at]
            .iter()
            .map(|l| l.chars().skip(32).collect::<String>())
            .collect();
        assert!(!plot.contains('x'), "{s}");
        assert_eq!(plot.matches('X').count(), 3, "three centres\n{s}");
        if theme == PLAIN {
            insta::assert_snapshot!("scatter_80x24_plain", s);
        }
    }
}

#[test]
fn parameter_values_are_rounded_never_cut() {
    let mut app = start("iris", "lw");
    settle(&mut app, finished);
    type_value(&mut app, "lambda", "0.000450123");
    let s = screen(&mut app, 80, 24, PLAIN);
    let line = rows(&s)
        .into_iter()
        .find(|l| l.contains("lambda"))
        .unwrap_or_else(|| panic!("no lambda\n{s}"));
    assert!(line.contains("0.00045012*"), "{line}");
    // No number anywhere ends in the cut mark.
    for (i, c) in s.char_indices() {
        if c == '…' {
            let before = s[..i].chars().last().unwrap_or(' ');
            assert!(!before.is_ascii_digit(), "a number cut at {i}:\n{s}");
        }
    }
}

#[test]
fn the_weight_legend_shows_the_glyphs_drawn() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, |a| {
        finished(a) && a.path.job.is_none() && a.path.result.is_some()
    });
    for theme in [COLOR, PLAIN] {
        let s = screen(&mut app, 120, 40, theme);
        let r: Vec<Vec<char>> = rows(&s).iter().map(|l| l.chars().collect()).collect();
        let find = |l: &[char]| {
            let t: String = l.iter().collect();
            t.find("weight of").map(|b| t[..b].chars().count())
        };
        let (at, col) = r
            .iter()
            .enumerate()
            .find_map(|(i, l)| find(l).map(|c| (i, c)))
            .unwrap_or_else(|| panic!("no legend\n{s}"));
        // The legend's keys: the first glyph of each entry below the caption.
        let keys: Vec<char> = r[at + 1..]
            .iter()
            .take(5)
            .filter_map(|l| l.get(col).copied())
            .filter(|c| *c != ' ')
            .collect();
        assert!(!keys.is_empty(), "{s}");
        // The chart: left of the legend, on the legend's rows and below.
        let chart: String = r[at..(at + 16).min(r.len())]
            .iter()
            .flat_map(|l| l[..col.min(l.len())].iter())
            .collect();
        let braille = |c: char| ('\u{2801}'..='\u{28ff}').contains(&c);
        for k in keys {
            if theme.color {
                // Curves in colour are Braille lines: so is their key.
                assert!(braille(k), "key {k}\n{s}");
                assert!(chart.chars().any(braille), "{s}");
            } else {
                assert!(chart.contains(k), "key {k} drawn nowhere\n{s}");
            }
        }
    }
}
