//! `Summary`: per corpus and strategy, counts per status and the distribution of solve
//! times and nodes, accumulated in constant memory whatever the corpus size.
//!
//! Time quantiles come from an HDR histogram with 3 significant digits (a relative error
//! under 0.1%), so a run over ten million puzzles does not keep ten million times.
//! Throughput counts every searched puzzle, aborted ones included: their time was spent.
//!
//! Two throughputs stand side by side: `puzzles_per_s_per_core` (puzzles / summed time,
//! i.e. 1 / mean), which the slowest puzzles decide, and `median_puzzles_per_s_per_core`
//! (1 / median), which a few outliers (a hard puzzle, a preemption) cannot move. The
//! median rather than a trimmed mean: the histogram gives it directly, it is the figure
//! `compare` reads too, and a trimmed mean would still need a cut chosen for each corpus.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::corpus::Identity;
use crate::machine::Machine;
use crate::results::{Batch, Metric, PuzzleResult, Sink, Status};
use crate::strategy::{Limits, StrategyInfo};
use std::io;

pub mod read;
mod state;

pub use state::{
    read_times, write_times, CorpusState, FileState, GroupState, StateError, SummaryState,
};

/// Accumulates results as they stream past.
#[derive(Debug, Default)]
pub struct Summary {
    groups: Vec<Group>,
    /// Each corpus read to its end, with what was read of it ([`Sink::end`]), in order.
    identities: Vec<(String, Identity)>,
}

#[derive(Debug)]
struct Group {
    corpus: String,
    strategy: String,
    counts: [u64; Status::ALL.len()],
    mismatches: u64,
    failures: u64,
    unreturned: u64,
    searched: u64,
    time_sum_ns: u128,
    max_ns: u64,
    times: Histogram<u64>,
    nodes_sum: u128,
    /// Puzzles whose kept time other work on the machine may hold (see
    /// [`crate::preemption`]); `None` where that is not told.
    preemptions: Option<u64>,
    /// Searches whose strategy counts nodes.
    nodes_counted: u64,
    /// Finished searches by a strategy that counts guesses, and how many of them
    /// needed none.
    guessed: u64,
    guesses_sum: u128,
    no_guess: u64,
    wall_ns: u64,
    /// Of `searched`, those whose wall time `wall_ns` does not hold: rows a resume kept from
    /// an earlier run that left no wall time. Wall throughput leaves them out.
    unwalled: u64,
    /// Searches whose instructions were counted (`run --measure instructions`), and the
    /// instructions they executed.
    instructions_counted: u64,
    instructions_sum: u128,
}

