//! Saved models: predict on the training rows gives the fit's labels,
//! new rows from the same blobs land in their blob's cluster, the JSON
//! round trip predicts identically, and bad models and data are refused.

use meanscape::algo::{self, Ctx, RunConfig};
use meanscape::data::{self, DataSource, Dataset, LoadOptions, Scaling};
use meanscape::model::Model;
use ndarray::{Array2, Axis};
use std::collections::BTreeMap;

const SPEC: &str = "gen:blobs,n=360,p=4,k=3,sep=8,seed=3";

/// 3 well-separated blobs in 4 dimensions: even rows to fit, odd rows new.
fn split() -> (Dataset, Array2<f64>, Vec<usize>) {
    let src = DataSource::parse(SPEC).unwrap();
    let all = data::load(&src, &LoadOptions::default()).unwrap();
    let truth = all.labels.as_ref().unwrap().clone();
    let even: Vec<usize> = (0..all.n()).step_by(2).collect();
    let odd: Vec<usize> = (1..all.n()).step_by(2).collect();
    let mut train = Dataset::new("blobs", "blobs.csv", all.x.select(Axis(0), &even));
    train.labels = Some(truth.select(&even));
    let test = all.x.select(Axis(0), &odd);
    let test_truth = odd.iter().map(|&i| truth.ids[i]).collect();
    (train, test, test_truth)
}

struct Fitted {
    model: Model,
    fit_labels: Vec<usize>,
    train_scaled: Array2<f64>,
    train_raw: Array2<f64>,
    train_truth: Vec<usize>,
}

fn fit(id: &str, options: &[(&str, &str)], scale: Option<Scaling>) -> meanscape::Result<Fitted> {
    let (train, _, _) = split();
    let raw = train.x.as_ref().clone();
    let train_truth = train.labels.as_ref().unwrap().ids.clone();
    let a = algo::find(id)?;
    let scale = scale.unwrap_or(a.default_scaling());
    let loaded = meanscape::prepare(DataSource::parse(SPEC)?, train, scale);
    let mut cfg = RunConfig::new(a.as_ref(), &loaded.problem, 3, &[], options)?;
    cfg.seed = 1;
    let result = a.run(&loaded.problem, &cfg, &Ctx::new())?;
    let model = Model::from_run(a.as_ref(), &loaded.problem, &cfg, &result)?
        .with_scaling(loaded.scaling.clone())?;
    Ok(Fitted {
        model,
        fit_labels: result.best.labels.clone(),
        train_scaled: loaded.problem.x.to_owned(),
        train_raw: raw,
        train_truth,
    })
}

