//! What `merge`, `run --resume` and `report` must refuse because the rows they are given do
//! not belong together: parts over a corpus that changed between them or that is another
//! file under the same name, a part's CSV that its summary does not count, kept rows of a
//! corpus since replaced, a corpus reordered under `report --by`, rows no run can write; and
//! the wall throughput of a resumed and merged run, which counts only the rows whose wall
//! time it holds. Each scenario is built through the binary, as a user meets it.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::bench;
use super::merge::{halves, json, merge, read_rows, run_into};
use super::resume::{line_ends, path, run, stderr};

/// Two strategies, so that a line has several rows; both fast.
const STRATEGIES: &str = "fast,dlx";

/// `sudoku-bench generate` of `count` puzzles from `seed` into `to`, with `extra` options.
fn generate(to: &Path, count: u32, seed: u32, extra: &[&str]) {
    bench()
        .args(["generate", "-q", "--count", &count.to_string()])
        .args(["--seed", &seed.to_string()])
        .args(extra)
        .arg("-o")
        .arg(to)
        .assert()
        .success();
}

/// `run CORPUS -s fast,dlx -q -o CSV --summary CSV.json` from the directory `cwd`, with
/// `extra` options; expects success.
fn run_in(cwd: &Path, corpus: &str, csv: &Path, extra: &[&str]) -> Output {
    let out = bench()
        .current_dir(cwd)
        .args(["run", corpus, "-s", STRATEGIES, "-q", "-o"])
        .arg(csv)
        .arg("--summary")
        .arg(csv.with_extension("json"))
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// `merge` of `parts` into `dir/all.csv`: refused with exit status 2, nothing written; its
/// stderr.
fn merge_refused(parts: &[PathBuf], dir: &Path) -> String {
    let out = dir.join("all.csv");
    let assert = merge(parts, &out).code(2);
    assert!(!out.exists(), "a refused merge writes nothing");
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// The lines of a text file, without their line breaks.
fn text_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// Where the column `name` is in a per-puzzle CSV's header line.
fn column(header: &str, name: &str) -> usize {
    header.split(',').position(|c| c == name).unwrap()
}

/// The field at `column` of a CSV line without quotes.
fn field(line: &str, column: usize) -> &str {
    assert!(!line.contains('"'), "a row without quoted fields: {line}");
    line.split(',').nth(column).unwrap()
}

/// `line` with the field at `column` replaced by `value`.
fn with_field(line: &str, column: usize, value: &str) -> String {
    assert!(!line.contains('"'), "a row without quoted fields: {line}");
    let mut fields: Vec<&str> = line.split(',').collect();
    fields[column] = value;
    fields.join(",")
}

// 1. A corpus that changed between the parts.

/// Parts 1/3 and 2/3 run over a 200-line corpus, then 50 lines appended, then part 3/3:
/// some lines are in no part, and the merge must not pass the parts off as one run.
#[test]
fn merge_refuses_parts_run_over_a_corpus_that_changed_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all = d.join("all.txt");
    generate(&all, 250, 3, &[]);
    let lines = text_lines(&all);
    let corpus = d.join("c.txt");
    write_lines(&corpus, &lines[..200]);
    let part = |k: u32| d.join(format!("part-{k}.csv"));
    for k in 1..=2 {
        run_in(d, "c.txt", &part(k), &["--shard", &format!("{k}/3")]);
    }
    write_lines(&corpus, &lines);
    run_in(d, "c.txt", &part(3), &["--shard", "3/3"]);

    let err = merge_refused(&[part(1), part(2), part(3)], d);
    assert!(
        err.contains("part-3") && (err.contains("part-1") || err.contains("part-2")),
        "the refusal names the parts whose corpus differs: {err}"
    );
}

// 2. The same corpus name holding other puzzles.

/// Part 1/2 run in one directory, part 2/2 in another whose `c.txt` is another corpus of
/// the same size: the same name, other puzzles.
#[test]
fn merge_refuses_a_part_run_where_the_corpus_name_holds_other_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for (d, seed) in [(&a, 3), (&b, 4)] {
        std::fs::create_dir(d).unwrap();
        generate(&d.join("c.txt"), 200, seed, &[]);
    }
    let size = |d: &Path| std::fs::metadata(d.join("c.txt")).unwrap().len();
    assert_eq!(size(&a), size(&b), "the same size: the same byte ranges");
    assert_ne!(
        std::fs::read(a.join("c.txt")).unwrap(),
        std::fs::read(b.join("c.txt")).unwrap()
    );
    let parts = [dir.path().join("part-1.csv"), dir.path().join("part-2.csv")];
    run_in(&a, "c.txt", &parts[0], &["--shard", "1/2"]);
    run_in(&b, "c.txt", &parts[1], &["--shard", "2/2"]);

    let err = merge_refused(&parts, dir.path());
    assert!(
        err.contains("part-1") && err.contains("part-2"),
        "the refusal names both parts: {err}"
    );
}

