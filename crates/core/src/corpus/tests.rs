use super::kind::Layout;
use super::*;

const P: &str = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
const S: &str = "468931527751624839392578461134756298289413675675289314846192753513867942927345186";

fn load(text: &str) -> Vec<Record> {
    read_all("t", io::Cursor::new(text.as_bytes().to_vec())).unwrap()
}

/// A corpus named "t" over `input` in memory, its format found or `forced`.
fn in_memory(input: &str, forced: Option<Format>) -> Corpus {
    Corpus::from_reader(
        "t",
        Box::new(io::Cursor::new(input.as_bytes().to_vec())),
        None,
        forced,
    )
}

/// Every record of `corpus` in chunks of `size` keeping `lines`; the sum of the chunks'
/// bytes is checked against `len`, the input's length.
fn read(corpus: &mut Corpus, lines: Lines, size: usize, len: usize) -> Vec<Record> {
    let (mut chunk, mut got, mut bytes) = (Chunk::new(lines), Vec::new(), 0);
    loop {
        let n = corpus.read_chunk(&mut chunk, size).unwrap();
        bytes += chunk.bytes();
        if n == 0 {
            break;
        }
        assert!(n <= size);
        got.extend_from_slice(chunk.records());
    }
    // Every line's bytes count, skipped lines' too.
    assert_eq!(bytes, len as u64);
    got
}

fn kinds(text: &str) -> Vec<Kind> {
    load(text).into_iter().map(|r| r.kind).collect()
}

fn puzzle(s: &str, expected: Option<&str>) -> Kind {
    Kind::Puzzle {
        grid: s.parse().unwrap(),
        expected: expected.map(|e| e.parse().unwrap()),
    }
}

fn malformed(k: &Kind) -> (&str, usize) {
    match k {
        Kind::Malformed { reason, column } => (reason, *column),
        other => panic!("expected malformed, got {other:?}"),
    }
}

