//! Weights as text: a number in a few characters, and a strip of shades
//! with one character per group of features.

/// A weight in at most 7 characters.
pub fn short(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 0.001 && v.abs() < 1000.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.1e}")
    }
}

/// One character per group of features: how strongly the group is used.
pub fn strip(weights: &[f64], width: usize, ascii: bool) -> String {
    let shades: &[char] = if ascii {
        &[' ', '.', ':', '*', '#']
    } else {
        &[' ', '░', '▒', '▓', '█']
    };
    let max = weights.iter().cloned().fold(0.0, f64::max);
    if weights.is_empty() || width == 0 {
        return String::new();
    }
    let per = weights.len().div_ceil(width);
    weights
        .chunks(per)
        .map(|g| {
            let m = g.iter().cloned().fold(0.0, f64::max);
            if m <= 0.0 || max <= 0.0 {
                shades[0]
            } else {
                let level = 1 + ((m / max) * 3.999) as usize;
                shades[level.min(4)]
            }
        })
        .collect()
}
