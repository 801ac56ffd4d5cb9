//! The History pane: every finished run in a table (the sorted column's
//! title carries ↑/↓, pinned runs A and B), the highlighted run in full
//! below it; with two runs pinned, `v` shows their comparison instead
//! (see `compare.rs`).

use super::theme::Theme;
use super::{block, clip, fmt_ms, wrap};
use crate::algo::params::round_sig;

/// A cost in the table: four significant digits, as short as they go
/// (4785000, not 4.78500e6).
fn cost_text(c: f64) -> String {
    crate::numfmt::fit(round_sig(c, 4), 10)
}
use crate::tui::app::history::{Column, Entry, History};
use crate::tui::keys::Pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// "A" or "B" for a pinned run (in the order they were pinned).
pub fn pin_mark(h: &History, id: usize) -> Option<char> {
    h.pinned
        .iter()
        .position(|&p| p == id)
        .map(|i| if i == 0 { 'A' } else { 'B' })
}

/// What the score column holds: NMI where the data had labels, else the
/// silhouette (marked `s` when both kinds are in the table).
fn score_title(h: &History) -> &'static str {
    let with = h.entries.iter().filter(|e| e.nmi.is_some()).count();
    match with {
        0 => "silh",
        n if n == h.entries.len() => "NMI",
        _ => "NMI/silh",
    }
}

fn score_cell(e: &Entry, mixed: bool) -> String {
    match (e.nmi, e.silhouette) {
        (Some(n), _) => format!("{n:.3}"),
        (None, Some(s)) if mixed => format!("{s:.3}s"),
        (None, Some(s)) => format!("{s:.3}"),
        _ => "-".into(),
    }
}

/// The changed settings as `name=value`, numbers in at most `digits`
/// characters (rounded) when given.
fn changed_parts(e: &Entry, digits: Option<usize>) -> Vec<String> {
    let Some(d) = digits else {
        return e.changed_parts();
    };
    e.changed
        .iter()
        .map(|(n, v)| format!("{n}={}", crate::numfmt::fit(*v, d)))
        .chain(
            e.options
                .iter()
                .filter(|(n, _)| n.as_str() != "max_memory")
                .map(|(n, v)| format!("{n}={v}")),
        )
        .collect()
}

/// A column as drawn: which, its width, right-aligned or not.
struct Col {
    col: Option<Column>,
    title: String,
    width: usize,
    right: bool,
}

fn cell(e: &Entry, c: &Col, mixed: bool) -> String {
    let Some(col) = c.col else {
        return e.dataset.clone();
    };
    match col {
        Column::Run => e.id.to_string(),
        Column::Algorithm => e.algo.clone(),
        // Whole name=value pairs and a count of the rest: a value cut off
        // reads as another value (the detail below has them all).
        Column::Changed => {
            if e.changed_parts().is_empty() {
                return "defaults".into();
            }
            // Values with fewer digits before parts are left out.
            let mut text = String::new();
            for digits in [None, Some(7), Some(5)] {
                text = crate::numfmt::fit_words(&changed_parts(e, digits), c.width);
                if !text.ends_with(')') && !text.ends_with(" set") {
                    break;
                }
            }
            text
        }
        Column::K => e.k.to_string(),
        Column::Seed => e.seed.to_string(),
        Column::Score => score_cell(e, mixed),
        Column::Cost => e.cost.map_or("-".into(), cost_text),
        Column::Iters => e.iterations.to_string(),
        Column::Time => fmt_ms(e.elapsed_ms),
        Column::Features => {
            let t = e.features_text();
            if t.is_empty() { "-".into() } else { t }
        }
    }
}

/// Every column the table may show, at the width of its widest cell,
/// with its priority (lower is kept first); the dataset's only when the
/// runs are on more than one.
fn candidates(h: &History) -> Vec<(Col, usize)> {
    let widest = |f: &dyn Fn(&Entry) -> String, min: usize| {
        h.entries
            .iter()
            .map(|e| f(e).chars().count())
            .max()
            .unwrap_or(0)
            .max(min)
    };
    let mixed = score_title(h) == "NMI/silh";
    let datasets: std::collections::BTreeSet<&str> =
        h.entries.iter().map(|e| e.data.as_str()).collect();
    let mk = |col: Option<Column>, title: &str, width: usize, right: bool| Col {
        col,
        title: title.to_string(),
        width,
        right,
    };
    // A right-aligned column with its priority.
    let num = |col: Column, title: &str, width: usize, prio: usize| {
        (mk(Some(col), title, width, true), prio)
    };
    let score = score_title(h);
    let algo_w = widest(&|e| e.algo.clone(), 9).min(14);
    let mut all: Vec<(Col, usize)> = vec![
        num(Column::Run, "#", widest(&|e| e.id.to_string(), 2), 0),
        (mk(Some(Column::Algorithm), "algorithm", algo_w, false), 0),
        (mk(Some(Column::Changed), "changed", 0, false), 3),
        num(Column::K, "k", widest(&|e| e.k.to_string(), 3), 2),
        num(Column::Seed, "seed", widest(&|e| e.seed.to_string(), 5), 5),
        num(
            Column::Score,
            score,
            widest(&|e| score_cell(e, mixed), score.len() + 1),
            0,
        ),
        num(
            Column::Cost,
            "cost",
            widest(&|e| e.cost.map_or("-".into(), cost_text), 5),
            4,
        ),
        num(
            Column::Iters,
            "iters",
            widest(&|e| e.iterations.to_string(), 6),
            6,
        ),
        num(
            Column::Time,
            "time",
            widest(&|e| fmt_ms(e.elapsed_ms), 5),
            7,
        ),
        num(
            Column::Features,
            "features",
            widest(&|e| e.features_text(), 9),
            8,
        ),
    ];
    if datasets.len() > 1 {
        let wd = widest(&|e| e.dataset.clone(), 4).min(12);
        all.insert(2, (mk(None, "data", wd, false), 1));
    }
    all
}

