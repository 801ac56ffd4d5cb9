//! Where a multi-kernel algorithm's kernels come from — the one function
//! `mkpower` (and `dmkkm`) call: the kernel list on all features, the list
//! on every view (`--views`: one kernel per view and spec, each view with
//! its own bandwidth rule), or the precomputed stack the data file holds
//! (`--kernels precomputed`). The memory guard counts every matrix before
//! one is built or post-processed.

use super::gram::GramKey;
use super::gram::{Gram, stored_bytes};
use super::spec::{GRAM_FAMILY, KernelSpec, Kind, Post, Precision, parse_list};
use super::views::{View, parse_column_views};
use super::{Dmax2Key, SigmaRuleKey, auto_sigma, bandwidth, dmax2};
use crate::error::{Error, Result};
use crate::memory;
use crate::solver::{Ctx, Problem, SpaceBlock};
use std::ops::Range;
use std::sync::Arc;

/// The text of `--kernels` that selects the data file's own kernels.
pub const PRECOMPUTED: &str = "precomputed";

/// The default of `--kernels` in every multi-kernel algorithm: one
/// Gaussian per view (each with its own σ rule) when `--views` is given,
/// the 12-kernel [`super::DEFAULT_SET`] on all features otherwise, the
/// file's own kernels on a kernels-only problem. `auto:FLAGS` applies the
/// flags to every kernel it stands for.
pub const AUTO: &str = "auto";

/// Why `auto` gives one kernel per view: the papers that run on views
/// build one kernel per view (DMKKM's Handwritten: 6 kernels for 6
/// views; RFF-MKPKM: one Gaussian per view; docs/methods/kernel-power-kmeans.md#the-12-kernel-set).
/// The 12-kernel set on every view (72 kernels on Handwritten)
/// is MKPK's single-view recipe and loses NMI 0.1 there.
const AUTO_VIEWS_REASON: &str = "--views without --kernels: one Gaussian per view, each with the σ rule on its own columns (the multi-view papers' setting: DMKKM's Handwritten has one kernel per view)";
const AUTO_PLAIN_REASON: &str = "no --views and no --kernels: the 12-kernel set (7 Gaussian, 4 polynomial, cosine; MKPK after Du et al. 2015) on all features";
const AUTO_STACK_REASON: &str = "a kernels-only file without --kernels: its precomputed kernels";

/// The views text that means "no views" (absent, `none`).
fn given_views(views: Option<&str>) -> Option<&str> {
    views
        .map(str::trim)
        .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("none"))
}

/// `--kernels` with `auto` replaced by the list it stands for, and why
/// (`None`: the text was not `auto`).
pub fn resolve_auto(
    problem: &Problem,
    kernels: &str,
    views: Option<&str>,
) -> (String, Option<&'static str>) {
    let text = kernels.trim();
    let (head, flags) = match text.split_once(':') {
        Some((h, f)) => (h.trim(), Some(f.trim())),
        None => (text, None),
    };
    if !head.eq_ignore_ascii_case(AUTO) {
        return (text.to_string(), None);
    }
    let (list, why) = if problem.kernels_only() {
        (PRECOMPUTED, AUTO_STACK_REASON)
    } else if given_views(views).is_some() {
        ("gaussian", AUTO_VIEWS_REASON)
    } else {
        ("default", AUTO_PLAIN_REASON)
    };
    let out = match flags {
        Some(f) if !f.is_empty() => format!("{list}:{f}"),
        _ => list.to_string(),
    };
    (out, Some(why))
}

/// Which kernel set the `--kernels` and `--views` options give, and why:
/// what a run reports beside its kernel list.
pub fn kernel_set(
    problem: &Problem,
    kernels: &str,
    views: Option<&str>,
) -> crate::solver::KernelSet {
    let (used, why) = resolve_auto(problem, kernels, views);
    crate::solver::KernelSet {
        option: kernels.trim().to_string(),
        used,
        reason: why.unwrap_or("given with --kernels").to_string(),
    }
}

/// Which kernels an algorithm runs on.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelSource {
    /// Computed from the features: every spec on all columns, or on every
    /// view (views × specs, view-major).
    Features {
        specs: Vec<KernelSpec>,
        views: Option<Vec<View>>,
    },
    /// The problem's precomputed stack, each kernel post-processed by
    /// `post` and stored in `precision`.
    Precomputed { post: Post, precision: Precision },
}

