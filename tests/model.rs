//! Saved models: predict on the training rows gives the fit's labels,
//! new rows from the same blobs land in their blob's cluster, the JSON
//! round trip predicts identically, and bad models and data are refused.

use meanscape::algo::{self, Ctx, ModelKind, RunConfig};
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
    let mut train = Dataset::new("blobs", "blobs.csv", all.x.f64().select(Axis(0), &even));
    train.labels = Some(truth.select(&even));
    let test = all.x.f64().select(Axis(0), &odd);
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
    let raw = train.x.f64().into_owned();
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
        train_scaled: loaded.problem.x.f64().into_owned(),
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

#[test]
fn every_algorithm_with_a_rule_predicts_its_own_labels_and_new_rows() {
    let (_, test, test_truth) = split();
    let mut report = Vec::new();
    for a in algo::registry() {
        let id = a.id();
        let Some(kind) = a.model_kind() else {
            assert_eq!(id, "spectral", "only spectral has no out-of-sample rule");
            continue;
        };
        let f = fit(id, &[], None).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(f.model.algorithm(), id);
        assert_eq!(f.model.kind(), kind.name(), "{id}: the declared model kind");
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
        if matches!(
            kind,
            ModelKind::Centroids | ModelKind::Medians | ModelKind::Weighted
        ) {
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
    let x64 = loaded.problem.x.f64();
    let x = x64.view();
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
    let x = train.x.f64().into_owned();
    let k = x.dot(&x.t());
    let stack = KernelStack {
        grams: vec![std::sync::Arc::new(Gram::from_dense(k.view(), &raw_spec()))],
        names: vec!["K1".into()],
    };
    let problem = algo::Problem::from_kernels(std::sync::Arc::new(stack));
    let a = algo::find("kernel-kmeans").unwrap();
    let cfg = RunConfig::new(a.as_ref(), &problem, 3, &[], &[]).unwrap();
    let e = Model::supports(a.as_ref(), &problem)
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
    let mut ds = Dataset::new("big", "big.csv", big(&train.x.f64().into_owned()));
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
    let own = model
        .predict_raw(big(&train.x.f64().into_owned()).view())
        .unwrap();
    assert_eq!(own, result.best.labels);
    let new = model.predict_raw(big(&test).view()).unwrap();
    let truth = &train.labels.as_ref().unwrap().ids;
    let right = right_cluster(truth, &result.best.labels, &test_truth, &new);
    assert!(right >= 0.95, "{right}");
}

// ---------------------------------------------------------------- hostile files

/// A real model's JSON as a value, to edit.
fn json_of(id: &str, options: &[(&str, &str)]) -> serde_json::Value {
    let f = fit(id, options, None).unwrap();
    serde_json::from_str(&f.model.to_json()).unwrap()
}

fn refused_with(v: &serde_json::Value, needles: &[&str]) -> String {
    let e = Model::from_json(&v.to_string())
        .err()
        .unwrap_or_else(|| panic!("accepted; expected {needles:?}"))
        .to_string();
    for n in needles {
        assert!(e.contains(n), "expected '{n}' in: {e}");
    }
    assert!(!e.chars().any(char::is_control), "{e:?}");
    e
}

/// A centroid model with `k` centres of zeros, written compactly: small
/// text that declares a lot.
fn many_centres(k: usize) -> String {
    let mut v = json_of("kmeans", &[]);
    v["model"]["centroids"] = serde_json::json!([]);
    v["fit"]["sizes"] = serde_json::json!([]);
    v["k"] = k.into();
    let n = v["fit"]["n"].as_u64().unwrap();
    let text = v.to_string();
    let rows = vec!["[0,0,0,0]"; k].join(",");
    let mut sizes = vec!["0"; k];
    let first = n.to_string();
    sizes[0] = &first;
    text.replacen("\"centroids\":[]", &format!("\"centroids\":[{rows}]"), 1)
        .replacen(
            "\"sizes\":[]",
            &format!("\"sizes\":[{}]", sizes.join(",")),
            1,
        )
}

#[test]
fn two_million_centres_are_refused_by_the_budget_before_they_are_built() {
    let text = many_centres(2_000_000);
    let e = Model::from_json_within(&text, Some(100 << 20))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("k = 2000000") && e.contains("above the memory limit of 100.0 MiB"),
        "{e}"
    );
    // A model that fits the budget loads and predicts (every centre is
    // the same point: every row ties, and goes to the first).
    let m = Model::from_json_within(&many_centres(20_000), Some(100 << 20)).unwrap();
    let x = Array2::<f64>::ones((5, 4));
    assert_eq!(m.predict(x.view()).unwrap(), vec![0; 5]);
}

/// An rff model whose first map has D frequencies and `k` clusters
/// (all training rows in the first), its centres zeros written compactly.
fn wide_map(d: usize, k: usize) -> String {
    let mut v = json_of("rff-power", &[]);
    let n = v["fit"]["n"].as_u64().unwrap();
    let mut sizes = vec![0; k];
    sizes[0] = n;
    v["k"] = k.into();
    v["fit"]["sizes"] = sizes.into();
    v["model"]["maps"][0]["rff_dim"] = d.into();
    v["model"]["maps"][0]["centres"] = serde_json::json!([]);
    let row = format!("[{}]", vec!["0"; 2 * d].join(","));
    v.to_string().replacen(
        "\"centres\":[]",
        &format!("\"centres\":[{}]", vec![row; k].join(",")),
        1,
    )
}

#[test]
fn a_million_random_features_are_refused_and_wide_maps_meet_the_budget() {
    // D = 10^6 is beyond any run's (rff_dim ≤ 65536): refused as absurd,
    // from the field, before the centres are built.
    let e = Model::from_json(&wide_map(1_000_000, 3))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("model.maps[0].rff_dim: 1000000 is above 65536"),
        "{e}"
    );
    // Declared D with centres of another width: inconsistent, refused.
    let mut v = json_of("rff-power", &[]);
    v["model"]["maps"][0]["rff_dim"] = 65536.into();
    refused_with(&v, &["model.maps[0].centres", "expected 3×131072"]);
    // The largest D with 64 clusters: 8.4 million numbers in 17 MB of text.
    let text = wide_map(65536, 64);
    let e = Model::from_json_within(&text, Some(100 << 20))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("k = 64, n_features = 4, D = 65536 declared")
            && e.contains("model.maps[0].centres: 64.0 MiB")
            && e.contains("above the memory limit of 100.0 MiB"),
        "{e}"
    );
    // Within a budget that holds it, it predicts.
    let m = Model::from_json_within(&text, Some(1 << 30)).unwrap();
    let x = Array2::<f64>::ones((3, 4));
    assert_eq!(m.predict(x.view()).unwrap(), vec![0; 3]);
}

