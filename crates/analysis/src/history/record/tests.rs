use super::*;
use sudoku_bench_core::results::PuzzleResult;
use sudoku_bench_core::strategy::Limits;

fn identity(hash: u64) -> Identity {
    Identity {
        lines: 3,
        last_line: 3,
        bytes: 246,
        hash,
        entries: 3,
        ..Identity::default()
    }
}

/// A summary of `./c.txt` (and its identity unless `known` is false) with strategies
/// `fast` (nodes and guesses counted) and `other` (neither).
fn report(known: bool) -> SummaryReport {
    let mut s = Summary::default();
    for (strategy, counted) in [("fast", true), ("other", false)] {
        let g = s.group("./c.txt", strategy);
        for ns in [1000, 2000, 4000] {
            s.add(
                g,
                &PuzzleResult {
                    status: Status::Unique,
                    solutions: Some(1),
                    nodes: counted.then_some(ns / 100),
                    guesses: counted.then_some(1),
                    time_ns: Some(ns),
                    ..PuzzleResult::default()
                },
            );
        }
        s.add(g, &PuzzleResult::unsearched(Status::Malformed, "bad"));
    }
    if known {
        s.set_identity("./c.txt", identity(0xabc));
    }
    SummaryReport::new(&s, (&Limits::default(), 1, None), 3, 1_000_000)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(report: &SummaryReport) -> String {
    serde_json::to_string_pretty(report).unwrap()
}

#[test]
fn a_summary_is_recorded_with_its_counts_rates_histogram_and_corpus_identity() {
    let dir = tempfile::tempdir().unwrap();
    let r = report(true);
    let path = write(dir.path(), "s.json", &json(&r));
    let runs = read_runs(std::slice::from_ref(&path)).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.source, path);
    assert_eq!(run.machine, r.machine);
    assert_eq!(run.date, r.date);
    assert!(
        run.settings.ends_with("--repeat 1 --permute none -j 3"),
        "{}",
        run.settings
    );
    assert_eq!(run.digest.len(), 32);
    assert_eq!(run.rows.len(), 2);
    let fast = &run.rows[0];
    assert_eq!(
        fast.corpus,
        CorpusKey {
            identity: "3:246:0000000000000abc".into(),
            name: "c.txt".into()
        }
    );
    assert_eq!(fast.strategy, "fast");
    assert_eq!((fast.puzzles, fast.searched), (4, 3));
    assert_eq!(fast.statuses, [3, 0, 0, 0, 0, 1, 0]);
    assert_eq!(fast.nodes, Some((70, 3)));
    assert_eq!(fast.guesses, Some((3, 3)));
    assert_eq!(fast.time_sum_ns, 7000);
    assert!((fast.median_rate - 1e9 / 2000.0).abs() < 1e9 / 2000.0 * 1e-3);
    assert!((fast.rate - 3.0 / 7e-6).abs() < 1.0);
    assert_eq!(fast.times, r.state.as_ref().unwrap().groups[0].times);
    assert_eq!((run.rows[1].nodes, run.rows[1].guesses), (None, None));
    // When it finished: the default time of its commit.
    assert!(finished_at(run).is_some_and(|t| t > 1_700_000_000));
}

#[test]
fn summaries_that_cannot_be_placed_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |name: &str, r: &SummaryReport, says: &str| {
        let path = write(dir.path(), name, &json(r));
        let err = read_runs(&[path]).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: ", dir.path().join(name).display())),
            "{err}"
        );
        assert!(err.contains(says), "{err}");
    };
    let interrupted = SummaryReport {
        interrupted: true,
        ..report(true)
    };
    refused("i.json", &interrupted, "interrupted");
    let part = SummaryReport {
        shard: Some("1/2".parse().unwrap()),
        ..report(true)
    };
    refused("p.json", &part, "--shard");
    let two = SummaryReport {
        machines: vec![sudoku_bench_core::machine::Machine::detect(); 2],
        ..report(true)
    };
    refused("m.json", &two, "2 machines");
    let old = SummaryReport {
        state: None,
        ..report(true)
    };
    refused("o.json", &old, "no state");
    refused("n.json", &report(false), "corpus ./c.txt");
    let path = write(dir.path(), "bad.json", "{ not json");
    let err = read_runs(&[path]).unwrap_err().to_string();
    assert!(err.contains("bad.json: not a summary JSON"), "{err}");
    let missing = dir.path().join("missing.json");
    let err = read_runs(&[missing]).unwrap_err().to_string();
    assert!(err.contains("missing.json"), "{err}");
}

