//! `meanscape sweep -a kmeans,spectral …`: the same grid swept for several
//! algorithms on the same data, one family of cells per algorithm, and one
//! recommendation over all of them ([`crate::sweep::recommend::across`]).
//!
//! Each family is an ordinary sweep (its own plan, seeds, resampled
//! scores and time limit); `--kernel`, `--kernels` and `--views` go to the
//! algorithms that take them, `-P NAME=V` to those that declare NAME. The
//! gap statistic is computed for the algorithms without a kernel only: its
//! reference sets are full-size data sets, one graph or Gram matrix each.

use super::sweep_args::SweepArgs;
use super::sweep_out::{self, Format, Report};
use crate::algo::{self, Algorithm};
use crate::error::{Error, Result};
use crate::files::{self, interrupt};
use crate::session;
use crate::sweep::recommend::{Across, across};
use crate::sweep::{self, Axis, Plan, SweepResult, Truth};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The algorithms of `-a` when it names more than one (`kmeans,spectral`).
pub fn algorithms(text: &str) -> Option<Vec<&str>> {
    let ids: Vec<&str> = text.split(',').map(str::trim).collect();
    (ids.len() > 1).then_some(ids)
}

/// One finished family.
struct Family {
    algo: Box<dyn Algorithm>,
    plan: Plan,
    result: SweepResult,
    score: &'static str,
}

/// The output text (None when it went to --out) and whether a sweep was
/// cancelled.
pub fn output(a: &SweepArgs, ids: &[&str]) -> Result<(Option<String>, bool)> {
    let flag = format!("-a {}", a.algo.algo);
    if a.csv || a.plot.is_some() {
        return Err(Error::param(format!(
            "{flag}: --csv and --plot take one algorithm's sweep; use --json or the table, or run one -a at a time"
        )));
    }
    let mut algos: Vec<Box<dyn Algorithm>> = Vec::new();
    for id in ids {
        if id.is_empty() {
            return Err(Error::param(format!("{flag}: an empty algorithm id")));
        }
        if algos.iter().any(|x| x.id() == *id) {
            return Err(Error::param(format!("{flag}: {id} is named twice")));
        }
        algos.push(algo::find(id)?);
    }
    let scale = match a.data.scale {
        Some(s) => s,
        None => {
            let first = algos[0].default_scaling();
            if let Some(o) = algos.iter().find(|x| x.default_scaling() != first) {
                return Err(Error::param(format!(
                    "{flag}: {} scales the data by {first} and {} by {}; give --scale for all",
                    algos[0].id(),
                    o.id(),
                    o.default_scaling()
                )));
            }
            first
        }
    };
    let axes = a
        .grid
        .iter()
        .map(|g| Axis::parse(g))
        .collect::<Result<Vec<_>>>()?;
    let given = a.algo.given()?;
    let mut options = a.algo.options();
    let refs: Vec<&dyn Algorithm> = algos.iter().map(|x| x.as_ref()).collect();
    sweep::check_taken(
        &refs,
        options
            .iter()
            .map(|(n, _)| n)
            .chain(given.iter().map(|(n, _)| n)),
    )?;
    options.extend(a.data.memory_option());
    let loaded = session::load(&a.data.data, &a.data.load_options(), scale)?;
    let inputs: Vec<&Path> = loaded.dataset.inputs.iter().map(|p| p.as_path()).collect();
    files::Outputs {
        cmd: "sweep",
        out: a.out.as_deref(),
        out_ext: if a.json { &["json"] } else { &["txt"] },
        plot: None,
        force: a.force,
    }
    .check(&inputs)?;
    let k_axis = axes.iter().find(|x| x.name == "k").map(|x| x.values[0]);
    let k = match (a.algo.k, k_axis) {
        (None, Some(first)) => loaded.choose_k(None).unwrap_or(first as usize),
        (given, _) => loaded.choose_k(given)?,
    };
    let data = loaded.source.spec();
    let truth = Truth {
        labels: loaded.dataset.labels.as_ref().map(|l| l.ids.as_slice()),
        relevance: loaded.dataset.relevance.as_deref(),
    };
    let resamples = a.resamples.unwrap_or(if loaded.dataset.labels.is_some() {
        0
    } else {
        sweep::resample::DEFAULT_RESAMPLES
    });
    // Every family is planned (and so checked) before any runs.
    let mut plans = Vec::with_capacity(algos.len());
    for x in &algos {
        let req = sweep::Request {
            k,
            seed: a.algo.seed,
            seeds: a.seeds,
            init: a.algo.init,
            given: given.clone(),
            options: options.clone(),
            axes: axes.clone(),
            time_limit: (!a.yes).then_some(a.max_time),
            resamples,
        };
        let plan = sweep::plan_family(x.as_ref(), &loaded.problem, req)
            .map_err(|e| e.about(&format!("{data} ({})", x.id())))?;
        let score = sweep_out::choose_score(a.score.as_deref(), x.as_ref(), truth, &plan)?;
        plans.push((plan, score));
    }
    if interrupt::requested() {
        return Err(Error::Cancelled);
    }
    let mut families = Vec::with_capacity(algos.len());
    let mut cancelled = false;
    {
        let _watch = interrupt::Watch::start();
        for (x, (plan, score)) in algos.into_iter().zip(plans) {
            if cancelled {
                break;
            }
            let on_cell = |_: usize, _: usize, _: &sweep::CellResult| {};
            let result = sweep::run(
                x.as_ref(),
                &loaded.problem,
                &plan,
                truth,
                interrupt::flag(),
                &on_cell,
            )
            .map_err(|e| e.about(&format!("{data} ({})", x.id())))?;
            cancelled = !result.complete;
            families.push(Family {
                algo: x,
                plan,
                result,
                score,
            });
        }
    }
    interrupt::clear();
    let reports: Vec<Report> = families
        .iter()
        .map(|f| Report {
            algo: f.algo.as_ref(),
            data: &data,
            dataset: &loaded.dataset,
            plan: &f.plan,
            result: &f.result,
            score: f.score,
        })
        .collect();
    let cells: Vec<&[sweep::CellResult]> =
        families.iter().map(|f| f.result.cells.as_slice()).collect();
    let by_k = axes_k(&families[0].plan);
    let rec = across(&cells, by_k);
    let text = if a.json {
        serde_json::to_string_pretty(&json_of(&reports, rec.as_ref(), ids)).expect("JSON") + "\n"
    } else {
        text_of(&reports, rec.as_ref())
    };
    match &a.out {
        Some(o) => {
            files::write_atomic(o, text.as_bytes())?;
            Ok((None, cancelled))
        }
        None => Ok((Some(text), cancelled)),
    }
}