#[test]
fn scaling_exponents_outside_f64_are_refused_naming_the_field() {
    let base = json_of("power", &[]);
    for e in [i64::from(i32::MAX), i64::from(i32::MIN), 1024, -1075] {
        let mut v = base.clone();
        v["scaling"]["exps"][1] = e.into();
        refused_with(&v, &["scaling.exps", "[-1074, 1023]"]);
    }
    for e in [i64::from(i32::MAX), i64::from(i32::MIN), 5000] {
        let mut v = base.clone();
        v["scaling"]["rescale_exp"] = e.into();
        refused_with(&v, &["scaling.rescale_exp", "outside [-1023, 1074]"]);
    }
    // An exponent f64 can use, but data far outside the training range:
    // the message blames the combination, naming the model, not a
    // "non-finite value in the data".
    let mut v = base.clone();
    v["scaling"]["exps"][0] = (-1074).into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let m = Model::load(&path).unwrap();
    let e = m
        .predict_raw(Array2::<f64>::ones((2, 4)).view())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("far outside what the model") && e.contains("tiny.json"),
        "{e}"
    );
}

#[test]
fn control_characters_in_text_fields_are_refused_and_never_echoed() {
    let base = json_of("kpower", &[("kernel", "gaussian")]);
    let evil = "power\u{1b}[2J\u{1b}[31mpwned\nsecond line";
    let mut v = base.clone();
    v["algorithm"] = evil.into();
    let e = refused_with(&v, &["algorithm", "\\u{1b}"]);
    assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e:?}");
    let mut v = base.clone();
    v["options"]["kernel"] = "gaussian\u{7}".into();
    refused_with(&v, &["options.kernel", "\\u{7}"]);
    let mut v = base.clone();
    v["params"]["s\u{1b}0"] = 1.into();
    refused_with(&v, &["params", "key"]);
    let mut v = base.clone();
    v["model"]["kernels"][0]["spec"] = "gaussian\r".into();
    refused_with(&v, &["model.kernels[0].spec"]);
    // In the format and version checks too.
    let mut v = base.clone();
    v["format"] = "x\u{1b}]0;title\u{7}".into();
    refused_with(&v, &["format is"]);
    let mut v = base;
    v["version"] = 2.into();
    v["meanscape"] = "9\u{1b}[1m".into();
    refused_with(&v, &["version 2"]);
}

