//! `history check`: every series of a store, and the change points in each.
//!
//! A series is one measure of one (machine, settings, corpus, strategy), over the recorded
//! commits in their order (by time, then by when first recorded). Time is judged on the
//! median rate (1 / median solve time), not on the mean-based puzzles/s/core: over separate
//! runs on a shared machine the mean moves by 13% to 17% (one preempted solve among solves
//! of microseconds), the median by 2% to 3% (see [`super::changes`]). In-run A/B ratios
//! and times relative to a reference strategy of the same run are judged the same way;
//! node and guess counts are exact; instruction counts (`run --measure instructions`) are
//! judged against a threshold, as `compare` judges them, and a counting run's rows give no
//! median rate: its times are Valgrind's.

use std::collections::BTreeMap;

use super::changes::{
    detect, exact_changes, threshold_changes, ChangePoint, Detection, Point, SeriesError,
};
use super::median::{median_interval, CONFIDENCE};
use super::store::{CommitRecord, HistoryStore, Measured, Observation, SeriesKey, StoreError};
use sudoku_bench_core::summary::read_times;

/// What a series measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Measure {
    /// 1 / median solve time: higher is faster.
    MedianRate,
    /// An in-run A/B's NEW / OLD time ratio: higher is slower.
    TimeRatio,
    /// A strategy's median time over its reference's in the same run: higher is slower.
    RelativeTime,
    /// Nodes per search (exact).
    Nodes,
    /// Guesses per finished search (exact).
    Guesses,
    /// Instructions per search (`run --measure instructions`): higher is slower.
    Instructions,
}

impl Measure {
    /// Its name, as `history check` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Measure::MedianRate => "median rate",
            Measure::TimeRatio => "time ratio",
            Measure::RelativeTime => "relative time",
            Measure::Nodes => "nodes",
            Measure::Guesses => "guesses",
            Measure::Instructions => "instructions",
        }
    }

    /// Whether it is a count, judged without statistics: any change of nodes or guesses
    /// is one, an instruction count's past [`Detection::count_threshold`].
    pub fn exact(self) -> bool {
        matches!(
            self,
            Measure::Nodes | Measure::Guesses | Measure::Instructions
        )
    }
}

/// One change point of one series.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The series.
    pub key: SeriesKey,
    /// What it measures.
    pub measure: Measure,
    /// The last commit before the change.
    pub before: String,
    /// The first commit after it.
    pub after: String,
    /// The after commit's place in the order of [`Findings::commits`].
    pub after_index: usize,
    /// The change point, with the means on either side.
    pub point: ChangePoint,
}

impl Change {
    /// Whether the strategy got slower: the median rate went down, or a ratio of times (A/B,
    /// relative) or the instructions per search up.
    pub fn slowdown(&self) -> bool {
        match self.measure {
            Measure::MedianRate => self.point.ratio() < 1.0,
            Measure::TimeRatio | Measure::RelativeTime | Measure::Instructions => {
                self.point.ratio() > 1.0
            }
            Measure::Nodes | Measure::Guesses => false,
        }
    }

    /// Its direction in words: `slower`, `faster`, `more`, `fewer`.
    pub fn direction(&self) -> &'static str {
        let up = self.point.ratio() > 1.0;
        match (self.measure.exact(), self.slowdown(), up) {
            (true, _, true) => "more",
            (true, _, false) => "fewer",
            (false, true, _) => "slower",
            (false, false, _) => "faster",
        }
    }
}

/// Each series' points by (series, measure), in commit order (a commit's runs in the order
/// recorded); a point's commit is its place in the store's commits.
pub type SeriesPoints = BTreeMap<(SeriesKey, Measure), Vec<Point>>;

/// Every series of a store, as measured: what [`check`] judges, and what a page draws or
/// an export sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Every recorded commit, in order.
    pub commits: Vec<CommitRecord>,
    /// The series. A median rate's point carries the [`super::median`] interval of its
    /// run's median (as a rate, at [`super::median::CONFIDENCE`]) when its run timed
    /// enough puzzles; an A/B ratio's the interval recorded with it; a relative time none.
    pub points: SeriesPoints,
}

/// What a check found.
#[derive(Debug, Clone, PartialEq)]
pub struct Findings {
    /// Every recorded commit, in order.
    pub commits: Vec<CommitRecord>,
    /// Series examined.
    pub series: usize,
    /// Their change points, by series, then commit.
    pub changes: Vec<Change>,
    /// The series judged, as [`Series::points`] has them.
    pub points: SeriesPoints,
}

impl Findings {
    /// The slowdowns whose range ends after the commit at `at` (its place in
    /// [`Findings::commits`]): those that may lie in the commits since it.
    pub fn slowdowns_since(&self, at: usize) -> usize {
        self.changes
            .iter()
            .filter(|c| c.slowdown() && c.after_index > at)
            .count()
    }
}

/// Why a check cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The knobs are out of range.
    #[error(transparent)]
    Series(#[from] SeriesError),
    /// A row whose time histogram cannot be read: a store written by hand.
    #[error("commit {commit}, {corpus} / {strategy}: the time histogram cannot be read: {why}")]
    Histogram {
        /// The row's commit.
        commit: String,
        /// Its corpus.
        corpus: String,
        /// Its strategy.
        strategy: String,
        /// Why.
        why: String,
    },
    /// A run of a commit the store does not list: a store that contradicts itself.
    #[error("the history records a run of commit {0}, which is not among its commits")]
    UnknownCommit(String),
    /// `--since` names no recorded commit, or several.
    #[error("--since {given}: {why}")]
    Since {
        /// What was given.
        given: String,
        /// Why it is refused.
        why: String,
    },
}

