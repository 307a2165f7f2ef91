//! `examples/ci/solver-gate.sh`, the CI recipe of a solver's own repository, end to end in a
//! repository the test makes: a C solver (tests/solvers/backtrack.c) at three commits, the
//! second 20% slower than the first (it spins a fifth of each solve's time), the third the
//! second with a comment changed. The script builds two of them, times both in one run and
//! exits as `compare` does.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{outcome, say_skipped};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tools_found() -> bool {
    for tool in ["git", "cc"] {
        if Command::new(tool).arg("--version").output().is_err() {
            say_skipped(&format!(
                "{tool} not found: the CI recipe builds a solver from git"
            ));
            return false;
        }
    }
    true
}

fn git(repo: &Path, args: &[&str]) -> String {
    crate::git(repo, args, None)
}

/// The solver's repository, with the commits (oldest first): as is, 20% slower, the same
/// as the second but for a comment.
fn repository(repo: &Path) -> [String; 3] {
    let source =
        std::fs::read_to_string(Path::new(ROOT).join("tests/solvers/backtrack.c")).unwrap();
    let spin = "took * configuration / 100";
    assert!(
        source.contains(spin),
        "backtrack.c's spin changed: update this test"
    );
    let slower = source.replace(spin, "took * (configuration + 20) / 100");
    commit_each(repo, [source, slower.clone(), slower + "/* a comment */\n"])
        .try_into()
        .unwrap()
}

/// A new repository at `repo` holding `solver.c`, one commit for each of `texts` in turn
/// (`c0`, `c1`, ...): their hashes, oldest first.
fn commit_each(repo: &Path, texts: impl IntoIterator<Item = String>) -> Vec<String> {
    git(repo, &["init", "-q"]);
    let mut commits = Vec::new();
    for (i, text) in texts.into_iter().enumerate() {
        std::fs::write(repo.join("solver.c"), text).unwrap();
        git(repo, &["add", "-A"]);
        git(repo, &["commit", "-q", "-m", &format!("c{i}")]);
        commits.push(git(repo, &["rev-parse", "HEAD"]));
    }
    commits
}

