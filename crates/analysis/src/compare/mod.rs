//! `compare`: pairs runs puzzle by puzzle and decides, per corpus and strategy, whether the
//! search changed (exact node counts) and whether time got slower or faster (geometric mean
//! of per-puzzle time ratios with a bootstrap confidence interval).
//!
//! Three kinds of evidence, strongest first: two strategies of one run ([`between()`]: their
//! phases alternate within every chunk, so both saw the same machine), several runs per side
//! (`runs`: the interval holds run-to-run variation), and one run per side, which cannot
//! tell a slower build from a busier machine and so gives no time verdict
//! ([`Verdict::Inconclusive`]) unless times are taken relative to a reference strategy.
//! Summary JSONs (`summary`) compare medians. The exporters live in sudoku-bench-render
//! (`export`, one file per format), the HTML page with its plots beside them (`compare_html`).

pub(crate) mod between;
pub(crate) mod counts;
pub mod histogram;
pub(crate) mod load;
pub(crate) mod pair;
pub(crate) mod replicates;
pub(crate) mod runs;
pub mod stats;
pub(crate) mod summary;

use serde::Serialize;

pub use between::between;
pub use load::{Aggregate, Run};
use stats::Bootstrap;
use sudoku_bench_core::results::Metric;

/// What decides a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// Relative change that counts, e.g. 0.05. Slower: the interval's lower bound is above
    /// `1 + threshold`. Faster: its upper bound is below `1 / (1 + threshold)`, the same
    /// distance in log space, so a 2x slowdown and a 2x speedup weigh alike.
    pub threshold: f64,
    /// Divide each strategy's per-puzzle time by this strategy's time on the same puzzle in
    /// the same run, so a uniform machine-speed factor cancels.
    pub relative_to: Option<String>,
    /// A changed search is reported but is not a regression (a slowdown still is).
    pub allow_search_changes: bool,
    /// How the confidence intervals are drawn.
    pub bootstrap: Bootstrap,
    /// The threshold when instruction counts are compared (the module `counts`), e.g. 0.01.
    pub count_threshold: f64,
    /// How far a run's log time ratio moves from one run to the next beyond what its
    /// replicates show (a standard deviation, e.g. 0.003): added in quadrature to an
    /// in-run interval over replicates (see `replicates`). Measured by
    /// `scripts/verdicts.sh`; [`DEFAULT_RUN_SPREAD`] by default.
    pub run_spread: f64,
}

/// [`CompareOptions::run_spread`] by default, chosen from the spreads between runs of
/// identical code beyond their replicates' that `scripts/verdicts.sh` measured on this
/// project's AMD EPYC machines: most cells of its maps needed less, a few busy ones more
/// (docs/measurements.md, "The run spread").
pub const DEFAULT_RUN_SPREAD: f64 = 0.003;

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            threshold: 0.05,
            relative_to: None,
            allow_search_changes: false,
            bootstrap: Bootstrap::default(),
            count_threshold: 0.01,
            run_spread: DEFAULT_RUN_SPREAD,
        }
    }
}

/// Why two runs cannot be compared (beyond unreadable files).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    /// A run of one side has no `--relative-to` strategy in any corpus.
    #[error("--relative-to {strategy}: no such strategy in the {side} run")]
    NoReference {
        /// The `--relative-to` strategy.
        strategy: String,
        /// The side of that run.
        side: Side,
    },
    /// `--relative-to` with a summary JSON on either side.
    #[error("--relative-to needs per-puzzle CSVs on both sides, not a summary JSON")]
    ReferenceNeedsPerPuzzle,
    /// Rows that counted instructions beside rows that were only timed.
    #[error(
        "{counted} searched rows count instructions and {timed} do not: compare runs of \
         `run --measure instructions` with each other, and timed runs with timed runs"
    )]
    MixedMetrics {
        /// Searched rows with a count.
        counted: u64,
        /// Searched rows without one.
        timed: u64,
    },
    /// No run given for a side.
    #[error("no {0} run given")]
    NoRuns(Side),
    /// `--between` on a summary JSON.
    #[error("--between needs a per-puzzle CSV, not a summary JSON")]
    BetweenNeedsPerPuzzle,
    /// A `--between` pair that names one strategy twice.
    #[error("--between {old},{new}: the same strategy on both sides compares nothing")]
    BetweenItself {
        /// The old strategy named.
        old: String,
        /// The new strategy named: the same as `old`.
        new: String,
    },
    /// A `--between` name that is no strategy of the run.
    #[error("--between: no strategy {name} in the run; it has {}", known.join(", "))]
    UnknownStrategy {
        /// The name given.
        name: String,
        /// The run's strategies, sorted.
        known: Vec<String>,
    },
}

