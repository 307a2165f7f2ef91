//! End-to-end tests of `sudoku-bench run` on the hand-written fixtures.

use std::collections::BTreeMap;
use std::path::Path;

use crate::{bench, fixture, rows, run_ok, Row};
use predicates::prelude::*;

const EASY_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
const HARD_SOLUTION: &str =
    "468931527751624839392578461134756298289413675675289314846192753513867942927345186";

/// (line, strategy) -> the row's `column`.
fn by_line(rows: &[Row], column: &str) -> BTreeMap<(u64, String), String> {
    rows.iter()
        .map(|r| {
            (
                (r["line"].parse().unwrap(), r["strategy"].clone()),
                r[column].clone(),
            )
        })
        .collect()
}

/// (line, strategy) -> status
fn statuses(rows: &[Row]) -> BTreeMap<(u64, String), String> {
    by_line(rows, "status")
}

fn strategies() -> Vec<String> {
    let out = bench().arg("strategies").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn header_is_exactly_the_documented_columns() {
    let out = bench()
        .args(["run", &fixture("mixed.txt"), "--out", "-", "-q"])
        .output()
        .unwrap();
    let first = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        first.lines().next().unwrap(),
        "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error,ended,replicate,instructions"
    );
}

#[test]
fn every_status_on_the_mixed_fixture() {
    let all = strategies();
    assert!(all.len() >= 4, "{all:?}");
    let rows = run_ok(&[&fixture("mixed.txt")]);
    // Entries: lines 2, 3, 4, 6, 7, 8, 9; comment and blank lines are not reported.
    assert_eq!(rows.len(), 7 * all.len());
    let st = statuses(&rows);
    for s in &all {
        let at = |line: u64| st[&(line, s.clone())].as_str();
        assert_eq!(at(2), "unique", "{s}");
        assert_eq!(at(3), "multiple", "{s}");
        assert_eq!(at(4), "unsolvable", "{s}");
        assert_eq!(at(6), "invalid", "{s}");
        assert_eq!(at(7), "malformed", "{s}");
        assert_eq!(at(8), "malformed", "{s}");
    }
    let line = |n: &str, s: &str| {
        rows.iter()
            .find(|r| r["line"] == n && r["strategy"] == s)
            .unwrap()
            .clone()
    };
    let easy = line("2", "bitmask");
    assert_eq!(easy["solution"], EASY_SOLUTION);
    assert_eq!(
        (easy["solutions"].as_str(), easy["clues"].as_str()),
        ("1", "30")
    );
    assert!(easy["time_ns"].parse::<u64>().unwrap() > 0);
    assert!(easy["nodes"].parse::<u64>().unwrap() > 0);
    assert_eq!(easy["error"], "");
    assert_eq!(line("3", "stack")["solutions"], "2");
    // Guesses are reported only by strategies that tell them from forced moves.
    assert_eq!(line("2", "naive")["guesses"], "");
    assert_eq!(
        line("2", "fast")["guesses"],
        "0",
        "the easy puzzle needs no guess"
    );
    let hardest = line("9", "fast");
    assert!(hardest["guesses"].parse::<u64>().unwrap() > 0);
    assert_eq!(
        hardest["guesses"], hardest["nodes"],
        "fast's nodes are its guesses"
    );
    assert_eq!(line("4", "naive")["solution"], "");
    let invalid = line("6", "naive");
    assert_eq!(
        invalid["error"],
        "digit 5 appears twice in row 1 (r1c1 and r1c2)"
    );
    assert_eq!(
        (invalid["nodes"].as_str(), invalid["time_ns"].as_str()),
        ("", "")
    );
    assert_eq!(line("7", "naive")["error"], "expected 81 cells, found 80");
    assert_eq!(
        line("8", "naive")["error"],
        "character 'x' at column 81 is not a digit or a blank ('.' or '0')"
    );
    assert_eq!(line("8", "naive")["puzzle"], "");
    assert!(rows.iter().all(|r| r["corpus"] == fixture("mixed.txt")));
}

