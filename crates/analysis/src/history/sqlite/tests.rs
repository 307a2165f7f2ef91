use super::*;
use crate::history::store::{AbRecord, CorpusKey, Measured, RelativeRecord, RowRecord};
use sudoku_bench_core::machine::Machine;

fn machine(cpu: &str) -> Machine {
    Machine {
        cpu: cpu.to_string(),
        cores: 2,
        os: "linux".into(),
        arch: "x86_64".into(),
    }
}

fn corpus(name: &str, identity: &str) -> CorpusKey {
    CorpusKey {
        identity: identity.to_string(),
        name: name.to_string(),
    }
}

fn row(corpus: CorpusKey, strategy: &str, median_rate: f64) -> RowRecord {
    RowRecord {
        corpus,
        strategy: strategy.to_string(),
        puzzles: 10,
        statuses: [9, 0, 0, 0, 0, 1, 0],
        mismatches: 0,
        failures: 0,
        searched: 9,
        nodes: Some((90, 9)),
        guesses: None,
        instructions: Some((9_000_000_123, 9)),
        rate: median_rate * 0.8,
        median_rate,
        time_sum_ns: 1000,
        median_ns: 100,
        p90_ns: 150,
        p99_ns: 190,
        max_ns: 200,
        times: "HISTOGRAM".into(),
    }
}

fn run(source: &str, rows: Vec<RowRecord>) -> RunRecord {
    RunRecord {
        source: PathBuf::from(source),
        digest: format!("digest of {source}"),
        date: "2026-11-25T07:00:00Z".into(),
        tool_version: "0.1.0".into(),
        machine: machine("AMD EPYC"),
        settings: "--max-solutions 2 -j 2".into(),
        rows,
        ab: Vec::new(),
        relative: Vec::new(),
    }
}

fn placed(commit: &str, time: i64) -> Placement {
    Placement {
        commit: commit.to_string(),
        time,
        time_given: false,
        branch: Some("main".into()),
        labels: vec![("runner".into(), "ci-1".into())],
    }
}

#[test]
fn a_new_store_is_made_at_the_current_version_and_opened_again_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    assert!(matches!(
        SqliteStore::open(&path),
        Err(StoreError::Missing { .. })
    ));
    assert!(!path.exists(), "reading a missing history makes none");
    std::fs::write(&path, b"").unwrap();
    let Err(empty) = SqliteStore::open(&path) else {
        panic!("an empty file is no history");
    };
    assert!(matches!(empty, StoreError::Empty { .. }), "{empty:?}");
    assert!(empty.to_string().contains("an empty file"), "{empty}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"",
        "reading it writes nothing"
    );
    // `history add` may make one there.
    let store = SqliteStore::open_or_create(&path).unwrap();
    assert_eq!(store.version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 3);
    drop(store);
    let mut again = SqliteStore::open(&path).unwrap();
    assert_eq!(again.version().unwrap(), 3);
    assert_eq!(again.commits().unwrap(), []);
    let rows: i64 = again
        .conn
        .query_row("SELECT count(*) FROM schema_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn a_store_of_a_future_version_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    drop(SqliteStore::open_or_create(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE schema_version SET version = 7", [])
        .unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = SqliteStore::open_or_create(&path).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::FutureVersion {
                found: 7,
                supported: SCHEMA_VERSION,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("newer"),
        "{text}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_schema_version_of_0_is_refused_naming_the_file_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    drop(SqliteStore::open_or_create(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE schema_version SET version = 0", [])
        .unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::BadVersion { found: 0, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the history's schema_version table says version 0, which no sudoku-bench \
             writes (versions start at 1): the file was edited by hand or is not a history",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_lock_held_past_the_wait_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    let mut store = SqliteStore::open_waiting(&path, Duration::from_millis(200), true).unwrap();
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let shown = path.display().to_string();
    let refused = |err: StoreError| {
        assert!(
            matches!(err, StoreError::Locked { waited_secs: 0, .. }),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "{shown}: the history stayed locked by another process"
            )),
            "{text}"
        );
    };
    refused(store.commits().unwrap_err());
    refused(SqliteStore::open_waiting(&path, Duration::from_millis(200), true).unwrap_err());
    other.execute_batch("COMMIT").unwrap();
    assert_eq!(store.commits().unwrap(), []);
}