/// One side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The runs compared against (`--baseline`).
    Baseline,
    /// The runs judged (`--current`).
    Current,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Baseline => "baseline",
            Side::Current => "current",
        })
    }
}

/// What a row's time and search came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is below `1 / (1 + threshold)`, and the search is the same.
    Faster,
    /// The whole interval is above `1 + threshold`, whatever the search did: a regression.
    Slower,
    /// The whole interval is below 1 but not below `1 / (1 + threshold)`: a speed-up was
    /// measured, too small (or too uncertain) to count. The same search.
    FasterNotPastThreshold,
    /// The whole interval is above 1 but not above `1 + threshold`: a slowdown was
    /// measured, too small (or too uncertain) to fail. The same search.
    SlowerNotPastThreshold,
    /// The interval holds 1: no change measured, and the same search.
    NoChange,
    /// The search changed (see [`ComparisonRow::search_changed`]), and the time is not slower.
    SearchChanged,
    /// One run per side with nothing to cancel the machine's speed: the ratio is shown but
    /// cannot be told from run-to-run noise.
    Inconclusive,
}

impl Verdict {
    /// The verdict in words, as the tables show it: `no change`, `search changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::FasterNotPastThreshold => "faster, not past threshold",
            Verdict::SlowerNotPastThreshold => "slower, not past threshold",
            Verdict::NoChange => "no change",
            Verdict::SearchChanged => "search changed",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// How much evidence a comparison had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Per-puzzle CSVs on both sides: paired ratios with a confidence interval.
    PerPuzzle,
    /// A summary JSON in at least one run: medians only, no pairing of puzzles.
    Summary,
    /// Two strategies of one run (`--between OLD,NEW`), paired puzzle by puzzle.
    InRun,
}

/// One corpus and strategy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// The corpus, its name normalised; `a (current: b)` when the runs name it differently.
    pub corpus: String,
    /// The strategy judged; in an in-run comparison, the new one.
    pub strategy: String,
    /// In an in-run comparison, the strategy it is compared with (the old one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_strategy: Option<String>,
    /// Puzzles on both sides (per-puzzle mode), or searched puzzles in the current run.
    pub paired: u64,
    /// Paired puzzles with a time on both sides (and on the reference, with `relative_to`).
    pub timed: u64,
    /// Nodes over the paired puzzles in the first baseline run (in-run: the old strategy's);
    /// 0 when not counted (see `nodes_counted`).
    pub baseline_nodes: u64,
    /// Nodes over the paired puzzles in the first current run, as `baseline_nodes`.
    pub current_nodes: u64,
    /// Whether either side counted nodes: a solver from outside (`--solver`) counts none,
    /// and its node totals are then not shown as zeros.
    pub nodes_counted: bool,
    /// Paired puzzles whose node count or status differs; in summary mode, which has no
    /// puzzles, 1 when a run's node total or searched count differs, else 0.
    pub search_changed: u64,
    /// Current / baseline time: geometric mean of per-puzzle ratios over all runs, or
    /// (summary mode) the geometric mean of the runs' medians, current over baseline.
    pub time_ratio: Option<f64>,
    /// Bootstrap interval of `time_ratio`; `None` when the verdict is inconclusive.
    pub ci: Option<(f64, f64)>,
    /// In an in-run comparison, the new strategy's summed time over the old one's, on the
    /// puzzles both timed: the ratio of their throughputs (puzzles/s/core), inverted. Not
    /// judged: the verdict follows `time_ratio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_ratio: Option<f64>,
    /// The interval of `throughput_ratio`, drawn as `ci` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_ci: Option<(f64, f64)>,
    /// In an in-run comparison, the replicates of the run's solvers (`run --replicates`)
    /// the intervals are over, when there were two or more: then they cover what differs
    /// from run to run. `None`: the intervals come from the puzzles of one replicate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<u32>,
    /// This is the `relative_to` strategy: its ratio is 1 by construction.
    pub reference: bool,
    /// What the row's time and search came to.
    pub verdict: Verdict,
    /// Each timed puzzle's time on each side, in nanoseconds (relative to the reference
    /// strategy's, with `relative_to`), in line order: with several runs, the geometric
    /// mean over the side's runs, the per-puzzle value `time_ratio` averages, so the
    /// geometric mean of their ratios is `time_ratio`. Empty in summary mode. For the
    /// plots of the HTML page: kept here because only the pairing that made the row knows
    /// which times pair; not in the JSON export, which carries the verdicts.
    #[serde(skip)]
    pub puzzle_times: Vec<PuzzleTime>,
}

