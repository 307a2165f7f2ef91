//! `run --resume`: a CSV cut short (by a real SIGINT, by hand mid-row, mid-line) goes on to
//! what an uninterrupted run writes, on every column but the times, with the summary of the
//! whole; a CSV that cannot be continued is refused before it is touched.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use super::interrupt::Running;
use super::{bench, rows, summary_counts, Row};

/// Two strategies, so that a line can be cut between its rows.
const STRATEGIES: &str = "dlx,bitmask";
const CLASSIC: &str = "datasets/classic.txt";

/// Longest wait for the child's first rows: the machine may be busy with other builds.
const PATIENCE: Duration = Duration::from_secs(180);

pub(super) fn run(args: &[&str]) -> Output {
    bench().arg("run").args(args).arg("-q").output().unwrap()
}

pub(super) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub(super) fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// A run of the classic corpus to `csv` with `summary`, expecting success.
fn classic_run(csv: &str, summary: &str, resume: bool) -> Output {
    let mut args = vec![CLASSIC, "-s", STRATEGIES, "-o", csv, "--summary", summary];
    if resume {
        args.push("--resume");
    }
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// The rows without their times, which no two runs share.
fn untimed(csv: &str) -> Vec<Row> {
    let mut rows = rows(&std::fs::read(csv).unwrap());
    for row in &mut rows {
        assert!(row.remove("time_ns").is_some());
        // Which replicate solved a row follows the run's chunks, which a resume cuts anew.
        assert!(row.remove("replicate").is_some());
    }
    rows
}

fn summary(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Byte offsets just after each line of `text`.
pub(super) fn line_ends(text: &[u8]) -> Vec<usize> {
    text.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

/// The classic run cut to `len` bytes and resumed equals the whole run; the resume says it
/// kept `kept` rows and dropped `dropped`.
fn cut_and_resume(len: impl Fn(&[usize]) -> usize, kept: u64, dropped: u64) {
    let dir = tempfile::tempdir().unwrap();
    let (full, full_json) = (path(dir.path(), "full.csv"), path(dir.path(), "full.json"));
    classic_run(&full, &full_json, false);
    let text = std::fs::read(&full).unwrap();
    let cut = path(dir.path(), "cut.csv");
    std::fs::write(&cut, &text[..len(&line_ends(&text))]).unwrap();
    let cut_json = path(dir.path(), "cut.json");
    let out = classic_run(&cut, &cut_json, true);
    let said = stderr(&out);
    assert!(
        said.contains(&format!("has {kept} rows whole"))
            && said.contains(&format!("dropped {dropped} cut rows")),
        "{said}"
    );
    assert_eq!(untimed(&cut), untimed(&full));
    let resumed = summary(&cut_json);
    assert_eq!(
        summary_counts(&resumed),
        summary_counts(&summary(&full_json))
    );
    assert_eq!(resumed["resumed_rows"].as_u64(), Some(kept));
}

#[test]
fn a_cut_last_row_is_dropped_and_redone() {
    // The header and 5 lines of 2 rows, then 30 bytes of the next row.
    cut_and_resume(|ends| ends[10] + 30, 10, 1);
}

#[test]
fn a_line_with_only_some_strategies_rows_is_redone() {
    // The header, 5 whole lines and the first strategy's row of the sixth.
    cut_and_resume(|ends| ends[11], 10, 1);
}

#[test]
fn a_cut_header_starts_over() {
    cut_and_resume(|_| 10, 0, 0);
}

/// A complete run resumed: nothing is left to do, so nothing changes, the CSV and the
/// summary byte for byte, and stderr says so. Killed after its last row but before its
/// summary (written at the end, emptied at the start), the same CSV is not finished: the
/// resume solves nothing and writes the summary, counting every kept row.
#[test]
fn a_complete_csv_resumes_to_itself_with_nothing_solved() {
    let dir = tempfile::tempdir().unwrap();
    let (full, full_json) = (path(dir.path(), "full.csv"), path(dir.path(), "full.json"));
    classic_run(&full, &full_json, false);
    let before = std::fs::read(&full).unwrap();
    let earlier = std::fs::read(&full_json).unwrap();
    let out = classic_run(&full, &full_json, true);
    assert_eq!(std::fs::read(&full).unwrap(), before, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&full_json).unwrap(),
        earlier,
        "{}",
        stderr(&out)
    );
    let rows = (line_ends(&before).len() - 1) as u64;
    assert!(
        stderr(&out).contains(&format!(
            "has {rows} rows whole (corpus {CLASSIC} up to line"
        )) && stderr(&out).contains("the run had finished: nothing to do"),
        "{}",
        stderr(&out)
    );

    std::fs::write(&full_json, b"").unwrap();
    let out = classic_run(&full, &full_json, true);
    assert_eq!(std::fs::read(&full).unwrap(), before, "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("has {rows} rows whole")));
    let resumed = summary(&full_json);
    assert_eq!(resumed["resumed_rows"].as_u64(), Some(rows));
    let total: u64 = resumed["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["puzzles"].as_u64().unwrap())
        .sum();
    assert_eq!(total, rows, "the summary counts the kept rows");
    let earlier: serde_json::Value = serde_json::from_slice(&earlier).unwrap();
    assert_eq!(summary_counts(&resumed), summary_counts(&earlier));
}

#[test]
fn another_runs_summary_of_as_many_rows_is_not_taken_for_the_csvs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, a_json) = (path(dir.path(), "a.csv"), path(dir.path(), "a.json"));
    let (b, b_json) = (path(dir.path(), "b.csv"), path(dir.path(), "b.json"));
    classic_run(&a, &a_json, false);
    classic_run(&b, &b_json, false);
    let times = |json: &str| -> Vec<String> {
        summary(json)["state"]["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["time_sum_ns"].as_str().unwrap().to_string())
            .collect()
    };
    let own = times(&a_json);
    // Two runs of the same rows, each timed: their summed times differ.
    assert_ne!(own, times(&b_json));
    std::fs::copy(&b_json, &a_json).unwrap();
    let out = classic_run(&a, &a_json, true);
    assert!(
        !stderr(&out).contains("nothing to do"),
        "b's summary was taken for a.csv's: {}",
        stderr(&out)
    );
    // The summary is made anew from a.csv's rows.
    assert_eq!(times(&a_json), own, "{}", stderr(&out));
}

/// `--resume` with `args` fails, saying `why`, and leaves `csv` as it was.
fn refused(csv: Option<&str>, args: &[&str], why: &str) {
    let before = csv.map(|c| std::fs::read(c).ok());
    let mut all = vec!["--resume"];
    all.extend(args);
    let out = run(&all);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(why),
        "{} should say {why}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    if let Some(c) = csv {
        assert_eq!(std::fs::read(c).ok(), before.unwrap(), "{c} was touched");
    }
}

#[test]
fn what_cannot_be_resumed_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (path(dir.path(), "run.csv"), path(dir.path(), "run.json"));
    classic_run(&csv, &json, false);
    // Cut mid-row, so that a resume would change it.
    let text = std::fs::read(&csv).unwrap();
    std::fs::write(&csv, &text[..line_ends(&text)[4] + 20]).unwrap();
    let c = Some(csv.as_str());

    refused(None, &[CLASSIC, "-s", STRATEGIES], "name it (-o run.csv)");
    refused(
        None,
        &[CLASSIC, "-s", STRATEGIES, "-o", "-"],
        "stdout cannot be read back",
    );
    let absent = path(dir.path(), "absent.csv");
    refused(
        None,
        &[CLASSIC, "-s", STRATEGIES, "-o", &absent],
        "nothing to resume; run without --resume",
    );
    assert!(!Path::new(&absent).exists());
    refused(
        c,
        &["datasets/minimal.txt", "-s", STRATEGIES, "-o", &csv],
        "a row for corpus datasets/classic.txt, which this run does not read",
    );
    refused(
        c,
        &[CLASSIC, "-s", "dlx", "-o", &csv],
        "a row for strategy bitmask, which this run does not time",
    );
    refused(
        c,
        &[CLASSIC, "-s", "dlx,bitmask,naive", "-o", &csv],
        "of datasets/classic.txt has rows for 2 of this run's 3 strategies",
    );
    refused(
        c,
        &[
            CLASSIC,
            "-s",
            STRATEGIES,
            "-o",
            &csv,
            "--summary",
            &json,
            "--max-nodes",
            "5",
        ],
        "had --max-nodes 1000000, this one 5",
    );

    let other = path(dir.path(), "other.csv");
    std::fs::write(&other, "line,puzzle\n1,x\n").unwrap();
    refused(
        Some(&other),
        &[CLASSIC, "-s", STRATEGIES, "-o", &other],
        "the header is not the one run writes",
    );
    let middle = path(dir.path(), "middle.csv");
    let mut broken = text.clone();
    let at = line_ends(&text)[3];
    broken.splice(at..at + 3, *b"x,y");
    std::fs::write(&middle, &broken).unwrap();
    refused(
        Some(&middle),
        &[CLASSIC, "-s", STRATEGIES, "-o", &middle],
        "middle.csv:5: --resume:",
    );
}

/// THE test: a run stopped by a real SIGINT, resumed with the same arguments, ends as an
/// uninterrupted run on every column but the times, and its summary counts the same.
#[test]
fn resume_after_sigint_equals_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let minimal =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/minimal.txt"))
            .unwrap();
    // Quick lines first, whose rows fill the first page-sized write of the CSV; then
    // puzzles that `naive` takes milliseconds each on, for the signal to land among.
    let easy =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n";
    let corpus =
        easy.repeat(1500) + &minimal.lines().take(300).collect::<Vec<_>>().join("\n") + "\n";
    std::fs::write(dir.path().join("c.txt"), &corpus).unwrap();
    let lines = corpus.lines().count();
    // No time budget: a search aborted by time would differ between the runs.
    let args = |csv: &str, json: &str| {
        [
            "run",
            "c.txt",
            "-s",
            "bitmask,naive",
            "-j",
            "1",
            "--timeout",
            "0",
            "-o",
            csv,
            "--summary",
            json,
            "-q",
        ]
        .map(str::to_string)
    };
    let full = Running::start(
        &args("full.csv", "full.json").each_ref().map(|s| s.as_str()),
        dir.path(),
    );
    let stopped = args("cut.csv", "cut.json");
    let mut child = Running::start(&stopped.each_ref().map(|s| s.as_str()), dir.path());
    let cut = dir.path().join("cut.csv");
    let start = Instant::now();
    while std::fs::metadata(&cut).map_or(0, |m| m.len()) == 0 {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "ended before any row"
        );
        assert!(start.elapsed() < PATIENCE, "no rows after {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.signal(libc::SIGINT);
    let status = child.exit_within(PATIENCE).expect("exits after SIGINT");
    assert_eq!(status.code(), Some(130));
    let partial = rows(&std::fs::read(&cut).unwrap()).len();
    assert!(
        partial > 0 && partial < 2 * lines,
        "{partial} rows of {}: not cut short",
        2 * lines
    );

    let mut full = full;
    let status = full.exit_within(PATIENCE * 4).expect("the whole run ends");
    assert!(status.success());
    let mut resumed = stopped.to_vec();
    resumed.push("--resume".into());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
        .args(&resumed)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let at = |name: &str| path(dir.path(), name);
    assert_eq!(untimed(&at("cut.csv")), untimed(&at("full.csv")));
    let (resumed, whole) = (summary(&at("cut.json")), summary(&at("full.json")));
    assert_eq!(summary_counts(&resumed), summary_counts(&whole));
    assert!(resumed["resumed_rows"].as_u64().unwrap() <= partial as u64);
    assert_eq!(resumed["interrupted"], false);
}

/// Two corpora, cut in the first (the second then runs whole) and in the second (the first
/// is not solved again): both resume to the whole run.
#[test]
fn a_run_of_several_corpora_resumes_in_the_corpus_it_stopped_in() {
    let dir = tempfile::tempdir().unwrap();
    let (full, full_json) = (path(dir.path(), "full.csv"), path(dir.path(), "full.json"));
    let args = |csv: &str, json: &str, resume: bool| {
        let mut args = vec![CLASSIC, "datasets/minimal.txt", "-s", STRATEGIES];
        args.extend(["-o", csv, "--summary", json]);
        if resume {
            args.push("--resume");
        }
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    args(&full, &full_json, false);
    let text = std::fs::read(&full).unwrap();
    let ends = line_ends(&text);
    let classic_rows = untimed(&full)
        .iter()
        .filter(|r| r["corpus"] == CLASSIC)
        .count();
    for (name, keep_rows) in [("first", 4), ("second", classic_rows + 20)] {
        let (cut, cut_json) = (
            path(dir.path(), &format!("{name}.csv")),
            path(dir.path(), &format!("{name}.json")),
        );
        std::fs::write(&cut, &text[..ends[keep_rows] + 7]).unwrap();
        let out = args(&cut, &cut_json, true);
        assert!(
            stderr(&out).contains(&format!("has {keep_rows} rows whole")),
            "{}",
            stderr(&out)
        );
        assert_eq!(untimed(&cut), untimed(&full), "cut in the {name} corpus");
        assert_eq!(
            summary_counts(&summary(&cut_json)),
            summary_counts(&summary(&full_json))
        );
    }
}

/// A run of `args` that succeeds; its stderr.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out)
}

/// The summary JSON says which part wrote the CSV: a resume as another part, or as a whole
/// run, is refused naming both; as the same part it goes on.
#[test]
fn a_resume_as_another_shard_than_its_summary_says_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (path(dir.path(), "part.csv"), path(dir.path(), "part.json"));
    let part = |shard: Option<&'static str>, resume: bool| {
        let mut args = vec![CLASSIC, "-s", STRATEGIES, "-o", &csv, "--summary", &json];
        args.extend(shard.map(|s| ["--shard", s]).iter().flatten());
        args.extend(resume.then_some("--resume"));
        args
    };
    ok(&part(Some("2/4"), false));
    let rows = rows(&std::fs::read(&csv).unwrap()).len();
    assert!(rows > 0, "part 2/4 of {CLASSIC} has puzzles");
    let said = |earlier: &str, now: &str| {
        format!(
            "--resume: {csv} was written by {earlier} (its summary {json} says so); this run \
             is {now}"
        )
    };
    // `refused` adds --resume.
    let refused_as = |shard, earlier, now| {
        refused(Some(&csv), &part(shard, false), &said(earlier, now));
    };
    refused_as(Some("1/4"), "shard 2/4", "shard 1/4");
    refused_as(None, "shard 2/4", "a whole run");
    assert!(ok(&part(Some("2/4"), true)).contains(&format!("has {rows} rows whole")));

    ok(&part(None, false));
    refused_as(Some("2/2"), "a whole run", "shard 2/2");
}

