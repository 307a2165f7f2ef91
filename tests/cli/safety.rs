//! End-to-end tests of what every command guarantees about its files: no output is the same
//! file as an input or as another output, no input is read twice, a default output never
//! replaces a file, every output is created before any work, no write error or argument
//! makes the tool panic, and a corpus that fails midway does not stop the others.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use assert_cmd::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The binary, run in `dir`.
fn bench(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("sudoku-bench").unwrap();
    cmd.current_dir(dir);
    cmd
}

/// A temporary directory holding `c.txt`, a copy of the mixed fixture.
fn corpus_dir() -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read(fixture("mixed.txt")).unwrap();
    fs::write(dir.path().join("c.txt"), &text).unwrap();
    (dir, text)
}

/// Runs `args` in `dir`, expecting exit 2 and a message containing every one of `names`.
fn refused(dir: &Path, args: &[&str], names: &[&str]) {
    let out = bench(dir).args(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    for name in names {
        assert!(stderr.contains(name), "{args:?}: {name:?} not in {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn run_refuses_an_output_that_is_its_corpus() {
    let (dir, text) = corpus_dir();
    let d = dir.path();
    refused(
        d,
        &["run", "c.txt", "-o", "c.txt", "-q"],
        &["c.txt", "--out"],
    );
    refused(
        d,
        &["run", "c.txt", "-o", "r.csv", "--summary", "./c.txt", "-q"],
        &["./c.txt", "--summary"],
    );
    assert_eq!(
        fs::read(d.join("c.txt")).unwrap(),
        text,
        "the corpus was touched"
    );
    assert!(
        !d.join("r.csv").exists(),
        "work was done before the refusal"
    );
}

#[test]
fn run_refuses_the_summary_and_the_csv_in_one_file() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    // Neither exists yet: the same name spelt two ways is one file.
    fs::create_dir(d.join("sub")).unwrap();
    refused(
        d,
        &[
            "run",
            "c.txt",
            "-o",
            "sub/r.csv",
            "--summary",
            "sub/../sub/r.csv",
        ],
        &["sub/r.csv", "sub/../sub/r.csv"],
    );
    assert!(!d.join("sub/r.csv").exists());
    // An existing file, reached through a hard link.
    fs::write(d.join("old.csv"), "kept").unwrap();
    fs::hard_link(d.join("old.csv"), d.join("link.json")).unwrap();
    refused(
        d,
        &["run", "c.txt", "-o", "old.csv", "--summary", "link.json"],
        &["old.csv", "link.json"],
    );
    assert_eq!(fs::read_to_string(d.join("old.csv")).unwrap(), "kept");
}

#[test]
fn filter_refuses_an_output_hard_linked_to_an_input() {
    let (dir, text) = corpus_dir();
    let d = dir.path();
    fs::hard_link(d.join("c.txt"), d.join("link.txt")).unwrap();
    refused(
        d,
        &["filter", "c.txt", "--out", "link.txt", "-q"],
        &["c.txt", "link.txt"],
    );
    refused(
        d,
        &[
            "filter",
            "c.txt",
            "--out",
            "k.txt",
            "--rejects",
            "link.txt",
            "-q",
        ],
        &["c.txt", "link.txt"],
    );
    assert_eq!(
        fs::read(d.join("c.txt")).unwrap(),
        text,
        "the corpus was touched"
    );
    assert!(
        !d.join("k.txt").exists(),
        "work was done before the refusal"
    );
}

#[test]
fn generate_replaces_a_file_it_is_told_to_write() {
    // generate has one output and no input: any file is fine, even an existing one.
    let (dir, _) = corpus_dir();
    bench(dir.path())
        .args(["generate", "-n", "2", "-q", "-o", "c.txt"])
        .assert()
        .success();
    assert_eq!(fs::read(dir.path().join("c.txt")).unwrap().len(), 2 * 82);
}

#[test]
fn stdout_named_for_two_outputs_is_refused() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    refused(
        d,
        &["run", "c.txt", "-o", "-", "--summary", "-", "-q"],
        &["--out", "--summary", "stdout"],
    );
    refused(
        d,
        &["filter", "c.txt", "--out", "-", "--rejects", "-", "-q"],
        &["--out", "--rejects", "stdout"],
    );
}

#[test]
fn dev_null_may_take_several_outputs() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    let dev_null = ["-o", "/dev/null", "--summary", "/dev/null", "-q"];
    bench(d)
        .args(["run", "c.txt"])
        .args(dev_null)
        .assert()
        .success();
    bench(d)
        .args([
            "filter",
            "c.txt",
            "--out",
            "/dev/null",
            "--rejects",
            "/dev/null",
            "-q",
        ])
        .assert()
        .success();
}

