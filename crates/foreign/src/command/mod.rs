//! `cmd:` solvers: any program that speaks a line protocol over its stdin and stdout.
//!
//! Each worker thread starts its own copy of the command (on its first puzzle) and, per
//! puzzle, writes `PUZZLE LIMIT` (81 characters, `.` for a blank, a space, the limit) and
//! reads back `COUNT SOLUTION GUESSES` (the solutions found up to the limit; the first as 81
//! digits or `-`; the guesses made or `-`). The time of a puzzle is that round trip, so
//! [`CommandLine::probe`] measures what a trivial exchange costs, for the summary to state.
//!
//! Every copy's first request is the probe's solved grid at limit 1, sent without an id.
//!
//! # Answers matched to their requests
//!
//! A line is an answer only to the request it is read after, so a copy that writes one
//! line too many gives each later puzzle the answer of the one before; with counts only,
//! nothing in such an answer gives it away. Two ways keep every row right or failed:
//!
//! - Request ids, for a solver that asks: its first answer ends with a fourth field, `id`.
//!   Every later request is then `PUZZLE LIMIT ID` (ID a number, new for each request)
//!   and every answer must end with that ID; an answer with another fails its puzzle.
//! - Without ids, a batch of puzzles (a runner's task, `PUZZLES_PER_BATCH` of them) is
//!   what can be vouched for: output that no request asked for, seen before a request is written or
//!   after an answer, fails every row the copy answered in the batch; and the batch ends
//!   with a request no puzzle's answer can pass for, the empty grid at one more than the
//!   run's limit (`Copy::in_step`), whose answer must count that many: were the copy a
//!   line behind, what it says then is an earlier puzzle's answer, and every row it gave
//!   in the batch fails. That check is untimed and outside every row. (A copy that writes
//!   a line too many and later drops one can still pass; one that fails before the check,
//!   a timeout or a crash, leaves the rows before its failure as they were: ids close both.)
//!
//! # Failures, and what is timed
//!
//! A solver that says nothing within the run's timeout is killed (`Abort::Timeout`, timed
//! at the limit); one that exits, closes its stdout, or answers what cannot be read, is
//! killed too (`Abort::Failed`, saying how it ended, or quoting what it said). Each
//! exchange is timed alone: killing a copy, starting the next one (before the next puzzle)
//! and the check that ends a batch are in no row's time. Dropping the strategy kills and
//! reaps its copy, with every process of its group; under the binary a guard process
//! does it too when sudoku-bench ends without dropping it (see `process`).

mod answer;
mod counted;
pub(crate) mod guard;
mod process;

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use answer::{quote, Answer};
use counted::Counter;
use process::{Fault, Process};

use super::StartError;
use sudoku_bench_core::clock::{Clock, Cost, MonotonicClock};
use sudoku_bench_core::grid::Grid;
use sudoku_bench_core::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo, Usage};

/// A solved grid: the probe's puzzle, whose only solution is itself.
const SOLVED: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// Timed exchanges in a probe (after one untimed, which may include the start-up).
const PROBE_ROUNDS: usize = 31;

/// The least time a copy is given to start and answer its first exchange. Start-up (an
/// interpreter, a JIT, tables loaded) is not a solve: bounded by a puzzle's `--timeout`,
/// a solver that is not native could not be used with a short one at all.
const START_UP: Duration = Duration::from_secs(10);

/// What bounds a copy's start-up, given the run's timeout (`None`: no bound).
fn start_up(timeout: Option<Duration>) -> Option<Duration> {
    timeout.map(|t| t.max(START_UP))
}

/// Whether `program` is an interpreter that, given no arguments, reads its program from
/// stdin (where the protocol's lines go).
fn is_interpreter(program: &str) -> bool {
    let name = std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        base,
        "python"
            | "pypy"
            | "node"
            | "ruby"
            | "perl"
            | "php"
            | "lua"
            | "julia"
            | "Rscript"
            | "sh"
            | "bash"
            | "dash"
            | "zsh"
            | "ksh"
            | "guile"
            | "racket"
            | "ocaml"
            | "ghci"
    )
}

