use super::theme::{CENTRE_MARK, Theme};
use super::{block, inner};
use crate::tui::app::projection::DataView;
use crate::tui::components::scatter::{ScatterDraw, ScatterMode};
use crate::tui::keys::Pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

/// The points drawn (one per projected row) and what their axes are.
fn points(data: &DataView, mode: ScatterMode) -> (Vec<[f64; 2]>, String) {
    let x = &data.loaded.problem.x.f64();
    let names = &data.loaded.dataset.feature_names;
    let kernels = data.loaded.problem.kernels_only();
    match mode {
        ScatterMode::Pca if kernels => (
            data.projection.pcs.clone(),
            format!("kernel PCA ({:.0}%)", data.projection.explained * 100.0),
        ),
        ScatterMode::Pca => (
            data.projection.pcs.clone(),
            format!("PC1×PC2 ({:.0}% var.)", data.projection.explained * 100.0),
        ),
        ScatterMode::Features(a, b) => (
            match data.loaded.problem.csr() {
                Some(csr) => data.projection.csr_features(csr, a, b),
                None => data.projection.features(x, a, b),
            },
            format!(
                "{} × {}",
                names.get(a).map_or("?", |s| s),
                names.get(b).map_or("?", |s| s)
            ),
        ),
    }
}

/// The plot's x and y bounds: those of the points, widened around a
/// single value (or none).
fn bounds(pts: &[[f64; 2]]) -> ([f64; 2], [f64; 2]) {
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for p in pts {
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
    ([x0, x1], [y0, y1])
}

/// The mean of each cluster's points (none for an empty cluster).
fn centres(per: &[Vec<(f64, f64)>]) -> Vec<Vec<(f64, f64)>> {
    per.iter()
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
        .collect()
}

/// Each cluster's points, then each centre, in the cluster's style.
fn datasets<'a>(
    per: &'a [Vec<(f64, f64)>],
    centres: &'a [Vec<(f64, f64)>],
    use_marks: bool,
    theme: &Theme,
) -> Vec<Dataset<'a>> {
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
                .marker(Marker::Custom(CENTRE_MARK))
                .graph_type(GraphType::Scatter)
                .style(
                    theme
                        .cluster(j)
                        .add_modifier(Modifier::BOLD | Modifier::REVERSED),
                )
                .data(c),
        );
    }
    sets
}

pub fn render(f: &mut Frame, area: Rect, mode: ScatterMode, ctx: ScatterDraw<'_>, theme: &Theme) {
    let focused = ctx.focused;
    let Some(data) = ctx.data else {
        f.render_widget(block(Pane::Scatter, focused, theme, "", area.width), area);
        return;
    };
    let (pts, what) = points(data, mode);
    let n_drawn = data.projection.rows.len();
    let n = data.loaded.problem.n();
    let extra = if n_drawn < n {
        format!("{what} · {n_drawn} of {n} pts")
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
    let k = ctx.k.max(1);
    let labels = ctx.labels;
    let mut per: Vec<Vec<(f64, f64)>> = vec![Vec::new(); k];
    for (idx, &row) in data.projection.rows.iter().enumerate() {
        let j = labels.get(row).copied().unwrap_or(0).min(k - 1);
        per[j].push((pts[idx][0], pts[idx][1]));
    }
    let centres = centres(&per);
    let (xb, yb) = bounds(&pts);
    let use_marks = theme.ascii || !theme.color;
    let chart = Chart::new(datasets(&per, &centres, use_marks, theme))
        .x_axis(Axis::default().bounds(xb))
        .y_axis(Axis::default().bounds(yb));
    // The last row says what the glyphs are, when the plot can spare it.
    let (plot, key_row) = if body.height >= 6 && !labels.is_empty() {
        let plot = Rect {
            height: body.height - 1,
            ..body
        };
        let row = Rect {
            y: body.y + body.height - 1,
            height: 1,
            ..body
        };
        (plot, Some(row))
    } else {
        (body, None)
    };
    f.render_widget(chart, plot);
    if let Some(row) = key_row {
        let text = legend(theme, use_marks, k, row.width as usize);
        f.render_widget(Paragraph::new(Span::styled(text, theme.dim())), row);
    }
    // Colours from another run are labelled as such.
    let note = if labels.is_empty() {
        "(no clusters yet)"
    } else if ctx.carried {
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

/// What the scatter's glyphs mean: each cluster's mark as the Sizes pane
/// shows it (`o0 +1 *2`, when colour does not tell them apart) and the
/// centres' `X`; marks that do not fit are left out whole, with `…`.
pub fn legend(theme: &Theme, marks: bool, k: usize, w: usize) -> String {
    let centres = format!("{CENTRE_MARK} centres");
    if !marks {
        return if centres.chars().count() <= w {
            centres
        } else {
            String::new()
        };
    }
    let items: Vec<String> = (0..k)
        .map(|j| format!("{}{j}", theme.cluster_mark(j)))
        .collect();
    for keep in (1..=k).rev() {
        let more = if keep < k { " …" } else { "" };
        let t = format!("{}{more} · {centres}", items[..keep].join(" "));
        if t.chars().count() <= w {
            return t;
        }
    }
    if centres.chars().count() <= w {
        centres
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::legend;
    use crate::tui::panes::theme::Theme;

    #[test]
    fn the_legend_names_each_glyph_drawn() {
        let plain = Theme {
            color: false,
            ascii: false,
        };
        assert_eq!(legend(&plain, true, 3, 40), "o0 +1 *2 · X centres");
        assert_eq!(legend(&plain, false, 3, 40), "X centres");
        // Too narrow for every mark: whole marks, then a sign of the rest.
        let l = legend(&plain, true, 10, 24);
        assert!(
            l.chars().count() <= 24 && l.contains('…') && l.ends_with("X centres"),
            "{l}"
        );
        assert_eq!(legend(&plain, true, 3, 9), "X centres");
    }
}
