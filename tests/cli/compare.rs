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
    write_corpus_csv(dir, name, "syn.txt", 0, rows)
}

/// The same, naming the corpus `corpus`; line `l` holds puzzle number `l + shift`, so two
/// shifts make two different corpora.
fn write_corpus_csv(dir: &Path, name: &str, corpus: &str, shift: u64, rows: &[Row]) -> PathBuf {
    let mut text = String::from(
        "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error\n",
    );
    for (line, strategy, nodes, time) in rows {
        let puzzle = format!("{:.>81}", line + shift);
        // The readers check `clues` against the puzzle (`0` is a blank).
        let clues = puzzle.chars().filter(|c| ('1'..='9').contains(c)).count();
        text.push_str(&format!(
            "{corpus},{line},{strategy},unique,1,{nodes},0,{time},{clues},{puzzle},,\n"
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

/// Several runs per side: `--baseline` the baseline written `runs` times, each run's times
/// scaled by its own factor from `shifts` (a whole run on a faster or slower machine), and
/// `--current` the `current` rows the same way.
fn sides(
    dir: &TempDir,
    current: &[Row],
    shifts: (&[f64], &[f64]),
    extra: &[&str],
) -> assert_cmd::assert::Assert {
    let write = |prefix: &str, rows: &[Row], shifts: &[f64]| -> Vec<PathBuf> {
        shifts
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let scaled: Vec<Row> = rows
                    .iter()
                    .map(|&(l, s, n, t)| (l, s, n, (t as f64 * f) as u64))
                    .collect();
                write_csv(dir.path(), &format!("{prefix}{i}.csv"), &scaled)
            })
            .collect()
    };
    let b = write("base", &baseline(), shifts.0);
    let c = write("cur", current, shifts.1);
    let mut cmd = Command::cargo_bin("sudoku-bench").unwrap();
    cmd.arg("compare")
        .arg("--baseline")
        .args(&b)
        .arg("--current")
        .args(&c);
    cmd.args(extra).assert()
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
    let same: (&[f64], &[f64]) = (&[1.0, 1.02], &[1.01, 0.99]);
    let a = sides(&dir, &baseline(), same, &["--format", "json"]).code(0);
    assert_eq!(verdicts(&a), all("no_change"));
    let a = sides(&dir, &baseline(), same, &[]).code(0);
    assert!(stdout(&a).contains("no change"));
    assert!(stdout(&a).contains("2 baseline run(s), 2 current run(s)"));
}

/// One run per side cannot tell a slower build from a slower machine: even a 1.5x ratio is
/// shown but not judged, exit 0, and the output says how to get a verdict.
#[test]
fn one_run_per_side_is_inconclusive() {
    let dir = TempDir::new().unwrap();
    let slow: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 3 / 2))
        .collect();
    let a = pair(&dir, &slow, &["--format", "json"]).code(0);
    assert_eq!(verdicts(&a), all("inconclusive"));
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert!((v["rows"][0]["time_ratio"].as_f64().unwrap() - 1.5).abs() < 1e-6);
    assert_eq!(v["rows"][0]["ci"], serde_json::Value::Null);
    assert_eq!(
        (v["baseline_runs"].as_u64(), v["current_runs"].as_u64()),
        (Some(1), Some(1))
    );
    let out = stdout(&pair(&dir, &slow, &[]).code(0));
    assert!(
        out.contains("1.500x (+50.0%)") && out.contains("inconclusive"),
        "{out}"
    );
    for how in [
        "--between OLD,NEW",
        "scripts/ab.sh",
        "--baseline B1 B2",
        "--relative-to",
    ] {
        assert!(out.contains(how), "{how}: {out}");
    }
    let md = stdout(&pair(&dir, &slow, &["--format", "markdown"]).code(0));
    assert!(md.contains("--between OLD,NEW"), "{md}");
}

#[test]
fn one_and_a_half_times_slower_is_slower() {
    let dir = TempDir::new().unwrap();
    let slow: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 3 / 2))
        .collect();
    let shifts: (&[f64], &[f64]) = (&[1.0, 1.03, 0.98], &[1.02, 0.97, 1.0]);
    let a = sides(
        &dir,
        &slow,
        shifts,
        &["--format", "json", "--threshold", "10%"],
    )
    .code(1);
    assert_eq!(verdicts(&a), all("slower"));
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    let ratio = v["rows"][0]["time_ratio"].as_f64().unwrap();
    assert!((ratio - 1.5).abs() < 0.02, "{ratio}");
    assert_eq!(
        (v["baseline_runs"].as_u64(), v["current_runs"].as_u64()),
        (Some(3), Some(3))
    );
    // The whole table and Markdown outputs (the figures of the seeded bootstrap, the
    // verdicts, the footnote that says how they were reached), as their reviewed snapshots
    // in tests/cli/snapshots.
    let table = sides(&dir, &slow, shifts, &[]).code(1);
    insta::assert_snapshot!("compare_table", stdout(&table));
    let markdown = sides(&dir, &slow, shifts, &["--format", "markdown"]).code(1);
    insta::assert_snapshot!("compare_markdown", stdout(&markdown));
    // And the other way round it is faster, which is no regression.
    let faster: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 2 / 3))
        .collect();
    sides(&dir, &faster, shifts, &[])
        .code(0)
        .stdout(predicate::str::contains("faster"));
}

