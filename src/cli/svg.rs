//! The sweep's plot as a small hand-written SVG: a heatmap of the chosen
//! score for two axes, a line with a ±sd band for one. Written by hand
//! because a plotting crate's text needs system fonts (fontconfig,
//! freetype) or bundled ones; SVG text is drawn by the viewer.

use super::sweep_out::{Report, fmt_sig4};
use crate::sweep::{Axis, CellResult, Spacing};
use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 480.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 110.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 70.0;
/// The colour of the recommended cell's mark (the best cell's is red).
const REC: &str = "#7b3294";

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn label(a: &Axis) -> String {
    match a.spacing {
        Spacing::Log => format!("{} (log scale)", a.symbol),
        _ => a.symbol.clone(),
    }
}

/// Where value `v` of axis `a` goes, from 0 to 1: in log |value| on a log
/// axis, else linearly (a list axis by position when its values are not
/// increasing).
fn position(a: &Axis, i: usize) -> f64 {
    let n = a.values.len();
    if n < 2 {
        return 0.5;
    }
    let f = |v: f64| {
        if a.spacing == Spacing::Log {
            v.abs().ln()
        } else {
            v
        }
    };
    let (lo, hi) = (f(a.values[0]), f(a.values[n - 1]));
    let increasing = a.values.windows(2).all(|w| w[1] > w[0]);
    if !increasing || hi == lo {
        return i as f64 / (n - 1) as f64;
    }
    (f(a.values[i]) - lo) / (hi - lo)
}

