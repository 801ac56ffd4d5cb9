//! `meanscape datasets`, `meanscape algorithms` and the defaults table in
//! `meanscape run --help`.

use super::args::DataArgs;
use crate::algo::params::{Default, Scale, fmt_num};
use crate::algo::{self, Algorithm};
use crate::data::{DataSource, bundled, generate};
use crate::error::Result;

pub fn datasets() -> String {
    let mut out = String::from("Bundled datasets (use the name with --data):\n");
    for b in bundled::BUNDLED.iter() {
        out.push_str(&format!("  {:<14} {}\n", b.name, b.summary));
    }
    out.push_str("\nGenerators (--data gen:NAME[,key=value…] or `meanscape gen NAME`):\n");
    for g in generate::generators() {
        out.push_str(&format!("  {:<14} {}\n", g.name, g.summary));
        let keys: Vec<String> = g
            .params
            .iter()
            .map(|p| format!("{}={}", p.key, p.default))
            .collect();
        out.push_str(&format!("  {:<14}   defaults: {}\n", "", keys.join(",")));
    }
    out.push_str("\nFiles: delimited text (comma, tab, semicolon, whitespace), .npy (2-D), .mat (MATLAB v5), IDX.\n");
    out.push_str("Precomputed kernels: .mat with KH (n×n×v) and labels Y or gnd; .npy v×n×n with labels in STEM.labels.{npy,txt,csv} or --label FILE (see `meanscape info`).\n");
    out
}

/// `meanscape info`: what a dataset holds, read as `run` would read it
/// (without scaling).
pub fn describe(a: &DataArgs) -> Result<String> {
    let src = DataSource::parse(&a.data)?;
    let ds = crate::data::load(&src, &a.load_options())?;
    let mut out = format!("{}: {} rows\n", ds.source, ds.n());
    match &ds.kernels {
        Some(stack) => {
            out.push_str(&format!("  {}\n", stack.describe()));
            // The multiple-kernel algorithms weigh the kernels; the others
            // cluster on their average.
            let weighs = |a: &dyn Algorithm| a.weighs() == algo::Weighs::Kernels;
            out.push_str(&format!(
                "  no features: use {} (--kernels precomputed), {} (the average kernel)\n",
                algo::takers(|a| a.caps().kernels && weighs(a)),
                algo::takers(|a| a.caps().kernels && !weighs(a))
            ));
        }
        None => out.push_str(&format!("  {} features\n", ds.p())),
    }
    match &ds.labels {
        Some(l) => {
            let mut sizes = vec![0usize; l.n_classes()];
            for &i in &l.ids {
                sizes[i] += 1;
            }
            let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            out.push_str(&format!(
                "  labels: {} classes (sizes {})\n",
                l.n_classes(),
                sizes.join("/")
            ));
        }
        None => out.push_str("  no labels\n"),
    }
    for note in &ds.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    Ok(out)
}

fn default_text(d: &Default) -> String {
    match d {
        Default::Fixed(v) => fmt_num(*v),
        Default::Auto(rule) => format!("auto ({rule})"),
    }
}

fn param_table(a: &dyn Algorithm) -> String {
    let mut out = String::new();
    for p in a.params() {
        let scale = match p.scale {
            Scale::Linear => "linear",
            Scale::Log => "log",
        };
        out.push_str(&format!(
            "    {:<10} {:<6} default {:<10} range [{}, {}] {scale}{}\n      {}\n",
            p.name,
            p.symbol,
            default_text(&p.default),
            fmt_num(p.min),
            fmt_num(p.max),
            if p.integer { ", integer" } else { "" },
            p.help
        ));
    }
    if out.is_empty() {
        out.push_str("    (no parameters besides k, seed, restarts, init)\n");
    }
    for (name, default) in a.options() {
        out.push_str(&format!("    --{name} (default {default})\n"));
    }
    out
}

pub fn algorithms(id: Option<&str>) -> Result<String> {
    if let Some(id) = id {
        let a = algo::find(id)?;
        return Ok(format!(
            "{} — {}\n  {}\n  default scaling: --scale {} (override with --scale)\n  parameters (set with -P NAME=VALUE, or --s0/--eta/--tol/--max-iter):\n{}",
            a.id(),
            a.name(),
            a.summary(),
            a.default_scaling(),
            param_table(a.as_ref())
        ));
    }
    let mut out = String::from("Algorithms (meanscape algorithms ID for parameters):\n");
    for a in algo::registry() {
        out.push_str(&format!("  {:<15} {}\n", a.id(), a.name()));
    }
    Ok(out)
}

/// Appended to `meanscape run --help`: every algorithm's defaults and the
/// stopping rules.
pub fn defaults_help() -> String {
    let mut out = String::from("Algorithms and their parameter defaults:\n");
    for a in algo::registry() {
        out.push_str(&format!(
            "  {} — {} (default --scale {})\n",
            a.id(),
            a.name(),
            a.default_scaling()
        ));
        out.push_str(&param_table(a.as_ref()));
    }
    // The annealing algorithms are those that declare soft_tol.
    let soft = algo::ids(|a| a.params().iter().any(|p| p.name == "soft_tol"));
    out.push_str(&format!(
        "\nStopping rules: power-mean algorithms test every T iterations and stop when \
|f(m) − f(m−T)| ≤ tol·|f(m−T)| (khm: T = 1). For {}, while s still \
anneals, that test also needs every cluster non-empty and the mean share of a point's weight \
outside its own cluster ≤ soft_tol; soft_tol = 1 turns this condition off. kmeans stops when no \
label changes or the squared centre shift is below tol × the mean feature variance \
(scikit-learn's rule). Every algorithm \
also stops at max_iter; the JSON says whether it converged.\n\
Restarts run in parallel; restart r uses seed + r and the lowest objective wins.\n",
        crate::solver::caps::sentence(&soft, "and")
    ));
    out
}