#[test]
fn a_database_that_is_no_history_and_a_file_that_is_no_database_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.sqlite");
    let conn = Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
    drop(conn);
    let err = SqliteStore::open_or_create(&other).unwrap_err();
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    let json = dir.path().join("s.json");
    std::fs::write(&json, "{\"tool\": \"sudoku-bench\"}\n").unwrap();
    let err = SqliteStore::open_or_create(&json).unwrap_err();
    assert!(err.to_string().contains("s.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        "{\"tool\": \"sudoku-bench\"}\n"
    );
}

#[test]
fn runs_come_back_as_observations_with_commits_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let a = corpus("a.txt", "1:2:0000000000000003");
    let mut first = run("s1.json", vec![row(a.clone(), "fast", 100.0)]);
    first.ab.push(AbRecord {
        corpus: a.clone(),
        old: "base".into(),
        new: "head".into(),
        ratio: 1.02,
        interval: Some((1.0, 1.04)),
        confidence: 0.95,
        verdict: "slower_not_past_threshold".into(),
    });
    let added = store.add(&placed("bbbb", 200), &[first]).unwrap();
    assert_eq!(added.runs, 1);
    // An earlier commit recorded later comes first.
    let second = run("s2.json", vec![row(a.clone(), "fast", 90.0)]);
    store.add(&placed("aaaa", 100), &[second]).unwrap();
    let order: Vec<String> = store
        .commits()
        .unwrap()
        .into_iter()
        .map(|c| c.commit)
        .collect();
    assert_eq!(order, ["aaaa", "bbbb"]);
    let obs = store.observations().unwrap();
    assert_eq!(obs.len(), 3, "{obs:?}");
    assert_eq!(obs[0].commit, "bbbb");
    assert_eq!(obs[0].key.machine, "AMD EPYC, 2 cores, linux x86_64");
    assert_eq!(obs[0].key.corpus, a);
    assert_eq!(obs[0].branch.as_deref(), Some("main"));
    assert_eq!(
        obs[0].measured,
        Measured::Row {
            median_rate: 100.0,
            nodes: Some((90, 9)),
            guesses: None,
            times: "HISTOGRAM".into(),
            instructions: Some((9_000_000_123, 9)),
        }
    );
    assert_eq!(obs[1].commit, "aaaa");
    assert_eq!(obs[2].key.strategy, "base -> head");
    assert_eq!(
        obs[2].measured,
        Measured::Ab {
            ratio: 1.02,
            interval: Some((1.0, 1.04))
        }
    );
    // What is kept beside the series: statuses, the histogram, the labels.
    let (count, times): (i64, String) = store
        .conn
        .query_row(
            "SELECT s.count, r.times FROM statuses s JOIN rows r USING (run, corpus, strategy) \
             WHERE s.status = 'malformed' LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((count, times.as_str()), (1, "HISTOGRAM"));
    let label: String = store
        .conn
        .query_row("SELECT value FROM labels WHERE key = 'runner'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(label, "ci-1");
}

#[test]
fn a_summary_is_recorded_once_and_under_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let a = corpus("a.txt", "1:2:0000000000000003");
    let s = run("s.json", vec![row(a, "fast", 100.0)]);
    store
        .add(&placed("aaaa", 100), std::slice::from_ref(&s))
        .unwrap();
    let again = store
        .add(&placed("aaaa", 100), std::slice::from_ref(&s))
        .unwrap();
    assert_eq!(
        (again.runs, again.already),
        (0, vec![PathBuf::from("s.json")])
    );
    // Given again with its in-run result, the result is added to the run recorded.
    let mut with_ab = s.clone();
    with_ab.ab.push(AbRecord {
        corpus: with_ab.rows[0].corpus.clone(),
        old: "a".into(),
        new: "b".into(),
        ratio: 1.1,
        interval: None,
        confidence: 0.95,
        verdict: "slower".into(),
    });
    let more = store
        .add(&placed("aaaa", 100), std::slice::from_ref(&with_ab))
        .unwrap();
    assert_eq!((more.runs, more.ab, more.already.len()), (0, 1, 1));
    let twice = store.add(&placed("aaaa", 100), &[with_ab]).unwrap();
    assert_eq!((twice.runs, twice.ab), (0, 0));
    assert_eq!(store.observations().unwrap().len(), 2);
    let err = store.add(&placed("cccc", 300), &[s]).unwrap_err();
    assert!(
        matches!(&err, StoreError::OtherCommit { recorded, commit, .. } if recorded == "aaaa" && commit == "cccc"),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("s.json: "), "{err}");
    // Refused whole: the commit it would have made is not there either.
    assert_eq!(store.commits().unwrap().len(), 1);
}

#[test]
fn a_corpus_known_under_another_name_is_refused_and_nothing_of_the_add_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let id = "1:2:0000000000000003";
    store
        .add(
            &placed("aaaa", 100),
            &[run("s1.json", vec![row(corpus("a.txt", id), "fast", 1.0)])],
        )
        .unwrap();
    let fine = run(
        "ok.json",
        vec![row(corpus("b.txt", "9:9:0000000000000009"), "fast", 1.0)],
    );
    let renamed = run("s2.json", vec![row(corpus("copy.txt", id), "fast", 1.0)]);
    let err = store
        .add(&placed("bbbb", 200), &[fine, renamed])
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::CorpusRenamed { file, name, recorded }
            if file == Path::new("s2.json") && name == "copy.txt" && recorded == "a.txt"),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("s2.json: corpus copy.txt"),
        "{err}"
    );
    assert_eq!(store.commits().unwrap().len(), 1);
    assert_eq!(store.observations().unwrap().len(), 1);
    // The same name with other contents is another corpus: a series of its own.
    store
        .add(
            &placed("bbbb", 200),
            &[run(
                "s3.json",
                vec![row(corpus("a.txt", "5:5:0000000000000005"), "fast", 1.0)],
            )],
        )
        .unwrap();
    assert_eq!(store.observations().unwrap().len(), 2);
}

