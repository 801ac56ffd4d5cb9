//! Sparse (CSR) rows through the public API: kmeans on a sparse problem is
//! kmeans on the dense one, every other algorithm refuses sparse input in
//! one line, and the memory check counts the nonzeros, not n·p.

use meanscape::algo::{self, Csr, Ctx, Init, Problem, Request};
use ndarray::Array2;

/// n × p, about one entry in `every` nonzero, in four groups of columns.
fn sparse_dense(n: usize, p: usize, every: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, p), |(i, j)| {
        let h = (i * 7919 + j * 104_729 + i * j) % 997;
        if j % 4 == i % 4 && h % every < 3 || h % (every * 4) == 0 {
            1.0 + (h % 13) as f64 / 4.0
        } else {
            0.0
        }
    })
}

fn request<'a>(k: usize, restarts: usize, opts: &'a [(String, String)]) -> Request<'a> {
    Request {
        k,
        seed: 3,
        restarts,
        init: Init::KmeansPP,
        given: &[],
        options: opts,
        centres: None,
    }
}

#[test]
fn kmeans_on_csr_is_kmeans_on_the_dense_rows() {
    let d = sparse_dense(400, 60, 9);
    let dense = Problem::new(d.clone());
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    assert_eq!((sparse.n(), sparse.p()), (400, 60));
    let a = algo::find("kmeans").unwrap();
    let ctx = Ctx::new();
    let run = |p: &Problem| {
        let cfg = algo::configure(a.as_ref(), p, request(4, 3, &[]), "X").unwrap();
        algo::run(a.as_ref(), p, &cfg, &ctx).unwrap()
    };
    let (s, t) = (run(&sparse), run(&dense));
    assert_eq!(s.best.labels, t.best.labels);
    assert_eq!(s.best.iterations, t.best.iterations);
    assert_eq!(s.best_restart, t.best_restart);
    for (u, v) in s.restart_objectives.iter().zip(&t.restart_objectives) {
        assert!((u - v).abs() <= 1e-12 * v, "{u} vs {v}");
    }
    let (cs, ct) = (s.best.centroids.unwrap(), t.best.centroids.unwrap());
    assert_eq!(cs.dim(), (4, 60));
    assert!(
        cs.iter()
            .zip(&ct)
            .all(|(u, v)| (u - v).abs() <= 1e-12 * v.abs().max(1.0))
    );
}

/// power (s₀ = −3, as the dense default would merge centres on this
/// data) and khm: the same labels and iterations through the whole API,
/// restarts batched as on dense rows.
#[test]
fn power_and_khm_on_csr_are_the_dense_runs() {
    let d = sparse_dense(400, 60, 9);
    let dense = Problem::new(d.clone());
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    let ctx = Ctx::new();
    for (id, given) in [("power", vec![("s0".to_string(), -3.0)]), ("khm", vec![])] {
        let a = algo::find(id).unwrap();
        let run = |p: &Problem| {
            let mut req = request(4, 3, &[]);
            req.given = &given;
            let cfg = algo::configure(a.as_ref(), p, req, "X").unwrap();
            algo::run(a.as_ref(), p, &cfg, &ctx).unwrap()
        };
        let (s, t) = (run(&sparse), run(&dense));
        assert_eq!(s.best.labels, t.best.labels, "{id}");
        assert_eq!(s.best.iterations, t.best.iterations, "{id}");
        for (u, v) in s.restart_objectives.iter().zip(&t.restart_objectives) {
            assert!((u - v).abs() <= 1e-10 * v, "{id}: {u} vs {v}");
        }
    }
}

