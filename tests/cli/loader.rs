//! End-to-end tests of how every command reads a corpus: line endings, a byte-order mark,
//! over-long lines, compressed input and open errors, the same way in `run`, `check` and
//! `filter`.

use std::path::Path;

use crate::{bench, fixture};
use predicates::prelude::*;
use sudoku_bench::compress::{Codec, Encoder};

const P: &str = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
const MAX_LINE: usize = 1 << 16;

/// `(line, status)` of each row of a per-puzzle CSV written by `run`.
fn rows(csv: &Path) -> Vec<(u64, String)> {
    let mut reader = csv::Reader::from_path(csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (line, status) = (col("line"), col("status"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[line].parse().unwrap(), r[status].to_string())
        })
        .collect()
}

/// `run` over `corpus` with one strategy; its rows.
fn run_rows(corpus: &Path) -> Vec<(u64, String)> {
    let out = corpus.with_extension("out.csv");
    bench()
        .arg("run")
        .arg(corpus)
        .args(["-s", "bitmask", "-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    rows(&out)
}

#[test]
fn a_lone_cr_ends_a_line_in_run_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("mac.txt");
    // Lone CRs, one CRLF and a bad line, which must get its own line number.
    std::fs::write(&corpus, format!("{P}\r# c\r{P}\r\n{}\r{P}", &P[..80])).unwrap();
    let statuses: Vec<(u64, String)> = run_rows(&corpus);
    assert_eq!(
        statuses,
        [
            (1, "unique".to_string()),
            (3, "unique".to_string()),
            (4, "malformed".to_string()),
            (5, "unique".to_string())
        ]
    );
    bench()
        .arg("check")
        .arg(&corpus)
        .args(["-q"])
        .assert()
        .code(1)
        .stdout(format!(
            "{}:4:1: expected 81 cells, found 80\n",
            corpus.display()
        ));
}

#[test]
fn a_too_long_line_is_malformed_in_run_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("long.txt");
    std::fs::write(&corpus, format!("{P}\n{}\n{P}\n", "1".repeat(MAX_LINE + 5))).unwrap();
    assert_eq!(
        run_rows(&corpus),
        [
            (1, "unique".to_string()),
            (2, "malformed".to_string()),
            (3, "unique".to_string())
        ]
    );
    bench()
        .arg("check")
        .arg(&corpus)
        .args(["-q"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{}:2:{}: line is longer than {MAX_LINE} bytes",
            corpus.display(),
            MAX_LINE + 1
        )));
}

#[test]
fn filter_never_writes_a_cut_line() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("long.txt");
    // A long line that would be a valid puzzle line if cut at MAX_LINE.
    let long = format!("{P} {}", "x".repeat(MAX_LINE));
    std::fs::write(&corpus, format!("{P}\n{long}\n")).unwrap();
    let (out, rejects) = (dir.path().join("out.txt"), dir.path().join("rejects.txt"));
    // Its status is malformed, kept or not: either way its place and why are in the
    // rejects, without the line, and it is not in the kept lines.
    for keep in ["unique", "unique,malformed"] {
        bench()
            .arg("filter")
            .arg(&corpus)
            .arg("--out")
            .arg(&out)
            .arg("--rejects")
            .arg(&rejects)
            .args(["--keep", keep, "-q"])
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "unique 1, malformed 1; kept 1, rejected 1",
            ));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), format!("{P}\n"));
        assert_eq!(
            std::fs::read_to_string(&rejects).unwrap(),
            format!(
                "{}:2\tmalformed\tline is longer than {MAX_LINE} bytes (line not copied)\t\n",
                corpus.display()
            )
        );
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let solution =
        "468931527751624839392578461134756298289413675675289314846192753513867942927345186";
    let csv = dir.path().join("bom.csv");
    std::fs::write(&csv, format!("\u{feff}quizzes,solutions\n{P},{solution}\n")).unwrap();
    assert_eq!(run_rows(&csv), [(2, "unique".to_string())]);
    bench()
        .arg("check")
        .arg(&csv)
        .args(["--solve", "-q"])
        .assert()
        .success();
    let text = dir.path().join("bom.txt");
    std::fs::write(&text, format!("\u{feff}{P}\n")).unwrap();
    assert_eq!(run_rows(&text), [(1, "unique".to_string())]);
}

