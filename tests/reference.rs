//! Tests on the reference data beside the repository (`../shared/data`: the
//! papers' data sets, not bundled; see docs/guide/reference-data.md).
//!
//! A fresh clone has no such folder. The tests then must not pass silently:
//! this harness (libtest-mimic, `harness = false`) reports each test whose
//! files are absent as *ignored*, names the missing files first, and the
//! summary line counts them. With the data present they run as usual.

use libtest_mimic::{Arguments, Failed, Trial};
use meanscape::Loaded;
use meanscape::algo::{self, Ctx, Fit, Init, RunConfig};
use meanscape::data::{DataSource, LoadOptions, Scaling, load};
use meanscape::metrics;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data"))
}

fn file(name: &str) -> PathBuf {
    data_dir().join(name)
}

/// A test that needs `files` from the reference data, and those absent.
fn reference(
    name: &'static str,
    files: &[&str],
    test: fn() -> Result<(), Failed>,
) -> (Trial, Vec<String>) {
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !file(f).is_file())
        .map(|f| f.to_string())
        .collect();
    let trial = Trial::test(name, test).with_ignored_flag(!missing.is_empty());
    (trial, missing)
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials = vec![
        reference(
            "kernel_paper_protocol_on_seeds_and_lung_discrete",
            &["seeds.csv", "lung_discrete.csv"],
            kernel_paper_protocol_on_seeds_and_lung_discrete,
        ),
        reference(
            "loaders_lung_discrete_mat_equals_csv",
            &["lung_discrete.mat", "lung_discrete.csv"],
            || mat_equals_csv("lung_discrete", 73, 325, 7),
        ),
        reference(
            "loaders_isolet_mat_equals_csv",
            &["isolet.mat", "isolet.csv"],
            || mat_equals_csv("isolet", 1560, 617, 26),
        ),
        reference(
            "loaders_every_reference_csv_loads",
            &REFERENCE_CSV.map(|r| r.0),
            every_reference_csv_loads,
        ),
        reference(
            "lw_reference_protocol_on_leukemia_and_lymphoma",
            &["leukemia.csv", "lymphoma.csv"],
            lw_reference_protocol_on_leukemia_and_lymphoma,
        ),
        reference(
            "path_lw_on_leukemia_with_defaults_reaches_the_paper",
            &["leukemia.csv"],
            path_lw_on_leukemia_with_defaults_reaches_the_paper,
        ),
        reference(
            "power_annealing_continues_while_centres_are_merged",
            &["isolet.csv"],
            power_annealing_continues_while_centres_are_merged,
        ),
        reference(
            "sparse_kmeans_default_bound_selects_on_unscaled_leukemia",
            &["leukemia.csv"],
            sparse_kmeans_default_bound_selects_on_unscaled_leukemia,
        ),
    ];
    let ignored: Vec<String> = trials
        .iter()
        .filter(|(_, missing)| !missing.is_empty())
        .map(|(t, missing)| format!("  {}: needs {}", t.name(), missing.join(", ")))
        .collect();
    if !ignored.is_empty() {
        println!(
            "reference data: {} of {} tests ignored, their files are absent from {} \
             (see docs/guide/reference-data.md):\n{}",
            ignored.len(),
            trials.len(),
            data_dir().display(),
            ignored.join("\n")
        );
    }
    let trials = trials.into_iter().map(|(t, _)| t).collect();
    libtest_mimic::run(&args, trials).exit_code()
}

// ------------------------------------------------------------ helpers

fn loaded(name: &str, scale: Scaling) -> Loaded {
    meanscape::load(file(name).to_str().unwrap(), &LoadOptions::default(), scale).unwrap()
}

fn fit(l: &Loaded, id: &str, k: usize, seed: u64, init: Init, given: &[(&str, f64)]) -> Fit {
    let a = algo::find(id).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let cfg = RunConfig {
        k,
        seed,
        restarts: 1,
        init,
        params: algo::resolve_params(a.as_ref(), &l.problem, k, &given).unwrap(),
        options: algo::resolve_options(a.as_ref(), &[]).unwrap(),
        centres: None,
    };
    algo::run(a.as_ref(), &l.problem, &cfg, &Ctx::new())
        .unwrap()
        .best
}