/// The columns that fit in `w` cells, in the table's order: the run, the
/// algorithm and the score always, the others by importance while they
/// fit; the changed parameters take what is left.
fn columns(h: &History, w: usize) -> Vec<Col> {
    let all = candidates(h);
    // The cursor and pin marks, and a space before every column.
    let mut used = 3;
    let mut keep = vec![false; all.len()];
    let changed_min = 10;
    for prio in 0..=8 {
        for (i, (c, p)) in all.iter().enumerate() {
            if *p != prio {
                continue;
            }
            let need = if c.col == Some(Column::Changed) {
                changed_min
            } else {
                c.width
            } + 1;
            if used + need <= w || prio == 0 {
                keep[i] = true;
                used += need;
            }
        }
    }
    let mut out: Vec<Col> = all
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|((c, _), _)| c)
        .collect();
    // The changed parameters take the rest of the line.
    let rest = w.saturating_sub(used);
    for c in out.iter_mut() {
        if c.col == Some(Column::Changed) {
            c.width = changed_min + rest;
        }
    }
    out
}

fn pad(s: &str, w: usize, right: bool) -> String {
    let s = clip(s, w);
    if right {
        format!("{s:>w$}")
    } else {
        format!("{s:<w$}")
    }
}

/// The highlighted run in full: settings and scores (the command that
/// repeats it is drawn apart, whole).
fn detail(e: &Entry) -> String {
    let mut parts = vec![
        format!("#{} {} on {}", e.id, e.algo, e.dataset),
        format!("k={} seed={} {}", e.k, e.seed, e.changed_text()),
    ];
    if let Some(n) = e.nmi {
        parts.push(format!(
            "NMI {n:.3} ARI {:.3} ACC {:.3}",
            e.ari.unwrap_or(f64::NAN),
            e.acc.unwrap_or(f64::NAN)
        ));
    }
    if let Some(s) = e.silhouette {
        parts.push(format!("silh {s:.3}"));
    }
    parts.push(format!(
        "{} after {} iterations",
        if e.converged {
            "converged"
        } else {
            "stopped at max_iter"
        },
        e.iterations
    ));
    if let Some(names) = &e.selected_names {
        let shown: Vec<&str> = names.iter().take(8).map(|s| s.as_str()).collect();
        let more = names.len().saturating_sub(shown.len());
        let tail = if more > 0 {
            format!(" … +{more}")
        } else {
            String::new()
        };
        parts.push(format!("selected: {}{tail}", shown.join(" ")));
    }
    parts.join(" · ")
}

/// The lines below the table in `room` rows of `w` cells: the summary,
/// as much of it as the command leaves room for (at most `most` lines,
/// `…` where it stops), then the run's command whole, wrapped: it is
/// what the user copies (E writes it whole to the CSV and JSON).
fn detail_lines(e: &Entry, w: usize, room: usize, most: usize, theme: &Theme) -> Vec<String> {
    let mut command = wrap(&theme.text(&format!("$ {}", e.command)), w);
    if command.len() > room {
        // Not even the command fits: say where it is whole.
        command.truncate(room.saturating_sub(1));
        command.push(clip(&theme.text("… E exports it whole"), w));
        return command;
    }
    let mut summary = wrap(&theme.text(&detail(e)), w);
    let keep = most.min(room - command.len());
    if summary.len() > keep {
        summary.truncate(keep);
        if let Some(last) = summary.last_mut() {
            // Cut at a word, and said.
            while last.chars().count() + 2 > w {
                match last.rfind(' ') {
                    Some(i) => last.truncate(i),
                    None => break,
                }
            }
            last.push_str(" …");
        }
    }
    summary.extend(command);
    summary
}

