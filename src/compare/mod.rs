//! `compare`: pairs two runs puzzle by puzzle and decides, per corpus and strategy,
//! whether the search changed (exact node counts) and whether time got slower or faster
//! (geometric mean of per-puzzle time ratios with a bootstrap confidence interval).
//!
//! The exporters for the result (table, markdown, JSON) live in [`export`].

pub mod export;
pub mod load;
pub mod pair;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use load::{CorpusRows, Sample, Samples};
pub use load::{LoadError, Run};
use stats::Bootstrap;

/// What decides a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Relative change that counts, e.g. 0.05. Slower: the interval's lower bound is above
    /// `1 + threshold`. Faster: its upper bound is below `1 / (1 + threshold)`, the same
    /// distance in log space, so a 2x slowdown and a 2x speedup weigh alike.
    pub threshold: f64,
    /// Divide each strategy's per-puzzle time by this strategy's time on the same puzzle in
    /// the same run, so a uniform machine-speed factor cancels.
    pub relative_to: Option<String>,
    pub bootstrap: Bootstrap,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: 0.05,
            relative_to: None,
            bootstrap: Bootstrap::default(),
        }
    }
}

/// Why two runs cannot be compared (beyond unreadable files).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    #[error("--relative-to {strategy}: no such strategy in the {side} run")]
    NoReference { strategy: String, side: Side },
    #[error("--relative-to needs per-puzzle CSVs on both sides, not a summary JSON")]
    ReferenceNeedsPerPuzzle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Baseline,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    NoChange,
    SearchChanged,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no change",
            Verdict::SearchChanged => "search changed",
        }
    }
}

/// How much evidence a comparison had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Per-puzzle CSVs on both sides: paired ratios with a confidence interval.
    PerPuzzle,
    /// A summary JSON on at least one side: per-core throughput and median only, no interval.
    Summary,
}

/// One corpus and strategy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub corpus: String,
    pub strategy: String,
    /// Puzzles on both sides (per-puzzle mode), or searched puzzles in the current run.
    pub paired: u64,
    /// Paired puzzles with a time on both sides (and on the reference, with `relative_to`).
    pub timed: u64,
    pub baseline_nodes: u64,
    pub current_nodes: u64,
    /// Whether either side counted nodes: a solver from outside (`--solver`) counts none,
    /// and its node totals are then not shown as zeros.
    pub nodes_counted: bool,
    /// Paired puzzles whose node count or status differs.
    pub search_changed: u64,
    /// Current / baseline time: geometric mean of per-puzzle ratios, or (summary mode) the
    /// ratio of total solve times per searched puzzle.
    pub time_ratio: Option<f64>,
    /// 95% bootstrap interval of `time_ratio` (per-puzzle mode only).
    pub ci: Option<(f64, f64)>,
    /// Summary mode: current / baseline median time.
    pub median_ratio: Option<f64>,
    /// This is the `relative_to` strategy: its ratio is 1 by construction.
    pub reference: bool,
    pub verdict: Verdict,
}

/// Why rows were left out of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// The other run has no such corpus, strategy or line.
    OnlyInBaseline,
    OnlyInCurrent,
    /// Both runs have the line, but it holds a different puzzle in each.
    DifferentPuzzle,
}

/// Rows left out of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpaired {
    pub why: Why,
    pub corpus: String,
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
    pub paired: u64,
    pub baseline_rows: u64,
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

/// The result of comparing two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub mode: Mode,
    pub threshold: f64,
    pub relative_to: Option<String>,
    pub confidence: f64,
    pub resamples: usize,
    pub rows: Vec<Row>,
    pub unpaired: Vec<Unpaired>,
    pub coverage: Coverage,
}

impl Comparison {
    /// True when a row is slower, or changed its search and that is not allowed.
    pub fn regressed(&self, allow_search_changes: bool) -> bool {
        self.rows.iter().any(|r| {
            r.verdict == Verdict::Slower || (r.search_changed > 0 && !allow_search_changes)
        })
    }
}

