//! `sudoku-bench check`: a corpus lint for CI. Reports every malformed or invalid line as
//! `file:line:col: reason` on stdout, and with `--solve` every puzzle whose solution
//! column is not its one solution; exits 1 when anything was found.
//!
//! `--solve --solver` checks the columns with that solver, and every count of it
//! against the built-in reference: a line whose count the two disagree on is said on
//! stderr (the solver's fault, not the corpus's), its column not judged, and the exit is 1.
//!
//! [`Plan::new`] checks the arguments once; `run` then opens the corpora, checks each
//! ([`Check::corpus`]) and says what it found ([`CheckCounts::ending`]), which also chooses the
//! exit.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use sudoku_bench::classify::{Classified, Classifier};
use sudoku_bench::corpus::{Chunk, Corpus, Kind, Lines, LoadError, ReadAs, Record, Shard};
use sudoku_bench::interrupt::{not_reached, Stop};
use sudoku_bench::results::{abort_reason, Status};
use sudoku_bench::strategy::{Abort, Limits};
use sudoku_bench::summary::count_or_unknown;

use super::args::{open_corpora, parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs;
use super::progress::Progress;
use super::signals;
use super::solvers::{OneSolver, SolverArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to check (`-` for stdin).
    #[arg(value_name = "CORPUS", required = true)]
    corpora: Vec<PathBuf>,

    /// Also solve every puzzle that has a solution column: the puzzle must have exactly one
    /// solution, and it must be the column's.
    #[arg(long)]
    solve: bool,

    /// `--solve`'s old name, refused with the new one: `--solutions` names how many
    /// solutions `generate` gives its puzzles.
    #[arg(long = "solutions", hide = true)]
    old_solutions: bool,

    /// Built-in strategy used by `--solve`; default: the fastest registered. Not with
    /// --solver, which `--solve` then uses instead.
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    #[command(flatten)]
    solvers: SolverArgs,

    #[command(flatten)]
    input: super::args::InputFormat,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    #[command(flatten)]
    timeout: super::args::SearchTimeout,

    /// Worker threads for `--solve` (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

const CHUNK: usize = 4096;

/// `check`'s arguments, checked once: the corpora and how to read them, and the strategy
/// that searches the solution columns when `--solve` asks.
struct Plan {
    corpora: Vec<PathBuf>,
    read_as: ReadAs,
    shard: Option<Shard>,
    /// The solver named (`-s` or `--solver`), or the fastest: also named in the last line
    /// without `--solve`.
    solver: OneSolver,
    solve: bool,
    /// `--timeout`, when one bounds each search.
    timeout: Option<Duration>,
    threads: usize,
    quiet: bool,
}

impl Plan {
    /// Check `args`: the strategy, the corpora (none named twice) and the part.
    fn new(args: Args) -> anyhow::Result<Plan> {
        if args.old_solutions {
            bail!(
                "check's --solutions is now --solve (--solutions names how many solutions \
                 generate gives its puzzles)"
            );
        }
        if !args.solve && !args.solvers.is_empty() {
            bail!(
                "check solves only with --solve: without it a --solver would not be \
                 used (add --solve, or drop --solver)"
            );
        }
        if !args.solve && args.timeout.get().is_some() {
            bail!("check solves only with --solve: without it --timeout bounds nothing (add --solve, or drop --timeout)");
        }
        let timeout = args.timeout.get();
        let solver = args
            .solvers
            .one(args.strategy.as_deref(), "check", timeout)?;
        let read_as = args.input.read_as()?;
        outputs::check(&args.corpora, Vec::new())?;
        Ok(Plan {
            shard: args.shard.resolve()?,
            corpora: args.corpora,
            read_as,
            solver,
            solve: args.solve,
            timeout,
            threads: args.threads,
            quiet: args.quiet,
        })
    }

    /// The last line's note on how solutions were checked.
    fn what(&self) -> String {
        if self.solve {
            format!("solutions checked with {}", self.solver.described())
        } else {
            "solutions not searched".to_string()
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // Before the solver is loaded: it may signal sudoku-bench as it starts.
    let stop = signals::install(signals::stopping(
        "printing the faults found",
        !args.solvers.is_empty(),
        args.timeout.get(),
    ))?;
    let plan = Plan::new(args)?;
    let (mut corpora, total_bytes) =
        open_corpora(&plan.corpora, &plan.read_as, plan.shard, plan.quiet)?;
    let mut check = Check::new(&plan, total_bytes)?;
    if let Some(c) = check.classifier.as_mut() {
        c.stop_when(stop.clone());
    }
    // The corpus the check stopped in, and its entries read but not checked.
    let mut stopped_in = None;
    for (index, corpus) in corpora.iter_mut().enumerate() {
        if let Some(unchecked) = check.corpus(corpus, &stop)? {
            stopped_in = Some((index, unchecked));
            break;
        }
    }
    check.out.flush().context("cannot write to stdout")?;
    check.progress.finish();
    let interrupted = stop.cause().map(|signal| {
        let left = count_or_unknown(not_reached(&mut corpora, stopped_in));
        (signal, left)
    });
    Ok(check.tally.ending(&plan, interrupted))
}

/// The check at work: the classifier (with `--solve`), the batch being checked, and
/// where its faults are said.
struct Check {
    classifier: Option<Classifier>,
    /// The solver's name, for its wrong answers.
    solver: String,
    progress: Progress,
    /// Stdout, a line per fault.
    out: io::BufWriter<io::StdoutLock<'static>>,
    chunk: Chunk,
    verdicts: Vec<Classified>,
    /// What each search may spend, for saying why one stopped short.
    limits: Limits,
    tally: CheckCounts,
}

impl Check {
    /// The classifier `plan` asks for, and a progress bar over `total_bytes`.
    fn new(plan: &Plan, total_bytes: Option<u64>) -> anyhow::Result<Check> {
        let limits = Limits {
            timeout: plan.timeout,
            ..Limits::default()
        };
        let classifier = plan
            .solve
            .then(|| {
                Classifier::checked(
                    &plan.solver.info,
                    plan.solver.reference,
                    limits,
                    plan.solver.threads(plan.threads),
                )
            })
            .transpose()?;
        Ok(Check {
            classifier,
            solver: plan.solver.info.name.to_string(),
            progress: Progress::new(total_bytes, plan.quiet),
            out: io::BufWriter::new(io::stdout().lock()),
            chunk: Chunk::new(Lines::Entries),
            verdicts: Vec::new(),
            limits,
            tally: CheckCounts::default(),
        })
    }

    /// Check every entry of `corpus`, saying each fault; `Some` with the entries read but
    /// not checked when `stop` came first.
    fn corpus(&mut self, corpus: &mut Corpus, stop: &Stop) -> anyhow::Result<Option<u64>> {
        corpus.stop_on(stop.cell());
        loop {
            if stop.requested() {
                return Ok(Some(0));
            }
            // A read error ends this corpus like its end does.
            let n = match corpus.read_chunk(&mut self.chunk, CHUNK) {
                Ok(n) => n,
                Err(LoadError::Stopped { .. }) => return Ok(Some(0)),
                Err(e) => {
                    self.progress.read_failed(e);
                    self.tally.read_failures += 1;
                    0
                }
            };
            if n == 0 {
                break;
            }
            let records = self.chunk.records();
            let checked = search(self.classifier.as_ref(), records, &mut self.verdicts);
            for (i, record) in records[..checked].iter().enumerate() {
                self.tally.puzzles += 1;
                // A wrong answer, or a search that stopped short, is the solver's (or the
                // harness's) to answer for, not the corpus's: said apart, column unjudged.
                let unjudged = match self.verdicts.get(i) {
                    Some(Classified {
                        wrong: Some(why), ..
                    }) => {
                        self.tally.wrong += 1;
                        Some(format!("{}: {why}", self.solver))
                    }
                    Some(verdict) => {
                        stopped_short(record, verdict, &self.limits).map(|(why, harness)| {
                            self.tally.stopped += 1;
                            self.tally.harness += u64::from(harness);
                            format!("search stopped short: {why}")
                        })
                    }
                    None => None,
                };
                if let Some(why) = unjudged {
                    self.progress.println(&format!(
                        "error: {}:{}: {why}; its solution column not judged",
                        corpus.name(),
                        record.line,
                    ));
                    continue;
                }
                if let Some((column, reason)) = fault(record, self.verdicts.get(i)) {
                    self.tally.faults += 1;
                    let line = format!("{}:{}:{column}: {reason}", corpus.name(), record.line);
                    // Flushed at once so that the line never tears the progress bar.
                    let out = &mut self.out;
                    self.progress
                        .suspend(|| writeln!(out, "{line}").and_then(|()| out.flush()))
                        .context("cannot write to stdout")?;
                }
            }
            self.progress.advance(checked as u64, corpus.bytes_read());
            if checked < n {
                return Ok(Some((n - checked) as u64));
            }
        }
        self.progress
            .finish_corpus(corpus.size().unwrap_or(corpus.bytes_read()));
        Ok(None)
    }
}

/// What the check counted.
#[derive(Debug, Default)]
struct CheckCounts {
    puzzles: u64,
    faults: u64,
    /// Puzzles the solver answered wrongly (each said on stderr).
    wrong: u64,
    /// Searches that stopped short: a --timeout, or the solver failed (each said on
    /// stderr).
    stopped: u64,
    /// Of those, the ones sudoku-bench itself could not run (it lacked a pipe, a
    /// descriptor, a process): an error of the run, not of the solver.
    harness: u64,
    /// Corpora that failed while read (each said on stderr).
    read_failures: u64,
}

impl CheckCounts {
    /// Say the last line and choose the exit: stopped by a signal (`interrupted`: it, and
    /// the puzzles not reached), failed to read a corpus, or found faults.
    fn ending(&self, plan: &Plan, interrupted: Option<(usize, String)>) -> Exit {
        let CheckCounts {
            puzzles,
            faults,
            wrong,
            stopped,
            harness,
            read_failures,
        } = self;
        let what = plan.what();
        // The puzzles whose columns were not judged: answered wrongly, or not searched to
        // the end.
        let mut unjudged = match wrong {
            0 => String::new(),
            n => format!(
                "; {n} wrong answers from {} (errors above): those columns not judged",
                plan.solver.info.name
            ),
        };
        match stopped {
            0 => {}
            1 => unjudged.push_str("; 1 search stopped short (error above): its column not judged"),
            n => unjudged.push_str(&format!(
                "; {n} searches stopped short (errors above): those columns not judged"
            )),
        }
        let unread = match read_failures {
            0 => String::new(),
            n => format!("; {n} read errors (above): those corpora were not read to the end"),
        };
        if let Some((signal, left)) = interrupted {
            stderr_line!(
                "check: interrupted by {}: {puzzles} puzzle lines checked, {faults} faulty so \
                 far, {left} not reached ({what}){unjudged}{unread}",
                signals::name(signal)
            );
            return Exit::Stopped(signal);
        }
        if *faults == 0 {
            stderr_line!("check: {puzzles} puzzle lines, no faults ({what}){unjudged}{unread}");
        } else {
            stderr_line!(
                "check: {puzzles} puzzle lines, {faults} faulty ({what}){unjudged}{unread}"
            );
        }
        if *read_failures > 0 || *harness > 0 {
            Exit::Error
        } else {
            Exit::failure_if(*faults > 0 || *wrong > 0 || *stopped > 0)
        }
    }
}

/// Whether `record` needs a search: only puzzles with a solution column do.
fn searched(record: &Record) -> bool {
    matches!(
        record.kind,
        Kind::Puzzle {
            expected: Some(_),
            ..
        }
    )
}

/// Search `records` with `classifier`, when there is one and any record needs it, into
/// `verdicts`; how many records are checked: on a stop, only those before the first one
/// not searched.
fn search(
    classifier: Option<&Classifier>,
    records: &[Record],
    verdicts: &mut Vec<Classified>,
) -> usize {
    match classifier {
        Some(c) if records.iter().any(searched) => c.classify(records, verdicts),
        _ => {
            verdicts.clear();
            records.len()
        }
    }
}

/// Why the search of a puzzle with a solution column stopped before its count was settled
/// (a --timeout, the solver failed, or sudoku-bench could not run it: then `true`), if it
/// did.
fn stopped_short(record: &Record, verdict: &Classified, limits: &Limits) -> Option<(String, bool)> {
    if !searched(record) {
        return None;
    }
    let outcome = verdict.outcome.as_ref()?;
    let why = outcome.aborted.as_ref()?;
    Some((
        abort_reason(why, outcome, limits),
        matches!(why, Abort::Harness(_)),
    ))
}

/// What is wrong with `record` (its `verdict`, when searched), if anything: the column
/// and why.
fn fault(record: &Record, verdict: Option<&Classified>) -> Option<(usize, String)> {
    match &record.kind {
        Kind::Invalid { reason, column, .. } | Kind::Malformed { reason, column } => {
            Some((*column, reason.clone()))
        }
        Kind::Puzzle {
            grid,
            expected: Some(expected),
        } => verdict
            .and_then(|v| solution_fault(v, grid, expected))
            .map(|why| (1, why)),
        _ => None,
    }
}

/// Why a puzzle's solution column is wrong, if it is.
fn solution_fault(
    verdict: &Classified,
    puzzle: &sudoku_bench::Grid,
    expected: &sudoku_bench::Grid,
) -> Option<String> {
    let outcome = verdict.outcome.as_ref()?;
    // A solver may count without returning its solution (a C-ABI one, below a limit of
    // 1): then a column that solves a puzzle with one solution is that solution.
    let right = match &outcome.first {
        Some(found) => found == expected,
        None => expected.is_solution_of(puzzle),
    };
    match verdict.status? {
        Status::Unique if right => None,
        Status::Unique => Some("solution column is not the puzzle's one solution".into()),
        Status::Multiple => Some(
            "puzzle has more than one solution, so its solution column is not the solution".into(),
        ),
        Status::Unsolvable => Some("puzzle has no solution, yet a solution column".into()),
        // Not the corpus's fault: said apart, as the solver's (see `stopped_short`).
        Status::Aborted => None,
        _ => None,
    }
}
