//! `sudoku-bench history export --format bmf`: one commit's numbers from the history in
//! Bencher Metric Format, for `bencher run --adapter json` (render::export::bmf says what is sent).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use sudoku_bench::history::check::commit_index;
use sudoku_bench::history::{series, CheckError, SqliteStore};
use sudoku_bench::render::export::bmf::bmf;

use super::super::exit::Exit;
use super::super::output_format::OutputFormat;
use super::super::outputs::{self, Output};
use super::super::signals;
use super::DEFAULT_DB;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The format written.
    #[arg(long, value_name = "FORMAT", value_parser = OutputFormat::parser(OutputFormat::HISTORY_EXPORT))]
    format: OutputFormat,

    /// The file to write [default: stdout].
    #[arg(long, short = 'o', value_name = "PATH")]
    out: Option<PathBuf>,

    /// The history (SQLite) [default: results/history.sqlite].
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,

    /// The commit whose runs are exported (a recorded one; a prefix of its hash will do)
    /// [default: the newest in the series' order].
    #[arg(long, value_name = "SHA")]
    commit: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // BMF is the one format the parser takes: nothing to choose.
    debug_assert_eq!(args.format, OutputFormat::Bmf);
    let db = args.db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB));
    signals::all_or_nothing("history export")?;
    let path = args.out.unwrap_or_else(|| PathBuf::from("-"));
    let output = Output::named("--out", &path).staged();
    let checked_outputs = outputs::check_history("history export", &db, vec![output])?;
    let mut store = SqliteStore::open(&db)?;
    let series = series(&mut store, None)?;
    let at = match &args.commit {
        Some(given) => commit_index(&series.commits, given).map_err(|e| match e {
            CheckError::Since { given, why } => anyhow!("--commit {given}: {why}"),
            other => other.into(),
        })?,
        None => match series.commits.len().checked_sub(1) {
            Some(last) => last,
            None => bail!("{}: no commit recorded: nothing to export", shown(&db)),
        },
    };
    let doc = bmf(&series, at);
    if doc.as_object().is_none_or(|o| o.is_empty()) {
        bail!(
            "{}: commit {} has no run recorded: nothing to export",
            shown(&db),
            series.commits[at].commit
        );
    }
    let mut text = serde_json::to_string_pretty(&doc).context("cannot write the JSON")?;
    text.push('\n');
    let mut out = checked_outputs
        .create()?
        .pop()
        .context("no output was opened")?;
    out.writer
        .write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", outputs::shown(&out.path)))?;
    out.finish()?;
    Ok(Exit::Success)
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}