/// The change points of every series in `store`, with `knobs`; with `branch`, only runs
/// recorded for that branch.
pub fn check(
    store: &mut dyn HistoryStore,
    knobs: &Detection,
    branch: Option<&str>,
) -> Result<Findings, CheckError> {
    let Series { commits, points } = series(store, branch)?;
    let mut changes = Vec::new();
    for ((key, measure), points) in &points {
        let found = match measure {
            Measure::Instructions => threshold_changes(points, knobs.count_threshold)?,
            Measure::Nodes | Measure::Guesses => exact_changes(points)?,
            Measure::MedianRate | Measure::TimeRatio | Measure::RelativeTime => {
                detect(points, knobs)?
            }
        };
        changes.extend(found.into_iter().map(|point| Change {
            key: key.clone(),
            measure: *measure,
            before: commits[point.before].commit.clone(),
            after: commits[point.after].commit.clone(),
            after_index: point.after,
            point,
        }));
    }
    Ok(Findings {
        commits,
        series: points.len(),
        changes,
        points,
    })
}

/// The interval of a median rate from its run's time histogram (see [`super::median`]).
fn rate_interval(obs: &Observation, times: &str) -> Result<Option<(f64, f64)>, CheckError> {
    let histogram = read_times(times).map_err(|why| CheckError::Histogram {
        commit: obs.commit.clone(),
        corpus: obs.key.corpus.name.clone(),
        strategy: obs.key.strategy.clone(),
        why,
    })?;
    Ok(median_interval(&histogram, CONFIDENCE)
        .map(|(lo, hi)| (1e9 / hi as f64, 1e9 / lo.max(1) as f64)))
}

/// Every series in `store`; with `branch`, only runs recorded for that branch.
pub fn series(store: &mut dyn HistoryStore, branch: Option<&str>) -> Result<Series, CheckError> {
    let commits = store.commits()?;
    let place: BTreeMap<&str, usize> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| (c.commit.as_str(), i))
        .collect();
    let mut series = SeriesPoints::new();
    for obs in store.observations()? {
        if branch.is_some() && obs.branch.as_deref() != branch {
            continue;
        }
        let commit = *place
            .get(obs.commit.as_str())
            .ok_or_else(|| CheckError::UnknownCommit(obs.commit.clone()))?;
        let mut push = |measure: Measure, value: f64, interval| {
            series
                .entry((obs.key.clone(), measure))
                .or_default()
                .push(Point {
                    commit,
                    value,
                    interval,
                })
        };
        match obs.measured {
            Measured::Row {
                median_rate,
                nodes,
                guesses,
                instructions,
                ref times,
            } => {
                // A row with nothing timed has no rate; its counts still say what was done.
                // A counting run's times are Valgrind's: its counts are its measure.
                if let Some((sum, count)) = instructions {
                    push(Measure::Instructions, sum as f64 / count as f64, None);
                } else if median_rate > 0.0 && median_rate.is_finite() {
                    push(
                        Measure::MedianRate,
                        median_rate,
                        rate_interval(&obs, times)?,
                    );
                }
                if let Some((sum, count)) = nodes {
                    push(Measure::Nodes, sum as f64 / count as f64, None);
                }
                if let Some((sum, count)) = guesses {
                    push(Measure::Guesses, sum as f64 / count as f64, None);
                }
            }
            Measured::Ab { ratio, interval } => push(Measure::TimeRatio, ratio, interval),
            // No interval: two medians' intervals do not make one of their ratio.
            Measured::Relative { ratio } => push(Measure::RelativeTime, ratio, None),
        }
    }
    for points in series.values_mut() {
        // Stable: a commit's runs stay in the order recorded.
        points.sort_by_key(|p| p.commit);
    }
    Ok(Series {
        commits,
        points: series,
    })
}

/// The place of the commit `given` names: a recorded commit equal to it (a commit may be
/// recorded under a short hash that begins a longer recorded one: its whole name must then
/// name it, not be ambiguous), else the one recorded commit it is a prefix of.
pub fn commit_index(commits: &[CommitRecord], given: &str) -> Result<usize, CheckError> {
    let wanted = given.to_ascii_lowercase();
    if let Some(exact) = commits.iter().position(|c| c.commit == wanted) {
        return Ok(exact);
    }
    let found: Vec<usize> = commits
        .iter()
        .enumerate()
        .filter(|(_, c)| c.commit.starts_with(&wanted))
        .map(|(i, _)| i)
        .collect();
    let refuse = |why: String| CheckError::Since {
        given: given.to_string(),
        why,
    };
    match found[..] {
        [one] if !wanted.is_empty() => Ok(one),
        [] | [_] => Err(refuse(format!(
            "no such commit in the history ({} recorded)",
            commits.len()
        ))),
        _ => {
            const SHOWN: usize = 4;
            let mut names: Vec<&str> = found
                .iter()
                .take(SHOWN)
                .map(|&i| commits[i].commit.as_str())
                .collect();
            if found.len() > SHOWN {
                names.push("...");
            }
            Err(refuse(format!(
                "names {} recorded commits ({}): give more of the hash",
                found.len(),
                names.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests;
