//! The report against a small per-puzzle CSV written here, with every figure counted by
//! hand: the numbers in the tables, PAR-2, the slowest puzzles, and reading errors.

use std::path::{Path, PathBuf};

use super::*;
use sudoku_bench_analysis::report::read::SLOWEST;
use sudoku_bench_analysis::report::stats::{par2, sorted_times, stats, KnownLimits};
use sudoku_bench_analysis::report::Inputs;
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::SummaryReport;

const HEADER: &str =
    "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error\n";

fn grid(n: u64) -> String {
    // A distinct 81-character "grid" per line, so that the slowest table's can be told.
    format!("{:0>81}", n)
}

/// The givens of `grid(line)`, as the readers check `clues`.
fn clues(line: u64) -> usize {
    grid(line)
        .chars()
        .filter(|c| ('1'..='9').contains(c))
        .count()
}

/// Strategy `a`: lines 1..=12 with time 1000 * line, line 5 aborted, line 12 wrong;
/// line 13 malformed. Strategy `b`: the same lines at 2000 ns each, nodes 7.
fn sample_csv(dir: &Path) -> PathBuf {
    let mut text = HEADER.to_string();
    for line in 1..=12u64 {
        let (status, solutions, error) = match line {
            5 => ("aborted", 0, "timed out after 10us"),
            12 => (
                "unique",
                1,
                "solution differs from the corpus's solution column",
            ),
            _ => ("unique", 1, ""),
        };
        text.push_str(&format!(
            "c.txt,{line},a,{status},{solutions},{},{},{},{},{},,{error}\n",
            line * 10,
            line % 3,
            line * 1000,
            clues(line),
            grid(line)
        ));
    }
    text.push_str("c.txt,13,a,malformed,,,,,,,,line is not a puzzle\n");
    for line in 1..=12u64 {
        text.push_str(&format!(
            "c.txt,{line},b,unique,1,7,,2000,{},{},,\n",
            clues(line),
            grid(line)
        ));
    }
    text.push_str("c.txt,13,b,malformed,,,,,,,,line is not a puzzle\n");
    let path = dir.join("run-a.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn summary(timeout_ns: Option<u64>, max_nodes: Option<u64>) -> SummaryReport {
    let json = format!(
        r#"{{"tool":"sudoku-bench","version":"0.1.0","date":"2026-11-23T00:00:00Z",
        "machine":{{"cpu":"Test CPU 9000","cores":2,"os":"linux","arch":"x86_64"}},
        "threads":2,"max_solutions":2,"max_nodes":{},"timeout_ns":{},"repeat":1,
        "wall_ns":1,"rows":[
        {{"corpus":"c.txt","strategy":"a","puzzles":13,"unique":11,"multiple":0,
          "unsolvable":0,"solved":0,"invalid":0,"malformed":1,"aborted":1,"mismatches":1,
          "searched":12,"puzzles_per_s_per_core":0,"wall_puzzles_per_s":0,
          "total_time_ns":0,"wall_ns":0,"mean_ns":0,"median_ns":0,"p90_ns":0,
          "p99_ns":0,"max_ns":0,"mean_nodes":null,"mean_guesses":null,
          "no_guess_share":null}}]}}"#,
        max_nodes.map_or("null".into(), |n| n.to_string()),
        timeout_ns.map_or("null".into(), |n| n.to_string()),
    );
    serde_json::from_str(&json).unwrap()
}

