//! `sudoku-bench run`: the benchmark. Streams corpora through the runner, writes the
//! per-puzzle CSV, warns about bad lines, and prints (and optionally saves) the summary.
//!
//! [`Plan::new`] turns the arguments into what the run does, once, with every refusal;
//! `run` then takes short steps: open the corpora, pick up a resumed CSV, create the
//! outputs, [`solve`], and [`Plan::tell`] the summary and [`Plan::ending`] the exit.

use std::fs::File;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context};
use sudoku_bench::clock::{Clock, CountingClock, MonotonicClock};
use sudoku_bench::corpus::{Corpus, ReadAs, Shard};
use sudoku_bench::interrupt::{not_reached, StoppedAt};
use sudoku_bench::results::{CsvSink, Sink, Status};
use sudoku_bench::resume::{Continue, Origin, Prepared, Resume, Resuming};
use sudoku_bench::runner::{Ended, RunError, Runner, Settings};
use sudoku_bench::strategy::{self, Limits, StrategyInfo};
use sudoku_bench::summary::count_or_unknown;
use sudoku_bench::summary::{PipeCost, Summary, SummaryReport};

use super::args::{open_corpora, parse_threads, strategy_named};
use super::callgrind;
use super::exit::Exit;
use super::outputs::{self, CheckedOutputs, Opened, Output};
use super::progress::Progress;
use super::resume;
use super::signals;
use super::summary_out::SummaryArgs;
use super::warnings::Warnings;
use sudoku_bench::results::Metric;

/// The corpus `run` uses when given none: shipped in the repository and built into the
/// binary, so a bare `sudoku-bench run` works anywhere.
/// It is generated (`datasets/README.md` has the command), so it is large enough to time.
const DEFAULT_CORPUS_NAME: &str = "datasets/minimal.txt";
const DEFAULT_CORPUS: &[u8] = include_bytes!("../../datasets/minimal.txt");

/// Replicates of every solver by default: enough for an interval over them (Student's t
/// with 7 degrees of freedom is 2.36, against 1.96 for unlimited ones), few enough that
/// the processes of solvers from outside stay cheap to start.
const DEFAULT_REPLICATES: u64 = 8;

