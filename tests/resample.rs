//! The resampled label-free scores and the sweep's recommendation: they
//! find the number of well-separated clusters, never recommend a collapsed
//! cell, do not depend on the thread count, and the CLI writes them.

use meanscape::algo::{self, Init, Problem};
use meanscape::fit_scores::{Internal, SpaceKind};
use meanscape::sweep::recommend::{PS_CUTOFF, recommend};
use meanscape::sweep::resample::{first_se_max, strength};
use meanscape::sweep::{self, Axis, CellResult, MeanSd, Request, RunSummary, SweepResult, Truth};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::sync::Arc;

/// `per` points around each of `centres` (uniform noise of half-width
/// `spread`), a fixed draw.
fn blobs(centres: &[(f64, f64)], per: usize, spread: f64) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut x = Array2::zeros((centres.len() * per, 2));
    for (c, &(cx, cy)) in centres.iter().enumerate() {
        for i in 0..per {
            x[[c * per + i, 0]] = cx + rng.random_range(-spread..spread);
            x[[c * per + i, 1]] = cy + rng.random_range(-spread..spread);
        }
    }
    x
}

const FOUR: [(f64, f64); 4] = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (10.0, 10.0)];

fn k_scan(problem: &Problem, id: &str, ks: &str, resamples: usize) -> SweepResult {
    let a = algo::find(id).unwrap();
    let req = Request {
        k: 2,
        seed: 0,
        seeds: 3,
        init: Init::KmeansPP,
        given: Vec::new(),
        options: Vec::new(),
        axes: vec![Axis::parse(ks).unwrap()],
        time_limit: None,
        resamples,
    };
    let plan = sweep::plan(a.as_ref(), problem, req).unwrap();
    sweep::run(
        a.as_ref(),
        problem,
        &plan,
        Truth::default(),
        Arc::default(),
        &|_, _, _| {},
    )
    .unwrap()
}

fn k_of(r: &SweepResult, cell: usize) -> usize {
    r.cells[cell].k
}

