use super::theme::Theme;
use super::{block, clip};
use crate::tui::app::Pane;
use crate::tui::components::data::DataDraw;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The scaling in force and where it comes from, in the longest wording
/// that fits `w`: "scale none (default for lw)", "scale minmax (chosen;
/// lw: none)", down to "scale none (default)".
pub fn scale_line(ctx: &DataDraw, w: usize) -> String {
    if ctx.loaded.is_some_and(|l| l.problem.kernels_only()) {
        return "scale: does not apply to kernels".into();
    }
    if ctx.loaded.is_some_and(|l| l.problem.csr().is_some()) {
        return "scale none (sparse rows as read)".into();
    }
    let id = ctx.scale.algo;
    let own = ctx.scale.own;
    let now = ctx.scale.now;
    let chosen = ctx.scale.chosen;
    let rescaling = if ctx.loaded.is_some_and(|l| l.scale != now) {
        " · rescaling"
    } else {
        ""
    };
    let options = if chosen && own != now {
        [
            format!("scale {now} (chosen; default for {id}: {own}){rescaling}"),
            format!("scale {now} (chosen; {id}: {own}){rescaling}"),
            format!("scale {now} (chosen){rescaling}"),
        ]
    } else if chosen {
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

/// "loading iris … 1.2 s", while a dataset loads.
fn loading_line(ctx: &DataDraw) -> Option<String> {
    let (spec, since) = ctx.loading?;
    Some(format!(
        "loading {spec} … {}",
        crate::numfmt::duration(since.as_secs_f64())
    ))
}

/// Everything the pane says, unclipped (the status line shows it in full
/// when the pane is focused and too narrow).
pub fn full_text(ctx: &DataDraw) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(line) = loading_line(ctx) {
        out.push(line);
    }
    match ctx.loaded {
        Some(l) => {
            let ds = &l.dataset;
            out.push(format!("{}  {}", ds.name, size_text(ds)));
            if let Some(stack) = &ds.kernels {
                out.push(stack.describe());
            }
            out.push(match &ds.labels {
                Some(t) => format!("labels: {} classes · k = {}", t.n_classes(), ctx.k),
                None => format!("{} · k = {}", no_labels(ds), ctx.k),
            });
            out.push(scale_line(ctx, usize::MAX));
            out.extend(ds.notes.iter().cloned());
        }
        None if ctx.loading.is_none() => {
            out.push("no data: o opens a file, d a bundled set".into())
        }
        None => {}
    }
    out
}

pub fn render(f: &mut Frame, area: Rect, ctx: DataDraw, theme: &Theme) {
    let focused = ctx.focused;
    let w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    let mut scale_at = None;
    if let Some(line) = loading_line(&ctx) {
        lines.push(Line::from(Span::styled(clip(&line, w), theme.warn())));
    }
    match ctx.loaded {
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
                Some(t) => format!("{} classes · k = {}", t.n_classes(), ctx.k),
                None => format!("{} · k = {}", no_labels(ds), ctx.k),
            };
            lines.push(Line::from(clip(&labels, w)));
            scale_at = Some(lines.len());
            lines.push(Line::from(Span::styled(
                clip(&theme.text(&scale_line(&ctx, w)), w),
                theme.dim(),
            )));
            for note in ds.notes.iter() {
                lines.push(Line::from(Span::styled(
                    clip(&theme.text(note), w),
                    theme.dim(),
                )));
            }
        }
        None if ctx.loading.is_none() => {
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
    let notes = ctx.loaded.map_or(0, |l| l.dataset.notes.len());
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
