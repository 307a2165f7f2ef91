//! What a run reports: each (puzzle, strategy) as a `PuzzleResult` with its `Status`, the
//! per-puzzle CSV, the per-corpus, per-strategy `Summary` with its exporters, and the pieces
//! of the HTML reports (`html` pages, `plot` charts).

pub mod csv;
pub mod csv_sink;
pub mod html;
pub mod json;
pub mod noise;
pub mod plot;
pub mod run_file;
pub mod run_report;
pub mod sink;
pub mod summary;
pub mod summary_csv;
pub mod table;
pub mod writer;

use crate::grid::Grid;
use crate::strategy::{Abort, Limits, Outcome};

pub use csv_sink::CsvSink;
pub use sink::Sink;
pub use summary::{Summary, SummaryRow};

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
    /// The first solution the strategy returned.
    pub solution: Option<Grid>,
    /// Why the puzzle is invalid, malformed or aborted, or why the solution is wrong.
    pub error: Option<String>,
    /// The reported solution is not a solution, or contradicts the corpus's own.
    pub mismatch: bool,
    /// The solver failed on this puzzle (`Abort::Failed`): the status is `aborted`.
    pub failed: bool,
}

impl Default for PuzzleResult {
    fn default() -> Self {
        PuzzleResult {
            status: Status::Malformed,
            solutions: None,
            nodes: None,
            guesses: None,
            time_ns: None,
            solution: None,
            error: None,
            mismatch: false,
            failed: false,
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

    /// The result of a search of `puzzle`, checked against the corpus's `expected` solution.
    pub fn searched(
        puzzle: &Grid,
        expected: Option<&Grid>,
        outcome: &Outcome,
        time_ns: u64,
        limits: &Limits,
        counts_nodes: bool,
        counts_guesses: bool,
    ) -> PuzzleResult {
        let status = Status::of(outcome, limits);
        let mut error = outcome
            .aborted
            .as_ref()
            .map(|why| abort_reason(why, outcome, limits));
        let mut mismatch = false;
        if let Some(found) = &outcome.first {
            if !found.is_solution_of(puzzle) {
                mismatch = true;
                error = Some(format!(
                    "strategy returned {found}, which is not a solution"
                ));
            } else if let Some(expected) = expected {
                // Only a unique solution must equal the corpus's; with several, any will do.
                if status == Status::Unique && found != expected {
                    mismatch = true;
                    error = Some("solution differs from the corpus's solution column".into());
                }
            }
        }
        if expected.is_some() && status == Status::Unsolvable {
            mismatch = true;
            error = Some("no solution found, but the corpus gives one".into());
        }
        PuzzleResult {
            status,
            solutions: Some(outcome.solutions),
            nodes: counts_nodes.then_some(outcome.nodes),
            guesses: counts_guesses.then_some(outcome.guesses),
            time_ns: Some(time_ns),
            solution: outcome.first,
            error,
            mismatch,
            failed: matches!(outcome.aborted, Some(Abort::Failed(_))),
        }
    }

    /// Whether the solver found solutions but returned none (a C-ABI solver fills one only
    /// for a limit of 1): there was no solution to check.
    pub fn unreturned(&self) -> bool {
        self.solutions.is_some_and(|n| n > 0) && self.solution.is_none()
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
    pub fn check_count(&mut self, reference: &PuzzleResult, reference_name: &str) -> bool {
        if !(self.finished() && reference.finished()) || self.solutions == reference.solutions {
            return false;
        }
        if !self.mismatch {
            self.mismatch = true;
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

fn abort_reason(why: &Abort, outcome: &Outcome, limits: &Limits) -> String {
    let what = match why {
        Abort::NodeLimit => format!("node budget of {} exhausted", limits.max_nodes),
        Abort::Timeout => format!(
            "timed out after {}",
            humantime::format_duration(limits.timeout.unwrap_or_default())
        ),
        Abort::Failed(reason) => reason.clone(),
    };
    match outcome.solutions {
        0 => what,
        1 => format!("{what} after finding 1 solution"),
        n => format!("{what} after finding {n} solutions"),
    }
}
