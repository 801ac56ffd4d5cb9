//! Kernel k-means (Girolami 2002; Dhillon, Guan & Kulis 2004), Lloyd
//! style on the Gram matrix: the s → −∞ limit of kernel power k-means
//! (docs/methods/kernel-power-kmeans.md#kernel-k-means).
//!
//! Each iteration computes the distances to the implicit cluster means with
//! one product G = K·Ω, Ω the cluster indicators scaled by 1/|C_j|
//! (eq. 7), and reassigns every point to its nearest mean; it stops when no
//! label changes. Seeds come from k-means++ (or random rows) in feature
//! space; an empty cluster is re-seeded at the point farthest from its
//! current mean.

use crate::error::Result;
use crate::kernel::{self, Gram, KernelChoice};
use crate::solver::iterate::{Eval, Iteration, Loop, Rule, Step, iterate};
use crate::solver::lloyd::assign;
use crate::solver::params::declare_params;
use crate::solver::specs::max_iter_spec;
use crate::solver::{Common, Ctx, Fit, ParamSpec, Problem, RunConfig, Solver, Start, StartMemory};
use ndarray::Array2;

pub struct KernelKMeans;

declare_params! {
    /// The declared parameters of `kernel-kmeans`.
    pub struct KernelKMeansValues {
        sigma: f64 = kernel::sigma_spec(),
        max_iter: usize = max_iter_spec(300.0),
    }
}

/// The parameters of `kernel-kmeans`.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelKMeansParams {
    pub kernel: KernelChoice,
    pub values: KernelKMeansValues,
}

impl Solver for KernelKMeans {
    type Params = KernelKMeansParams;
    fn id(&self) -> &'static str {
        "kernel-kmeans"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            kernels: true,
            sample_weights: true,
            ..crate::solver::Caps::new(crate::solver::Family::Kernel, "KernelKMeans")
        }
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Kernel)
    }
    fn name(&self) -> &'static str {
        "Kernel k-means"
    }
    fn summary(&self) -> &'static str {
        "Lloyd's algorithm in a kernel's feature space (Girolami 2002), k-means++ seeding in feature space, empty clusters re-seeded at the farthest point; the s → −∞ limit of kpower."
    }
    fn params(&self) -> Vec<ParamSpec> {
        KernelKMeansValues::specs()
    }
    fn auto_param(&self, _name: &str, problem: &Problem, _k: usize) -> Result<f64> {
        Ok(kernel::auto_sigma(problem))
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("kernel", "gaussian")]
    }
    fn typed(&self, _problem: &Problem, cfg: &RunConfig) -> Result<KernelKMeansParams> {
        let values = KernelKMeansValues::read(&cfg.params)?;
        Ok(KernelKMeansParams {
            kernel: KernelChoice::parse_psd(cfg.option("kernel", "gaussian"), values.sigma)?,
            values,
        })
    }
    fn prepare(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KernelKMeansParams,
        ctx: &Ctx,
    ) -> Result<()> {
        kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id()).map(|_| ())
    }
    fn start_memory(
        &self,
        problem: &Problem,
        run: &Common,
        _p: &KernelKMeansParams,
    ) -> StartMemory {
        StartMemory::seeding(problem.n(), run.k, run.init).plus_nk(
            problem.n(),
            run.k,
            2,
            "arrays of memberships and distances",
        )
    }
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KernelKMeansParams,
        _fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        let gram = kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id())?;
        Ok(vec![(crate::solver::SpaceBlock::Gram(gram), 1.0)])
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &KernelKMeansParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        let gram = kernel::single_gram(problem, &p.kernel, run.max_memory, ctx, self.id())?;
        let mut rng = start.rng();
        let w = problem.sample_weights();
        let seeds = kernel::weighted_seeds(&gram, w, run.k, run.init, &mut rng)?;
        let mut fit = weighted_kernel_lloyd(&gram, w, &seeds, p.values.max_iter, ctx)?;
        fit.extra.kernel = Some(kernel::describe(&gram));
        Ok(fit)
    }
}

