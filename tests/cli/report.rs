//! End-to-end tests of `sudoku-bench report` and `run --report`: real runs over the
//! shipped corpora, the page's parts, and how bad input is refused.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::{bench, fixture};

/// Run `strategies` over `corpora` (separated by spaces) into `dir/name.csv` (and its
/// summary JSON); the CSV path.
fn run_into(dir: &Path, name: &str, corpora: &str, strategies: &str) -> PathBuf {
    let csv = dir.join(format!("{name}.csv"));
    let json = dir.join(format!("{name}.json"));
    bench()
        .arg("run")
        .args(corpora.split_whitespace())
        .args(["-s", strategies, "-q", "--no-warmup"])
        .arg("-o")
        .arg(&csv)
        .arg("--summary")
        .arg(&json)
        .assert()
        .success();
    csv
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn run_report_writes_a_page_with_every_plot_kind_and_the_runs_settings() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    let html = dir.path().join("report.html");
    bench()
        .args(["run", "datasets/classic.txt", "-s", "fast,dlx", "-q"])
        .arg("-o")
        .arg(&csv)
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let page = read(&html);
    assert!(page.starts_with("<!DOCTYPE html>"));
    for part in [
        "corpus datasets/classic.txt",
        "cactus plot",
        "distribution of time per puzzle",
        " against ",
        "by solution count",
        "by clues",
        "by guesses",
        "the 10 slowest",
        // The run's own settings: its limits.
        "node budget 1,000,000, timeout 10.000 s",
    ] {
        assert!(page.contains(part), "{part} not in the page");
    }
    // Cactus, distribution and one scatter (the two strategies).
    assert_eq!(page.matches("<svg").count(), 3, "{page}");
    // classic.txt has 14 puzzles, every one unique.
    assert!(page.contains("14 puzzle lines, 2 strategies"), "{page}");
    assert!(
        page.contains("<td>fast</td><td class=\"r\">14</td><td class=\"r\">14</td>"),
        "{page}"
    );
}

#[test]
fn another_runs_summary_of_the_same_corpus_lends_the_page_none_of_its_settings() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, limits: &[&str]| {
        bench()
            .args([
                "run",
                "datasets/classic.txt",
                "-s",
                "fast,dlx",
                "-q",
                "-j",
                "1",
            ])
            .args(limits)
            .arg("-o")
            .arg(dir.path().join(format!("{name}.csv")))
            .arg("--summary")
            .arg(dir.path().join(format!("{name}.json")))
            .assert()
            .success();
    };
    // dlx stops at 100 nodes on most puzzles of a, on none of b.
    run("a", &["--max-nodes", "100"]);
    run("b", &["--max-nodes", "500000", "--timeout", "3s"]);
    let html = dir.path().join("r.html");
    let report = |json: &str| {
        bench()
            .arg("report")
            .arg(dir.path().join("a.csv"))
            .arg(dir.path().join(json))
            .arg("-o")
            .arg(&html)
            .assert()
            .success()
    };
    let b_json = dir.path().join("b.json");
    report("b.json").stderr(predicate::str::contains(format!(
        "warning: {}: no (corpus, strategy) of the CSVs has the rows it counts",
        b_json.display()
    )));
    let page = read(&html);
    assert!(
        !page.contains("500,000") && !page.contains("3.000 s"),
        "b's limits are on a's page"
    );
    report("a.json").stderr(predicate::str::contains("warning").not());
    assert!(read(&html).contains("node budget 100,"), "{}", read(&html));
}

#[test]
fn run_report_refuses_a_csv_on_stdout_and_a_report_on_an_output() {
    bench()
        .args([
            "run",
            "datasets/classic.txt",
            "-s",
            "fast",
            "-o",
            "-",
            "--report",
            "r.html",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--report").and(predicate::str::contains("-o -")));
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("same.csv");
    bench()
        .args(["run", "datasets/classic.txt", "-s", "fast", "-q"])
        .arg("-o")
        .arg(&csv)
        .arg("--report")
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("are the same file"));
}

#[test]
fn a_report_of_two_runs_labels_each_strategy_by_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = run_into(dir.path(), "run-a", "datasets/classic.txt", "fast");
    let b = run_into(dir.path(), "run-b", "datasets/classic.txt", "fast,dlx");
    let html = dir.path().join("r.html");
    bench()
        .arg("report")
        .arg(&a)
        .arg(&b)
        .arg(dir.path().join("run-a.json"))
        .arg("-o")
        .arg(&html)
        .arg("--scatter")
        .arg("fast (run-a),fast (run-b)")
        .assert()
        .success();
    let page = read(&html);
    for part in [
        "fast (run-a)",
        "fast (run-b)",
        "fast (run-b) against fast (run-a)",
    ] {
        assert!(page.contains(part), "{part} not in the page");
    }
    // Only run-a's settings were given: run-b's strategies have no limits.
    assert!(page.contains("run-a.json: sudoku-bench"), "{page}");
    assert!(page.contains("not known for fast (run-b), dlx"), "{page}");
}

