//! The plot of `meanscape path --plot`: above, the weights of the heaviest
//! features; below, the share of features selected and, with labels, NMI
//! and CER; both against the grid value (log scale when every value is
//! positive). Points where no feature is selected have no clustering: the
//! scores break there and the span is shaded "no feature kept". Written by
//! hand, as the sweep's plot (see `svg.rs`).

use super::svg::{colour, esc, text};
use crate::algo::path::PathResult;
use crate::metrics::Scores;
use std::fmt::Write;

const W: f64 = 760.0;
const H: f64 = 570.0;
const LEFT: f64 = 84.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 50.0;
/// The weights panel and the scores panel, one above the other.
const WEIGHTS_H: f64 = 250.0;
const GAP: f64 = 40.0;
const SCORES_H: f64 = 170.0;
/// Features drawn as curves.
const TOP_FEATURES: usize = 8;

/// The SVG document for path `r`; `names` are the feature names, `truth`
/// the ground truth when known.
pub fn plot(r: &PathResult, title: &str, names: &[String], truth: Option<&[usize]>) -> String {
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">"#
    );
    out.push('\n');
    out.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    out.push('\n');
    text(&mut out, W / 2.0, 28.0, "middle", 15, title);
    let pts = &r.points;
    if pts.is_empty() {
        out.push_str("</svg>\n");
        return out;
    }
    let sym = if r.algo.parameter() == "lambda" {
        "λ"
    } else {
        "s"
    };
    let log = pts.iter().all(|p| p.lambda > 0.0 && p.lambda.is_finite());
    let f = |v: f64| if log { v.log10() } else { v };
    let xs: Vec<f64> = pts.iter().map(|p| f(p.lambda)).collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    };
    let pw = W - LEFT - RIGHT;
    let px = |x: f64| LEFT + (x - lo) / (hi - lo) * pw;
    // Points by increasing grid value, so every line runs left to right.
    let mut order: Vec<usize> = (0..pts.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));

    // --- weights of the heaviest features
    let p = pts[0].feature_weights.len();
    let mut mass = r.features_by_mass();
    mass.truncate(TOP_FEATURES);
    let wmax = pts
        .iter()
        .flat_map(|q| q.feature_weights.iter())
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(1e-12);
    let wy = |v: f64| TOP + WEIGHTS_H - v / wmax * WEIGHTS_H;
    frame(&mut out, TOP, WEIGHTS_H);
    for (n, &(j, _)) in mass.iter().enumerate() {
        let c = colour(n as f64 / TOP_FEATURES.max(2) as f64);
        let line: Vec<String> = order
            .iter()
            .map(|&i| {
                let v = pts[i].feature_weights.get(j).copied().unwrap_or(0.0);
                format!(
                    "{:.1},{:.1}",
                    px(xs[i]),
                    wy(if v.is_finite() { v } else { 0.0 })
                )
            })
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline class="weight" points="{}" fill="none" stroke="{c}" stroke-width="1.5"/>"#,
            line.join(" ")
        );
        let name = names
            .get(j)
            .cloned()
            .unwrap_or_else(|| format!("f{}", j + 1));
        let y = TOP + 14.0 + n as f64 * 16.0;
        let _ = writeln!(
            out,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="3"/>"#,
            W - RIGHT + 12.0,
            y - 4.0,
            W - RIGHT + 30.0,
            y - 4.0
        );
        text(&mut out, W - RIGHT + 34.0, y, "start", 11, &clip(&name, 20));
    }
    text(&mut out, LEFT - 6.0, TOP + 10.0, "end", 11, &num(wmax));
    text(&mut out, LEFT - 6.0, TOP + WEIGHTS_H, "end", 11, "0");
    axis_y_label(&mut out, TOP + WEIGHTS_H / 2.0, "feature weight");

    // --- selected share and scores
    let top2 = TOP + WEIGHTS_H + GAP;
    let sy = |v: f64| top2 + SCORES_H - v.clamp(0.0, 1.0) * SCORES_H;
    frame(&mut out, top2, SCORES_H);
    // The span where nothing is selected: no clustering, no score.
    let empty: Vec<f64> = order
        .iter()
        .filter(|&&i| pts[i].clustering().is_none())
        .map(|&i| px(xs[i]))
        .collect();
    if let (Some(a), Some(b)) = (
        empty.iter().copied().reduce(f64::min),
        empty.iter().copied().reduce(f64::max),
    ) {
        let (a, b) = ((a - 4.0).max(LEFT), (b + 4.0).min(LEFT + pw));
        let _ = writeln!(
            out,
            r##"<rect class="no-feature" x="{a:.1}" y="{top2:.1}" width="{:.1}" height="{SCORES_H:.1}" fill="#eeeeee"/>"##,
            b - a
        );
        // Written inwards from the band, so that it stays in the panel.
        let (x, anchor) = if (a + b) / 2.0 > LEFT + pw / 2.0 {
            (b - 3.0, "end")
        } else {
            (a + 3.0, "start")
        };
        text(&mut out, x, top2 + 28.0, anchor, 10, "no feature kept");
    }
    let p_all = p.max(1) as f64;
    let mut series: Vec<(&str, &str, Vec<Option<f64>>)> = vec![(
        "selected",
        "#444444",
        order
            .iter()
            .map(|&i| Some(pts[i].selected as f64 / p_all))
            .collect(),
    )];
    if let Some(t) = truth.filter(|t| pts.iter().all(|q| q.labels.len() == t.len())) {
        let scores: Vec<Option<Scores>> = order
            .iter()
            .map(|&i| pts[i].clustering().map(|l| Scores::compute(t, l)))
            .collect();
        series.push((
            "nmi",
            "#08519c",
            scores.iter().map(|s| s.map(|s| s.nmi)).collect(),
        ));
        series.push((
            "cer",
            "#cb181d",
            scores.iter().map(|s| s.map(|s| 1.0 - s.acc)).collect(),
        ));
    }
    for (n, (name, c, vals)) in series.iter().enumerate() {
        // One polyline per run of points that have a value.
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, out: &mut String| {
            if !run.is_empty() {
                let _ = writeln!(
                    out,
                    r#"<polyline class="{name}" points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
                    run.join(" ")
                );
                run.clear();
            }
        };
        for (k, v) in vals.iter().enumerate() {
            match v.filter(|v| v.is_finite()) {
                Some(v) => run.push(format!("{:.1},{:.1}", px(xs[order[k]]), sy(v))),
                None => flush(&mut run, &mut out),
            }
        }
        flush(&mut run, &mut out);
        let label = match *name {
            "selected" => format!("selected / {}", p),
            "nmi" => "NMI".into(),
            _ => "CER".into(),
        };
        let y = top2 + 14.0 + n as f64 * 16.0;
        let _ = writeln!(
            out,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="3"/>"#,
            W - RIGHT + 12.0,
            y - 4.0,
            W - RIGHT + 30.0,
            y - 4.0
        );
        text(&mut out, W - RIGHT + 34.0, y, "start", 11, &label);
    }
    text(&mut out, LEFT - 6.0, top2 + 10.0, "end", 11, "1");
    text(&mut out, LEFT - 6.0, top2 + SCORES_H, "end", 11, "0");
    axis_y_label(&mut out, top2 + SCORES_H / 2.0, "share / score");

    // --- the grid value
    let n = order.len();
    let every = n.div_ceil(6).max(1);
    for (k, &i) in order.iter().enumerate() {
        if k % every == 0 || k == n - 1 {
            text(
                &mut out,
                px(xs[i]),
                top2 + SCORES_H + 16.0,
                "middle",
                11,
                &num(pts[i].lambda),
            );
        }
    }
    let axis = if log {
        format!("{sym} (log scale)")
    } else {
        sym.to_string()
    };
    text(
        &mut out,
        LEFT + pw / 2.0,
        top2 + SCORES_H + 40.0,
        "middle",
        13,
        &axis,
    );
    out.push_str("</svg>\n");
    out
}

fn frame(out: &mut String, top: f64, h: f64) {
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{top}" width="{}" height="{h}" fill="none" stroke="#888"/>"##,
        W - LEFT - RIGHT
    );
}

fn axis_y_label(out: &mut String, y: f64, s: &str) {
    let _ = writeln!(
        out,
        r#"<text x="18" y="{y:.1}" text-anchor="middle" font-size="12" font-family="sans-serif" transform="rotate(-90 18 {y:.1})">{}</text>"#,
        esc(s)
    );
}

/// Four significant digits, as the sweep's plot writes values.
fn num(v: f64) -> String {
    super::sweep_out::fmt_sig4(v)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