/// Runs that move as a whole by up to 8% (a busy neighbour) do not make a 5% verdict when
/// nothing changed, though every puzzle of a pair of runs moved alike.
#[test]
fn whole_runs_moving_is_not_a_verdict() {
    let dir = TempDir::new().unwrap();
    let shifts: (&[f64], &[f64]) = (&[1.0, 0.96], &[1.08, 1.01]);
    let a = sides(&dir, &baseline(), shifts, &["--format", "json"]).code(0);
    assert_eq!(verdicts(&a), all("no_change"));
}

#[test]
fn mixing_positional_runs_with_baseline_and_current_is_refused() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    compare(&[
        b.as_os_str(),
        os("--baseline"),
        b.as_os_str(),
        os("--current"),
        b.as_os_str(),
    ])
    .code(2)
    .stderr(predicate::str::contains("not both"));
    compare(&[os("--baseline"), b.as_os_str(), b.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains("--current"));
    compare(&[b.as_os_str()]).code(2);
    compare(&[
        b.as_os_str(),
        b.as_os_str(),
        os("--between"),
        os("alpha,beta"),
    ])
    .code(2)
    .stderr(predicate::str::contains("ONE run"));
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
    let shifts: (&[f64], &[f64]) = (&[1.0, 1.0], &[1.0, 1.0]);
    let a = sides(
        &dir,
        &noisy,
        shifts,
        &["--format", "json", "--threshold", "10%"],
    )
    .code(0);
    // The interval may miss 1 by chance, never the threshold.
    let within = [
        "no_change",
        "slower_not_past_threshold",
        "faster_not_past_threshold",
    ];
    for (strategy, verdict) in verdicts(&a) {
        assert!(within.contains(&verdict.as_str()), "{strategy}: {verdict}");
    }
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
            ("alpha".to_string(), "inconclusive".to_string()),
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
    pair(&dir, &slower_machine, &[])
        .code(0)
        .stdout(predicate::str::contains("inconclusive"));
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
    // Less than all of either side is paired: that is not a comparison a gate may pass.
    let a = pair(&dir, &current, &[])
        .code(2)
        .stderr(predicate::str::contains("not paired"))
        .stderr(predicate::str::contains("--min-paired"));
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
    // The bar can be lowered explicitly, and only so far.
    pair(&dir, &current, &["--min-paired", "0"]).code(0);
    pair(&dir, &current, &["--min-paired", "45%"]).code(0);
    pair(&dir, &current, &["--min-paired", "60%"]).code(2);
}