/// The first row of `csv` whose line `outside` says is not the part's: its line in the
/// CSV (the header is line 1) and the corpus line.
fn first_outside(csv: &str, outside: impl Fn(u64) -> bool) -> (usize, u64) {
    rows(&std::fs::read(csv).unwrap())
        .iter()
        .enumerate()
        .map(|(i, r)| (i + 2, r["line"].parse().unwrap()))
        .find(|(_, line)| outside(*line))
        .expect("a row outside the part")
}

/// Independently of any summary: a whole run's CSV resumed as one part holds rows of lines
/// of other parts, which are refused with the CSV's row, the corpus line and the part; by
/// byte range (before the part and after it) and round robin alike.
#[test]
fn rows_of_lines_outside_the_part_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let whole = path(dir.path(), "whole.csv");
    ok(&[CLASSIC, "-s", STRATEGIES, "-o", &whole]);
    let refused_as = |corpus: &str, shard: &str, why: &str| {
        let args = [corpus, "-s", STRATEGIES, "-o", &whole, "--shard", shard];
        refused(Some(&whole), &args, why);
    };
    let lines_of = |corpus: &str, shard: &str| -> Vec<u64> {
        super::run_ok(&[corpus, "-s", "dlx", "--shard", shard])
            .iter()
            .map(|r| r["line"].parse().unwrap())
            .collect()
    };
    let part2 = lines_of(CLASSIC, "2/2");
    let (row, line) = first_outside(&whole, |l| l >= part2[0]);
    refused_as(
        CLASSIC,
        "1/2",
        &format!(
            "{whole}:{row}: --resume: a row for line {line} of {CLASSIC}, which is not in part \
             1/2 that this run reads (that part is lines 1 to"
        ),
    );
    let (row, line) = first_outside(&whole, |l| l < part2[0]);
    refused_as(
        CLASSIC,
        "2/2",
        &format!(
            "{whole}:{row}: --resume: a row for line {line} of {CLASSIC}, which is not in part 2/2"
        ),
    );

    // Compressed: every part reads it all and takes every other line.
    let gz = path(dir.path(), "classic.txt.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &std::fs::read(CLASSIC).unwrap()).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    ok(&[&gz, "-s", STRATEGIES, "-o", &whole]);
    assert_eq!(
        lines_of(&gz, "1/2").iter().filter(|l| *l % 2 == 0).count(),
        0
    );
    let (row, line) = first_outside(&whole, |l| l % 2 == 0);
    refused_as(
        &gz,
        "1/2",
        &format!(
            "{whole}:{row}: --resume: a row for line {line} of {gz}, which is not in part 1/2 \
             that this run reads (round robin gives it to part 2/2, not 1/2)"
        ),
    );
}

