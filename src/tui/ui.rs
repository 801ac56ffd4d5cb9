//! Layout and the parts drawn over the panes: key hints, messages, the
//! help overlay and prompts.

pub use super::keys::{HitMap, RIGHT_PANES};

use super::app::{App, Pane, PromptKind, RunStatus};
use super::components::Component;
use super::components::controls::ControlsCtx;
use super::components::sweep::SweepNow;
use super::keys::{self, Context};
use super::panes::theme::{Theme, asciify};
use super::panes::{self, clip, wrap};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Below this size the right-hand panes share one area, as tabs.
pub fn is_compact(area: Rect) -> bool {
    area.width < 110 || area.height < 30
}

/// Lines of the status area above the compact summary: a message, the
/// run's error, or the full text of what the focused pane cuts.
fn status_lines(app: &App, width: u16, theme: &Theme) -> Vec<String> {
    let w = width.max(1) as usize;
    // A focused pane's text is read on purpose: it may take more lines.
    let (text, max) = match status_text(app) {
        Some(t) => (Some(t), 4),
        None => (focus_detail(app), 6),
    };
    match text {
        Some(t) => {
            let mut lines = wrap(&theme.text(&t), w);
            if lines.len() > max {
                lines.truncate(max);
                let last = lines.last_mut().expect("max > 0");
                *last = clip(&format!("{last}…"), w);
            }
            lines
        }
        None => Vec::new(),
    }
}

/// The whole of what the focused pane may cut: the highlighted algorithm's
/// name and summary, the dataset's notes.
pub fn focus_detail(app: &App) -> Option<String> {
    match app.focus {
        Pane::Algorithm => app
            .algos
            .get(app.algo_cursor)
            .map(|a| format!("{} — {}: {}", a.id(), a.name(), a.summary())),
        Pane::Data => Some(panes::data::full_text(app).join(" · ")),
        _ => None,
    }
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
    let mut status = status_lines(app, area.width, theme);
    if compact {
        status.push(panes::metrics::summary(app, area.width as usize));
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
        app.history.draw(f, main, app.focus == Pane::History, theme);
        hits.panes.push((Pane::History, main));
        render_status(f, status_area, &status, app, theme, compact);
        render_hints(f, hints, app, theme);
        draw_controls(f, main, app, theme);
        overlays(f, area, app, theme);
        finish(f, theme);
        return hits;
    }
    let left_w = if compact { 32.min(area.width / 2) } else { 40 };
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(10)]).areas(main);
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
    panes::data::render(f, data, app, theme);
    panes::algorithm::render(f, algo, app, theme);
    hits.sliders = panes::parameters::render(f, params, app, theme);
    hits.panes.extend([
        (Pane::Data, data),
        (Pane::Algorithm, algo),
        (Pane::Parameters, params),
    ]);
    if app.sweep.is_open() {
        draw_sweep(f, right, app, theme);
    } else if compact {
        let shown = if RIGHT_PANES.contains(&app.focus) || app.focus == Pane::History {
            app.focus
        } else {
            app.shown_right
        };
        let [tabs, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(right);
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
        render_right(f, shown, body, app, theme);
        hits.panes.push((shown, body));
    } else if app.shown_right == Pane::History {
        // The History in place of the right-hand panes (4-8 bring them back).
        app.history
            .draw(f, right, app.focus == Pane::History, theme);
        hits.panes.push((Pane::History, right));
    } else if let Some(p) = panes::wide::render(f, right, app, theme) {
        // The inspector, the path or the confusion view.
        hits.panes.push((p, right));
    } else {
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
            render_right(f, p, r, app, theme);
            hits.panes.push((p, r));
        }
    }
    render_status(f, status_area, &status, app, theme, compact);
    render_hints(f, hints, app, theme);
    draw_controls(f, main, app, theme);
    overlays(f, area, app, theme);
    finish(f, theme);
    hits
}

/// The list of controls (O) over the panes, when open.
fn draw_controls(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if app.controls_view.open {
        let controls = app.controls();
        let ctx = ControlsCtx {
            controls: &controls,
            algo: app.algo().id(),
        };
        app.controls_view.draw(f, area, ctx, theme);
    }
}

/// The sweep view, with how the settings now stand against the sweep's.
fn draw_sweep(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let stale = app.sweep_stale();
    let same_data = !stale.is_empty() && app.sweep_same_data();
    app.sweep.draw(
        f,
        area,
        SweepNow {
            stale: &stale,
            same_data,
        },
        theme,
    );
}