#[test]
fn four_separated_blobs_are_recommended_as_four() {
    let problem = Problem::new(blobs(&FOUR, 60, 1.0));
    let r = k_scan(&problem, "kmeans", "k=2:7:6", 10);
    let axes = vec![Axis::parse("k=2:7:6").unwrap()];
    let rec = recommend(&r.cells, &axes).expect("a recommendation");
    assert_eq!(k_of(&r, rec.cell), 4, "by {}", rec.by);
    assert!(rec.by.starts_with("prediction_strength"), "{}", rec.by);
    let at4 = r.cells.iter().find(|c| c.k == 4).unwrap();
    assert!(at4.score("prediction_strength").unwrap().mean >= PS_CUTOFF);
    assert!(at4.score("resample_stability").unwrap().mean > 0.95);
    // Every pair is co-clustered in (almost) every half's clustering.
    assert!(at4.score("pac").unwrap().mean < 0.05);
    // The consensus CDF PAC is read from: flat between 0.1 and 0.9 at
    // k = 4 (pairs always or never together), and PAC no more than its
    // rise there (a consensus of exactly 0.9 is on the CDF, not in PAC).
    let steps = sweep::resample::CDF_STEPS;
    let at = |c: &CellResult, x: f64| c.consensus_cdf[(x * steps as f64).round() as usize];
    for c in &r.cells {
        assert_eq!(c.consensus_cdf.len(), steps + 1, "k = {}", c.k);
        assert!(c.consensus_cdf.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(c.consensus_cdf[steps], 1.0);
        let pac = c.score("pac").unwrap().mean;
        assert!(pac <= at(c, 0.9) - at(c, 0.1) + 1e-12, "k = {}", c.k);
    }
    assert!(at(at4, 0.9) - at(at4, 0.1) < 0.05);
    // Splitting the four blobs in five leaves pairs ambiguous.
    let at5 = r.cells.iter().find(|c| c.k == 5).unwrap();
    assert!(at(at5, 0.9) - at(at5, 0.1) > at(at4, 0.9) - at(at4, 0.1));
    // Each run keeps its clusters' silhouettes, which give its own back.
    for run in &at4.runs {
        let cl = &run.silhouette_clusters;
        assert_eq!(cl.len(), 4);
        let mass: f64 = cl.iter().map(|c| c.size).sum();
        assert_eq!(mass, 240.0);
        let back = cl.iter().map(|c| c.size * c.mean).sum::<f64>() / mass;
        assert!((back - run.internal.silhouette).abs() < 1e-12);
    }
    // Splitting a blob is unstable: k = 5 is judged worse.
    let at5 = r.cells.iter().find(|c| c.k == 5).unwrap();
    assert!(
        at5.score("prediction_strength").unwrap().mean
            < at4.score("prediction_strength").unwrap().mean
    );
    // The gap statistic's own rule agrees.
    let gap = rec.picks.iter().find(|p| p.score == "gap").unwrap();
    assert_eq!(k_of(&r, gap.cell), 4);
    assert!(rec.agreement > 0.5, "agreement {}", rec.agreement);
}

/// A finished cell at `k` whose one run kept `clusters` clusters, with
/// the given prediction strength and silhouette.
fn cell(k: usize, clusters: usize, ps: f64, sil: f64) -> CellResult {
    let internal = Internal {
        cost: 1.0 / k as f64,
        silhouette: sil,
        calinski_harabasz: 10.0,
        davies_bouldin: 1.0,
        clusters,
        space: SpaceKind::Features,
        weighted: false,
        silhouette_sample: None,
        kernel_alignment: None,
    };
    let one = |v: f64| MeanSd { mean: v, sd: 0.0 };
    CellResult {
        index: k - 2,
        at: vec![k as f64],
        k,
        scores: vec![
            ("cost", one(internal.cost)),
            ("silhouette", one(sil)),
            ("prediction_strength", one(ps)),
        ],
        runs: vec![RunSummary {
            seed: 0,
            objective: 1.0,
            iterations: 1,
            converged: true,
            time_ms: 1.0,
            internal,
            external: None,
            selected: None,
            mcc: None,
            silhouette_input: None,
            on_selected: None,
            labels: Vec::new(),
            silhouette_clusters: Vec::new(),
        }],
        consensus_cdf: Vec::new(),
        consensus_area: f64::NAN,
    }
}

#[test]
fn a_collapsed_cell_is_never_recommended() {
    // k = 4 lost a cluster: its perfect prediction strength and
    // silhouette describe three clusters, not four.
    let cells = vec![
        cell(2, 2, 0.7, 0.5),
        cell(3, 3, 0.9, 0.6),
        cell(4, 3, 1.0, 0.9),
        cell(5, 5, 0.5, 0.4),
    ];
    let axes = vec![Axis::parse("k=2:5:4").unwrap()];
    let rec = recommend(&cells, &axes).expect("a recommendation");
    assert_eq!(cells[rec.cell].k, 3);
    for p in &rec.picks {
        assert!(
            !cells[p.cell].collapsed(),
            "{} picked a collapsed cell",
            p.score
        );
    }
    // Every cell collapsed: no recommendation rather than a degenerate one.
    let all = vec![cell(4, 3, 1.0, 0.9), cell(5, 3, 1.0, 0.9)];
    assert!(recommend(&all, &[Axis::parse("k=4,5").unwrap()]).is_none());
}

#[test]
fn halves_with_too_few_distinct_rows_do_not_stop_the_sweep() {
    // Five distinct points, the first three repeated: some halves hold
    // fewer than k = 5 distinct rows; the sweep still finishes.
    let mut x = Array2::zeros((40, 2));
    for i in 0..40 {
        let j = if i < 2 { 3 + i } else { i % 3 };
        x[[i, 0]] = j as f64 * 5.0;
        x[[i, 1]] = (j * j) as f64;
    }
    let problem = Problem::new(x);
    let r = k_scan(&problem, "kmeans", "k=3:5:3", 6);
    assert_eq!(r.cells.len(), 3);
    let at3 = r.cells.iter().find(|c| c.k == 3).unwrap();
    assert!(at3.score("prediction_strength").unwrap().mean.is_finite());
}

#[test]
fn without_resampling_the_silhouette_recommends() {
    let problem = Problem::new(blobs(&FOUR, 30, 1.0));
    let r = k_scan(&problem, "kmeans", "k=2:6:5", 0);
    assert!(r.cells[0].score("prediction_strength").is_none());
    let axes = vec![Axis::parse("k=2:6:5").unwrap()];
    let rec = recommend(&r.cells, &axes).unwrap();
    assert!(rec.by.starts_with("silhouette"), "{}", rec.by);
    assert_eq!(k_of(&r, rec.cell), 4);
}

#[test]
fn spectral_carries_clusters_by_the_nearest_row() {
    // No out-of-sample rule: the halves' clusters reach the other rows by
    // their nearest row, so the split scores still exist.
    let problem = Problem::new(blobs(&FOUR, 25, 1.0));
    let r = k_scan(&problem, "spectral", "k=3:5:3", 4);
    let at4 = r.cells.iter().find(|c| c.k == 4).unwrap();
    let ps = at4.score("prediction_strength").unwrap().mean;
    assert!(ps > 0.9, "prediction strength {ps}");
}

#[test]
fn resampled_scores_do_not_depend_on_the_thread_count() {
    let x = blobs(&FOUR, 40, 3.0);
    let scores = |threads: usize| {
        let x = x.clone();
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let problem = Problem::new(x);
                let r = k_scan(&problem, "kmeans", "k=2:5:4", 5);
                r.cells
                    .iter()
                    .flat_map(|c| {
                        c.scores
                            .iter()
                            .filter(|(n, _)| *n != "time_ms")
                            .map(|(_, s)| (s.mean.to_bits(), s.sd.to_bits()))
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            })
    };
    assert_eq!(scores(1), scores(2));
}

/// R 4.2.2, cluster 2.1.4: `maxSE(f, SE.f, method = "firstSEmax")` on
/// these vectors gives 3, 5 and 1 (1-based; `bench/choose_k_refs.R`).
#[test]
fn first_se_max_is_rs_rule() {
    let cases: [(&[f64], &[f64], usize); 3] = [
        (
            &[0.1, 0.35, 0.52, 0.5, 0.58, 0.57],
            &[0.02, 0.03, 0.03, 0.04, 0.03, 0.05],
            3,
        ),
        (&[0.1, 0.2, 0.3, 0.4, 0.5], &[0.01; 5], 5),
        (
            &[0.5, 0.45, 0.6, 0.62, 0.2],
            &[0.1, 0.05, 0.1, 0.05, 0.05],
            1,
        ),
    ];
    for (f, se, r) in cases {
        assert_eq!(first_se_max(f, se), Some(r - 1), "{f:?}");
    }
    assert_eq!(first_se_max(&[], &[]), None);
}

/// fpc 2.2.10's per-split prediction strength (`bench/choose_k_refs.R`,
/// part c): the minimum over the test clusters of the share of their
/// pairs the training clusters keep together; a test cluster of at most
/// one row counts 1. Labels here are R's minus one.
#[test]
fn strength_is_fpcs() {
    let case1 = strength(&[0, 0, 0, 0, 1, 1, 1, 0], &[0, 0, 0, 1, 1, 1, 1, 0], 2);
    assert!((case1 - 0.6).abs() < 1e-10, "{case1}");
    let own2 = [0, 0, 0, 0, 1, 1, 1, 1, 1, 2];
    let case2 = strength(&own2, &[0, 0, 1, 1, 2, 2, 2, 0, 2, 1], 3);
    assert!((case2 - 0.333_333_333_3).abs() < 1e-10, "{case2}");
    // Test cluster 3 is empty: it counts 1.
    let own3 = [0, 0, 0, 0, 0, 0, 1, 1, 1];
    let case3 = strength(&own3, &[0, 0, 1, 1, 2, 2, 1, 1, 1], 3);
    assert!((case3 - 0.2).abs() < 1e-10, "{case3}");
    // Cases 2 and 3 as the two halves of one split.
    assert!(((case2 + case3) / 2.0 - 0.266_666_666_7).abs() < 1e-10);
}

/// clusGap's W_k with `d.power = 2` (Tibshirani's squared distances) on
/// fixed data and partitions is half the within-cluster sum of squares
/// the gap here uses: log W differs by log 2 for data and references
/// alike, so the gap is the same.
#[test]
fn w_k_is_clusgaps() {
    let x = ndarray::arr2(&[
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 2.0],
        [5.0, 5.0],
        [6.0, 5.0],
        [5.0, 7.0],
        [6.0, 8.0],
        [10.0, 0.0],
        [11.0, 1.0],
        [10.0, 2.0],
    ]);
    let parts: [(&[usize], f64); 4] = [
        (&[0; 10], 117.2),
        (&[0, 0, 0, 1, 1, 1, 1, 1, 1, 1], 50.523_809_52),
        (&[0, 0, 0, 1, 1, 1, 1, 2, 2, 2], 6.875),
        (&[0, 0, 0, 1, 1, 1, 3, 2, 2, 2], 4.666_666_667),
    ];
    for (labels, w_r) in parts {
        let w = meanscape::fit_scores::wcss(x.view(), labels);
        assert!((w / 2.0 - w_r).abs() < 1e-8, "{w} vs R's {w_r}");
    }
}