/// Default node budget: keeps a full-corpus `naive` run bounded (see docs/guide.md).
pub const DEFAULT_MAX_NODES: u64 = 1_000_000;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to read (`-` for stdin); none: the built-in datasets/minimal.txt.
    #[arg(value_name = "CORPUS")]
    corpora: Vec<PathBuf>,

    #[command(flatten)]
    input: super::args::InputFormat,

    /// Built-in strategies to time, comma-separated (see `sudoku-bench strategies`); `none`:
    /// only the --solvers. Every count is checked against `fast`'s (solved untimed when it
    /// is not selected).
    #[arg(long, short = 's', value_delimiter = ',', default_value = "all")]
    strategies: Vec<String>,

    #[command(flatten)]
    solvers: super::solvers::SolverArgs,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    /// Count solutions up to N: 2 tells unique from multiple; 1 stops at the first.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    max_solutions: u32,

    /// Node budget per search; a search that runs out is `aborted`. 0: no limit. Not for
    /// --solver ones, which count no nodes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_NODES)]
    max_nodes: u64,

    /// Time budget per search (e.g. 500ms, 10s); a search that runs out is `aborted`. 0: none.
    /// At most 584 years: the summary counts it in 64-bit nanoseconds. A --solver cmd: copy
    /// or lib: worker process past it is killed, charged the limit, and started again;
    /// nothing interrupts a lib: solver called --in-process. Default: 10s; none with
    /// `--measure instructions`, which refuses one (a count cut by the clock would depend on
    /// the machine's load: bound searches with --max-nodes).
    #[arg(long, value_name = "DURATION", value_parser = super::args::parse_duration)]
    timeout: Option<Duration>,

    /// Worker threads (0: one per core, or one with `--measure instructions`, since Valgrind
    /// runs one thread at a time; at most 16 per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// Leave the worker threads to the scheduler. By default each is pinned to a CPU of
    /// its own, distinct cores first, from the CPUs this process may use (its affinity
    /// mask: taskset, a cgroup's cpuset, Slurm's or Kubernetes' CPU set), and the solver
    /// processes it starts run there too, and each puzzle is solved by every strategy on
    /// the same worker: the sides of a comparison are timed on the same CPU. With more
    /// workers than CPUs none is pinned (said).
    #[arg(long)]
    no_pin: bool,

    /// Each worker holds N solvers of every strategy, made alike, and the chunks take them
    /// in turn (two chunks each time, one of each phase order); the CSV's replicate column
    /// says which solved a row. A solver from outside is then N processes per worker, each
    /// laid out in memory anew as a separate run's would be, so `compare --between` can
    /// give an interval over replicates that covers what differs from run to run.
    /// Default: 8; 1 with `--measure instructions`, whose counts do not differ so.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=64))]
    replicates: Option<u64>,

    /// Time each solve K times and keep the fastest. A round is a pass over the whole chunk
    /// (--chunk-size puzzles; the first chunks are smaller), or the part of it solved at
    /// once (--write-within), so a solver meets every other
    /// puzzle of the chunk before one comes again and cannot learn the few it sees again:
    /// --repeat moves the solvers alike. Times are then a best case with most preemptions
    /// removed; throughputs describe that, and wall times cover all K rounds.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,

    /// Per-puzzle CSV output (`-` for stdout); default `results/run-<time>.csv`, never
    /// replacing a file (`-2`, `-3`, ... added to the name when it exists).
    #[arg(long, short = 'o', value_name = "PATH")]
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
    #[arg(long, value_name = "N", default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_size: u64,

    /// Write each puzzle's rows within about this long of its last solve (e.g. 250ms, 2s),
    /// so that a run killed with no chance to write (kill -9, the machine lost) keeps them
    /// for --resume: each chunk is solved and written in parts of as many puzzles as take
    /// about this long at the pace of the parts before (a fast solver's parts are whole
    /// chunks); the CSV's writer adds at most 250ms. 0: whole chunks, the fewest batches for
    /// a solver from outside.
    #[arg(long, value_name = "DURATION", default_value = "250ms", value_parser = super::args::parse_duration)]
    write_within: Duration,

    /// Skip the untimed warm-ups: the few puzzles each strategy solves before the first
    /// timed batch, and the solved grid a solver is given before a worker's first puzzle
    /// with it in each round of a phase (and after a switch from another solver).
    #[arg(long)]
    no_warmup: bool,

    /// Solve each puzzle as a random equivalent grid (digits relabelled; rows, columns,
    /// bands and stacks permuted; maybe transposed) drawn from SEED and its line: the same
    /// for every strategy. Counts and statuses do not change; nodes may. The CSV keeps the
    /// puzzles and solutions as read.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,

    /// What is measured of each solve: `time`, or the exact `instructions` it executed,
    /// counted under Valgrind's callgrind (installed separately; the run is started again
    /// under it), in the CSV's `instructions` column: the same on every run of one build,
    /// for a verdict a busy machine cannot flip. Built-in strategies and `lib:` solvers.
    #[arg(long, value_name = "METRIC", default_value = "time")]
    measure: Metric,

    /// Go on with the per-puzzle CSV that -o names, cut short by an interrupt or a killed
    /// job: its whole rows are kept, the rest is solved and appended, and the summary
    /// covers them all. Same corpora, strategies and limits as the run that wrote it.
    #[arg(long)]
    resume: bool,
}

impl Args {
    /// The time budget: as given (0: none), else 10 s when timing and none when counting.
    fn timeout(&self) -> Option<Duration> {
        match (self.timeout, self.measure) {
            (Some(t), _) => Some(t).filter(|t| !t.is_zero()),
            (None, Metric::Time) => Some(Duration::from_secs(10)),
            (None, Metric::Instructions) => None,
        }
    }
}