/// A killed run leaves its summary file empty (it is written at the end), or none: the
/// resume says so, checks what the CSV says, and goes on to the whole run.
#[test]
fn an_empty_or_missing_summary_is_said_and_the_resume_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (full, full_json) = (path(dir.path(), "full.csv"), path(dir.path(), "full.json"));
    classic_run(&full, &full_json, false);
    let text = std::fs::read(&full).unwrap();
    for (name, empty) in [("empty", true), ("missing", false)] {
        let (cut, cut_json) = (
            path(dir.path(), &format!("{name}.csv")),
            path(dir.path(), &format!("{name}.json")),
        );
        std::fs::write(&cut, &text[..line_ends(&text)[6] + 9]).unwrap();
        if empty {
            std::fs::write(&cut_json, b"").unwrap();
        }
        let said = stderr(&classic_run(&cut, &cut_json, true));
        let why = if empty { "is empty" } else { "does not exist" };
        assert!(
            said.contains(&format!(
                "resume: the earlier summary {cut_json} {why}: the earlier run did not finish"
            )) && said.contains("settings are checked from the CSV only"),
            "{said}"
        );
        assert_eq!(untimed(&cut), untimed(&full), "{name} summary");
        assert_eq!(
            summary_counts(&summary(&cut_json)),
            summary_counts(&summary(&full_json))
        );
    }
}

