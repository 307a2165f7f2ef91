//! `run --solver NAME=lib:...`: the project's own C solvers (tests/solvers/), built with the
//! system C compiler as shared libraries, run beside the built-in strategies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::{bench, fixture, of, processes_naming, rows, say_skipped, Row};

/// The built libraries `(backtrack, wrong, hostile)`, or `None` (and a visible skip)
/// without a C compiler.
pub(crate) fn libraries() -> Option<&'static (PathBuf, PathBuf, PathBuf)> {
    static BUILT: OnceLock<Option<(PathBuf, PathBuf, PathBuf)>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        if Command::new("cc").arg("--version").output().is_err() {
            return None;
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("foreign_lib");
        std::fs::create_dir_all(&dir).unwrap();
        let build = |name: &str| {
            let library = dir.join(format!("lib{name}.so"));
            compile(name, &["-shared", "-fPIC"], &library);
            library
        };
        Some((build("backtrack"), build("wrong"), build("hostile")))
    });
    if built.is_none() {
        say_skipped("no C compiler (cc): the lib: solver tests need one");
    }
    built.as_ref()
}

/// Compile tests/solvers/NAME.c with `flags` into `out` (warnings are errors). Written
/// beside it and renamed into place: a test runner that runs each test in a process of its
/// own (cargo-nextest) builds the same library in several at once, and a run must never
/// load one half written (or rewritten under it).
pub(crate) fn compile(name: &str, flags: &[&str], out: &Path) {
    let source = format!("{}/tests/solvers/{name}.c", env!("CARGO_MANIFEST_DIR"));
    let mut partial = out.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let made = Command::new("cc")
        .args(["-O2", "-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg(&source)
        .arg("-o")
        .arg(&partial)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "cc {source}: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    std::fs::rename(&partial, out).unwrap();
}

fn solver(name: &str, library: &Path, symbol: Option<&str>) -> String {
    let mut spec = format!("{name}=lib:{}", library.display());
    if let Some(symbol) = symbol {
        spec = format!("{spec}:{symbol}");
    }
    spec
}

/// Longest wait for a run: the machine may be busy with other builds.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// Run with `args` plus `--out - --quiet`: the exit code, the CSV rows and stderr. A run
/// still going after `PATIENCE` is killed, and fails the test.
fn run(args: &[&str]) -> (i32, Vec<Row>, String) {
    let out = bench()
        .arg("run")
        .args(args)
        .args(["--out", "-", "--quiet"])
        .timeout(PATIENCE)
        .output()
        .unwrap();
    (
        out.status
            .code()
            .unwrap_or_else(|| panic!("{args:?}: still running after {PATIENCE:?}, killed")),
        rows(&out.stdout),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The summary JSON's row for `strategy`.
fn summary_row(summary: &serde_json::Value, strategy: &str) -> serde_json::Value {
    summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["strategy"] == strategy)
        .unwrap()
        .clone()
}

/// Lines of mixed.txt that are searched (unique, multiple, unsolvable, unique).
const SEARCHED: [u64; 4] = [2, 3, 4, 9];

/// `tests/fixtures/mixed.txt` `times` over, as `corpus.txt` in `dir`: its lines' kinds again
/// and again, for a solver that misbehaves on some of them.
fn mixed_repeated(dir: &std::path::Path, times: usize) -> std::path::PathBuf {
    let corpus = dir.join("corpus.txt");
    let mixed = std::fs::read_to_string(fixture("mixed.txt")).unwrap();
    std::fs::write(&corpus, mixed.repeat(times)).unwrap();
    corpus
}

#[test]
fn a_library_solver_runs_beside_the_built_in_ones_and_agrees() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let spec = solver("mine", backtrack, None);
    let mixed = fixture("mixed.txt");
    let (code, rows, stderr) = run(&[&mixed, "-s", "fast", "--solver", &spec]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stderr.contains("mine:"),
        "no warning about the solver: {stderr}"
    );
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "mine"));
    assert_eq!(rows.len(), 2 * 7);
    assert_eq!(
        fast.keys().collect::<Vec<_>>(),
        mine.keys().collect::<Vec<_>>()
    );
    for (line, theirs) in &mine {
        let ours = &fast[line];
        for field in ["status", "solutions", "error"] {
            assert_eq!(theirs[field], ours[field], "line {line}: {field}");
        }
        // With several solutions, each solver may find another first (the empty error
        // says the harness checked it); one solution is the same for all.
        if ours["status"] != "multiple" {
            assert_eq!(theirs["solution"], ours["solution"], "line {line}");
        }
        // A library solver counts no nodes; it does count guesses.
        assert_eq!(theirs["nodes"], "", "line {line}");
        if SEARCHED.contains(line) {
            theirs["guesses"].parse::<u64>().unwrap();
            assert!(theirs["time_ns"].parse::<u64>().unwrap() > 0);
        }
    }
    assert!(
        mine[&9]["guesses"].parse::<u64>().unwrap() > 0,
        "the hardest needs guesses"
    );
}