/// Kernel k-means from seed rows. The objective is Σᵢ minⱼ dᵢⱼ.
pub fn kernel_lloyd(gram: &Gram, seeds: &[usize], max_iter: usize, ctx: &Ctx) -> Result<Fit> {
    weighted_kernel_lloyd(gram, None, seeds, max_iter, ctx)
}

/// [`kernel_lloyd`] on rows weighted by sample weights `w`: each implicit
/// mean is Σᵢ wᵢφ(xᵢ)/Σᵢ wᵢ over its cluster, the objective Σᵢ wᵢ minⱼ dᵢⱼ,
/// and a cluster of weight 0 is empty.
pub fn weighted_kernel_lloyd(
    gram: &Gram,
    w: Option<&[f64]>,
    seeds: &[usize],
    max_iter: usize,
    ctx: &Ctx,
) -> Result<Fit> {
    let k = seeds.len();
    let mut step = KernelLloydStep {
        gram,
        w,
        omega: kernel::seed_omega(gram.n(), seeds),
        pending: None,
        reseeded: 0,
    };
    let how = Loop {
        rule: Rule::Step,
        max_iter,
        k,
        events: true,
    };
    let mut fit = iterate(&mut step, how, ctx)?;
    if step.reseeded > 0 {
        fit.warnings.push(format!(
            "{} empty cluster(s) were re-seeded at the farthest points during the run",
            step.reseeded
        ));
    }
    Ok(fit)
}

/// One Lloyd iteration in feature space: the distances to the implicit
/// means (one product K·Ω), the nearest mean, then Ω of the new clusters.
struct KernelLloydStep<'a> {
    gram: &'a Gram,
    /// Sample weights (None: all 1).
    w: Option<&'a [f64]>,
    omega: Array2<f64>,
    /// Labels and distances of the last assignment.
    pending: Option<(Vec<usize>, Vec<f64>)>,
    reseeded: usize,
}

impl Step for KernelLloydStep<'_> {
    fn eval(&mut self, it: Iteration) -> Result<Eval> {
        let d = kernel::feature_dists(self.gram, self.omega.view());
        let (lab, dist) = assign(d.view());
        let objective: f64 = match self.w {
            None => dist.iter().sum(),
            Some(w) => dist.iter().zip(w).map(|(d, w)| d * w).sum(),
        };
        let settled = lab == it.prev_labels;
        self.pending = Some((lab.clone(), dist));
        Ok(Eval::new(objective, lab, settled))
    }

    fn advance(&mut self, _m: usize) -> Result<()> {
        let Some((labels, dist)) = self.pending.take() else {
            return Ok(());
        };
        let (n, k) = self.omega.dim();
        let wt = |i: usize| crate::solver::lloyd::weight(self.w, i);
        let mut counts = vec![0usize; k];
        let mut totals = vec![0.0; k];
        for (i, &l) in labels.iter().enumerate() {
            counts[l] += 1;
            totals[l] += wt(i);
        }
        // Empty clusters (no weight): re-seed at the points farthest from
        // their mean (docs/methods/kernel-power-kmeans.md#kernel-k-means),
        // farthest first, each point used once.
        let empty: Vec<usize> = (0..k).filter(|&j| totals[j] == 0.0).collect();
        let mut far: Vec<usize> = Vec::new();
        if !empty.is_empty() {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&a, &b| dist[b].total_cmp(&dist[a]).then(a.cmp(&b)));
            far = idx
                .into_iter()
                .filter(|&i| counts[labels[i]] > 1)
                .take(empty.len())
                .collect();
        }
        let mut omega = Array2::zeros((n, k));
        for (i, &l) in labels.iter().enumerate() {
            if totals[l] > 0.0 {
                omega[[i, l]] = match self.w {
                    None => 1.0 / counts[l] as f64,
                    Some(w) => w[i] / totals[l],
                };
            }
        }
        for (&j, &i) in empty.iter().zip(&far) {
            omega[[i, j]] = 1.0;
            self.reseeded += 1;
        }
        self.omega = omega;
        Ok(())
    }
}
