//! `cmd:` solvers: any program that speaks a line protocol over its stdin and stdout.
//!
//! Each worker thread starts its own copy of the command (on its first puzzle) and, per
//! puzzle, writes `PUZZLE LIMIT` (81 characters, `.` for a blank, a space, the limit) and
//! reads back `COUNT SOLUTION GUESSES` (the solutions found up to the limit; the first as 81
//! digits or `-`; the guesses made or `-`). The time of a puzzle is that round trip, so
//! [`CommandLine::probe`] measures what a trivial exchange costs, for the summary to state.
//!
//! A solver that says nothing within the run's timeout is killed (`Abort::Timeout`); one
//! that exits, or answers what cannot be read, is killed too (`Abort::Failed`, quoting what
//! it said). Either way a fresh copy is started at once, inside the failed puzzle's solve,
//! so that its start-up is charged to the puzzle that failed rather than to the next one.
//! Dropping the strategy kills and reaps its copy.

mod answer;
mod process;

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use answer::{quote, Answer};
use process::{ended, Fault, Process};

use crate::grid::Grid;
use crate::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};

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

/// Why a command cannot be used as a solver.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Nothing after `cmd:`.
    #[error("no command after `cmd:`")]
    Empty,
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
    /// It started, but did not answer a solved grid as the protocol says.
    #[error(
        "`{command}` does not speak the protocol: given a solved grid and limit 1, it {reason}"
    )]
    Probe {
        /// The command line, as given.
        command: String,
        /// What went wrong, quoting its answer.
        reason: String,
    },
}

/// A `cmd:` solver's command line, split into a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    command: String,
    program: String,
    args: Vec<String>,
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
        Ok(CommandLine {
            command: command.trim().to_string(),
            program,
            args: words.collect(),
        })
    }

    /// The command line, as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Start the command and time a trivial exchange (a solved grid, limit 1) a number of
    /// times, checking every answer; `timeout` bounds each timed exchange, and the first
    /// (the start-up) with at least the start-up allowance, `START_UP` (`None`: no bound).
    pub fn probe(&self, timeout: Option<Duration>) -> Result<Probe, CommandError> {
        let fail = |reason: String| CommandError::Probe {
            command: self.command.clone(),
            reason,
        };
        let mut process =
            Process::start(&self.program, &self.args).map_err(|source| CommandError::Start {
                command: self.command.clone(),
                source,
            })?;
        let counts_guesses = check(&mut process, start_up(timeout)).map_err(fail)?;
        let mut times = Vec::with_capacity(PROBE_ROUNDS);
        for _ in 0..PROBE_ROUNDS {
            let start = Instant::now();
            let counts = check(&mut process, timeout).map_err(fail)?;
            times.push(start.elapsed());
            if counts != counts_guesses {
                return Err(fail(
                    "gave guesses in some answers and `-` in others".to_string(),
                ));
            }
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
    }
}

/// One worker's copy of the command, restarted whenever it fails.
struct CommandSolver {
    spec: Arc<CommandLine>,
    counts_guesses: bool,
    process: Result<Process, String>,
    request: Vec<u8>,
}

impl CommandSolver {
    /// Started here, on the worker's first use and outside any timed solve, so that no
    /// puzzle's time includes the program's start-up.
    fn new(
        spec: Arc<CommandLine>,
        counts_guesses: bool,
        timeout: Option<Duration>,
    ) -> CommandSolver {
        let process = started(&spec, timeout);
        CommandSolver {
            spec,
            counts_guesses,
            process,
            request: Vec::with_capacity(84),
        }
    }

    /// The outcome of one exchange; `Err` when the copy must be replaced.
    fn ask(&mut self, puzzle: &Grid, limits: &Limits) -> Result<Outcome, Abort> {
        let process = self.process.as_mut().map_err(|why| {
            Abort::Failed(format!("cannot restart `{}`: {why}", self.spec.command))
        })?;
        let mut dotted = [0u8; 81];
        puzzle.write_dotted(&mut dotted);
        self.request.clear();
        self.request.extend_from_slice(&dotted);
        // Writing to a Vec cannot fail.
        let _ = writeln!(self.request, " {}", limits.max_solutions);
        let line = match process.exchange(&self.request, limits.timeout) {
            Ok(line) => line,
            Err(Fault::Timeout) => return Err(Abort::Timeout),
            Err(Fault::Closed) => {
                let how = process.end();
                return Err(Abort::Failed(format!("{} before answering", ended(how))));
            }
            Err(Fault::Bad(why)) => return Err(Abort::Failed(why)),
        };
        let answer = Answer::parse(&line, limits.max_solutions).map_err(Abort::Failed)?;
        if self.counts_guesses && answer.guesses.is_none() {
            return Err(Abort::Failed(format!(
                "answered {}: GUESSES is `-`, though it counted them when probed",
                quote(&line)
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
}

impl Strategy for CommandSolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        match self.ask(puzzle, limits) {
            Ok(outcome) => outcome,
            Err(abort) => {
                // Whatever state it is in, it is not to be trusted with the next puzzle.
                if let Ok(process) = &mut self.process {
                    process.end();
                }
                self.process = started(&self.spec, limits.timeout);
                Outcome {
                    solutions: 0,
                    first: None,
                    nodes: 0,
                    guesses: 0,
                    aborted: Some(abort),
                }
            }
        }
    }
}

/// A copy that has answered the probe's exchange once (so it is ready), or why not.
fn started(spec: &CommandLine, timeout: Option<Duration>) -> Result<Process, String> {
    let mut process = Process::start(&spec.program, &spec.args).map_err(|e| e.to_string())?;
    match check(&mut process, start_up(timeout)) {
        Ok(_) => Ok(process),
        Err(why) => {
            process.end();
            Err(format!("given a solved grid, it {why}"))
        }
    }
}

/// One probe exchange: whether the answer gives guesses, or what is wrong, as the end
/// of a sentence that starts with the solver.
fn check(process: &mut Process, timeout: Option<Duration>) -> Result<bool, String> {
    let line = match process.exchange(format!("{SOLVED} 1\n").as_bytes(), timeout) {
        Ok(line) => line,
        Err(Fault::Timeout) => {
            let within =
                timeout.map_or("time".into(), |t| humantime::format_duration(t).to_string());
            return Err(format!(
                "did not answer within {within} (does it flush stdout after each line?)"
            ));
        }
        Err(Fault::Closed) => {
            let how = process.end();
            return Err(format!("{} before answering", ended(how)));
        }
        Err(Fault::Bad(why)) => return Err(why),
    };
    let answer = Answer::parse(&line, 1)?;
    if answer.count != 1 || answer.solution.is_some_and(|s| s.to_dotted() != SOLVED) {
        return Err(format!(
            "answered {}, not `1 {SOLVED} GUESSES` (or `1 - GUESSES`)",
            quote(&line)
        ));
    }
    Ok(answer.guesses.is_some())
}

#[cfg(test)]
mod tests;