/// Sample weights (zeros among them) and given centres: kmeans, khm and
/// power on CSR rows are the dense runs.
#[test]
fn weighted_and_given_centre_runs_on_csr_are_the_dense_runs() {
    let d = sparse_dense(300, 40, 7);
    let w: Vec<f64> = (0..300).map(|i| [0.0, 1.0, 2.5, 0.5][i % 4]).collect();
    let mut dense = Problem::new(d.clone());
    dense.set_sample_weights(w.clone()).unwrap();
    let mut sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    sparse.set_sample_weights(w).unwrap();
    let centres = std::sync::Arc::new(d.select(ndarray::Axis(0), &[1, 2, 5]));
    let ctx = Ctx::new();
    for (id, given) in [
        ("kmeans", vec![]),
        ("power", vec![("s0".to_string(), -3.0)]),
        ("khm", vec![]),
    ] {
        let a = algo::find(id).unwrap();
        for c in [None, Some(centres.clone())] {
            let run = |p: &Problem| {
                let mut req = request(3, 2, &[]);
                req.given = &given;
                req.centres = c.clone();
                let cfg = algo::configure(a.as_ref(), p, req, "X").unwrap();
                algo::run(a.as_ref(), p, &cfg, &ctx).unwrap()
            };
            let (s, t) = (run(&sparse), run(&dense));
            let what = format!("{id}, given centres: {}", c.is_some());
            assert_eq!(s.best.labels, t.best.labels, "{what}");
            assert_eq!(s.best.iterations, t.best.iterations, "{what}");
            let (u, v) = (s.best.objective, t.best.objective);
            assert!((u - v).abs() <= 1e-10 * v, "{what}: {u} vs {v}");
        }
    }
}

#[test]
fn every_other_algorithm_refuses_sparse_input_in_one_line() {
    let d = sparse_dense(50, 8, 3);
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    let mut takes = Vec::new();
    for a in algo::registry() {
        if a.caps().sparse {
            takes.push(a.id());
            continue;
        }
        let e = algo::configure(a.as_ref(), &sparse, request(2, 1, &[]), "X")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("{} needs dense rows", a.id()))
                && e.contains("sparse input runs with kmeans, khm, power, ")
                && e.contains(" or sparse-kmeans (or densify")
                && !e.contains('\n'),
            "{}: {e}",
            a.id()
        );
    }
    for id in [
        "kmeans",
        "khm",
        "power",
        "rff-power",
        "rff-mkpower",
        "ip-rff-mkpower",
        "wkmeans",
        "lw",
        "sparse-kmeans",
    ] {
        assert!(takes.contains(&id), "{id} takes sparse rows: {takes:?}");
    }
}

#[test]
fn the_memory_check_counts_nonzeros_not_n_times_p() {
    // 100 000 × 10⁹ would be 800 TB dense; it holds 100 000 nonzeros.
    let n = 100_000;
    let p = 1_000_000_000;
    let indptr: Vec<usize> = (0..=n).collect();
    let indices: Vec<u32> = (0..n as u32).map(|i| i * 7).collect();
    let x = Csr::new((n, p), indptr, indices, vec![1.0; n]).unwrap();
    let problem = Problem::from_csr(x);
    let a = algo::find("kmeans").unwrap();
    let opts = |m: &str| vec![("max_memory".to_string(), m.to_string())];
    // k = 2: the k × p centres (3 × 16 GB) do not fit in 8 GB.
    let e = algo::configure(a.as_ref(), &problem, request(2, 1, &opts("8G")), "X")
        .unwrap_err()
        .to_string();
    assert!(e.contains("k × p"), "{e}");
    // p = 10⁵ columns: the data's few MB and the centres fit in 64 MB.
    let indices: Vec<u32> = (0..n as u32).map(|i| i % 100_000).collect();
    let x = Csr::new((n, 100_000), (0..=n).collect(), indices, vec![1.0; n]).unwrap();
    let problem = Problem::from_csr(x);
    // (Dense, the same rows would be 80 GB.)
    algo::configure(a.as_ref(), &problem, request(10, 1, &opts("64M")), "X").unwrap();
}

#[test]
fn sample_is_refused_on_sparse_input() {
    let d = sparse_dense(50, 8, 3);
    let sparse = Problem::from_csr(Csr::from_dense(d.view()).unwrap());
    let given = [("sample".to_string(), 10.0)];
    for id in ["kmeans", "power"] {
        let a = algo::find(id).unwrap();
        let mut req = request(2, 1, &[]);
        req.given = &given;
        let e = algo::configure(a.as_ref(), &sparse, req, "X").unwrap_err();
        let want = format!("{id}: sample does not apply to sparse input");
        assert!(e.to_string().contains(&want), "{e}");
    }
}
