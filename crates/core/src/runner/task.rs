//! One task: the few puzzles a worker solves in a row under one strategy, each timed, then
//! checked and recorded outside the timings. With `--repeat`, a phase solves every task
//! once a round, and each task keeps its puzzles' fastest times from round to round.

use crate::clock::{Clock, Cost};
use crate::corpus::{Kind, Record};
use crate::engine::result_of;
use crate::grid::Grid;
use crate::permute::Transform;
use crate::preemption::{self, Stretch};
use crate::results::PuzzleResult;
use crate::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};

/// How a phase solves each puzzle.
#[derive(Debug, Clone, Copy)]
pub(super) struct How {
    /// The limits of every search.
    pub(super) limits: Limits,
    /// Rounds over the phase's puzzles; each puzzle keeps its fastest time.
    pub(super) repeat: u32,
    /// The seed of the equivalent grids solved instead of the records' (`Settings::permute`).
    pub(super) permute: Option<u64>,
    /// Whether to tell which solves other work on the machine held off their core (see
    /// [`preemption`]): not for a solver in a process of its own, whose worker waits for it.
    pub(super) watch: bool,
    /// Give a solver [`PRIMER`] before its first puzzle when fresh to the worker (see
    /// [`Task::solve_round`]): with `Settings::warmup`.
    pub(super) prime: bool,
}

/// A worker's buffers for its tasks, kept from task to task.
#[derive(Default)]
struct Scratch {
    grids: Vec<Grid>,
    again: Vec<Option<(Outcome, Cost)>>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// What a solver is given before its first puzzle when it is fresh to the worker (see
/// [`Task::solve_round`]): a solved grid, which every solver answers at once, touching its
/// code and data without searching (so it teaches the branch predictors little, and
/// nothing about the puzzles timed).
pub(super) static PRIMER: std::sync::LazyLock<Grid> = std::sync::LazyLock::new(|| {
    "981752643752643819463198275514867932629431758837529164348976521296315487175284396"
        .parse()
        .expect("the primer is a solved grid")
});

/// One task's records (at most `info.puzzles_per_task`) and their results, with what its
/// rounds so far have timed: taken by one worker at a time, round after round.
pub(super) struct Task<'a> {
    records: &'a [Record],
    results: &'a mut [PuzzleResult],
    /// Per puzzle among `records`, in order, its outcome and fastest time so far (at
    /// least as many slots as puzzles; the rest unused).
    timed: &'a mut [Option<(Outcome, Cost)>],
    /// How many of its puzzles' kept times other work held off their core in every round
    /// so far (see [`preemption`]).
    held_off: u64,
    /// Rounds solved.
    rounds: u32,
    /// The replicate whose solvers solve it (see `Settings::replicates`), recorded in
    /// each result.
    replicate: u32,
    /// Why the harness could not run the primer, if it could not.
    harness: Option<String>,
}