/// One line of the summary, as tables and JSON show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// The corpus, as named on the command line.
    pub corpus: String,
    /// The strategy's name.
    pub strategy: String,
    /// Records reported (searched or not).
    pub puzzles: u64,
    /// Records per status (see `Status`).
    pub unique: u64,
    /// See `Status::Multiple`.
    pub multiple: u64,
    /// See `Status::Unsolvable`.
    pub unsolvable: u64,
    /// See `Status::Solved`.
    pub solved: u64,
    /// See `Status::Invalid`.
    pub invalid: u64,
    /// See `Status::Malformed`.
    pub malformed: u64,
    /// See `Status::Aborted`.
    pub aborted: u64,
    /// Solutions that were not solutions, or contradicted the corpus's solution column.
    pub mismatches: u64,
    /// Searches the solver failed (a foreign solver crashed or answered garbage); also
    /// counted as `aborted`.
    #[serde(default)]
    pub failures: u64,
    /// Searches that found solutions but returned none, so none could be checked (a
    /// C-ABI solver asked for more than one solution).
    #[serde(default)]
    pub unreturned: u64,
    /// Puzzles searched (and timed).
    pub searched: u64,
    /// `searched` / summed solve time: the speed of one core.
    pub puzzles_per_s_per_core: f64,
    /// `searched` / wall-clock time of this strategy's parallel phases.
    pub wall_puzzles_per_s: f64,
    /// 1 / `median_ns`: the speed of one core on a typical puzzle, which the slowest
    /// puzzles do not decide (0 in summaries written before it existed).
    #[serde(default)]
    pub median_puzzles_per_s_per_core: f64,
    /// Share of the summed solve time (0..=1) carried by the slowest 1% of the searched
    /// puzzles (at least one): near 0.01 when every puzzle takes about as long, large
    /// when a few decide `puzzles_per_s_per_core`.
    #[serde(default)]
    pub slowest_1pct_share: f64,
    /// Puzzles whose kept time may hold other work's: in a task during which other work on
    /// the machine held the worker off its core for a tenth or more of the task's time, and
    /// 50 us or more, in every round, the fewest of its puzzles whose times can hold what
    /// it lost (told by the thread's scheduler statistics). `null` where that is not told: off Linux, and
    /// for a solver in a process of its own.
    #[serde(default)]
    pub preemptions: Option<u64>,
    /// Summed solve time.
    pub total_time_ns: u64,
    /// Wall-clock time of this strategy's phases.
    pub wall_ns: u64,
    /// Mean solve time.
    pub mean_ns: f64,
    /// Solve time quantiles, within 0.1%.
    pub median_ns: u64,
    /// 90th percentile solve time.
    pub p90_ns: u64,
    /// 99th percentile solve time.
    pub p99_ns: u64,
    /// Longest solve, exactly.
    pub max_ns: u64,
    /// Nodes per searched puzzle; `null` for strategies that do not count nodes.
    pub mean_nodes: Option<f64>,
    /// Guesses per finished puzzle; `null` for strategies that do not count guesses.
    pub mean_guesses: Option<f64>,
    /// Share of finished puzzles solved without a guess (0..=1); `null` likewise.
    pub no_guess_share: Option<f64>,
    /// Instructions executed by the searches counted (`run --measure instructions`),
    /// summed; absent when none was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_instructions: Option<u64>,
    /// `total_instructions` per search counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_instructions: Option<f64>,
}

impl SummaryRow {
    /// Its records of `status`.
    pub fn count(&self, status: Status) -> u64 {
        match status {
            Status::Unique => self.unique,
            Status::Multiple => self.multiple,
            Status::Unsolvable => self.unsolvable,
            Status::Solved => self.solved,
            Status::Invalid => self.invalid,
            Status::Malformed => self.malformed,
            Status::Aborted => self.aborted,
        }
    }
}

impl Summary {
    /// The index of the (corpus, strategy) group, created on first use.
    pub fn group(&mut self, corpus: &str, strategy: &str) -> usize {
        if let Some(i) = self.find(corpus, strategy) {
            return i;
        }
        self.groups.push(Group {
            corpus: corpus.to_string(),
            strategy: strategy.to_string(),
            counts: [0; Status::ALL.len()],
            mismatches: 0,
            failures: 0,
            unreturned: 0,
            searched: 0,
            time_sum_ns: 0,
            max_ns: 0,
            times: Histogram::new(3).expect("3 significant digits is a valid precision"),
            nodes_sum: 0,
            preemptions: None,
            nodes_counted: 0,
            guessed: 0,
            guesses_sum: 0,
            no_guess: 0,
            wall_ns: 0,
            unwalled: 0,
            instructions_counted: 0,
            instructions_sum: 0,
        });
        self.groups.len() - 1
    }

