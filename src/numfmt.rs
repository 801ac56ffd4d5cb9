//! Numbers and durations for places of a fixed width (table cells, axis
//! labels, one-line summaries): one way to write a time everywhere, and
//! numbers rounded to fit instead of cut (a cut `0.0004501…` reads as
//! another number).

/// A duration in the one form the UI uses: `0.4 ms`, `30 ms`, `1.24 s`,
/// `12.3 s`, `2 min 03 s`, `1 h 05 min`; `-` when it is not a duration.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "-".into();
    }
    let ms = secs * 1e3;
    // Each branch checks the value as it would be printed, so 999.7 ms is
    // 1.00 s and 59.97 s is 1 min 00 s, never 1000 ms or 60.0 s.
    if ms == 0.0 {
        return "0 ms".into();
    }
    if (ms * 10.0).round() < 100.0 {
        return format!("{ms:.1} ms");
    }
    if ms.round() < 1000.0 {
        return format!("{ms:.0} ms");
    }
    if (secs * 100.0).round() < 1000.0 {
        return format!("{secs:.2} s");
    }
    if (secs * 10.0).round() < 600.0 {
        return format!("{secs:.1} s");
    }
    let whole = secs.round() as u64;
    if whole < 3600 {
        return format!("{} min {:02} s", whole / 60, whole % 60);
    }
    let mins = (secs / 60.0).round() as u64;
    format!("{} h {:02} min", mins / 60, mins % 60)
}

/// `v` in at most `width` characters with as many significant digits (up
/// to six) as fit: fixed notation while it keeps three digits or as
/// many as an exponent would, else an exponent;
/// rounded, never cut. `…` alone when not even one digit fits.
pub fn fit(v: f64, width: usize) -> String {
    let out = if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if v == 0.0 {
        "0".to_string()
    } else if v.fract() == 0.0 && v.abs() < 1e15 && digits_of_int(v) <= width {
        format!("{}", v as i64)
    } else if let Some(exact) = Some(format!("{v}")).filter(|t| t.len() <= width.min(10)) {
        // Short enough to show exactly (1.04, 1234567.5), as typed.
        exact
    } else {
        // Fixed notation reads best: it wins unless an exponent keeps
        // more digits and fixed keeps fewer than three.
        let best = |f: &dyn Fn(i32) -> String| {
            (1..=6)
                .rev()
                .map(|d| (d, f(d)))
                .find(|(_, s)| s.chars().count() <= width)
        };
        match (best(&|d| fixed(v, d)), best(&|d| exponent(v, d))) {
            (Some((df, f)), Some((de, e))) => {
                if df >= 3 || df >= de {
                    f
                } else {
                    e
                }
            }
            (Some((_, f)), None) => f,
            (None, Some((_, e))) => e,
            (None, None) => String::new(),
        }
    };
    if out.is_empty() || out.chars().count() > width {
        "…".chars().take(width).collect()
    } else {
        out
    }
}

fn digits_of_int(v: f64) -> usize {
    format!("{}", v as i64).len()
}

/// `v` rounded to `d` significant digits in fixed notation, trailing
/// zeros dropped.
fn fixed(v: f64, d: i32) -> String {
    let mag = v.abs().log10().floor() as i32;
    let decimals = (d - 1 - mag).max(0) as usize;
    // Digits left of the point beyond d are rounded away too.
    let scale = 10f64.powi(d - 1 - mag);
    let r = if decimals == 0 {
        (v * scale).round() / scale
    } else {
        v
    };
    let s = format!("{r:.decimals$}");
    // Rounding can carry into a new digit (9.99 → 10.0): still d digits.
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".into() } else { s }
}

/// `v` rounded to `d` significant digits as `4.5e-4`.
fn exponent(v: f64, d: i32) -> String {
    let t = format!("{:.*e}", (d - 1) as usize, v);
    let (mantissa, exp) = t.split_once('e').unwrap_or((&t, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}e{exp}")
}

/// As many of `parts` as fit in `width`, in order, joined by spaces, and
/// `(+N)` for those left out: whole parts or none, so that `eta=1.324
/// s0=-3` never shows as `eta=1.324 s…`. When not even the first part
/// fits with its count, `N set` alone.
pub fn fit_words(parts: &[String], width: usize) -> String {
    let all = parts.join(" ");
    if all.chars().count() <= width {
        return all;
    }
    for keep in (1..parts.len()).rev() {
        let t = format!("{} (+{})", parts[..keep].join(" "), parts.len() - keep);
        if t.chars().count() <= width {
            return t;
        }
    }
    let t = format!("{} set", parts.len());
    if t.chars().count() <= width {
        t
    } else {
        "…".chars().take(width).collect()
    }
}

/// `v` rounded to `digits` significant digits.
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = v.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - mag);
    (v * scale).round() / scale
}