/// One timed puzzle of a row, for the plots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PuzzleTime {
    /// Baseline time: nanoseconds, or relative to the reference strategy's.
    pub baseline: f64,
    /// Current time, in the same unit.
    pub current: f64,
    /// The node count or status differs between the sides (or between runs of a side).
    pub search_changed: bool,
}

impl PuzzleTime {
    /// Current / baseline.
    pub fn ratio(&self) -> f64 {
        self.current / self.baseline
    }
}

/// The row's `puzzle_times` from the runs' log times, puzzles in the order of `changed`,
/// which flags those whose search changed.
fn puzzle_times(xb: &[Vec<f64>], xc: &[Vec<f64>], changed: &[bool]) -> Vec<PuzzleTime> {
    stats::puzzle_times(xb, xc)
        .into_iter()
        .zip(changed)
        .map(|((baseline, current), &search_changed)| PuzzleTime {
            baseline,
            current,
            search_changed,
        })
        .collect()
}

impl ComparisonRow {
    /// A row of `strategy` in `corpus` before anything is counted: nothing paired, no time,
    /// no change.
    fn new(corpus: String, strategy: String) -> ComparisonRow {
        ComparisonRow {
            corpus,
            strategy,
            baseline_strategy: None,
            paired: 0,
            timed: 0,
            baseline_nodes: 0,
            current_nodes: 0,
            nodes_counted: false,
            search_changed: 0,
            time_ratio: None,
            ci: None,
            throughput_ratio: None,
            throughput_ci: None,
            replicates: None,
            reference: false,
            verdict: Verdict::NoChange,
            puzzle_times: Vec::new(),
        }
    }
}

/// Why rows were left out of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// The current run has no such corpus, strategy or line.
    OnlyInBaseline,
    /// The baseline run has no such corpus, strategy or line.
    OnlyInCurrent,
    /// Both runs have the line, but it holds a different puzzle in each.
    DifferentPuzzle,
    /// The first runs of both sides pair it, but another run lacks it.
    NotInEveryRun,
}

/// Rows left out of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpaired {
    /// Why they were left out.
    pub why: Why,
    /// The corpus, named as in [`ComparisonRow::corpus`].
    pub corpus: String,
    /// The strategy; in an in-run comparison, the pair as `old -> new`.
    pub strategy: String,
    /// The whole (corpus, strategy) is missing from the other side.
    pub whole_strategy: bool,
    /// The lines (puzzles) concerned; empty in summary mode.
    pub lines: Vec<u64>,
}

/// How much of each side was paired: (corpus, line, strategy) rows with per-puzzle CSVs,
/// (corpus, strategy) rows with a summary JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Coverage {
    /// Rows paired.
    pub paired: u64,
    /// Rows in the baseline's largest run (in-run: the old strategies' rows).
    pub baseline_rows: u64,
    /// Rows in the current side's largest run (in-run: the new strategies' rows).
    pub current_rows: u64,
}

impl Coverage {
    /// The paired share of the side with fewer paired, in [0, 1]; 0 when there is nothing.
    pub fn share(&self) -> f64 {
        let most = self.baseline_rows.max(self.current_rows);
        if most == 0 {
            0.0
        } else {
            self.paired as f64 / most as f64
        }
    }
}

/// The result of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// How much evidence it had.
    pub mode: Mode,
    /// What was compared: times, or instruction counts when every searched row of every
    /// run has them (see the module `counts`); the rows' `time_ratio` and intervals are
    /// then of counts.
    pub metric: Metric,
    /// Runs on each side (1 and 1 in an in-run comparison, which has one run).
    pub baseline_runs: usize,
    /// Runs on the current side (see `baseline_runs`).
    pub current_runs: usize,
    /// Relative change that counts, e.g. 0.05 (see [`CompareOptions::threshold`]).
    pub threshold: f64,
    /// The strategy times are relative to (`--relative-to`); `None` when they are not.
    pub relative_to: Option<String>,
    /// Whether a changed search counts as a regression (see [`CompareOptions`]).
    pub allow_search_changes: bool,
    /// Confidence level of the intervals, e.g. 0.95.
    pub confidence: f64,
    /// Bootstrap resamples per interval.
    pub resamples: usize,
    /// The spread between runs added to intervals over replicates (see
    /// [`CompareOptions::run_spread`]).
    pub run_spread: f64,
    /// One per paired corpus and strategy (in-run: per corpus and pair).
    pub rows: Vec<ComparisonRow>,
    /// What was left out of the comparison, and why.
    pub unpaired: Vec<Unpaired>,
    /// How much of each side was paired.
    pub coverage: Coverage,
}

