//! What a run produces: each (puzzle, strategy) as a [`PuzzleResult`] with its [`Status`],
//! handed in input order as a [`Batch`] to each [`Sink`]; the per-puzzle CSV is the one
//! artifact every later command reads ([`csv`] defines it, writes it and reads it back).

pub(crate) mod batch;
pub mod csv;
pub(crate) mod csv_sink;
pub mod sink;
pub(crate) mod writer;

use crate::clock::Cost;
use crate::grid::Grid;
use crate::strategy::{Abort, Limits, Outcome};

pub use batch::Batch;
pub use csv_sink::CsvSink;
pub use sink::Sink;

/// What a run measured of each solve.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Its time (the CSV's `time_ns`).
    #[default]
    Time,
    /// The instructions it executed (the CSV's `instructions`, `run --measure
    /// instructions`).
    Instructions,
}

impl Metric {
    /// Whether it is time (what a summary written before counting existed measured).
    pub const fn is_time(&self) -> bool {
        matches!(self, Metric::Time)
    }

    /// Its name, as the options and the outputs say it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Metric::Time => "time",
            Metric::Instructions => "instructions",
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = String;

    fn from_str(s: &str) -> Result<Metric, String> {
        [Metric::Time, Metric::Instructions]
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("{s:?} is not `time` or `instructions`"))
    }
}

/// What became of one puzzle under one strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// Exactly one solution (the search finished with a limit of 2 or more).
    Unique,
    /// At least two solutions.
    Multiple,
    /// No solution.
    Unsolvable,
    /// A solution was found with `--max-solutions 1`; uniqueness was not checked.
    Solved,
    /// The givens break a rule.
    Invalid,
    /// The line is not a puzzle.
    Malformed,
    /// The search ran out of nodes or time.
    Aborted,
}

impl Status {
    /// Every status, in the order reports list them.
    pub const ALL: [Status; 7] = [
        Status::Unique,
        Status::Multiple,
        Status::Unsolvable,
        Status::Solved,
        Status::Invalid,
        Status::Malformed,
        Status::Aborted,
    ];