#[test]
fn a_solver_like_tdoku_gives_a_solution_only_when_the_limit_is_one() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let spec = solver("tdoku_like", backtrack, Some("tdoku_like"));
    let mixed = fixture("mixed.txt");
    let (code, rows, stderr) = run(&[&mixed, "-s", "fast", "--solver", &spec]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stderr.contains("tdoku_like:"),
        "no warning about the solver: {stderr}"
    );
    let mine = of(&rows, "tdoku_like");
    assert_eq!(mine[&2]["status"], "unique");
    assert_eq!(
        mine[&2]["solution"], "",
        "returned none, and none is made up"
    );
    assert_eq!(mine[&3]["status"], "multiple");

    let (code, rows, stderr) = run(&[
        &mixed,
        "-s",
        "fast",
        "--solver",
        &spec,
        "--max-solutions",
        "1",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stderr.contains("tdoku_like:"),
        "no warning about the solver: {stderr}"
    );
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "tdoku_like"));
    for line in [2, 9] {
        assert_eq!(mine[&line]["status"], "solved");
        assert_eq!(
            mine[&line]["solution"], fast[&line]["solution"],
            "line {line}"
        );
    }
    assert_eq!(mine[&4]["status"], "unsolvable");
}

#[test]
fn a_wrong_solution_is_a_mismatch_named_in_a_warning_and_fails_strict() {
    let Some((_, wrong, _)) = libraries() else {
        return;
    };
    let spec = solver("wrong", wrong, None);
    let mixed = fixture("mixed.txt");
    let out = bench()
        .args(["run", &mixed, "-s", "fast", "--solver", &spec, "--strict"])
        .args(["--out", "/dev/null", "--summary", "-", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    for line in SEARCHED {
        assert!(
            stderr.contains(&format!("mixed.txt:{line}: wrong: strategy returned ")),
            "line {line}: {stderr}"
        );
    }
    assert!(stderr.contains("4 wrong answers"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary_row(&summary, "wrong")["mismatches"], 4);
    assert_eq!(summary_row(&summary, "fast")["mismatches"], 0);

    let (code, rows, _) = run(&[&mixed, "-s", "fast", "--solver", &spec]);
    assert_eq!(
        code, 0,
        "without --strict a wrong answer is reported, not fatal"
    );
    let wrong = of(&rows, "wrong");
    for line in SEARCHED {
        assert!(
            wrong[&line]["error"].ends_with("which is not a solution"),
            "{:?}",
            wrong[&line]
        );
    }
}

#[test]
fn a_count_above_the_limit_or_an_unreadable_solution_fails_only_that_puzzle() {
    let Some((_, wrong, _)) = libraries() else {
        return;
    };
    let too_many = solver("too_many", wrong, Some("too_many"));
    let garbage = solver("garbage", wrong, Some("garbage"));
    let mixed = fixture("mixed.txt");
    let args = [
        "run", &mixed, "-s", "fast", "--solver", &too_many, "--solver", &garbage,
    ];
    let out = bench()
        .args(args)
        // Whole chunks: the fixture is one batch, not parts at the solvers' pace.
        .args(["--out", "-", "--quiet", "--strict", "--write-within", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("8 solver failures"), "{stderr}");
    // One reason for four rows of a batch: said once, at the first, naming them all.
    assert!(
        stderr.contains("mixed.txt:2: garbage: returned a solution that cannot be read"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(the same for 4 of its rows: lines 2-4, 9)"),
        "{stderr}"
    );
    assert!(!stderr.contains("mixed.txt:9: garbage:"), "{stderr}");
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 3 * 7, "the run went on to the end");
    for line in SEARCHED {
        let row = &of(&rows, "too_many")[&line];
        assert_eq!(row["status"], "aborted");
        assert_eq!(
            row["error"],
            "returned 3 solutions, more than the limit of 2"
        );
        let row = &of(&rows, "garbage")[&line];
        assert_eq!(row["status"], "aborted");
        assert_eq!(
            row["error"],
            "returned a solution that cannot be read: character 'x' at column 1 is not a digit \
             or a blank ('.' or '0')"
        );
    }
}

#[test]
fn no_solution_where_the_corpus_gives_one_is_a_mismatch() {
    let Some((_, wrong, _)) = libraries() else {
        return;
    };
    let spec = solver("none", wrong, Some("none_found"));
    let (code, rows, _) = run(&[
        &fixture("kaggle.csv"),
        "-s",
        "fast",
        "--solver",
        &spec,
        "--strict",
    ]);
    assert_eq!(code, 1);
    for row in of(&rows, "none").values() {
        assert_eq!(row["status"], "unsolvable");
        assert_eq!(row["error"], "no solution found, but the corpus gives one");
    }
}

/// A solver that finds nothing where the reference (`fast`) finds solutions: its count,
/// not only a solution, is checked.
#[test]
fn a_wrong_count_is_a_mismatch_against_the_reference() {
    let Some((_, wrong, _)) = libraries() else {
        return;
    };
    let spec = solver("none", wrong, Some("none_found"));
    let (code, rows, _) = run(&[
        &fixture("mixed.txt"),
        "-s",
        "fast",
        "--solver",
        &spec,
        "--strict",
    ]);
    assert_eq!(code, 1, "lines 2, 3 and 9 have solutions");
    let none = of(&rows, "none");
    for line in [2, 3, 9] {
        assert_ne!(none[&line]["error"], "", "line {line}");
    }
    assert_eq!(none[&4]["error"], "", "line 4 has none indeed");
}

#[test]
fn the_configuration_reaches_the_library() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let echo = solver("echo", backtrack, Some("echo_config"));
    let plain = solver("plain", backtrack, Some("echo_config"));
    let mixed = fixture("mixed.txt");
    let (code, rows, stderr) = run(&[
        &mixed,
        "-s",
        "fast",
        "--solver",
        &echo,
        "--solver",
        &plain,
        "--solver-config",
        "echo=4000000000",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for line in SEARCHED {
        assert_eq!(of(&rows, "echo")[&line]["guesses"], "4000000000");
        assert_eq!(
            of(&rows, "plain")[&line]["guesses"],
            "0",
            "the default is 0"
        );
    }
}

/// A corpus of `n` copies of the easy puzzle.
fn copies(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("copies.txt");
    let line =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n";
    std::fs::write(&path, line.repeat(n)).unwrap();
    path
}

#[test]
fn a_library_that_is_not_reentrant_runs_right_isolated_or_serial() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = copies(dir.path(), 128);
    let corpus = corpus.to_str().unwrap();
    let spec = solver("single", backtrack, Some("not_reentrant"));
    let base = [corpus, "-s", "fast", "-j", "2", "--solver", &spec];
    // The solver detects overlapping calls (each lasts a millisecond or more): in the
    // tool's process, on two threads, some overlap, which shows that the detector works.
    let (code, rows, stderr) = run(&[&base[..], &["--in-process", "single"]].concat());
    let overlapped = of(&rows, "single")
        .values()
        .filter(|r| r["status"] == "aborted")
        .count();
    assert!(
        overlapped > 0,
        "two threads never overlapped: the checks below would prove nothing \
         (exit {code}, {} rows of single): {stderr}",
        of(&rows, "single").len()
    );
    // What to do about it is said.
    assert!(
        stderr.contains(
            "run it in a process per worker (without --in-process), or with --serial single"
        ),
        "{stderr}"
    );
    // Each worker's copy in a process of its own (the default), or one thread.
    for extra in [&[][..], &["--in-process", "single", "--serial", "single"]] {
        let (code, rows, stderr) = run(&[&base[..], extra, &["--strict"]].concat());
        assert_eq!(code, 0, "{extra:?}: {stderr}");
        let single = of(&rows, "single");
        assert_eq!(single.len(), 128);
        assert!(
            single.values().all(|r| r["status"] == "unique"),
            "{extra:?}"
        );
    }
}

#[test]
fn load_errors_name_the_path_and_symbol_and_exit_2_before_any_output() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let not_a_library = fixture("mixed.txt");
    let cases = [
        (
            "x=lib:/no/such/libx.so".to_string(),
            "cannot find /no/such/libx.so: ".to_string(),
        ),
        (
            format!("x=lib:{not_a_library}"),
            format!("cannot load {not_a_library} as a shared library: "),
        ),
        (
            solver("x", backtrack, Some("no_such_symbol")),
            format!(
                "{} exports no symbol \"no_such_symbol\": ",
                backtrack.display()
            ),
        ),
        (
            "x=dll:libx.so".to_string(),
            "unknown kind \"dll\"; known: lib, cmd".to_string(),
        ),
        (
            "fast=lib:libx.so".to_string(),
            "fast is a built-in strategy".to_string(),
        ),
    ];
    for (spec, expected) in cases {
        let assert = bench()
            .args(["run", &not_a_library, "--solver", &spec, "--out"])
            .arg(&out)
            .assert()
            .code(2);
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            stderr.starts_with(&format!("error: --solver {spec}: {expected}")),
            "{spec}: {stderr}"
        );
        assert!(!out.exists(), "{spec}: an output was made");
    }
}

#[test]
fn solver_options_must_name_a_solver() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let spec = solver("mine", backtrack, None);
    let cases: [(&[&str], &str); 5] = [
        (
            &["--solver-config", "other=1"],
            "--solver-config other=1: no --solver is named \"other\"; named: mine",
        ),
        (
            &["--solver-config", "mine=-1"],
            "--solver-config mine=-1: \"-1\" is not a number from 0 to 4294967295",
        ),
        (
            &["--solver-config", "mine"],
            "--solver-config mine: expected NAME=U32",
        ),
        (
            &["--serial", "fast"],
            "--serial fast: no --solver is named \"fast\"; named: mine",
        ),
        (&["--solver", &spec], "--solver mine=lib:"),
    ];
    for (extra, expected) in cases {
        let assert = bench()
            .args(["run", "--solver", &spec, "--out", "-"])
            .args(extra)
            .assert()
            .code(2);
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            stderr.starts_with(&format!("error: {expected}")),
            "{extra:?}: {stderr}"
        );
    }
}