/// Why a command cannot be used as a solver.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Nothing after `cmd:`.
    #[error("no command after `cmd:`")]
    Empty,
    /// An interpreter with no program to run: it would read one from the protocol's lines
    /// and never answer. The usual cause is a spec the shell split.
    #[error(
        "`{program}` alone reads its program from stdin and never answers: give the script \
         after it, quoting the whole spec so the shell keeps it in one argument (--solver \
         'NAME=cmd:{program} SCRIPT'); unquoted, the script becomes a corpus"
    )]
    NoScript {
        /// The interpreter, as given.
        program: String,
    },
    /// The command line cannot be split into words like a shell would.
    #[error("cannot split {0:?} into words: a quote is not closed, or it ends in a backslash")]
    Split(String),
    /// The program could not be started.
    #[error("cannot start `{command}`")]
    Start {
        /// The command line, as given.
        command: String,
        /// Why the operating system refused.
        #[source]
        source: io::Error,
    },
    /// It started, but did not answer the probe's requests as the protocol says.
    #[error("`{command}` does not speak the protocol: {reason}")]
    Probe {
        /// The command line, as given.
        command: String,
        /// What it was given and what went wrong, quoting its answer.
        reason: String,
    },
}

/// A `cmd:` solver's command line, split into a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The solver's name, for what is said of its processes (the command line until
    /// [`CommandLine::named`]).
    name: Arc<str>,
    command: String,
    program: String,
    args: Vec<String>,
    /// The bound on each copy's address space, in bytes.
    memory_limit: Option<u64>,
}

/// What a probe of a command found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The median time of a trivial exchange: the pipe's and the solver's own overhead,
    /// which every puzzle's time includes.
    pub round_trip: Duration,
    /// Whether it reports its guesses (a number rather than `-`).
    pub counts_guesses: bool,
}

impl CommandLine {
    /// The text after `cmd:`: a program and its arguments, split like a shell would split
    /// them (quotes, backslashes), though no shell is involved: a kill reaches the solver
    /// itself.
    pub fn parse(command: &str) -> Result<CommandLine, CommandError> {
        let words = shlex::split(command).ok_or_else(|| CommandError::Split(command.into()))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or(CommandError::Empty)?;
        let args: Vec<String> = words.collect();
        if args.is_empty() && is_interpreter(&program) {
            return Err(CommandError::NoScript { program });
        }
        Ok(CommandLine {
            name: Arc::from(command.trim()),
            command: command.trim().to_string(),
            program,
            args,
            memory_limit: None,
        })
    }

    /// Each copy's address space bounded to `limit` bytes (`None`: unbounded).
    pub fn memory_limit(self, limit: Option<u64>) -> CommandLine {
        CommandLine {
            memory_limit: limit,
            ..self
        }
    }

    /// Its processes started for the solver `name`.
    pub fn named(self, name: &str) -> CommandLine {
        CommandLine {
            name: Arc::from(name),
            ..self
        }
    }

    /// The command line, as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Start the command and time a trivial exchange (a solved grid, limit 1) a number of
    /// times, checking every answer; `timeout` bounds each timed exchange, and the first
    /// (the start-up) with at least the start-up allowance, `START_UP` (`None`: no bound).
    /// A solver without request ids is then given the check that ends each batch once,
    /// so that one that cannot answer it is refused here rather than failing every row.
    pub fn probe(&self, timeout: Option<Duration>) -> Result<Probe, CommandError> {
        // Each request says what it gave: the in-step check below gives something else.
        let fail = |reason: String| CommandError::Probe {
            command: self.command.clone(),
            reason: format!("given a solved grid and limit 1, it {reason}"),
        };
        let process = Process::start(&self.name, &self.program, &self.args, self.memory_limit)
            .map_err(|source| CommandError::Start {
                command: self.command.clone(),
                source,
            })?;
        let (mut copy, counts_guesses) =
            Copy::first(process, start_up(timeout)).map_err(|(why, _)| fail(why))?;
        let mut request = Vec::with_capacity(REQUEST_BYTES);
        let mut times = Vec::with_capacity(PROBE_ROUNDS);
        for _ in 0..PROBE_ROUNDS {
            let start = Instant::now();
            let counts = copy.solved(&mut request, timeout).map_err(fail)?;
            times.push(start.elapsed());
            if counts != counts_guesses {
                return Err(fail(
                    "gave guesses in some answers and `-` in others".to_string(),
                ));
            }
        }
        if copy.next_id.is_none() {
            copy.in_step(&mut request, SYNC_PROBE_LIMIT, start_up(timeout))
                .map_err(|why| CommandError::Probe {
                    command: self.command.clone(),
                    reason: why,
                })?;
        }
        times.sort_unstable();
        Ok(Probe {
            round_trip: times[times.len() / 2],
            counts_guesses,
        })
    }