// 3. A part's CSV that its summary does not count.

/// Parts 1/2 and 2/2 (of merge.rs's corpora, `fast,dlx`), well formed; part 1's CSV lines.
fn parts_to_spoil(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let parts = halves(dir);
    let lines = text_lines(&parts[0]);
    (parts, lines)
}

/// The CSV of part 1/2 run with `--max-nodes 100` (dlx aborts on many puzzles) beside the
/// summary JSON of the normal run of part 1/2: every group has as many rows as the summary
/// counts, but not the statuses, nodes or guesses it counts.
#[test]
fn merge_refuses_a_part_csv_of_another_run_than_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, _) = parts_to_spoil(dir.path());
    let low = run_into(dir.path(), "low", &["--shard", "1/2", "--max-nodes", "100"]);
    let aborted = read_rows(&low)
        .iter()
        .filter(|r| r["status"] == "aborted")
        .count();
    let summary = json(&parts[0].with_extension("json"));
    let counted: u64 = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["aborted"].as_u64().unwrap())
        .sum();
    assert!(
        aborted > 0 && counted == 0,
        "{aborted} aborted rows, {counted} counted"
    );
    assert_eq!(read_rows(&low).len(), read_rows(&parts[0]).len());
    std::fs::copy(&low, &parts[0]).unwrap();

    let err = merge_refused(&parts, dir.path());
    assert!(
        err.contains("part-1.csv"),
        "the refusal names the CSV: {err}"
    );
}

/// One `fast` row of part 1 deleted and another (same status, solutions, nodes and
/// guesses, so that every count of the summary still holds) written twice: as many rows
/// as the summary counts, one line missing and one twice.
#[test]
fn merge_refuses_a_part_csv_with_a_line_missing_and_one_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, lines) = parts_to_spoil(dir.path());
    let h = &lines[0];
    let key_columns: Vec<usize> = [
        "corpus",
        "strategy",
        "status",
        "solutions",
        "nodes",
        "guesses",
    ]
    .iter()
    .map(|c| column(h, c))
    .collect();
    let key = |l: &str| -> Vec<String> {
        key_columns
            .iter()
            .map(|&c| field(l, c).to_string())
            .collect()
    };
    let strategy = column(h, "strategy");
    // Indexes into `lines` (file line = index + 1): `twice` is written twice, `gone` deleted.
    let twice = (1..lines.len())
        .find(|&i| field(&lines[i], strategy) == "fast")
        .unwrap();
    let gone = (twice + 3..lines.len())
        .find(|&i| key(&lines[i]) == key(&lines[twice]))
        .expect("another fast row with the same counts");
    let mut spoiled = lines.clone();
    spoiled.remove(gone);
    spoiled.insert(twice + 1, lines[twice].clone());
    assert_eq!(spoiled.len(), lines.len());
    write_lines(&parts[0], &spoiled);

    let err = merge_refused(&parts, dir.path());
    // The line of either copy, or of a row beside the gap (lines shift by one after the copy).
    let named = [twice + 1, twice + 2, gone + 1, gone + 2]
        .iter()
        .any(|n| err.contains(&format!("part-1.csv:{n}")));
    assert!(named, "the refusal names the CSV and the line: {err}");
}