/// tests/solvers/hostile.c's `symbol` (with `config`) over mixed.txt three times, beside
/// `fast`, with `--strict` and a 1 s timeout: on each copy of line 3 (the lines
/// `TRIGGERS`) it exits, aborts, faults, spins or writes past its solution. Each of those
/// rows fails, with `why` in its error; every other row is `fast`'s; the run goes on to
/// the end, writes every row and its summary, and exits 1. A process that ended (all but
/// a write within the solution's NUL byte) is replaced.
fn hostile(symbol: &str, config: Option<&str>, why: &str, status: &str) {
    let restarted = config != Some("1");
    let Some((_, _, hostile)) = libraries() else {
        return;
    };
    const TRIGGERS: [u64; 3] = [3, 12, 21];
    let dir = tempfile::tempdir().unwrap();
    let corpus = mixed_repeated(dir.path(), 3);
    let summary = dir.path().join("summary.json");
    let spec = solver("h", hostile, Some(symbol));
    let mut args = vec![
        corpus.to_str().unwrap(),
        "-s",
        "fast",
        "-j",
        "2",
        // One process per worker: the count below is of restarts.
        "--replicates",
        "1",
        "--solver",
        &spec,
        "--strict",
        "--timeout",
        "500ms",
        "--summary",
        summary.to_str().unwrap(),
    ];
    let config = config.map(|c| format!("h={c}"));
    if let Some(config) = &config {
        args.extend(["--solver-config", config]);
    }
    let (code, rows, stderr) = run(&args);
    assert_eq!(code, 1, "{symbol}: --strict fails the run: {stderr}");
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
    assert_eq!(mine.len(), 3 * 7, "{symbol}: every row written");
    for (line, row) in &mine {
        if TRIGGERS.contains(line) {
            assert_eq!(row["status"], "aborted", "{symbol}: line {line}");
            assert_eq!(row["ended"], status, "{symbol}: line {line}");
            assert!(
                row["error"].contains(why),
                "{symbol}: line {line}: {:?} should say {why:?}",
                row["error"]
            );
        } else {
            for field in ["status", "solutions", "solution", "error"] {
                assert_eq!(
                    row[field], fast[line][field],
                    "{symbol}: line {line}: {field}"
                );
            }
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let row = summary_row(&summary, "h");
    assert_eq!(row["aborted"], 3, "{symbol}");
    // One process per worker, and one more after each that ended (the warm-up's too).
    let used = &summary["resources"][0];
    assert_eq!(used["strategy"], "h");
    let processes = used["processes"].as_u64().unwrap();
    if restarted {
        assert!(processes >= 2 + 3, "{symbol}: {used}");
    } else {
        assert_eq!(processes, 2, "{symbol}: {used}");
    }
}

#[test]
fn a_library_that_exits_fails_only_that_puzzle() {
    hostile("hostile_exit", None, "exited with status 0", "failed");
}

#[test]
fn a_library_that_aborts_fails_only_that_puzzle() {
    hostile("hostile_abort", None, "SIGABRT", "failed");
}

#[test]
fn a_library_that_faults_fails_only_that_puzzle() {
    hostile("hostile_segfault", None, "SIGSEGV", "failed");
}

#[test]
fn a_library_that_never_returns_is_killed_at_the_timeout_and_charged_the_limit() {
    hostile("hostile_spin", None, "", "timeout");
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let spec = solver("h", library, Some("hostile_spin"));
    let mixed = fixture("mixed.txt");
    let (_, rows, _) = run(&[
        &mixed,
        "-s",
        "fast",
        "--solver",
        &spec,
        "--timeout",
        "300ms",
    ]);
    assert_eq!(of(&rows, "h")[&3]["time_ns"], "300000000");
}

/// A worker that keeps saying it has just started a puzzle (the library rewrites the start
/// time in the shared memory) is bounded by the timeout all the same, kept on
/// sudoku-bench's own clock, and the puzzle it was stuck on is the one charged.
#[test]
fn a_worker_that_fakes_progress_is_killed_at_the_timeout() {
    hostile(
        "hostile_forge_progress",
        None,
        "timed out after 500ms",
        "timeout",
    );
}

/// The first SIGINT stops a run whose worker fakes progress on a puzzle (the watchdog
/// that trusted the worker never fired, and the run waited on it for ever): once that
/// puzzle's timeout is out, the run ends (130), and every row finished is in the CSV.
#[test]
fn the_first_signal_stops_a_run_whose_worker_fakes_progress_and_keeps_its_rows() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    const EASY: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const TRIGGER: &str =
        "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.txt");
    // The trigger in the second chunk (the first is 256 lines).
    let mut lines = vec![EASY; 256];
    lines.push(TRIGGER);
    lines.extend([EASY; 10]);
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let csv = dir.path().join("out.csv");
    let spec = solver("h", library, Some("hostile_forge_progress"));
    let mut run = crate::interrupt::Running::start(
        &[
            "run",
            corpus.to_str().unwrap(),
            "-s",
            "fast",
            "-j",
            "1",
            "--replicates",
            "1",
            "--no-warmup",
            "--solver",
            &spec,
            "--timeout",
            "3s",
            "-q",
            "-o",
            csv.to_str().unwrap(),
        ],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    std::thread::sleep(std::time::Duration::from_secs(1));
    run.signal(libc::SIGINT);
    let status = run
        .exit_within(PATIENCE)
        .expect("the first SIGINT stops the run");
    let stderr = run.stderr();
    assert_eq!(status.code(), Some(130), "{stderr}");
    let rows = rows(&std::fs::read(&csv).unwrap());
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
    for line in 1..=256u64 {
        assert_eq!(fast[&line]["status"], "unique", "line {line}: {stderr}");
        assert_eq!(mine[&line]["status"], "unique", "line {line}: {stderr}");
    }
}

/// A `longjmp` into a call that has returned sends the worker back into its loop with
/// that call's registers: its answer must not land on another puzzle, and the batch must
/// not go round again (which no timeout caught).
#[test]
fn a_library_that_longjmps_into_an_old_call_is_charged_on_its_own_puzzle() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let spec = solver("h", library, Some("hostile_longjmp"));
    let mixed = fixture("mixed.txt");
    let args = ["-s", "fast", "-j", "1", "--replicates", "1", "--no-warmup"];
    let (_, rows, stderr) = run(&[
        &[&mixed[..], "--solver", &spec, "--timeout", "500ms"],
        &args[..],
    ]
    .concat());
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
    assert_eq!(mine.len(), 7, "{stderr}");
    for (line, row) in &mine {
        if *line == 3 {
            assert!(
                row["ended"] != "finished",
                "line 3 is not believed: {row:?}"
            );
        } else {
            for field in ["status", "solutions", "solution", "error", "ended"] {
                assert_eq!(
                    row[field], fast[line][field],
                    "line {line}: {field}: {stderr}"
                );
            }
        }
    }
}