#[test]
fn the_cli_writes_the_recommendation_and_each_scores_pick() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("four.csv");
    let x = blobs(&FOUR, 40, 1.0);
    let mut text = String::from("a,b\n");
    for r in x.rows() {
        text.push_str(&format!("{},{}\n", r[0], r[1]));
    }
    std::fs::write(&csv, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(["sweep", "-d", csv.to_str().unwrap(), "-a", "kmeans"])
        .args(["--label", "none", "--grid", "k=2:6:5", "--seeds", "2"])
        .args(["--json", "-q"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rec = &v["recommended"];
    assert_eq!(rec["at"]["k"], 4);
    assert!(
        rec["by"]
            .as_str()
            .unwrap()
            .starts_with("prediction_strength")
    );
    let agreement = rec["agreement"].as_f64().unwrap();
    assert!(agreement > 0.0 && agreement <= 1.0);
    for name in [
        "prediction_strength",
        "resample_stability",
        "pac",
        "gap",
        "silhouette",
    ] {
        assert!(rec["per_score"][name]["at"]["k"].is_u64(), "{name}");
        assert!(v["cells"][0]["scores"][name]["mean"].is_f64(), "{name}");
    }
    // Without labels the table's default score is the recommendation's.
    assert_eq!(v["score"], "prediction_strength");
    // Each cell's consensus CDF at the points declared once.
    let xs = v["consensus_cdf_at"].as_array().unwrap();
    assert_eq!(xs.len(), sweep::resample::CDF_STEPS + 1);
    assert_eq!(xs[2].as_f64(), Some(0.1));
    let cdf = v["cells"][2]["consensus_cdf"].as_array().unwrap();
    assert_eq!(cdf.len(), xs.len());
    assert_eq!(cdf.last().unwrap().as_f64(), Some(1.0));
    // --resamples 0 leaves the resampled scores out.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(["sweep", "-d", csv.to_str().unwrap(), "-a", "kmeans"])
        .args(["--label", "none", "--grid", "k=2:4:3", "--seeds", "2"])
        .args(["--resamples", "0", "--json", "-q"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["cells"][0]["scores"].get("prediction_strength").is_none());
    assert!(v.get("consensus_cdf_at").is_none());
    assert!(v["cells"][0].get("consensus_cdf").is_none());
    assert!(
        v["recommended"]["by"]
            .as_str()
            .unwrap()
            .starts_with("silhouette")
    );
}

#[test]
fn kernel_cells_are_also_scored_on_the_input_features() {
    // A σ axis changes the space kernel k-means scores itself in; the
    // input-space silhouette is the same yardstick in every cell.
    let problem = Problem::new(blobs(&FOUR, 20, 1.0));
    let a = algo::find("kernel-kmeans").unwrap();
    let axes = vec![Axis::parse("sigma=0.5,2,50").unwrap()];
    let req = Request {
        k: 4,
        seed: 0,
        seeds: 2,
        init: Init::KmeansPP,
        given: Vec::new(),
        options: Vec::new(),
        axes: axes.clone(),
        time_limit: None,
        resamples: 0,
    };
    let plan = sweep::plan(a.as_ref(), &problem, req).unwrap();
    let r = sweep::run(
        a.as_ref(),
        &problem,
        &plan,
        Truth::default(),
        Arc::default(),
        &|_, _, _| {},
    )
    .unwrap();
    for c in &r.cells {
        let input = c
            .score("silhouette_input")
            .expect("kernel cells have it")
            .mean;
        let own = c.score("silhouette").unwrap().mean;
        assert!((-1.0..=1.0).contains(&input));
        assert!(
            input != own,
            "σ = {}: the same value in both spaces",
            c.at[0]
        );
    }
    let rec = recommend(&r.cells, &axes).unwrap();
    assert!(rec.by.starts_with("silhouette_input"), "{}", rec.by);
    // The kernel's centred alignment with the partition, in every cell;
    // on four separated blobs the kernel of a moderate σ follows them
    // better than one so wide that every pair looks alike.
    let align: Vec<f64> = r
        .cells
        .iter()
        .map(|c| {
            c.score("kernel_alignment")
                .expect("kernel cells have it")
                .mean
        })
        .collect();
    assert!(align.iter().all(|a| (-1.0..=1.0).contains(a)), "{align:?}");
    assert!(align[1] > align[2], "{align:?}");
    // Centroid methods score on the features already: no second value.
    let kmeans = k_scan(&problem, "kmeans", "k=3:4:2", 0);
    assert!(kmeans.cells[0].score("silhouette_input").is_none());
    assert!(kmeans.cells[0].score("kernel_alignment").is_none());
}

/// Sample weights reach the resampled scores: a row of weight 0 is no row
/// (the splits never draw it), and the halves are clustered with their
/// rows' weights, so rows of weight 0 beside rows of weight 1 give the
/// scores of the data without them. Before, the halves ignored the
/// weights and these rows were split and clustered like the others.
#[test]
fn resampled_scores_leave_out_rows_of_weight_zero() {
    let kept = blobs(&FOUR, 30, 3.0);
    let noise = blobs(&[(5.0, 5.0)], 40, 6.0);
    let mut all = kept.clone();
    all.append(ndarray::Axis(0), noise.view()).unwrap();
    let mut weighted = Problem::new(all);
    let mut w = vec![1.0; 120];
    w.extend([0.0; 40]);
    weighted.set_sample_weights(w).unwrap();
    let resampled = |r: &SweepResult| {
        r.cells
            .iter()
            .flat_map(|c| {
                ["prediction_strength", "resample_stability", "pac"].map(|name| {
                    let s = c.scores.iter().find(|(n, _)| *n == name).unwrap().1;
                    (name, c.k, s.mean.to_bits(), s.sd.to_bits())
                })
            })
            .collect::<Vec<_>>()
    };
    let with_zeros = k_scan(&weighted, "kmeans", "k=2:5:4", 5);
    let without = k_scan(&Problem::new(kept), "kmeans", "k=2:5:4", 5);
    assert_eq!(resampled(&with_zeros), resampled(&without));
    // The gap's reference sets have no weights: a weighted run has none.
    let has_gap = |r: &SweepResult| {
        r.cells
            .iter()
            .map(|c| {
                c.scores
                    .iter()
                    .any(|(n, s)| *n == "gap" && s.mean.is_finite())
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(has_gap(&with_zeros), [false; 4]);
    assert_eq!(has_gap(&without), [true; 4]);
}