    fn find(&self, corpus: &str, strategy: &str) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.corpus == corpus && g.strategy == strategy)
    }

    /// Count one result into `group`.
    pub fn add(&mut self, group: usize, result: &PuzzleResult) {
        let g = &mut self.groups[group];
        g.counts[result.status as usize] += 1;
        g.mismatches += result.is_wrong() as u64;
        g.failures += result.is_failure() as u64;
        g.unreturned += result.unreturned() as u64;
        if let Some(t) = result.time_ns {
            g.searched += 1;
            g.time_sum_ns += t as u128;
            g.max_ns = g.max_ns.max(t);
            // `record` grows the auto-resizing histogram; `saturating_record` would clamp
            // to its current (tiny) upper bound.
            if g.times.record(t).is_err() {
                g.times.saturating_record(t);
            }
            if let Some(n) = result.instructions {
                g.instructions_counted += 1;
                g.instructions_sum += n as u128;
            }
            if let Some(nodes) = result.nodes {
                g.nodes_sum += nodes as u128;
                g.nodes_counted += 1;
            }
            // An aborted search's guesses say only how far it got: leave it out.
            if let (Some(guesses), false) = (result.guesses, result.status == Status::Aborted) {
                g.guessed += 1;
                g.guesses_sum += guesses as u128;
                g.no_guess += (guesses == 0) as u64;
            }
        }
    }

    /// Add wall-clock time spent by the group's strategy on its corpus.
    pub fn add_wall(&mut self, group: usize, ns: u64) {
        // Saturating: a resumed run adds the wall times its earlier summary JSON says.
        self.groups[group].wall_ns = self.groups[group].wall_ns.saturating_add(ns);
    }

    /// Say that the wall time of every search counted so far is not known (a resume of a run
    /// that left no wall time): wall throughputs then cover only the searches counted after.
    pub fn leave_out_of_wall(&mut self) {
        for g in &mut self.groups {
            g.unwalled = g.searched;
        }
    }

    /// Add puzzles of the group whose kept time other work may hold; `None` (not told)
    /// leaves the group's count as it is.
    pub fn add_preemptions(&mut self, group: usize, puzzles: Option<u64>) {
        if let Some(n) = puzzles {
            let g = &mut self.groups[group];
            g.preemptions = Some(g.preemptions.unwrap_or(0).saturating_add(n));
        }
    }

    /// Searches counted so far, and of them those whose instructions were counted.
    pub fn instructions_counted(&self) -> (u64, u64) {
        let searched = self.groups.iter().map(|g| g.searched).sum();
        let counted = self.groups.iter().map(|g| g.instructions_counted).sum();
        (searched, counted)
    }

    /// Total of one status over all groups.
    pub fn count(&self, status: Status) -> u64 {
        self.groups.iter().map(|g| g.counts[status as usize]).sum()
    }

    /// Wrong answers, over all groups.
    pub fn mismatches(&self) -> u64 {
        self.groups.iter().map(|g| g.mismatches).sum()
    }

    /// Searches a solver failed, over all groups.
    pub fn failures(&self) -> u64 {
        self.groups.iter().map(|g| g.failures).sum()
    }

    /// One row per group, in the order the groups were made.
    pub fn rows(&self) -> Vec<SummaryRow> {
        self.groups.iter().map(Group::row).collect()
    }

    /// What was read of `corpus`, when it was read to its end (or, for a merge, when every
    /// part that counted it says).
    pub fn identity(&self, corpus: &str) -> Option<&Identity> {
        self.identities
            .iter()
            .find(|(c, _)| c == corpus)
            .map(|(_, identity)| identity)
    }

    /// Say what was read of `corpus`: the whole of it, replacing what was said before (a
    /// resumed run reads its corpus again from the start).
    pub fn set_identity(&mut self, corpus: &str, identity: Identity) {
        match self.identities.iter_mut().find(|(c, _)| c == corpus) {
            Some((_, known)) => *known = identity,
            None => self.identities.push((corpus.to_string(), identity)),
        }
    }

    /// Every corpus whose identity is known, in the order first said.
    pub fn identities(&self) -> &[(String, Identity)] {
        &self.identities
    }
}

fn per_second(count: u64, ns: u128) -> f64 {
    if ns == 0 {
        0.0
    } else {
        count as f64 / (ns as f64 / 1e9)
    }
}

impl Group {
    /// The share of the summed time taken by the slowest 1% of the searched puzzles,
    /// read from the histogram from its top: within its precision, and never counting a
    /// time above the exact maximum.
    fn slowest_share(&self) -> f64 {
        if self.searched == 0 || self.time_sum_ns == 0 {
            return 0.0;
        }
        let mut left = self.searched.div_ceil(100);
        let mut sum = 0u128;
        let recorded: Vec<_> = self.times.iter_recorded().collect();
        for bucket in recorded.iter().rev() {
            let take = bucket.count_at_value().min(left);
            let ns = self
                .times
                .median_equivalent(bucket.value_iterated_to())
                .min(self.max_ns);
            sum += take as u128 * ns as u128;
            left -= take;
            if left == 0 {
                break;
            }
        }
        (sum as f64 / self.time_sum_ns as f64).min(1.0)
    }

