//! The command-line interface: `run`, `gen`, `datasets`, `algorithms`.

pub mod args;
pub mod files;
mod gen_cmd;
mod info;
mod path;
mod run;

use crate::error::Error;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

const ABOUT: &str = "Center-based clustering with annealing, kernels and feature selection: power k-means and its relatives, headless or in a terminal UI.";

#[derive(Debug, Parser)]
#[command(name = "meanscape", version, about = ABOUT, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a command: the terminal UI, with these options.
    #[command(flatten)]
    pub tui: TuiArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the terminal UI (the default when no command is given).
    Tui(Box<TuiArgs>),
    /// Cluster a dataset once (best of --restarts) and print the result.
    Run(Box<run::RunArgs>),
    /// Regularisation path of lw (over λ) or sparse-kmeans (over the bound
    /// s): weights, #selected, objective and metrics per grid point, each
    /// the better of a warm start from the previous point and a start from
    /// the shared initial partition (CSV, or JSON with --json).
    Path(Box<path::PathArgs>),
    /// Write a generated dataset to a file (CSV, or .npy by extension).
    Gen(gen_cmd::GenArgs),
    /// List the bundled datasets and the generators.
    Datasets,
    /// List the algorithms, or the parameters of one.
    Algorithms {
        /// Show the parameters of this algorithm.
        id: Option<String>,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct TuiArgs {
    #[command(flatten)]
    pub data: args::DataArgs,
    #[command(flatten)]
    pub algo: args::AlgoArgs,
    /// Draw with ASCII only: no Braille, no box-drawing glyphs.
    #[arg(long)]
    pub ascii: bool,
}

fn tui(a: &TuiArgs) -> crate::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Err(Error::Param(
            "the terminal UI needs a terminal; use `meanscape run` for scripts (see --help)".into(),
        ));
    }
    crate::tui::run(crate::tui::UiOptions {
        start: crate::tui::app::StartOptions {
            data: a.data.data.clone(),
            load_opts: a.data.load_options(),
            scale: crate::session::resolve_scaling(a.data.scale, &a.algo.algo),
            algo: a.algo.algo.clone(),
            k: a.algo.k,
            seed: a.algo.seed,
            restarts: a.algo.restarts,
            init: a.algo.init,
            given: a.algo.given(),
            options: a.algo.options(),
        },
        ascii: a.ascii,
    })
}

/// Parses the process arguments (with per-algorithm defaults in the long
/// help of `run`) and runs the command. Returns the exit code.
pub fn main() -> i32 {
    let cmd = Cli::command().mut_subcommand("run", |c| c.after_long_help(info::defaults_help()));
    let matches = cmd.get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        None => tui(&cli.tui),
        Some(Command::Tui(a)) => tui(&a),
        Some(Command::Run(a)) => run::run(&a),
        Some(Command::Path(a)) => path::run(&a),
        Some(Command::Gen(a)) => gen_cmd::run(&a),
        Some(Command::Datasets) => {
            print!("{}", info::datasets());
            Ok(())
        }
        Some(Command::Algorithms { id }) => info::algorithms(id.as_deref()).map(|s| print!("{s}")),
    };
    match result {
        Ok(()) => 0,
        Err(Error::Cancelled) => {
            eprintln!("meanscape: cancelled");
            130
        }
        Err(e) => {
            eprintln!("meanscape: error: {e}");
            2
        }
    }
}
