//! The command-line interface: `run`, `gen`, `datasets`, `algorithms`.

pub mod args;
pub mod files;
mod gen_cmd;
mod info;
mod run;

use crate::error::Error;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

const ABOUT: &str = "Center-based clustering with annealing, kernels and feature selection: power k-means and its relatives, headless or in a terminal UI.";

#[derive(Debug, Parser)]
#[command(name = "meanscape", version, about = ABOUT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Cluster a dataset once (best of --restarts) and print the result.
    Run(Box<run::RunArgs>),
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
        None => {
            let _ = Cli::command().print_help();
            Ok(())
        }
        Some(Command::Run(a)) => run::run(&a),
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