#[test]
fn an_input_named_twice_is_refused() {
    let (dir, text) = corpus_dir();
    let d = dir.path();
    fs::hard_link(d.join("c.txt"), d.join("link.txt")).unwrap();
    for twice in [
        ["c.txt", "c.txt"],
        ["c.txt", "./c.txt"],
        ["c.txt", "link.txt"],
    ] {
        refused(d, &["run", twice[0], twice[1], "-o", "r.csv", "-q"], &twice);
        refused(d, &["check", twice[0], twice[1], "-q"], &twice);
        refused(
            d,
            &["filter", twice[0], twice[1], "--out", "k.txt", "-q"],
            &twice,
        );
    }
    assert!(!d.join("r.csv").exists() && !d.join("k.txt").exists());
    // Standard input cannot be read twice either.
    let out = bench(d)
        .args(["check", "-", "-", "-q"])
        .write_stdin(text)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin"));
}

/// The default CSV name of a run started at `t`, as `run` makes it.
fn default_name(t: SystemTime) -> String {
    let stamp = humantime::format_rfc3339_seconds(t)
        .to_string()
        .replace(':', "");
    format!("run-{stamp}.csv")
}

#[test]
fn a_default_output_never_replaces_a_file() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    fs::create_dir(d.join("results")).unwrap();
    // Every name a run started in the next minute could take is taken already.
    let now = SystemTime::now();
    let taken: Vec<String> = (0..60)
        .map(|s| default_name(now + Duration::from_secs(s)))
        .collect();
    for name in &taken {
        fs::write(d.join("results").join(name), "earlier run").unwrap();
    }
    let out = bench(d)
        .args(["run", "c.txt", "-q", "-s", "fast"])
        .assert()
        .success()
        .get_output()
        .clone();
    for name in &taken {
        let kept = fs::read_to_string(d.join("results").join(name)).unwrap();
        assert_eq!(kept, "earlier run", "{name} was replaced");
    }
    // Quiet or not, the name chosen is said, on one line of stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let written: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("per-puzzle results: "))
        .collect();
    assert_eq!(written.len(), 1, "{stderr}");
    assert!(written[0].ends_with("-2.csv"), "{stderr}");
    let csv = fs::read_to_string(d.join(written[0])).unwrap();
    assert!(csv.starts_with("corpus,"), "{csv}");
}

#[test]
fn an_output_that_cannot_be_created_fails_before_any_work() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    // A file where a directory should be: the summary can never be created.
    fs::write(d.join("blocker"), "").unwrap();
    refused(
        d,
        &[
            "run",
            "c.txt",
            "-o",
            "r.csv",
            "--summary",
            "blocker/s.json",
            "-q",
        ],
        &["blocker/s.json"],
    );
    assert!(!d.join("r.csv").exists(), "the run went ahead");
    refused(
        d,
        &[
            "filter",
            "c.txt",
            "--out",
            "k.txt",
            "--rejects",
            "blocker/r.txt",
            "-q",
        ],
        &["blocker/r.txt"],
    );
    assert!(!d.join("k.txt").exists(), "the filter went ahead");
}