#[test]
fn text_lines_comments_blanks_and_crlf() {
    let input = format!("# source\r\n\r\n  {P}  \r\n{}\n\n", P.replace('.', "0"));
    let recs = load(&input);
    let k: Vec<_> = recs.iter().map(|r| r.kind.clone()).collect();
    assert_eq!(
        k,
        vec![
            Kind::Comment,
            Kind::Blank,
            puzzle(P, None),
            puzzle(P, None),
            Kind::Blank
        ]
    );
    assert_eq!(
        recs.iter().map(|r| r.line).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    // Raw bytes are kept exactly, line endings included.
    assert_eq!(recs[2].raw, Raw::Whole(format!("  {P}  \r\n").into_bytes()));
    let joined: Vec<u8> = recs
        .iter()
        .flat_map(|r| r.raw.whole().unwrap().to_vec())
        .collect();
    assert_eq!(joined, input.into_bytes());
}

#[test]
fn text_takes_the_first_field() {
    for sep in [":1:", " ", "\t# rated 11.9", ",x", ";y", "|z"] {
        assert_eq!(
            kinds(&format!("{P}{sep}{S}\n")),
            vec![puzzle(P, None)],
            "{sep:?}"
        );
    }
}

#[test]
fn last_line_without_newline_is_read() {
    assert_eq!(kinds(P), vec![puzzle(P, None)]);
}

#[test]
fn malformed_lines_say_what_is_wrong_and_where() {
    let k = kinds(&format!("{}\n{}x\n", &P[..80], &P[..80]));
    assert_eq!(malformed(&k[0]), ("expected 81 cells, found 80", 1));
    assert_eq!(
        malformed(&k[1]),
        (
            "character 'x' at column 81 is not a digit or a blank ('.' or '0')",
            81
        )
    );
    let mut bytes = P.as_bytes().to_vec();
    bytes[5] = 0xff;
    bytes.push(b'\n');
    let recs = read_all("t", io::Cursor::new(bytes)).unwrap();
    assert_eq!(
        malformed(&recs[0].kind),
        ("bytes at column 6 are not valid UTF-8", 6)
    );
    // The column counts from the start of the raw line, leading spaces included.
    let k = kinds(&format!("   {}z{}\n", &P[..10], &P[11..]));
    assert_eq!(malformed(&k[0]).1, 14);
}

#[test]
fn invalid_puzzles_name_digit_and_cells() {
    let mut bad = P.to_string();
    bad.replace_range(8..9, "4");
    let k = kinds(&format!("{bad}\n"));
    match &k[0] {
        Kind::Invalid { reason, column, .. } => {
            assert_eq!(reason, "digit 4 appears twice in row 1 (r1c1 and r1c9)");
            assert_eq!(*column, 9);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn csv_with_kaggle_headers() {
    let k = kinds(&format!("quizzes,solutions\n{P},{S}\n"));
    assert_eq!(k, vec![Kind::Header, puzzle(P, Some(S))]);
    let k = kinds(&format!(
        "id,Puzzle,Solution,clues,difficulty\r\n1,{P},{S},18,0.9\r\n2,\"{P}\",,18,1\r\n"
    ));
    assert_eq!(k, vec![Kind::Header, puzzle(P, Some(S)), puzzle(P, None)]);
}

#[test]
fn csv_faults_are_records() {
    let mut wrong = S.to_string();
    wrong.replace_range(0..2, "64");
    let k = kinds(&format!(
        "id,puzzle,solution\n1,{}\n2,{P},{wrong}\n3,\"{P}\n",
        &P[..81]
    ));
    assert_eq!(
        k[1],
        puzzle(P, None),
        "a missing trailing solution field is allowed"
    );
    assert_eq!(
        malformed(&k[2]).0,
        "solution column has 6 at r1c1 where the puzzle gives 4"
    );
    assert_eq!(
        malformed(&k[3]).0,
        "the quoted field starting at column 3 runs past the line: a CSV field holding a \
         line break is not read, nor are the lines up to its closing quote"
    );
    let k = kinds("puzzle,solution\n12345\n");
    assert_eq!(malformed(&k[1]), ("expected 81 cells, found 5", 1));
}

/// Every record of `input` read as `read_as`, or the error that stops it.
fn read_as(input: &str, read_as: ReadAs) -> Result<Vec<Record>, LoadError> {
    let mut corpus = Corpus::from_reader(
        "t",
        Box::new(io::Cursor::new(input.as_bytes().to_vec())),
        None,
        read_as,
    );
    let (mut chunk, mut got) = (Chunk::new(Lines::All), Vec::new());
    while corpus.read_chunk(&mut chunk, 7)? > 0 {
        got.extend_from_slice(chunk.records());
    }
    Ok(got)
}

fn columns(puzzle: Option<&str>, solution: Option<&str>) -> ReadAs {
    ReadAs {
        puzzle_column: puzzle.map(String::from),
        solution_column: solution.map(String::from),
        ..ReadAs::default()
    }
}

#[test]
fn csv_columns_of_any_name_are_read_when_named() {
    let input = format!("id,\"Grid\",answer\n1,{P},{S}\n");
    let kinds = |records: Vec<Record>| records.into_iter().map(|r| r.kind).collect::<Vec<_>>();
    assert_eq!(
        kinds(read_as(&input, columns(Some("grid"), Some("ANSWER"))).unwrap()),
        [Kind::Header, puzzle(P, Some(S))]
    );
    // Only the puzzle's named: the solution goes by the known names, and there is none.
    assert_eq!(
        kinds(read_as(&input, columns(Some("grid"), None)).unwrap()),
        [Kind::Header, puzzle(P, None)]
    );
    // Only the solution's named: the puzzle goes by the known names.
    let known = format!("quiz,answer\n{P},{S}\n");
    assert_eq!(
        kinds(read_as(&known, columns(None, Some("answer"))).unwrap()),
        [Kind::Header, puzzle(P, Some(S))]
    );
}

#[test]
fn a_csv_header_without_the_columns_wanted_says_the_columns_it_has() {
    let input = format!("id,grid,answer\n1,{P},{S}\n");
    for (read, wanted) in [
        (columns(Some("nope"), None), "no puzzle column named nope"),
        (
            columns(Some("grid"), Some("nope")),
            "no solution column named nope",
        ),
        (
            ReadAs::from(Some(Format::Csv)),
            "no puzzle column (looked for quizzes, puzzle, puzzles, quiz, sudoku)",
        ),
        // Not forced: a header of names, none of them a puzzle column's, is not text.
        (
            ReadAs::default(),
            "no puzzle column (looked for quizzes, puzzle, puzzles, quiz, sudoku)",
        ),
    ] {
        let said = read_as(&input, read.clone()).unwrap_err().to_string();
        assert!(said.starts_with("t:1: "), "{read:?}: {said}");
        assert!(said.contains(wanted), "{read:?}: {said}");
        assert!(
            said.contains("its columns: id, grid, answer"),
            "{read:?}: {said}"
        );
    }
    let said = read_as(&input, ReadAs::default()).unwrap_err().to_string();
    assert!(said.contains("--column NAME"), "{said}");
    // A first line that is not a header of names stays a text line.
    for first in ["Top 95, the hardest", "1,2,3", "4...3..,x"] {
        let records = read_as(&format!("{first}\n{P}\n"), ReadAs::default()).unwrap();
        assert!(matches!(records[0].kind, Kind::Malformed { .. }), "{first}");
        assert_eq!(records[1].kind, puzzle(P, None), "{first}");
    }
}

#[test]
fn forced_formats() {
    let input = format!("quizzes,solutions\n{P},{S}\n");
    let mut c = in_memory(&input, Some(Format::Text));
    let recs = read(&mut c, Lines::All, 10, input.len());
    assert!(
        matches!(recs[0].kind, Kind::Malformed { .. }),
        "header is just a bad line as text"
    );
    assert_eq!(recs[1].kind, puzzle(P, None));

    let mut c = in_memory(&format!("{P}\n"), Some(Format::Csv));
    let err = c.read_chunk(&mut Chunk::new(Lines::All), 10).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("t:1: CSV header has no puzzle column"),
        "{err}"
    );
}

#[test]
fn a_header_with_two_columns_of_one_kind_is_refused_not_guessed() {
    let first_error = |input: &str, how: ReadAs| read_as(input, how).unwrap_err().to_string();
    // Two known puzzle names: which one is the puzzle is not the reader's to guess.
    assert_eq!(
        first_error(&format!("quizzes,puzzle\n{P},{P}\n"), ReadAs::default()),
        "t:1: CSV header has 2 puzzle columns (quizzes at column 1, puzzle at column 2): \
         name the one to read with --column NAME"
    );
    assert_eq!(
        first_error(
            &format!("puzzle,solution,Solutions\n{P},{S},{S}\n"),
            ReadAs::default()
        ),
        "t:1: CSV header has 2 solution columns (solution at column 2, Solutions at column \
         3): name the one to read with --solution-column NAME"
    );
    // Named, and still twice: no option can tell them apart.
    let named = ReadAs {
        puzzle_column: Some("grid".into()),
        ..ReadAs::default()
    };
    assert_eq!(
        first_error(&format!("grid,id,GRID\n{P},1,{P}\n"), named),
        "t:1: CSV header has 2 puzzle columns (grid at column 1, GRID at column 3): one \
         name for two columns; rename one"
    );
    // Naming one of the two known columns settles it.
    let named = ReadAs {
        puzzle_column: Some("puzzle".into()),
        ..ReadAs::default()
    };
    let records = read_as(&format!("quizzes,puzzle\n{S},{P}\n"), named).unwrap();
    assert_eq!(records[1].kind, puzzle(P, None));
}

#[test]
fn entries_skip_other_lines_and_reuse_the_chunk() {
    let input = format!("# c\n{P}\n\n{}\n{P}\n", &P[..3]);
    let mut c = in_memory(&input, None);
    let mut chunk = Chunk::new(Lines::Entries);
    let lines = |chunk: &Chunk| chunk.records().iter().map(|r| r.line).collect::<Vec<_>>();
    assert_eq!(c.read_chunk(&mut chunk, 2).unwrap(), 2);
    assert_eq!(lines(&chunk), [2, 4]);
    assert_eq!(c.read_chunk(&mut chunk, 2).unwrap(), 1);
    assert_eq!(lines(&chunk), [5]);
    assert_eq!(c.read_chunk(&mut chunk, 2).unwrap(), 0);
    assert!(chunk.records().iter().all(|r| r.raw == Raw::NotKept));
}

#[test]
fn an_endless_line_is_cut_and_reported_and_reading_goes_on() {
    let mut input = vec![b'1'; MAX_LINE * 3];
    input.extend_from_slice(format!("\n{P}\n").as_bytes());
    let recs = read_all("t", io::Cursor::new(input)).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].raw, Raw::Cut, "the line's bytes are not kept");
    assert_eq!(
        malformed(&recs[0].kind).0,
        format!("line is longer than {MAX_LINE} bytes")
    );
    assert_eq!((recs[1].line, recs[1].kind.clone()), (2, puzzle(P, None)));
}

#[test]
fn every_chunk_size_reads_the_same_records() {
    let mut bad = P.to_string();
    bad.replace_range(8..9, "4");
    let input = format!(
        "quizzes,solutions\n# c\n{P},{S}\n\n{bad},\n{},\n{P}\n",
        &P[..9]
    );
    let expected = read_all("t", io::Cursor::new(input.clone().into_bytes())).unwrap();
    for size in [1, 2, 3, 100] {
        let mut c = in_memory(&input, None);
        let got = read(&mut c, Lines::All, size, input.len());
        assert_eq!(got, expected, "chunks of {size}");
    }
    assert!(matches!(expected[4].kind, Kind::Invalid { .. }));
    assert!(matches!(expected[5].kind, Kind::Malformed { .. }));
}

#[test]
fn at_end_only_when_nothing_is_left() {
    let input = format!("{P}\n{P}\n# a comment at the end\n");
    let mut c = in_memory(&input, None);
    let mut chunk = Chunk::new(Lines::Entries);
    assert!(!c.at_end());
    assert_eq!(c.read_chunk(&mut chunk, 1).unwrap(), 1);
    assert!(!c.at_end());
    // The second puzzle, then the comment is skipped on the way to the end.
    assert_eq!(c.read_chunk(&mut chunk, 5).unwrap(), 1);
    assert!(c.at_end());
    assert_eq!(c.read_chunk(&mut chunk, 5).unwrap(), 0);

    // A read error held back is not the end.
    let mut c = Corpus::from_reader(
        "t",
        Box::new(io::BufReader::new(FailsAfter {
            good: io::Cursor::new(format!("{P}\n").into_bytes()),
            why: "disk gone",
        })),
        None,
        None,
    );
    assert_eq!(c.read_chunk(&mut chunk, 5).unwrap(), 1);
    assert!(!c.at_end());
    assert!(c.read_chunk(&mut chunk, 5).is_err());
}

#[test]
fn entries_are_the_entries_of_all_lines_without_their_bytes() {
    let mut bad = P.to_string();
    bad.replace_range(8..9, "4");
    let inputs = [
        format!(
            "quizzes,solutions\n# c\n{P},{S}\n\n{bad},\n{},\n{P}\n",
            &P[..9]
        ),
        format!("# text\n{P}\n{bad}\n\n{}\n{P} # trailing\n", &P[..40]),
    ];
    for input in inputs {
        let all = read(&mut in_memory(&input, None), Lines::All, 2, input.len());
        let entries = read(&mut in_memory(&input, None), Lines::Entries, 2, input.len());
        assert!(all.iter().all(|r| r.raw.whole().is_some()));
        assert!(entries.iter().all(|r| r.raw == Raw::NotKept));
        let without_raw = |records: &[Record]| -> Vec<(u64, Kind)> {
            records
                .iter()
                .filter(|r| r.is_entry())
                .map(|r| (r.line, r.kind.clone()))
                .collect()
        };
        assert_eq!(without_raw(&entries), without_raw(&all), "{input:?}");
        assert_eq!(entries.len(), without_raw(&all).len());
        assert!(entries
            .iter()
            .any(|r| matches!(r.kind, Kind::Puzzle { .. })));
        assert!(entries
            .iter()
            .any(|r| matches!(r.kind, Kind::Invalid { .. })));
    }
}

/// A text line's kind as the loader worked it out before its fast path: UTF-8 check,
/// the field up to the first separator, then the grid's checks. Shares no code with
/// `Layout::kind_of` but `Grid`'s parsing and checks.
fn kind_of_text_reference(raw: &[u8]) -> Kind {
    let line = raw.trim_ascii();
    let offset = raw.len() - raw.trim_ascii_start().len();
    if let Err(e) = std::str::from_utf8(line) {
        let column = e.valid_up_to() + offset + 1;
        return Kind::Malformed {
            reason: format!("bytes at column {column} are not valid UTF-8"),
            column,
        };
    }
    let end = line
        .iter()
        .position(|&b| matches!(b, b':' | b',' | b';' | b'|') || b.is_ascii_whitespace())
        .unwrap_or(line.len());
    match Grid::parse(&line[..end]) {
        Err(e) => {
            let bad = text::cell_error(e, 1);
            Kind::Malformed {
                reason: bad.reason,
                column: bad.column + offset,
            }
        }
        Ok(grid) => match grid.conflict() {
            Some(c) => Kind::Invalid {
                grid,
                reason: c.to_string(),
                column: 1 + offset + c.second,
            },
            None => Kind::Puzzle {
                grid,
                expected: None,
            },
        },
    }
}

#[test]
fn text_fast_path_gives_the_kind_the_general_path_gives() {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let tails: [&[u8]; 14] = [
        b"",
        b"\n",
        b"\r\n",
        b" 17\n",
        b":1:468931527",
        b",x",
        b";",
        b"|y",
        b"\t#",
        b"x",
        b"1",
        " é ½".as_bytes(),
        b" \xff",
        b":\xc3",
    ];
    let heads: [&[u8]; 3] = [b"", b"  ", b"\t "];
    // Replacements for one cell: digits (some clash), blanks, separators, other ASCII,
    // multi-byte characters and bytes that are not UTF-8.
    let cells: [&[u8]; 14] = [
        b"1",
        b"4",
        b"9",
        b"0",
        b".",
        b"x",
        b" ",
        b",",
        b":",
        b"\t",
        b"\xff",
        b"\xc3",
        "é".as_bytes(),
        "€".as_bytes(),
    ];
    for base in [P, S, &P.replace('.', "0"), &".".repeat(81)] {
        for tail in tails {
            for head in heads {
                lines.push([head, base.as_bytes(), tail].concat());
            }
        }
        for i in 0..81 {
            for cell in cells {
                let grid = [&base.as_bytes()[..i], cell, &base.as_bytes()[i + 1..]].concat();
                for (head, tail) in [(&b""[..], &b""[..]), (b"  ", b" 3\n"), (b"\t", b"\xff")] {
                    lines.push([head, &grid[..], tail].concat());
                }
            }
        }
        // Too short, too long.
        lines.push(base.as_bytes()[..80].to_vec());
        lines.push([base.as_bytes(), b"5"].concat());
    }
    let mut fast_path = 0;
    for raw in &lines {
        let got = Layout::Text.kind_of(raw);
        assert_eq!(got, kind_of_text_reference(raw), "{}", raw.escape_ascii());
        fast_path += text::parse_grid_first(raw.trim_ascii()).is_some() as usize;
    }
    // Both paths ran, on many lines each.
    assert!(fast_path > 1000 && lines.len() - fast_path > 1000);
}
/// Gives `good`, then fails every read with `why`.
pub(crate) struct FailsAfter {
    pub good: io::Cursor<Vec<u8>>,
    pub why: &'static str,
}

impl io::Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.good.read(buf)? {
            0 => Err(io::Error::other(self.why)),
            n => Ok(n),
        }
    }
}