/// Descriptors 3 and 4 were the worker's pipes: closing them broke its channel, and the
/// next batch's first puzzle was charged with it. They are not the pipes any more.
#[test]
fn a_library_that_closes_descriptors_3_and_4_breaks_nothing() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = mixed_repeated(dir.path(), 5);
    let spec = solver("h", library, Some("hostile_close_low"));
    let (code, rows, stderr) = run(&[corpus.to_str().unwrap(), "-s", "fast", "--solver", &spec]);
    assert_eq!(code, 0, "{stderr}");
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
    assert_eq!(mine.len(), 5 * 7);
    for (line, row) in &mine {
        for field in ["status", "solutions", "error", "ended"] {
            assert_eq!(row[field], fast[line][field], "line {line}: {field}");
        }
    }
}

/// A library that closes every descriptor (as code that makes itself a daemon does)
/// breaks the worker's pipes wherever they are: the worker sees it after that solve and
/// charges that puzzle, saying so, never another.
#[test]
fn a_library_that_closes_the_worker_s_pipes_fails_only_the_puzzle_that_did() {
    hostile(
        "hostile_close_all",
        None,
        "the solver closed (or replaced) descriptor",
        "failed",
    );
}

#[test]
fn a_library_that_writes_past_its_solution_fails_that_puzzle() {
    hostile(
        "hostile_overrun",
        Some("1"),
        "wrote 'x' past the 81 characters of its solution",
        "failed",
    );
    for bytes in ["18", "1000"] {
        hostile(
            "hostile_overrun",
            Some(bytes),
            "wrote (or read) past the end of its solution buffer (82 bytes; at byte 82)",
            "failed",
        );
    }
}