/// Paired rows from one (baseline, current) pair of synthetic CSVs: (corpus, strategy, paired).
fn paired_rows(a: &assert_cmd::assert::Assert) -> Vec<(String, String, u64)> {
    let v: serde_json::Value = serde_json::from_str(&stdout(a)).unwrap();
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["corpus"].as_str().unwrap().to_string(),
                r["strategy"].as_str().unwrap().to_string(),
                r["paired"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn one_corpus_named_two_ways_is_paired() {
    let dir = TempDir::new().unwrap();
    let b = write_corpus_csv(dir.path(), "base.csv", "syn.txt", 0, &baseline());
    for (i, name) in ["./syn.txt", "sub/../renamed.txt", "-"].iter().enumerate() {
        let c = write_corpus_csv(dir.path(), &format!("cur{i}.csv"), name, 0, &baseline());
        let a = compare(&[
            b.as_os_str(),
            c.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ])
        .code(0);
        let rows = paired_rows(&a);
        assert_eq!(rows.len(), STRATEGIES.len(), "{name}");
        assert!(rows.iter().all(|r| r.2 == PUZZLES), "{name}: {rows:?}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
        assert_eq!(v["unpaired"], serde_json::json!([]), "{name}");
    }
}

#[test]
fn two_corpora_under_one_name_are_not_paired() {
    let dir = TempDir::new().unwrap();
    let b = write_corpus_csv(dir.path(), "base.csv", "-", 0, &baseline());
    let c = write_corpus_csv(dir.path(), "cur.csv", "-", 1000, &baseline());
    compare(&[b.as_os_str(), c.as_os_str()])
        .code(2)
        .stdout(predicate::str::contains("hold a different puzzle"))
        // No row (a verdict ends its line) about nothing.
        .stdout(predicate::str::contains("no change\n").not())
        .stderr(predicate::str::contains("not paired"));
    // Changed in one line only: that line is named, the others compare.
    let mut text = std::fs::read_to_string(&b).unwrap();
    // Another puzzle of as many givens: `clues` stays true to it.
    text = text.replace(&format!("{:.>81}", 17), &format!("{:.>81}", 71));
    let c = dir.path().join("one.csv");
    std::fs::write(&c, text).unwrap();
    let a = compare(&[
        b.as_os_str(),
        c.as_os_str(),
        "--min-paired".as_ref(),
        "99%".as_ref(),
    ])
    .code(0);
    assert!(
        stdout(&a).contains("- / alpha: 1 lines hold a different puzzle in each run (lines 17)"),
        "{}",
        stdout(&a)
    );
}

/// Real runs: the same corpus named two ways pairs; two corpora both read from `-` do not.
#[test]
fn real_runs_pair_by_what_was_solved() {
    let dir = TempDir::new().unwrap();
    let run = |corpus: &str, stdin: Option<&str>, out: &str| -> PathBuf {
        let path = dir.path().join(out);
        let mut cmd = Command::cargo_bin("sudoku-bench").unwrap();
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["run", "-q", "-s", "fast", corpus, "--out"])
            .arg(&path);
        if let Some(file) = stdin {
            cmd.pipe_stdin(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
                .unwrap();
        }
        cmd.assert().success();
        path
    };
    let a = run("datasets/classic.txt", None, "a.csv");
    let b = run("./datasets/classic.txt", None, "b.csv");
    let huge = std::ffi::OsStr::new("--threshold=100000%");
    compare(&[a.as_os_str(), b.as_os_str(), huge]).code(0);
    let s1 = run("-", Some("datasets/classic.txt"), "s1.csv");
    let s2 = run("-", Some("datasets/minimal.txt"), "s2.csv");
    compare(&[s1.as_os_str(), s2.as_os_str(), huge])
        .code(2)
        .stderr(predicate::str::contains("not paired"));
    compare(&[s1.as_os_str(), a.as_os_str(), huge]).code(0);
}

#[test]
fn a_write_error_is_reported_not_a_panic() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
            .arg("compare")
            .args([&b, &b])
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("No space left"), "{stderr}");
    } else {
        eprintln!("skipped: /dev/full not found");
    }
    // A reader that went away wants nothing more: that is success.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .arg("compare")
        .args([&b, &b])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "corpus,line,strategy,nodes,time_ns,puzzle\nsyn.txt,1,alpha,5,10,1.\nsyn.txt,2,alpha,five,10,2.\n",
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

/// The summary JSON of a `bitmask` run over the built-in corpus, written in `dir`.
fn bitmask_summary(dir: &TempDir) -> PathBuf {
    let json = dir.path().join("run.json");
    Command::cargo_bin("sudoku-bench")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--quiet", "--out", "-", "-s", "bitmask", "--summary"])
        .arg(&json)
        .assert()
        .success();
    json
}

#[test]
fn a_summary_json_is_compared_with_less_power() {
    let dir = TempDir::new().unwrap();
    let json = bitmask_summary(&dir);
    compare(&[json.as_os_str(), json.as_os_str()])
        .code(0)
        .stdout(predicate::str::contains("Summary JSON input"))
        .stdout(predicate::str::contains("median solve time only"))
        .stdout(predicate::str::contains("inconclusive"));
    // Several per side: an interval over the runs' medians.
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let out = compare(&[
        os("--baseline"),
        json.as_os_str(),
        json.as_os_str(),
        os("--current"),
        json.as_os_str(),
        json.as_os_str(),
        os("--format=json"),
    ])
    .code(0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["mode"], "summary");
    assert_eq!(v["rows"][0]["verdict"], "no_change");
    assert_eq!(v["rows"][0]["ci"], serde_json::json!([1.0, 1.0]));
    compare(&[
        json.as_os_str(),
        json.as_os_str(),
        std::ffi::OsStr::new("--relative-to"),
        std::ffi::OsStr::new("bitmask"),
    ])
    .code(2);
}

#[test]
fn summary_json_names_are_normalised_and_unpaired_fails() {
    let dir = TempDir::new().unwrap();
    let summary = |corpus: &str, name: &str| -> PathBuf {
        let json = dir.path().join(name);
        Command::cargo_bin("sudoku-bench")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["run", "-q", "--out", "-", "-s", "fast", corpus, "--summary"])
            .arg(&json)
            .assert()
            .success();
        json
    };
    let a = summary("datasets/classic.txt", "a.json");
    let b = summary("./datasets/classic.txt", "b.json");
    let c = summary("datasets/minimal.txt", "c.json");
    let huge = std::ffi::OsStr::new("--threshold=100000%");
    let json = std::ffi::OsStr::new("--format=json");
    let out = compare(&[a.as_os_str(), b.as_os_str(), huge, json]).code(0);
    assert_eq!(paired_rows(&out).len(), 1);
    compare(&[a.as_os_str(), c.as_os_str(), huge])
        .code(2)
        .stderr(predicate::str::contains("not paired"));
    compare(&[
        a.as_os_str(),
        c.as_os_str(),
        huge,
        "--min-paired=0".as_ref(),
    ])
    .code(0);
}

/// One run holding `old` and `new`: `new`'s time on each puzzle is `old`'s times `factor`
/// times a per-puzzle noise in [0.9, 1.1); `new_nodes` changes its node count on a line.
fn in_run(dir: &TempDir, factor: f64, new_nodes: Option<u64>) -> PathBuf {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut rows = Vec::new();
    for (line, _, nodes, time) in baseline().into_iter().filter(|r| r.1 == "alpha") {
        rows.push((line, "old", nodes, time));
        let noise = 0.9 + 0.2 * uniform(&mut state);
        let nodes = nodes + u64::from(new_nodes == Some(line));
        rows.push((line, "new", nodes, (time as f64 * factor * noise) as u64));
    }
    write_csv(dir.path(), "run.csv", &rows)
}

fn between(run: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("sudoku-bench")
        .unwrap()
        .arg("compare")
        .arg(run)
        .args(extra)
        .assert()
}

