//! End-to-end tests of the `sudoku-bench` binary, one module per concern.
//!
//! One test binary rather than one per file: in the release profile that the README's test
//! command uses, every test binary is linked on its own with LTO, and six links cost more
//! than all of these tests take to run.

use assert_cmd::Command;

mod agreement;
mod bench;
#[cfg(unix)]
mod browser;
#[cfg(unix)]
mod ci_recipe;
mod compare;
mod compressed;
mod corpus;
#[cfg(unix)]
mod history_scripts;
// The example's own tests (the conformance battery on its strategy) run here rather than in a
// test binary of their own, which would cost a link of its own; `cargo test` still builds the
// example as the program that README (and so the README test) runs.
#[allow(dead_code)] // its `main` is the example's entry point, not called here
#[path = "../../examples/custom_strategy.rs"]
mod custom_strategy;
mod endings;
mod features;
mod ffi;
#[cfg(unix)]
mod foreign_cmd;
mod foreign_lib;
#[cfg(unix)]
mod history;
#[cfg(unix)]
mod history_postgres;
mod instructions;
mod integrity;
#[cfg(unix)]
mod interrupt;
mod loader;
mod merge;
mod options;
mod outputs;
#[cfg(target_os = "linux")]
mod pinning;
#[cfg(unix)]
mod readme;
mod reference;
mod report;
mod resume;
mod run;
mod safety;
mod shard;
#[cfg(unix)]
mod slurm_submit;
mod solver_flag;

/// Say on the process's own stderr that a test skipped its work: not through `eprintln!`,
/// which the test harness captures (and hides) for a test that passes.
/// `git ARGS` in `repo` as a test's own committer (no signing, first branch `main`), its
/// commits dated `date` when given; what it printed, trimmed. Panics when git fails.
#[cfg(unix)]
pub fn git(repo: &std::path::Path, args: &[&str], date: Option<&str>) -> String {
    let mut git = std::process::Command::new("git");
    git.current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args);
    if let Some(date) = date {
        git.env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date);
    }
    let out = git.output().unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

pub fn say_skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {why}");
}

/// The binary, run from the crate's root so that relative paths in its output are stable.
/// Processes (not zombies) with `dir` on their command line: what a test's solvers left.
pub fn processes_naming(dir: &std::path::Path) -> Vec<String> {
    let dir = dir.display().to_string();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&dir))
        .collect()
}

pub fn bench() -> Command {
    let mut cmd = Command::cargo_bin("sudoku-bench").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// A finished command's exit code, stdout and stderr, as text.
pub fn outcome(out: std::process::Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One row of a per-puzzle CSV: column name -> field.
pub type Row = std::collections::BTreeMap<String, String>;

/// The rows of a per-puzzle CSV, in order.
pub fn rows(csv_text: &[u8]) -> Vec<Row> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            headers
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Run with `args` plus `--out - --quiet`, expecting success; the CSV rows.
pub fn run_ok(args: &[&str]) -> Vec<Row> {
    let out = bench()
        .arg("run")
        .args(args)
        .args(["--out", "-", "--quiet"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    rows(&out)
}

/// Line -> row, for one strategy.
pub fn of(rows: &[Row], strategy: &str) -> std::collections::BTreeMap<u64, Row> {
    rows.iter()
        .filter(|r| r["strategy"] == strategy)
        .map(|r| (r["line"].parse().unwrap(), r.clone()))
        .collect()
}

/// A file of `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A summary JSON's rows, each as the fields a run decides whatever the machine or the
/// clock: counts, nodes, guesses. Merged and resumed runs must equal a single run on these.
pub fn summary_counts(summary: &serde_json::Value) -> Vec<Vec<(String, serde_json::Value)>> {
    const FIELDS: [&str; 16] = [
        "corpus",
        "strategy",
        "puzzles",
        "unique",
        "multiple",
        "unsolvable",
        "solved",
        "invalid",
        "malformed",
        "aborted",
        "mismatches",
        "failures",
        "searched",
        "mean_nodes",
        "mean_guesses",
        "no_guess_share",
    ];
    summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            FIELDS
                .iter()
                .map(|f| (f.to_string(), row[*f].clone()))
                .collect()
        })
        .collect()
}

/// `sudoku-bench ARGS` under `ulimit -n 18` (descriptors for itself, its signal handlers'
/// two and the solver's probe at load, but not for a worker process per thread of
/// `-j 16`): its exit code, stdout and stderr.
#[cfg(unix)]
pub fn outcome_with_few_descriptors(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -n 18 && exec "$0" "$@""#)
        .arg(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    outcome(out)
}

/// What a run under [`outcome_with_few_descriptors`] with solver `spec` must come to: the
/// harness's failure to start the solver's processes is exit 2, said as sudoku-bench's own,
/// in the summary too, and never a row charged to the solver.
#[cfg(unix)]
pub fn assert_harness_failure_is_no_row(spec: &str) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let json = dir.path().join("r.json");
    let (csv_s, json_s) = (csv.to_str().unwrap(), json.to_str().unwrap());
    let args = [
        "run",
        "datasets/classic.txt",
        "-s",
        "none",
        "--solver",
        spec,
        "-j",
        "16",
        "-q",
        "-o",
        csv_s,
        "--summary",
        json_s,
    ];
    let (code, _, stderr) = outcome_with_few_descriptors(&args);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("Too many open files")
            && stderr.contains("sudoku-bench's own failure")
            && stderr.contains("datasets/classic.txt: "),
        "{stderr}"
    );
    let charged: Vec<Row> = rows(&std::fs::read(&csv).unwrap())
        .into_iter()
        .filter(|r| r["error"].contains("Too many open files"))
        .collect();
    assert!(charged.is_empty(), "rows charged: {charged:?}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(
        summary["errors"][0]
            .as_str()
            .is_some_and(|e| e.contains("Too many open files")),
        "{summary}"
    );
}