#[test]
fn a_memory_limit_fails_the_puzzle_that_needs_more_and_peak_memory_is_reported() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    // 256 MiB wanted on line 3: within no limit, the peak shows it.
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    let spec = solver("h", library, Some("hostile_allocate"));
    let mixed = fixture("mixed.txt");
    let base = [
        mixed.as_str(),
        "-s",
        "fast",
        "--solver",
        &spec,
        "--solver-config",
        "h=256",
        "--summary",
        summary.to_str().unwrap(),
    ];
    let (code, rows, stderr) = run(&base);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(of(&rows, "h")[&3]["status"], "multiple");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let peak = json["resources"][0]["max_rss_kib"].as_u64().unwrap();
    assert!(peak >= 256 * 1024, "peak {peak} KiB");
    // Bounded to 128 MiB, that puzzle fails (its allocation refused), the rest are right.
    let (code, rows, stderr) = run(&[&base[..], &["--memory-limit", "128M", "--strict"]].concat());
    assert_eq!(code, 1, "{stderr}");
    let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
    for (line, row) in &mine {
        if *line == 3 {
            assert_eq!(row["status"], "aborted");
            assert!(
                row["error"].contains("its address space is limited to 134217728 bytes"),
                "{}",
                row["error"]
            );
        } else {
            assert_eq!(row["status"], fast[line]["status"], "line {line}");
        }
    }
}