/// What a comparison means for a gate, in the order `compare` checks: too little paired
/// to be a comparison of the same work, then a regression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOutcome {
    /// Nothing regressed (or no time verdict could be given).
    Pass,
    /// A row is slower, or its search changed and that is not allowed.
    Regressed,
    /// Fewer rows paired than the minimum share asked for.
    TooFewPaired,
}

impl GateOutcome {
    /// The exit status of `compare`: 0, 1, 2.
    pub fn code(self) -> u8 {
        match self {
            GateOutcome::Pass => 0,
            GateOutcome::Regressed => 1,
            GateOutcome::TooFewPaired => 2,
        }
    }
}

impl Comparison {
    /// True when a row is slower, or changed its search and that is not allowed.
    pub fn regressed(&self) -> bool {
        self.rows.iter().any(|r| {
            r.verdict == Verdict::Slower || (r.search_changed > 0 && !self.allow_search_changes)
        })
    }

    /// The outcome when at least `min_paired` (a share in [0, 1]) of each side's rows must
    /// be paired.
    pub fn outcome(&self, min_paired: f64) -> GateOutcome {
        if self.coverage.share() < min_paired {
            GateOutcome::TooFewPaired
        } else if self.regressed() {
            GateOutcome::Regressed
        } else {
            GateOutcome::Pass
        }
    }
}

impl Comparison {
    fn new(mode: Mode, options: &CompareOptions, runs: (usize, usize)) -> Comparison {
        Comparison {
            mode,
            metric: Metric::Time,
            baseline_runs: runs.0,
            current_runs: runs.1,
            threshold: options.threshold,
            relative_to: options.relative_to.clone(),
            allow_search_changes: options.allow_search_changes,
            confidence: options.bootstrap.confidence,
            resamples: options.bootstrap.resamples,
            run_spread: options.run_spread,
            rows: Vec::new(),
            unpaired: Vec::new(),
            coverage: Coverage::default(),
        }
    }

    /// Whether a time verdict can be given: an in-run comparison, times relative to a
    /// reference strategy, or at least two runs per side.
    pub fn conclusive(&self) -> bool {
        self.mode == Mode::InRun
            || self.metric == Metric::Instructions
            || (self.relative_to.is_some() && self.mode == Mode::PerPuzzle)
            || (self.baseline_runs >= 2 && self.current_runs >= 2)
    }
}

/// Compare the `current` runs against the `baseline` runs (at least one each). Per-puzzle
/// CSVs throughout give a per-puzzle comparison; a summary JSON anywhere, a summary one.
pub fn compare(
    baseline: &[Run],
    current: &[Run],
    options: &CompareOptions,
) -> Result<Comparison, CompareError> {
    if baseline.is_empty() {
        return Err(CompareError::NoRuns(Side::Baseline));
    }
    if current.is_empty() {
        return Err(CompareError::NoRuns(Side::Current));
    }
    let runs = (baseline.len(), current.len());
    match (per_puzzle(baseline), per_puzzle(current)) {
        (Some(b), Some(c)) => {
            let metric = counts::metric(b.iter().chain(&c).copied())?;
            let options = counts::options(options, metric);
            let (b, c): (Vec<_>, Vec<_>) = (
                b.iter().map(|s| counts::judged(s, metric)).collect(),
                c.iter().map(|s| counts::judged(s, metric)).collect(),
            );
            let mut cmp = Comparison::new(Mode::PerPuzzle, &options, runs);
            cmp.metric = metric;
            let (b, c): (Vec<_>, Vec<_>) = (
                b.iter().map(|s| &**s).collect(),
                c.iter().map(|s| &**s).collect(),
            );
            runs::per_puzzle(&b, &c, &options, &mut cmp)?;
            Ok(cmp)
        }
        _ if options.relative_to.is_some() => Err(CompareError::ReferenceNeedsPerPuzzle),
        _ => {
            let mut cmp = Comparison::new(Mode::Summary, options, runs);
            summary::summary(baseline, current, options, &mut cmp);
            Ok(cmp)
        }
    }
}

/// Every run's per-puzzle rows, or `None` when a run is a summary JSON.
fn per_puzzle(side: &[Run]) -> Option<Vec<&load::Samples>> {
    side.iter()
        .map(|r| match r {
            Run::PerPuzzle(s) => Some(s),
            Run::Summary(_) => None,
        })
        .collect()
}

