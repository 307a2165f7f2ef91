//! `Runner`: solves every puzzle of a corpus with every selected strategy on a rayon pool,
//! and hands results back in input order, chunk by chunk, whatever the thread count.
//!
//! A reader thread reads and parses chunks of records ahead, so reading overlaps solving.
//! Each strategy in turn solves the whole chunk in parallel: one phase per strategy, so
//! its wall-clock time is measured on its own and two strategies never compete for the
//! cores while being timed. The phases run in one order in a chunk and in the reverse
//! order in the next (ABBA), so that two strategies compared in one run see the same
//! machine. Each worker thread keeps its own solver per strategy, reused
//! across puzzles (the [`Engine`]'s). A solved chunk is reported (given to the [`Sink`]:
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
//! equivalent grid ([`crate::permute`]), and its solution is mapped back to the puzzle as
//! read before it is checked.
//!
//! A run can be stopped (`Runner::stop_when`): the workers look at the flag before each
//! task (a few puzzles), so a stop waits for at most one task per worker. The records of
//! a chunk are reported in input order up to the first one that some strategy did not
//! solve: a record is reported with every strategy or not at all, so the summary and the
//! rows agree and two strategies' rows always pair. The rest is dropped, not reported.

use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use rayon::prelude::*;

use crate::clock::Clock;
use crate::corpus::{Chunk, Corpus, Kind, Lines, LoadError, Record};
use crate::engine::{result_of, Engine};
use crate::grid::Grid;
use crate::interrupt::Stop;
use crate::permute::Transform;
use crate::preemption;
use crate::results::{Batch, PuzzleResult, Sink};
use crate::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};
use crate::summary::{Summary, SummaryReport};

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The strategies timed, in the order reports list them.
    pub strategies: Vec<StrategyInfo>,
    /// The limits of every search.
    pub limits: Limits,
    /// Time each solve this many times and keep the fastest.
    pub repeat: u32,
    /// Records read (and held) at once, at most: the first chunks are smaller.
    pub chunk_size: usize,
    /// Solve a few puzzles untimed before the first timed phase.
    pub warmup: bool,
    /// The strategy whose counts every strategy's must agree with (see the module's
    /// documentation); `None`: counts are not compared.
    pub reference: Option<StrategyInfo>,
    /// Solve each puzzle as a random equivalent grid, drawn from this seed and the
    /// record's line (`Transform::for_line`): the same for every strategy, the reference
    /// included. Solutions are mapped back before they are checked; nodes may change.
    pub permute: Option<u64>,
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
            warmup: true,
            reference: Some(crate::classify::fastest().clone()),
            permute: None,
        }
    }
}

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

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The corpus could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The sink refused a batch (e.g. the output could not be written).
    #[error("{0}")]
    Sink(io::Error),
}

/// Chunks at once: one being read, one waiting, one being solved, one being reported.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Records in the first chunk; each next one is twice as large, up to the chunk size.
const FIRST_CHUNK: usize = 256;

/// Puzzles a worker solves in a row before looking for other work: enough to spread the
/// cost of taking a task, few enough that the cores finish a phase together.
const PUZZLES_PER_TASK: usize = 8;

/// Puzzles each strategy solves, untimed, before its first timed phase.
const WARMUP_PUZZLES: usize = 64;
/// Node cap during warm-up, so a slow strategy does not spend seconds warming up.
const WARMUP_MAX_NODES: u64 = 100_000;

/// A chunk read (with whether it is the last), or why reading failed.
type Read = Result<(Chunk, bool), LoadError>;

/// What solving one chunk left: kept with the chunk until it is reported, then reused.
#[derive(Debug, Default)]
struct Solved {
    /// Per strategy of the engine (the reference last, when it is not in the run).
    results: Vec<Vec<PuzzleResult>>,
    /// Per timed strategy, the wall time of its phase that goes with the reported records.
    walls: Vec<u64>,
    /// Per timed strategy, the preemptions of its phase that go with the reported records.
    preemptions: Vec<Option<u64>>,
    /// Records solved by every strategy, from the first: the ones to report.
    reported: usize,
}

/// The chunks between the reader and the sink, and result buffers to reuse.
#[derive(Debug, Default)]
struct InFlight {
    /// A solved chunk not reported yet.
    pending: Option<(Chunk, Solved)>,
    /// A reported chunk on its way back to the reader (see `Runner::solve_next`).
    spare: Option<Chunk>,
    /// Result buffers to solve the next chunk into.
    buffers: Solved,
}

/// Hands solved chunks to the sink, and the chunks reported back to the reader.
struct Reporter<'a, S> {
    corpus: &'a str,
    strategies: Vec<StrategyInfo>,
    sink: &'a mut S,
    /// Free chunks for the reader. Its end of the channel closes when the reporter is
    /// dropped, so the reader stops waiting for chunks.
    empty: Sender<Chunk>,
    /// Records reported.
    records: u64,
    progress: Option<Arc<WorkDone>>,
}

