//! The `Strategy` trait every solver implements, the search `Budget` they all spend,
//! and the registry that names them.
//!
//! A strategy counts the solutions of a puzzle up to `Limits::max_solutions`, keeps the
//! first solution it finds, and reports `nodes`: a deterministic measure of search effort
//! whose unit each strategy documents (for the classic four, digits placed by the search).
//! A strategy value is reused for many puzzles by one thread, so it may keep buffers
//! between calls; no strategy allocates per search node.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use crate::clock::{Clock, Cost};
use crate::grid::Grid;

mod bitmask;
mod dlx;
mod fast;
mod hashset;
mod masks;
mod naive;
pub(crate) mod outcome;
mod stack;

pub use outcome::{Abort, Limits, Outcome};

/// One search strategy. A value is used by a single thread for many puzzles in turn.
pub trait Strategy: Send {
    /// Count the solutions of `puzzle` up to `limits.max_solutions`.
    ///
    /// `puzzle` has already passed `Grid::conflict` (its givens break no rule).
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome;

    /// Solve each of `puzzles` in turn, back to back, putting each outcome and the
    /// nanoseconds it took in the same slot of `out` (as long as `puzzles`).
    ///
    /// The default times [`Strategy::solve`] with the harness's `clock`. A solver whose
    /// work happens where that clock cannot see it alone (in another process) overrides
    /// this to time each solve itself, there, and to do what is not a solve (a round trip,
    /// restarting a process) outside those times.
    fn solve_batch(
        &mut self,
        puzzles: &[Grid],
        limits: &Limits,
        clock: &dyn Clock,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        clock.time_each(&mut |i| self.solve(&puzzles[i], limits), out);
    }

    /// What the processes this value started have used so far, ended ones included: for
    /// a solver that runs outside sudoku-bench's own process; `None` for one inside it.
    fn usage(&self) -> Option<Usage> {
        None
    }
}

/// What a solver's own processes used, as the operating system counted it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// The largest resident set any one of them reached, in KiB.
    pub max_rss_kib: u64,
    /// CPU time they spent, user and system, in nanoseconds.
    pub cpu_ns: u64,
    /// Processes started (a copy restarted after a failure is another).
    pub processes: u64,
}

impl Usage {
    /// Both usages together: the larger peak, the summed CPU time and processes.
    pub fn merged(self, other: Usage) -> Usage {
        Usage {
            max_rss_kib: self.max_rss_kib.max(other.max_rss_kib),
            cpu_ns: self.cpu_ns.saturating_add(other.cpu_ns),
            processes: self.processes.saturating_add(other.processes),
        }
    }
}

/// Puzzles a worker solves in a row before looking for other work, unless a strategy asks
/// for more ([`StrategyInfo::puzzles_per_task`]): enough to spread the cost of taking a
/// task, few enough that the cores finish a phase together.
pub const PUZZLES_PER_TASK: usize = 8;

/// A registered strategy: its name, what it does, and how to make one.
///
/// The built-in strategies are in [`STRATEGIES`]; a library user registers their own with
/// [`StrategyInfo::new`], from a closure that may capture its configuration, and runs it
/// through the same [`crate::runner::Runner`] as the built-in ones.
#[derive(Clone)]
pub struct StrategyInfo {
    /// The name `-s` takes and the rows carry.
    pub name: Cow<'static, str>,
    /// One line on the method.
    pub about: Cow<'static, str>,
    /// What its `nodes` count; `None` when it does not count them (reports leave them empty).
    pub nodes_unit: Option<Cow<'static, str>>,
    /// Whether `Outcome::guesses` is measured (else reports leave it empty).
    pub counts_guesses: bool,
    /// Whether several threads may solve with it at once, each with its own value. A
    /// strategy that is not (foreign code that is not reentrant) solves one puzzle at a
    /// time: pinned workers take turns, each with its own value, else on one thread.
    pub parallel: bool,
    /// Puzzles given to [`Strategy::solve_batch`] at once (at least 1): more than
    /// [`PUZZLES_PER_TASK`] for a solver whose every batch costs a round trip. A strategy
    /// that runs in this process may be given one grid more, first: the primer (a solved
    /// grid, see `runner::Settings::warmup`), whose answer is not reported.
    pub puzzles_per_task: usize,
    make: Maker,
}

