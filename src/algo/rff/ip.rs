//! IP-RFF-MKPKM (Chen et al., Algorithm 2;
//! docs/methods/rff-power-kmeans.md#ip-rff-mkpkm):
//! multi-view RFF kernel power k-means with possibilistic typicalities.
//!
//! Each point has a typicality u_ij ∈ (0, 1] to every cluster, shared by
//! the views; the per-view distance becomes
//! d̃_ij,l = u_ij^m ‖φ_l(xᵢ) − θ_j,l‖² + (1 − u_ij)^m η_j,l, so a point far
//! from every centre (an outlier) costs at most about η and pulls the
//! centroids with weight wᵢⱼ·uᵢⱼ^m ≈ 0. The loop is `rff_mkpower::mv_loop`
//! with the possibilistic part on.
//!
//! Choices the paper leaves open
//! (docs/methods/rff-power-kmeans.md#possibilistic-scales): η_j,l = (1/n) Σᵢ
//! ‖φ_l(xᵢ) − θ_j,l‖² at the initial centroids, held fixed (recomputing it
//! breaks monotone descent), times `eta_scale` (default 3; at the K&K
//! scale itself, 1, the typicalities are lower — mean u 0.70 against 0.87
//! on HW2 — the losses saturate sooner and the centres merge more often at
//! a soft s₀: issue 16, bench/hw2.py); s₀ from the softness of the plain
//! feature distances, as `rff-mkpower`; U₀ from eq. 26 at the start;
//! α₀ uniform; labels argmaxⱼ wᵢⱼ·uᵢⱼ^m (the paper's "final membership");
//! s₀ from the start's softness (see `multiview`), annealing every 2
//! iterations. `possibilistic=0` switches the
//! typicalities off (u ≡ 1), which is exactly `rff-mkpower`; a very large
//! `eta_scale` approaches it continuously.
//!
//! The JSON's `typicality` summarises u at each point's own cluster:
//! `outliers` counts points with u < ½ (for m = 2: farther from their
//! centre than its scale), with their rows and the lower quantiles.

use super::common::rff_auto_param;
use super::multiview::{MvParams, MvValues, Possibilistic, mv_features, mv_fit, mv_space};
use crate::error::Result;
use crate::solver::params::{Default, ParamSpec, Scale, declare_params};
use crate::solver::{Common, Ctx, Fit, Problem, RunConfig, Solver, Start};

/// Default multiplier on η_{j,l}: 3 × Krishnapuram & Keller's scale.
pub const IP_ETA_SCALE: f64 = 3.0;

declare_params! {
    /// The parameters `ip-rff-mkpower` declares besides [`MvValues`].
    pub struct IpValues {
        m: f64 = ParamSpec {
            name: "m",
            symbol: "m",
            default: Default::Fixed(2.0),
            min: 1.1,
            max: 10.0,
            scale: Scale::Linear,
            step: 0.1,
            coarse: 0.5,
            integer: false,
            help: "Fuzzifier of the typicalities: u = 1/(1 + (a/b)^{1/(m−1)}), centroid weights w·u^m (the paper: m ≥ 2).",
        },
        eta_scale: f64 = ParamSpec {
            name: "eta_scale",
            symbol: "c_η",
            default: Default::Fixed(IP_ETA_SCALE),
            min: 1e-3,
            max: 1e12,
            scale: Scale::Log,
            step: 1.5,
            coarse: 10.0,
            integer: false,
            help: "Multiplier on the possibilistic scales η_j,l = (1/n) Σᵢ ‖φ_l(xᵢ) − θ_j,l‖² (at the initial centroids; not the annealing factor eta). Smaller: more points look like outliers; very large: no typicality effect (→ rff-mkpower).",
        },
        possibilistic: bool = ParamSpec::flag(
            "possibilistic",
            "IP",
            1.0,
            "1: possibilistic typicalities on (IP-RFF-MKPKM); 0: off, u ≡ 1 (exactly rff-mkpower, the paper's ablation).",
        ),
        alpha_typ: bool = ParamSpec::flag(
            "alpha_typ",
            "α·u",
            0.0,
            "1: the view weights α from the possibilistic distances d̃ = u^m·d + (1−u)^m·η, the paper's α-step (an exact MM step: the objective never increases at fixed s). 0: from each view's own distances, as rff-mkpower; the typicalities still weight the centroids. With 1, a view of pure noise, where every point looks typical, sees its d̃ shrink by up to half and takes α from an informative view.",
        ),
    }
}

pub struct IpRffMkPower;

impl Solver for IpRffMkPower {
    type Params = MvParams;
    fn id(&self) -> &'static str {
        "ip-rff-mkpower"
    }
    fn caps(&self) -> crate::solver::Caps {
        crate::solver::Caps {
            sample_weights: true,
            // Only the feature map reads X, per nonzero (kernel::rff_csr).
            sparse: true,
            ..crate::solver::Caps::new(crate::solver::Family::Rff, "IPRFFMultiViewPowerKMeans")
        }
    }
    fn weighs(&self) -> crate::solver::Weighs {
        crate::solver::Weighs::Kernels
    }
    fn model_kind(&self) -> Option<crate::solver::ModelKind> {
        Some(crate::solver::ModelKind::Rff)
    }
    fn name(&self) -> &'static str {
        "IP-RFF multi-view kernel power k-means"
    }
    fn summary(&self) -> &'static str {
        "Chen et al. (IP-RFF-MKPKM, Algorithm 2): multi-view RFF kernel power k-means with possibilistic typicalities u^m, which bound each point's loss near the cluster scale η and make the centroids robust to outliers; reports how many points look like outliers."
    }
    fn params(&self) -> Vec<ParamSpec> {
        [MvValues::specs(), IpValues::specs()].concat()
    }
    fn auto_param(&self, name: &str, problem: &Problem, k: usize) -> Result<f64> {
        rff_auto_param(name, problem, k)
    }
    fn options(&self) -> Vec<(&'static str, &'static str)> {
        vec![("views", "auto")]
    }
    /// rff-mkpower's weighting; the possibilistic scales η are weighted
    /// means and the typicality-weighted centroids weigh wᵢⱼ·uᵢⱼ^m by the
    /// row's sample weight (u itself is per point, no sum to weigh).
    fn typed(&self, problem: &Problem, cfg: &RunConfig) -> Result<MvParams> {
        let v = IpValues::read(&cfg.params)?;
        let possibilistic = v.possibilistic.then_some(Possibilistic {
            m: v.m,
            eta_scale: v.eta_scale,
            alpha_on_typicality: v.alpha_typ,
        });
        MvParams::read(problem, cfg, possibilistic)
    }
    fn prepare(&self, problem: &Problem, run: &Common, p: &MvParams, ctx: &Ctx) -> Result<()> {
        mv_features(self.id(), problem, run, p, ctx).map(|_| ())
    }
    fn space(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MvParams,
        fit: &Fit,
        ctx: &Ctx,
    ) -> Result<crate::solver::SpaceBlocks> {
        mv_space(self.id(), problem, run, p, fit, ctx)
    }
    fn fit(
        &self,
        problem: &Problem,
        run: &Common,
        p: &MvParams,
        start: Start,
        ctx: &Ctx,
    ) -> Result<Fit> {
        mv_fit(self.id(), problem, run, p, start, ctx)
    }
}
