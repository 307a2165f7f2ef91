//! `sudoku-bench merge`: parts of a run split with `--shard K/N` back into the single run's
//! rows and summary, and the parts it refuses, each named.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sudoku_bench::report::{PuzzleResult, Status, Summary};

use super::{bench, rows, Row};

const CORPORA: [&str; 2] = ["datasets/minimal.txt", "datasets/classic.txt"];

/// `run` over both corpora into `dir/NAME.csv` and `dir/NAME.json`, with `extra` options
/// (strategies fast and dlx unless they say `-s`).
fn run_into(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let csv = dir.join(format!("{name}.csv"));
    let strategies = if extra.contains(&"-s") {
        &[][..]
    } else {
        &["-s", "fast,dlx"][..]
    };
    bench()
        .arg("run")
        .args(CORPORA)
        .args(strategies)
        .args(["-q", "-o"])
        .arg(&csv)
        .arg("--summary")
        .arg(csv.with_extension("json"))
        .args(extra)
        .assert()
        .success();
    csv
}

fn read_rows(csv: &Path) -> Vec<Row> {
    rows(&std::fs::read(csv).unwrap())
}

fn without_times(mut rows: Vec<Row>) -> Vec<Row> {
    for r in &mut rows {
        r.remove("time_ns");
    }
    rows
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn edit(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v = json(path);
    f(&mut v);
    std::fs::write(path, serde_json::to_vec(&v).unwrap()).unwrap();
}

/// The summary rows' fields a run decides whatever the machine: counts, nodes, guesses.
fn counts(summary: &Value) -> Vec<Value> {
    summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let keep = [
                "corpus",
                "strategy",
                "puzzles",
                "unique",
                "multiple",
                "unsolvable",
                "invalid",
                "malformed",
                "aborted",
                "mismatches",
                "searched",
                "mean_nodes",
                "mean_guesses",
                "no_guess_share",
            ];
            keep.iter().map(|k| (k.to_string(), r[k].clone())).collect()
        })
        .collect()
}

/// The time figures of a Summary fed the rows of a per-puzzle CSV.
fn quantiles_of(rows: &[Row]) -> Vec<[u64; 5]> {
    let mut s = Summary::default();
    for r in rows {
        let g = s.group(&r["corpus"], &r["strategy"]);
        let status = *Status::ALL
            .iter()
            .find(|st| st.as_str() == r["status"])
            .unwrap();
        s.add(
            g,
            &PuzzleResult {
                status,
                time_ns: r["time_ns"].parse().ok(),
                ..PuzzleResult::default()
            },
        );
    }
    s.rows()
        .iter()
        .map(|r| [r.total_time_ns, r.median_ns, r.p90_ns, r.p99_ns, r.max_ns])
        .collect()
}

fn merge(parts: &[PathBuf], out: &Path) -> assert_cmd::assert::Assert {
    bench()
        .arg("merge")
        .args(parts)
        .arg("-o")
        .arg(out)
        .arg("--summary")
        .arg(out.with_extension("json"))
        .arg("-q")
        .assert()
}

#[test]
fn shards_merge_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = run_into(dir.path(), "whole", &[]);
    for n in [1, 2, 3, 7] {
        let parts: Vec<PathBuf> = (1..=n)
            .map(|k| {
                run_into(
                    dir.path(),
                    &format!("part-{n}-{k}"),
                    &["--shard", &format!("{k}/{n}")],
                )
            })
            .collect();
        let all = dir.path().join(format!("all-{n}.csv"));
        merge(&parts, &all).success();
        let merged = read_rows(&all);
        assert_eq!(
            without_times(merged.clone()),
            without_times(read_rows(&whole)),
            "{n} shards"
        );
        let summary = json(&all.with_extension("json"));
        assert_eq!(
            counts(&summary),
            counts(&json(&whole.with_extension("json")))
        );
        let times: Vec<[u64; 5]> = summary["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                ["total_time_ns", "median_ns", "p90_ns", "p99_ns", "max_ns"]
                    .map(|k| r[k].as_u64().unwrap())
            })
            .collect();
        assert_eq!(times, quantiles_of(&merged), "{n} shards: quantiles exact");
        assert_eq!(summary.get("shard"), None);
    }
}