fn truth(l: &Loaded) -> &[usize] {
    &l.dataset.labels.as_ref().unwrap().ids
}

fn selected(fit: &Fit) -> usize {
    let w = fit.feature_weights.as_ref().unwrap();
    w.iter().filter(|&&v| v > 0.0).count()
}

// ------------------------------------------------------------ kernel

/// The paper's protocol (standardise, σ rule, matched random starts): mean
/// NMI of `id` over seeds 0..starts.
fn protocol_nmi(l: &Loaded, id: &str, starts: u64) -> f64 {
    let k = l.default_k().unwrap();
    let total: f64 = (0..starts)
        .map(|seed| {
            let f = fit(l, id, k, seed, Init::Random, &[]);
            metrics::Scores::compute(truth(l), &f.labels).nmi
        })
        .sum();
    total / starts as f64
}

fn kernel_paper_protocol_on_seeds_and_lung_discrete() -> Result<(), Failed> {
    // Table 1: KPK 0.7502 on Seeds (a faithful NumPy implementation: the
    // same); 0.715 on lung_discrete for the NumPy implementation.
    let seeds = loaded("seeds.csv", Scaling::Standard);
    let kp = protocol_nmi(&seeds, "kpower", 5);
    assert!((0.73..0.76).contains(&kp), "seeds kpower {kp}");
    let lung = loaded("lung_discrete.csv", Scaling::Standard);
    let kp = protocol_nmi(&lung, "kpower", 5);
    let kkm = protocol_nmi(&lung, "kernel-kmeans", 5);
    assert!(
        kp > 0.70 && kp > kkm + 0.05,
        "lung kpower {kp}, kernel-kmeans {kkm}"
    );
    Ok(())
}

// ------------------------------------------------------------ loaders

fn mat_equals_csv(stem: &str, n: usize, p: usize, k: usize) -> Result<(), Failed> {
    let o = LoadOptions::default();
    let m = load(&DataSource::File(file(&format!("{stem}.mat"))), &o).unwrap();
    let c = load(&DataSource::File(file(&format!("{stem}.csv"))), &o).unwrap();
    assert_eq!((m.n(), m.p()), (n, p), "{stem}.mat");
    assert_eq!((c.n(), c.p()), (n, p), "{stem}.csv");
    let worst =
        m.x.f64()
            .iter()
            .zip(c.x.f64().iter())
            .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
            .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "{stem}: .mat and .csv differ by {worst}");
    let (lm, lc) = (m.labels.unwrap(), c.labels.unwrap());
    assert_eq!(lm.n_classes(), k);
    assert_eq!(lm, lc, "{stem}: labels differ");
    Ok(())
}

const REFERENCE_CSV: [(&str, usize, usize, usize); 12] = [
    ("iris.csv", 150, 4, 3),
    ("wine.csv", 178, 13, 3),
    ("breast_cancer.csv", 569, 30, 2),
    ("digits.csv", 1797, 64, 10),
    ("seeds.csv", 210, 7, 3),
    ("ecoli.csv", 336, 7, 8),
    ("yeast.csv", 1484, 8, 10),
    ("glass.csv", 214, 9, 6),
    ("colon.csv", 62, 2000, 2),
    ("leukemia.csv", 72, 3571, 2),
    ("lymphoma.csv", 62, 4026, 3),
    ("brain.csv", 42, 5597, 5),
];

fn every_reference_csv_loads() -> Result<(), Failed> {
    for (name, n, p, k) in REFERENCE_CSV {
        let ds = load(&DataSource::File(file(name)), &LoadOptions::default()).unwrap();
        assert_eq!(
            (ds.n(), ds.p(), ds.labels.unwrap().n_classes()),
            (n, p, k),
            "{name}"
        );
    }
    Ok(())
}

