use super::{bar, block, clip};
use crate::report::fmt_sig;
use crate::tui::app::{App, Pane, RunStatus};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn status_style(app: &App, theme: &Theme) -> ratatui::style::Style {
    match app.status {
        RunStatus::Running | RunStatus::Pending(_) => theme.warn(),
        RunStatus::Converged => theme.good(),
        RunStatus::Error(_) => theme.bad(),
        _ => ratatui::style::Style::default(),
    }
}

/// "running · iter 42 · s -1.3 · 1.2 s" — also the compact status line.
pub fn summary(app: &App) -> String {
    let v = &app.view;
    let mut parts = vec![app.status.label().to_string()];
    if let Some(p) = v.curve.last() {
        parts.push(format!("iter {}", p.iter));
        if let Some(s) = p.s {
            parts.push(format!("s {}", fmt_sig(s)));
        }
    }
    parts.push(format!("{:.2} s", v.elapsed.as_secs_f64()));
    if let Some((label, done)) = &v.stage {
        parts.push(format!("{:.0}% {label}", done * 100.0));
    }
    if let Some(sc) = &v.scores {
        parts.push(format!("NMI {:.3}", sc.nmi));
    }
    parts.join(" · ")
}

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Metrics;
    let w = area.width.saturating_sub(2) as usize;
    let v = &app.view;
    let mut lines = vec![Line::from(vec![
        Span::raw("state     "),
        Span::styled(app.status.label().to_string(), status_style(app, theme)),
    ])];
    if let Some(p) = v.curve.last() {
        let s =
            p.s.map(|s| format!("   s {}", fmt_sig(s)))
                .unwrap_or_default();
        lines.push(Line::from(format!("iteration {}{s}", p.iter)));
    }
    lines.push(Line::from(format!(
        "elapsed   {:.2} s",
        v.elapsed.as_secs_f64()
    )));
    if let Some((label, done)) = &v.stage {
        // The label can be long (a kernel spec): the gauge gets its own line
        // so that clipping never hides it.
        lines.push(Line::from(clip(label, w)));
        let bw = w.saturating_sub(5).max(4);
        lines.push(Line::from(format!(
            "{} {:>3.0}%",
            bar(*done, bw, theme),
            done * 100.0
        )));
    }
    if let RunStatus::Error(e) = &app.status {
        lines.push(Line::from(Span::styled(format!("error: {e}"), theme.bad())));
    }
    match &v.scores {
        Some(s) => {
            lines.push(Line::from(format!("NMI {:.4}  ARI {:.4}", s.nmi, s.ari)));
            lines.push(Line::from(format!(
                "ACC {:.4}  purity {:.4}",
                s.acc, s.purity
            )));
        }
        None if app.loaded().is_some_and(|l| l.dataset.labels.is_none()) => {
            lines.push(Line::from(Span::styled(
                "no ground truth: no scores",
                theme.dim(),
            )));
        }
        None => {}
    }
    if let Some(p) = v.curve.last() {
        lines.push(Line::from(format!("objective {}", fmt_sig(p.objective))));
    }
    if app.restarts > 1 {
        lines.push(Line::from(format!(
            "restarts  {}/{} done",
            v.restarts_done, app.restarts
        )));
    }
    for warn in &v.warnings {
        lines.push(Line::from(Span::styled(format!("! {warn}"), theme.warn())));
    }
    let lines: Vec<Line> = lines.into_iter().map(|l| clip_line(l, w)).collect();
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block(
            Pane::Metrics,
            focused,
            theme,
            "",
            area.width,
        )),
        area,
    );
}

/// Lines are wrapped only when they are warnings or errors; others are cut.
fn clip_line(l: Line<'_>, w: usize) -> Line<'_> {
    let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
    if text.starts_with('!') || text.starts_with("error") || text.chars().count() <= w {
        l
    } else {
        Line::from(clip(&text, w))
    }
}
