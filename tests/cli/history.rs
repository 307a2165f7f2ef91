//! `history add` and `history check` end to end, on summaries made by real `run --summary`
//! calls: the step `check` must find is a `cmd:` solver (tests/solvers/steady.py) that
//! sleeps longer on some commits. Skipped, saying so, where python3 is not found.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sudoku_bench::corpus::{Chunk, Lines};
use sudoku_bench::machine::Machine;
use sudoku_bench::results::Ending;
use sudoku_bench::{Corpus, PuzzleResult, Settings, Status, Summary, SummaryReport};

use crate::{bench, outcome, say_skipped};

/// A solved grid; the corpus is it with two cells blanked per line, so that the solver's
/// search takes nothing beside its sleep.
const SOLVED: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// The commit hash of commit `i` of a test's history.
pub(crate) fn sha(i: usize) -> String {
    format!("{i:02x}c0ffee{}", "0".repeat(32))
}

pub(crate) struct Setup {
    dir: tempfile::TempDir,
    python: String,
}

impl Setup {
    /// `None`, after saying so, where there is no python3.
    pub(crate) fn new() -> Option<Setup> {
        let found = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output();
        let python = match found {
            Ok(out) if out.status.success() => String::from_utf8(out.stdout).unwrap(),
            _ => {
                say_skipped("python3 not found: the history tests' cmd: solver needs it");
                return None;
            }
        };
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..8)
            .map(|i| {
                let mut cells = SOLVED.as_bytes().to_vec();
                cells[i * 10] = b'.';
                cells[80 - i * 9] = b'.';
                String::from_utf8(cells).unwrap()
            })
            .collect();
        std::fs::write(dir.path().join("easy.txt"), lines.join("\n") + "\n").unwrap();
        Some(Setup {
            dir,
            python: python.trim().to_string(),
        })
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn db(&self) -> String {
        self.path("history.sqlite").display().to_string()
    }

    /// A real run of the corpus by steady.py sleeping `seconds` a puzzle, as strategy
    /// `slow`; its summary JSON. One replicate: a run's interval over replicates is not
    /// what these tests are about, and eight copies of the solver, each a Python started
    /// anew, took most of each run's time.
    pub(crate) fn run(&self, name: &str, seconds: &str) -> PathBuf {
        let summary = self.path(name);
        let solver = format!(
            "slow=cmd:{}",
            shlex::try_join([
                self.python.as_str(),
                "tests/solvers/steady.py",
                seconds,
                &self.path("answers.log").display().to_string(),
                "1000000000",
                &self.path("never").display().to_string(),
            ])
            .unwrap()
        );
        bench()
            .args(["run", &self.path("easy.txt").display().to_string()])
            .args(["-s", "none", "--solver", &solver, "--replicates", "1"])
            .args(["-j", "1", "-q", "-o", "-"])
            .args(["--summary".as_ref(), summary.as_os_str()])
            .assert()
            .success();
        summary
    }

    /// Commit `i`: a real run at `seconds` a puzzle, added under `sha(i)`.
    pub(crate) fn commit_run(&self, i: usize, seconds: &str) {
        let summary = self.run(&format!("s{i}.json"), seconds);
        self.add_ok(&summary, i);
    }

    /// Commit `i` of a stepped history whose run is made up rather than timed: strategy
    /// `slow` takes `ms` milliseconds a puzzle over the corpus's eight lines, give or take
    /// a little that differs from commit to commit, as a quiet machine's runs would. For
    /// tests of what a history shows: a loaded machine cannot blur their step.
    pub(crate) fn commit(&self, i: usize, ms: u64) {
        let corpus_path = self.path("easy.txt");
        let name = "easy.txt";
        let mut corpus = Corpus::open(&corpus_path, None).unwrap();
        let mut chunk = Chunk::new(Lines::Entries);
        while corpus.read_chunk(&mut chunk, 64).unwrap() > 0 {}
        let mut summary = Summary::default();
        summary.set_identity(name, corpus.identity());
        let group = summary.group(name, "slow");
        for line in 0..8u64 {
            let jitter_us = (line * 37 + i as u64 * 101) % 400;
            summary.add(
                group,
                &PuzzleResult {
                    status: Status::Unique,
                    solutions: Some(1),
                    time_ns: Some(ms * 1_000_000 + jitter_us * 1_000),
                    ended: Some(Ending::Finished),
                    ..PuzzleResult::default()
                },
            );
        }
        let wall_ns = 8 * (ms + 1) * 1_000_000;
        // The machine is named, not detected: a snapshot of what the history shows holds on
        // any machine.
        let report = SummaryReport {
            machine: Machine {
                cpu: "Made-up CPU".to_string(),
                cores: 2,
                os: "linux".to_string(),
                arch: "x86_64".to_string(),
            },
            ..Settings::default().summary_report(&summary, 1, wall_ns)
        };
        let path = self.path(&format!("s{i}.json"));
        std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
        self.add_ok(&path, i);
    }