#[test]
fn a_read_error_keeps_the_lines_read_before_it() {
    let input = FailsAfter {
        good: io::Cursor::new(format!("{P}\n# c\n{P}\n").into_bytes()),
        why: "disk on fire",
    };
    // A small buffer, so the error comes in the middle of a chunk.
    let reader = io::BufReader::with_capacity(16, input);
    let mut c = Corpus::from_reader("t", Box::new(reader), None, None);
    let mut chunk = Chunk::new(Lines::Entries);
    assert_eq!(c.read_chunk(&mut chunk, 100).unwrap(), 2);
    let records = chunk.records();
    assert_eq!((records[0].line, records[1].line), (1, 3));
    assert_eq!(records[1].kind, puzzle(P, None));
    let err = c.read_chunk(&mut chunk, 100).unwrap_err();
    assert_eq!(err.to_string(), "t: read error after line 3");
    assert_eq!(
        std::error::Error::source(&err).unwrap().to_string(),
        "disk on fire"
    );
}

#[test]
fn whole_buffered_lines_read_as_the_general_path_reads_them() {
    // Chunks parsed on read take whole lines from the reader's buffer where they lie; a
    // line that runs past the buffer, the first data line and long lines go the general
    // way. Whatever the buffer's size, the records and bytes must be the same.
    let mut bad = P.to_string();
    bad.replace_range(8..9, "4");
    let long = "1".repeat(MAX_LINE + 10);
    let inputs = [
        format!(
            "# text\r\n{P}\r\n\n{bad}\n  {P}  \n{}\n{P}:1:{S}\n{long}\n{P} # note\n\u{e9}{}\n{P}",
            &P[..40],
            &P[1..]
        ),
        format!(
            "quizzes,solutions\n{P},{S}\n# c\n{bad},\n\n{},\n{P},{S}\n",
            &P[..9]
        ),
    ];
    for input in &inputs {
        for lines in [Lines::Entries, Lines::All] {
            let read_with = |capacity: Option<usize>| {
                let bytes = input.clone().into_bytes();
                let reader: Box<dyn BufRead + Send> = match capacity {
                    Some(capacity) => {
                        Box::new(BufReader::with_capacity(capacity, io::Cursor::new(bytes)))
                    }
                    None => Box::new(io::Cursor::new(bytes)),
                };
                let mut c = Corpus::from_reader("t", reader, None, None);
                read(&mut c, lines, 3, input.len())
            };
            // Every line in the buffer from the start.
            let expected = read_with(None);
            assert!(expected.len() >= 4, "{expected:?}");
            for capacity in [1, 2, 7, 64, 83, 100, 4096, 1 << 20] {
                assert_eq!(
                    read_with(Some(capacity)),
                    expected,
                    "capacity {capacity}, {lines:?}, {input:?}"
                );
            }
        }
    }
}

