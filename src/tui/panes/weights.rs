use super::theme::Theme;
use super::weight_fmt::{short, strip};
use super::{bar, block, clip, wrap};
use crate::algo::{Algorithm, Extras, KernelInfo, MapInfo, Weighs};
use crate::tui::app::{Pane, RunStatus};
use crate::tui::components::weights::WeightsDraw;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::time::Duration;

/// What the pane says when it has no weights to draw: nothing about the
/// weights of a run that has not produced them. `p`: the data's
/// features; `elapsed`: the run's time so far.
pub fn no_weights(algo: &dyn Algorithm, p: usize, status: &RunStatus, elapsed: Duration) -> String {
    let id = algo.id();
    if algo.weighs() == Weighs::Nothing {
        let which = |w: Weighs| {
            let ids: Vec<&str> = crate::algo::registry()
                .iter()
                .filter(|a| a.weighs() == w)
                .map(|a| a.id())
                .collect();
            ids.join(", ")
        };
        return format!(
            "{id} weighs all {p} features equally (feature weights: {}; kernel or view weights: {})",
            which(Weighs::Features),
            which(Weighs::Kernels)
        );
    }
    let state = match status {
        RunStatus::Running => format!(
            "running for {}",
            crate::numfmt::duration(elapsed.as_secs_f64())
        ),
        s => s.label().to_string(),
    };
    format!("{id}'s weights appear with its first iteration ({state})")
}

pub fn render(f: &mut Frame, area: Rect, ctx: WeightsDraw, theme: &Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let (lines, extra) = if let Some(alpha) = &ctx.view.kernel_weights {
        let names: Vec<String> = ctx
            .view
            .result
            .as_ref()
            .map(|r| weight_names(&r.best.extra))
            .unwrap_or_default();
        let extra = theme.text("α").into_owned();
        (kernel_lines(alpha, &names, w, h, theme), extra)
    } else if let Some(wts) = &ctx.view.feature_weights {
        let selected = wts.iter().filter(|&&v| v > 0.0).count();
        let extra = format!("{selected}/{}", wts.len());
        (feature_lines(wts, ctx.names, w, h, theme), extra)
    } else {
        let lines = wrap(&theme.text(ctx.empty), w)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim())))
            .collect();
        (lines, String::new())
    };
    f.render_widget(
        Paragraph::new(lines).block(block(Pane::Weights, ctx.focused, theme, &extra, area.width)),
        area,
    );
}

/// A bar per kernel (or view) weight α, named.
fn kernel_lines(
    alpha: &[f64],
    names: &[String],
    w: usize,
    h: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let name_w = names
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 16);
    let max = alpha.iter().cloned().fold(0.0, f64::max).max(1e-300);
    for (l, a) in alpha.iter().enumerate().take(h) {
        let name = names
            .get(l)
            .filter(|n| !n.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("K{}", l + 1));
        let bw = w.saturating_sub(name_w + 8).max(1);
        let name = theme.text(&name).into_owned();
        lines.push(Line::from(vec![
            Span::raw(format!("{:<name_w$} ", clip_label(&name, name_w))),
            Span::styled(bar(a / max, bw, theme), theme.accent()),
            Span::raw(format!(" {}", short(*a))),
        ]));
    }
    lines
}

/// The count selected, the largest weights with a bar each, then (when
/// they do not all fit) a strip of every feature in order.
fn feature_lines(
    wts: &[f64],
    names: &[String],
    w: usize,
    h: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let p = wts.len();
    let selected = wts.iter().filter(|&&v| v > 0.0).count();
    lines.push(Line::from(Span::styled(
        clip(&format!("{selected} of {p} features selected"), w),
        theme.accent(),
    )));
    let mut order: Vec<usize> = (0..p).collect();
    order.sort_by(|&a, &b| wts[b].total_cmp(&wts[a]).then(a.cmp(&b)));
    let max = wts.iter().cloned().fold(0.0, f64::max).max(1e-300);
    let strip_rows = if p > h.saturating_sub(1) && h >= 4 {
        2
    } else {
        0
    };
    // Below the count line: the largest weights, then the strip's
    // caption and the strip itself, all inside the pane.
    let rows = h.saturating_sub(1 + strip_rows);
    let name_of = |j: usize| {
        names
            .get(j)
            .cloned()
            .unwrap_or_else(|| format!("f{}", j + 1))
    };
    // Names as long as they are, leaving the bar 4 cells.
    let longest = order
        .iter()
        .take(rows)
        .map(|&j| name_of(j).chars().count())
        .max()
        .unwrap_or(4);
    let name_w = longest.clamp(3, w.saturating_sub(12).max(3));
    let bw = w.saturating_sub(name_w + 8).max(1);
    for &j in order.iter().take(rows) {
        let name = name_of(j);
        let style = if wts[j] > 0.0 {
            theme.good()
        } else {
            theme.dim()
        };
        lines.push(Line::from(vec![
            Span::raw(format!("{:<name_w$} ", clip(&name, name_w))),
            Span::styled(bar(wts[j] / max, bw, theme), style),
            Span::raw(format!(" {}", short(wts[j]))),
        ]));
    }
    if strip_rows > 0 {
        while lines.len() < 1 + rows {
            lines.push(Line::from(""));
        }
        lines.push(Line::from(Span::styled(
            clip(&format!("all {p} features in order (blank = dropped):"), w),
            theme.dim(),
        )));
        lines.push(Line::from(Span::styled(
            strip(wts, w, theme.ascii),
            theme.good(),
        )));
    }
    lines
}

