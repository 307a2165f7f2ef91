//! `sudoku-bench history`: a store of runs keyed by commit (`add`), the change points in
//! its series (`check`), a page of them (`report`) and one commit's numbers in Bencher's
//! metric format (`export`); one file per subcommand.

mod add;
mod check;
mod export;
mod report;

use clap::Subcommand;
use sudoku_bench::history::check::Findings;

use super::exit::Exit;

/// The history every subcommand reads and writes unless `--db` says otherwise.
const DEFAULT_DB: &str = "results/history.sqlite";

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Record runs' summary JSONs (and in-run comparison JSONs of the same runs) under a
    /// commit.
    Add(add::Args),
    /// Find the change points of every series; exit 1 when a slowdown lies after --since.
    Check(check::Args),
    /// One self-contained HTML page: every series over the commits, with each run's
    /// interval, the change points `check` finds, and the table of changes.
    Report(report::Args),
    /// One commit's numbers in Bencher Metric Format (`--format bmf`), for `bencher run
    /// --adapter json`.
    Export(export::Args),
}

/// Refuse `checked` when it holds no run (of `branch`, when given) in the history `db`:
/// `report` would draw nothing, and `check` would pass a gate it looked at nothing for (a
/// mistyped `--branch` says "no slowdown").
fn refuse_no_runs(checked: &Findings, db: &str, branch: Option<&str>) -> anyhow::Result<()> {
    if !checked.points.is_empty() {
        return Ok(());
    }
    let branch = branch
        .map(|b| format!(" for branch {b}"))
        .unwrap_or_default();
    anyhow::bail!(
        "{db}: no run recorded{branch}: nothing to judge or draw (`sudoku-bench history add` \
         records runs; `--branch` takes only the runs it was given to)"
    )
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    match args.command {
        Command::Add(args) => add::run(args),
        Command::Check(args) => check::run(args),
        Command::Report(args) => report::run(args),
        Command::Export(args) => export::run(args),
    }
}
