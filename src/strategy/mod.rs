//! The `Strategy` trait every solver implements, the search `Budget` they all spend,
//! and the registry that names them.
//!
//! A strategy counts the solutions of a puzzle up to `Limits::max_solutions`, keeps the
//! first solution it finds, and reports `nodes`: a deterministic measure of search effort
//! whose unit each strategy documents (for the classic four, digits placed by the search).
//! A strategy value is reused for many puzzles by one thread, so it may keep buffers
//! between calls; no strategy allocates per search node.

use std::time::{Duration, Instant};

use crate::grid::Grid;

mod bitmask;
mod dlx;
mod fast;
mod hashset;
mod masks;
mod naive;
mod stack;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abort {
    NodeLimit,
    Timeout,
}

/// What one search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One search strategy. A value is used by a single thread for many puzzles in turn.
pub trait Strategy: Send {
    /// Count the solutions of `puzzle` up to `limits.max_solutions`.
    ///
    /// `puzzle` has already passed `Grid::conflict` (its givens break no rule).
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome;
}

/// A registered strategy: its name, what it does, and how to make one.
pub struct StrategyInfo {
    pub name: &'static str,
    /// One line on the method.
    pub about: &'static str,
    /// What its `nodes` count.
    pub nodes_unit: &'static str,
    /// Whether `Outcome::guesses` is measured (else reports leave it empty).
    pub counts_guesses: bool,
    pub make: fn() -> Box<dyn Strategy>,
}

impl std::fmt::Debug for StrategyInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every strategy, in the order reports list them.
pub static STRATEGIES: &[StrategyInfo] = &[
    naive::INFO,
    hashset::INFO,
    bitmask::INFO,
    stack::INFO,
    dlx::INFO,
    fast::INFO,
];

/// The strategy registered as `name`.
pub fn by_name(name: &str) -> Option<&'static StrategyInfo> {
    STRATEGIES.iter().find(|s| s.name == name)
}

/// Nodes between two looks at the clock: reading it costs ~20 ns, a node far less.
const CLOCK_EVERY: u64 = 1 << 12;

/// Counts nodes and says when a search must stop.
///
/// Call `spend` before each node (tentative placement); when it returns `false` the search
/// must unwind at once and report `abort()`.
#[derive(Debug)]
pub struct Budget {
    nodes: u64,
    max_nodes: u64,
    deadline: Option<Instant>,
    next_clock: u64,
    aborted: Option<Abort>,
}

impl Budget {
    pub fn new(limits: &Limits) -> Budget {
        Budget {
            nodes: 0,
            max_nodes: limits.max_nodes,
            // A deadline past what the clock can hold is never reached: no deadline.
            deadline: limits.timeout.and_then(|t| Instant::now().checked_add(t)),
            next_clock: CLOCK_EVERY,
            aborted: None,
        }
    }

    /// Spend one node; `false` when the budget is gone (the node must not be made).
    #[inline]
    pub fn spend(&mut self) -> bool {
        if self.nodes >= self.max_nodes {
            self.aborted = Some(Abort::NodeLimit);
            return false;
        }
        self.nodes += 1;
        if self.nodes >= self.next_clock {
            return self.check_clock();
        }
        true
    }

    #[cold]
    fn check_clock(&mut self) -> bool {
        self.next_clock = self.nodes + CLOCK_EVERY;
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => {
                self.aborted = Some(Abort::Timeout);
                false
            }
            _ => true,
        }
    }

    #[inline]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    #[inline]
    pub fn aborted(&self) -> Option<Abort> {
        self.aborted
    }
}

/// Collects solutions up to the limit; shared by strategies so that they agree on what
/// "first" and "count" mean.
#[derive(Debug, Clone, Copy)]
pub struct Tally {
    pub solutions: u32,
    pub first: Option<Grid>,
    max: u32,
}

impl Tally {
    pub fn new(limits: &Limits) -> Tally {
        Tally {
            solutions: 0,
            first: None,
            max: limits.max_solutions.max(1),
        }
    }

    /// Record a complete grid; `true` when the limit is reached and the search should stop.
    #[inline]
    pub fn found(&mut self, solution: &Grid) -> bool {
        if self.solutions == 0 {
            self.first = Some(*solution);
        }
        self.solutions += 1;
        self.solutions >= self.max
    }

    #[inline]
    pub fn done(&self) -> bool {
        self.solutions >= self.max
    }

    pub fn outcome(&self, budget: &Budget, guesses: u64) -> Outcome {
        Outcome {
            solutions: self.solutions,
            first: self.first,
            nodes: budget.nodes(),
            guesses,
            aborted: budget.aborted(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_stops_at_max_nodes_exactly() {
        let limits = Limits {
            max_nodes: 3,
            ..Limits::default()
        };
        let mut b = Budget::new(&limits);
        assert!(b.spend() && b.spend() && b.spend());
        assert!(!b.spend());
        assert_eq!((b.nodes(), b.aborted()), (3, Some(Abort::NodeLimit)));
    }

    #[test]
    fn budget_times_out_at_the_next_clock_check() {
        let limits = Limits {
            timeout: Some(Duration::ZERO),
            ..Limits::default()
        };
        let mut b = Budget::new(&limits);
        let spent = std::iter::repeat_with(|| b.spend())
            .take_while(|&ok| ok)
            .count() as u64;
        assert_eq!(spent, CLOCK_EVERY - 1);
        assert_eq!(b.aborted(), Some(Abort::Timeout));
    }

    #[test]
    fn a_timeout_past_the_clocks_range_is_no_deadline() {
        let limits = Limits {
            timeout: Some(Duration::MAX),
            ..Limits::default()
        };
        let mut b = Budget::new(&limits);
        assert!((0..2 * CLOCK_EVERY).all(|_| b.spend()));
        assert_eq!(b.aborted(), None);
    }

    #[test]
    fn tally_keeps_the_first_solution_and_stops_at_the_limit() {
        let mut t = Tally::new(&Limits::default());
        let a = testkit::grid(testkit::EASY_SOLUTION);
        let b = testkit::grid(testkit::HARD_SOLUTION);
        assert!(!t.found(&a));
        assert!(t.found(&b));
        assert_eq!((t.solutions, t.first), (2, Some(a)));
    }
}