    /// The strategy `name`: each worker thread's value runs its own copy of the command.
    /// `timeout`, the run's, bounds each puzzle, and the start-up of a copy (its first
    /// exchange) with at least the start-up allowance, `START_UP`.
    pub fn info(&self, name: &str, probe: &Probe, timeout: Option<Duration>) -> StrategyInfo {
        let spec = Arc::new(self.clone());
        let counts_guesses = probe.counts_guesses;
        StrategyInfo::new(name.to_string(), move || {
            Box::new(CommandSolver::new(
                Arc::clone(&spec),
                counts_guesses,
                timeout,
            ))
        })
        .about(format!(
            "the command `{}`, one line each way per puzzle over a pipe",
            self.command
        ))
        .counts_guesses(counts_guesses)
        .puzzles_per_task(PUZZLES_PER_BATCH)
    }
}

/// Puzzles given to a `cmd:` solver at once: each batch ends with an exchange that checks
/// the copy is in step (see [`Copy::in_step`]), so a larger batch spreads its cost, and
/// one small enough that Ctrl-C, which waits for the batches in flight, still stops soon.
const PUZZLES_PER_BATCH: usize = 32;

/// A request's length: 81 cells, the limit and the id with their spaces, and the newline.
const REQUEST_BYTES: usize = 81 + 1 + 10 + 1 + 20 + 1;

/// The limit of the in-step check a probe makes: that of the default `--max-solutions`.
const SYNC_PROBE_LIMIT: u32 = 3;

/// The empty grid: the in-step check's puzzle, which has more solutions than any limit.
const EMPTY: [u8; 81] = [b'.'; 81];

/// One worker's copy of the command, restarted whenever it fails.
struct CommandSolver {
    spec: Arc<CommandLine>,
    counts_guesses: bool,
    /// The running copy; `None` once one failed, until the next puzzle starts another;
    /// `Err` when that could not be done (every puzzle then fails, saying why, or the run
    /// ends when sudoku-bench itself lacked what it takes).
    copy: Option<Result<Copy, StartError>>,
    request: Vec<u8>,
    /// What the copies that ended used, and how many there were.
    used: Usage,
}

impl CommandSolver {
    /// Started here, on the worker's first use and outside any timed solve, so that no
    /// puzzle's time includes the program's start-up.
    fn new(
        spec: Arc<CommandLine>,
        counts_guesses: bool,
        timeout: Option<Duration>,
    ) -> CommandSolver {
        let mut solver = CommandSolver {
            spec,
            counts_guesses,
            copy: None,
            request: Vec::with_capacity(REQUEST_BYTES),
            used: Usage::default(),
        };
        solver.copy = Some(solver.start(timeout));
        solver
    }

    /// A copy that has answered the probe's exchange once (so it is ready), or why not.
    fn start(&mut self, timeout: Option<Duration>) -> Result<Copy, StartError> {
        let limit = self.spec.memory_limit;
        // Nothing ran: nothing to count.
        let process = Process::start(&self.spec.name, &self.spec.program, &self.spec.args, limit)
            .map_err(|e| StartError::of_start("cannot start it", &e, limit))?;
        Copy::first(process, start_up(timeout))
            .map(|(copy, _)| copy)
            .map_err(|(why, used)| {
                self.used = self.used.merged(used);
                StartError::Solver(format!("given a solved grid, it {why}"))
            })
    }