#[test]
fn between_judges_two_strategies_of_one_run() {
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.0, None);
    let a = between(&run, &["--between", "old,new", "--format", "json"]).code(0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["mode"], "in_run");
    let row = &v["rows"][0];
    assert_eq!(
        (row["baseline_strategy"].as_str(), row["strategy"].as_str()),
        (Some("old"), Some("new"))
    );
    assert_eq!(row["paired"].as_u64(), Some(PUZZLES));
    assert_eq!(row["verdict"], "no_change");
    let run = in_run(&dir, 1.10, None);
    let a = between(&run, &["--between", "old,new", "--format", "json"]).code(1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["verdict"], "slower");
    let (lo, hi) = (
        row["ci"][0].as_f64().unwrap(),
        row["ci"][1].as_f64().unwrap(),
    );
    assert!(lo < 1.10 && 1.10 < hi, "{lo} .. {hi}");
    // The throughput figure: summed times, new over old, as the CSV has them.
    let text = std::fs::read_to_string(&run).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (strategy, time) = (at("strategy"), at("time_ns"));
    let sum = |who: &str| -> f64 {
        let cells = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>());
        cells
            .filter(|c| c[strategy] == who)
            .map(|c| c[time].parse::<f64>().unwrap())
            .sum()
    };
    let throughput = row["throughput_ratio"].as_f64().unwrap();
    assert!(
        (throughput - sum("new") / sum("old")).abs() < 1e-9,
        "{throughput}"
    );
    let (lo, hi) = (
        row["throughput_ci"][0].as_f64().unwrap(),
        row["throughput_ci"][1].as_f64().unwrap(),
    );
    assert!(
        lo < throughput && throughput < hi && lo > 1.05,
        "{lo} .. {hi}"
    );
    // Both pairs at once, and every output says it is in-run.
    let out = stdout(&between(&run, &["--between", "old,new", "--between", "new,old"]).code(1));
    assert!(
        out.contains("old -> new") && out.contains("new -> old"),
        "{out}"
    );
    assert!(
        out.contains("faster") && out.contains("In-run comparison"),
        "{out}"
    );
    let md = stdout(&between(&run, &["--between", "old,new", "--format", "markdown"]).code(1));
    assert!(md.contains("(in-run)") && md.contains("**slower**"), "{md}");
}

#[test]
fn between_checks_the_search_and_the_names() {
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.0, Some(17));
    let a = between(&run, &["--between", "old,new", "--format", "json"]).code(1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["rows"][0]["search_changed"].as_u64(), Some(1));
    assert_eq!(v["rows"][0]["verdict"], "search_changed");
    between(&run, &["--between", "old,new", "--allow-search-changes"]).code(0);
    between(&run, &["--between", "old,nwe"])
        .code(2)
        .stderr(predicate::str::contains(
            "no strategy nwe in the run; it has new, old",
        ));
    between(&run, &["--between", "old"])
        .code(2)
        .stderr(predicate::str::contains("OLD,NEW"));
    between(&run, &["--between", "old,old"]).code(2);
    between(&run, &["--between", "old,new", "--relative-to", "old"]).code(2);
    // A search change does not hide a slowdown, allowed or not.
    let slower = in_run(&dir, 1.5, Some(17));
    let a = between(
        &slower,
        &[
            "--between",
            "old,new",
            "--allow-search-changes",
            "--format",
            "json",
        ],
    )
    .code(1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "slower");
    assert_eq!(v["rows"][0]["search_changed"].as_u64(), Some(1));
    // A pair named twice is judged once.
    let a = between(&run, &["--between", "old,new", "--between", "old,new"]);
    assert_eq!(stdout(&a.code(1)).matches("old -> new").count(), 1);
}

#[test]
fn a_higher_confidence_level_widens_the_interval_and_says_so() {
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.02, None);
    let ci = |extra: &[&str]| {
        let mut args = vec!["--between", "old,new", "--format", "json"];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(&between(&run, &args))).unwrap();
        let row = &v["rows"][0];
        (
            row["ci"][0].as_f64().unwrap(),
            row["ci"][1].as_f64().unwrap(),
            v["confidence"].as_f64().unwrap(),
        )
    };
    let (lo95, hi95, level) = ci(&[]);
    assert_eq!(level, 0.95);
    let (lo, hi, level) = ci(&["--confidence", "99.5%"]);
    assert_eq!(level, 0.995);
    // Both ends of the range, written either way.
    for (level, written) in [(0.999, "99.9%"), (0.999, "0.999"), (0.5, "50%")] {
        assert_eq!(ci(&["--confidence", written]).2, level, "{written}");
    }
    assert!(
        lo < lo95 && hi > hi95,
        "{lo} .. {hi} within {lo95} .. {hi95}"
    );
    let table = stdout(&between(
        &run,
        &["--between", "old,new", "--confidence", "0.995"],
    ));
    assert!(
        table.contains("99.5% CI") && table.contains("a 99.5% interval"),
        "{table}"
    );
    for bad in ["40%", "100%", "1", "high"] {
        between(&run, &["--between", "old,new", "--confidence", bad])
            .code(2)
            .stderr(predicate::str::contains(
                "confidence level from 50% to 99.9%",
            ));
    }
}

