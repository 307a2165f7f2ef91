//! `sudoku-bench history report`: one self-contained HTML page of the history's series,
//! their change points (as `history check` finds them) and the table of those changes.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use sudoku_bench::history::changes::Detection;
use sudoku_bench::history::{check, SqliteStore};
use sudoku_bench::render::history_page::history_page;

use super::super::compare::parse_threshold;
use super::super::exit::Exit;
use super::super::outputs::{self, Output};
use super::super::signals;
use super::check::parse_p_value;
use super::DEFAULT_DB;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The HTML file to write (`-` for stdout).
    #[arg(long, short = 'o', value_name = "PATH")]
    out: PathBuf,

    /// The history (SQLite) [default: results/history.sqlite].
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,

    /// Only the runs recorded for this branch (`history add --branch`).
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,

    /// As `history check --p-value`: the false-alarm probability of each split.
    #[arg(long, value_name = "P", default_value = "0.01", value_parser = parse_p_value)]
    p_value: f64,

    /// As `history check --min-change`: the smallest change of a series' mean shown.
    #[arg(long, value_name = "X%", default_value = "5%", value_parser = parse_threshold)]
    min_change: f64,

    /// As `history check --count-threshold`: the smallest change of an instruction count
    /// shown.
    #[arg(long, value_name = "X%", default_value = "1%", value_parser = parse_threshold)]
    count_threshold: f64,
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let db = args.db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB));
    // A page is all or nothing: a signal removes what is written and ends the command.
    signals::all_or_nothing("history report")?;
    // Staged: a history that cannot be read leaves the page that was there as it was, and
    // -o cannot name the history itself.
    let output = Output::named("--out", &args.out).staged();
    let checked_outputs = outputs::check_history("history report", &db, vec![output])?;
    let mut store = SqliteStore::open(&db)?;
    let knobs = Detection {
        p_value: args.p_value,
        min_change: args.min_change,
        count_threshold: args.count_threshold,
        ..Detection::default()
    };
    let checked = check(&mut store, &knobs, args.branch.as_deref())?;
    super::refuse_no_runs(&checked, &db.display().to_string(), args.branch.as_deref())?;
    let html = history_page(&checked, &knobs, &db.display().to_string());
    let mut out = checked_outputs
        .create()?
        .pop()
        .context("no output was opened")?;
    out.writer
        .write_all(html.as_bytes())
        .with_context(|| format!("cannot write {}", outputs::shown(&out.path)))?;
    out.finish()?;
    Ok(Exit::Success)
}