impl<S: Sink> Reporter<'_, S> {
    /// Give the records `solved` by every strategy of `chunk` to the sink.
    fn report(&mut self, chunk: &Chunk, solved: &Solved) -> Result<(), RunError> {
        let records = &chunk.records()[..solved.reported];
        self.records += records.len() as u64;
        if let Some(p) = &self.progress {
            p.puzzles.fetch_add(records.len() as u64, Ordering::Relaxed);
        }
        let batch = Batch {
            corpus: self.corpus,
            records,
            strategies: &self.strategies,
            results: &solved.results[..self.strategies.len()],
            walls: &solved.walls,
            preemptions: &solved.preemptions,
        };
        self.sink.batch(&batch).map_err(RunError::Sink)
    }

    /// Report the pending chunk, if any, and give it back to the reader with the spare.
    fn report_pending(&mut self, flight: &mut InFlight) -> Result<(), RunError> {
        if let Some((chunk, solved)) = flight.pending.take() {
            self.report(&chunk, &solved)?;
            self.give_back([flight.spare.take(), Some(chunk)]);
            flight.buffers = solved;
        }
        Ok(())
    }

    /// Free chunks go back to the reader before the loop waits for it. It may have
    /// stopped at the end already: then nobody wants them.
    fn give_back(&self, chunks: [Option<Chunk>; 2]) {
        for chunk in chunks.into_iter().flatten() {
            let _ = self.empty.send(chunk);
        }
    }
}

/// Runs strategies over corpora; see the module's documentation.
pub struct Runner<'c> {
    settings: Settings,
    /// The timed strategies, then the reference when it is not one of them.
    engine: Engine,
    /// The reference's index among the engine's strategies.
    reference: Option<usize>,
    clock: &'c dyn Clock,
    /// Per task of the last phase: whether it was solved (false: skipped on a stop).
    tasks_done: Vec<bool>,
    /// Chunks solved so far, over every corpus: its parity sets the order of the phases.
    chunks_solved: u64,
    warmed_up: bool,
    progress: Option<Arc<WorkDone>>,
    stop: Stop,
}