/// A kernel ready to use, with the names it is shown under.
#[derive(Clone)]
pub struct NamedGram {
    pub gram: Arc<Gram>,
    /// `fou: gaussian σ=1.52`, `K3` (a precomputed kernel), or the
    /// resolved spec when there are no views.
    pub name: String,
    /// The spec as given, post-processing defaults applied
    /// (`gaussian:t=0.1,normalize,rescale`; `precomputed:normalize`).
    pub given: String,
    /// The view or precomputed kernel's own name (`fou`, `K3`), `None`
    /// for a kernel on all features.
    pub part: Option<String>,
}

impl KernelSource {
    /// Reads `--kernels` (`default_kernels` when not given) and `--views`
    /// (`None`, or `none`: no views) against the problem, applying
    /// `default_post` to every spec that does not set its own flags.
    /// `auto` is resolved first ([`resolve_auto`]: one Gaussian per view
    /// with views, the 12-kernel set without). On a kernels-only problem
    /// the default list means the precomputed kernels.
    ///
    /// # Errors
    /// [`Error::Param`] for a list or views that do not parse, views with
    /// precomputed kernels, `precomputed` on data without kernels, or
    /// computed kernels on data without features.
    pub fn parse(
        problem: &Problem,
        kernels: &str,
        default_kernels: &str,
        views: Option<&str>,
        default_post: Post,
    ) -> Result<KernelSource> {
        let views = given_views(views);
        let (resolved, _) = resolve_auto(problem, kernels, views);
        let text = resolved.as_str();
        let (head, flags) = match text.split_once(':') {
            Some((h, f)) => (h.trim(), Some(f)),
            None => (text, None),
        };
        let wants_stack = head.eq_ignore_ascii_case(PRECOMPUTED)
            || (problem.kernels_only() && (text == default_kernels || text == "default"));
        if wants_stack {
            if problem.kernels.is_none() {
                return Err(Error::param(format!(
                    "--kernels {text}: the data holds features, not kernels; load a kernel file (a .mat with KH, n×n×v, or a v×n×n .npy) or give kernel specs"
                )));
            }
            if let Some(v) = views {
                return Err(Error::param(format!(
                    "--views '{v}' does not apply to precomputed kernels (they are the views already)"
                )));
            }
            // The flags parse as those of any kernel spec.
            let spec = match flags {
                Some(f) => KernelSpec::parse(&format!("linear:{f}"), "--kernels")?,
                None => KernelSpec::parse("linear", "--kernels")?,
            }
            .with_default_post(default_post);
            return Ok(KernelSource::Precomputed {
                post: spec.post,
                precision: spec.precision,
            });
        }
        if problem.kernels_only() {
            return Err(Error::param(format!(
                "--kernels '{text}': this file holds precomputed kernels and no features to compute kernels from; use --kernels precomputed"
            )));
        }
        let specs: Vec<KernelSpec> = parse_list(text, "--kernels")?
            .into_iter()
            .map(|s| s.with_default_post(default_post))
            .collect();
        if specs.is_empty() {
            return Err(Error::param(
                "--kernels: no kernel given; use SPEC;SPEC… or 'default'",
            ));
        }
        let views = views
            .map(|v| parse_column_views(v, problem.p()))
            .transpose()?;
        Ok(KernelSource::Features { specs, views })
    }

    /// How many kernels this source gives on `problem`.
    pub fn count(&self, problem: &Problem) -> usize {
        match self {
            KernelSource::Features { specs, views } => {
                specs.len() * views.as_ref().map_or(1, Vec::len)
            }
            KernelSource::Precomputed { .. } => problem.kernels.as_ref().map_or(0, |s| s.len()),
        }
    }

    /// Bytes the kernels take once built: v·n²/2 entries (and, for
    /// precomputed kernels, the post-processed copies beside the stack
    /// already held).
    pub fn bytes(&self, problem: &Problem) -> f64 {
        let n = problem.n();
        match self {
            KernelSource::Features { specs, views } => {
                let per: f64 = specs.iter().map(|s| stored_bytes(n, s.precision)).sum();
                per * views.as_ref().map_or(1, Vec::len) as f64
            }
            KernelSource::Precomputed { post, precision } => {
                if *post == Post::default() && *precision == Precision::F64 {
                    0.0
                } else {
                    stored_bytes(n, *precision) * self.count(problem) as f64
                }
            }
        }
    }
}

