use super::theme::Theme;
use super::{bar, block, fit_parts};
use crate::algo::params::{fmt_sig, fmt_sig4};
use crate::numfmt::duration;
use crate::tui::app::{Pane, RunStatus};
use crate::tui::components::metrics::MetricsDraw;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn status_style(status: &RunStatus, theme: &Theme) -> ratatui::style::Style {
    match status {
        RunStatus::Running | RunStatus::Pending(_) => theme.warn(),
        RunStatus::Converged => theme.good(),
        RunStatus::Error(_) => theme.bad(),
        _ => ratatui::style::Style::default(),
    }
}

/// The run in one line, most important first, for the compact status
/// line: "converged · NMI 0.660 · iter 310 · 250 ms · s -10.94". Parts
/// that do not fit in `w` are left out whole.
pub fn summary(ctx: &MetricsDraw, w: usize) -> String {
    let v = ctx.view;
    let mut parts = vec![ctx.status.label().to_string()];
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
    if ctx.restarts > 1 {
        parts.push(format!("restarts {}/{}", v.restarts_done, ctx.restarts));
    }
    fit_parts(&parts, w)
}

pub fn render(f: &mut Frame, area: Rect, ctx: MetricsDraw, theme: &Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let v = ctx.view;
    let mut lines = progress_lines(&ctx, w, theme);
    lines.extend(score_lines(&ctx, w, theme));
    if let Some(p) = v.curve.last() {
        lines.push(Line::from(format!("objective {}", fmt_sig(p.objective))));
    }
    if ctx.restarts > 1 {
        lines.push(Line::from(format!(
            "restarts  {}/{} done",
            v.restarts_done, ctx.restarts
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
            .block(block(
                Pane::Metrics,
                ctx.focused,
                theme,
                space_note,
                area.width,
            )),
        area,
    );
}

/// Where the run is: its state, iteration, s, time, the stage's gauge
/// and the error.
fn progress_lines(ctx: &MetricsDraw, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let v = ctx.view;
    let mut lines = vec![Line::from(vec![
        Span::raw("state     "),
        Span::styled(
            ctx.status.label().to_string(),
            status_style(ctx.status, theme),
        ),
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
    if let RunStatus::Error(e) = ctx.status {
        lines.push(Line::from(Span::styled(
            format!("error: {}", theme.text(e)),
            theme.bad(),
        )));
    }
    lines
}

/// Pairs of scores on one line when they fit, else one a line.
fn pair_lines(pairs: [(String, String); 2], w: usize, lines: &mut Vec<Line<'static>>) {
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

/// The scores against the labels (or why there are none), then the
/// label-free ones: a run without labels can be judged too.
fn score_lines(ctx: &MetricsDraw, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match &ctx.view.scores {
        Some(s) => pair_lines(
            [
                (format!("NMI {:.4}", s.nmi), format!("ARI {:.4}", s.ari)),
                (
                    format!("ACC {:.4}", s.acc),
                    format!("purity {:.4}", s.purity),
                ),
            ],
            w,
            &mut lines,
        ),
        None if ctx.unlabelled => {
            lines.push(Line::from(Span::styled(
                "no ground truth: no scores",
                theme.dim(),
            )));
        }
        None => {}
    }
    if let Some(i) = &ctx.view.internal {
        let fixed4 = |v: f64| {
            if v.is_finite() {
                format!("{v:.4}")
            } else {
                "-".to_string()
            }
        };
        pair_lines(
            [
                (
                    format!("silh {}", fixed4(i.silhouette)),
                    format!("DB {}", fixed4(i.davies_bouldin)),
                ),
                (
                    format!("CH {}", fmt_sig4(i.calinski_harabasz)),
                    format!("cost {}", fmt_sig4(i.cost)),
                ),
            ],
            w,
            &mut lines,
        );
    }
    lines
}
