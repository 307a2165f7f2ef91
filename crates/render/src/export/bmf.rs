//! One commit's numbers in Bencher Metric Format (BMF), the JSON `bencher run --adapter
//! json` takes (<https://bencher.dev/docs/reference/bencher-metric-format/>):
//! `{ "BENCHMARK": { "MEASURE": { "value": v, "lower_value": l, "upper_value": u } } }`.
//!
//! A benchmark is a corpus and strategy, `CORPUS/STRATEGY` (an in-run A/B's strategy is
//! `OLD -> NEW`), with `[MACHINE; SETTINGS]` after it when the commit has runs of it on
//! several machines or settings (a name must name one series). Its measures, from the
//! series `history check` judges:
//!
//! - `throughput`: puzzles per second of one core, 1 / median time (Bencher's built-in
//!   measure, operations per second), within the 95% interval of the run's median;
//! - `latency`: the median solve time in nanoseconds (Bencher's built-in, in ns), within
//!   the same interval;
//! - `nodes` and `guesses`: per search, exact;
//! - `instructions`: per search, counted (`run --measure instructions`);
//! - `time-ratio`: an in-run A/B's NEW / OLD time, within its recorded interval;
//! - `relative-time`: a strategy's median time over its reference's in the same run
//!   (`history add --relative-to`; the benchmark is `CORPUS/STRATEGY / REFERENCE`), no bounds.
//!
//! A commit with several runs of a series (recorded again) gives its median run: the one
//! in the middle by value (the lower of the two middle ones), with that run's interval.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use sudoku_bench_analysis::history::changes::Point;
use sudoku_bench_analysis::history::{Measure, Series};

/// The middle one of the points at `commit`, by value.
fn median_at(points: &[Point], commit: usize) -> Option<Point> {
    let mut at: Vec<Point> = points
        .iter()
        .filter(|p| p.commit == commit)
        .copied()
        .collect();
    at.sort_by(|a, b| a.value.total_cmp(&b.value));
    at.get(at.len().saturating_sub(1) / 2).copied()
}

/// A metric, with its bounds when there are some.
fn metric(value: f64, bounds: Option<(f64, f64)>) -> Value {
    match bounds {
        Some((lo, hi)) => json!({ "value": value, "lower_value": lo, "upper_value": hi }),
        None => json!({ "value": value }),
    }
}

/// Nanoseconds of a rate's inverse, to the nanosecond the histogram recorded.
fn ns(rate: f64) -> f64 {
    (1e9 / rate).round()
}

/// The BMF document of the commit at `commit` (its place in [`Series::commits`]): every
/// series with a run there; empty when none has.
pub fn bmf(series: &Series, commit: usize) -> Value {
    let base = |key: &sudoku_bench_analysis::history::store::SeriesKey| {
        format!("{}/{}", key.corpus.name, key.strategy)
    };
    // Which names would stand for several machines or settings at this commit.
    let mut places: BTreeMap<String, BTreeSet<(&str, &str)>> = BTreeMap::new();
    for ((key, _), points) in &series.points {
        if points.iter().any(|p| p.commit == commit) {
            places
                .entry(base(key))
                .or_default()
                .insert((&key.machine, &key.settings));
        }
    }
    let mut doc: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for ((key, measure), points) in &series.points {
        let Some(point) = median_at(points, commit) else {
            continue;
        };
        let mut name = base(key);
        if places.get(&name).is_some_and(|p| p.len() > 1) {
            name = format!("{name} [{}; {}]", key.machine, key.settings);
        }
        let measures = doc.entry(name).or_default();
        match measure {
            Measure::MedianRate => {
                measures.insert("throughput".into(), metric(point.value, point.interval));
                let bounds = point.interval.map(|(lo, hi)| (ns(hi), ns(lo)));
                measures.insert("latency".into(), metric(ns(point.value), bounds));
            }
            Measure::TimeRatio => {
                measures.insert("time-ratio".into(), metric(point.value, point.interval));
            }
            Measure::RelativeTime => {
                measures.insert("relative-time".into(), metric(point.value, point.interval));
            }
            Measure::Nodes => {
                measures.insert("nodes".into(), metric(point.value, None));
            }
            Measure::Guesses => {
                measures.insert("guesses".into(), metric(point.value, None));
            }
            Measure::Instructions => {
                measures.insert("instructions".into(), metric(point.value, None));
            }
        }
    }
    Value::Object(
        doc.into_iter()
            .map(|(name, measures)| (name, Value::Object(measures)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_analysis::history::store::{CommitRecord, CorpusKey, SeriesKey};

    fn key(machine: &str, strategy: &str) -> SeriesKey {
        SeriesKey {
            machine: machine.into(),
            settings: "-j 1".into(),
            corpus: CorpusKey {
                identity: "x".into(),
                name: "c.txt".into(),
            },
            strategy: strategy.into(),
        }
    }

    #[test]
    fn a_commit_s_series_become_benchmarks_named_uniquely_with_their_bounds() {
        let commits = (0..2)
            .map(|i| CommitRecord {
                commit: format!("{i}"),
                time: i,
                branch: None,
            })
            .collect();
        let mut points = BTreeMap::new();
        let rate = |commit, value: f64| Point {
            commit,
            value,
            interval: Some((value * 0.8, value * 1.25)),
        };
        // Commit 1 recorded three times on m1: its median run is the 200/s one.
        points.insert(
            (key("m1", "fast"), Measure::MedianRate),
            vec![
                rate(0, 100.0),
                rate(1, 400.0),
                rate(1, 200.0),
                rate(1, 100.0),
            ],
        );
        points.insert(
            (key("m1", "fast"), Measure::Nodes),
            vec![Point::new(1, 12.5)],
        );
        points.insert(
            (key("m2", "fast"), Measure::MedianRate),
            vec![Point::new(1, 50.0)],
        );
        points.insert(
            (key("m2", "dlx"), Measure::MedianRate),
            vec![Point::new(0, 50.0)],
        );
        points.insert(
            (key("m1", "base -> fast"), Measure::TimeRatio),
            vec![Point {
                commit: 1,
                value: 0.9,
                interval: Some((0.85, 0.95)),
            }],
        );
        points.insert(
            (key("m1", "fast / dlx"), Measure::RelativeTime),
            vec![Point::new(1, 0.25)],
        );
        let doc = bmf(&Series { commits, points }, 1);
        // The whole export: each benchmark's name, measures and bounds, and nothing else
        // (dlx has no run at commit 1).
        insta::assert_snapshot!(
            "history_export_bmf",
            serde_json::to_string_pretty(&doc).unwrap()
        );
    }
}
