//! Layout and the parts drawn over the panes: key hints, messages, the
//! help overlay and prompts.

use super::app::{App, Pane, PromptKind, RunStatus};
use super::panes::{self, clip};
use super::theme::{Theme, asciify};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Where things are on screen, for the mouse.
#[derive(Debug, Clone, Default)]
pub struct HitMap {
    pub panes: Vec<(Pane, Rect)>,
    pub sliders: Vec<(usize, Rect)>,
}

impl HitMap {
    pub fn pane_at(&self, x: u16, y: u16) -> Option<Pane> {
        self.panes
            .iter()
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
            .map(|(p, _)| *p)
    }

    pub fn slider_at(&self, x: u16, y: u16) -> Option<usize> {
        self.sliders
            .iter()
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y == r.y)
            .map(|(i, _)| *i)
    }
}

/// Below this size the right-hand panes share one area, as tabs.
pub fn is_compact(area: Rect) -> bool {
    area.width < 110 || area.height < 30
}

pub const RIGHT_PANES: [Pane; 5] = [
    Pane::Objective,
    Pane::Scatter,
    Pane::Sizes,
    Pane::Weights,
    Pane::Metrics,
];

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
    // A long message (an export's reproduce command) wraps onto up to four
    // lines rather than being cut.
    let status_h = status_text(app).map_or(1, |m| {
        m.chars()
            .count()
            .div_ceil(area.width.max(1) as usize)
            .clamp(1, 4) as u16
    });
    let [main, status, hints] = Layout::vertical([
        Constraint::Min(8),
        Constraint::Length(status_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let compact = is_compact(area);
    let left_w = if compact { 32.min(area.width / 2) } else { 38 };
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(10)]).areas(main);
    let n_algos = app.algos.len() as u16;
    let data_h = if compact { 4 } else { 5 };
    let algo_h = (n_algos + 2)
        .min(if compact { 6 } else { 12 })
        .min(left.height / 3);
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
    if compact {
        let shown = if RIGHT_PANES.contains(&app.focus) {
            app.focus
        } else {
            app.shown_right
        };
        let [tabs, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(right);
        let mut spans = Vec::new();
        for p in RIGHT_PANES {
            let style = if p == shown {
                theme.selected()
            } else {
                theme.dim()
            };
            spans.push(Span::styled(format!(" {} ", p.title()), style));
        }
        f.render_widget(Paragraph::new(Line::from(spans)), tabs);
        // Tab titles are clickable too.
        let mut x = tabs.x;
        for p in RIGHT_PANES {
            let w = p.title().chars().count() as u16 + 2;
            hits.panes.push((
                p,
                Rect {
                    x,
                    y: tabs.y,
                    width: w,
                    height: 1,
                },
            ));
            x += w;
        }
        render_right(f, shown, body, app, theme);
        hits.panes.push((shown, body));
    } else {
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(right);
        let [obj, scat] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(top);
        let [sizes, weights, metrics] = Layout::horizontal([
            Constraint::Percentage(30),
            Constraint::Percentage(38),
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
    render_status(f, status, app, theme, compact);
    render_hints(f, hints, app, theme);
    if app.help {
        render_help(f, area, theme);
    }
    if let Some(p) = &app.prompt {
        render_prompt(f, area, p, app, theme);
    }
    finish(f, theme);
    hits
}

fn finish(f: &mut Frame, theme: &Theme) {
    if theme.ascii {
        asciify(f.buffer_mut());
    }
}

fn render_right(f: &mut Frame, p: Pane, r: Rect, app: &App, theme: &Theme) {
    match p {
        Pane::Objective => panes::objective::render(f, r, app, theme),
        Pane::Scatter => panes::scatter::render(f, r, app, theme),
        Pane::Sizes => panes::sizes::render(f, r, app, theme),
        Pane::Weights => panes::weights::render(f, r, app, theme),
        Pane::Metrics => panes::metrics::render(f, r, app, theme),
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

fn render_status(f: &mut Frame, area: Rect, app: &App, theme: &Theme, compact: bool) {
    let w = area.width as usize;
    // Compact: the Metrics pane may be hidden behind a tab, so long work
    // (a kernel being built) shows its progress here over older messages.
    let full = if compact && app.view.stage.is_some() && app.message.is_some() {
        None
    } else {
        status_text(app)
    };
    let text = match &full {
        Some(m) => m.clone(),
        None if compact => panes::metrics::summary(app),
        None => String::new(),
    };
    let style = if app.message.is_some() {
        theme.accent()
    } else {
        panes::metrics::status_style(app, theme)
    };
    if full.is_some() && area.height > 1 {
        let p = Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: false });
        f.render_widget(p, area);
    } else {
        f.render_widget(Paragraph::new(Span::styled(clip(&text, w), style)), area);
    }
}

const HINTS: &[(&str, &str)] = &[
    ("?", "help"),
    ("q", "quit"),
    ("Tab", "pane"),
    ("↑↓", "select"),
    ("←→", "adjust"),
    ("Enter", "edit"),
    ("r", "reseed"),
    ("Esc", "cancel"),
    ("o", "open"),
    ("d", "dataset"),
    ("e", "export"),
];

fn render_hints(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut spans = Vec::new();
    let mut used = 0usize;
    let hints: Vec<(&str, &str)> = if app.prompt.is_some() {
        vec![("Enter", "accept"), ("Esc", "cancel"), ("Tab", "complete")]
    } else {
        HINTS.to_vec()
    };
    for (k, what) in hints {
        let len = k.chars().count() + what.len() + 3;
        if used + len > area.width as usize {
            break;
        }
        spans.push(Span::styled(format!(" {k}"), theme.accent()));
        spans.push(Span::raw(format!(" {what} ")));
        used += len;
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Every key, for the help overlay (and the README).
pub const HELP: &[(&str, &str)] = &[
    ("?", "open or close this help"),
    (
        "Tab / Shift-Tab",
        "next / previous pane (click also focuses)",
    ),
    (
        "↑ ↓  (k j)",
        "Algorithm: choose (starts a run) · Parameters: choose a slider",
    ),
    (
        "← →  (h l)",
        "move the slider one fine step (mouse wheel too)",
    ),
    ("Shift-← →, PgUp PgDn", "move the slider one coarse step"),
    ("Enter", "type an exact value (\"default\" resets it)"),
    ("r", "re-run with the next seed"),
    ("Esc", "cancel the run in flight, close a prompt"),
    (
        "o",
        "open a file (Tab completes; in a prompt Ctrl-U clears, Ctrl-W deletes a word)",
    ),
    ("d", "switch to the next bundled dataset"),
    ("z", "feature scaling: standard → minmax → none (reloads)"),
    (
        "e",
        "export labels + JSON and show the matching `meanscape run` command",
    ),
    ("s", "Scatter: principal components ↔ two features"),
    ("x / y", "Scatter: next feature on the x / y axis"),
    (
        "p",
        "Feature weights: regularisation path (lw, sparse-kmeans)",
    ),
    ("q, Ctrl-C", "quit"),
];

fn render_help(f: &mut Frame, area: Rect, theme: &Theme) {
    let w = (area.width.saturating_sub(4)).min(86);
    let h = (HELP.len() as u16 + 6).min(area.height.saturating_sub(2));
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    let mut lines: Vec<Line> = HELP
        .iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(format!("{k:<22}"), theme.accent()),
                Span::raw(*v),
            ])
        })
        .collect();
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Any change cancels the run in flight and starts a new one; kernels and feature maps are reused.",
        theme.dim(),
    )));
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.focused_border())
                .title(" Help · Esc closes "),
        ),
        r,
    );
}

fn render_prompt(f: &mut Frame, area: Rect, p: &super::app::Prompt, app: &App, theme: &Theme) {
    let w = area.width.saturating_sub(4).min(100);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + area.height.saturating_sub(7),
        width: w,
        height: 5,
    };
    let title = match &p.kind {
        PromptKind::Value(i) => {
            let name = app
                .sliders()
                .get(*i)
                .map(|s| s.spec.name)
                .unwrap_or("value");
            format!(" Set {name} ")
        }
        PromptKind::OpenFile => " Open file ".into(),
        PromptKind::Export => " Export ".into(),
        PromptKind::ConfirmExport(_) => " Replace? ".into(),
    };
    let inner_w = w.saturating_sub(2) as usize;
    let text = format!("> {}_", p.text);
    let shown: String = if text.chars().count() > inner_w {
        text.chars().skip(text.chars().count() - inner_w).collect()
    } else {
        text
    };
    let lines = vec![
        Line::from(shown),
        Line::from(Span::styled(clip(&p.hint, inner_w), theme.dim())),
    ];
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.focused_border())
                .title(title),
        ),
        r,
    );
}