#[test]
fn counts_par2_and_slowest_come_from_every_row_and_appear_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let path = sample_csv(dir.path());
    let inputs = Inputs::read(&[path]).unwrap();
    assert_eq!(inputs.groups.len(), 2);
    let a = &inputs.groups[0];
    assert_eq!((a.corpus.as_str(), a.label.as_str()), ("c.txt", "a"));
    let times = sorted_times(&a.rows, |_| true);
    let s = stats(&a.rows, &times);
    assert_eq!(s.puzzles, 13);
    assert_eq!(s.count(Status::Unique), 11);
    assert_eq!(s.count(Status::Aborted), 1);
    assert_eq!(s.count(Status::Malformed), 1);
    assert_eq!(s.wrong, 1);
    assert_eq!(s.searched, 12);
    assert_eq!(s.total_ns, 78_000);
    assert_eq!((s.median_ns, s.p99_ns, s.max_ns), (6000, 12_000, 12_000));
    assert_eq!(s.mean_nodes, Some(65.0));

    // 11 finished (78,000 - 5,000 ns) plus the aborted one at twice 10 µs; in nodes,
    // 780 - 50 plus twice a budget of 100.
    let p = par2(
        &a.rows,
        KnownLimits {
            timeout_ns: Some(10_000),
            max_nodes: Some(100),
        },
    );
    assert_eq!(p.time_ns, Some(73_000 + 20_000));
    assert_eq!(p.nodes, Some(730 + 200));

    let slow: Vec<u64> = a.slowest.iter().map(|s| s.line).collect();
    assert_eq!(slow, [12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    assert_eq!(a.slowest.len(), SLOWEST);
    assert_eq!(a.slowest[0].puzzle, grid(12));
    // Equal times: the earlier line counts as slower, so b's ten are lines 1-10.
    let b = &inputs.groups[1];
    let slow: Vec<u64> = b.slowest.iter().map(|s| s.line).collect();
    assert_eq!(slow, (1..=10).collect::<Vec<_>>());

    let inputs = inputs.with_summary("run-a.json", summary(Some(10_000), Some(100)));
    let html = render(&inputs, &ReportOptions::default()).unwrap();
    for text in [
        "corpus c.txt",
        "Test CPU 9000",
        // a: puzzles, unique, malformed, aborted, wrong, searched, puzzles/s/core.
        "<td>a</td><td class=\"r\">13</td><td class=\"r\">11</td><td class=\"r\">1</td>\
         <td class=\"r\">1</td><td class=\"r\">1</td><td class=\"r\">12</td>\
         <td class=\"r\">153,846</td><td class=\"r\">6.00 µs</td>\
         <td class=\"r\">12.0 µs</td><td class=\"r\">12.0 µs</td>",
        // PAR-2 of a: 93 µs and 930 nodes.
        "<td class=\"r\">93.000 µs</td><td class=\"r\">930</td>",
        &format!("<td class=\"grid\">{}</td>", grid(12)),
    ] {
        assert!(html.contains(text), "{text} not in\n{html}");
    }
    // The slowest puzzles' times are in the other tables' short form.
    let slowest_row = format!(
        "<td class=\"grid\">{}</td><td>unique</td><td class=\"r\">12.0 µs</td>",
        grid(12)
    );
    assert!(html.contains(&slowest_row), "{slowest_row} not in\n{html}");
    assert!(html.contains("13 puzzle lines, 2 strategies"), "{html}");
    // The noise warnings need 200 puzzles.
    assert!(!html.contains("the slowest 1%"), "{html}");
    // b's PAR-2: only a's summary row matches (b's is not in it): its limits are unknown.
    assert!(html.contains("not known for b"), "{html}");
}

#[test]
fn one_strategy_that_searched_nothing_gets_no_empty_slowest_table() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "c.txt,1,a,malformed,,,,,,,,line is not a puzzle\n";
    let path = write(dir.path(), "none.csv", &format!("{HEADER}{rows}"));
    let html = render(&Inputs::read(&[path]).unwrap(), &ReportOptions::default()).unwrap();
    assert!(html.contains("1 puzzle line, 1 strategy"), "{html}");
    assert!(!html.contains("slowest</h4>"), "{html}");
    assert!(html.contains("Nothing was searched"), "{html}");
}