#[test]
fn an_os_error_is_said_once() {
    bench()
        .args(["run", "nope.txt", "-q", "--out", "/dev/null"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot open nope.txt")
                .and(predicate::str::contains("No such file or directory").count(1)),
        );
}

/// The start of a stream in each compressed format, followed by bytes no decoder accepts.
const BROKEN_COMPRESSED: [(&str, &[u8]); 4] = [
    ("gzip", &[0x1f, 0x8b, 8, 0, 0, 0]),
    ("zstd", &[0x28, 0xb5, 0x2f, 0xfd, 0, 0]),
    ("xz", &[0xfd, b'7', b'z', b'X', b'Z', 0]),
    ("bzip2", b"BZh91AY&SY"),
];

/// `--out PATH` for the commands that take it.
fn out_args<'a>(command: &str, out: &'a Path) -> Vec<&'a std::ffi::OsStr> {
    match command {
        "check" => Vec::new(),
        _ => vec!["--out".as_ref(), out.as_os_str()],
    }
}

#[test]
fn a_broken_compressed_corpus_is_a_read_error_naming_it_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    for (format, magic) in BROKEN_COMPRESSED {
        let corpus = dir.path().join(format!("c.{format}"));
        std::fs::write(&corpus, [magic, b"\n", P.as_bytes(), b"\n"].concat()).unwrap();
        let said = predicate::str::contains(format!("{}: ", corpus.display()));
        for command in ["run", "check", "filter"] {
            bench()
                .arg(command)
                .arg(&corpus)
                .arg("-q")
                .args(out_args(command, &out))
                .assert()
                .code(2)
                .stderr(said.clone());
        }
        // The same from stdin, however the bytes come.
        for command in ["run", "check", "filter"] {
            bench()
                .args([command, "-", "-q"])
                .args(out_args(command, &out))
                .write_stdin([magic, b"\n", P.as_bytes()].concat())
                .assert()
                .code(2)
                .stderr(predicate::str::contains("-: read error after line 0"));
        }
    }
}

#[test]
fn filter_keeps_lone_cr_endings_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("cr.txt");
    let text = std::fs::read_to_string(fixture("mixed.txt")).unwrap();
    let puzzles: Vec<&str> = text
        .lines()
        .filter(|l| l.len() == 81 && !l.starts_with('#'))
        .take(2)
        .collect();
    let bytes = format!("# note\r{}\r{}\r", puzzles[0], puzzles[1]);
    std::fs::write(&corpus, &bytes).unwrap();
    let out = dir.path().join("out.txt");
    bench()
        .arg("filter")
        .arg(&corpus)
        .arg("--out")
        .arg(&out)
        .args(["--keep", "unique,multiple,unsolvable,invalid", "-q"])
        .assert()
        .success();
    let kept = std::fs::read(&out).unwrap();
    assert!(
        !kept.contains(&b'\n'),
        "{:?}",
        String::from_utf8_lossy(&kept)
    );
    assert!(kept.starts_with(b"# note\r"));
}

const Q: &str = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const Q_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// `puzzle`'s nine rows of nine cells, as written.
fn rows_of(puzzle: &str) -> Vec<&str> {
    (0..9).map(|r| &puzzle[r * 9..r * 9 + 9]).collect()
}

/// `puzzle` drawn as people draw it: cells apart, `|` between boxes, a rule between bands;
/// eleven lines, each ended.
fn boxed(puzzle: &str) -> String {
    let mut out = String::new();
    for (r, row) in rows_of(puzzle).into_iter().enumerate() {
        if r == 3 || r == 6 {
            out.push_str("------+-------+------\n");
        }
        let cells: Vec<String> = row.chars().map(String::from).collect();
        out.push_str(&format!(
            "{} | {} | {}\n",
            cells[0..3].join(" "),
            cells[3..6].join(" "),
            cells[6..9].join(" ")
        ));
    }
    out
}

