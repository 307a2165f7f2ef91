//! `sudoku-bench check`: a corpus lint for CI. Reports every malformed or invalid line as
//! `file:line:col: reason` on stdout, and with `--solutions` every puzzle whose solution
//! column is not its one solution; exits 1 when anything was found.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;
use sudoku_bench::classify::{Classified, Classifier};
use sudoku_bench::corpus::{Chunk, Kind, Lines, Record};
use sudoku_bench::interrupt::not_reached;
use sudoku_bench::results::Status;
use sudoku_bench::strategy::Limits;
use sudoku_bench::summary::count_or_unknown;

use super::args::{choose_strategy, open_corpora, parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs;
use super::progress::Progress;
use super::signals;

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
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    #[command(flatten)]
    input: super::args::InputFormat,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    /// Worker threads for `--solutions` (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

const CHUNK: usize = 4096;

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let info = choose_strategy(args.strategy.as_deref())?;
    let format = args.input.format();
    outputs::check(&args.corpora, Vec::new())?;
    let (mut corpora, total_bytes) =
        open_corpora(&args.corpora, format, args.shard.resolve()?, args.quiet)?;
    let classifier = args
        .solutions
        .then(|| Classifier::new(info, Limits::default(), args.threads))
        .transpose()?;
    let mut progress = Progress::new(total_bytes, args.quiet);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut puzzles, mut faults, mut read_failures) = (0u64, 0u64, 0u64);
    let mut chunk = Chunk::new(Lines::Entries);
    let mut verdicts: Vec<Classified> = Vec::new();

    let stop = signals::install()?;
    let mut classifier = classifier;
    if let Some(c) = classifier.as_mut() {
        c.stop_when(stop.clone());
    }
    // The corpus the check stopped in, and its entries read but not checked.
    let mut stopped_in = None;
    'corpora: for (index, corpus) in corpora.iter_mut().enumerate() {
        loop {
            if stop.requested() {
                stopped_in = Some((index, 0));
                break 'corpora;
            }
            // A read error ends this corpus like its end does.
            let n = corpus.read_chunk(&mut chunk, CHUNK).unwrap_or_else(|e| {
                progress.read_failed(e);
                read_failures += 1;
                0
            });
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
            // On a stop, only the entries before the first one not searched are checked.
            let checked = match &classifier {
                Some(c) if records.iter().any(searched) => c.classify(records, &mut verdicts),
                _ => {
                    verdicts.clear();
                    records.len()
                }
            };
            for (i, record) in records[..checked].iter().enumerate() {
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
            progress.advance(checked as u64, corpus.bytes_read());
            if checked < n {
                stopped_in = Some((index, (n - checked) as u64));
                break 'corpora;
            }
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
    let unread = match read_failures {
        0 => String::new(),
        n => format!("; {n} read errors (above): those corpora were not read to the end"),
    };
    if let Some(signal) = stop.cause() {
        let left = count_or_unknown(not_reached(&mut corpora, stopped_in));
        eprintln!(
            "check: interrupted by {}: {puzzles} puzzle lines checked, {faults} faulty so far, \
             {left} not reached ({what}){unread}",
            signals::name(signal)
        );
        return Ok(Exit::Stopped(signal));
    }
    if faults == 0 {
        eprintln!("check: {puzzles} puzzle lines, no faults ({what}){unread}");
    } else {
        eprintln!("check: {puzzles} puzzle lines, {faults} faulty ({what}){unread}");
    }
    Ok(if read_failures > 0 {
        Exit::Error
    } else {
        Exit::failure_if(faults > 0)
    })
}

/// Why a puzzle's solution column is wrong, if it is.
fn solution_fault(verdict: &Classified, expected: &sudoku_bench::Grid) -> Option<String> {
    let outcome = verdict.outcome.as_ref()?;
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