/// Runs `args` with stdout on /dev/full: a clean error (exit 2 naming the cause), no panic.
fn full_stdout(args: &[&str]) {
    let Ok(full) = fs::File::create("/dev/full") else {
        crate::say_skipped("no /dev/full on this system");
        return;
    };
    let (dir, _) = corpus_dir();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains("No space left"), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    full_stdout(&["strategies"]);
    full_stdout(&["check", "c.txt", "-q"]);
    full_stdout(&["generate", "-n", "3", "-q"]);
    full_stdout(&["run", "c.txt", "-o", "-", "-q", "-s", "fast"]);
    full_stdout(&["filter", "c.txt", "--out", "-", "-q"]);
}

#[test]
fn a_timeout_beyond_u64_nanoseconds_is_refused_and_the_largest_kept_exactly() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    for huge in ["18446744073709551615s", "585y"] {
        refused(
            d,
            &["run", "c.txt", "--timeout", huge, "-o", "-", "-q"],
            &["--timeout", huge],
        );
    }
    // 584 years (of 365.25 days) is the largest whole number of years that fits.
    bench(d)
        .args(["run", "c.txt", "--timeout", "584y", "-s", "fast", "-q"])
        .args(["-o", "/dev/null", "--summary", "s.json"])
        .assert()
        .success();
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    assert_eq!(json["timeout_ns"], 584 * 31_557_600 * 1_000_000_000u64);
}

#[test]
fn too_many_threads_are_refused_by_every_command() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    let commands: [&[&str]; 4] = [
        &["run", "c.txt", "-o", "r.csv"],
        &["filter", "c.txt", "--out", "k.txt"],
        &["check", "c.txt", "--solve"],
        &["generate", "-n", "5", "-o", "g.txt"],
    ];
    for args in commands {
        refused(
            d,
            &[args, &["-q", "-j", "100000"]].concat(),
            &["--threads", "cores"],
        );
    }
    assert!(!d.join("r.csv").exists() && !d.join("k.txt").exists() && !d.join("g.txt").exists());
    // The bound leaves room: twice the cores is fine.
    bench(d)
        .args(["check", "c.txt", "--solve", "-q", "-j"])
        .arg((2 * std::thread::available_parallelism().unwrap().get()).to_string())
        .assert()
        .code(1);
}

/// A CSV corpus whose header names no puzzle column: it opens, then fails at its first
/// line when read as CSV.
fn unreadable_csv(dir: &Path) {
    fs::write(dir.join("bad.csv"), "a,b\n1,2\n").unwrap();
}

