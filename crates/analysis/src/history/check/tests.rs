use super::*;
use crate::history::store::{Added, CorpusKey, Observation, Placement, RunRecord};

/// A store in memory: the check needs nothing of SQLite.
#[derive(Default)]
struct Memory {
    commits: Vec<CommitRecord>,
    observations: Vec<Observation>,
}

impl HistoryStore for Memory {
    fn add(&mut self, _: &Placement, _: &[RunRecord]) -> Result<Added, StoreError> {
        unreachable!("the check only reads")
    }
    fn commits(&mut self) -> Result<Vec<CommitRecord>, StoreError> {
        Ok(self.commits.clone())
    }
    fn observations(&mut self) -> Result<Vec<Observation>, StoreError> {
        Ok(self.observations.clone())
    }
}

fn key(machine: &str, strategy: &str) -> SeriesKey {
    SeriesKey {
        machine: machine.to_string(),
        settings: "-j 2".into(),
        corpus: CorpusKey {
            identity: "1:2:0000000000000003".into(),
            name: "c.txt".into(),
        },
        strategy: strategy.to_string(),
    }
}

/// A run's time histogram: 100 solves of 1 to 100 µs.
fn times() -> String {
    let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
    for t in 1..=100 {
        h.record(t * 1000).unwrap();
    }
    sudoku_bench_core::summary::write_times(&h)
}

fn sha(i: usize) -> String {
    format!("{i:02x}{}", "0".repeat(38))
}

/// 30 commits; `fast` on machine `m1` with a median rate that drops 20% from commit 20 and
/// nodes that change at commit 25; on `m2` the same until commit 20, then 60% faster (were
/// the machines' runs one series, its mean would go up there and m1's drop would vanish).
fn memory() -> Memory {
    let mut m = Memory::default();
    // Recorded out of order: the commits' times decide.
    for i in (0..30).rev() {
        m.commits.push(CommitRecord {
            commit: sha(i),
            time: 1000 + i as i64,
            branch: Some("main".into()),
        });
    }
    m.commits.sort_by_key(|c| c.time);
    let wobble = |i: usize| 1.0 + [0.01, -0.01, 0.02, 0.0, -0.02][i % 5];
    for i in 0..30 {
        let rate = if i < 20 { 1000.0 } else { 800.0 };
        let nodes = if i < 25 { (500, 10) } else { (480, 10) };
        for (machine, factor) in [("m1", 1.0), ("m2", 2.5)] {
            m.observations.push(Observation {
                key: key(machine, "fast"),
                commit: sha(i),
                branch: Some(if i < 28 { "main" } else { "topic" }.into()),
                measured: Measured::Row {
                    median_rate: rate * wobble(i) * if i < 20 { 1.0 } else { factor },
                    nodes: Some(nodes),
                    guesses: None,
                    instructions: None,
                    times: times(),
                },
            });
        }
    }
    m
}

#[test]
fn each_machine_s_series_is_judged_alone_and_changes_come_with_their_commits() {
    let mut store = memory();
    let checked = check(&mut store, &Detection::default(), None).unwrap();
    assert_eq!(checked.commits.len(), 30);
    // Median rate and nodes, on each of two machines.
    assert_eq!(checked.series, 4);
    let seen: Vec<(&str, Measure, &str, &str, &str)> = checked
        .changes
        .iter()
        .map(|c| {
            (
                c.key.machine.as_str(),
                c.measure,
                &c.before[..2],
                &c.after[..2],
                c.direction(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("m1", Measure::MedianRate, "13", "14", "slower"),
            ("m1", Measure::Nodes, "18", "19", "fewer"),
            ("m2", Measure::MedianRate, "13", "14", "faster"),
            ("m2", Measure::Nodes, "18", "19", "fewer"),
        ]
    );
    let slower = &checked.changes[0];
    assert!(slower.slowdown());
    assert_eq!(slower.after_index, 20);
    assert!((slower.point.ratio() - 0.8).abs() < 0.01, "{slower:?}");
    assert!(!checked.changes[1].slowdown(), "counts are not time");
}

#[test]
fn a_branch_takes_only_its_runs() {
    let mut store = memory();
    let checked = check(&mut store, &Detection::default(), Some("topic")).unwrap();
    // Two runs a machine on `topic`: series, but too short for a change of rate.
    assert_eq!(checked.series, 4);
    assert!(checked.changes.is_empty(), "{:?}", checked.changes);
    let none = check(&mut store, &Detection::default(), Some("nowhere")).unwrap();
    assert_eq!((none.series, none.changes.len()), (0, 0));
}

#[test]
fn a_higher_time_ratio_is_a_slowdown() {
    let mut m = Memory::default();
    for i in 0..12 {
        m.commits.push(CommitRecord {
            commit: sha(i),
            time: i as i64,
            branch: None,
        });
        m.observations.push(Observation {
            key: key("m1", "base -> head"),
            commit: sha(i),
            branch: None,
            measured: Measured::Ab {
                ratio: if i < 6 { 1.0 } else { 1.2 } + i as f64 * 1e-3,
                interval: Some((0.9, 1.3)),
            },
        });
    }
    let checked = check(&mut m, &Detection::default(), None).unwrap();
    assert_eq!(checked.changes.len(), 1, "{:?}", checked.changes);
    let c = &checked.changes[0];
    assert_eq!(
        (c.measure, c.direction(), c.slowdown()),
        (Measure::TimeRatio, "slower", true)
    );
    assert_eq!(c.after_index, 6);
}

#[test]
fn since_takes_a_unique_prefix_of_a_recorded_commit() {
    let commits = memory().commits;
    assert_eq!(commit_index(&commits, &sha(7)).unwrap(), 7);
    assert_eq!(commit_index(&commits, "1A").unwrap(), 26);
    let err = commit_index(&commits, "0").unwrap_err().to_string();
    assert!(err.contains("names 16 recorded commits"), "{err}");
    let err = commit_index(&commits, "ff").unwrap_err().to_string();
    assert_eq!(
        err,
        "--since ff: no such commit in the history (30 recorded)"
    );
    assert!(commit_index(&commits, "").is_err());
}

#[test]
fn a_commit_recorded_under_a_prefix_of_another_is_named_by_its_whole_hash() {
    let mut commits = memory().commits;
    let long = format!("abcd{}", "0".repeat(36));
    for name in ["abcd", long.as_str(), "abcdef12"] {
        commits.push(CommitRecord {
            commit: name.to_string(),
            ..commits[0].clone()
        });
    }
    let short = commits.len() - 3;
    assert_eq!(commit_index(&commits, "abcd").unwrap(), short);
    assert_eq!(commit_index(&commits, "ABCD").unwrap(), short);
    assert_eq!(commit_index(&commits, &long).unwrap(), short + 1);
    assert_eq!(commit_index(&commits, "abcd0").unwrap(), short + 1);
    let err = commit_index(&commits, "abc").unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "--since abc: names 3 recorded commits (abcd, {long}, abcdef12): give more of the hash"
        )
    );
}