#[test]
fn no_worker_outlives_sudoku_bench_killed_while_one_hangs() {
    let Some((_, _, hostile)) = libraries() else {
        return;
    };
    // A copy of the library in a directory of its own: its workers name it.
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("libhostile.so");
    std::fs::copy(hostile, &library).unwrap();
    let spec = solver("h", &library, Some("hostile_spin"));
    let mut run = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", &fixture("mixed.txt"), "-s", "fast", "-j", "2"])
        .args([
            "--solver",
            &spec,
            "--timeout",
            "0",
            "--quiet",
            "--out",
            "/dev/null",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Both workers start; one spins on line 3 with no timeout to stop it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while processes_naming(dir.path()).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no workers started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        run.try_wait().unwrap().is_none(),
        "the spinning worker holds the run"
    );
    run.kill().unwrap();
    run.wait().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = processes_naming(dir.path());
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left running: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A daemon the library starts (fork, setsid, fork again) leaves the worker's session and
/// process group: the worker adopts it, and it is killed with the worker at the end.
#[test]
fn no_daemon_a_library_starts_outlives_the_run() {
    let Some((_, _, hostile)) = libraries() else {
        return;
    };
    // A copy of the library in a directory of its own: its workers, and the daemons they
    // fork, name it.
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("libhostile.so");
    std::fs::copy(hostile, &library).unwrap();
    let spec = solver("h", &library, Some("hostile_daemon"));
    let (code, rows, stderr) = run(&[
        &fixture("mixed.txt"),
        "-s",
        "fast",
        "-j",
        "2",
        "--solver",
        &spec,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(of(&rows, "h")[&3]["status"], "multiple", "{stderr}");
    // Killed ones may take a moment to be gone.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = processes_naming(dir.path());
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left running: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_first_signal_is_acknowledged_while_a_library_hangs_and_the_run_stops_at_its_timeout() {
    let Some((_, _, hostile)) = libraries() else {
        return;
    };
    let spec = solver("h", hostile, Some("hostile_spin"));
    let run = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", &fixture("mixed.txt"), "-s", "fast", "-j", "1"])
        .args([
            "--solver",
            &spec,
            "--timeout",
            "3s",
            "--quiet",
            "--out",
            "/dev/null",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Line 3 spins in the warm-up, at the start: the signal comes while it does.
    std::thread::sleep(std::time::Duration::from_millis(800));
    // SAFETY: kill(2) with plain integers.
    unsafe { libc::kill(run.id() as libc::pid_t, libc::SIGINT) };
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "SIGINT: stopping after the current puzzles (a solver from outside may take up to \
             its --timeout, 3s)"
        ),
        "{stderr}"
    );
}

/// Worker processes that sudoku-bench cannot start for want of its own descriptors
/// (`ulimit -n 16`, `-j 16`) are its failure, not the library's: exit 2, no row `aborted`.
#[cfg(unix)]
#[test]
fn workers_the_harness_cannot_start_fail_the_run_not_the_puzzles() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    crate::assert_harness_failure_is_no_row(&solver("c", backtrack, None));
}

/// A library that signals its parent (its worker's: sudoku-bench) with SIGINT or SIGTERM
/// on each copy of line 3 is not the user: the run goes on to the end and exits 0, every
/// row as `fast`'s, and says once which solver sent what.
#[test]
fn a_signal_from_a_solver_s_process_does_not_stop_the_run_and_is_said_once() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = mixed_repeated(dir.path(), 3);
    let spec = solver("h", library, Some("hostile_signal"));
    for (config, signal) in [("h=0", "SIGINT"), ("h=15", "SIGTERM")] {
        let (code, rows, stderr) = run(&[
            corpus.to_str().unwrap(),
            "-s",
            "fast",
            "-j",
            "2",
            "--solver",
            &spec,
            "--solver-config",
            config,
        ]);
        assert_eq!(code, 0, "{signal}: {stderr}");
        let (fast, mine) = (of(&rows, "fast"), of(&rows, "h"));
        assert_eq!(mine.len(), 3 * 7, "{signal}: every row written: {stderr}");
        for (line, row) in &mine {
            for field in ["status", "solutions", "error", "ended"] {
                assert_eq!(row[field], fast[line][field], "{signal}: line {line}");
            }
        }
        let said = format!("sent {signal} to sudoku-bench: ignored");
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains(&said)).collect();
        assert_eq!(warnings.len(), 1, "{signal}: said once: {stderr}");
        assert!(
            warnings[0].starts_with("warning: the solver h (its process "),
            "{signal}: names the solver: {stderr}"
        );
    }
}

/// With a solver that signals sudoku-bench, a SIGINT from outside the run (this test's
/// process) still stops it as before: 130, and the rows finished are in the CSV.
#[test]
fn a_signal_from_outside_still_stops_a_run_whose_solver_signals() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 20 ms a puzzle: the run lasts seconds.
    let corpus = mixed_repeated(dir.path(), 40);
    let csv = dir.path().join("out.csv");
    let spec = solver("h", library, Some("hostile_signal"));
    let config = format!("h={}", 20 << 8);
    let mut run = crate::interrupt::Running::start(
        &[
            "run",
            corpus.to_str().unwrap(),
            "-s",
            "fast",
            "-j",
            "1",
            "--solver",
            &spec,
            "--solver-config",
            &config,
            "-q",
            "-o",
            csv.to_str().unwrap(),
        ],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    let mut stderr = run.stderr_lines();
    stderr
        .wait_for("sent SIGINT to sudoku-bench: ignored", PATIENCE)
        .expect("the solver's signal is said");
    assert!(
        run.0.try_wait().unwrap().is_none(),
        "the solver's signal stopped the run: {:?}",
        stderr.seen
    );
    run.signal(libc::SIGINT);
    let status = run
        .exit_within(PATIENCE)
        .expect("a SIGINT from outside stops the run");
    let said = stderr.all();
    assert_eq!(status.code(), Some(130), "{said:?}");
    assert!(
        said.iter().any(|l| l.starts_with("SIGINT: stopping after")),
        "{said:?}"
    );
    let rows = rows(&std::fs::read(&csv).unwrap());
    let mine = of(&rows, "h");
    assert!(
        !mine.is_empty() && mine.len() < 40 * 7,
        "stopped part way: {} rows",
        mine.len()
    );
}

/// An in-process library that moves the process elsewhere (`chdir("/")`, on line 3) while
/// the run goes on: the outputs named relative to where the run started (`-o`,
/// `--summary`, `--report`, the last made from the CSV once the run is over) are all
/// written there, and the run exits 0.
#[test]
fn an_in_process_library_that_changes_directory_moves_no_output() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("mixed.txt"), dir.path().join("mixed.txt")).unwrap();
    let spec = solver("h", library, Some("hostile_chdir"));
    let out = bench()
        .current_dir(dir.path())
        .args(["run", "mixed.txt", "-s", "fast", "--solver", &spec])
        .args(["--in-process", "h", "-q", "-o", "out.csv"])
        .args(["--summary", "summary.json", "--report", "report.html"])
        .timeout(PATIENCE)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows = rows(&std::fs::read(dir.path().join("out.csv")).unwrap());
    assert_eq!(of(&rows, "h").len(), 7, "{stderr}");
    let summary = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
    assert!(summary.contains("\"h\""), "{summary}");
    let report = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(report.contains("<html"), "{stderr}");
}

