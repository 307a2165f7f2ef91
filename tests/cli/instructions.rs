//! `run --measure instructions`: exact counts of each solve under Valgrind's callgrind, for
//! built-in strategies and `lib:` solvers, isolated and in-process. Skipped (visibly)
//! without Valgrind; `.ci/run` installs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::foreign_lib::{compile, libraries};
use crate::{bench, of, outcome, rows, say_skipped, Row};

/// Whether Valgrind is installed, said once per test when it is not.
fn valgrind() -> bool {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        say_skipped("no valgrind on PATH: the --measure instructions tests need it");
    }
    found
}

/// A maker of `NAME=lib:...:extra_turns` specs (tests/solvers/backtrack.c), when Valgrind
/// and a C compiler are there; else `None`, said.
fn extra_turns() -> Option<impl Fn(&str) -> String> {
    if !valgrind() {
        return None;
    }
    let (backtrack, _, _) = libraries()?;
    Some(move |name: &str| format!("{name}=lib:{}:extra_turns", backtrack.display()))
}

/// A counting run of three puzzles that are quick to count.
const COUNTING: [&str; 4] = [
    "run",
    "tests/fixtures/counting.txt",
    "--measure",
    "instructions",
];

/// A counting run of `args` on those three puzzles: its rows.
fn counted(args: &[&str]) -> Vec<Row> {
    let out = bench()
        .args(COUNTING)
        .args(["-o", "-", "-q"])
        .args(args)
        .output()
        .unwrap();
    let (code, stdout, stderr) = outcome(out);
    assert_eq!(code, Some(0), "{stderr}");
    rows(stdout.as_bytes())
}

/// Line -> instructions of one strategy's rows; every searched row must have a count.
fn counts(rows: &[Row], strategy: &str) -> BTreeMap<u64, u64> {
    let rows = of(rows, strategy);
    assert!(!rows.is_empty(), "no rows of {strategy}");
    rows.iter()
        .map(|(line, row)| {
            let n = row["instructions"].parse().unwrap_or_else(|_| {
                panic!(
                    "{strategy} line {line}: instructions {:?}",
                    row["instructions"]
                )
            });
            assert!(n > 0, "{strategy} line {line}: 0 instructions");
            (*line, n)
        })
        .collect()
}

#[test]
fn a_built_in_strategy_counts_the_same_every_run_and_a_timed_run_counts_nothing() {
    if !valgrind() {
        return;
    }
    let args = ["-s", "fast", "--max-nodes", "0"];
    let first = counted(&args);
    let second = counted(&args);
    assert_eq!(counts(&first, "fast"), counts(&second, "fast"));
    let timed = bench()
        .args([
            "run",
            "tests/fixtures/counting.txt",
            "-s",
            "fast",
            "-o",
            "-",
            "-q",
        ])
        .output()
        .unwrap();
    for row in rows(&timed.stdout) {
        assert_eq!(row["instructions"], "", "{row:?}");
    }
}