#[test]
fn lf_crlf_and_a_lone_cr_each_end_one_line() {
    let input = format!("{P}\r# c\r{P}\r\n\r{}\n{P}", &P[..80]);
    let recs = load(&input);
    let lines: Vec<(u64, Kind)> = recs.iter().map(|r| (r.line, r.kind.clone())).collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[0], (1, puzzle(P, None)));
    assert_eq!(lines[1], (2, Kind::Comment));
    assert_eq!(lines[2], (3, puzzle(P, None)));
    assert_eq!(lines[3], (4, Kind::Blank));
    assert_eq!(lines[4].0, 5);
    assert_eq!(lines[5], (6, puzzle(P, None)));
    // A CRLF split between two fills of the buffer is still one ending: the CR is the
    // last byte of the first fill.
    let input = format!("{P}\r\n{P}\r\n");
    let reader = BufReader::with_capacity(P.len() + 1, io::Cursor::new(input.into_bytes()));
    let mut c = Corpus::from_reader("t", Box::new(reader), None, None);
    let got = read(&mut c, Lines::All, 10, 2 * P.len() + 4);
    let got: Vec<_> = got.into_iter().map(|r| (r.line, r.kind, r.raw)).collect();
    let whole = Raw::Whole(format!("{P}\r\n").into_bytes());
    assert_eq!(
        got,
        [
            (1, puzzle(P, None), whole.clone()),
            (2, puzzle(P, None), whole)
        ]
    );
}

