//! k-medians: Lloyd's alternation with L1 distances, each centre the
//! coordinate-wise (weighted) median of its cluster, so a few far points
//! pull a centre much less than they pull a mean. Method note:
//! docs/methods/k-medians.md#the-objective-and-the-iteration.

use super::initial_centres;
use crate::error::Result;
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::params::declare_params;
use crate::solver::rows::Rows;
use crate::solver::specs::{max_iter_spec, tol_spec};
use crate::solver::{
    Caps, Common, Ctx, Family, Fit, ModelKind, ParamSpec, Problem, RunConfig, Solver, Start,
    StartMemory,
};
use ndarray::{Array2, ArrayView2};

pub struct KMedians;

declare_params! {
    /// The parameters of `kmedians`.
    pub struct KMediansParams {
        tol: f64 = tol_spec(
            1e-6,
            "Stop when no label changes or the objective (the sum of L1 distances) falls by less than tol × its value.",
        ),
        max_iter: usize = max_iter_spec(300.0),
    }
}

impl Solver for KMedians {
    type Params = KMediansParams;
    fn id(&self) -> &'static str {
        "kmedians"
    }
    fn caps(&self) -> Caps {
        Caps {
            sample_weights: true,
            centres: true,
            ..Caps::new(Family::Centroid, "KMedians")
        }
    }
    fn model_kind(&self) -> Option<ModelKind> {
        Some(ModelKind::Medians)
    }
    fn name(&self) -> &'static str {
        "k-medians"
    }
    fn summary(&self) -> &'static str {
        "Lloyd's alternation with L1 distances and coordinate-wise medians as centres: robust to outliers that drag k-means' means."
    }
    fn params(&self) -> Vec<ParamSpec> {
        KMediansParams::specs()
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<KMediansParams> {
        Ok(KMediansParams::read(&cfg.params)?)
    }
    fn start_memory(&self, problem: &Problem, run: &Common, _p: &KMediansParams) -> StartMemory {
        let (n, p) = (problem.n(), problem.p());
        let mut m = StartMemory::seeding(n, run.k, run.init);
        // One column of (value, weight) pairs to take medians of, and an
        // f64 copy of rows stored as f32.
        let widened = matches!(problem.rows().0, Rows::F32(_));
        m.bytes += 16.0 * n as f64 + if widened { 8.0 * (n * p) as f64 } else { 0.0 };
        m.what.push_str(", a column of n (value, weight) pairs");
        m
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KMediansParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let centres = initial_centres(problem, run, start)?;
        let x = problem.x.f64();
        let mut step = Medians {
            x: x.view(),
            w: problem.sample_weights(),
            centres,
            labels: Vec::new(),
            tol: p.tol,
            last: None,
        };
        let how = Loop {
            rule: Rule::Step,
            max_iter: p.max_iter,
            k: run.k,
            events: true,
        };
        let mut fit = iterate(&mut step, how, ctx)?;
        let empty = fit.sizes(run.k).iter().filter(|&&s| s == 0).count();
        if empty > 0 {
            fit.warnings.push(format!(
                "{empty} cluster(s) ended empty: their centres stayed where they last were"
            ));
        }
        fit.centroids = Some(step.centres);
        Ok(fit)
    }
}

/// Σ_j |a_j − b_j|.
pub(crate) fn l1(a: ndarray::ArrayView1<f64>, b: ndarray::ArrayView1<f64>) -> f64 {
    a.iter().zip(b).map(|(u, v)| (u - v).abs()).sum()
}

/// The state of one start: the centres, and the labels they gave.
struct Medians<'a> {
    x: ArrayView2<'a, f64>,
    w: Option<&'a [f64]>,
    centres: Array2<f64>,
    labels: Vec<usize>,
    tol: f64,
    /// The previous iteration's objective.
    last: Option<f64>,
}

impl Step for Medians<'_> {
    /// Each row to its nearest centre in L1 (the lowest index on a tie);
    /// the objective is the weighted sum of those distances.
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let mut objective = 0.0;
        let mut labels = Vec::with_capacity(self.x.nrows());
        for (i, row) in self.x.rows().into_iter().enumerate() {
            let (mut best, mut d) = (0, f64::INFINITY);
            for (j, c) in self.centres.rows().into_iter().enumerate() {
                let dj = l1(row, c);
                if dj < d {
                    (best, d) = (j, dj);
                }
            }
            labels.push(best);
            objective += self.w.map_or(1.0, |w| w[i]) * d;
        }
        let same = !it.prev_labels.is_empty() && it.prev_labels == labels.as_slice();
        let small = self
            .last
            .is_some_and(|last| last - objective <= self.tol * last.abs());
        self.last = Some(objective);
        self.labels.clone_from(&labels);
        Ok(Eval::new(objective, labels, same || small))
    }

    /// Every centre to the coordinate-wise weighted median of its rows; an
    /// empty cluster keeps its centre.
    fn advance(&mut self, _m: usize) -> Result<()> {
        let k = self.centres.nrows();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (i, &l) in self.labels.iter().enumerate() {
            if self.w.is_none_or(|w| w[i] > 0.0) {
                members[l].push(i);
            }
        }
        let mut column: Vec<(f64, f64)> = Vec::with_capacity(self.x.nrows());
        for (j, rows) in members.iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            for f in 0..self.x.ncols() {
                column.clear();
                column.extend(
                    rows.iter()
                        .map(|&i| (self.x[[i, f]], self.w.map_or(1.0, |w| w[i]))),
                );
                self.centres[[j, f]] = weighted_median(&mut column);
            }
        }
        Ok(())
    }
}

/// A minimiser of Σ w_i |v_i − m| over m: the smallest value whose
/// cumulative weight reaches half the total, or the midpoint of it and the
/// next value when the weight splits exactly in two there (the ordinary
/// median of an even count). `pairs` (value, weight > 0) is sorted in place.
pub(crate) fn weighted_median(pairs: &mut [(f64, f64)]) -> f64 {
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = pairs.iter().map(|p| p.1).sum::<f64>() / 2.0;
    let mut cum = 0.0;
    for (i, &(v, w)) in pairs.iter().enumerate() {
        cum += w;
        if cum >= half {
            return match pairs.get(i + 1) {
                Some(&(next, _)) if cum == half => (v + next) / 2.0,
                _ => v,
            };
        }
    }
    pairs.last().map_or(0.0, |p| p.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_odd_count_is_its_middle_and_of_an_even_the_midpoint() {
        let mut odd = [(5.0, 1.0), (1.0, 1.0), (100.0, 1.0)];
        assert_eq!(weighted_median(&mut odd), 5.0);
        let mut even = [(4.0, 1.0), (1.0, 1.0), (2.0, 1.0), (100.0, 1.0)];
        assert_eq!(weighted_median(&mut even), 3.0);
    }

    /// An integer weight is the row repeated.
    #[test]
    fn a_weight_counts_as_repeated_rows() {
        let mut weighted = [(1.0, 1.0), (2.0, 3.0), (10.0, 1.0)];
        let mut repeated = [(1.0, 1.0), (2.0, 1.0), (2.0, 1.0), (2.0, 1.0), (10.0, 1.0)];
        assert_eq!(weighted_median(&mut weighted), 2.0);
        assert_eq!(weighted_median(&mut repeated), 2.0);
        let mut heavy = [(1.0, 1.0), (2.0, 1.0), (10.0, 5.0)];
        assert_eq!(weighted_median(&mut heavy), 10.0);
    }
}