/// The built-in strategies a run times, in order: the one place they are chosen. `none`
/// chooses none (the --solvers alone are timed: see `Plan::new`).
fn select_strategies(names: &[String]) -> anyhow::Result<Vec<StrategyInfo>> {
    if names.iter().any(|n| n.trim() == "none") {
        if names.len() > 1 {
            bail!(
                "-s {}: none means no built-in strategy, so it goes alone",
                names.join(",")
            );
        }
        return Ok(Vec::new());
    }
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

/// `run`'s arguments turned into what the run does, once, every refusal made: what to
/// solve (corpora, strategies, limits, part), and where every output goes (checked, not yet
/// made).
struct Plan {
    /// Corpus files as given; none: the built-in corpus.
    corpora: Vec<PathBuf>,
    /// How the corpora are read, as far as the options say.
    read_as: ReadAs,
    /// Strategies (the `--solver`s after the `-s` ones), limits and batching.
    settings: Settings,
    /// What the pipe costs each `cmd:` solver.
    pipes: Vec<PipeCost>,
    /// `--in-process` solvers that are not `--serial`: their wrong answers may come from
    /// state they keep in globals.
    shared_in_process: Vec<String>,
    threads: usize,
    shard: Option<Shard>,
    /// `-o` as given; `None`: a name the run chooses.
    out: Option<PathBuf>,
    /// The directory the run started in, which the paths given are relative to, whatever
    /// directory a solver in this process moves it to.
    here: PathBuf,
    /// The outputs to create, checked against the corpora and each other: the CSV (unless
    /// resumed, when resume opens it), the summary and the report, in that order.
    files: CheckedOutputs,
    summary: SummaryArgs,
    /// Whether `--report` asks for a report.
    report: bool,
    strict: bool,
    quiet: bool,
    resume: bool,
}

impl Plan {
    /// Check `args`, load the `--solver`s (a solver that does not work fails the run before
    /// any output is made), and check every output against the corpora and each other.
    fn new(args: Args) -> anyhow::Result<Plan> {
        // Taken before any solver is loaded: one run in this process may change its
        // directory (chdir). The outputs are opened before any puzzle is solved (a staged
        // one's target made whole then); what is named once the run is over (the CSV a
        // --report is made from) is found from here.
        let here = std::env::current_dir()
            .context("cannot tell the current directory, which the paths given are relative to")?;
        check_report_source(&args)?;
        if let Some(out) = &args.out {
            outputs::plain_csv("-o", out)?;
        }
        if args.resume {
            resume::csv(args.out.as_deref())?;
        }
        let mut strategies = select_strategies(&args.strategies)?;
        let limits = Limits {
            max_solutions: args.max_solutions,
            max_nodes: if args.max_nodes == 0 {
                u64::MAX
            } else {
                args.max_nodes
            },
            timeout: args.timeout(),
        };
        if strategies.is_empty() && args.solvers.is_empty() {
            bail!(
                "-s none times no built-in strategy, and no --solver is given: nothing to \
                 time (give a --solver NAME=KIND:TARGET, or name strategies with -s)"
            );
        }
        let (foreign, pipes) = args.solvers.load(limits.timeout)?;
        let shared_in_process = args.solvers.shared_in_process();
        strategies.extend(foreign);
        let files = check_outputs(&args)?;
        Ok(Plan {
            shard: args.shard.resolve()?,
            read_as: args.input.read_as()?,
            settings: Settings {
                strategies,
                limits,
                repeat: args.repeat,
                chunk_size: args.chunk_size as usize,
                part_ns: u64::try_from(args.write_within.as_nanos()).unwrap_or(u64::MAX),
                warmup: !args.no_warmup,
                permute: args.permute,
                pin: !args.no_pin,
                replicates: args.replicates.unwrap_or(match args.measure {
                    Metric::Time => DEFAULT_REPLICATES,
                    Metric::Instructions => 1,
                }) as usize,
                ..Settings::default()
            },
            pipes,
            shared_in_process,
            threads: match (args.threads, args.measure) {
                (0, Metric::Instructions) => 1,
                (n, _) => n,
            },
            corpora: args.corpora,
            out: args.out,
            here,
            files,
            summary: args.summary,
            report: args.report.is_some(),
            strict: args.strict,
            quiet: args.quiet,
            resume: args.resume,
        })
    }

    /// What the run solves: every corpus opened (the built-in one when none is named)
    /// before any work.
    fn open(&self) -> anyhow::Result<Work> {
        let (mut corpora, mut total_bytes) =
            open_corpora(&self.corpora, &self.read_as, self.shard, self.quiet)?;
        if self.corpora.is_empty() {
            let built_in = Origin::Bytes(DEFAULT_CORPUS);
            corpora.push(built_in.open(DEFAULT_CORPUS_NAME, &self.read_as, self.shard)?);
            total_bytes = Some(DEFAULT_CORPUS.len() as u64);
        }
        Ok(Work {
            corpora,
            total_bytes,
            resume: None,
        })
    }

    /// Where each corpus comes from, in order, as resume reads them again.
    fn origins(&self) -> Vec<Origin<'_>> {
        if self.corpora.is_empty() {
            return vec![Origin::Bytes(DEFAULT_CORPUS)];
        }
        self.corpora.iter().map(|p| Origin::File(p)).collect()
    }

    /// With --resume, go on with the CSV `-o` names: its whole rows counted into `summary`,
    /// `work` told where each corpus goes on, and the file (cut to those rows) to append to;
    /// or, when the run had finished, the exit (nothing to solve or write: --strict still
    /// judges the rows).
    fn pick_up(
        &self,
        work: &mut Work,
        summary: &mut Summary,
    ) -> anyhow::Result<ControlFlow<Exit, Option<File>>> {
        if !self.resume {
            return Ok(ControlFlow::Continue(None));
        }
        let origins = self.origins();
        let strategies: Vec<&str> = self.settings.strategies.iter().map(|s| &*s.name).collect();
        let resuming = Resuming {
            csv: resume::csv(self.out.as_deref())?,
            summary: self.summary.path.as_deref(),
            corpora: &resume::sources(&work.corpora, &origins, &self.read_as)?,
            strategies: &strategies,
            settings: &self.settings,
            shard: self.shard,
        };
        match resume::prepare(&resuming, summary)? {
            Prepared::GoOn(resume, file) => {
                work.resume = Some(resume);
                Ok(ControlFlow::Continue(Some(file)))
            }
            Prepared::Finished(_) => {
                if self.report {
                    stderr_line!(
                        "resume: no --report made of a finished run: `sudoku-bench report` \
                         makes one from its CSV"
                    );
                }
                Ok(ControlFlow::Break(self.ending(None, Some(0), summary, 0)))
            }
        }
    }

    /// Create every output (the CSV continued in `appending` when resumed).
    fn create(&self, appending: Option<File>) -> anyhow::Result<(CsvSink, Outputs)> {
        let mut opened = self.files.create()?.into_iter();
        let (csv_path, csv) = match (appending, &self.out) {
            (Some(file), Some(path)) => (path.clone(), CsvSink::continuing(Box::new(file))),
            _ => {
                let csv_file = opened.next().context("no CSV output was opened")?;
                (csv_file.path, CsvSink::new(csv_file.writer))
            }
        };
        let csv = csv.with_context(|| format!("cannot write {}", csv_path.display()))?;
        let summary = if self.summary.path.is_some() {
            opened.next()
        } else {
            None
        };
        let outputs = Outputs {
            csv_path,
            summary,
            report: opened.next(),
        };
        Ok((csv, outputs))
    }

    /// Write the summary to its file and show it, with its warnings; write the report.
    fn tell(&self, report: &SummaryReport, outputs: &mut Outputs) -> anyhow::Result<()> {
        if let Some(file) = outputs.summary.as_mut() {
            let text = self.summary.text(&file.path, report);
            file.writer
                .write_all(text.as_bytes())
                .and_then(|()| file.writer.flush())
                .with_context(|| format!("cannot write {}", file.path.display()))?;
        }
        if !self.quiet {
            self.summary.show(report);
        }
        match report.metric {
            // Valgrind's times, which only say that it is slow: no warning about them.
            Metric::Instructions if !self.quiet => {
                stderr_line!(
                    "counted: each solve's instructions are in the CSV's `instructions` \
                     column; its times are Valgrind's, many times a real run's; compare \
                     judges the counts"
                );
                if sudoku_bench::valgrind::hides_avx512() {
                    stderr_line!(
                        "counted without AVX-512: this CPU has it, Valgrind does not show it, \
                         so a solver that picks its code at run time was counted on its AVX2 \
                         or portable path"
                    );
                }
            }
            Metric::Instructions => {}
            Metric::Time => super::warnings::numbers(report),
        }
        // After the table: a report that cannot be made must not hide the run's results.
        if let Some(file) = outputs.report.as_mut() {
            let csv = self.here.join(&outputs.csv_path);
            super::report::of_run(&csv, report.clone(), file)?;
        }
        // A name the tool chose is said even with --quiet: nobody else knows it.
        if outputs.csv_path.as_os_str() != "-" && (!self.quiet || self.out.is_none()) {
            stderr_line!("per-puzzle results: {}", outputs.csv_path.display());
        }
        Ok(())
    }

    /// How the run ends: stopped by a signal, failed to read a corpus, or (with --strict)
    /// found bad lines, wrong answers or failed solvers; each said on stderr.
    fn ending(
        &self,
        signal: Option<usize>,
        not_reached: Option<u64>,
        summary: &Summary,
        read_failures: u64,
    ) -> Exit {
        if let Some(signal) = signal {
            stderr_line!(
                "run: interrupted by {}: the rows and summary cover only the puzzles solved; \
                 {} puzzles not reached",
                signals::name(signal),
                count_or_unknown(not_reached)
            );
            return Exit::Stopped(signal);
        }
        if read_failures > 0 {
            return Exit::Error;
        }
        let bad = summary.count(Status::Malformed) + summary.count(Status::Invalid);
        let bad_lines = bad / self.settings.strategies.len().max(1) as u64;
        let (mismatches, failures) = (summary.mismatches(), summary.failures());
        let failed = bad_lines > 0 || mismatches > 0 || failures > 0;
        if self.strict && failed {
            stderr_line!(
                "error: --strict: {bad_lines} malformed or invalid lines, {mismatches} wrong \
                 answers, {failures} solver failures"
            );
        }
        Exit::failure_if(self.strict && failed)
    }
}