/// A counting run's summary of `./c.txt`: `fast`'s three searches counted 100, 200 and 400
/// instructions, `other`'s `counted_other` of them.
fn counting_report(counted_other: usize) -> SummaryReport {
    let mut s = Summary::default();
    for (strategy, counted) in [("fast", 3), ("other", counted_other)] {
        let g = s.group("./c.txt", strategy);
        for (i, n) in [100, 200, 400].into_iter().enumerate() {
            s.add(
                g,
                &PuzzleResult {
                    status: Status::Unique,
                    solutions: Some(1),
                    time_ns: Some(n * 1000),
                    instructions: (i < counted).then_some(n),
                    ..PuzzleResult::default()
                },
            );
        }
    }
    s.set_identity("./c.txt", identity(0xabc));
    SummaryReport {
        metric: sudoku_bench_core::results::Metric::Instructions,
        ..SummaryReport::new(&s, (&Limits::default(), 1, None), 1, 1_000_000)
    }
}

#[test]
fn a_counting_run_is_recorded_with_its_counts_under_settings_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.json", &json(&counting_report(3)));
    let runs = read_runs(std::slice::from_ref(&path)).unwrap();
    let run = &runs[0];
    assert!(
        run.settings.ends_with("-j 1 --measure instructions"),
        "{}",
        run.settings
    );
    assert_eq!(run.rows[0].instructions, Some((700, 3)));
    assert_eq!(run.rows[1].instructions, Some((700, 3)));
    // A timed run's rows count none.
    let timed = write(dir.path(), "t.json", &json(&report(true)));
    let runs = read_runs(&[timed]).unwrap();
    assert!(runs[0].rows.iter().all(|r| r.instructions.is_none()));
    assert!(!runs[0].settings.contains("--measure"));
    // A row whose searches were not all counted, or a reference of Valgrind's times: refused.
    for (counted, relative_to, says) in [
        (2, None, "other: 2 of 3 searches counted"),
        (
            3,
            Some("fast"),
            "--relative-to of a run that counted instructions",
        ),
    ] {
        let path = write(dir.path(), "p.json", &json(&counting_report(counted)));
        let err = read_runs_with(std::slice::from_ref(&path), &[], relative_to)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&format!("{}: ", path.display())), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// A comparison JSON as `compare --format json` writes it, with one row.
fn comparison(mode: &str, old: Option<&str>, ratio: Option<f64>) -> String {
    serde_json::json!({
        "mode": mode,
        "baseline_runs": 1,
        "current_runs": 1,
        "threshold": 0.05,
        "confidence": 0.95,
        "rows": [{
            "corpus": "c.txt",
            "strategy": "other",
            "baseline_strategy": old,
            "paired": 3,
            "time_ratio": ratio,
            "ci": ratio.map(|r| [r * 0.99, r * 1.01]),
            "verdict": "no_change"
        }]
    })
    .to_string()
}

#[test]
fn an_in_run_comparison_goes_with_the_summary_of_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&report(true)));
    let cmp = write(
        dir.path(),
        "ab.json",
        &comparison("in_run", Some("fast"), Some(1.2)),
    );
    // Either order on the command line.
    let runs = read_runs(&[cmp, summary]).unwrap();
    assert_eq!(runs.len(), 1);
    let ab = &runs[0].ab;
    assert_eq!(ab.len(), 1);
    assert_eq!((ab[0].old.as_str(), ab[0].new.as_str()), ("fast", "other"));
    assert_eq!(ab[0].corpus, runs[0].rows[0].corpus);
    assert_eq!(ab[0].ratio, 1.2);
    assert_eq!(ab[0].interval, Some((1.2 * 0.99, 1.2 * 1.01)));
    assert_eq!(
        (ab[0].confidence, ab[0].verdict.as_str()),
        (0.95, "no_change")
    );
}