/// One `unique` row of part 1 says `multiple` (its `solutions` still 1): as many rows as
/// the summary counts, one status the summary does not count.
#[test]
fn merge_refuses_a_part_csv_with_a_status_edited() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, mut lines) = parts_to_spoil(dir.path());
    let status = column(&lines[0], "status");
    let at = (1..lines.len())
        .find(|&i| field(&lines[i], status) == "unique")
        .unwrap();
    lines[at] = with_field(&lines[at], status, "multiple");
    write_lines(&parts[0], &lines);

    let err = merge_refused(&parts, dir.path());
    assert!(
        err.contains(&format!("part-1.csv:{}", at + 1)),
        "the refusal names the CSV and the line: {err}"
    );
}

// 4. `--resume` over a corpus since replaced.

/// A run over 200 puzzles cut mid-way as a kill leaves it (96 whole rows, the summary
/// empty); the corpus then replaced by 200 other puzzles (the same line count, so every
/// line the CSV names still exists). The kept rows are not rows of this corpus.
#[test]
fn resume_refuses_kept_rows_whose_puzzles_are_not_the_corpus_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, other) = (path(dir.path(), "c.txt"), path(dir.path(), "other.txt"));
    generate(Path::new(&corpus), 200, 3, &[]);
    generate(Path::new(&other), 200, 4, &[]);
    let (csv, summary) = (path(dir.path(), "run.csv"), path(dir.path(), "run.json"));
    let args = [&corpus, "-s", STRATEGIES, "-o", &csv, "--summary", &summary];
    assert!(run(&args).status.success());
    let text = std::fs::read(&csv).unwrap();
    let cut = &text[..line_ends(&text)[96] + 30];
    std::fs::write(&csv, cut).unwrap();
    std::fs::write(&summary, b"").unwrap();
    std::fs::copy(&other, &corpus).unwrap();

    let out = run(&[&args[..], &["--resume"]].concat());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("run.csv:2") || (err.contains("run.csv") && err.contains("c.txt:1")),
        "the refusal names the CSV and the line: {err}"
    );
    assert_eq!(
        std::fs::read(&csv).unwrap(),
        cut,
        "the CSV is left as it was"
    );
}

// 5. `report --by` over a corpus since reordered.

/// A CSV corpus with a `difficulty` column, run, then its puzzle lines reversed: every
/// row's line now holds another puzzle and another class.
#[test]
fn report_by_refuses_a_corpus_whose_lines_no_longer_hold_the_rows_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("g.csv");
    generate(&generated, 100, 3, &["--format", "csv"]);
    let mut lines = text_lines(&generated);
    lines[0].push_str(",difficulty");
    for (i, line) in lines.iter_mut().enumerate().skip(1) {
        line.push_str(if i % 2 == 0 { ",easy" } else { ",hard" });
    }
    let corpus = dir.path().join("c.csv");
    write_lines(&corpus, &lines);
    let csv = dir.path().join("run.csv");
    run_in(dir.path(), corpus.to_str().unwrap(), &csv, &[]);
    let report = |html: &str| {
        bench()
            .arg("report")
            .arg(&csv)
            .args(["--by", "difficulty", "-o"])
            .arg(dir.path().join(html))
            .assert()
    };
    report("before.html").success();

    lines[1..].reverse();
    write_lines(&corpus, &lines);
    let assert = report("after.html").code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(
        err.contains("c.csv:2"),
        "the refusal names the corpus and its first line that differs: {err}"
    );
}

// 6. Wall throughput after resume and merge.