/// How a `StrategyInfo` makes a strategy: a plain function for the built-in ones (so that
/// their registry is a `static`), a shared closure for everyone else's.
#[derive(Clone)]
enum Maker {
    Fn(fn() -> Box<dyn Strategy>),
    Closure(Arc<dyn Fn() -> Box<dyn Strategy> + Send + Sync>),
}

impl StrategyInfo {
    /// A strategy named `name`, each worker thread's value made by `make`. It counts
    /// neither nodes nor guesses until told otherwise ([`StrategyInfo::nodes_unit`],
    /// [`StrategyInfo::counts_guesses`]), and runs on every worker.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        make: impl Fn() -> Box<dyn Strategy> + Send + Sync + 'static,
    ) -> StrategyInfo {
        StrategyInfo {
            name: name.into(),
            about: Cow::Borrowed(""),
            nodes_unit: None,
            counts_guesses: false,
            parallel: true,
            puzzles_per_task: PUZZLES_PER_TASK,
            make: Maker::Closure(Arc::new(make)),
        }
    }

    /// A built-in strategy, for the `static` registry.
    const fn builtin(
        name: &'static str,
        about: &'static str,
        nodes_unit: &'static str,
        counts_guesses: bool,
        make: fn() -> Box<dyn Strategy>,
    ) -> StrategyInfo {
        StrategyInfo {
            name: Cow::Borrowed(name),
            about: Cow::Borrowed(about),
            nodes_unit: Some(Cow::Borrowed(nodes_unit)),
            counts_guesses,
            parallel: true,
            puzzles_per_task: PUZZLES_PER_TASK,
            make: Maker::Fn(make),
        }
    }

    /// With a line on the method, for `sudoku-bench strategies` and reports.
    pub fn about(mut self, about: impl Into<Cow<'static, str>>) -> StrategyInfo {
        self.about = about.into();
        self
    }

    /// Counting nodes, in the unit `unit` describes.
    pub fn nodes_unit(mut self, unit: impl Into<Cow<'static, str>>) -> StrategyInfo {
        self.nodes_unit = Some(unit.into());
        self
    }

    /// Whether it measures `Outcome::guesses`.
    pub fn counts_guesses(mut self, counts: bool) -> StrategyInfo {
        self.counts_guesses = counts;
        self
    }

    /// Solving on one thread at a time (for code that is not reentrant).
    pub fn serial(mut self) -> StrategyInfo {
        self.parallel = false;
        self
    }

    /// Given `n` puzzles (at least 1) to solve in a row, so that a batch's fixed cost
    /// (a round trip to another process) is spread over them.
    pub fn puzzles_per_task(mut self, n: usize) -> StrategyInfo {
        self.puzzles_per_task = n.max(1);
        self
    }

    /// Whether `other` is this very strategy, not merely one of the same name: the
    /// built-in of that name (their names are unique), or made by the same closure.
    pub fn is(&self, other: &StrategyInfo) -> bool {
        match (&self.make, &other.make) {
            (Maker::Fn(_), Maker::Fn(_)) => self.name == other.name,
            (Maker::Closure(a), Maker::Closure(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// A new value of the strategy, for one thread.
    pub fn make(&self) -> Box<dyn Strategy> {
        match &self.make {
            Maker::Fn(make) => make(),
            Maker::Closure(make) => make(),
        }
    }
}

impl std::fmt::Debug for StrategyInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
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
    /// A budget for one search under `limits`.
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

    /// Nodes spent so far.
    #[inline]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Why the search must stop, once a limit ran out.
    #[inline]
    pub fn aborted(&self) -> Option<Abort> {
        self.aborted.clone()
    }
}

/// Collects solutions up to the limit; shared by strategies so that they agree on what
/// "first" and "count" mean.
#[derive(Debug, Clone, Copy)]
pub struct Tally {
    /// Solutions found so far, up to the limit.
    pub solutions: u32,
    /// The first one found.
    pub first: Option<Grid>,
    max: u32,
}

impl Tally {
    /// An empty tally counting up to `limits.max_solutions` (at least 1).
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

    /// Whether the limit is reached.
    #[inline]
    pub fn done(&self) -> bool {
        self.solutions >= self.max
    }

    /// The search's outcome: this tally, `budget`'s nodes and abort, and `guesses`.
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

// Always built, not behind a feature: the tests of this crate and of its example use it, and a
// feature only they enable would make `cargo test` rebuild the whole crate (and relink the
// binary) that `cargo build` had just built without it.
pub mod testkit;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
