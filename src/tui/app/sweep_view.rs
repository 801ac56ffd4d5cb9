//! The UI's sweeps: one or two sliders marked as axes (or k for a k-scan),
//! run by the sweep engine in the background while the heatmap or curve
//! fills in cell by cell; a cursor on the cells, and Enter to take a
//! cell's parameters back to the sliders.

use super::sweep_context::SweepContext;
use super::worker::Job;
use crate::algo::params::{Scale, fmt_num, round_sig};
use crate::sweep::recommend::{Recommendation, across, recommend};
use crate::sweep::{self, Axis, CellResult, MeanSd, Plan};
use std::time::{Duration, Instant};

/// Seeds per cell unless the user types another number.
pub const DEFAULT_SEEDS: usize = 3;
/// The largest k a k-scan tries by default.
pub const KSCAN_MAX: usize = 12;

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKind {
    /// Marked parameters (s₀ × η, σ, …).
    Grid,
    /// k, with the label-free scores, to choose k.
    KScan,
}

/// What the k-scan draws above its legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    /// The scores over k (or a grid's heatmap or curve).
    Scores,
    /// The consensus CDF of every k (`c`).
    Consensus,
    /// The silhouette per cluster of the cursor's k (`w`).
    Silhouette,
}

/// A sweep started from the UI and what it has produced so far.
pub struct SweepView {
    pub kind: SweepKind,
    /// The algorithm swept (cells apply to it).
    pub algo: String,
    /// Every setting it ran with besides its axes (data, scaling, k,
    /// seed, fixed parameters): Enter restores them, the view names them.
    pub context: SweepContext,
    /// A k-scan over several algorithms (`algos=`): the settings of the
    /// families after the first, whose algorithm is `algo`. Their cells
    /// are the grid's columns.
    pub others: Vec<SweepContext>,
    /// The text it was started from (the prompt shows it again).
    pub text: String,
    pub plan: Plan,
    /// Finished cells, by grid position.
    pub cells: Vec<Option<CellResult>>,
    pub done: usize,
    pub running: bool,
    /// Cancelled before every cell finished.
    pub cancelled: bool,
    pub error: Option<String>,
    pub started: Instant,
    pub elapsed: Duration,
    /// Index into [`SweepView::score_names`].
    pub score: usize,
    /// (row, column): positions on the first and second axis.
    pub cursor: (usize, usize),
    /// Show each cell's value instead of only its shade.
    pub numbers: bool,
    /// The k-scan's picture: the scores, the consensus CDFs or the
    /// silhouette per cluster.
    pub panel: Panel,
    /// The sliders' values when it started, one per axis (the marker).
    pub current: Vec<f64>,
    pub(super) job: Option<Job>,
}

impl SweepView {
    /// Stops the sweep's job: the cells done are kept.
    pub fn cancel(&self) {
        if let Some(job) = &self.job {
            job.cancel();
        }
    }