/// A part killed (`kill -9`: its CSV cut mid-row, its summary empty) after 4,500 of its
/// 5,000 lines; resumed and that resume stopped by SIGTERM (its summary says interrupted);
/// resumed again to the end; both parts alike; then merged. The 4,500 kept lines of each
/// part have no wall time anywhere: wall throughput must leave them out, at every step.
/// (Killed, resumed once to the end and merged, the rates are right: that resume counts the
/// kept rows as `unwalled`. The second resume, which reads the stopped one's summary, adds
/// its wall time but forgets its `unwalled`.)
#[cfg(target_os = "linux")]
#[test]
fn wall_rates_after_kill_resume_stop_and_resume_count_only_the_rows_with_wall_time() {
    use super::interrupt::{wait_for_handlers, Running};
    use std::time::Duration;

    const PART_LINES: usize = 5000;
    const KEPT: u64 = 4500;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let minimal =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/minimal.txt"))
            .unwrap();
    std::fs::write(d.join("c.txt"), minimal.repeat(2 * PART_LINES / 1000)).unwrap();
    // One thread and `bitmask`: the rest of a part takes long enough to stop it.
    let args = |csv: &str, extra: &[&str]| -> Vec<String> {
        let json = csv.replace(".csv", ".json");
        let mut args = [
            "run",
            "c.txt",
            "-s",
            "fast,bitmask",
            "-j",
            "1",
            "-q",
            "-o",
            csv,
        ]
        .map(str::to_string)
        .to_vec();
        args.extend(["--summary".to_string(), json]);
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let ok = |args: &[String]| {
        let out = bench().current_dir(d).args(args).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    let mut parts = Vec::new();
    for k in 1..=2 {
        let csv = format!("part-{k}.csv");
        let shard = format!("{k}/2");
        ok(&args(&csv, &["--shard", &shard]));
        let text = std::fs::read(d.join(&csv)).unwrap();
        let ends = line_ends(&text);
        assert_eq!(ends.len(), 1 + 2 * PART_LINES, "part {shard}: its rows");
        // As kill -9 leaves it: cut inside a row, the summary empty.
        std::fs::write(d.join(&csv), &text[..ends[2 * KEPT as usize] + 30]).unwrap();
        std::fs::write(d.join(csv.replace(".csv", ".json")), b"").unwrap();

        let resume = args(&csv, &["--shard", &shard, "--resume"]);
        let resume: Vec<&str> = resume.iter().map(String::as_str).collect();
        let mut child = Running::start(&resume, d);
        wait_for_handlers(&mut child);
        child.signal(libc::SIGTERM);
        let status = child
            .exit_within(Duration::from_secs(120))
            .expect("the resume stops");
        assert_eq!(
            status.code(),
            Some(143),
            "part {shard}: the resume was stopped, not finished: {}",
            child.stderr()
        );
        assert_eq!(
            json(&d.join(csv.replace(".csv", ".json")))["interrupted"],
            true
        );
        ok(&args(&csv, &["--shard", &shard, "--resume"]));
        parts.push(d.join(&csv));
    }
    let all = d.join("all.csv");
    merge(&parts, &all).success();

    let merged = json(&all.with_extension("json"));
    // Exactly: each group's `unwalled` is the rows the killed runs left without wall time,
    // and the wall rate counts the others over the wall time.
    let expect = |summary: &Value, unwalled: u64, what: &str| {
        let groups = summary["state"]["groups"].as_array().unwrap();
        for row in summary["rows"].as_array().unwrap() {
            let group = groups
                .iter()
                .find(|g| g["corpus"] == row["corpus"] && g["strategy"] == row["strategy"])
                .unwrap();
            let strategy = &row["strategy"];
            assert_eq!(
                group.get("unwalled").and_then(Value::as_u64).unwrap_or(0),
                unwalled,
                "{what} {strategy}: rows without wall time"
            );
            let searched = row["searched"].as_u64().unwrap();
            let walled = row["wall_puzzles_per_s"].as_f64().unwrap()
                * row["wall_ns"].as_u64().unwrap() as f64
                / 1e9;
            assert_eq!(
                walled.round() as u64,
                searched - unwalled,
                "{what} {strategy}: rows counted in the wall rate"
            );
        }
    };
    for part in &parts {
        expect(
            &json(&part.with_extension("json")),
            KEPT,
            &part.display().to_string(),
        );
    }
    expect(&merged, 2 * KEPT, "merged");
}

/// A part that finished, resumed: nothing is left to do, so nothing changes, byte for
/// byte, and stderr says so.
#[test]
fn resuming_a_finished_part_changes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    generate(&dir.path().join("c.txt"), 200, 3, &[]);
    let csv = dir.path().join("part-1.csv");
    run_in(dir.path(), "c.txt", &csv, &["--shard", "1/2"]);
    let (rows, summary) = (
        std::fs::read(&csv).unwrap(),
        std::fs::read(csv.with_extension("json")).unwrap(),
    );
    let out = run_in(dir.path(), "c.txt", &csv, &["--shard", "1/2", "--resume"]);
    let err = stderr(&out);
    assert_eq!(
        std::fs::read(&csv).unwrap(),
        rows,
        "the CSV is unchanged: {err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(csv.with_extension("json")).unwrap()),
        String::from_utf8_lossy(&summary),
        "the summary is unchanged: {err}"
    );
    assert!(err.contains("part-1.csv"), "{err}");
}

// 7. Rows no run writes, refused by `report`.

/// A run of 30 unique and 30 multiple-solution puzzles with `--max-solutions 2`, its CSV
/// with one row changed by `spoil` (given the CSV's lines, it returns the index of the line
/// it changed) into `NAME.csv`; `report` of that and the run's summary JSON refuses it,
/// naming the CSV and the line.
fn report_refuses(name: &str, spoil: impl Fn(&mut [String]) -> usize) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    generate(&d.join("one.txt"), 30, 5, &[]);
    generate(&d.join("many.txt"), 30, 5, &["--solutions", "many"]);
    let corpus = [
        text_lines(&d.join("one.txt")),
        text_lines(&d.join("many.txt")),
    ]
    .concat();
    write_lines(&d.join("c.txt"), &corpus);
    let csv = d.join("run.csv");
    run_in(d, "c.txt", &csv, &["--max-solutions", "2"]);
    let report = |csv: &Path| {
        bench()
            .arg("report")
            .arg(csv)
            .arg(csv.with_file_name("run.json"))
            .arg("-o")
            .arg(d.join("report.html"))
            .assert()
    };
    report(&csv).success();

    let mut lines = text_lines(&csv);
    let at = spoil(&mut lines);
    let spoiled = d.join(format!("{name}.csv"));
    write_lines(&spoiled, &lines);
    let assert = report(&spoiled).code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(
        err.contains(&format!("{name}.csv:{}", at + 1)),
        "the refusal names the CSV and the line: {err}"
    );
}