/// Compare `current` against `baseline`.
pub fn compare(
    baseline: &Run,
    current: &Run,
    options: &Options,
) -> Result<Comparison, CompareError> {
    let mut cmp = Comparison {
        mode: Mode::PerPuzzle,
        threshold: options.threshold,
        relative_to: options.relative_to.clone(),
        confidence: options.bootstrap.confidence,
        resamples: options.bootstrap.resamples,
        rows: Vec::new(),
        unpaired: Vec::new(),
        coverage: Coverage::default(),
    };
    match (baseline, current) {
        (Run::PerPuzzle(b), Run::PerPuzzle(c)) => per_puzzle(b, c, options, &mut cmp)?,
        _ => {
            if options.relative_to.is_some() {
                return Err(CompareError::ReferenceNeedsPerPuzzle);
            }
            cmp.mode = Mode::Summary;
            summary(baseline, current, options, &mut cmp);
        }
    }
    Ok(cmp)
}

fn verdict(threshold: f64, search_changed: bool, lo: Option<f64>, hi: Option<f64>) -> Verdict {
    if search_changed {
        return Verdict::SearchChanged;
    }
    match (lo, hi) {
        (Some(lo), _) if lo > 1.0 + threshold => Verdict::Slower,
        (_, Some(hi)) if hi < 1.0 / (1.0 + threshold) => Verdict::Faster,
        _ => Verdict::NoChange,
    }
}

/// Per-puzzle time for `strategy`, divided by the reference strategy's time on the same
/// puzzle when there is one; `None` when either is missing. Times of 0 ns (a clock too
/// coarse for the solve) count as 1 ns so that their logarithm exists.
fn time_of(sample: &Sample, reference: Option<&BTreeMap<u64, Sample>>, line: u64) -> Option<f64> {
    let t = sample.time_ns?.max(1) as f64;
    match reference {
        None => Some(t),
        Some(r) => Some(t / r.get(&line)?.time_ns?.max(1) as f64),
    }
}

/// Fails when the reference strategy is in no corpus of a side.
fn check_reference(s: &Samples, side: Side, options: &Options) -> Result<(), CompareError> {
    match &options.relative_to {
        Some(name) if !s.values().any(|c| c.strategies.contains_key(name)) => {
            Err(CompareError::NoReference {
                strategy: name.clone(),
                side,
            })
        }
        _ => Ok(()),
    }
}

fn per_puzzle(
    b: &Samples,
    c: &Samples,
    options: &Options,
    cmp: &mut Comparison,
) -> Result<(), CompareError> {
    check_reference(b, Side::Baseline, options)?;
    check_reference(c, Side::Current, options)?;
    cmp.coverage.baseline_rows = b.values().map(CorpusRows::rows).sum();
    cmp.coverage.current_rows = c.values().map(CorpusRows::rows).sum();
    for (bn, cn) in pair::corpora(b, c) {
        match (bn, cn) {
            (Some(bn), Some(cn)) => corpus_pair(&pair::label(bn, cn), &b[bn], &c[cn], options, cmp),
            (Some(name), None) => only_in(Side::Baseline, name, &b[name], cmp),
            (None, Some(name)) => only_in(Side::Current, name, &c[name], cmp),
            (None, None) => {}
        }
    }
    Ok(())
}

fn only_in(side: Side, name: &str, rows: &CorpusRows, cmp: &mut Comparison) {
    for (strategy, lines) in &rows.strategies {
        cmp.unpaired.push(Unpaired {
            why: match side {
                Side::Baseline => Why::OnlyInBaseline,
                Side::Current => Why::OnlyInCurrent,
            },
            corpus: load::normal_name(name),
            strategy: strategy.clone(),
            whole_strategy: true,
            lines: lines.keys().copied().collect(),
        });
    }
}

