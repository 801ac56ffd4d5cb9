//! Stopping rules and the annealing schedule shared by the power-mean
//! family: the period check on the objective at a common s, and the
//! hardness condition (no empty cluster, nearly hard memberships).

use super::specs;
use ndarray::Axis;

super::params::declare_params! {
    /// The annealing schedule: s starts at `s0` and is multiplied by `eta`
    /// every `period` iterations until it reaches the floor `s_min`.
    pub struct Schedule {
        s0: f64 = specs::s0_spec(),
        eta: f64 = specs::eta_spec(),
        period: usize = specs::period_spec(),
        s_min: f64 = specs::s_min_spec(),
    }
}

impl Schedule {
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

/// The hardness condition of the power family's stopping rule, the one
/// meaning of `soft_tol` for every algorithm that declares it (power,
/// kpower, mkpower): while s still anneals (s > s_min and η > 1), the
/// period check may stop the run only once every cluster has a point and
/// the memberships are nearly hard, `softness()` ≤ `soft_tol` (the mean
/// share of a point's weight outside its own cluster). In high dimensions,
/// and in a kernel's compressed feature space, the centres nearly merge at
/// s = −1 and the objective stalls there; stopping then would freeze the
/// merge. `soft_tol` = 1 turns the condition off. True while the
/// condition holds the run back.
pub fn still_soft(
    schedule: &Schedule,
    s: f64,
    soft_tol: f64,
    labels: &[usize],
    k: usize,
    softness: impl FnOnce() -> f64,
) -> bool {
    let annealing = s > schedule.s_min && schedule.eta > 1.0;
    annealing && soft_tol < 1.0 && (has_empty(labels, k) || softness() > soft_tol)
}

/// Distances at or below this count as exact zeros: well above the
/// rounding error of the expanded ‖x‖² + ‖θ‖² − 2xᵀθ, and relative to the
/// largest squared norm, so that it means the same for data in any unit
/// (an absolute floor would merge every point of data near 1e-7).
pub fn zero_tolerance(x_norms: &[f64]) -> f64 {
    1e-12 * x_norms.iter().copied().fold(0.0, f64::max)
}

/// How many rows have another label in `after` than in `before`; None when
/// they do not label the same rows (the first iteration has no `before`).
pub fn label_changes(before: &[usize], after: &[usize]) -> Option<usize> {
    (before.len() == after.len()).then(|| before.iter().zip(after).filter(|(a, b)| a != b).count())
}

/// Whether some cluster has no point (its centre merged with another).
pub fn has_empty(labels: &[usize], k: usize) -> bool {
    let mut seen = vec![false; k];
    for &l in labels {
        seen[l] = true;
    }
    seen.iter().any(|&v| !v)
}

/// Mean share of a point's MM weight that lies outside its own cluster,
/// (1/n) Σᵢ (1 − maxⱼ wᵢⱼ / Σⱼ wᵢⱼ), from log weights: 0 for hard
/// assignments, 1 − 1/k when every centre is equally close (merged centres).
pub fn softness(log_w: &ndarray::Array2<f64>) -> f64 {
    weighted_softness(log_w, None)
}

/// [`softness`] with rows weighted by sample weights `w` (a row's share is
/// the same whatever its weight: the mean is Σᵢ wᵢ shareᵢ / Σᵢ wᵢ).
pub fn weighted_softness(log_w: &ndarray::Array2<f64>, w: Option<&[f64]>) -> f64 {
    let n = log_w.nrows();
    if n == 0 {
        return 0.0;
    }
    let mut total = 0.0;
    for (i, row) in log_w.axis_iter(Axis(0)).enumerate() {
        let mx = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if mx == f64::NEG_INFINITY {
            continue;
        }
        let sum: f64 = row.iter().map(|&v| (v - mx).exp()).sum();
        total += match w {
            None => 1.0 - 1.0 / sum,
            Some(w) => w[i] * (1.0 - 1.0 / sum),
        };
    }
    total / w.map_or(n as f64, |w| w.iter().sum())
}

/// The checkpoints of `Finish::Limit`: whenever |s| has grown by a factor
/// [`LimitCheck::RATIO`] since the last one (the first at |s₀|·RATIO), the
/// labels Lloyd's iteration converges to from the current centres are
/// compared with the previous checkpoint's. Power k-means anneals to
/// choose which of the k-means objective's fixed points it ends in (s → −∞
/// turns its iteration into Lloyd's); once annealing over a whole factor
/// of s leaves that fixed point where it was, the run takes it. A
/// heuristic, not a proof: the soft weights can still move the centres
/// into another basin later (yeast: the limits agree at s = −2.5 and −3.8,
/// the full schedule ends elsewhere at a 0.05 % lower cost), so it is not
/// the default. A checkpoint probes only once the iterates have slowed
/// down ([`LimitCheck::due`]).
#[derive(Debug, Clone)]
pub struct LimitCheck {
    next: f64,
    prev: Option<Vec<usize>>,
    /// Label changes of the annealing's own iterates since the last call
    /// of [`LimitCheck::due`].
    changes: usize,
}

impl LimitCheck {
    /// The growth of |s| between two checkpoints: about ten periods of the
    /// default schedule (η = 1.04).
    pub const RATIO: f64 = 1.5;
    /// The share of rows whose labels may differ between two agreeing
    /// limits: on large data a few borderline rows flip between two nearly
    /// equal distances for as long as s anneals (Fashion-MNIST: 4 to 8 of
    /// 60000 at every checkpoint from s = −8.6 on). Below 10⁴ rows, none.
    pub const SHARE: f64 = 1e-4;
    /// The share of rows that may change label over the period before a
    /// checkpoint for it to probe.
    pub const GATE: f64 = 0.01;