fn agreement(a: &[usize], b: &[usize]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// The share of `pred` that equals the cluster the training rows of the
/// same true class mostly got.
fn right_cluster(
    train_truth: &[usize],
    fit_labels: &[usize],
    truth: &[usize],
    pred: &[usize],
) -> f64 {
    let mut votes: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    for (&t, &l) in train_truth.iter().zip(fit_labels) {
        *votes.entry(t).or_default().entry(l).or_default() += 1;
    }
    let cluster_of: BTreeMap<usize, usize> = votes
        .iter()
        .map(|(&t, v)| (t, *v.iter().max_by_key(|(_, c)| **c).unwrap().0))
        .collect();
    let hits = truth
        .iter()
        .zip(pred)
        .filter(|(t, p)| cluster_of[t] == **p)
        .count();
    hits as f64 / truth.len() as f64
}

const EXACT: [&str; 6] = ["kmeans", "khm", "power", "wkmeans", "lw", "sparse-kmeans"];

#[test]
fn every_algorithm_with_a_rule_predicts_its_own_labels_and_new_rows() {
    let (_, test, test_truth) = split();
    let mut report = Vec::new();
    for a in algo::registry() {
        let id = a.id();
        if id == "spectral" {
            continue;
        }
        let f = fit(id, &[], None).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(f.model.algorithm(), id);
        assert_eq!((f.model.k(), f.model.n_features()), (3, 4));
        let own = f.model.predict(f.train_scaled.view()).unwrap();
        let agree = agreement(&own, &f.fit_labels);
        // The stored scaling maps the rows as read onto the fit's rows.
        let raw = f.model.predict_raw(f.train_raw.view()).unwrap();
        assert_eq!(raw, own, "{id}: predict_raw of the training rows");
        let new = f.model.predict_raw(test.view()).unwrap();
        let right = right_cluster(&f.train_truth, &f.fit_labels, &test_truth, &new);
        // How well the fit itself matches the blobs: new rows cannot do
        // better than the partition they are assigned to.
        let fit_right = right_cluster(&f.train_truth, &f.fit_labels, &f.train_truth, &f.fit_labels);
        let line = format!(
            "{id:>15} [{}]: training agreement {agree:.4}, new rows right {right:.4} (the fit's training rows {fit_right:.4})",
            f.model.kind(),
        );
        eprintln!("{line}");
        report.push(line);
        if EXACT.contains(&id) {
            assert_eq!(own, f.fit_labels, "{id}: predict on the training rows");
        } else {
            assert!(agree >= 0.95, "{id}: agreement {agree}");
        }
        assert!(
            right >= 0.95_f64.min(fit_right - 0.03),
            "{id}: new rows right {right}, the fit's own rows {fit_right}"
        );
        // The JSON round trip predicts identically, distances bit for bit.
        let back = Model::from_json(&f.model.to_json()).unwrap();
        assert_eq!(back, f.model, "{id}: round trip");
        let (d0, d1) = (
            f.model.distances_raw(test.view()).unwrap(),
            back.distances_raw(test.view()).unwrap(),
        );
        assert_eq!(d0, d1, "{id}: distances after the round trip");
        assert_eq!(d0.dim(), (test.nrows(), 3));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn kernel_post_processing_is_applied_out_of_sample() {
    let (_, test, test_truth) = split();
    for kernel in [
        "gaussian:center,normalize,rescale",
        "poly:a=1,b=2,normalize",
        "laplacian:rescale",
        "cosine:center",
    ] {
        for id in ["kernel-kmeans", "kpower"] {
            let f = fit(id, &[("kernel", kernel)], None).unwrap();
            let own = f.model.predict(f.train_scaled.view()).unwrap();
            let agree = agreement(&own, &f.fit_labels);
            let new = f.model.predict_raw(test.view()).unwrap();
            let right = right_cluster(&f.train_truth, &f.fit_labels, &test_truth, &new);
            eprintln!("{id} {kernel}: training agreement {agree:.4}, new rows right {right:.4}");
            assert!(agree >= 0.95, "{id} {kernel}: agreement {agree}");
            assert!(right >= 0.9, "{id} {kernel}: new rows right {right}");
        }
    }
}

#[test]
fn kernel_distances_of_training_rows_match_the_gram_matrix() {
    // With every post-processing step on, the out-of-sample kernel of a
    // training row must give the same distances the fit's Gram matrix
    // gives: Kᵢᵢ − 2(KH)ᵢⱼ + (HᵀKH)ⱼⱼ.
    let f = fit(
        "kernel-kmeans",
        &[("kernel", "gaussian:sigma=1.5,center,normalize,rescale")],
        None,
    )
    .unwrap();
    let d = f.model.distances(f.train_scaled.view()).unwrap();
    let (train, _, _) = split();
    let loaded = meanscape::prepare(DataSource::parse(SPEC).unwrap(), train, Scaling::Standard);
    let x = loaded.problem.x.view();
    // The Gram matrix, by the library's own builder.
    let spec = meanscape::internals::kernel::KernelSpec::parse(
        "gaussian:sigma=1.5,center,normalize,rescale",
        "t",
    )
    .unwrap()
    .resolve(1.0, || 1.0)
    .unwrap();
    let g = meanscape::internals::kernel::Gram::build(x, &spec, &Ctx::new()).unwrap();
    let kmat = g.to_array();
    let n = x.nrows();
    let mut counts = [0usize; 3];
    for &l in &f.fit_labels {
        counts[l] += 1;
    }
    let mut h = Array2::<f64>::zeros((n, 3));
    for (i, &l) in f.fit_labels.iter().enumerate() {
        h[[i, l]] = 1.0 / counts[l] as f64;
    }
    let kh = kmat.dot(&h);
    let s = h.t().dot(&kh);
    for i in 0..n {
        for j in 0..3 {
            let want = (kmat[[i, i]] - 2.0 * kh[[i, j]] + s[[j, j]]).max(0.0);
            assert!(
                (d[[i, j]] - want).abs() < 1e-9,
                "({i},{j}): {} vs {want}",
                d[[i, j]]
            );
        }
    }
}

#[test]
fn multi_kernel_and_views_predict() {
    let (_, test, test_truth) = split();
    for (id, opts) in [
        ("mkpower", vec![("views", "1-2,3-4")]),
        (
            "mkpower",
            vec![("kernels", "gaussian:t=0.1;poly:a=1,b=2,center,normalize")],
        ),
        ("rff-mkpower", vec![("views", "1-2,3-4")]),
        ("dmkkm", vec![("kernels", "gaussian:t=0.1;linear")]),
        ("mkkm", vec![("kernels", "gaussian:t=0.1;linear")]),
    ] {
        let f = fit(id, &opts, None).unwrap_or_else(|e| panic!("{id} {opts:?}: {e}"));
        let own = f.model.predict(f.train_scaled.view()).unwrap();
        let agree = agreement(&own, &f.fit_labels);
        let new = f.model.predict_raw(test.view()).unwrap();
        let right = right_cluster(&f.train_truth, &f.fit_labels, &test_truth, &new);
        eprintln!("{id} {opts:?}: training agreement {agree:.4}, new rows right {right:.4}");
        assert!(agree >= 0.95, "{id} {opts:?}: agreement {agree}");
        assert!(right >= 0.9, "{id} {opts:?}: new rows right {right}");
    }
}

#[test]
fn another_version_and_malformed_models_are_refused_with_the_reason() {
    let f = fit("power", &[], None).unwrap();
    let text = f.model.to_json();
    assert!(text.contains("\"format\": \"meanscape-model\""));
    assert!(text.contains("\"version\": 1"));
    let v2 = text.replacen("\"version\": 1", "\"version\": 2", 1);
    let e = Model::from_json(&v2).unwrap_err().to_string();
    assert!(
        e.contains("version 2") && e.contains("reads version 1"),
        "{e}"
    );
    let e = Model::from_json("{\"format\": \"other\"}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("format is 'other'"), "{e}");
    let e = Model::from_json("[1, 2").unwrap_err().to_string();
    assert!(e.contains("not JSON"), "{e}");
    // A centre with a value missing.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["model"]["centroids"][0].as_array_mut().unwrap().pop();
    let e = Model::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("malformed model"), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["k"] = 4.into();
    let e = Model::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("malformed model"), "{e}");
}

#[test]
fn mismatched_columns_and_non_finite_values_are_refused() {
    let f = fit("kmeans", &[], None).unwrap();
    let five = Array2::<f64>::zeros((3, 5));
    let e = f.model.predict(five.view()).unwrap_err().to_string();
    assert_eq!(e, "the model was fit on 4 features; the data has 5");
    let mut bad = Array2::<f64>::zeros((3, 4));
    bad[[1, 2]] = f64::NAN;
    let e = f.model.predict_raw(bad.view()).unwrap_err().to_string();
    assert!(
        e.contains("non-finite") && e.contains("row 2, column 3"),
        "{e}"
    );
}

#[test]
fn spectral_has_no_out_of_sample_rule() {
    let e = fit("spectral", &[], None)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("spectral has no out-of-sample rule"), "{e}");
}

#[test]
fn save_and_load_round_trip_through_a_file() {
    let f = fit("lw", &[], None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    f.model.save(&path).unwrap();
    let back = Model::load(&path).unwrap();
    assert_eq!(back, f.model);
    std::fs::write(&path, "{}").unwrap();
    let e = Model::load(&path).unwrap_err().to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
}

#[test]
fn precomputed_kernels_cannot_give_a_model() {
    use meanscape::internals::kernel::{Gram, KernelStack, stack::raw_spec};
    let (train, _, _) = split();
    let x = train.x.as_ref().clone();
    let k = x.dot(&x.t());
    let stack = KernelStack {
        grams: vec![std::sync::Arc::new(Gram::from_dense(k.view(), &raw_spec()))],
        names: vec!["K1".into()],
    };
    let problem = algo::Problem::from_kernels(std::sync::Arc::new(stack));
    let a = algo::find("kernel-kmeans").unwrap();
    let cfg = RunConfig::new(a.as_ref(), &problem, 3, &[], &[]).unwrap();
    let e = Model::supports("kernel-kmeans", &problem)
        .unwrap_err()
        .to_string();
    assert!(e.contains("precomputed kernels"), "{e}");
    let result = a.run(&problem, &cfg, &Ctx::new()).unwrap();
    let e = Model::from_run(a.as_ref(), &problem, &cfg, &result)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("precomputed kernels") && e.contains("cannot predict"),
        "{e}"
    );
}

#[test]
fn the_recorded_scaling_includes_the_range_fit_of_huge_values() {
    // Values near 1e200 with no scaling are brought into range by a power
    // of two (rescale_exp): predict_raw must apply it too.
    let (train, test, test_truth) = split();
    let big = |a: &Array2<f64>| a.mapv(|v| v * 1e200);
    let mut ds = Dataset::new("big", "big.csv", big(&train.x));
    ds.labels = train.labels.clone();
    let loaded = meanscape::prepare(DataSource::parse(SPEC).unwrap(), ds, Scaling::None);
    assert_ne!(loaded.rescale_exp, 0);
    let a = algo::find("kmeans").unwrap();
    let cfg = RunConfig::new(a.as_ref(), &loaded.problem, 3, &[], &[]).unwrap();
    let result = a.run(&loaded.problem, &cfg, &Ctx::new()).unwrap();
    let model = Model::from_run(a.as_ref(), &loaded.problem, &cfg, &result)
        .unwrap()
        .with_scaling(loaded.scaling.clone())
        .unwrap();
    assert_eq!(model.scaling().unwrap().rescale_exp, loaded.rescale_exp);
    let own = model.predict_raw(big(&train.x).view()).unwrap();
    assert_eq!(own, result.best.labels);
    let new = model.predict_raw(big(&test).view()).unwrap();
    let truth = &train.labels.as_ref().unwrap().ids;
    let right = right_cluster(truth, &result.best.labels, &test_truth, &new);
    assert!(right >= 0.95, "{right}");
}