fn corpus_pair(
    corpus: &str,
    b: &CorpusRows,
    c: &CorpusRows,
    options: &Options,
    cmp: &mut Comparison,
) {
    let strategies: BTreeSet<&String> = b.strategies.keys().chain(c.strategies.keys()).collect();
    let name = options.relative_to.as_ref();
    let b_ref = name.and_then(|n| b.strategies.get(n));
    let c_ref = name.and_then(|n| c.strategies.get(n));
    let same_puzzle = |line: &u64| b.puzzles.get(line) == c.puzzles.get(line);
    for strategy in strategies {
        let unpaired = |why, whole_strategy, lines: Vec<u64>| Unpaired {
            why,
            corpus: corpus.to_string(),
            strategy: strategy.clone(),
            whole_strategy,
            lines,
        };
        let (b_rows, c_rows) = match (b.strategies.get(strategy), c.strategies.get(strategy)) {
            (Some(b_rows), Some(c_rows)) => (b_rows, c_rows),
            (Some(rows), None) | (None, Some(rows)) => {
                let why = if b.strategies.contains_key(strategy) {
                    Why::OnlyInBaseline
                } else {
                    Why::OnlyInCurrent
                };
                cmp.unpaired
                    .push(unpaired(why, true, rows.keys().copied().collect()));
                continue;
            }
            (None, None) => continue,
        };
        for (why, lines) in [
            (
                Why::OnlyInBaseline,
                b_rows
                    .keys()
                    .filter(|l| !c_rows.contains_key(l))
                    .copied()
                    .collect(),
            ),
            (
                Why::OnlyInCurrent,
                c_rows
                    .keys()
                    .filter(|l| !b_rows.contains_key(l))
                    .copied()
                    .collect(),
            ),
            (
                Why::DifferentPuzzle,
                b_rows
                    .keys()
                    .filter(|l| c_rows.contains_key(l) && !same_puzzle(l))
                    .copied()
                    .collect::<Vec<u64>>(),
            ),
        ] {
            if !lines.is_empty() {
                cmp.unpaired.push(unpaired(why, false, lines));
            }
        }
        let is_reference = options.relative_to.as_deref() == Some(strategy.as_str());
        let (br, cr) = if options.relative_to.is_some() && !is_reference {
            (b_ref, c_ref)
        } else {
            (None, None)
        };
        let mut row = Row {
            corpus: corpus.to_string(),
            strategy: strategy.clone(),
            paired: 0,
            timed: 0,
            baseline_nodes: 0,
            current_nodes: 0,
            nodes_counted: false,
            search_changed: 0,
            time_ratio: None,
            ci: None,
            median_ratio: None,
            reference: is_reference,
            verdict: Verdict::NoChange,
        };
        let mut logs = Vec::new();
        let reference_missing =
            options.relative_to.is_some() && !is_reference && (br.is_none() || cr.is_none());
        for (line, bs) in b_rows {
            let Some(cs) = c_rows.get(line).filter(|_| same_puzzle(line)) else {
                continue;
            };
            row.paired += 1;
            row.baseline_nodes += bs.nodes.unwrap_or(0);
            row.current_nodes += cs.nodes.unwrap_or(0);
            row.nodes_counted |= bs.nodes.is_some() || cs.nodes.is_some();
            if bs.nodes != cs.nodes || bs.status != cs.status {
                row.search_changed += 1;
            }
            if is_reference || reference_missing {
                continue;
            }
            if let (Some(tb), Some(tc)) = (time_of(bs, br, *line), time_of(cs, cr, *line)) {
                logs.push((tc / tb).ln());
            }
        }
        if row.paired == 0 {
            // All listed as unpaired; a row would read "no change" about nothing.
            continue;
        }
        cmp.coverage.paired += row.paired;
        row.timed = logs.len() as u64;
        if is_reference {
            row.time_ratio = Some(1.0);
        } else {
            row.time_ratio = stats::geometric_mean_of_logs(&logs);
            row.ci = options.bootstrap.geometric_mean_ci(&logs);
        }
        row.verdict = verdict(
            options.threshold,
            row.search_changed > 0,
            row.ci.map(|c| c.0),
            row.ci.map(|c| c.1),
        );
        cmp.rows.push(row);
    }
}