/// The memory guard of a kernel source, before anything is built.
///
/// # Errors
/// [`Error::Resource`] above the budget.
pub fn guard_source(
    problem: &Problem,
    algo: &str,
    source: &KernelSource,
    max_memory: Option<u64>,
) -> Result<()> {
    guard_source_with(problem, algo, source, None, max_memory)
}

/// [`guard_source`] counting, with the kernels, working memory the
/// algorithm holds beside them (`working`: bytes and what they are, "the
/// combined kernel K_α").
///
/// # Errors
/// [`Error::Resource`] above the budget.
pub fn guard_source_with(
    problem: &Problem,
    algo: &str,
    source: &KernelSource,
    working: Option<(f64, &str)>,
    max_memory: Option<u64>,
) -> Result<()> {
    let v = source.count(problem);
    let n = problem.n();
    let mut what = match v {
        1 => "its kernel matrix".to_string(),
        v => format!("{v} kernel matrices"),
    };
    let extra = working.map_or(0.0, |(bytes, name)| {
        what.push_str(" and ");
        what.push_str(name);
        bytes
    });
    let detail = format!(
        "n = {n}; a kernel matrix stores its lower triangle, ≈ n²/2 × 8 bytes (4 with gram=f32)"
    );
    let can_halve = match source {
        KernelSource::Features { specs, .. } => specs.iter().any(|s| s.precision == Precision::F64),
        KernelSource::Precomputed { precision, .. } => *precision == Precision::F64,
    };
    memory::guard(
        algo,
        &what,
        source.bytes(problem) + extra,
        &detail,
        &super::too_large_fix(can_halve),
        max_memory,
    )
}

/// The kernels of `source` on `problem`, each with its display name, from
/// the problem's cache or built now (after the memory guard). `sigma` is
/// the algorithm's bandwidth parameter: for views it is relative, σ_view
/// = sigma / σ_auto(all columns) × σ_auto(view), so the automatic default
/// gives every view its own rule. Gram matrices cached under other specs
/// are dropped first.
///
/// # Errors
/// [`Error::Resource`] above the memory budget, [`Error::Param`] for a
/// bandwidth that cannot be fixed, [`Error::Cancelled`].
pub fn kernel_grams(
    problem: &Problem,
    source: &KernelSource,
    sigma: f64,
    max_memory: Option<u64>,
    ctx: &Ctx,
    algo: &str,
) -> Result<Vec<NamedGram>> {
    guard_source(problem, algo, source, max_memory)?;
    match source {
        KernelSource::Precomputed { post, precision } => {
            precomputed(problem, *post, *precision, ctx)
        }
        KernelSource::Features { specs, views } => match views {
            None => {
                let resolved = specs
                    .iter()
                    .map(|s| s.resolve(sigma, || dmax2(problem)))
                    .collect::<Result<Vec<_>>>()?;
                let grams = super::grams(problem, &resolved, ctx)?;
                Ok(grams
                    .into_iter()
                    .zip(specs)
                    .map(|(gram, spec)| NamedGram {
                        name: gram.spec().to_string(),
                        given: given_text(spec),
                        gram,
                        part: None,
                    })
                    .collect())
            }
            Some(views) => on_views(problem, specs, views, sigma, ctx),
        },
    }
}

/// The spec as given, with the post-processing flags a default added.
pub fn given_text(s: &KernelSpec) -> String {
    let mut t = s.source.clone();
    for (on, given, flag) in [
        (s.post.center, s.post_given[0], "center"),
        (s.post.normalize, s.post_given[1], "normalize"),
        (s.post.rescale, s.post_given[2], "rescale"),
    ] {
        if on && !given {
            t.push(if t.contains(':') { ',' } else { ':' });
            t.push_str(flag);
        }
    }
    t
}

