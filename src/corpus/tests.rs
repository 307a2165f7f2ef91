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
    assert_eq!(recs[2].raw, format!("  {P}  \r\n").into_bytes());
    let joined: Vec<u8> = recs.iter().flat_map(|r| r.raw.clone()).collect();
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
        "unterminated quote starting at column 3"
    );
    let k = kinds("puzzle,solution\n12345\n");
    assert_eq!(malformed(&k[1]), ("expected 81 cells, found 5", 1));
}

#[test]
fn forced_formats() {
    let input = format!("quizzes,solutions\n{P},{S}\n");
    let mut c = in_memory(&input, Some(Format::Text));
    let mut r = Record::default();
    c.next_into(&mut r).unwrap();
    assert!(
        matches!(r.kind, Kind::Malformed { .. }),
        "header is just a bad line as text"
    );
    c.next_into(&mut r).unwrap();
    assert_eq!(r.kind, puzzle(P, None));

    let mut c = in_memory(&format!("{P}\n"), Some(Format::Csv));
    let err = c.next_into(&mut r).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("t:1: CSV header has no puzzle column"),
        "{err}"
    );
}

#[test]
fn next_entries_skips_non_entries_and_reuses_the_chunk() {
    let input = format!("# c\n{P}\n\n{}\n{P}\n", &P[..3]);
    let mut c = in_memory(&input, None);
    let mut chunk = Vec::new();
    assert_eq!(c.next_entries(&mut chunk, 2).unwrap(), 2);
    assert_eq!((chunk[0].line, chunk[1].line), (2, 4));
    assert_eq!(c.next_entries(&mut chunk, 2).unwrap(), 1);
    assert_eq!(chunk[0].line, 5);
    assert_eq!(c.next_entries(&mut chunk, 2).unwrap(), 0);
}

#[test]
fn an_endless_line_is_cut_and_reported_and_reading_goes_on() {
    let mut input = vec![b'1'; MAX_LINE * 3];
    input.extend_from_slice(format!("\n{P}\n").as_bytes());
    let recs = read_all("t", io::Cursor::new(input)).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(
        recs[0].raw.len(),
        MAX_LINE,
        "only the first MAX_LINE bytes are kept"
    );
    assert_eq!(
        malformed(&recs[0].kind).0,
        format!("line is longer than {MAX_LINE} bytes")
    );
    assert_eq!((recs[1].line, recs[1].kind.clone()), (2, puzzle(P, None)));
}

#[test]
fn next_lines_keeps_every_line_and_parses_like_next_into() {
    let mut bad = P.to_string();
    bad.replace_range(8..9, "4");
    let input = format!(
        "quizzes,solutions\n# c\n{P},{S}\n\n{bad},\n{},\n{P}\n",
        &P[..9]
    );
    let expected = read_all("t", io::Cursor::new(input.clone().into_bytes())).unwrap();
    for size in [1, 2, 3, 100] {
        let mut c = in_memory(&input, None);
        let (mut chunk, mut got) = (Vec::new(), Vec::new());
        loop {
            let n = c.next_lines(&mut chunk, size).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&chunk[..n]);
        }
        assert_eq!(got, expected, "chunks of {size}");
    }
    assert!(matches!(expected[4].kind, Kind::Invalid { .. }));
    assert!(matches!(expected[5].kind, Kind::Malformed { .. }));
}

#[test]
fn at_end_only_when_nothing_is_left() {
    let input = format!("{P}\n{P}\n# a comment at the end\n");
    let mut c = in_memory(&input, None);
    let mut chunk = Chunk::default();
    assert!(!c.at_end());
    assert_eq!(c.read_chunk(&mut chunk, 1, false).unwrap(), 1);
    assert!(!c.at_end());
    // The second puzzle, then the comment is skipped on the way to the end.
    assert_eq!(c.read_chunk(&mut chunk, 5, false).unwrap(), 1);
    assert!(c.at_end());
    assert_eq!(c.read_chunk(&mut chunk, 5, false).unwrap(), 0);

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
    assert_eq!(c.read_chunk(&mut chunk, 5, false).unwrap(), 1);
    assert!(!c.at_end());
    assert!(c.read_chunk(&mut chunk, 5, false).is_err());
}

