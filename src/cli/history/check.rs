//! `sudoku-bench history check`: the change points of every series of the history, printed
//! per machine and settings; exit 1 when a slowdown lies in the commits after `--since`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use sudoku_bench::history::changes::Detection;
use sudoku_bench::history::check::commit_index;
use sudoku_bench::history::{check, Db};
use sudoku_bench::render::history::changes_text;

use super::super::compare::{parse_fraction, parse_threshold};
use super::super::exit::Exit;
use super::DEFAULT_DB;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Exit 1 when a slowdown's commit range ends after this commit (a recorded one; a
    /// prefix of its hash will do).
    #[arg(long, value_name = "SHA")]
    since: Option<String>,

    /// The history: an SQLite file [default: results/history.sqlite], or a PostgreSQL
    /// database, postgres://USER:PASSWORD@HOST/DB (built with the `postgres` feature).
    #[arg(long, value_name = "PATH|URL")]
    db: Option<PathBuf>,

    /// The false-alarm probability of each split: a split is a change when its permutation
    /// p-value is at most this (`0.01` or `1%`).
    #[arg(long, value_name = "P", default_value = "0.01", value_parser = parse_p_value)]
    p_value: f64,

    /// The smallest change of a series' mean reported: `5%` or `0.05`.
    #[arg(long, value_name = "X%", default_value = "5%", value_parser = parse_threshold)]
    min_change: f64,

    /// The smallest change of an instruction count per puzzle reported (`run --measure
    /// instructions`): `1%` or `0.01`. Measured from the level of the last change, so a
    /// creep of smaller steps is reported once it adds up to more.
    #[arg(long, value_name = "X%", default_value = "1%", value_parser = parse_threshold)]
    count_threshold: f64,

    /// Only the runs recorded for this branch (`history add --branch`).
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
}

pub(super) fn parse_p_value(s: &str) -> Result<f64, String> {
    match parse_fraction(s) {
        Some(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "{s:?} is not a p-value between 0 and 1 (try 0.01 or 1%)"
        )),
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let db = Db::parse(&args.db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB)));
    let mut store = db.open()?;
    let knobs = Detection {
        p_value: args.p_value,
        min_change: args.min_change,
        count_threshold: args.count_threshold,
        ..Detection::default()
    };
    // The store's errors name the database.
    let checked = check(store.as_mut(), &knobs, args.branch.as_deref())?;
    // Without --branch, an empty history has no slowdown, as before; a branch with no run
    // is a mistyped name, never a pass.
    if let Some(branch) = args.branch.as_deref() {
        super::refuse_no_runs(&checked, &db.to_string(), Some(branch))?;
    }
    let since = match &args.since {
        Some(sha) => Some(commit_index(&checked.commits, sha)?),
        None => None,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(changes_text(&checked, &knobs, since).as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")?;
    Ok(Exit::failure_if(
        since.is_some_and(|at| checked.slowdowns_since(at) > 0),
    ))
}
