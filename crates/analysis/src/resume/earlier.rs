//! The earlier run's summary JSON (`--summary`), which holds what the CSV does not: its
//! limits, its `--shard` and its wall times. A run writes its summary at its end and
//! empties the file at its start, so a killed run (the pre-empted job that `--resume` is
//! for) leaves it empty: then only what the CSV says is checked, and that is said.

use std::path::Path;

use super::error::ResumeError;
use sudoku_bench_core::corpus::Shard;
use sudoku_bench_core::runner::Settings;
use sudoku_bench_core::summary::read as summary_file;
use sudoku_bench_core::summary::{GroupState, Summary, SummaryReport, SummaryRow};

/// The earlier run's summary, when there is one to read.
#[derive(Debug)]
pub struct Earlier {
    /// What the summary says; `None` when there is none (see [`Earlier::note`]).
    pub report: Option<SummaryReport>,
    /// Why there is none.
    unread: Option<String>,
}

impl Earlier {
    /// The earlier run's summary, when `summary` (this run's `--summary`) holds one.
    pub fn read(summary: Option<&Path>) -> Result<Earlier, ResumeError> {
        let why = match summary {
            None => "no --summary names the earlier run's summary JSON".to_string(),
            Some(p) if p.as_os_str() == "-" => {
                "the summary goes to stdout (--summary -), where the earlier one cannot be read"
                    .to_string()
            }
            Some(p) => match std::fs::metadata(p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
                    "the earlier summary {} does not exist: the earlier run did not finish (it \
                     writes its summary at the end) or had no --summary",
                    p.display()
                ),
                Err(source) => {
                    return Err(ResumeError::Read {
                        path: p.to_path_buf(),
                        source,
                    })
                }
                Ok(meta) if meta.is_file() && meta.len() == 0 => format!(
                    "the earlier summary {} is empty: the earlier run did not finish (it \
                     writes its summary at the end)",
                    p.display()
                ),
                Ok(meta)
                    if !meta.is_file()
                        || !summary_file::is_summary_file(p)
                            .map_err(ResumeError::SummaryFile)? =>
                {
                    format!(
                        "{} is not a summary JSON (--summary-format json writes one)",
                        p.display()
                    )
                }
                Ok(_) => {
                    let report = summary_file::read_summary(p).map_err(|source| {
                        ResumeError::EarlierSummary {
                            summary: p.to_path_buf(),
                            source,
                        }
                    })?;
                    return Ok(Earlier {
                        report: Some(report),
                        unread: None,
                    });
                }
            },
        };
        Ok(Earlier {
            report: None,
            unread: Some(why),
        })
    }

    /// When there is no earlier summary: why, and what is then left unchecked.
    pub fn note(&self) -> Option<String> {
        self.unread.as_ref().map(|why| {
            format!(
                "{why}; settings are checked from the CSV only (corpora, strategies, lines of \
                 the --shard part): the limits and --shard must be the earlier run's for the \
                 rows to belong together, and wall times and wall throughput cover only this \
                 stretch's rows"
            )
        })
    }
}

/// Refuse an earlier run that failed, and limits or a part that differ from its. `csv` is the CSV resumed,
/// `summary` the earlier summary's file, `shard` this run's part.
pub(crate) fn check(
    earlier: &SummaryReport,
    csv: &Path,
    summary: &Path,
    settings: &Settings,
    shard: Option<Shard>,
) -> Result<(), ResumeError> {
    if !earlier.errors.is_empty() {
        return Err(ResumeError::EarlierFailed {
            csv: csv.to_path_buf(),
            summary: summary.to_path_buf(),
            errors: earlier.errors.join("; "),
        });
    }
    // Part 1/1 is the whole input.
    let part = |s: Option<Shard>| s.filter(|s| *s != Shard::WHOLE);
    if part(earlier.shard) != part(shard) {
        return Err(ResumeError::OtherShard {
            csv: csv.to_path_buf(),
            summary: summary.to_path_buf(),
            earlier: earlier.shard,
            now: shard,
        });
    }
    let now = settings.summary_report(&Summary::default(), 0, 0);
    for ((flag, then), (_, now)) in earlier.limits().into_iter().zip(now.limits()) {
        if then != now {
            return Err(ResumeError::OtherLimit {
                summary: summary.to_path_buf(),
                flag,
                then,
                now,
            });
        }
    }
    Ok(())
}