#[test]
fn mean_nodes_have_thousands_separators() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "c.txt,1,a,unique,1,1234567,,100,25,,,\nc.txt,2,a,unique,1,1234568,,100,25,,,\n";
    let path = write(dir.path(), "big.csv", &format!("{HEADER}{rows}"));
    let html = render(&Inputs::read(&[path]).unwrap(), &ReportOptions::default()).unwrap();
    assert!(html.contains("<td class=\"r\">1,234,567.5</td>"), "{html}");
}

#[test]
fn a_summary_of_another_run_is_named_without_its_settings() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "other.txt,1,a,unique,1,5,,100,25,,,\n";
    let path = write(dir.path(), "other.csv", &format!("{HEADER}{rows}"));
    let inputs = Inputs::read(&[path])
        .unwrap()
        .with_summary("run-a.json", summary(Some(10_000), None));
    let html = render(&inputs, &ReportOptions::default()).unwrap();
    assert!(
        html.contains("run-a.json matches none of the CSVs&#39; (corpus, strategy, puzzles)"),
        "{html}"
    );
    assert!(!html.contains("Test CPU 9000"), "{html}");
}

#[test]
fn without_a_summary_the_page_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = Inputs::read(&[sample_csv(dir.path())]).unwrap();
    let html = render(&inputs, &ReportOptions::default()).unwrap();
    assert!(html.contains("were not recorded"), "{html}");
    assert!(html.contains("PAR-2 needs the run&#39;s limits"), "{html}");
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_bad_row_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "c.txt,1,a,unique,1,5,,100,25,,,\nc.txt,2,a,unique,1,5,,1x0,25,,,\n",
            "bad.csv:3: time_ns is \"1x0\"",
        ),
        (
            "c.txt,1,a,unique,1,5,,100,25,,,\nc.txt,2,a,weird,1,5,,100,25,,,\n",
            "bad.csv:3: status is \"weird\"",
        ),
        (
            "c.txt,1,a,unique,1,5,,100,25\n",
            "bad.csv:2: 9 fields, but the header has 12",
        ),
        (
            "c.txt,,a,unique,1,5,,100,25,,,\n",
            "bad.csv:2: the line column is empty",
        ),
    ];
    for (rows, expected) in cases {
        let path = write(dir.path(), "bad.csv", &format!("{HEADER}{rows}"));
        let err = Inputs::read(&[path]).unwrap_err().to_string();
        assert!(err.contains(expected), "{err}");
    }
    let path = write(dir.path(), "bad.csv", "corpus,line,strategy\n");
    let err = Inputs::read(&[path]).unwrap_err().to_string();
    assert!(err.contains("bad.csv:1: no `status` column"), "{err}");
    let path = write(dir.path(), "bad.csv", HEADER);
    let err = Inputs::read(&[path]).unwrap_err().to_string();
    assert!(err.contains("bad.csv:1: no per-puzzle rows"), "{err}");
    let path = write(dir.path(), "bad.json", "  {\"tool\": 1}");
    let err = Inputs::read(&[path]).unwrap_err().to_string();
    assert!(err.contains("bad.json: not a summary JSON"), "{err}");
}

#[test]
fn the_same_puzzle_twice_in_one_csv_is_an_error_and_two_runs_are_both_kept() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "c.txt,1,a,unique,1,5,,100,25,,,\nc.txt,2,a,unique,1,5,,100,25,,,\n\
                c.txt,1,b,unique,1,5,,100,25,,,\nc.txt,1,a,unique,1,5,,100,25,,,\n";
    let path = write(dir.path(), "dup.csv", &format!("{HEADER}{rows}"));
    let err = Inputs::read(&[path]).unwrap_err().to_string();
    assert!(
        err.contains("dup.csv: corpus c.txt, strategy a: line 1 has two rows"),
        "{err}"
    );

    let one = "c.txt,1,a,unique,1,5,,100,25,,,\n";
    let first = write(dir.path(), "run-a.csv", &format!("{HEADER}{one}"));
    let second = write(dir.path(), "run-b.csv", &format!("{HEADER}{one}"));
    let inputs = Inputs::read(&[first, second]).unwrap();
    let labels: Vec<&str> = inputs.groups.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["a (run-a)", "a (run-b)"]);
    let err = render(
        &inputs,
        &ReportOptions {
            scatter: vec![("a".into(), "a (run-b)".into())],
            ..ReportOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("--scatter a: no such strategy") && err.contains("a (run-a), a (run-b)"),
        "{err}"
    );
    assert!(render(
        &inputs,
        &ReportOptions {
            scatter: vec![("a (run-a)".into(), "a (run-b)".into())],
            ..ReportOptions::default()
        },
    )
    .unwrap()
    .contains("a (run-b) against a (run-a)"));
}

