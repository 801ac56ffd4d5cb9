//! Power k-means (Xu & Lange 2019) and k-harmonic means, its s = −1 member.
//! Spec: kernel-power-kmeans.md §1–3.
//!
//! Each iteration is two matrix products: the n×k squared distances
//! `‖x‖² + ‖θ‖² − 2XΘᵀ`, then the centres `Θ = ΩᵀX` from the
//! column-normalised MM weights Ω.

use super::kpower::{has_empty, soft_tol_spec};
use super::params::{Default, ParamSpec, Scale};
use super::rows::Rows;
use super::sweep::sweep;
use super::{Algorithm, Ctx, Event, Fit, Problem, Progress, RunConfig, Start, TracePoint};
use super::{cluster_sizes, init};
use crate::error::Result;
use ndarray::{Array2, Axis};

/// The annealing schedule: s starts at `s0` and is multiplied by `eta`
/// every `period` iterations until it reaches the floor `s_min`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub s0: f64,
    pub eta: f64,
    pub period: usize,
    pub s_min: f64,
}

impl Schedule {
    pub fn from_params(p: &super::Params) -> Self {
        Schedule {
            s0: p.get("s0"),
            eta: p.get("eta"),
            period: p.get_usize("period"),
            s_min: p.get("s_min"),
        }
    }

    /// s after iteration `m` (1-based) has finished.
    pub fn next(&self, s: f64, m: usize) -> f64 {
        if m.is_multiple_of(self.period) {
            (s * self.eta).max(self.s_min).min(s)
        } else {
            s
        }
    }
}

/// Stopping rule shared by the power-mean family. Every T iterations it
/// compares the objective now with the objective T iterations ago, both
/// evaluated at the s of that earlier check: f_s drifts by itself when s is
/// annealed (by up to a factor k^{1/|s|}), and that drift must not count as
/// movement. Stop when |f_{s'}(now) − f_{s'}(then)| ≤ tol·|f_{s'}(then)|.
#[derive(Debug, Clone)]
pub struct PeriodCheck {
    period: usize,
    tol: f64,
    reference: Option<(f64, f64)>,
}

impl PeriodCheck {
    pub fn new(period: usize, tol: f64) -> Self {
        PeriodCheck {
            period: period.max(1),
            tol,
            reference: None,
        }
    }

    /// The earlier exponent the objective must also be evaluated at, on
    /// iterations where the rule will test.
    pub fn reference_s(&self, m: usize) -> Option<f64> {
        if m.is_multiple_of(self.period) {
            self.reference.map(|(s, _)| s)
        } else {
            None
        }
    }

    /// Called at iteration `m` (1-based) with the current s and objective;
    /// `objective_at(s')` evaluates the current state's objective at an
    /// earlier exponent (only called when s has changed since).
    pub fn converged(
        &mut self,
        m: usize,
        s: f64,
        f: f64,
        objective_at: impl FnOnce(f64) -> f64,
    ) -> bool {
        if !m.is_multiple_of(self.period) {
            return false;
        }
        let done = match self.reference {
            Some((s_ref, f_ref)) => {
                let now = if s_ref == s { f } else { objective_at(s_ref) };
                (now - f_ref).abs() <= self.tol * f_ref.abs()
            }
            None => false,
        };
        self.reference = Some((s, f));
        done
    }
}

/// Sends one iteration event, with the labels when the watcher wants them.
pub fn report(
    ctx: &Ctx,
    iter: usize,
    s: Option<f64>,
    objective: f64,
    labels: &[usize],
    prev: &[usize],
    k: usize,
) {
    if !ctx.wants_events() {
        return;
    }
    let changed = if prev.len() == labels.len() {
        labels.iter().zip(prev).filter(|(a, b)| a != b).count()
    } else {
        labels.len()
    };
    ctx.emit(Event::Iteration(Progress {
        restart: ctx.restart(),
        iter,
        s,
        objective,
        changed,
        sizes: cluster_sizes(labels, k),
        feature_weights: None,
        kernel_weights: None,
        labels: ctx.wants_labels().then(|| labels.to_vec()),
    }));
}

