//! One power k-means iteration in a single pass over the data.
//!
//! Rows are taken in blocks small enough to stay in cache: for each block,
//! the distances to the centres (a GEMM), the log-domain MM weights, and
//! the block's contribution Wᵀ·X to the next centres (a second GEMM) are
//! computed while the block is hot. Reading a 70 000 × 784 matrix once per
//! iteration instead of twice is what makes an iteration about as cheap as
//! a Lloyd step.
//!
//! Column normalisation stays in the log domain: every task keeps, per
//! centre, the largest log weight seen so far and its sums relative to it,
//! rescaling when a larger one arrives, so weights that all underflow
//! still give a usable centre (spec kernel-power-kmeans.md §3.3).
//!
//! Tasks have a fixed size and are combined in order, so the result is the
//! same for any number of threads.
//!
//! f32 rows are widened to f64 block by block, and both products are f64:
//! the centres nearly merge while s is near −1 and must be able to part
//! again, which f32 products cannot resolve (usps at s₀ = −1: 3 of 10
//! clusters emptied with f32 distances). f32 rows still halve the bytes
//! read.

use super::reduce::fold_blocks;
use super::rows::Rows;
use super::weights::block_weights;
use crate::linalg::{gemm_seq, sq_dists_with};
use ndarray::{Array2, ArrayView2, Axis};

/// Rows per parallel task (fixed: it decides the order of the sums).
const TASK_ROWS: usize = 1024;
/// Rows per cache block inside a task.
const BLOCK_ROWS: usize = 256;

pub struct Sweep {
    /// Σ_i M_s(d_i·) at the current centres.
    pub objective: f64,
    /// The same at `s_ref`, when asked for (the stopping rule).
    pub objective_ref: Option<f64>,
    pub labels: Vec<usize>,
    /// Mean share of a point's weight outside its own cluster (0 = hard).
    pub softness: f64,
    /// The MM update of the centres; rows of dead centres (no finite
    /// weight anywhere) are left as they were.
    pub next: Array2<f64>,
}

struct Part {
    max: Vec<f64>,
    acc: Array2<f64>,
    sums: Vec<f64>,
    objective: f64,
    objective_ref: f64,
    softness: f64,
    labels: Vec<usize>,
}

/// One run of a batch: its centres and exponents. A batch is several runs
/// over the same rows ([`sweep_batch`]).
#[derive(Clone, Copy)]
pub struct SweepArgs<'c> {
    pub centres: ArrayView2<'c, f64>,
    pub s: f64,
    pub s_ref: Option<f64>,
    pub zero_tol: f64,
    /// Sample weights of every row (None: all 1).
    pub weights: Option<&'c [f64]>,
}

impl Part {
    fn new(k: usize, p: usize, rows: usize) -> Self {
        Part {
            max: vec![f64::NEG_INFINITY; k],
            acc: Array2::zeros((k, p)),
            sums: vec![0.0; k],
            objective: 0.0,
            objective_ref: 0.0,
            softness: 0.0,
            labels: Vec::with_capacity(rows),
        }
    }

    /// Adds one cache block of rows (`xb`, its first row being row `at`).
    fn block(
        &mut self,
        xb: ArrayView2<f64>,
        at: usize,
        x_norms: &[f64],
        run: &SweepArgs,
        c_norms: &[f64],
    ) {
        let k = run.centres.nrows();
        let part = self;
        let d = sq_dists_with(xb, x_norms, run.centres, c_norms, false);
        let w = run.weights.map(|w| &w[at..at + xb.nrows()]);
        let step = block_weights(d.view(), run.s, run.s_ref, run.zero_tol, w);
        part.objective += step.objective;
        part.objective_ref += step.objective_ref;
        part.softness += step.softness;
        part.labels.extend_from_slice(&step.labels);
        // Raise the running maxima, rescaling what was summed so far.
        for j in 0..k {
            let m = step
                .log_w
                .column(j)
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, f64::max);
            if m > part.max[j] {
                if part.max[j] > f64::NEG_INFINITY {
                    let r = (part.max[j] - m).exp();
                    part.acc.row_mut(j).mapv_inplace(|v| v * r);
                    part.sums[j] *= r;
                }
                part.max[j] = m;
            }
        }
        // e_ij = exp(log w_ij − M_j) = exp(c_i − c*)·exp(c* − M_j)·u_ij:
        // one exponential per row and per column instead of per entry,
        // unless a factor could overflow, where the log domain is used.
        let c_star = step
            .c
            .iter()
            .cloned()
            .filter(|c| !c.is_nan())
            .fold(f64::NEG_INFINITY, f64::max);
        let col: Vec<Option<f64>> = part
            .max
            .iter()
            .map(|&m| (m > f64::NEG_INFINITY && c_star - m < 600.0).then(|| (c_star - m).exp()))
            .collect();
        let mut e = step.log_w;
        for (i, mut row) in e.axis_iter_mut(Axis(0)).enumerate() {
            let ci = step.c[i];
            let a = if ci.is_nan() {
                f64::NAN
            } else if ci == f64::NEG_INFINITY {
                // A row of sample weight 0 (c* may be −∞ too).
                0.0
            } else {
                (ci - c_star).exp()
            };
            for j in 0..k {
                let m = part.max[j];
                row[j] = match col[j] {
                    Some(b) if !ci.is_nan() => a * b * step.u[[i, j]],
                    _ if m > f64::NEG_INFINITY => (row[j] - m).exp(),
                    _ => 0.0,
                };
                part.sums[j] += row[j];
            }
        }
        gemm_seq(part.acc.view_mut(), e.t(), xb, 1.0, true);
    }
}