#[test]
fn scatter_points_pair_lines_and_mark_disagreements_and_aborts() {
    use sudoku_bench_analysis::report::read::{CompactRow, Group};
    let row = |line, status, solutions, time| {
        CompactRow::new(
            line,
            status,
            Some(solutions),
            None,
            None,
            Some(time),
            Some(25),
            false,
        )
    };
    let mut a = Group::new("c.txt", "a", 0);
    let mut b = Group::new("c.txt", "b", 0);
    for r in [
        row(1, Status::Unique, 1, 10),
        row(2, Status::Unique, 1, 20),
        row(3, Status::Aborted, 0, 30),
        row(4, Status::Multiple, 2, 40),
        // Only a has line 6: no point.
        row(6, Status::Unique, 1, 60),
    ] {
        a.push(r, String::new);
    }
    for r in [
        row(1, Status::Unique, 1, 11),
        row(2, Status::Multiple, 2, 21),
        row(3, Status::Unique, 1, 31),
        row(4, Status::Multiple, 2, 41),
        // Not searched by b: no point.
        CompactRow::new(5, Status::Malformed, None, None, None, None, None, false),
    ] {
        b.push(r, String::new);
    }
    let p = pairs(&a, &b);
    assert_eq!(p.same, [(10, 11), (40, 41)]);
    assert_eq!(p.differ, [(20, 21)]);
    assert_eq!(p.aborted, [(30, 31)]);
}

/// Lines 1-3 of each (strategy, time per line in ns, nodes) on corpus c.txt, all unique.
fn timed_csv(dir: &Path, strategies: &[(&str, u64, Option<u64>)]) -> PathBuf {
    let mut text = HEADER.to_string();
    for (strategy, time, nodes) in strategies {
        for line in 1..=3u64 {
            let nodes = nodes.map_or(String::new(), |n| n.to_string());
            text.push_str(&format!(
                "c.txt,{line},{strategy},unique,1,{nodes},,{time},{},{},,\n",
                clues(line),
                grid(line)
            ));
        }
    }
    write(dir, "run.csv", &text)
}

/// The summary of `timed_csv`'s run of `strategies`, with these limits.
fn summary_of_strategies(
    strategies: &[&str],
    timeout_ns: Option<u64>,
    max_nodes: Option<u64>,
) -> SummaryReport {
    let mut s = summary(timeout_ns, max_nodes);
    let template = s.rows[0].clone();
    s.rows = strategies
        .iter()
        .map(|name| sudoku_bench_core::summary::SummaryRow {
            strategy: name.to_string(),
            // The run's three rows, each unique: a summary is taken for the rows it counts.
            puzzles: 3,
            unique: 3,
            multiple: 0,
            unsolvable: 0,
            solved: 0,
            invalid: 0,
            malformed: 0,
            aborted: 0,
            ..template.clone()
        })
        .collect();
    s
}

