//! One block of rows → its sufficient statistics, their merge, and the
//! step from merged statistics to the next centres: the map-reduce every
//! Euclidean iteration is. The in-memory solvers are built from these
//! (`power_pass` merges its fixed tasks with [`PowerStats::merge`]; Lloyd's full
//! pass is [`lloyd_block`]'s), and a distributed driver (`meanscape.dask`)
//! calls the same functions per chunk, so both compute the same thing by
//! construction. Only k × p numbers per block travel; the rows never move.
//!
//! [`Driver`] is the engine's iteration loop ([`LoopState`]: annealing
//! schedule, period check, hardness condition, Lloyd's settling test) fed
//! with merged statistics instead of a [`Step`] that owns the rows.

use super::assign::{Pass, full_pass, move_rows, weight, weighted_cluster_sums};
use super::bounded::Bounds;
use super::f32_products::{Centred, add_weighted_sums};
use super::fit::Fit;
use super::iterate::{Eval, Finish, Iteration, Loop, LoopState, Rule, Step};
use super::lloyd::{average, relocate, sums_inertia, weighted_sum};
use super::progress::Ctx;
use super::reduce::fold_blocks;
use super::rows::{Centres, Rows};
use super::weights::{Scratch, block_weights_in};
use crate::error::{Error, Result};
use crate::linalg::{finish_sq_dists, gemm_seq, sq_dists_block};
use ndarray::{Array2, ArrayView2, ArrayViewMut2, s};
use std::sync::Arc;

/// One power iteration's result: what [`PowerStats::finish`] gives.
pub struct PowerPass {
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

/// One run of a batch: its centres and exponents. A batch is several runs
/// over the same rows (`power_pass::power_pass_batch`).
#[derive(Clone, Copy)]
pub struct PassArgs<'c> {
    pub centres: ArrayView2<'c, f64>,
    pub s: f64,
    pub s_ref: Option<f64>,
    pub zero_tol: f64,
    /// Sample weights of every row (None: all 1).
    pub weights: Option<&'c [f64]>,
}

pub use super::iterate::Stop;
pub use super::lloyd::Far;
pub use super::stopping::{Schedule, zero_tolerance};

/// Rows per parallel task (fixed: it decides the order of the sums).
pub(super) const TASK_ROWS: usize = 1024;
/// Rows per cache block inside a task.
const BLOCK_ROWS: usize = 256;

/// A block's share of one power-mean iteration (`power`, `khm`): per
/// centre the largest log MM weight seen (`max`), and Wᵀ·X and the weight
/// sums rescaled to it, so blocks whose weights all underflow still give a
/// usable centre once merged (log-sum-exp).
#[derive(Debug, Clone, PartialEq)]
pub struct PowerStats {
    pub max: Vec<f64>,
    /// k × p: Σᵢ exp(log wᵢⱼ − maxⱼ)·xᵢ.
    pub acc: Array2<f64>,
    /// Σᵢ exp(log wᵢⱼ − maxⱼ).
    pub sums: Vec<f64>,
    /// Σᵢ M_s(dᵢ·) (sample-weighted).
    pub objective: f64,
    /// The same at `s_ref` (0 when not asked).
    pub objective_ref: f64,
    /// Σᵢ (sample weight ×) the share of row i's weight outside its cluster.
    pub softness: f64,
    /// The block's labels, in row order (the in-memory pass returns them;
    /// a distributed driver needs only `counts`).
    pub labels: Vec<usize>,
    /// Rows per label.
    pub counts: Vec<u64>,
    pub rows: usize,
    /// Σ sample weights (`rows` without weights).
    pub weight: f64,
}

impl PowerStats {
    pub fn new(k: usize, p: usize, rows: usize) -> Self {
        PowerStats {
            max: vec![f64::NEG_INFINITY; k],
            acc: Array2::zeros((k, p)),
            sums: vec![0.0; k],
            objective: 0.0,
            objective_ref: 0.0,
            softness: 0.0,
            labels: Vec::with_capacity(rows),
            counts: vec![0; k],
            rows: 0,
            weight: 0.0,
        }
    }

    /// Adds one cache block of rows (`xb`, its first row being row `at` of
    /// `run.weights`), its temporaries in `scratch`; its weighted sums go
    /// to `acc` when given (a batch's stacked sums), else to `self.acc`.
    fn add(
        &mut self,
        xb: Block,
        at: usize,
        x_norms: &[f64],
        run: &PassArgs,
        scratch: &mut Scratch,
        acc: Option<ArrayViewMut2<f64>>,
    ) {
        let d = match xb {
            Block::F32(x, centred) => centred.sq_dists(x, run.centres),
            Block::F64(x, norms) => sq_dists_block(x, x_norms, run.centres, norms),
        };
        let (e, acc) = match acc {
            Some(mut acc) => (self.weigh(d, at, run, scratch, Some(acc.view_mut())), acc),
            None => (self.weigh(d, at, run, scratch, None), self.acc.view_mut()),
        };
        match xb {
            Block::F64(x, _) => gemm_seq(acc, e.t(), x, 1.0, true),
            Block::F32(x, _) => add_weighted_sums(acc, e.view(), x),
        }
    }

    /// The weights of a cache block from its distances `d` (its first row
    /// being row `at` of `run.weights`): everything but the product Wᵀ·X,
    /// whose factors it returns (n_b × k, rescaled to the running maxima).
    /// `acc`: where that product is summed, when not `self.acc` (a batch's
    /// stacked sums), rescaled here when a maximum rises.
    fn weigh(
        &mut self,
        d: Array2<f64>,
        at: usize,
        run: &PassArgs,
        scratch: &mut Scratch,
        acc: Option<ArrayViewMut2<f64>>,
    ) -> Array2<f64> {
        #[cfg(target_arch = "x86_64")]
        if crate::linalg::has_avx2() {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { self.weigh_avx2(d, at, run, scratch, acc) };
        }
        self.weigh_body(d, at, run, scratch, acc)
    }

