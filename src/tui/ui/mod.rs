//! Layout: where each pane goes (the right-hand panes as tabs in a small
//! terminal), then the status and hint lines, and what is drawn over the
//! panes (the options list, the help, a prompt). Each pane is drawn in
//! `panes.rs`, the lines below them in `status.rs`, a prompt in
//! `prompt.rs`.

pub mod panes;
mod prompt;
mod status;

pub use super::keys::{HitMap, RIGHT_PANES};
pub use status::focus_detail;

use super::app::{App, Pane};
use super::components::Component;
use super::panes::theme::{Theme, asciify};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// Below this size the right-hand panes share one area, as tabs.
pub fn is_compact(area: Rect) -> bool {
    area.width < 110 || area.height < 30
}

pub fn render(f: &mut Frame, app: &App, theme: &Theme) -> HitMap {
    let area = f.area();
    let mut hits = HitMap::default();
    if area.width < 40 || area.height < 12 {
        f.render_widget(
            Paragraph::new(
                "meanscape needs at least 40 × 12 cells; enlarge the terminal (q quits)",
            )
            .wrap(Wrap { trim: true }),
            area,
        );
        finish(f, theme);
        return hits;
    }
    let compact = is_compact(area);
    // A message (an export's reproduce command) wraps onto up to four lines
    // rather than being cut. In a small terminal a one-line summary of the
    // run (state, score) stays below it at all times.
    let mut status = status::status_lines(app, area.width, theme);
    if compact {
        let summary = super::panes::metrics::summary(&app.metrics_draw(), area.width as usize);
        status.push(summary);
    } else if status.is_empty() {
        status.push(String::new());
    }
    let [main, status_area, hints] = Layout::vertical([
        Constraint::Min(8),
        Constraint::Length(status.len() as u16),
        Constraint::Length(1),
    ])
    .areas(area);
    // In a small terminal the focused History takes the whole width: its
    // table needs the columns.
    if compact && app.focus == Pane::History && !app.sweep.is_open() {
        app.history.draw(f, main, true, theme);
        hits.panes.push((Pane::History, main));
    } else {
        let left_w = if compact { 32.min(area.width / 2) } else { 40 };
        let [left, right] =
            Layout::horizontal([Constraint::Length(left_w), Constraint::Min(10)]).areas(main);
        left_panes(f, left, app, theme, compact, &mut hits);
        if app.sweep.is_open() {
            panes::sweep(f, right, app, theme);
        } else if compact {
            tabs(f, right, app, theme, &mut hits);
        } else {
            right_panes(f, right, app, theme, &mut hits);
        }
    }
    status::render_status(f, status_area, &status, app, theme, compact);
    status::render_hints(f, hints, app, theme);
    panes::controls(f, main, app, theme);
    overlays(f, area, app, theme);
    finish(f, theme);
    hits
}

/// Data, Algorithm and Parameters, down the left-hand side.
fn left_panes(
    f: &mut Frame,
    left: Rect,
    app: &App,
    theme: &Theme,
    compact: bool,
    hits: &mut HitMap,
) {
    let n_algos = app.algos.len() as u16;
    // Name, classes and k, scaling.
    let data_h = 5;
    // The whole list when there is room for it and the sliders (a large
    // terminal); else part of it, with a scroll hint.
    let algo_h = if left.height >= 36 {
        n_algos + 2
    } else {
        (n_algos + 2)
            .min(if compact { 6 } else { 12 })
            .min(left.height / 3)
    };
    let [data, algo, params] = Layout::vertical([
        Constraint::Length(data_h),
        Constraint::Length(algo_h),
        Constraint::Min(3),
    ])
    .areas(left);
    panes::data(f, data, app, theme);
    panes::algorithm(f, algo, app, theme);
    hits.sliders = panes::parameters(f, params, app, theme);
    hits.panes.extend([
        (Pane::Data, data),
        (Pane::Algorithm, algo),
        (Pane::Parameters, params),
    ]);
}