#[test]
fn a_bare_threshold_of_one_or_more_is_refused() {
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.0, None);
    between(&run, &["--between", "old,new", "--threshold", "5"])
        .code(2)
        .stderr(predicate::str::contains("write 5% or 0.05"));
    between(&run, &["--between", "old,new", "--threshold", "0.05"]).code(0);
    between(&run, &["--between", "old,new", "--threshold", "150%"]).code(0);
    for endless in ["inf", "1e309", "NaN"] {
        between(&run, &["--between", "old,new", "--threshold", endless])
            .code(2)
            .stderr(predicate::str::contains(
                "the threshold must be a finite number, 0 or more",
            ));
    }
}

/// Guesses count as search where both strategies count them; an empty cell is "not
/// counted", so a solver that counts none does not change the search by that alone.
#[test]
fn between_compares_guesses_where_both_count_them() {
    let dir = TempDir::new().unwrap();
    let head = "corpus,line,strategy,status,nodes,guesses,time_ns,puzzle\n";
    let write = |name: &str, b_guesses: &str| {
        let path = dir.path().join(name);
        let text = format!("{head}c,1,a,unique,,3,100,1.\nc,1,b,unique,,{b_guesses},100,1.\n");
        std::fs::write(&path, text).unwrap();
        path
    };
    between(&write("same.csv", "3"), &["--between", "a,b"]).code(0);
    between(&write("none.csv", ""), &["--between", "a,b"]).code(0);
    between(&write("other.csv", "4"), &["--between", "a,b"])
        .code(1)
        .stdout(predicate::str::contains("search changed"));
}

/// scripts/ab.sh: two interleaved rounds of one binary against itself, compared with
/// several runs per side: nothing changed, so exit 0 and the comparison printed.
#[test]
fn ab_script_runs_interleaved_rounds_and_compares_them() {
    let dir = TempDir::new().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("sudoku-bench");
    let out = dir.path().join("ab");
    let a = Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("scripts/ab.sh")
        .args(["--rounds", "2", "--out"])
        .arg(&out)
        // The rounds are timed on a machine the other tests share: no threshold could hold.
        .args(["--compare", "--threshold 100000% --format json"])
        .args([&bin, &bin])
        .args([
            "--",
            "datasets/classic.txt",
            "-s",
            "fast,dlx",
            "-q",
            "-j",
            "1",
        ])
        .assert()
        .code(0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(
        (v["baseline_runs"].as_u64(), v["current_runs"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
    // Real times: an interval may miss 1 by a little, never the threshold.
    let within = [
        "no_change",
        "slower_not_past_threshold",
        "faster_not_past_threshold",
    ];
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| within.iter().any(|w| r["verdict"] == *w)),
        "{v}"
    );
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    let order: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("ab.sh: round "))
        .collect();
    assert_eq!(order, ["1: old", "1: new", "2: new", "2: old"], "{stderr}");
    for f in ["old-1.csv", "old-2.csv", "new-1.csv", "new-2.csv"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scripts/ab.sh", "--rounds", "x"])
        .args([&bin, &bin])
        .args(["--", "datasets/classic.txt"])
        .assert()
        .code(2);
}

/// `--format html`: one page with every verdict row and, per compared pair, a histogram
/// and a scatter; the exit status is the one every format gives.
#[test]
fn html_shows_the_verdicts_and_a_chart_per_pair_and_exits_alike() {
    let dir = TempDir::new().unwrap();
    let slow: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, s, n, t * 3 / 2))
        .collect();
    let page = stdout(&pair(&dir, &slow, &["--format", "html"]).code(0));
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    for strategy in STRATEGIES {
        let row = format!("<td>syn.txt</td><td>{strategy}</td><td class=\"r\">200</td>");
        assert!(page.contains(&row), "{row} in {page}");
        assert!(page.contains(&format!("syn.txt / {strategy}: inconclusive")));
    }
    assert!(page.contains("1.500x (+50.0%)"), "{page}");
    assert!(page.contains("Threshold 5.0%"), "{page}");
    assert!(page.contains("Mode: per-puzzle pairs, one run per side"));
    assert!(page.contains("Exit status 0") && page.contains("--between OLD,NEW"));
    assert_eq!(page.matches("<svg").count(), 2 * STRATEGIES.len());
    assert!(
        page.contains("200 puzzles timed on both sides: 200 slower"),
        "{page}"
    );
    // Several runs per side, slower: exit 1, and the page says so.
    let shifts: (&[f64], &[f64]) = (&[1.0, 1.03, 0.98], &[1.02, 0.97, 1.0]);
    let a = sides(
        &dir,
        &slow,
        shifts,
        &["--format", "html", "--threshold", "10%"],
    )
    .code(1);
    let page = stdout(&a);
    assert!(page.contains("Mode: several runs per side (3 baseline runs, 3 current runs)"));
    assert!(
        page.contains("Exit status 1: regression: 2 of 2 rows slower"),
        "{page}"
    );
    assert!(page.contains("Threshold 10.0%"), "{page}");
    assert!(page.contains("geometric mean over"), "{page}");
    // Too little paired: the page is written, then exit 2 as with every format.
    let fewer: Vec<Row> = baseline().into_iter().filter(|r| r.1 == "alpha").collect();
    let page = stdout(&pair(&dir, &fewer, &["--format", "html"]).code(2));
    assert!(page.contains("Exit status 2"), "{page}");
    assert!(
        page.contains("syn.txt / beta: only in the baseline run"),
        "{page}"
    );
}

