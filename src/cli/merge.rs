//! `sudoku-bench merge`: the parts of a run split with `--shard K/N` back into one
//! per-puzzle CSV and one summary, as a single run would have written them. Every check
//! comes before anything is written; the files appear whole or not at all (each is
//! staged: written to a temporary file beside it and renamed at the end; a signal removes
//! it). `-` is stdout.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use sudoku_bench::merge;

use super::exit::Exit;
use super::outputs::{self, Output};
use super::signals;
use super::summary_out::SummaryArgs;
use super::warnings;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The parts' per-puzzle CSVs (`run --shard K/N -o part-K.csv --summary part-K.json`);
    /// each one's summary is the same path ending in .json.
    #[arg(value_name = "PART.csv", required = true)]
    parts: Vec<PathBuf>,

    /// The merged per-puzzle CSV (`-` for stdout).
    #[arg(long, short = 'o', value_name = "PATH")]
    out: PathBuf,

    #[command(flatten)]
    summary: SummaryArgs,

    /// No summary table.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let stdout = |p: &Path| p.as_os_str() == "-";
    if args.summary.path.as_deref().is_some_and(stdout) && stdout(&args.out) {
        bail!(
            "-o - and --summary - would both go to stdout, the CSV and the summary in one \
             stream: send one of them to a file"
        );
    }
    outputs::plain_csv("-o", &args.out)?;
    // Nothing finished to keep: a signal removes what is written and ends the merge.
    signals::all_or_nothing("merge")?;
    let jsons: Vec<PathBuf> = args.parts.iter().map(|p| merge::summary_path(p)).collect();
    let inputs: Vec<PathBuf> = args.parts.iter().chain(&jsons).cloned().collect();
    let mut wanted = vec![Output::named("-o", &args.out).staged()];
    if let Some(s) = &args.summary.path {
        wanted.push(Output::named("--summary", s).staged());
    }
    // Made before any work (staged: what was there stays until the end), so that one that
    // cannot be fails at once; with -o -, before a row is printed.
    let mut opened = outputs::check_reading_twice("merge", &inputs, wanted)?
        .create()?
        .into_iter();
    let mut csv = opened.next().context("no output was opened")?;
    let parts = merge::load(&args.parts)?;
    for unchecked in merge::check_puzzles(&parts)? {
        warnings::warn(&unchecked);
    }
    let report = merge::merged_report(&parts)?;
    let corpora = merge::corpora(&parts);
    let rows = {
        let mut writer = BufWriter::with_capacity(1 << 16, &mut csv.writer);
        let rows = merge::merge_rows(&args.parts, &corpora, &mut writer, &args.out)?;
        writer
            .flush()
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        rows
    };
    csv.sync()?;
    let summary = match (&args.summary.path, opened.next()) {
        (Some(path), Some(mut out)) => {
            let text = args.summary.text(path, &report);
            out.writer
                .write_all(text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            out.sync()?;
            Some(out)
        }
        _ => None,
    };
    // Put in place last, together: a failure above leaves neither file behind.
    outputs::finish(std::iter::once(csv).chain(summary).collect())?;

    if !args.quiet {
        args.summary.show(&report);
        stderr_line!(
            "merged rows: {} ({rows} rows from {} part files)",
            outputs::shown(&args.out),
            parts.len()
        );
    }
    Ok(Exit::Success)
}
