//! The memory budget (`--max-memory`, default half the machine's RAM): the
//! loaders and the algorithms estimate what they will allocate and compare
//! it with the budget before allocating. Refusing takes microseconds, not
//! the minutes (or the abort) a doomed allocation would.
//!
//! Kept by hand rather than from a crate: `--max-memory` reads `K`, `M`,
//! `G`, `T` and `KB`, `MB`, … as powers of 1024, with its own one-line
//! errors, where `bytesize` parses `KB` as 1000; the RAM size is one line
//! of /proc/meminfo, where `sysinfo` would bring process, disk and network
//! enumeration for it.

use crate::error::{Error, Result};

/// The bytes of `text`, or why it is not a size: one line without the
/// option's name, so clap and [`parse_size`] can both frame it.
pub fn size_bytes(text: &str) -> std::result::Result<u64, String> {
    const HINT: &str = "give bytes with an optional unit K, M, G or T (e.g. 500M, 4G)";
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("no size given; {HINT}"));
    }
    if t.starts_with('-') {
        return Err(format!("a memory budget cannot be negative; {HINT}"));
    }
    // A plain number first, so 1e9 reads as bytes and 1e400 as too large.
    let (v, mult) = match t.parse::<f64>() {
        Ok(v) if !v.is_nan() => (v, 1.0),
        Ok(_) => return Err(format!("not a number; {HINT}")),
        Err(_) => {
            let split = t
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let v: f64 = num.parse().map_err(|_| format!("not a number; {HINT}"))?;
            let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
                "" | "b" => 1.0,
                "k" | "kb" | "kib" => 1024.0,
                "m" | "mb" | "mib" => 1024.0f64.powi(2),
                "g" | "gb" | "gib" => 1024.0f64.powi(3),
                "t" | "tb" | "tib" => 1024.0f64.powi(4),
                _ => return Err(format!("unknown unit '{}'; {HINT}", unit.trim())),
            };
            (v, mult)
        }
    };
    let bytes = v * mult;
    if bytes < 1.0 {
        return Err(format!(
            "a budget below 1 byte would refuse everything; {HINT}"
        ));
    }
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("too large: at most 16 EiB".to_string());
    }
    Ok(bytes as u64)
}

/// Bytes in a `--max-memory` value: a number with an optional binary unit
/// `K`, `M`, `G`, `T` (also `KB`, `KiB`, …; powers of 1024), or plain bytes.
pub fn parse_size(text: &str) -> Result<u64> {
    size_bytes(text)
        .map_err(|why| Error::param(format!("--max-memory '{text}' is not a size: {why}")))
}

/// Total RAM from /proc/meminfo, if it can be read.
pub fn total_ram() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

const SET_BY_USER: &str = "--max-memory";

/// The limit in force for a budget in bytes (`None`: the default) and how
/// it was set (for the message).
fn limit_bytes(max_memory: Option<u64>) -> (u64, &'static str) {
    match max_memory {
        Some(b) => (b, SET_BY_USER),
        None => match total_ram() {
            Some(ram) => (
                ram / 2,
                "the default, half the RAM; set --max-memory to change it",
            ),
            None => (
                4 << 30,
                "the default when the RAM size is unknown; set --max-memory to change it",
            ),
        },
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

/// The memory budget in force: the limit in bytes and how it was set.
/// Loaders, generators and algorithms all check against it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub limit: u64,
    /// How the limit was set, for messages.
    pub how: &'static str,
}

impl Budget {
    /// The budget for `--max-memory` (`None`: the default, half the RAM).
    pub fn from_limit(max_memory: Option<u64>) -> Budget {
        let (limit, how) = limit_bytes(max_memory);
        Budget { limit, how }
    }

    fn set_by_user(&self) -> bool {
        self.how == SET_BY_USER
    }

    /// Refuses (`Error::Resource`, one line) loading that needs `need`
    /// bytes above the limit; `what` says what they are for.
    pub fn check(&self, origin: &str, need: u128, what: &str) -> Result<()> {
        self.check_doing(origin, "loading", need, what)
    }

    /// [`Budget::check`] for work other than loading (`doing`: "generating").
    pub fn check_doing(&self, origin: &str, doing: &str, need: u128, what: &str) -> Result<()> {
        if need <= u128::from(self.limit) {
            return Ok(());
        }
        Err(Error::Resource(format!(
            "{origin}: {doing} it needs {} ({what}), above the memory limit of {}{}",
            fmt_need(need),
            fmt_bytes(self.limit as f64),
            self.advice()
        )))
    }

    /// The limit's origin and what to do, as a message tail.
    pub fn advice(&self) -> String {
        if self.set_by_user() {
            " (--max-memory); raise --max-memory if the machine has the memory".to_string()
        } else {
            format!(" ({})", self.how)
        }
    }
}

/// Bytes for a message, without absurd digit strings for absurd sizes.
pub(crate) fn fmt_need(b: u128) -> String {
    if b >= 1 << 60 {
        "more than 1 EiB".to_string()
    } else {
        fmt_bytes(b as f64)
    }
}

/// The algorithms' check of the budget: refuses (one line,
/// `Error::Resource`) when `need` bytes exceed the limit. `who` names the
/// algorithm, `what` what the bytes are for, with the sizes that make them
/// ("its kernel matrix (n = 300000, …)"), and `fix` what to change.
pub fn check(who: &str, need: f64, what: &str, fix: &str, max_memory: Option<u64>) -> Result<()> {
    let budget = Budget::from_limit(max_memory);
    if need <= budget.limit as f64 {
        return Ok(());
    }
    let raise = if budget.set_by_user() {
        ", or raise --max-memory"
    } else {
        ""
    };
    Err(Error::Resource(format!(
        "{who} needs {} for {what}, above the limit of {} ({}); {fix}{raise}",
        fmt_bytes(need),
        fmt_bytes(budget.limit as f64),
        budget.how,
    )))
}

/// [`check`] for Gram matrices: `what` names the matrices ("its kernel
/// matrix", "12 kernel matrices"), `detail` how the estimate is made, `fix`
/// what to do instead (the kernels name the algorithms that need less).
pub fn guard(
    algo: &str,
    what: &str,
    need: f64,
    detail: &str,
    fix: &str,
    max_memory: Option<u64>,
) -> Result<()> {
    check(algo, need, &format!("{what} ({detail})"), fix, max_memory)
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
        assert_eq!(parse_size("1e9").unwrap(), 1_000_000_000);
        for (bad, why) in [
            ("", "no size"),
            ("G", "not a number"),
            ("4X", "unknown unit 'X'"),
            ("-1G", "negative"),
            ("abc", "not a number"),
            ("nan", "not a number"),
            ("0", "below 1 byte"),
            ("0.5", "below 1 byte"),
            ("1e400", "too large"),
            ("99999999T", "too large"),
        ] {
            let e = parse_size(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(
                e.starts_with(&format!("--max-memory '{bad}' is not a size: ")),
                "{e}"
            );
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
            "use rff-power",
            Some(1 << 30),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("670.6 GiB") && e.contains("rff-power"), "{e}");
        assert!(e.contains("limit of 1.0 GiB (--max-memory)"), "{e}");
        assert!(e.ends_with("or raise --max-memory"), "{e}");
        assert!(!e.contains('\n'));
        assert!(guard("kpower", "x", 1e6, "", "", Some(1 << 30)).is_ok());
    }
}