/// The verdict of one row. Time first: a slowdown is a regression whatever the search did
/// (`--allow-search-changes` must not hide one). Then a changed search; then, when a time
/// verdict can be given, the interval against the threshold, and, when it is not past it,
/// against 1: an interval wholly on one side of 1 measured a change, which "no change"
/// would deny. A row with nothing timed (no reference time in its corpus, say) has no time
/// verdict.
fn verdict(
    threshold: f64,
    search_changed: bool,
    conclusive: bool,
    ratio: Option<f64>,
    ci: Option<(f64, f64)>,
) -> Verdict {
    let time = match ci {
        _ if ratio.is_none() || !conclusive => Verdict::Inconclusive,
        Some((lo, _)) if lo > 1.0 + threshold => Verdict::Slower,
        Some((_, hi)) if hi < 1.0 / (1.0 + threshold) => Verdict::Faster,
        Some((lo, _)) if lo > 1.0 => Verdict::SlowerNotPastThreshold,
        Some((_, hi)) if hi < 1.0 => Verdict::FasterNotPastThreshold,
        _ => Verdict::NoChange,
    };
    if search_changed && time != Verdict::Slower {
        Verdict::SearchChanged
    } else {
        time
    }
}

#[cfg(test)]
mod tests {
    use super::load::{Sample, Samples};
    use super::*;

    fn run(rows: &[(&str, &str, u64, u64, u64)]) -> Run {
        run_with_nodes(rows, true)
    }

    /// `run`, with the node counts left empty unless `counted`.
    fn run_with_nodes(rows: &[(&str, &str, u64, u64, u64)], counted: bool) -> Run {
        let mut s = Samples::new();
        for (corpus, strategy, line, nodes, time) in rows {
            let c = s.entry(corpus.to_string()).or_default();
            c.puzzles.insert(*line, format!("puzzle {line}"));
            c.strategies
                .entry(strategy.to_string())
                .or_default()
                .insert(
                    *line,
                    Sample {
                        nodes: counted.then_some(*nodes),
                        guesses: None,
                        time_ns: Some(*time),
                        status: Some(sudoku_bench_core::results::Status::Unique),
                        replicate: None,
                        instructions: None,
                    },
                );
        }
        Run::PerPuzzle(s)
    }

    /// `run`, each row also counted: `instructions` of line L is `per_line * L`, times
    /// as given.
    fn counted(rows: &[(&str, &str, u64, u64, u64)], per_line: u64) -> Run {
        let Run::PerPuzzle(mut s) = run(rows) else {
            unreachable!()
        };
        for corpus in s.values_mut() {
            for (line, sample) in corpus.strategies.values_mut().flat_map(|r| r.iter_mut()) {
                sample.instructions = Some(per_line * line);
            }
        }
        Run::PerPuzzle(s)
    }

    #[test]
    fn counts_decide_with_one_run_a_side_at_their_own_threshold_and_times_do_not_weigh() {
        let times = |t: u64| -> Vec<(&str, &str, u64, u64, u64)> {
            (1..=40).map(|l| ("c", "a", l, 5, t + l)).collect()
        };
        // Times 30% apart both ways, counts identical: no change, exactly.
        let same = compare(
            &[counted(&times(100), 1000)],
            &[counted(&times(130), 1000)],
            &CompareOptions::default(),
        )
        .unwrap();
        assert_eq!(same.metric, Metric::Instructions);
        assert_eq!(same.threshold, 0.01);
        assert_eq!(same.rows[0].time_ratio, Some(1.0));
        assert_eq!(same.rows[0].verdict, Verdict::NoChange);
        // 2% more instructions on every puzzle, the time 30% lower: slower, past 1%.
        let more = compare(
            &[counted(&times(130), 1000)],
            &[counted(&times(100), 1020)],
            &CompareOptions::default(),
        )
        .unwrap();
        let ratio = more.rows[0].time_ratio.unwrap();
        assert!((ratio - 1.02).abs() < 1e-9, "{ratio}");
        assert_eq!(more.rows[0].verdict, Verdict::Slower);
        assert_eq!(more.outcome(0.0), GateOutcome::Regressed);
        // A side that timed and one that counted do not compare, nor does a run with a row
        // whose count is missing: its time would be judged as a count.
        let mixed = compare(
            &[run(&times(100))],
            &[counted(&times(100), 1000)],
            &CompareOptions::default(),
        );
        assert_eq!(
            mixed.unwrap_err(),
            CompareError::MixedMetrics {
                counted: 40,
                timed: 40
            }
        );
        let Run::PerPuzzle(mut gap) = counted(&times(100), 1000) else {
            unreachable!()
        };
        gap.get_mut("c")
            .unwrap()
            .strategies
            .get_mut("a")
            .unwrap()
            .get_mut(&7)
            .unwrap()
            .instructions = None;
        let partial = compare(
            &[counted(&times(100), 1000)],
            &[Run::PerPuzzle(gap)],
            &CompareOptions::default(),
        );
        assert!(matches!(
            partial,
            Err(CompareError::MixedMetrics {
                counted: 79,
                timed: 1
            })
        ));
        // Two strategies of one counted run alike.
        let mut rows = times(100);
        rows.extend((1..=40).map(|l| ("c", "b", l, 5, 50 + l)));
        let Run::PerPuzzle(mut one) = counted(&rows, 1000) else {
            unreachable!()
        };
        for (line, sample) in one
            .get_mut("c")
            .unwrap()
            .strategies
            .get_mut("b")
            .unwrap()
            .iter_mut()
        {
            sample.instructions = Some(1005 * line);
        }
        let pairs = [("a".to_string(), "b".to_string())];
        let cmp = between(&Run::PerPuzzle(one), &pairs, &CompareOptions::default()).unwrap();
        assert_eq!(cmp.metric, Metric::Instructions);
        assert_eq!(cmp.rows[0].verdict, Verdict::SlowerNotPastThreshold);
    }