#[test]
fn extreme_finite_centres_are_refused_or_compared_robustly() {
    let base = json_of("kmeans", &[]);
    let mut v = base.clone();
    v["model"]["centroids"][0][0] = 1e300.into();
    refused_with(&v, &["model.centroids", "squared distances overflow"]);
    // Centres just within the bound, rows beyond: the usual ‖x‖² + ‖c‖²
    // − 2x·c overflows (every row would go to cluster 0), the robust
    // comparison does not.
    let mut v = base.clone();
    v["scaling"] = serde_json::Value::Null;
    v["model"]["centroids"] = serde_json::json!([
        [-3e153, -3e153, 0.0, 0.0],
        [3e153, 3e153, 0.0, 0.0],
        [0.0, 0.0, 3e153, 3e153]
    ]);
    let m = Model::from_json(&v.to_string()).unwrap();
    let x = ndarray::array![
        [-1e160, -1e160, 0.0, 0.0],
        [1e160, 1e160, 0.0, 0.0],
        [0.0, 0.0, 1e160, 1e160],
        [3.1e153, 2.9e153, 0.0, 0.0]
    ];
    assert_eq!(m.predict(x.view()).unwrap(), vec![0, 1, 2, 1]);
    // The distances themselves overflow to +∞ (they are beyond f64).
    assert!(m.distances(x.view()).unwrap()[[1, 0]].is_infinite());
    // And values so small that their squares vanish.
    let mut v = base.clone();
    v["scaling"] = serde_json::Value::Null;
    v["model"]["centroids"] = serde_json::json!([
        [1e-200, 0.0, 0.0, 0.0],
        [0.0, 1e-200, 0.0, 0.0],
        [0.0, 0.0, 1e-200, 0.0]
    ]);
    let m = Model::from_json(&v.to_string()).unwrap();
    let x = ndarray::array![[0.0, 0.0, 2e-200, 0.0], [0.0, 9e-201, 0.0, 0.0]];
    assert_eq!(m.predict(x.view()).unwrap(), vec![2, 1]);
    // Weighted: huge multipliers and rows.
    let mut v = json_of("wkmeans", &[]);
    v["scaling"] = serde_json::Value::Null;
    v["model"]["multipliers"] = serde_json::json!([1e200, 1e200, 1e200, 1e200]);
    v["model"]["centroids"] = serde_json::json!([
        [-1e50, 0.0, 0.0, 0.0],
        [1e50, 0.0, 0.0, 0.0],
        [0.0, 5e50, 0.0, 0.0]
    ]);
    let m = Model::from_json(&v.to_string()).unwrap();
    let x = ndarray::array![
        [-1e55, 0.0, 0.0, 0.0],
        [1e55, 0.0, 0.0, 0.0],
        [0.0, 1e55, 0.0, 0.0]
    ];
    assert_eq!(m.predict(x.view()).unwrap(), vec![0, 1, 2]);
    // Kernel and feature-map models refuse a row their kernel or map
    // cannot take, naming the row, instead of a wrong cluster.
    let mut v = json_of("kpower", &[("kernel", "linear")]);
    v["scaling"] = serde_json::Value::Null;
    let m = Model::from_json(&v.to_string()).unwrap();
    let x = ndarray::array![[0.5, 0.5, 0.5, 0.5], [1e300, 1e300, 1e300, 1e300]];
    let e = m.predict(x.view()).unwrap_err().to_string();
    assert!(
        e.starts_with("row 2 of the data is too large for the model"),
        "{e}"
    );
    // A narrow map: x·Ω overflows for values near f64::MAX, and sin(∞) is
    // NaN.
    let mut v = json_of("rff-power", &[]);
    v["scaling"] = serde_json::Value::Null;
    v["model"]["maps"][0]["sigma"] = 1e-3.into();
    let m = Model::from_json(&v.to_string()).unwrap();
    let x = ndarray::array![[0.5, 0.5, 0.5, 0.5], [1e308, 1e308, 1e308, 1e308]];
    let e = m.predict(x.view()).unwrap_err().to_string();
    assert!(
        e.starts_with("row 2 of the data is too large for the model"),
        "{e}"
    );
}

