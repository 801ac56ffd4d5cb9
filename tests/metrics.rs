//! Scores checked against scikit-learn 1.9.1 / SciPy 1.17.1.
//!
//! The expected values were computed once with the Python script below and
//! pasted here as literals (NMI, ARI, ACC, purity per fixture; MCC):
//!
//! ```python
//! import numpy as np
//! from sklearn.metrics import normalized_mutual_info_score as nmi, adjusted_rand_score as ari, matthews_corrcoef
//! from sklearn.metrics.cluster import contingency_matrix
//! from scipy.optimize import linear_sum_assignment
//!
//! M = (1 << 64) - 1
//! def lcg(seed, n):
//!     s, out = seed, []
//!     for _ in range(n):
//!         s = (s * 6364136223846793005 + 1442695040888963407) & M
//!         out.append(s >> 33)
//!     return out
//!
//! def noisy_pair(seed, n, k_true, k_pred, agree):
//!     r = lcg(seed, 3 * n)
//!     truth = [r[3*i] % k_true for i in range(n)]
//!     pred = [((truth[i] * 5 + 3) % k_pred if r[3*i+1] % 100 < agree else r[3*i+2] % k_pred) * 1000 + 17
//!             for i in range(n)]
//!     return truth, pred
//!
//! def acc(t, p):
//!     c = contingency_matrix(t, p)
//!     r, s = linear_sum_assignment(c, maximize=True)
//!     return c[r, s].sum() / len(t)
//!
//! def purity(t, p):
//!     c = contingency_matrix(t, p)
//!     return c.max(axis=0).sum() / len(t)
//!
//! fixtures = {
//!   "hand": ([0,0,0,1,1,1,2,2,2,2], [0,0,1,1,1,2,2,2,0,0]),
//!   "different_counts": ([0,0,0,0,1,1,1,1,2,2,2,2], [10,10,20,20,30,30,30,40,40,50,50,50]),
//!   "fewer_clusters": ([3,3,1,1,7,7,5,5,5], [0,0,0,1,1,1,1,1,0]),
//!   "single_cluster_pred": ([0,0,1,1,2,2,2], [4,4,4,4,4,4,4]),
//!   "identical": ([0,1,2,0,1,2,3,3], [0,1,2,0,1,2,3,3]),
//!   "permuted": ([0,0,1,1,2,2,3,3], [9,9,2,2,0,0,5,5]),
//!   "lcg_20000": noisy_pair(42, 20000, 7, 9, 60),
//!   "lcg_1e6": noisy_pair(7, 1000000, 10, 12, 80),
//! }
//! for name, (t, p) in fixtures.items():
//!     t = np.array(t); p = np.array(p)
//!     print(name, repr(float(nmi(t, p))), repr(float(ari(t, p))), repr(float(acc(t, p))), repr(float(purity(t, p))))
//!
//! def bools(seed, n, pct):
//!     return [x % 100 < pct for x in lcg(seed, n)]
//! mccs = {
//!   "mcc_hand": ([True,True,True,False,False,False,False,True], [True,True,False,False,False,False,True,True]),
//!   "mcc_anti": ([False,False,True,True], [True,True,False,False]),
//!   "mcc_lcg": (bools(3, 1000, 30), bools(4, 1000, 20)),
//! }
//! for name, (s, r) in mccs.items():
//!     print(name, repr(float(matthews_corrcoef(r, s))))
//!
//! # many clusters (300 classes, 1359 clusters): sparse contingency table
//! def many(seed, n, kt, kp):
//!     r = lcg(seed, 2 * n)
//!     return [r[2*i] % kt for i in range(n)], [r[2*i+1] % kp + (r[2*i] % kt) % 7 * 1000 for i in range(n)]
//! t, p = many(11, 5000, 300, 200)
//! t = np.array(t); p = np.array(p)
//! print("many_clusters", repr(float(nmi(t, p))), repr(float(ari(t, p))), repr(float(acc(t, p))), repr(float(purity(t, p))))
//! ```

use meanscape::metrics::{Scores, accuracy, ari, cer, mcc, nmi, purity};

const TOL: f64 = 1e-12;

/// The same 64-bit LCG as the Python script: top 31 bits of each state.
fn lcg(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 33
        })
        .collect()
}

fn noisy_pair(
    seed: u64,
    n: usize,
    k_true: u64,
    k_pred: u64,
    agree: u64,
) -> (Vec<usize>, Vec<usize>) {
    let r = lcg(seed, 3 * n);
    let truth: Vec<u64> = (0..n).map(|i| r[3 * i] % k_true).collect();
    let pred = (0..n)
        .map(|i| {
            let c = if r[3 * i + 1] % 100 < agree {
                (truth[i] * 5 + 3) % k_pred
            } else {
                r[3 * i + 2] % k_pred
            };
            (c * 1000 + 17) as usize
        })
        .collect();
    (truth.into_iter().map(|t| t as usize).collect(), pred)
}

