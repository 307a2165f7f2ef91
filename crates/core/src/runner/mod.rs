//! `Runner`: solves every puzzle of a corpus with every selected strategy on a rayon pool,
//! and hands results back in input order, chunk by chunk, whatever the thread count.
//!
//! A reader thread reads and parses chunks of records ahead, so reading overlaps solving.
//! Each strategy in turn solves the whole chunk in parallel: one phase per strategy, so
//! its wall-clock time is measured on its own and two strategies never compete for the
//! cores while being timed. The phases run in one order in a chunk and in the reverse
//! order in the next (ABBA), so that two strategies compared in one run see the same
//! machine. Each worker thread keeps its own solver per strategy, reused
//! across puzzles (the [`Engine`]'s). A chunk is solved in parts, each as many records as
//! the pace of the last parts solves in `Settings::part_ns` (all of it, for a fast solver),
//! so that a slow solver's rows are not held back for a whole chunk. A solved part is
//! reported (given to the [`Sink`]:
//! the summary, the CSV, ...): with one strategy, while the next chunk is solved; with
//! several, before it, so that no strategy's phase carries the reporting. Only the solve
//! calls are timed (the clock is read between two solves of a task, so a time also covers
//! storing the outcome); reading, checking and reporting happen outside them.
//!
//! Every answer is checked: a returned solution must solve the puzzle and agree with the
//! corpus's solution column, and every count must agree with the reference strategy's
//! (`Settings::reference`, the built-in `fast`): the reference's own results when it is
//! in the run, else it solves each chunk after the timed phases, untimed. When both
//! searches finished and the counts differ, the result is a mismatch with an `error`; the
//! run goes on. With `Settings::permute`, every strategy solves each puzzle as the same
//! equivalent grid (one of the Sudoku symmetries, drawn per line), and its solution is mapped back to the puzzle as
//! read before it is checked.
//!
//! A run can be stopped (`Runner::stop_when`): the workers look at the flag before each
//! task (a few puzzles; tasks are taken in input order), so a stop waits for at most one
//! task per worker, and what a phase solved is its chunk's first records. A record is
//! reported with every strategy or not at all, so the summary and the rows agree and two
//! strategies' rows always pair: so once stopped, the chunk's first phase takes no more
//! tasks, but the later ones (a built-in strategy after a slow solver from outside, the
//! reference) go on with the records every phase before them solved, while they look like
//! ending within a second (see `phases`). The records of the chunk are then reported in
//! input order up to the first one that some strategy did not solve; the rest is dropped.
//!
//! Its parts: `pipeline` (the reader thread, the reporter, and the loop that takes each chunk
//! read, solves it and reports it), `phases` (a chunk's timed phases, the warm-up, and the
//! check of the counts) and `task` (a few puzzles solved in a row, timed, and checked).

mod phases;
mod pipeline;
mod task;
#[cfg(test)]
mod testutil;

use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, OnceLock};