    fn row(&self) -> SummaryRow {
        let c = |s: Status| self.counts[s as usize];
        let mean = |sum: u128| {
            if self.searched == 0 {
                0.0
            } else {
                sum as f64 / self.searched as f64
            }
        };
        let q = |p: f64| {
            if self.searched == 0 {
                0
            } else {
                // The histogram reports a bucket's upper edge; never above the true maximum.
                self.times.value_at_quantile(p).min(self.max_ns)
            }
        };
        let median_ns = q(0.5);
        SummaryRow {
            corpus: self.corpus.clone(),
            strategy: self.strategy.clone(),
            puzzles: self.counts.iter().sum(),
            unique: c(Status::Unique),
            multiple: c(Status::Multiple),
            unsolvable: c(Status::Unsolvable),
            solved: c(Status::Solved),
            invalid: c(Status::Invalid),
            malformed: c(Status::Malformed),
            aborted: c(Status::Aborted),
            mismatches: self.mismatches,
            failures: self.failures,
            unreturned: self.unreturned,
            searched: self.searched,
            puzzles_per_s_per_core: per_second(self.searched, self.time_sum_ns),
            wall_puzzles_per_s: per_second(
                self.searched.saturating_sub(self.unwalled),
                self.wall_ns as u128,
            ),
            median_puzzles_per_s_per_core: per_second(1, median_ns as u128),
            slowest_1pct_share: self.slowest_share(),
            preemptions: self.preemptions,
            total_time_ns: self.time_sum_ns.min(u64::MAX as u128) as u64,
            wall_ns: self.wall_ns,
            mean_ns: mean(self.time_sum_ns),
            median_ns,
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            max_ns: self.max_ns,
            mean_nodes: (self.nodes_counted > 0)
                .then(|| self.nodes_sum as f64 / self.nodes_counted as f64),
            mean_guesses: (self.guessed > 0).then(|| self.guesses_sum as f64 / self.guessed as f64),
            no_guess_share: (self.guessed > 0).then(|| self.no_guess as f64 / self.guessed as f64),
            total_instructions: (self.instructions_counted > 0)
                .then(|| self.instructions_sum.min(u64::MAX as u128) as u64),
            mean_instructions: (self.instructions_counted > 0)
                .then(|| self.instructions_sum as f64 / self.instructions_counted as f64),
        }
    }
}

/// Everything a summary export carries besides the rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryReport {
    /// The program that made it.
    pub tool: String,
    /// The program's version.
    pub version: String,
    /// RFC 3339, UTC, when the run finished.
    pub date: String,
    /// Where it ran.
    pub machine: Machine,
    /// Worker threads.
    pub threads: usize,
    /// The CPUs the workers ran on, and whether each was pinned to one. Absent in
    /// summaries written before it was recorded, and from library runs that did not ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<crate::cpus::Placement>,
    /// The limit of every count.
    pub max_solutions: u32,
    /// `null` when unlimited.
    pub max_nodes: Option<u64>,
    /// Time budget per search; `null` when none.
    pub timeout_ns: Option<u64>,
    /// Timings per solve (the fastest is kept).
    pub repeat: u32,
    /// Solvers of each strategy each worker held, made alike, each timing its own share of
    /// every chunk (`run --replicates`): what an in-run comparison's interval is drawn
    /// over. Absent in summaries written before it was recorded, and from library runs
    /// that did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicates: Option<u32>,
    /// Wall-clock time of the whole run, reading and writing included.
    pub wall_ns: u64,
    /// `--permute`'s seed: each puzzle was solved as an equivalent grid drawn from it.
    /// Absent when the grids were solved as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permute: Option<u64>,
    /// The run was stopped (SIGINT, SIGTERM) before the end of its input: the rows count
    /// only what was done. Absent (false) in summaries written before it existed.
    #[serde(default)]
    pub interrupted: bool,
    /// Puzzle lines (entries) of the input that were not solved and reported: read but
    /// not solved, plus those left unread in regular files. `null` when not known: input
    /// from a stream, or more left than could be counted quickly.
    #[serde(default)]
    pub not_reached: Option<u64>,
    /// Why the run failed (exited 2) though it wrote this summary: each corpus that could
    /// not be read to its end, as stderr said it. Its rows then count only part of the
    /// input, so `merge`, `history add` and `run --resume` refuse it. Absent when the run
    /// did not fail (and in summaries written before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// What a round trip through the pipe costs each `cmd:` solver (included in every one
    /// of its times). Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipes: Vec<PipeCost>,
    /// What each solver that runs in processes of its own (`lib:` isolated, `cmd:`) used:
    /// peak memory and CPU time. Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<SolverResources>,
    /// The part of the input this run took (`--shard K/N`). Absent for the whole input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::corpus::Shard>,
    /// Rows of the per-puzzle CSV that an earlier run wrote and `run --resume` kept; the
    /// rows count them as if solved now. `wall_ns` adds the earlier run's when its summary
    /// JSON said it, else covers only this process (then `wall_puzzles_per_s` counts only
    /// the rows this process solved); `preemptions` covers only this process. Absent
    /// when the run did not resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_rows: Option<u64>,
    /// What the run measured of each solve: absent for time; `instructions` for a run
    /// that counted them (`run --measure instructions`), whose times are then Valgrind's
    /// and compare with no timed run's.
    #[serde(default, skip_serializing_if = "Metric::is_time")]
    pub metric: Metric,
    /// The machines whose parts `merge` put together, when more than one: then the times
    /// come from several machines and only counts and nodes compare as one run's would.
    /// Empty for a single run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machines: Vec<Machine>,
    /// One per corpus and strategy.
    pub rows: Vec<SummaryRow>,
    /// The accumulators behind `rows`, for `merge` to add the parts of a split run up
    /// exactly. Absent in summaries written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<SummaryState>,
}