    /// [`Setup::add`], which must succeed.
    fn add_ok(&self, summary: &Path, i: usize) {
        let added = self.add(summary, i);
        assert_eq!(
            added.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&added.stderr)
        );
    }

    /// `history add SUMMARY --commit sha(i)` at time `i` into the setup's history.
    fn add(&self, summary: &Path, i: usize) -> Output {
        bench()
            .args(["history", "add", &summary.display().to_string()])
            .args([
                "--commit",
                &sha(i),
                "--time",
                &(1_700_000_000 + i).to_string(),
            ])
            .args(["--db", &self.db()])
            .output()
            .unwrap()
    }

    /// `history check` of the setup's history with `args`.
    fn check(&self, args: &[&str]) -> (Option<i32>, String, String) {
        history(self, "check", args)
    }
}

/// Commits 0-6 at 40 ms a puzzle, 7-12 at 20 ms (faster), 13-17 at 40 ms again (slower):
/// each commit a run of its own, recorded as CI would, one `history add` per commit.
#[test]
fn check_finds_where_a_solver_got_faster_and_slower_and_fails_only_on_a_new_slowdown() {
    let Some(s) = Setup::new() else { return };
    for i in 0..18 {
        let seconds = if (7..13).contains(&i) {
            "0.020"
        } else {
            "0.040"
        };
        let summary = s.run(&format!("s{i}.json"), seconds);
        let added = s.add(&summary, i);
        let stderr = String::from_utf8_lossy(&added.stderr);
        assert_eq!(added.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "recorded 1 run(s) (1 row(s), 0 in-run result(s)) under commit {}",
                sha(i)
            )),
            "{stderr}"
        );
        if i == 12 {
            // The history so far: a speed-up, which is a change but never a failure.
            let (code, out, err) = s.check(&["--since", &sha(3), "--min-change", "20%"]);
            assert_eq!(code, Some(0), "{out}{err}");
            let lines: Vec<&str> = out.lines().filter(|l| l.contains("median rate")).collect();
            assert_eq!(lines.len(), 1, "{out}");
            assert!(
                lines[0].contains(&format!("{}..{}", &sha(6)[..10], &sha(7)[..10])),
                "{out}"
            );
            assert!(
                lines[0].contains("faster") && lines[0].ends_with("yes"),
                "{out}"
            );
            assert!(out.contains("since 03c0ffee00: no slowdown"), "{out}");
        }
    }
    // Without --since: changes are reported, nothing fails.
    let (code, out, err) = s.check(&["--min-change", "20%"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let changes: Vec<&str> = out.lines().filter(|l| l.contains("median rate")).collect();
    assert_eq!(changes.len(), 2, "{out}");
    assert!(
        changes[0].contains("faster") && changes[1].contains("slower"),
        "{out}"
    );
    assert!(
        changes[1].contains(&format!("{}..{}", &sha(12)[..10], &sha(13)[..10])),
        "{out}"
    );
    assert!(out.starts_with("machine "), "{out}");
    // The median rate, and the nodes the solver counts (the same on every commit).
    assert!(
        out.contains(
            "2 change(s) in 2 series over 18 commits (p-value 0.01, minimal change 20%, \
             instruction counts 1%)"
        ),
        "{out}"
    );
    // The slowdown lies after commit 12 (a prefix of its hash will do): exit 1.
    let (code, out, _) = s.check(&["--min-change", "20%", "--since", &sha(12)[..12]]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("since 0cc0ffee00: 1 slowdown(s)"), "{out}");
    // From commit 13 on it is behind: exit 0.
    let (code, out, _) = s.check(&["--min-change", "20%", "--since", &sha(13)]);
    assert_eq!(code, Some(0), "{out}");
    // The same summary again under its commit is a no-op said as such; under another
    // commit, refused naming it.
    let again = s.add(&s.path("s3.json"), 3);
    assert_eq!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already recorded under this commit"));
    let other = s.add(&s.path("s3.json"), 4);
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains(&format!(
            "s3.json: already recorded under commit {}",
            sha(3)
        )),
        "{err}"
    );
}