const MINIMAL: &str = "datasets/minimal.txt";

/// The rows of the first `lines` lines with rows of `csv`, header kept, written to `to`.
fn first_rows(csv: &str, lines: usize, to: &str) {
    let text = std::fs::read(csv).unwrap();
    std::fs::write(to, &text[..line_ends(&text)[lines] + 1]).unwrap();
}

/// The run skips every line up to the last kept one, so kept rows that are not the first
/// lines of this run's part (a part's CSV resumed as a whole run or as a part of another
/// split, one holding only a later corpus's rows) would leave lines never solved: refused
/// with the counts, the CSV untouched; byte range, round robin and several corpora alike.
#[test]
fn kept_rows_that_are_not_the_first_lines_of_the_part_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (part, cut) = (path(dir.path(), "part.csv"), path(dir.path(), "cut.csv"));
    ok(&[MINIMAL, "-s", "fast", "--shard", "2/2", "-o", &part]);
    let lines_of = |csv: &str| -> Vec<u64> {
        rows(&std::fs::read(csv).unwrap())
            .iter()
            .map(|r| r["line"].parse().unwrap())
            .collect()
    };
    let kept = lines_of(&part);
    assert_eq!((kept[0], kept.len()), (501, 500), "part 2/2 by byte range");
    refused(
        Some(&part),
        &[MINIMAL, "-s", "fast", "-o", &part],
        &format!(
            "--resume: {part} holds rows for 500 lines of {MINIMAL} up to line 1000, but \
             {MINIMAL} has 1000 lines up to there: it was not written by this run's part"
        ),
    );
    // Lines 501 to 600 all lie in part 2/3 (lines 334 to 666): only the count tells.
    first_rows(&part, 100, &cut);
    refused(
        Some(&cut),
        &[MINIMAL, "-s", "fast", "--shard", "2/3", "-o", &cut],
        &format!(
            "holds rows for 100 lines of {MINIMAL} up to line 600, but part 2/3 of {MINIMAL} \
             has 266 lines up to there"
        ),
    );
    // As the part that wrote it, the cut CSV goes on to the part's whole CSV.
    ok(&[
        MINIMAL, "-s", "fast", "--shard", "2/2", "-o", &cut, "--resume",
    ]);
    assert_eq!(lines_of(&cut), kept);

    // Round robin: part 2/3's lines 2, 5, 8, ... are all lines of a whole run.
    let gz = path(dir.path(), "minimal.txt.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &std::fs::read(MINIMAL).unwrap()).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    ok(&[&gz, "-s", "fast", "--shard", "2/3", "-o", &part]);
    first_rows(&part, 50, &cut);
    refused(
        Some(&cut),
        &[&gz, "-s", "fast", "-o", &cut],
        &format!("holds rows for 50 lines of {gz} up to line 149, but {gz} has 149 lines"),
    );

    // Rows of the second corpus only: the first would never be solved.
    ok(&[CLASSIC, "-s", "fast", "-o", &part]);
    refused(
        Some(&part),
        &[MINIMAL, CLASSIC, "-s", "fast", "-o", &part],
        &format!(
            "holds rows for 0 lines of {MINIMAL}, but {MINIMAL} has 1000 lines, and rows of \
             {CLASSIC} follow"
        ),
    );
}

