//! `run --solver NAME=cmd:...` end to end, with the Python solvers: the example
//! backtracker, and tests/solvers/faulty.py, which misbehaves on one puzzle. Skipped,
//! saying so, where python3 is not found.
//!
//! Every run gets its own directory, whose path is an argument of its solvers: after the
//! run, no process may be left with that path on its command line.

use std::collections::BTreeMap;
#[cfg(target_os = "linux")]
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use crate::interrupt::Running;
use crate::{bench, processes_naming, rows, say_skipped, Row};

const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
/// Two solutions: the line faulty.py misbehaves on.
const TRIGGER: &str =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";
/// One of TRIGGER's two solutions.
const TRIGGER_SOLUTION: &str =
    "468931527731254869592678431154726398289413675673589214846192753315867942927345186";
const UNSOLVABLE: &str =
    "53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79";
/// Two 5s in the first row: never searched.
const INVALID: &str =
    "55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

/// Longest wait for anything: the machine may be busy with other builds.
const PATIENCE: Duration = Duration::from_secs(120);

/// A directory with the corpus: EASY, TRIGGER, UNSOLVABLE, INVALID, EASY (lines 1-5).
struct Setup {
    dir: tempfile::TempDir,
    python: String,
}

/// What a finished run left.
struct Ran {
    code: Option<i32>,
    stderr: String,
    rows: BTreeMap<(u64, String), Row>,
    summary: Option<serde_json::Value>,
}