#[test]
fn out_of_range_numbers_and_inconsistent_sizes_name_the_field() {
    let base = json_of("kmeans", &[]);
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("k: -3 is negative", Box::new(|v| v["k"] = (-3).into())),
        ("k: is 0", Box::new(|v| v["k"] = 0.into())),
        (
            "n_features: 4.5 is not a whole number",
            Box::new(|v| v["n_features"] = 4.5.into()),
        ),
        (
            "fit.sizes: has 3 values, expected 4",
            Box::new(|v| v["k"] = 4.into()),
        ),
        (
            "fit.sizes: add up to",
            Box::new(|v| v["fit"]["sizes"][0] = 1.into()),
        ),
        (
            "model.centroids: a string where an array of rows belongs",
            Box::new(|v| v["model"]["centroids"] = "NaN".into()),
        ),
        (
            "model.centroids[1][2]: a string in an array of numbers",
            Box::new(|v| v["model"]["centroids"][1][2] = "NaN".into()),
        ),
        (
            "model.centroids: row 1 has 5 values",
            Box::new(|v| {
                v["model"]["centroids"][1]
                    .as_array_mut()
                    .unwrap()
                    .push(1.into())
            }),
        ),
        (
            "model.kind: 'rff' does not go with algorithm kmeans",
            Box::new(|v| v["model"]["kind"] = "rff".into()),
        ),
        (
            "algorithm: 'spectral' is not an algorithm",
            Box::new(|v| v["algorithm"] = "spectral".into()),
        ),
        (
            "params.tol: tol = -1 is out of range",
            Box::new(|v| v["params"]["tol"] = (-1).into()),
        ),
        (
            "params.bogus: kmeans has no parameter",
            Box::new(|v| v["params"]["bogus"] = 1.into()),
        ),
        (
            "scaling.mult: -2 is negative",
            Box::new(|v| v["scaling"]["mult"][0] = (-2).into()),
        ),
        (
            "scaling.method: 'log' is not",
            Box::new(|v| v["scaling"]["method"] = "log".into()),
        ),
        (
            "fit: missing",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("fit");
            }),
        ),
        (
            "fit.n: is 0",
            Box::new(|v| {
                v["fit"]["n"] = 0.into();
                v["fit"]["sizes"] = serde_json::json!([0, 0, 0]);
            }),
        ),
    ];
    for (needle, edit) in cases {
        let mut v = base.clone();
        edit(&mut v);
        refused_with(&v, &[needle]);
    }
    let mut v = json_of("rff-power", &[]);
    v["model"]["maps"][0]["weight"] = 1e-310.into();
    refused_with(&v, &["model.maps[0].weight", "is not 0 or within"]);
    v["model"]["maps"][0]["weight"] = 0.into();
    refused_with(&v, &["every map has weight 0"]);
    let mut v = json_of("rff-power", &[]);
    v["model"]["maps"][0]["sigma"] = 1e-320.into();
    refused_with(&v, &["model.maps[0].sigma"]);
    v["model"]["maps"][0]["sigma"] = 1.into();
    v["model"]["maps"][0]["centres"][0][0] = 2.into();
    refused_with(&v, &["model.maps[0].centres", "±1/√D"]);
    let mut v = json_of("kpower", &[("kernel", "gaussian:rescale")]);
    v["model"]["kernels"][0]["rescale"]["max"] = 1e308.into();
    v["model"]["kernels"][0]["rescale"]["min"] = (-1e308).into();
    refused_with(&v, &["model.kernels[0].rescale"]);
    let mut v = json_of("kpower", &[("kernel", "gaussian")]);
    v["model"]["kernels"][0]["columns"] = serde_json::json!([4, 0]);
    refused_with(&v, &["model.kernels[0].columns"]);
    // Kernels degenerate for every row, whatever the data: refused as the
    // model's fault, not reported later as rows "too large".
    let mut v = json_of("kpower", &[("kernel", "gaussian")]);
    v["model"]["kernels"][0]["spec"] = "gaussian:sigma=1e-300".into();
    refused_with(&v, &["model.kernels[0].spec", "is not a bandwidth within"]);
    let mut v = json_of("kpower", &[("kernel", "poly:a=1,b=2")]);
    v["model"]["kernels"][0]["spec"] = "poly:a=1e300,b=2".into();
    refused_with(
        &v,
        &["model.kernels[0].spec", "would overflow for every row"],
    );
    // Deep nesting and non-UTF-8 stay one-line refusals.
    let deep = format!("{{\"format\": {}1{}}}", "[".repeat(5000), "]".repeat(5000));
    let e = Model::from_json(&deep).unwrap_err().to_string();
    assert!(e.contains("recursion limit"), "{e}");
}