fn on_views(
    problem: &Problem,
    specs: &[KernelSpec],
    views: &[View],
    sigma: f64,
    ctx: &Ctx,
) -> Result<Vec<NamedGram>> {
    let ratio = sigma / auto_sigma(problem);
    let mut plan = Vec::with_capacity(views.len() * specs.len());
    for view in views {
        let rule = view_sigma_rule(problem, &view.cols);
        for spec in specs {
            let r = spec.resolve(ratio * rule, || view_dmax2(problem, &view.cols))?;
            let key = format!("{GRAM_FAMILY}{r}@{}..{}|", view.cols.start, view.cols.end);
            plan.push((view, spec, r, key));
        }
    }
    let wanted: Vec<String> = plan.iter().map(|p| p.3.clone()).collect();
    problem.retain_family(GRAM_FAMILY, &wanted);
    let mut out = Vec::with_capacity(plan.len());
    for (view, spec, r, key) in plan {
        ctx.check()?;
        let gram = problem.cached(&GramKey(key), || {
            let x = problem.x.rows().cols(view.cols.clone()).f64_owned();
            Gram::build(x.view(), &r, ctx).map(|g| g.on_columns(view.cols.clone()))
        })?;
        let kind = if r.kind.has_sigma() {
            format!("{} σ={}", r.kind.name(), short(r.sigma.unwrap_or(f64::NAN)))
        } else {
            r.to_string()
        };
        out.push(NamedGram {
            name: format!("{}: {kind}", view.name),
            given: given_text(spec),
            gram,
            part: Some(view.name.clone()),
        });
    }
    Ok(out)
}

fn short(v: f64) -> String {
    format!("{:.3}", v)
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

fn precomputed(
    problem: &Problem,
    post: Post,
    precision: Precision,
    ctx: &Ctx,
) -> Result<Vec<NamedGram>> {
    let Some(stack) = &problem.kernels else {
        return Err(Error::param(
            "--kernels precomputed: the data holds no precomputed kernels",
        ));
    };
    let raw = post == Post::default() && precision == Precision::F64;
    let keys: Vec<String> = (0..stack.len())
        .map(|l| format!("{GRAM_FAMILY}precomputed#{l}:{post:?}:{precision:?}|"))
        .collect();
    // Copies made under other flags go before these are made.
    problem.retain_family(GRAM_FAMILY, if raw { &[] } else { &keys });
    let given = given_text(
        &KernelSpec {
            source: PRECOMPUTED.into(),
            ..KernelSpec::new(Kind::Precomputed)
        }
        .with_default_post(post),
    );
    let mut out = Vec::with_capacity(stack.len());
    for (l, (g, name)) in stack.grams.iter().zip(&stack.names).enumerate() {
        ctx.check()?;
        let gram = if raw {
            g.clone()
        } else {
            ctx.stage(
                &format!("post-processing kernel {name}"),
                l as f64 / stack.len() as f64,
            );
            problem.cached(&GramKey(keys[l].clone()), || {
                Ok(g.with_post(post, precision))
            })?
        };
        out.push(NamedGram {
            name: name.clone(),
            given: given.clone(),
            gram,
            part: Some(name.clone()),
        });
    }
    Ok(out)
}

/// The KPK bandwidth rule on a column group, cached (1 for a group
/// without spread).
pub fn view_sigma_rule(problem: &Problem, cols: &Range<usize>) -> f64 {
    let key = SigmaRuleKey(format!("kernel:sigma_rule|{}..{}", cols.start, cols.end));
    problem
        .cached(&key, || {
            let s = match problem.csr() {
                // Sparse rows: the same statistic per nonzero.
                Some(x) => bandwidth::sigma_rule_csr(x, cols.clone()),
                None => {
                    let x = problem.x.rows().cols(cols.clone()).f64_owned();
                    bandwidth::sigma_rule(x.view())
                }
            };
            Ok(if s > 0.0 { s } else { 1.0 })
        })
        .map_or(1.0, |v| *v)
}

/// The largest squared pairwise distance within a column group, cached.
fn view_dmax2(problem: &Problem, cols: &Range<usize>) -> f64 {
    let key = Dmax2Key(format!("kernel:dmax2|{}..{}", cols.start, cols.end));
    problem
        .cached(&key, || {
            let x = problem.x.rows().cols(cols.clone()).f64_owned();
            Ok(bandwidth::max_sq_dist(x.view()))
        })
        .map_or(0.0, |v| *v)
}

/// The kernels as blocks of a run's space ([`crate::solver::Solver::space`]),
/// each with its weight in the combined kernel.
pub fn weighted_blocks(
    named: &[NamedGram],
    weights: impl IntoIterator<Item = f64>,
) -> crate::solver::SpaceBlocks {
    named
        .iter()
        .zip(weights)
        .map(|(g, w)| (SpaceBlock::Gram(g.gram.clone()), w))
        .collect()
}