#[test]
fn the_default_scatter_draws_the_users_solver_against_the_best_built_in() {
    let dir = tempfile::tempdir().unwrap();
    let page = |strategies: &[(&str, u64, Option<u64>)]| {
        let inputs = Inputs::read(&[timed_csv(dir.path(), strategies)]).unwrap();
        render(&inputs, &ReportOptions::default()).unwrap()
    };
    // The two built-ins are faster, but the user ran `mine` to see it against them.
    let html = page(&[
        ("fast", 1000, Some(5)),
        ("dlx", 2000, Some(9)),
        ("mine", 5000, None),
    ]);
    assert!(html.contains("mine against fast"), "{html}");
    assert!(!html.contains("dlx against fast"), "{html}");
    // Two of the user's solvers: against each other, the faster on the x axis.
    let html = page(&[
        ("fast", 1000, Some(5)),
        ("mine", 3000, None),
        ("yours", 5000, None),
    ]);
    assert!(html.contains("yours against mine"), "{html}");
    assert!(!html.contains("against fast"), "{html}");
    // Built-ins only: the two fastest, as before.
    let html = page(&[
        ("naive", 9000, Some(99)),
        ("fast", 1000, Some(5)),
        ("dlx", 2000, Some(9)),
    ]);
    assert!(html.contains("dlx against fast"), "{html}");
}

/// The PAR-2 section of `html`, up to the next heading.
fn par2_section(html: &str) -> &str {
    let at = html.find("<h3>PAR-2</h3>").expect("a PAR-2 section");
    let end = html[at + 1..].find("<h3>").expect("a heading after it");
    &html[at..at + 1 + end]
}

#[test]
fn par2_shows_only_the_budgets_that_apply() {
    let dir = tempfile::tempdir().unwrap();
    let csv = timed_csv(dir.path(), &[("fast", 1000, Some(5)), ("mine", 5000, None)]);
    let page = |timeout, max_nodes| {
        let inputs = Inputs::read(std::slice::from_ref(&csv))
            .unwrap()
            .with_summary(
                "run.json",
                summary_of_strategies(&["fast", "mine"], timeout, max_nodes),
            );
        render(&inputs, &ReportOptions::default()).unwrap()
    };
    // A node budget, but `mine` counts no nodes: none applies to it.
    let html = page(Some(10_000), Some(1000));
    let par2 = par2_section(&html);
    assert!(
        par2.contains("<td>fast</td><td class=\"r\">10.000 µs</td><td class=\"r\">1,000</td>"),
        "{par2}"
    );
    assert!(
        par2.contains("<td>mine</td><td class=\"r\">10.000 µs</td><td class=\"r\">-</td>"),
        "{par2}"
    );
    // No node budget at all: no column for one, nor for a score in nodes.
    let html = page(Some(10_000), None);
    let par2 = par2_section(&html);
    assert!(
        !par2.contains("<th class=\"r\">node budget</th>")
            && !par2.contains("<th class=\"r\">PAR-2 nodes</th>"),
        "{par2}"
    );
    assert!(par2.contains("<th class=\"r\">timeout</th>"), "{par2}");
    // Only the user's solver, with a node budget set: it applies to nothing.
    let only = timed_csv(dir.path(), &[("mine", 5000, None)]);
    let inputs = Inputs::read(&[only]).unwrap().with_summary(
        "run.json",
        summary_of_strategies(&["mine"], Some(10_000), Some(1000)),
    );
    let html = render(&inputs, &ReportOptions::default()).unwrap();
    let par2 = par2_section(&html);
    assert!(
        !par2.contains("<th class=\"r\">node budget</th>") && !par2.contains("1,000"),
        "{par2}"
    );
}

#[test]
fn the_page_shows_code_where_its_text_has_backticks() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = Inputs::read(&[sample_csv(dir.path())]).unwrap();
    let html = render(&inputs, &ReportOptions::default()).unwrap();
    assert!(
        html.contains("<code>sudoku-bench run --summary run.json -o run.csv</code>"),
        "{html}"
    );
    assert!(!html.contains('`'), "{html}");
}