    /// Each timed puzzle's times and whether its search changed, in line order, from
    /// two runs and from two strategies of one run alike.
    #[test]
    fn puzzle_times_flag_the_puzzles_whose_search_changed() {
        let shown = |cmp: &Comparison| -> Vec<(f64, bool)> {
            let row = &cmp.rows[0];
            row.puzzle_times
                .iter()
                .map(|p| ((p.ratio() * 1e6).round() / 1e6, p.search_changed))
                .collect()
        };
        let expected = [(2.0, false), (0.5, true), (1.0, false)];
        let b = run(&[
            ("c", "a", 1, 5, 100),
            ("c", "a", 2, 5, 100),
            ("c", "a", 3, 5, 100),
        ]);
        let c = run(&[
            ("c", "a", 1, 5, 200),
            ("c", "a", 2, 6, 50),
            ("c", "a", 3, 5, 100),
        ]);
        let cmp = compare(&[b], &[c], &CompareOptions::default()).unwrap();
        assert_eq!(shown(&cmp), expected);
        assert!((cmp.rows[0].puzzle_times[0].baseline - 100.0).abs() < 1e-9);
        let one = run(&[
            ("c", "a", 1, 5, 100),
            ("c", "b", 1, 5, 200),
            ("c", "a", 2, 5, 100),
            ("c", "b", 2, 6, 50),
            ("c", "a", 3, 5, 100),
            ("c", "b", 3, 5, 100),
        ]);
        let pairs = [("a".to_string(), "b".to_string())];
        let cmp = between(&one, &pairs, &CompareOptions::default()).unwrap();
        assert_eq!(shown(&cmp), expected);
        // The JSON export carries the verdicts, not the puzzles.
        let json = serde_json::to_value(&cmp).unwrap();
        assert!(json["rows"][0].get("puzzle_times").is_none(), "{json}");
    }

    #[test]
    fn faster_is_symmetric_to_slower_in_log_space() {
        // 1/1.1 = 0.909...: an interval ending at 0.92 is not faster, one ending at 0.90 is.
        let v = |changed, lo, hi| verdict(0.1, changed, true, Some(1.0), Some((lo, hi)));
        assert_eq!(v(false, 0.85, 0.92), Verdict::FasterNotPastThreshold);
        assert_eq!(v(false, 0.85, 0.90), Verdict::Faster);
        assert_eq!(v(false, 1.11, 1.3), Verdict::Slower);
        assert_eq!(v(false, 1.09, 1.3), Verdict::SlowerNotPastThreshold);
        assert_eq!(v(false, 0.95, 1.05), Verdict::NoChange);
        assert_eq!(v(true, 0.5, 0.6), Verdict::SearchChanged);
        // No evidence about the machine: whatever the ratio, no time verdict.
        assert_eq!(
            verdict(0.1, false, false, Some(2.0), None),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict(0.1, true, false, Some(2.0), None),
            Verdict::SearchChanged
        );
        // A slowdown stays a slowdown when the search changed too, so that
        // --allow-search-changes cannot hide it; nothing timed is no time verdict.
        assert_eq!(v(true, 1.2, 1.3), Verdict::Slower);
        assert_eq!(verdict(0.1, false, true, None, None), Verdict::Inconclusive);
    }