    /// Kill the copy (whatever state it is in, it is not to be trusted with the next
    /// puzzle), counting what it used; the next puzzle starts another.
    fn retire(&mut self) {
        if let Some(Ok(mut copy)) = self.copy.take() {
            copy.process.end();
            self.used = self.used.merged(copy.process.usage());
        }
    }

    /// The outcome of an answer line, or why it is not one.
    fn outcome(&self, copy: &Copy, line: &[u8], limits: &Limits) -> Result<Outcome, Fault> {
        let answer = Answer::parse(line, limits.max_solutions, copy.sent_id).map_err(Fault::Bad)?;
        if self.counts_guesses && answer.guesses.is_none() {
            return Err(Fault::Bad(format!(
                "answered {}: GUESSES is `-`, though it counted them when probed",
                quote(line)
            )));
        }
        Ok(Outcome {
            solutions: answer.count,
            first: answer.solution,
            nodes: 0,
            guesses: answer.guesses.unwrap_or(0),
            aborted: None,
        })
    }

    /// Charge the last puzzle of `batch` (the rows since the copy was last known to be in
    /// step), whose exchange took `ns`, with `fault`, and retire the copy. Without `ids`,
    /// a line the copy was not asked for puts the batch's earlier answers in doubt.
    fn charge(
        &mut self,
        fault: Fault,
        ns: u64,
        limits: &Limits,
        (batch, ids): (&mut [Option<(Outcome, Cost)>], bool),
    ) {
        let Some((last, earlier)) = batch.split_last_mut() else {
            return;
        };
        let why = match fault {
            // Past the limit is the kill, not the solve.
            Fault::Timeout => {
                let limit = limits.timeout.map(|t| t.as_nanos());
                let ns = limit.map_or(ns, |t| u64::try_from(t).unwrap_or(u64::MAX));
                *last = Some((aborted(Abort::Timeout), Cost::of_ns(ns)));
                self.retire();
                return;
            }
            Fault::Closed(said) => match &mut self.copy {
                Some(Ok(copy)) => copy.process.closed(said.as_deref()),
                _ => "closed its stdout".to_string(),
            },
            // With ids, each earlier answer was matched by its own.
            Fault::Unasked(why) => {
                if !ids {
                    distrust(earlier, &format!("later in its batch, it {why}"));
                }
                why
            }
            Fault::Bad(why) => why,
        };
        *last = Some((failed(why), Cost::of_ns(ns)));
        self.retire();
    }

    /// After a batch of `n` puzzles whose rows from `since` on the running copy answered:
    /// without ids, an answer a line behind is a well-formed answer, so only a request
    /// whose answer no puzzle's can be tells that the copy is in step. When it is not,
    /// those rows are put in doubt and the copy retired.
    fn check_in_step(
        &mut self,
        since: usize,
        n: usize,
        limits: &Limits,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        let Some(Ok(copy)) = &mut self.copy else {
            return;
        };
        let answered = since < n.min(out.len());
        let check = limits.max_solutions.checked_add(1);
        if let (true, None, Some(limit)) = (answered, copy.next_id, check) {
            let within = start_up(limits.timeout);
            if let Err(why) = copy.in_step(&mut self.request, limit, within) {
                distrust(&mut out[since..], &format!("after its batch, {why}"));
                self.retire();
            }
        }
    }
}