/// Distances at or below this count as exact zeros: well above the
/// rounding error of the expanded ‖x‖² + ‖θ‖² − 2xᵀθ, and relative to the
/// largest squared norm, so that it means the same for data in any unit
/// (an absolute floor would merge every point of data near 1e-7).
pub fn zero_tolerance(x_norms: &[f64]) -> f64 {
    1e-12 * x_norms.iter().copied().fold(0.0, f64::max)
}

/// Power k-means from the given centres on the rows of `x` (which may be
/// the data or a feature map of it). Reused by every Euclidean member of
/// the family. The stopping rule is `PeriodCheck` alone; see
/// `power_loop_hard` for the hardness condition.
pub fn power_loop<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    power_loop_hard(x, x_norms, centres, sched, tol, max_iter, 1.0, ctx)
}

/// `power_loop` whose stopping rule, while s still anneals, also needs
/// every cluster non-empty and the memberships nearly hard (softness ≤
/// `soft_tol`, as `kpower`'s): in high dimensions the centres nearly merge
/// at s = −1, the objective stalls there, and stopping would freeze the
/// merge (isolet at s₀ = −1: 13 of 26 clusters empty after 35 iterations).
#[allow(clippy::too_many_arguments)]
pub fn power_loop_hard<'a>(
    x: impl Into<Rows<'a>>,
    x_norms: &[f64],
    mut centres: Array2<f64>,
    sched: &Schedule,
    tol: f64,
    max_iter: usize,
    soft_tol: f64,
    ctx: &Ctx,
) -> Result<Fit> {
    let x: Rows = x.into();
    let k = centres.nrows();
    let zero_tol = zero_tolerance(x_norms);
    let mut s = sched.s0;
    let mut trace: Vec<TracePoint> = Vec::new();
    let mut labels: Vec<usize> = Vec::new();
    let mut converged_flag = false;
    let mut check = PeriodCheck::new(sched.period, tol);
    for m in 1..=max_iter {
        ctx.check()?;
        let s_ref = check.reference_s(m).filter(|&r| r != s);
        let sw = sweep(x, x_norms, centres.view(), s, s_ref, zero_tol);
        trace.push(TracePoint {
            iter: m,
            s: Some(s),
            objective: sw.objective,
            kernel_weights: None,
        });
        report(ctx, m, Some(s), sw.objective, &sw.labels, &labels, k);
        labels = sw.labels;
        let still = check.converged(m, s, sw.objective, |_| sw.objective_ref.expect("asked for"));
        let annealing = s > sched.s_min && sched.eta > 1.0;
        let soft = soft_tol < 1.0 && (has_empty(&labels, k) || sw.softness > soft_tol);
        if still && !(annealing && soft) {
            converged_flag = true;
            break;
        }
        if m == max_iter {
            break;
        }
        centres = sw.next;
        s = sched.next(s, m);
    }
    let objective = trace.last().map_or(0.0, |t| t.objective);
    Ok(Fit {
        labels,
        centroids: Some(centres),
        objective,
        iterations: trace.len(),
        trace,
        converged: converged_flag,
        ..Fit::default()
    })
}

fn initial_centres(problem: &Problem, cfg: &RunConfig, start: Start) -> Result<Array2<f64>> {
    let mut rng = start.rng();
    let seeds = init::euclidean_seeds(
        problem.x.view(),
        &problem.x_norms,
        cfg.k,
        cfg.init,
        &mut rng,
    )?;
    Ok(problem.x.select(Axis(0), &seeds))
}

pub fn tol_spec(default: f64, help: &'static str) -> ParamSpec {
    ParamSpec {
        name: "tol",
        symbol: "tol",
        default: Default::Fixed(default),
        min: 0.0,
        max: 1.0,
        scale: Scale::Log,
        step: 2.0,
        coarse: 10.0,
        integer: false,
        help,
    }
}