#[test]
fn html_of_an_in_run_comparison() {
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.10, None);
    let page = stdout(&between(&run, &["--between", "old,new", "--format", "html"]).code(1));
    assert!(page.contains("<td>old -&gt; new</td>"), "{page}");
    assert!(page.contains("Mode: in-run (--between)"), "{page}");
    assert!(page.contains("syn.txt / old -&gt; new: slower"), "{page}");
    assert_eq!(page.matches("<svg").count(), 2);
    let page = stdout(&between(&run, &["--between", "new,old", "--format", "html"]).code(0));
    assert!(page.contains("Exit status 0: no regression."), "{page}");
}

#[test]
fn html_of_summary_jsons_says_there_is_no_per_puzzle_data() {
    let dir = TempDir::new().unwrap();
    let json = bitmask_summary(&dir);
    let os = std::ffi::OsStr::new;
    let page = stdout(&compare(&[json.as_os_str(), json.as_os_str(), os("--format=html")]).code(0));
    assert!(page.contains("No per-puzzle data"), "{page}");
    assert!(page.contains("<td>bitmask</td>"), "{page}");
    assert!(page.contains("Mode: summary JSONs"), "{page}");
    assert!(!page.contains("<svg"), "{page}");
}

/// `-o PATH` writes any format to the file instead of stdout, checked like every output:
/// never over an input.
#[test]
fn out_writes_the_comparison_to_a_file_but_never_over_an_input() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let html = dir.path().join("cmp.html");
    let os = std::ffi::OsStr::new;
    let a = compare(&[
        b.as_os_str(),
        b.as_os_str(),
        os("--format"),
        os("html"),
        os("-o"),
        html.as_os_str(),
    ])
    .code(0);
    assert!(stdout(&a).is_empty());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("<svg"),
        "{page}"
    );
    let json = dir.path().join("cmp.json");
    compare(&[
        b.as_os_str(),
        b.as_os_str(),
        os("--format=json"),
        os("--out"),
        json.as_os_str(),
    ])
    .code(0);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "inconclusive");
    assert!(v["rows"][0].get("puzzle_times").is_none(), "{v}");
    let before = std::fs::read(&b).unwrap();
    compare(&[b.as_os_str(), b.as_os_str(), os("-o"), b.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains("refusing to overwrite an input"));
    assert_eq!(std::fs::read(&b).unwrap(), before);
}

#[test]
fn the_same_file_on_both_sides_is_said() {
    let dir = TempDir::new().unwrap();
    let b = write_csv(dir.path(), "base.csv", &baseline());
    let c = write_csv(dir.path(), "cur.csv", &baseline());
    // The same file twice, once through another path: said.
    let again = dir.path().join(".").join("base.csv");
    compare(&[b.as_os_str(), again.as_os_str()])
        .stderr(predicate::str::contains("they are one file"));
    // Two files with the same rows: not the same file, nothing said.
    compare(&[b.as_os_str(), c.as_os_str()]).stderr(predicate::str::contains("one file").not());
}

/// A change the interval shows (wholly above or below 1) but not past the threshold is
/// said as what it is, in every format, and fails nothing; "no change" is kept for an
/// interval that holds 1.
#[test]
fn a_change_short_of_the_threshold_is_named_not_called_no_change() {
    let dir = TempDir::new().unwrap();
    for (factor, json, words) in [
        (
            1.03,
            "slower_not_past_threshold",
            "slower, not past threshold",
        ),
        (
            1.0 / 1.03,
            "faster_not_past_threshold",
            "faster, not past threshold",
        ),
    ] {
        let run = in_run(&dir, factor, None);
        let args = ["--between", "old,new", "--threshold", "5%"];
        let a = between(&run, &[&args[..], &["--format", "json"]].concat()).code(0);
        let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
        let row = &v["rows"][0];
        assert_eq!(row["verdict"], json, "{v}");
        let (lo, hi) = (
            row["ci"][0].as_f64().unwrap(),
            row["ci"][1].as_f64().unwrap(),
        );
        assert!(
            (lo > 1.0 && hi < 1.05) || (hi < 1.0 && lo > 1.0 / 1.05),
            "{lo} .. {hi}"
        );
        let table = stdout(&between(&run, &args).code(0));
        let line = table.lines().nth(1).unwrap();
        assert!(line.ends_with(&format!("  {words}")), "{table}");
        let md = stdout(&between(&run, &[&args[..], &["--format", "markdown"]].concat()).code(0));
        assert!(md.contains(&format!(" | {words} |")), "{md}");
        assert!(md.contains("No regression."), "{md}");
        let page = stdout(&between(&run, &[&args[..], &["--format", "html"]].concat()).code(0));
        assert!(page.contains(&format!("old -&gt; new: {words}")), "{page}");
    }
    let run = in_run(&dir, 1.0, None);
    let table = stdout(&between(&run, &["--between", "old,new"]).code(0));
    assert!(
        table.lines().nth(1).unwrap().ends_with("  no change"),
        "{table}"
    );
}