fn many(seed: u64, n: usize, kt: u64, kp: u64) -> (Vec<usize>, Vec<usize>) {
    let r = lcg(seed, 2 * n);
    let t = (0..n).map(|i| (r[2 * i] % kt) as usize).collect();
    let p = (0..n)
        .map(|i| (r[2 * i + 1] % kp + (r[2 * i] % kt) % 7 * 1000) as usize)
        .collect();
    (t, p)
}

fn bools(seed: u64, n: usize, pct: u64) -> Vec<bool> {
    lcg(seed, n).into_iter().map(|x| x % 100 < pct).collect()
}

#[track_caller]
fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= TOL,
        "{what}: got {got:.17}, scikit-learn {want:.17}"
    );
}

/// Checks all scores, through the free functions and through `Scores`.
#[track_caller]
fn check(name: &str, t: &[usize], p: &[usize], want: [f64; 4]) {
    let [w_nmi, w_ari, w_acc, w_pur] = want;
    close(nmi(t, p), w_nmi, &format!("{name} nmi"));
    close(ari(t, p), w_ari, &format!("{name} ari"));
    close(accuracy(t, p), w_acc, &format!("{name} acc"));
    close(cer(t, p), 1.0 - w_acc, &format!("{name} cer"));
    close(purity(t, p), w_pur, &format!("{name} purity"));
    let s = Scores::compute(t, p);
    close(s.nmi, w_nmi, &format!("{name} Scores.nmi"));
    close(s.ari, w_ari, &format!("{name} Scores.ari"));
    close(s.acc, w_acc, &format!("{name} Scores.acc"));
    close(s.purity, w_pur, &format!("{name} Scores.purity"));
}

#[test]
fn hand_example() {
    check(
        "hand",
        &[0, 0, 0, 1, 1, 1, 2, 2, 2, 2],
        &[0, 0, 1, 1, 1, 2, 2, 2, 0, 0],
        [0.3946483716358942, 0.09090909090909091, 0.6, 0.6],
    );
}

#[test]
fn more_clusters_than_classes() {
    check(
        "different_counts",
        &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2],
        &[10, 10, 20, 20, 30, 30, 30, 40, 40, 50, 50, 50],
        [
            0.73156229985738,
            0.5020576131687243,
            0.6666666666666666,
            0.9166666666666666,
        ],
    );
}

#[test]
fn fewer_clusters_than_classes() {
    check(
        "fewer_clusters",
        &[3, 3, 1, 1, 7, 7, 5, 5, 5],
        &[0, 0, 0, 1, 1, 1, 1, 1, 0],
        [
            0.31203851010190287,
            0.04,
            0.4444444444444444,
            0.4444444444444444,
        ],
    );
}

#[test]
fn single_cluster_prediction() {
    check(
        "single_cluster_pred",
        &[0, 0, 1, 1, 2, 2, 2],
        &[4, 4, 4, 4, 4, 4, 4],
        [0.0, 0.0, 0.42857142857142855, 0.42857142857142855],
    );
}

#[test]
fn identical_labelings() {
    let t = [0, 1, 2, 0, 1, 2, 3, 3];
    check("identical", &t, &t, [1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn permuted_labelings() {
    check(
        "permuted",
        &[0, 0, 1, 1, 2, 2, 3, 3],
        &[9, 9, 2, 2, 0, 0, 5, 5],
        [1.0, 1.0, 1.0, 1.0],
    );
}

#[test]
fn pseudo_random_20000() {
    let (t, p) = noisy_pair(42, 20000, 7, 9, 60);
    check(
        "lcg_20000",
        &t,
        &p,
        [0.370706833082403, 0.38833183363796403, 0.64715, 0.6617],
    );
}

#[test]
fn pseudo_random_million() {
    let (t, p) = noisy_pair(7, 1_000_000, 10, 12, 80);
    check(
        "lcg_1e6",
        &t,
        &p,
        [0.6304088942237595, 0.6582793691328616, 0.81714, 0.820601],
    );
}

#[test]
fn many_clusters_sparse_table() {
    let (t, p) = many(11, 5000, 300, 200);
    check(
        "many_clusters",
        &t,
        &p,
        [0.6737870365913632, 0.006570265809073257, 0.0892, 0.3074],
    );
}

#[test]
fn matthews_correlation() {
    let sel = [true, true, true, false, false, false, false, true];
    let rel = [true, true, false, false, false, false, true, true];
    close(mcc(&sel, &rel), 0.5, "mcc_hand");
    close(
        mcc(&[false, false, true, true], &[true, true, false, false]),
        -1.0,
        "mcc_anti",
    );
    close(
        mcc(&bools(3, 1000, 30), &bools(4, 1000, 20)),
        0.026994206946250886,
        "mcc_lcg",
    );
    // Zero denominator (scikit-learn also returns 0 here).
    assert_eq!(mcc(&[true; 4], &[true, false, true, false]), 0.0);
    assert_eq!(mcc(&[true; 4], &[true; 4]), 0.0);
}
