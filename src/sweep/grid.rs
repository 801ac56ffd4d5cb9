//! The axes of a sweep: `NAME=FROM:TO:COUNT[:log]` or `NAME=a,b,c`,
//! checked against what the algorithm declares.

use crate::error::{Error, Result};
use crate::solver::params::{ParamSpec, fmt_num, round_sig};
use crate::solver::{Algorithm, Problem};

/// How an axis' values were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Spacing {
    Linear,
    /// Evenly spaced in log |value|, the sign kept.
    Log,
    List,
}

/// One parameter the sweep varies, with its values in order.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Axis {
    pub name: String,
    /// The parameter's symbol (`s₀`, `η`, `σ`; `k`) for tables and plots.
    pub symbol: String,
    pub spacing: Spacing,
    /// Numbers; on an option axis the positions 0, 1, … of `texts`.
    pub values: Vec<f64>,
    /// An option axis' values as given (`gaussian`, `laplacian`, …);
    /// empty for a numeric parameter.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<String>,
}

/// The non-numeric options a sweep may vary. Values are separated by `|`
/// (a kernel spec holds commas, a kernel list semicolons); a `kernel`
/// axis also takes `;`, as `--kernels` does.
pub const OPTION_AXES: [&str; 3] = ["kernel", "kernels", "views"];

/// The most runs (cells × seeds) one sweep may ask for: 20 000 runs of a
/// second each are already more than five hours on one core.
pub const MAX_RUNS: usize = 20_000;

/// The most values one axis may have.
pub const MAX_COUNT: usize = 1_000;

