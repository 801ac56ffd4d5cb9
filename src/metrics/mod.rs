//! Clustering scores: label-free ones ([`internal`]) and agreement of a predicted partition with the ground
//! truth (NMI, ARI, matched accuracy and its complement CER, purity), and the
//! Matthews correlation of a selected feature set with the true relevance.
//!
//! Labels are arbitrary `usize` ids: they need not be dense nor start at 0;
//! they are compacted internally. Truth and prediction must have the same
//! length (a mismatch panics: it is a programming error, not a data error).
//! Everything except the matching of [`accuracy`] is O(n) in time and memory;
//! the matching is O(a²·b) for a ≤ b the numbers of classes and clusters.
//!
//! NMI and ARI follow scikit-learn (`normalized_mutual_info_score` with its
//! default arithmetic normalisation, `adjusted_rand_score`) formula for
//! formula, special cases included, and agree with it to about 1e-15.
//!
//! On empty input every partition score is 1.0 (scikit-learn's convention for
//! NMI and ARI: two empty labelings agree perfectly).

use pathfinding::prelude::{Matrix, kuhn_munkres};
use std::collections::HashMap;

/// The four partition scores of a clustering against ground truth.
#[derive(Debug, Clone, Copy, serde::Serialize, PartialEq)]
pub struct Scores {
    pub nmi: f64,
    pub ari: f64,
    pub acc: f64,
    pub purity: f64,
}

impl Scores {
    /// All four scores from one contingency table.
    pub fn compute(truth: &[usize], pred: &[usize]) -> Scores {
        let t = Contingency::new(truth, pred);
        Scores {
            nmi: t.nmi(),
            ari: t.ari(),
            acc: t.accuracy(),
            purity: t.purity(),
        }
    }
}

/// Normalised mutual information, arithmetic normalisation:
/// `NMI = 2 I(U;V) / (H(U) + H(V))` (natural logs; the base cancels).
///
/// As scikit-learn: if both labelings are a single cluster (both entropies
/// 0) the result is 1.0; if only one is, the mutual information is 0 and so
/// is the result.
pub fn nmi(truth: &[usize], pred: &[usize]) -> f64 {
    Contingency::new(truth, pred).nmi()
}

/// Adjusted Rand index (Hubert & Arabie 1985), computed as scikit-learn's
/// `adjusted_rand_score` from the pair confusion matrix. Returns 1.0 when no
/// pair is split by one labeling and joined by the other (which covers
/// identical labelings, n ≤ 1, and both labelings all-singletons or
/// all-one-cluster).
pub fn ari(truth: &[usize], pred: &[usize]) -> f64 {
    Contingency::new(truth, pred).ari()
}

/// Clustering accuracy: the fraction of points whose cluster is matched to
/// their class under the best one-to-one matching of clusters to classes
/// (Hungarian algorithm, `pathfinding::kuhn_munkres`, on the integer
/// contingency table). The numbers of clusters and classes may differ: the
/// table is matched as if padded to square with zeros, so points of
/// unmatched clusters count as errors. Cost O(a²·b) for a ≤ b the numbers
/// of classes and clusters, and a dense a×b table.
pub fn accuracy(truth: &[usize], pred: &[usize]) -> f64 {
    Contingency::new(truth, pred).accuracy()
}

/// Classification error rate, `1 − accuracy` (the matching version, as in
/// the LW-k-means reference code).
pub fn cer(truth: &[usize], pred: &[usize]) -> f64 {
    1.0 - accuracy(truth, pred)
}

/// Purity: each cluster votes for its majority class;
/// `Σ_clusters max_class n_{class,cluster} / n`.
pub fn purity(truth: &[usize], pred: &[usize]) -> f64 {
    Contingency::new(truth, pred).purity()
}

