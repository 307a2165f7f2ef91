//! The phases of a chunk: each strategy in turn solves the whole chunk, in tasks of a few
//! puzzles (see [`super::task`]) on the workers, and its wall-clock time is measured on its
//! own; then the reference's untimed phase, and the check of every count against it. Before
//! the first timed phase, a warm-up.

use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use super::task::{How, Task};
use super::{Runner, WorkDone};
use crate::clock::{Clock, Cost};
use crate::corpus::Record;
use crate::engine::Engine;
use crate::interrupt::Stop;
use crate::preemption;
use crate::results::PuzzleResult;
use crate::strategy::{Limits, Outcome, StrategyInfo};

/// Puzzles each strategy solves, untimed, before its first timed phase.
const WARMUP_PUZZLES: usize = 64;
/// Node cap during warm-up, so a slow strategy does not spend seconds warming up.
const WARMUP_MAX_NODES: u64 = 100_000;
/// How long, once a stop is seen, the phases after the interrupted one may still take new
/// tasks to finish the records every phase before them solved: those records are reported
/// only when every strategy solved them, and a cheap phase (a built-in strategy after a
/// slow solver from outside) finishes them in far less. A user who asked to stop should
/// not wait longer than this for work that may still be lost.
const FINISH_BUDGET_NS: u64 = 1_000_000_000;

/// What a phase does once a stop is requested.
#[derive(Debug, Clone, Copy)]
enum AfterStop<'a> {
    /// It takes no more tasks: no record solved so far waits on it (the chunk's first
    /// phase, the warm-up).
    Halt,
    /// The records the chunk's earlier phases solved wait on it: it goes on taking tasks
    /// while it looks like ending by the deadline (`may_go_on`), which the first phase to
    /// ask sets (`by`). `began`: when the phase began, by the runner's clock.
    Finish { began: u64, by: &'a OnceLock<u64> },
}

