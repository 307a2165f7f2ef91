//! One CSV, every way a search can end, read back by each command that reads a run's CSV:
//! `run --resume` and `merge` (their summaries count it), `report` (its wrong answers) and
//! `compare` (the statuses it pairs). All read it through the one reader, so all must class
//! each row alike: a timeout, a node budget, a solver's failure, a wrong count, and a search
//! that returned a non-solution before it was stopped.

use std::path::{Path, PathBuf};

use sudoku_bench::compare::Run;
use sudoku_bench::report::Inputs;
use sudoku_bench::results::Status;

use super::bench;
use super::merge::merge;

/// A real run's CSV over the first seven lines of `datasets/minimal.txt`, cut to its first
/// six rows, with lines 2 to 6 made to end each way but `finished`.
fn run_with_every_ending(dir: &Path) -> PathBuf {
    let minimal =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/minimal.txt"))
            .unwrap();
    let corpus: Vec<&str> = minimal.lines().take(7).collect();
    std::fs::write(dir.join("c.txt"), corpus.join("\n") + "\n").unwrap();
    bench()
        .current_dir(dir)
        .args(["run", "c.txt", "-s", "dlx", "-o", "real.csv", "-q"])
        .assert()
        .success();
    let real = std::fs::read_to_string(dir.join("real.csv")).unwrap();
    let mut lines: Vec<String> = real.lines().take(7).map(str::to_string).collect();
    let ones = "1".repeat(81);
    // (line, status, solutions, solution, error, ended)
    let endings = [
        (
            2,
            "aborted",
            "0",
            "",
            "node budget of 10 exhausted",
            "node_budget",
        ),
        (3, "aborted", "0", "", "timed out after 1s", "timeout"),
        (4, "aborted", "0", "", "solver crashed: signal 11", "failed"),
        (
            5,
            "unique",
            "1",
            "",
            "counted 1 solution; the reference (fast) counted 2",
            "mismatch",
        ),
        (
            6,
            "aborted",
            "1",
            ones.as_str(),
            "\"strategy returned a grid of ones, which is not a solution\"",
            "mismatch",
        ),
    ];
    for (line, status, solutions, solution, error, ended) in endings {
        let fields: Vec<&str> = lines[line].split(',').collect();
        // corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error,ended,replicate
        lines[line] = [
            &fields[..3],
            &[status, solutions],
            &fields[5..10],
            &[solution, error, ended],
            &fields[13..],
        ]
        .concat()
        .join(",");
    }
    let csv = dir.join("run.csv");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    csv
}

/// (aborted, failures, mismatches) of a summary JSON's only row.
fn counted(json: &Path) -> (u64, u64, u64) {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let row = &summary["rows"][0];
    let n = |k: &str| row[k].as_u64().unwrap();
    (n("aborted"), n("failures"), n("mismatches"))
}

#[test]
fn every_command_classes_each_ending_alike() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_with_every_ending(dir.path());
    // Lines 2, 3, 4 and 6 aborted; line 4 a failure; lines 5 and 6 wrong.
    let want = (4, 1, 2);

    // --resume keeps the six rows and solves line 7; its summary counts the kept rows.
    bench()
        .current_dir(dir.path())
        .args(["run", "c.txt", "-s", "dlx", "-o", "run.csv"])
        .args(["--summary", "run.json", "--resume", "-q"])
        .assert()
        .success();
    assert_eq!(counted(&dir.path().join("run.json")), want, "resume");

    // merge recounts the CSV and refuses a summary that disagrees with it.
    let merged = dir.path().join("merged.csv");
    merge(std::slice::from_ref(&csv), &merged).success();
    assert_eq!(counted(&merged.with_extension("json")), want, "merge");

    // report: the wrong answers, and the aborted searches, are the same rows.
    let inputs = Inputs::read(std::slice::from_ref(&csv)).unwrap();
    let rows = &inputs.groups[0].rows;
    let lines = |f: &dyn Fn(&sudoku_bench::report::read::CompactRow) -> bool| -> Vec<u64> {
        rows.iter().filter(|r| f(r)).map(|r| r.line).collect()
    };
    assert_eq!(lines(&|r| r.wrong), [5, 6], "report's wrong answers");
    assert_eq!(
        lines(&|r| r.status == Status::Aborted),
        [2, 3, 4, 6],
        "report"
    );

    // compare pairs by status: the same statuses, read through the same reader.
    let Run::PerPuzzle(samples) = Run::load(&csv).unwrap() else {
        panic!("a per-puzzle CSV")
    };
    let statuses: Vec<(u64, Option<Status>)> = samples["c.txt"].strategies["dlx"]
        .iter()
        .map(|(line, s)| (*line, s.status))
        .collect();
    assert_eq!(
        statuses
            .iter()
            .filter(|s| s.1 == Some(Status::Aborted))
            .count(),
        4,
        "compare: {statuses:?}"
    );
}

/// A CSV written before the `ended` column: its endings are told from the error text, the
/// same for every reader.
#[test]
fn a_csv_from_before_the_ended_column_is_classed_alike() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_with_every_ending(dir.path());
    let text = std::fs::read_to_string(&csv).unwrap();
    // `ended`, `replicate` and `instructions` are the last fields, and none holds a comma
    // or a quote.
    let old: Vec<String> = text
        .lines()
        .map(|l| l.rsplitn(4, ',').last().unwrap().to_string())
        .collect();
    assert!(old[0].ends_with(",error"), "{}", old[0]);
    std::fs::write(&csv, old.join("\n") + "\n").unwrap();
    let inputs = Inputs::read(std::slice::from_ref(&csv)).unwrap();
    let wrong: Vec<u64> = inputs.groups[0]
        .rows
        .iter()
        .filter(|r| r.wrong)
        .map(|r| r.line)
        .collect();
    assert_eq!(wrong, [5, 6]);
    let mut summary = sudoku_bench::Summary::default();
    let g = summary.group("c.txt", "dlx");
    for row in sudoku_bench::results::csv::RowReader::open(&csv).unwrap() {
        summary.add(g, &row.unwrap().result().unwrap());
    }
    let row = &summary.rows()[0];
    assert_eq!((row.aborted, row.failures, row.mismatches), (4, 1, 2));
}
