use super::{block, clip};
use crate::tui::app::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus == Pane::Data;
    let w = area.width.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    if let Some((_, since, spec)) = &app.loading {
        lines.push(Line::from(Span::styled(
            clip(
                &format!("loading {spec} … {:.1} s", since.elapsed().as_secs_f64()),
                w,
            ),
            theme.warn(),
        )));
    }
    match app.loaded() {
        Some(l) => {
            let ds = &l.dataset;
            lines.push(Line::from(vec![
                Span::styled(clip(&ds.name, w.saturating_sub(16)), theme.title()),
                Span::raw(format!("  {} × {}", ds.n(), ds.p())),
            ]));
            let labels = match &ds.labels {
                Some(t) => format!(
                    "labels: {} classes · k = {}",
                    t.n_classes(),
                    app.current_k()
                ),
                None => format!("no labels · k = {}", app.current_k()),
            };
            lines.push(Line::from(clip(&labels, w)));
            let notes = if ds.notes.is_empty() {
                String::new()
            } else {
                format!(" · {} note(s)", ds.notes.len())
            };
            lines.push(Line::from(Span::styled(
                clip(&format!("scale {}{notes}", l.scale), w),
                theme.dim(),
            )));
        }
        None if app.loading.is_none() => {
            lines.push(Line::from("no data: o opens a file, d a bundled set"))
        }
        None => {}
    }
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Data, focused, theme, "", area.width)),
        area,
    );
}