impl<'a> Task<'a> {
    /// The task of `records`, to be recorded into `results`, timing into `timed`.
    pub(super) fn new(
        records: &'a [Record],
        results: &'a mut [PuzzleResult],
        timed: &'a mut [Option<(Outcome, Cost)>],
        replicate: u32,
    ) -> Task<'a> {
        Task {
            records,
            results,
            timed,
            held_off: 0,
            rounds: 0,
            replicate,
            harness: None,
        }
    }

    /// The replicate whose solvers solve it.
    pub(super) fn replicate(&self) -> u32 {
        self.replicate
    }

    /// Its records.
    pub(super) fn len(&self) -> usize {
        self.records.len()
    }

    /// Rounds solved so far.
    pub(super) fn rounds(&self) -> u32 {
        self.rounds
    }

    /// How many of its puzzles' kept times may carry other work's, which held the thread
    /// off its core in every round (see [`preemption`]).
    pub(super) fn held_off(&self) -> u64 {
        self.held_off
    }

    /// Solve the task's puzzles once more, back to back, timed by
    /// `Strategy::solve_batch`: the first round's outcomes are kept, with each puzzle's
    /// fastest time, unless a later round disagrees (see `later_round`). Transforming
    /// them (`--permute`) comes before the first solve, outside the timings.
    ///
    /// When the solver is `fresh` to the worker (see `Engine::with_replicate_in`) and
    /// `how` primes, the batch begins with [`PRIMER`], whose outcome and time are
    /// dropped: the first puzzle is then timed with the solver's code and data as warm
    /// as the rest's. (Measured: without it, the first puzzle of each batch read slower
    /// than the others, by more for a solver whose code lies further from the harness's,
    /// which leaned comparisons of two solvers at short phases, most on a busy machine.)
    pub(super) fn solve_round(
        &mut self,
        strategy: &mut dyn Strategy,
        fresh: bool,
        how: &How,
        clock: &dyn Clock,
    ) {
        let watch = how.watch && preemption::COUNTED;
        SCRATCH.with_borrow_mut(|Scratch { grids, again }| {
            grids.clear();
            grids.extend(self.puzzles(how));
            // The primer goes first, when there is a puzzle to go before.
            let lead = usize::from(fresh && how.prime && !grids.is_empty());
            if lead == 1 {
                grids.insert(0, *PRIMER);
            }
            again.clear();
            again.resize(grids.len(), None);
            let held_off = round(strategy, grids, (&how.limits, clock, watch), again, lead);
            // The primer's answer is no row, and a wrong one still warmed the code; but a
            // solve the harness could not run is the run's end, wherever it happened.
            if let Some((outcome, _)) = again.iter_mut().take(lead).flatten().next() {
                if let Some(Abort::Harness(why)) = outcome.aborted.take() {
                    self.harness = Some(why);
                }
            }
            let solved = again.iter_mut().skip(lead).map(Option::take);
            let timed = self.timed.iter_mut().take(grids.len() - lead);
            if self.rounds == 0 {
                self.held_off = held_off;
                for (kept, now) in timed.zip(solved) {
                    *kept = now;
                }
            } else {
                // A kept time holds other work's only when every round's did.
                self.held_off = self.held_off.min(held_off);
                for (kept, now) in timed.zip(solved) {
                    if let (Some((kept, best)), Some((outcome, cost))) = (kept, now) {
                        *best = best.faster(cost);
                        later_round(kept, &outcome);
                    }
                }
            }
        });
        self.rounds += 1;
    }

    /// Why the harness could not run one of its solves ([`Abort::Harness`]), if it could
    /// not.
    pub(super) fn harness_failure(&self) -> Option<String> {
        if let Some(why) = &self.harness {
            return Some(why.clone());
        }
        self.timed
            .iter()
            .flatten()
            .find_map(|(outcome, _)| match &outcome.aborted {
                Some(Abort::Harness(why)) => Some(why.clone()),
                _ => None,
            })
    }

    /// Check and record the outcomes kept, with their times, into the results, outside
    /// the timings: solutions mapped back to the records' own grids (`--permute`), which
    /// they are checked against and written for.
    pub(super) fn record(&mut self, info: &StrategyInfo, how: &How) {
        // Slot by slot: a slot `solve_batch` left empty is that puzzle's failure, and never
        // shifts the outcomes after it onto other puzzles.
        let missing = Outcome::failed("the solver gave no outcome for it".into());
        let mut timed = self.timed.iter_mut();
        for (result, record) in self.results.iter_mut().zip(self.records) {
            let searched = match record.kind {
                Kind::Puzzle { .. } => Some(match timed.next() {
                    Some(Some((outcome, cost))) => {
                        if let Some(t) = transform(how, record) {
                            outcome.first = outcome.first.map(|s| t.unapply(&s));
                        }
                        (&*outcome, *cost)
                    }
                    _ => (&missing, Cost::default()),
                }),
                _ => None,
            };
            *result = result_of(record, searched, &how.limits, info);
            result.replicate = Some(self.replicate);
        }
    }

    /// The grids solved for the task's puzzles, in order: each record's own, or the
    /// equivalent grid `--permute` draws for it.
    fn puzzles<'r>(&'r self, how: &'r How) -> impl Iterator<Item = Grid> + 'r {
        self.records
            .iter()
            .filter_map(move |record| match &record.kind {
                Kind::Puzzle { grid, .. } => {
                    Some(transform(how, record).map_or(*grid, |t| t.apply(grid)))
                }
                _ => None,
            })
    }
}

/// The transform `--permute` draws for `record`'s puzzle, if any.
fn transform(how: &How, record: &Record) -> Option<Transform> {
    how.permute
        .map(|seed| Transform::for_line(seed, record.line))
}

/// Solve `puzzles` once into `out` with `strategy`, telling (when `watch`) how many of
/// their times hold other work's, which held the thread off its core meanwhile (see
/// [`preemption::puzzles_holding`]).
fn round(
    strategy: &mut dyn Strategy,
    puzzles: &[Grid],
    (limits, clock, watch): (&Limits, &dyn Clock, bool),
    out: &mut [Option<(Outcome, Cost)>],
    lead: usize,
) -> u64 {
    let stretch = watch.then(Stretch::start);
    strategy.solve_batch(puzzles, limits, clock, out);
    let Some(off) = stretch.and_then(Stretch::held_off) else {
        return 0;
    };
    // The puzzles alone: a stretch held off in the primer's solve is then put on them,
    // which at worst marks a time that other work did not hold.
    let mut times: Vec<u64> = out[lead..]
        .iter()
        .flatten()
        .map(|(_, cost)| cost.ns)
        .collect();
    preemption::puzzles_holding(off, &mut times)
}