use crate::clock::{Clock, Cost};
use crate::corpus::{Corpus, LoadError};
use crate::cpus::Placement;
use crate::engine::Engine;
use crate::interrupt::Stop;
use crate::results::Sink;
use crate::strategy::{Limits, Outcome, StrategyInfo};
use crate::summary::{SolverResources, Summary, SummaryReport};
use pipeline::{channels, spawn_reader, Pace, Reporter};

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The strategies timed, in the order reports list them.
    pub strategies: Vec<StrategyInfo>,
    /// The limits of every search.
    pub limits: Limits,
    /// Time each solve this many times and keep the fastest: rounds, each a pass over the
    /// whole chunk, so that no solver sees a puzzle again before all the others.
    pub repeat: u32,
    /// Records read (and held) at once, at most: the first chunks are smaller.
    pub chunk_size: usize,
    /// How long solving a part of a chunk should take, by the pace of the parts before:
    /// a chunk is solved and reported in parts of as many records as take about this
    /// long (see `pipeline::Pace`), so that a record's rows reach the sink within about
    /// this time of its last solve, however slow the solvers. 0: each chunk is one part.
    pub part_ns: u64,
    /// Solve a few puzzles untimed before the first timed phase, and give each solver a
    /// solved grid, untimed, before a worker's first puzzle with it in each round of a
    /// phase and after a switch from another solver (another strategy or replicate): so
    /// that no timed puzzle pays for a cold start.
    pub warmup: bool,
    /// The strategy whose counts every strategy's must agree with (see the module's
    /// documentation); `None`: counts are not compared.
    pub reference: Option<StrategyInfo>,
    /// Solve each puzzle as a random equivalent grid, drawn from this seed and the
    /// record's line (`Transform::for_line`): the same for every strategy, the reference
    /// included. Solutions are mapped back before they are checked; nodes may change.
    pub permute: Option<u64>,
    /// Pin each worker thread to a CPU of its own, from those this process may use,
    /// distinct cores first ([`crate::cpus::plan`]): so that every strategy is timed on
    /// the same CPUs, the processes a worker starts included. More workers than CPUs are
    /// left to the scheduler. [`Runner::placement`] says what was done.
    pub pin: bool,
    /// Each worker holds this many solvers of every strategy, made alike; each chunk is
    /// cut into as many runs of consecutive tasks, and the k-th run of every phase of the
    /// chunk is solved by replicate k's solvers, so every replicate solves a share of every
    /// chunk, in both phase orders. Each result records its replicate. A solver from outside is then as many processes per worker,
    /// each laid out in memory anew, as separate runs would be: an interval over the
    /// replicates (`compare --between`) covers what differs from run to run, where one
    /// over the puzzles of one process covers only the puzzles.
    pub replicates: usize,
}

impl Settings {
    /// The summary of a run with these settings on `threads` threads, lasting `wall_ns`,
    /// with the rows of `summary`.
    pub fn summary_report(&self, summary: &Summary, threads: usize, wall_ns: u64) -> SummaryReport {
        SummaryReport::new(
            summary,
            (&self.limits, self.repeat, self.permute),
            threads,
            wall_ns,
        )
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strategies: crate::strategy::STRATEGIES.to_vec(),
            limits: Limits::default(),
            repeat: 1,
            chunk_size: 2048,
            part_ns: PART_NS,
            warmup: true,
            reference: Some(crate::classify::fastest().clone()),
            permute: None,
            pin: false,
            replicates: 1,
        }
    }
}

/// How long a part of a chunk takes to solve, by default: a fraction of a second, so that
/// the rows finished more than a second ago are written (the CSV's writer writes what it
/// holds at least every `results::writer::WRITE_WITHIN`), while parts of a fast solver
/// stay as large as the chunks.
pub(crate) const PART_NS: u64 = 250_000_000;

/// Work finished so far, updated by the workers as each task of solves ends, so a
/// progress display can move within a batch (a slow strategy can spend minutes on one),
/// say which strategy's phase runs, and tell each strategy's pace from the others'.
#[derive(Debug)]
pub struct WorkDone {
    /// Records reported: solved by every strategy.
    pub puzzles: AtomicU64,
    /// The index, among the run's strategies, of the one whose phase runs (or ran last);
    /// their number while the untimed reference's runs.
    pub phase: AtomicUsize,
    /// Per strategy of the run, the bytes of input behind its finished solves.
    pub bytes: Vec<AtomicU64>,
}

