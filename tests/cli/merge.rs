//! `sudoku-bench merge`: parts of a run split with `--shard K/N` back into the single run's
//! rows and summary, and the parts it refuses, each named.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sudoku_bench::results::{PuzzleResult, Status};
use sudoku_bench::summary::Summary;

use super::{bench, rows, summary_counts, Row};

const CORPORA: [&str; 2] = ["datasets/minimal.txt", "datasets/classic.txt"];

/// `run` over both corpora into `dir/NAME.csv` and `dir/NAME.json`, with `extra` options
/// (strategies fast and dlx unless they say `-s`).
pub(super) fn run_into(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
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

pub(super) fn read_rows(csv: &Path) -> Vec<Row> {
    rows(&std::fs::read(csv).unwrap())
}

fn without_times(mut rows: Vec<Row>) -> Vec<Row> {
    for r in &mut rows {
        r.remove("time_ns");
        r.remove("replicate");
    }
    rows
}

pub(super) fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn edit(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v = json(path);
    f(&mut v);
    std::fs::write(path, serde_json::to_vec(&v).unwrap()).unwrap();
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

pub(super) fn merge(parts: &[PathBuf], out: &Path) -> assert_cmd::assert::Assert {
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
            summary_counts(&summary),
            summary_counts(&json(&whole.with_extension("json")))
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
fn a_part_run_over_another_file_that_differs_only_in_its_middle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Over 128 KiB, so that lines in the middle lie outside both ends the file identity
    // compares; the other file differs from line 2400 to 2420 only.
    let lines: Vec<String> = std::fs::read_to_string("datasets/minimal.txt")
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let corpus: Vec<&String> = lines.iter().cycle().take(4000).collect();
    let text = |edit: bool| -> String {
        let mut out = String::new();
        for (i, line) in corpus.iter().enumerate() {
            let line = if edit && (2400..2420).contains(&i) {
                &lines[i % 7]
            } else {
                line
            };
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    std::fs::write(dir.path().join("big.txt"), text(false)).unwrap();
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("big.txt"), text(true)).unwrap();
    assert_ne!(text(false), text(true));
    let part = |cwd: &Path, k: u32| {
        let csv = dir.path().join(format!("p{k}.csv"));
        bench()
            .current_dir(cwd)
            .args([
                "run",
                "big.txt",
                "-s",
                "fast",
                "-q",
                "--shard",
                &format!("{k}/2"),
            ])
            .arg("-o")
            .arg(&csv)
            .arg("--summary")
            .arg(csv.with_extension("json"))
            .assert()
            .success();
        csv
    };
    let parts = [part(dir.path(), 1), part(&other, 2)];
    let out = dir.path().join("all.csv");
    let assert = bench()
        .current_dir(dir.path())
        .arg("merge")
        .args(&parts)
        .args(["-q", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("p2.json: its lines of big.txt are not the lines of the file big.txt here"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing written");
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

    std::fs::write(&b_json, b"").unwrap();
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.json is empty: the run of")
            && err.contains("b.csv did not finish")
            && err.contains("run --resume -o")
            && !err.contains("not a summary JSON"),
        "{err}"
    );

    std::fs::remove_file(&b_json).unwrap();
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("b.json is missing: the run of")
            && err.contains("b.csv did not finish")
            && err.contains("run --resume -o"),
        "{err}"
    );
}

/// Parts 1/2 and 2/2 of a run, merged well as they are.
pub(super) fn halves(dir: &Path) -> Vec<PathBuf> {
    (1..=2)
        .map(|k| run_into(dir, &format!("part-{k}"), &["--shard", &format!("{k}/2")]))
        .collect()
}

#[test]
fn a_part_csv_cut_at_a_row_boundary_is_refused_naming_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let parts = halves(dir.path());
    let text = std::fs::read_to_string(&parts[0]).unwrap();
    // As `head -n -5`: whole rows, the last five gone.
    let lines: Vec<&str> = text.lines().collect();
    let kept = &lines[..lines.len() - 5];
    std::fs::write(&parts[0], format!("{}\n", kept.join("\n"))).unwrap();
    let left = read_rows(&parts[0]);
    let summary = json(&parts[0].with_extension("json"));
    // The first group, in the summary's order, whose rows the cut took.
    let (corpus, strategy, found, counted) = summary["state"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let (c, s) = (
                g["corpus"].as_str().unwrap(),
                g["strategy"].as_str().unwrap(),
            );
            let counted: u64 = g["counts"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            let n = left
                .iter()
                .filter(|r| r["corpus"] == c && r["strategy"] == s)
                .count() as u64;
            (c.to_string(), s.to_string(), n, counted)
        })
        .find(|(_, _, n, counted)| n != counted)
        .expect("the cut took rows the summary counts");
    assert!(found < counted);
    let err = refused(&parts, dir.path());
    assert!(
        err.contains(&format!(
            "part-1.csv: {found} rows for {corpus} / {strategy}, but its summary"
        )) && err.contains(&format!("part-1.json counts {counted}"))
            && err.contains("run --resume -o"),
        "{err}"
    );
}

#[test]
fn a_part_csv_cut_mid_row_is_refused_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let parts = halves(dir.path());
    let whole = std::fs::read(&parts[0]).unwrap();
    let rows_whole = read_rows(&parts[0]).len();
    // Cut inside the last row, then with a line break after the cut, as a copy might end.
    for tail in [&b""[..], b"\n"] {
        let mut cut = whole[..whole.len() - 30].to_vec();
        cut.extend_from_slice(tail);
        std::fs::write(&parts[0], &cut).unwrap();
        let err = refused(&parts, dir.path());
        assert!(
            err.contains(&format!(
                "part-1.csv:{}: the file is cut short at row {rows_whole}",
                rows_whole + 1
            )) && err.contains("run --resume -o"),
            "{err}"
        );
    }
}

#[test]
fn an_empty_part_csv_is_refused_naming_the_file_and_the_resume() {
    let dir = tempfile::tempdir().unwrap();
    let parts = halves(dir.path());
    std::fs::write(&parts[1], b"").unwrap();
    let err = refused(&parts, dir.path());
    assert!(
        err.contains("part-2.csv: the file is empty, without even a header")
            && err.contains("run --resume -o")
            && !err.contains("part-2.csv:0"),
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

#[test]
fn merge_to_stdout_writes_the_csv_or_the_summary_there() {
    let dir = tempfile::tempdir().unwrap();
    let parts = halves(dir.path());
    let all = dir.path().join("all.csv");
    merge(&parts, &all).success();
    let dash = dir.path().join("-");

    let out = bench()
        .arg("merge")
        .args(&parts)
        .args(["-q", "-o", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, std::fs::read(&all).unwrap());

    let out = bench()
        .current_dir(dir.path())
        .arg("merge")
        .args(&parts)
        .args(["-q", "-o"])
        .arg(dir.path().join("again.csv"))
        .args(["--summary", "-", "--summary-format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(printed["rows"], json(&all.with_extension("json"))["rows"]);
    assert!(!dash.exists(), "no file named -");
    assert_eq!(
        std::fs::read(dir.path().join("again.csv")).unwrap(),
        std::fs::read(&all).unwrap()
    );

    let assert = bench()
        .current_dir(dir.path())
        .arg("merge")
        .args(&parts)
        .args(["-q", "-o", "-", "--summary", "-"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(err.contains("both go to stdout"), "{err}");
    assert!(assert.get_output().stdout.is_empty());
    assert!(!dash.exists(), "no file named -");

    // A --summary that cannot be made fails before a row reaches stdout.
    let assert = bench()
        .arg("merge")
        .args(&parts)
        .args(["-q", "-o", "-", "--summary"])
        .arg(dir.path().join("absent").join("all.json"))
        .assert()
        .code(2);
    assert!(
        assert.get_output().stdout.is_empty(),
        "rows were printed before the --summary failed"
    );
}

#[test]
fn a_per_puzzle_csv_named_as_compressed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["gz", "zst", "xz", "bz2"] {
        let out = dir.path().join(format!("run.csv.{ext}"));
        let assert = bench()
            .args(["run", "datasets/classic.txt", "-s", "fast", "-q", "-o"])
            .arg(&out)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&assert.get_output().stderr);
        assert!(
            err.contains(&format!(
                "run.csv.{ext}: the per-puzzle CSV is written uncompressed"
            )) && err.contains(&format!("name it without .{ext}")),
            "{err}"
        );
        assert!(!out.exists(), "nothing written");
    }
    let parts = halves(dir.path());
    let out = dir.path().join("all.csv.zst");
    let assert = bench()
        .arg("merge")
        .args(&parts)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(
        err.contains("all.csv.zst: the per-puzzle CSV is written uncompressed"),
        "{err}"
    );
    assert!(!out.exists());
}

/// `datasets/minimal.txt` gzipped and cut short in `dir/cut.gz`: every run over it reads
/// some lines, then fails (exit 2).
pub(super) fn cut_gz(dir: &Path) -> PathBuf {
    use std::io::Write;
    let text = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPORA[0])).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    let path = dir.join("cut.gz");
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    path
}

/// Parts whose runs failed (a corpus that could not be read to its end: exit 2) say so in
/// their summaries, and `merge` refuses them, naming the part, rather than merging the
/// lines they did read as if they were the whole corpus.
#[test]
fn parts_whose_runs_failed_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = cut_gz(dir.path());
    let mut csvs = Vec::new();
    for k in 1..=3 {
        let csv = dir.path().join(format!("part-{k}.csv"));
        let out = bench()
            .arg("run")
            .arg(&corpus)
            .args(["-s", "fast", "-q", "--shard", &format!("{k}/3"), "-o"])
            .arg(&csv)
            .arg("--summary")
            .arg(csv.with_extension("json"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "part {k}");
        let errors = &json(&csv.with_extension("json"))["errors"];
        assert!(
            errors[0]
                .as_str()
                .unwrap()
                .contains("read error after line"),
            "part {k}: {errors}"
        );
        csvs.push(csv);
    }
    let out = bench()
        .arg("merge")
        .args(&csvs)
        .arg("-o")
        .arg(dir.path().join("all.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("part-1.json: the run of this part failed (exit 2)")
            && stderr.contains("read error after line"),
        "{stderr}"
    );
    assert!(!dir.path().join("all.csv").exists());
}

/// A whole run that failed is not recorded in the history either: its rows count only part
/// of its corpus. Said as such, naming the summary.
#[cfg(unix)]
#[test]
fn history_add_refuses_a_run_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = cut_gz(dir.path());
    let json_path = dir.path().join("run.json");
    let out = bench()
        .arg("run")
        .arg(&corpus)
        .args(["-s", "fast", "-q", "-o", "/dev/null", "--summary"])
        .arg(&json_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bench()
        .args(["history", "add"])
        .arg(&json_path)
        .args(["--commit", "abcdef12", "--db"])
        .arg(dir.path().join("h.sqlite"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: a run that failed (exit 2)",
            json_path.display()
        )),
        "{stderr}"
    );
}
