//! `sudoku-bench check`: a corpus lint for CI. Reports every malformed or invalid line as
//! `file:line:col: reason` on stdout, and with `--solutions` every puzzle whose solution
//! column is not its one solution; exits 1 when anything was found.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_bench::classify::{Classifier, Verdict};
use sudoku_bench::corpus::{Chunk, Kind, Lines, Record};
use sudoku_bench::report::Status;
use sudoku_bench::strategy::Limits;

use super::args::{choose_strategy, format_of, open_corpora, FormatArg};
use super::progress::Progress;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to check (`-` for stdin).
    #[arg(value_name = "CORPUS", required = true)]
    corpora: Vec<PathBuf>,

    /// Also solve every puzzle that has a solution column: the puzzle must have exactly one
    /// solution, and it must be the column's.
    #[arg(long)]
    solutions: bool,

    /// Strategy used by `--solutions`; default: the fastest registered.
    #[arg(long, short = 's')]
    strategy: Option<String>,

    /// Force the corpus format instead of detecting it from the first line.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,

    /// Worker threads for `--solutions` (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,

    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

const CHUNK: usize = 4096;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let info = choose_strategy(args.strategy.as_deref())?;
    let format = format_of(args.format);
    let (mut corpora, total_bytes) = open_corpora(&args.corpora, format)?;
    let classifier = args
        .solutions
        .then(|| Classifier::new(info, Limits::default(), args.threads))
        .transpose()?;
    let mut progress = Progress::new(total_bytes, args.quiet);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut puzzles, mut faults) = (0u64, 0u64);
    let mut chunk = Chunk::new(Lines::Entries);
    let mut verdicts: Vec<Verdict> = Vec::new();

    for corpus in &mut corpora {
        loop {
            let n = corpus
                .read_chunk(&mut chunk, CHUNK)
                .with_context(|| format!("cannot read {}", corpus.name()))?;
            if n == 0 {
                break;
            }
            // Only puzzles with a solution column need a search.
            let searched = |r: &Record| {
                matches!(
                    r.kind,
                    Kind::Puzzle {
                        expected: Some(_),
                        ..
                    }
                )
            };
            let records = chunk.records();
            match &classifier {
                Some(c) if records.iter().any(searched) => c.classify(records, &mut verdicts),
                _ => verdicts.clear(),
            }
            for (i, record) in records.iter().enumerate() {
                puzzles += 1;
                let fault = match &record.kind {
                    Kind::Invalid { reason, column, .. } | Kind::Malformed { reason, column } => {
                        Some((*column, reason.clone()))
                    }
                    Kind::Puzzle {
                        expected: Some(expected),
                        ..
                    } => verdicts
                        .get(i)
                        .and_then(|v| solution_fault(v, expected))
                        .map(|why| (1, why)),
                    _ => None,
                };
                if let Some((column, reason)) = fault {
                    faults += 1;
                    let line = format!("{}:{}:{column}: {reason}", corpus.name(), record.line);
                    // Flushed at once so that the line never tears the progress bar.
                    progress
                        .suspend(|| writeln!(out, "{line}").and_then(|()| out.flush()))
                        .context("cannot write to stdout")?;
                }
            }
            progress.advance(n as u64, corpus.bytes_read());
        }
        progress.finish_corpus(corpus.size().unwrap_or(corpus.bytes_read()));
    }
    out.flush().context("cannot write to stdout")?;
    progress.finish();
    let what = if args.solutions {
        format!("solutions checked with {}", info.name)
    } else {
        "solutions not searched".to_string()
    };
    if faults == 0 {
        eprintln!("check: {puzzles} puzzle lines, no faults ({what})");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("check: {puzzles} puzzle lines, {faults} faulty ({what})");
        Ok(ExitCode::from(1))
    }
}

/// Why a puzzle's solution column is wrong, if it is.
fn solution_fault(verdict: &Verdict, expected: &sudoku_bench::Grid) -> Option<String> {
    let outcome = verdict.outcome?;
    match verdict.status? {
        Status::Unique if outcome.first.as_ref() == Some(expected) => None,
        Status::Unique => Some("solution column is not the puzzle's one solution".into()),
        Status::Multiple => Some(
            "puzzle has more than one solution, so its solution column is not the solution".into(),
        ),
        Status::Unsolvable => Some("puzzle has no solution, yet a solution column".into()),
        Status::Aborted => Some("search aborted before uniqueness was settled".into()),
        _ => None,
    }
}
