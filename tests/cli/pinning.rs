//! `run` pins each worker thread to a CPU of its own, from the CPUs it was given, and the
//! processes a worker starts for a solver from outside run on that CPU too; `--no-pin`
//! leaves them to the scheduler. What was done is in the summary.

use std::collections::BTreeSet;
use std::path::Path;

use crate::foreign_lib::libraries;
use crate::{bench, of, rows};

/// This test process's `Cpus_allowed_list` in /proc, as written there (`0-1`, `2,5`).
fn allowed_list_here() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string()
}

/// The CPUs this test process may use, from /proc (the tool reads them the same way
/// through sched_getaffinity).
fn allowed_here() -> BTreeSet<usize> {
    allowed_list_here()
        .split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<usize>>(),
            None => vec![part.parse().unwrap()],
        })
        .collect()
}

/// `run` over mixed.txt with `fast` and the `on_cpu` library (its guesses are the CPU it
/// solved on), and a `cmd:` solver that logs its CPUs before it answers: the summary (its
/// placement and replicates), the CPUs the library solved on, and the CPU lists of the
/// workers' `cmd:` copies.
fn run_logged(dir: &Path, extra: &[&str]) -> (serde_json::Value, BTreeSet<usize>, Vec<String>) {
    let (backtrack, _, _) = libraries().unwrap();
    let log = dir.join("cpus.log");
    let _ = std::fs::remove_file(&log);
    let summary = dir.join("summary.json");
    let cmd = format!(
        "c=cmd:sh -c 'grep Cpus_allowed_list /proc/self/status >> {}; exec python3 {}/examples/solvers/backtrack.py'",
        log.display(),
        env!("CARGO_MANIFEST_DIR")
    );
    let out = bench()
        .arg("run")
        .arg("tests/fixtures/mixed.txt")
        .args(["-s", "fast", "--solver"])
        .arg(format!("l=lib:{}:on_cpu", backtrack.display()))
        .args(["--solver", &cmd, "--out", "-", "-q", "--summary"])
        .arg(&summary)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = rows(&out.stdout);
    let solved_on: BTreeSet<usize> = of(&rows, "l")
        .values()
        .filter(|r| !r["guesses"].is_empty())
        .map(|r| r["guesses"].parse().unwrap())
        .collect();
    assert!(!solved_on.is_empty(), "the library solved puzzles");
    // The first copy is the probe that `run` starts to check the solver and time its pipe,
    // before any worker: the workers' copies follow.
    let copies = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().last().unwrap().to_string())
        .collect();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    (summary, solved_on, copies)
}

#[test]
fn one_worker_and_the_solver_processes_it_starts_run_on_one_cpu() {
    if libraries().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let allowed = allowed_here();
    let (summary, solved_on, copies) = run_logged(dir.path(), &["-j", "1"]);
    // The default: 8 solvers of each strategy per worker.
    assert_eq!(summary["replicates"], 8);
    let placement = &summary["placement"];
    assert_eq!(
        placement["allowed"],
        serde_json::json!(allowed.iter().collect::<Vec<_>>())
    );
    // One worker, on one CPU of the set (the one the run started on, or its core's first).
    let workers = placement["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 1, "{placement}");
    let first = workers[0].as_u64().unwrap() as usize;
    assert!(allowed.contains(&first), "{placement}");
    // The isolated library's worker process solved on the worker's CPU only, and the
    // cmd: copy (started through sh) could run there only.
    assert_eq!(solved_on, BTreeSet::from([first]));
    assert!(!copies.is_empty());
    for copy in &copies {
        assert_eq!(copy, &first.to_string(), "a cmd: copy's CPUs");
    }
}

#[test]
fn no_pin_leaves_every_process_the_whole_set() {
    if libraries().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let allowed = allowed_here();
    let (summary, solved_on, copies) = run_logged(dir.path(), &["-j", "1", "--no-pin"]);
    let placement = &summary["placement"];
    assert_eq!(placement["workers"], serde_json::json!([]), "{placement}");
    assert_eq!(placement["note"], "--no-pin");
    assert!(solved_on.is_subset(&allowed));
    let whole = allowed_list_here();
    for copy in &copies {
        assert_eq!(copy, &whole, "a cmd: copy's CPUs");
    }
}

#[test]
fn each_worker_has_a_cpu_of_its_own_and_more_workers_than_cpus_are_said() {
    if libraries().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let allowed = allowed_here();
    let n = allowed.len();
    let j = n.to_string();
    let (summary, solved_on, copies) = run_logged(dir.path(), &["-j", &j, "--replicates", "2"]);
    assert_eq!(summary["replicates"], 2);
    let placement = &summary["placement"];
    let workers: BTreeSet<usize> = placement["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(workers, allowed, "{placement}");
    assert!(solved_on.is_subset(&workers));
    // Each copy of the cmd: solver (one per worker and replicate) is pinned to one CPU,
    // its worker's.
    assert_eq!(copies.len(), 2 * n);
    let copies: BTreeSet<usize> = copies.iter().map(|c| c.parse().unwrap()).collect();
    assert_eq!(copies, workers);

    // One worker more than CPUs: none pinned, and said on stderr and in the summary.
    let more = (n + 1).to_string();
    let out = bench()
        .args([
            "run",
            "tests/fixtures/mixed.txt",
            "-s",
            "fast",
            "-q",
            "-o",
            "-",
        ])
        .args(["-j", &more])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: workers not pinned, on CPUs")
            && stderr.contains(&format!("{more} workers on {n} CPUs")),
        "{stderr}"
    );
}