#[test]
fn a_lib_solvers_extra_work_is_counted_exactly_isolated_or_in_process() {
    let Some(lib) = extra_turns() else {
        return;
    };
    // In one run (each isolated worker is a Valgrind of its own to start): three in worker
    // processes, three in sudoku-bench's own.
    let mut args = vec!["-s".to_string(), "none".to_string()];
    for (name, turns) in [("t0", 0), ("t1", 1000), ("t2", 2000)] {
        for name in [name.to_string(), format!("in-{name}")] {
            args.extend(["--solver".into(), lib(&name)]);
            args.extend(["--solver-config".into(), format!("{name}={turns}")]);
            if name.starts_with("in-") {
                args.extend(["--in-process".into(), name]);
            }
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rows = counted(&args);
    for prefix in ["", "in-"] {
        let of = |t: &str| counts(&rows, &format!("{prefix}{t}"));
        let (t0, t1, t2) = (of("t0"), of("t1"), of("t2"));
        // The same extra on every puzzle, and the next thousand turns as many instructions
        // as the first but for the loop's set-up: nothing but the call is counted, and
        // all of it.
        let first: Vec<u64> = t0.iter().map(|(line, n)| t1[line] - n).collect();
        let second: Vec<u64> = t1.iter().map(|(line, n)| t2[line] - n).collect();
        assert!(second[0] >= 1000, "{prefix}: {}", second[0]);
        assert!(first.iter().all(|e| *e == first[0]), "{prefix}: {first:?}");
        assert!(
            second.iter().all(|e| *e == second[0]),
            "{prefix}: {second:?}"
        );
        assert!(
            first[0].abs_diff(second[0]) <= 8,
            "{prefix}: {} then {}",
            first[0],
            second[0]
        );
    }
}

#[test]
fn only_the_call_is_counted_isolated_or_in_process() {
    let Some(lib) = extra_turns() else {
        return;
    };
    // A function that returns at once: what is counted is the call and its return, a few
    // instructions, not the harness's conversion of the puzzle (81 cells) or its copy of
    // the answer, in a worker process or in sudoku-bench's own.
    let nothing = lib("none").replace(":extra_turns", ":nothing");
    let rows = counted(&[
        "-s",
        "none",
        "--solver",
        &nothing,
        "--solver",
        &nothing.replacen("none=", "inproc=", 1),
        "--in-process",
        "inproc",
    ]);
    for strategy in ["none", "inproc"] {
        for (line, n) in counts(&rows, strategy) {
            assert!(
                n <= 40,
                "{strategy} line {line}: {n} instructions for an empty call"
            );
        }
    }
}

/// tests/solvers/backtrack_cmd.c built, when Valgrind and a C compiler are there; else
/// `None`, said.
fn command_solver() -> Option<&'static PathBuf> {
    if !valgrind() || libraries().is_none() {
        return None;
    }
    // Built once: tests running at once must not write the same file together.
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    Some(BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("instructions");
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("backtrack_cmd");
        compile("backtrack_cmd", &[], &program);
        program
    }))
}

#[test]
fn a_cmd_solvers_requests_are_counted_each_alone() {
    let Some(program) = command_solver() else {
        return;
    };
    let Some(lib) = extra_turns() else {
        return;
    };
    let spec = |name: &str, turns: &str| format!("{name}=cmd:{} {turns}", program.display());
    let rows = counted(&[
        "-s",
        "none",
        "--solver",
        &spec("a", "0"),
        "--solver",
        &spec("b", "0"),
        "--solver",
        &spec("slow", "100000"),
        "--solver",
        &lib("l"),
    ]);
    let (a, b, slow, l) = (
        counts(&rows, "a"),
        counts(&rows, "b"),
        counts(&rows, "slow"),
        counts(&rows, "l"),
    );
    // Two copies of one command count the same, puzzle for puzzle.
    assert_eq!(a, b);
    // Each request's count is its own puzzle's: the same search as the library's call
    // (whose counts differ by puzzle 20-fold), and the line read and written around it.
    for (line, n) in &a {
        let around = n.checked_sub(l[line]);
        assert!(
            around.is_some_and(|d| d < 10_000),
            "line {line}: {a:?} {l:?}"
        );
    }
    // The loop is the same work on every puzzle: each request's count holds it once,
    // nothing of the start-up or of the requests around it (a few instructions apart at
    // most: its argument moves the stack, and with it the C library's string routines).
    let extra: Vec<u64> = a.iter().map(|(line, n)| slow[line] - n).collect();
    assert!(extra[0] >= 400_000, "{extra:?}");
    assert!(
        extra.iter().all(|e| e.abs_diff(extra[0]) <= 32),
        "{extra:?}"
    );
}

#[test]
fn a_cmd_solver_that_is_not_there_cannot_be_started_as_in_a_timed_run() {
    if !valgrind() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-solver");
    let out = bench()
        .args(COUNTING)
        .args(["-q", "-s", "none", "--solver"])
        .arg(format!("s=cmd:{}", missing.display()))
        .output()
        .unwrap();
    let (code, _, stderr) = outcome(out);
    assert_eq!(code, Some(2), "{stderr}");
    // Not Valgrind's exit taken for a solver that does not speak the protocol.
    assert!(stderr.contains("cannot start"), "{stderr}");
    assert!(!stderr.contains("protocol"), "{stderr}");
}

#[test]
fn a_time_budget_or_repeats_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    // A time budget and repeats are refused alike (before Valgrind is looked for): a
    // count cut by the clock would follow the machine's load.
    for (option, value) in [("--timeout", "1s"), ("--repeat", "2")] {
        let out = bench()
            .args(["run", "--measure", "instructions", option, value, "-o"])
            .arg(&csv)
            .output()
            .unwrap();
        let (code, _, stderr) = outcome(out);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(&format!("takes no {option}")), "{stderr}");
        assert!(!csv.exists());
    }
}