pub fn max_iter_spec(default: f64) -> ParamSpec {
    ParamSpec {
        name: "max_iter",
        symbol: "max it",
        default: Default::Fixed(default),
        min: 1.0,
        max: 100_000.0,
        scale: Scale::Linear,
        step: 10.0,
        coarse: 100.0,
        integer: true,
        help: "Iteration cap; the run stops there even if not converged.",
    }
}

/// s₀, η, T and s_min, as every annealed algorithm declares them.
pub fn schedule_specs() -> Vec<ParamSpec> {
    vec![
        ParamSpec {
            name: "s0",
            symbol: "s₀",
            default: Default::Fixed(-1.0),
            min: -1000.0,
            max: -0.01,
            scale: Scale::Log,
            step: 1.1,
            coarse: 2.0,
            integer: false,
            help: "Initial power-mean exponent (must be negative; −1 is the papers' default).",
        },
        ParamSpec {
            name: "eta",
            symbol: "η",
            default: Default::Fixed(1.04),
            min: 1.0,
            max: 3.0,
            scale: Scale::Linear,
            step: 0.01,
            coarse: 0.1,
            integer: false,
            help: "Annealing factor: s ← η·s every T iterations (1 = no annealing).",
        },
        ParamSpec {
            name: "period",
            symbol: "T",
            default: Default::Fixed(5.0),
            min: 1.0,
            max: 1000.0,
            scale: Scale::Linear,
            step: 1.0,
            coarse: 5.0,
            integer: true,
            help: "Annealing period T: s is updated, and convergence tested, every T iterations.",
        },
        ParamSpec {
            name: "s_min",
            symbol: "s_min",
            default: Default::Fixed(-1000.0),
            min: -1e6,
            max: -0.01,
            scale: Scale::Log,
            step: 1.5,
            coarse: 10.0,
            integer: false,
            help: "Floor for s: annealing stops there.",
        },
    ]
}

pub struct PowerKMeans;

impl Algorithm for PowerKMeans {
    fn id(&self) -> &'static str {
        "power"
    }
    fn name(&self) -> &'static str {
        "Power k-means"
    }
    fn summary(&self) -> &'static str {
        "Xu & Lange (2019): minimises the sum of power means of the squared distances, annealing s → −∞ so the objective morphs into k-means and escapes its poor local minima."
    }
    fn params(&self) -> Vec<ParamSpec> {
        let mut v = schedule_specs();
        v.push(tol_spec(
            1e-6,
            "Relative change of the objective over one period T below which the run stops.",
        ));
        v.push(max_iter_spec(500.0));
        v.push(soft_tol_spec());
        v
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let centres = initial_centres(problem, cfg, start)?;
        let p = &cfg.params;
        power_loop_hard(
            problem.x.view(),
            &problem.x_norms,
            centres,
            &Schedule::from_params(p),
            p.get("tol"),
            p.get_usize("max_iter"),
            p.get("soft_tol"),
            ctx,
        )
    }
}

pub struct Khm;

impl Algorithm for Khm {
    fn id(&self) -> &'static str {
        "khm"
    }
    fn name(&self) -> &'static str {
        "k-harmonic means"
    }
    fn summary(&self) -> &'static str {
        "Zhang, Hsu & Dayal (1999) with exponent 2: power k-means with s = −1 held fixed (the harmonic mean of the squared distances)."
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            tol_spec(
                1e-6,
                "Relative change of the objective between iterations below which the run stops.",
            ),
            max_iter_spec(500.0),
        ]
    }
    fn fit(&self, problem: &Problem, cfg: &RunConfig, start: Start, ctx: &Ctx) -> Result<Fit> {
        let centres = initial_centres(problem, cfg, start)?;
        let p = &cfg.params;
        let sched = Schedule {
            s0: -1.0,
            eta: 1.0,
            period: 1,
            s_min: -1.0,
        };
        power_loop(
            problem.x.view(),
            &problem.x_norms,
            centres,
            &sched,
            p.get("tol"),
            p.get_usize("max_iter"),
            ctx,
        )
    }
}