impl Plan {
    /// An `--in-process` solver on several threads that gave wrong answers may be keeping
    /// its state in globals: say how to run it so that it cannot.
    fn suggest_isolation(&self, summary: &Summary, threads: usize) {
        if threads < 2 {
            return;
        }
        for name in &self.shared_in_process {
            let wrong: u64 = summary
                .rows()
                .iter()
                .filter(|r| &r.strategy == name)
                .map(|r| r.mismatches + r.failures)
                .sum();
            if wrong > 0 {
                super::warnings::warn(&format!(
                    "{name} gave {wrong} wrong or failed answers on {threads} threads in this \
                     process: a library that keeps state in globals is not reentrant; run it \
                     in a process per worker (without --in-process), or with --serial {name}"
                ));
            }
        }
    }
}

/// `--report` is made from the per-puzzle CSV: refused when the CSV is not kept in a file.
fn check_report_source(args: &Args) -> anyhow::Result<()> {
    let (Some(_), Some(out)) = (&args.report, args.out.as_deref()) else {
        return Ok(());
    };
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
    Ok(())
}

/// Every output `args` names (or the CSV's default name), checked against the corpora and
/// each other; a resumed CSV is checked with them but left out of those to create.
fn check_outputs(args: &Args) -> anyhow::Result<CheckedOutputs> {
    let csv = match &args.out {
        Some(path) => Output::named("--out", path),
        None => Output::default_name("--out", default_out_path()),
    };
    let summary = args
        .summary
        .path
        .as_deref()
        .map(|p| Output::named("--summary", p));
    let report = args.report.as_deref().map(|p| Output::named("--report", p));
    let all: Vec<Output> = std::iter::once(csv).chain(summary).chain(report).collect();
    if args.resume {
        // The CSV is checked with the others but opened by `resume`, never emptied.
        outputs::check(&args.corpora, all.clone())?;
        return outputs::check(&args.corpora, all[1..].to_vec());
    }
    outputs::check(&args.corpora, all)
}

