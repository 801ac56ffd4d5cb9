//! A sweep's time, judged from its first runs: hours of work on a typo
//! (20 000 kernel runs where 200 were meant) are refused within seconds,
//! not found out at the end.

use crate::error::Error;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest a sweep may be expected to take unless the caller allows
/// more (`meanscape sweep --max-time`, `--yes`).
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(30 * 60);

/// Watches the first wave of runs (one chunk per thread) of a sweep and judges
/// the whole from it: wall time per run in that wave, times the runs, plus
/// the first group's preparation (a Gram matrix, a feature map) once per
/// group.
pub(super) struct Pilot {
    limit: Duration,
    total_runs: usize,
    /// The sweep's work in full-size runs: its runs plus, per cell, two
    /// for each resample (two half-size runs and one on a reference set).
    work: usize,
    groups: usize,
    wave: usize,
    started: Instant,
    prepare: Mutex<Duration>,
    done: AtomicUsize,
    verdict: Mutex<Option<Error>>,
}

impl Pilot {
    /// `chunk`: the runs the sweep hands the algorithm at once (they
    /// finish together).
    /// `work`: the runs counted with the resampling's (see the field).
    pub(super) fn new(
        limit: Duration,
        total_runs: usize,
        work: usize,
        groups: usize,
        chunk: usize,
    ) -> Pilot {
        let threads = rayon::current_num_threads().max(1) * chunk.max(1);
        Pilot {
            limit,
            total_runs,
            work: work.max(total_runs),
            groups,
            wave: threads.min(total_runs).max(1),
            started: Instant::now(),
            prepare: Mutex::new(Duration::ZERO),
            done: AtomicUsize::new(0),
            verdict: Mutex::new(None),
        }
    }

    /// The first group's preparation took `t` (counted once per group).
    pub(super) fn prepared(&self, t: Duration) {
        *self.prepare.lock().expect("pilot") = t;
    }

    /// A run finished. Returns true when the sweep must stop: the first
    /// wave is in and the estimate is above the limit.
    pub(super) fn run_done(&self) -> bool {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        if done != self.wave {
            return false;
        }
        let prepare = *self.prepare.lock().expect("pilot");
        let runs = self.started.elapsed().saturating_sub(prepare);
        let per_run = runs / self.wave as u32;
        let estimate = (per_run.saturating_mul(self.work as u32))
            .saturating_add(prepare.saturating_mul(self.groups as u32));
        if estimate <= self.limit {
            return false;
        }
        *self.verdict.lock().expect("pilot") = Some(Error::Resource(format!(
            "the sweep would take about {} ({} runs{}; the first {} took {} side by side{}), above \
             the limit of {}; pass --max-time {} (or --yes) to run it anyway, or lower --seeds or a \
             COUNT",
            fmt_duration(estimate),
            self.total_runs,
            if self.work > self.total_runs {
                " and the resampled scores' runs, about as many as {} more: lower --resamples to spend less"
                    .replace("{}", &(self.work - self.total_runs).to_string())
            } else {
                String::new()
            },
            self.wave,
            fmt_duration(per_run * self.wave as u32),
            if self.groups > 1 {
                format!(
                    "; {} to prepare each of {} groups",
                    fmt_duration(prepare),
                    self.groups
                )
            } else {
                String::new()
            },
            fmt_duration(self.limit),
            fmt_duration(estimate + estimate / 4).replace(' ', ""),
        )));
        true
    }

    /// The refusal, once [`Pilot::run_done`] has said stop.
    pub(super) fn verdict(&self) -> Option<Error> {
        self.verdict.lock().expect("pilot").take()
    }
}

/// `2h05m`, `12m30s`, `45s`, `1.2s`: the way a user types it back.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else if s >= 10 {
        format!("{s}s")
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// Reads `90`, `45s`, `30m`, `2h`, `1h30m` (a bare number is seconds).
///
/// # Errors
/// A message for text that is not such a duration.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("'{text}' is not a duration (for example 90s, 30m, 2h, 1h30m)");
    let t = text.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).map_err(|_| bad());
    }
    let mut total = 0f64;
    let mut number = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return Err(bad()),
        };
        let v: f64 = number.parse().map_err(|_| bad())?;
        total += v * unit;
        number.clear();
    }
    if !number.is_empty() || t.is_empty() {
        return Err(bad());
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_and_print_alike() {
        for (text, secs) in [
            ("90", 90),
            ("45s", 45),
            ("30m", 1800),
            ("2h", 7200),
            ("1h30m", 5400),
        ] {
            assert_eq!(
                parse_duration(text).unwrap(),
                Duration::from_secs(secs),
                "{text}"
            );
        }
        for bad in ["", "h", "10x", "-5", "1h30"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(fmt_duration(Duration::from_secs(7500)), "2h05m");
        assert_eq!(fmt_duration(Duration::from_secs(750)), "12m30s");
        assert_eq!(fmt_duration(Duration::from_millis(1234)), "1.2s");
        let d = Duration::from_secs(7500);
        assert_eq!(parse_duration(&fmt_duration(d)).unwrap(), d);
    }

    #[test]
    fn the_first_wave_decides() {
        let p = Pilot::new(Duration::from_millis(50), 1000, 1000, 1, 1);
        std::thread::sleep(Duration::from_millis(5));
        let stops: Vec<bool> = (0..p.wave).map(|_| p.run_done()).collect();
        // 1000 runs at ≥ 5 ms per wave of `wave` runs is above 50 ms.
        assert_eq!(stops.last(), Some(&true), "{stops:?}");
        assert!(stops[..stops.len() - 1].iter().all(|s| !s));
        let e = p.verdict().unwrap().to_string();
        assert!(e.contains("1000 runs") && e.contains("--max-time"), "{e}");
        let p = Pilot::new(Duration::from_secs(3600), 4, 4, 1, 1);
        assert!((0..4).all(|_| !p.run_done()));
        assert!(p.verdict().is_none());
    }
}