/// A `cmd:` solver's protocol cost: the median time of a trivial exchange, measured
/// before the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipeCost {
    /// The solver's name, as in the rows.
    pub strategy: String,
    /// Median nanoseconds of the exchange.
    pub round_trip_ns: u64,
}

/// What one solver's own processes used over a run, as the operating system counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolverResources {
    /// The solver's name, as in the rows.
    pub strategy: String,
    /// The largest resident set any one of its processes reached, in KiB.
    pub max_rss_kib: u64,
    /// CPU time, user and system, of all its processes, in nanoseconds: solving, and
    /// starting up and loading for each process started.
    pub cpu_ns: u64,
    /// Processes started: one per worker thread, and one more for each restart after a
    /// failure.
    pub processes: u64,
}

impl SummaryReport {
    /// The report of a run with `limits`, `repeat` and `permute` (see
    /// `runner::Settings::summary_report`) on `threads` threads, lasting `wall_ns`,
    /// finished now, on this machine, with the rows of `summary`; not interrupted.
    pub fn new(
        summary: &Summary,
        (limits, repeat, permute): (&Limits, u32, Option<u64>),
        threads: usize,
        wall_ns: u64,
    ) -> SummaryReport {
        SummaryReport {
            // The program's name, not this crate's (sudoku-bench-core): `merge` refuses
            // summaries of different tools.
            tool: "sudoku-bench".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            machine: Machine::detect(),
            threads,
            placement: None,
            max_solutions: limits.max_solutions,
            max_nodes: (limits.max_nodes != u64::MAX).then_some(limits.max_nodes),
            timeout_ns: limits
                .timeout
                .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
            repeat,
            replicates: None,
            wall_ns,
            permute,
            interrupted: false,
            not_reached: Some(0),
            errors: Vec::new(),
            pipes: Vec::new(),
            resources: Vec::new(),
            shard: None,
            resumed_rows: None,
            metric: Metric::Time,
            machines: Vec::new(),
            rows: summary.rows(),
            state: Some(summary.state()),
        }
    }