impl Setup {
    /// `None`, after saying so, where there is no python3.
    fn new() -> Option<Setup> {
        // The interpreter itself rather than a wrapper script that finds it (pyenv's):
        // every start-up of a solver pays for the wrapper.
        let found = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output();
        let python = match found {
            Ok(out) if out.status.success() => String::from_utf8(out.stdout).unwrap(),
            _ => {
                say_skipped("python3 not found: the cmd: solver tests need it");
                return None;
            }
        };
        let dir = tempfile::tempdir().unwrap();
        let corpus = [EASY, TRIGGER, UNSOLVABLE, INVALID, EASY].join("\n") + "\n";
        std::fs::write(dir.path().join("corpus.txt"), corpus).unwrap();
        Some(Setup {
            dir,
            python: python.trim().to_string(),
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn corpus(&self) -> String {
        self.path("corpus.txt").display().to_string()
    }

    /// `--solver` for a Python script of the repository, with `args` and then the path
    /// `tag` in the setup's directory, by which its processes can be found.
    fn solver(&self, name: &str, script: &str, args: &[&str]) -> String {
        let tag = self.path("tag").display().to_string();
        let mut words = vec![self.python.as_str(), script];
        words.extend(args);
        words.push(&tag);
        format!("{name}=cmd:{}", shlex::try_join(words).unwrap())
    }

    /// `--solver bad=...` for faulty.py in `mode`.
    fn faulty(&self, mode: &str) -> String {
        self.solver("bad", "tests/solvers/faulty.py", &[mode, TRIGGER])
    }

    /// `run` with `-s fast`, `solver` and `extra`, the CSV and the JSON summary to files.
    fn run(&self, solver: &str, extra: &[&str]) -> Ran {
        self.run_on(&self.corpus(), solver, extra)
    }

    /// `run` of the corpus `corpus`, as `run`.
    fn run_on(&self, corpus: &str, solver: &str, extra: &[&str]) -> Ran {
        let out = self.path("out.csv");
        let summary = self.path("summary.json");
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&summary);
        let output = bench()
            .args(["run", corpus, "-s", "fast", "--solver", solver])
            .args(["-o".as_ref(), out.as_os_str()])
            .args(["--summary".as_ref(), summary.as_os_str()])
            .args(extra)
            .output()
            .unwrap();
        let ran = Ran {
            code: output.status.code(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            rows: std::fs::read(&out).map_or_else(|_| BTreeMap::new(), |csv| rows_by_line(&csv)),
            summary: std::fs::read(&summary)
                .ok()
                .map(|json| serde_json::from_slice(&json).unwrap()),
        };
        let left = processes_naming(self.dir.path());
        assert!(
            left.is_empty(),
            "solvers left running: {left:?}\n{}",
            ran.stderr
        );
        ran
    }
}

impl Ran {
    fn row(&self, line: u64, strategy: &str) -> &Row {
        self.rows
            .get(&(line, strategy.to_string()))
            .unwrap_or_else(|| panic!("no row for line {line}, {strategy}: {}", self.stderr))
    }

    /// The summary's row for `strategy`.
    fn summary_row(&self, strategy: &str) -> &serde_json::Value {
        let summary = self.summary.as_ref().expect("a summary was written");
        summary["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["strategy"] == strategy)
            .unwrap_or_else(|| panic!("no summary row for {strategy}"))
    }

    /// Lines 1, 3 and 5 (around the trigger) as `fast` has them: the solver was
    /// restarted after line 2 and its later answers are right.
    fn assert_others_right(&self, strategy: &str) {
        for line in [1, 3, 5] {
            let (ours, fast) = (self.row(line, strategy), self.row(line, "fast"));
            for field in ["status", "solutions", "solution", "error"] {
                assert_eq!(
                    ours[field], fast[field],
                    "line {line}, {field}: {}",
                    self.stderr
                );
            }
        }
        assert_eq!(self.row(4, strategy)["status"], "invalid");
    }
}

/// The rows of a per-puzzle CSV by (line, strategy).
fn rows_by_line(csv_text: &[u8]) -> BTreeMap<(u64, String), Row> {
    rows(csv_text)
        .into_iter()
        .map(|row| ((row["line"].parse().unwrap(), row["strategy"].clone()), row))
        .collect()
}

#[test]
fn the_python_backtracker_agrees_with_fast_and_the_summary_states_the_pipe() {
    let Some(s) = Setup::new() else { return };
    let solver = s.solver("py", "examples/solvers/backtrack.py", &[]);
    // Two workers, each with its own copy; the warm-up runs too.
    let ran = s.run(&solver, &["-j", "2"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for line in 1..=5 {
        let (py, fast) = (ran.row(line, "py"), ran.row(line, "fast"));
        for field in ["status", "solutions", "solution", "error", "clues"] {
            assert_eq!(py[field], fast[field], "line {line}, {field}");
        }
    }
    assert_eq!(ran.row(2, "py")["status"], "multiple");
    // It counts no nodes, and says its guesses.
    assert_eq!(ran.row(1, "py")["nodes"], "");
    assert!(ran.row(1, "py")["guesses"].parse::<u64>().unwrap() > 0);
    assert!(ran.row(1, "py")["time_ns"].parse::<u64>().unwrap() > 0);
    let pipes = &ran.summary.as_ref().unwrap()["pipes"];
    assert_eq!(pipes.as_array().unwrap().len(), 1, "{pipes}");
    assert_eq!(pipes[0]["strategy"], "py");
    assert!(pipes[0]["round_trip_ns"].as_u64().unwrap() > 0);
    let py = ran.summary_row("py");
    assert_eq!(
        (py["searched"].as_u64(), py["failures"].as_u64()),
        (Some(4), Some(0))
    );
    assert!(py["mean_nodes"].is_null() && py["mean_guesses"].as_f64().unwrap() > 0.0);
    let line = "cmd solver py: a round trip through the pipe costs ~";
    assert!(ran.stderr.contains(line), "{}", ran.stderr);
}

/// faulty.py in `mode` fails line 2 with an error containing `error`: the row, the
/// warning and the summary say so, and the solver goes on with the next lines.
fn fails_on_the_trigger(mode: &str, error: &str) {
    let Some(s) = Setup::new() else { return };
    let ran = s.run(&s.faulty(mode), &["-j", "1", "--no-warmup", "-q"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let bad = ran.row(2, "bad");
    assert_eq!(bad["status"], "aborted");
    assert_eq!(
        (bad["solutions"].as_str(), bad["solution"].as_str()),
        ("0", "")
    );
    assert!(bad["error"].contains(error), "{bad:?}");
    let warning = format!("warning: {}:2: bad: ", s.corpus());
    let warned = ran.stderr.lines().find(|l| l.starts_with(&warning));
    assert!(
        warned.is_some_and(|l| l.contains(error)),
        "no warning {warning}...{error}: {}",
        ran.stderr
    );
    ran.assert_others_right("bad");
    let summary = ran.summary_row("bad");
    assert_eq!(
        (summary["failures"].as_u64(), summary["aborted"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(summary["mismatches"].as_u64(), Some(0));
}

#[test]
fn a_solver_that_crashes_fails_its_puzzle_and_is_restarted() {
    fails_on_the_trigger("crash", "exited (exit status: 3) before answering");
}

#[test]
fn a_solver_that_answers_garbage_fails_its_puzzle() {
    fails_on_the_trigger(
        "garbage",
        "answered \"\u{fffd}\u{fffd}\\0 not an answer\": 4 fields, not 3 (COUNT SOLUTION GUESSES)",
    );
}

#[test]
fn a_solver_that_answers_two_fields_fails_its_puzzle() {
    fails_on_the_trigger("fields", "2 fields, not 3 (COUNT SOLUTION GUESSES)");
}

#[test]
fn a_solver_that_counts_past_the_limit_fails_its_puzzle() {
    fails_on_the_trigger("count", "COUNT 3 is above the limit 2");
}

#[test]
fn a_solver_that_answers_a_short_solution_fails_its_puzzle() {
    fails_on_the_trigger("short", "SOLUTION is neither 81 digits 1-9 nor `-`");
}

#[test]
fn a_solver_that_answers_twice_fails_its_puzzle_and_the_answers_before_it_in_its_batch() {
    // Two lines at once: the copy was out of step by then, and from when is not known.
    let Some(s) = Setup::new() else { return };
    // Whole chunks: the line before is then in the batch (not a part of its own).
    let args = ["-j", "1", "--no-warmup", "-q", "--write-within", "0"];
    let ran = s.run(&s.faulty("lines"), &args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let bad = ran.row(2, "bad");
    assert_eq!(bad["status"], "aborted");
    assert!(bad["error"].contains("one line per puzzle"), "{bad:?}");
    let before = ran.row(1, "bad");
    assert_eq!(before["status"], "aborted");
    assert!(
        before["error"]
            .starts_with("its answer may be another puzzle's: later in its batch, it answered"),
        "{before:?}"
    );
    for line in [3, 5] {
        assert_eq!(
            ran.row(line, "bad")["solution"],
            ran.row(line, "fast")["solution"]
        );
    }
    assert_eq!(ran.summary_row("bad")["failures"].as_u64(), Some(2));
}

#[test]
fn a_solver_that_exits_mid_line_fails_its_puzzle() {
    fails_on_the_trigger(
        "noline",
        "and exited (exit status: 0) without ending the line",
    );
}

#[test]
fn strict_fails_a_run_whose_solver_failed_yet_every_row_is_written() {
    let Some(s) = Setup::new() else { return };
    let ran = s.run(
        &s.faulty("crash"),
        &["-j", "1", "--no-warmup", "-q", "--strict"],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(ran.stderr.contains("1 solver failures"), "{}", ran.stderr);
    assert_eq!(ran.rows.len(), 10);
}

#[test]
fn a_wrong_solution_is_a_mismatch_not_a_failure() {
    let Some(s) = Setup::new() else { return };
    let ran = s.run(
        &s.faulty("wrong"),
        &["-j", "1", "--no-warmup", "-q", "--strict"],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let bad = ran.row(2, "bad");
    assert_eq!(bad["status"], "multiple");
    assert!(bad["error"].ends_with("which is not a solution"), "{bad:?}");
    assert!(
        ran.stderr.contains("1 wrong answers, 0 solver failures"),
        "{}",
        ran.stderr
    );
    let summary = ran.summary_row("bad");
    assert_eq!(
        (summary["mismatches"].as_u64(), summary["failures"].as_u64()),
        (Some(1), Some(0))
    );
    ran.assert_others_right("bad");
}

#[test]
fn a_solver_that_hangs_is_killed_at_the_timeout_and_the_run_goes_on() {
    let Some(s) = Setup::new() else { return };
    let start = Instant::now();
    let ran = s.run(
        &s.faulty("hang"),
        &["-j", "1", "--no-warmup", "-q", "--timeout", "2s"],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(s.path("tag").exists(), "it did hang");
    // Not the hour it sleeps for.
    assert!(start.elapsed() < PATIENCE, "{:?}", start.elapsed());
    let bad = ran.row(2, "bad");
    assert_eq!(bad["status"], "aborted");
    assert_eq!(bad["error"], "timed out after 2s");
    assert!(bad["time_ns"].parse::<u64>().unwrap() >= 2_000_000_000);
    ran.assert_others_right("bad");
    let summary = ran.summary_row("bad");
    assert_eq!(
        (summary["aborted"].as_u64(), summary["failures"].as_u64()),
        (Some(1), Some(0))
    );
}

#[test]
fn guesses_must_be_given_by_a_solver_that_gave_them_when_probed() {
    let Some(s) = Setup::new() else { return };
    let ran = s.run(&s.faulty("dashes"), &["-j", "1", "--no-warmup", "-q"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for line in [1, 2, 3, 5] {
        let row = ran.row(line, "bad");
        assert_eq!(row["status"], "aborted");
        assert!(row["error"].contains("GUESSES is `-`"), "{row:?}");
    }
}

#[test]
fn a_solver_that_fails_the_probe_stops_the_run_before_any_output() {
    let Some(s) = Setup::new() else { return };
    let ran = s.run(&s.faulty("probe"), &["-q"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.starts_with("error: --solver bad=cmd:"),
        "{}",
        ran.stderr
    );
    let says =
        r#"does not speak the protocol: given a solved grid and limit 1, it answered "0 - -""#;
    assert!(ran.stderr.contains(says), "{}", ran.stderr);
    assert!(!s.path("out.csv").exists() && ran.rows.is_empty());
}

#[test]
fn a_command_that_cannot_be_started_or_split_is_an_error_naming_the_solver() {
    for (solver, says) in [
        (
            "mine=cmd:./no/such/solver",
            "cannot start `./no/such/solver`: ",
        ),
        ("mine=cmd:  ", "no command after `cmd:`"),
        ("mine=cmd:./solver \"open", "a quote is not closed"),
    ] {
        let out = bench()
            .args(["run", "-s", "fast", "-q", "-o", "-", "--solver", solver])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{solver}: {stderr}");
        assert!(
            stderr.contains("mine") && stderr.contains(says),
            "{solver}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{solver}: no CSV");
    }
}

/// Start a run whose solver hangs on line 2 (with `timeout`), and wait until it does.
#[cfg(target_os = "linux")]
fn hanging(s: &Setup, timeout: &str) -> Running {
    hanging_with(s, &s.faulty("hang"), timeout)
}

/// Start the command `args`, whose solver hangs after creating the file `tag`, and wait
/// until it does.
#[cfg(target_os = "linux")]
fn hanging_command(s: &Setup, args: &[&str]) -> Running {
    let mut running = Running::start(args, Path::new(env!("CARGO_MANIFEST_DIR")));
    let start = Instant::now();
    while !s.path("tag").exists() {
        if let Some(status) = running.exit_within(Duration::from_millis(10)) {
            panic!("exited ({status}) before its solver hung");
        }
        assert!(start.elapsed() < PATIENCE, "the solver did not hang");
    }
    running
}

/// Start a run of `solver`, which hangs on line 2 (with `timeout`) after creating the
/// file `tag`, and wait until it does.
#[cfg(target_os = "linux")]
fn hanging_with(s: &Setup, solver: &str, timeout: &str) -> Running {
    let (corpus, out) = (s.corpus(), s.path("out.csv"));
    let args = [
        "run",
        &corpus,
        "-s",
        "fast",
        "--solver",
        solver,
        "-j",
        "1",
        "--no-warmup",
        "-q",
        "--timeout",
        timeout,
        "-o",
        out.to_str().unwrap(),
    ];
    hanging_command(s, &args)
}

/// Every command that solves answers the first Ctrl-C at once, while its solver hangs,
/// saying what it does now and how to quit at once (`filter` and `check` set no time
/// limit, so a solver from outside may take any time there); the second one quits.
#[cfg(target_os = "linux")]
#[test]
fn the_first_ctrl_c_is_answered_at_once_while_the_solver_hangs_in_every_command() {
    let Some(s) = Setup::new() else { return };
    let (corpus, out) = (s.corpus(), s.path("out.txt"));
    let out = out.to_str().unwrap();
    // check --solve solves only lines with a solution column: TRIGGER's is one of
    // its two solutions.
    let csv = s.path("corpus.csv");
    std::fs::write(
        &csv,
        format!("puzzle,solution\n{TRIGGER},{TRIGGER_SOLUTION}\n"),
    )
    .unwrap();
    let csv = csv.to_str().unwrap();
    let solver = s.faulty("hang");
    let then = "press Ctrl-C again to quit now, losing the work in flight";
    let commands: [(&[&str], String); 3] = [
        (
            &[
                "run",
                &corpus,
                "-s",
                "fast",
                "--solver",
                &solver,
                "--timeout",
                "60s",
            ],
            format!(
                "SIGINT: stopping after the current puzzles (a solver from outside may take \
                 up to its --timeout, 1m), then writing the rows and the summary of the \
                 puzzles solved; {then}"
            ),
        ),
        (
            &["filter", &corpus, "--solver", &solver],
            format!(
                "SIGINT: stopping after the current puzzles (a solver from outside has no \
                 time limit here), then writing the lines classified and the counts; {then}"
            ),
        ),
        (
            &["check", csv, "--solve", "--solver", &solver],
            format!(
                "SIGINT: stopping after the current puzzles (a solver from outside has no \
                 time limit here), then printing the faults found; {then}"
            ),
        ),
    ];
    for (command, said) in commands {
        let _ = std::fs::remove_file(s.path("tag"));
        let mut args = command.to_vec();
        args.extend(["-j", "1", "-q"]);
        if command[0] != "check" {
            args.extend(["-o", out]);
        }
        let mut run = hanging_command(&s, &args);
        let mut stderr = run.stderr_lines();
        run.signal(libc::SIGINT);
        let line = stderr.wait_for("SIGINT: ", Duration::from_secs(10));
        assert_eq!(line.as_deref(), Some(said.as_str()), "{}", command[0]);
        assert!(
            run.exit_within(Duration::ZERO).is_none(),
            "{}: the solve still hangs",
            command[0]
        );
        run.signal(libc::SIGINT);
        let status = run.exit_within(Duration::from_secs(5)).expect("it exits");
        assert_eq!(
            status.code(),
            Some(130),
            "{}: {:?}",
            command[0],
            stderr.all()
        );
        assert_none_left_within(&s, Duration::from_secs(5));
    }
}

/// How long a process sent SIGKILL (with its group) as sudoku-bench ends may still show:
/// on a busy machine it may not have run its exit yet when sudoku-bench's has.
#[cfg(target_os = "linux")]
const KILLED_WITHIN: Duration = Duration::from_secs(2);

/// Wait until no process of the setup is left, or fail after `limit`.
fn assert_none_left_within(s: &Setup, limit: Duration) {
    let start = Instant::now();
    loop {
        let left = processes_naming(s.dir.path());
        if left.is_empty() {
            return;
        }
        assert!(start.elapsed() < limit, "solvers left running: {left:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_a_run_after_the_hung_solve_and_kills_its_solver() {
    let Some(s) = Setup::new() else { return };
    let mut run = hanging(&s, "2s");
    // The terminal's Ctrl-C reaches the process group of sudoku-bench only.
    run.signal(libc::SIGINT);
    let status = run.exit_within(PATIENCE).expect("it stops");
    assert_eq!(status.code(), Some(130));
    assert_none_left_within(&s, KILLED_WITHIN);
}

#[cfg(target_os = "linux")]
#[test]
fn a_second_ctrl_c_exits_at_once_and_takes_the_hung_solver_along() {
    let Some(s) = Setup::new() else { return };
    let mut run = hanging(&s, "60s");
    run.signal(libc::SIGINT);
    assert!(run.exit_within(Duration::from_millis(200)).is_none());
    run.signal(libc::SIGINT);
    let status = run.exit_within(Duration::from_secs(5)).expect("it exits");
    assert_eq!(status.code(), Some(130));
    // Killed by the kernel as its parent died, not by sudoku-bench: a moment later.
    assert_none_left_within(&s, Duration::from_secs(5));
}

/// lagging.py with `answers` (`count` or `solution`): a line behind from its first
/// puzzle on, on a corpus whose neighbouring puzzles have different counts, so that an
/// answer taken for the next puzzle's would be a mismatch. Every row is right or failed.
fn a_lagging_solver_never_passes_another_puzzle_s_answer(answers: &str) {
    let Some(s) = Setup::new() else { return };
    let corpus = s.path("lag.txt");
    let lines = [EASY, TRIGGER, UNSOLVABLE].repeat(20);
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let solver = s.solver("lag", "tests/solvers/lagging.py", &[answers]);
    // Whole chunks: 60 lines are two batches, whatever the pace of the parts would be.
    let args = [
        "-j",
        "1",
        "--no-warmup",
        "-q",
        "--strict",
        "--write-within",
        "0",
    ];
    let ran = s.run_on(corpus.to_str().unwrap(), &solver, &args);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let mut failed = 0;
    for line in 1..=lines.len() as u64 {
        let (lag, fast) = (ran.row(line, "lag"), ran.row(line, "fast"));
        if lag["ended"] == "failed" {
            failed += 1;
            continue;
        }
        for field in ["status", "solutions", "solution", "error"] {
            let fast = if field == "solution" && answers == "count" {
                ""
            } else {
                &fast[field]
            };
            assert_eq!(lag[field], fast, "line {line}, {field}: {lag:?}");
        }
    }
    assert!(failed > 0, "it was caught: {}", ran.stderr);
    // Said once for each batch the check failed (60 lines: two batches), with its count,
    // not once for each of its rows. When the unasked line happens to arrive while the
    // harness waits, the lag is caught there too, on that row ("one line per puzzle"):
    // the rows before it in its batch are then said once, and the restarted copy's
    // rows after it once more.
    let caught_in_line = (1..=lines.len() as u64)
        .map(|line| ran.row(line, "lag")["error"].clone())
        .filter(|e| e.starts_with("answered ") && e.ends_with("one line per puzzle"))
        .count();
    let said: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.contains("its answer may be another puzzle's"))
        .collect();
    assert!(
        !said.is_empty() && said.len() <= 2 + caught_in_line,
        "{} warnings, {caught_in_line} caught in line: {}",
        said.len(),
        ran.stderr
    );
    for line in &said {
        assert!(line.contains("(the same for "), "{line}");
    }
    let summary = ran.summary_row("lag");
    assert_eq!(summary["mismatches"].as_u64(), Some(0), "{summary}");
    assert_eq!(summary["failures"].as_u64(), Some(failed));
}

#[test]
fn a_solver_a_line_behind_with_counts_only_has_every_row_right_or_failed() {
    a_lagging_solver_never_passes_another_puzzle_s_answer("count");
}

#[test]
fn a_solver_a_line_behind_with_solutions_has_every_row_right_or_failed() {
    a_lagging_solver_never_passes_another_puzzle_s_answer("solution");
}

/// forking.py: starts a process of its own, in its group, after `sleep` seconds; hangs
/// on line 2.
fn forking(s: &Setup, sleep: &str) -> String {
    s.solver("fork", "tests/solvers/forking.py", &[TRIGGER, sleep])
}

#[test]
fn a_copy_s_start_up_is_in_no_row_s_time_and_a_timeout_is_timed_at_the_limit() {
    let Some(s) = Setup::new() else { return };
    // 0.6 s to start, every copy: the one that replaces the copy killed on line 2 too.
    let ran = s.run(
        &forking(&s, "0.6"),
        &["-j", "1", "--no-warmup", "-q", "--timeout", "500ms"],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let time = |line| ran.row(line, "fork")["time_ns"].parse::<u64>().unwrap();
    let hung = ran.row(2, "fork");
    assert_eq!(hung["error"], "timed out after 500ms", "{hung:?}");
    // The limit, not the kill or the next copy's start-up after it.
    assert_eq!(time(2), 500_000_000, "{hung:?}");
    for line in [1, 3, 5] {
        assert!(time(line) < 500_000_000, "line {line}: {}", time(line));
    }
    ran.assert_others_right("fork");
    assert_eq!(ran.summary_row("fork")["aborted"].as_u64(), Some(1));
}

#[test]
fn a_solver_that_closes_stdout_and_exits_is_reported_with_its_exit() {
    fails_on_the_trigger("closeexit", "exited (exit status: 4) before answering");
}

#[test]
fn a_solver_that_closes_stdout_and_stays_is_reported_so() {
    fails_on_the_trigger(
        "closehang",
        "closed its stdout before answering and did not exit (killed)",
    );
}

#[test]
fn no_process_of_a_solver_outlives_a_run_that_ends() {
    let Some(s) = Setup::new() else { return };
    // `run` checks that none is left; two workers, a copy killed at the timeout.
    let ran = s.run(&forking(&s, "0"), &["-j", "2", "-q", "--timeout", "1s"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

/// A daemon (`setsid`: out of the copy's session and process group) is found and killed
/// all the same: by the guard, which adopts what is orphaned below it, when the copy ends.
#[test]
fn no_daemon_a_solver_starts_outlives_a_run() {
    let Some(s) = Setup::new() else { return };
    let daemon = s.solver(
        "fork",
        "tests/solvers/forking.py",
        &[TRIGGER, "0", "setsid"],
    );
    // `run` checks that none is left; two workers, a copy killed at the timeout.
    let ran = s.run(&daemon, &["-j", "2", "-q", "--timeout", "1s"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

#[test]
fn no_process_of_a_solver_outlives_a_run_that_fails() {
    let Some(s) = Setup::new() else { return };
    let out = bench()
        .args(["run", &s.corpus(), "-s", "fast", "-q", "--timeout", "1s"])
        .args(["--solver", &forking(&s, "0"), "-o", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/dev/full"), "{stderr}");
    let left = processes_naming(s.dir.path());
    assert!(left.is_empty(), "solvers left running: {left:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn no_process_of_a_solver_outlives_a_run_stopped_by_ctrl_c() {
    let Some(s) = Setup::new() else { return };
    let mut run = hanging_with(&s, &forking(&s, "0"), "2s");
    run.signal(libc::SIGINT);
    let status = run.exit_within(PATIENCE).expect("it stops");
    assert_eq!(status.code(), Some(130));
    assert_none_left_within(&s, KILLED_WITHIN);
}

#[cfg(target_os = "linux")]
#[test]
fn no_process_of_a_solver_outlives_a_second_ctrl_c() {
    let Some(s) = Setup::new() else { return };
    let mut run = hanging_with(&s, &forking(&s, "0"), "60s");
    run.signal(libc::SIGINT);
    assert!(run.exit_within(Duration::from_millis(200)).is_none());
    run.signal(libc::SIGINT);
    let status = run.exit_within(Duration::from_secs(5)).expect("it exits");
    assert_eq!(status.code(), Some(130));
    // Killed by its guard once sudoku-bench is gone: a moment later.
    assert_none_left_within(&s, Duration::from_secs(5));
}

#[cfg(target_os = "linux")]
#[test]
fn no_process_of_a_solver_outlives_a_kill_9_of_sudoku_bench() {
    let Some(s) = Setup::new() else { return };
    let mut run = hanging_with(&s, &forking(&s, "0"), "60s");
    run.signal(libc::SIGKILL);
    let status = run.exit_within(Duration::from_secs(5)).expect("it dies");
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert_none_left_within(&s, Duration::from_secs(5));
}

/// Ctrl-C while steady.py (10 ms a puzzle, beside `fast`, on two workers, in chunks of
/// `chunk_size`, no warm-up) holds its next puzzles once it has answered `hold`: each
/// chunk's phases run `fast` then `slow`, then the other way round, and `hold` lands in a
/// chunk where `slow` runs first, so `fast` has not seen its puzzles yet. Every puzzle the
/// solver answered gets its rows, in order, counted by the summary; no task of `task`
/// puzzles is started after the signal; and the stop is prompt.
#[cfg(target_os = "linux")]
fn ctrl_c_keeps_every_puzzle_a_slow_solver_answered(chunk_size: &str, hold: usize, task: usize) {
    let Some(s) = Setup::new() else { return };
    let corpus = s.path("easy.txt");
    // 20 s of solving on two workers: far more than a stop waits for.
    std::fs::write(&corpus, format!("{EASY}\n").repeat(4000)).unwrap();
    let (log, go) = (s.path("answers.log"), s.path("go"));
    let (log_arg, go_arg) = (log.display().to_string(), go.display().to_string());
    let hold_arg = hold.to_string();
    let steady = ["0.01", &log_arg, &hold_arg, &go_arg];
    let solver = s.solver("slow", "tests/solvers/steady.py", &steady);
    let (out, summary) = (s.path("out.csv"), s.path("summary.json"));
    let args = [
        "run",
        corpus.to_str().unwrap(),
        "-s",
        "fast",
        "--solver",
        &solver,
        "-j",
        "2",
        "--chunk-size",
        chunk_size,
        "--no-warmup",
        "--timeout",
        "60s",
        "-q",
        "-o",
        out.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ];
    let mut run = Running::start(&args, Path::new(env!("CARGO_MANIFEST_DIR")));
    let mut stderr = run.stderr_lines();
    let answered = || std::fs::read_to_string(&log).map_or(0, |t| t.lines().count());
    let start = Instant::now();
    while answered() < hold {
        if let Some(status) = run.exit_within(Duration::from_millis(10)) {
            panic!("exited ({status}) before {hold} answers");
        }
        assert!(start.elapsed() < PATIENCE, "{} answers", answered());
    }
    run.signal(libc::SIGINT);
    // Said at once, while the solves in flight wait.
    let said = stderr.wait_for("SIGINT: stopping", PATIENCE);
    assert!(said.is_some(), "no word of the stop: {:?}", stderr.seen);
    let at_signal = answered();
    std::fs::write(&go, "").unwrap();
    let released = Instant::now();
    let status = run.exit_within(PATIENCE).expect("it stops");
    let took = released.elapsed();
    let stderr = stderr.all();
    assert_eq!(status.code(), Some(130), "{stderr:?}");
    let total = answered();
    assert!(
        total < at_signal + 2 * task,
        "{total} answers, {at_signal} at the signal: a task was started after it"
    );
    let rows = rows(&std::fs::read(&out).unwrap());
    let lines_of = |strategy: &str| -> Vec<u64> {
        let of = rows.iter().filter(|r| r["strategy"] == strategy);
        of.map(|r| r["line"].parse().unwrap()).collect()
    };
    let kept: Vec<u64> = (1..=total as u64).collect();
    assert_eq!(lines_of("slow"), kept, "every puzzle answered, in order");
    assert_eq!(lines_of("fast"), kept, "with fast's rows");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(summary["interrupted"], true);
    for row in summary["rows"].as_array().unwrap() {
        assert_eq!(row["puzzles"].as_u64(), Some(total as u64), "{row}");
    }
    // What was in flight (a task of `task` puzzles per worker, 10 ms each) and `fast`'s
    // part: far less than this, even on a busy machine, and far less than the rest.
    assert!(
        took < Duration::from_secs(10),
        "stopped {took:?} after the solves went on"
    );
    assert_none_left_within(&s, Duration::from_secs(5));
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_keeps_every_puzzle_a_slow_solver_answered_in_chunks_of_16() {
    // Chunks of 16 records, one task each: the fourth (lines 49-64) runs `slow` first.
    ctrl_c_keeps_every_puzzle_a_slow_solver_answered("16", 53, 16);
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_keeps_every_puzzle_a_slow_solver_answered_in_the_default_chunks() {
    // Chunks of 256, then 512 records (lines 257-768), which run `slow` first; tasks of 32.
    ctrl_c_keeps_every_puzzle_a_slow_solver_answered("2048", 300, 32);
}

#[test]
fn a_memory_limit_bounds_the_solver_and_its_usage_is_in_the_summary() {
    let Some(s) = Setup::new() else { return };
    let solver = s.solver("py", "examples/solvers/backtrack.py", &[]);
    // Python cannot even map its C library within 8 MiB: the solver is refused at load.
    let ran = s.run(&solver, &["--memory-limit", "8M"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("--solver py=cmd:"), "{}", ran.stderr);
    // Within 1 GiB it runs, and the summary says what its copies used.
    let ran = s.run(&solver, &["--memory-limit", "1G", "-j", "2"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let used = &ran.summary.as_ref().unwrap()["resources"][0];
    assert_eq!(used["strategy"], "py");
    assert!(used["processes"].as_u64().unwrap() >= 2, "{used}");
    assert!(used["max_rss_kib"].as_u64().unwrap() > 1024, "{used}");
    assert!(used["cpu_ns"].as_u64().unwrap() > 0, "{used}");
}

#[test]
fn an_unquoted_interpreter_spec_is_refused_at_once_saying_why() {
    // What the shell makes of `--solver py=cmd:python3 mine.py`: the script is a corpus.
    // Refused before python3 is started (it would never answer: refused after the start-up
    // allowance, blaming flushing).
    let out = bench()
        .args([
            "run",
            "--solver",
            "py=cmd:python3",
            "examples/solvers/backtrack.py",
        ])
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unquoted, the script becomes a corpus"),
        "{stderr}"
    );
}

/// Copies of a command that sudoku-bench cannot start for want of its own descriptors
/// (`ulimit -n 16`, `-j 16`) are its failure, not the solver's: exit 2, no row `aborted`.
#[test]
fn copies_the_harness_cannot_start_fail_the_run_not_the_puzzles() {
    if Setup::new().is_none() {
        return;
    }
    crate::assert_harness_failure_is_no_row("py=cmd:python3 examples/solvers/backtrack.py");
}
