//! `Engine`: the one place that turns records into results. It owns a rayon pool, each
//! worker's own solver for every strategy (made from the `StrategyInfo`s, reused from
//! puzzle to puzzle) and the limits of a search; `result_of` is the one mapping from a
//! record (and its search, if any) to a [`PuzzleResult`] and its [`Status`].
//!
//! The benchmark [`crate::runner::Runner`], the corpus tools' [`crate::classify::Classifier`]
//! and puzzle generation all solve through an engine, so a line kind earns the same status
//! and a worker keeps the same solvers whoever asks.

use std::sync::Arc;

use crate::clock::Cost;
use crate::corpus::{Kind, Record};
use crate::grid::Grid;
use crate::per_worker::PerWorker;
use crate::results::{PuzzleResult, Status};
use crate::strategy::{Limits, Outcome, Strategy, StrategyInfo, Usage};

/// Solvers on a pool of worker threads.
pub struct Engine {
    /// Each worker's own solvers: per replicate, one for every strategy, in the order of
    /// `strategies`. Declared before the pool, so dropped before its threads end: a
    /// solver from outside is then ended by its own code, which kills every process below
    /// its own (daemons included), not by the kernel's parent-death signal, which Linux
    /// sends when the thread that started it ends and which reaches that process alone.
    solvers: PerWorker<Solvers>,
    pool: Arc<rayon::ThreadPool>,
    strategies: Vec<StrategyInfo>,
    limits: Limits,
    replicates: usize,
}

/// One worker's solvers, per replicate one for every strategy, and which of them it last
/// solved with through [`Engine::with_replicate_in`], in which round.
struct Solvers {
    replicates: Vec<Vec<Box<dyn Strategy>>>,
    /// (strategy, replicate, round) of that solve, if any.
    last: Option<(usize, usize, u64)>,
}

impl Solvers {
    /// The solver for strategy `s` of replicate `r` (modulo the replicates).
    fn get(&mut self, s: usize, r: usize) -> &mut dyn Strategy {
        let r = r % self.replicates.len();
        self.replicates[r][s].as_mut()
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("threads", &self.threads())
            .field("strategies", &self.strategies)
            .field("limits", &self.limits)
            .finish()
    }
}

impl Engine {
    /// An engine for `strategies` on `threads` workers (0: one per core), named
    /// `{name}-{index}` (thread names show in profilers and panics).
    pub fn new(
        strategies: Vec<StrategyInfo>,
        limits: Limits,
        threads: usize,
        name: &'static str,
    ) -> Result<Engine, rayon::ThreadPoolBuildError> {
        Engine::replicated(strategies, limits, (threads, 1), name)
    }