#[test]
fn bad_lines_warn_with_file_and_line_and_the_run_goes_on() {
    let path = fixture("mixed.txt");
    bench()
        .args(["run", &path, "--out", "-", "--strategies", "bitmask"])
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "warning: {path}:6: digit 5 appears twice in row 1 (r1c1 and r1c2)"
        )))
        .stderr(predicate::str::contains(format!(
            "warning: {path}:7: expected 81 cells, found 80"
        )))
        .stderr(predicate::str::contains(format!(
            "warning: {path}:8: character 'x'"
        )))
        // The summary table counts them.
        .stderr(predicate::str::contains("malformed"))
        .stderr(predicate::str::contains("invalid"));
}

#[test]
fn warnings_come_in_line_order_and_stop_at_a_hundred() {
    // Bad lines spread over many chunks and over the pieces each chunk is formatted in.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    let good = &HARD_SOLUTION[..80];
    let lines: Vec<String> = (1..=3000)
        .map(|i| match i % 23 {
            0 => format!("{good}x"),
            _ => format!("{good}."),
        })
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let path = path.to_str().unwrap();
    let out = bench()
        .args([
            "run",
            path,
            "-s",
            "bitmask",
            "-q",
            "--out",
            "-",
            "--chunk-size",
            "700",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warned: Vec<u64> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("warning: {path}:")))
        .map(|rest| rest.split(':').next().unwrap().parse().unwrap())
        .collect();
    let expected: Vec<u64> = (1..=100).map(|k| 23 * k).collect();
    assert_eq!(warned, expected);
    let bad = 3000 / 23;
    assert!(
        stderr.contains(&format!("warning: {} more bad lines not shown", bad - 100)),
        "{stderr}"
    );
}

#[test]
fn strict_fails_on_bad_lines_but_keeps_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    bench()
        .args([
            "run",
            &fixture("mixed.txt"),
            "--strict",
            "-q",
            "-s",
            "bitmask",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "--strict: 3 malformed or invalid lines",
        ));
    assert_eq!(rows(&std::fs::read(&out).unwrap()).len(), 7);
    bench()
        .args([
            "run",
            &fixture("kaggle.csv"),
            "--strict",
            "-q",
            "--out",
            "-",
        ])
        .assert()
        .success();
}

#[test]
fn node_budget_aborts_and_says_so() {
    let rows = run_ok(&[&fixture("mixed.txt"), "--max-nodes", "1"]);
    for r in rows.iter().filter(|r| r["line"] == "9") {
        assert_eq!(r["status"], "aborted", "{r:?}");
        assert_eq!(r["error"], "node budget of 1 exhausted", "{r:?}");
        assert!(r["nodes"].parse::<u64>().unwrap() <= 1);
    }
}

#[test]
fn first_solution_mode_reports_solved() {
    let rows = run_ok(&[&fixture("mixed.txt"), "--max-solutions", "1"]);
    let st = statuses(&rows);
    for s in strategies() {
        assert_eq!(st[&(2, s.clone())], "solved");
        assert_eq!(st[&(3, s.clone())], "solved");
        assert_eq!(st[&(4, s.clone())], "unsolvable");
    }
}

#[test]
fn crlf_gives_the_same_results_as_lf() {
    let strip = |rows: Vec<Row>| -> Vec<Vec<String>> {
        rows.into_iter()
            .map(|mut r| {
                r.remove("time_ns");
                r.remove("replicate");
                r.remove("corpus");
                r.into_values().collect()
            })
            .collect()
    };
    let lf = strip(run_ok(&[&fixture("mixed.txt")]));
    let crlf = strip(run_ok(&[&fixture("mixed_crlf.txt")]));
    assert_eq!(lf, crlf);
}