impl Strategy for CommandSolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut out = [None];
        let clock = MonotonicClock::default();
        self.solve_batch(std::slice::from_ref(puzzle), limits, &clock, &mut out);
        let [slot] = out;
        slot.map_or_else(
            || failed("was not asked".to_string()),
            |(outcome, _)| outcome,
        )
    }

    /// Each exchange is timed alone: starting a copy, killing a failed one and the check
    /// that ends the batch happen between the timings.
    fn solve_batch(
        &mut self,
        puzzles: &[Grid],
        limits: &Limits,
        clock: &dyn Clock,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        // The first of the rows the running copy answered in this batch: none of them is
        // known yet to be in step with its request.
        let mut since = 0;
        for (i, puzzle) in puzzles.iter().enumerate().take(out.len()) {
            if self.copy.is_none() {
                self.copy = Some(self.start(limits.timeout));
                since = i;
            }
            let copy = match &mut self.copy {
                Some(Ok(copy)) => copy,
                Some(Err(e)) => {
                    let why = format!("cannot restart `{}`: {e}", self.spec.command);
                    out[i] = Some((e.outcome(why), Cost::default()));
                    continue;
                }
                None => continue,
            };
            let mut dotted = [0u8; 81];
            puzzle.write_dotted(&mut dotted);
            copy.request(&mut self.request, &dotted, limits.max_solutions);
            if let Some(counter) = &mut copy.counter {
                counter.skip();
            }
            let mut exchanged = None;
            let request = &self.request;
            let (_, cost) = clock.time(&mut || {
                exchanged = Some(copy.process.exchange(request, limits.timeout));
                // The outcome is read from the line after the timing.
                failed(String::new())
            });
            // The time only: what a counting clock counts here is this side of the
            // exchange; the solver's process counts its own.
            let ns = cost.ns;
            let answered = exchanged.as_ref().is_some_and(Result::is_ok);
            let instructions = match &mut self.copy {
                Some(Ok(Copy {
                    counter: Some(counter),
                    ..
                })) if answered => counter.take(),
                _ => None,
            };
            let Some(Ok(copy)) = &self.copy else {
                continue;
            };
            let ids = copy.next_id.is_some();
            let result = exchanged
                .unwrap_or(Err(Fault::Bad("was not asked".to_string())))
                .and_then(|line| self.outcome(copy, &line, limits));
            let fault = match result {
                Ok(outcome) => {
                    out[i] = Some((outcome, Cost { ns, instructions }));
                    continue;
                }
                Err(fault) => fault,
            };
            self.charge(fault, ns, limits, (&mut out[since..=i], ids));
        }
        self.check_in_step(since, puzzles.len(), limits, out);
    }

    fn usage(&self) -> Option<Usage> {
        let running = match &self.copy {
            Some(Ok(copy)) => copy.process.usage(),
            _ => Usage::default(),
        };
        Some(self.used.merged(running))
    }
}

/// A failed search, saying why.
fn failed(why: String) -> Outcome {
    aborted(Abort::Failed(why))
}

fn aborted(abort: Abort) -> Outcome {
    Outcome {
        solutions: 0,
        first: None,
        nodes: 0,
        guesses: 0,
        aborted: Some(abort),
    }
}

/// Fail the answered rows of `rows`: their answers may be other puzzles', for the reason
/// `later` gives. Rows that failed already keep their own reason.
fn distrust(rows: &mut [Option<(Outcome, Cost)>], later: &str) {
    for (outcome, cost) in rows.iter_mut().flatten() {
        if outcome.aborted.is_none() {
            *outcome = failed(format!("its answer may be another puzzle's: {later}"));
            // Its count may be another request's too.
            cost.instructions = None;
        }
    }
}

/// A running copy that has answered its first request.
struct Copy {
    process: Process,
    /// When it asked for request ids, the next one to send.
    next_id: Option<u64>,
    /// The id of the request last sent, when it has ids.
    sent_id: Option<u64>,
    /// Its instructions per request, when the run counts them.
    counter: Option<Counter>,
}

impl Copy {
    /// Give a started `process` its first request (a solved grid, limit 1, no id), within
    /// `timeout`: the copy, and whether it counts guesses. `Err`: what is wrong, as the end
    /// of a sentence that starts with the solver, and what the process used, now ended.
    fn first(process: Process, timeout: Option<Duration>) -> Result<(Copy, bool), (String, Usage)> {
        let counter = Counter::of(process.id());
        let mut copy = Copy {
            process,
            next_id: None,
            sent_id: None,
            counter,
        };
        let request = format!("{SOLVED} 1\n");
        let first = copy
            .process
            .exchange(request.as_bytes(), timeout)
            .map_err(|fault| copy.said(fault, timeout))
            .and_then(|line| {
                let (answer, ids) = Answer::parse_first(&line, 1)?;
                is_solved_grid(&answer, &line).map(|()| (answer.guesses.is_some(), ids))
            });
        match first {
            Ok((counts_guesses, ids)) => {
                copy.next_id = ids.then_some(1);
                Ok((copy, counts_guesses))
            }
            Err(why) => {
                copy.process.end();
                Err((why, copy.process.usage()))
            }
        }
    }