#[test]
fn comparisons_that_cannot_be_placed_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&report(true)));
    let refused = |text: String, with: &[&PathBuf], says: &str| {
        let cmp = write(dir.path(), "ab.json", &text);
        let mut paths: Vec<PathBuf> = with.iter().map(|p| p.to_path_buf()).collect();
        paths.push(cmp.clone());
        let err = read_runs(&paths).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: ", cmp.display())), "{err}");
        assert!(err.contains(says), "{err}");
    };
    refused(
        comparison("in_run", Some("fast"), Some(1.2)),
        &[],
        "no summary given",
    );
    refused(
        comparison("per_puzzle", None, Some(1.2)),
        &[&summary],
        "separate runs",
    );
    refused(
        comparison("in_run", Some("fast"), None),
        &[&summary],
        "no time ratio",
    );
    refused(
        comparison("in_run", Some("dlx"), Some(1.2)),
        &[&summary],
        "no summary given",
    );
    let twin = write(
        dir.path(),
        "t.json",
        &json(&report(true))
            .replace("\"date\"", "\"date\" ")
            .replace("  ", " "),
    );
    refused(
        comparison("in_run", Some("fast"), Some(1.2)),
        &[&summary, &twin],
        "several summaries",
    );
    refused(
        "{\"mode\": 3}".to_string(),
        &[&summary],
        "not a comparison JSON",
    );
}

fn taken(from: &str, to: &str) -> Taken {
    Taken {
        from: from.into(),
        to: to.into(),
    }
}

#[test]
fn a_strategy_taken_keeps_only_its_rows_renamed_and_the_comparisons_judging_it() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&report(true)));
    let cmp = write(
        dir.path(),
        "ab.json",
        &comparison("in_run", Some("fast"), Some(1.2)),
    );
    let whole = read_runs(std::slice::from_ref(&summary)).unwrap();
    let paths = [summary.clone(), cmp.clone()];
    let other = read_runs_taking(&paths, &[taken("other", "mine")]).unwrap();
    assert_eq!(other.len(), 1);
    let run = &other[0];
    assert_eq!(run.rows.len(), 1);
    assert_eq!(run.rows[0].strategy, "mine");
    // The row is the summary's `other` row as it was, but for its name.
    let mut was = whole[0].rows[1].clone();
    was.strategy = "mine".into();
    assert_eq!(run.rows[0], was);
    // The comparison judges `other` against `fast`: taken, NEW renamed, OLD as it was.
    assert_eq!(run.ab.len(), 1);
    assert_eq!(
        (run.ab[0].old.as_str(), run.ab[0].new.as_str()),
        ("fast", "mine")
    );
    // Each taking of one summary is a record of its own, for a commit of its own.
    let fast = read_runs_taking(std::slice::from_ref(&summary), &[taken("fast", "mine")]).unwrap();
    let digests = [&whole[0].digest, &run.digest, &fast[0].digest];
    assert_ne!(digests[0], digests[1]);
    assert_ne!(digests[1], digests[2]);
    assert_ne!(digests[0], digests[2]);
    assert_eq!(fast[0].rows.len(), 1);
    assert_eq!(fast[0].rows[0].strategy, "mine");
    assert!(fast[0].ab.is_empty());
    // Both taken: both rows, the comparison's two sides renamed.
    let both = read_runs_taking(&paths, &[taken("fast", "a"), taken("other", "b")]).unwrap();
    assert_eq!(both[0].rows.len(), 2);
    assert_eq!(
        (both[0].ab[0].old.as_str(), both[0].ab[0].new.as_str()),
        ("a", "b")
    );
}

#[test]
fn a_strategy_taken_must_be_in_every_summary_and_judged_by_every_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&report(true)));
    let err = read_runs_taking(std::slice::from_ref(&summary), &[taken("c1a2", "fast")])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: no strategy c1a2 in it to take (it holds fast, other)",
            summary.display()
        )
    );
    // The comparison judges `other`; taking `fast` alone leaves nothing of it.
    let cmp = write(
        dir.path(),
        "ab.json",
        &comparison("in_run", Some("fast"), Some(1.2)),
    );
    let err = read_runs_taking(&[summary, cmp.clone()], &[taken("fast", "x")])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "{}: none of its rows judges a strategy taken (fast)",
            cmp.display()
        )),
        "{err}"
    );
}