/// Stdin cannot be read a second time for that check: a resume whose rows are of it is
/// refused, saying so, before stdin is read at all.
#[test]
fn a_resume_with_rows_of_stdin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = path(dir.path(), "stdin.csv");
    let out = bench()
        .args(["run", "-", "-s", "fast", "-q", "-o", &csv])
        .write_stdin(std::fs::read(CLASSIC).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    refused(
        Some(&csv),
        &["-", "-s", "fast", "-o", &csv],
        "which is not a regular file and cannot be read twice",
    );
}

/// An earlier run's wall time is added only when its summary says it was interrupted: a
/// complete run's covers rows that the resume may redo (a CSV cut at a row boundary).
/// Without it, wall throughput is of the rows solved after the resume only.
#[test]
fn only_an_interrupted_earlier_runs_wall_time_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (path(dir.path(), "run.csv"), path(dir.path(), "run.json"));
    classic_run(&csv, &json, false);
    let text = std::fs::read(&csv).unwrap();
    // Far more than this stretch can take, so that whether it was added is plain.
    const EARLIER: u64 = 1 << 50;
    let mut earlier = summary(&json);
    earlier["wall_ns"] = EARLIER.into();
    for row in earlier["rows"].as_array_mut().unwrap() {
        row["wall_ns"] = EARLIER.into();
    }
    for interrupted in [false, true] {
        earlier["interrupted"] = interrupted.into();
        std::fs::write(&json, serde_json::to_vec(&earlier).unwrap()).unwrap();
        std::fs::write(&csv, &text[..line_ends(&text)[6] + 1]).unwrap();
        classic_run(&csv, &json, true);
        let resumed = summary(&json);
        let walls = std::iter::once(resumed["wall_ns"].as_u64().unwrap()).chain(
            resumed["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["wall_ns"].as_u64().unwrap()),
        );
        for wall in walls {
            assert_eq!(wall >= EARLIER, interrupted, "interrupted: {interrupted}");
        }
        // Wall throughput counts the kept rows only where their wall time was added.
        let kept = resumed["resumed_rows"].as_u64().unwrap() / STRATEGIES.split(',').count() as u64;
        assert!(kept > 0);
        for row in resumed["rows"].as_array().unwrap() {
            let searched = row["searched"].as_u64().unwrap();
            let over_wall = row["wall_puzzles_per_s"].as_f64().unwrap()
                * row["wall_ns"].as_u64().unwrap() as f64
                / 1e9;
            let expected = if interrupted {
                searched
            } else {
                searched - kept
            };
            assert_eq!(
                over_wall.round() as u64,
                expected,
                "interrupted: {interrupted}"
            );
        }
    }
}

