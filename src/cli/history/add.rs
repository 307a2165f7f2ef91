//! `sudoku-bench history add`: record runs' summary JSONs (with the in-run comparison JSONs
//! of the same runs) under a commit, all or nothing; whatever cannot be placed is refused
//! (exit 2) naming the file.

use std::path::PathBuf;

use anyhow::{bail, Context};
use sudoku_bench::history::record::finished_at;
use sudoku_bench::history::{
    parse_time, read_runs_with, shown_time, store::RunRecord, Db, Placement, Taken,
};

use super::super::exit::Exit;
use super::DEFAULT_DB;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Summary JSONs written by `run --summary`, and in-run comparison JSONs (`compare
    /// RUN.csv --between OLD,NEW --format json`) given beside the summary of their run.
    #[arg(value_name = "SUMMARY.json", required = true)]
    files: Vec<PathBuf>,

    /// The commit the runs measured: its full hash (`git rev-parse HEAD`). Required.
    #[arg(long, value_name = "SHA")]
    commit: Option<String>,

    /// The commit's time, its place in the series: RFC 3339 (`git log -1 --format=%cI`) or
    /// Unix seconds (`--format=%ct`). Default: when the earliest of the runs finished.
    #[arg(long, value_name = "T")]
    time: Option<String>,

    /// The branch the runs were made for (`history check --branch` takes only its runs).
    #[arg(long, value_name = "B")]
    branch: Option<String>,

    /// A label of the runs, kept with them (repeatable): a runner's name, a compiler.
    #[arg(long = "label", value_name = "K=V", value_parser = parse_label)]
    labels: Vec<(String, String)>,

    /// Record only strategy FROM of the summaries, as strategy TO (repeatable): one run that
    /// timed several commits' builds side by side (`--solver cABC=lib:...`) is recorded
    /// once per commit, each taking its own row (`--strategy cABC=fast`). Comparison rows
    /// are taken when the strategy they judge (NEW) is.
    #[arg(long = "strategy", value_name = "FROM=TO", value_parser = parse_taken)]
    take: Vec<Taken>,

    /// Also record each other strategy's median time over this strategy's in the same run,
    /// per corpus, as a series of its own (`STRATEGY / REFERENCE`, measure `relative time`):
    /// a machine that drifts between runs slows both alike, as `compare --relative-to`
    /// cancels it. Every summary must hold it (named as the summary names it).
    #[arg(long, value_name = "STRATEGY")]
    relative_to: Option<String>,

    /// The history, made when it is not there: an SQLite file [default:
    /// results/history.sqlite, its directory made too; a named one's directory must exist],
    /// or a PostgreSQL database, postgres://USER:PASSWORD@HOST/DB (built with the `postgres`
    /// feature).
    #[arg(long, value_name = "PATH|URL")]
    db: Option<PathBuf>,
}

fn parse_taken(s: &str) -> Result<Taken, String> {
    match s.split_once('=') {
        Some((from, to)) if !from.trim().is_empty() && !to.trim().is_empty() => Ok(Taken {
            from: from.trim().to_string(),
            to: to.trim().to_string(),
        }),
        _ => Err(format!(
            "{s:?}: write FROM=TO (a strategy of the summaries, its new name)"
        )),
    }
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("{s:?} is not a label: write KEY=VALUE")),
    }
}

/// A commit's hash: 4 to 64 hex digits (SHA-1 or SHA-256, as git writes them), lower case.
fn commit_hash(given: &str) -> anyhow::Result<String> {
    let hex = given.len() >= 4 && given.len() <= 64 && given.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex {
        bail!(
            "--commit {given}: not a commit's hash (give its hash: --commit $(git rev-parse HEAD))"
        );
    }
    Ok(given.to_ascii_lowercase())
}

fn shown(files: &[PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// Each `--label` key and each strategy of `--strategy FROM=TO` given once.
fn check_once(args: &Args) -> anyhow::Result<()> {
    for (i, (key, _)) in args.labels.iter().enumerate() {
        if args.labels[..i].iter().any(|(k, _)| k == key) {
            bail!("--label {key}: given twice");
        }
    }
    for (i, t) in args.take.iter().enumerate() {
        for earlier in &args.take[..i] {
            if earlier.from == t.from || earlier.to == t.to {
                bail!(
                    "--strategy {}={} and --strategy {}={}: each strategy is taken once, \
                     under a name of its own",
                    earlier.from,
                    earlier.to,
                    t.from,
                    t.to
                );
            }
        }
    }
    Ok(())
}

/// When the earliest of `runs` finished: the time they are placed at unless `--time`.
fn earliest(runs: &[RunRecord]) -> anyhow::Result<i64> {
    let mut earliest = None;
    for run in runs {
        let at = finished_at(run).with_context(|| {
            format!(
                "{}: its date {:?} cannot be read: give --time",
                run.source.display(),
                run.date
            )
        })?;
        earliest = Some(earliest.map_or(at, |e: i64| e.min(at)));
    }
    earliest.context("no summary given: a comparison goes with its run's summary")
}

/// The database `--db` names, or the default SQLite file, its folder made.
fn database(db: Option<PathBuf>) -> anyhow::Result<Db> {
    if let Some(db) = db {
        return Ok(Db::parse(&db));
    }
    let db = PathBuf::from(DEFAULT_DB);
    if let Some(dir) = db.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    Ok(Db::Sqlite(db))
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let Some(commit) = &args.commit else {
        bail!(
            "{}: no commit to place the runs under: give --commit SHA (e.g. --commit \
             $(git rev-parse HEAD))",
            shown(&args.files)
        );
    };
    let commit = commit_hash(commit)?;
    check_once(&args)?;
    let given = match args.time.as_deref() {
        Some(t) => Some(parse_time(t).with_context(|| {
            format!(
                "--time {t}: not a time up to the end of year 9999 (give RFC 3339, \
                 2026-11-25T07:00:00Z, or Unix seconds)"
            )
        })?),
        None => None,
    };
    // The library's errors name the file.
    let runs = read_runs_with(&args.files, &args.take, args.relative_to.as_deref())?;
    let time = match given {
        Some(t) => t,
        None => earliest(&runs)?,
    };
    let placement = Placement {
        commit,
        time,
        time_given: given.is_some(),
        branch: args.branch,
        labels: args.labels,
    };
    let db = database(args.db)?;
    let mut store = db.open_or_create()?;
    let added = store.add(&placement, &runs)?;
    for file in &added.already {
        stderr_line!(
            "note: {}: already recorded under this commit; not recorded again",
            file.display()
        );
    }
    let rows: usize = runs
        .iter()
        .filter(|r| !added.already.contains(&r.source))
        .map(|r| r.rows.len())
        .sum();
    let relative = match &args.relative_to {
        Some(reference) => format!(", {} relative to {reference}", added.relative),
        None => String::new(),
    };
    stderr_line!(
        "recorded {} run(s) ({rows} row(s), {} in-run result(s){relative}) under commit {} \
         ({}) in {}",
        added.runs,
        added.ab,
        placement.commit,
        shown_time(added.time),
        db
    );
    Ok(Exit::Success)
}