/// A summary of `./c.txt`, timed by `fast` (1, 2 and 4 µs), `mine` (3 times as long) and
/// `idle` (nothing timed), and of `./d.txt` timed by `mine` alone.
fn relative_report() -> SummaryReport {
    let mut s = Summary::default();
    let timed = |s: &mut Summary, corpus: &str, strategy: &str, factor: u64| {
        let g = s.group(corpus, strategy);
        for ns in [1000, 2000, 4000] {
            s.add(
                g,
                &PuzzleResult {
                    status: Status::Unique,
                    solutions: Some(1),
                    time_ns: Some(ns * factor),
                    ..PuzzleResult::default()
                },
            );
        }
    };
    timed(&mut s, "./c.txt", "fast", 1);
    timed(&mut s, "./c.txt", "mine", 3);
    let idle = s.group("./c.txt", "idle");
    s.add(idle, &PuzzleResult::unsearched(Status::Malformed, "bad"));
    timed(&mut s, "./d.txt", "mine", 5);
    s.set_identity("./c.txt", identity(0xabc));
    s.set_identity("./d.txt", identity(0xdef));
    SummaryReport::new(&s, (&Limits::default(), 1, None), 3, 1_000_000)
}

#[test]
fn relative_times_are_each_strategy_s_median_over_the_reference_s_in_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&relative_report()));
    let paths = std::slice::from_ref(&summary);
    let runs = read_runs_with(paths, &[], Some("fast")).unwrap();
    let run = &runs[0];
    // Its rows are recorded as without --relative-to.
    assert_eq!(run.rows, read_runs(paths).unwrap()[0].rows);
    // One relative time: `mine` on c.txt. Not `fast` over itself, not `idle` (nothing
    // timed), not d.txt (the reference did not run it).
    let got: Vec<(&str, &str, &str, f64)> = run
        .relative
        .iter()
        .map(|r| {
            (
                r.corpus.name.as_str(),
                r.strategy.as_str(),
                r.reference.as_str(),
                r.ratio,
            )
        })
        .collect();
    assert_eq!(got.len(), 1, "{got:?}");
    let (corpus, strategy, reference, ratio) = got[0];
    assert_eq!((corpus, strategy, reference), ("c.txt", "mine", "fast"));
    // The histogram keeps 3 significant digits: 6 µs over 2 µs, to a part in a thousand.
    assert!((ratio - 3.0).abs() < 3e-3, "{ratio}");
    let mine = run.rows.iter().find(|r| r.strategy == "mine").unwrap();
    let fast = run.rows.iter().find(|r| r.strategy == "fast").unwrap();
    assert_eq!(ratio, mine.median_ns as f64 / fast.median_ns as f64);
    // Without --relative-to, none.
    assert!(read_runs(paths).unwrap()[0].relative.is_empty());
    // Taken strategies keep their relative times, renamed; the reference too when taken.
    let taken_runs = read_runs_with(
        paths,
        &[taken("mine", "c1"), taken("fast", "f")],
        Some("fast"),
    )
    .unwrap();
    let r = &taken_runs[0].relative;
    assert_eq!(
        (r.len(), r[0].strategy.as_str(), r[0].reference.as_str()),
        (1, "c1", "f")
    );
    let only_mine = read_runs_with(paths, &[taken("mine", "c1")], Some("fast")).unwrap();
    assert_eq!(only_mine[0].rows.len(), 2, "mine's two corpora");
    assert_eq!(only_mine[0].relative[0].reference, "fast");
}

#[test]
fn a_reference_the_summary_does_not_hold_or_nothing_beside_it_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let summary = write(dir.path(), "s.json", &json(&relative_report()));
    let paths = std::slice::from_ref(&summary);
    let err = read_runs_with(paths, &[], Some("dlx"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: --relative-to dlx: no such strategy in it (it holds fast, idle, mine)",
            summary.display()
        )
    );
    // The reference alone: it is not recorded relative to itself, so nothing would be.
    let err = read_runs_with(paths, &[taken("fast", "fast")], Some("fast"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "{}: --relative-to fast: no other strategy timed beside it on any corpus (it \
             holds fast;",
            summary.display()
        )),
        "{err}"
    );
}
