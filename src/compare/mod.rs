//! `compare`: pairs two runs puzzle by puzzle and decides, per corpus and strategy,
//! whether the search changed (exact node counts) and whether time got slower or faster
//! (geometric mean of per-puzzle time ratios with a bootstrap confidence interval).
//!
//! The exporters for the result (table, markdown, JSON) live in [`export`].

pub mod export;
pub mod load;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub use load::{LoadError, Run};
use load::{Sample, Samples};
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

/// Rows present on one side only.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpaired {
    /// The side that has them.
    pub only_in: Side,
    pub corpus: String,
    pub strategy: String,
    /// The whole (corpus, strategy) is missing from the other side.
    pub whole_strategy: bool,
    /// The lines (puzzles) concerned; empty in summary mode.
    pub lines: Vec<u64>,
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

/// The reference strategy's rows per corpus; empty without `relative_to`.
fn reference<'a>(
    s: &'a Samples,
    side: Side,
    options: &Options,
) -> Result<BTreeMap<String, &'a BTreeMap<u64, Sample>>, CompareError> {
    let Some(name) = &options.relative_to else {
        return Ok(BTreeMap::new());
    };
    let found: BTreeMap<_, _> = s
        .iter()
        .filter(|((_, strategy), _)| strategy == name)
        .map(|((corpus, _), rows)| (corpus.clone(), rows))
        .collect();
    if found.is_empty() {
        return Err(CompareError::NoReference {
            strategy: name.clone(),
            side,
        });
    }
    Ok(found)
}

fn per_puzzle(
    b: &Samples,
    c: &Samples,
    options: &Options,
    cmp: &mut Comparison,
) -> Result<(), CompareError> {
    let b_ref = reference(b, Side::Baseline, options)?;
    let c_ref = reference(c, Side::Current, options)?;
    let keys: BTreeSet<&(String, String)> = b.keys().chain(c.keys()).collect();
    for key in keys {
        let (corpus, strategy) = key;
        let (Some(b_rows), Some(c_rows)) = (b.get(key), c.get(key)) else {
            let (only_in, rows) = match b.get(key) {
                Some(rows) => (Side::Baseline, rows),
                None => (Side::Current, &c[key]),
            };
            cmp.unpaired.push(Unpaired {
                only_in,
                corpus: corpus.clone(),
                strategy: strategy.clone(),
                whole_strategy: true,
                lines: rows.keys().copied().collect(),
            });
            continue;
        };
        for (only_in, mine, other) in [
            (Side::Baseline, b_rows, c_rows),
            (Side::Current, c_rows, b_rows),
        ] {
            let lines: Vec<u64> = mine
                .keys()
                .filter(|l| !other.contains_key(l))
                .copied()
                .collect();
            if !lines.is_empty() {
                cmp.unpaired.push(Unpaired {
                    only_in,
                    corpus: corpus.clone(),
                    strategy: strategy.clone(),
                    whole_strategy: false,
                    lines,
                });
            }
        }
        let is_reference = options.relative_to.as_deref() == Some(strategy.as_str());
        let (br, cr) = if options.relative_to.is_some() && !is_reference {
            (b_ref.get(corpus).copied(), c_ref.get(corpus).copied())
        } else {
            (None, None)
        };
        let mut row = Row {
            corpus: corpus.clone(),
            strategy: strategy.clone(),
            paired: 0,
            timed: 0,
            baseline_nodes: 0,
            current_nodes: 0,
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
            let Some(cs) = c_rows.get(line) else { continue };
            row.paired += 1;
            row.baseline_nodes += bs.nodes.unwrap_or(0);
            row.current_nodes += cs.nodes.unwrap_or(0);
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
    Ok(())
}

fn summary(baseline: &Run, current: &Run, options: &Options, cmp: &mut Comparison) {
    let b = baseline.aggregates();
    let c = current.aggregates();
    let keys: BTreeSet<&(String, String)> = b.keys().chain(c.keys()).collect();
    for key in keys {
        let (Some(ba), Some(ca)) = (b.get(key), c.get(key)) else {
            cmp.unpaired.push(Unpaired {
                only_in: if b.contains_key(key) {
                    Side::Baseline
                } else {
                    Side::Current
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
        let median_ratio = (ba.median_ns > 0 && ca.median_ns > 0)
            .then(|| ca.median_ns as f64 / ba.median_ns as f64);
        // Without per-puzzle data a different puzzle count is also a different search.
        let changed = ba.total_nodes != ca.total_nodes || ba.searched != ca.searched;
        cmp.rows.push(Row {
            corpus: key.0.clone(),
            strategy: key.1.clone(),
            paired: ca.searched,
            timed: ca.searched.min(ba.searched),
            baseline_nodes: ba.total_nodes,
            current_nodes: ca.total_nodes,
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
        let mut s = Samples::new();
        for (corpus, strategy, line, nodes, time) in rows {
            s.entry((corpus.to_string(), strategy.to_string()))
                .or_default()
                .insert(
                    *line,
                    Sample {
                        nodes: Some(*nodes),
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
