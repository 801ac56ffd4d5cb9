use super::theme::Theme;
use super::{block, inner};
use crate::tui::app::{App, Pane, ScatterMode};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Scatter;
    let Some(data) = &app.data else {
        f.render_widget(block(Pane::Scatter, focused, theme, "", area.width), area);
        return;
    };
    let x = &data.loaded.problem.x;
    let names = &data.loaded.dataset.feature_names;
    let kernels = data.loaded.problem.kernels_only();
    let (pts, what) = match app.scatter {
        ScatterMode::Pca if kernels => (
            data.projection.pcs.clone(),
            format!("kernel PCA ({:.0}%)", data.projection.explained * 100.0),
        ),
        ScatterMode::Pca => (
            data.projection.pcs.clone(),
            format!("PC1×PC2 ({:.0}% var.)", data.projection.explained * 100.0),
        ),
        ScatterMode::Features(a, b) => (
            data.projection.features(x, a, b),
            format!(
                "{} × {}",
                names.get(a).map_or("?", |s| s),
                names.get(b).map_or("?", |s| s)
            ),
        ),
    };
    let n_drawn = data.projection.rows.len();
    let extra = if n_drawn < x.nrows() {
        format!("{what} · {n_drawn} of {} pts", x.nrows())
    } else {
        what
    };
    f.render_widget(
        block(Pane::Scatter, focused, theme, &extra, area.width),
        area,
    );
    let body = inner(area);
    if body.width < 4 || body.height < 3 {
        return;
    }
    let k = app.view.sizes.len().max(1);
    let labels = &app.view.labels;
    let mut per: Vec<Vec<(f64, f64)>> = vec![Vec::new(); k];
    for (idx, &row) in data.projection.rows.iter().enumerate() {
        let j = labels.get(row).copied().unwrap_or(0).min(k - 1);
        per[j].push((pts[idx][0], pts[idx][1]));
    }
    let centres: Vec<Vec<(f64, f64)>> = per
        .iter()
        .map(|c| {
            if c.is_empty() {
                vec![]
            } else {
                let n = c.len() as f64;
                vec![(
                    c.iter().map(|p| p.0).sum::<f64>() / n,
                    c.iter().map(|p| p.1).sum::<f64>() / n,
                )]
            }
        })
        .collect();
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for p in &pts {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    // Also catches NaN bounds (no points).
    if x0.partial_cmp(&x1) != Some(std::cmp::Ordering::Less) {
        (x0, x1) = (x0 - 1.0, x0 + 1.0);
    }
    if y0.partial_cmp(&y1) != Some(std::cmp::Ordering::Less) {
        (y0, y1) = (y0 - 1.0, y0 + 1.0);
    }
    let use_marks = theme.ascii || !theme.color;
    let mut sets: Vec<Dataset> = per
        .iter()
        .enumerate()
        .map(|(j, c)| {
            Dataset::default()
                .marker(if use_marks {
                    Marker::Custom(theme.cluster_mark(j))
                } else {
                    Marker::Braille
                })
                .graph_type(GraphType::Scatter)
                .style(theme.cluster(j))
                .data(c)
        })
        .collect();
    for (j, c) in centres.iter().enumerate() {
        sets.push(
            Dataset::default()
                .marker(Marker::Custom('X'))
                .graph_type(GraphType::Scatter)
                .style(
                    theme
                        .cluster(j)
                        .add_modifier(Modifier::BOLD | Modifier::REVERSED),
                )
                .data(c),
        );
    }
    let chart = Chart::new(sets)
        .x_axis(Axis::default().bounds([x0, x1]))
        .y_axis(Axis::default().bounds([y0, y1]));
    f.render_widget(chart, body);
    // Colours from another run are labelled as such.
    let note = if labels.is_empty() {
        "(no clusters yet)"
    } else if app.view.carried {
        "(the previous run's clusters)"
    } else {
        ""
    };
    if !note.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(note, theme.dim())),
            Rect { height: 1, ..body },
        );
    }
}
