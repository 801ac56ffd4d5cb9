//! The confusion matrix of the last run against the labels (clusters ×
//! classes, each cluster's matched class in brackets) and the per-cluster
//! profiles: the mean of each selected feature per cluster.

use super::theme::Theme;
use super::{block, clip};
use crate::data::Scaling;
use crate::tui::app::{Pane, Profiles};
use crate::tui::components::confusion::{ConfusionDraw, ConfusionView};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A mean in 8 cells; an empty cluster has none.
fn mean(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v != 0.0 && (v.abs() < 0.01 || v.abs() >= 1e5) {
        format!("{v:.1e}")
    } else {
        format!("{v:.2}")
    }
}

fn confusion_lines(ctx: &ConfusionDraw, w: usize, theme: &Theme) -> (Vec<Line<'static>>, String) {
    let mut lines = Vec::new();
    let Some(c) = &ctx.confusion else {
        let why = if ctx.unlabelled {
            "no labels: no confusion matrix (give --label COLUMN)"
        } else {
            "the confusion matrix appears once the run has labelled every point"
        };
        lines.push(Line::from(Span::styled(
            theme.text(why).into_owned(),
            theme.dim(),
        )));
        return (lines, String::new());
    };
    let acc = if c.n > 0 {
        c.correct as f64 / c.n as f64
    } else {
        0.0
    };
    lines.push(Line::from(Span::styled(
        clip(
            &theme.text("Confusion: clusters × classes, [n] = the cluster's matched class"),
            w,
        ),
        theme.title(),
    )));
    let cw = c
        .classes
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(6, 10);
    let lead = 14;
    // As many classes as fit; the rest are counted.
    let fit = (w.saturating_sub(lead + 6) / (cw + 1)).max(1);
    let shown = c.classes.len().min(fit);
    let mut head = format!("{:<7} {:>6}", "cluster", "size");
    for name in c.classes.iter().take(shown) {
        head.push_str(&format!(" {:>cw$}", clip(&theme.text(name), cw)));
    }
    if shown < c.classes.len() {
        head.push_str(&format!(" +{}", c.classes.len() - shown));
    }
    lines.push(Line::from(Span::styled(clip(&head, w), theme.dim())));
    for (i, row) in c.counts.iter().enumerate() {
        let size: usize = row.iter().sum();
        let mut spans = vec![
            Span::styled(format!("{:<7}", format!("C{}", i + 1)), theme.cluster(i)),
            Span::raw(format!(" {size:>6}")),
        ];
        for (j, &v) in row.iter().enumerate().take(shown) {
            if c.matched[i] == Some(j) {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    format!("{:>cw$}", format!("[{v}]")),
                    theme.selected(),
                ));
            } else {
                spans.push(Span::raw(format!(" {v:>cw$}")));
            }
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(Span::styled(
        clip(
            &format!(
                "{} of {} in their matched class (ACC {acc:.4}, CER {:.4})",
                c.correct,
                c.n,
                1.0 - acc
            ),
            w,
        ),
        theme.accent(),
    )));
    (lines, format!("ACC {acc:.3}"))
}

pub fn render(f: &mut Frame, area: Rect, view: &ConfusionView, ctx: &ConfusionDraw, theme: &Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let (mut lines, acc) = confusion_lines(ctx, w, theme);
    lines.push(Line::from(""));
    match &ctx.profiles {
        Some(p) => {
            // Title, header, and at least one row.
            let room = h.saturating_sub(lines.len() + 2).max(1);
            view.page.set(room);
            let top = view.top.min(p.features.len().saturating_sub(room));
            lines.extend(profile_lines(p, top, room, ctx.scale, w, theme));
        }
        None => {
            let text = if ctx.weighted {
                "profiles: no feature is selected".to_string()
            } else {
                let weighing = crate::algo::ids(|a| a.weighs() == crate::algo::Weighs::Features);
                format!(
                    "profiles (the mean of each selected feature per cluster): {}",
                    crate::solver::caps::sentence(&weighing, "and")
                )
            };
            for l in super::wrap(&theme.text(&text), w) {
                lines.push(Line::from(Span::styled(l, theme.dim())));
            }
        }
    }
    let extra = format!("confusion · {acc}");
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Metrics, ctx.focused, theme, &extra, area.width)),
        area,
    );
}

/// The profiles' title, header and `room` rows from `top`.
fn profile_lines(
    p: &Profiles,
    top: usize,
    room: usize,
    scale: Option<Scaling>,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let k = p.sizes.len();
    let vw = 8;
    // Names give way to the clusters' columns, down to 7 cells.
    let name_w = p
        .features
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(7, 16)
        .min(w.saturating_sub(5 + k * (vw + 1)).max(7));
    let lead = 5 + name_w;
    let fit = (w.saturating_sub(lead) / (vw + 1)).max(1);
    let shown_k = k.min(fit);
    let end = (top + room).min(p.features.len());
    // Whole parts, most useful first, as many as fit.
    let title = super::fit_parts(
        &[
            "Profiles: cluster means".to_string(),
            format!("rows {}-{} of {}", top + 1, end, p.features.len()),
            scale.map_or_else(String::new, |s| format!("selected features, scale {s}")),
            "↑/↓ scroll".to_string(),
        ],
        w,
    );
    lines.push(Line::from(Span::styled(
        clip(&theme.text(&title), w),
        theme.title(),
    )));
    let mut head = format!("{:>4} {:<name_w$}", "rank", "feature");
    for (j, n) in p.sizes.iter().enumerate().take(shown_k) {
        head.push_str(&format!(" {:>vw$}", format!("C{}({n})", j + 1)));
    }
    if shown_k < k {
        head.push_str(&format!(" +{}", k - shown_k));
    }
    lines.push(Line::from(Span::styled(clip(&head, w), theme.dim())));
    for (r, means) in p.features.iter().zip(&p.means).skip(top).take(room) {
        // The cluster where the feature is highest stands out.
        let hi = means
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(j, _)| j);
        let name = theme.text(&r.name).into_owned();
        let mut spans = vec![Span::raw(format!(
            "{:>4} {:<name_w$}",
            r.rank,
            clip(&name, name_w)
        ))];
        for (j, v) in means.iter().enumerate().take(shown_k) {
            let style = if Some(j) == hi {
                theme.cluster(j)
            } else {
                ratatui::style::Style::default()
            };
            spans.push(Span::styled(format!(" {:>vw$}", mean(*v)), style));
        }
        lines.push(Line::from(spans));
    }
    lines
}