#[test]
fn a_whole_run_merges_as_itself() {
    let dir = tempfile::tempdir().unwrap();
    let whole = run_into(dir.path(), "whole", &[]);
    let all = dir.path().join("all.csv");
    merge(std::slice::from_ref(&whole), &all).success();
    assert_eq!(std::fs::read(&all).unwrap(), std::fs::read(&whole).unwrap());
    let (a, b) = (
        json(&all.with_extension("json")),
        json(&whole.with_extension("json")),
    );
    assert_eq!(a["rows"], b["rows"]);
    assert_eq!(a["state"]["groups"].as_array().unwrap().len(), 4);
    let times: Vec<[u64; 5]> = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            ["total_time_ns", "median_ns", "p90_ns", "p99_ns", "max_ns"]
                .map(|k| r[k].as_u64().unwrap())
        })
        .collect();
    assert_eq!(times, quantiles_of(&read_rows(&all)));
}

/// Two whole runs posing as parts 1/2 and 2/2 (their rows overlap, but each check below
/// refuses before the rows are read).
fn two_parts(dir: &Path, second: &[&str]) -> Vec<PathBuf> {
    let a = run_into(dir, "a", &[]);
    let b = run_into(dir, "b", second);
    for (csv, k) in [(&a, 1), (&b, 2)] {
        edit(&csv.with_extension("json"), |v| {
            v["shard"] = serde_json::json!({"index": k, "count": 2})
        });
    }
    vec![a, b]
}

fn refused(parts: &[PathBuf], dir: &Path) -> String {
    let out = dir.join("all.csv");
    let assert = merge(parts, &out).failure();
    assert!(!out.exists(), "nothing written");
    assert!(
        std::fs::read_dir(dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains(".tmp")),
        "no temporary file left"
    );
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

#[test]
fn parts_of_different_settings_are_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let parts = two_parts(dir.path(), &["--max-nodes", "5000"]);
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("a.json") && err.contains("b.json") && err.contains("--max-nodes"),
        "{err}"
    );
    assert!(err.contains("1000000 and 5000"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let parts = two_parts(dir.path(), &["-s", "fast"]);
    // Both CSVs say the strategies: keep the check on the summaries' (corpus, strategy).
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.json") && err.contains("corpora and strategies"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let parts = two_parts(dir.path(), &[]);
    edit(&parts[1].with_extension("json"), |v| {
        v["version"] = "0.0.1-other".into()
    });
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.json") && err.contains("versions") && err.contains("0.0.1-other"),
        "{err}"
    );
}

#[test]
fn missing_duplicate_and_interrupted_parts_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let parts = two_parts(dir.path(), &[]);
    let (a_json, b_json) = (
        parts[0].with_extension("json"),
        parts[1].with_extension("json"),
    );
    edit(&a_json, |v| v["shard"]["count"] = 3.into());
    edit(&b_json, |v| v["shard"]["count"] = 3.into());
    let err = refused(&parts, dir.path());
    assert!(err.contains("missing part 3/3"), "{err}");

    edit(&a_json, |v| {
        v["shard"] = serde_json::json!({"index": 2, "count": 2})
    });
    edit(&b_json, |v| v["shard"]["count"] = 2.into());
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("part 2/2 twice:") && err.contains("a.csv") && err.contains("b.csv"),
        "{err}"
    );

    edit(&a_json, |v| v["shard"]["index"] = 1.into());
    edit(&b_json, |v| v["interrupted"] = true.into());
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.json: this part was interrupted") && err.contains("run --resume"),
        "{err}"
    );

    edit(&b_json, |v| v["shard"] = Value::Null);
    edit(&b_json, |v| v["interrupted"] = false.into());
    let err = refused(&parts, dir.path());
    assert!(err.contains("b.json: a whole run"), "{err}");

    std::fs::remove_file(&b_json).unwrap();
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.csv: its summary") && err.contains("--summary part-K.json"),
        "{err}"
    );
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let whole = run_into(dir.path(), "whole", &[]);
    let before = std::fs::read(&whole).unwrap();
    let assert = bench()
        .arg("merge")
        .arg(&whole)
        .arg("-o")
        .arg(&whole)
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(
        err.contains("refusing to overwrite an input") && err.contains("whole.csv"),
        "{err}"
    );
    assert_eq!(std::fs::read(&whole).unwrap(), before);
}