/// Without a summary to say the earlier limit, the kept rows do: a row that the run's
/// `--max-solutions` cannot give (`multiple` with another count, `solved` when counting
/// past 1, `unique` when stopping at 1) is refused, naming its line, the CSV untouched.
#[test]
fn a_resume_with_another_max_solutions_is_refused_from_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    // A unique puzzle, one with many solutions, and the unique one again.
    let unique =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let many = format!("123456789{}", ".".repeat(72));
    let mixed = path(dir.path(), "corpus.txt");
    std::fs::write(&mixed, format!("{unique}\n{many}\n{unique}\n")).unwrap();
    for (then, now, row) in [
        ("3", "2", "multiple with 3"),
        ("1", "2", "solved with 1"),
        ("2", "1", "unique with 1"),
    ] {
        let csv = path(dir.path(), &format!("run-{then}-{now}.csv"));
        ok(&[&mixed, "-s", "fast", "-o", &csv, "--max-solutions", then]);
        // Cut mid-row, so that a resume would change it.
        let bytes = std::fs::read(&csv).unwrap();
        std::fs::write(&csv, &bytes[..bytes.len() - 10]).unwrap();
        refused(
            Some(&csv),
            &[&mixed, "-s", "fast", "-o", &csv, "--max-solutions", now],
            &format!("this row is {row} solutions, which a run counting to {now}"),
        );
        // With the earlier limit it goes on.
        ok(&[
            &mixed,
            "-s",
            "fast",
            "-o",
            &csv,
            "--max-solutions",
            then,
            "--resume",
        ]);
    }
}

