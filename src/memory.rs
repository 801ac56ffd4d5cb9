//! The memory budget (`--max-memory`, default half the machine's RAM): the
//! loaders and the algorithms estimate what they will allocate and compare
//! it with the budget before allocating. Refusing takes microseconds, not
//! the minutes (or the abort) a doomed allocation would.

use crate::error::{Error, Result};

/// Bytes in a `--max-memory` value: a number with an optional binary unit
/// `K`, `M`, `G`, `T` (also `KB`, `KiB`, …; powers of 1024), or plain bytes.
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let bad = || {
        Error::Param(format!(
            "--max-memory '{text}' is not a size (e.g. 4G, 500M, 1.5GiB or a number of bytes)"
        ))
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| bad())?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0f64.powi(2),
        "g" | "gb" | "gib" => 1024.0f64.powi(3),
        "t" | "tb" | "tib" => 1024.0f64.powi(4),
        _ => return Err(bad()),
    };
    let bytes = v * mult;
    if !bytes.is_finite() || bytes < 1.0 {
        return Err(bad());
    }
    Ok(bytes.min(u64::MAX as f64) as u64)
}

/// Total RAM from /proc/meminfo, if it can be read.
pub fn total_ram() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The limit in force and how it was set (for the message).
pub fn limit(max_memory: Option<&str>) -> Result<(u64, &'static str)> {
    match max_memory {
        Some(s) => Ok((parse_size(s)?, "--max-memory")),
        None => Ok(match total_ram() {
            Some(ram) => (
                ram / 2,
                "the default, half the RAM; set --max-memory to change it",
            ),
            None => (
                4 << 30,
                "the default when the RAM size is unknown; set --max-memory to change it",
            ),
        }),
    }
}

/// Human-readable bytes (binary units).
pub fn fmt_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Refuses (one line, `Error::Resource`) when `need` bytes exceed the
/// limit. `algo` names the algorithm, `what` the matrices ("its kernel
/// matrix", "12 kernel matrices"), `detail` how the estimate is made;
/// `can_halve` adds the hint that f32 storage halves it.
pub fn guard(
    algo: &str,
    what: &str,
    need: f64,
    detail: &str,
    can_halve: bool,
    max_memory: Option<&str>,
) -> Result<()> {
    let (limit, how) = limit(max_memory)?;
    if need <= limit as f64 {
        return Ok(());
    }
    let halve = if can_halve {
        ", or add gram=f32 to the kernel spec to halve it"
    } else {
        ""
    };
    Err(Error::Resource(format!(
        "{algo} needs {} for {what} ({detail}), above the limit of {} ({how}); \
for data this large use a random-feature algorithm (rff-power, ip-rff-mkpower), which needs O(n·D) memory{halve}",
        fmt_bytes(need),
        fmt_bytes(limit as f64),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("500M").unwrap(), 500 << 20);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert_eq!(parse_size(" 2 kb ").unwrap(), 2048);
        for bad in ["", "G", "4X", "-1G", "abc", "0"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn guard_refuses_with_the_estimate() {
        let need = 300_000f64.powi(2) * 8.0;
        let e = guard(
            "kpower",
            "its kernel matrix",
            need,
            "n = 300000",
            true,
            Some("1G"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("670.6 GiB") && e.contains("rff-power"), "{e}");
        assert!(e.contains("limit of 1.0 GiB (--max-memory)"), "{e}");
        assert!(!e.contains('\n'));
        assert!(guard("kpower", "x", 1e6, "", true, Some("1G")).is_ok());
    }
}
