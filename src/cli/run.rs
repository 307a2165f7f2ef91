//! `sudoku-bench run`: the benchmark. Streams corpora through the runner, writes the
//! per-puzzle CSV, warns about bad lines, and prints (and optionally saves) the summary.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context};
use sudoku_bench::clock::MonotonicClock;
use sudoku_bench::interrupt::not_reached;
use sudoku_bench::results::{CsvSink, Status};
use sudoku_bench::resume::{Continue, Origin};
use sudoku_bench::runner::{Ended, RunError, Runner, Settings};
use sudoku_bench::strategy::{self, Limits, StrategyInfo};
use sudoku_bench::summary::count_or_unknown;
use sudoku_bench::summary::Summary;
use sudoku_bench::summary::SummaryReport;

use super::args::{open_corpora, parse_threads, strategy_named};
use super::exit::Exit;
use super::outputs::{self, Output};
use super::progress::Progress;
use super::resume;
use super::signals;
use super::summary_out::SummaryArgs;
use super::warnings::Warnings;

/// The corpus `run` uses when given none: shipped in the repository and built into the
/// binary, so the first command in the README works anywhere.
/// It is generated (`datasets/README.md` has the command), so it is large enough to time.
const DEFAULT_CORPUS_NAME: &str = "datasets/minimal.txt";
const DEFAULT_CORPUS: &[u8] = include_bytes!("../../datasets/minimal.txt");

/// Default node budget: keeps a full-corpus `naive` run bounded (see README).
pub const DEFAULT_MAX_NODES: u64 = 1_000_000;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to read (`-` for stdin); none: the built-in datasets/minimal.txt.
    #[arg(value_name = "CORPUS")]
    corpora: Vec<PathBuf>,

    #[command(flatten)]
    input: super::args::InputFormat,

    /// Strategies to run, comma-separated (see `sudoku-bench strategies`). Every count is
    /// checked against `fast`'s (solved untimed when it is not selected).
    #[arg(long, short = 's', value_delimiter = ',', default_value = "all")]
    strategies: Vec<String>,

    #[command(flatten)]
    solvers: super::solvers::SolverArgs,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    /// Count solutions up to N: 2 tells unique from multiple; 1 stops at the first.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    max_solutions: u32,

    /// Node budget per search; a search that runs out is `aborted`. 0: no limit. Not for
    /// --solver ones, which count no nodes.
    #[arg(long, default_value_t = DEFAULT_MAX_NODES)]
    max_nodes: u64,

    /// Time budget per search (e.g. 500ms, 10s); a search that runs out is `aborted`. 0: none.
    /// At most 584 years: the summary counts it in 64-bit nanoseconds. Nothing interrupts a
    /// --solver lib: solver.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    timeout: Duration,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// Time each solve K times and keep the fastest. Each puzzle is solved K times in a row
    /// (with the other puzzles of its task of 8), so its time is a warm-cache best case with
    /// most preemptions and cold-cache misses removed; throughputs then describe that, and
    /// wall times cover all K rounds.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,

    /// Per-puzzle CSV output (`-` for stdout); default results/run-<time>.csv, never
    /// replacing a file (`-2`, `-3`, ... added to the name when it exists).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,

    #[command(flatten)]
    summary: SummaryArgs,

    /// Also write the HTML report of this run (as `sudoku-bench report` makes it) to PATH,
    /// from the per-puzzle CSV once it is written: not with `-o -`.
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,

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

    /// Solve each puzzle as a random equivalent grid (digits relabelled; rows, columns,
    /// bands and stacks permuted; maybe transposed) drawn from SEED and its line: the same
    /// for every strategy. Counts and statuses do not change; nodes may. The CSV keeps the
    /// puzzles and solutions as read.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,

    /// Go on with the per-puzzle CSV that -o names, cut short by an interrupt or a killed
    /// job: its whole rows are kept, the rest is solved and appended, and the summary
    /// covers them all. Same corpora, strategies and limits as the run that wrote it.
    #[arg(long)]
    resume: bool,
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