/// `(line, status, puzzle)` of each row of a per-puzzle CSV.
fn line_status_puzzle(csv_text: &[u8]) -> Vec<(String, String, String)> {
    crate::rows(csv_text)
        .into_iter()
        .map(|r| (r["line"].clone(), r["status"].clone(), r["puzzle"].clone()))
        .collect()
}

/// `run -s fast` over `args` (a corpus path, or `-` with `stdin`), the CSV on stdout.
fn run_fast(args: &[&str], stdin: Option<Vec<u8>>) -> Vec<(String, String, String)> {
    let mut cmd = bench();
    cmd.args(["run", "-s", "fast", "-q", "-o", "-"]).args(args);
    if let Some(stdin) = stdin {
        cmd.write_stdin(stdin);
    }
    line_status_puzzle(&cmd.assert().success().get_output().stdout)
}

fn row(line: u64, status: &str, puzzle: &str) -> (String, String, String) {
    (line.to_string(), status.to_string(), puzzle.to_string())
}

#[test]
fn nine_line_grids_are_read_with_input_format_grid() {
    let dir = tempfile::tempdir().unwrap();
    // Line 1 a comment; 2-10 a grid with `0` blanks; 11 blank; 12-22 a grid drawn with
    // rules; 23 blank.
    let first = rows_of(&P.replace('.', "0")).join("\n") + "\n";
    let text = format!("# two grids\n{first}\n{}\n", boxed(Q));
    let corpus = dir.path().join("grids.txt");
    std::fs::write(&corpus, &text).unwrap();
    let path = corpus.to_str().unwrap();
    let expected = [row(2, "unique", P), row(12, "unique", Q)];
    assert_eq!(run_fast(&["--input-format", "grid", path], None), expected);
    assert_eq!(
        run_fast(
            &["--input-format", "grid", "-"],
            Some(text.clone().into_bytes())
        ),
        expected
    );
    let gz = dir.path().join("grids.txt.gz");
    let mut encoder = Codec::Gzip.encoder(Vec::new()).unwrap();
    std::io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
    encoder.finish().unwrap();
    let Encoder::Gzip(encoder) = encoder else {
        unreachable!()
    };
    std::fs::write(&gz, encoder.get_ref()).unwrap();
    assert_eq!(
        run_fast(&["--input-format", "grid", gz.to_str().unwrap()], None),
        expected
    );
    bench()
        .args(["check", "-q", "--input-format", "grid", path])
        .assert()
        .success()
        .stdout("");
    // A run cut after its first row goes on at the second grid's first line.
    let csv = dir.path().join("run.csv");
    let run = |resume: &[&str]| {
        bench()
            .args([
                "run",
                "-s",
                "fast",
                "-q",
                "--input-format",
                "grid",
                path,
                "-o",
            ])
            .arg(&csv)
            .args(resume)
            .assert()
            .success();
        line_status_puzzle(&std::fs::read(&csv).unwrap())
    };
    assert_eq!(run(&[]), expected);
    let whole = std::fs::read_to_string(&csv).unwrap();
    let first_row = whole
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    std::fs::write(&csv, first_row).unwrap();
    assert_eq!(run(&["--resume"]), expected);
    // filter copies a kept grid's lines as read; blank lines are dropped, comments kept.
    let out = dir.path().join("kept.txt");
    bench()
        .args(["filter", "-q", "--input-format", "grid", path, "-o"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("# two grids\n{first}{}", boxed(Q))
    );
}

#[test]
fn a_grid_cut_short_or_with_a_bad_row_is_malformed_at_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let q = rows_of(Q);
    let mut bad = q.clone();
    bad[2] = &Q[18..26];
    // 1-9 a grid; 10 blank; 11-14 four rows; 15 blank; 16-24 a grid whose line 18 has 8
    // cells; 25 blank; 26-34 a grid; 35-39 five rows, and the end.
    let text = format!(
        "{}\n\n{}\n\n{}\n\n{}\n{}\n",
        rows_of(P).join("\n"),
        q[..4].join("\n"),
        bad.join("\n"),
        rows_of(P).join("\n"),
        q[..5].join("\n"),
    );
    let corpus = dir.path().join("cut.txt");
    std::fs::write(&corpus, &text).unwrap();
    let path = corpus.to_str().unwrap();
    let got: Vec<(String, String)> = run_fast(&["--input-format", "grid", path], None)
        .into_iter()
        .map(|(line, status, _)| (line, status))
        .collect();
    let want: Vec<(String, String)> = [
        (1, "unique"),
        (11, "malformed"),
        (16, "malformed"),
        (26, "unique"),
        (35, "malformed"),
    ]
    .iter()
    .map(|(l, s)| (l.to_string(), s.to_string()))
    .collect();
    assert_eq!(got, want);
    let out = bench()
        .args(["check", "-q", "--input-format", "grid", path])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let said = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 3, "{said}");
    assert!(lines[0].starts_with(&format!("{path}:11:")), "{said}");
    assert!(lines[0].contains("4 rows of 9"), "{said}");
    assert!(lines[1].starts_with(&format!("{path}:16:")), "{said}");
    assert!(
        lines[1].contains("line 18") && lines[1].contains("found 8"),
        "{said}"
    );
    assert!(lines[2].starts_with(&format!("{path}:35:")), "{said}");
    assert!(lines[2].contains("5 rows of 9"), "{said}");
}