#[test]
fn check_reports_a_corpus_that_fails_midway_and_goes_on() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    unreadable_csv(d);
    fs::copy(fixture("kaggle_id.csv"), d.join("good.csv")).unwrap();
    let bad_line = "...,\n";
    let mut good = fs::read_to_string(d.join("good.csv")).unwrap();
    good.push_str(&format!("4,{bad_line}"));
    fs::write(d.join("good.csv"), good).unwrap();
    let out = bench(d)
        .args([
            "check",
            "bad.csv",
            "good.csv",
            "--input-format",
            "csv",
            "-q",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.csv:1"), "{stderr}");
    // The corpus after the failed one was checked whole.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("good.csv:5:"), "{stdout}");
}

#[test]
fn filter_reports_a_corpus_that_fails_midway_and_keeps_the_rest() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    unreadable_csv(d);
    fs::copy(fixture("kaggle.csv"), d.join("good.csv")).unwrap();
    let out = bench(d)
        .args([
            "filter",
            "good.csv",
            "bad.csv",
            "--input-format",
            "csv",
            "--out",
            "k.csv",
            "-q",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.csv:1"), "{stderr}");
    assert_eq!(
        fs::read(d.join("k.csv")).unwrap(),
        fs::read(fixture("kaggle.csv")).unwrap()
    );
    // The order does not matter: a failed corpus first does not stop the next.
    bench(d)
        .args([
            "filter",
            "bad.csv",
            "good.csv",
            "--input-format",
            "csv",
            "--out",
            "k2.csv",
            "-q",
        ])
        .assert()
        .code(2);
    assert_eq!(
        fs::read(d.join("k2.csv")).unwrap(),
        fs::read(fixture("kaggle.csv")).unwrap()
    );
}

#[test]
fn filter_refuses_a_corpus_laid_out_unlike_the_first() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    fs::copy(fixture("kaggle.csv"), d.join("a.csv")).unwrap();
    let mut other = String::from("# a comment before the header\n");
    other.push_str(&fs::read_to_string(fixture("kaggle_id.csv")).unwrap());
    fs::write(d.join("b.csv"), other).unwrap();
    fs::copy(fixture("kaggle.csv"), d.join("c.csv")).unwrap();
    // One line a chunk too: the comment before b.csv's header is then read before its
    // layout is known.
    for chunk in ["1", "4096"] {
        let out = bench(d)
            .args([
                "filter", "a.csv", "b.csv", "c.txt", "c.csv", "--out", "k.csv", "-q",
            ])
            .args(["--keep", "unique,multiple,unsolvable,invalid,malformed"])
            .args(["--chunk-size", chunk])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The CSV with another header, and the text corpus, are named with the line that
        // shows their layout; none of their lines is kept, and the corpus after them is.
        assert!(stderr.contains("b.csv:2"), "{stderr}");
        assert!(stderr.contains("c.txt:2"), "{stderr}");
        let kaggle = fs::read_to_string(fixture("kaggle.csv")).unwrap();
        let body: String = kaggle.split_inclusive('\n').skip(1).collect();
        assert_eq!(
            fs::read_to_string(d.join("k.csv")).unwrap(),
            format!("{kaggle}{body}")
        );
    }
}

#[test]
fn a_default_output_steps_around_a_corpus_of_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("results")).unwrap();
    let now = SystemTime::now();
    let corpora: Vec<String> = (0..60)
        .map(|s| format!("results/{}", default_name(now + Duration::from_secs(s))))
        .collect();
    let puzzle = fs::read_to_string(fixture("mixed.txt")).unwrap();
    for corpus in &corpora {
        fs::write(d.join(corpus), &puzzle).unwrap();
    }
    bench(d)
        .arg("run")
        .args(&corpora)
        .args(["-q", "-s", "fast"])
        .assert()
        .success();
    for corpus in &corpora {
        assert_eq!(fs::read_to_string(d.join(corpus)).unwrap(), puzzle);
    }
}

/// The binary in `dir` with `args`, its stdin and stdout the given files (a shell's `<` and
/// `>>`): exit status and stderr.
fn redirected(dir: &Path, args: &[&str], stdin: Stdio, stdout: Stdio) -> (Option<i32>, String) {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .current_dir(dir)
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_corpus_or_output_behind_a_redirection_meets_the_same_rules() {
    let (dir, text) = corpus_dir();
    let d = dir.path();
    let open = || Stdio::from(fs::File::open(d.join("c.txt")).unwrap());
    let append = || {
        Stdio::from(
            fs::OpenOptions::new()
                .append(true)
                .open(d.join("c.txt"))
                .unwrap(),
        )
    };
    // `run - -o c.txt < c.txt`, `filter - --out c.txt < c.txt`: the corpus would be emptied.
    for args in [
        &["run", "-", "-o", "c.txt", "-q"][..],
        &["filter", "-", "--out", "c.txt", "-q"][..],
    ] {
        let (code, stderr) = redirected(d, args, open(), Stdio::null());
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("c.txt"), "{stderr}");
    }
    // `run c.txt -o - >> c.txt`: the run would read its own rows back, without end.
    let (code, stderr) = redirected(
        d,
        &["run", "c.txt", "-o", "-", "-q"],
        Stdio::null(),
        append(),
    );
    assert_eq!(code, Some(2), "{stderr}");
    // `--summary -` into the file that is also `-o`.
    let (code, stderr) = redirected(
        d,
        &["run", "c.txt", "-o", "r.csv", "--summary", "-", "-q"],
        Stdio::null(),
        Stdio::from(fs::File::create(d.join("r.csv")).unwrap()),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        fs::read(d.join("c.txt")).unwrap(),
        text,
        "the corpus was touched"
    );
}