/// The run's outputs but its CSV, created.
struct Outputs {
    /// The per-puzzle CSV's path, as said (a default name may have gained a suffix).
    csv_path: PathBuf,
    summary: Option<Opened>,
    report: Option<Opened>,
}

/// What the run solves.
struct Work {
    corpora: Vec<Corpus>,
    /// Their total size, when known.
    total_bytes: Option<u64>,
    /// Where a resumed run goes on in each.
    resume: Option<Resume>,
}

/// What solving the corpora came to.
#[derive(Debug, Default)]
struct Solved {
    /// The corpus the run stopped in, and its records read but not reported.
    stopped_in: Option<StoppedAt>,
    /// What made the run fail, as said on stderr: each corpus that failed while read, and
    /// a solver the harness could not run (which ends the run).
    read_failures: Vec<String>,
}

impl Plan {
    /// Solve `work` with `runner` into the CSV (its sink and path) and `summary`, showing
    /// progress and warnings, until done or stopped; the CSV is finished.
    fn solve(
        &self,
        runner: &mut Runner,
        work: &mut Work,
        (mut csv, csv_path): (CsvSink, &Path),
        summary: &mut Summary,
    ) -> anyhow::Result<Solved> {
        let cannot_write = || format!("cannot write {}", csv_path.display());
        let names = names(&runner.settings().strategies);
        let mut progress = Progress::polled(work.total_bytes, names, self.quiet);
        if let Some(done) = progress.work_done() {
            runner.report_progress(done);
        }
        let mut warnings = Warnings::new(&progress);
        // The summary's count is the shortest job: second, for another worker to take.
        let mut sinks = (&mut csv, (&mut warnings, summary));
        let solved = solve(runner, work, &mut sinks, &progress).with_context(cannot_write)?;
        let shown = warnings.into_shown();
        csv.finish().with_context(cannot_write)?;
        progress.finish();
        let kept = csv_path != Path::new("/dev/null") && csv_path != Path::new("-");
        shown.say_hidden(&if kept {
            format!("see the error column of {}", csv_path.display())
        } else {
            "write the per-puzzle CSV to a file (-o) to see them all in its error column"
                .to_string()
        });
        Ok(solved)
    }
}