    /// The options that decide what a run's rows hold, each as (option, value shown):
    /// rows belong together (parts to merge, a run and its resume) only when these are equal.
    pub fn limits(&self) -> [(&'static str, String); 5] {
        let shown = |v: Option<u64>| v.map_or_else(|| "none".to_string(), |v| v.to_string());
        [
            ("--max-solutions", self.max_solutions.to_string()),
            ("--max-nodes", shown(self.max_nodes)),
            ("--timeout (ns)", shown(self.timeout_ns)),
            ("--repeat", self.repeat.to_string()),
            ("--permute", shown(self.permute)),
        ]
    }

    /// The line that says a run was interrupted, for the summary's exports.
    pub fn interrupted_note(&self) -> Option<String> {
        self.interrupted.then(|| {
            let left = count_or_unknown(self.not_reached);
            format!("interrupted: only what was done is counted; {left} puzzles not reached")
        })
    }

    /// The line that says the run failed, for the summary's exports and refusals.
    pub fn failed_note(&self) -> Option<String> {
        (!self.errors.is_empty()).then(|| {
            format!(
                "the run failed (exit 2), its rows count only part of its input: {}",
                self.errors.join("; ")
            )
        })
    }

    /// The line that says the times come from several machines (a merge of parts run on
    /// different ones), for the summary's exports.
    pub fn machines_note(&self) -> Option<String> {
        (self.machines.len() > 1).then(|| {
            let cpus: Vec<&str> = self.machines.iter().map(|m| m.cpu.as_str()).collect();
            format!(
                "merged from parts run on {} machines ({}): times mix them; counts and nodes \
                 are as one run's",
                self.machines.len(),
                cpus.join("; ")
            )
        })
    }
}

/// The summary counts every result, and each strategy's share of the phases' wall time.
impl Sink for Summary {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        for info in strategies {
            self.group(corpus, &info.name);
        }
        Ok(())
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        for (s, info) in batch.strategies.iter().enumerate() {
            let group = self.group(batch.corpus, &info.name);
            for result in &batch.results[s][..batch.records.len()] {
                self.add(group, result);
            }
            self.add_wall(group, batch.walls[s]);
            self.add_preemptions(group, batch.preemptions.get(s).copied().flatten());
        }
        Ok(())
    }

    fn end(&mut self, corpus: &str, identity: &Identity) -> io::Result<()> {
        self.set_identity(corpus, *identity);
        Ok(())
    }
}

impl SummaryReport {
    /// Wrong answers over every row: what `--strict` fails on.
    pub fn mismatches(&self) -> u64 {
        self.rows.iter().map(|r| r.mismatches).sum()
    }
}

/// A `not_reached` count for a message: the number, or "an unknown number of".
pub fn count_or_unknown(count: Option<u64>) -> String {
    count.map_or_else(|| "an unknown number of".to_string(), |n| n.to_string())
}