// ------------------------------------------------------------ lw

/// docs/methods/lw-kmeans.md#the-authors-code: Leukemia (λ = 0.0005, code units) and Lymphoma (λ = 0.0006),
/// initial k-means on the raw values (`--scale none`), z-scored
/// iterations: the paper's CER (0.0278, 0.0161) with about 28 and 32
/// features.
fn lw_reference_protocol_on_leukemia_and_lymphoma() -> Result<(), Failed> {
    for (name, lambda, k, paper_cer, features) in [
        ("leukemia.csv", 0.0005, 2, 0.0278, 20..=35),
        ("lymphoma.csv", 0.0006, 3, 0.0161, 25..=40),
    ] {
        let l = loaded(name, Scaling::None);
        let mut cers = Vec::new();
        for seed in 0..5 {
            let f = fit(&l, "lw", k, seed, Init::KmeansPP, &[("lambda", lambda)]);
            let sel = selected(&f);
            assert!(
                features.contains(&sel),
                "{name} seed {seed}: {sel} features"
            );
            cers.push(metrics::cer(truth(&l), &f.labels));
        }
        let mean = cers.iter().sum::<f64>() / cers.len() as f64;
        assert!(
            mean <= paper_cer + 1e-4,
            "{name}: mean CER {mean} ({cers:?})"
        );
    }
    Ok(())
}

/// The paper's Leukemia result on the path with every default (issue 10):
/// lw starts from k-means on the raw values, so some point of the path
/// selects under 100 genes with CER ≤ 0.03.
fn path_lw_on_leukemia_with_defaults_reaches_the_paper() -> Result<(), Failed> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(["path", "--data"])
        .arg(file("leukemia.csv"))
        .args(["--algo", "lw", "--k", "2", "--json", "-q"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let best = v["path"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| (1..100).contains(&p["selected"].as_u64().unwrap()))
        .map(|p| p["metrics"]["cer"].as_f64().unwrap())
        .fold(1.0, f64::min);
    assert!(best <= 0.03, "lowest CER with 1–99 genes: {best}");
    Ok(())
}

// ------------------------------------------------------------ power

/// The stopping rule's hardness condition: on isolet (p = 617, k = 26) at
/// s₀ = −1 the centres nearly merge and the objective stalls; stopping there
/// leaves half the clusters empty. The rule keeps annealing instead, which
/// reaches the paper's power k-means value (Table 1: 0.7582).
fn power_annealing_continues_while_centres_are_merged() -> Result<(), Failed> {
    let l = loaded("isolet.csv", Scaling::Standard);
    let k = l.default_k().unwrap();
    let with = |soft_tol: f64| fit(&l, "power", k, 0, Init::Random, &[("soft_tol", soft_tol)]);
    let empty = |f: &Fit| f.sizes(k).iter().filter(|&&s| s == 0).count();
    let plain = with(1.0);
    assert!(
        empty(&plain) >= 5,
        "without the condition the run stops merged"
    );
    let f = with(0.01);
    assert_eq!(empty(&f), 0);
    assert!(f.iterations > plain.iterations);
    let nmi = metrics::Scores::compute(truth(&l), &f.labels).nmi;
    assert!(nmi > 0.74, "isolet power NMI {nmi}");
    Ok(())
}

// ------------------------------------------------------------ sparse k-means

/// Issue 10: on unscaled Leukemia the old default √p/2 = 29.9 was above
/// the binding bound (≈ 19) and kept all 3571 genes.
fn sparse_kmeans_default_bound_selects_on_unscaled_leukemia() -> Result<(), Failed> {
    let l = loaded("leukemia.csv", Scaling::None);
    let f = fit(&l, "sparse-kmeans", 2, 1, Init::KmeansPP, &[]);
    let sel = selected(&f);
    assert!(sel < 3571 / 2, "{sel} of 3571 selected");
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    Ok(())
}