#[test]
fn a_too_long_line_is_an_entry_on_every_path() {
    let input = format!("{}\n{P}\n", "1".repeat(MAX_LINE + 1));
    let entries = read(
        &mut in_memory(&input, None),
        Lines::Entries,
        10,
        input.len(),
    );
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].line, 1);
    assert_eq!(
        malformed(&entries[0].kind),
        (
            format!("line is longer than {MAX_LINE} bytes").as_str(),
            MAX_LINE + 1
        )
    );
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_line() {
    assert_eq!(
        kinds(&format!("\u{feff}quizzes,solutions\n{P},{S}\n")),
        [Kind::Header, puzzle(P, Some(S))]
    );
    assert_eq!(kinds(&format!("\u{feff}{P}\n")), [puzzle(P, None)]);
    // Columns do not count it.
    let k = kinds(&format!("\u{feff}x{}\n", &P[1..]));
    assert_eq!(malformed(&k[0]).1, 1);
    // Only at the start of the file.
    let k = kinds(&format!("{P}\n\u{feff}{P}\n"));
    assert!(matches!(k[1], Kind::Malformed { .. }), "{k:?}");
}

#[test]
fn a_multi_byte_character_is_named_with_its_column_in_characters() {
    // 81 characters, 82 bytes.
    let line = format!("{}é{}", &P[..40], &P[41..]);
    assert_eq!(line.chars().count(), 81);
    let expected = "character 'é' at column 41 is not a digit or a blank ('.' or '0')";
    assert_eq!(malformed(&kinds(&format!("{line}\n"))[0]), (expected, 41));
    // In a CSV field after a multi-byte character, the column is in characters too.
    let k = kinds(&format!("quizzes,note\n\"{line}\",é\n"));
    assert_eq!(malformed(&k[1]).1, 42);
    let k = kinds(&format!("note,quizzes\né,{line}\n"));
    assert_eq!(
        malformed(&k[1]),
        (
            "character 'é' at column 43 is not a digit or a blank ('.' or '0')",
            43
        )
    );
}