impl WorkDone {
    /// Nothing done yet by any of `strategies`.
    pub fn new(strategies: usize) -> WorkDone {
        WorkDone {
            puzzles: AtomicU64::new(0),
            phase: AtomicUsize::new(0),
            bytes: (0..strategies).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// How a run over a corpus ended, when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every record was read, solved and reported.
    Complete,
    /// A stop was requested: `unreported` records were read but not reported (not solved
    /// by every strategy). The corpus may have more left to read.
    Stopped {
        /// Records read and not reported.
        unreported: u64,
    },
}

/// Why a runner could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The worker threads could not be started.
    #[error("cannot start the worker threads")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// A worker could not be pinned to its CPU.
    #[error("cannot pin a worker to CPU {cpu}")]
    Pin {
        /// The CPU.
        cpu: usize,
        /// Why.
        source: io::Error,
    },
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The corpus could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The sink refused a batch (e.g. the output could not be written).
    #[error("{0}")]
    Sink(io::Error),
    /// The harness could not run a solver (see [`crate::strategy::Abort::Harness`]): the
    /// chunk it was in is not reported, and the run goes no further.
    #[error("{corpus}: {why}; no row was charged to it")]
    Harness {
        /// The corpus being solved.
        corpus: String,
        /// What could not be done.
        why: String,
    },
}

/// Runs strategies over corpora; see the module's documentation.
pub struct Runner<'c> {
    settings: Settings,
    /// The timed strategies, then the reference when it is not one of them.
    engine: Engine,
    /// The reference's index among the engine's strategies.
    reference: Option<usize>,
    clock: &'c dyn Clock,
    /// Parts of chunks solved so far, over every corpus: its parity sets the order of the
    /// phases.
    chunks_solved: u64,
    /// The records of the next part of a chunk, from the pace of the last.
    pace: Pace,
    /// Per strategy of the engine, whether it solves in this process (see
    /// `Strategy::usage`): only then can its workers tell other work's time in its solves
    /// (see [`crate::preemption`]). Known once the solvers are made.
    in_process: Vec<bool>,
    warmed_up: bool,
    /// Where the workers run.
    placement: Placement,
    /// Per record of the phase being solved, its outcome and fastest time so far: kept
    /// from phase to phase, so that no phase allocates it.
    timed: Vec<Option<(Outcome, Cost)>>,
    /// Per record of the chunk being solved, the worker that solves it in every timed
    /// phase when workers are pinned (see `phases::Owners`): kept from chunk to chunk.
    owners: Vec<std::sync::atomic::AtomicU16>,
    progress: Option<Arc<WorkDone>>,
    stop: Stop,
    /// Set by the first solve the harness could not run
    /// ([`crate::strategy::Abort::Harness`]): the phase
    /// takes no more tasks, and the run ends with it before the chunk is reported.
    harness: OnceLock<String>,
}