/// The help and the prompt, drawn over everything.
fn overlays(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if app.help.open {
        app.help.draw(f, area, &app.help_sections(), theme);
    }
    if let Some(p) = &app.prompt {
        render_prompt(f, area, p, app, theme);
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

fn render_right(f: &mut Frame, p: Pane, r: Rect, app: &App, theme: &Theme) {
    if matches!(p, Pane::Weights | Pane::Metrics) && panes::wide::render(f, r, app, theme).is_some()
    {
        return;
    }
    match p {
        Pane::Objective => panes::objective::render(f, r, app, theme),
        Pane::Scatter => panes::scatter::render(f, r, app, theme),
        Pane::Sizes => panes::sizes::render(f, r, app, theme),
        Pane::Weights => panes::weights::render(f, r, app, theme),
        Pane::Metrics => panes::metrics::render(f, r, app, theme),
        Pane::History => app.history.draw(f, r, app.focus == Pane::History, theme),
        _ => {}
    }
}

/// What the status line says in full: a message, else the run's error
/// (the Metrics pane is too narrow for a whole error with its advice).
fn status_text(app: &App) -> Option<String> {
    match (&app.message, &app.status) {
        (Some(m), _) => Some(m.clone()),
        (None, RunStatus::Error(e)) => Some(format!("error: {e}")),
        _ => None,
    }
}

fn render_status(
    f: &mut Frame,
    area: Rect,
    lines: &[String],
    app: &App,
    theme: &Theme,
    compact: bool,
) {
    let message_style = if app.message.is_some() {
        theme.accent()
    } else if matches!(app.status, RunStatus::Error(_)) {
        theme.bad()
    } else {
        theme.dim()
    };
    let n = lines.len();
    let out: Vec<Line> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let summary = compact && i + 1 == n;
            let style = if summary {
                panes::metrics::status_style(app, theme)
            } else {
                message_style
            };
            Line::from(Span::styled(clip(l, area.width as usize), style))
        })
        .collect();
    f.render_widget(Paragraph::new(out), area);
}

/// Key hints of the table, most useful first: as many as fit are shown.
fn render_hints(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut spans = Vec::new();
    let mut used = 0usize;
    let context = app.context();
    let mut all = match (context, app.sweep.last.as_ref()) {
        // `a` only where there is a recommendation to adopt; the k-scan's
        // panels only on a k-scan (the consensus where it resampled).
        (Context::Sweep, Some(sv)) => keys::hints_where(context, |a| {
            let kscan = sv.kind == crate::tui::app::sweep_view::SweepKind::KScan;
            match a {
                keys::Action::AdoptK => sv.recommended_at().is_some(),
                keys::Action::SweepConsensus => kscan && sv.plan.resampling.count > 0,
                keys::Action::SweepSilhouette => kscan,
                _ => true,
            }
        }),
        _ => keys::hints(context),
    };
    // The focused History's keys first; Enter re-runs there.
    if context == Context::Panes && app.focus == Pane::History {
        let own = keys::history_hints();
        all.retain(|(k, _)| !own.iter().any(|(o, _)| o == k));
        all.splice(0..0, own);
    }
    for (k, what) in all {
        let len = k.chars().count() + what.len() + 3;
        if used + len > area.width as usize {
            continue;
        }
        spans.push(Span::styled(format!(" {k}"), theme.accent()));
        spans.push(Span::raw(format!(" {what} ")));
        used += len;
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn render_prompt(f: &mut Frame, area: Rect, p: &super::app::Prompt, app: &App, theme: &Theme) {
    let w = area.width.saturating_sub(4).min(100);
    let inner_w = w.saturating_sub(2) as usize;
    let sliders = app.sliders();
    let slider = match &p.kind {
        PromptKind::Value(i) => sliders.get(*i),
        _ => None,
    };
    // Under the entry: the reason a value was refused or the completion
    // candidates, then (for a value) the parameter's whole help.
    let mut below: Vec<Line> = wrap(&theme.text(&p.hint), inner_w)
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| Line::from(Span::styled(l, theme.accent())))
        .collect();
    if let Some(s) = slider {
        for l in wrap(&theme.text(s.spec.help), inner_w) {
            below.push(Line::from(Span::styled(l, theme.dim())));
        }
    }
    let max_below = area.height.saturating_sub(6) as usize;
    if below.len() > max_below {
        below.truncate(max_below);
    }
    let h = below.len() as u16 + 3;
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + area.height.saturating_sub(h + 2),
        width: w,
        height: h,
    };
    let title = match &p.kind {
        PromptKind::Value(_) => {
            let name = slider
                .map(|s| panes::parameters::label(s, theme))
                .unwrap_or_else(|| "value".into());
            format!(" Set {name} ")
        }
        PromptKind::OpenFile => " Open file ".into(),
        PromptKind::Export => " Export ".into(),
        PromptKind::Sweep => " Sweep ".into(),
        PromptKind::KScan => " k-scan ".into(),
        PromptKind::Control(name) => format!(" Set {name} "),
        PromptKind::HistoryExport => " Export the History ".into(),
        PromptKind::ConfirmExport(_)
        | PromptKind::ConfirmHistoryExport(_)
        | PromptKind::ConfirmNames(_) => " Replace? ".into(),
        PromptKind::Search => " Filter features ".into(),
        PromptKind::ExportNames => " Export the selected names ".into(),
    };
    let text = format!("> {}_", p.text);
    let shown: String = if text.chars().count() > inner_w {
        text.chars().skip(text.chars().count() - inner_w).collect()
    } else {
        text
    };
    let mut lines = vec![Line::from(shown)];
    lines.extend(below);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.focused_border())
                .title(theme.text(&title).into_owned()),
        ),
        r,
    );
}