pub(crate) fn run_fast(corpus: &str, extra: &[&str], summary: &Path) {
    bench()
        .args(["run", corpus, "-s", "fast,dlx", "-j", "1", "-q"])
        .args(extra)
        .args(["--summary".as_ref(), summary.as_os_str()])
        .assert()
        .success();
}

fn add(db: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = bench()
        .args(["history", "add", "--db", &db.display().to_string()])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A commit keeps the time first recorded for it; a later `add` without `--time` says that
/// one, not the time it would have given.
#[test]
fn a_second_add_under_a_commit_says_the_time_the_commit_has() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let runs = ["one.json", "two.json"].map(|name| {
        let summary = dir.path().join(name);
        run_fast("datasets/classic.txt", &["-o", "-"], &summary);
        summary.display().to_string()
    });
    let (code, err) = add(
        &db,
        &[
            &runs[0],
            "--commit",
            &sha(1),
            "--time",
            "2030-01-01T00:00:00Z",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = add(&db, &[&runs[1], "--commit", &sha(1)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "recorded 1 run(s) (2 row(s), 0 in-run result(s)) under commit {} \
             (2030-01-01T00:00:00Z)",
            sha(1)
        )),
        "{err}"
    );
}

#[test]
fn add_refuses_what_it_cannot_place_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let first = dir.path().join("first.json");
    run_fast("datasets/classic.txt", &["-o", "-"], &first);
    let first_s = first.display().to_string();

    // No commit: nothing is made.
    let (code, err) = add(&db, &[&first_s]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{first_s}: no commit to place the runs under")),
        "{err}"
    );
    assert!(!db.exists());
    let (code, err) = add(&db, &[&first_s, "--commit", "HEAD"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--commit HEAD: not a commit's hash"), "{err}");

    // The default history is made with its directory, where the command runs.
    let here = tempfile::tempdir().unwrap();
    for words in [
        vec!["add", first_s.as_str(), "--commit", "abcdef12"],
        vec!["check"],
    ] {
        let out = bench()
            .current_dir(here.path())
            .arg("history")
            .args(&words)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    assert!(here.path().join("results/history.sqlite").is_file());
    // A named history's directory must exist.
    let (code, err) = add(
        &dir.path().join("no/h.sqlite"),
        &[&first_s, "--commit", &sha(1)],
    );
    assert_eq!(code, Some(2), "{err}");
    // Said once: SQLite's message, not its chain of causes over again.
    assert_eq!(
        err.matches("unable to open database file").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("no/h.sqlite: unable to open database file"),
        "{err}"
    );
    assert!(!dir.path().join("no").exists());

    let (code, err) = add(
        &db,
        &[&first_s, "--commit", &sha(1), "--label", "runner=ci"],
    );
    assert_eq!(code, Some(0), "{err}");

    // The same puzzles under another name.
    let copy = dir.path().join("classic-copy.txt");
    std::fs::copy("datasets/classic.txt", &copy).unwrap();
    let renamed = dir.path().join("renamed.json");
    run_fast(&copy.display().to_string(), &["-o", "-"], &renamed);
    let renamed_s = renamed.display().to_string();
    let (code, err) = add(&db, &[&renamed_s, "--commit", &sha(2)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{renamed_s}: corpus {} holds the same puzzles as datasets/classic.txt",
            copy.display()
        )),
        "{err}"
    );

    // An interrupted run, a per-puzzle CSV, a file that is not there.
    let text = std::fs::read_to_string(&first).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(
        &cut,
        text.replacen("\"interrupted\": false", "\"interrupted\": true", 1),
    )
    .unwrap();
    let (code, err) = add(&db, &[&cut.display().to_string(), "--commit", &sha(2)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cut.json: an interrupted run"), "{err}");
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "corpus,line,strategy\n").unwrap();
    let (code, err) = add(&db, &[&csv.display().to_string(), "--commit", &sha(2)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("rows.csv: not a summary JSON"), "{err}");
    let (code, err) = add(&db, &["missing.json", "--commit", &sha(2)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.json"), "{err}");

    // Nothing of the refused adds was kept: one commit.
    let out = bench()
        .args(["history", "check", "--db", &db.display().to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("over 1 commits"), "{text}");
}

#[test]
fn an_in_run_comparison_is_recorded_with_its_run_s_summary() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let summary = dir.path().join("run.json");
    let csv = dir.path().join("run.csv");
    run_fast(
        "datasets/classic.txt",
        &["-o", &csv.display().to_string()],
        &summary,
    );
    let ab = dir.path().join("ab.json");
    let compared = bench()
        .args([
            "compare",
            &csv.display().to_string(),
            "--between",
            "dlx,fast",
        ])
        .args([
            "--allow-search-changes",
            "--format",
            "json",
            "-o",
            &ab.display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        matches!(compared.status.code(), Some(0 | 1)),
        "{compared:?}"
    );
    let ab_s = ab.display().to_string();
    // Alone it cannot be placed.
    let (code, err) = add(&db, &[&ab_s, "--commit", &sha(1)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("{ab_s}: ")), "{err}");
    let (code, err) = add(
        &db,
        &[&ab_s, &summary.display().to_string(), "--commit", &sha(1)],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("recorded 1 run(s) (2 row(s), 1 in-run result(s))"),
        "{err}"
    );
    // The page draws its ratio with the recorded interval; the export sends both.
    let cmp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ab).unwrap()).unwrap();
    let row = &cmp["rows"][0];
    let db_s = db.display().to_string();
    let page = dir.path().join("h.html");
    let (code, _, err) = bench_err(&[
        "history",
        "report",
        "--db",
        &db_s,
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("dlx -&gt; fast: time ratio"), "{html}");
    assert!(html.contains("recorded interval"), "{html}");
    let (code, out, err) = bench_err(&["history", "export", "--format", "bmf", "--db", &db_s]);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ratio = &doc["datasets/classic.txt/dlx -> fast"]["time-ratio"];
    assert_eq!(ratio["value"], row["time_ratio"], "{doc}");
    assert_eq!(ratio["lower_value"], row["ci"][0], "{doc}");
    assert_eq!(ratio["upper_value"], row["ci"][1], "{doc}");
    assert!(
        doc["datasets/classic.txt/fast"]["throughput"]["value"].is_f64(),
        "{doc}"
    );
}

#[test]
fn check_refuses_a_missing_history_a_future_one_and_an_unknown_since() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db_s = db.display().to_string();
    let check = |args: &[&str]| {
        let out = bench()
            .args(["history", "check", "--db", &db_s])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = check(&[]);
    assert_eq!(code, Some(2));
    assert!(err.contains(&format!("{db_s}: no history there")), "{err}");
    assert!(!db.exists(), "check made a history");
    let summary = dir.path().join("s.json");
    run_fast("datasets/classic.txt", &["-o", "-"], &summary);
    let (code, err) = add(&db, &[&summary.display().to_string(), "--commit", &sha(1)]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = check(&["--since", "abcdef"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--since abcdef: no such commit in the history (1 recorded)"),
        "{err}"
    );
    let (code, err) = check(&["--p-value", "5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a p-value"), "{err}");
    // A history written by a newer sudoku-bench.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE schema_version SET version = version + 1", [])
        .unwrap();
    drop(conn);
    let (code, err) = check(&[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("newer than this sudoku-bench knows"), "{err}");
}

#[test]
fn a_history_locked_by_another_process_is_said_at_once_then_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db_s = db.display().to_string();
    let summary = dir.path().join("s.json");
    run_fast("datasets/classic.txt", &["-o", "-"], &summary);
    let (code, err) = add(&db, &[&summary.display().to_string(), "--commit", &sha(1)]);
    assert_eq!(code, Some(0), "{err}");
    // Another writer holds the lock for a while, then lets go.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
        .args(["history", "check", "--db", &db_s])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its first line, read while the lock is still held: said before any wait ends.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut first).unwrap();
    assert!(
        first.starts_with(&format!("{db_s}: another process holds the history's lock"))
            && first.contains("waiting up to 30 s"),
        "{first}"
    );
    conn.execute_batch("COMMIT").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("over 1 commits"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `history COMMAND` of `s`'s history with `args`: exit code, stdout, stderr.
fn history(s: &Setup, command: &str, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        bench()
            .args(["history", command, "--db", &s.db()])
            .args(args)
            .output()
            .unwrap(),
    )
}

/// Commits 0-5 at 40 ms a puzzle, 6-11 at 20 ms (made up): the page draws the series with a band
/// between commits 5 and 6, and tables the change `check` reports.
#[test]
fn report_draws_the_series_the_change_band_and_the_table_check_reports() {
    let Some(s) = Setup::new() else { return };
    let page = s.path("history.html");
    let page_s = page.display().to_string();
    // No history yet: refused, and no page is left.
    let (code, _, err) = history(&s, "report", &["-o", &page_s]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no history there"), "{err}");
    assert!(!page.exists());
    for i in 0..12 {
        s.commit(i, if i < 6 { 40 } else { 20 });
    }
    let (code, out, err) = history(&s, "check", &["--min-change", "20%"]);
    assert_eq!(code, Some(0), "{err}");
    let table: Vec<&str> = out.lines().filter(|l| l.contains("median rate")).collect();
    assert_eq!(table.len(), 1, "{out}");
    let (code, _, err) = history(&s, "report", &["-o", &page_s, "--min-change", "20%"]);
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"), "a page with no script");
    assert!(html.contains("12 commits with runs"), "{html}");
    assert!(html.contains("slow: median rate"), "{html}");
    // Every commit on the axis, by its short hash.
    for i in 0..12 {
        assert!(html.contains(&format!(">{}</text>", &sha(i)[..7])), "{i}");
    }
    // 12 runs, each with its interval: 12 whiskers of 3 strokes in one path.
    let whiskers = html
        .split("<path d=\"")
        .find(|p| p.contains("stroke-width=\"1.2\"/>") && p.matches('M').count() > 3)
        .unwrap();
    assert_eq!(
        whiskers[..whiskers.find('"').unwrap()].matches('M').count(),
        36
    );
    // The band between commits 5 and 6, labelled with the change (twice as fast, give or
    // take the solver's own time) and its range.
    let range = format!("{}..{}</text>", &sha(5)[..7], &sha(6)[..7]);
    let label = html
        .split("<text")
        .find(|t| t.ends_with(&range) || t.contains(&range));
    let label = label.unwrap_or_else(|| panic!("no band labelled {range}: {html}"));
    assert!(label.contains(">+") && label.contains("% "), "{label}");
    assert_eq!(html.matches("fill-opacity=\".14\"").count(), 1, "one band");
    // The table: the change check reports, with its range and direction.
    let row = format!("<td>{}..{}</td>", &sha(5)[..10], &sha(6)[..10]);
    assert!(html.contains(&row), "{html}");
    assert!(html.contains("<td>faster</td>"), "{html}");
    assert!(table[0].contains(&format!("{}..{}", &sha(5)[..10], &sha(6)[..10])));

    // Another branch's runs only: none, refused, and the page that was there is kept.
    let (code, _, err) = history(&s, "report", &["-o", &page_s, "--branch", "nowhere"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no run recorded for branch nowhere"), "{err}");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), html);
    // The history itself is not an output.
    let (code, _, err) = history(&s, "report", &["-o", &s.db()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("history report's history (--db) and its output"),
        "{err}"
    );
}

/// A number of a JSON document.
fn number(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Three commits of real runs: the export of each is its run's median rate and median time
/// as its summary JSON says them (which `history add` recorded), inside their interval;
/// the default is the newest commit; an unknown commit is refused.
#[test]
fn export_writes_a_commit_s_numbers_in_bencher_metric_format() {
    let Some(s) = Setup::new() else { return };
    for (i, seconds) in ["0.004", "0.002", "0.003"].iter().enumerate() {
        s.commit_run(i, seconds);
    }
    let summary = |i: usize| -> serde_json::Value {
        let text = std::fs::read_to_string(s.path(&format!("s{i}.json"))).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let corpus = s.path("easy.txt").display().to_string();
    let name = format!("{corpus}/slow");
    for (i, args) in [(1, vec!["--commit", &sha(1)[..8]]), (2, vec![])] {
        let file = s.path(&format!("bmf{i}.json"));
        let mut all = vec!["--format", "bmf", "-o", file.to_str().unwrap()];
        all.extend(args);
        let (code, out, err) = history(&s, "export", &all);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.is_empty(), "written to -o: {out}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let benchmarks = doc.as_object().unwrap();
        assert_eq!(benchmarks.keys().collect::<Vec<_>>(), [&name], "{doc}");
        let row = &summary(i)["rows"][0];
        let throughput = &doc[&name]["throughput"];
        let rate = number(&row["median_puzzles_per_s_per_core"]);
        assert!(
            (number(&throughput["value"]) / rate - 1.0).abs() < 1e-12,
            "{doc}"
        );
        assert!(number(&throughput["lower_value"]) <= rate);
        assert!(number(&throughput["upper_value"]) >= rate);
        let latency = &doc[&name]["latency"];
        assert_eq!(
            number(&latency["value"]),
            number(&row["median_ns"]),
            "{doc}"
        );
        // 8 puzzles: the interval of the median is from the fastest to the slowest.
        assert!(number(&latency["lower_value"]) <= number(&row["median_ns"]));
        assert!(
            number(&latency["upper_value"])
                >= number(&row["max_ns"]) - 1e-3 * number(&row["max_ns"])
        );
        // The solver counts guesses (none: two blanks are forced): exact, no bounds.
        assert_eq!(
            doc[&name]["guesses"],
            serde_json::json!({ "value": 0.0 }),
            "{doc}"
        );
    }
    // To stdout by default: the same document.
    let (code, out, _) = history(&s, "export", &["--format", "bmf"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, std::fs::read_to_string(s.path("bmf2.json")).unwrap());
    // An unknown commit, or none given where there is no history: exit 2, nothing written.
    let (code, out, err) = history(&s, "export", &["--format", "bmf", "--commit", "abcdef"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("--commit abcdef: no such commit in the history (3 recorded)"),
        "{err}"
    );
    let (code, _, err) = bench_err(&[
        "history",
        "export",
        "--format",
        "bmf",
        "--db",
        "nowhere.sqlite",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nowhere.sqlite: no history there"), "{err}");
}

fn bench_err(args: &[&str]) -> (Option<i32>, String, String) {
    outcome(bench().args(args).output().unwrap())
}

/// One run timing two builds side by side (here `fast` and `dlx` stand for two commits'
/// libraries) is recorded once per commit, each commit taking its own row as one strategy.
#[test]
fn add_strategy_takes_one_row_of_a_run_per_commit_renamed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let summary = dir.path().join("run.json");
    let csv = dir.path().join("run.csv");
    run_fast(
        "datasets/classic.txt",
        &["-o", &csv.display().to_string()],
        &summary,
    );
    let summary_s = summary.display().to_string();
    let ab = dir.path().join("ab.json");
    let compared = bench()
        .args([
            "compare",
            &csv.display().to_string(),
            "--between",
            "fast,dlx",
        ])
        .args(["--allow-search-changes", "--format", "json", "-o"])
        .arg(&ab)
        .output()
        .unwrap();
    assert!(
        matches!(compared.status.code(), Some(0 | 1)),
        "{compared:?}"
    );
    let ab_s = ab.display().to_string();

    // A name the summary does not hold, and a name taken twice: refused, nothing kept.
    let (code, err) = add(
        &db,
        &[
            &summary_s,
            "--commit",
            &sha(1),
            "--strategy",
            "c0ffee=solver",
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{summary_s}: no strategy c0ffee in it to take (it holds dlx, fast)"
        )),
        "{err}"
    );
    let (code, err) = add(
        &db,
        &[
            &summary_s,
            "--commit",
            &sha(1),
            "--strategy",
            "fast=x",
            "--strategy",
            "dlx=x",
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("each strategy is taken once"), "{err}");
    assert!(!db.exists(), "a refused add made the history");

    // The older commit's row with its in-run ratio against the newer one (fast judged
    // against dlx), then the newer commit's row alone.
    let (code, err) = add(
        &db,
        &[
            &summary_s,
            &ab_s,
            "--commit",
            &sha(1),
            "--time",
            "1700000001",
            "--strategy",
            "dlx=solver",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("recorded 1 run(s) (1 row(s), 1 in-run result(s))"),
        "{err}"
    );
    let (code, err) = add(
        &db,
        &[
            &summary_s,
            "--commit",
            &sha(2),
            "--time",
            "1700000002",
            "--strategy",
            "fast=solver",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("recorded 1 run(s) (1 row(s), 0 in-run result(s))"),
        "{err}"
    );
    // The same taking again is the same record: skipped.
    let (code, err) = add(
        &db,
        &[&summary_s, "--commit", &sha(2), "--strategy", "fast=solver"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("already recorded under this commit"), "{err}");

    // One series `solver` over both commits (nodes differ: an exact change), and one of
    // the in-run ratio.
    let out = bench()
        .args(["history", "check", "--db", &db.display().to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("over 2 commits"), "{text}");
    let rows = rusqlite::Connection::open(&db)
        .unwrap()
        .prepare("SELECT strategy FROM rows ORDER BY run")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(rows, ["solver", "solver"]);
    let pair: (String, String) = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT old, new FROM ab", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(pair, ("fast".to_string(), "solver".to_string()));
    assert!(
        text.contains("solver") && text.contains("nodes"),
        "the two commits' node counts differ, as dlx's and fast's do: {text}"
    );
}

/// Issue 37: a history that sees through the machine's drift. Twelve commits, one real run
/// each of three copies of the tests' C solver (`a`, `b`, `c`) over the 1,000 puzzles of
/// datasets/minimal.txt, recorded with `--relative-to a`; `b` does 50% more work from the
/// seventh commit on (its `configuration` is that percentage), `c` never does. `check` names
/// `b`'s step at commits 6..7 on the relative series and raises nothing on `c`'s flat one.
///
/// Why no noise flips these verdicts: the solvers take turns every 16 puzzles
/// (`--chunk-size 16`), so a neighbour's burst falls on all three, and each figure is a
/// median of 1,000 solves, which a burst over a few dozen of them does not move; and all
/// three run alike, in worker processes of their own (like with like: against the built-in
/// `fast`, in the run's threads, a flat series moved 23% once in a loaded suite run). The
/// ratio then moves by a few percent from run to run. A 50% step is several times that,
/// and the flat series is judged with `--min-change 20%`, which its spread does not come
/// near.
#[test]
fn a_series_relative_to_a_strategy_of_the_same_run_finds_its_step_and_a_flat_one_nothing() {
    let Some((backtrack, _, _)) = crate::foreign_lib::libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db_s = db.display().to_string();
    let lib = backtrack.display().to_string();
    let summary = |i: usize| dir.path().join(format!("s{i}.json"));
    for i in 0..12 {
        let extra = if i < 6 { "b=0" } else { "b=50" };
        bench()
            .args(["run", "datasets/minimal.txt", "-s", "none"])
            .args(["--solver", &format!("a=lib:{lib}")])
            .args(["--solver", &format!("b=lib:{lib}")])
            .args(["--solver", &format!("c=lib:{lib}")])
            .args(["--solver-config", extra, "--chunk-size", "16", "-j", "1"])
            .args(["-q", "-o", "-", "--summary"])
            .arg(summary(i))
            .assert()
            .success();
        if i == 0 {
            // A reference the summary does not hold: refused naming the file and what it
            // holds, and nothing kept.
            let file = summary(0).display().to_string();
            let (code, err) = add(&db, &[&file, "--commit", &sha(0), "--relative-to", "dlx"]);
            assert_eq!(code, Some(2), "{err}");
            assert!(
                err.contains(&format!(
                    "{file}: --relative-to dlx: no such strategy in it (it holds a, b, c)"
                )),
                "{err}"
            );
            assert!(!db.exists(), "a refused add made the history");
        }
        let (code, err) = add(
            &db,
            &[
                &summary(i).display().to_string(),
                "--commit",
                &sha(i),
                "--time",
                &(1_700_000_000 + i).to_string(),
                "--relative-to",
                "a",
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        assert!(
            err.contains("recorded 1 run(s) (3 row(s), 0 in-run result(s), 2 relative to a)"),
            "{err}"
        );
    }
    let (code, out, err) = bench_err(&["history", "check", "--db", &db_s, "--min-change", "20%"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let relative: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("relative time"))
        .collect();
    assert_eq!(relative.len(), 1, "{out}");
    assert!(relative[0].contains("b / a"), "{out}");
    // At the step, or a commit either side: one run slowed by a neighbour next to the step
    // moves where the change is placed (seen once in a suite run at load 3), not whether
    // it is found.
    assert!(
        (4..=6).any(|i| relative[0].contains(&format!("{}..{}", &sha(i)[..10], &sha(i + 1)[..10]))),
        "{out}"
    );
    assert!(relative[0].contains("slower"), "{out}");
    // Since commit 3 (before wherever the change was placed): exit 1.
    let (code, out, _) = bench_err(&[
        "history",
        "check",
        "--db",
        &db_s,
        "--min-change",
        "20%",
        "--since",
        &sha(3),
    ]);
    assert_eq!(code, Some(1), "{out}");

    // Two relative series of 12 runs; the reference not relative to itself.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM relative"), 24);
    assert_eq!(
        count("SELECT count(*) FROM relative WHERE strategy = reference"),
        0
    );
    assert_eq!(
        count("SELECT count(DISTINCT strategy || ' / ' || reference) FROM relative"),
        2
    );

    // The page draws them as charts of their own; the export sends each commit's.
    let page = dir.path().join("h.html");
    let (code, _, err) = bench_err(&[
        "history",
        "report",
        "--db",
        &db_s,
        "--min-change",
        "20%",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("b / a: relative time"), "{html}");
    assert!(html.contains("c / a: relative time"), "{html}");
    let (code, out, err) = bench_err(&["history", "export", "--format", "bmf", "--db", &db_s]);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let newest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(summary(11)).unwrap()).unwrap();
    let median = |strategy: &str| {
        let rows = newest["rows"].as_array().unwrap();
        let row = rows.iter().find(|r| r["strategy"] == strategy).unwrap();
        number(&row["median_ns"])
    };
    let ratio = number(&doc["datasets/minimal.txt/b / a"]["relative-time"]["value"]);
    assert_eq!(ratio, median("b") / median("a"), "{doc}");
}

/// `check --branch` naming a branch with no run (a typo: `mian`) judged nothing and passed
/// the gate ("no slowdown", exit 0): it is refused as `report` refuses it, exit 2. A branch
/// with runs, and no --branch, are checked as before.
#[test]
fn check_refuses_a_branch_with_no_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let summary = dir.path().join("r.json");
    bench()
        .args([
            "run",
            "datasets/classic.txt",
            "-s",
            "fast",
            "-q",
            "-o",
            "/dev/null",
        ])
        .arg("--summary")
        .arg(&summary)
        .assert()
        .success();
    let summary_s = summary.display().to_string();
    let (code, err) = add(
        &db,
        &[&summary_s, "--commit", "abcdef12", "--branch", "main"],
    );
    assert_eq!(code, Some(0), "{err}");
    let check = |args: &[&str]| {
        outcome(
            bench()
                .args(["history", "check", "--db", &db.display().to_string()])
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let (code, out, err) = check(&["--since", "abcdef12", "--branch", "mian"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        err.contains(&format!(
            "{}: no run recorded for branch mian",
            db.display()
        )),
        "{err}"
    );
    for args in [
        &["--since", "abcdef12", "--branch", "main"][..],
        &["--since", "abcdef12"],
    ] {
        let (code, out, err) = check(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(out.contains("no slowdown"), "{args:?}: {out}");
    }
}

/// A made-up history, 0-5 at 40 ms a puzzle and 6-11 at 20 ms, read back whole: `check`'s
/// table and `export`'s metrics of the newest commit, as a reviewed snapshot (their
/// figures are the runs' own, so no machine's noise is in them).
#[test]
fn check_and_export_of_a_made_up_history_read_as_their_snapshots() {
    let Some(s) = Setup::new() else { return };
    for i in 0..12 {
        s.commit(i, if i < 6 { 40 } else { 20 });
    }
    let (code, out, err) = history(&s, "check", &[]);
    assert_eq!(code, Some(0), "{err}");
    insta::assert_snapshot!("history_check", out);
    let (code, out, err) = history(&s, "export", &["--format", "bmf"]);
    assert_eq!(code, Some(0), "{err}");
    insta::assert_snapshot!("history_export_bmf", out);
}