/// Which worker solves which task of a phase. When the workers are pinned, each to a CPU
/// of its own, a record is solved on one worker by every timed strategy: the chunk's
/// first phase notes which worker solved it, and the phases after it follow, so the two
/// sides of a comparison are timed on the same CPU. CPUs of a shared machine differ in
/// speed by several percent, which a comparison across them would take for the solvers'.
#[derive(Clone, Copy)]
enum Owners<'a> {
    /// Whichever worker is free takes the next task.
    Free,
    /// Whichever worker is free takes the next task, and notes itself for its records.
    Note(&'a [AtomicU16]),
    /// Each worker takes the tasks of the records noted for it, in order.
    Follow(&'a [AtomicU16]),
}

/// What solving one chunk left: kept with the chunk until it is reported, then reused.
#[derive(Debug, Default)]
pub(super) struct Solved {
    /// Per strategy of the engine (the reference last, when it is not in the run).
    pub(super) results: Vec<Vec<PuzzleResult>>,
    /// Per timed strategy, the wall time of its phase that goes with the reported records.
    pub(super) walls: Vec<u64>,
    /// Per timed strategy, the preemptions of its phase that go with the reported records.
    pub(super) preemptions: Vec<Option<u64>>,
    /// Records solved by every strategy, from the first: the ones to report.
    pub(super) reported: usize,
}

impl Solved {
    /// Per timed strategy, the share of its phase's wall time and preemptions that goes
    /// with the reported records, out of the ones it `solved`.
    fn share_times(&mut self, walls: &[u64], preempted: &[Option<u64>], solved: &[usize]) {
        let reported = self.reported;
        self.walls.clear();
        self.walls.extend(
            walls
                .iter()
                .zip(solved)
                .map(|(&wall, &solved)| wall_share(wall, reported, solved)),
        );
        self.preemptions.clear();
        self.preemptions.extend(
            preempted
                .iter()
                .zip(solved)
                .map(|(&n, &solved)| n.map(|n| wall_share(n, reported, solved))),
        );
    }
}

impl Runner<'_> {
    /// Every strategy over one part of a chunk (its `records`, with the `bytes` of input
    /// behind them), one timed phase each, then the reference's untimed phase when it is
    /// not one of them, and the check of every count. The time it took, by the runner's
    /// clock, sets the size of the next part (see [`Pace`]).
    pub(super) fn solve_part(&mut self, (records, bytes): (&[Record], u64), out: &mut Solved) {
        if !self.warmed_up {
            self.warm_up(records);
            self.warmed_up = true;
        }
        let began = self.clock.now_ns();
        let timed = self.settings.strategies.len();
        let all = self.engine.strategies().len();
        out.results.resize_with(all, Vec::new);
        let mut walls = vec![0; timed];
        let mut preempted = vec![None; timed];
        let mut solved = vec![0; all];
        // The timed phases run A B C in one chunk and C B A in the next (ABBA), so that no
        // strategy always runs first, on caches the reader thread just used, or last: in
        // a comparison of two strategies both see the same machine, in the same places.
        let backwards = self.chunks_solved % 2 == 1;
        self.chunks_solved += 1;
        let order = (0..timed)
            .map(move |k| if backwards { timed - 1 - k } else { k })
            .chain(timed..all);
        // On a stop, the records every phase so far solved, from the first: the later
        // phases finish those (see `AfterStop`) rather than drop them.
        let mut upto = records.len();
        let finish_by = OnceLock::new();
        let mut owners = std::mem::take(&mut self.owners);
        let paired = self.settings.pin && self.engine.threads() > 1;
        if paired {
            owners.resize_with(records.len(), AtomicU16::default);
        }
        for (i, s) in order.enumerate() {
            let results = &mut out.results[s];
            let start = self.clock.now_ns();
            // The reference is not timed: one round gives its counts, and it does not
            // count towards progress.
            let (repeat, bytes) = if s < timed {
                (self.settings.repeat, Some(bytes))
            } else {
                (1, None)
            };
            let how = How {
                repeat,
                ..self.how()
            };
            let after_stop = match i {
                0 => AfterStop::Halt,
                _ => AfterStop::Finish {
                    began: start,
                    by: &finish_by,
                },
            };
            let owners = match (paired, s < timed) {
                (true, true) => self.owners_of(i, s, &owners),
                _ => Owners::Free,
            };
            let (done, held_off) = self.phase(
                s,
                (records, upto),
                results,
                (how, owners),
                bytes,
                after_stop,
            );
            upto = upto.min(done);
            solved[s] = done;
            if s < timed {
                preempted[s] = held_off;
                walls[s] = self.clock.now_ns().saturating_sub(start);
            }
        }
        self.owners = owners;
        out.reported = solved.iter().copied().min().unwrap_or(0);
        let spent = self.clock.now_ns().saturating_sub(began);
        self.pace.solved(records.len(), spent);
        out.share_times(&walls, &preempted, &solved);
        if let Some(r) = self.reference {
            check_counts(out, r, timed, &self.engine.strategies()[r].name);
        }
    }

    /// Which worker takes which of the part's records in timed phase `i` of the part
    /// (strategy `s`), when the workers are pinned: the first phase notes its workers in
    /// `owners`, and every later one follows them.
    fn owners_of<'o>(&self, i: usize, s: usize, owners: &'o [AtomicU16]) -> Owners<'o> {
        if i > 0 {
            return Owners::Follow(owners);
        }
        if self.engine.strategies()[s].parallel {
            return Owners::Note(owners);
        }
        // Solved by one thread at a time: whichever is free would be the same one
        // throughout, and every later phase would follow it onto one CPU. Runs of records
        // go to the workers in turn instead.
        let workers = self.engine.threads();
        for (i, owner) in owners.iter().enumerate() {
            owner.store(((i / REPLICATE_RUN) % workers) as u16, Ordering::Relaxed);
        }
        Owners::Follow(owners)
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
        // Every strategy over the same puzzles, as a part's phases: the pace of the first
        // part, before any was timed. Nodes are capped here, so a slow search looks
        // faster than it is: the first part is at most twice as large (see `Pace`).
        let began = self.clock.now_ns();
        for s in 0..self.settings.strategies.len() {
            self.phase(
                s,
                (&records[..n], n),
                &mut results,
                (how, Owners::Free),
                None,
                AfterStop::Halt,
            );
        }
        let spent = self.clock.now_ns().saturating_sub(began);
        self.pace.solved(n, spent);
    }

    /// How the timed phases solve: one round, with the run's limits and permutation.
    fn how(&self) -> How {
        How {
            limits: self.settings.limits,
            repeat: 1,
            permute: self.settings.permute,
            watch: false,
            prime: self.settings.warmup,
        }
    }

    /// Solve the first `upto` of `records` with strategy `s`, in parallel unless it is
    /// serial, into `results`, in `how.repeat` rounds: each a pass over them all, each
    /// puzzle keeping its fastest time, so that no solver sees a puzzle again before it
    /// has seen all the others (a few puzzles solved again and again train the branch
    /// predictor on them). With the `bytes` of input behind all `records`, the solves
    /// count towards progress. Returns how many records, from the first, were solved (all
    /// `upto`, or a few more to the end of a task, unless a stop was requested), and how
    /// many of their kept times other work on the machine held off their core (see
    /// [`preemption`]; `None` where that is not told).
    ///
    /// Tasks are taken in input order, whichever worker is free takes the next, so the
    /// records solved when a stop comes are the first ones, and every task taken is
    /// finished: a stop drops no solve but those that were never started. A stop ends
    /// the rounds too: the records the first round solved are kept, each with the fastest
    /// of the rounds it had.
    fn phase(
        &mut self,
        s: usize,
        (records, upto): (&[Record], usize),
        results: &mut Vec<PuzzleResult>,
        (how, owners): (How, Owners),
        bytes: Option<u64>,
        after_stop: AfterStop,
    ) -> (usize, Option<u64>) {
        let n = records.len();
        if results.len() < n {
            results.resize(n, PuzzleResult::default());
        }
        let mut timed = std::mem::take(&mut self.timed);
        if timed.len() < n {
            timed.resize(n, None);
        }
        let watch = preemption::COUNTED && self.in_process.get(s).copied().unwrap_or(true);
        if let Some(p) = &self.progress {
            p.phase.store(s, Ordering::Relaxed);
        }
        let ranges = self.ranges_of(s, n, owners);
        let slots = tasks(records, &ranges, &mut results[..n], &mut timed[..n], upto);
        let mut work = PhaseWork {
            s,
            info: &self.engine.strategies()[s],
            engine: &self.engine,
            clock: self.clock,
            // Only solvers in this process are primed: one in a process of its own leans
            // for another cause, which a primer does not take away (and a failure on it
            // there would cost a process).
            how: How {
                watch,
                prime: how.prime && self.in_process.get(s).copied().unwrap_or(true),
                ..how
            },
            rounds: how.repeat.max(1),
            n,
            stop: &self.stop,
            harness: &self.harness,
            progress: self.progress.as_deref().zip(bytes),
            tasks: slots.len(),
            slots,
            ranges,
        };
        for round in 0..work.rounds {
            if round > 0 && self.stop.requested() {
                break;
            }
            // The records solved before the stop wait on the first round only.
            let after_stop = if round == 0 {
                after_stop
            } else {
                AfterStop::Halt
            };
            work.round(round, after_stop, owners);
            // Later rounds go over the tasks the first one solved, from the first: a stop
            // may leave a worker's tasks after another's last one solved
            // (`Owners::Follow`), and records are reported from the first.
            if round == 0 {
                work.tasks = work.first_unsolved();
            }
        }
        let (done, held_off) = work.finish();
        self.timed = timed;
        (done, watch.then_some(held_off))
    }

    /// The tasks of strategy `s`'s phase over `n` records (see [`task_ranges`]), each with
    /// the worker that takes it when the phase follows the owners of an earlier one.
    fn ranges_of(&self, s: usize, n: usize, owners: Owners) -> Vec<OwnedRange> {
        let engine = &self.engine;
        // A part smaller than the workers' tasks would leave some workers idle: its tasks
        // shrink so that each worker has one.
        let per_task = engine.strategies()[s]
            .puzzles_per_task
            .min(n.div_ceil(engine.threads()).max(1));
        let chunk = self.chunks_solved.saturating_sub(1);
        let ranges = task_ranges(n, per_task, chunk, engine.replicates());
        let workers = engine.threads();
        match owners {
            Owners::Follow(noted) => by_owner(ranges, |i| {
                usize::from(noted[i].load(Ordering::Relaxed)).min(workers - 1)
            }),
            _ => ranges.into_iter().map(|(r, rep)| (r, rep, 0)).collect(),
        }
    }
}

