//! The `sweep` command's arguments, shared by the one-algorithm sweep
//! (`sweep.rs`) and the sweep over several algorithms (`sweep_multi.rs`).

use super::args::{AlgoArgs, DataArgs};
use super::sweep_out::Format;
use crate::error::Result;
use crate::files;
use crate::sweep;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// One axis: NAME=FROM:TO:COUNT (both ends included), NAME=FROM:TO:COUNT:log
    /// (evenly spaced in log |value|; both ends on one side of 0) or
    /// NAME=a,b,c. NAME is any parameter the algorithm declares, or k.
    /// Repeat for more axes.
    #[arg(
        long = "grid",
        value_name = "NAME=FROM:TO:COUNT[:log]",
        allow_hyphen_values = true,
        required = true
    )]
    pub grid: Vec<String>,
    /// Seeds per cell: --seed … --seed+R−1, one restart each (as `run --seed S`).
    #[arg(long, default_value_t = 5, allow_negative_numbers = true)]
    pub seeds: usize,
    /// Splits and reference sets per cell for the resampled label-free
    /// scores (prediction strength, resample stability, PAC, gap
    /// statistic); each costs about 3·B extra runs per cell. 0: none.
    /// Default: 20 without labels, 0 with them.
    #[arg(long, value_name = "B")]
    pub resamples: Option<usize>,
    /// The score of the text table and the plot (default: nmi with
    /// labels, stability without).
    #[arg(long, value_name = "NAME")]
    pub score: Option<String>,
    /// One JSON object instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV, one row per cell, instead of the table.
    #[arg(long)]
    pub csv: bool,
    /// Write the output to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write a plot: a heatmap (2 axes) or a line with a ±sd band (1 axis).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Replace --out or --plot if it exists.
    #[arg(long)]
    pub force: bool,
    /// No progress bar on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The longest the sweep may take (90s, 30m, 2h, 1h30m): its first
    /// runs are timed, and a sweep expected to take longer is refused
    /// within seconds, saying how long it would take.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = sweep::parse_duration)]
    pub max_time: std::time::Duration,
    /// Run the sweep however long it is expected to take (no --max-time).
    #[arg(long)]
    pub yes: bool,
}

impl SweepArgs {
    pub(super) fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else {
            Format::Text
        }
    }

    /// Every output file checked against `inputs` before any work.
    pub(super) fn check_targets(&self, inputs: &[&Path]) -> Result<()> {
        files::Outputs {
            cmd: "sweep",
            out: self.out.as_deref(),
            out_ext: match self.format() {
                Format::Json => &["json"],
                Format::Csv => &["csv"],
                Format::Text => &["txt"],
            },
            plot: self.plot.as_deref(),
            force: self.force,
        }
        .check(inputs)
    }
}