#[test]
fn a_grid_is_refused_with_its_layout_named_unless_its_format_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("grid.txt");
    std::fs::write(&corpus, boxed(P)).unwrap();
    let out = dir.path().join("out.txt");
    for command in ["run", "check", "filter"] {
        bench()
            .arg(command)
            .arg(&corpus)
            .arg("-q")
            .args(out_args(command, &out))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(format!("{}:2:", corpus.display())).and(
                    predicate::str::contains(
                        "this looks like a 9-line grid: use --input-format grid",
                    ),
                ),
            );
    }
    // One stray line of nine cells before one puzzle a line is only that line, malformed.
    let stray = dir.path().join("stray.txt");
    std::fs::write(&stray, format!("123456789\n{P}\n{Q}\n")).unwrap();
    assert_eq!(
        run_fast(&[stray.to_str().unwrap()], None),
        [
            row(1, "malformed", ""),
            row(2, "unique", P),
            row(3, "unique", Q)
        ]
    );
    // A grid is not split into parts: a part takes lines, and a grid spans several.
    bench()
        .args(["run", "-q", "-o", "/dev/null", "--input-format", "grid"])
        .args(["--shard", "1/2"])
        .arg(&corpus)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shard"));
}

#[test]
fn a_puzzle_on_one_line_with_its_cells_apart_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let apart = |puzzle: &str, by: &str| {
        puzzle
            .chars()
            .map(String::from)
            .collect::<Vec<_>>()
            .join(by)
    };
    let short = apart(&P[..80], " ");
    let text = [
        apart(P, " "),
        apart(Q, ","),
        rows_of(P).join(" "),
        format!("|{}|", rows_of(Q).join("|")),
        short,
    ]
    .join("\n");
    let corpus = dir.path().join("apart.txt");
    std::fs::write(&corpus, text).unwrap();
    let path = corpus.to_str().unwrap();
    assert_eq!(
        run_fast(&[path], None),
        [
            row(1, "unique", P),
            row(2, "unique", Q),
            row(3, "unique", P),
            row(4, "unique", Q),
            row(5, "malformed", "")
        ]
    );
    bench()
        .args(["check", "-q", path])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{path}:5:1: expected 81 cells, found 80"
        )));
}