/// Solve `work`'s corpora (what a resume left of them) into `sinks`, until done or
/// stopped; a corpus that fails while read is said above `progress` and the next one goes
/// on.
fn solve(
    runner: &mut Runner,
    work: &mut Work,
    sinks: &mut impl Sink,
    progress: &Progress,
) -> Result<Solved, io::Error> {
    let mut solved = Solved::default();
    for (index, corpus) in work.corpora.iter_mut().enumerate() {
        match work.resume.as_ref().map(|r| r.of(index)) {
            Some(Continue::Done) => continue,
            Some(Continue::After(line)) => corpus.skip_through(line),
            None => {}
        }
        match runner.run(corpus, sinks) {
            Ok(Ended::Complete) => {}
            Ok(Ended::Stopped { unreported }) => {
                solved.stopped_in = Some((index, unreported));
                break;
            }
            Err(RunError::Load(e)) => {
                solved.read_failures.push(progress.read_failed(e));
            }
            Err(e @ RunError::Harness { .. }) => {
                solved.read_failures.push(progress.failed(&e));
                break;
            }
            Err(RunError::Sink(e)) => return Err(e),
        }
    }
    Ok(solved)
}

/// The options `--measure instructions` does not take.
fn refuse_with_instructions(args: &Args) -> anyhow::Result<()> {
    if args.measure != Metric::Instructions {
        return Ok(());
    }
    if args.timeout.is_some_and(|t| !t.is_zero()) {
        bail!(
            "--measure instructions takes no --timeout: a count cut short by the clock would \
             depend on the machine's load; bound searches with --max-nodes"
        );
    }
    if args.repeat > 1 {
        bail!("--measure instructions takes no --repeat: a solve's count does not vary");
    }
    Ok(())
}