#[test]
fn a_compressed_file_and_a_compressed_stream_read_as_their_text() {
    // `printf '1...\n#c\n' | gzip -n`, made once: the loader must not need an encoder.
    let text =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n#c\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    let gzip = gz.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.txt.gz");
    std::fs::write(&path, &gzip).unwrap();
    let mut c = Corpus::open(&path, None).unwrap();
    assert_eq!(c.codec(), Some(Codec::Gzip));
    let mut chunk = Chunk::new(Lines::All);
    assert_eq!(c.read_chunk(&mut chunk, 10).unwrap(), 2);
    // Progress compares with the file's size: stored bytes, not the text's.
    assert_eq!(chunk.bytes(), gzip.len() as u64);
    assert_eq!(c.bytes_read(), gzip.len() as u64);
    assert_eq!(chunk.records()[0].raw.whole(), Some(&text.as_bytes()[..82]));
    assert_eq!(
        (chunk.records()[1].line, &chunk.records()[1].kind),
        (2, &Kind::Comment)
    );
    // A stream giving one byte a read: the magic number is gathered across reads.
    let reader = BufReader::with_capacity(1, io::Cursor::new(gzip));
    let mut c = Corpus::from_reader("-", Box::new(reader), None, None);
    assert_eq!(c.read_chunk(&mut Chunk::new(Lines::All), 10).unwrap(), 2);
    assert_eq!(c.codec(), Some(Codec::Gzip));
}

#[test]
fn a_broken_compressed_stream_is_a_read_error_naming_the_corpus() {
    let gzip = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage".to_vec();
    let mut c = Corpus::from_reader("-", Box::new(io::Cursor::new(gzip)), None, None);
    let err = c.read_chunk(&mut Chunk::new(Lines::All), 10).unwrap_err();
    assert!(
        err.to_string().starts_with("-: read error after line 0"),
        "{err}"
    );
}

#[test]
fn skipped_lines_make_no_records_and_later_ones_keep_their_numbers() {
    let text = "puzzle,solution\n\
                4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......,\n\
                x,\n\
                52...6.........7.13...........4..8..6......5...........418.........3..2...87.....,\n";
    for skip in 0..=5u64 {
        let reader = BufReader::with_capacity(7, io::Cursor::new(text.as_bytes().to_vec()));
        let mut c = Corpus::from_reader("c.csv", Box::new(reader), None, None);
        c.skip_through(skip);
        let mut chunk = Chunk::new(Lines::All);
        let mut lines = Vec::new();
        while c.read_chunk(&mut chunk, 2).unwrap() > 0 {
            lines.extend(chunk.records().iter().map(|r| (r.line, r.kind.is_entry())));
        }
        let all = [(1, false), (2, true), (3, true), (4, true)];
        let kept: Vec<_> = all.into_iter().filter(|(l, _)| *l > skip).collect();
        assert_eq!(lines, kept, "skip through {skip}");
    }
}

/// `puzzle`'s nine rows, each ended by `ending`.
fn grid_rows(puzzle: &str, ending: &str) -> String {
    (0..9)
        .map(|r| format!("{}{ending}", &puzzle[r * 9..r * 9 + 9]))
        .collect()
}