/// The History `h`, its border bright when `focused`.
pub fn render(f: &mut Frame, area: Rect, h: &History, focused: bool, theme: &Theme) {
    if h.comparing
        && let Some((a, b)) = h.pinned_pair()
    {
        super::compare::render(f, area, focused, a, b, theme);
        return;
    }
    let body = super::inner(area);
    let w = body.width as usize;
    f.render_widget(
        block(
            Pane::History,
            focused,
            theme,
            &theme.text(&title_extra(h)),
            area.width,
        ),
        area,
    );
    if h.entries.is_empty() {
        let text = "no finished run yet: every run that finishes is listed here, with its settings and scores. ↑↓ choose · Enter re-runs · m pins two to compare · c sorts · E exports";
        let lines: Vec<Line> = wrap(&theme.text(text), w)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim())))
            .collect();
        f.render_widget(Paragraph::new(lines), body);
        return;
    }
    let cols = columns(h, w);
    let sel = h.selected_entry().map(|e| e.id);
    // The highlighted run in full below the table, when there is room:
    // the table keeps its header, a separator and three rows.
    let detail_lines: Vec<String> = match sel.and_then(|id| h.get(id)) {
        Some(e) if body.height >= 10 => {
            let room = (body.height as usize).saturating_sub(2 + h.entries.len().min(3));
            let most = if body.height >= 20 { 4 } else { 2 };
            detail_lines(e, w, room, most, theme)
        }
        _ => Vec::new(),
    };
    let rows = (body.height as usize)
        .saturating_sub(1 + detail_lines.len() + usize::from(!detail_lines.is_empty()));
    let mut lines = Vec::new();
    lines.push(header(h, &cols, w, theme));
    let order = h.order();
    let cursor = h.cursor();
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    for &i in order.iter().skip(first).take(rows) {
        let e = &h.entries[i];
        let is_sel = Some(e.id) == sel;
        lines.push(row(h, e, &cols, w, is_sel && focused, is_sel, theme));
    }
    let hidden = order.len().saturating_sub(first + rows);
    if !detail_lines.is_empty() {
        while lines.len() < rows + 1 {
            lines.push(Line::from(""));
        }
        let more = if hidden > 0 || first > 0 {
            format!(
                "rows {}-{} of {}",
                first + 1,
                (first + rows).min(order.len()),
                order.len()
            )
        } else {
            String::new()
        };
        lines.push(Line::from(Span::styled(
            clip(&format!("{more:─<w$}"), w),
            theme.dim(),
        )));
        for l in detail_lines {
            lines.push(Line::from(Span::styled(l, theme.dim())));
        }
    }
    f.render_widget(Paragraph::new(lines), body);
}

/// The title after the pane's name: the runs, the sort, the pins.
fn title_extra(h: &History) -> String {
    let arrow = if h.descending { "↓" } else { "↑" };
    let mut extra = vec![format!("{} runs", h.entries.len())];
    extra.push(format!("sort {} {arrow}", h.sort.title()));
    if h.pinned.len() == 2 {
        extra.push("A B pinned: v compares".into());
    } else if !h.pinned.is_empty() {
        extra.push("A pinned".into());
    }
    extra.join(" · ")
}

/// The table's header: the sorted column's title carries the direction.
fn header(h: &History, cols: &[Col], w: usize, theme: &Theme) -> Line<'static> {
    let arrow = if h.descending { "↓" } else { "↑" };
    let mut header = vec![Span::raw("   ")];
    let mut used = 3;
    for c in cols {
        // The columns the rows show whole, no more.
        if used + c.width > w {
            break;
        }
        used += c.width + 1;
        let sorted = c.col == Some(h.sort);
        let t = if sorted {
            format!("{}{arrow}", c.title)
        } else {
            c.title.clone()
        };
        let style = if sorted {
            theme.accent()
        } else {
            theme.title()
        };
        header.push(Span::styled(pad(&theme.text(&t), c.width, c.right), style));
        header.push(Span::raw(" "));
    }
    Line::from(header)
}

/// A run's row: the cursor and pin marks, then its cells. `chosen`: the
/// highlighted run in the focused pane; `is_sel`: the highlighted run.
fn row(
    h: &History,
    e: &Entry,
    cols: &[Col],
    w: usize,
    chosen: bool,
    is_sel: bool,
    theme: &Theme,
) -> Line<'static> {
    let mixed = score_title(h) == "NMI/silh";
    // Marks that read without colour: the cursor, then A or B.
    let cursor_mark = if is_sel { '>' } else { ' ' };
    let mark = pin_mark(h, e.id).unwrap_or(' ');
    let mut text = format!("{cursor_mark}{mark} ");
    for c in cols {
        // A column that does not fit whole is left out, not cut.
        if text.chars().count() + c.width > w {
            break;
        }
        text.push_str(&pad(&theme.text(&cell(e, c, mixed)), c.width, c.right));
        text.push(' ');
    }
    let text = clip(&text, w);
    let style = if chosen {
        theme.selected()
    } else if is_sel {
        theme.accent()
    } else {
        Style::default()
    };
    Line::from(Span::styled(format!("{text:<w$}"), style))
}
