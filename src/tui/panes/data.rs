use super::theme::Theme;
use super::{block, clip};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The scaling in force and where it comes from, in the longest wording
/// that fits `w`: "scale none (default for lw)", "scale minmax (chosen;
/// lw: none)", down to "scale none (default)".
pub fn scale_line(app: &App, w: usize) -> String {
    if app.loaded().is_some_and(|l| l.problem.kernels_only()) {
        return "scale: does not apply to kernels".into();
    }
    if app.loaded().is_some_and(|l| l.problem.csr().is_some()) {
        return "scale none (sparse rows as read)".into();
    }
    let id = app.algo().id();
    let own = app.algo().default_scaling();
    let now = app.scale;
    let rescaling = if app.loaded().is_some_and(|l| l.scale != now) {
        " · rescaling"
    } else {
        ""
    };
    let options = if app.scale_chosen && own != now {
        [
            format!("scale {now} (chosen; default for {id}: {own}){rescaling}"),
            format!("scale {now} (chosen; {id}: {own}){rescaling}"),
            format!("scale {now} (chosen){rescaling}"),
        ]
    } else if app.scale_chosen {
        [
            format!("scale {now} (chosen; also the default for {id}){rescaling}"),
            format!("scale {now} (chosen; {id}'s too){rescaling}"),
            format!("scale {now} (chosen){rescaling}"),
        ]
    } else {
        [
            format!("scale {now} (default for {id}){rescaling}"),
            format!("scale {now} ({id}'s default){rescaling}"),
            format!("scale {now} (default){rescaling}"),
        ]
    };
    options
        .iter()
        .find(|o| o.chars().count() <= w)
        .unwrap_or(&options[2])
        .clone()
}

/// "150 × 4", or "2000 rows, kernels" for data that are kernels.
fn size_text(ds: &crate::data::Dataset) -> String {
    if ds.kernels.is_some() && ds.p() == 0 {
        format!("{} rows, kernels", ds.n())
    } else {
        format!("{} × {}", ds.n(), ds.p())
    }
}

/// "no labels", or with `--label none` and a column left out of the
/// features, which one: "no labels ('label' left out)".
fn no_labels(ds: &crate::data::Dataset) -> String {
    match &ds.label_left_out {
        Some(c) => format!("no labels ('{c}' left out)"),
        None => "no labels".into(),
    }
}

/// Everything the pane says, unclipped (the status line shows it in full
/// when the pane is focused and too narrow).
pub fn full_text(app: &App) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((_, since, spec)) = &app.loading {
        out.push(format!(
            "loading {spec} … {}",
            crate::numfmt::duration(since.elapsed().as_secs_f64())
        ));
    }
    match app.loaded() {
        Some(l) => {
            let ds = &l.dataset;
            out.push(format!("{}  {}", ds.name, size_text(ds)));
            if let Some(stack) = &ds.kernels {
                out.push(stack.describe());
            }
            out.push(match &ds.labels {
                Some(t) => format!(
                    "labels: {} classes · k = {}",
                    t.n_classes(),
                    app.current_k()
                ),
                None => format!("{} · k = {}", no_labels(ds), app.current_k()),
            });
            out.push(scale_line(app, usize::MAX));
            out.extend(ds.notes.iter().cloned());
        }
        None if app.loading.is_none() => {
            out.push("no data: o opens a file, d a bundled set".into())
        }
        None => {}
    }
    out
}

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Data;
    let w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    let mut scale_at = None;
    if let Some((_, since, spec)) = &app.loading {
        lines.push(Line::from(Span::styled(
            clip(
                &format!(
                    "loading {spec} … {}",
                    crate::numfmt::duration(since.elapsed().as_secs_f64())
                ),
                w,
            ),
            theme.warn(),
        )));
    }
    match app.loaded() {
        Some(l) => {
            let ds = &l.dataset;
            let size = format!("  {}", size_text(ds));
            lines.push(Line::from(vec![
                Span::styled(
                    clip(&ds.name, w.saturating_sub(size.chars().count())),
                    theme.title(),
                ),
                Span::raw(size),
            ]));
            if let Some(stack) = &ds.kernels {
                lines.push(Line::from(Span::styled(
                    clip(&theme.text(&stack.describe()), w),
                    theme.warn(),
                )));
            }
            let labels = match &ds.labels {
                Some(t) => format!("{} classes · k = {}", t.n_classes(), app.current_k()),
                None => format!("{} · k = {}", no_labels(ds), app.current_k()),
            };
            lines.push(Line::from(clip(&labels, w)));
            scale_at = Some(lines.len());
            lines.push(Line::from(Span::styled(
                clip(&theme.text(&scale_line(app, w)), w),
                theme.dim(),
            )));
            for note in ds.notes.iter() {
                lines.push(Line::from(Span::styled(
                    clip(&theme.text(note), w),
                    theme.dim(),
                )));
            }
        }
        None if app.loading.is_none() => {
            lines.push(Line::from("no data: o opens a file, d a bundled set"))
        }
        None => {}
    }
    // The scaling line is never the one to go: it decides what the
    // algorithm sees.
    if let Some(i) = scale_at
        && i >= rows
        && rows > 0
    {
        let line = lines.remove(i);
        lines.insert(rows - 1, line);
    }
    let notes = app.loaded().map_or(0, |l| l.dataset.notes.len());
    let extra = if notes > 0 && lines.len() > rows {
        format!("{notes} note(s): focus to read")
    } else {
        String::new()
    };
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Data, focused, theme, &extra, area.width)),
        area,
    );
}