#[test]
fn a_run_of_an_unlisted_commit_is_an_error_not_a_panic() {
    let mut m = memory();
    m.commits.pop();
    let err = check(&mut m, &Detection::default(), None).unwrap_err();
    assert!(matches!(err, CheckError::UnknownCommit(_)), "{err:?}");
}

#[test]
fn a_median_rate_carries_the_interval_of_its_run_s_median_and_a_bad_histogram_is_refused() {
    let mut store = memory();
    let series = series(&mut store, None).unwrap();
    let key = (key("m1", "fast"), Measure::MedianRate);
    let points = &series.points[&key];
    assert_eq!(points.len(), 30);
    // 100 solves of 1 to 100 µs: the 40th and the 61st, as rates, to the histogram's
    // 3 digits.
    let (lo, hi) = points[0].interval.expect("an interval");
    assert!((lo * 61_000.0 / 1e9 - 1.0).abs() < 1e-3, "{lo}");
    assert!((hi * 40_000.0 / 1e9 - 1.0).abs() < 1e-3, "{hi}");
    let nodes = &series.points[&(key.0.clone(), Measure::Nodes)];
    assert!(nodes.iter().all(|p| p.interval.is_none()));
    // check judges the same series.
    let checked = check(&mut store, &Detection::default(), None).unwrap();
    assert_eq!(checked.points, series.points);

    if let Measured::Row { times, .. } = &mut store.observations[7].measured {
        *times = "not a histogram".into();
    }
    let err = check(&mut store, &Detection::default(), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "commit {}, c.txt / fast: the time histogram",
            sha(3)
        )),
        "{err}"
    );
}

#[test]
fn a_higher_relative_time_is_a_slowdown_in_a_series_of_its_own() {
    let mut m = Memory::default();
    for i in 0..12 {
        m.commits.push(CommitRecord {
            commit: sha(i),
            time: i as i64,
            branch: None,
        });
        // The machine drifts by up to 15% from run to run, both strategies alike: their
        // ratio holds only the step.
        let drift = 1.0 + [0.0, 0.15, 0.05, 0.12, 0.02, 0.09][i % 6];
        let step = if i < 6 { 1.0 } else { 1.1 };
        m.observations.push(Observation {
            key: key("m1", "mine"),
            commit: sha(i),
            branch: None,
            measured: Measured::Row {
                median_rate: 20_000.0 / (drift * step),
                nodes: None,
                guesses: None,
                instructions: None,
                times: times(),
            },
        });
        m.observations.push(Observation {
            key: key("m1", "mine / fast"),
            commit: sha(i),
            branch: None,
            measured: Measured::Relative {
                ratio: 0.8 * step * (1.0 + i as f64 * 1e-3),
            },
        });
    }
    let checked = check(&mut m, &Detection::default(), None).unwrap();
    assert_eq!(checked.series, 2);
    let seen: Vec<(&str, Measure, &str, &str, bool)> = checked
        .changes
        .iter()
        .map(|c| {
            (
                c.key.strategy.as_str(),
                c.measure,
                &c.before[..2],
                &c.after[..2],
                c.slowdown(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("mine / fast", Measure::RelativeTime, "05", "06", true)]
    );
    assert_eq!(checked.changes[0].direction(), "slower");
    assert_eq!(Measure::RelativeTime.name(), "relative time");
    assert!(!Measure::RelativeTime.exact());
}