    pub fn new(s0: f64) -> Self {
        LimitCheck {
            next: s0.abs().max(f64::MIN_POSITIVE) * Self::RATIO,
            prev: None,
            changes: 0,
        }
    }

    /// Adds the label changes from one iterate to the next.
    pub fn add_changes(&mut self, changes: usize) {
        self.changes += changes;
    }

    /// Whether s has reached the next checkpoint and the iterates have
    /// slowed down: at most [`LimitCheck::GATE`] of the `n` rows changed
    /// label since the last call (a period). While more change, the
    /// annealing is still moving the partition and a probe would be
    /// wasted. Resets the count.
    pub fn due(&mut self, s: f64, n: usize) -> bool {
        let slow = self.changes as f64 <= Self::GATE * n as f64;
        self.changes = 0;
        slow && s.abs() >= self.next
    }

    /// Records the Lloyd limit at a checkpoint; true when it equals the
    /// previous checkpoint's and leaves no cluster empty.
    pub fn agrees(&mut self, s: f64, labels: Vec<usize>, k: usize) -> bool {
        let differ = self.prev.as_ref().and_then(|p| label_changes(p, &labels));
        let allowed = (labels.len() as f64 * Self::SHARE).floor() as usize;
        let same = differ.is_some_and(|d| d <= allowed) && !has_empty(&labels, k);
        self.prev = Some(labels);
        self.next = s.abs() * Self::RATIO;
        same
    }
}

#[cfg(test)]
mod tests {
    use super::{LimitCheck, label_changes};

    #[test]
    fn a_checkpoint_waits_for_its_s_and_for_the_iterates_to_slow_down() {
        let mut c = LimitCheck::new(-2.0);
        let n = 1000;
        assert!(!c.due(-2.9, n), "|s| below 2 × 1.5");
        assert!(c.due(-3.0, n));
        // 11 of 1000 rows changed over the period: more than 1 %.
        let before = vec![0usize; n];
        let mut after = before.clone();
        after[..11].fill(1);
        c.add_changes(label_changes(&before, &after).unwrap());
        assert!(!c.due(-3.0, n));
        // The count starts again at every call.
        assert!(c.due(-3.0, n));
    }

    #[test]
    fn limits_agree_up_to_a_share_of_rows_and_never_with_an_empty_cluster() {
        let k = 3;
        let base: Vec<usize> = (0..20_000).map(|i| i % k).collect();
        let mut c = LimitCheck::new(-1.0);
        assert!(!c.agrees(-1.5, base.clone(), k), "no earlier limit");
        // The next checkpoint is |s| × 1.5 further.
        assert!(!c.due(-2.2, base.len()) && c.due(-2.25, base.len()));
        let mut two = base.clone();
        two[0] = 1;
        two[1] = 2;
        assert!(c.agrees(-2.25, two.clone(), k), "2 of 20000 rows differ");
        let mut three = two.clone();
        for i in 10..13 {
            three[i] = (three[i] + 1) % k;
        }
        assert!(
            !c.agrees(-3.4, three.clone(), k),
            "3 rows differ: over 0.01 %"
        );
        // Below 10⁴ rows every row must agree.
        let small: Vec<usize> = (0..900).map(|i| i % k).collect();
        let mut c = LimitCheck::new(-1.0);
        c.agrees(-1.5, small.clone(), k);
        let mut moved = small.clone();
        moved[5] = (moved[5] + 1) % k;
        assert!(!c.agrees(-2.25, moved.clone(), k));
        assert!(c.agrees(-3.4, moved, k));
        let mut c = LimitCheck::new(-1.0);
        let one_cluster = vec![0usize; 900];
        c.agrees(-1.5, one_cluster.clone(), k);
        assert!(
            !c.agrees(-2.25, one_cluster, k),
            "clusters 1 and 2 are empty"
        );
    }
}