#[test]
fn a_csv_puzzle_column_of_any_name_is_named_with_column() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("named.csv");
    // Line 3's answer is another puzzle's solution: the answer column is read.
    let solution =
        "468931527751624839392578461134756298289413675675289314846192753513867942927345186";
    std::fs::write(
        &corpus,
        format!("id,grid,answer\n1,{P},{solution}\n2,{Q},{solution}\n3,{Q},{Q_SOLUTION}\n"),
    )
    .unwrap();
    let path = corpus.to_str().unwrap();
    let out = dir.path().join("out.csv");
    for command in ["run", "check", "filter"] {
        bench()
            .args([command, path, "-q"])
            .args(out_args(command, &out))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(format!("{path}:1:"))
                    .and(predicate::str::contains("id, grid, answer"))
                    .and(predicate::str::contains("--column")),
            );
        bench()
            .args([command, path, "-q", "--column", "grid"])
            .args(["--solution-column", "answer", "-s", "fast"])
            .args(out_args(command, &out))
            .assert()
            .code(if command == "check" { 1 } else { 0 });
        for named in [["--column", "nope"], ["--solution-column", "nope"]] {
            bench()
                .args([command, path, "-q"])
                .args(named)
                .args(
                    ["--column", "grid"]
                        .iter()
                        .filter(|_| named[0] != "--column"),
                )
                .args(out_args(command, &out))
                .assert()
                .code(2)
                .stderr(predicate::str::contains(
                    "column named nope; its columns: id, grid, answer",
                ));
        }
        bench()
            .args([command, path, "-q", "--column", "grid"])
            .args(["--input-format", "text"])
            .args(out_args(command, &out))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--column"));
    }
    assert_eq!(
        run_fast(
            &[path, "--column", "GRID", "--solution-column", "Answer"],
            None
        ),
        [
            row(2, "unique", P),
            row(3, "malformed", ""),
            row(4, "unique", Q)
        ]
    );
    // --resume reads the corpus again the same way.
    let csv = dir.path().join("run.csv");
    for resume in [&[][..], &["--resume"]] {
        bench()
            .args(["run", "-s", "fast", "-q", path, "--column", "grid", "-o"])
            .arg(&csv)
            .args(resume)
            .assert()
            .success();
    }
    bench()
        .args([
            "check",
            "-q",
            "--column",
            "grid",
            "--solution-column",
            "answer",
        ])
        .args(["--solve", path])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains(format!("{path}:3:"))
                .and(predicate::str::contains(format!("{path}:2:")).not()),
        );
}

/// Two corpora whose names differ only in bytes that are not UTF-8 (`a\xff.txt`,
/// `a\xfe.txt`) stay two: each is named with those bytes written `\xHH`, in the rows, the
/// summary and the messages, so `report` and `compare` take the run. Both were named
/// `a\u{fffd}.txt`, one summary row of two puzzles, and a CSV the readers refused as two
/// rows for one line.
#[cfg(unix)]
#[test]
fn corpora_named_by_bytes_that_are_not_utf8_stay_apart() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let names = [
        OsStr::from_bytes(b"a\xff.txt"),
        OsStr::from_bytes(b"a\xfe.txt"),
    ];
    for name in names {
        std::fs::write(dir.path().join(name), format!("{P}\n")).unwrap();
    }
    bench()
        .current_dir(dir.path())
        .args([
            "run",
            "-s",
            "fast",
            "-q",
            "-o",
            "out.csv",
            "--summary",
            "s.json",
        ])
        .args(names)
        .assert()
        .success();
    let rows = crate::rows(&std::fs::read(dir.path().join("out.csv")).unwrap());
    let corpora: Vec<&str> = rows.iter().map(|r| r["corpus"].as_str()).collect();
    assert_eq!(corpora, [r"a\xff.txt", r"a\xfe.txt"]);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    let summarised: Vec<(&str, u64)> = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["corpus"].as_str().unwrap(),
                r["puzzles"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(summarised, [(r"a\xff.txt", 1), (r"a\xfe.txt", 1)]);
    bench()
        .current_dir(dir.path())
        .args(["report", "out.csv", "-o", "report.html"])
        .assert()
        .success();
    bench()
        .current_dir(dir.path())
        .args(["compare", "out.csv", "out.csv"])
        .assert()
        .success();
    // A corpus that cannot be opened is named the same way.
    bench()
        .current_dir(dir.path())
        .args(["run", "-s", "fast", "-q", "-o", "-"])
        .arg(OsStr::from_bytes(b"b\xff.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(r"cannot open b\xff.txt"));
}

/// A corpus whose path holds `\xff` as four characters and one holding the byte 0xff would
/// share a name: refused before any work, naming both.
#[cfg(unix)]
#[test]
fn two_corpora_that_would_share_a_name_are_refused() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let names = [
        OsStr::from_bytes(br"a\xff.txt"),
        OsStr::from_bytes(b"a\xff.txt"),
    ];
    for name in names {
        std::fs::write(dir.path().join(name), format!("{P}\n")).unwrap();
    }
    bench()
        .current_dir(dir.path())
        .args(["run", "-s", "fast", "-q", "-o", "out.csv"])
        .args(names)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            r#"corpora "a\\xff.txt" and "a\xFF.txt" would both be named a\xff.txt"#,
        ));
    assert!(!dir.path().join("out.csv").exists());
}