impl<'c> Runner<'c> {
    /// A runner on `threads` worker threads (0: one per core).
    pub fn new(
        settings: Settings,
        threads: usize,
        clock: &'c dyn Clock,
    ) -> Result<Runner<'c>, StartError> {
        let mut solvers = settings.strategies.clone();
        let reference = settings.reference.as_ref().map(|info| {
            // By identity: a strategy of one's own may share the reference's name.
            match solvers.iter().position(|s| s.is(info)) {
                Some(s) => s,
                None => {
                    solvers.push(info.clone());
                    solvers.len() - 1
                }
            }
        });
        let engine = Engine::replicated(
            solvers,
            settings.limits,
            (threads, settings.replicates),
            "solver",
        )?;
        // Before any solver is made: the processes a worker starts take its CPU.
        let placement = crate::cpus::plan(
            &crate::cpus::allowed(),
            engine.threads(),
            settings.pin,
            crate::cpus::current(),
        );
        engine
            .pin(&placement.workers)
            .map_err(|(cpu, source)| StartError::Pin { cpu, source })?;
        let pace = Pace::new(settings.part_ns, engine.threads());
        Ok(Runner {
            placement,
            warmed_up: !settings.warmup,
            settings,
            engine,
            reference,
            clock,
            chunks_solved: 0,
            pace,
            in_process: Vec::new(),
            timed: Vec::new(),
            owners: Vec::new(),
            progress: None,
            stop: Stop::default(),
            harness: OnceLock::new(),
        })
    }

    /// Count finished work into `done` from now on.
    pub fn report_progress(&mut self, done: Arc<WorkDone>) {
        self.progress = Some(done);
    }

    /// Stop taking work once `stop` is requested (see the module's documentation).
    pub fn stop_when(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// Where the workers run: pinned to which CPUs, or why not.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The summary of this runner's run, lasting `wall_ns`, with the rows of `summary`:
    /// its settings, threads and placement.
    pub fn summary_report(&self, summary: &Summary, wall_ns: u64) -> SummaryReport {
        SummaryReport {
            placement: Some(self.placement.clone()),
            replicates: Some(self.engine.replicates() as u32),
            ..self
                .settings
                .summary_report(summary, self.threads(), wall_ns)
        }
    }

    /// What this runner runs.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// What each timed strategy that runs in processes of its own has used so far.
    pub fn resources(&self) -> Vec<SolverResources> {
        (0..self.settings.strategies.len())
            .filter_map(|s| {
                let used = self.engine.usage(s)?;
                Some(SolverResources {
                    strategy: self.engine.strategies()[s].name.to_string(),
                    max_rss_kib: used.max_rss_kib,
                    cpu_ns: used.cpu_ns,
                    processes: used.processes,
                })
            })
            .collect()
    }

    /// Run every strategy over `corpus`, giving each chunk of results to `sink` in input
    /// order. `sink` runs on one of the runner's workers, so parallel iterators in it
    /// share the runner's threads.
    pub fn run(&mut self, corpus: &mut Corpus, sink: &mut impl Sink) -> Result<Ended, RunError> {
        sink.begin(corpus.name(), &self.settings.strategies)
            .map_err(RunError::Sink)?;
        self.engine.make_solvers();
        self.in_process = (0..self.engine.strategies().len())
            .map(|s| {
                self.engine
                    .with_solver(s, |solver| solver.usage().is_none())
            })
            .collect();
        let name = corpus.name().to_string();
        // Chunks go round: the reader fills one while the workers solve another.
        let ((full_tx, full_rx), (empty_tx, empty_rx)) = channels();
        let size = self.settings.chunk_size;
        let stop = self.stop.clone();
        let ended = std::thread::scope(|scope| -> Result<Ended, RunError> {
            let reader = spawn_reader(scope, corpus, size, stop, empty_rx, full_tx)?;
            // The loop runs on a worker: it hands each parallel pass (solving, then the
            // sink's) to the other workers directly, instead of waking them all from
            // outside the pool and sleeping until they finish (a wake-up costs tens of
            // microseconds on a virtual machine). The channels' other ends close when it
            // returns, early or not (the reporter is dropped), and the reader ends.
            let pool = Arc::clone(self.engine.pool());
            let mut reporter = Reporter {
                corpus: &name,
                strategies: self.settings.strategies.clone(),
                sink,
                empty: empty_tx,
                records: 0,
                progress: self.progress.clone(),
            };
            let stopped = pool.install(|| self.solve_and_report(full_rx, &mut reporter));
            let reported = reporter.records;
            drop(reporter);
            let read = reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            Ok(if stopped? {
                Ended::Stopped {
                    unreported: read.saturating_sub(reported),
                }
            } else {
                Ended::Complete
            })
        })?;
        if ended == Ended::Complete {
            sink.end(&name, &corpus.identity())
                .map_err(RunError::Sink)?;
        }
        Ok(ended)
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::atomic::Ordering;

    use super::testutil::{corpus, mixed, run, run_with, settings, wrapped, OneTooMany, EASY};
    use super::*;
    use crate::clock::MockClock;
    use crate::corpus::read_all;
    use crate::results::{PuzzleResult, Status};
    use crate::strategy::by_name;

    #[test]
    fn results_keep_input_order_whatever_the_threads_and_chunks() {
        let text = mixed(203);
        let clock = MockClock::new(5, 1, 1);
        let (one, _) = run(&text, settings(&["bitmask", "dlx"], 7, 1), 1, &clock);
        let (two, _) = run(&text, settings(&["bitmask", "dlx"], 64, 1), 2, &clock);
        assert_eq!(one, two);
        let lines: Vec<u64> = one.iter().filter(|r| r.1 == 0).map(|r| r.0).collect();
        let expected: Vec<u64> = read_all("t", std::io::Cursor::new(text.into_bytes()))
            .unwrap()
            .iter()
            .filter(|r| r.is_entry())
            .map(|r| r.line)
            .collect();
        assert_eq!(lines, expected);
        assert!(one.iter().any(|r| r.2 == Status::Malformed));
        assert!(one.iter().any(|r| r.2 == Status::Multiple));
    }

    #[test]
    fn progress_counts_every_puzzle_and_every_byte_of_each_strategy() {
        let text = mixed(203);
        let entries = text.lines().filter(|l| !l.starts_with('#')).count() as u64;
        for (chunk_size, threads, repeat) in [(1, 1, 1), (7, 2, 1), (2048, 2, 1), (7, 2, 3)] {
            let clock = MockClock::new(5, 1, 1);
            let s = settings(&["bitmask", "dlx"], chunk_size, repeat);
            let mut runner = Runner::new(s, threads, &clock).unwrap();
            let done = Arc::new(WorkDone::new(2));
            runner.report_progress(Arc::clone(&done));
            let mut summary = Summary::default();
            run_with(
                &mut runner,
                &mut corpus(&text),
                &mut summary,
                |_| -> io::Result<()> { Ok(()) },
            )
            .unwrap();
            // Each record once, when every strategy is done with it; each strategy's
            // bytes, the comment lines' included.
            assert_eq!(done.puzzles.load(Ordering::Relaxed), entries);
            for bytes in &done.bytes {
                assert_eq!(bytes.load(Ordering::Relaxed), text.len() as u64);
            }
            // The untimed reference (`fast`, not in the run) ran last, named by the
            // number of strategies.
            assert_eq!(done.phase.load(Ordering::Relaxed), 2);
        }
    }

    #[test]
    fn a_stop_reports_a_prefix_solved_by_every_strategy() {
        let text = mixed(2000);
        let entries = text.lines().filter(|l| !l.starts_with('#')).count() as u64;
        for (names, threads) in [
            (&["fast"][..], 2),
            (&["bitmask", "dlx"][..], 2),
            (&["fast"][..], 1),
        ] {
            let clock = MockClock::new(1, 0, 1);
            let mut runner = Runner::new(settings(names, 64, 1), threads, &clock).unwrap();
            let stop = Stop::default();
            runner.stop_when(stop.clone());
            let mut summary = Summary::default();
            let mut rows: Vec<Vec<u64>> = vec![Vec::new(); names.len()];
            // Asked to stop while reporting the second chunk: the next is being solved.
            let mut batches = 0;
            let ended = run_with(
                &mut runner,
                &mut corpus(&text),
                &mut summary,
                |b| -> io::Result<()> {
                    for (s, lines) in rows.iter_mut().enumerate() {
                        for (i, r) in b.records.iter().enumerate() {
                            assert_ne!(b.results[s][i], PuzzleResult::default(), "solved");
                            lines.push(r.line);
                        }
                    }
                    batches += 1;
                    if batches == 2 {
                        stop.request(2);
                    }
                    Ok(())
                },
            )
            .unwrap();
            let Ended::Stopped { unreported } = ended else {
                panic!("{names:?}: not stopped");
            };
            let reported = rows[0].len() as u64;
            assert!(reported > 0 && reported < entries, "{names:?}: {reported}");
            // The first entries, in order, each once, for every strategy alike.
            let expected: Vec<u64> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.starts_with('#'))
                .map(|(i, _)| i as u64 + 1)
                .take(reported as usize)
                .collect();
            for lines in &rows {
                assert_eq!(lines, &expected, "{names:?}");
            }
            for row in summary.rows() {
                assert_eq!(
                    row.puzzles, reported,
                    "{names:?}: the summary counts the rows"
                );
            }
            assert!(reported + unreported <= entries, "{names:?}");
        }
    }

    /// Runs out of the harness's resources from its 300th puzzle on.
    struct Starved(Box<dyn crate::strategy::Strategy>, u32);

    impl crate::strategy::Strategy for Starved {
        fn solve(&mut self, puzzle: &crate::grid::Grid, limits: &Limits) -> Outcome {
            self.1 += 1;
            if self.1 >= 300 {
                return Outcome::harness("cannot make a pipe".into());
            }
            self.0.solve(puzzle, limits)
        }
    }

    #[test]
    fn a_solve_the_harness_cannot_run_ends_the_run_and_reports_no_row_of_its_chunk() {
        let clock = MockClock::new(1, 0, 1);
        let starved = StrategyInfo::new("starved", || {
            Box::new(Starved(crate::strategy::by_name("fast").unwrap().make(), 0))
        });
        let settings = Settings {
            strategies: vec![starved],
            chunk_size: 256,
            warmup: false,
            ..Settings::default()
        };
        let mut runner = Runner::new(settings, 1, &clock).unwrap();
        let mut summary = Summary::default();
        let mut failed = 0;
        let ended = run_with(
            &mut runner,
            &mut corpus(&mixed(2000)),
            &mut summary,
            |batch| -> io::Result<()> {
                failed += batch.results[0][..batch.records.len()]
                    .iter()
                    .filter(|r| r.is_failure())
                    .count();
                Ok(())
            },
        );
        match ended {
            Err(RunError::Harness { corpus, why }) => {
                assert_eq!((corpus.as_str(), why.as_str()), ("t", "cannot make a pipe"))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(failed, 0, "no row charged to the solver");
        let reported: u64 = summary.rows().iter().map(|r| r.puzzles).sum();
        assert!(reported < 2000, "the run went no further: {reported}");
    }

    #[test]
    fn a_stop_before_the_run_reports_nothing() {
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(settings(&["fast"], 64, 1), 2, &clock).unwrap();
        let stop = Stop::default();
        stop.request(15);
        runner.stop_when(stop);
        let mut summary = Summary::default();
        let ended = run_with(
            &mut runner,
            &mut corpus(&mixed(500)),
            &mut summary,
            |b| -> io::Result<()> {
                assert!(b.records.is_empty(), "nothing solved, nothing reported");
                Ok(())
            },
        )
        .unwrap();
        assert!(matches!(ended, Ended::Stopped { .. }), "{ended:?}");
        assert!(summary.rows().iter().all(|r| r.puzzles == 0));
    }

    #[test]
    fn every_worker_makes_its_solvers_before_the_first_timed_phase() {
        // A foreign solver's start-up (a process, its probe) happens when a worker makes
        // its solvers: inside a phase, it would be charged to that phase's strategy.
        struct Phases(AtomicU64);
        impl Clock for Phases {
            fn time(&self, solve: &mut dyn FnMut() -> crate::Outcome) -> (crate::Outcome, Cost) {
                (solve(), Cost::of_ns(1))
            }
            fn now_ns(&self) -> u64 {
                self.0.fetch_add(1, Ordering::SeqCst)
            }
        }
        let clock = Arc::new(Phases(AtomicU64::new(0)));
        let makes = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (seen, record) = (Arc::clone(&clock), Arc::clone(&makes));
        let slow = StrategyInfo::new("late", move || {
            record.lock().unwrap().push(seen.0.load(Ordering::SeqCst));
            by_name("fast").unwrap().make()
        });
        let s = Settings {
            strategies: vec![by_name("fast").unwrap().clone(), slow],
            warmup: false,
            ..settings(&[], 64, 1)
        };
        let mut runner = Runner::new(s, 2, clock.as_ref()).unwrap();
        let mut summary = Summary::default();
        run_with(&mut runner, &mut corpus(&mixed(40)), &mut summary, |_| {
            Ok(())
        })
        .unwrap();
        let makes = makes.lock().unwrap();
        assert_eq!(makes.len(), 2, "one per worker");
        assert!(makes.iter().all(|&t| t == 0), "made in a phase: {makes:?}");
    }

    #[test]
    fn a_strategy_of_ones_own_named_like_the_reference_is_checked_against_it() {
        let s = Settings {
            strategies: vec![wrapped("fast", |f| Box::new(OneTooMany(f)))],
            ..settings(&[], 8, 1)
        };
        let clock = MockClock::new(1, 0, 1);
        let (_, summary) = run(&format!("{EASY}\n"), s, 1, &clock);
        assert_eq!(summary.mismatches(), 1, "counted 2 where `fast` counts 1");
    }
}