/// `puzzle` drawn with its cells apart, `|` between boxes, rules between bands and a border.
fn drawn(puzzle: &str) -> String {
    let rule = "+-------+-------+-------+\n";
    let mut out = rule.to_string();
    for r in 0..9 {
        let cell = |c: usize| puzzle[r * 9 + c..r * 9 + c + 1].to_string();
        let boxes: Vec<String> = (0..3)
            .map(|b| {
                (0..3)
                    .map(|c| cell(b * 3 + c))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        out.push_str(&format!("| {} |\n", boxes.join(" | ")));
        if r % 3 == 2 {
            out.push_str(rule);
        }
    }
    out
}

/// Every record of `input` read as grids, in chunks of `size` keeping `lines`, through a
/// reader whose buffer holds `capacity` bytes (so that lines straddle its refills).
fn read_grids(input: &str, lines: Lines, size: usize, capacity: usize) -> Vec<Record> {
    let reader = BufReader::with_capacity(capacity, io::Cursor::new(input.as_bytes().to_vec()));
    let mut corpus = Corpus::from_reader("g", Box::new(reader), None, Some(Format::Grid));
    let got = read(&mut corpus, lines, size, input.len());
    assert!(corpus.at_end());
    got
}

#[test]
fn grids_are_read_whole_on_every_path_and_every_line_is_in_one_record() {
    let mut wrong = P.to_string();
    wrong.replace_range(8..9, "4");
    // 1 comment; 2-10 a grid, CRLF; 11 blank; 12-24 a drawn grid (its border's first line
    // is outside it, and so is its last); 25 a grid whose givens break a rule, no blank
    // line before; 34 four rows cut short by a comment (38); 39 an 80-cell line; 40-41 two
    // rows, and the end without a line break.
    let input = format!(
        "# grids\n{}\n{}{}{}# next\n{}\n{}",
        grid_rows(P, "\r\n"),
        drawn(S),
        grid_rows(&wrong, "\n"),
        &grid_rows(P, "\n")[..40],
        &P[..80],
        &grid_rows(P, "\n")[..19],
    );
    let expected = read_grids(&input, Lines::All, 100, 1 << 16);
    let summary: Vec<(u64, &str)> = expected
        .iter()
        .map(|r| {
            let what = match &r.kind {
                Kind::Puzzle { .. } => "puzzle",
                Kind::Invalid { .. } => "invalid",
                Kind::Malformed { .. } => "malformed",
                Kind::Comment => "comment",
                Kind::Blank => "blank",
                Kind::Header => "header",
            };
            (r.line, what)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "comment"),
            (2, "puzzle"),
            (11, "blank"),
            (12, "blank"),
            (13, "puzzle"),
            (24, "blank"),
            (25, "invalid"),
            (34, "malformed"),
            (39, "malformed"),
            (40, "malformed"),
        ]
    );
    assert_eq!(expected[1].kind, puzzle(P, None));
    assert_eq!(expected[4].kind, puzzle(S, None));
    assert!(
        matches!(&expected[6].kind, Kind::Invalid { reason, column: 1, .. } if reason.contains("r1c9"))
    );
    assert_eq!(
        malformed(&expected[7].kind),
        ("grid cut short: 4 rows of 9 (lines 34-37)", 1)
    );
    assert_eq!(
        malformed(&expected[8].kind),
        ("a grid row has 9 cells, found 80", 1)
    );
    assert_eq!(
        malformed(&expected[9].kind),
        ("grid cut short at the end: 2 rows of 9 (lines 40-41)", 1)
    );
    // Each line is in exactly one record's bytes, in order: a grid's are its lines.
    let joined: Vec<u8> = expected
        .iter()
        .flat_map(|r| r.raw.whole().unwrap().to_vec())
        .collect();
    assert_eq!(String::from_utf8(joined).unwrap(), input);
    for (size, capacity) in [(1, 1), (2, 3), (3, 7), (1, 1 << 16), (100, 5)] {
        assert_eq!(
            read_grids(&input, Lines::All, size, capacity),
            expected,
            "chunks of {size}, buffer {capacity}"
        );
        let entries: Vec<Record> = expected
            .iter()
            .filter(|r| r.is_entry())
            .map(|r| Record {
                raw: Raw::NotKept,
                ..r.clone()
            })
            .collect();
        assert_eq!(
            read_grids(&input, Lines::Entries, size, capacity),
            entries,
            "entries in chunks of {size}, buffer {capacity}"
        );
    }
}

#[test]
fn a_bad_row_makes_its_grid_malformed_and_the_next_grid_starts_in_place() {
    let mut rows = grid_rows(P, "\n");
    rows.replace_range(20..21, "x");
    let input = format!("{rows}{}", grid_rows(S, "\n"));
    let records = read_grids(&input, Lines::Entries, 10, 1 << 16);
    assert_eq!(records.len(), 2);
    assert_eq!(
        (records[0].line, malformed(&records[0].kind).0),
        (
            1,
            "line 3: character 'x' at column 1 is not a digit, a blank ('.' or '0') or a \
             separator (space, ',' or '|')"
        )
    );
    assert_eq!(
        (records[1].line, records[1].kind.clone()),
        (10, puzzle(S, None))
    );
}

#[test]
fn skipped_grids_make_no_records_and_count_as_entries() {
    let input = format!("{}\n{}", grid_rows(P, "\n"), &grid_rows(S, "\n")[..30]);
    let mut c = in_memory(&input, Some(Format::Grid));
    c.skip_through(1);
    let mut chunk = Chunk::new(Lines::All);
    let mut lines = Vec::new();
    while c.read_chunk(&mut chunk, 2).unwrap() > 0 {
        lines.extend(chunk.records().iter().map(|r| r.line));
    }
    assert_eq!(lines, [10, 11]);
    assert_eq!(c.identity().entries, 2);
}

#[test]
fn a_grid_corpus_is_not_split_round_robin() {
    let mut c = in_memory(&grid_rows(P, "\n"), Some(Format::Grid));
    c.round_robin(Shard::new(1, 2).unwrap());
    let err = c.read_chunk(&mut Chunk::new(Lines::All), 10).unwrap_err();
    assert!(err.to_string().contains("not split into parts"), "{err}");
}

#[test]
fn leading_grid_rows_read_as_text_are_refused_naming_the_layout() {
    let refused = |input: &str| {
        let mut c = in_memory(input, None);
        let mut chunk = Chunk::new(Lines::All);
        loop {
            match c.read_chunk(&mut chunk, 3) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(e.to_string()),
            }
        }
    };
    for input in [
        grid_rows(P, "\n"),
        drawn(P),
        format!("# c\n\n{}", grid_rows(P, "\n")),
    ] {
        let said = refused(&input).unwrap_or_default();
        assert!(
            said.contains("this looks like a 9-line grid: use --input-format grid"),
            "{input}: {said}"
        );
    }
    // The border and the first row.
    assert!(refused(&drawn(P)).unwrap().starts_with("t:2: "));
    // A stray row, or rules, before one puzzle a line; rows after a puzzle; a corpus read
    // as text on purpose: read as text.
    for input in [
        format!("123456789\n{P}\n123456789\n"),
        // Rows apart, among bad lines: what a corrupt stream decodes to.
        "123456789\n\x01\u{fffd}garbage\n123456789\n".to_string(),
        format!("-----\n=====\n{P}\n"),
        format!("{P}\n{}", grid_rows(P, "\n")),
    ] {
        assert_eq!(refused(&input), None, "{input}");
    }
    let mut c = in_memory(&grid_rows(P, "\n"), Some(Format::Text));
    assert_eq!(
        read(&mut c, Lines::Entries, 20, 90).len(),
        9,
        "each row a malformed line"
    );
}

