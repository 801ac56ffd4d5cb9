//! The regularisation path view as a component: the path computed (or
//! being computed), whether it is shown in the Feature weights pane, and
//! its cursor. ←/→ move the cursor along the axis; Enter asks `App` to set
//! the slider to the cursor's value, since the sliders are `App`'s.

use super::{Component, Outcome, Request};
use crate::algo::path::PathResult;
use crate::tui::app::worker::Job;
use crate::tui::keys::{self, Action, Context};
use crate::tui::panes;
use crate::tui::panes::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

/// What the path view draws, in the order of its x axis (log₁₀ of the
/// grid value, increasing to the right).
#[derive(Debug, Clone, PartialEq)]
pub struct PathSeries {
    /// Indices of the path's points, by increasing grid value.
    pub order: Vec<usize>,
    /// log₁₀ of each point's grid value, in `order`.
    pub x: Vec<f64>,
    pub selected: Vec<usize>,
    /// "NMI" with labels, else "stability".
    pub score_name: &'static str,
    /// In [0, 1], in `order`.
    pub score: Vec<f64>,
    /// 1 − ACC, with labels.
    pub cer: Option<Vec<f64>>,
    /// The features drawn as curves, most weight along the path first.
    pub top: Vec<usize>,
}

/// The series of `res`: the score against `truth` (NMI and CER), or
/// without labels the stability of the partition along the path (mean ARI
/// with the neighbouring points), and the `top` features by their weight
/// summed along the path. Points with a grid value ≤ 0 have no place on a
/// log axis and are left out.
pub fn path_series(res: &PathResult, truth: Option<&[usize]>, top: usize) -> PathSeries {
    let mut order: Vec<usize> = (0..res.points.len())
        .filter(|&i| res.points[i].lambda.is_finite() && res.points[i].lambda > 0.0)
        .collect();
    order.sort_by(|&a, &b| res.points[a].lambda.total_cmp(&res.points[b].lambda));
    let pts = |i: usize| &res.points[i];
    let x = order.iter().map(|&i| pts(i).lambda.log10()).collect();
    let selected = order.iter().map(|&i| pts(i).selected).collect();
    let usable = |t: &[usize]| order.iter().all(|&i| pts(i).labels.len() == t.len());
    let (score_name, score, cer) = match truth.filter(|t| usable(t)) {
        Some(t) => {
            let s: Vec<_> = order
                .iter()
                .map(|&i| crate::metrics::Scores::compute(t, &pts(i).labels))
                .collect();
            (
                "NMI",
                s.iter().map(|s| s.nmi).collect(),
                Some(s.iter().map(|s| 1.0 - s.acc).collect()),
            )
        }
        None => {
            let ari = |a: usize, b: usize| crate::metrics::ari(&pts(a).labels, &pts(b).labels);
            let stab = (0..order.len())
                .map(|j| {
                    let near: Vec<usize> = [j.checked_sub(1), Some(j + 1)]
                        .into_iter()
                        .flatten()
                        .filter(|&m| m < order.len())
                        .collect();
                    if near.is_empty() {
                        return 1.0;
                    }
                    near.iter().map(|&m| ari(order[j], order[m])).sum::<f64>() / near.len() as f64
                })
                .map(|v: f64| {
                    if v.is_finite() {
                        v.clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                })
                .collect();
            ("stability", stab, None)
        }
    };
    let mass = res.features_by_mass();
    PathSeries {
        order,
        x,
        selected,
        score_name,
        score,
        cer,
        top: mass.into_iter().take(top).map(|(j, _)| j).collect(),
    }
}

#[derive(Default)]
pub struct PathPane {
    /// Whether the path is drawn in place of the weights.
    pub shown: bool,
    pub job: Option<Job>,
    pub progress: f64,
    /// The algorithm the path was asked for.
    pub for_algo: String,
    pub result: Option<Result<PathResult, String>>,
    /// Chosen point of the path (None: the one nearest the slider).
    pub cursor: Option<usize>,
    /// What the path was computed from, its own parameter left out: a run
    /// with another key makes it stale.
    pub key: String,
}

impl PathPane {
    /// Whether there is a path, or one is being computed.
    pub fn has_path(&self) -> bool {
        self.job.is_some() || self.result.is_some()
    }

    pub fn finished(&self) -> Option<&PathResult> {
        self.result.as_ref()?.as_ref().ok()
    }

    /// The point the cursor is on: the one chosen, else the one nearest
    /// (on the log axis) to `now`, the slider's value.
    pub fn cursor_at(&self, now: Option<f64>) -> Option<usize> {
        let res = self.finished()?;
        let n = res.points.len();
        if n == 0 {
            return None;
        }
        if let Some(c) = self.cursor {
            return Some(c.min(n - 1));
        }
        let now = now.map_or(0.0, f64::log10);
        (0..n)
            .filter(|&i| res.points[i].lambda > 0.0)
            .min_by(|&a, &b| {
                let d = |i: usize| (res.points[i].lambda.log10() - now).abs();
                d(a).total_cmp(&d(b))
            })
    }

    /// Moves the cursor `by` points along the axis (increasing value).
    fn step(&mut self, by: i64, now: Option<f64>) {
        let Some(res) = self.finished() else { return };
        let order = path_series(res, None, 0).order;
        let Some(c) = self.cursor_at(now) else { return };
        let pos = order.iter().position(|&i| i == c).unwrap_or(0) as i64;
        let to = (pos + by).clamp(0, order.len() as i64 - 1) as usize;
        self.cursor = order.get(to).copied();
    }
}

/// What the path view reads from the rest of the UI to draw itself.
pub struct PathDraw<'a> {
    pub focused: bool,
    /// The dataset's labels, when it has them: the score is then NMI.
    pub truth: Option<&'a [usize]>,
    pub names: &'a [String],
    /// The k of the last run.
    pub k: usize,
    /// The path's parameter as the slider has it now.
    pub now: Option<f64>,
}

impl Component for PathPane {
    type DrawCtx<'a> = PathDraw<'a>;
    /// The path's parameter as the slider has it now.
    type KeyCtx<'a> = Option<f64>;
    const CONTEXT: Context = Context::Panes;

    fn handle(&mut self, action: &Action, now: Option<f64>) -> Outcome {
        match action {
            Action::Step { steps, coarse } => {
                let by = if *coarse { 5 } else { 1 } * *steps as i64;
                self.step(by, now);
                Outcome::Handled
            }
            Action::Activate => Outcome::Request(Request::ApplyPathPoint),
            _ => Outcome::Ignored,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: PathDraw<'_>, theme: &Theme) {
        panes::path::render(f, area, self, &ctx, theme);
    }

    /// The panes' row that opens the path (it names the path's keys).
    fn commands(&self) -> Vec<(String, &'static str)> {
        keys::help_rows_for(Context::Panes, &[Action::TogglePath])
    }
}