/// A small terminal: the right-hand panes as tabs, the focused one (or
/// the one last focused) shown below them.
fn tabs(f: &mut Frame, right: Rect, app: &App, theme: &Theme, hits: &mut HitMap) {
    let shown = if RIGHT_PANES.contains(&app.focus) || app.focus == Pane::History {
        app.focus
    } else {
        app.shown_right
    };
    let [tabs, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(right);
    let titles = tab_titles(tabs.width as usize);
    let mut spans = Vec::new();
    let mut x = tabs.x;
    for (p, t) in RIGHT_PANES.iter().zip(&titles) {
        let style = if *p == shown {
            theme.selected()
        } else {
            theme.dim()
        };
        let cell = format!(" {t} ");
        let w = cell.chars().count() as u16;
        spans.push(Span::styled(cell, style));
        // Tab titles are clickable too.
        hits.panes.push((
            *p,
            Rect {
                x,
                y: tabs.y,
                width: w,
                height: 1,
            },
        ));
        x += w;
    }
    f.render_widget(Paragraph::new(Line::from(spans)), tabs);
    panes::right(f, shown, body, app, theme);
    hits.panes.push((shown, body));
}

/// A large terminal: the right-hand panes side by side, or the History
/// or a wide view in their place.
fn right_panes(f: &mut Frame, right: Rect, app: &App, theme: &Theme, hits: &mut HitMap) {
    if app.shown_right == Pane::History {
        // The History in place of the right-hand panes (4-8 bring them back).
        app.history
            .draw(f, right, app.focus == Pane::History, theme);
        hits.panes.push((Pane::History, right));
        return;
    }
    if let Some(p) = panes::wide(f, right, app, theme) {
        // The inspector, the path or the confusion view.
        hits.panes.push((p, right));
        return;
    }
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(right);
    let [obj, scat] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(top);
    let [sizes, weights, metrics] = Layout::horizontal([
        Constraint::Percentage(28),
        Constraint::Percentage(40),
        Constraint::Percentage(32),
    ])
    .areas(bottom);
    for (p, r) in [
        (Pane::Objective, obj),
        (Pane::Scatter, scat),
        (Pane::Sizes, sizes),
        (Pane::Weights, weights),
        (Pane::Metrics, metrics),
    ] {
        panes::right(f, p, r, app, theme);
        hits.panes.push((p, r));
    }
}

/// The help and the prompt, drawn over everything.
fn overlays(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if app.help.open {
        app.help.draw(f, area, &app.help_sections(), theme);
    }
    if let Some(p) = &app.prompt {
        prompt::render_prompt(f, area, p, app, theme);
    }
}

/// The tab titles of the right-hand panes that fit in `w` cells: with
/// their focus keys (4 Objective …), else without, else shortened.
pub fn tab_titles(w: usize) -> Vec<String> {
    let key = |p: Pane| Pane::ALL.iter().position(|q| *q == p).unwrap_or(0) + 1;
    let short = |p: Pane| match p {
        Pane::Sizes => "Sizes",
        Pane::Weights => "Weights",
        p => p.title(),
    };
    let options: [Vec<String>; 4] = [
        RIGHT_PANES
            .iter()
            .map(|p| format!("{} {}", key(*p), p.title()))
            .collect(),
        RIGHT_PANES
            .iter()
            .map(|p| format!("{} {}", key(*p), short(*p)))
            .collect(),
        RIGHT_PANES.iter().map(|p| short(*p).to_string()).collect(),
        RIGHT_PANES
            .iter()
            .map(|p| short(*p).chars().take(4).collect())
            .collect(),
    ];
    let width = |ts: &Vec<String>| ts.iter().map(|t| t.chars().count() + 2).sum::<usize>();
    options
        .iter()
        .find(|ts| width(ts) <= w)
        .unwrap_or(&options[3])
        .clone()
}

fn finish(f: &mut Frame, theme: &Theme) {
    if theme.ascii {
        asciify(f.buffer_mut());
    }
}