impl<'c> Runner<'c> {
    /// A runner on `threads` worker threads (0: one per core).
    pub fn new(
        settings: Settings,
        threads: usize,
        clock: &'c dyn Clock,
    ) -> Result<Runner<'c>, rayon::ThreadPoolBuildError> {
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
        let engine = Engine::new(solvers, settings.limits, threads, "solver")?;
        Ok(Runner {
            warmed_up: !settings.warmup,
            settings,
            engine,
            reference,
            clock,
            tasks_done: Vec::new(),
            chunks_solved: 0,
            progress: None,
            stop: Stop::default(),
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

    /// What this runner runs.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Run every strategy over `corpus`, giving each chunk of results to `sink` in input
    /// order. `sink` runs on one of the runner's workers, so parallel iterators in it
    /// share the runner's threads.
    pub fn run(&mut self, corpus: &mut Corpus, sink: &mut impl Sink) -> Result<Ended, RunError> {
        sink.begin(corpus.name(), &self.settings.strategies)
            .map_err(RunError::Sink)?;
        self.engine.make_solvers();
        let name = corpus.name().to_string();
        // Chunks go round: the reader fills one while the workers solve another.
        // Unbounded, so that sending a chunk never blocks the reader: a blocked send only
        // completes once the reader is woken and runs again, which, with every core busy
        // solving, can be a millisecond or more later, and the workers would wait for the
        // chunk the reader holds. Memory stays bounded: only `CHUNKS_IN_FLIGHT` chunks
        // exist.
        let (full_tx, full_rx) = channel::<Read>();
        let (empty_tx, empty_rx) = channel::<Chunk>();
        for _ in 0..CHUNKS_IN_FLIGHT {
            empty_tx
                .send(Chunk::new(Lines::Entries))
                .expect("the receiver is alive");
        }
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

    /// The loop of a run: takes each chunk read, solves it, reports it, and gives it back
    /// to the reader. Returns whether the run was stopped.
    fn solve_and_report<S: Sink>(
        &mut self,
        full: Receiver<Read>,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<bool, RunError> {
        // With one strategy, a solved chunk is reported while the next one is solved: the
        // cores then never wait for each other between the two, and the reporting runs
        // between solve tasks, never inside a timed solve. With several, each strategy's
        // phase is timed alone, so a chunk is reported before the next is solved.
        let overlap = self.settings.strategies.len() == 1;
        let mut flight = InFlight::default();
        loop {
            let read = match full.try_recv() {
                Ok(read) => Some(read),
                // Nothing to solve meanwhile: report now rather than hold the results
                // back until the next chunk comes.
                Err(TryRecvError::Empty) => {
                    reporter.report_pending(&mut flight)?;
                    full.recv().ok()
                }
                Err(TryRecvError::Disconnected) => None,
            };
            let (chunk, last) = match read {
                Some(Ok((chunk, last))) if !chunk.is_empty() => (chunk, last),
                end => return self.end(end, flight, reporter),
            };
            let solved = self.solve_next(&chunk, &mut flight, reporter)?;
            let stopping = solved.reported < chunk.records().len() || self.stop.requested();
            if overlap && !last && !stopping {
                flight.pending = Some((chunk, solved));
                continue;
            }
            reporter.report(&chunk, &solved)?;
            if last || stopping {
                return Ok(stopping);
            }
            flight.buffers = solved;
            reporter.give_back([flight.spare.take(), Some(chunk)]);
        }
    }

    /// Solve `chunk`, reporting the pending chunk, if any, meanwhile.
    fn solve_next<S: Sink>(
        &mut self,
        chunk: &Chunk,
        flight: &mut InFlight,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<Solved, RunError> {
        let mut solved = std::mem::take(&mut flight.buffers);
        let Some((done, done_solved)) = flight.pending.take() else {
            self.solve_chunk(chunk, &mut solved);
            return Ok(solved);
        };
        let back = flight.spare.take();
        let ((), sunk) = rayon::join(
            || self.solve_chunk(chunk, &mut solved),
            || {
                // The chunk reported last time goes back to the reader now, at the start
                // of the solve, while its tasks are there to be taken: the reader's
                // wake-up preempts this worker for the time a chunk takes to read, and
                // the other worker carries on. Sent just after its report, near the end
                // of a solve, or after the join, before the next chunk's work was handed
                // out, it left the other worker with nothing to do.
                reporter.give_back([back, None]);
                reporter.report(&done, &done_solved)
            },
        );
        sunk?;
        flight.spare = Some(done);
        flight.buffers = done_solved;
        Ok(solved)
    }

    /// The end, a read error, or the reader stopped (on a stop request): what was solved
    /// is reported first. Returns whether the run was stopped.
    fn end<S: Sink>(
        &self,
        end: Option<Read>,
        mut flight: InFlight,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<bool, RunError> {
        if let Some((chunk, solved)) = flight.pending.take() {
            reporter.report(&chunk, &solved)?;
        }
        // Lines after the last entry (comments, blanks) are read too.
        if let (Some(Ok((chunk, _))), Some(p)) = (&end, &self.progress) {
            for bytes in &p.bytes {
                bytes.fetch_add(chunk.bytes(), Ordering::Relaxed);
            }
        }
        match end {
            Some(Err(error)) => Err(error.into()),
            Some(Ok(_)) => Ok(false),
            None => Ok(self.stop.requested()),
        }
    }

    /// Every strategy over one parsed chunk, one timed phase each, then the reference's
    /// untimed phase when it is not one of them, and the check of every count.
    fn solve_chunk(&mut self, chunk: &Chunk, out: &mut Solved) {
        let records = chunk.records();
        if !self.warmed_up {
            self.warm_up(records);
            self.warmed_up = true;
        }
        let timed = self.settings.strategies.len();
        let all = self.engine.strategies().len();
        out.results.resize_with(all, Vec::new);
        let mut walls = vec![0; timed];
        let mut switches = vec![0; timed];
        let mut solved = vec![0; all];
        // The timed phases run A B C in one chunk and C B A in the next (ABBA), so that no
        // strategy always runs first, on caches the reader thread just used, or last: in
        // a comparison of two strategies both see the same machine, in the same places.
        let backwards = self.chunks_solved % 2 == 1;
        self.chunks_solved += 1;
        let order = (0..timed)
            .map(move |k| if backwards { timed - 1 - k } else { k })
            .chain(timed..all);
        for s in order {
            let results = &mut out.results[s];
            let start = self.clock.now_ns();
            // The reference is not timed: one round gives its counts, and it does not
            // count towards progress.
            let (repeat, bytes) = if s < timed {
                (self.settings.repeat, Some(chunk.bytes()))
            } else {
                (1, None)
            };
            let how = How {
                repeat,
                ..self.how()
            };
            let (done, preempted) = self.phase(s, records, results, how, bytes);
            solved[s] = done;
            if s < timed {
                switches[s] = preempted;
                walls[s] = self.clock.now_ns().saturating_sub(start);
            }
        }
        out.reported = solved.iter().copied().min().unwrap_or(0);
        out.walls.clear();
        out.walls.extend(
            walls
                .iter()
                .zip(&solved)
                .map(|(&wall, &solved)| wall_share(wall, out.reported, solved)),
        );
        out.preemptions.clear();
        out.preemptions
            .extend(switches.iter().zip(&solved).map(|(&n, &solved)| {
                crate::preemption::COUNTED.then(|| wall_share(n, out.reported, solved))
            }));
        if let Some(r) = self.reference {
            check_counts(out, r, timed, &self.engine.strategies()[r].name);
        }
    }

    /// Solve the first puzzles of the chunk once per timed strategy, untimed, so that
    /// caches, branch predictors and lazily built tables are warm before the first timed
    /// phase.
    fn warm_up(&mut self, records: &[Record]) {
        let how = self.how();
        let how = How {
            limits: Limits {
                max_nodes: how.limits.max_nodes.min(WARMUP_MAX_NODES),
                ..how.limits
            },
            ..how
        };
        let n = records.len().min(WARMUP_PUZZLES);
        let mut results = Vec::new();
        for s in 0..self.settings.strategies.len() {
            self.phase(s, &records[..n], &mut results, how, None);
        }
    }

    /// How the timed phases solve: one round, with the run's limits and permutation.
    fn how(&self) -> How {
        How {
            limits: self.settings.limits,
            repeat: 1,
            permute: self.settings.permute,
        }
    }

    /// Solve `records` with strategy `s`, in parallel unless it is serial, into `results`.
    /// With the `bytes` of input behind them, the solves count towards progress. Returns
    /// how many records, from the first, were solved (all of them unless a stop was
    /// requested), and the involuntary context switches the workers suffered during
    /// their tasks (see [`preemption`]).
    fn phase(
        &mut self,
        s: usize,
        records: &[Record],
        results: &mut Vec<PuzzleResult>,
        how: How,
        bytes: Option<u64>,
    ) -> (usize, u64) {
        let n = records.len();
        if results.len() < n {
            results.resize(n, PuzzleResult::default());
        }
        let engine = &self.engine;
        let clock = self.clock;
        let info = &engine.strategies()[s];
        if let Some(p) = &self.progress {
            p.phase.store(s, Ordering::Relaxed);
        }
        let progress = self.progress.as_deref().zip(bytes);
        let stop = &self.stop;
        let tasks_done = &mut self.tasks_done;
        let preempted = AtomicU64::new(0);
        // Solves one task; `false` when it was skipped on a stop.
        let task = |(k, (results, records)): (usize, (&mut [PuzzleResult], &[Record]))| {
            // Between tasks, never inside a timed solve.
            if stop.requested() {
                return false;
            }
            engine.with_solver(s, |solver| {
                solve_task(records, results, solver, info, &how, clock);
            });
            // Read by the worker itself, after the task's last timed solve. Every phase
            // reads (the untimed ones too), so a timed phase counts only its own tasks
            // and the moments just before them.
            let switches = preemption::since_last_read();
            preempted.fetch_add(switches, Ordering::Relaxed);
            if let Some((p, bytes)) = progress {
                // The task's share of the chunk's bytes: the shares of all tasks
                // add up to the chunk's bytes exactly.
                let upto = |i: usize| (bytes as u128 * i as u128 / n as u128) as u64;
                let start = k * PUZZLES_PER_TASK;
                let share = upto(start + records.len()) - upto(start);
                if let Some(done) = p.bytes.get(s) {
                    done.fetch_add(share, Ordering::Relaxed);
                }
            }
            true
        };
        if info.parallel {
            engine.pool().install(|| {
                // A task solves a few puzzles in a row, taking the worker's state once for
                // them all rather than once a puzzle. Every task can be taken on its own
                // (`with_max_len(1)`): else a worker works through a run of tasks that no
                // one else can take, and if the reader or writer thread preempts it there,
                // the other worker runs out of work and sleeps (~200 us each time).
                results[..n]
                    .par_chunks_mut(PUZZLES_PER_TASK)
                    .zip(records.par_chunks(PUZZLES_PER_TASK))
                    .with_max_len(1)
                    .enumerate()
                    .map(task)
                    .collect_into_vec(tasks_done);
            });
        } else {
            // Not reentrant: every task on this one thread, in turn.
            tasks_done.clear();
            tasks_done.extend(
                results[..n]
                    .chunks_mut(PUZZLES_PER_TASK)
                    .zip(records.chunks(PUZZLES_PER_TASK))
                    .enumerate()
                    .map(task),
            );
        }
        let done = tasks_done
            .iter()
            .position(|done| !done)
            .map_or(n, |k| k * PUZZLES_PER_TASK);
        (done, preempted.into_inner())
    }
}

/// The reader thread: reads chunks from `corpus` as `empty` gives them, into `full`, until
/// the end, a read error, a stop, or the loop hanging up. Returns how many records it read.
fn spawn_reader<'scope>(
    scope: &'scope Scope<'scope, '_>,
    corpus: &'scope mut Corpus,
    size: usize,
    stop: Stop,
    empty: Receiver<Chunk>,
    full: Sender<Read>,
) -> Result<ScopedJoinHandle<'scope, u64>, RunError> {
    std::thread::Builder::new()
        .name("reader".into())
        .spawn_scoped(scope, move || {
            // The first chunks are small, so the workers start at once rather than after
            // a whole chunk has been read.
            let mut next_size = size.min(FIRST_CHUNK);
            let mut records = 0u64;
            for mut chunk in empty {
                if stop.requested() {
                    return records;
                }
                let read = corpus.read_chunk(&mut chunk, next_size);
                records += chunk.records().len() as u64;
                let bytes = corpus.bytes_read();
                let left = corpus.size().map(|size| size.saturating_sub(bytes));
                next_size = next_chunk_size(next_size, size, left, bytes / records.max(1));
                // A full chunk comes with whether it is the last, so that the run ends
                // with it rather than when the reader, woken once more, finds nothing.
                let last = match read {
                    Ok(n) => n == 0 || corpus.at_end(),
                    Err(_) => true,
                };
                if full.send(read.map(|_| (chunk, last))).is_err() || last {
                    return records;
                }
            }
            records
        })
        .map_err(|e| RunError::Load(LoadError::Thread(e)))
}

/// Check the first `solved.reported` results of the first `timed` strategies against the
/// reference's (strategy `r`, named `name`), which is not checked against itself.
fn check_counts(solved: &mut Solved, r: usize, timed: usize, name: &str) {
    let n = solved.reported;
    let reference = std::mem::take(&mut solved.results[r]);
    for (s, results) in solved.results[..timed].iter_mut().enumerate() {
        if s != r {
            for (result, reference) in results[..n].iter_mut().zip(&reference[..n]) {
                result.check_count(reference, name);
            }
        }
    }
    solved.results[r] = reference;
}

/// The part of a phase's `wall` time that goes with the `reported` records, out of the
/// `solved` ones: all of it, unless a stop left some solved records unreported.
fn wall_share(wall: u64, reported: usize, solved: usize) -> u64 {
    if reported >= solved {
        wall
    } else {
        (wall as u128 * reported as u128 / solved as u128) as u64
    }
}

/// Records to read into the next chunk, after one of `last`: twice as many, up to `max`.
/// When the bytes `left` to read are known, at most half the records they seem to hold
/// (at `per_record` bytes each), though not fewer than `FIRST_CHUNK`: the last chunks
/// shrink, so that the run ends soon after its last solve rather than with a whole chunk
/// still to report and write while one core waits.
fn next_chunk_size(last: usize, max: usize, left: Option<u64>, per_record: u64) -> usize {
    let doubled = last.saturating_mul(2).min(max);
    match left {
        Some(left) if per_record > 0 => {
            let half_left = usize::try_from(left / per_record / 2).unwrap_or(usize::MAX);
            doubled.min(half_left.max(FIRST_CHUNK.min(max)))
        }
        _ => doubled,
    }
}

/// How a phase solves each puzzle.
#[derive(Debug, Clone, Copy)]
struct How {
    /// The limits of every search.
    limits: Limits,
    /// Timings per solve; the fastest is kept.
    repeat: u32,
    /// The seed of the equivalent grids solved instead of the records' (`Settings::permute`).
    permute: Option<u64>,
}

/// One task's records (at most `PUZZLES_PER_TASK`) under strategy `info`, into `results`.
/// Its puzzles are solved back to back and timed with `Clock::time_each`; transforming
/// them (`--permute`) comes before the first solve, and mapping the solutions back,
/// checking and recording the outcomes after the last, outside the timings.
fn solve_task(
    records: &[Record],
    results: &mut [PuzzleResult],
    strategy: &mut dyn Strategy,
    info: &StrategyInfo,
    how: &How,
    clock: &dyn Clock,
) {
    let (limits, repeat) = (&how.limits, how.repeat);
    let mut grids = [Grid::EMPTY; PUZZLES_PER_TASK];
    let mut transforms: [Option<Transform>; PUZZLES_PER_TASK] = [None; PUZZLES_PER_TASK];
    let mut puzzles = 0;
    for record in records {
        if let Kind::Puzzle { grid, .. } = &record.kind {
            grids[puzzles] = match how.permute {
                Some(seed) => {
                    let t = Transform::for_line(seed, record.line);
                    transforms[puzzles] = Some(t);
                    t.apply(grid)
                }
                None => *grid,
            };
            puzzles += 1;
        }
    }
    let mut best: [Option<(Outcome, u64)>; PUZZLES_PER_TASK] = [const { None }; PUZZLES_PER_TASK];
    let mut solve = |i: usize| strategy.solve(&grids[i], limits);
    clock.time_each(&mut solve, &mut best[..puzzles]);
    // Further rounds keep each puzzle's fastest time, and the first round's outcome unless
    // a later one disagrees (see `later_round`).
    if repeat > 1 {
        let mut round: [Option<(Outcome, u64)>; PUZZLES_PER_TASK] =
            [const { None }; PUZZLES_PER_TASK];
        for _ in 1..repeat {
            clock.time_each(&mut solve, &mut round[..puzzles]);
            for (best, timed) in best.iter_mut().zip(&round).take(puzzles) {
                if let (Some((kept, best_ns)), Some((outcome, ns))) = (best, timed) {
                    *best_ns = (*best_ns).min(*ns);
                    later_round(kept, outcome);
                }
            }
        }
    }
    // The record's own grid is what the solution is checked against and written for.
    for (slot, t) in best.iter_mut().zip(&transforms) {
        if let (Some((outcome, _)), Some(t)) = (slot, t) {
            outcome.first = outcome.first.map(|s| t.unapply(&s));
        }
    }
    let mut timed = best.iter().flatten();
    for (result, record) in results.iter_mut().zip(records) {
        let searched = match record.kind {
            Kind::Puzzle { .. } => timed.next().map(|(outcome, ns)| (outcome, *ns)),
            _ => None,
        };
        *result = result_of(record, searched, limits, info);
    }
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
    use super::*;
    use crate::clock::MockClock;
    use crate::corpus::read_all;
    use crate::corpus::tests::FailsAfter;
    use crate::results::sink::from_fn;
    use crate::results::Status;
    use crate::strategy::by_name;
    use std::time::Duration;

    const EASY: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const TWO: &str =
        "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";

    /// `runner.run` into `summary` and `f`.
    fn run_with(
        runner: &mut Runner,
        corpus: &mut Corpus,
        summary: &mut Summary,
        f: impl FnMut(&Batch) -> io::Result<()> + Send,
    ) -> Result<Ended, RunError> {
        runner.run(corpus, &mut (from_fn(f), summary))
    }

    fn corpus(text: &str) -> Corpus {
        Corpus::from_reader(
            "t",
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            None,
            None,
        )
    }

    fn settings(names: &[&str], chunk_size: usize, repeat: u32) -> Settings {
        Settings {
            strategies: names.iter().map(|n| by_name(n).unwrap().clone()).collect(),
            chunk_size,
            repeat,
            ..Settings::default()
        }
    }

    /// (line, strategy index, status, nodes, time) for every result, in the order given.
    type Row = (u64, usize, Status, Option<u64>, Option<u64>);

    fn run(text: &str, s: Settings, threads: usize, clock: &MockClock) -> (Vec<Row>, Summary) {
        let mut runner = Runner::new(s, threads, clock).unwrap();
        let mut summary = Summary::default();
        let mut rows = Vec::new();
        run_with(
            &mut runner,
            &mut corpus(text),
            &mut summary,
            |batch| -> io::Result<()> {
                for (i, r) in batch.records.iter().enumerate() {
                    for s in 0..batch.strategies.len() {
                        let res = &batch.results[s][i];
                        rows.push((r.line, s, res.status, res.nodes, res.time_ns));
                    }
                }
                Ok(())
            },
        )
        .unwrap();
        (rows, summary)
    }

    /// Run `fast` over `input` in chunks of `chunk_size` on `threads` threads, calling
    /// `after` after each batch: the lines of the records reported, and how it ended.
    fn lines_reported(
        input: impl std::io::BufRead + Send + 'static,
        chunk_size: usize,
        threads: usize,
        mut after: impl FnMut() + Send,
    ) -> (Vec<u64>, Result<Ended, RunError>) {
        let mut corpus = Corpus::from_reader("t", Box::new(input), None, None);
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(settings(&["fast"], chunk_size, 1), threads, &clock).unwrap();
        let mut summary = Summary::default();
        let mut lines = Vec::new();
        let result = run_with(
            &mut runner,
            &mut corpus,
            &mut summary,
            |b| -> io::Result<()> {
                lines.extend(b.records.iter().map(|r| r.line));
                after();
                Ok(())
            },
        );
        (lines, result)
    }

    fn mixed(n: usize) -> String {
        (0..n)
            .map(|i| match i % 4 {
                0 => EASY.to_string(),
                1 => TWO.to_string(),
                2 => "# comment".to_string(),
                _ => EASY[..40].to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
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
    fn one_strategy_reports_each_chunk_with_its_own_results() {
        // With one strategy a chunk is reported while the next is solved, from a second
        // set of result buffers: every row must still be its own line's result.
        let text = mixed(403);
        let clock = MockClock::new(5, 1, 1);
        for (chunk_size, threads) in [(1, 1), (7, 2), (64, 2), (2048, 2)] {
            let (rows, summary) = run(
                &text,
                settings(&["bitmask"], chunk_size, 1),
                threads,
                &clock,
            );
            let lines: Vec<&str> = text.lines().collect();
            let entries = lines.iter().filter(|l| !l.starts_with('#')).count();
            assert_eq!(rows.len(), entries, "chunks of {chunk_size}");
            for (line, _, status, _, _) in &rows {
                let expected = match lines[*line as usize - 1] {
                    l if l == EASY => Status::Unique,
                    l if l == TWO => Status::Multiple,
                    _ => Status::Malformed,
                };
                assert_eq!(*status, expected, "line {line}, chunks of {chunk_size}");
            }
            let r = &summary.rows()[0];
            assert_eq!(r.puzzles as usize, entries);
            assert_eq!(
                r.unique as usize,
                rows.iter().filter(|r| r.2 == Status::Unique).count()
            );
        }
    }

    #[test]
    fn progress_counts_every_puzzle_and_every_byte_of_each_strategy() {
        let text = mixed(203);
        let entries = text.lines().filter(|l| !l.starts_with('#')).count() as u64;
        for (chunk_size, threads) in [(1, 1), (7, 2), (2048, 2)] {
            let clock = MockClock::new(5, 1, 1);
            let s = settings(&["bitmask", "dlx"], chunk_size, 1);
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
    fn chunks_double_then_shrink_towards_the_end() {
        // Unknown size (stdin): doubling up to the chunk size.
        assert_eq!(next_chunk_size(256, 2048, None, 82), 512);
        assert_eq!(next_chunk_size(2048, 2048, None, 82), 2048);
        // Far from the end: as without a size.
        assert_eq!(next_chunk_size(1024, 2048, Some(4_000_000), 82), 2048);
        // Near it: half of what is left, down to the first chunk's size.
        assert_eq!(next_chunk_size(2048, 2048, Some(82 * 1000), 82), 500);
        assert_eq!(next_chunk_size(500, 2048, Some(82 * 100), 82), 256);
        assert_eq!(next_chunk_size(256, 2048, Some(0), 82), 256);
        // Never above the chunk size, nor below 1.
        assert_eq!(next_chunk_size(1, 1, Some(0), 82), 1);
        assert_eq!(next_chunk_size(8, 100, Some(82 * 1000), 82), 16);
    }

    #[test]
    fn a_chunk_is_reported_without_waiting_for_the_next() {
        // Input that stops after two lines until the sink has seen the first: the run
        // must report what it solved while the reader waits, not hold it back.
        struct Gated {
            lines: Vec<Vec<u8>>,
            served: usize,
            gate: std::sync::mpsc::Receiver<()>,
        }
        impl std::io::Read for Gated {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.served == 2 && self.gate.recv_timeout(Duration::from_secs(5)).is_err() {
                    self.lines.clear();
                    return Err(std::io::Error::other("line 1 was never reported"));
                }
                let Some(line) = self.lines.get(self.served) else {
                    return Ok(0);
                };
                buf[..line.len()].copy_from_slice(line);
                self.served += 1;
                Ok(line.len())
            }
        }
        let (open, gate) = channel();
        let input = Gated {
            lines: vec![format!("{EASY}\n").into_bytes(); 3],
            served: 0,
            gate,
        };
        let reader = std::io::BufReader::with_capacity(256, input);
        let (lines, result) = lines_reported(reader, 1, 2, || {
            let _ = open.send(());
        });
        result.unwrap();
        assert_eq!(lines, [1, 2, 3]);
    }

    #[test]
    fn repeat_keeps_the_fastest_and_the_same_outcome() {
        struct Slowing {
            calls: std::sync::atomic::AtomicU64,
        }
        impl Clock for Slowing {
            // Each timing of the same solve is slower than the last: the first is kept.
            fn time(&self, solve: &mut dyn FnMut() -> crate::Outcome) -> (crate::Outcome, u64) {
                let n = self.calls.fetch_add(1, Ordering::Relaxed);
                (solve(), 100 + n)
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

    #[test]
    fn each_batch_carries_its_phases_preemptions_into_the_summary() {
        let clock = MockClock::new(1, 0, 7);
        let mut runner = Runner::new(settings(&["bitmask", "fast"], 4, 1), 2, &clock).unwrap();
        let mut summary = Summary::default();
        let mut sums = [Some(0u64), Some(0)];
        run_with(&mut runner, &mut corpus(&mixed(40)), &mut summary, |b| {
            assert_eq!(b.preemptions.len(), 2);
            for (sum, n) in sums.iter_mut().zip(b.preemptions) {
                *sum = sum.zip(*n).map(|(a, b)| a + b);
            }
            Ok(())
        })
        .unwrap();
        let counted: Vec<_> = summary.rows().iter().map(|r| r.preemptions).collect();
        if crate::preemption::COUNTED {
            assert_eq!(counted, sums);
        } else {
            assert_eq!(counted, [None, None]);
        }
    }

    #[test]
    fn wall_time_is_per_strategy_phase() {
        let clock = MockClock::new(1, 0, 7);
        let (_, summary) = run(&mixed(40), settings(&["bitmask", "fast"], 4, 1), 2, &clock);
        for r in summary.rows() {
            // 30 entries (every fourth line is a comment) in batches of 4: 8 batches, each
            // one phase per strategy, timed by two readings 7 ns apart.
            assert_eq!(r.wall_ns, 7 * 8, "{}", r.strategy);
        }
    }

    #[test]
    fn a_sink_error_stops_the_run_and_the_reader() {
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(settings(&["fast"], 2, 1), 2, &clock).unwrap();
        let mut summary = Summary::default();
        let mut batches = 0;
        // Many chunks: the reader is ahead, blocked on a full queue, when the sink fails.
        let result = run_with(&mut runner, &mut corpus(&mixed(400)), &mut summary, |_| {
            batches += 1;
            Err(io::Error::other("disk full"))
        });
        assert!(matches!(&result, Err(RunError::Sink(e)) if e.to_string() == "disk full"));
        assert_eq!(batches, 1);
    }

    #[test]
    fn a_read_error_comes_after_the_chunks_read_before_it() {
        let text = format!("{EASY}\n{TWO}\n{EASY}\n");
        let input = FailsAfter {
            good: std::io::Cursor::new(text.into_bytes()),
            why: "gone",
        };
        let reader = std::io::BufReader::with_capacity(32, input);
        let (lines, result) = lines_reported(reader, 2, 1, || {});
        assert_eq!(lines, [1, 2, 3]);
        match result {
            Err(RunError::Load(e)) => assert_eq!(
                format!("{:#}", anyhow::Error::from(e)),
                "t: read error after line 3: gone"
            ),
            other => panic!("expected a read error, got {other:?}"),
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
    fn an_interrupted_phase_keeps_the_reported_share_of_its_wall_time() {
        assert_eq!(wall_share(1000, 8, 8), 1000);
        assert_eq!(wall_share(1000, 4, 8), 500);
        assert_eq!(wall_share(1000, 0, 8), 0);
        assert_eq!(wall_share(1000, 0, 0), 1000);
    }

    /// Counts one solution more than `fast` on every puzzle with a solution, and returns
    /// none: wrong on those, right on the others.
    struct OneTooMany(Box<dyn Strategy>);

    impl Strategy for OneTooMany {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            let mut outcome = self.0.solve(puzzle, limits);
            if outcome.solutions > 0 {
                outcome.solutions += 1;
            }
            outcome.first = None;
            outcome
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

    fn wrapped(
        name: &'static str,
        wrap: fn(Box<dyn Strategy>) -> Box<dyn Strategy>,
    ) -> StrategyInfo {
        StrategyInfo::new(name, move || wrap(by_name("fast").unwrap().make()))
    }

    #[test]
    fn a_wrong_count_is_a_mismatch_against_the_reference_and_the_run_goes_on() {
        let text = format!(
            "{EASY}\n# note\n{TWO}\n{}\nbad\n",
            crate::strategy::testkit::UNSOLVABLE
        );
        let wrong = wrapped("wrong", |f| Box::new(OneTooMany(f)));
        // The reference runs untimed beside `wrong` and `bitmask`, or is `fast` itself.
        for others in [&["bitmask"][..], &["fast"], &[]] {
            let mut s = settings(others, 2, 1);
            s.strategies.insert(0, wrong.clone());
            let clock = MockClock::new(1, 0, 1);
            let mut runner = Runner::new(s, 2, &clock).unwrap();
            let mut summary = Summary::default();
            let mut rows = Vec::new();
            run_with(&mut runner, &mut corpus(&text), &mut summary, |b| {
                for (i, r) in b.records.iter().enumerate() {
                    for s in 0..b.strategies.len() {
                        rows.push((r.line, s, b.results[s][i].clone()));
                    }
                }
                Ok(())
            })
            .unwrap();
            let wrong_rows: Vec<_> = rows.iter().filter(|r| r.1 == 0).collect();
            assert_eq!(wrong_rows.len(), 4, "{others:?}: every entry reported");
            let error = |line: u64| {
                let r = wrong_rows.iter().find(|r| r.0 == line).unwrap();
                (r.2.is_wrong(), r.2.error.clone())
            };
            assert_eq!(
                error(1),
                (
                    true,
                    Some("counted 2 solutions; the reference (fast) counted 1".into())
                )
            );
            assert_eq!(
                error(3),
                (
                    true,
                    Some("counted 3 solutions; the reference (fast) counted 2".into())
                )
            );
            assert_eq!(error(4), (false, None), "no solution: counted right");
            // The others are right, and never checked against themselves.
            assert!(
                rows.iter().filter(|r| r.1 > 0).all(|r| !r.2.is_wrong()),
                "{others:?}"
            );
            let row = &summary.rows()[0];
            assert_eq!((row.strategy.as_str(), row.mismatches), ("wrong", 2));
            assert_eq!(summary.mismatches(), 2, "{others:?}");
            assert_eq!(row.unreturned, 2, "found solutions, returned none");
            // Only the timed strategies are reported.
            assert_eq!(summary.rows().len(), 1 + others.len());
        }
    }

    #[test]
    fn every_worker_makes_its_solvers_before_the_first_timed_phase() {
        // A foreign solver's start-up (a process, its probe) happens when a worker makes
        // its solvers: inside a phase, it would be charged to that phase's strategy.
        struct Phases(AtomicU64);
        impl Clock for Phases {
            fn time(&self, solve: &mut dyn FnMut() -> crate::Outcome) -> (crate::Outcome, u64) {
                (solve(), 1)
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

    /// `fast`, counting its solves into `solves`.
    struct Counted(Box<dyn Strategy>, Arc<AtomicU64>);

    impl Strategy for Counted {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.solve(puzzle, limits)
        }
    }

    #[test]
    fn the_untimed_reference_solves_each_puzzle_once_whatever_the_repeat() {
        let solves = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&solves);
        let reference = StrategyInfo::new("counted", move || {
            Box::new(Counted(
                by_name("fast").unwrap().make(),
                Arc::clone(&counter),
            ))
        });
        let s = Settings {
            reference: Some(reference),
            warmup: false,
            ..settings(&["bitmask"], 8, 3)
        };
        let clock = MockClock::new(1, 0, 1);
        let (rows, summary) = run(&format!("{EASY}\n{TWO}\n"), s, 2, &clock);
        assert_eq!(rows.len(), 2, "only bitmask is reported");
        assert_eq!(summary.mismatches(), 0);
        assert_eq!(solves.load(Ordering::Relaxed), 2, "one solve per puzzle");
    }

    #[test]
    fn without_a_reference_counts_are_not_compared() {
        let s = Settings {
            strategies: vec![wrapped("wrong", |f| Box::new(OneTooMany(f)))],
            reference: None,
            ..settings(&[], 8, 1)
        };
        let clock = MockClock::new(1, 0, 1);
        let (_, summary) = run(&format!("{EASY}\n"), s, 1, &clock);
        assert_eq!(summary.mismatches(), 0);
    }

    /// Appends its name to a shared log on every solve.
    struct Logged(
        Box<dyn Strategy>,
        &'static str,
        Arc<std::sync::Mutex<Vec<&'static str>>>,
    );

    impl Strategy for Logged {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            self.2.lock().unwrap().push(self.1);
            self.0.solve(puzzle, limits)
        }
    }

    #[test]
    fn phases_alternate_their_order_chunk_by_chunk() {
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let logged = |name: &'static str| {
            let log = Arc::clone(&log);
            StrategyInfo::new(name, move || {
                Box::new(Logged(
                    by_name("fast").unwrap().make(),
                    name,
                    Arc::clone(&log),
                ))
            })
        };
        let s = Settings {
            strategies: vec![logged("a"), logged("b")],
            reference: None,
            warmup: false,
            ..settings(&[], 2, 1)
        };
        let clock = MockClock::new(1, 0, 1);
        // Six puzzles in chunks of two: three chunks, two solves a phase.
        let text = [EASY; 6].join("\n");
        run(&text, s, 1, &clock);
        let phases: Vec<&str> = log.lock().unwrap().chunks(2).map(|p| p[0]).collect();
        assert_eq!(phases, ["a", "b", "b", "a", "a", "b"]);
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
