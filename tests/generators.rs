//! The synthetic data generators: determinism, shapes, class sizes, and the
//! geometry each one promises.

use meanscape::Error;
use meanscape::data::generate::{check_name, generate, generators, ring_layout};
use meanscape::data::{DataSource, Dataset, LoadOptions, load};
use ndarray::{Array2, Axis};

fn gen_with(name: &str, params: &[(&str, &str)]) -> Dataset {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    generate(name, &params).unwrap()
}

fn gen_err(name: &str, params: &[(&str, &str)]) -> String {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match generate(name, &params) {
        Err(Error::Param(e)) => {
            let m = e.to_string();
            assert!(!m.contains('\n'), "multi-line message: {m}");
            m
        }
        Err(e) => panic!("{name} {params:?}: expected Error::Param, got {e:?}"),
        Ok(_) => panic!("{name} {params:?}: expected an error"),
    }
}

/// The generator's cluster number of every row (label names are "0", "1", …).
fn clusters(ds: &Dataset) -> Vec<usize> {
    let l = ds.labels.as_ref().expect("generators set labels");
    l.ids.iter().map(|&i| l.names[i].parse().unwrap()).collect()
}

fn sizes(ds: &Dataset, k: usize) -> Vec<usize> {
    let mut s = vec![0; k];
    for c in clusters(ds) {
        s[c] += 1;
    }
    s
}

fn balanced(n: usize, k: usize) -> Vec<usize> {
    (0..k).map(|c| n / k + usize::from(c < n % k)).collect()
}

/// Rows of `x` whose cluster is `c`.
fn rows_of(ds: &Dataset, c: usize) -> Array2<f64> {
    let idx: Vec<usize> = clusters(ds)
        .iter()
        .enumerate()
        .filter(|&(_, &l)| l == c)
        .map(|(i, _)| i)
        .collect();
    ds.x.f64().select(Axis(0), &idx)
}

