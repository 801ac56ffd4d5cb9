//! Memory of the RFF family is O(n·D), never O(n²): on data large enough
//! that the kernel algorithms' memory guard refuses an n×n matrix at once,
//! rff-power runs, and a counting allocator shows its peak stays within a
//! small multiple of the feature matrix (plus the GEMM kernels' fixed
//! per-thread buffers). (Its own test binary: the
//! allocator counts the whole process.)

use meanscape::Error;
use meanscape::algo::{self, Ctx, Init, Problem, RunConfig};
use ndarray::Array2;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn config(
    id: &str,
    pr: &Problem,
    given: &[(&str, f64)],
    opts: &[(&str, &str)],
) -> (Box<dyn algo::Algorithm>, RunConfig) {
    let a = algo::find(id).unwrap();
    let given: Vec<(String, f64)> = given.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let opts: Vec<(String, String)> = opts
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let cfg = RunConfig {
        k: 4,
        seed: 0,
        restarts: 1,
        init: Init::KmeansPP,
        params: algo::resolve_params(a.as_ref(), pr, 4, &given).unwrap(),
        options: algo::resolve_options(a.as_ref(), &opts).unwrap(),
        centres: None,
    };
    (a, cfg)
}

#[test]
fn memory_is_o_n_d_where_an_n_by_n_matrix_is_refused() {
    let n = 300_000;
    let p = 3;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let x = Array2::from_shape_simple_fn((n, p), || {
        let z: f64 = StandardNormal.sample(&mut rng);
        z
    });
    let pr = Problem::new(x);
    // The exact kernel algorithms refuse at once: n² × 8 bytes = 670.6 GiB.
    for id in ["kpower", "mkpower"] {
        let (a, cfg) = config(id, &pr, &[], &[("max_memory", "2G")]);
        let e = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap_err();
        assert!(matches!(e, Error::Resource(_)), "{id}: {e}");
        assert!(e.to_string().contains("rff-power"), "{e}");
    }
    // The RFF algorithms run under the same limit; their peak grows with n
    // as the feature matrices plus n×k working arrays. The GEMM kernels'
    // packing buffers are a fixed cost per thread whose size follows the
    // machine's caches (hundreds of MB where L3 is 260 MiB), so the growth
    // from a tenth of the rows to all of them is what is bounded.
    let dim = 16;
    let small = Problem::new(pr.x.rows().slice(0, n / 10).f64_owned());
    for (id, views, opts) in [
        ("rff-power", 1, vec![("max_memory", "2G")]),
        (
            "ip-rff-mkpower",
            2,
            vec![("max_memory", "2G"), ("views", "sigmas=1,2")],
        ),
    ] {
        let peak_of = |pr: &Problem| {
            let (a, cfg) = config(
                id,
                pr,
                &[
                    ("rff_dim", dim as f64),
                    ("max_iter", 4.0),
                    ("init_iter", 3.0),
                ],
                &opts,
            );
            let before = LIVE.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let fit = algo::run(a.as_ref(), pr, &cfg, &Ctx::new()).unwrap().best;
            assert_eq!(fit.labels.len(), pr.n());
            pr.retain_family("rff|", &[]);
            PEAK.load(Ordering::Relaxed) - before
        };
        let (low, peak) = (peak_of(&small), peak_of(&pr));
        let per_row = 2 * 2 * dim * 8 * views + 8 * 4 * (views + 12);
        let features = n * 2 * dim * 8 * views;
        let growth = peak.saturating_sub(low);
        let bound = per_row * (n - n / 10);
        assert!(
            growth < bound,
            "{id}: peak {peak} bytes at n = {n}, {low} at n/10: grew {growth}, bound {bound}"
        );
        assert!(
            peak >= features,
            "{id}: the features were counted: {peak} < {features}"
        );
        // Far below one n×n matrix (720 GB).
        assert!((peak as f64) < 1e-3 * (n as f64).powi(2) * 8.0);
    }
    // The RFF guard refuses a limit below the feature matrix, in one line.
    let (a, cfg) = config(
        "rff-power",
        &pr,
        &[("rff_dim", 512.0)],
        &[("max_memory", "100M")],
    );
    let e = algo::run(a.as_ref(), &pr, &cfg, &Ctx::new()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Resource(_)), "{msg}");
    assert!(
        msg.contains("2.3 GiB") && msg.contains("rff_dim") && !msg.contains('\n'),
        "{msg}"
    );
}