    /// The name the CSV and the summary use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Unique => "unique",
            Status::Multiple => "multiple",
            Status::Unsolvable => "unsolvable",
            Status::Solved => "solved",
            Status::Invalid => "invalid",
            Status::Malformed => "malformed",
            Status::Aborted => "aborted",
        }
    }

    /// The status named `name` in the CSV and the summary.
    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether a puzzle with this status was searched: all but an invalid or malformed
    /// line.
    pub const fn searched(self) -> bool {
        !matches!(self, Status::Invalid | Status::Malformed)
    }

    /// The status a finished or aborted search earns under `limits`.
    pub fn of(outcome: &Outcome, limits: &Limits) -> Status {
        match (&outcome.aborted, outcome.solutions) {
            (Some(_), _) => Status::Aborted,
            (None, 0) => Status::Unsolvable,
            (None, _) if limits.max_solutions <= 1 => Status::Solved,
            (None, 1) => Status::Unique,
            (None, _) => Status::Multiple,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a search ended: the per-puzzle CSV's `ended` column. A wrong answer is
/// [`Ending::Mismatch`] whatever else happened, so that one field says whether a row's
/// answer can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// The search ran to its end (or to the limit of solutions) and its answer checked out.
    Finished,
    /// The node budget (`--max-nodes`) ran out.
    NodeBudget,
    /// The time limit (`--timeout`) ran out.
    Timeout,
    /// The solver failed on this puzzle (`Abort::Failed`): it crashed, or answered what
    /// cannot be read. The status is `aborted`.
    Failed,
    /// The answer is wrong: a returned grid that is not a solution, one that differs from
    /// the corpus's, no solution where the corpus gives one, or a count other than the
    /// reference strategy's.
    Mismatch,
}

impl Ending {
    /// Every ending, in the order of the CSV's documentation.
    pub const ALL: [Ending; 5] = [
        Ending::Finished,
        Ending::NodeBudget,
        Ending::Timeout,
        Ending::Failed,
        Ending::Mismatch,
    ];

    /// The name the CSV uses.
    pub const fn as_str(self) -> &'static str {
        match self {
            Ending::Finished => "finished",
            Ending::NodeBudget => "node_budget",
            Ending::Timeout => "timeout",
            Ending::Failed => "failed",
            Ending::Mismatch => "mismatch",
        }
    }

    /// The ending named `name` in the CSV.
    pub fn parse(name: &str) -> Option<Ending> {
        Ending::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Whether a search that ended so gave a wrong answer: the one rule every reader of
    /// results applies.
    pub fn is_wrong(self) -> bool {
        self == Ending::Mismatch
    }

    /// How `outcome`'s search ended, before its answer is checked.
    fn of(outcome: &Outcome) -> Ending {
        match &outcome.aborted {
            None => Ending::Finished,
            Some(Abort::NodeLimit) => Ending::NodeBudget,
            Some(Abort::Timeout) => Ending::Timeout,
            // Never reported (the runner ends the run first); were one, it is no answer.
            Some(Abort::Failed(_) | Abort::Harness(_)) => Ending::Failed,
        }
    }
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One (puzzle, strategy) result. Numbers are `None` where nothing was searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PuzzleResult {
    /// What became of it.
    pub status: Status,
    /// Solutions counted, up to the limit.
    pub solutions: Option<u32>,
    /// Search effort, in the strategy's unit; `None` when it does not count nodes.
    pub nodes: Option<u64>,
    /// `None` when the strategy does not count guesses.
    pub guesses: Option<u64>,
    /// The timed solve (the fastest of `--repeat`).
    pub time_ns: Option<u64>,
    /// The instructions that solve executed (`run --measure instructions`); `None` when
    /// they were not counted.
    pub instructions: Option<u64>,
    /// The first solution the strategy returned.
    pub solution: Option<Grid>,
    /// Why the puzzle is invalid, malformed or aborted, or why the solution is wrong.
    pub error: Option<String>,
    /// How the search ended; `None` where nothing was searched.
    pub ended: Option<Ending>,
    /// The replicate of the run's solvers that solved it (see
    /// [`crate::runner::Settings::replicates`]); `None` in a CSV written before it was kept.
    pub replicate: Option<u32>,
}

impl Default for PuzzleResult {
    fn default() -> Self {
        PuzzleResult {
            status: Status::Malformed,
            solutions: None,
            nodes: None,
            guesses: None,
            time_ns: None,
            instructions: None,
            solution: None,
            error: None,
            ended: None,
            replicate: None,
        }
    }
}

impl PuzzleResult {
    /// A line that was never searched.
    pub fn unsearched(status: Status, reason: &str) -> PuzzleResult {
        PuzzleResult {
            status,
            error: Some(reason.to_string()),
            ..PuzzleResult::default()
        }
    }

    /// The result of a search of `puzzle` that cost `cost`, checked against the corpus's `expected` solution.
    pub fn searched(
        puzzle: &Grid,
        expected: Option<&Grid>,
        outcome: &Outcome,
        cost: Cost,
        limits: &Limits,
        counts_nodes: bool,
        counts_guesses: bool,
    ) -> PuzzleResult {
        let status = Status::of(outcome, limits);
        let mut error = outcome
            .aborted
            .as_ref()
            .map(|why| abort_reason(why, outcome, limits));
        let mut ended = Ending::of(outcome);
        if let Some(found) = &outcome.first {
            if !found.is_solution_of(puzzle) {
                ended = Ending::Mismatch;
                error = Some(format!(
                    "strategy returned {found}, which is not a solution"
                ));
            } else if let Some(expected) = expected {
                // Only a unique solution must equal the corpus's; with several, any will do.
                if status == Status::Unique && found != expected {
                    ended = Ending::Mismatch;
                    error = Some("solution differs from the corpus's solution column".into());
                }
            }
        }
        if expected.is_some() && status == Status::Unsolvable {
            ended = Ending::Mismatch;
            error = Some("no solution found, but the corpus gives one".into());
        }
        PuzzleResult {
            status,
            solutions: Some(outcome.solutions),
            nodes: counts_nodes.then_some(outcome.nodes),
            guesses: counts_guesses.then_some(outcome.guesses),
            time_ns: Some(cost.ns),
            instructions: cost.instructions,
            solution: outcome.first,
            error,
            ended: Some(ended),
            replicate: None,
        }
    }

    /// Whether the solver found solutions but returned none (a C-ABI solver fills one only
    /// for a limit of 1): there was no solution to check.
    pub fn unreturned(&self) -> bool {
        self.solutions.is_some_and(|n| n > 0) && self.solution.is_none()
    }

    /// Whether the answer is wrong: the one rule, [`Ending::is_wrong`].
    pub fn is_wrong(&self) -> bool {
        self.ended.is_some_and(Ending::is_wrong)
    }

    /// Whether the solver failed on this puzzle (see [`Ending::Failed`]).
    pub fn is_failure(&self) -> bool {
        self.ended == Some(Ending::Failed)
    }

    /// Whether the search finished (neither aborted nor unsearched), so its count of
    /// solutions is exact up to the limit.
    pub fn finished(&self) -> bool {
        self.status != Status::Aborted && self.solutions.is_some()
    }

    /// Check this result's count against `reference`'s, the result of strategy
    /// `reference_name` on the same puzzle: when both searches finished and their counts
    /// differ, this one becomes a mismatch (unless it already is one, for a reason that
    /// came first). Returns whether it was found to disagree.
    pub(crate) fn check_count(&mut self, reference: &PuzzleResult, reference_name: &str) -> bool {
        if !(self.finished() && reference.finished()) || self.solutions == reference.solutions {
            return false;
        }
        if !self.is_wrong() {
            self.ended = Some(Ending::Mismatch);
            let plural = |n: u32| if n == 1 { "" } else { "s" };
            let (ours, theirs) = (
                self.solutions.unwrap_or(0),
                reference.solutions.unwrap_or(0),
            );
            self.error = Some(format!(
                "counted {ours} solution{}; the reference ({reference_name}) counted {theirs}",
                plural(ours)
            ));
        }
        true
    }
}

/// Why a search that stopped short (`why`) did, in the words of a row's `error`: the
/// budget that ran out or the solver's failure, and what it had found by then. Every
/// command that reports an aborted search says it with these.
pub fn abort_reason(why: &Abort, outcome: &Outcome, limits: &Limits) -> String {
    let what = match why {
        Abort::NodeLimit => format!("node budget of {} exhausted", limits.max_nodes),
        Abort::Timeout => format!(
            "timed out after {}",
            humantime::format_duration(limits.timeout.unwrap_or_default())
        ),
        Abort::Failed(reason) | Abort::Harness(reason) => reason.clone(),
    };
    match outcome.solutions {
        0 => what,
        1 => format!("{what} after finding 1 solution"),
        n => format!("{what} after finding {n} solutions"),
    }
}