impl Axis {
    /// Parses `NAME=FROM:TO:COUNT[:log]` (both ends included) or
    /// `NAME=a,b,c`, without checking the name or the range.
    ///
    /// # Errors
    /// [`Error::Param`] for text that is not one of those forms, a COUNT of
    /// 0, an empty or reversed range, or a log range that touches or
    /// crosses 0.
    pub fn parse(text: &str) -> Result<Axis> {
        let shown = crate::text::clipped(text, 60);
        let bad = |why: &str| Error::param(format!("--grid {shown}: {why}"));
        let (name, spec) = text
            .split_once('=')
            .ok_or_else(|| bad("must be NAME=FROM:TO:COUNT[:log] or NAME=a,b,c"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(bad("the parameter name is missing"));
        }
        let num = |s: &str| -> Result<f64> {
            let v: f64 = s.trim().parse().map_err(|_| {
                bad(&format!(
                    "'{}' is not a number",
                    crate::text::clipped(s.trim(), 30)
                ))
            })?;
            if v.is_finite() {
                Ok(v)
            } else {
                Err(bad(&format!(
                    "'{}' is not a finite number",
                    crate::text::clipped(s.trim(), 30)
                )))
            }
        };
        let axis = |spacing, values| Axis {
            name: name.to_string(),
            symbol: name.to_string(),
            spacing,
            values,
            texts: Vec::new(),
        };
        if OPTION_AXES.contains(&name) {
            return option_axis(name, spec).map_err(|e| bad(&e));
        }
        if spec.contains(':') {
            let parts: Vec<&str> = spec.split(':').collect();
            let log = match parts.get(3).map(|s| s.trim()) {
                None => false,
                Some("log") if parts.len() == 4 => true,
                Some("lin" | "linear") if parts.len() == 4 => false,
                _ => return Err(bad("must be NAME=FROM:TO:COUNT or NAME=FROM:TO:COUNT:log")),
            };
            if parts.len() < 3 {
                return Err(bad("must be NAME=FROM:TO:COUNT or NAME=FROM:TO:COUNT:log"));
            }
            let (from, to) = (num(parts[0])?, num(parts[1])?);
            let count: usize = parts[2].trim().parse().map_err(|_| {
                bad(&format!(
                    "COUNT '{}' is not a whole number ≥ 1",
                    parts[2].trim()
                ))
            })?;
            if count == 0 {
                return Err(bad("COUNT is 0; give at least 1 value"));
            }
            if count > MAX_COUNT {
                return Err(bad(&format!("COUNT {count} is above {MAX_COUNT}")));
            }
            if from > to {
                return Err(bad(&format!(
                    "the range is reversed ({} > {}); give FROM ≤ TO",
                    fmt_num(from),
                    fmt_num(to)
                )));
            }
            if from == to && count > 1 {
                return Err(bad(&format!(
                    "the range is empty (FROM = TO = {}) but COUNT is {count}",
                    fmt_num(from)
                )));
            }
            if log && (from <= 0.0 && to >= 0.0) {
                return Err(bad(
                    "a log axis needs both ends on the same side of 0 (neither 0 nor crossing it)",
                ));
            }
            let values = spaced(from, to, count, log);
            return Ok(axis(
                if log { Spacing::Log } else { Spacing::Linear },
                values,
            ));
        }
        let values = spec.split(',').map(num).collect::<Result<Vec<f64>>>()?;
        if values.len() > MAX_COUNT {
            return Err(bad(&format!("more than {MAX_COUNT} values")));
        }
        Ok(axis(Spacing::List, values))
    }

    /// Checks the name against the algorithm's declared parameters (or
    /// `k`) and every value against its range, and takes the symbol.
    ///
    /// # Errors
    /// [`Error::Param`] naming the parameter, the value and the range.
    pub fn validate(&mut self, algo: &dyn Algorithm, problem: &Problem) -> Result<()> {
        if !self.texts.is_empty() {
            return self.validate_option(algo);
        }
        if self.name == "k" {
            self.symbol = "k".into();
            let n = problem.n();
            for v in &mut self.values {
                snap_integer(v);
                if v.fract() != 0.0 || *v < 1.0 || *v > n as f64 {
                    return Err(Error::param(format!(
                        "--grid k: k = {} is out of range: must be an integer in [1, {n}] (the number of rows)",
                        fmt_num(*v)
                    )));
                }
            }
            return Ok(());
        }
        let specs = algo.params();
        let Some(spec) = specs.iter().find(|s| s.name == self.name) else {
            let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(Error::param(format!(
                "--grid {}: parameter {} does not apply to algorithm {} (it takes k, {})",
                self.name,
                self.name,
                algo.id(),
                names.join(", ")
            )));
        };
        self.symbol = spec.symbol.to_string();
        for v in &mut self.values {
            check_value(spec, v)?;
        }
        Ok(())
    }

    /// Whether the axis varies an option (`kernel`, …) rather than a number.
    pub fn is_option(&self) -> bool {
        !self.texts.is_empty()
    }

    /// A value of the axis as the user gave it: the option text, or the
    /// number.
    pub fn show(&self, v: f64) -> String {
        if self.is_option() {
            self.texts
                .get(v as usize)
                .cloned()
                .unwrap_or_else(|| fmt_num(v))
        } else {
            fmt_num(v)
        }
    }

    fn validate_option(&self, algo: &dyn Algorithm) -> Result<()> {
        let flag = format!("--grid {}", self.name);
        if !algo.options().iter().any(|(n, _)| *n == self.name) {
            let takes: Vec<String> = algo
                .options()
                .iter()
                .map(|(n, _)| (*n).to_string())
                .filter(|n| OPTION_AXES.contains(&n.as_str()))
                .collect();
            return Err(Error::param(format!(
                "{flag}: option {} does not apply to algorithm {} ({})",
                self.name,
                algo.id(),
                if takes.is_empty() {
                    "it takes no option a sweep can vary".to_string()
                } else {
                    format!("it takes {}", takes.join(", "))
                }
            )));
        }
        for t in &self.texts {
            match self.name.as_str() {
                "kernel" => {
                    crate::kernel::KernelSpec::parse(t, &flag)?;
                }
                "kernels" if !t.trim().starts_with("precomputed") => {
                    crate::kernel::parse_list(t, &flag)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// `a|b|c` (or `a;b;c` for `kernel`) as an option axis.
fn option_axis(name: &str, spec: &str) -> std::result::Result<Axis, String> {
    let sep = if spec.contains('|') || name != "kernel" {
        '|'
    } else {
        ';'
    };
    let texts: Vec<String> = spec.split(sep).map(|t| t.trim().to_string()).collect();
    if texts.iter().any(|t| t.is_empty()) {
        return Err(format!(
            "an empty value; separate {name} values with '|', e.g. {name}=gaussian|laplacian"
        ));
    }
    if texts.len() > MAX_COUNT {
        return Err(format!("more than {MAX_COUNT} values"));
    }
    for (i, t) in texts.iter().enumerate() {
        if texts[..i].contains(t) {
            return Err(format!("'{t}' is given twice"));
        }
    }
    Ok(Axis {
        name: name.to_string(),
        symbol: name.to_string(),
        spacing: Spacing::List,
        values: (0..texts.len()).map(|i| i as f64).collect(),
        texts,
    })
}

fn snap_integer(v: &mut f64) {
    if (*v - v.round()).abs() <= 1e-9 * v.abs().max(1.0) {
        *v = v.round();
    }
}

fn check_value(spec: &ParamSpec, v: &mut f64) -> Result<()> {
    if spec.integer {
        snap_integer(v);
    }
    spec.check(*v)
        .map_err(|e| Error::param(format!("--grid {}: {e}", spec.name)))?;
    Ok(())
}

/// `count` values from `from` to `to`, both included; on a log axis
/// evenly spaced in log |value| with the ends' sign. Rounded to 12
/// significant digits, so −4:−1:4 is exactly −4, −3, −2, −1.
fn spaced(from: f64, to: f64, count: usize, log: bool) -> Vec<f64> {
    if count == 1 {
        return vec![from];
    }
    let last = (count - 1) as f64;
    (0..count)
        .map(|i| {
            let t = i as f64 / last;
            let v = if log {
                let sign = from.signum();
                let (a, b) = (from.abs().ln(), to.abs().ln());
                sign * (a + (b - a) * t).exp()
            } else {
                from + (to - from) * t
            };
            if i == 0 {
                from
            } else if i == count - 1 {
                to
            } else {
                round_sig(v, 12)
            }
        })
        .collect()
}

/// Every cell's index along each axis, in row-major order (the last axis
/// varies fastest).
pub fn cells(axes: &[Axis]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for a in axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..a.values.len()).map(move |i| {
                    let mut p = prefix.clone();
                    p.push(i);
                    p
                })
            })
            .collect();
    }
    out
}

/// Refuses a grid of more than [`MAX_RUNS`] runs, saying how to lower it.
///
/// # Errors
/// [`Error::Param`] with the count.
pub fn check_size(axes: &[Axis], seeds: usize) -> Result<usize> {
    if seeds == 0 {
        return Err(Error::param("--seeds 0: give at least 1 seed per cell"));
    }
    let sizes: Vec<String> = axes.iter().map(|a| a.values.len().to_string()).collect();
    let cells: usize = axes
        .iter()
        .map(|a| a.values.len())
        .try_fold(1usize, |a, b| a.checked_mul(b))
        .unwrap_or(usize::MAX);
    let runs = cells.saturating_mul(seeds);
    if runs > MAX_RUNS {
        return Err(Error::param(format!(
            "the grid has {} = {cells} cells × {seeds} seeds = {runs} runs, above the limit of {MAX_RUNS}; lower a COUNT or --seeds",
            sizes.join(" × ")
        )));
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_include_both_ends() {
        let a = Axis::parse("s0=-4:-1:4").unwrap();
        assert_eq!(a.values, vec![-4.0, -3.0, -2.0, -1.0]);
        let a = Axis::parse("s0=-10:-0.1:3:log").unwrap();
        assert_eq!(a.spacing, Spacing::Log);
        assert_eq!(a.values, vec![-10.0, -1.0, -0.1]);
        let a = Axis::parse("eta=1.01,1.04,1.3").unwrap();
        assert_eq!(a.values, vec![1.01, 1.04, 1.3]);
        assert_eq!(Axis::parse("s0=-2:-2:1").unwrap().values, vec![-2.0]);
    }

    #[test]
    fn bad_ranges_are_refused_with_the_reason() {
        for (text, why) in [
            ("s0=-1:-4:4", "reversed"),
            ("s0=-1:-1:3", "empty"),
            ("s0=-4:-1:0", "COUNT is 0"),
            ("s0=-1:1:3:log", "same side of 0"),
            ("s0=0:1:3:log", "same side of 0"),
            ("s0=a:1:3", "not a number"),
            ("s0", "NAME="),
        ] {
            let e = Axis::parse(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
        let axes = vec![Axis::parse("s0=-4:-1:200").unwrap()];
        let e = check_size(&axes, 101).unwrap_err().to_string();
        assert!(e.contains("20200 runs") && e.contains("--seeds"), "{e}");
    }
}