/// A quoted CSV field holding a line break is not read: the line it opens on, the lines
/// inside it and the one that closes it are each `malformed`, saying so, and the records
/// after it are read as before. The pieces are never solved (a closing line `X",S` was,
/// its second field taken for the puzzle), whether the corpus is read whole or in parts,
/// by byte range (a file) or round robin (stdin).
#[test]
fn a_quoted_csv_field_spanning_lines_is_malformed_on_each_of_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("q.csv");
    // 1 header; 2 a record; 3 opens a field; 4 inside it, a record's shape; 5 closes it,
    // then a solution as its next field; 6, 7 records.
    let text = format!(
        "id,puzzle,solution\n1,{Q},{Q_SOLUTION}\n2,\"{Q}\n3,{Q},{Q_SOLUTION}\nX\",{Q_SOLUTION}\n\
         4,{Q},{Q_SOLUTION}\n5,{Q},{Q_SOLUTION}\n"
    );
    std::fs::write(&corpus, &text).unwrap();
    let path = corpus.to_str().unwrap();
    let run = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = bench();
        cmd.args(["run", "-s", "fast", "-q", "-o", "-"]).args(args);
        if let Some(stdin) = stdin {
            cmd.write_stdin(stdin.to_string());
        }
        let out = cmd.assert().success().get_output().stdout.clone();
        crate::rows(&out)
            .into_iter()
            .map(|r| {
                (
                    r["line"].parse::<u64>().unwrap(),
                    r["status"].clone(),
                    r["error"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let whole = run(&[path], None);
    let statuses: Vec<(u64, &str)> = whole.iter().map(|(l, s, _)| (*l, s.as_str())).collect();
    assert_eq!(
        statuses,
        [
            (2, "unique"),
            (3, "malformed"),
            (4, "malformed"),
            (5, "malformed"),
            (6, "unique"),
            (7, "unique")
        ]
    );
    assert!(whole[1].2.contains("runs past the line"), "{:?}", whole[1]);
    assert!(
        whole[2]
            .2
            .contains("inside the quoted field opened on line 3"),
        "{:?}",
        whole[2]
    );
    assert!(
        whole[3].2.contains("its closing quote is on this line"),
        "{:?}",
        whole[3]
    );
    for parts in [2, 3, 4] {
        for (how, stdin) in [("a file", None), ("stdin", Some(text.as_str()))] {
            let mut rows = Vec::new();
            for k in 1..=parts {
                let shard = format!("{k}/{parts}");
                let corpus = if stdin.is_some() { "-" } else { path };
                rows.extend(run(&["--shard", &shard, corpus], stdin));
            }
            rows.sort();
            assert_eq!(rows, whole, "{parts} parts of {how}");
        }
    }
}