    /// Write into `request` the line for `dotted` and `limit`, with the next id if the
    /// copy has ids.
    fn request(&mut self, request: &mut Vec<u8>, dotted: &[u8; 81], limit: u32) {
        request.clear();
        request.extend_from_slice(dotted);
        // Writing to a Vec cannot fail.
        let _ = write!(request, " {limit}");
        self.sent_id = self.next_id;
        if let Some(id) = self.next_id {
            let _ = write!(request, " {id}");
            self.next_id = Some(id.wrapping_add(1));
        }
        request.push(b'\n');
    }

    /// One more exchange of the probe's: whether the answer gives guesses, or what is
    /// wrong.
    fn solved(&mut self, request: &mut Vec<u8>, timeout: Option<Duration>) -> Result<bool, String> {
        let mut dotted = [0u8; 81];
        dotted.copy_from_slice(SOLVED.as_bytes());
        self.request(request, &dotted, 1);
        let line = self
            .process
            .exchange(request, timeout)
            .map_err(|fault| self.said(fault, timeout))?;
        let answer = Answer::parse(&line, 1, self.sent_id)?;
        is_solved_grid(&answer, &line).map(|()| answer.guesses.is_some())
    }

    /// Whether the copy's answers are in step with its requests: given the empty grid
    /// and `limit`, one above the run's, it must count `limit` solutions, which no answer
    /// to a puzzle of the run may do. Were the copy behind by a line, what it says now is
    /// an answer to an earlier puzzle, and no such answer counts `limit`. `Err`: what it
    /// said instead, as the end of a sentence that starts with the solver.
    fn in_step(
        &mut self,
        request: &mut Vec<u8>,
        limit: u32,
        timeout: Option<Duration>,
    ) -> Result<(), String> {
        self.request(request, &EMPTY, limit);
        let asked = format!(
            "given the empty grid and limit {limit} to check that its answers are in step \
             with the puzzles"
        );
        let line = self
            .process
            .exchange(request, timeout)
            .map_err(|fault| format!("{asked}, it {}", self.said(fault, timeout)))?;
        let answer = Answer::parse(&line, limit, self.sent_id)
            .map_err(|why| format!("{asked}, it {why}"))?;
        let empty = Grid::EMPTY;
        let solves = answer.solution.is_none_or(|s| s.is_solution_of(&empty));
        if answer.count != limit || !solves {
            return Err(format!(
                "{asked}, it answered {}, not `{limit} SOLUTION GUESSES` (a SOLUTION of the \
                 empty grid, or `-`)",
                quote(&line)
            ));
        }
        Ok(())
    }

    /// What went wrong with an exchange outside a puzzle's solve, as the end of a
    /// sentence that starts with the solver.
    fn said(&mut self, fault: Fault, timeout: Option<Duration>) -> String {
        match fault {
            Fault::Timeout => {
                let within =
                    timeout.map_or("time".into(), |t| humantime::format_duration(t).to_string());
                format!("did not answer within {within} (does it flush stdout after each line?)")
            }
            Fault::Closed(said) => self.process.closed(said.as_deref()),
            Fault::Unasked(why) | Fault::Bad(why) => why,
        }
    }
}

/// `Ok` when `answer` (to `line`) is the one of the probe's solved grid.
fn is_solved_grid(answer: &Answer, line: &[u8]) -> Result<(), String> {
    if answer.count != 1 || answer.solution.is_some_and(|s| s.to_dotted() != SOLVED) {
        return Err(format!(
            "answered {}, not `1 {SOLVED} GUESSES` (or `1 - GUESSES`)",
            quote(line)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