#[test]
fn a_given_time_must_agree_with_the_commit_s_recorded_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let a = corpus("a.txt", "1:2:0000000000000003");
    store
        .add(
            &placed("aaaa", 100),
            &[run("s1.json", vec![row(a.clone(), "fast", 1.0)])],
        )
        .unwrap();
    // Not given (taken from the summary): the recorded time stands.
    store
        .add(
            &placed("aaaa", 555),
            &[run("s2.json", vec![row(a.clone(), "fast", 1.0)])],
        )
        .unwrap();
    let given = Placement {
        time_given: true,
        ..placed("aaaa", 555)
    };
    let err = store
        .add(&given, &[run("s3.json", vec![row(a, "fast", 1.0)])])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "s3.json: commit aaaa is recorded at 1970-01-01T00:01:40Z; --time says \
         1970-01-01T00:09:15Z (a commit has one time, its place in the series)"
    );
    assert_eq!(store.commits().unwrap()[0].time, 100);
}

#[test]
fn a_count_past_what_sqlite_holds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let mut big = row(corpus("a.txt", "1:2:0000000000000003"), "fast", 1.0);
    big.nodes = Some((u64::MAX, 1));
    let err = store
        .add(&placed("aaaa", 100), &[run("s.json", vec![big])])
        .unwrap_err();
    assert!(
        err.to_string().contains("past the largest integer"),
        "{err}"
    );
    assert_eq!(store.commits().unwrap(), []);
}

fn relative(corpus: CorpusKey, strategy: &str, reference: &str, ratio: f64) -> RelativeRecord {
    RelativeRecord {
        corpus,
        strategy: strategy.to_string(),
        reference: reference.to_string(),
        ratio,
    }
}