/// Fold a later `--repeat` round's outcome into the one `kept`. A built-in strategy answers
/// alike every time, but a foreign solver need not (a crash, a non-reentrant library): a
/// failure in any round is the puzzle's, and a finished count that changes is a failure,
/// rather than hidden behind the first round's answer.
fn later_round(kept: &mut Outcome, later: &Outcome) {
    let failed = |o: &Outcome| matches!(o.aborted, Some(Abort::Failed(_)));
    if failed(kept) {
        return;
    }
    if failed(later) {
        *kept = later.clone();
    } else if kept.aborted.is_none() && later.aborted.is_none() && kept.solutions != later.solutions
    {
        *kept = Outcome {
            solutions: 0,
            first: None,
            aborted: Some(Abort::Failed(format!(
                "counted {} solutions, then {} when solved again (--repeat)",
                kept.solutions, later.solutions
            ))),
            ..*kept
        };
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::clock::MockClock;
    use crate::results::Status;
    use crate::runner::testutil::{corpus, mixed, run, run_with, settings, wrapped, EASY, TWO};
    use crate::runner::{Runner, Settings};
    use crate::strategy::by_name;
    use crate::summary::Summary;

    /// Leaves the first slot of every batch empty, as a faulty `solve_batch` might.
    struct Gappy(Box<dyn Strategy>);

    impl Strategy for Gappy {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            self.0.solve(puzzle, limits)
        }
        fn solve_batch(
            &mut self,
            puzzles: &[Grid],
            limits: &Limits,
            clock: &dyn Clock,
            out: &mut [Option<(Outcome, Cost)>],
        ) {
            self.0.solve_batch(puzzles, limits, clock, out);
            out[0] = None;
        }
    }

    #[test]
    fn an_empty_slot_fails_its_puzzle_and_shifts_no_outcome() {
        let s = Settings {
            strategies: vec![wrapped("gappy", |f| Box::new(Gappy(f)))],
            warmup: false,
            ..settings(&[], 8, 1)
        };
        let (rows, _) = run(&format!("{EASY}\n{TWO}\n"), s, 1, &MockClock::new(1, 0, 1));
        let statuses: Vec<_> = rows.iter().map(|r| (r.0, r.2)).collect();
        assert_eq!(statuses, [(1, Status::Aborted), (2, Status::Multiple)]);
    }

    #[test]
    fn mock_clock_makes_times_deterministic() {
        let clock = MockClock::new(1_000, 10, 1_000_000);
        let (rows, summary) = run(
            &format!("{EASY}\n{TWO}\n"),
            settings(&["bitmask"], 8, 1),
            2,
            &clock,
        );
        for (_, _, _, nodes, time) in &rows {
            assert_eq!(*time, Some(1_000 + 10 * nodes.unwrap()));
        }
        let r = &summary.rows()[0];
        assert_eq!(r.max_ns, rows.iter().filter_map(|r| r.4).max().unwrap());
        // One batch, one phase: two clock readings one tick apart.
        assert_eq!(r.wall_ns, 1_000_000);
    }

    #[test]
    fn repeat_keeps_the_fastest_and_the_same_outcome() {
        struct Slowing {
            calls: std::sync::atomic::AtomicU64,
        }
        impl Clock for Slowing {
            // Each timing of the same solve is slower than the last: the first is kept.
            fn time(&self, solve: &mut dyn FnMut() -> crate::Outcome) -> (crate::Outcome, Cost) {
                let n = self.calls.fetch_add(1, Ordering::Relaxed);
                (solve(), Cost::of_ns(100 + n))
            }
            fn now_ns(&self) -> u64 {
                0
            }
        }
        let clock = Slowing {
            calls: AtomicU64::new(0),
        };
        let s = Settings {
            warmup: false,
            ..settings(&["fast"], 8, 3)
        };
        let mut runner = Runner::new(s, 1, &clock).unwrap();
        let mut summary = Summary::default();
        run_with(
            &mut runner,
            &mut corpus(EASY),
            &mut summary,
            |b| -> io::Result<()> {
                assert_eq!(b.results[0][0].time_ns, Some(100));
                assert_eq!(b.results[0][0].status, Status::Unique);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(clock.calls.load(Ordering::Relaxed), 3, "timed three times");
    }

    /// Answers like `fast` the first time it sees a puzzle; asked again, fails (`true`)
    /// or counts one solution more (`false`): a foreign solver need not answer alike twice.
    struct OnlyOnce {
        fast: Box<dyn Strategy>,
        seen: Vec<Grid>,
        fail: bool,
    }

    impl Strategy for OnlyOnce {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            let outcome = self.fast.solve(puzzle, limits);
            if !self.seen.contains(puzzle) {
                self.seen.push(*puzzle);
                return outcome;
            }
            match self.fail {
                true => Outcome {
                    aborted: Some(Abort::Failed("crashed".into())),
                    ..outcome
                },
                false => Outcome {
                    solutions: outcome.solutions + 1,
                    ..outcome
                },
            }
        }
    }

    #[test]
    fn with_repeat_an_answer_given_in_a_later_round_is_not_hidden() {
        for fail in [true, false] {
            let strategy = StrategyInfo::new("once", move || {
                Box::new(OnlyOnce {
                    fast: by_name("fast").unwrap().make(),
                    seen: Vec::new(),
                    fail,
                })
            });
            let s = Settings {
                strategies: vec![strategy],
                warmup: false,
                ..settings(&[], 8, 2)
            };
            let clock = MockClock::new(1, 0, 1);
            let (rows, summary) = run(&format!("{EASY}\n"), s, 1, &clock);
            assert_eq!(rows[0].2, Status::Aborted, "fail: {fail}");
            assert_eq!(summary.failures(), 1, "fail: {fail}");
        }
    }

    /// Finds what `fast` finds but returns no solution.
    struct Unreturned(Box<dyn Strategy>);

    impl Strategy for Unreturned {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            Outcome {
                first: None,
                ..self.0.solve(puzzle, limits)
            }
        }
    }

    #[test]
    fn found_but_not_returned_is_counted_not_checked() {
        let s = Settings {
            strategies: vec![wrapped("quiet", |f| Box::new(Unreturned(f)))],
            ..settings(&[], 8, 1)
        };
        let clock = MockClock::new(1, 0, 1);
        let (rows, summary) = run(&format!("{EASY}\n{TWO}\n"), s, 1, &clock);
        assert_eq!(
            rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            [Status::Unique, Status::Multiple]
        );
        let row = &summary.rows()[0];
        assert_eq!((row.unreturned, row.mismatches), (2, 0));
    }

    #[test]
    fn a_permuted_run_finds_what_the_plain_one_does_in_the_original_grids() {
        let invalid = EASY.replacen("53", "55", 1);
        let text = format!(
            "{}\n{}\n{invalid}\n",
            mixed(60),
            crate::strategy::testkit::UNSOLVABLE
        );
        let names = ["bitmask", "dlx", "fast"];
        let results = |permute: Option<u64>| {
            let s = Settings {
                permute,
                ..settings(&names, 16, 1)
            };
            let clock = MockClock::new(1, 0, 1);
            let mut runner = Runner::new(s, 2, &clock).unwrap();
            let mut summary = Summary::default();
            let mut out = Vec::new();
            run_with(&mut runner, &mut corpus(&text), &mut summary, |b| {
                for (i, r) in b.records.iter().enumerate() {
                    for s in 0..b.strategies.len() {
                        out.push((r.clone(), b.results[s][i].clone()));
                    }
                }
                Ok(())
            })
            .unwrap();
            assert_eq!(summary.mismatches(), 0, "permute {permute:?}");
            out
        };
        let plain = results(None);
        let permuted = results(Some(7));
        assert_eq!(plain.len(), permuted.len());
        let statuses: std::collections::HashSet<Status> =
            plain.iter().map(|(_, r)| r.status).collect();
        for status in [
            Status::Unique,
            Status::Multiple,
            Status::Unsolvable,
            Status::Invalid,
            Status::Malformed,
        ] {
            assert!(
                statuses.contains(&status),
                "the corpus has a {status:?} line"
            );
        }
        let mut nodes_differ = 0;
        for ((record, a), (same, b)) in plain.iter().zip(&permuted) {
            assert_eq!(record, same, "the records stay as read");
            assert_eq!(
                (a.status, a.solutions),
                (b.status, b.solutions),
                "line {}",
                record.line
            );
            assert!(
                !b.is_wrong() && b.error == a.error,
                "line {}: {:?}",
                record.line,
                b.error
            );
            if let Kind::Puzzle { grid, .. } = &record.kind {
                if a.solutions > Some(0) {
                    let solution = b.solution.expect("a solution is returned");
                    assert!(solution.is_solution_of(grid), "line {}", record.line);
                }
                if a.status == Status::Unique {
                    assert_eq!(a.solution, b.solution, "line {}", record.line);
                }
            }
            nodes_differ += (a.nodes != b.nodes) as usize;
        }
        assert!(nodes_differ > 0, "the grids solved were not the records'");
    }
}