pub fn fmt_num(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v}");
        if s.len() <= 10 {
            s
        } else if (1e-4..1e9).contains(&v.abs()) {
            // Six significant digits, trailing zeros dropped.
            let r = round_sig(v, 6);
            let t = format!("{r:.10}");
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            // Six significant digits, trailing zeros of the mantissa dropped.
            let t = format!("{v:.5e}");
            let (mantissa, exp) = t.split_once('e').unwrap_or((&t, "0"));
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exp}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{duration, fit, fit_words};

    #[test]
    fn one_time_format_at_every_scale() {
        assert_eq!(duration(0.0), "0 ms");
        assert_eq!(duration(0.0004), "0.4 ms");
        assert_eq!(duration(0.0099), "9.9 ms");
        assert_eq!(duration(0.00996), "10 ms");
        assert_eq!(duration(0.03), "30 ms");
        assert_eq!(duration(0.9996), "1.00 s");
        assert_eq!(duration(1.244), "1.24 s");
        assert_eq!(duration(9.996), "10.0 s");
        assert_eq!(duration(12.34), "12.3 s");
        assert_eq!(duration(59.97), "1 min 00 s");
        assert_eq!(duration(123.0), "2 min 03 s");
        assert_eq!(duration(3599.6), "1 h 00 min");
        assert_eq!(duration(3900.0), "1 h 05 min");
        assert_eq!(duration(f64::NAN), "-");
        assert_eq!(duration(-1.0), "-");
    }

    #[test]
    fn numbers_are_rounded_to_fit_never_cut() {
        assert_eq!(fit(0.000450123, 12), "0.000450123");
        assert_eq!(fit(0.000450123, 9), "0.0004501");
        assert_eq!(fit(0.000450123, 7), "0.00045");
        assert_eq!(fit(0.000450123, 6), "4.5e-4");
        assert_eq!(fit(0.000450123, 4), "5e-4");
        assert_eq!(fit(0.000450123, 3), "…");
        assert_eq!(fit(1.324, 10), "1.324");
        assert_eq!(fit(1234567.5, 10), "1234567.5");
        assert_eq!(fit(1234567.5, 8), "1234570");
        assert_eq!(fit(1.324, 3), "1.3");
        assert_eq!(fit(-0.9091, 5), "-0.91");
        assert_eq!(fit(1271.0, 10), "1271");
        assert_eq!(fit(123456.0, 4), "1e5");
        assert_eq!(fit(1349.57, 5), "1350");
        assert_eq!(fit(9.999, 3), "10");
        assert_eq!(fit(-0.00000123, 10), "-1.23e-6");
        assert_eq!(fit(0.1 + 0.2, 20), "0.3");
        assert_eq!(fit(0.0, 1), "0");
        assert_eq!(fit(f64::INFINITY, 5), "inf");
        // Whatever the width, the text fits and reads as the number rounded.
        for v in [3.14159e-9, -2.5e12, 0.5, -123.456, 7.0e20] {
            for w in 1..14 {
                let s = fit(v, w);
                assert!(s.chars().count() <= w, "{v} in {w}: {s}");
                if s != "…" {
                    let back: f64 = s.parse().unwrap();
                    assert!((back - v).abs() <= v.abs() * 0.5, "{v} in {w}: {s}");
                }
            }
        }
    }

    #[test]
    fn words_are_kept_whole_and_the_rest_counted() {
        let p: Vec<String> = ["eta=1.324", "s0=-3"].map(String::from).to_vec();
        assert_eq!(fit_words(&p, 20), "eta=1.324 s0=-3");
        assert_eq!(fit_words(&p, 14), "eta=1.324 (+1)");
        assert_eq!(fit_words(&p, 12), "2 set");
        assert_eq!(fit_words(&p, 3), "…");
        assert_eq!(fit_words(&[], 5), "");
    }
}