/// The first row (index into the CSV's lines) of `strategy` with `status`.
fn first_row(lines: &[String], strategy: &str, status: &str) -> usize {
    let (s, st) = (column(&lines[0], "strategy"), column(&lines[0], "status"));
    (1..lines.len())
        .find(|&i| field(&lines[i], s) == strategy && field(&lines[i], st) == status)
        .unwrap()
}

#[test]
fn report_refuses_a_time_of_2_pow_64_minus_1() {
    report_refuses("time", |lines| {
        let at = first_row(lines, "dlx", "unique");
        lines[at] = with_field(
            &lines[at],
            column(&lines[0], "time_ns"),
            &u64::MAX.to_string(),
        );
        at
    });
}

#[test]
fn report_refuses_line_0() {
    report_refuses("line0", |lines| {
        let at = first_row(lines, "fast", "unique");
        lines[at] = with_field(&lines[at], column(&lines[0], "line"), "0");
        at
    });
}

#[test]
fn report_refuses_more_solutions_than_max_solutions() {
    report_refuses("solutions7", |lines| {
        let at = first_row(lines, "fast", "multiple");
        lines[at] = with_field(&lines[at], column(&lines[0], "solutions"), "7");
        at
    });
}

#[test]
fn report_refuses_a_solution_that_is_not_one() {
    report_refuses("ones", |lines| {
        let at = first_row(lines, "fast", "unique");
        lines[at] = with_field(&lines[at], column(&lines[0], "solution"), &"1".repeat(81));
        at
    });
}