    /// [`Self::weigh`] compiled for AVX2: its slice loops in four lanes.
    /// Rust never contracts a product and a sum into an FMA and the
    /// vectoriser keeps the order of every sum, so the bits are those of
    /// the baseline build.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn weigh_avx2(
        &mut self,
        d: Array2<f64>,
        at: usize,
        run: &PassArgs,
        scratch: &mut Scratch,
        acc: Option<ArrayViewMut2<f64>>,
    ) -> Array2<f64> {
        self.weigh_body(d, at, run, scratch, acc)
    }

    #[inline(always)]
    fn weigh_body(
        &mut self,
        d: Array2<f64>,
        at: usize,
        run: &PassArgs,
        scratch: &mut Scratch,
        acc: Option<ArrayViewMut2<f64>>,
    ) -> Array2<f64> {
        let (rows, k) = d.dim();
        let part = self;
        let mut acc = match acc {
            Some(a) => a,
            None => part.acc.view_mut(),
        };
        let w = run.weights.map(|w| &w[at..at + rows]);
        let step = block_weights_in(d.view(), run.s, run.s_ref, run.zero_tol, w, scratch);
        part.objective += step.objective;
        part.objective_ref += step.objective_ref;
        part.softness += step.softness;
        for &l in &step.labels {
            part.counts[l] += 1;
        }
        part.labels.extend_from_slice(&step.labels);
        part.rows += rows;
        part.weight += w.map_or(rows as f64, |w| w.iter().sum());
        // Rows of k entries (chunks of at least 1: k = 0 has no entries).
        let kc = k.max(1);
        // Raise the running maxima, rescaling what was summed so far. The
        // block's maxima are taken row by row: k independent chains rather
        // than one strided chain per column.
        let mut block_max = vec![f64::NEG_INFINITY; k];
        let lw = step.log_w.as_slice().expect("standard layout");
        for row in lw.chunks_exact(kc) {
            for (m, &v) in block_max.iter_mut().zip(row) {
                *m = m.max(v);
            }
        }
        for (j, &m) in block_max.iter().enumerate() {
            if m > part.max[j] {
                if part.max[j] > f64::NEG_INFINITY {
                    let r = (part.max[j] - m).exp();
                    acc.row_mut(j).mapv_inplace(|v| v * r);
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
        // Usually every column takes the factored form: its factors alone.
        let factors: Option<Vec<f64>> = col.iter().copied().collect();
        let mut e = step.log_w;
        let es = e.as_slice_mut().expect("standard layout");
        let us = step.u.as_slice().expect("standard layout");
        let (max, sums) = (&part.max, &mut part.sums);
        for ((row, ur), &ci) in es
            .chunks_exact_mut(kc)
            .zip(us.chunks_exact(kc))
            .zip(&step.c)
        {
            if ci.is_nan() {
                // The log domain (a point on a centre, or s = −∞).
                for ((v, &m), sj) in row.iter_mut().zip(max).zip(sums.iter_mut()) {
                    *v = if m > f64::NEG_INFINITY {
                        (*v - m).exp()
                    } else {
                        0.0
                    };
                    *sj += *v;
                }
                continue;
            }
            let a = if ci == f64::NEG_INFINITY {
                // A row of sample weight 0 (c* may be −∞ too).
                0.0
            } else {
                (ci - c_star).exp()
            };
            match &factors {
                Some(b) => {
                    // Two simple loops rather than one four-way zip: both
                    // vectorise.
                    for ((v, &bj), &uj) in row.iter_mut().zip(b).zip(ur) {
                        *v = a * bj * uj;
                    }
                    for (sj, &v) in sums.iter_mut().zip(row.iter()) {
                        *sj += v;
                    }
                }
                None => {
                    let cols = row.iter_mut().zip(&col).zip(max).zip(ur);
                    for ((((v, bj), &m), &uj), sj) in cols.zip(sums.iter_mut()) {
                        *v = match *bj {
                            Some(b) => a * b * uj,
                            None if m > f64::NEG_INFINITY => (*v - m).exp(),
                            None => 0.0,
                        };
                        *sj += *v;
                    }
                }
            }
        }
        e
    }

    /// The statistics of consecutive blocks merged in the order given:
    /// every block is rescaled to the overall maxima once, then the sums
    /// are added in order (the in-memory pass's reduction of its tasks).
    /// `parts` must be non-empty and share k and p.
    pub fn merge(parts: Vec<PowerStats>) -> PowerStats {
        let (k, p) = parts.first().map_or((0, 0), |s| s.acc.dim());
        let mut max = vec![f64::NEG_INFINITY; k];
        for part in &parts {
            for j in 0..k {
                max[j] = max[j].max(part.max[j]);
            }
        }
        let rows = parts.iter().map(|s| s.rows).sum();
        let mut out = PowerStats::new(k, p, rows);
        for part in parts {
            for j in 0..k {
                if part.max[j] > f64::NEG_INFINITY {
                    let r = (part.max[j] - max[j]).exp();
                    out.acc.row_mut(j).scaled_add(r, &part.acc.row(j));
                    out.sums[j] += r * part.sums[j];
                }
                out.counts[j] += part.counts[j];
            }
            out.objective += part.objective;
            out.objective_ref += part.objective_ref;
            out.softness += part.softness;
            out.labels.extend(part.labels);
            out.rows += part.rows;
            out.weight += part.weight;
        }
        out.max = max;
        out
    }

    /// The MM update from the statistics of every row: centres whose
    /// weights are all zero (or −∞) keep their place. `s_ref`: whether the
    /// objective at s_ref was asked for; `denominator`: what the softness
    /// sum is divided by (n, or Σ sample weights).
    pub fn finish(self, centres: ArrayView2<f64>, s_ref: bool, denominator: f64) -> PowerPass {
        let mut next = centres.to_owned();
        for j in 0..centres.nrows() {
            if self.max[j] > f64::NEG_INFINITY && self.sums[j] > 0.0 {
                let inv = 1.0 / self.sums[j];
                next.row_mut(j).assign(&self.acc.row(j).mapv(|v| v * inv));
            }
        }
        PowerPass {
            objective: self.objective,
            objective_ref: s_ref.then_some(self.objective_ref),
            labels: self.labels,
            softness: self.softness / denominator,
            next,
        }
    }

    /// The softness denominator of merged statistics: Σ sample weights
    /// (n without weights), 1 for no rows.
    pub fn denominator(&self) -> f64 {
        if self.rows == 0 { 1.0 } else { self.weight }
    }
}

/// A cache block of rows as one run's products read it, with that run's
/// centres in the matching form.
#[derive(Clone, Copy)]
enum Block<'b> {
    /// f64 rows (or f32 rows widened) and the centres' squared norms.
    F64(ArrayView2<'b, f64>, &'b [f64]),
    /// f32 rows and the centres about their mean.
    F32(ArrayView2<'b, f32>, &'b Centred),
}

/// A run's centres as its products read them, made once per iteration:
/// their squared norms for the f64 products, or their spread about their
/// mean in f32 for f32 rows ([`super::f32_products`]).
///
/// f32 rows still take the f64 products (each block widened) while two
/// centres are merged, closer than √([`MERGED`] · zero_tol): there the run
/// sits at the f64 rounding floor and parts again from it (usps at s₀ = −1
/// holds its centres within 1e-15 of each other for 200 iterations), so
/// any other arithmetic parts them otherwise; with exact f32 products
/// about the mean they never part. Once apart, the run's course no longer
/// depends on rounding.
enum RunCentres {
    /// The centres' squared norms, for the f64 products.
    Norms(Vec<f64>),
    /// The centres about their mean, for the f32 products.
    Centred(Centred),
}

/// See [`RunCentres`]: with zero_tol = 1e-12·max‖x‖², centres count as
/// merged below a squared distance of 1e-6·max‖x‖².
const MERGED: f64 = 1e6;

impl RunCentres {
    fn new(run: &PassArgs, x: &Rows) -> Self {
        let apart = || min_sq_separation(run.centres) >= MERGED * run.zero_tol;
        if matches!(x, Rows::F32(_)) && apart() {
            RunCentres::Centred(Centred::new(run.centres))
        } else {
            RunCentres::Norms(crate::linalg::row_sq_norms(run.centres))
        }
    }
}

/// The smallest squared distance between two centres (∞ for one centre).
fn min_sq_separation(c: ArrayView2<f64>) -> f64 {
    let mut min = f64::INFINITY;
    for a in 0..c.nrows() {
        for b in 0..a {
            let d: f64 = c
                .row(a)
                .iter()
                .zip(c.row(b))
                .map(|(u, v)| (u - v) * (u - v))
                .sum();
            min = min.min(d);
        }
    }
    min
}

/// The runs of a batch whose products are f64 ([`RunCentres::Norms`]),
/// when there are at least two: their centres stacked (Σk × p), so that a
/// cache block's distances to all of them are one product, and so are
/// their weighted sums, at a better rate than thin products.
///
/// Bits: faer sends a product with one row or column to its matrix-vector
/// code, one of depth 1 to a rank update and one of at most 16³
/// multiply-adds to nano-gemm; anything larger goes to its GEMM kernel,
/// which gives every entry the same bits whatever the product's width
/// (`stacked_products_have_the_thin_bits`). A block is stacked only when
/// every run's thin products would take that kernel ([`Stack::together`]),
/// so each run computes exactly what it computes alone.
struct Stack {
    /// (run, first column, k) of each stacked run.
    runs: Vec<(usize, usize, usize)>,
    centres: Array2<f64>,
}

/// faer's nano-gemm threshold (m·n·k at most 16³: `faer::linalg::matmul`).
const NANO_GEMM_MNK: usize = 16 * 16 * 16;

impl Stack {
    fn new(runs: &[PassArgs], centres: &[RunCentres]) -> Option<Stack> {
        let mut stacked = Vec::new();
        let mut off = 0;
        for (r, (run, c)) in runs.iter().zip(centres).enumerate() {
            let k = run.centres.nrows();
            if matches!(c, RunCentres::Norms(_)) && k >= 2 {
                stacked.push((r, off, k));
                off += k;
            }
        }
        if stacked.len() < 2 {
            return None;
        }
        let views: Vec<ArrayView2<f64>> =
            stacked.iter().map(|&(r, _, _)| runs[r].centres).collect();
        let centres = ndarray::concatenate(ndarray::Axis(0), &views).expect("runs share p");
        (centres.ncols() >= 2).then_some(Stack {
            runs: stacked,
            centres,
        })
    }

    /// Whether a block of `rows` rows takes the stacked products: every
    /// run's thin products (rows × k × p) would take faer's GEMM kernel.
    fn together(&self, rows: usize) -> bool {
        rows >= 2
            && self
                .runs
                .iter()
                .all(|&(_, _, k)| rows * k * self.centres.ncols() > NANO_GEMM_MNK)
    }

    fn is_stacked(&self, r: usize) -> bool {
        self.runs.iter().any(|&(q, _, _)| q == r)
    }
}

/// One task's rows for every run of a batch: each cache block is read
/// once and serves every run while it is hot. Each run's arithmetic is
/// exactly that of a batch of one (the runs share nothing but the rows).
fn task(
    x: Rows,
    at: usize,
    x_norms: &[f64],
    runs: &[PassArgs],
    centres: &[RunCentres],
    stack: Option<&Stack>,
) -> Vec<PowerStats> {
    let p = x.ncols();
    let mut parts: Vec<PowerStats> = runs
        .iter()
        .map(|r| PowerStats::new(r.centres.nrows(), p, x.nrows()))
        .collect();
    let widen =
        matches!(x, Rows::F32(_)) && centres.iter().any(|c| matches!(c, RunCentres::Norms(_)));
    let mut buf = Vec::new();
    let mut scratch = Scratch::default();
    // The stacked runs' weighted sums, copied to their parts at the end.
    let mut acc_all = stack.map(|st| Array2::zeros((st.centres.nrows(), p)));
    let mut lo = 0;
    while lo < x.nrows() {
        let hi = (lo + BLOCK_ROWS).min(x.nrows());
        let wide = widen.then(|| x.block_in(lo, hi, &mut buf));
        if let (Some(st), Some(acc_all)) = (stack, acc_all.as_mut()) {
            let xb = match x {
                Rows::F64(x) => x.slice_move(s![lo..hi, ..]),
                Rows::F32(_) => wide.expect("widened when a run needs it"),
            };
            stacked_block(
                xb,
                at + lo,
                &x_norms[lo..hi],
                runs,
                centres,
                st,
                &mut parts,
                acc_all,
                &mut scratch,
            );
        }
        for (r, ((part, run), c)) in parts.iter_mut().zip(runs).zip(centres).enumerate() {
            if stack.is_some_and(|st| st.is_stacked(r)) {
                continue;
            }
            let xb = match (x, c) {
                (Rows::F32(x), RunCentres::Centred(c)) => {
                    Block::F32(x.slice_move(s![lo..hi, ..]), c)
                }
                (Rows::F64(x), RunCentres::Norms(n)) => Block::F64(x.slice_move(s![lo..hi, ..]), n),
                (Rows::F32(_), RunCentres::Norms(n)) => {
                    Block::F64(wide.expect("widened when a run needs it"), n)
                }
                (Rows::F64(_), RunCentres::Centred(_)) => {
                    unreachable!("centred centres are made for f32 rows only")
                }
            };
            part.add(xb, at + lo, &x_norms[lo..hi], run, &mut scratch, None);
        }
        lo = hi;
    }
    if let (Some(st), Some(acc_all)) = (stack, acc_all) {
        for &(r, off, k) in &st.runs {
            parts[r].acc.assign(&acc_all.slice(s![off..off + k, ..]));
        }
    }
    parts
}

/// One cache block `xb` for every stacked run: one distance product, each
/// run's weights, one product of the weights with the rows.
#[allow(clippy::too_many_arguments)]
fn stacked_block(
    xb: ArrayView2<f64>,
    at: usize,
    x_norms: &[f64],
    runs: &[PassArgs],
    centres: &[RunCentres],
    st: &Stack,
    parts: &mut [PowerStats],
    acc_all: &mut Array2<f64>,
    scratch: &mut Scratch,
) {
    let rows = xb.nrows();
    let width = st.centres.nrows();
    if !st.together(rows) {
        // Thin products, run by run, into the stacked sums.
        for &(r, off, k) in &st.runs {
            let RunCentres::Norms(c_norms) = &centres[r] else {
                unreachable!("stacked runs take f64 products")
            };
            let acc = acc_all.slice_mut(s![off..off + k, ..]);
            let xb = Block::F64(xb, c_norms);
            parts[r].add(xb, at, x_norms, &runs[r], scratch, Some(acc));
        }
        return;
    }
    let mut d_all = Array2::zeros((rows, width));
    gemm_seq(d_all.view_mut(), xb, st.centres.t(), -2.0, false);
    let mut e_all = Array2::zeros((rows, width));
    for &(r, off, k) in &st.runs {
        let RunCentres::Norms(c_norms) = &centres[r] else {
            unreachable!("stacked runs take f64 products")
        };
        let d = finish_sq_dists(d_all.slice(s![.., off..off + k]), x_norms, c_norms);
        let acc = acc_all.slice_mut(s![off..off + k, ..]);
        let e = parts[r].weigh(d, at, &runs[r], scratch, Some(acc));
        e_all.slice_mut(s![.., off..off + k]).assign(&e);
    }
    gemm_seq(acc_all.view_mut(), e_all.t(), xb, 1.0, true);
}

/// Every run's statistics over the rows of `x` (`x_norms` their squared
/// norms, `run.weights` one per row of `x`): fixed tasks of
/// [`TASK_ROWS`] rows in parallel, merged in task order.
pub fn power_stats_batch(x: Rows, x_norms: &[f64], runs: &[PassArgs]) -> Vec<PowerStats> {
    power_stats_with(x, Some(x_norms), runs)
}

/// [`power_stats_batch`], the norms taken per task when not given: one
/// read of a block's rows from memory instead of two.
fn power_stats_with(x: Rows, x_norms: Option<&[f64]>, runs: &[PassArgs]) -> Vec<PowerStats> {
    let n = x.nrows();
    let centres: Vec<RunCentres> = runs.iter().map(|r| RunCentres::new(r, &x)).collect();
    let stack = Stack::new(runs, &centres);
    let tasks: Vec<Vec<PowerStats>> = fold_blocks(
        n,
        TASK_ROWS,
        |rows| {
            let (lo, hi) = (rows.start, rows.end);
            let rows = x.slice(lo, hi);
            let own;
            let norms = match x_norms {
                Some(all) => &all[lo..hi],
                None => {
                    own = rows.sq_norms();
                    &own[..]
                }
            };
            task(rows, lo, norms, runs, &centres, stack.as_ref())
        },
        Vec::with_capacity(n.div_ceil(TASK_ROWS)),
        |mut all, parts| {
            all.push(parts);
            all
        },
    );
    let mut per_run: Vec<Vec<PowerStats>> = runs
        .iter()
        .map(|_| Vec::with_capacity(tasks.len().max(1)))
        .collect();
    for parts in tasks {
        for (r, part) in parts.into_iter().enumerate() {
            per_run[r].push(part);
        }
    }
    per_run
        .into_iter()
        .zip(runs)
        .map(|(parts, run)| {
            if parts.is_empty() {
                PowerStats::new(run.centres.nrows(), x.ncols(), 0)
            } else {
                PowerStats::merge(parts)
            }
        })
        .collect()
}

/// The power-mean statistics of one block of rows (its own sample
/// weights in `run.weights`, or None), computed as the in-memory pass
/// computes them.
pub fn power_block(x: Rows, run: &PassArgs) -> PowerStats {
    power_stats_with(x, None, std::slice::from_ref(run))
        .pop()
        .expect("one run")
}

/// A block's share of one Lloyd iteration (`kmeans`).
#[derive(Debug, Clone, PartialEq)]
pub struct LloydStats {
    /// k × p: per cluster, Σ (sample weight ×) row.
    pub sums: Array2<f64>,
    /// Per cluster, Σ sample weights (the counts without weights).
    pub totals: Vec<f64>,
    /// Σ (sample weight ×) squared distance to the nearest centre.
    pub inertia: f64,
    /// Rows per label.
    pub counts: Vec<u64>,
    /// Rows whose nearest centre differs from the one at the previous
    /// centres (when given).
    pub changed: u64,
    pub rows: usize,
    /// The rows farthest from their centre (weight > 0), farthest first,
    /// ties by the lower row index: where empty clusters move to.
    pub far: Vec<Far>,
}

impl LloydStats {
    /// Consecutive blocks' statistics merged in order; `far` keeps the
    /// `keep` farthest rows overall. `parts` must be non-empty.
    pub fn merge(parts: Vec<LloydStats>, keep: usize) -> LloydStats {
        let mut it = parts.into_iter();
        let mut out = it.next().expect("at least one block");
        for part in it {
            out.sums += &part.sums;
            for (a, b) in out.totals.iter_mut().zip(&part.totals) {
                *a += b;
            }
            for (a, b) in out.counts.iter_mut().zip(&part.counts) {
                *a += b;
            }
            out.inertia += part.inertia;
            out.changed += part.changed;
            out.rows += part.rows;
            out.far.extend(part.far);
        }
        out.far.sort_by(Far::order);
        out.far.truncate(keep);
        out
    }

    /// The next centres (empty clusters moved to the farthest rows as
    /// in-memory Lloyd moves them, then the means) and the squared shift
    /// from `centres`.
    pub fn next_centres(&self, centres: ArrayView2<f64>) -> (Array2<f64>, f64) {
        let mut next = self.sums.clone();
        let mut totals = self.totals.clone();
        relocate(&self.far, &mut next, &mut totals);
        average(&mut next, &totals);
        let diff = &next - &centres;
        (next, diff.mapv(|v| v * v).sum())
    }
}

/// What a block's rows were assigned to at the previous iteration, to
/// count the rows that changed cluster (Lloyd's settling test).
#[derive(Clone, Copy)]
pub enum Previous<'a> {
    /// The first iteration: every row counts as changed.
    Nothing,
    /// The previous centres: the block is assigned to them again.
    Centres(ArrayView2<'a, f64>),
    /// The block's labels of the previous iteration (kept by the caller).
    Labels(&'a [usize]),
}

/// The Lloyd statistics of one block of rows at `centres` (Lloyd's full
/// pass over the block) and its labels: `w` the block's sample weights,
/// `prev` what the rows were assigned to before, `offset` the global
/// index of the block's first row, `keep` how many of the farthest rows
/// to report (k is enough).
pub fn lloyd_block(
    x: Rows,
    w: Option<&[f64]>,
    centres: ArrayView2<f64>,
    prev: Previous,
    offset: usize,
    keep: usize,
) -> (LloydStats, Vec<usize>) {
    // Two passes share the norms; one takes them block by block.
    let norms = matches!(prev, Previous::Centres(_)).then(|| x.sq_norms());
    let k = centres.nrows();
    let c = Centres::new(centres, &x);
    let pass = full_pass(x, norms.as_deref(), w, &c, false, true);
    let changed = match prev {
        Previous::Centres(pc) => {
            let pc = Centres::new(pc, &x);
            changed_rows(
                &full_pass(x, norms.as_deref(), w, &pc, false, false).labels,
                &pass.labels,
            )
        }
        Previous::Labels(l) if l.len() == x.nrows() => changed_rows(l, &pass.labels),
        _ => x.nrows() as u64,
    };
    let stats = pass_stats(x, w, &pass, k, changed, offset, keep);
    (stats, pass.labels)
}

/// How many rows of a block each of the `k` clusters holds.
fn label_counts(labels: &[usize], k: usize) -> Vec<u64> {
    let mut counts = vec![0u64; k];
    for &l in labels {
        counts[l] += 1;
    }
    counts
}

/// How many rows of a block have another label in `after` than in `before`.
fn changed_rows(before: &[usize], after: &[usize]) -> u64 {
    before.iter().zip(after).filter(|(a, b)| a != b).count() as u64
}

/// The Lloyd statistics of a block from a full pass over it (`k`
/// clusters), `changed` rows and the `keep` farthest rows.
fn pass_stats(
    x: Rows,
    w: Option<&[f64]>,
    pass: &Pass,
    k: usize,
    changed: u64,
    offset: usize,
    keep: usize,
) -> LloydStats {
    LloydStats {
        inertia: weighted_sum(&pass.dists, w),
        sums: pass.sums.clone(),
        totals: pass.totals.clone(),
        counts: label_counts(&pass.labels, k),
        changed,
        rows: x.nrows(),
        far: far_rows(x, w, &pass.dists, &pass.labels, offset, keep),
    }
}

/// What a block keeps between two iterations of bounded Lloyd
/// ([`lloyd_block_bounded`]): the Hamerly bounds of its rows, their
/// labels and squared norms, the centres the labels were assigned at, the
/// per-cluster sums and totals at those labels, and Σ w‖x‖². 32 bytes per
/// row (bounds 16, label 8, norm 8) and O(k·p).
#[derive(Debug, Clone)]
pub struct BlockState {
    bounds: Bounds,
    labels: Vec<usize>,
    /// Shared between the states of successive iterations (never change).
    norms: Arc<[f64]>,
    centres: Array2<f64>,
    sums: Array2<f64>,
    totals: Vec<f64>,
    /// Σ (sample weight ×) squared row norm.
    xx: f64,
}

/// The first bytes of [`BlockState::to_bytes`].
const STATE_MAGIC: &[u8; 8] = b"MSLBS001";

impl BlockState {
    /// Rows of the block it was made for.
    pub fn rows(&self) -> usize {
        self.labels.len()
    }

    /// The labels at the centres of the iteration that made it.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The state as bytes (little-endian), for a scheduler that moves it
    /// between processes; [`BlockState::from_bytes`] reads it back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (n, (k, p)) = (self.labels.len(), self.centres.dim());
        let (upper, lower, gamma) = self.bounds.parts();
        let mut out = Vec::with_capacity(8 * (6 + 4 * n + k * (2 * p + 1)));
        out.extend_from_slice(STATE_MAGIC);
        for v in [n, k, p] {
            out.extend_from_slice(&(v as u64).to_le_bytes());
        }
        let mut put = |vs: &mut dyn Iterator<Item = f64>| {
            for v in vs {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
        put(&mut [gamma, self.xx].into_iter());
        put(&mut upper.iter().copied());
        put(&mut lower.iter().copied());
        put(&mut self.norms.iter().copied());
        put(&mut self.centres.iter().copied());
        put(&mut self.sums.iter().copied());
        put(&mut self.totals.iter().copied());
        for &l in &self.labels {
            out.extend_from_slice(&(l as u64).to_le_bytes());
        }
        out
    }

    /// A state from [`BlockState::to_bytes`].
    ///
    /// # Errors
    /// A [`Error::Model`] when the bytes are not such a state.
    pub fn from_bytes(b: &[u8]) -> Result<BlockState> {
        let bad = || Error::Model("not a bounded Lloyd block state".into());
        if b.len() < 32 || &b[..8] != STATE_MAGIC {
            return Err(bad());
        }
        let word = |i: usize| -> [u8; 8] { b[8 * i..8 * i + 8].try_into().expect("8 bytes") };
        let dim = |i: usize| usize::try_from(u64::from_le_bytes(word(i))).map_err(|_| bad());
        let (n, k, p) = (dim(1)?, dim(2)?, dim(3)?);
        let words = n
            .checked_mul(4)
            .and_then(|a| k.checked_mul(2 * p + 1).and_then(|b| a.checked_add(b)))
            .and_then(|a| a.checked_add(6))
            .ok_or_else(bad)?;
        if k == 0 || b.len() != words.checked_mul(8).ok_or_else(bad)? {
            return Err(bad());
        }
        let mut at = 4;
        let mut take = |m: usize| -> Vec<f64> {
            let v = (at..at + m).map(|i| f64::from_le_bytes(word(i))).collect();
            at += m;
            v
        };
        let head = take(2);
        let upper = take(n);
        let lower = take(n);
        let norms = take(n);
        let centres = Array2::from_shape_vec((k, p), take(k * p)).map_err(|_| bad())?;
        let sums = Array2::from_shape_vec((k, p), take(k * p)).map_err(|_| bad())?;
        let totals = take(k);
        let labels = (at..at + n)
            .map(|i| {
                usize::try_from(u64::from_le_bytes(word(i)))
                    .ok()
                    .filter(|&l| l < k)
                    .ok_or_else(bad)
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok(BlockState {
            bounds: Bounds::from_parts(upper, lower, head[0]),
            labels,
            norms: norms.into(),
            centres,
            sums,
            totals,
            xx: head[1],
        })
    }
}

/// [`lloyd_block`] with bounds: the block's Lloyd statistics at `centres`
/// and the state the next iteration starts from. Without a `state`, or
/// with `exact`, every distance is computed (with the second nearest, to
/// start the bounds): the statistics are [`lloyd_block`]'s, `keep` far
/// rows included, and `changed` counts against the state's labels (every
/// row without one). Otherwise the state's bounds are loosened by how far
/// each centre moved since and only the rows they cannot settle are
/// recomputed: the labels are the full pass's, bit for bit; the sums are
/// moved by the rows that changed (recomputed when weighted, so that an
/// empty cluster's total is exactly 0, as in-memory Lloyd does), the
/// inertia comes from the sums, and no far rows are reported (a caller
/// that finds an empty cluster runs the iteration again with `exact`).
/// The input state is left as it is: a re-run gives the same result.
///
/// # Errors
/// A [`Error::Model`] when `state` was made for another shape of block or
/// of centres.
pub fn lloyd_block_bounded(
    x: Rows,
    w: Option<&[f64]>,
    centres: ArrayView2<f64>,
    state: Option<&BlockState>,
    exact: bool,
    offset: usize,
    keep: usize,
) -> Result<(LloydStats, BlockState)> {
    let (n, k) = (x.nrows(), centres.nrows());
    if let Some(st) = state
        && (st.labels.len() != n || st.centres.dim() != centres.dim())
    {
        return Err(Error::Model(format!(
            "a block state of {} rows and {:?} centres for a block of {n} rows and {:?} centres",
            st.labels.len(),
            st.centres.dim(),
            centres.dim()
        )));
    }
    let c = Centres::new(centres, &x);
    match state {
        Some(st) if !exact => {
            let mut bounds = st.bounds.clone();
            bounds.moved((&centres - &st.centres).view());
            let labels = bounds.assign(x, &st.norms, &c, &st.labels);
            let changed = changed_rows(&st.labels, &labels);
            let (mut sums, mut totals) = (st.sums.clone(), st.totals.clone());
            if changed > 0 {
                if w.is_some() {
                    (sums, totals) = weighted_cluster_sums(x, w, &labels, k);
                } else {
                    move_rows(x, None, &st.labels, &labels, &mut sums, &mut totals);
                }
            }
            let stats = LloydStats {
                inertia: sums_inertia(st.xx, &c, &sums, &totals),
                sums: sums.clone(),
                totals: totals.clone(),
                counts: label_counts(&labels, k),
                changed,
                rows: n,
                far: Vec::new(),
            };
            let next = BlockState {
                bounds,
                labels,
                norms: Arc::clone(&st.norms),
                centres: centres.to_owned(),
                sums,
                totals,
                xx: st.xx,
            };
            Ok((stats, next))
        }
        _ => {
            let norms: Arc<[f64]> = match state {
                Some(st) => Arc::clone(&st.norms),
                None => x.sq_norms().into(),
            };
            let pass = full_pass(x, Some(&norms), w, &c, true, true);
            let changed = state.map_or(n as u64, |st| changed_rows(&st.labels, &pass.labels));
            let mut bounds = Bounds::default();
            bounds.start(x, &pass, &norms, &c);
            let stats = pass_stats(x, w, &pass, k, changed, offset, keep);
            let next = BlockState {
                bounds,
                xx: weighted_sum(&norms, w),
                labels: pass.labels,
                norms,
                centres: centres.to_owned(),
                sums: pass.sums,
                totals: pass.totals,
            };
            Ok((stats, next))
        }
    }
}

/// The `keep` rows of a block farthest from their centre (`dists`, to
/// the centre of `labels`), among the rows of weight > 0, farthest first
/// (ties: the lower index), with their values; `offset` is the global
/// index of the block's first row.
pub fn far_rows(
    x: Rows,
    w: Option<&[f64]>,
    dists: &[f64],
    labels: &[usize],
    offset: usize,
    keep: usize,
) -> Vec<Far> {
    let weight = |i: usize| w.map_or(1.0, |w| w[i]);
    // One scan keeping the `keep` farthest so far, farthest first (Far's
    // order): rows come by rising index, so a row that ties the last kept
    // never displaces it, and most rows cost one comparison.
    let mut idx: Vec<usize> = Vec::with_capacity(keep.min(x.nrows()) + 1);
    if keep > 0 {
        for (i, &d) in dists.iter().enumerate() {
            let counted = weight(i) > 0.0;
            if !counted || (idx.len() == keep && d.total_cmp(&dists[idx[keep - 1]]).is_le()) {
                continue;
            }
            let at = idx.partition_point(|&j| dists[j].total_cmp(&d).is_ge());
            idx.insert(at, i);
            idx.truncate(keep);
        }
    }
    let far_of = |i: usize| Far {
        dist: dists[i],
        index: offset + i,
        label: labels[i],
        weight: weight(i),
        row: Vec::new(),
    };
    idx.into_iter()
        .map(|i| Far {
            row: x.select(&[i]).row(0).to_vec(),
            ..far_of(i)
        })
        .collect()
}

/// The nearest centre of every row of a block, as Lloyd's pass assigns
/// it (lowest index on ties): a distributed `predict`.
pub fn nearest(x: Rows, centres: ArrayView2<f64>) -> Vec<usize> {
    let c = Centres::new(centres, &x);
    full_pass(x, None, None, &c, false, false).labels
}

/// The engine's iteration loop driven from outside: each iteration the
/// caller asks [`Driver::iteration`] which s (and s_ref) to evaluate, merges
/// the blocks' statistics, and [`Driver::record`]s what they give. The
/// rule (annealing schedule, period check, hardness condition, Lloyd's
/// settling test, `max_iter`) is [`LoopState`]'s, the one every in-memory
/// run uses.
pub struct Driver {
    state: LoopState,
    m: usize,
    k: usize,
    ctx: Ctx,
    stop: Option<Stop>,
}

/// The driver's stand-in for a step that owns the rows: the caller moves
/// the centres itself; the rule reads only the softness.
struct Given {
    softness: f64,
}

impl Step for Given {
    fn eval(&mut self, _it: Iteration) -> Result<Eval> {
        Err(Error::Model(
            "a driven loop is evaluated by its caller".into(),
        ))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        Ok(())
    }

    fn softness(&self) -> f64 {
        self.softness
    }
}

impl Driver {
    /// Power k-means' rule (`power`, `khm`): the schedule, the period
    /// check at `tol`, the hardness condition at `soft_tol` (1: off). The
    /// annealing's Lloyd finish (`finish`) is not offered.
    pub fn power(schedule: Schedule, tol: f64, soft_tol: f64, max_iter: usize, k: usize) -> Self {
        Self::with(
            Rule::PowerMean {
                schedule,
                tol,
                soft_tol,
                finish: Finish::Off,
            },
            max_iter,
            k,
        )
    }

    /// Lloyd's rule (`kmeans`): stop when the caller says it settled.
    pub fn lloyd(max_iter: usize, k: usize) -> Self {
        Self::with(Rule::Step, max_iter, k)
    }

    fn with(rule: Rule, max_iter: usize, k: usize) -> Self {
        let how = Loop {
            rule,
            max_iter,
            k,
            events: false,
        };
        let ctx = Ctx::new();
        Driver {
            state: LoopState::new(how, &ctx),
            m: 1,
            k,
            ctx,
            stop: if max_iter == 0 { Some(Stop::Cap) } else { None },
        }
    }

    /// The next iteration (1-based), its s and the earlier s its objective
    /// must also be evaluated at; None once the loop has stopped.
    pub fn iteration(&self) -> Option<(usize, Option<f64>, Option<f64>)> {
        if self.stop.is_some() {
            return None;
        }
        let it = self.state.iteration(self.m);
        Some((self.m, it.s, it.s_ref))
    }

    /// Records the current iteration: its objective (and at s_ref when
    /// asked), the rows per cluster, the softness (power) or whether it
    /// settled (Lloyd). Some(why) when the loop stops here (then the
    /// centres just evaluated are the result; else the caller moves on).
    ///
    /// # Errors
    /// A [`Error::Model`] when called after the loop stopped or with
    /// `counts` of the wrong length.
    pub fn record(
        &mut self,
        objective: f64,
        objective_ref: Option<f64>,
        counts: &[u64],
        softness: f64,
        settled: bool,
    ) -> Result<Option<Stop>> {
        if self.stop.is_some() {
            return Err(Error::Model("the loop has already stopped".into()));
        }
        if counts.len() != self.k {
            return Err(Error::Model(format!(
                "{} cluster counts for k = {}",
                counts.len(),
                self.k
            )));
        }
        // The rule reads labels only for which clusters have a row.
        let occupied: Vec<usize> = (0..self.k).filter(|&j| counts[j] > 0).collect();
        let ev = Eval {
            objective,
            objective_ref,
            labels: occupied,
            settled,
        };
        let mut step = Given { softness };
        let stop = self.state.record(self.m, ev, &mut step, &self.ctx)?;
        self.m += 1;
        self.stop = stop;
        Ok(stop)
    }

    /// The iterations so far: count, objective and s per iteration, and
    /// whether the rule's test (not the cap) stopped the loop.
    pub fn finish(self) -> Fit {
        self.state.finish().0
    }
}

/// Σᵢ wᵢ‖xᵢ − c_{labels[i]}‖² (wᵢ = 1 without weights): the k-means cost
/// of given labels, summed directly (no ‖x‖² − 2x·c + ‖c‖² cancellation)
/// over fixed tasks added in order, so the same value for any thread count.
pub fn labelled_cost(
    x: Rows,
    centres: ArrayView2<f64>,
    labels: &[usize],
    w: Option<&[f64]>,
) -> Result<f64> {
    let (n, p) = (x.nrows(), x.ncols());
    let k = centres.nrows();
    if labels.len() != n || w.is_some_and(|w| w.len() != n) || centres.ncols() != p {
        return Err(Error::Model(format!(
            "{n} rows of {p} features, {} labels, {} weights and centres of shape {:?} do not match",
            labels.len(),
            w.map_or(n, <[f64]>::len),
            centres.dim()
        )));
    }
    if let Some(&bad) = labels.iter().find(|&&l| l >= k) {
        return Err(Error::Model(format!(
            "label {bad} is not one of the {k} centres"
        )));
    }
    let c = centres.as_standard_layout();
    let cs = c.as_slice().expect("standard layout");
    let cost = fold_blocks(
        n,
        4096,
        |rows| {
            let mut sum = 0.0;
            for i in rows {
                let ci = &cs[labels[i] * p..(labels[i] + 1) * p];
                let d: f64 = match x {
                    Rows::F64(x) => x
                        .row(i)
                        .iter()
                        .zip(ci)
                        .map(|(&v, &m)| (v - m) * (v - m))
                        .sum(),
                    Rows::F32(x) => x
                        .row(i)
                        .iter()
                        .zip(ci)
                        .map(|(&v, &m)| (f64::from(v) - m) * (f64::from(v) - m))
                        .sum(),
                };
                sum += d * weight(w, i);
            }
            sum
        },
        0.0,
        |a, b| a + b,
    );
    Ok(cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, s};

    fn data(n: usize, p: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, p), |(i, j)| {
            ((i * 7 + j * 13) % 17) as f64 * 0.37
                + (i % 3) as f64 * 5.0
                + ((i * j) % 5) as f64 * 0.01
        })
    }

    /// Every number of a block's statistics, as bits (labels included).
    fn stats_bits(st: &PowerStats) -> Vec<u64> {
        let mut v: Vec<u64> = st.max.iter().map(|x| x.to_bits()).collect();
        v.extend(st.acc.iter().map(|x| x.to_bits()));
        v.extend(st.sums.iter().map(|x| x.to_bits()));
        v.extend([st.objective, st.objective_ref, st.softness, st.weight].map(f64::to_bits));
        v.extend(st.labels.iter().map(|&l| l as u64));
        v
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    /// One power pass of `x` (as f64 and as f32) from `c`.
    fn pass_of(x: &Array2<f64>, c: &Array2<f64>, f32_rows: bool) -> PowerPass {
        let x32 = x.mapv(|v| v as f32);
        let rows = if f32_rows {
            Rows::F32(x32.view())
        } else {
            // The f32 values widened: the same rows the f32 run reads.
            Rows::F64(x.view())
        };
        let norms = rows.sq_norms();
        let run = PassArgs {
            centres: c.view(),
            s: -3.0,
            s_ref: None,
            zero_tol: zero_tolerance(&norms),
            weights: None,
        };
        let n = x.nrows() as f64;
        let stats = power_stats_batch(rows, &norms, &[run]).pop().unwrap();
        stats.finish(c.view(), false, n)
    }

    #[test]
    fn f32_rows_take_f32_products_once_centres_are_apart() {
        let x = data(3000, 9).mapv(|v| f64::from((v + 100.0) as f32));
        let apart = x.slice(s![0..4, ..]).to_owned();
        let (a, b) = (pass_of(&x, &apart, true), pass_of(&x, &apart, false));
        assert_eq!(a.labels, b.labels);
        assert!(
            (a.objective - b.objective).abs() <= 1e-5 * b.objective,
            "{} vs {}",
            a.objective,
            b.objective
        );
        for (u, v) in a.next.iter().zip(&b.next) {
            assert!((u - v).abs() <= 1e-5 * v.abs(), "{u} vs {v}");
        }
        assert_ne!(a.objective, b.objective, "the f32 products were not used");
        // Two centres 1e-9 apart are merged: the f32 rows then take the
        // f64 products, to the bit (the run parts from f64 rounding).
        let mut merged = apart.clone();
        merged[[1, 0]] = merged[[0, 0]] + 1e-9;
        for j in 1..9 {
            merged[[1, j]] = merged[[0, j]];
        }
        let (a, b) = (pass_of(&x, &merged, true), pass_of(&x, &merged, false));
        assert_eq!(a.objective, b.objective);
        assert_eq!(a.next, b.next);
    }

    #[test]
    fn the_avx2_build_of_a_block_step_has_the_baseline_bits() {
        // `add` runs its AVX2 build on this machine when it can; `weigh_body`
        // called directly is the baseline build. Rows on a centre, a zero sample weight,
        // the objective at s_ref and k not a multiple of four included.
        for (k, p) in [(3, 5), (10, 20), (13, 7)] {
            let x = data(600, p);
            let c = x.slice(s![100..100 + k, ..]).to_owned();
            let norms = Rows::F64(x.view()).sq_norms();
            let c_norms = crate::linalg::row_sq_norms(c.view());
            let w: Vec<f64> = (0..600)
                .map(|i| if i == 7 { 0.0 } else { 0.5 + (i % 4) as f64 })
                .collect();
            for (s_, s_ref, weights) in [
                (-1.0, None, None),
                (-3.0, Some(-2.0), Some(&w[..])),
                (-40.0, Some(-30.0), None),
            ] {
                let run = PassArgs {
                    centres: c.view(),
                    s: s_,
                    s_ref,
                    zero_tol: 1e-12,
                    weights,
                };
                let (mut a, mut b) = (PowerStats::new(k, p, 600), PowerStats::new(k, p, 600));
                let (mut sa, mut sb) = (Scratch::default(), Scratch::default());
                for lo in (0..600).step_by(BLOCK_ROWS) {
                    let hi = (lo + BLOCK_ROWS).min(600);
                    let xb = Block::F64(x.slice(s![lo..hi, ..]), &c_norms);
                    a.add(xb, lo, &norms[lo..hi], &run, &mut sa, None);
                    let xs = x.slice(s![lo..hi, ..]);
                    let d = sq_dists_block(xs, &norms[lo..hi], c.view(), &c_norms);
                    let e = b.weigh_body(d, lo, &run, &mut sb, None);
                    gemm_seq(b.acc.view_mut(), e.t(), xs, 1.0, true);
                }
                assert_eq!(stats_bits(&a), stats_bits(&b), "k {k} p {p} s {s_}");
                assert_eq!(
                    (&a.labels, &a.counts, a.rows),
                    (&b.labels, &b.counts, b.rows)
                );
            }
        }
    }

    /// Every entry of faer's product against stacked centres (and of the
    /// stacked weighted sums, accumulated) has the bits of the thin
    /// product of its own run: what [`Stack`] relies on. Shapes around
    /// faer's kernel sizes and depth splits.
    #[test]
    fn stacked_products_have_the_thin_bits() {
        let bits = |a: ArrayView2<f64>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for rows in [2, 7, 13, 100, 256] {
            for p in [2, 3, 12, 20, 64, 256, 300, 301, 512, 784, 1000, 3000, 7129] {
                let x = data(rows, p).mapv(|v| v.sin() * 3.0 + 0.1);
                for k in [2, 3, 10, 17] {
                    if rows * k * p <= NANO_GEMM_MNK {
                        continue;
                    }
                    for b in [2, 3, 8] {
                        let c = data(k * b + 5, p).slice_move(s![5.., ..]).mapv(|v| v.cos());
                        let e_all = data(rows, k * b).mapv(|v| (v * 0.7).sin().abs());
                        let mut d_all = Array2::zeros((rows, k * b));
                        gemm_seq(d_all.view_mut(), x.view(), c.t(), -2.0, false);
                        let mut acc_all = Array2::from_elem((k * b, p), 0.25);
                        for _ in 0..2 {
                            gemm_seq(acc_all.view_mut(), e_all.t(), x.view(), 1.0, true);
                        }
                        for r in 0..b {
                            let cols = s![.., r * k..(r + 1) * k];
                            let mut d = Array2::zeros((rows, k));
                            gemm_seq(
                                d.view_mut(),
                                x.view(),
                                c.slice(s![r * k..(r + 1) * k, ..]).t(),
                                -2.0,
                                false,
                            );
                            let at = format!("rows {rows} p {p} k {k} b {b} run {r}");
                            assert_eq!(bits(d.view()), bits(d_all.slice(cols)), "distances, {at}");
                            let mut acc = Array2::from_elem((k, p), 0.25);
                            for _ in 0..2 {
                                gemm_seq(
                                    acc.view_mut(),
                                    e_all.slice(cols).t(),
                                    x.view(),
                                    1.0,
                                    true,
                                );
                            }
                            let own = acc_all.slice(s![r * k..(r + 1) * k, ..]);
                            assert_eq!(bits(acc.view()), bits(own), "sums, {at}");
                        }
                    }
                }
            }
        }
    }

    /// A batch whose runs are stacked gives each run the statistics it
    /// gets alone, bit for bit: wide rows, runs of different k (one that
    /// is not stacked), s_ref and sample weights on some, rows over
    /// several tasks and cache blocks, tail blocks too small to stack.
    #[test]
    fn stacked_runs_have_the_statistics_of_each_run_alone() {
        // Tails of 52, 3 and 1 rows: the last two take thin products.
        for (n, p) in [(2100, 784), (1500, 300), (3000, 20), (2051, 20), (2049, 20)] {
            let x = data(n, p).mapv(|v| v.sin() * 3.0);
            let norms = Rows::F64(x.view()).sq_norms();
            let w: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
            // k = 1 is never stacked.
            let cs: Vec<Array2<f64>> = [3, 10, 1, 4, 10]
                .iter()
                .enumerate()
                .map(|(r, &k)| x.slice(s![r * 37..r * 37 + k, ..]).to_owned())
                .collect();
            let runs: Vec<PassArgs> = cs
                .iter()
                .enumerate()
                .map(|(r, c)| PassArgs {
                    centres: c.view(),
                    s: -1.0 - r as f64,
                    s_ref: (r % 2 == 1).then_some(-6.0),
                    zero_tol: 1e-12,
                    weights: (r == 2).then_some(&w[..]),
                })
                .collect();
            let batch = power_stats_batch(Rows::F64(x.view()), &norms, &runs);
            for (r, run) in runs.iter().enumerate() {
                let alone =
                    power_stats_batch(Rows::F64(x.view()), &norms, std::slice::from_ref(run));
                assert_eq!(
                    stats_bits(&batch[r]),
                    stats_bits(&alone[0]),
                    "n {n} p {p} run {r}"
                );
            }
        }
    }

    #[test]
    fn power_halves_merge_to_the_whole() {
        let x = data(2500, 4);
        let c = x.slice(s![0..3, ..]).to_owned();
        let w: Vec<f64> = (0..2500).map(|i| 0.5 + (i % 4) as f64).collect();
        let zero_tol = 1e-12;
        let args = |w: Option<&'static [f64]>| PassArgs {
            centres: c.view(),
            s: -3.0,
            s_ref: Some(-1.0),
            zero_tol,
            weights: w,
        };
        let w: &'static [f64] = Box::leak(w.into_boxed_slice());
        let whole = power_block(x.view().into(), &args(Some(w)));
        for cut in [1, 700, 1024, 2499] {
            let a = power_block(x.slice(s![..cut, ..]).into(), &args(Some(&w[..cut])));
            let b = power_block(x.slice(s![cut.., ..]).into(), &args(Some(&w[cut..])));
            let m = PowerStats::merge(vec![a, b]);
            assert_eq!(m.labels, whole.labels);
            assert_eq!(m.counts, whole.counts);
            assert_eq!(m.rows, 2500);
            assert!(close(m.objective, whole.objective));
            assert!(close(m.objective_ref, whole.objective_ref));
            assert!(close(m.softness, whole.softness));
            let (d1, d2) = (m.denominator(), whole.denominator());
            let (n1, n2) = (
                m.finish(c.view(), true, d1),
                whole.clone().finish(c.view(), true, d2),
            );
            for (u, v) in n1.next.iter().zip(n2.next.iter()) {
                assert!(close(*u, *v), "{u} vs {v} at cut {cut}");
            }
            assert!(close(n1.softness, n2.softness));
        }
    }

    #[test]
    fn an_empty_block_changes_nothing() {
        let x = data(50, 3);
        let c = x.slice(s![0..2, ..]).to_owned();
        let run = PassArgs {
            centres: c.view(),
            s: -1.0,
            s_ref: None,
            zero_tol: 0.0,
            weights: None,
        };
        let whole = power_block(x.view().into(), &run);
        let empty = power_block(x.slice(s![0..0, ..]).into(), &run);
        assert_eq!(empty.rows, 0);
        let m = PowerStats::merge(vec![empty, whole.clone()]);
        assert_eq!(m, whole);
    }

    #[test]
    fn lloyd_halves_merge_to_the_whole() {
        let x = data(3000, 5);
        let c = x.slice(s![0..4, ..]).to_owned();
        let prev = x.slice(s![10..14, ..]).to_owned();
        let at = Previous::Centres(prev.view());
        let (whole, labels) = lloyd_block(x.view().into(), None, c.view(), at, 0, 4);
        let (again, _) = lloyd_block(
            x.view().into(),
            None,
            c.view(),
            Previous::Labels(&labels),
            0,
            4,
        );
        assert_eq!(again.changed, 0);
        let (before, _) = lloyd_block(x.view().into(), None, prev.view(), Previous::Nothing, 0, 4);
        assert_eq!(before.changed, 3000);
        for cut in [1, 2048, 2999] {
            let a = lloyd_block(x.slice(s![..cut, ..]).into(), None, c.view(), at, 0, 4).0;
            let b = lloyd_block(x.slice(s![cut.., ..]).into(), None, c.view(), at, cut, 4).0;
            let m = LloydStats::merge(vec![a, b], 4);
            assert_eq!(m.counts, whole.counts);
            assert_eq!(m.totals, whole.totals);
            assert_eq!(m.changed, whole.changed);
            assert_eq!(m.far, whole.far);
            assert!(close(m.inertia, whole.inertia));
            for (u, v) in m.sums.iter().zip(whole.sums.iter()) {
                assert!(close(*u, *v));
            }
        }
    }

    /// Blobs with noise from an LCG: several Lloyd iterations change rows.
    fn blobs(n: usize, p: usize, k: usize) -> Array2<f64> {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        Array2::from_shape_fn((n, p), |(i, j)| {
            ((i % k) * (j + 1)) as f64 * 0.9 + 3.0 * next() - 1.5 + 10.0
        })
    }

    /// Bounded blocks over a whole Lloyd run give the full blocks' labels,
    /// counts, totals and changed rows, and their sums and inertia to
    /// rounding; a state read back from bytes, or used twice, gives the
    /// same.
    fn bounded_matches_full(x: Rows, w: Option<&[f64]>, k: usize) {
        let n = x.nrows();
        let mut centres = x.select(&(0..k).collect::<Vec<_>>());
        let mut state: Option<BlockState> = None;
        let mut prev_labels: Option<Vec<usize>> = None;
        let mut bounded_steps = 0;
        for it in 0..12 {
            let before = match &prev_labels {
                Some(l) => Previous::Labels(l),
                None => Previous::Nothing,
            };
            let (full, labels) = lloyd_block(x, w, centres.view(), before, 0, k);
            let exact = it == 5;
            let (st, next) =
                lloyd_block_bounded(x, w, centres.view(), state.as_ref(), exact, 0, k).unwrap();
            if let Some(old) = &state {
                // The input state is untouched: the same call gives the same.
                let (again, next2) =
                    lloyd_block_bounded(x, w, centres.view(), Some(old), exact, 0, k).unwrap();
                assert_eq!(again, st);
                assert_eq!(next2.labels, next.labels);
                let copy = BlockState::from_bytes(&old.to_bytes()).unwrap();
                let (third, _) =
                    lloyd_block_bounded(x, w, centres.view(), Some(&copy), exact, 0, k).unwrap();
                assert_eq!(third, st);
                if !exact {
                    bounded_steps += 1;
                    assert!(st.far.is_empty());
                }
            }
            if state.is_none() || exact {
                assert_eq!(st, full, "an exact step is the full block's");
            }
            assert_eq!(next.labels(), &labels[..], "iteration {it}");
            assert_eq!(st.counts, full.counts);
            assert_eq!(st.totals, full.totals);
            assert_eq!(st.changed, full.changed, "iteration {it}");
            assert_eq!(st.rows, n);
            // f32 rows: the full pass's distances carry f32 products'
            // rounding; the sums are f64 either way.
            let rel = if matches!(x, Rows::F32(_)) {
                1e-5
            } else {
                1e-9
            };
            let scale = full.inertia.abs().max(1.0);
            assert!(
                (st.inertia - full.inertia).abs() <= rel * scale,
                "{} vs {}",
                st.inertia,
                full.inertia
            );
            for (u, v) in st.sums.iter().zip(full.sums.iter()) {
                assert!((u - v).abs() <= 1e-10 * v.abs().max(1.0), "{u} vs {v}");
            }
            state = Some(next);
            prev_labels = Some(labels);
            (centres, _) = full.next_centres(centres.view());
        }
        assert!(bounded_steps >= 10);
    }

    #[test]
    fn bounded_blocks_give_the_full_blocks_labels() {
        let x = blobs(5000, 6, 5);
        bounded_matches_full(x.view().into(), None, 5);
        let w: Vec<f64> = (0..5000).map(|i| 0.25 + (i % 7) as f64 * 0.5).collect();
        bounded_matches_full(x.view().into(), Some(&w), 5);
        let x32 = x.mapv(|v| v as f32);
        bounded_matches_full(x32.view().into(), None, 5);
        // A single row, and an empty block.
        bounded_matches_full(x.slice(s![..1, ..]).into(), None, 1);
        let c = x.slice(s![..3, ..]).to_owned();
        let (st, state) = lloyd_block_bounded(
            x.slice(s![..0, ..]).into(),
            None,
            c.view(),
            None,
            false,
            0,
            3,
        )
        .unwrap();
        assert_eq!((st.rows, st.counts, st.inertia), (0, vec![0; 3], 0.0));
        let (st, _) = lloyd_block_bounded(
            x.slice(s![..0, ..]).into(),
            None,
            c.view(),
            Some(&state),
            false,
            0,
            3,
        )
        .unwrap();
        assert_eq!(st.rows, 0);
        // A state of another block is refused; bytes that are no state too.
        assert!(
            lloyd_block_bounded(x.view().into(), None, c.view(), Some(&state), false, 0, 3)
                .is_err()
        );
        assert!(BlockState::from_bytes(b"MSLBS001").is_err());
        let mut bytes = state.to_bytes();
        bytes.push(0);
        assert!(BlockState::from_bytes(&bytes).is_err());
    }

    #[test]
    fn an_empty_cluster_moves_to_the_farthest_row() {
        let x = data(40, 2);
        let mut c = x.slice(s![0..3, ..]).to_owned();
        c.row_mut(2).fill(1e6);
        let (st, _) = lloyd_block(x.view().into(), None, c.view(), Previous::Nothing, 0, 3);
        assert_eq!(st.counts[2], 0);
        let (next, _) = st.next_centres(c.view());
        let far = &st.far[0];
        assert_eq!(next.row(2).to_vec(), far.row);
        assert!(st.far.windows(2).all(|p| p[0].dist >= p[1].dist));
    }

    #[test]
    fn the_driver_anneals_and_stops_as_the_loop_does() {
        let sched = Schedule {
            s0: -1.0,
            eta: 2.0,
            period: 2,
            s_min: -4.0,
        };
        let mut d = Driver::power(sched, 1e-6, 1.0, 10, 2);
        let mut seen = Vec::new();
        while let Some((m, s, s_ref)) = d.iteration() {
            seen.push((m, s.unwrap(), s_ref));
            // A constant objective: the second check (m = 4) converges.
            d.record(5.0, s_ref.map(|_| 5.0), &[3, 4], 0.0, false)
                .unwrap();
        }
        assert_eq!(
            seen,
            vec![
                (1, -1.0, None),
                (2, -1.0, None),
                (3, -2.0, None),
                (4, -2.0, Some(-1.0))
            ]
        );
        let fit = d.finish();
        assert!(fit.converged);
        assert_eq!(fit.iterations, 4);
        let mut l = Driver::lloyd(3, 2);
        assert!(l.record(1.0, None, &[1, 1], 0.0, false).unwrap().is_none());
        assert_eq!(
            l.record(1.0, None, &[1, 1], 0.0, true).unwrap(),
            Some(Stop::Converged)
        );
        assert!(l.iteration().is_none());
        assert!(l.record(1.0, None, &[1, 1], 0.0, true).is_err());
        assert!(
            Driver::lloyd(3, 2)
                .record(1.0, None, &[1], 0.0, true)
                .is_err()
        );
    }

    #[test]
    fn far_rows_are_the_farthest_in_far_order() {
        // Ties in distance (few values), zero weights, and keep below, at
        // and above the rows that count: the rows sorted by Far's order.
        let x = data(50, 2);
        let dists: Vec<f64> = (0..50).map(|i| ((i * 7) % 5) as f64).collect();
        let labels: Vec<usize> = (0..50).map(|i| i % 3).collect();
        let w: Vec<f64> = (0..50)
            .map(|i| if i % 4 == 1 { 0.0 } else { 1.5 })
            .collect();
        for weights in [None, Some(&w[..])] {
            let mut want: Vec<usize> = (0..50)
                .filter(|&i| weights.is_none_or(|w| w[i] > 0.0))
                .collect();
            want.sort_by(|&a, &b| dists[b].total_cmp(&dists[a]).then(a.cmp(&b)));
            for keep in [0, 1, 3, 10, 37, 50, 60] {
                let got = far_rows(Rows::F64(x.view()), weights, &dists, &labels, 100, keep);
                let idx: Vec<usize> = got.iter().map(|f| f.index - 100).collect();
                assert_eq!(idx, want[..keep.min(want.len())], "keep {keep}");
                for f in &got {
                    let i = f.index - 100;
                    assert_eq!((f.dist, f.label), (dists[i], labels[i]));
                    assert_eq!(f.row, x.row(i).to_vec());
                }
            }
        }
    }

    #[test]
    fn labelled_cost_is_the_sum_of_squared_distances_to_the_given_centres() {
        let x = data(9000, 7);
        let c = x.slice(s![..3, ..]).to_owned();
        let labels: Vec<usize> = (0..9000).map(|i| (i * 7) % 3).collect();
        let w: Vec<f64> = (0..9000).map(|i| 0.5 + (i % 4) as f64).collect();
        let naive = |w: Option<&[f64]>| -> f64 {
            (0..9000)
                .map(|i| {
                    let d = &x.row(i) - &c.row(labels[i]);
                    d.dot(&d) * w.map_or(1.0, |w| w[i])
                })
                .sum()
        };
        for w in [None, Some(&w[..])] {
            let got = labelled_cost(Rows::F64(x.view()), c.view(), &labels, w).unwrap();
            assert!(
                (got - naive(w)).abs() <= 1e-12 * naive(w),
                "{got} vs {}",
                naive(w)
            );
        }
        // f32 rows are widened: the cost of the f32 values.
        let x32 = x.mapv(|v| v as f32);
        let got = labelled_cost(Rows::F32(x32.view()), c.view(), &labels, None).unwrap();
        let wide = x32.mapv(f64::from);
        let want: f64 = (0..9000)
            .map(|i| {
                let d = &wide.row(i) - &c.row(labels[i]);
                d.dot(&d)
            })
            .sum();
        assert!((got - want).abs() <= 1e-12 * want);
        // The same bits with one thread.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let serial =
            one.install(|| labelled_cost(Rows::F64(x.view()), c.view(), &labels, None).unwrap());
        let pool = labelled_cost(Rows::F64(x.view()), c.view(), &labels, None).unwrap();
        assert_eq!(serial.to_bits(), pool.to_bits());
        // Mismatched inputs are refused, not read out of bounds.
        assert!(labelled_cost(Rows::F64(x.view()), c.view(), &labels[1..], None).is_err());
        let mut bad = labels.clone();
        bad[5] = 3;
        assert!(labelled_cost(Rows::F64(x.view()), c.view(), &bad, None).is_err());
        assert!(labelled_cost(Rows::F64(x.view()), c.view(), &labels, Some(&w[1..])).is_err());
    }
}