fn summary(baseline: &Run, current: &Run, options: &Options, cmp: &mut Comparison) {
    let b = baseline.aggregates();
    let c = current.aggregates();
    cmp.coverage.baseline_rows = b.len() as u64;
    cmp.coverage.current_rows = c.len() as u64;
    let keys: BTreeSet<&(String, String)> = b.keys().chain(c.keys()).collect();
    for key in keys {
        let (Some(ba), Some(ca)) = (b.get(key), c.get(key)) else {
            cmp.unpaired.push(Unpaired {
                why: if b.contains_key(key) {
                    Why::OnlyInBaseline
                } else {
                    Why::OnlyInCurrent
                },
                corpus: key.0.clone(),
                strategy: key.1.clone(),
                whole_strategy: true,
                lines: Vec::new(),
            });
            continue;
        };
        let per_puzzle = |a: &load::Aggregate| {
            (a.searched > 0 && a.total_time_ns > 0)
                .then(|| a.total_time_ns as f64 / a.searched as f64)
        };
        let time_ratio = match (per_puzzle(ba), per_puzzle(ca)) {
            (Some(tb), Some(tc)) => Some(tc / tb),
            _ => None,
        };
        cmp.coverage.paired += 1;
        let median_ratio = (ba.median_ns > 0 && ca.median_ns > 0)
            .then(|| ca.median_ns as f64 / ba.median_ns as f64);
        // Without per-puzzle data a different puzzle count is also a different search.
        let changed = ba.total_nodes != ca.total_nodes || ba.searched != ca.searched;
        cmp.rows.push(Row {
            corpus: key.0.clone(),
            strategy: key.1.clone(),
            paired: ca.searched,
            timed: ca.searched.min(ba.searched),
            baseline_nodes: ba.total_nodes.unwrap_or(0),
            current_nodes: ca.total_nodes.unwrap_or(0),
            nodes_counted: ba.total_nodes.is_some() || ca.total_nodes.is_some(),
            search_changed: changed as u64,
            time_ratio,
            ci: None,
            median_ratio,
            reference: false,
            // No interval: the point estimate alone decides, so it is a weaker test.
            verdict: verdict(options.threshold, changed, time_ratio, time_ratio),
        });
    }
}

#[cfg(test)]
mod tests {
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
                        time_ns: Some(*time),
                        status: "unique".into(),
                    },
                );
        }
        Run::PerPuzzle(s)
    }

    #[test]
    fn faster_is_symmetric_to_slower_in_log_space() {
        // 1/1.1 = 0.909...: an interval ending at 0.92 is not faster, one ending at 0.90 is.
        assert_eq!(
            verdict(0.1, false, Some(0.85), Some(0.92)),
            Verdict::NoChange
        );
        assert_eq!(verdict(0.1, false, Some(0.85), Some(0.90)), Verdict::Faster);
        assert_eq!(verdict(0.1, false, Some(1.11), Some(1.3)), Verdict::Slower);
        assert_eq!(
            verdict(0.1, false, Some(1.09), Some(1.3)),
            Verdict::NoChange
        );
        assert_eq!(
            verdict(0.1, true, Some(0.5), Some(0.6)),
            Verdict::SearchChanged
        );
    }

    #[test]
    fn a_strategy_that_counts_no_nodes_is_not_said_to_have_zero() {
        let b = run_with_nodes(&[("c", "lib", 1, 0, 10)], false);
        let c = run_with_nodes(&[("c", "lib", 1, 0, 10)], false);
        let cmp = compare(&b, &c, &Options::default()).unwrap();
        assert!(!cmp.rows[0].nodes_counted);
        let counted = compare(
            &run(&[("c", "a", 1, 0, 10)]),
            &run(&[("c", "a", 1, 0, 10)]),
            &Options::default(),
        )
        .unwrap();
        assert!(counted.rows[0].nodes_counted);
    }

    #[test]
    fn zero_times_do_not_break_the_logarithm() {
        let b = run(&[("c", "a", 1, 5, 0), ("c", "a", 2, 5, 100)]);
        let c = run(&[("c", "a", 1, 5, 0), ("c", "a", 2, 5, 100)]);
        let cmp = compare(&b, &c, &Options::default()).unwrap();
        assert_eq!(cmp.rows[0].time_ratio, Some(1.0));
        assert_eq!(cmp.rows[0].verdict, Verdict::NoChange);
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
        let options = Options {
            relative_to: Some("ref".into()),
            ..Options::default()
        };
        let cmp = compare(&b, &c, &options).unwrap();
        let d = cmp.rows.iter().find(|r| r.corpus == "d").unwrap();
        assert_eq!((d.time_ratio, d.verdict), (None, Verdict::SearchChanged));
        let ca = cmp
            .rows
            .iter()
            .find(|r| r.corpus == "c" && r.strategy == "a")
            .unwrap();
        assert_eq!(ca.time_ratio, Some(1.0));
        assert!(cmp.regressed(false) && !cmp.regressed(true));
    }
}
