//! `sudoku-bench run`: the benchmark. Streams corpora through the runner, writes the
//! per-puzzle CSV, warns about bad lines, and prints (and optionally saves) the summary.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context};
use rayon::prelude::*;
use sudoku_bench::clock::MonotonicClock;
use sudoku_bench::corpus::{Corpus, Kind};
use sudoku_bench::interrupt::{count_or_unknown, not_reached};
use sudoku_bench::machine::Machine;
use sudoku_bench::report::csv::{push_field, push_header, push_row};
use sudoku_bench::report::json::JsonExporter;
use sudoku_bench::report::summary::SummaryReport;
use sudoku_bench::report::table::{Exporter, MarkdownExporter, TableExporter};
use sudoku_bench::report::{Status, Summary};
use sudoku_bench::runner::{Ended, RunError, Runner, Settings};
use sudoku_bench::strategy::{self, Limits, StrategyInfo};

use super::args::{format_of, open_corpora, parse_threads, strategy_named, FormatArg};
use super::outputs::{self, Output};
use super::progress::Progress;
use super::signals;
use super::writer::WriterThread;

/// The corpus `run` uses when given none: shipped in the repository and built into the
/// binary, so the first command in the README works anywhere.
/// It is generated (`datasets/README.md` has the command), so it is large enough to time.
const DEFAULT_CORPUS_NAME: &str = "datasets/minimal.txt";
const DEFAULT_CORPUS: &[u8] = include_bytes!("../../datasets/minimal.txt");

/// Default node budget: keeps a full-corpus `naive` run bounded (see README).
pub const DEFAULT_MAX_NODES: u64 = 1_000_000;

/// Records whose rows one parallel task formats.
const ROWS_PER_PIECE: usize = 256;

/// Chunks of formatted rows that may wait for the writer thread.
const WRITE_QUEUE: usize = 2;

/// At most this many bad-line warnings go to stderr; the CSV has them all.
const MAX_WARNINGS: u64 = 100;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to read (`-` for stdin); none: the built-in datasets/minimal.txt.
    #[arg(value_name = "CORPUS")]
    corpora: Vec<PathBuf>,

    /// Force the corpus format instead of detecting it from the first line.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,

    /// Strategies to run, comma-separated (see `sudoku-bench strategies`).
    #[arg(long, short = 's', value_delimiter = ',', default_value = "all")]
    strategies: Vec<String>,

    /// A solver from outside, run beside the strategies (repeatable):
    /// 'NAME=cmd:COMMAND ARGS' starts COMMAND once per thread and sends it `PUZZLE LIMIT`
    /// lines, reading `COUNT SOLUTION GUESSES` lines back (see README). --timeout kills and
    /// restarts one that does not answer; --max-nodes cannot bound it.
    #[cfg(unix)]
    #[arg(long = "solver", value_name = "NAME=KIND:...")]
    solvers: Vec<String>,

    /// Count solutions up to N: 2 tells unique from multiple; 1 stops at the first.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    max_solutions: u32,

    /// Node budget per search; a search that runs out is `aborted`. 0: no limit.
    #[arg(long, default_value_t = DEFAULT_MAX_NODES)]
    max_nodes: u64,

    /// Time budget per search (e.g. 500ms, 10s); a search that runs out is `aborted`. 0: none.
    /// At most 584 years: the summary counts it in 64-bit nanoseconds.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    timeout: Duration,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// Time each solve K times and keep the fastest.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,

    /// Per-puzzle CSV output (`-` for stdout); default results/run-<time>.csv, never
    /// replacing a file (`-2`, `-3`, ... added to the name when it exists).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,

    /// Also write the summary to this path (`-` for stdout): Markdown when it ends in `.md`,
    /// else JSON.
    #[arg(long)]
    summary: Option<PathBuf>,

    /// Fail (exit 1) when any line is malformed or invalid, any answer is wrong, or a solver
    /// failed.
    #[arg(long)]
    strict: bool,

    /// No progress bar and no summary table.
    #[arg(long, short = 'q')]
    quiet: bool,

    /// Records read and solved per parallel batch.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_size: u64,

    /// Skip the untimed warm-up before the first timed batch.
    #[arg(long)]
    no_warmup: bool,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    let timeout =
        humantime::parse_duration(s).map_err(|e| format!("{e} (try 500ms, 10s or 2m)"))?;
    // The summary records it in u64 nanoseconds: a longer one would wrap there.
    if u64::try_from(timeout.as_nanos()).is_err() {
        return Err(format!(
            "{s} is longer than the longest timeout, about 584 years (2^64 - 1 nanoseconds)"
        ));
    }
    Ok(timeout)
}

