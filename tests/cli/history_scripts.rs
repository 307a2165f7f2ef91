//! The history's scripts end to end, each in a repository of its own made by the test.
//!
//! `scripts/history-backfill.sh`: which commits it builds, reuses and leaves out, the one
//! run, and the history it records. The libraries are not compiled here (a release build of
//! each commit would take minutes): `--lib-cmd` copies the one this test binary was built
//! with, logging each call, so what is checked is the script's choices, its run and its
//! records. `scripts/history-record.sh` (what the perf gate calls): what it records under
//! HEAD, what it refuses to, and that nothing in it fails the caller unless asked.

use std::path::Path;
use std::process::Command;

use crate::{outcome, say_skipped};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn has_git() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        say_skipped("git not found: the history scripts need a repository");
    }
    found
}

/// `git ARGS` in `repo`, its commits dated `date`.
fn git(repo: &Path, args: &[&str], date: &str) -> String {
    crate::git(repo, args, Some(date))
}

fn write(repo: &Path, name: &str, text: &str) {
    let path = repo.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit(repo: &Path, message: &str, date: &str) -> String {
    git(repo, &["add", "-A"], date);
    git(repo, &["commit", "-q", "-m", message], date);
    git(repo, &["rev-parse", "HEAD"], date)
}

/// Commits, oldest first: c0 without ffi/ (older than the library), c1, c2 changing only
/// README (c1's code), c3 changing src/, c4 adding crates/ (the workspace's split).
fn repository(repo: &Path) -> [String; 5] {
    git(repo, &["init", "-q"], "2026-01-01T00:00:00Z");
    for file in ["scripts/history-backfill.sh", "scripts/perf-corpus.sh"] {
        std::fs::create_dir_all(repo.join("scripts")).unwrap();
        std::fs::copy(Path::new(ROOT).join(file), repo.join(file)).unwrap();
    }
    std::fs::create_dir_all(repo.join("datasets")).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("datasets/minimal.txt"),
        repo.join("datasets/minimal.txt"),
    )
    .unwrap();
    write(repo, ".gitignore", "target/\nresults/\n");
    write(repo, "README.md", "0\n");
    let c0 = commit(repo, "c0", "2026-01-01T00:00:00Z");
    for (name, text) in [
        ("src/lib.rs", "1"),
        ("ffi/lib.rs", "1"),
        ("Cargo.toml", "1"),
        ("Cargo.lock", "1"),
    ] {
        write(repo, name, text);
    }
    let c1 = commit(repo, "c1", "2026-01-02T00:00:00Z");
    write(repo, "README.md", "2\n");
    let c2 = commit(repo, "c2", "2026-01-03T00:00:00Z");
    write(repo, "src/lib.rs", "3");
    let c3 = commit(repo, "c3", "2026-01-04T00:00:00Z");
    write(repo, "crates/core/src/lib.rs", "4");
    let c4 = commit(repo, "c4", "2026-01-05T00:00:00Z");
    [c0, c1, c2, c3, c4]
}