#[test]
fn every_generator_is_listed_and_deterministic() {
    let names: Vec<&str> = generators().iter().map(|g| g.name).collect();
    assert_eq!(names, ["blobs", "rings", "sphere", "sparse"]);
    for name in names {
        check_name(name).unwrap();
        let a = gen_with(name, &[("n", "60"), ("seed", "7")]);
        let b = gen_with(name, &[("seed", "7"), ("n", "60")]);
        let c = gen_with(name, &[("n", "60"), ("seed", "8")]);
        assert_eq!(a.x, b.x, "{name}: same seed, different data");
        assert_eq!(a.labels, b.labels, "{name}");
        assert_eq!(a.source, b.source, "{name}");
        assert_ne!(a.x, c.x, "{name}: different seeds, same data");
        assert_eq!(a.name, name);
        assert!(
            a.source.starts_with(&format!("gen:{name},n=60,")),
            "{}",
            a.source
        );
        assert!(a.source.ends_with(",seed=7"), "{}", a.source);
        assert_eq!(a.feature_names[0], "f1");
        a.validate().unwrap();
        // The canonical source regenerates the same data.
        let again = load(
            &DataSource::parse(&a.source).unwrap(),
            &LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(again.x, a.x, "{name}");
        assert_eq!(again.source, a.source);
    }
}

#[test]
fn default_seed_is_zero() {
    let a = gen_with("blobs", &[]);
    let b = gen_with("blobs", &[("seed", "0")]);
    assert_eq!(a.x, b.x);
    assert_eq!(a.source, "gen:blobs,n=500,p=2,k=3,sep=4,sd=1,seed=0");
}

#[test]
fn shapes_and_class_sizes() {
    let ds = gen_with("blobs", &[("n", "123"), ("p", "5"), ("k", "4")]);
    assert_eq!(ds.x.dim(), (123, 5));
    assert_eq!(sizes(&ds, 4), balanced(123, 4));
    assert!(ds.relevance.is_none());

    let ds = gen_with("rings", &[("n", "101"), ("k", "7")]);
    assert_eq!(ds.x.dim(), (101, 2));
    assert_eq!(sizes(&ds, 7), balanced(101, 7));

    let ds = gen_with("sphere", &[("n", "77"), ("p", "6"), ("k", "5")]);
    assert_eq!(ds.x.dim(), (77, 6));
    assert_eq!(sizes(&ds, 5), balanced(77, 5));

    let ds = gen_with(
        "sparse",
        &[("n", "91"), ("p", "40"), ("q", "7"), ("k", "4")],
    );
    assert_eq!(ds.x.dim(), (91, 40));
    assert_eq!(sizes(&ds, 4), balanced(91, 4));

    // Defaults.
    for (name, n, p, k) in [
        ("blobs", 500, 2, 3),
        ("rings", 1000, 2, 10),
        ("sphere", 500, 20, 10),
        ("sparse", 300, 100, 3),
    ] {
        let ds = gen_with(name, &[]);
        assert_eq!(ds.x.dim(), (n, p), "{name}");
        assert_eq!(ds.labels.as_ref().unwrap().n_classes(), k, "{name}");
        assert_eq!(sizes(&ds, k), balanced(n, k), "{name}");
    }

    // Rows are shuffled, not grouped by cluster.
    let c = clusters(&gen_with("blobs", &[]));
    assert!(c.windows(2).filter(|w| w[0] != w[1]).count() > 100);
}

#[test]
fn blobs_centres_are_separated_as_documented() {
    // RMS distance between centres = sep·sd; with many clusters in high
    // dimension the mean squared distance is close to its expectation.
    let (k, p, sep, sd) = (40, 50, 6.0, 0.5);
    let ds = gen_with(
        "blobs",
        &[
            ("n", "8000"),
            ("p", "50"),
            ("k", "40"),
            ("sep", "6"),
            ("sd", "0.5"),
        ],
    );
    let centres: Vec<Vec<f64>> = (0..k)
        .map(|c| rows_of(&ds, c).mean_axis(Axis(0)).unwrap().to_vec())
        .collect();
    let mut sum = 0.0;
    let mut pairs = 0.0;
    for a in 0..k {
        for b in 0..a {
            sum += centres[a]
                .iter()
                .zip(&centres[b])
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>();
            pairs += 1.0;
        }
    }
    // Empirical centres carry 2p·sd²/200 of extra squared distance.
    let rms = (sum / pairs - 2.0 * p as f64 * sd * sd / 200.0).sqrt();
    assert!((rms - sep * sd).abs() < 0.15 * sep * sd, "rms {rms}");
    // Within-cluster sd.
    let r = rows_of(&ds, 0);
    let s = r.std_axis(Axis(0), 1.0).mean().unwrap();
    assert!((s - sd).abs() < 0.05, "sd {s}");
}

#[test]
fn rings_follow_the_documented_layout() {
    // Pairs of rings of radii 1 and 3 about (0,0), (12,0), …; odd k ends
    // with a single ring of radius 1.
    assert_eq!(ring_layout(0), ([0.0, 0.0], 1.0));
    assert_eq!(ring_layout(1), ([0.0, 0.0], 3.0));
    assert_eq!(ring_layout(2), ([12.0, 0.0], 1.0));
    assert_eq!(ring_layout(9), ([48.0, 0.0], 3.0));
    let k = 5;
    let ds = gen_with("rings", &[("n", "5000"), ("k", "5"), ("noise", "0.05")]);
    let want = [
        ([0.0, 0.0], 1.0),
        ([0.0, 0.0], 3.0),
        ([12.0, 0.0], 1.0),
        ([12.0, 0.0], 3.0),
        ([24.0, 0.0], 1.0),
    ];
    for (c, &([cx, cy], r)) in want.iter().enumerate().take(k) {
        let pts = rows_of(&ds, c);
        let m = pts.mean_axis(Axis(0)).unwrap();
        assert!(
            (m[0] - cx).abs() < 0.2 && (m[1] - cy).abs() < 0.2,
            "ring {c}: centroid {m}"
        );
        let radii: Vec<f64> = pts
            .rows()
            .into_iter()
            .map(|row| ((row[0] - cx).powi(2) + (row[1] - cy).powi(2)).sqrt())
            .collect();
        let mean = radii.iter().sum::<f64>() / radii.len() as f64;
        let sd =
            (radii.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / radii.len() as f64).sqrt();
        assert!((mean - r).abs() < 0.01, "ring {c}: mean radius {mean}");
        assert!((sd - 0.05).abs() < 0.01, "ring {c}: radial sd {sd}");
    }
    // No noise: exactly on the circles.
    let ds = gen_with("rings", &[("n", "200"), ("k", "4"), ("noise", "0")]);
    for (row, c) in ds.x.f64().rows().into_iter().zip(clusters(&ds)) {
        let ([cx, cy], r) = ring_layout(c);
        let d = ((row[0] - cx).powi(2) + (row[1] - cy).powi(2)).sqrt();
        assert!((d - r).abs() < 1e-12);
    }
}

#[test]
fn sphere_rows_are_unit_and_concentrated_as_vmf() {
    // A_p(κ) = I_{p/2}(κ)/I_{p/2−1}(κ) for p = 20, κ = 30, computed once
    // with SciPy 1.17.1: `scipy.special.ive(10, 30.0) / ive(9, 30.0)`.
    const A_20_30: f64 = 0.7286681159765976;
    let ds = gen_with(
        "sphere",
        &[("n", "20000"), ("p", "20"), ("k", "10"), ("kappa", "30")],
    );
    for row in ds.x.f64().rows() {
        let norm = row.dot(&row).sqrt();
        assert!((norm - 1.0).abs() < 1e-12, "{norm}");
    }
    for c in 0..10 {
        let pts = rows_of(&ds, c);
        let m = pts.nrows() as f64;
        let mean = pts.mean_axis(Axis(0)).unwrap();
        // E‖x̄‖² = A² + (1 − A²)/m; undo the 1/m bias.
        let r2 = mean.dot(&mean);
        let a = ((m * r2 - 1.0) / (m - 1.0)).sqrt();
        assert!((a - A_20_30).abs() < 0.01, "cluster {c}: {a} vs {A_20_30}");
    }
    // κ = 0 is uniform: mean resultant length near 0.
    let ds = gen_with("sphere", &[("n", "4000"), ("k", "1"), ("kappa", "0")]);
    let mean = ds.x.f64().mean_axis(Axis(0)).unwrap();
    assert!(mean.dot(&mean).sqrt() < 0.1);
    // Unbalanced labels: i.i.d. uniform, every cluster present here.
    let ds = gen_with("sphere", &[("balanced", "false"), ("n", "1000")]);
    assert!(ds.source.contains(",balanced=false,"));
    let s = sizes(&ds, 10);
    assert!(s.iter().all(|&c| c > 50 && c < 150), "{s:?}");
    assert_ne!(s, balanced(1000, 10));
}

/// Between-cluster sum of squares over total, per column.
fn eta_squared(ds: &Dataset, k: usize) -> Vec<f64> {
    let c = clusters(ds);
    let grand = ds.x.f64().mean_axis(Axis(0)).unwrap();
    (0..ds.p())
        .map(|j| {
            let col = ds.x.f64().column(j).to_owned();
            let mut sum = vec![0.0; k];
            let mut cnt = vec![0.0; k];
            for (v, &l) in col.iter().zip(&c) {
                sum[l] += v;
                cnt[l] += 1.0;
            }
            let between: f64 = (0..k)
                .map(|l| cnt[l] * (sum[l] / cnt[l] - grand[j]).powi(2))
                .sum();
            let total: f64 = col.iter().map(|v| (v - grand[j]).powi(2)).sum();
            between / total
        })
        .collect()
}

#[test]
fn sparse_informative_columns_separate_the_clusters() {
    let ds = gen_with("sparse", &[]);
    let rel = ds.relevance.as_ref().unwrap();
    assert_eq!(rel.len(), 100);
    assert_eq!(rel.iter().filter(|&&r| r).count(), 20);
    assert!(
        rel[..20].iter().all(|&r| r),
        "informative features come first"
    );
    let eta = eta_squared(&ds, 3);
    // Means 0, 5, 10 with unit sd: η² ≈ (50/3)/(50/3 + 1) ≈ 0.94.
    for (j, &e) in eta.iter().enumerate() {
        if rel[j] {
            assert!(e > 0.85, "informative column {j}: η² = {e}");
        } else {
            assert!(e < 0.06, "noise column {j}: η² = {e}");
        }
    }
    // Noise columns are χ²₅: mean 5, variance 10.
    let noise = ds.x.f64().column(50).to_owned();
    let m = noise.mean().unwrap();
    let v = noise.var(1.0);
    assert!((m - 5.0).abs() < 0.6 && (v - 10.0).abs() < 3.0, "{m} {v}");
    // Cluster c's informative features have mean c·sep.
    let ds = gen_with(
        "sparse",
        &[("n", "400"), ("k", "4"), ("sep", "2"), ("q", "3")],
    );
    for c in 0..4 {
        let m = rows_of(&ds, c).column(1).mean().unwrap();
        assert!((m - 2.0 * c as f64).abs() < 0.3, "cluster {c}: {m}");
    }
}

#[test]
fn bad_parameters_are_param_errors_naming_the_key() {
    let e = gen_err("blobs", &[("n", "0")]);
    assert!(e.contains("n=0") && e.contains("out of range"), "{e}");
    let e = gen_err("blobs", &[("n", "5"), ("k", "10")]);
    assert!(e.contains("k=10") && e.contains("n=5"), "{e}");
    let e = gen_err("rings", &[("k", "0")]);
    assert!(e.contains("k=0"), "{e}");
    let e = gen_err("sphere", &[("radius", "2")]);
    assert!(
        e.contains("'radius'") && e.contains("n, p, k, kappa, balanced, seed"),
        "{e}"
    );
    let e = gen_err("sparse", &[("p", "ten")]);
    assert!(
        e.contains("p=ten") && e.contains("not a whole number"),
        "{e}"
    );
    let e = gen_err("blobs", &[("sd", "abc")]);
    assert!(
        e.contains("sd=abc") && e.contains("not a finite number"),
        "{e}"
    );
    let e = gen_err("blobs", &[("sd", "0")]);
    assert!(e.contains("sd=0") && e.contains("> 0"), "{e}");
    let e = gen_err("blobs", &[("sep", "NaN")]);
    assert!(e.contains("sep=NaN"), "{e}");
    let e = gen_err("sparse", &[("p", "10"), ("q", "11")]);
    assert!(e.contains("q=11") && e.contains("p=10"), "{e}");
    let e = gen_err("sphere", &[("p", "1")]);
    assert!(e.contains("p=1"), "{e}");
    let e = gen_err("sphere", &[("kappa", "-1")]);
    assert!(e.contains("kappa=-1"), "{e}");
    let e = gen_err("sphere", &[("balanced", "maybe")]);
    assert!(e.contains("balanced=maybe"), "{e}");
    let e = gen_err("blobs", &[("seed", "-1")]);
    assert!(e.contains("seed=-1"), "{e}");
    let e = gen_err("blobs", &[("n", "10"), ("n", "20")]);
    assert!(e.contains("'n'") && e.contains("more than once"), "{e}");
    // Too big is a resource error, not a parameter error.
    let r = generate(
        "blobs",
        &[("n".into(), "1000000".into()), ("p".into(), "1000".into())],
    );
    assert!(matches!(r, Err(Error::Resource(_))));
    // Unknown generator.
    match check_name("moons") {
        Err(Error::Param(e)) => assert!(
            e.to_string().contains("moons")
                && e.to_string().contains("blobs, rings, sphere, sparse"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(generate("moons", &[]), Err(Error::Param(_))));
}