/// A run of a phase's records: the replicate that solves it, and the worker that takes it
/// when the phase follows an earlier one's owners (else 0).
type OwnedRange = (std::ops::Range<usize>, u32, usize);

/// The tasks of the `ranges` that start before `upto`, each writing its part of
/// `results` and `timed`. A task is taken by one worker at a time: its lock is never
/// waited for.
fn tasks<'r>(
    records: &'r [Record],
    ranges: &[OwnedRange],
    mut results: &'r mut [PuzzleResult],
    mut timed: &'r mut [Option<(Outcome, Cost)>],
    upto: usize,
) -> Vec<Mutex<Task<'r>>> {
    let mut slots = Vec::with_capacity(ranges.len());
    let upto = upto.min(records.len());
    for (range, replicate, _) in ranges.iter().take_while(|(r, ..)| r.start < upto) {
        let (here, rest) = std::mem::take(&mut results).split_at_mut(range.len());
        results = rest;
        let (times, rest) = std::mem::take(&mut timed).split_at_mut(range.len());
        timed = rest;
        let task = Task::new(&records[range.clone()], here, times, *replicate);
        slots.push(Mutex::new(task));
    }
    slots
}

/// One phase's tasks, and what its workers share while they solve them.
struct PhaseWork<'a, 'r> {
    /// The strategy, by its index in the engine.
    s: usize,
    info: &'a StrategyInfo,
    engine: &'a Engine,
    clock: &'a dyn Clock,
    how: How,
    rounds: u32,
    /// Records in the part.
    n: usize,
    stop: &'a Stop,
    harness: &'a OnceLock<String>,
    /// Where progress is counted, and the bytes of input behind the part.
    progress: Option<(&'a WorkDone, u64)>,
    ranges: Vec<OwnedRange>,
    slots: Vec<Mutex<Task<'r>>>,
    /// The tasks a round goes over, from the first.
    tasks: usize,
}

/// What the workers of one round share: which tasks were taken and finished.
struct Round<'w, 'a, 'r> {
    work: &'w PhaseWork<'a, 'r>,
    round: u32,
    after_stop: AfterStop<'a>,
    taken: AtomicUsize,
    finished: AtomicUsize,
    /// Held by each solve of a strategy that is not reentrant.
    one_at_a_time: Mutex<()>,
    /// This round among all in this process, for the workers to tell a round from the
    /// one before (see `Engine::with_replicate_in`).
    epoch: u64,
}

/// Rounds begun, in this process: each round's `epoch`.
static ROUNDS_BEGUN: AtomicU64 = AtomicU64::new(0);

impl<'a, 'r> PhaseWork<'a, 'r> {
    /// One round over the tasks: on the workers that follow `owners`, on whichever worker
    /// is free, or on this thread alone for a strategy that is not reentrant.
    fn round(&self, round: u32, after_stop: AfterStop<'a>, owners: Owners) {
        let r = Round {
            work: self,
            round,
            after_stop,
            taken: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            one_at_a_time: Mutex::new(()),
            epoch: ROUNDS_BEGUN.fetch_add(1, Ordering::Relaxed),
        };
        if let Owners::Follow(_) = owners {
            self.engine.pool().broadcast(|worker| {
                let mut from = 0;
                while let Some(k) = r.take_own(worker.index(), &mut from) {
                    r.solve(k);
                }
            });
        } else if self.info.parallel {
            self.engine.pool().install(|| {
                // A task solves a few puzzles in a row, taking the worker's state once
                // for them all rather than once a puzzle. Every task can be taken on
                // its own (`with_max_len(1)`): else a worker works through a run of
                // tasks that no one else can take, and if the reader or writer thread
                // preempts it there, the other worker runs out of work and sleeps
                // (~200 us each time). Which task an item solves is the next in order,
                // not its own index: rayon hands the second half of the items to the
                // second worker, whose solves a stop would leave behind a gap,
                // unreported.
                (0..self.tasks)
                    .into_par_iter()
                    .with_max_len(1)
                    .for_each(|_| {
                        if let Some(k) = r.take() {
                            if let Owners::Note(noted) = owners {
                                let w = rayon::current_thread_index().unwrap_or(0) as u16;
                                for owner in &noted[self.ranges[k].0.clone()] {
                                    owner.store(w, Ordering::Relaxed);
                                }
                            }
                            r.solve(k);
                        }
                    });
            });
        } else {
            // Not reentrant: every task on this one thread, in turn.
            for _ in 0..self.tasks {
                let Some(k) = r.take() else { break };
                r.solve(k);
            }
        }
    }

    /// The first task the first round did not solve (a stop came), or all of them.
    fn first_unsolved(&self) -> usize {
        (0..self.tasks)
            .find(|&k| self.slots[k].lock().map_or(0, |t| t.rounds()) == 0)
            .unwrap_or(self.tasks)
    }

    /// Records every task's results, and returns how many records, from the first, were
    /// solved, and how many of their kept times other work held off their core.
    fn finish(self) -> (usize, u64) {
        let mut held_off = 0;
        for task in &self.slots[..self.tasks] {
            let mut task = task.lock().unwrap_or_else(|e| e.into_inner());
            // Rounds cut short by a stop: the records are kept with the rounds they had.
            if task.rounds() < self.rounds {
                task.record(self.info, &self.how);
            }
            held_off += task.held_off();
        }
        let done = self
            .tasks
            .checked_sub(1)
            .map_or(0, |last| self.ranges[last].0.end);
        (done, held_off)
    }
}