/// An in-process library that moves the process elsewhere as it is loaded (an
/// initialiser's `chdir("/")`) would have the corpora and outputs named relative to where
/// the run started read and written there: the run is refused before any output is made,
/// saying why and what to do. Isolated (the default), the move is its worker's alone.
#[test]
fn an_in_process_library_that_changes_directory_as_it_loads_is_refused() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("mixed.txt"), dir.path().join("mixed.txt")).unwrap();
    let spec = solver("h", library, Some("hostile_chdir"));
    let run = |extra: &[&str]| {
        bench()
            .current_dir(dir.path())
            .env("HOSTILE_CHDIR_AT_LOAD", "1")
            .args(["run", "mixed.txt", "-s", "fast", "--solver", &spec])
            .args(["-q", "-o", "out.csv", "--summary", "summary.json"])
            .args(extra)
            .timeout(PATIENCE)
            .output()
            .unwrap()
    };
    let out = run(&["--in-process", "h"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("loading it moved sudoku-bench's current directory from")
            && stderr.contains("without --in-process h"),
        "{stderr}"
    );
    assert!(!dir.path().join("out.csv").exists());
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        of(
            &rows(&std::fs::read(dir.path().join("out.csv")).unwrap()),
            "h"
        )
        .len(),
        7
    );
    assert!(dir.path().join("summary.json").is_file());
}

