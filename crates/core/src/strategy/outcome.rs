//! What a search is given ([`Limits`]) and what it finds ([`Outcome`], [`Abort`]): the
//! data every strategy and every clock speaks, apart from the trait itself so that the
//! clock can name an outcome without depending on the strategies.

use std::time::Duration;

use crate::grid::Grid;

/// How far one search may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Stop counting once this many solutions are found (at least 1).
    pub max_solutions: u32,
    /// Abort once this many nodes have been spent (`u64::MAX`: no limit).
    pub max_nodes: u64,
    /// Abort once a search has run this long.
    pub timeout: Option<Duration>,
}

impl Limits {
    /// These limits with a node budget of `max_nodes`.
    pub fn max_nodes(self, max_nodes: u64) -> Limits {
        Limits { max_nodes, ..self }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_solutions: 2,
            max_nodes: u64::MAX,
            timeout: None,
        }
    }
}

/// Why a search stopped before it was complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Abort {
    /// The node budget (`Limits::max_nodes`) ran out.
    NodeLimit,
    /// The time limit (`Limits::timeout`) ran out.
    Timeout,
    /// The solver failed: a foreign solver crashed, or answered what cannot be read.
    Failed(String),
    /// The harness could not run the search: sudoku-bench itself lacked a resource (a
    /// pipe, a descriptor, a process) to reach the solver. Not the solver's failure, so
    /// never a row: the runner ends the run with it ([`crate::runner::RunError::Harness`]).
    Harness(String),
}

/// What one search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Solutions found, at most `Limits::max_solutions`.
    pub solutions: u32,
    /// The first solution found.
    pub first: Option<Grid>,
    /// Search effort in the strategy's own unit; deterministic for a given puzzle and limits.
    pub nodes: u64,
    /// Assignments made while other candidates remained for the cell (0 where a strategy
    /// does not tell guesses from forced moves).
    pub guesses: u64,
    /// Set when the search ran out of budget: `solutions` is then a lower bound.
    pub aborted: Option<Abort>,
}

impl Outcome {
    /// No solution found, nothing spent, nothing aborted.
    pub const EMPTY: Outcome = Outcome {
        solutions: 0,
        first: None,
        nodes: 0,
        guesses: 0,
        aborted: None,
    };

    /// A search the harness could not run (see [`Abort::Harness`]), for the reason `why`.
    pub fn harness(why: String) -> Outcome {
        Outcome {
            aborted: Some(Abort::Harness(why)),
            ..Outcome::EMPTY
        }
    }

    /// A failed search: nothing found, for the reason `why`.
    pub fn failed(why: String) -> Outcome {
        Outcome {
            aborted: Some(Abort::Failed(why)),
            ..Outcome::EMPTY
        }
    }
}