/// Whether the only axis is k (the rule then reads it).
fn axes_k(plan: &Plan) -> bool {
    plan.axes.len() == 1 && plan.axes[0].name == "k"
}

/// A cell's place with its algorithm first.
fn at_with(algo: &str, at: &Value) -> Value {
    let mut m = Map::new();
    m.insert("algorithm".into(), algo.into());
    if let Some(o) = at.as_object() {
        m.extend(o.clone());
    }
    Value::Object(m)
}

/// One JSON object: every family's cells, named by algorithm, in one
/// list; each family's own report under `families`; the recommendation
/// over all of them.
fn json_of(reports: &[Report], rec: Option<&Across>, ids: &[&str]) -> Value {
    let mut cells = Vec::new();
    let mut families = Map::new();
    let mut first_cell = Vec::new();
    let mut complete = true;
    let mut elapsed = 0.0;
    for r in reports {
        let id = r.algo.id();
        let mut own = r.json_value();
        first_cell.push(cells.len());
        if let Some(cs) = own.get_mut("cells").and_then(Value::as_array_mut) {
            for mut c in cs.drain(..) {
                c["at"] = at_with(id, &c["at"]);
                let mut m = Map::new();
                m.insert("algorithm".into(), id.into());
                if let Some(o) = c.as_object() {
                    m.extend(o.clone());
                }
                cells.push(Value::Object(m));
            }
        }
        if let Some(o) = own.as_object_mut() {
            o.remove("cells");
            o.remove("data");
            o.remove("n");
            o.remove("p");
        }
        complete &= r.result.complete;
        elapsed += r.result.elapsed.as_secs_f64() * 1e3;
        families.insert(id.to_string(), own);
    }
    let first = &reports[0];
    let mut out = json!({
        "algorithm": ids.join(","),
        "algorithms": ids,
        "data": first.data,
        "n": first.dataset.n(),
        "p": first.dataset.p(),
        "seeds": first.plan.seeds,
        "elapsed_ms": elapsed,
        "cells": cells,
        "families": families,
        "complete": complete,
    });
    if let Some(r) = rec {
        let fam = &reports[r.family];
        let cell = &fam.result.cells[r.cell];
        let at: Map<String, Value> = fam
            .plan
            .axes
            .iter()
            .zip(&cell.at)
            .map(|(a, v)| (a.name.clone(), sweep_out::axis_value(a, *v)))
            .collect();
        out["recommended"] = json!({
            "at": at_with(fam.algo.id(), &Value::Object(at)),
            "cell": first_cell[r.family] + r.cell,
            "by": r.by,
        });
    }
    if let Some(c) = &first.dataset.label_left_out {
        out["label_left_out"] = c.clone().into();
    }
    out
}

/// Every family's table in turn, then the recommendation over them.
fn text_of(reports: &[Report], rec: Option<&Across>) -> String {
    let mut out = String::new();
    for r in reports {
        out.push_str(&r.render(Format::Text));
        out.push('\n');
    }
    match rec {
        Some(r) => {
            let fam = &reports[r.family];
            let at = sweep::describe(&fam.plan.axes, &fam.result.cells[r.cell].at);
            out.push_str(&format!(
                "recommended without labels over {}: algorithm={}, {at} (by {})\n",
                reports
                    .iter()
                    .map(|r| r.algo.id())
                    .collect::<Vec<_>>()
                    .join(", "),
                fam.algo.id(),
                r.by
            ));
        }
        None => out.push_str("no recommendation: no cell has a label-free score to compare\n"),
    }
    out
}