/// A library whose worker signals sudoku-bench as it loads the library, while the run
/// loads its solvers (before any puzzle): that is the run's own process too, and does not
/// stop it.
#[test]
fn a_signal_from_a_solver_s_process_while_it_loads_does_not_stop_the_run() {
    let Some((_, _, library)) = libraries() else {
        return;
    };
    let spec = solver("h", library, Some("hostile_signal"));
    let out = bench()
        .env("HOSTILE_SIGNAL_AT_LOAD", "1")
        .args(["run", &fixture("mixed.txt"), "-s", "fast", "-j", "1"])
        .args(["--solver", &spec, "-q", "--out", "-"])
        .timeout(PATIENCE)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(of(&rows(&out.stdout), "h").len(), 7, "{stderr}");
    assert!(
        stderr.contains("warning: the solver h (its process ")
            && stderr.contains("sent SIGINT to sudoku-bench: ignored"),
        "{stderr}"
    );
}

/// `filter` and `check --solve` with a solver that crashes or hangs on one puzzle (line 3
/// of mixed.txt): that puzzle's search stops short, said for what it was, and `--timeout`
/// ends the hang; every other line is judged as ever. A crash is an error (exit 1); a
/// budget that runs out is filter's `aborted`, asked for, but leaves check's column unjudged.
/// (The timeout is long enough that no other puzzle reaches it on a busy machine.)
#[test]
fn filter_and_check_say_why_a_search_stopped_short_and_time_out_a_hang() {
    let Some((_, _, hostile)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (kept, rejects) = (dir.path().join("k.txt"), dir.path().join("r.txt"));
    let filter = |symbol: &str, extra: &[&str], code: i32| {
        let out = bench()
            .arg("filter")
            .arg(fixture("mixed.txt"))
            .args(["--solver", &solver("x", hostile, Some(symbol)), "-q"])
            .args(extra)
            .arg("-o")
            .arg(&kept)
            .arg("--rejects")
            .arg(&rejects)
            .timeout(PATIENCE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{symbol}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let rejected = std::fs::read_to_string(&rejects).unwrap();
        let line3 = rejected
            .lines()
            .find(|l| l.contains("mixed.txt:3\t"))
            .unwrap_or_else(|| panic!("{symbol}: line 3 not rejected: {rejected}"))
            .to_string();
        (line3, stderr)
    };
    let (crashed, said) = filter("hostile_segfault", &[], 1);
    assert!(
        crashed.contains("\taborted\tthe solver's process was killed by SIGSEGV"),
        "{crashed}"
    );
    assert!(
        said.contains(
            "mixed.txt:3: search stopped short: the solver's process was killed by SIGSEGV"
        ) && said.contains("; 1 search failed (error above), its line rejected"),
        "{said}"
    );
    let (hung, said) = filter("hostile_spin", &["--timeout", "2s"], 0);
    assert!(hung.contains("\taborted\ttimed out after 2s\t"), "{hung}");
    assert!(!said.contains("error:"), "a budget is no error: {said}");

    // A CSV with solution columns: line 2 unique, line 3 the puzzle the solver fails on.
    let rows = run(&[&fixture("counting.txt"), "-s", "fast"]).1;
    let fast = of(&rows, "fast");
    let csv = dir.path().join("t.csv");
    std::fs::write(
        &csv,
        format!(
            "puzzle,solution\n{},{}\n{},{}\n",
            fast[&3]["puzzle"], fast[&3]["solution"], fast[&4]["puzzle"], fast[&4]["solution"]
        ),
    )
    .unwrap();
    for (symbol, extra, why) in [
        (
            "hostile_segfault",
            &[][..],
            "the solver's process was killed by SIGSEGV",
        ),
        (
            "hostile_spin",
            &["--timeout", "2s"][..],
            "timed out after 2s",
        ),
    ] {
        let out = bench()
            .args([
                "check",
                "--solve",
                "--solver",
                &solver("x", hostile, Some(symbol)),
            ])
            .arg(&csv)
            .args(extra)
            .timeout(PATIENCE)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(1), "{symbol}: {stderr}");
        assert_eq!(stdout, "", "{symbol}: the corpus has no fault");
        assert!(
            stderr.contains(&format!(
                "error: {}:3: search stopped short: {why}",
                csv.display()
            )) && stderr.contains("; its solution column not judged"),
            "{symbol}: {stderr}"
        );
        assert!(
            stderr.contains("2 puzzle lines, no faults")
                && stderr.contains("; 1 search stopped short (error above): its column not judged"),
            "{symbol}: {stderr}"
        );
    }
}