/// Matthews correlation between a selected feature set and the true
/// relevance vector (symmetric in its arguments):
/// `(TP·TN − FP·FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))`.
///
/// When the denominator is 0 — all or no features selected, all or no
/// features relevant, or empty input — the result is defined as 0.0 (as
/// scikit-learn's `matthews_corrcoef`).
pub fn mcc(selected: &[bool], relevant: &[bool]) -> f64 {
    assert_eq!(
        selected.len(),
        relevant.len(),
        "mcc: selected and relevant have different lengths"
    );
    let (mut tp, mut tn, mut fp, mut fnn) = (0u64, 0u64, 0u64, 0u64);
    for (&s, &r) in selected.iter().zip(relevant) {
        match (s, r) {
            (true, true) => tp += 1,
            (false, false) => tn += 1,
            (true, false) => fp += 1,
            (false, true) => fnn += 1,
        }
    }
    let (tp, tn, fp, fnn) = (tp as f64, tn as f64, fp as f64, fnn as f64);
    let den = (tp + fp) * (tp + fnn) * (tn + fp) * (tn + fnn);
    if den == 0.0 {
        return 0.0;
    }
    (tp * tn - fp * fnn) / den.sqrt()
}

/// Maps arbitrary ids to dense `0..m` in order of first appearance.
fn compact(labels: &[usize]) -> (Vec<u32>, usize) {
    let n = labels.len();
    let max = labels.iter().copied().max().unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    let mut m = 0u32;
    if max <= 4 * n + 1024 {
        let mut map = vec![u32::MAX; max + 1];
        for &l in labels {
            if map[l] == u32::MAX {
                map[l] = m;
                m += 1;
            }
            out.push(map[l]);
        }
    } else {
        let mut map: HashMap<usize, u32> = HashMap::new();
        for &l in labels {
            let id = *map.entry(l).or_insert_with(|| {
                m += 1;
                m - 1
            });
            out.push(id);
        }
    }
    (out, m as usize)
}

/// Sparse contingency table: row = class (truth), column = cluster (pred).
struct Contingency {
    n: u64,
    /// Class sizes.
    rows: Vec<u64>,
    /// Cluster sizes.
    cols: Vec<u64>,
    /// Non-zero cells (row, column, count), row-major order.
    cells: Vec<(usize, usize, u64)>,
}