impl Round<'_, '_, '_> {
    /// Whether a worker may take another task: not once the harness failed, nor after a
    /// stop unless the phase finishes the records earlier phases solved (`AfterStop`).
    /// Asked between tasks, never inside a timed solve.
    fn may_take(&self) -> bool {
        let work = self.work;
        if work.harness.get().is_some() {
            return false;
        }
        if work.stop.requested() {
            let AfterStop::Finish { began, by } = self.after_stop else {
                return false;
            };
            let now = work.clock.now_ns();
            let deadline = *by.get_or_init(|| now.saturating_add(FINISH_BUDGET_NS));
            let left = work
                .tasks
                .saturating_sub(self.taken.load(Ordering::Relaxed));
            let done = self.finished.load(Ordering::Relaxed);
            return may_go_on(now, deadline, now.saturating_sub(began), done, left);
        }
        true
    }

    /// The next task to solve, in order.
    fn take(&self) -> Option<usize> {
        if !self.may_take() {
            return None;
        }
        let k = self.taken.fetch_add(1, Ordering::Relaxed);
        (k < self.work.tasks).then_some(k)
    }

    /// Worker `w`'s next task after `from` (`Owners::Follow`).
    fn take_own(&self, w: usize, from: &mut usize) -> Option<usize> {
        if !self.may_take() {
            return None;
        }
        let k = (*from..self.work.tasks).find(|&k| self.work.ranges[k].2 == w)?;
        *from = k + 1;
        self.taken.fetch_add(1, Ordering::Relaxed);
        Some(k)
    }

    /// Solve task `k` this round; record it after its last round, and count its share of
    /// the part's bytes towards progress.
    fn solve(&self, k: usize) {
        let work = self.work;
        // Not reentrant: one solve at a time, whichever worker it is on.
        let _alone = (!work.info.parallel)
            .then(|| self.one_at_a_time.lock().unwrap_or_else(|e| e.into_inner()));
        let mut task = work.slots[k].lock().unwrap_or_else(|e| e.into_inner());
        work.engine.with_replicate_in(
            (work.s, task.replicate() as usize),
            self.epoch,
            |solver, fresh| task.solve_round(solver, fresh, &work.how, work.clock),
        );
        if let Some(why) = task.harness_failure() {
            let _ = work.harness.set(why);
        }
        if task.rounds() == work.rounds {
            task.record(work.info, &work.how);
        }
        if let Some((p, bytes)) = work.progress {
            // The task's share of the part's bytes in this round: the shares of all
            // tasks in all rounds add up to the part's bytes exactly.
            let (n, rounds, round) = (work.n as u128, work.rounds as u128, self.round as u128);
            let upto = |i: usize| (bytes as u128 * (i as u128 + round * n) / (n * rounds)) as u64;
            let start = work.ranges[k].0.start;
            let share = upto(start + task.len()) - upto(start);
            if let Some(done) = p.bytes.get(work.s) {
                done.fetch_add(share, Ordering::Relaxed);
            }
        }
        self.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// Records a replicate's run within a chunk holds at least: a worker that switched solvers
/// every few puzzles would time each on cold caches (a solver from outside is a process of
/// its own: its memory, and the kernel's switch to it).
const REPLICATE_RUN: usize = 64;

/// The tasks of a phase over a chunk of `n` records, in order: runs of at most `per_task`
/// consecutive records, each with the replicate (see `Settings::replicates`) that solves
/// it. A record's replicate depends on its place in the chunk alone, never on the
/// strategy's task size, so a puzzle meets the same replicate of every strategy. A chunk is
/// cut into runs of consecutive records, one per replicate, of at least `REPLICATE_RUN`
/// records each (a chunk of fewer is one run), and tasks do not cross them. When a chunk
/// has fewer runs than there are replicates, the runs take the next replicates in turn, a
/// pair of chunks at a time, so that each replicate is timed in both phase orders.
fn task_ranges(
    n: usize,
    per_task: usize,
    chunk: u64,
    replicates: usize,
) -> Vec<(std::ops::Range<usize>, u32)> {
    let replicates = replicates.max(1);
    let runs = (n / REPLICATE_RUN).clamp(1, replicates);
    let first = (chunk / 2) as usize * runs;
    let of = |i: usize| ((first + i * runs / n.max(1)) % replicates) as u32;
    let mut ranges = Vec::with_capacity(n.div_ceil(per_task.max(1)) + runs);
    let mut start = 0;
    while start < n {
        let r = of(start);
        let mut end = start + 1;
        while end < n && end - start < per_task.max(1) && of(end) == r {
            end += 1;
        }
        ranges.push((start..end, r));
        start = end;
    }
    ranges
}

/// The `ranges` of [`task_ranges`], each cut where the worker `owner` gives its records
/// changes, with that worker.
fn by_owner(
    ranges: Vec<(std::ops::Range<usize>, u32)>,
    owner: impl Fn(usize) -> usize,
) -> Vec<(std::ops::Range<usize>, u32, usize)> {
    let mut cut = Vec::with_capacity(ranges.len());
    for (range, replicate) in ranges {
        let mut start = range.start;
        for i in range.clone() {
            if owner(i) != owner(start) {
                cut.push((start..i, replicate, owner(start)));
                start = i;
            }
        }
        cut.push((start..range.end, replicate, owner(start)));
    }
    cut
}

/// Whether a phase that goes on after a stop (`AfterStop::Finish`) may take another task
/// at `now`: before the `deadline`, and, once it has `finished` tasks in the `spent` time
/// since it began, when its `left` tasks at that pace look like ending by the deadline
/// too. A phase that cannot finish its records in time stops at once, rather than take
/// tasks whose work a shorter prefix would drop; one with no task finished yet takes one.
fn may_go_on(now: u64, deadline: u64, spent: u64, finished: usize, left: usize) -> bool {
    if now >= deadline {
        return false;
    }
    if finished == 0 {
        return true;
    }
    let pace = spent / finished as u64;
    now.saturating_add(pace.saturating_mul(left as u64)) <= deadline
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    use super::*;
    use crate::clock::MockClock;
    use crate::grid::Grid;
    use crate::interrupt::Stop;
    use crate::runner::testutil::{
        corpus, mixed, run, run_with, settings, wrapped, OneTooMany, EASY, TWO,
    };
    use crate::runner::Settings;
    use crate::strategy::{by_name, Outcome, Strategy, StrategyInfo};
    use crate::summary::Summary;

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
    fn every_replicate_takes_its_share_in_both_phase_orders() {
        let replicates = |n, per_task, chunk| -> Vec<u32> {
            task_ranges(n, per_task, chunk, 4)
                .into_iter()
                .flat_map(|(range, r)| range.map(move |_| r))
                .collect()
        };
        let runs = |v: Vec<u32>| -> Vec<(u32, usize)> {
            let mut out: Vec<(u32, usize)> = Vec::new();
            for r in v {
                match out.last_mut() {
                    Some((last, count)) if *last == r => *count += 1,
                    _ => out.push((r, 1)),
                }
            }
            out
        };
        // A large chunk: one run of consecutive records per replicate, whatever the task
        // size, so two strategies of different task sizes meet the same replicates.
        let big = 4 * REPLICATE_RUN;
        assert_eq!(
            runs(replicates(big, 8, 0)),
            (0..4).map(|r| (r, REPLICATE_RUN)).collect::<Vec<_>>()
        );
        assert_eq!(replicates(big + 10, 3, 5), replicates(big + 10, 64, 5));
        // Tasks hold at most per_task records and never cross a replicate's bounds.
        let ranges = task_ranges(big, 50, 0, 4);
        assert!(ranges.iter().all(|(r, _)| r.len() <= 50));
        assert_eq!(ranges.iter().map(|(r, _)| r.len()).sum::<usize>(), big);
        assert_eq!(ranges[1], (50..REPLICATE_RUN, 0));
        assert_eq!(ranges[2].1, 1);
        // Two runs' worth: the next two replicates each pair of chunks.
        let two = 2 * REPLICATE_RUN;
        let of = |chunk| -> Vec<u32> {
            runs(replicates(two, 8, chunk))
                .iter()
                .map(|r| r.0)
                .collect()
        };
        assert_eq!(
            [of(0), of(1), of(2), of(3), of(4)],
            [[0, 1], [0, 1], [2, 3], [2, 3], [0, 1]]
        );
        // Small chunks are one run: one replicate each pair of chunks, in turn, so each
        // replicate meets an even chunk (one phase order) and an odd one (the other).
        let small: Vec<Vec<u32>> = (0..10).map(|c| replicates(16, 8, c)).collect();
        for (c, chunk) in small.iter().enumerate() {
            assert!(chunk.iter().all(|&r| r == (c / 2 % 4) as u32), "{small:?}");
        }
        // One replicate: always 0, in tasks of per_task.
        assert_eq!(task_ranges(9, 4, 3, 1), [(0..4, 0), (4..8, 0), (8..9, 0)]);
        assert!(task_ranges(0, 4, 0, 8).is_empty());
    }

    #[test]
    fn an_interrupted_phase_keeps_the_reported_share_of_its_wall_time() {
        assert_eq!(wall_share(1000, 8, 8), 1000);
        assert_eq!(wall_share(1000, 4, 8), 500);
        assert_eq!(wall_share(1000, 0, 8), 0);
        assert_eq!(wall_share(1000, 0, 0), 1000);
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

    /// `fast`, asking `stop` to stop on its `at`-th solve: a slow solver from outside,
    /// interrupted by Ctrl-C among its puzzles.
    struct StopsAt {
        fast: Box<dyn Strategy>,
        solves: Arc<AtomicU64>,
        at: u64,
        stop: Stop,
    }

    impl Strategy for StopsAt {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            if self.solves.fetch_add(1, Ordering::Relaxed) + 1 == self.at {
                self.stop.request(2);
            }
            self.fast.solve(puzzle, limits)
        }
    }

    /// `slow`, a strategy that solves as `fast` and asks `stop` to stop on its `at`-th solve,
    /// with the stop and the count of its solves.
    fn stops_at(at: u64) -> (StrategyInfo, Stop, Arc<AtomicU64>) {
        let (stop, solves) = (Stop::default(), Arc::new(AtomicU64::new(0)));
        let (asks, counts) = (stop.clone(), Arc::clone(&solves));
        let slow = StrategyInfo::new("slow", move || {
            Box::new(StopsAt {
                fast: by_name("fast").unwrap().make(),
                solves: Arc::clone(&counts),
                at,
                stop: asks.clone(),
            })
        });
        (slow, stop, solves)
    }

    /// Runs `others` (built-in), then `slow`, a strategy that asks to stop on its `at`-th
    /// solve, over `entries` easy puzzles in chunks of 64 on `threads`, with `clock`:
    /// the lines reported (checked to be the first, each with every strategy's row, and
    /// counted by the summary), and how many puzzles `slow` solved.
    fn stopped_by_slow(
        others: &[&str],
        at: u64,
        (threads, pin): (usize, bool),
        clock: &MockClock,
    ) -> (u64, u64) {
        let entries = 400;
        let (slow, stop, solves) = stops_at(at);
        let mut s = settings(others, 64, 1);
        s.strategies.push(slow);
        s.warmup = false;
        s.pin = pin;
        let strategies = s.strategies.len();
        let mut runner = Runner::new(s, threads, clock).unwrap();
        runner.stop_when(stop);
        let mut summary = Summary::default();
        let mut lines = vec![Vec::new(); strategies];
        let text = format!("{EASY}\n").repeat(entries);
        let ended = run_with(&mut runner, &mut corpus(&text), &mut summary, |b| {
            for (s, lines) in lines.iter_mut().enumerate() {
                for (i, r) in b.records.iter().enumerate() {
                    assert_eq!(b.results[s][i].status, crate::results::Status::Unique);
                    lines.push(r.line);
                }
            }
            Ok(())
        })
        .unwrap();
        assert!(matches!(ended, crate::runner::Ended::Stopped { .. }));
        let reported = lines[0].len() as u64;
        let first: Vec<u64> = (1..=reported).collect();
        for lines in &lines {
            assert_eq!(lines, &first, "{others:?}, stop at {at}");
        }
        for row in summary.rows() {
            assert_eq!(
                row.puzzles, reported,
                "{others:?}: the summary counts the rows"
            );
        }
        (reported, solves.load(Ordering::Relaxed))
    }

    #[test]
    fn a_stop_keeps_what_a_slow_first_phase_solved_and_finishes_the_cheap_phases_after_it() {
        let clock = MockClock::new(1, 0, 1);
        for (threads, pin) in [(1, false), (2, false), (2, true)] {
            // Chunks of 64 puzzles: the second chunk's phases run slow, then fast; the
            // stop comes on slow's 20th solve there. Alone, slow is followed by the
            // untimed reference (`fast`), in every chunk.
            for (others, at) in [(&["fast"][..], 64 + 20), (&[], 20), (&[], 64 + 20)] {
                let (reported, solved) = stopped_by_slow(others, at, (threads, pin), &clock);
                // Every puzzle slow solved (its tasks taken before the stop, finished),
                // and no task more: at most one in flight on each worker. Pinned, each
                // worker takes its own tasks, and one may have solved a task past the
                // first the other left: solved, not reported.
                let in_flight = threads as u64 * 8;
                let wasted = if pin { in_flight } else { 0 };
                assert!(
                    reported <= solved && solved <= reported + wasted,
                    "{others:?}, stop at {at}, {threads} threads: {reported} of {solved}"
                );
                assert!(
                    reported >= at && reported < at + 8 + in_flight,
                    "{reported}"
                );
            }
        }
    }

    #[test]
    fn a_phase_that_cannot_finish_by_the_deadline_stops_rather_than_keep_the_user_waiting() {
        // Every reading of this clock is past the last one's deadline: once stopped,
        // a phase takes the one task that tells its pace, and no more.
        let clock = MockClock::new(1, 0, 2 * FINISH_BUDGET_NS);
        let (reported, solved) = stopped_by_slow(&["fast"], 64 + 20, (1, false), &clock);
        assert_eq!((reported, solved), (64 + 8, 64 + 24));
    }

    #[test]
    fn a_phase_goes_on_after_a_stop_only_while_it_can_end_by_the_deadline() {
        let deadline = 1_000;
        // No task finished yet: one is taken, to tell the pace.
        assert!(may_go_on(0, deadline, 0, 0, 1_000_000));
        // 10 per task, 30 left from 600: ends at 900.
        assert!(may_go_on(600, deadline, 100, 10, 30));
        // 50 left: would end at 1,100.
        assert!(!may_go_on(600, deadline, 100, 10, 50));
        // Past the deadline, nothing more, however little is left.
        assert!(!may_go_on(1_000, deadline, 0, 10, 1));
        // Nothing left to do: the phase is ending anyway.
        assert!(may_go_on(999, deadline, 999, 1, 0));
        // No overflow at the ends of the clock.
        assert!(!may_go_on(
            u64::MAX - 2,
            u64::MAX - 1,
            u64::MAX,
            1,
            usize::MAX
        ));
    }

    /// `fast`, asleep for 1 ms in the rounds `asleep` says (by how often it has seen the
    /// puzzle): to the workers, a thread off its core with no CPU time, as when other work
    /// holds it. With `outside`, it says it runs in a process of its own.
    struct Asleep {
        fast: Box<dyn Strategy>,
        seen: std::collections::HashMap<Grid, u32>,
        asleep: fn(u32) -> bool,
        outside: bool,
    }

    impl Strategy for Asleep {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            let round = self.seen.entry(*puzzle).or_default();
            *round += 1;
            if (self.asleep)(*round) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            self.fast.solve(puzzle, limits)
        }
        fn usage(&self) -> Option<crate::strategy::Usage> {
            self.outside.then(crate::strategy::Usage::default)
        }
    }

    /// `n` distinct puzzles (at most EASY's givens): EASY with one given less each time.
    fn distinct(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                let mut p = EASY.as_bytes().to_vec();
                let given = p.iter().enumerate().filter(|(_, c)| **c != b'.').nth(i);
                let cell = given.unwrap().0;
                p[cell] = b'.';
                String::from_utf8(p).unwrap()
            })
            .collect()
    }

    #[test]
    fn puzzles_held_off_their_core_in_every_round_are_counted_and_others_not() {
        let held = |asleep: fn(u32) -> bool, outside: bool, repeat: u32| {
            let strategy = StrategyInfo::new("asleep", move || {
                Box::new(Asleep {
                    fast: by_name("fast").unwrap().make(),
                    seen: Default::default(),
                    asleep,
                    outside,
                })
            });
            let s = Settings {
                strategies: vec![strategy, by_name("fast").unwrap().clone()],
                warmup: false,
                ..settings(&[], 8, repeat)
            };
            let clock = MockClock::new(1, 0, 1);
            let text: String = distinct(20).iter().map(|p| format!("{p}\n")).collect();
            // One worker: each worker has its own solvers, which count rounds apart, and
            // a chunk's tasks, one per worker, may change workers from round to round.
            let (_, summary) = run(&text, s, 1, &clock);
            let rows = summary.rows();
            (rows[0].preemptions, rows[1].preemptions)
        };
        if !preemption::COUNTED {
            assert_eq!(held(|_| true, false, 1), (None, None));
            return;
        }
        // What is never asleep is held off only by the machine's real neighbours (other
        // tests, other work), now and then, a task of puzzles at a time: a few, never
        // all 20, which is what a solve asleep in every kept time gives.
        let few = |n: Option<u64>| n.is_some_and(|n| n < 20);
        // Asleep in every solve: every puzzle; `fast` beside it, never asleep: few.
        for repeat in [1, 2] {
            let (asleep, fast) = held(|_| true, false, repeat);
            assert_eq!(asleep, Some(20), "repeat {repeat}");
            assert!(few(fast), "repeat {repeat}: {fast:?}");
        }
        // Asleep in the first round only: the second round's time is kept, clean.
        let (asleep, fast) = held(|r| r == 1, false, 2);
        assert!(few(asleep) && few(fast), "{asleep:?} {fast:?}");
        // A solver in a process of its own: its worker waits for it, so nothing is told.
        let (asleep, fast) = held(|_| true, true, 1);
        assert_eq!(asleep, None);
        assert!(few(fast), "{fast:?}");
    }

    /// `fast`, logging every puzzle it is given, in order.
    struct Order(Box<dyn Strategy>, Arc<std::sync::Mutex<Vec<Grid>>>);

    impl Strategy for Order {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            self.1.lock().unwrap().push(*puzzle);
            self.0.solve(puzzle, limits)
        }
    }

    #[test]
    fn each_repeat_round_is_a_pass_over_the_whole_chunk() {
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&log);
        let order = StrategyInfo::new("order", move || {
            Box::new(Order(by_name("fast").unwrap().make(), Arc::clone(&seen)))
        });
        let s = Settings {
            strategies: vec![order],
            reference: None,
            warmup: false,
            ..settings(&[], 64, 3)
        };
        // 20 distinct puzzles, more than a task's 8: a round must see them all before
        // any puzzle is solved again, or a solver learns the few it sees again.
        let puzzles = distinct(20);
        let text: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
        let (rows, _) = run(&text, s, 1, &MockClock::new(1, 0, 1));
        assert_eq!(rows.len(), 20);
        let grids: Vec<Grid> = puzzles.iter().map(|p| p.parse().unwrap()).collect();
        assert_eq!(*log.lock().unwrap(), grids.repeat(3));
    }

    #[test]
    fn a_stop_between_repeat_rounds_keeps_every_puzzle_solved_with_the_rounds_it_had() {
        // Asks to stop on its 25th solve: in the second round, on its fifth puzzle.
        let (slow, stop, solves) = stops_at(25);
        let s = Settings {
            strategies: vec![slow],
            warmup: false,
            ..settings(&[], 64, 3)
        };
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(s, 1, &clock).unwrap();
        runner.stop_when(stop);
        let mut summary = Summary::default();
        let text: String = distinct(20).iter().map(|p| format!("{p}\n")).collect();
        let mut reported = Vec::new();
        let ended = run_with(&mut runner, &mut corpus(&text), &mut summary, |b| {
            for (i, r) in b.records.iter().enumerate() {
                assert!(!b.results[0][i].is_wrong() && b.results[0][i].time_ns.is_some());
                reported.push(r.line);
            }
            Ok(())
        })
        .unwrap();
        assert!(matches!(ended, crate::runner::Ended::Stopped { .. }));
        let all: Vec<u64> = (1..=20).collect();
        assert_eq!(reported, all, "every puzzle of the first round is kept");
        assert_eq!(summary.failures(), 0);
        // The second round's task in flight (puzzles 1 to 8) ends; no task more.
        assert_eq!(solves.load(Ordering::Relaxed), 20 + 8);
        assert_eq!(summary.rows()[0].puzzles, 20);
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

    /// Per solve: the strategy, the puzzle, the worker thread.
    type Solves = Arc<std::sync::Mutex<Vec<(&'static str, Grid, usize)>>>;

    /// Notes, per strategy, the worker thread that solved each puzzle.
    struct Where(Box<dyn Strategy>, &'static str, Solves);

    impl Strategy for Where {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            let worker = rayon::current_thread_index().unwrap_or(usize::MAX);
            self.2.lock().unwrap().push((self.1, *puzzle, worker));
            self.0.solve(puzzle, limits)
        }
    }

    /// `fast` named `name`, noting its solves into `log`, each value made by `wrap`.
    fn noted(
        name: &'static str,
        log: &Solves,
        wrap: fn(Where) -> Box<dyn Strategy>,
    ) -> StrategyInfo {
        let log = Arc::clone(log);
        StrategyInfo::new(name, move || {
            wrap(Where(
                by_name("fast").unwrap().make(),
                name,
                Arc::clone(&log),
            ))
        })
    }

    /// As it is, in this process.
    fn inside(solver: Where) -> Box<dyn Strategy> {
        Box::new(solver)
    }

    #[test]
    fn pinned_workers_solve_each_puzzle_on_one_worker_in_every_timed_phase() {
        let log: Solves = Arc::new(std::sync::Mutex::new(Vec::new()));
        let noted = |name| noted(name, &log, inside);
        // Distinct puzzles, so that each solve names its record.
        let easy: Grid = EASY.parse().unwrap();
        let mut seen = std::collections::HashSet::new();
        let puzzles: Vec<String> = (0..)
            .map(|line| crate::permute::Transform::for_line(7, line).apply(&easy))
            .filter(|g| seen.insert(*g))
            .take(1000)
            .map(|g| g.to_string())
            .collect();
        let text = puzzles.join("\n");
        for serial in [false, true] {
            log.lock().unwrap().clear();
            let c = if serial {
                noted("c").serial()
            } else {
                noted("c")
            };
            let s = Settings {
                strategies: vec![noted("a"), noted("b"), c],
                reference: None,
                warmup: false,
                pin: true,
                ..settings(&[], 500, 1)
            };
            let clock = MockClock::new(1, 0, 1);
            let (rows, _) = run(&text, s, 2, &clock);
            assert_eq!(rows.len(), 3000);
            let mut worker = std::collections::HashMap::new();
            let mut used = std::collections::HashSet::new();
            for &(name, grid, w) in log.lock().unwrap().iter() {
                used.insert((name, w));
                let first = *worker.entry(grid).or_insert((name, w));
                assert_eq!(
                    first.1, w,
                    "{grid}: {} on worker {}, {name} on {w}",
                    first.0, first.1
                );
            }
            assert_eq!(worker.len(), 1000);
            // A one-at-a-time first phase (the second chunk's, `c`: its phases run
            // backwards) gives runs of records to both workers in turn, and every phase
            // follows: both take part in every phase. (Whichever worker is free takes the
            // next task otherwise, and on a busy machine one may take them all.)
            if serial {
                for name in ["a", "b", "c"] {
                    assert!(
                        used.contains(&(name, 0)) && used.contains(&(name, 1)),
                        "{name}: {used:?}"
                    );
                }
            }
        }
    }

    /// With the warm-up on, a worker gives a solver the primer (a solved grid, untimed and
    /// unreported) before its first puzzle in each round of a phase and after a switch
    /// from another solver, and only then; with it off, never.
    #[test]
    fn a_solver_is_primed_when_fresh_to_its_worker_and_only_then() {
        let primer = *crate::runner::task::PRIMER;
        // (puzzles, chunk size, --repeat, strategies, replicates, warm-up): per solve, its
        // strategy and whether it was the primer.
        let solves = |(n, chunk, repeat): (usize, usize, u32),
                      names: &[&'static str],
                      replicates: usize,
                      warmup: bool| {
            let log: Solves = Arc::new(std::sync::Mutex::new(Vec::new()));
            let s = Settings {
                strategies: names.iter().map(|&n| noted(n, &log, inside)).collect(),
                reference: None,
                warmup,
                replicates,
                ..settings(&[], chunk, repeat)
            };
            let clock = MockClock::new(1, 0, 1);
            let (rows, summary) = run(&vec![EASY; n].join("\n"), s, 1, &clock);
            // The primer is no puzzle of the run's: n rows a strategy, all of EASY.
            assert_eq!(rows.len(), n * names.len());
            assert!(
                rows.iter().all(|r| r.2 == crate::results::Status::Unique),
                "{rows:?}"
            );
            assert_eq!(summary.failures(), 0);
            let log = log.lock().unwrap().clone();
            log.iter()
                .map(|&(name, grid, _)| (name, grid == primer))
                .collect::<Vec<_>>()
        };
        let primers = |log: &[(&str, bool)]| log.iter().filter(|s| s.1).count();
        // Chunks of 2, one task a phase: every phase a round of its own, primed first,
        // then its two puzzles.
        let log = solves((6, 2, 1), &["a", "b"], 1, true);
        for phase in log.chunks(3) {
            assert_eq!(
                phase.iter().map(|s| s.1).collect::<Vec<_>>(),
                [true, false, false]
            );
            assert!(phase.iter().all(|s| s.0 == phase[0].0), "{log:?}");
        }
        // Each round of a phase, with --repeat.
        let log = solves((6, 2, 3), &["a"], 1, true);
        assert_eq!(primers(&log), log.len() / 3, "{log:?}");
        // A round of five tasks in a row on one worker, one solver: primed once, whatever
        // the tasks (40 puzzles: the warm-up's few, then one chunk's phase).
        let log = solves((40, 64, 1), &["a"], 1, true);
        assert_eq!(primers(&log), 2, "{log:?}");
        assert!(log[0].1 && log.iter().skip(1).filter(|s| s.1).count() == 1);
        // Its replicates are solvers of their own: in a chunk of 256, four runs of 64,
        // each another replicate's, in one round.
        let log = solves((256, 256, 1), &["a"], 8, true);
        assert_eq!(primers(&log), 1 + 4, "{log:?}");
        // No warm-up, no primer.
        assert_eq!(primers(&solves((6, 2, 1), &["a", "b"], 1, false)), 0);
    }

    /// `Where`, as if it ran in a process of its own (it reports what that used).
    struct Outside(Where);

    impl Strategy for Outside {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            self.0.solve(puzzle, limits)
        }
        fn usage(&self) -> Option<crate::strategy::Usage> {
            Some(crate::strategy::Usage::default())
        }
    }

    #[test]
    fn a_solver_in_a_process_of_its_own_is_never_primed() {
        let log: Solves = Arc::new(std::sync::Mutex::new(Vec::new()));
        let outside = |solver| -> Box<dyn Strategy> { Box::new(Outside(solver)) };
        let s = Settings {
            strategies: vec![noted("a", &log, outside), noted("b", &log, outside)],
            reference: None,
            ..settings(&[], 2, 1)
        };
        let clock = MockClock::new(1, 0, 1);
        let (rows, _) = run(&[EASY; 6].join("\n"), s, 1, &clock);
        assert_eq!(rows.len(), 12);
        let log = log.lock().unwrap();
        // Each puzzle of the warm-up and of the phases, and nothing else.
        let easy: Grid = EASY.parse().unwrap();
        assert!(log.iter().all(|&(_, grid, _)| grid == easy), "{log:?}");
    }

    /// `fast`, but failing every grid with no empty cell, or, when `.1`, saying the harness
    /// could not run such a solve.
    struct FullGridsFail(Box<dyn Strategy>, bool);

    impl Strategy for FullGridsFail {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            if !puzzle.to_string().contains('.') {
                return match self.1 {
                    true => Outcome::harness("cannot make a pipe".into()),
                    false => Outcome::failed("no empty cell".into()),
                };
            }
            self.0.solve(puzzle, limits)
        }
    }

    /// The primer's answer is no row: a solver that fails it has every puzzle's row as it
    /// answered that puzzle, and the run goes on. A solve of it that the harness could not
    /// run ends the run as any such solve does.
    #[test]
    fn a_failure_on_the_primer_is_no_row_and_a_harness_failure_ends_the_run() {
        let clock = MockClock::new(1, 0, 1);
        let text = [EASY; 6].join("\n");
        for harness in [false, true] {
            let picky = StrategyInfo::new("picky", move || {
                Box::new(FullGridsFail(by_name("fast").unwrap().make(), harness))
            });
            let s = Settings {
                strategies: vec![picky],
                ..settings(&[], 2, 1)
            };
            let mut runner = Runner::new(s, 1, &clock).unwrap();
            let mut summary = Summary::default();
            let ended = run_with(&mut runner, &mut corpus(&text), &mut summary, |_| {
                Ok::<(), std::io::Error>(())
            });
            match (harness, ended) {
                (false, Ok(_)) => {
                    assert_eq!(summary.rows()[0].puzzles, 6);
                    assert_eq!(summary.rows()[0].unique, 6);
                    assert_eq!(summary.failures(), 0);
                }
                (true, Err(crate::runner::RunError::Harness { why, .. })) => {
                    assert_eq!(why, "cannot make a pipe");
                    assert_eq!(summary.failures(), 0, "no row charged to it");
                }
                (_, other) => panic!("harness {harness}: {other:?}"),
            }
        }
    }
}