#[test]
fn a_puzzle_with_its_cells_apart_is_one_line() {
    let apart = |by: &str| P.chars().map(String::from).collect::<Vec<_>>().join(by);
    let rows = |by: &str| {
        (0..9)
            .map(|r| &P[r * 9..r * 9 + 9])
            .collect::<Vec<_>>()
            .join(by)
    };
    let boxes = (0..27)
        .map(|b| &P[b * 3..b * 3 + 3])
        .collect::<Vec<_>>()
        .join("|");
    for line in [
        apart(" "),
        apart(","),
        apart(", "),
        rows(" "),
        rows("\t"),
        boxes,
    ] {
        assert_eq!(kinds(&format!("{line}\n")), [puzzle(P, None)], "{line}");
    }
    // Not a puzzle: 80 cells apart; a puzzle cut short with a rating after it; groups
    // unlike each other.
    let short = apart(" ");
    let k = kinds(&format!(
        "{}\n{} 5\n{} {}\n",
        &short[..short.len() - 2],
        &P[..80],
        &P[..40],
        &P[40..]
    ));
    assert_eq!(malformed(&k[0]), ("expected 81 cells, found 80", 1));
    assert_eq!(malformed(&k[1]), ("expected 81 cells, found 80", 1));
    assert_eq!(malformed(&k[2]), ("expected 81 cells, found 40", 1));
}

#[test]
fn a_too_long_line_in_a_grid_corpus_is_malformed_and_its_bytes_not_kept() {
    let long = "1".repeat(MAX_LINE + 3);
    let rows = grid_rows(P, "\n");
    // 1 too long; 2-3 rows, 4 too long, 5-10 rows: one grid; 11-19 a grid.
    let input = format!(
        "{long}\n{}{long}\n{}{}",
        &rows[..20],
        &rows[30..],
        grid_rows(S, "\n")
    );
    for capacity in [1 << 16, 13] {
        let records = read_grids(&input, Lines::All, 10, capacity);
        assert_eq!(records.len(), 3);
        assert_eq!((records[0].line, &records[0].raw), (1, &Raw::Cut));
        assert_eq!(
            malformed(&records[0].kind),
            (
                &*format!("line is longer than {MAX_LINE} bytes"),
                MAX_LINE + 1
            )
        );
        assert_eq!((records[1].line, &records[1].raw), (2, &Raw::Cut));
        assert_eq!(
            malformed(&records[1].kind).0,
            format!("line 4: longer than {MAX_LINE} bytes")
        );
        assert_eq!(records[2].line, 11);
        assert_eq!(records[2].kind, puzzle(S, None));
        assert_eq!(records[2].raw, Raw::Whole(grid_rows(S, "\n").into_bytes()));
    }
}