fn select_strategies(names: &[String]) -> anyhow::Result<Vec<&'static StrategyInfo>> {
    if names.iter().any(|n| n == "all") {
        return Ok(strategy::STRATEGIES.iter().collect());
    }
    let mut chosen = Vec::new();
    for name in names {
        let info = strategy_named(name)?;
        if !chosen.iter().any(|c: &&StrategyInfo| c.name == info.name) {
            chosen.push(info);
        }
    }
    if chosen.is_empty() {
        bail!("no strategy selected");
    }
    Ok(chosen)
}

fn default_out_path() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "");
    PathBuf::from("results").join(format!("run-{stamp}.csv"))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let strategies = select_strategies(&args.strategies)?;
    let limits = Limits {
        max_solutions: args.max_solutions,
        max_nodes: if args.max_nodes == 0 {
            u64::MAX
        } else {
            args.max_nodes
        },
        timeout: (!args.timeout.is_zero()).then_some(args.timeout),
    };
    // Before any output is made: a solver that does not work fails the run at once.
    #[cfg(unix)]
    let (foreign, pipes) = super::solvers::prepare(&args.solvers, limits.timeout)?;
    #[cfg(not(unix))]
    let (foreign, pipes) = (Vec::new(), Vec::new());
    let format = format_of(args.format);
    let csv_output = match &args.out {
        Some(path) => Output::named("--out", path),
        None => Output::default_name("--out", default_out_path()),
    };
    let summary_output = args
        .summary
        .as_deref()
        .map(|p| Output::named("--summary", p));
    // Before any file is made: a signal from here on ends the command its own way.
    let stop = signals::install()?;
    let files = outputs::check(
        &args.corpora,
        std::iter::once(csv_output).chain(summary_output).collect(),
    )?;
    let (mut corpora, mut total_bytes) = open_corpora(&args.corpora, format)?;
    if args.corpora.is_empty() {
        corpora.push(Corpus::from_reader(
            DEFAULT_CORPUS_NAME,
            Box::new(io::Cursor::new(DEFAULT_CORPUS)),
            Some(DEFAULT_CORPUS.len() as u64),
            format,
        ));
        total_bytes = Some(DEFAULT_CORPUS.len() as u64);
    }

    // Every output is created before any work, so one that cannot be fails at once; the
    // summary's is written at the end.
    let mut opened = files.create()?.into_iter();
    let csv_file = opened.next().context("no CSV output was opened")?;
    let mut summary_file = opened.next();
    let out_path = csv_file.path;
    let cannot_write = || format!("cannot write {}", out_path.display());
    let mut csv = WriterThread::spawn(csv_file.writer, WRITE_QUEUE).with_context(cannot_write)?;
    let mut header = Vec::new();
    push_header(&mut header);
    csv.send(header).with_context(cannot_write)?;

    let clock = MonotonicClock::default();
    let settings = Settings {
        strategies: strategies.into_iter().cloned().chain(foreign).collect(),
        limits,
        repeat: args.repeat,
        chunk_size: args.chunk_size as usize,
        warmup: !args.no_warmup,
    };
    let mut runner = Runner::new(settings, args.threads, &clock)?;
    let mut summary = Summary::default();
    let mut progress =
        Progress::polled(total_bytes, runner.settings().strategies.len(), args.quiet);
    if let Some(done) = progress.work_done() {
        runner.report_progress(done);
    }
    let mut warnings = 0u64;
    let mut read_failures = 0;
    let strategy_fields: Vec<Vec<u8>> = runner
        .settings()
        .strategies
        .iter()
        .map(|info| {
            let mut field = Vec::new();
            push_field(&mut field, info.name.as_bytes());
            field
        })
        .collect();

    runner.stop_when(stop.clone());
    // The corpus the run stopped in, and its records read but not reported.
    let mut stopped_in = None;
    for (index, corpus) in corpora.iter_mut().enumerate() {
        let mut corpus_field = Vec::new();
        push_field(&mut corpus_field, corpus.name().as_bytes());
        let result = runner.run(corpus, &mut summary, |batch| -> anyhow::Result<()> {
            // Format pieces of the batch in parallel, noting which hold a line to warn
            // about; the writer thread writes them in order while the workers go on to
            // the next chunk.
            let pieces = batch.records.len().div_ceil(ROWS_PER_PIECE);
            let mut pieces: Vec<(Vec<u8>, bool)> =
                (0..pieces).map(|_| (csv.spare(), false)).collect();
            batch
                .records
                .par_chunks(ROWS_PER_PIECE)
                .zip(pieces.par_iter_mut())
                .enumerate()
                .for_each(|(k, (records, (out, bad)))| {
                    out.reserve(records.len() * batch.strategies.len() * 256);
                    for (j, record) in records.iter().enumerate() {
                        let i = k * ROWS_PER_PIECE + j;
                        *bad |=
                            matches!(record.kind, Kind::Invalid { .. } | Kind::Malformed { .. });
                        for (s, strategy) in strategy_fields.iter().enumerate() {
                            let result = &batch.results[s][i];
                            *bad |= result.mismatch || result.failed;
                            push_row(out, &corpus_field, record, strategy, result);
                        }
                    }
                });
            // Warnings go out in input order, from the few pieces that have any.
            for (k, _) in pieces.iter().enumerate().filter(|(_, (_, bad))| *bad) {
                let start = k * ROWS_PER_PIECE;
                let records =
                    &batch.records[start..(start + ROWS_PER_PIECE).min(batch.records.len())];
                for (j, record) in records.iter().enumerate() {
                    if let Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } =
                        &record.kind
                    {
                        let line = format!("{}:{}: {reason}", batch.corpus, record.line);
                        warn(&progress, &mut warnings, &line);
                    }
                    for (s, info) in batch.strategies.iter().enumerate() {
                        let result = &batch.results[s][start + j];
                        if result.mismatch || result.failed {
                            let why = result.error.as_deref().unwrap_or("wrong solution");
                            let line =
                                format!("{}:{}: {}: {why}", batch.corpus, record.line, info.name);
                            warn(&progress, &mut warnings, &line);
                        }
                    }
                }
            }
            csv.send_all(pieces.into_iter().map(|(piece, _)| piece).collect())
                .with_context(cannot_write)?;
            Ok(())
        });
        match result {
            Ok(Ended::Complete) => {}
            Ok(Ended::Stopped { unreported }) => {
                stopped_in = Some((index, unreported));
                break;
            }
            Err(RunError::Load(e)) => {
                progress.read_failed(e);
                read_failures += 1;
            }
            Err(RunError::Sink(e)) => return Err(e),
        }
    }
    csv.finish().with_context(cannot_write)?;
    progress.finish();
    // The run's wall time ends with its CSV written, before what was not reached is
    // counted and the summary is made (which reads /proc/cpuinfo for the machine's name).
    let wall_ns = started.elapsed().as_nanos() as u64;
    let not_reached = not_reached(&mut corpora, stopped_in);
    if warnings > MAX_WARNINGS {
        eprintln!(
            "warning: {} more bad lines not shown; see the error column of {}",
            warnings - MAX_WARNINGS,
            out_path.display()
        );
    }

    let report = SummaryReport {
        tool: env!("CARGO_PKG_NAME").to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        date: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        machine: Machine::detect(),
        threads: runner.threads(),
        max_solutions: limits.max_solutions,
        max_nodes: (limits.max_nodes != u64::MAX).then_some(limits.max_nodes),
        timeout_ns: limits
            .timeout
            .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
        repeat: args.repeat,
        wall_ns,
        // A signal after the last solve counts too, with nothing left unreached.
        interrupted: stop.requested(),
        not_reached,
        pipes,
        rows: summary.rows(),
    };
    if let Some(file) = summary_file.as_mut() {
        let markdown = file.path.extension().is_some_and(|e| e == "md");
        let text = if markdown {
            MarkdownExporter.export(&report)
        } else {
            JsonExporter.export(&report)
        };
        file.writer
            .write_all(text.as_bytes())
            .and_then(|()| file.writer.flush())
            .with_context(|| format!("cannot write {}", file.path.display()))?;
    }
    if !args.quiet {
        eprint!("{}", TableExporter.export(&report));
    }
    // A name the tool chose is said even with --quiet: nobody else knows it.
    if out_path.as_os_str() != "-" && (!args.quiet || args.out.is_none()) {
        eprintln!("per-puzzle results: {}", out_path.display());
    }

    if let Some(signal) = stop.cause() {
        let left = count_or_unknown(not_reached);
        eprintln!(
            "run: interrupted by {}: the rows and summary cover only the puzzles solved; \
             {left} puzzles not reached",
            signals::name(signal)
        );
        return Ok(signals::exit_code(signal));
    }
    let bad = summary.count(Status::Malformed) + summary.count(Status::Invalid);
    let bad_lines = bad / runner.settings().strategies.len().max(1) as u64;
    let mismatches = summary.mismatches();
    let failures = summary.failures();
    if read_failures > 0 {
        return Ok(ExitCode::from(2));
    }
    if args.strict && (bad_lines > 0 || mismatches > 0 || failures > 0) {
        eprintln!(
            "error: --strict: {bad_lines} malformed or invalid lines, {mismatches} wrong \
             answers, {failures} solver failures"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn warn(progress: &Progress, count: &mut u64, line: &str) {
    *count += 1;
    if *count <= MAX_WARNINGS {
        progress.println(&format!("warning: {line}"));
    }
}