    /// An engine like [`Engine::new`]'s whose workers each hold `replicates` solvers of
    /// every strategy, made alike ([`Engine::with_replicate`] picks one). A solver from outside is then that many processes per
    /// worker, each with its own memory layout (the system places each process's stack,
    /// heap and libraries anew): what a process's layout does to its speed differs from
    /// replicate to replicate as it does from run to run, so an interval over replicates
    /// covers it (see [`crate::runner::Settings::replicates`]).
    pub fn replicated(
        strategies: Vec<StrategyInfo>,
        limits: Limits,
        (threads, replicates): (usize, usize),
        name: &'static str,
    ) -> Result<Engine, rayon::ThreadPoolBuildError> {
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(move |i| format!("{name}-{i}"))
                .build()?,
        );
        let infos = strategies.clone();
        let replicates = replicates.max(1);
        let solvers = PerWorker::new(&pool, move || Solvers {
            replicates: (0..replicates)
                .map(|_| infos.iter().map(|i| i.make()).collect())
                .collect(),
            last: None,
        });
        Ok(Engine {
            pool,
            strategies,
            limits,
            solvers,
            replicates,
        })
    }

    /// Replicates of each solver a worker holds.
    pub fn replicates(&self) -> usize {
        self.replicates
    }

    /// The worker pool, for the parallel passes of whoever drives the engine.
    pub fn pool(&self) -> &Arc<rayon::ThreadPool> {
        &self.pool
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The strategies, in the order their indices refer to.
    pub fn strategies(&self) -> &[StrategyInfo] {
        &self.strategies
    }

    /// The limits of every search.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Pin worker `i` to `cpus[i]` (see [`crate::cpus`]), unless `cpus` is empty; the
    /// first failure, with its CPU.
    pub(crate) fn pin(&self, cpus: &[usize]) -> Result<(), (usize, std::io::Error)> {
        if cpus.is_empty() {
            return Ok(());
        }
        self.pool
            .broadcast(|ctx| match cpus.get(ctx.index()) {
                Some(&cpu) => crate::cpus::pin_current_thread(cpu).map_err(|e| (cpu, e)),
                None => Ok(()),
            })
            .into_iter()
            .collect()
    }

    /// Have every worker make its solvers now, if it has not yet. A worker otherwise
    /// makes them when it first solves, maybe inside a timed phase of another strategy,
    /// whose wall time would then carry their making (a `cmd:` solver starts a process).
    pub(crate) fn make_solvers(&self) {
        self.pool.broadcast(|_| self.solvers.with(|_| ()));
    }

    /// Run `f` with the calling worker's own solver for strategy `s`. Called from outside
    /// the pool, it uses the first worker's.
    #[inline]
    pub fn with_solver<R>(&self, s: usize, f: impl FnOnce(&mut dyn Strategy) -> R) -> R {
        self.with_replicate(s, 0, f)
    }

    /// Run `f` with the calling worker's solver for strategy `s` of replicate `r` (taken
    /// modulo the replicates).
    #[inline]
    pub fn with_replicate<R>(
        &self,
        s: usize,
        r: usize,
        f: impl FnOnce(&mut dyn Strategy) -> R,
    ) -> R {
        self.solvers.with(|mine| f(mine.get(s, r)))
    }

    /// [`Engine::with_replicate`] for a timed solve in `round` (any number that tells one
    /// round of solves from another), telling `f` too whether the solver is fresh to
    /// this worker: its first solve here, in another round than the worker's last timed
    /// solve, or with another solver (another strategy, another replicate) than that. A
    /// worker waits between rounds (a round begins when every worker has ended the one
    /// before), and while it waits or solves with other code, its CPU's caches and
    /// predictors fill with other work's state. Solves through the other methods are not
    /// noted.
    #[inline]
    pub(crate) fn with_replicate_in<R>(
        &self,
        (s, r): (usize, usize),
        round: u64,
        f: impl FnOnce(&mut dyn Strategy, bool) -> R,
    ) -> R {
        self.solvers.with(|mine| {
            let now = (s, r % mine.replicates.len(), round);
            let fresh = mine.last != Some(now);
            mine.last = Some(now);
            f(mine.get(s, r), fresh)
        })
    }

    /// What strategy `s`'s processes have used, over every worker and replicate (`None` for a strategy
    /// that runs in this process).
    pub fn usage(&self, s: usize) -> Option<Usage> {
        let mut total: Option<Usage> = None;
        self.solvers.each(|mine| {
            for replicate in &mine.replicates {
                if let Some(used) = replicate[s].usage() {
                    total = Some(total.unwrap_or_default().merged(used));
                }
            }
        });
        total
    }

    /// Solve each of `puzzles` with strategy `s` as one batch ([`Strategy::solve_batch`]),
    /// untimed: their outcomes, in order.
    pub fn solve_each(&self, s: usize, puzzles: &[Grid]) -> Vec<Outcome> {
        let mut out = vec![None; puzzles.len()];
        let clock = crate::clock::MonotonicClock::default();
        self.with_solver(s, |solver| {
            solver.solve_batch(puzzles, &self.limits, &clock, &mut out)
        });
        out.into_iter()
            .map(|o| {
                o.map_or_else(
                    || Outcome::failed("the solver gave no outcome for it".into()),
                    |(outcome, _)| outcome,
                )
            })
            .collect()
    }

    /// Solve `record` with strategy `s`, untimed: its status and the search's outcome;
    /// `None` for lines that are not entries (comments, blanks, the header).
    pub fn verdict(&self, s: usize, record: &Record) -> Option<(Status, Option<Outcome>)> {
        match &record.kind {
            Kind::Puzzle { grid, .. } => {
                let outcome = self.with_solver(s, |solver| solver.solve(grid, &self.limits));
                Some((Status::of(&outcome, &self.limits), Some(outcome)))
            }
            _ => unsearched(record).map(|(status, _)| (status, None)),
        }
    }
}

/// The status of a record that is not searched, and why; `None` for puzzles (their status
/// comes from the search) and for lines that are not entries.
fn unsearched(record: &Record) -> Option<(Status, &str)> {
    match &record.kind {
        Kind::Puzzle { .. } | Kind::Comment | Kind::Blank | Kind::Header => None,
        Kind::Invalid { reason, .. } => Some((Status::Invalid, reason)),
        Kind::Malformed { reason, .. } => Some((Status::Malformed, reason)),
    }
}

/// The result of `record` under strategy `info`: for a puzzle, its search's `outcome` and
/// time, checked against the puzzle and the corpus's solution column; otherwise the
/// status of its kind. A line that is not an entry is reported `malformed` rather than
/// dropped (reports only ever hold entries).
pub(crate) fn result_of(
    record: &Record,
    searched: Option<(&Outcome, Cost)>,
    limits: &Limits,
    info: &StrategyInfo,
) -> PuzzleResult {
    match (&record.kind, searched) {
        (Kind::Puzzle { grid, expected }, Some((outcome, cost))) => PuzzleResult::searched(
            grid,
            expected.as_ref(),
            outcome,
            cost,
            limits,
            info.nodes_unit.is_some(),
            info.counts_guesses,
        ),
        _ => match unsearched(record) {
            Some((status, reason)) => PuzzleResult::unsearched(status, reason),
            None => PuzzleResult::unsearched(Status::Malformed, "not a puzzle line"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::read_all;
    use crate::strategy::by_name;

    #[test]
    fn each_kind_gets_one_status_from_verdict_and_result_alike() {
        let text = "# c\n\
            53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n\
            55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n\
            oops\n";
        let records = read_all("t", std::io::Cursor::new(text.as_bytes().to_vec())).unwrap();
        let info = by_name("fast").unwrap().clone();
        let engine = Engine::new(vec![info.clone()], Limits::default(), 1, "t").unwrap();
        let statuses: Vec<_> = records
            .iter()
            .map(|r| engine.verdict(0, r).map(|(s, _)| s))
            .collect();
        assert_eq!(
            statuses,
            [
                None,
                Some(Status::Unique),
                Some(Status::Invalid),
                Some(Status::Malformed)
            ]
        );
        for (record, status) in records.iter().zip(&statuses).skip(1) {
            let outcome = engine.verdict(0, record).and_then(|(_, o)| o);
            let result = result_of(
                record,
                outcome.as_ref().map(|o| (o, Cost::of_ns(7))),
                &Limits::default(),
                &info,
            );
            assert_eq!(Some(result.status), *status, "line {}", record.line);
        }
    }
}