/// The "search changed" column says when nothing changed, in every format that has it,
/// rather than a blank that reads like "not checked".
#[test]
fn the_search_changed_column_says_none_when_nothing_changed() {
    // The table's first row's cell under "search changed" (right-aligned under it).
    fn cell(table: &str) -> String {
        let (head, row) = (table.lines().next().unwrap(), table.lines().nth(1).unwrap());
        let end = head.find("search changed").unwrap() + "search changed".len();
        let cell = row[..end].trim_end().rsplit("  ").next().unwrap();
        cell.trim().to_string()
    }
    let dir = TempDir::new().unwrap();
    let run = in_run(&dir, 1.0, None);
    let out = |format: &str| -> String {
        stdout(&between(&run, &["--between", "old,new", "--format", format]).code(0))
    };
    assert_eq!(cell(&out("table")), "none", "{}", out("table"));
    assert!(
        out("markdown").contains(" | none | "),
        "{}",
        out("markdown")
    );
    assert!(out("html").contains(">none</td>"), "{}", out("html"));
    // A changed search still gives its count.
    let changed = in_run(&dir, 1.0, Some(17));
    let table = stdout(&between(&changed, &["--between", "old,new"]).code(1));
    assert_eq!(cell(&table), "1", "{table}");
    // Summary JSONs say it too: they hold totals, so no count.
    let json = bitmask_summary(&dir);
    let table = stdout(&compare(&[json.as_os_str(), json.as_os_str()]).code(0));
    assert_eq!(cell(&table), "none", "{table}");
}

/// Corpus and strategy names are the user's: in Markdown, none may split a cell or become
/// HTML, in the table, the unpaired list or the note naming --relative-to.
#[test]
fn markdown_escapes_names_everywhere() {
    let dir = TempDir::new().unwrap();
    let weird = "x|<i>&`y`";
    let rows: Vec<Row> = baseline()
        .into_iter()
        .map(|(l, s, n, t)| (l, if s == "beta" { weird } else { s }, n, t))
        .collect();
    let corpus = "a|<b>&`c`.txt";
    let b = write_corpus_csv(dir.path(), "base.csv", corpus, 0, &rows);
    let fewer: Vec<Row> = rows.iter().copied().filter(|r| r.0 != 5).collect();
    let c = write_corpus_csv(dir.path(), "cur.csv", corpus, 0, &fewer);
    let os = std::ffi::OsStr::new;
    let a = compare(&[
        b.as_os_str(),
        c.as_os_str(),
        os("--format=markdown"),
        os("--relative-to"),
        os(weird),
        os("--min-paired=0"),
    ])
    .code(0);
    let md = stdout(&a);
    let (corpus, weird) = ("a\\|&lt;b&gt;&amp;\\`c\\`.txt", "x\\|&lt;i&gt;&amp;\\`y\\`");
    assert!(
        md.contains(&format!("\n| {corpus} | alpha | 199 |")),
        "{md}"
    );
    assert!(
        md.contains(&format!("\n| {corpus} | {weird} | 199 |")),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "- {corpus} / {weird}: 1 puzzles only in the baseline run"
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!("Times are relative to {weird} on")),
        "{md}"
    );
    for raw in ["<b>", "<i>", "`c`", "`y`", "b>&"] {
        assert!(!md.contains(raw), "{raw} in {md}");
    }
}

/// Without top1465, the perf gate times `datasets/minimal.txt` (1,000 puzzles), not
/// classic.txt's 14, whose verdicts swung by 15% on an unchanged tree.
#[test]
fn the_perf_gate_falls_back_to_the_minimal_corpus() {
    let corpora = |top1465: &Path| -> String {
        let a = Command::new("bash")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["scripts/perf-gate.sh", "--corpora"])
            .env("PERF_GATE_TOP1465", top1465)
            .assert()
            .code(0);
        stdout(&a)
    };
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("missing");
    let out = corpora(&missing);
    assert!(
        out.starts_with(&format!(
            "time: datasets/minimal.txt ({} not found)\n",
            missing.display()
        )),
        "{out}"
    );
    let there = dir.path().join("top1465");
    std::fs::write(&there, "").unwrap();
    let out = corpora(&there);
    assert!(
        out.starts_with(&format!(
            "time: the first 1000 puzzles of {}\n",
            there.display()
        )),
        "{out}"
    );
}