    /// The scores there are to choose from, in the selector's order: the
    /// external ones with labels, then those a user without labels has.
    pub fn score_names(&self) -> Vec<&'static str> {
        let first = self.cells.iter().flatten().next();
        // The resampled scores only where the sweep resamples (before its
        // first cell, too).
        let resampled = self.plan.resampling.count > 0;
        let has = |n: &str| {
            (resampled || !sweep::resample::NAMES.contains(&n))
                && first.is_none_or(|c| c.score(n).is_some())
        };
        let grid: &[&'static str] = &[
            "nmi",
            "ari",
            "acc",
            "prediction_strength",
            "resample_stability",
            "pac",
            "gap",
            // Kernel and RFF cells: the silhouette on the features,
            // comparable across σ (their own space changes with it).
            "silhouette_input",
            "stability",
            "silhouette",
            "cost",
            "calinski_harabasz",
            "davies_bouldin",
            "selected",
            "iterations",
            "time_ms",
        ];
        let order: Vec<&'static str> = match self.kind {
            SweepKind::Grid => grid.to_vec(),
            // The scores that vote on k, in the recommendation's order.
            SweepKind::KScan => sweep::recommend::VOTERS
                .iter()
                .copied()
                .chain(["nmi"])
                .collect(),
        };
        order.into_iter().filter(|n| has(n)).collect()
    }

    pub fn score_name(&self) -> &'static str {
        let names = self.score_names();
        names
            .get(self.score.min(names.len().saturating_sub(1)))
            .copied()
            .unwrap_or("stability")
    }

    /// Rows and columns of the grid (one column for one axis, one per
    /// algorithm for a k-scan over several).
    pub fn shape(&self) -> (usize, usize) {
        let a = &self.plan.axes;
        (
            a[0].values.len(),
            a.get(1).map_or(self.families(), |b| b.values.len()),
        )
    }

    /// The algorithms swept, each a family of cells (one but for a k-scan
    /// with `algos=`).
    pub fn families(&self) -> usize {
        1 + self.others.len()
    }

    /// The settings family `f` ran with.
    pub fn family_context(&self, f: usize) -> &SweepContext {
        match f.checked_sub(1) {
            Some(i) => self.others.get(i).unwrap_or(&self.context),
            None => &self.context,
        }
    }

    pub fn cell(&self, row: usize, col: usize) -> Option<&CellResult> {
        let (_, cols) = self.shape();
        self.cells.get(row * cols + col).and_then(|c| c.as_ref())
    }

    /// The chosen score of a cell.
    pub fn value(&self, row: usize, col: usize) -> Option<MeanSd> {
        self.cell(row, col)
            .and_then(|c| c.score(self.score_name()))
            .filter(|s| s.mean.is_finite())
    }

    /// The lowest and highest mean of the chosen score over the cells done.
    pub fn range(&self) -> Option<(f64, f64)> {
        let (rows, cols) = self.shape();
        let vals: Vec<f64> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter_map(|(r, c)| self.value(r, c).map(|s| s.mean))
            .collect();
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo <= hi).then_some((lo, hi))
    }

    /// The best cell by the chosen score, as (row, column): among the
    /// cells whose runs all kept k clusters, when there are any.
    pub fn best(&self) -> Option<(usize, usize)> {
        let (_, cols) = self.shape();
        let cell = sweep::best(self.cells.iter().flatten(), self.score_name())?;
        // Its slot, not its grid index, which the families share.
        let pos = self
            .cells
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| std::ptr::eq(c, cell)))?;
        Some((pos / cols, pos % cols))
    }

    /// The grid position nearest to the sliders' values when the sweep
    /// started (on a log axis, nearest in log).
    pub fn current_at(&self) -> Option<(usize, usize)> {
        let near = |a: &Axis, v: f64| -> Option<usize> {
            if a.is_option() {
                return None;
            }
            let d = |x: f64| {
                if a.spacing == sweep::Spacing::Log && x != 0.0 && v != 0.0 {
                    (x.abs().ln() - v.abs().ln()).abs()
                } else {
                    (x - v).abs()
                }
            };
            (0..a.values.len()).min_by(|&i, &j| d(a.values[i]).total_cmp(&d(a.values[j])))
        };
        let axes = &self.plan.axes;
        let r = near(&axes[0], *self.current.first()?)?;
        let c = match axes.get(1) {
            Some(b) => near(b, *self.current.get(1)?)?,
            None => 0,
        };
        Some((r, c))
    }

    /// Whether the marked cell is the sliders' values themselves (else it
    /// is the nearest to them).
    pub fn current_exact(&self) -> bool {
        let Some((r, c)) = self.current_at() else {
            return false;
        };
        let axes = &self.plan.axes;
        let mut at = vec![axes[0].values[r]];
        if let Some(b) = axes.get(1) {
            at.push(b.values[c]);
        }
        at.iter()
            .zip(&self.current)
            .all(|(a, v)| (a - v).abs() <= 1e-9 * v.abs().max(1.0))
    }

    /// The sliders' values when the sweep started, as "s0=-1, eta=1.04".
    pub fn current_text(&self) -> String {
        sweep::describe(&self.plan.axes, &self.current)
    }

    /// The sweep's recommendation over the cells done ([`recommend`]),
    /// its cells (the recommended one and each score's pick) as grid
    /// positions.
    pub fn recommendation(&self) -> Option<Recommendation> {
        let (cells, at): (Vec<&CellResult>, Vec<usize>) = self
            .cells
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_ref().map(|c| (c, i)))
            .unzip();
        let mut r = recommend(&cells, &self.plan.axes)?;
        r.cell = at[r.cell];
        for p in &mut r.picks {
            p.cell = at[p.cell];
        }
        Some(r)
    }

    /// Whether the view shows a recommendation: a k-scan always, a grid
    /// when it has the resampled scores (without them it would only
    /// repeat each score's best cell).
    pub fn recommends(&self) -> bool {
        self.kind == SweepKind::KScan || self.plan.resampling.count > 0
    }

    /// The recommendation of a k-scan over several algorithms: the same
    /// rule as `meanscape sweep -a a,b` ([`across`]), as (row, column)
    /// and the rule's words.
    pub fn across(&self) -> Option<((usize, usize), &'static str)> {
        let (rows, cols) = self.shape();
        let families: Vec<(Vec<&CellResult>, Vec<usize>)> = (0..cols)
            .map(|c| {
                (0..rows)
                    .filter_map(|r| self.cell(r, c).map(|cell| (cell, r)))
                    .unzip()
            })
            .collect();
        let slices: Vec<&[&CellResult]> = families.iter().map(|(c, _)| c.as_slice()).collect();
        let a = across(&slices, true)?;
        let row = *families.get(a.family)?.1.get(a.cell)?;
        Some(((row, a.family), a.by))
    }

    /// The recommended cell as (row, column), where the view shows one.
    pub fn recommended_at(&self) -> Option<(usize, usize)> {
        if !self.recommends() {
            return None;
        }
        if self.families() > 1 {
            return self.across().map(|(at, _)| at);
        }
        let (_, cols) = self.shape();
        self.recommendation()
            .map(|r| (r.cell / cols, r.cell % cols))
    }

    /// The k a k-scan recommends ([`recommend`]; never a k where a run
    /// lost a cluster).
    pub fn suggested_k(&self) -> Option<usize> {
        if self.kind != SweepKind::KScan {
            return None;
        }
        let (r, c) = self.recommended_at()?;
        self.cell(r, c).map(|c| c.k)
    }

    /// Shows `panel` (the scores again when it is shown already). The
    /// silhouette opens on the recommended k, the cell it is asked for.
    ///
    /// # Errors
    /// Why it is not there, for the status line: a grid, or a k-scan
    /// without resamples for the consensus.
    pub fn toggle_panel(&mut self, panel: Panel) -> Result<(), &'static str> {
        if self.kind != SweepKind::KScan {
            return Err("the consensus CDF and the silhouette per cluster are the k-scan's (K)");
        }
        if panel == Panel::Consensus && self.plan.resampling.count == 0 {
            return Err("no consensus: this k-scan ran with resamples=0");
        }
        if self.panel == panel {
            self.panel = Panel::Scores;
            return Ok(());
        }
        if panel == Panel::Silhouette
            && let Some(at) = self.recommended_at()
        {
            self.cursor = at;
        }
        self.panel = panel;
        Ok(())
    }

    /// The k-scan's values of k whose finished cell meets `pred`, as
    /// "9, 10" (empty when none).
    pub fn ks_where(&self, pred: impl Fn(&CellResult) -> bool) -> String {
        let ks: Vec<String> = self.plan.axes[0]
            .values
            .iter()
            .enumerate()
            .filter(|&(i, _)| (0..self.families()).any(|f| self.cell(i, f).is_some_and(&pred)))
            .map(|(_, &k)| format!("{k}"))
            .collect();
        ks.join(", ")
    }
}

