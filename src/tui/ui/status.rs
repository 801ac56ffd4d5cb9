//! The lines below the panes: the status (a message, the run's error,
//! what the focused pane cuts; in a small terminal the run in one line)
//! and the key hints.

use crate::tui::app::{App, Pane, RunStatus};
use crate::tui::keys::{self, Context};
use crate::tui::panes::theme::Theme;
use crate::tui::panes::{self, clip, wrap};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Lines of the status area above the compact summary: a message, the
/// run's error, or the full text of what the focused pane cuts.
pub fn status_lines(app: &App, width: u16, theme: &Theme) -> Vec<String> {
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
            .get(app.panes.algorithm.cursor)
            .map(|a| format!("{} — {}: {}", a.id(), a.name(), a.summary())),
        Pane::Data => Some(panes::data::full_text(&app.data_draw()).join(" · ")),
        _ => None,
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

pub fn render_status(
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
                panes::metrics::status_style(&app.status, theme)
            } else {
                message_style
            };
            Line::from(Span::styled(clip(l, area.width as usize), style))
        })
        .collect();
    f.render_widget(Paragraph::new(out), area);
}

/// Key hints of the table, most useful first: as many as fit are shown.
pub fn render_hints(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
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