/// An in-run A/A whose replicates each sit a little off 1, as separate processes of one
/// library do (a layout that suits one copy), with little noise between puzzles: `replicate`
/// column or not.
fn replicated_run(dir: &TempDir, with_column: bool) -> PathBuf {
    const SHIFTS: [f64; 8] = [1.0, 1.02, 0.99, 1.015, 0.998, 1.016, 0.999, 1.01];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut text = String::from(
        "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error,ended",
    );
    text.push_str(if with_column { ",replicate\n" } else { "\n" });
    for line in 1..=800u64 {
        // Runs of 25 consecutive puzzles a replicate, in turn, as `run` cuts its chunks.
        let replicate = (line - 1) / 25 % 8;
        let puzzle = format!("{line:.>81}");
        let base = 10_000 * (1 + line * 37 % 97);
        for (strategy, factor) in [("a", 1.0), ("b", SHIFTS[replicate as usize])] {
            let noise = 0.998 + 0.004 * uniform(&mut state);
            let time = (base as f64 * factor * noise) as u64;
            text.push_str(&format!(
                "syn.txt,{line},{strategy},unique,1,,,{time},,{puzzle},,,finished"
            ));
            if with_column {
                text.push_str(&format!(",{replicate}"));
            }
            text.push('\n');
        }
    }
    let path = dir.path().join(format!("replicated-{with_column}.csv"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_in_run_interval_is_over_the_replicates_and_holds_what_they_differ_by() {
    let dir = TempDir::new().unwrap();
    let json = |run: &Path| -> serde_json::Value {
        let a = between(run, &["--between", "a,b", "--format", "json"]);
        serde_json::from_str(&stdout(&a)).unwrap()
    };
    // Over the puzzles alone, the interval is as narrow as their noise and misses 1.
    let v = json(&replicated_run(&dir, false));
    let row = &v["rows"][0];
    let (lo, hi) = (
        row["ci"][0].as_f64().unwrap(),
        row["ci"][1].as_f64().unwrap(),
    );
    assert!(lo > 1.0 || hi < 1.0, "{row}");
    assert!(row.get("replicates").is_none(), "{row}");
    let text = stdout(&between(
        &replicated_run(&dir, false),
        &["--between", "a,b"],
    ));
    assert!(
        text.contains("covers the puzzles of one process only"),
        "{text}"
    );
    // Over the replicates, it holds what they differ by: 1 lies within.
    let v = json(&replicated_run(&dir, true));
    let row = &v["rows"][0];
    assert_eq!(row["replicates"], 8, "{row}");
    let (lo, hi) = (
        row["ci"][0].as_f64().unwrap(),
        row["ci"][1].as_f64().unwrap(),
    );
    assert!(lo < 1.0 && 1.0 < hi, "{row}");
    assert!(hi - lo > 0.01, "{row}");
    assert_eq!(row["verdict"], "no_change");
    let ratio = row["time_ratio"].as_f64().unwrap();
    assert!(lo < ratio && ratio < hi, "{row}");
    let (tlo, thi) = (
        row["throughput_ci"][0].as_f64().unwrap(),
        row["throughput_ci"][1].as_f64().unwrap(),
    );
    assert!(tlo < 1.0 && 1.0 < thi, "{row}");
    let text = stdout(&between(&replicated_run(&dir, true), &["--between", "a,b"]));
    assert!(text.contains("over the run's replicates"), "{text}");
}

#[test]
fn the_run_spread_widens_an_interval_over_replicates_and_is_said() {
    // Every replicate reads b 1% slower, as one run's shared layout would make it: the
    // replicates alone cannot see that the next run may read otherwise.
    let dir = TempDir::new().unwrap();
    let mut text = String::from(
        "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error,ended,replicate\n",
    );
    for line in 1..=160u64 {
        let replicate = (line - 1) / 10 % 8;
        let puzzle = format!("{line:.>81}");
        let base = 10_000 * (1 + line * 37 % 97);
        let wobble = 1.0 + 0.0005 * (line % 3) as f64;
        for (strategy, factor) in [("a", 1.0), ("b", 1.01 * wobble)] {
            text.push_str(&format!(
                "syn.txt,{line},{strategy},unique,1,,,{},,{puzzle},,,finished,{replicate}\n",
                (base as f64 * factor) as u64
            ));
        }
    }
    let run = dir.path().join("run.csv");
    std::fs::write(&run, text).unwrap();
    let row_of = |spread: &str, fraction: f64| -> serde_json::Value {
        let out = between(
            &run,
            &[
                "--between",
                "a,b",
                "--format",
                "json",
                "--run-spread",
                spread,
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v["run_spread"].as_f64(), Some(fraction), "{v}");
        v["rows"][0].clone()
    };
    let ci = |row: &serde_json::Value| {
        (
            row["ci"][0].as_f64().unwrap(),
            row["ci"][1].as_f64().unwrap(),
        )
    };
    let alone = row_of("0", 0.0);
    let (lo, hi) = ci(&alone);
    assert!(lo > 1.0, "{alone}");
    assert_eq!(alone["verdict"], "slower_not_past_threshold", "{alone}");
    let spread = row_of("1%", 0.01);
    let (wlo, whi) = ci(&spread);
    // Wider on both sides, about the same centre, and now holding 1.
    assert!(wlo < lo && hi < whi, "{spread}");
    assert!(wlo < 1.0 && 1.0 < whi, "{spread}");
    assert_eq!(spread["verdict"], "no_change", "{spread}");
    assert_eq!(alone["time_ratio"], spread["time_ratio"]);
    let text = stdout(&between(&run, &["--between", "a,b", "--run-spread", "1%"]));
    assert!(
        text.contains("with a spread between runs of 1.00% added"),
        "{text}"
    );
    let text = stdout(&between(&run, &["--between", "a,b", "--run-spread", "0"]));
    assert!(!text.contains("spread between runs"), "{text}");
    for bad in ["50%", "-1%", "x"] {
        let flag = format!("--run-spread={bad}");
        let out = between(&run, &["--between", "a,b", &flag]).code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            err.contains("is not a run spread from 0 to below 50%"),
            "{bad}: {err}"
        );
    }
}