/// Run the script with `n` in `repo`; its exit code and stderr.
fn backfill(repo: &Path, n: &str, calls: &Path) -> (Option<i32>, String) {
    let lib_cmd = format!(
        "git rev-parse HEAD >> {} && cp {} \"$2\"",
        shlex::try_quote(&calls.display().to_string()).unwrap(),
        shlex::try_quote(&crate::ffi::library().display().to_string()).unwrap()
    );
    let out = Command::new("bash")
        .current_dir(repo)
        .args(["scripts/history-backfill.sh", n, "--db", "h.sqlite"])
        .args(["--lib-cmd", &lib_cmd])
        .args(["--", "--repeat", "1", "--threads", "1", "--timeout", "0"])
        .env("SUDOKU_BENCH", assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .env("CARGO_TARGET_DIR", repo.join("target"))
        .env("PERF_GATE_TOP1465", repo.join("none"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn query(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

#[test]
fn backfill_times_the_last_commits_in_one_run_and_records_each_under_its_commit() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let [c0, c1, c2, c3, c4] = repository(&repo);
    let calls = dir.path().join("calls");
    let db = repo.join("h.sqlite");

    let (code, err) = backfill(&repo, "4", &calls);
    assert_eq!(code, Some(0), "{err}");
    // Built once per code: c2 takes c1's library; c4 changed crates/ alone.
    let built = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(built, format!("{c1}\n{c3}\n{c4}\n"), "{err}");
    assert!(
        err.contains(&format!(
            "{}: src/, crates/, ffi/, Cargo.toml and Cargo.lock as at {}: its library taken",
            &c2[..10],
            &c1[..10]
        )),
        "{err}"
    );
    assert!(err.contains("timing 4 commit(s) in one run"), "{err}");
    // The four commits in order, each one run's row of fast, each older one with its
    // ratio against the newest.
    assert_eq!(
        query(&db, "SELECT sha FROM commits ORDER BY time, seq"),
        [c1.clone(), c2.clone(), c3.clone(), c4.clone()]
    );
    assert_eq!(
        query(&db, "SELECT runs.sha || ' ' || strategy FROM rows JOIN runs ON runs.id = rows.run ORDER BY runs.id"),
        [&c1, &c2, &c3, &c4].map(|c| format!("{c} fast"))
    );
    let newest = format!("c{}", &c4[..10]);
    assert_eq!(
        query(&db, "SELECT runs.sha || ' ' || old || ' ' || new FROM ab JOIN runs ON runs.id = ab.run ORDER BY runs.id"),
        [&c1, &c2, &c3].map(|c| format!("{c} {newest} fast"))
    );
    assert_eq!(
        query(&db, "SELECT DISTINCT value FROM labels"),
        ["history-backfill"]
    );
    // history check ran on it, and runs on it.
    assert!(err.contains("4 commit(s) recorded"), "{err}");
    let out = crate::bench()
        .args(["history", "check", "--db", &db.display().to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    assert!(text.contains("over 4 commits"), "{text}");

    // Again, one commit further back: c0 has no ffi/ and is said and left out; the others'
    // libraries are cached (nothing built), and each commit gets a second run.
    let (code, err) = backfill(&repo, "5", &calls);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("{} has no ffi/ crate", &c0[..10])),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), built, "{err}");
    assert!(
        err.contains("0 built, 3 cached, 1 with an earlier commit's code; 1 left out"),
        "{err}"
    );
    assert_eq!(query(&db, "SELECT sha FROM commits").len(), 4);
    assert_eq!(query(&db, "SELECT sha FROM runs").len(), 8);
    // The worktree is gone.
    assert_no_worktree_left(&repo);
}

/// The backfill's worktree is gone, from the disk and from git's list.
fn assert_no_worktree_left(repo: &Path) {
    assert!(!repo.join("target/backfill/tree").exists());
    let worktrees = crate::git(repo, &["worktree", "list"], None);
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
}

/// `scripts/history-record.sh ARGS` in `repo` with `bench` as sudoku-bench: exit code,
/// stdout, stderr.
fn record(repo: &Path, bench: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        Command::new("bash")
            .current_dir(repo)
            .arg("scripts/history-record.sh")
            .args(args)
            .env("SUDOKU_BENCH", bench)
            .output()
            .unwrap(),
    )
}

#[test]
fn record_puts_runs_under_head_only_when_head_is_what_ran_and_never_fails_the_caller() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("scripts/history-record.sh"),
        repo.join("scripts/history-record.sh"),
    )
    .unwrap();
    git(&repo, &["init", "-q"], "2026-01-01T00:00:00Z");
    write(&repo, "src/lib.rs", "1");
    let head = commit(&repo, "one", "2026-01-02T03:04:05Z");
    let summary = dir.path().join("run.json");
    crate::bench()
        .args([
            "run",
            "datasets/classic.txt",
            "-s",
            "fast,dlx",
            "-j",
            "1",
            "-q",
            "-o",
            "-",
        ])
        .arg("--summary")
        .arg(&summary)
        .assert()
        .success();
    let summary_s = summary.display().to_string();
    let real = assert_cmd::cargo::cargo_bin("sudoku-bench");
    let db = repo.join("results/history.sqlite");

    // Recorded under HEAD at its time, fast's row as `solver`; the check reports on it.
    let (code, out, err) = record(&repo, &real, &["--strategy", "fast=solver", &summary_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("under commit {head} (2026-01-02T03:04:05Z)")),
        "{err}"
    );
    assert!(out.contains("over 1 commits"), "{out}");
    assert_eq!(query(&db, "SELECT sha FROM commits"), [head.as_str()]);
    assert_eq!(query(&db, "SELECT strategy FROM rows"), ["solver"]);
    assert_eq!(query(&db, "SELECT value FROM labels"), ["ci"]);
    assert_eq!(query(&db, "SELECT branch FROM runs"), ["main"]);

    // --since a commit the history does not have: the whole history, said.
    let (code, _, err) = record(&repo, &real, &["--since", "abcdef1", &summary_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("abcdef1 is not in the history: the whole history checked"),
        "{err}"
    );

    // What the history cannot take is said, and the caller goes on: a history that
    // cannot be written, a summary that is not there.
    let (code, _, err) = record(
        &repo,
        &real,
        &["--db", "results/history.sqlite/x", &summary_s],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("not recorded (history add exit 2"), "{err}");
    assert!(err.contains("history check failed (exit 2"), "{err}");
    let (code, _, err) = record(&repo, &real, &["missing.json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("not recorded"), "{err}");

    // Code changed since HEAD, in src/ or in crates/: what ran is not HEAD, so nothing is
    // recorded under it.
    write(&repo, "crates/core/src/lib.rs", "2");
    let (code, _, err) = record(&repo, &real, &["--strategy", "dlx=solver", &summary_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("differ from HEAD"), "{err}");
    std::fs::remove_dir_all(repo.join("crates")).unwrap();
    write(&repo, "src/lib.rs", "2");
    let (code, _, err) = record(&repo, &real, &["--strategy", "dlx=solver", &summary_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("differ from HEAD"), "{err}");
    assert_eq!(
        query(&db, "SELECT source FROM runs").len(),
        2,
        "fast taken as solver, and the whole summary (the --since call)"
    );

    // A slowdown since --since fails only with --gate (a stand-in sudoku-bench whose check
    // finds one).
    let fake = dir.path().join("fake-bench");
    std::fs::write(
        &fake,
        "#!/bin/sh\n[ \"$2\" = check ] && { echo slowdown; exit 1; }\nexit 0\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, _, err) = record(&repo, &fake, &["--since", &head, &summary_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("reported, not gated"), "{err}");
    let (code, _, err) = record(&repo, &fake, &["--gate", "--since", &head, &summary_s]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("fails (--gate)"), "{err}");
}

/// Ctrl-C during a build: the script says so, exits 130, and leaves no worktree behind.
#[test]
fn backfill_stopped_by_ctrl_c_removes_its_worktree() {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repository(&repo);
    let mark = dir.path().join("building");
    // A build that says it has started, then waits to be stopped. The mark is made by bash
    // itself (`:` and a redirection), not by a child such as `touch`: a SIGINT that lands
    // while that child exits normally is taken by bash as handled by the child, and bash
    // went on to `sleep 120` with the signal spent (seen once at four test threads).
    let lib_cmd = format!(
        ": > {} && exec sleep 120",
        shlex::try_quote(&mark.display().to_string()).unwrap()
    );
    let mut command = Command::new("bash");
    command
        .current_dir(&repo)
        .args(["scripts/history-backfill.sh", "1", "--lib-cmd", &lib_cmd])
        .env("SUDOKU_BENCH", assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .env("CARGO_TARGET_DIR", repo.join("target"))
        .stderr(std::process::Stdio::piped())
        // Its own process group, as a terminal's foreground job: Ctrl-C reaches all of it.
        .process_group(0);
    // SAFETY: signal() is async-signal-safe. A foreground job takes SIGINT; this test may
    // run under a shell's background job, which ignores it, and bash cannot trap a signal
    // ignored when it starts.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let group = i32::try_from(child.id()).unwrap();
    // SAFETY (both): kill has no memory effects; the group is our own child's.
    let signal = |sig| assert_eq!(unsafe { libc::kill(-group, sig) }, 0);
    let patience = Instant::now();
    while !mark.exists() {
        if patience.elapsed() > Duration::from_secs(60) {
            signal(libc::SIGKILL);
            panic!("the build never started");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(repo.join("target/backfill/tree").exists());
    signal(libc::SIGINT);
    let patience = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if patience.elapsed() > Duration::from_secs(60) {
            signal(libc::SIGKILL);
            panic!("SIGINT did not stop the backfill");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("history-backfill: interrupted"), "{err}");
    assert_no_worktree_left(&repo);
}
