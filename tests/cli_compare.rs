//! End-to-end tests of `sudoku-bench compare` on synthetic per-puzzle CSVs with known
//! effects: the verdicts, the exit status, and how bad or partial input is reported.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

const PUZZLES: u64 = 200;
const STRATEGIES: [&str; 2] = ["alpha", "beta"];

/// One synthetic row: (line, strategy, nodes, time_ns).
type Row = (u64, &'static str, u64, u64);

/// A baseline: times spread over two orders of magnitude, as real corpora are.
fn baseline() -> Vec<Row> {
    let mut rows = Vec::new();
    for line in 1..=PUZZLES {
        for (s, name) in STRATEGIES.iter().enumerate() {
            let time = 10_000 * (1 + (line * 37 + s as u64 * 11) % 97);
            rows.push((line, *name, 100 + line * 3 + s as u64, time));
        }
    }
    rows
}

/// A deterministic uniform draw in [0, 1) (xorshift64*), so the noise test is repeatable.
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
}

/// Write rows as `sudoku-bench run` does, plus a `guesses` column it does not know yet
/// (readers must go by header name and ignore the rest).
fn write_csv(dir: &Path, name: &str, rows: &[Row]) -> PathBuf {
    let mut text = String::from(
        "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error\n",
    );
    for (line, strategy, nodes, time) in rows {
        text.push_str(&format!(
            "syn.txt,{line},{strategy},unique,1,{nodes},0,{time},25,,,\n"
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn compare(args: &[&std::ffi::OsStr]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("sudoku-bench")
        .unwrap()
        .arg("compare")
        .args(args)
        .assert()
}

fn pair(dir: &TempDir, current: &[Row], extra: &[&str]) -> assert_cmd::assert::Assert {
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let c = write_csv(dir.path(), "cur.csv", current);
    let mut args = vec![b.as_os_str(), c.as_os_str()];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    compare(&args)
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// strategy -> verdict, from the JSON output.
fn verdicts(a: &assert_cmd::assert::Assert) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(&stdout(a)).unwrap();
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["strategy"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn all(verdict: &str) -> Vec<(String, String)> {
    STRATEGIES
        .iter()
        .map(|s| (s.to_string(), verdict.to_string()))
        .collect()
}

#[test]
fn identical_runs_show_no_change() {
    let dir = TempDir::new().unwrap();
    let a = pair(&dir, &baseline(), &["--format", "json"]).code(0);
    assert_eq!(verdicts(&a), all("no_change"));
    let a = pair(&dir, &baseline(), &[]).code(0);
    assert!(stdout(&a).contains("no change"));
}

#[test]
fn one_and_a_half_times_slower_is_slower() {
    let dir = TempDir::new().unwrap();
    let slow: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 3 / 2))
        .collect();
    let a = pair(&dir, &slow, &["--format", "json", "--threshold", "10%"]).code(1);
    assert_eq!(verdicts(&a), all("slower"));
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert!((v["rows"][0]["time_ratio"].as_f64().unwrap() - 1.5).abs() < 1e-6);
    // And the other way round it is faster, which is no regression.
    let b = write_csv(dir.path(), "slow.csv", &slow);
    let base = write_csv(dir.path(), "b2.csv", &baseline());
    compare(&[b.as_os_str(), base.as_os_str()])
        .code(0)
        .stdout(predicate::str::contains("faster"));
}

#[test]
fn twenty_percent_noise_does_not_trip_a_ten_percent_threshold() {
    let dir = TempDir::new().unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let noisy: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| {
            let factor = 0.8 + 0.4 * uniform(&mut state);
            (l, s, n, (t as f64 * factor) as u64)
        })
        .collect();
    let a = pair(&dir, &noisy, &["--format", "json", "--threshold", "10%"]).code(0);
    assert_eq!(verdicts(&a), all("no_change"));
    // The noise is real: the interval is not a point.
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    let ci = v["rows"][0]["ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < ci[1].as_f64().unwrap());
}

#[test]
fn a_changed_node_count_is_a_search_change() {
    let dir = TempDir::new().unwrap();
    let changed: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, if l == 17 && s == "beta" { n + 1 } else { n }, t))
        .collect();
    let a = pair(&dir, &changed, &["--format", "json"]).code(1);
    assert_eq!(
        verdicts(&a),
        [
            ("alpha".to_string(), "no_change".to_string()),
            ("beta".to_string(), "search_changed".to_string())
        ]
    );
    pair(&dir, &changed, &["--allow-search-changes"]).code(0);
    pair(&dir, &changed, &["--format", "markdown"])
        .code(1)
        .stdout(predicate::str::contains("**search changed**"))
        .stdout(predicate::str::contains("| corpus | strategy |"));
}

#[test]
fn relative_to_cancels_a_uniform_machine_speed_factor() {
    let dir = TempDir::new().unwrap();
    let slower_machine: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 2))
        .collect();
    pair(&dir, &slower_machine, &[]).code(1);
    let a = pair(
        &dir,
        &slower_machine,
        &["--relative-to", "alpha", "--format", "json"],
    )
    .code(0);
    assert_eq!(verdicts(&a), all("no_change"));
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["rows"][1]["time_ratio"].as_f64(), Some(1.0));
    // A reference that is not there is bad input.
    pair(&dir, &slower_machine, &["--relative-to", "gamma"])
        .code(2)
        .stderr(predicate::str::contains("gamma"));
}

#[test]
fn missing_puzzles_and_strategies_are_reported() {
    let dir = TempDir::new().unwrap();
    let mut current: Vec<Row> = baseline()
        .into_iter()
        .filter(|(l, s, _, _)| !(*l == 5 && *s == "alpha") && *s != "beta")
        .collect();
    current.push((1, "gamma", 10, 1000));
    let a = pair(&dir, &current, &[]).code(0);
    let out = stdout(&a);
    assert!(
        out.contains("syn.txt / alpha: 1 puzzles only in the baseline run (lines 5)"),
        "{out}"
    );
    assert!(
        out.contains("syn.txt / beta: only in the baseline run"),
        "{out}"
    );
    assert!(
        out.contains("syn.txt / gamma: only in the current run"),
        "{out}"
    );
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "corpus,line,strategy,nodes,time_ns\nsyn.txt,1,alpha,5,10\nsyn.txt,2,alpha,five,10\n",
    )
    .unwrap();
    compare(&[b.as_os_str(), bad.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains(format!("{}:3:", bad.display())));
    let no_header = dir.path().join("summary.txt");
    std::fs::write(&no_header, "hello\n").unwrap();
    compare(&[no_header.as_os_str(), b.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:1:",
            no_header.display()
        )));
    let missing = dir.path().join("missing.csv");
    compare(&[b.as_os_str(), missing.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains("missing.csv"));
}

#[test]
fn a_summary_json_is_compared_with_less_power() {
    let dir = TempDir::new().unwrap();
    let json = dir.path().join("run.json");
    Command::cargo_bin("sudoku-bench")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--quiet", "--out", "-", "-s", "bitmask", "--summary"])
        .arg(&json)
        .assert()
        .success();
    compare(&[json.as_os_str(), json.as_os_str()])
        .code(0)
        .stdout(predicate::str::contains("Summary JSON input"))
        .stdout(predicate::str::contains("no confidence interval"));
    compare(&[
        json.as_os_str(),
        json.as_os_str(),
        std::ffi::OsStr::new("--relative-to"),
        std::ffi::OsStr::new("bitmask"),
    ])
    .code(2);
}