/// The default axis text for a slider: its declared range around the
/// current value (a decade each way on a log slider, ten coarse steps
/// wide on a linear one), `count` values.
pub fn default_axis(s: &super::slider::Slider, count: usize) -> String {
    let spec = &s.spec;
    let v = s.value;
    let (lo, hi, log) = match spec.scale {
        Scale::Log if v != 0.0 => {
            let (a, b) = (v / 10.0, v * 10.0);
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            (a.max(spec.min), b.min(spec.max), true)
        }
        _ => {
            let half = 5.0 * spec.coarse.max(spec.step);
            ((v - half).max(spec.min), (v + half).min(spec.max), false)
        }
    };
    let (lo, hi) = if spec.integer {
        (lo.ceil(), hi.floor())
    } else {
        (round_sig(lo, 4), round_sig(hi, 4))
    };
    let count = if spec.integer {
        count.min((hi - lo) as usize + 1).max(1)
    } else {
        count
    };
    if lo == hi {
        return format!("{}={}", spec.name, fmt_num(lo));
    }
    format!(
        "{}={}:{}:{count}{}",
        spec.name,
        fmt_num(lo),
        fmt_num(hi),
        if log { ":log" } else { "" }
    )
}

/// A sweep of k alone is a k-scan (its recommendation and per-score
/// picks); anything else is a grid.
pub fn kind_of(text: &str) -> SweepKind {
    match parse_text(text) {
        Ok(t) if t.axes.len() == 1 && t.axes[0].name == "k" => SweepKind::KScan,
        _ => SweepKind::Grid,
    }
}

/// What the sweep prompt's text asks for.
#[derive(Debug, Clone)]
pub struct SweepText {
    pub axes: Vec<Axis>,
    pub seeds: usize,
    /// `resamples=N` when typed (else the kind's default).
    pub resamples: Option<usize>,
    /// `algos=kmeans,spectral`: the algorithms a k-scan compares, one
    /// family of cells each (empty: the current algorithm alone).
    pub algos: Vec<String>,
}