/// A colour from dark blue (0) through teal to yellow (1), viridis-like.
pub(super) fn colour(t: f64) -> String {
    let stops = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (stops.len() - 1) as f64;
    let i = (x.floor() as usize).min(stops.len() - 2);
    let f = x - i as f64;
    let (a, b) = (stops[i], stops[i + 1]);
    let m = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    format!("#{:02x}{:02x}{:02x}", m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

pub(super) fn text(out: &mut String, x: f64, y: f64, anchor: &str, size: u32, s: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" font-family="sans-serif">{}</text>"#,
        esc(s)
    );
}

/// The SVG document for the report's sweep and score.
pub fn plot(r: &Report<'_>) -> String {
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">"#
    );
    out.push('\n');
    out.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    out.push('\n');
    let title = format!(
        "{} on {}: {} (mean over {} seeds{})",
        r.algo.id(),
        r.data,
        r.score,
        r.plan.seeds,
        if r.result.complete {
            ""
        } else {
            ", incomplete"
        }
    );
    text(&mut out, W / 2.0, 28.0, "middle", 15, &title);
    let axes = &r.plan.axes;
    // The label-free recommendation, whatever score is drawn: marked on
    // its cell and named under the plot.
    let rec = r.recommendation().map(|x| &r.result.cells[x.cell]);
    if let Some((c, by)) = rec.zip(r.recommendation().map(|x| x.by)) {
        let rule = by.split(':').next().unwrap_or_default();
        let _ = writeln!(
            out,
            r#"<text class="recommended" x="{:.1}" y="{:.1}" text-anchor="middle" font-size="11" font-family="sans-serif" fill="{REC}">{}</text>"#,
            W / 2.0,
            H - 6.0,
            esc(&format!(
                "recommended without labels (dashed): {} (by {rule})",
                crate::sweep::describe(axes, &c.at)
            ))
        );
    }
    let rec = rec.map(|c| c.index);
    let cell = |idx: usize| r.result.cells.iter().find(|c| c.index == idx);
    let score = |c: &CellResult| c.score(r.score);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let ticks = |a: &Axis| {
        let n = a.values.len();
        let every = n.div_ceil(10).max(1);
        (0..n).filter(move |i| i % every == 0 || *i == n - 1)
    };
    if axes.len() == 2 {
        let (a, b) = (&axes[0], &axes[1]);
        let (na, nb) = (a.values.len(), b.values.len());
        let means: Vec<f64> = r
            .result
            .cells
            .iter()
            .filter_map(|c| score(c).map(|s| s.mean))
            .filter(|v| v.is_finite())
            .collect();
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (cw, ch) = (pw / nb as f64, ph / na as f64);
        let best = r.best().map(|c| c.index);
        // Rows are the first axis, its first value at the top: as the
        // UI's heatmap and the text table list them.
        for i in 0..na {
            for j in 0..nb {
                let (x, y) = (LEFT + j as f64 * cw, TOP + i as f64 * ch);
                let c = cell(i * nb + j);
                let m = c.and_then(score).map(|s| s.mean);
                let fill = match m {
                    Some(v) if v.is_finite() && hi > lo => colour((v - lo) / (hi - lo)),
                    Some(v) if v.is_finite() => colour(0.5),
                    _ => "#dddddd".into(),
                };
                let _ = writeln!(
                    out,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch:.1}" fill="{fill}"/>"#
                );
                if let Some(v) = m
                    && cw >= 34.0
                    && ch >= 14.0
                {
                    let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
                    let ink = if t > 0.6 { "black" } else { "white" };
                    let _ = writeln!(
                        out,
                        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" font-family="sans-serif" fill="{ink}">{}</text>"#,
                        x + cw / 2.0,
                        y + ch / 2.0 + 3.5,
                        fmt_sig4(v)
                    );
                }
                if c.is_some_and(|c| Some(c.index) == rec) {
                    let _ = writeln!(
                        out,
                        r#"<rect class="recommended" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="{REC}" stroke-width="2" stroke-dasharray="6 3"/>"#,
                        x + 5.0,
                        y + 5.0,
                        cw - 10.0,
                        ch - 10.0
                    );
                }
                if c.is_some_and(|c| Some(c.index) == best) {
                    let _ = writeln!(
                        out,
                        r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="red" stroke-width="3"/>"#,
                        x + 1.5,
                        y + 1.5,
                        cw - 3.0,
                        ch - 3.0
                    );
                }
            }
        }
        for j in ticks(b) {
            let x = LEFT + (j as f64 + 0.5) * cw;
            text(
                &mut out,
                x,
                TOP + ph + 16.0,
                "middle",
                11,
                &b.show(b.values[j]),
            );
        }
        for i in ticks(a) {
            let y = TOP + i as f64 * ch + ch / 2.0 + 4.0;
            row_label(&mut out, LEFT - 6.0, y, &a.show(a.values[i]));
        }
        text(&mut out, LEFT + pw / 2.0, H - 22.0, "middle", 13, &label(b));
        axis_y_label(&mut out, &label(a));
        // The colour scale.
        let x = W - RIGHT + 30.0;
        for s in 0..50 {
            let t = s as f64 / 49.0;
            let y = TOP + ph - (s + 1) as f64 * ph / 50.0;
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="18" height="{:.2}" fill="{}"/>"#,
                ph / 50.0 + 0.5,
                colour(t)
            );
        }
        text(&mut out, x + 22.0, TOP + 10.0, "start", 11, &fmt_sig4(hi));
        text(&mut out, x + 22.0, TOP + ph, "start", 11, &fmt_sig4(lo));
    } else if let Some(a) = axes.first() {
        let pts: Vec<(f64, f64, f64)> = (0..a.values.len())
            .filter_map(|i| {
                let s = cell(i).and_then(score)?;
                s.mean.is_finite().then_some((
                    position(a, i),
                    s.mean,
                    if s.sd.is_finite() { s.sd } else { 0.0 },
                ))
            })
            .collect();
        let lo = pts.iter().map(|p| p.1 - p.2).fold(f64::INFINITY, f64::min);
        let hi = pts
            .iter()
            .map(|p| p.1 + p.2)
            .fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        let px = |t: f64| LEFT + t * pw;
        let py = |v: f64| TOP + ph - (v - lo) / (hi - lo) * ph;
        let _ = writeln!(
            out,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##
        );
        if !pts.is_empty() {
            let upper: Vec<String> = pts
                .iter()
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1 + p.2)))
                .collect();
            let lower: Vec<String> = pts
                .iter()
                .rev()
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1 - p.2)))
                .collect();
            let _ = writeln!(
                out,
                r##"<polygon points="{} {}" fill="#9ecae1" fill-opacity="0.6" stroke="none"/>"##,
                upper.join(" "),
                lower.join(" ")
            );
            let line: Vec<String> = pts
                .iter()
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
                .collect();
            let _ = writeln!(
                out,
                r##"<polyline points="{}" fill="none" stroke="#08519c" stroke-width="2"/>"##,
                line.join(" ")
            );
            for p in &pts {
                let _ = writeln!(
                    out,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#08519c"/>"##,
                    px(p.0),
                    py(p.1)
                );
            }
        }
        if let Some(i) = rec {
            let x = px(position(a, i));
            let _ = writeln!(
                out,
                r#"<line class="recommended" x1="{x:.1}" y1="{TOP:.1}" x2="{x:.1}" y2="{:.1}" stroke="{REC}" stroke-width="1.5" stroke-dasharray="6 3"/>"#,
                TOP + ph
            );
        }
        for i in ticks(a) {
            text(
                &mut out,
                px(position(a, i)),
                TOP + ph + 16.0,
                "middle",
                11,
                &a.show(a.values[i]),
            );
        }
        for s in 0..=4 {
            let v = lo + (hi - lo) * s as f64 / 4.0;
            text(&mut out, LEFT - 6.0, py(v) + 4.0, "end", 11, &fmt_sig4(v));
        }
        text(&mut out, LEFT + pw / 2.0, H - 22.0, "middle", 13, &label(a));
        axis_y_label(&mut out, &format!("{} (±sd)", r.score));
    }
    out.push_str("</svg>\n");
    out
}

/// A heatmap row's label, marked so that tests can read the rows' order.
fn row_label(out: &mut String, x: f64, y: f64, s: &str) {
    let _ = writeln!(
        out,
        r#"<text class="row" x="{x:.1}" y="{y:.1}" text-anchor="end" font-size="11" font-family="sans-serif">{}</text>"#,
        esc(s)
    );
}

fn axis_y_label(out: &mut String, s: &str) {
    let _ = writeln!(
        out,
        r#"<text x="20" y="{:.1}" text-anchor="middle" font-size="13" font-family="sans-serif" transform="rotate(-90 20 {:.1})">{}</text>"#,
        TOP + (H - TOP - BOTTOM) / 2.0,
        TOP + (H - TOP - BOTTOM) / 2.0,
        esc(s)
    );
}