    /// The case: +4.6% measured (interval 1.044-1.048) under a 5% threshold is a
    /// slowdown too small to fail, not "no change"; the same the other way round.
    #[test]
    fn a_change_measured_but_not_past_the_threshold_is_said() {
        let v = |lo, hi| verdict(0.05, false, true, Some(1.0), Some((lo, hi)));
        assert_eq!(v(1.044, 1.048), Verdict::SlowerNotPastThreshold);
        assert_eq!(v(1.0 / 1.048, 1.0 / 1.044), Verdict::FasterNotPastThreshold);
        assert_eq!(v(0.999, 1.048), Verdict::NoChange);
        assert_eq!(v(1.0, 1.0), Verdict::NoChange);
        assert_eq!(
            Verdict::SlowerNotPastThreshold.as_str(),
            "slower, not past threshold"
        );
        let json = serde_json::to_string(&Verdict::FasterNotPastThreshold).unwrap();
        assert_eq!(json, "\"faster_not_past_threshold\"");
        // Neither fails a gate; a changed search still shows over either.
        assert_eq!(
            verdict(0.05, true, true, Some(1.0), Some((1.044, 1.048))),
            Verdict::SearchChanged
        );
    }

    #[test]
    fn allowing_search_changes_does_not_allow_a_slowdown() {
        let b = run(&[("c", "a", 1, 5, 100), ("c", "a", 2, 5, 100)]);
        let c = run(&[("c", "a", 1, 6, 300), ("c", "a", 2, 6, 300)]);
        let options = CompareOptions {
            allow_search_changes: true,
            ..CompareOptions::default()
        };
        let cmp = compare(&[b.clone(), b.clone()], &[c.clone(), c.clone()], &options).unwrap();
        assert_eq!(cmp.rows[0].search_changed, 2);
        assert_eq!(cmp.rows[0].verdict, Verdict::Slower);
        assert!(cmp.regressed());
        // The same search change without the slowdown passes when allowed.
        let same_time = run(&[("c", "a", 1, 6, 100), ("c", "a", 2, 6, 100)]);
        let cmp = compare(&[b.clone(), b], &[same_time.clone(), same_time], &options).unwrap();
        assert_eq!(cmp.rows[0].verdict, Verdict::SearchChanged);
        assert!(!cmp.regressed());
    }

    #[test]
    fn a_strategy_that_counts_no_nodes_is_not_said_to_have_zero() {
        let b = run_with_nodes(&[("c", "lib", 1, 0, 10)], false);
        let c = run_with_nodes(&[("c", "lib", 1, 0, 10)], false);
        let cmp = compare(&[b], &[c], &CompareOptions::default()).unwrap();
        assert!(!cmp.rows[0].nodes_counted);
        let counted = compare(
            &[run(&[("c", "a", 1, 0, 10)])],
            &[run(&[("c", "a", 1, 0, 10)])],
            &CompareOptions::default(),
        )
        .unwrap();
        assert!(counted.rows[0].nodes_counted);
    }

    #[test]
    fn zero_times_do_not_break_the_logarithm() {
        let b = run(&[("c", "a", 1, 5, 0), ("c", "a", 2, 5, 100)]);
        let c = run(&[("c", "a", 1, 5, 0), ("c", "a", 2, 5, 100)]);
        let cmp = compare(&[b], &[c], &CompareOptions::default()).unwrap();
        assert_eq!(cmp.rows[0].time_ratio, Some(1.0));
        assert_eq!(cmp.rows[0].verdict, Verdict::Inconclusive);
    }

    /// `rows` with every time scaled by `factor` (and bumped per line by `jitter`).
    fn scaled(
        rows: &[(&'static str, &'static str, u64, u64, u64)],
        factor: f64,
        jitter: u64,
    ) -> Run {
        let rows: Vec<_> = rows
            .iter()
            .map(|&(c, s, l, n, t)| (c, s, l, n, (t as f64 * factor) as u64 + (l * jitter) % 7))
            .collect();
        run(&rows)
    }

    fn puzzles() -> Vec<(&'static str, &'static str, u64, u64, u64)> {
        (1..=60)
            .map(|l| ("c", "a", l, 5, 1000 + (l * 37 % 11) * 500))
            .collect()
    }