/// Whether `earlier`'s rows count what `summary` counts: in each (corpus, strategy) with
/// rows, the same records of each status, searches, wrong answers and failures; and where
/// the earlier summary holds its accumulators, every figure the rows decide (summed and
/// longest times, nodes, guesses), as `merge` checks a part: another run's summary of as
/// many rows is not theirs.
pub(crate) fn counts_the_same(earlier: &SummaryReport, summary: &Summary) -> bool {
    let of_rows = |groups: &[GroupState]| -> Vec<GroupState> {
        let mut groups: Vec<GroupState> = groups
            .iter()
            .filter(|g| g.counts.values().any(|&n| n > 0))
            .map(|g| GroupState {
                // What the rows do not hold: the phases' wall time and preemptions, and the
                // histogram's encoding.
                wall_ns: 0,
                unwalled: 0,
                preemptions: None,
                times: String::new(),
                ..g.clone()
            })
            .collect();
        groups.sort_by(|a, b| (&a.corpus, &a.strategy).cmp(&(&b.corpus, &b.strategy)));
        groups
    };
    let figures_agree = earlier
        .state
        .as_ref()
        .is_none_or(|state| of_rows(&state.groups) == of_rows(&summary.state().groups));
    figures_agree && statuses_the_same(earlier, summary)
}

/// The status counts of [`counts_the_same`].
fn statuses_the_same(earlier: &SummaryReport, summary: &Summary) -> bool {
    let counts = |rows: &[SummaryRow]| -> Vec<(String, String, [u64; 11])> {
        rows.iter()
            .filter(|r| r.puzzles > 0)
            .map(|r| {
                let counts = [
                    r.puzzles,
                    r.unique,
                    r.multiple,
                    r.unsolvable,
                    r.solved,
                    r.invalid,
                    r.malformed,
                    r.aborted,
                    r.mismatches,
                    r.failures,
                    r.searched,
                ];
                (r.corpus.clone(), r.strategy.clone(), counts)
            })
            .collect()
    };
    counts(&earlier.rows) == counts(&summary.rows())
}

/// Add the earlier run's wall accounting of each of `corpora` (those with kept rows, whose
/// groups the scan made) and `strategies` to `summary`: its wall time, so that wall
/// throughputs count the kept rows over the time they took, and the rows it counted without
/// one (`unwalled`: rows that a resume of a killed run kept), which they must still leave
/// out. Added as the summaries of a split run's parts are: by merging their accumulators.
pub(crate) fn add_wall(
    earlier: &SummaryReport,
    corpora: &[&str],
    strategies: &[&str],
    summary: &mut Summary,
) {
    let mut walls = Summary::default();
    for row in &earlier.rows {
        if corpora.contains(&row.corpus.as_str()) && strategies.contains(&row.strategy.as_str()) {
            let group = walls.group(&row.corpus, &row.strategy);
            walls.add_wall(group, row.wall_ns);
        }
    }
    let mut state = walls.state();
    let unwalled = |g: &GroupState| {
        let earlier = earlier.state.as_ref()?.groups.iter();
        let mut same = earlier.filter(|e| e.corpus == g.corpus && e.strategy == g.strategy);
        same.next().map(|e| e.unwalled)
    };
    for group in &mut state.groups {
        group.unwalled = unwalled(group).unwrap_or(0);
    }
    let walls = Summary::from_state(&state).expect("a summary's own state reads back");
    summary.merge(&walls);
}