/// The strategies a run times, in order: the one place they are chosen.
fn select_strategies(names: &[String]) -> anyhow::Result<Vec<StrategyInfo>> {
    if names.iter().any(|n| n == "all") {
        return Ok(strategy::STRATEGIES.to_vec());
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
    Ok(chosen.into_iter().cloned().collect())
}

/// The strategies' names, for the progress bar.
fn names(strategies: &[StrategyInfo]) -> Vec<String> {
    strategies.iter().map(|s| s.name.to_string()).collect()
}

fn default_out_path() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "");
    PathBuf::from("results").join(format!("run-{stamp}.csv"))
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let started = Instant::now();
    if let (Some(_), Some(out)) = (&args.report, args.out.as_deref()) {
        if out.as_os_str() == "-" {
            bail!(
                "--report is made from the per-puzzle CSV, and -o - sends it to stdout where \
                 it cannot be read again: write the CSV to a file (-o run.csv) for a report"
            );
        }
        // /dev/null, a pipe: nothing to read back once the run is over.
        if std::fs::metadata(out).is_ok_and(|m| !m.is_file()) {
            bail!(
                "--report is made from the per-puzzle CSV, and {} is not a regular file that \
                 keeps it: write the CSV to a file (-o run.csv) for a report",
                out.display()
            );
        }
    }
    if let Some(out) = &args.out {
        outputs::plain_csv("-o", out)?;
    }
    let mut strategies = select_strategies(&args.strategies)?;
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
    let (foreign, pipes) = args.solvers.load(limits.timeout)?;
    strategies.extend(foreign);
    let format = args.input.format();
    let csv_output = match &args.out {
        Some(path) => Output::named("--out", path),
        None => Output::default_name("--out", default_out_path()),
    };
    let summary_output = args
        .summary
        .path
        .as_deref()
        .map(|p| Output::named("--summary", p));
    let has_summary = summary_output.is_some();
    let report_output = args.report.as_deref().map(|p| Output::named("--report", p));
    // Before any file is made: a signal from here on ends the command its own way.
    let stop = signals::install()?;
    let all_outputs: Vec<Output> = std::iter::once(csv_output)
        .chain(summary_output)
        .chain(report_output)
        .collect();
    let files = if args.resume {
        // The CSV is checked with the others but opened by `resume`, never emptied.
        outputs::check(&args.corpora, all_outputs.clone())?;
        outputs::check(&args.corpora, all_outputs[1..].to_vec())?
    } else {
        outputs::check(&args.corpora, all_outputs)?
    };
    let shard = args.shard.resolve()?;
    let (mut corpora, mut total_bytes) = open_corpora(&args.corpora, format, shard, args.quiet)?;
    if args.corpora.is_empty() {
        let built_in = Origin::Bytes(DEFAULT_CORPUS).open(DEFAULT_CORPUS_NAME, format, shard)?;
        corpora.push(built_in);
        total_bytes = Some(DEFAULT_CORPUS.len() as u64);
    }

    let settings = Settings {
        strategies,
        limits,
        repeat: args.repeat,
        chunk_size: args.chunk_size as usize,
        warmup: !args.no_warmup,
        permute: args.permute,
        ..Settings::default()
    };
    let mut summary = Summary::default();
    let (resume, appending) = if args.resume {
        let origins: Vec<Origin> = (0..corpora.len())
            .map(|i| {
                args.corpora
                    .get(i)
                    .map_or(Origin::Bytes(DEFAULT_CORPUS), |p| Origin::File(p))
            })
            .collect();
        let sources = resume::sources(&corpora, &origins, format)?;
        let strategy_names: Vec<&str> = settings.strategies.iter().map(|s| &*s.name).collect();
        let (resume, file) = resume::prepare(
            args.out.as_deref(),
            args.summary.path.as_deref(),
            &sources,
            &strategy_names,
            &settings,
            shard,
            &mut summary,
        )?;
        (Some(resume), Some(file))
    } else {
        (None, None)
    };

    // Every output is created before any work, so one that cannot be fails at once; the
    // summary's is written at the end.
    let mut opened = files.create()?.into_iter();
    let (out_path, csv) = match (appending, args.out.as_ref()) {
        (Some(file), Some(path)) => (path.clone(), CsvSink::continuing(Box::new(file))),
        _ => {
            let csv_file = opened.next().context("no CSV output was opened")?;
            (csv_file.path, CsvSink::new(csv_file.writer))
        }
    };
    let mut summary_file = if has_summary { opened.next() } else { None };
    let mut report_file = opened.next();
    let cannot_write = || format!("cannot write {}", out_path.display());
    let mut csv = csv.with_context(cannot_write)?;

    let clock = MonotonicClock::default();
    let mut runner = Runner::new(settings, args.threads, &clock)?;
    let mut progress = Progress::polled(
        total_bytes,
        names(&runner.settings().strategies),
        args.quiet,
    );
    if let Some(done) = progress.work_done() {
        runner.report_progress(done);
    }
    let mut warnings = Warnings::new(&progress);
    let mut read_failures = 0;

    runner.stop_when(stop.clone());
    // The corpus the run stopped in, and its records read but not reported.
    let mut stopped_in = None;
    for (index, corpus) in corpora.iter_mut().enumerate() {
        match resume.as_ref().map(|r| r.of(index)) {
            Some(Continue::Done) => continue,
            Some(Continue::After(line)) => corpus.skip_through(line),
            None => {}
        }
        // The summary's count is the shortest job: second, for another worker to take.
        let mut sinks = (&mut csv, (&mut warnings, &mut summary));
        match runner.run(corpus, &mut sinks) {
            Ok(Ended::Complete) => {}
            Ok(Ended::Stopped { unreported }) => {
                stopped_in = Some((index, unreported));
                break;
            }
            Err(RunError::Load(e)) => {
                progress.read_failed(e);
                read_failures += 1;
            }
            Err(RunError::Sink(e)) => return Err(e).with_context(cannot_write),
        }
    }
    csv.finish().with_context(cannot_write)?;
    let hidden = warnings.hidden();
    progress.finish();
    // The run's wall time ends with its CSV written, before what was not reached is
    // counted and the summary is made (which reads /proc/cpuinfo for the machine's name).
    // A resumed run's adds the earlier stretches', when their summary said it.
    let wall_ns = (started.elapsed().as_nanos() as u64)
        .saturating_add(resume.as_ref().map_or(0, |r| r.earlier_wall_ns));
    let not_reached = not_reached(&mut corpora, stopped_in);
    if hidden > 0 {
        eprintln!(
            "warning: {hidden} more bad lines not shown; see the error column of {}",
            out_path.display()
        );
    }

    let report = SummaryReport {
        // A signal after the last solve counts too, with nothing left unreached.
        interrupted: stop.requested(),
        not_reached,
        pipes,
        shard,
        resumed_rows: resume.as_ref().map(|r| r.kept_rows),
        ..runner
            .settings()
            .summary_report(&summary, runner.threads(), wall_ns)
    };
    if let Some(file) = summary_file.as_mut() {
        let text = args.summary.text(&file.path, &report);
        file.writer
            .write_all(text.as_bytes())
            .and_then(|()| file.writer.flush())
            .with_context(|| format!("cannot write {}", file.path.display()))?;
    }
    if !args.quiet {
        args.summary.show(&report);
    }
    super::warnings::numbers(&report);
    // After the table: a report that cannot be made must not hide the run's results.
    if let Some(file) = report_file.as_mut() {
        super::report::of_run(&out_path, report.clone(), file)?;
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
        return Ok(Exit::Stopped(signal));
    }
    let bad = summary.count(Status::Malformed) + summary.count(Status::Invalid);
    let bad_lines = bad / runner.settings().strategies.len().max(1) as u64;
    let mismatches = summary.mismatches();
    let failures = summary.failures();
    if read_failures > 0 {
        return Ok(Exit::Error);
    }
    if args.strict && (bad_lines > 0 || mismatches > 0 || failures > 0) {
        eprintln!(
            "error: --strict: {bad_lines} malformed or invalid lines, {mismatches} wrong \
             answers, {failures} solver failures"
        );
        return Ok(Exit::Failure);
    }
    Ok(Exit::Success)
}