#[test]
fn special_files_are_refused_as_models_without_blocking() {
    let e = Model::load(std::path::Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/dev/zero: is a character device, not a regular file; a model is read only"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let e = Model::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("is a directory"), "{e}");
    #[cfg(unix)]
    {
        let fifo = dir.path().join("m.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Model::load(&fifo).unwrap_err().to_string();
        assert!(e.contains("m.json: is a named pipe (FIFO)"), "{e}");
    }
    // A file larger than the budget is refused from its size.
    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; 2 << 20]).unwrap();
    let e = Model::load_within(&big, Some(1 << 20))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("big.json: loading it needs 2.0 MiB (the file is 2.0 MiB)"),
        "{e}"
    );
}

/// Every algorithm's declared `weighs()` is what its fit reports: feature
/// weights exactly when it weighs features, kernel or view weights exactly
/// when it weighs kernels.
#[test]
fn every_algorithm_reports_the_weights_it_declares() {
    let (train, _, _) = split();
    for a in algo::registry() {
        let id = a.id();
        let loaded = meanscape::prepare(
            DataSource::parse(SPEC).unwrap(),
            train.clone(),
            a.default_scaling(),
        );
        let cfg = RunConfig::new(a.as_ref(), &loaded.problem, 3, &[], &[]).unwrap();
        let fit = a.run(&loaded.problem, &cfg, &Ctx::new()).unwrap().best;
        assert_eq!(
            fit.feature_weights.is_some(),
            a.weighs() == algo::Weighs::Features,
            "{id}: feature weights"
        );
        assert_eq!(
            fit.kernel_weights.is_some(),
            a.weighs() == algo::Weighs::Kernels,
            "{id}: kernel weights"
        );
    }
}