    #[test]
    fn one_run_per_side_is_inconclusive_several_decide() {
        let slow = compare(
            &[scaled(&puzzles(), 1.0, 0)],
            &[scaled(&puzzles(), 1.5, 0)],
            &CompareOptions::default(),
        )
        .unwrap();
        let row = &slow.rows[0];
        assert_eq!(row.verdict, Verdict::Inconclusive);
        assert!((row.time_ratio.unwrap() - 1.5).abs() < 0.01, "{row:?}");
        assert_eq!(row.ci, None);
        assert!(!slow.conclusive() && !slow.regressed());
        let base = [scaled(&puzzles(), 1.0, 1), scaled(&puzzles(), 1.02, 2)];
        let cur = [scaled(&puzzles(), 1.5, 3), scaled(&puzzles(), 1.48, 4)];
        let cmp = compare(&base, &cur, &CompareOptions::default()).unwrap();
        assert_eq!((cmp.baseline_runs, cmp.current_runs), (2, 2));
        assert_eq!(cmp.rows[0].verdict, Verdict::Slower, "{:?}", cmp.rows[0]);
        assert!(cmp.regressed());
        let same = compare(&base, &base, &CompareOptions::default()).unwrap();
        assert_eq!(same.rows[0].verdict, Verdict::NoChange);
    }

    #[test]
    fn a_search_change_in_any_run_counts() {
        let mut other = puzzles();
        other[3].3 += 1;
        let cmp = compare(
            &[run(&puzzles()), run(&other)],
            &[run(&puzzles()), run(&puzzles())],
            &CompareOptions::default(),
        )
        .unwrap();
        assert_eq!(cmp.rows[0].search_changed, 1);
        assert_eq!(cmp.rows[0].verdict, Verdict::SearchChanged);
    }

    #[test]
    fn a_puzzle_missing_from_one_run_is_unpaired() {
        let fewer: Vec<_> = puzzles().into_iter().filter(|r| r.2 != 9).collect();
        let cmp = compare(
            &[run(&puzzles()), run(&fewer)],
            &[run(&puzzles()), run(&puzzles())],
            &CompareOptions::default(),
        )
        .unwrap();
        assert_eq!(cmp.rows[0].paired, 59);
        assert_eq!(cmp.unpaired[0].why, Why::NotInEveryRun);
        assert_eq!(cmp.unpaired[0].lines, [9]);
        assert!(cmp.coverage.share() < 1.0);
    }

    #[test]
    fn between_pairs_two_strategies_of_one_run() {
        let mut rows = puzzles();
        rows.extend(
            puzzles()
                .into_iter()
                .map(|(c, _, l, n, t)| (c, "b", l, n, t * 2)),
        );
        let r = run(&rows);
        let pairs = [("a".to_string(), "b".to_string())];
        let cmp = between(&r, &pairs, &CompareOptions::default()).unwrap();
        assert_eq!(cmp.mode, Mode::InRun);
        let row = &cmp.rows[0];
        assert_eq!(
            (row.strategy.as_str(), row.baseline_strategy.as_deref()),
            ("b", Some("a"))
        );
        assert!((row.time_ratio.unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(row.verdict, Verdict::Slower);
        let unknown = [("a".to_string(), "zz".to_string())];
        assert_eq!(
            between(&r, &unknown, &CompareOptions::default()),
            Err(CompareError::UnknownStrategy {
                name: "zz".into(),
                known: vec!["a".into(), "b".into()]
            })
        );
    }

    #[test]
    fn a_corpus_without_the_reference_still_checks_nodes() {
        let b = run(&[
            ("c", "ref", 1, 5, 10),
            ("c", "a", 1, 5, 10),
            ("d", "a", 1, 5, 10),
        ]);
        let c = run(&[
            ("c", "ref", 1, 5, 20),
            ("c", "a", 1, 5, 20),
            ("d", "a", 1, 6, 10),
        ]);
        let options = CompareOptions {
            relative_to: Some("ref".into()),
            ..CompareOptions::default()
        };
        let cmp = compare(&[b], &[c], &options).unwrap();
        let d = cmp.rows.iter().find(|r| r.corpus == "d").unwrap();
        // Nothing timed (no reference in d), yet the search change shows.
        assert_eq!((d.time_ratio, d.verdict), (None, Verdict::SearchChanged));
        let ca = cmp
            .rows
            .iter()
            .find(|r| r.corpus == "c" && r.strategy == "a")
            .unwrap();
        assert_eq!(ca.time_ratio, Some(1.0));
        assert!(
            cmp.regressed()
                && !Comparison {
                    allow_search_changes: true,
                    ..cmp.clone()
                }
                .regressed()
        );
    }
}
