use super::theme::Theme;
use super::{bar, block, fit_parts};
use crate::algo::params::{fmt_sig, fmt_sig4};
use crate::numfmt::duration;
use crate::tui::app::{App, Pane, RunStatus};
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

/// The run in one line, most important first, for the compact status
/// line: "converged · NMI 0.660 · iter 310 · 250 ms · s -10.94". Parts
/// that do not fit in `w` are left out whole.
pub fn summary(app: &App, w: usize) -> String {
    let v = &app.view;
    let mut parts = vec![app.status.label().to_string()];
    if let Some((label, done)) = &v.stage {
        parts.push(format!("{:.0}% {label}", done * 100.0));
    }
    if let Some(sc) = &v.scores {
        parts.push(format!("NMI {:.3}", sc.nmi));
    }
    if let Some(p) = v.curve.last() {
        parts.push(format!("iter {}", p.iter));
    }
    parts.push(duration(v.elapsed.as_secs_f64()));
    if let Some(p) = v.curve.last()
        && let Some(s) = p.s
    {
        parts.push(format!("s {}", fmt_sig(s)));
    }
    if let Some(sc) = &v.scores {
        parts.push(format!("ACC {:.3}", sc.acc));
    }
    if app.restarts > 1 {
        parts.push(format!("restarts {}/{}", v.restarts_done, app.restarts));
    }
    fit_parts(&parts, w)
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
        lines.push(Line::from(format!("iteration {}", p.iter)));
        if let Some(s) = p.s {
            lines.push(Line::from(format!("s         {}", fmt_sig(s))));
        }
    }
    lines.push(Line::from(format!(
        "elapsed   {}",
        duration(v.elapsed.as_secs_f64())
    )));
    if let Some((label, done)) = &v.stage {
        // The label can be long (a kernel spec): the gauge gets its own line
        // so that wrapping never hides it.
        lines.push(Line::from(theme.text(label).into_owned()));
        let bw = w.saturating_sub(5).max(4);
        lines.push(Line::from(format!(
            "{} {:>3.0}%",
            bar(*done, bw, theme),
            done * 100.0
        )));
    }
    if let RunStatus::Error(e) = &app.status {
        lines.push(Line::from(Span::styled(
            format!("error: {}", theme.text(e)),
            theme.bad(),
        )));
    }
    match &v.scores {
        Some(s) => {
            // Pairs on one line when they fit, else one a line.
            let pairs = [
                (format!("NMI {:.4}", s.nmi), format!("ARI {:.4}", s.ari)),
                (
                    format!("ACC {:.4}", s.acc),
                    format!("purity {:.4}", s.purity),
                ),
            ];
            for (a, b) in pairs {
                let both = format!("{a:<12}{b}");
                if both.chars().count() <= w {
                    lines.push(Line::from(both));
                } else {
                    lines.push(Line::from(a));
                    lines.push(Line::from(b));
                }
            }
        }
        None if app.loaded().is_some_and(|l| l.dataset.labels.is_none()) => {
            lines.push(Line::from(Span::styled(
                "no ground truth: no scores",
                theme.dim(),
            )));
        }
        None => {}
    }
    // Label-free scores (sweep issue): a run without labels can be judged.
    if let Some(i) = &v.internal {
        let fixed4 = |v: f64| {
            if v.is_finite() {
                format!("{v:.4}")
            } else {
                "-".to_string()
            }
        };
        let pairs = [
            (
                format!("silh {}", fixed4(i.silhouette)),
                format!("DB {}", fixed4(i.davies_bouldin)),
            ),
            (
                format!("CH {}", fmt_sig4(i.calinski_harabasz)),
                format!("cost {}", fmt_sig4(i.cost)),
            ),
        ];
        for (a, b) in pairs {
            let both = format!("{a:<12}{b}");
            if both.chars().count() <= w {
                lines.push(Line::from(both));
            } else {
                lines.push(Line::from(a));
                lines.push(Line::from(b));
            }
        }
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
        lines.push(Line::from(Span::styled(
            format!("! {}", theme.text(warn)),
            theme.warn(),
        )));
    }
    // Where the label-free scores were computed, when not on the features.
    let space_note = match v.internal.map(|i| i.space) {
        Some(crate::fit_scores::SpaceKind::Kernel) => "kernel space",
        Some(crate::fit_scores::SpaceKind::Rff) => "RFF space",
        _ => "",
    };
    // Nothing is cut: a line too long for the pane wraps.
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(Pane::Metrics, focused, theme, space_note, area.width)),
        area,
    );
}