#[test]
fn a_name_through_a_missing_directory_or_a_dangling_link_is_the_file_it_makes() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    refused(
        d,
        &[
            "run",
            "c.txt",
            "-o",
            "new/../r.csv",
            "--summary",
            "r.csv",
            "-q",
        ],
        &["r.csv", "--summary"],
    );
    std::os::unix::fs::symlink("nowhere.csv", d.join("dangling.csv")).unwrap();
    refused(
        d,
        &[
            "run",
            "c.txt",
            "-o",
            "dangling.csv",
            "--summary",
            "nowhere.csv",
            "-q",
        ],
        &["dangling.csv", "nowhere.csv"],
    );
    assert!(!d.join("r.csv").exists() && !d.join("nowhere.csv").exists());
    assert!(
        fs::symlink_metadata(d.join("dangling.csv")).is_ok(),
        "the link was removed"
    );
}

#[test]
fn an_existing_output_keeps_its_bytes_when_another_output_cannot_be_made() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    fs::write(d.join("existing.csv"), "kept\n").unwrap();
    fs::write(d.join("a-file"), "").unwrap();
    refused(
        d,
        &[
            "run",
            "c.txt",
            "-o",
            "existing.csv",
            "--summary",
            "a-file/s.json",
            "-q",
        ],
        &["a-file/s.json"],
    );
    assert_eq!(
        fs::read_to_string(d.join("existing.csv")).unwrap(),
        "kept\n"
    );
}

/// Runs `args` in `dir` with stderr a pipe nobody reads (`2>&1 | head` once head has
/// gone): its exit code (a panic cannot be said there: its exit code, 101, shows it).
fn with_closed_stderr(dir: &Path, args: &[&str]) -> Option<i32> {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(writer)
        .status()
        .unwrap();
    status.code()
}

#[test]
fn a_closed_stderr_loses_the_messages_not_the_work() {
    let (dir, _) = corpus_dir();
    let d = dir.path();
    // Warnings about lines, a summary table and notes: all on stderr, all lost.
    let run = |csv: &str, json: &str| {
        [
            "run",
            "c.txt",
            "-s",
            "fast,dlx",
            "-j",
            "2",
            "-o",
            csv,
            "--summary",
            json,
        ]
        .map(String::from)
    };
    let heard = bench(d).args(run("a.csv", "a.json")).output().unwrap();
    assert!(
        !heard.stderr.is_empty(),
        "the run says nothing: nothing to lose"
    );
    let args = run("b.csv", "b.json");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(with_closed_stderr(d, &args), heard.status.code());
    let statuses = |csv: &str| {
        crate::rows(&fs::read(d.join(csv)).unwrap())
            .into_iter()
            .map(|r| {
                (
                    r["line"].clone(),
                    r["strategy"].clone(),
                    r["status"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(statuses("b.csv"), statuses("a.csv"));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("b.json")).unwrap()).unwrap();
    assert_eq!(
        crate::summary_counts(&summary),
        crate::summary_counts(
            &serde_json::from_str(&fs::read_to_string(d.join("a.json")).unwrap()).unwrap()
        )
    );
    // The other commands' notes and errors: each keeps its exit code.
    assert_eq!(
        with_closed_stderr(d, &["generate", "-n", "5", "-o", "g.txt"]),
        Some(0)
    );
    assert_eq!(
        fs::read_to_string(d.join("g.txt")).unwrap().lines().count(),
        5
    );
    assert_eq!(with_closed_stderr(d, &["check", "c.txt"]), Some(1));
    assert_eq!(
        with_closed_stderr(d, &["run", "no-such.txt", "-q"]),
        Some(2)
    );
    assert_eq!(
        with_closed_stderr(d, &["compare", "a.csv", "b.csv", "--confidence", "100%"]),
        Some(2),
        "a usage error is one whether or not it can be said"
    );
}