#[test]
fn csv_with_both_kaggle_headers_checks_solutions() {
    for name in ["kaggle.csv", "kaggle_id.csv"] {
        let rows = run_ok(&[&fixture(name), "-s", "bitmask,dlx"]);
        assert_eq!(rows[0]["line"], "2", "the header is line 1");
        assert_eq!(rows[0]["solution"], EASY_SOLUTION);
        assert_eq!(rows[2]["solution"], HARD_SOLUTION);
        assert!(rows.iter().all(|r| r["error"].is_empty()), "{rows:?}");
    }
    let rows = run_ok(&[&fixture("kaggle_id.csv"), "-s", "bitmask"]);
    assert_eq!(
        rows[2]["status"], "multiple",
        "an empty solution field is allowed"
    );
}

#[test]
fn a_wrong_solution_column_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wrong.csv");
    let text = std::fs::read_to_string(fixture("kaggle.csv")).unwrap();
    // Swap two digits of the first solution: it no longer fits the puzzle's givens.
    std::fs::write(&path, text.replacen(",5346", ",3546", 1)).unwrap();
    let rows = run_ok(&[path.to_str().unwrap(), "-s", "bitmask"]);
    assert_eq!(rows[0]["status"], "malformed");
    assert_eq!(
        rows[0]["error"],
        "solution column has 3 at r1c1 where the puzzle gives 5"
    );
    assert_eq!(rows[1]["status"], "unique");
}

#[test]
fn format_can_be_forced() {
    let rows = run_ok(&[
        &fixture("kaggle.csv"),
        "--input-format",
        "text",
        "-s",
        "bitmask",
    ]);
    assert_eq!(
        rows[0]["status"], "malformed",
        "the header is a bad line when read as text"
    );
    assert_eq!(
        rows[1]["status"], "unique",
        "text takes the first field of a CSV line"
    );
    bench()
        .args([
            "run",
            &fixture("mixed.txt"),
            "--input-format",
            "csv",
            "--out",
            "-",
            "-q",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CSV header has no puzzle column"));
}

#[test]
fn extra_fields_after_the_grid_are_ignored() {
    let rows = run_ok(&[&fixture("extra_fields.txt"), "-s", "bitmask"]);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["status"] == "unique"), "{rows:?}");
}

#[test]
fn stdin_is_a_corpus() {
    let input = std::fs::read(fixture("mixed.txt")).unwrap();
    let out = bench()
        .args(["run", "-", "--out", "-", "-q", "-s", "bitmask"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = rows(&out);
    assert_eq!(rows.len(), 7);
    assert!(rows.iter().all(|r| r["corpus"] == "-"));
    assert_eq!(rows[0]["status"], "unique");
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let strip = |rows: Vec<Row>| -> Vec<Vec<String>> {
        rows.into_iter()
            .map(|mut r| {
                r.remove("time_ns");
                r.remove("replicate");
                r.into_values().collect()
            })
            .collect()
    };
    let corpus = format!(
        "{}/../shared/datasets/puzzles3_magictour_top1465",
        env!("CARGO_MANIFEST_DIR")
    );
    let corpus = if Path::new(&corpus).exists() {
        corpus
    } else {
        crate::say_skipped(&format!(
            "{corpus} not found; the small fixture mixed.txt instead"
        ));
        fixture("mixed.txt")
    };
    let args = |threads: &'static str| {
        vec![
            corpus.clone(),
            "-s".into(),
            "bitmask,stack".into(),
            "--max-nodes".into(),
            "20000".into(),
            "--chunk-size".into(),
            "100".into(),
            "--threads".into(),
            threads.into(),
        ]
    };
    let one = strip(run_ok(
        &args("1").iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let two = strip(run_ok(
        &args("2").iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert!(one.len() > 2);
    assert_eq!(one, two);
}

/// Run with `args` plus `--out - --quiet --summary S.json`, expecting success: the CSV rows
/// and the summary JSON.
fn run_with_summary(args: &[&str]) -> (Vec<Row>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let out = bench()
        .arg("run")
        .args(args)
        .args(["--out", "-", "--quiet", "--summary"])
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let summary = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (rows(&out), summary)
}

#[test]
fn summary_json_has_machine_settings_and_ns_fields() {
    let (_, v) = run_with_summary(&[&fixture("mixed.txt"), "--threads", "2"]);
    assert_eq!(v["tool"], "sudoku-bench");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["max_solutions"], 2);
    assert!(v["machine"]["cores"].as_u64().unwrap() >= 1);
    assert!(!v["machine"]["cpu"].as_str().unwrap().is_empty());
    assert!(v["date"].as_str().unwrap().starts_with("20"));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), strategies().len());
    let r = &rows[0];
    assert_eq!(r["corpus"], fixture("mixed.txt"));
    assert_eq!(
        (
            r["puzzles"].as_u64(),
            r["malformed"].as_u64(),
            r["invalid"].as_u64()
        ),
        (Some(7), Some(2), Some(1))
    );
    for field in [
        "mean_ns",
        "median_ns",
        "p90_ns",
        "p99_ns",
        "max_ns",
        "wall_ns",
        "total_time_ns",
    ] {
        assert!(r[field].is_number(), "{field}");
    }
    assert!(r["puzzles_per_s_per_core"].as_f64().unwrap() > 0.0);
}

#[test]
fn summary_markdown_names_the_machine() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("s.md");
    bench()
        .args([
            "run",
            &fixture("kaggle.csv"),
            "-q",
            "--out",
            "-",
            "-s",
            "bitmask,fast",
            "--summary",
        ])
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(&md).unwrap();
    // A busy machine may add warnings about preemptions under the table.
    let table = text.split("\n\n**warning:**").next().unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("sudoku-bench "), "{text}");
    assert!(lines[0].contains("cores)"), "{text}");
    assert!(
        lines[2].starts_with("| corpus | strategy | puzzles |"),
        "{text}"
    );
    assert!(lines[3].starts_with("|---|---|---:|"), "{text}");
    assert_eq!(
        lines.len(),
        6,
        "machine line, blank, heading, rule, two rows: {text}"
    );
    assert!(
        lines[4].contains("| bitmask |") && lines[5].contains("| fast |"),
        "{text}"
    );
}