/// The 1,000 puzzles of datasets/minimal.txt: backtrack.c takes up to milliseconds on them.
/// With 300, a run beside other tests and two spinning neighbours read a 20% slowdown as
/// 1.145x (0.894 .. 1.465): a few chunks per replicate, one of them hit by a burst on one
/// side only, and the interval over 8 replicates cannot clear 5%.
fn corpus(dir: &Path) -> PathBuf {
    let minimal = std::fs::read_to_string(Path::new(ROOT).join("datasets/minimal.txt")).unwrap();
    let lines: Vec<&str> = minimal
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(1000)
        .collect();
    let path = dir.join("puzzles.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn gate(
    repo: &Path,
    corpus: &Path,
    revs: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(ROOT).join("examples/ci/solver-gate.sh"))
        .args(revs)
        .current_dir(repo)
        .env("GATE_CORPUS", corpus)
        .env("SUDOKU_BENCH", env!("CARGO_BIN_EXE_sudoku-bench"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    outcome(cmd.output().unwrap())
}

#[test]
fn the_solver_gate_fails_a_commit_20_percent_slower_and_passes_an_unchanged_one() {
    if !tools_found() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("solver");
    std::fs::create_dir(&repo).unwrap();
    let [c0, c1, c2] = repository(&repo);
    let corpus = corpus(dir.path());

    let (code, stdout, stderr) = gate(&repo, &corpus, &[&c0, &c1], &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let verdict = std::fs::read_to_string(repo.join("perf-gate/verdict.md")).unwrap();
    assert!(verdict.contains("**slower**"), "{verdict}");
    assert_eq!(
        stdout.trim(),
        verdict.trim(),
        "the verdict is printed as written"
    );
    for file in ["run.csv", "run.json", "verdict.json"] {
        assert!(repo.join("perf-gate").join(file).is_file(), "{file}");
    }

    // Identical code, recorded in a history under the head's commit.
    let db = dir.path().join("history.sqlite");
    let history = [("GATE_HISTORY", db.to_str().unwrap())];
    let (code, stdout, stderr) = gate(&repo, &corpus, &[&c1, &c2], &history);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("base -&gt; head"), "{stdout}");
    let exported = outcome(
        Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
            .args(["history", "export", "--format", "bmf", "--commit", &c2])
            .args(["--db", db.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(exported.0, Some(0), "{exported:?}");
    // The comparison's series, the one the recipe says to watch.
    assert!(exported.1.contains("time-ratio"), "{exported:?}");
    assert!(exported.1.contains("base -> head"), "{exported:?}");
    // Every checkout the script made is gone.
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
}

#[test]
fn the_solver_gate_says_which_build_failed_and_exits_2() {
    if !tools_found() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("solver");
    std::fs::create_dir(&repo).unwrap();
    let [c0, c1, _] = repository(&repo);
    let corpus = corpus(dir.path());
    let (code, _, stderr) = gate(&repo, &corpus, &[&c0, &c1], &[("GATE_BUILD", "exit 3")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("building base ({c0}) failed")),
        "{stderr}"
    );
    let (code, _, stderr) = gate(&repo, &corpus, &["no-such-rev"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no commit no-such-rev"), "{stderr}");
}

/// `GATE_COUNT=1`: the same recipe also counts instructions (under Valgrind), and a commit
/// that does a loop of work more per call fails on its counts, which no noise moves. Times
/// are given a threshold no run reaches, so the exit status is the counts' alone.
#[test]
fn the_solver_gate_fails_a_commit_with_more_instructions_when_it_counts() {
    if !tools_found() {
        return;
    }
    let valgrind = Command::new("valgrind").arg("--version").output();
    if !valgrind.is_ok_and(|o| o.status.success()) {
        say_skipped("no valgrind on PATH: the counting gate needs it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("solver");
    std::fs::create_dir(&repo).unwrap();
    let source =
        std::fs::read_to_string(Path::new(ROOT).join("tests/solvers/backtrack.c")).unwrap();
    let solve = "size_t found = solve(puzzle, limit, solution, guesses);\n    uint64_t took";
    assert!(
        source.contains(solve),
        "backtrack.c's sudoku_solve changed: update this test"
    );
    let more = source.replace(
        solve,
        "size_t found = solve(puzzle, limit, solution, guesses);\n    \
         for (volatile int turn = 0; turn < 100000; turn++) {}\n    uint64_t took",
    );
    let commits = commit_each(&repo, [source, more]);
    let quick = Path::new(ROOT).join("tests/fixtures/counting.txt");
    let history = dir.path().join("h.sqlite");
    let env = [
        ("GATE_HISTORY", history.to_str().unwrap()),
        ("GATE_COUNT", "1"),
        ("GATE_THRESHOLD", "1000%"),
        // The timed run's verdict does not count here: as little of it as will do.
        ("GATE_RUN_OPTIONS", "--replicates 1 --timeout 0 -j 1"),
    ];
    let (code, stdout, stderr) = gate(&repo, &quick, &[&commits[0], &commits[1]], &env);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let counted = std::fs::read_to_string(repo.join("perf-gate/counted.md")).unwrap();
    assert!(counted.contains("**slower**"), "{counted}");
    assert!(counted.contains("instructions ratio"), "{counted}");
    // The head's counts are in the history, a series of their own.
    let out = crate::bench()
        .args(["history", "export", "--format", "bmf", "--db"])
        .arg(&history)
        .output()
        .unwrap();
    let (code, bmf, stderr) = outcome(out);
    assert_eq!(code, Some(0), "{stderr}");
    let bmf: serde_json::Value = serde_json::from_str(&bmf).unwrap();
    let head = bmf
        .as_object()
        .unwrap()
        .iter()
        .find(|(name, m)| name.contains("/head") && m.get("instructions").is_some())
        .unwrap_or_else(|| panic!("no instructions of head: {bmf}"));
    assert!(
        head.1["instructions"]["value"].as_f64().unwrap() > 0.0,
        "{bmf}"
    );
    // (Identical counts passing is `instructions::compare_gates_on_counts_...`'s; a gate
    // that passes, the timed test's above: each gate here builds two commits.)
}
