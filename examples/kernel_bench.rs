//! Kernel benchmark (driven by bench/kernel_gemm.py): on one dataset,
//! measures in one process
//! - this machine's GEMM rate through the crate's own product (`linalg::dot`,
//!   faer), on a square product and on the n×n·n×k shape of a kpower step;
//! - the Gram matrix build (Gaussian, σ rule);
//! - seconds per kpower iteration (a fixed number of iterations, tol = 0).
//!
//! It prints one JSON object.
//!
//!     cargo run --release --example kernel_bench -- ../shared/data/usps.csv [iters] [f64|f32] [rounds]

use meanscape::algo::{Ctx, Init};
use meanscape::data::{LoadOptions, Scaling};
use meanscape::internals::Schedule;
use meanscape::internals::kernel::{self, Gram, KernelSpec};
use meanscape::internals::kpower_loop;
use meanscape::internals::linalg;
use ndarray::Array2;
use rand::SeedableRng;
use std::time::Instant;

/// CPU time of all threads of this process (ns), from
/// /proc/self/task/*/schedstat: unlike wall time it does not count the time
/// other processes hold the cores, so rates from it are comparable across a
/// shared machine's load.
fn cpu_ns() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .sum()
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let v = f();
        best = best.min(t0.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("reps > 0"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .cloned()
        .unwrap_or("../shared/data/usps.csv".into());
    let iters: usize = args.get(2).map_or(20, |s| s.parse().expect("iters"));
    let store = args.get(3).cloned().unwrap_or("f64".into());
    let rounds_n: usize = args.get(4).map_or(5, |s| s.parse().expect("rounds"));
    let threads = rayon::current_num_threads();

    let t0 = Instant::now();
    let loaded = meanscape::load(&path, &LoadOptions::default(), Scaling::Standard)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let load_s = t0.elapsed().as_secs_f64();
    let problem = loaded.problem.clone();
    let (n, p) = (problem.n(), problem.p());
    let k = loaded.default_k().unwrap_or(10);

    // The Gram matrix (Gaussian, σ rule), timed once.
    let sigma = kernel::auto_sigma(&problem);
    let text = if store == "f32" {
        "gaussian:gram=f32"
    } else {
        "gaussian"
    };
    let spec = KernelSpec::parse(text, "--kernel")
        .unwrap()
        .resolve(sigma, || 0.0)
        .unwrap();
    let t0 = Instant::now();
    let gram = Gram::build(problem.x.f64().view(), &spec, &Ctx::new()).unwrap();
    let build_s = t0.elapsed().as_secs_f64();
    // The products inside the build: the lower triangle of X·Xᵀ.
    let build_flops = (n as f64).powi(2) * p as f64;

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let seeds = kernel::seeds(&gram, k, Init::KmeansPP, &mut rng).unwrap();
    let sched = Schedule {
        s0: -1.0,
        eta: 1.04,
        period: 5,
        s_min: -1000.0,
    };
    let flops_iter = 2.0 * (n as f64).powi(2) * k as f64;
    let m = 2048;
    let a = Array2::from_shape_fn((m, m), |(i, j)| ((i * 31 + j * 17) % 101) as f64 / 101.0);
    let omega = Array2::from_shape_fn((n, k), |(i, j)| ((i + j) % 7) as f64 / (7.0 * n as f64));

    // Rounds, each measuring the GEMM rate (square product, best of 2), the
    // kpower-shaped product K·Ω (best of 2) and `iters` kpower iterations,
    // so that the rate and the iterations see the same machine load (the
    // machine may be shared).
    let mut rounds = Vec::new();
    let mut last_fit = None;
    for _ in 0..rounds_n {
        let c0 = cpu_ns();
        let (t_sq, _) = best_of(2, || linalg::dot(a.view(), a.view()));
        let cpu_sq = (cpu_ns() - c0) * 1e-9 / 2.0;
        let rate = 2.0 * (m as f64).powi(3) / t_sq;
        let (t_kw, _) = best_of(2, || gram.times(omega.view()));
        let c0 = cpu_ns();
        let t0 = Instant::now();
        let fit = kpower_loop(
            &gram,
            kernel::seed_omega(n, &seeds),
            &sched,
            0.0,
            1.0,
            iters,
            &Ctx::new(),
        )
        .unwrap();
        let per_iter = t0.elapsed().as_secs_f64() / fit.iterations as f64;
        let cpu_iter = (cpu_ns() - c0) * 1e-9 / fit.iterations as f64;
        let bound = flops_iter / rate;
        // The same comparison in CPU seconds (flops per CPU second of the
        // square product vs CPU seconds per iteration).
        let cpu_ratio = cpu_iter / (flops_iter * cpu_sq / (2.0 * (m as f64).powi(3)));
        rounds.push(serde_json::json!({
            "gemm_gflops": rate / 1e9,
            "k_times_omega_s": t_kw,
            "per_iteration_s": per_iter,
            "bound_s": bound,
            "ratio_to_bound": per_iter / bound,
            "cpu_gflops_per_cpu_s": 2.0 * (m as f64).powi(3) / cpu_sq / 1e9,
            "cpu_s_per_iteration": cpu_iter,
            "cpu_ratio": cpu_ratio,
        }));
        last_fit = Some(fit);
    }
    let fit = last_fit.expect("rounds > 0");
    let col = |key: &str| -> Vec<f64> { rounds.iter().map(|r| r[key].as_f64().unwrap()).collect() };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let best_rate = col("gemm_gflops").into_iter().fold(0.0, f64::max) * 1e9;
    let best_iter = col("per_iteration_s")
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    let nmi = loaded
        .dataset
        .labels
        .as_ref()
        .map(|t| meanscape::metrics::Scores::compute(&t.ids, &fit.labels).nmi);

    let out = serde_json::json!({
        "data": path, "n": n, "p": p, "k": k, "threads": threads, "gram": store,
        "load_s": load_s,
        "gram_build": {"seconds": build_s, "bytes": gram.bytes(), "sigma": sigma,
                        "gemm_flops": build_flops,
                        "gemm_bound_s": build_flops / best_rate},
        "kpower": {"iterations_per_round": iters, "flops_per_iteration": flops_iter,
                   "best_gemm_gflops": best_rate / 1e9,
                   "best_per_iteration_s": best_iter,
                   "best_vs_best": best_iter / (flops_iter / best_rate),
                   "median_ratio_same_round": median(col("ratio_to_bound")),
                   "median_cpu_ratio": median(col("cpu_ratio")),
                   "nmi_after_rounds": nmi},
        "rounds": rounds,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