#[test]
fn relative_times_are_a_series_of_their_own_and_can_join_a_run_recorded_before() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open_or_create(&dir.path().join("h.sqlite")).unwrap();
    let a = corpus("a.txt", "1:2:0000000000000003");
    let plain = run(
        "s.json",
        vec![row(a.clone(), "fast", 100.0), row(a.clone(), "mine", 50.0)],
    );
    store
        .add(&placed("aaaa", 100), std::slice::from_ref(&plain))
        .unwrap();
    // The same summary given again with --relative-to: its relative time joins the run.
    let mut with = plain.clone();
    with.relative.push(relative(a.clone(), "mine", "fast", 2.0));
    let added = store
        .add(&placed("aaaa", 100), std::slice::from_ref(&with))
        .unwrap();
    assert_eq!((added.runs, added.relative, added.already.len()), (0, 1, 1));
    let twice = store.add(&placed("aaaa", 100), &[with]).unwrap();
    assert_eq!(twice.relative, 0);
    let mut next = run(
        "t.json",
        vec![row(a.clone(), "fast", 90.0), row(a.clone(), "mine", 40.0)],
    );
    next.relative
        .push(relative(a.clone(), "mine", "fast", 2.25));
    let added = store.add(&placed("bbbb", 200), &[next]).unwrap();
    assert_eq!((added.runs, added.relative), (1, 1));
    let obs = store.observations().unwrap();
    let relative: Vec<(&str, &str, &Measured)> = obs
        .iter()
        .filter(|o| matches!(o.measured, Measured::Relative { .. }))
        .map(|o| (o.commit.as_str(), o.key.strategy.as_str(), &o.measured))
        .collect();
    assert_eq!(
        relative,
        [
            ("aaaa", "mine / fast", &Measured::Relative { ratio: 2.0 }),
            ("bbbb", "mine / fast", &Measured::Relative { ratio: 2.25 }),
        ]
    );
    // After the rows: the observations' order is rows, A/B results, relative times.
    assert_eq!(obs.len(), 6);
    assert!(matches!(obs[4].measured, Measured::Relative { .. }));
}

#[test]
fn a_history_of_version_1_or_2_is_migrated_keeping_its_runs() {
    // What each version made: version 2 had no instruction counts, version 1 no table of
    // relative times either.
    let undo = [
        "ALTER TABLE rows DROP COLUMN instructions_sum; \
         ALTER TABLE rows DROP COLUMN instructions_counted;",
        "DROP TABLE relative;",
    ];
    for version in [2, 1] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let a = corpus("a.txt", "1:2:0000000000000003");
        let mut store = SqliteStore::open_or_create(&path).unwrap();
        let timed = RowRecord {
            instructions: None,
            ..row(a.clone(), "fast", 100.0)
        };
        store
            .add(&placed("aaaa", 100), &[run("s.json", vec![timed])])
            .unwrap();
        let before = store.observations().unwrap();
        let undone = &undo[..(SCHEMA_VERSION - version) as usize];
        store
            .conn
            .execute_batch(&format!(
                "{} UPDATE schema_version SET version = {version}",
                undone.join(" ")
            ))
            .unwrap();
        assert_eq!(store.version().unwrap(), version);
        drop(store);
        let mut store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.version().unwrap(), SCHEMA_VERSION);
        assert_eq!(store.observations().unwrap(), before);
        let mut next = run(
            "t.json",
            vec![row(a.clone(), "fast", 90.0), row(a.clone(), "mine", 40.0)],
        );
        next.relative.push(relative(a, "mine", "fast", 2.25));
        assert_eq!(
            store.add(&placed("bbbb", 200), &[next]).unwrap().relative,
            1
        );
        let counted = store.observations().unwrap();
        assert!(counted.iter().any(|o| matches!(
            o.measured,
            Measured::Row {
                instructions: Some((9_000_000_123, 9)),
                ..
            }
        )));
    }
}