/// A kernel's label in `w` cells: whole words (`gauss t=0.01`), then
/// `…`, so that no value shows cut (`t=0.0000…` reads as another value);
/// a first word too long is cut, a name, not a number.
fn clip_label(label: &str, w: usize) -> String {
    if label.chars().count() <= w {
        return label.to_string();
    }
    let mut out = String::new();
    for word in label.split(' ') {
        let longer = if out.is_empty() {
            word.to_string()
        } else {
            format!("{out} {word}")
        };
        if longer.chars().count() + 1 > w {
            break;
        }
        out = longer;
    }
    if out.is_empty() {
        clip(label, w)
    } else {
        format!("{out}…")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernel_labels_keep_whole_words() {
        assert_eq!(super::clip_label("gauss t=0.01", 16), "gauss t=0.01");
        assert_eq!(
            super::clip_label("view1: gauss t=0.000012345", 16),
            "view1: gauss…"
        );
        assert_eq!(super::clip_label("averyveryverylongname", 8), "averyve…");
    }

    #[test]
    fn strip_marks_dropped_groups_blank() {
        let w = [0.0, 0.0, 1.0, 0.5, 0.0, 0.0];
        assert_eq!(super::strip(&w, 3, true), " # ");
        assert_eq!(super::strip(&w, 6, true), "  #:  ");
    }
}

/// A short name for a kernel (mkpower's `kernels`) or a view (the RFF
/// family's `views`) of the result JSON.
/// A short name per kernel weight: the kernels of mkpower, the views of
/// the multi-view RFF algorithms.
fn weight_names(extra: &Extras) -> Vec<String> {
    if let Some(kernels) = &extra.kernels {
        return kernels.iter().map(kernel_label).collect();
    }
    extra
        .views
        .as_ref()
        .map_or_else(Vec::new, |views| views.iter().map(view_label).collect())
}

fn kernel_label(k: &KernelInfo) -> String {
    let own = kernel_spec_label(k);
    match &k.name {
        // A precomputed kernel is its name alone; a view's kernel says
        // which view.
        Some(name) if own.starts_with("precomputed") => name.clone(),
        Some(name) => format!("{name}: {own}"),
        None => own,
    }
}

fn kernel_spec_label(k: &KernelInfo) -> String {
    let Some(given) = &k.given else {
        return k
            .sigma
            .map_or_else(String::new, |s| format!("σ={}", short(s)));
    };
    let mut parts = given.splitn(2, ':');
    let name = parts.next().unwrap_or("");
    let keys: Vec<&str> = parts
        .next()
        .unwrap_or("")
        .split(',')
        .filter(|k| k.contains('=') && !k.starts_with("gram"))
        .collect();
    let name = if name == "gaussian" { "gauss" } else { name };
    if keys.is_empty() {
        name.to_string()
    } else {
        format!("{name} {}", keys.join(","))
    }
}

fn view_label(v: &MapInfo) -> String {
    format!("σ={} c{}", short(v.sigma), v.columns)
}

#[cfg(test)]
mod label_tests {
    use super::{kernel_label, view_label};
    use crate::algo::{KernelInfo, MapInfo};

    fn kernel(given: Option<&str>, sigma: Option<f64>) -> KernelInfo {
        KernelInfo {
            spec: "gaussian:sigma=0.65,normalize,rescale".into(),
            gram: "f64",
            sigma,
            given: given.map(String::from),
            name: None,
        }
    }

    #[test]
    fn kernels_and_views_get_short_names() {
        let k = kernel(Some("gaussian:t=0.01,normalize,rescale"), Some(0.65));
        assert_eq!(kernel_label(&k), "gauss t=0.01");
        assert_eq!(
            kernel_label(&kernel(Some("cosine:normalize,rescale"), None)),
            "cosine"
        );
        assert_eq!(
            kernel_label(&kernel(Some("poly:a=1,b=2,gram=f32"), None)),
            "poly a=1,b=2"
        );
        let v = MapInfo {
            columns: "1-64".into(),
            sigma: 2.0,
            rff_dim: 8,
            feature_columns: 16,
            rff_seed: 0,
            stream: 0,
            feature_bytes: 0,
            storage: "f64",
            build_secs: 0.0,
        };
        assert_eq!(view_label(&v), "σ=2.000 c1-64");
        assert_eq!(kernel_label(&kernel(None, Some(2.0))), "σ=2.000");
        assert_eq!(kernel_label(&kernel(None, None)), "");
    }
}