#[test]
fn compare_gates_on_counts_and_the_history_records_them() {
    let Some(lib) = extra_turns() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (csv, summary) = (dir.path().join("run.csv"), dir.path().join("run.json"));
    // `b`: a byte-identical copy of the library, at a path of its own.
    let (path, _, _) = libraries().unwrap();
    let copy = dir.path().join("copy.so");
    std::fs::copy(path, &copy).unwrap();
    let b = format!("b=lib:{}:extra_turns", copy.display());
    let out = bench()
        .args(COUNTING)
        .args(["-s", "none"])
        .args([
            "--solver",
            &lib("a"),
            "--solver",
            &b,
            "--solver",
            &lib("slow"),
        ])
        .args(["--solver-config", "slow=1000000", "-q", "-o"])
        .arg(&csv)
        // In sudoku-bench's own process: no worker process to start under Valgrind.
        .args([
            "--in-process",
            "a",
            "--in-process",
            "b",
            "--in-process",
            "slow",
        ])
        .arg("--summary")
        .arg(&summary)
        .output()
        .unwrap();
    let (code, _, stderr) = outcome(out);
    assert_eq!(code, Some(0), "{stderr}");
    let compare = |pair: &str| {
        let out = bench()
            .arg("compare")
            .arg(&csv)
            .args(["--between", pair, "--format", "json"])
            .output()
            .unwrap();
        let (code, stdout, stderr) = outcome(out);
        let json: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
        (code, json)
    };
    // Two copies of one library: the same instructions, puzzle for puzzle.
    let (code, same) = compare("a,b");
    assert_eq!(code, Some(0), "{same}");
    assert_eq!(same["metric"], "instructions");
    assert_eq!(same["threshold"], 0.01);
    assert_eq!(same["rows"][0]["time_ratio"], 1.0);
    assert_eq!(same["rows"][0]["verdict"], "no_change");
    // The summary adds the CSV's counts up.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(report["metric"], "instructions");
    let csv_rows = rows(&std::fs::read(&csv).unwrap());
    for row in report["rows"].as_array().unwrap() {
        let strategy = row["strategy"].as_str().unwrap();
        let sum: u64 = counts(&csv_rows, strategy).values().sum();
        assert_eq!(row["total_instructions"], sum, "{strategy}");
    }
    // A million turns more a call: slower, exit 1.
    let (code, slower) = compare("a,slow");
    assert_eq!(code, Some(1), "{slower}");
    assert_eq!(slower["rows"][0]["verdict"], "slower");
    // The history records the counts as series of their own: `a` under one commit, `slow`
    // under the next (one run measured both builds side by side), and `history check`
    // finds the step, a slowdown since the first commit.
    let db = dir.path().join("h.sqlite");
    let commits = [
        "0123456789abcdef0123456789abcdef01234567",
        "1123456789abcdef0123456789abcdef01234567",
    ];
    for (i, (taken, commit)) in [("a=mine", commits[0]), ("slow=mine", commits[1])]
        .into_iter()
        .enumerate()
    {
        let out = bench()
            .args(["history", "add"])
            .arg(&summary)
            .args(["--strategy", taken, "--commit", commit])
            .args(["--time", &(1_700_000_000 + i).to_string(), "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let (code, _, stderr) = outcome(out);
        assert_eq!(code, Some(0), "{stderr}");
    }
    let out = bench()
        .args(["history", "check", "--since", &commits[0][..7], "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let (code, stdout, stderr) = outcome(out);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let change = stdout
        .lines()
        .find(|l| l.contains(" mine ") && l.contains("instructions"))
        .unwrap_or_else(|| panic!("no change of mine's instructions:\n{stdout}"));
    assert!(change.contains("more"), "{change}");
    assert!(stdout.contains("--measure instructions"), "{stdout}");
    // Its comparison is not an A/B of times, and Valgrind's times are no reference.
    let cmp = dir.path().join("cmp.json");
    std::fs::write(&cmp, serde_json::to_string(&slower).unwrap()).unwrap();
    for extra in [vec![cmp.clone()], vec![]] {
        let out = bench()
            .args(["history", "add"])
            .arg(&summary)
            .args(&extra)
            .args(if extra.is_empty() {
                vec!["--relative-to", "a"]
            } else {
                vec![]
            })
            .args(["--commit", commits[1], "--db"])
            .arg(dir.path().join("other.sqlite"))
            .output()
            .unwrap();
        let (code, _, stderr) = outcome(out);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("counted instructions"), "{stderr}");
    }
}