#[test]
fn by_reads_a_column_of_the_csv_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = fixture("kaggle_id.csv");
    let csv = run_into(dir.path(), "k", &corpus, "fast,dlx");
    let html = dir.path().join("r.html");
    bench()
        .arg("report")
        .arg(&csv)
        .args(["--by", "difficulty", "-o"])
        .arg(&html)
        .assert()
        .success();
    let page = read(&html);
    let at = page.find("by difficulty").expect("a difficulty table");
    let table = &page[at..at + page[at..].find("</table>").unwrap()];
    // Its three puzzles rate 0.0, 4.5 and 1.2: one each.
    for value in ["0", "1.2", "4.5"] {
        assert!(
            table.contains(&format!("<td>{value}</td><td class=\"r\">1</td>")),
            "{value} not a class of one puzzle in\n{table}"
        );
    }
    // A text corpus in the same run goes without the table, with a note saying why.
    let mixed = run_into(
        dir.path(),
        "mixed",
        &format!("{corpus} datasets/classic.txt"),
        "fast",
    );
    bench()
        .arg("report")
        .arg(&mixed)
        .args(["--by", "difficulty", "-o"])
        .arg(&html)
        .assert()
        .success();
    let page = read(&html);
    assert_eq!(page.matches("by difficulty</h4>").count(), 1, "{page}");
    assert!(
        page.contains("No table by difficulty: not a CSV corpus"),
        "{page}"
    );
    // A column no corpus has is an error naming each corpus.
    let text = run_into(dir.path(), "text", "datasets/classic.txt", "fast");
    bench()
        .arg("report")
        .arg(&text)
        .arg(&mixed)
        .args(["--by", "rating", "-o"])
        .arg(&html)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no corpus of the report has this column")
                .and(predicate::str::contains("datasets/classic.txt"))
                .and(predicate::str::contains("kaggle_id.csv")),
        );
    bench()
        .arg("report")
        .arg(&csv)
        .args(["--by", "rating", "-o"])
        .arg(&html)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--by rating").and(predicate::str::contains(
                "no such column; found: id, puzzle, solution, clues, difficulty",
            )),
        );
}

#[test]
fn bad_inputs_exit_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    // A report already there stays as it was when the inputs cannot be read.
    std::fs::write(&out, "last week's report").unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "corpus,line,strategy,status,time_ns\nc.txt,1,fast,unique,12\nc.txt,2,fast,unique,-4\n",
    )
    .unwrap();
    bench()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.csv:3: time_ns is \"-4\""));
    bench()
        .arg("report")
        .arg(dir.path().join("missing.csv"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.csv"));
    assert_eq!(read(&out), "last week's report");
    bench()
        .arg("report")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out"));
}

#[test]
fn an_unknown_scatter_strategy_lists_those_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_into(dir.path(), "run", "datasets/classic.txt", "fast,dlx");
    bench()
        .arg("report")
        .arg(&csv)
        .args(["--scatter", "fast,nope", "-o"])
        .arg(dir.path().join("r.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--scatter nope: no such strategy in the CSVs; they have: fast, dlx",
        ));
}

#[test]
fn by_reads_the_corpus_again_with_the_columns_run_was_given() {
    let dir = tempfile::tempdir().unwrap();
    // kaggle_id.csv's puzzles under names no loader knows, and a column to group by.
    let kaggle = read(Path::new(&fixture("kaggle_id.csv")));
    let mut text = "id,grid,answer,level\n".to_string();
    for (line, level) in kaggle.lines().skip(1).zip(["easy", "hard", "hard"]) {
        let fields: Vec<&str> = line.split(',').collect();
        text.push_str(&format!(
            "{},{},{},{level}\n",
            fields[0], fields[1], fields[2]
        ));
    }
    let corpus = dir.path().join("named.csv");
    std::fs::write(&corpus, text).unwrap();
    let named = ["--column", "grid", "--solution-column", "answer"];
    let csv = dir.path().join("run.csv");
    bench()
        .arg("run")
        .arg(&corpus)
        .args(named)
        .args(["-s", "fast,dlx", "-q", "--no-warmup", "-o"])
        .arg(&csv)
        .assert()
        .success();
    let html = dir.path().join("r.html");
    bench()
        .arg("report")
        .arg(&csv)
        .args(["--by", "level"])
        .args(named)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = read(&html);
    let at = page.find("by level").expect("a level table");
    let table = &page[at..at + page[at..].find("</table>").unwrap()];
    for (value, puzzles) in [("easy", 1), ("hard", 2)] {
        assert!(
            table.contains(&format!("<td>{value}</td><td class=\"r\">{puzzles}</td>")),
            "{value} not a class of {puzzles} in\n{table}"
        );
    }
    // Read as its format is detected, the corpus has no puzzle column: the error names
    // the corpus file, the columns its header has, and the option that names one.
    bench()
        .arg("report")
        .arg(&csv)
        .args(["--by", "level", "-o"])
        .arg(&html)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(format!("{}:1:", corpus.display()))
                .and(predicate::str::contains(
                    "its columns: id, grid, answer, level",
                ))
                .and(predicate::str::contains("--column NAME")),
        );
    // Options that contradict each other are refused as `run` refuses them.
    bench()
        .arg("report")
        .arg(&csv)
        .args([
            "--by",
            "level",
            "--column",
            "grid",
            "--input-format",
            "text",
        ])
        .arg("-o")
        .arg(&html)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--column names a CSV column: not with --input-format text",
        ));
    // Without --by the corpora are not read again: the reading options would do nothing,
    // and are refused rather than taken silently.
    for option in [
        &["--column", "grid"][..],
        &["--solution-column", "answer"],
        &["--input-format", "csv"],
    ] {
        bench()
            .arg("report")
            .arg(&csv)
            .args(option)
            .arg("-o")
            .arg(&html)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{} says how --by reads the corpora again: it does nothing without --by",
                option[0]
            )));
    }
    // The page written with the columns named is still there.
    assert!(read(&html).contains("by level"));
}
