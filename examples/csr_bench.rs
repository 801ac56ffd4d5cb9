//! Sparse k-means benchmark: kmeans on a CSR matrix stored as three
//! `.npy` arrays (`indptr`, `indices` int32/int64, `data` float64, as
//! `scipy.sparse.csr_matrix` holds them). Prints one JSON object; run it
//! under `/usr/bin/time -v` for the peak memory.
//!
//!     cargo run --release --example csr_bench -- DIR P K [max_iter]

use meanscape::algo::{self, Csr, Ctx, Init, Problem, Request};
use ndarray::Array1;
use ndarray_npy::read_npy;
use std::path::Path;
use std::time::Instant;

/// An index array saved as int32 or int64.
fn ints(path: &Path) -> Result<Vec<i64>, Box<dyn std::error::Error>> {
    if let Ok(a) = read_npy::<_, Array1<i32>>(path) {
        return Ok(a.iter().map(|&v| i64::from(v)).collect());
    }
    Ok(read_npy::<_, Array1<i64>>(path)?.to_vec())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: csr_bench DIR P K [max_iter]";
    let dir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let p: usize = args.next().ok_or(usage)?.parse()?;
    let k: usize = args.next().ok_or(usage)?.parse()?;
    let max_iter: f64 = args.next().map_or(Ok(300.0), |m| m.parse())?;
    let t = Instant::now();
    let indptr: Vec<usize> = ints(&dir.join("indptr.npy"))?
        .into_iter()
        .map(|v| v as usize)
        .collect();
    let indices: Vec<u32> = ints(&dir.join("indices.npy"))?
        .into_iter()
        .map(|v| v as u32)
        .collect();
    let data: Array1<f64> = read_npy(dir.join("data.npy"))?;
    let n = indptr.len() - 1;
    let x = Csr::new((n, p), indptr, indices, data.to_vec())?;
    let nnz = x.nnz();
    let problem = Problem::from_csr(x);
    let load_s = t.elapsed().as_secs_f64();
    let a = algo::find("kmeans")?;
    let given = [("max_iter".to_string(), max_iter)];
    let req = Request {
        k,
        seed: 0,
        restarts: 1,
        init: Init::KmeansPP,
        given: &given,
        options: &[],
        centres: None,
    };
    let cfg = algo::configure(a.as_ref(), &problem, req, "X")?;
    let r = algo::run(a.as_ref(), &problem, &cfg, &Ctx::new())?;
    let secs = r.elapsed.as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "n": n, "p": p, "nnz": nnz, "k": k,
            "load_s": load_s,
            "fit_s": secs,
            "iterations": r.best.iterations,
            "s_per_iter": secs / r.best.iterations.max(1) as f64,
            "objective": r.best.objective,
            "threads": rayon::current_num_threads(),
        })
    );
    Ok(())
}