/// A summary whose figures contradict each other (issue 38: `max_ns: 1` in its state, from
/// which `history add` took a median rate of 1e9/s) is refused by every command that reads
/// summaries, naming the file and the field, before anything is recorded or written.
#[cfg(unix)]
#[test]
fn a_summary_that_contradicts_itself_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_into(dir.path(), "run", &["-s", "fast"]);
    let summary = csv.with_extension("json");
    let mut forged = json(&summary);
    forged["state"]["groups"][0]["max_ns"] = 1.into();
    std::fs::write(&summary, serde_json::to_vec(&forged).unwrap()).unwrap();
    let field = "state.groups[0] (datasets/minimal.txt / fast).max_ns";
    let db = dir.path().join("h.sqlite");
    let history = bench()
        .args(["history", "add"])
        .arg(&summary)
        .args(["--commit", "abcdef12", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let compare = bench()
        .arg("compare")
        .arg(&summary)
        .arg(&summary)
        .output()
        .unwrap();
    for (command, out) in [("history add", history), ("compare", compare)] {
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{command}: {said}");
        let named = format!("{}: {field}: 1, but", summary.display());
        assert!(
            said.contains(&named) && said.contains("contradicts"),
            "{command}: {said}"
        );
    }
}

/// A row whose columns contradict each other (issue 38: `unique` with `ended` edited to
/// `timeout`; a clue removed from its puzzle) is refused by `report`, `compare` and `merge`,
/// naming the CSV and its line, rather than each believing another half of it.
#[test]
fn a_row_whose_columns_contradict_each_other_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = halves(dir.path());
    let text = std::fs::read_to_string(&csvs[0]).unwrap();
    let header = text.lines().next().unwrap().to_string();
    let (ended, puzzle) = (column(&header, "ended"), column(&header, "puzzle"));
    let original: Vec<String> = text.lines().map(str::to_string).collect();
    let row = original
        .iter()
        .position(|l| field(l, column(&header, "status")) == "unique")
        .unwrap();
    let grid = field(&original[row], puzzle);
    let given = grid.find(|c: char| c != '.').unwrap();
    let cut = format!("{}.{}", &grid[..given], &grid[given + 1..]);
    for (edited, why) in [
        (
            with_field(&original[row], ended, "timeout"),
            "status unique with ended timeout",
        ),
        (
            with_field(&original[row], puzzle, &cut),
            "but the puzzle has",
        ),
    ] {
        let mut lines = original.clone();
        lines[row] = edited;
        write_lines(&csvs[0], &lines);
        let at = format!("{}:{}: ", csvs[0].display(), row + 1);
        let report = bench()
            .arg("report")
            .arg(&csvs[0])
            .arg("-o")
            .arg(dir.path().join("r.html"))
            .output()
            .unwrap();
        let compare = bench()
            .arg("compare")
            .arg(&csvs[0])
            .arg(&csvs[1])
            .output()
            .unwrap();
        let said = [("report", report), ("compare", compare)]
            .into_iter()
            .map(|(c, out)| (c, out.status.code(), stderr(&out)));
        for (command, code, said) in
            said.chain([("merge", Some(2), merge_refused(&csvs, dir.path()))])
        {
            assert_eq!(code, Some(2), "{command}: {said}");
            assert!(
                said.contains(&at) && said.contains(why),
                "{command}: {said}"
            );
        }
    }
}