#[test]
fn chunks_parsed_on_read_hold_what_parse_makes() {
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
        for every_line in [false, true] {
            let read = |mut chunk: Chunk, later: bool| {
                let mut c = in_memory(&input, None);
                let (mut got, mut bytes) = (Vec::new(), 0);
                while c.read_chunk(&mut chunk, 2, every_line).unwrap() > 0 {
                    if later {
                        chunk.parse();
                    }
                    got.extend_from_slice(chunk.records());
                    bytes += chunk.bytes();
                }
                // Every line's bytes count, skipped lines' too.
                assert_eq!(bytes, input.len() as u64);
                got
            };
            let on_read = read(Chunk::parsed_on_read(), false);
            let later = read(Chunk::default(), true);
            // The same records, but that chunks parsed on read keep no raw bytes.
            assert!(on_read.iter().all(|r| r.raw.is_empty()));
            assert!(later.iter().all(|r| !r.raw.is_empty()));
            let without_raw = |records: &[Record]| -> Vec<(u64, Kind)> {
                records.iter().map(|r| (r.line, r.kind.clone())).collect()
            };
            assert_eq!(without_raw(&on_read), without_raw(&later), "{input:?}");
            assert!(on_read
                .iter()
                .any(|r| matches!(r.kind, Kind::Puzzle { .. })));
            assert!(on_read
                .iter()
                .any(|r| matches!(r.kind, Kind::Invalid { .. })));
        }
    }
}

/// A text line's kind as the loader worked it out before its fast path: UTF-8 check,
/// the field up to the first separator, then the grid's checks. Shares no code with
/// `Layout::classify` but `Grid`'s parsing and checks.
fn classify_text_reference(raw: &[u8]) -> Kind {
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
fn text_fast_path_classifies_like_the_general_path() {
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
        let got = Layout::Text.classify(raw);
        assert_eq!(got, classify_text_reference(raw), "{}", raw.escape_ascii());
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
    let mut chunk = Vec::new();
    assert_eq!(c.next_entries(&mut chunk, 100).unwrap(), 2);
    assert_eq!((chunk[0].line, chunk[1].line), (1, 3));
    assert_eq!(chunk[1].kind, puzzle(P, None));
    let err = c.next_entries(&mut chunk, 100).unwrap_err();
    assert_eq!(err.to_string(), "t: read error after line 3: disk on fire");
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
        for every_line in [false, true] {
            let read = |capacity: Option<usize>| {
                let bytes = input.clone().into_bytes();
                let reader: Box<dyn BufRead + Send> = match capacity {
                    Some(capacity) => {
                        Box::new(BufReader::with_capacity(capacity, io::Cursor::new(bytes)))
                    }
                    None => Box::new(io::Cursor::new(bytes)),
                };
                let mut c = Corpus::from_reader("t", reader, None, None);
                let mut chunk = match capacity {
                    Some(_) => Chunk::parsed_on_read(),
                    None => Chunk::default(),
                };
                let (mut got, mut total) = (Vec::new(), 0);
                while c.read_chunk(&mut chunk, 3, every_line).unwrap() > 0 {
                    assert!(chunk.records().len() <= 3);
                    if capacity.is_none() {
                        chunk.parse();
                    }
                    got.extend(chunk.records().iter().map(|r| (r.line, r.kind.clone())));
                    total += chunk.bytes();
                }
                assert_eq!(total, input.len() as u64, "capacity {capacity:?}");
                got
            };
            // The general path alone: a chunk parsed later, over a buffer of everything.
            let expected = read(None);
            assert!(expected.len() >= 4, "{expected:?}");
            for capacity in [1, 2, 7, 64, 83, 100, 4096, 1 << 20] {
                assert_eq!(
                    read(Some(capacity)),
                    expected,
                    "capacity {capacity}, every line {every_line}, {input:?}"
                );
            }
        }
    }
}
