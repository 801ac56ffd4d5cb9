//! Weights on the simplex for several kernels or views (mkpower and the
//! RFF multi-view algorithms): α = softmax(−E/λ) with an entropy penalty,
//! λ relative to the median per-kernel scatter.

/// Σ α log α with 0 log 0 = 0.
pub fn neg_entropy(alpha: &[f64]) -> f64 {
    alpha
        .iter()
        .map(|&a| if a > 0.0 { a * a.ln() } else { 0.0 })
        .sum()
}

/// α = softmax(−E/λ), computed as exp(−(E − min E)/λ) / Σ.
pub fn alpha_step(e: &[f64], lambda: f64) -> Vec<f64> {
    let mn = e.iter().copied().fold(f64::INFINITY, f64::min);
    let w: Vec<f64> = e.iter().map(|&v| (-(v - mn) / lambda).exp()).collect();
    let total: f64 = w.iter().sum();
    w.iter().map(|v| v / total).collect()
}

/// λ = rel × median(E), falling back to the mean and then to 1 when the
/// scatter is zero (then every α is equal whatever λ is). Shared with the
/// RFF multi-view algorithms.
pub fn choose_lambda(e: &[f64], rel: f64) -> f64 {
    let mut sorted = e.to_vec();
    sorted.sort_by(f64::total_cmp);
    let l = sorted.len();
    let median = if l % 2 == 1 {
        sorted[l / 2]
    } else {
        0.5 * (sorted[l / 2 - 1] + sorted[l / 2])
    };
    let mean = e.iter().sum::<f64>() / l as f64;
    for base in [median, mean] {
        let v = rel * base;
        if v.is_finite() && v > 0.0 {
            return v;
        }
    }
    1.0
}