/// The rows a resumed run keeps were measured as it measures, or the CSV would mix two
/// metrics.
fn check_kept_metric(measure: Metric, kept: &Summary) -> anyhow::Result<()> {
    let (searched, counted) = kept.instructions_counted();
    match measure {
        Metric::Instructions if counted < searched => bail!(
            "--resume --measure instructions: {} of the CSV's kept rows have no instruction \
             count: it was written by a run that timed; resume it without --measure",
            searched - counted
        ),
        Metric::Time if counted > 0 => bail!(
            "--resume: the CSV's kept rows count instructions: resume it with --measure \
             instructions"
        ),
        _ => Ok(()),
    }
}

/// Say how many solves of a run that counted instructions have no count.
fn warn_uncounted(summary: &Summary) {
    let (searched, counted) = summary.instructions_counted();
    if counted < searched {
        stderr_line!(
            "warning: {} of {searched} solves have no instruction count (callgrind's file \
             could not be read back; or a cmd: solver that does not read its stdin through \
             the C library's read(), did not wait for the next request within 10 s of \
             answering, or whose /proc/PID/syscall cannot be read): compare refuses a run \
             with such rows",
            searched - counted
        );
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // Before Valgrind is looked for: these are refusals of the command itself.
    refuse_with_instructions(&args)?;
    if callgrind::relaunch_needed(args.measure)? {
        return callgrind::relaunch();
    }
    let started = Instant::now();
    // Before any solver is loaded (a `cmd:` one is started and probed then, and may signal
    // sudoku-bench as it is) and before any file is made: a signal from here on ends the
    // command its own way.
    let stop = signals::install(signals::stopping(
        "writing the rows and the summary of the puzzles solved",
        !args.solvers.is_empty(),
        args.timeout(),
    ))?;
    let measure = args.measure;
    let plan = Plan::new(args)?;
    let mut summary = Summary::default();
    let mut work = plan.open()?;
    let appending = match plan.pick_up(&mut work, &mut summary)? {
        ControlFlow::Continue(appending) => appending,
        ControlFlow::Break(exit) => return Ok(exit),
    };
    check_kept_metric(measure, &summary)?;
    // Every output is created before any work, so one that cannot be fails at once; the
    // summary's is written at the end.
    let (csv, mut outputs) = plan.create(appending)?;
    let (timing, counting) = (MonotonicClock::default(), CountingClock::default());
    let clock: &dyn Clock = match measure {
        Metric::Time => &timing,
        Metric::Instructions => &counting,
    };
    let mut runner = Runner::new(plan.settings.clone(), plan.threads, clock)?;
    if plan.settings.pin && !runner.placement().pinned() {
        stderr_line!("warning: {}", runner.placement().describe());
    }
    runner.stop_when(stop.clone());
    let solved = plan.solve(
        &mut runner,
        &mut work,
        (csv, &outputs.csv_path),
        &mut summary,
    )?;
    if measure == Metric::Instructions {
        warn_uncounted(&summary);
    }
    // The run's wall time ends with its CSV written, before what was not reached is
    // counted and the summary is made (which reads /proc/cpuinfo for the machine's name).
    // A resumed run's adds the earlier stretches', when their summary said it.
    let wall_ns = (started.elapsed().as_nanos() as u64)
        .saturating_add(work.resume.as_ref().map_or(0, |r| r.earlier_wall_ns));
    let report = SummaryReport {
        // A signal after the last solve counts too, with nothing left unreached.
        interrupted: stop.requested(),
        // A corpus that failed leaves an unknown number of its lines unread.
        not_reached: match solved.read_failures.is_empty() {
            true => not_reached(&mut work.corpora, solved.stopped_in),
            false => None,
        },
        errors: solved.read_failures.clone(),
        pipes: plan.pipes.clone(),
        resources: runner.resources(),
        shard: plan.shard,
        resumed_rows: work.resume.as_ref().map(|r| r.kept_rows),
        metric: measure,
        ..runner.summary_report(&summary, wall_ns)
    };
    plan.tell(&report, &mut outputs)?;
    plan.suggest_isolation(&summary, runner.threads());
    let signal = stop.cause();
    let failures = solved.read_failures.len() as u64;
    Ok(plan.ending(signal, report.not_reached, &summary, failures))
}
