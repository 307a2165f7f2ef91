//! Command-line parsing and dispatch: one module per subcommand, each with its own `run`.

/// `eprintln!` that cannot panic: a stderr that can no longer be written (a closed pipe, as
/// in `2>&1 | head`, or a terminal gone) loses the message, not the run, its rows or its
/// summary. Every line the tool says on stderr goes through here.
macro_rules! stderr_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` that cannot panic, as [`stderr_line!`].
macro_rules! stderr_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod args;
mod callgrind;
mod check;
mod compare;
mod eta;
mod exit;
mod filter;
mod generate;
mod history;
mod merge;
mod output_format;
mod outputs;
mod progress;
mod reference;
mod report;
mod resume;
mod run;
mod shard;
mod signals;
mod solvers;
mod summary_out;
mod warnings;

use std::io::Write;

use anyhow::Context;
use clap::{Parser, Subcommand};

pub use self::exit::{Exit, Interrupted};

/// Benchmark Sudoku solver strategies over large puzzle corpora.
#[derive(Debug, Parser)]
#[command(name = "sudoku-bench", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve every puzzle with every selected strategy; write per-puzzle CSV and a summary.
    #[command(mut_arg("solvers", |a| a.help(solvers::solver_help("run"))))]
    Run(run::Args),
    /// Compare two runs: node counts exactly, times with a confidence interval; exit 1 on a
    /// regression.
    Compare(compare::Args),
    /// List the strategies, what they do and what their `nodes` count.
    Strategies,
    /// Keep the lines of corpora with the wanted status (default: uniquely solvable puzzles).
    #[command(mut_arg("solvers", |a| a.help(solvers::solver_help("filter"))))]
    Filter(filter::Args),
    /// Report every malformed or invalid line (and with --solve, wrong solution columns).
    #[command(mut_arg("solvers", |a| a.help(solvers::solver_help("check"))))]
    Check(check::Args),
    /// Generate a reproducible corpus of random uniquely-solvable (minimal) puzzles.
    #[command(mut_arg("solvers", |a| a.help(solvers::solver_help("generate"))))]
    Generate(generate::Args),
    /// Write one self-contained HTML report (tables and plots) of runs' per-puzzle CSVs.
    Report(report::Args),
    /// Put the parts of a run split with --shard K/N back together: one per-puzzle CSV in
    /// input order and the summary a single run would have written.
    Merge(merge::Args),
    /// Record runs by commit and find where a strategy got slower or faster over commits.
    History(history::Args),
    /// Print the command-line reference as Markdown, write man pages, or print shell
    /// completions: all made from the options' definitions.
    Reference(reference::Args),
}

/// Parse the arguments and run the command they name. Arguments clap refuses are a usage
/// error; `--help` and `--version` are success.
pub fn run() -> anyhow::Result<Exit> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // Printed as clap prints it, to stderr or (help, version) stdout. A usage error
            // stays one when stderr cannot take it (a closed pipe would read as success).
            if err.use_stderr() {
                let _ = err.print();
            } else {
                err.print().context("cannot write the usage")?;
            }
            return Ok(if err.use_stderr() {
                Exit::Error
            } else {
                Exit::Success
            });
        }
    };
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Strategies => strategies(),
        Command::Filter(args) => filter::run(args),
        Command::Check(args) => check::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Report(args) => report::run(args),
        Command::Merge(args) => merge::run(args),
        Command::History(args) => history::run(args),
        Command::Reference(args) => reference::run(args),
    }
}

/// `sudoku-bench strategies`; a failed write (a full disk) is an error, not a panic.
fn strategies() -> anyhow::Result<Exit> {
    let mut out = std::io::stdout().lock();
    for s in sudoku_bench::strategy::STRATEGIES {
        writeln!(
            out,
            "{:<8} {}\n         nodes: {}",
            s.name,
            s.about,
            s.nodes_unit.as_deref().unwrap_or("not counted")
        )
        .context("cannot write to stdout")?;
    }
    out.flush().context("cannot write to stdout")?;
    Ok(Exit::Success)
}

/// True when `err` comes from writing to a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::BrokenPipe;
        }
        if let Some(csv) = cause.downcast_ref::<csv::Error>() {
            if let csv::ErrorKind::Io(io) = csv.kind() {
                return io.kind() == std::io::ErrorKind::BrokenPipe;
            }
        }
        false
    })
}
