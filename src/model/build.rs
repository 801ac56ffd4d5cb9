//! From a finished run to the payload of its family.

use super::centroid::{CentroidPayload, Metric, Standardize, WeightedPayload};
use super::kernel::{self, KernelPayload};
use super::payload::Payload;
use super::rff::{self, RffPayload};
use crate::algo::{Algorithm, Ctx, Family, Fit, ModelKind, Problem, RunConfig, Weighs};
use crate::error::{Error, Result};
use crate::solver::SpaceBlock;
use ndarray::{Array2, ArrayView2};
use std::ops::Range;

/// Refuses, before a run, what cannot give a model.
pub fn supports(algo: &dyn Algorithm, problem: &Problem) -> Result<()> {
    let id = algo.id();
    if algo.model_kind().is_none() {
        // Name the single-kernel algorithms that save a model: they take
        // the same kernel.
        let instead = crate::algo::takers(|a| {
            a.caps().kernels
                && a.weighs() == Weighs::Nothing
                && a.model_kind() == Some(ModelKind::Kernel)
        });
        let why = match algo.caps().family {
            Family::Spectral => {
                " (its embedding comes from the eigenvectors of the training affinity, as scikit-learn's SpectralClustering, which has no predict either)"
            }
            _ => "",
        };
        return Err(Error::Model(format!(
            "{id} has no out-of-sample rule{why}: use {instead} with the same kernel to predict"
        )));
    }
    if problem.kernels_only() {
        return Err(Error::Model(format!(
            "{id} ran on precomputed kernels: a model needs features to evaluate the kernel on new points, so it cannot predict"
        )));
    }
    Ok(())
}

pub fn payload(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    fit: &Fit,
) -> Result<Payload> {
    let id = algo.id();
    supports(algo, problem)?;
    let k = cfg.k;
    if fit.labels.iter().any(|&l| l >= k) {
        return Err(Error::Model(format!("{id}: a label is not below k = {k}")));
    }
    match algo.model_kind() {
        Some(ModelKind::Centroids) => {
            let c = centroids(id, fit)?;
            Ok(Payload::Centroids(CentroidPayload {
                centroids: c,
                metric: Metric::L2,
            }))
        }
        Some(ModelKind::Medians) => {
            let c = centroids(id, fit)?;
            Ok(Payload::Medians(CentroidPayload {
                centroids: c,
                metric: Metric::L1,
            }))
        }
        Some(ModelKind::Weighted) => weighted(algo, problem, cfg, fit),
        _ => from_space(algo, problem, cfg, fit),
    }
}

fn centroids(id: &str, fit: &Fit) -> Result<ndarray::Array2<f64>> {
    fit.centroids
        .clone()
        .ok_or_else(|| Error::Model(format!("{id}: the result has no centres")))
}

fn weights(id: &str, fit: &Fit) -> Result<Vec<f64>> {
    fit.feature_weights
        .clone()
        .ok_or_else(|| Error::Model(format!("{id}: the result has no feature weights")))
}

/// The feature-weighted family: each algorithm says how its fit places
/// new rows ([`Algorithm::assign_rule`]).
fn weighted(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    fit: &Fit,
) -> Result<Payload> {
    let id = algo.id();
    let w = weights(id, fit)?;
    let r = algo
        .assign_rule(problem, cfg, fit)?
        .ok_or_else(|| Error::Model(format!("{id}: the result has no centres")))?;
    Ok(Payload::Weighted(WeightedPayload {
        centroids: r.centroids,
        multipliers: r.multipliers,
        feature_weights: w,
        standardize: r.standardize.map(|(mean, sd)| Standardize { mean, sd }),
    }))
}

/// The kernel and random-feature families: the weighted blocks of the
/// space the run clustered in ([`Algorithm::space`]).
fn from_space(
    algo: &dyn Algorithm,
    problem: &Problem,
    cfg: &RunConfig,
    fit: &Fit,
) -> Result<Payload> {
    let id = algo.id();
    // A weighted fit's cluster means are weighted: the model keeps the
    // weights and means them alike.
    let sw = problem.sample_weights();
    let blocks = algo.space(problem, cfg, fit, &Ctx::new())?;
    if blocks.is_empty() {
        return Err(Error::Model(format!("{id} has no out-of-sample rule")));
    }
    let x64 = problem.x.f64();
    let x = x64.view();
    let mut grams = Vec::new();
    let mut maps = Vec::new();
    for (b, w) in blocks {
        match b {
            SpaceBlock::Gram(g) => {
                let cols = g.columns().unwrap_or(0..problem.p());
                grams.push(kernel::block(&g, x, cols, w, &fit.labels, sw, cfg.k)?);
            }
            SpaceBlock::Map(f) => {
                let head = map_head(problem, x, f.spec.cols.clone());
                maps.push(rff::map(&f, head.view(), w, &fit.labels, sw, cfg.k)?);
            }
        }
    }
    match (grams.is_empty(), maps.is_empty()) {
        (false, true) => Ok(Payload::Kernel(KernelPayload {
            train: x.to_owned(),
            labels: fit.labels.clone(),
            kernels: grams,
            sample_weights: sw.map(<[f64]>::to_vec),
        })),
        (true, false) => Ok(Payload::Rff(RffPayload { maps })),
        _ => Err(Error::Model(format!(
            "{id}: a space of both kernels and feature maps cannot be saved"
        ))),
    }
}

/// The first rows of the columns `cols` a map's regeneration check reads:
/// from the dense rows `x`, or densified from the sparse ones (a few rows
/// of one view, never n × p).
fn map_head(problem: &Problem, x: ArrayView2<f64>, cols: Range<usize>) -> Array2<f64> {
    let rows = problem.n().min(rff::CHECK_ROWS);
    match problem.csr() {
        Some(c) => c.dense_block(0..rows, cols),
        None => x.slice(ndarray::s![..rows, cols]).to_owned(),
    }
}