/// One task's rows for every run of the batch: each cache block is read
/// once and serves every run while it is hot. Each run's arithmetic is
/// exactly that of a batch of one (the runs share nothing but the rows).
fn task(
    x: Rows,
    at: usize,
    x_norms: &[f64],
    runs: &[SweepArgs],
    c_norms: &[Vec<f64>],
) -> Vec<Part> {
    let p = x.ncols();
    let mut parts: Vec<Part> = runs
        .iter()
        .map(|r| Part::new(r.centres.nrows(), p, x.nrows()))
        .collect();
    let mut buf = Vec::new();
    let mut lo = 0;
    while lo < x.nrows() {
        let hi = (lo + BLOCK_ROWS).min(x.nrows());
        let xb = x.block_in(lo, hi, &mut buf);
        for ((part, run), cn) in parts.iter_mut().zip(runs).zip(c_norms) {
            part.block(xb, at + lo, &x_norms[lo..hi], run, cn);
        }
        lo = hi;
    }
    parts
}

/// Distances, weights, objective, labels and the next centres, in one pass.
pub fn sweep(
    x: Rows,
    x_norms: &[f64],
    centres: ArrayView2<f64>,
    s: f64,
    s_ref: Option<f64>,
    zero_tol: f64,
    weights: Option<&[f64]>,
) -> Sweep {
    let run = SweepArgs {
        centres,
        s,
        s_ref,
        zero_tol,
        weights,
    };
    sweep_batch(x, x_norms, &[run])
        .pop()
        .expect("one sweep per run")
}

/// [`sweep`] for several runs over the same rows in one pass: each run's
/// result is bit-identical to its own [`sweep`] (same tasks, same blocks,
/// same order of every sum), but the rows are read once for all of them.
pub fn sweep_batch(x: Rows, x_norms: &[f64], runs: &[SweepArgs]) -> Vec<Sweep> {
    let n = x.nrows();
    let c_norms: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| crate::linalg::row_sq_norms(r.centres))
        .collect();
    // The tasks' running maxima are only combined once all are known.
    let tasks: Vec<Vec<Part>> = fold_blocks(
        n,
        TASK_ROWS,
        |rows| {
            let (lo, hi) = (rows.start, rows.end);
            task(x.slice(lo, hi), lo, &x_norms[lo..hi], runs, &c_norms)
        },
        Vec::with_capacity(n.div_ceil(TASK_ROWS)),
        |mut all, parts| {
            all.push(parts);
            all
        },
    );
    let mut per_run: Vec<Vec<Part>> = runs
        .iter()
        .map(|_| Vec::with_capacity(tasks.len()))
        .collect();
    for parts in tasks {
        for (r, part) in parts.into_iter().enumerate() {
            per_run[r].push(part);
        }
    }
    runs.iter()
        .zip(per_run)
        .map(|(run, parts)| combine(n, run, parts))
        .collect()
}

/// One run's tasks combined in task order.
fn combine(n: usize, run: &SweepArgs, parts: Vec<Part>) -> Sweep {
    let centres = run.centres;
    let (k, p) = centres.dim();
    let mut max = vec![f64::NEG_INFINITY; k];
    for part in &parts {
        for j in 0..k {
            max[j] = max[j].max(part.max[j]);
        }
    }
    let mut acc = Array2::<f64>::zeros((k, p));
    let mut sums = vec![0.0; k];
    let mut objective = 0.0;
    let mut objective_ref = 0.0;
    let mut softness = 0.0;
    let mut labels = Vec::with_capacity(n);
    for part in parts {
        for j in 0..k {
            if part.max[j] > f64::NEG_INFINITY {
                let r = (part.max[j] - max[j]).exp();
                acc.row_mut(j).scaled_add(r, &part.acc.row(j));
                sums[j] += r * part.sums[j];
            }
        }
        objective += part.objective;
        objective_ref += part.objective_ref;
        softness += part.softness;
        labels.extend(part.labels);
    }
    let mut next = centres.to_owned();
    for j in 0..k {
        if max[j] > f64::NEG_INFINITY && sums[j] > 0.0 {
            let inv = 1.0 / sums[j];
            next.row_mut(j).assign(&acc.row(j).mapv(|v| v * inv));
        }
    }
    Sweep {
        objective,
        objective_ref: run.s_ref.map(|_| objective_ref),
        labels,
        softness: softness / run.weights.map_or(n.max(1) as f64, |w| w.iter().sum()),
        next,
    }
}