/// A summary of no rows, for tests of what shows a summary.
#[cfg(test)]
pub(crate) fn sample_report(interrupted: bool, not_reached: Option<u64>) -> SummaryReport {
    SummaryReport {
        tool: "t".into(),
        version: "0".into(),
        date: "d".into(),
        machine: Machine::detect(),
        threads: 1,
        placement: None,
        max_solutions: 2,
        max_nodes: None,
        timeout_ns: None,
        repeat: 1,
        replicates: None,
        wall_ns: 1,
        permute: None,
        interrupted,
        not_reached,
        errors: Vec::new(),
        pipes: Vec::new(),
        resources: Vec::new(),
        shard: None,
        resumed_rows: None,
        metric: Metric::Time,
        machines: Vec::new(),
        rows: Vec::new(),
        state: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sink::from_fn;
    use crate::strategy::by_name;

    fn timed(status: Status, ns: u64, nodes: u64) -> PuzzleResult {
        PuzzleResult {
            status,
            solutions: Some(1),
            nodes: Some(nodes),
            guesses: Some(nodes / 2),
            time_ns: Some(ns),
            ..PuzzleResult::default()
        }
    }

    #[test]
    fn searches_left_out_of_wall_time_are_left_out_of_wall_throughput_and_state() {
        let mut s = Summary::default();
        let g = s.group("c", "fast");
        for _ in 0..30 {
            s.add(g, &timed(Status::Unique, 1000, 1));
        }
        s.leave_out_of_wall();
        for _ in 0..10 {
            s.add(g, &timed(Status::Unique, 1000, 1));
        }
        s.add_wall(g, 1_000_000);
        let rows = s.rows();
        assert_eq!(rows[0].searched, 40);
        assert!((rows[0].wall_puzzles_per_s - 10.0 / 0.001).abs() < 1e-6);
        // Carried by the state a part's JSON holds, and added up by merging two parts.
        let back = Summary::from_state(&s.state()).unwrap();
        assert_eq!(back.rows(), rows);
        let mut merged = back;
        merged.merge(&s);
        assert!((merged.rows()[0].wall_puzzles_per_s - 20.0 / 0.002).abs() < 1e-6);
    }

    #[test]
    fn rows_compute_rates_and_quantiles() {
        let mut s = Summary::default();
        let g = s.group("c", "naive");
        for i in 1..=100 {
            s.add(g, &timed(Status::Unique, i * 1000, i));
        }
        s.add(g, &PuzzleResult::unsearched(Status::Malformed, "bad"));
        s.add_wall(g, 2_525_000);
        assert_eq!(s.group("c", "naive"), g, "a group is found again by name");
        let r = &s.rows()[0];
        assert_eq!(
            (r.puzzles, r.unique, r.malformed, r.searched),
            (101, 100, 1, 100)
        );
        assert_eq!(r.total_time_ns, 5_050_000);
        assert!((r.puzzles_per_s_per_core - 100.0 / 0.00505).abs() < 1e-6);
        assert!((r.wall_puzzles_per_s - 100.0 / 0.002525).abs() < 1e-6);
        assert_eq!(r.mean_ns, 50_500.0);
        // Within the histogram's 0.1% precision.
        assert!(r.median_ns.abs_diff(50_000) <= 50, "{}", r.median_ns);
        assert!(r.p90_ns.abs_diff(90_000) <= 90, "{}", r.p90_ns);
        assert!(r.p99_ns.abs_diff(99_000) <= 99, "{}", r.p99_ns);
        assert_eq!(r.max_ns, 100_000);
        assert_eq!(r.mean_nodes, Some(50.5));
        // nodes / 2 for nodes 1..=100: 0 (once), then 1..=50, mean 25.
        assert_eq!(r.mean_guesses, Some(25.0));
        assert_eq!(r.no_guess_share, Some(0.01));
    }

    #[test]
    fn the_median_figure_ignores_a_few_slow_puzzles_and_the_tail_share_shows_them() {
        let mut s = Summary::default();
        let g = s.group("c", "x");
        // 198 puzzles of 10 us and 2 (the slowest 1%) of 10 ms, as if preempted.
        for ns in [10_000; 198].into_iter().chain([10_000_000; 2]) {
            s.add(g, &timed(Status::Unique, ns, 1));
        }
        let r = &s.rows()[0];
        assert!((r.puzzles_per_s_per_core - 200.0 / 0.021_98).abs() < 1e-6);
        // 1 / 10 us, within the histogram's 0.1%.
        assert!((r.median_puzzles_per_s_per_core - 100_000.0).abs() < 100.0);
        assert!((r.slowest_1pct_share - 0.02 / 0.021_98).abs() < 1e-3);
    }

    #[test]
    fn the_slowest_1pct_is_rounded_up_to_whole_puzzles() {
        let mut s = Summary::default();
        let g = s.group("c", "x");
        // 101 puzzles: the slowest 1% are the two slowest, 101 and 100 us of 5151 us.
        for us in 1..=101 {
            s.add(g, &timed(Status::Unique, us * 1000, 1));
        }
        let r = &s.rows()[0];
        assert!((r.slowest_1pct_share - 201.0 / 5151.0).abs() < 1e-3);
        assert_eq!(r.preemptions, None, "none added: not counted");
        s.add_preemptions(g, Some(2));
        s.add_preemptions(g, None);
        s.add_preemptions(g, Some(3));
        assert_eq!(s.rows()[0].preemptions, Some(5));
    }

    #[test]
    fn rows_without_the_robust_and_preemption_fields_still_load() {
        let mut s = Summary::default();
        let g = s.group("c", "x");
        s.add(g, &timed(Status::Unique, 5, 1));
        s.add_preemptions(g, Some(1));
        let row = s.rows().remove(0);
        let mut json = serde_json::to_value(&row).unwrap();
        let fields = json.as_object_mut().unwrap();
        for field in [
            "median_puzzles_per_s_per_core",
            "slowest_1pct_share",
            "preemptions",
        ] {
            assert!(fields.remove(field).is_some(), "{field}");
        }
        let old: SummaryRow = serde_json::from_value(json).unwrap();
        assert_eq!(
            old,
            SummaryRow {
                median_puzzles_per_s_per_core: 0.0,
                slowest_1pct_share: 0.0,
                preemptions: None,
                ..row
            }
        );
    }

    #[test]
    fn groups_keep_first_seen_order_and_status_totals() {
        let mut s = Summary::default();
        let b = s.group("c", "b");
        let a = s.group("c", "a");
        s.add(a, &timed(Status::Aborted, 5, 5));
        s.add(b, &timed(Status::Aborted, 5, 5));
        s.add(b, &PuzzleResult::unsearched(Status::Invalid, "x"));
        let names: Vec<_> = s.rows().into_iter().map(|r| r.strategy).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!((s.count(Status::Aborted), s.count(Status::Invalid)), (2, 1));
    }

    #[test]
    fn guesses_leave_out_aborted_searches_and_strategies_that_do_not_count() {
        let mut s = Summary::default();
        let g = s.group("c", "fast");
        s.add(g, &timed(Status::Unique, 10, 0));
        s.add(g, &timed(Status::Unique, 10, 8));
        s.add(g, &timed(Status::Aborted, 10, 1000));
        let r = &s.rows()[0];
        assert_eq!((r.mean_guesses, r.no_guess_share), (Some(2.0), Some(0.5)));
        let n = s.group("c", "naive");
        s.add(
            n,
            &PuzzleResult {
                guesses: None,
                ..timed(Status::Unique, 10, 8)
            },
        );
        let r = &s.rows()[1];
        assert_eq!((r.mean_guesses, r.no_guess_share), (None, None));
    }

    #[test]
    fn empty_group_has_zero_rates_not_nan() {
        let mut s = Summary::default();
        let g = s.group("c", "x");
        s.add(g, &PuzzleResult::unsearched(Status::Malformed, "bad"));
        let r = &s.rows()[0];
        assert_eq!(
            (r.puzzles_per_s_per_core, r.mean_ns, r.median_ns),
            (0.0, 0.0, 0)
        );
    }

    use super::sample_report as report;

    #[test]
    fn summaries_without_the_interrupt_fields_still_load() {
        let mut json: serde_json::Value = serde_json::to_value(report(true, Some(3))).unwrap();
        let fields = json.as_object_mut().unwrap();
        fields.remove("interrupted");
        fields.remove("not_reached");
        let old: SummaryReport = serde_json::from_value(json).unwrap();
        assert_eq!(old, report(false, None));
    }

    #[test]
    fn a_pair_gives_every_batch_to_both_and_the_summary_counts_it() {
        let strategies = [
            by_name("fast").unwrap().clone(),
            by_name("dlx").unwrap().clone(),
        ];
        let mut summary = Summary::default();
        let mut seen = Vec::new();
        let mut sinks = (
            from_fn(|b: &Batch| {
                seen.push(b.records.len());
                Ok(())
            }),
            &mut summary,
        );
        sinks.begin("empty", &strategies).unwrap();
        sinks.begin("c", &strategies).unwrap();
        let records =
            crate::corpus::read_all("c", std::io::Cursor::new(b"x\ny\n".to_vec())).unwrap();
        let result = PuzzleResult::unsearched(Status::Malformed, "bad");
        let results = vec![vec![result.clone(), result.clone(), result]; 2];
        let batch = Batch {
            corpus: "c",
            records: &records,
            strategies: &strategies,
            results: &results,
            walls: &[5, 7],
            preemptions: &[Some(3), None],
        };
        sinks.batch(&batch).unwrap();
        assert_eq!(seen, [2]);
        // A corpus that started lists its strategies even with no puzzle.
        let rows: Vec<_> = summary
            .rows()
            .into_iter()
            .map(|r| (r.corpus, r.strategy, r.malformed, r.wall_ns, r.preemptions))
            .collect();
        assert_eq!(
            rows,
            [
                ("empty".into(), "fast".into(), 0, 0, None),
                ("empty".into(), "dlx".into(), 0, 0, None),
                ("c".into(), "fast".into(), 2, 5, Some(3)),
                ("c".into(), "dlx".into(), 2, 7, None),
            ]
        );
    }
}
