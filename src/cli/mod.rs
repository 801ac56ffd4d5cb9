//! The command-line interface: `run`, `predict`, `path`, `sweep`, `gen`, `datasets`, `algorithms`.

pub mod args;
mod gen_cmd;
mod info;
mod output;
mod path;
mod path_svg;
mod predict;
mod run;
mod svg;
mod sweep;
mod sweep_args;
mod sweep_multi;
mod sweep_out;

use crate::error::Error;
use crate::session::{StartOptions, UiOptions};
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
    /// Assign new data to the clusters of a model saved by `run
    /// --save-model`: the model's scaling is applied, one label per row is
    /// printed (0-based), and NMI/ARI when the data has labels.
    Predict(Box<predict::PredictArgs>),
    /// Regularisation path of lw (over λ) or sparse-kmeans (over the bound
    /// s): weights, #selected, objective and metrics per grid point, each
    /// the better of a warm start from the previous point and a start from
    /// the shared initial partition (CSV, or JSON with --json; --out FILE,
    /// --plot FILE.svg).
    Path(Box<path::PathArgs>),
    /// Sensitivity sweep: a grid over declared parameters (and k), R seeds
    /// per cell, label-free and (with labels) external scores per cell as
    /// mean and sd; a table, JSON or CSV, and an SVG plot.
    Sweep(Box<sweep::SweepArgs>),
    /// Write a generated dataset to a file (CSV, or .npy by extension).
    Gen(gen_cmd::GenArgs),
    /// List the bundled datasets and the generators.
    Datasets,
    /// Describe a dataset: rows, features or precomputed kernels, labels.
    Info(Box<args::DataArgs>),
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
    /// Keep the run history and the settings in this JSON file: restored at
    /// start when it exists (its settings win over the options above),
    /// written after every finished run and on quit. A damaged session is
    /// never replaced: it is kept as FILE.corrupt-N; a file that is not
    /// JSON, not a regular file or over 64 MiB is left alone and the
    /// session is not saved. A file changed by something else while the UI
    /// runs is left as it is, and saving stops (the UI says so).
    #[arg(long, value_name = "FILE")]
    pub session: Option<std::path::PathBuf>,
}

/// What `meanscape` without a command (or `meanscape tui`) starts: the
/// terminal UI when the program has one (see `main.rs`).
pub type Ui = fn(UiOptions) -> crate::Result<()>;

/// What the UI opens with, from its options on the command line.
fn ui_options(a: &TuiArgs) -> crate::Result<UiOptions> {
    Ok(UiOptions {
        start: StartOptions {
            data: a.data.data.clone(),
            load_opts: a.data.load_options(),
            // None: the scaling follows the algorithm chosen in the UI.
            scale: a.data.scale,
            algo: a.algo.algo.clone(),
            k: a.algo.k,
            seed: a.algo.seed,
            restarts: a.algo.restarts,
            init: a.algo.init,
            given: a.algo.given()?,
            options: a
                .algo
                .options()
                .into_iter()
                .chain(a.data.memory_option())
                .collect(),
            session: a.session.clone(),
        },
        ascii: a.ascii,
    })
}

/// The `Ui` of a program built without the terminal UI.
pub fn no_ui(_opts: UiOptions) -> crate::Result<()> {
    Err(Error::param(
        "this meanscape was built without the terminal UI (Cargo feature tui); use `meanscape run` (see --help)",
    ))
}

/// Parses the process arguments (with per-algorithm defaults in the long
/// help of `run`) and runs the command. Returns the exit code.
pub fn main(ui: Ui) -> i32 {
    output::note_closed_stdout();
    let cmd = Cli::command().mut_subcommand("run", |c| c.after_long_help(info::defaults_help()));
    let parsed = cmd
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    if matches!(
        cli.command,
        Some(
            Command::Run(_)
                | Command::Predict(_)
                | Command::Path(_)
                | Command::Sweep(_)
                | Command::Gen(_)
        )
    ) {
        crate::files::interrupt::install();
    }
    output::exit_code(execute(cli, ui))
}

/// Runs the parsed command. Library errors pass through as they are (their
/// messages are written for users); what fails in the program itself gets
/// its context here.
fn execute(cli: Cli, ui: Ui) -> Result<(), output::Failure> {
    match cli.command {
        None => ui(ui_options(&cli.tui)?)?,
        Some(Command::Tui(a)) => ui(ui_options(&a)?)?,
        Some(Command::Run(a)) => run::run(&a)?,
        Some(Command::Predict(a)) => predict::run(&a)?,
        Some(Command::Path(a)) => path::run(&a)?,
        Some(Command::Sweep(a)) => sweep::run(&a)?,
        Some(Command::Gen(a)) => gen_cmd::run(&a)?,
        Some(Command::Datasets) => output::print_text(&info::datasets())?,
        Some(Command::Info(a)) => output::print_text(&info::describe(&a)?)?,
        Some(Command::Algorithms { id }) => output::print_text(&info::algorithms(id.as_deref())?)?,
    }
    Ok(())
}

/// Help and version as clap prints them; a usage error as one line in our
/// style: clap's first sentence, its suggestion, and where to read more.
fn usage_error(e: clap::Error) -> i32 {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let rendered = e.render().to_string();
    // The sentence runs until clap's first blank line (a list of missing
    // arguments continues it on indented lines).
    let sentence: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let sentence = sentence.join(" ");
    let mut text = sentence
        .strip_prefix("error: ")
        .unwrap_or(&sentence)
        .to_string();
    // Our value parsers say what is wrong with the value themselves.
    if e.kind() == ErrorKind::ValueValidation
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg)
        && let Some(why) = std::error::Error::source(&e)
    {
        let flag = arg.split_whitespace().next().unwrap_or(arg);
        text = format!("{flag}: {why}");
    }
    for kind in [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
        ContextKind::SuggestedSubcommand,
    ] {
        match e.get(kind) {
            Some(ContextValue::String(s)) => text.push_str(&format!("; did you mean '{s}'?")),
            Some(ContextValue::Strings(v)) if !v.is_empty() => {
                text.push_str(&format!("; did you mean '{}'?", v.join("' or '")))
            }
            _ => {}
        }
    }
    // The subcommand, when the first argument names one.
    // args_os: an argument need not be UTF-8 (args() panics on one).
    let sub = std::env::args_os()
        .nth(1)
        .and_then(|a| a.into_string().ok())
        .filter(|a| {
            Cli::command()
                .get_subcommands()
                .any(|c| c.get_name() == a.as_str())
        });
    let command = match sub {
        Some(s) => format!("meanscape {s}"),
        None => "meanscape".to_string(),
    };
    eprintln!("meanscape: error: {text} (see '{command} --help')");
    2
}