#[test]
fn summary_table_goes_to_stderr() {
    bench()
        .args(["run", &fixture("kaggle.csv"), "--out", "-", "-s", "bitmask"])
        .assert()
        .success()
        .stderr(predicate::str::contains("puzzles/s/core"))
        .stderr(predicate::str::contains("p50"))
        .stderr(predicate::str::contains("bitmask"));
}

#[test]
fn default_corpus_and_default_output_path() {
    let dir = tempfile::tempdir().unwrap();
    let assert = bench()
        .current_dir(dir.path())
        .args(["run", "-s", "bitmask,dlx"])
        .assert()
        .success()
        .stderr(predicate::str::contains("datasets/minimal.txt"));
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("per-puzzle results: results/run-"),
        "{stderr}"
    );
    let results: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .collect();
    assert_eq!(results.len(), 1);
    let rows = rows(&std::fs::read(results[0].as_ref().unwrap().path()).unwrap());
    assert_eq!(rows.len(), 2 * 1000);
    assert!(
        rows.iter().all(|r| r["status"] == "unique"),
        "every shipped puzzle is proper"
    );
}

#[test]
fn missing_corpus_and_unknown_strategy_fail_clearly() {
    bench()
        .args(["run", "no/such/file.txt", "--out", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open no/such/file.txt"));
    bench()
        .args(["run", &fixture("mixed.txt"), "-s", "magic", "--out", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown strategy \"magic\""));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command as StdCommand, Stdio};
    // Enough rows that writing goes on after the reader has gone.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    let line = format!("{EASY_SOLUTION}\n");
    std::fs::write(&big, line.repeat(50_000)).unwrap();
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .args(["run", "-q", "-s", "bitmask", "--out", "-"])
        .arg(&big)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("corpus,"));
    // The reader is dropped here: stdout is closed.
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_reference_is_checked_against_but_never_reported() {
    // `fast` solves untimed for the reference counts: neither its rows nor its summary
    // row appear, and right answers are no mismatch.
    let (rows, v) = run_with_summary(&[&fixture("mixed.txt"), "-s", "bitmask"]);
    assert_eq!(rows.len(), 7);
    assert!(rows.iter().all(|r| r["strategy"] == "bitmask"));
    let summary = v["rows"].as_array().unwrap();
    assert_eq!(summary.len(), 1);
    assert_eq!(summary[0]["strategy"], "bitmask");
    assert_eq!(
        (
            summary[0]["mismatches"].as_u64(),
            summary[0]["unreturned"].as_u64()
        ),
        (Some(0), Some(0))
    );
}

/// What `--permute` must not change, per (line, strategy): the puzzle, status, count,
/// solution and error. The solution only for a unique puzzle: of several, the one found
/// first depends on the grid solved (the tool checks it solves the puzzle as read, and
/// says so in the error column when it does not).
type Answers = BTreeMap<(u64, String), [String; 5]>;

fn answers(rows: &[Row]) -> Answers {
    rows.iter()
        .map(|r| {
            let mut kept =
                ["puzzle", "status", "solutions", "solution", "error"].map(|k| r[k].clone());
            if r["status"] == "multiple" {
                kept[3].clear();
            }
            ((r["line"].parse().unwrap(), r["strategy"].clone()), kept)
        })
        .collect()
}

/// `a` and `b` agree on every answer of a search that finished on both sides (a node
/// budget runs out where it runs out: nodes are what a permutation changes). Returns how
/// many were compared, per strategy.
fn finished_alike(a: &Answers, b: &Answers) -> BTreeMap<String, usize> {
    assert_eq!(a.len(), b.len());
    let mut compared = BTreeMap::new();
    for (key, x) in a {
        let y = &b[key];
        if x[1] != "aborted" && y[1] != "aborted" {
            assert_eq!(x, y, "line {} {}", key.0, key.1);
            *compared.entry(key.1.clone()).or_default() += 1;
        }
    }
    compared
}

/// (line, strategy) -> nodes
fn nodes(rows: &[Row]) -> BTreeMap<(u64, String), String> {
    by_line(rows, "nodes")
}

#[test]
fn permute_keeps_every_answer_and_changes_the_search_deterministically() {
    let classic = format!("{}/datasets/classic.txt", env!("CARGO_MANIFEST_DIR"));
    let with = |extra: &[&str]| {
        let mut args = vec![classic.as_str(), "--strict", "-s", "naive,bitmask,dlx,fast"];
        args.extend(extra);
        run_ok(&args)
    };
    let plain = with(&[]);
    let seven = with(&["--permute", "7"]);
    // The records and their solutions as read, whatever grid was solved; `naive` runs
    // out of nodes on the hardest puzzles.
    let compared = finished_alike(&answers(&plain), &answers(&seven));
    for s in ["bitmask", "dlx", "fast"] {
        assert_eq!(compared[s], 14, "{s}: every puzzle, none aborted");
    }
    assert!(compared["naive"] >= 3, "{compared:?}");
    assert!(plain
        .iter()
        .all(|r| ["unique", "aborted"].contains(&r["status"].as_str())));
    assert_eq!(
        nodes(&with(&["--permute", "7"])),
        nodes(&seven),
        "same seed"
    );
    let differ = |a: &[Row], b: &[Row]| {
        let (a, b) = (nodes(a), nodes(b));
        a.iter().filter(|(k, n)| b[*k] != **n).count()
    };
    // Nodes depend on the grid solved: most puzzles' change with the seed.
    let other = with(&["--permute", "8"]);
    assert!(differ(&seven, &other) > seven.len() / 2, "seeds 7 and 8");
    assert!(differ(&plain, &seven) > plain.len() / 2, "plain and seed 7");
}

#[test]
fn permute_keeps_every_status_of_the_mixed_fixture() {
    let plain = run_ok(&[&fixture("mixed.txt")]);
    let permuted = run_ok(&[&fixture("mixed.txt"), "--permute", "3"]);
    assert_eq!(plain.len(), 7 * strategies().len());
    assert!(plain.iter().all(|r| r["status"] != "aborted"));
    assert_eq!(answers(&plain), answers(&permuted));
}

#[test]
fn the_summary_records_the_permute_seed() {
    let mixed = fixture("mixed.txt");
    let summary = |extra: &[&str]| {
        let mut args = vec![mixed.as_str(), "-s", "fast"];
        args.extend(extra);
        run_with_summary(&args).1
    };
    assert_eq!(summary(&["--permute", "42"])["permute"], 42);
    assert!(
        summary(&[]).get("permute").is_none(),
        "absent when not used"
    );
    bench()
        .args(["run", &fixture("mixed.txt"), "--permute", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--permute"));
}

#[test]
fn permute_keeps_every_status_over_a_shared_corpus() {
    let name = "puzzles3_magictour_top1465";
    let corpus = format!("{}/../shared/datasets/{name}", env!("CARGO_MANIFEST_DIR"));
    if !Path::new(&corpus).exists() {
        crate::say_skipped(&format!("../shared/datasets/{name} not found"));
        return;
    }
    // The two strategies that solve this corpus in well under a second, with no node
    // budget, so that nothing is aborted: the others take seconds to minutes here, and the
    // fixtures' tests above permute them all.
    let with = |extra: &[&str]| {
        let mut args = vec![corpus.as_str(), "-s", "dlx,fast", "--max-nodes", "0"];
        args.extend(extra);
        answers(&run_ok(&args))
    };
    let (plain, permuted) = (with(&[]), with(&["--permute", "1"]));
    assert_eq!(plain.len(), 2 * 1465);
    assert!(plain.values().all(|a| a[1] == "unique"));
    assert_eq!(plain, permuted);
}

#[test]
fn summary_json_has_the_robust_figure_the_tail_share_and_preemptions() {
    let (_, v) = run_with_summary(&[&fixture("mixed.txt"), "-s", "fast"]);
    let r = &v["rows"][0];
    let median_ns = r["median_ns"].as_f64().unwrap();
    let robust = r["median_puzzles_per_s_per_core"].as_f64().unwrap();
    assert!((robust - 1e9 / median_ns).abs() < 1e-6 * robust, "{r}");
    let share = r["slowest_1pct_share"].as_f64().unwrap();
    // 4 puzzles searched: the slowest 1% is one of them, at least a quarter of the time.
    assert!((0.25..=1.0).contains(&share), "{r}");
    if cfg!(target_os = "linux") {
        assert!(r["preemptions"].is_u64(), "{r}");
    } else {
        assert!(r["preemptions"].is_null(), "{r}");
    }
}

/// Every strategy on the shipped 1000-puzzle corpus plus the mixed fixture (every status),
/// copied under a path as long as the shared corpora's, with a node budget small enough
/// that the slow strategies abort some: the summary table's stderr and the corpus path.
fn table_of_a_long_named_corpus(extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let name = "shared/datasets/puzzles3_magictour_top1465_and_more.txt";
    let path = dir.path().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let mut text = std::fs::read_to_string(format!("{root}/datasets/minimal.txt")).unwrap();
    text.push_str(&std::fs::read_to_string(fixture("mixed.txt")).unwrap());
    std::fs::write(&path, text).unwrap();
    let out = bench()
        .current_dir(dir.path())
        .args(["run", name, "--out", "/dev/null", "--max-nodes", "3000"])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    (String::from_utf8(out).unwrap(), name.to_string())
}

#[test]
fn the_default_summary_table_fits_100_columns() {
    let (stderr, name) = table_of_a_long_named_corpus(&[]);
    // The table: from its corpus line to the first warning about the figures.
    let start = stderr
        .find(&format!("{name}: 1,007 puzzles"))
        .expect(&stderr);
    let table: Vec<&str> = stderr[start..]
        .lines()
        .take_while(|l| !l.starts_with("warning:") && !l.starts_with("per-puzzle"))
        .collect();
    for line in &table {
        // Characters, not bytes: "µs" is three bytes in two characters.
        assert!(
            line.chars().count() <= 100,
            "{} wide: {line}",
            line.chars().count()
        );
    }
    assert_eq!(table[1], "not searched: 1 invalid, 2 malformed", "{stderr}");
    assert!(table[2].starts_with("strategy  statuses"), "{stderr}");
    // Every strategy has its row, the path is not repeated in them, and the statuses
    // that differ between strategies are all there.
    for s in ["naive", "hashset", "bitmask", "stack", "dlx", "fast"] {
        assert!(
            table.iter().any(|l| l.starts_with(&format!("{s} "))),
            "{stderr}"
        );
    }
    assert_eq!(table.iter().filter(|l| l.contains(&name)).count(), 1);
    let text = table.join(" ");
    for status in ["unique", "multiple", "unsolvable", "aborted"] {
        assert!(text.contains(status), "{stderr}");
    }
}

#[test]
fn wide_shows_every_column() {
    let (stderr, name) = table_of_a_long_named_corpus(&["-s", "bitmask,fast", "--wide"]);
    let heading = stderr
        .lines()
        .find(|l| l.starts_with("corpus "))
        .expect(&stderr);
    for column in [
        "strategy",
        "puzzles",
        "unique",
        "multiple",
        "unsolvable",
        "invalid",
        "malformed",
        "aborted",
        "puzzles/s/core",
        "wall puzzles/s",
        "median puzzles/s/core",
        "mean",
        "median",
        "p90",
        "p99",
        "max",
        "time in slowest 1%",
        "preempted",
        "mean nodes",
        "guesses/puzzle",
        "no guess",
    ] {
        assert!(heading.contains(column), "no {column}: {heading}");
    }
    let rows: Vec<&str> = stderr.lines().filter(|l| l.starts_with(&name)).collect();
    assert_eq!(rows.len(), 2, "the corpus in every row: {stderr}");
}

/// `run` of the mixed fixture with bitmask and fast, per-puzzle CSV to a file, plus
/// `extra`: stdout and the per-puzzle rows.
fn run_summary_to_stdout(extra: &[&str]) -> (String, Vec<Row>) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let out = bench()
        .args([
            "run",
            &fixture("mixed.txt"),
            "-s",
            "bitmask,fast",
            "-q",
            "--out",
        ])
        .arg(&csv)
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = rows(&std::fs::read(&csv).unwrap());
    (String::from_utf8(out).unwrap(), rows)
}

#[test]
fn summary_dash_writes_to_stdout_as_json_unless_told() {
    let (out, _) = run_summary_to_stdout(&["--summary", "-"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
    let (out, _) = run_summary_to_stdout(&["--summary", "-", "--summary-format", "md"]);
    assert!(out.contains("| corpus | strategy | puzzles |"), "{out}");
    assert!(!std::path::Path::new("-").exists(), "no file named -");
}

/// A corpus whose name holds `|`, HTML and backticks: the Markdown summary shows it as it
/// is, one cell, no tag.
#[test]
fn the_markdown_summary_escapes_a_corpus_name() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a|<b>&`c`.txt";
    std::fs::copy(fixture("mixed.txt"), dir.path().join(name)).unwrap();
    let out = bench()
        .current_dir(dir.path())
        .args(["run", name, "-s", "fast", "-q", "-o", "/dev/null"])
        .args(["--summary", "-", "--summary-format", "markdown"])
        .assert()
        .success();
    let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        md.contains("\n| a\\|&lt;b&gt;&amp;\\`c\\`.txt | fast | "),
        "{md}"
    );
    assert!(!md.contains("<b>") && !md.contains("`c`"), "{md}");
}

#[test]
fn the_summary_format_comes_from_the_flag_then_the_extension_then_json() {
    let dir = tempfile::tempdir().unwrap();
    let written = |name: &str, flag: Option<&str>| {
        let path = dir.path().join(name);
        let mut cmd = bench();
        cmd.args([
            "run",
            &fixture("kaggle.csv"),
            "-s",
            "fast",
            "-q",
            "--out",
            "/dev/null",
        ])
        .arg("--summary")
        .arg(&path);
        if let Some(format) = flag {
            cmd.args(["--summary-format", format]);
        }
        cmd.assert().success();
        std::fs::read_to_string(&path).unwrap()
    };
    let is_json = |t: &str| serde_json::from_str::<serde_json::Value>(t).is_ok();
    let is_md = |t: &str| t.contains("\n| corpus | strategy |");
    let is_csv = |t: &str| t.starts_with("corpus,strategy,puzzles,");
    assert!(is_json(&written("s.json", None)));
    assert!(is_md(&written("s.md", None)));
    assert!(is_csv(&written("s.csv", None)));
    assert!(is_json(&written("s.txt", None)));
    assert!(is_json(&written("s", None)));
    assert!(is_md(&written("t.json", Some("md"))));
    assert!(is_csv(&written("t.md", Some("csv"))));
    assert!(is_json(&written("t.csv", Some("json"))));
}

#[test]
fn the_csv_summary_counts_what_the_rows_say() {
    let (out, puzzles) = run_summary_to_stdout(&["--summary", "-", "--summary-format", "csv"]);
    let summary = rows(out.as_bytes());
    assert_eq!(summary.len(), 2, "{out}");
    for row in &summary {
        let mine: Vec<&Row> = puzzles
            .iter()
            .filter(|r| r["strategy"] == row["strategy"])
            .collect();
        assert_eq!(row["puzzles"], mine.len().to_string());
        for status in [
            "unique",
            "multiple",
            "unsolvable",
            "invalid",
            "malformed",
            "aborted",
        ] {
            let n = mine.iter().filter(|r| r["status"] == status).count();
            assert_eq!(row[status], n.to_string(), "{status}: {out}");
        }
        let searched = mine.iter().filter(|r| !r["time_ns"].is_empty()).count();
        assert_eq!(row["searched"], searched.to_string());
        let max: u64 = mine
            .iter()
            .filter_map(|r| r["time_ns"].parse().ok())
            .max()
            .unwrap();
        assert_eq!(row["max_ns"], max.to_string(), "the maximum is exact");
        assert_eq!(row["preemptions"].is_empty(), !cfg!(target_os = "linux"));
    }
}

#[test]
fn the_summary_and_the_rows_cannot_share_stdout() {
    bench()
        .args(["run", &fixture("mixed.txt"), "-s", "fast", "-q"])
        .args(["--out", "-", "--summary", "-"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--out - and --summary - are the same file",
        ));
}

/// A strategy that gave up on most puzzles early has the least summed time, yet the default
/// scatter pairs the two that finished the most.
#[test]
fn the_default_scatter_leaves_out_a_strategy_that_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, html) = (dir.path().join("r.csv"), dir.path().join("r.html"));
    bench()
        .args(["run", "-q", "-s", "naive,dlx,fast", "--max-nodes", "300"])
        .arg(format!(
            "{}/datasets/classic.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg("-o")
        .arg(&csv)
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let naive_aborted = rows(&std::fs::read(&csv).unwrap())
        .iter()
        .filter(|r| r["strategy"] == "naive" && r["status"] == "aborted")
        .count();
    assert!(naive_aborted > 10, "the fixture must make naive abort");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("dlx against fast"), "{page}");
    assert!(!page.contains("against naive") && !page.contains("naive against"));
}

#[test]
fn report_refuses_a_csv_output_it_cannot_read_back_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    bench()
        .args(["run", "-q", "-s", "fast", "-o", "/dev/null", "--report"])
        .arg(&html)
        .arg(format!(
            "{}/datasets/classic.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/dev/null is not a regular file"));
    assert!(!html.exists());
}

#[test]
fn a_run_that_reported_no_puzzle_writes_a_report_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("comments.txt");
    std::fs::write(&corpus, "# only\n# comments\n").unwrap();
    let html = dir.path().join("r.html");
    bench()
        .args(["run", "-s", "fast", "-o"])
        .arg(dir.path().join("r.csv"))
        .arg("--report")
        .arg(&html)
        .arg(&corpus)
        .assert()
        .success()
        .stderr(predicates::str::contains("strategy"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("holds no per-puzzle row"), "{page}");
}