impl Contingency {
    fn new(truth: &[usize], pred: &[usize]) -> Self {
        assert_eq!(
            truth.len(),
            pred.len(),
            "truth and predicted labels have different lengths"
        );
        let n = truth.len();
        let (a, r) = compact(truth);
        let (b, c) = compact(pred);
        let mut rows = vec![0u64; r];
        let mut cols = vec![0u64; c];
        for (&i, &j) in a.iter().zip(&b) {
            rows[i as usize] += 1;
            cols[j as usize] += 1;
        }
        let cells = if r.saturating_mul(c) <= 2 * n + 4096 {
            let mut dense = vec![0u64; r * c];
            for (&i, &j) in a.iter().zip(&b) {
                dense[i as usize * c + j as usize] += 1;
            }
            dense
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v > 0)
                .map(|(idx, &v)| (idx / c, idx % c, v))
                .collect()
        } else {
            let mut map: HashMap<u64, u64> = HashMap::with_capacity(n.min(1 << 20));
            for (&i, &j) in a.iter().zip(&b) {
                *map.entry(i as u64 * c as u64 + j as u64).or_insert(0) += 1;
            }
            let mut cells: Vec<(usize, usize, u64)> = map
                .into_iter()
                .map(|(key, v)| ((key / c as u64) as usize, (key % c as u64) as usize, v))
                .collect();
            cells.sort_unstable();
            cells
        };
        Contingency {
            n: n as u64,
            rows,
            cols,
            cells,
        }
    }

    /// Entropy of a labeling from its cluster sizes, as scikit-learn's
    /// `_entropy`.
    fn entropy(sizes: &[u64], n: u64) -> f64 {
        if sizes.len() <= 1 {
            return 0.0;
        }
        let ln_n = (n as f64).ln();
        let n = n as f64;
        -sizes
            .iter()
            .map(|&s| (s as f64 / n) * ((s as f64).ln() - ln_n))
            .sum::<f64>()
    }

    /// Mutual information, as scikit-learn's `mutual_info_score` (terms
    /// below machine epsilon dropped, result clipped at 0).
    fn mutual_info(&self) -> f64 {
        if self.rows.len() == 1 || self.cols.len() == 1 {
            return 0.0;
        }
        let n = self.n as f64;
        let ln_n = n.ln();
        let mut mi = 0.0;
        for &(i, j, v) in &self.cells {
            let v = v as f64;
            let p = v / n;
            let outer = (self.rows[i] * self.cols[j]) as f64;
            let log_outer = -outer.ln() + ln_n + ln_n;
            let term = p * (v.ln() - ln_n) + p * log_outer;
            if term.abs() >= f64::EPSILON {
                mi += term;
            }
        }
        mi.max(0.0)
    }

    fn nmi(&self) -> f64 {
        let (r, c) = (self.rows.len(), self.cols.len());
        if (r == 1 && c == 1) || (r == 0 && c == 0) {
            return 1.0;
        }
        let mi = self.mutual_info();
        if mi == 0.0 {
            return 0.0;
        }
        let h_true = Self::entropy(&self.rows, self.n);
        let h_pred = Self::entropy(&self.cols, self.n);
        mi / ((h_true + h_pred) / 2.0)
    }

    fn ari(&self) -> f64 {
        // Ordered-pair confusion matrix, as scikit-learn's
        // `pair_confusion_matrix`; exact in integers.
        let n = self.n as i128;
        let sum_squares: i128 = self.cells.iter().map(|&(_, _, v)| (v as i128).pow(2)).sum();
        let rows_sq: i128 = self.rows.iter().map(|&v| (v as i128).pow(2)).sum();
        let cols_sq: i128 = self.cols.iter().map(|&v| (v as i128).pow(2)).sum();
        // tp: together in both; fp: together in the prediction only
        // (scikit-learn's C[0,1] = Σ_ij n_ij·n_.j − Σ n_ij²); fn: together
        // in the truth only (C[1,0]); tn: the rest.
        let tp = sum_squares - n;
        let fp = cols_sq - sum_squares;
        let fnn = rows_sq - sum_squares;
        let tn = n * n - fp - fnn - sum_squares;
        if fnn == 0 && fp == 0 {
            return 1.0;
        }
        let num = tp * tn - fnn * fp;
        let den = (tp + fnn) * (fnn + tn) + (tp + fp) * (fp + tn);
        2.0 * (num as f64) / (den as f64)
    }

    fn accuracy(&self) -> f64 {
        if self.n == 0 {
            return 1.0;
        }
        // kuhn_munkres wants rows ≤ columns: put the smaller side on the
        // rows. A rectangular table is the square one padded with zero rows,
        // without the O(max³) cost of the padding.
        let (r, c) = (self.rows.len(), self.cols.len());
        let transpose = r > c;
        let (nr, nc) = if transpose { (c, r) } else { (r, c) };
        let mut w = Matrix::new(nr, nc, 0i64);
        for &(i, j, v) in &self.cells {
            let at = if transpose { (j, i) } else { (i, j) };
            w[at] = v as i64;
        }
        let (total, _) = kuhn_munkres(&w);
        total as f64 / self.n as f64
    }

    fn purity(&self) -> f64 {
        if self.n == 0 {
            return 1.0;
        }
        let mut best = vec![0u64; self.cols.len()];
        for &(_, j, v) in &self.cells {
            best[j] = best[j].max(v);
        }
        best.iter().sum::<u64>() as f64 / self.n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_and_relabelled_partitions_score_one() {
        let t = [0, 0, 1, 1, 2, 2, 2];
        let p = [7, 7, 3, 3, 100, 100, 100];
        for s in [Scores::compute(&t, &t), Scores::compute(&t, &p)] {
            assert!((s.nmi - 1.0).abs() < 1e-12, "{s:?}");
            assert_eq!(s.ari, 1.0);
            assert_eq!(s.acc, 1.0);
            assert_eq!(s.purity, 1.0);
        }
        assert_eq!(cer(&t, &p), 0.0);
    }

    #[test]
    fn single_cluster_conventions() {
        let one = [5; 6];
        assert_eq!(nmi(&one, &one), 1.0);
        assert_eq!(ari(&one, &one), 1.0);
        let t = [0, 0, 0, 1, 1, 1];
        assert_eq!(nmi(&t, &one), 0.0);
        assert_eq!(ari(&t, &one), 0.0);
        assert_eq!(accuracy(&t, &one), 0.5);
        assert_eq!(purity(&t, &one), 0.5);
    }

    #[test]
    fn empty_input() {
        let s = Scores::compute(&[], &[]);
        assert_eq!(
            s,
            Scores {
                nmi: 1.0,
                ari: 1.0,
                acc: 1.0,
                purity: 1.0
            }
        );
        assert_eq!(mcc(&[], &[]), 0.0);
    }

    #[test]
    fn accuracy_with_more_clusters_than_classes() {
        let t = [0, 0, 0, 0, 1, 1, 1, 1];
        let p = [0, 0, 1, 1, 2, 2, 2, 3];
        // Best: cluster 0 or 1 → class 0 (2 points), cluster 2 → class 1 (3).
        assert_eq!(accuracy(&t, &p), 5.0 / 8.0);
        assert_eq!(accuracy(&p, &t), 5.0 / 8.0);
        assert_eq!(purity(&t, &p), 1.0);
        assert_eq!(purity(&p, &t), 5.0 / 8.0);
    }

    #[test]
    fn sparse_ids_use_the_hash_paths() {
        let t: Vec<usize> = (0..1000).map(|i| (i % 4) * 1_000_000_007).collect();
        let p: Vec<usize> = (0..1000).map(|i| usize::MAX - (i % 4)).collect();
        let s = Scores::compute(&t, &p);
        assert_eq!(s.ari, 1.0);
        assert_eq!(s.acc, 1.0);
        // All singletons against 4 classes: many cells, sparse table.
        let single: Vec<usize> = (0..1000).map(|i| i * 1_000_003).collect();
        assert_eq!(purity(&t, &single), 1.0);
        assert_eq!(purity(&single, &t), 4.0 / 1000.0);
        // Singletons against singletons: a million-cell table, kept sparse.
        let rev: Vec<usize> = single.iter().rev().copied().collect();
        let s = Scores::compute(&single, &rev);
        assert_eq!((s.ari, s.acc, s.purity), (1.0, 1.0, 1.0));
        assert!((s.nmi - 1.0).abs() < 1e-12);
    }

    #[test]
    fn many_singleton_clusters_match_quickly() {
        let n = 20_000;
        let t: Vec<usize> = (0..n).map(|i| i % 10).collect();
        let p: Vec<usize> = (0..n).collect();
        let start = std::time::Instant::now();
        assert_eq!(accuracy(&t, &p), 10.0 / n as f64);
        assert_eq!(accuracy(&p, &t), 10.0 / n as f64);
        assert_eq!(purity(&t, &p), 1.0);
        assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    }

    #[test]
    fn mcc_cases() {
        let rel = [true, true, false, false];
        assert_eq!(mcc(&rel, &rel), 1.0);
        assert_eq!(mcc(&[false, false, true, true], &rel), -1.0);
        assert_eq!(mcc(&[true; 4], &rel), 0.0);
        assert_eq!(mcc(&[false; 4], &rel), 0.0);
        assert_eq!(mcc(&rel, &[true; 4]), 0.0);
    }

    #[test]
    #[should_panic(expected = "different lengths")]
    fn length_mismatch_panics() {
        nmi(&[0, 1], &[0]);
    }
}