/// A run that failed (a corpus cut short: exit 2) wrote whole rows and a summary, but it
/// did not finish: `--resume` must not call it finished (exit 0, nothing to do). It refuses
/// it, naming the CSV and the summary that says it failed.
#[test]
fn a_run_that_failed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = super::merge::cut_gz(dir.path());
    let corpus = corpus.to_str().unwrap();
    let (csv, json) = (path(dir.path(), "r.csv"), path(dir.path(), "r.json"));
    let args = [
        "run",
        corpus,
        "-s",
        "fast",
        "-q",
        "-o",
        &csv,
        "--summary",
        &json,
    ];
    let out = bench().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let before = std::fs::read(&csv).unwrap();
    let out = bench().args(args).arg("--resume").output().unwrap();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("the run that wrote {csv} failed (exit 2)"))
            && said.contains(&json)
            && said.contains("read error after line"),
        "{said}"
    );
    assert_eq!(std::fs::read(&csv).unwrap(), before, "left untouched");
}

/// How long before a `kill -9` a line's rows must have been finished to be in the CSV:
/// README's promise (a part of a chunk takes about a quarter of a second, and the writer
/// writes what it holds at least every quarter of a second).
const KEPT_AFTER: Duration = Duration::from_millis(1000);

fn monotonic_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) },
        0
    );
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// A slow `lib:` solver (50 ms a puzzle) killed with SIGKILL after a few seconds: the CSV
/// holds every line finished more than `KEPT_AFTER` before the kill (the solver logs when
/// it finished each puzzle), and `--resume` completes it to a clean run's rows.
#[test]
fn a_slow_solvers_rows_survive_a_kill_and_resume_to_a_clean_run() {
    let Some((_, _, hostile)) = super::foreign_lib::libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let minimal =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/minimal.txt"))
            .unwrap();
    // Distinct puzzles, so the solver's log names each line.
    let mut seen = std::collections::HashSet::new();
    let puzzles: Vec<&str> = minimal
        .lines()
        .filter(|l| l.len() == 81 && seen.insert(*l))
        .take(160)
        .collect();
    std::fs::write(dir.path().join("c.txt"), puzzles.join("\n") + "\n").unwrap();
    let spec = format!("slow=lib:{}:hostile_slow", hostile.display());
    // No warm-up: it would solve the first lines untimed, and log them, before their rows.
    let args = |csv: &str| {
        [
            "run",
            "c.txt",
            "-s",
            "none",
            "--solver",
            &spec,
            "-j",
            "2",
            "--no-warmup",
            "-q",
            "-o",
            csv,
        ]
        .map(str::to_string)
    };
    let log = dir.path().join("solved.log");
    let cut = dir.path().join("cut.csv");
    let mut child = Running(
        std::process::Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
            .args(args("cut.csv"))
            .current_dir(dir.path())
            .env("SLOW_SOLVED_LOG", &log)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    let solved = || -> Vec<(String, u64)> {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let (puzzle, ns) = l.split_once(' ')?;
                Some((puzzle.to_string(), ns.parse().ok()?))
            })
            .collect()
    };
    // Killed once the first solve is two seconds old: some lines are long finished, and
    // the run (160 puzzles at 50 ms on two workers: at least 4 s) is not.
    loop {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "ended before the kill"
        );
        assert!(
            start.elapsed() < PATIENCE,
            "nothing solved after {PATIENCE:?}"
        );
        if let Some((_, first)) = solved().first() {
            if monotonic_ns().saturating_sub(*first) > 2_000_000_000 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed_at = monotonic_ns();
    child.signal(libc::SIGKILL);
    child.exit_within(PATIENCE).expect("killed");
    let finished: std::collections::HashMap<String, u64> = solved().into_iter().collect();
    let before = killed_at - KEPT_AFTER.as_nanos() as u64;
    let long_finished = puzzles
        .iter()
        .take_while(|p| finished.get(**p).is_some_and(|&t| t < before))
        .count();
    let text = std::fs::read(&cut).unwrap();
    let whole_rows = line_ends(&text).len().saturating_sub(1);
    assert!(
        long_finished > 0,
        "no line was finished before {KEPT_AFTER:?}"
    );
    assert!(
        whole_rows >= long_finished,
        "{whole_rows} rows in the CSV; {long_finished} lines were finished {KEPT_AFTER:?} \
         before the kill"
    );
    assert!(whole_rows < puzzles.len(), "the run was cut short");

    let mut resumed = args("cut.csv").to_vec();
    resumed.push("--resume".into());
    let out = bench()
        .args(&resumed)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = bench()
        .args(args("clean.csv"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let at = |name: &str| path(dir.path(), name);
    assert_eq!(untimed(&at("cut.csv")), untimed(&at("clean.csv")));
}

/// A row edited to say its answer was wrong (`ended` mismatch) without the reason `run`
/// always gives it (an empty `error`): --resume refuses the CSV, naming it and the line,
/// and leaves it as it was.
#[test]
fn a_forged_mismatch_without_its_error_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = path(dir.path(), "run.csv");
    ok(&[CLASSIC, "-s", "fast", "-o", &csv]);
    let text = String::from_utf8(std::fs::read(&csv).unwrap()).unwrap();
    let row = text.lines().nth(1).unwrap();
    assert!(
        row.contains(",,finished,"),
        "the first row as run writes it: {row}"
    );
    let forged = text.replacen(",,finished,", ",,mismatch,", 1);
    // Cut mid-row, so that a resume would change it.
    std::fs::write(&csv, &forged.as_bytes()[..forged.len() - 10]).unwrap();
    refused(
        Some(&csv),
        &[CLASSIC, "-s", "fast", "-o", &csv],
        "run.csv:2: ",
    );
    refused(
        Some(&csv),
        &[CLASSIC, "-s", "fast", "-o", &csv],
        "ended mismatch with no error: run never writes these together",
    );
}