/// The most resamples the prompt takes: each costs about three runs per
/// cell, and beyond this the resampled scores no longer change.
pub const MAX_RESAMPLES: usize = 1000;

/// Splits the prompt's text into axes, a seed count and a resample count.
/// `k=FROM:TO` (no count) is every whole k from FROM to TO.
///
/// # Errors
/// The reason, for the prompt's hint line.
pub fn parse_text(text: &str) -> Result<SweepText, String> {
    let mut axes = Vec::new();
    let mut seeds = DEFAULT_SEEDS;
    let mut resamples = None;
    let mut algos = Vec::new();
    for tok in text.split_whitespace() {
        if let Some(list) = tok.strip_prefix("algos=") {
            algos = parse_algos(list)?;
        } else if let Some(n) = tok.strip_prefix("seeds=") {
            seeds = n
                .parse()
                .ok()
                .filter(|&n: &usize| n >= 1)
                .ok_or_else(|| format!("seeds={n}: give a whole number ≥ 1"))?;
        } else if let Some(n) = tok.strip_prefix("resamples=") {
            resamples = Some(
                n.parse()
                    .ok()
                    .filter(|&n: &usize| n <= MAX_RESAMPLES)
                    .ok_or_else(|| {
                        format!(
                            "resamples={n}: give a whole number from 0 (none) to {MAX_RESAMPLES}"
                        )
                    })?,
            );
        } else {
            axes.push(Axis::parse(&whole_k(tok)?).map_err(|e| e.to_string())?);
        }
    }
    if axes.is_empty() || axes.len() > 2 {
        return Err(format!(
            "give one or two axes NAME=FROM:TO:COUNT[:log] (or NAME=a,b,c), not {}",
            axes.len()
        ));
    }
    let scan_of_k = axes.len() == 1 && axes[0].name == "k";
    if !(algos.is_empty() || scan_of_k) {
        return Err("algos= compares algorithms on a k-scan (k=FROM:TO) only".into());
    }
    Ok(SweepText {
        axes,
        seeds,
        resamples,
        algos,
    })
}

/// The most algorithms a k-scan compares (each a family of cells).
pub const MAX_FAMILIES: usize = 4;

/// `kmeans,spectral` as registered ids, each once, at most
/// [`MAX_FAMILIES`].
fn parse_algos(list: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for id in list.split(',').map(str::trim) {
        let algo = crate::algo::find(id).map_err(|e| format!("algos={list}: {e}"))?;
        if out.iter().any(|o| o == algo.id()) {
            return Err(format!("algos={list}: {id} is named twice"));
        }
        out.push(algo.id().to_string());
    }
    if out.len() > MAX_FAMILIES {
        return Err(format!(
            "algos={list}: at most {MAX_FAMILIES} algorithms in one k-scan"
        ));
    }
    Ok(out)
}

/// `k=FROM:TO` as `k=FROM:TO:COUNT` with every whole k between; any other
/// token as it is.
fn whole_k(tok: &str) -> Result<String, String> {
    let Some(spec) = tok.strip_prefix("k=") else {
        return Ok(tok.to_string());
    };
    let parts: Vec<&str> = spec.split(':').collect();
    if parts.len() != 2 {
        return Ok(tok.to_string());
    }
    let bad = || format!("{tok}: give k=FROM:TO with whole numbers 1 ≤ FROM ≤ TO");
    let from: usize = parts[0].trim().parse().map_err(|_| bad())?;
    let to: usize = parts[1].trim().parse().map_err(|_| bad())?;
    if from < 1 || from > to {
        return Err(bad());
    }
    Ok(format!("k={from}:{to}:{}", to - from + 1))
}

/// A cell's scores as one line, for under the heatmap.
pub fn cell_line(sv: &SweepView, cell: &CellResult) -> String {
    let at = sweep::describe(&sv.plan.axes, &cell.at);
    let scores: Vec<String> = cell
        .scores
        .iter()
        // The solver time is a score to map (s), not a line that changes
        // from one sweep of the same grid to the next.
        .filter(|(n, _)| !matches!(*n, "converged" | "clusters" | "time_ms"))
        .map(|(n, s)| {
            format!(
                "{n} {}±{}",
                crate::algo::params::fmt_sig4(s.mean),
                crate::algo::params::fmt_sig4(s.sd)
            )
        })
        .collect();
    format!("{at}: {}", scores.join("  "))
}
