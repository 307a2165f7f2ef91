//! The per-puzzle CSV: one row per (puzzle, strategy), in input order.
//!
//! Rows are formatted by hand into byte buffers rather than through `csv::Writer`: every
//! field but two is digits, dots or a fixed word, so only the corpus name and the error
//! need RFC 4180 quoting, and formatting can run in parallel on pieces of a batch. A
//! fast strategy solves a puzzle in a couple of microseconds; the report must not take
//! longer than the solve.

use super::{PuzzleResult, Status};
use crate::corpus::{Kind, Record};
use crate::grid::Grid;

/// The columns, in order.
pub const COLUMNS: [&str; 12] = [
    "corpus",
    "line",
    "strategy",
    "status",
    "solutions",
    "nodes",
    "guesses",
    "time_ns",
    "clues",
    "puzzle",
    "solution",
    "error",
];

/// Whether `file` ends in a line break, as every per-puzzle CSV that `run` finished writing
/// a row of does: [`push_row`] ends each row with one, so a last row without it was cut
/// mid-row (an interrupt or a killed job), whatever its field count. An empty file does not.
/// The file's position is left where it was.
pub fn ends_in_line_break(mut file: &std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let at = file.stream_position()?;
    let len = file.seek(SeekFrom::End(0))?;
    let mut last = [0u8];
    if len > 0 {
        file.seek(SeekFrom::End(-1))?;
        file.read_exact(&mut last)?;
    }
    file.seek(SeekFrom::Start(at))?;
    Ok(last[0] == b'\n')
}

/// A row of the per-puzzle CSV read back: what [`push_row`] wrote, as far as the CSV keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRow {
    /// The corpus, as named on the command line.
    pub corpus: String,
    /// 1-based line in the corpus.
    pub line: u64,
    /// The strategy's name.
    pub strategy: String,
    /// The result, with `mismatch` and `failed` told from the status and the error (see
    /// [`read_row`]).
    pub result: PuzzleResult,
}

/// Why a row is not one [`push_row`] writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRow(String);

/// Read back a row that [`push_row`] wrote (fields already unquoted by a CSV reader).
///
/// The CSV has no column for `mismatch` and `failed`; they follow from the error column as
/// `PuzzleResult::searched` and `check_count` write it: a search that finished with an
/// error, or whose error says its solution is none, is a mismatch; an aborted search whose
/// error is neither the node budget's nor the timeout's is a solver failure.
pub fn read_row(fields: &::csv::ByteRecord) -> Result<ReadRow, BadRow> {
    if fields.len() != COLUMNS.len() {
        return Err(BadRow(format!(
            "{} fields, expected {} ({})",
            fields.len(),
            COLUMNS.len(),
            COLUMNS.join(",")
        )));
    }
    let text = |i: usize| {
        std::str::from_utf8(&fields[i])
            .map_err(|_| BadRow(format!("column {} is not UTF-8", COLUMNS[i])))
    };
    let number = |i: usize| -> Result<Option<u64>, BadRow> {
        let field = text(i)?;
        if field.is_empty() {
            return Ok(None);
        }
        field
            .parse()
            .map(Some)
            .map_err(|_| BadRow(format!("column {} is {field:?}, not a number", COLUMNS[i])))
    };
    let grid = |i: usize| -> Result<Option<Grid>, BadRow> {
        let field = text(i)?;
        if field.is_empty() {
            return Ok(None);
        }
        field
            .parse()
            .map(Some)
            .map_err(|_| BadRow(format!("column {} is {field:?}, not a grid", COLUMNS[i])))
    };
    let status_name = text(3)?;
    let status = Status::ALL
        .into_iter()
        .find(|s| s.as_str() == status_name)
        .ok_or_else(|| BadRow(format!("status {status_name:?} is not one run writes")))?;
    let line = number(1)?.ok_or_else(|| BadRow("no line number".into()))?;
    let solutions = match number(4)? {
        Some(n) => {
            Some(u32::try_from(n).map_err(|_| BadRow(format!("{n} solutions is too many")))?)
        }
        None => None,
    };
    let error = (!fields[11].is_empty()).then(|| text(11).map(str::to_string));
    let error = error.transpose()?;
    let mut result = PuzzleResult {
        status,
        solutions,
        nodes: number(5)?,
        guesses: number(6)?,
        time_ns: number(7)?,
        solution: grid(10)?,
        error,
        mismatch: false,
        failed: false,
    };
    if let Some(error) = &result.error {
        let not_a_solution =
            error.starts_with("strategy returned ") && error.ends_with(", which is not a solution");
        result.mismatch = not_a_solution || result.finished();
        result.failed = status == Status::Aborted
            && !not_a_solution
            && !error.starts_with("node budget of ")
            && !error.starts_with("timed out after ");
    }
    Ok(ReadRow {
        corpus: text(0)?.to_string(),
        line,
        strategy: text(2)?.to_string(),
        result,
    })
}

/// Append `field` to `out`, quoted when it holds a comma, a quote or a line break.
#[inline]
pub fn push_field(out: &mut Vec<u8>, field: &[u8]) {
    if field
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.push(b'"');
        for &b in field {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(field);
    }
}

/// Append one row, line ending included. `corpus` and `strategy` are the names as already
/// quoted by `push_field` (they are the same for a whole batch).
pub fn push_row(
    out: &mut Vec<u8>,
    corpus: &[u8],
    record: &Record,
    strategy: &[u8],
    result: &PuzzleResult,
) {
    let grid = match &record.kind {
        Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(grid),
        _ => None,
    };
    let error = result.error.as_deref().map(str::as_bytes);
    // Room for the longest row these fields can make (quoting at most doubles a field
    // and adds two quotes), so that nothing below reallocates.
    out.reserve(
        corpus.len()
            + strategy.len()
            + error.map_or(0, |e| 2 * e.len() + 2)
            + NUMBER_MAX
            + TAIL_MAX
            + 3,
    );
    out.extend_from_slice(corpus);
    out.push(b',');
    push_in_place(out, |buf: &mut [u8; NUMBER_MAX]| {
        put_number(buf, record.line)
    });
    out.push(b',');
    out.extend_from_slice(strategy);
    out.push(b',');
    push_in_place(out, |buf: &mut [u8; TAIL_MAX]| {
        let mut w = Cursor { buf, len: 0 };
        let (name, len) = &STATUS_NAMES[result.status as usize];
        w.buf[..STATUS_WIDTH].copy_from_slice(name);
        w.len = *len;
        w.comma();
        w.number(result.solutions.map(u64::from));
        w.number(result.nodes);
        w.number(result.guesses);
        w.number(result.time_ns);
        w.number(grid.map(|g| g.clues() as u64));
        w.grid(grid);
        w.grid(result.solution.as_ref());
        w.len
    });
    if let Some(error) = error {
        push_field(out, error);
    }
    out.push(b'\n');
}

/// Append up to `N` bytes that `write` puts at the start of its buffer and counts.
///
/// The bytes are written in place, at fixed offsets where possible, rather than made
/// elsewhere and copied: most fields are short and of varying length, and copying each
/// costs a call to `memcpy`.
#[inline(always)]
fn push_in_place<const N: usize>(out: &mut Vec<u8>, write: impl FnOnce(&mut [u8; N]) -> usize) {
    let at = out.len();
    out.resize(at + N, 0);
    let buf: &mut [u8; N] = (&mut out[at..]).try_into().expect("N bytes were added");
    let len = write(buf);
    out.truncate(at + len);
}

/// The decimal digits of a `u64`, at most.
const NUMBER_MAX: usize = 20;

/// Write `n` in decimal at the start of `buf` and return its length.
#[inline(always)]
fn put_number(buf: &mut [u8; NUMBER_MAX], mut n: u64) -> usize {
    let len = n.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut end = len;
    while n >= 100 {
        let pair = DIGIT_PAIRS[(n % 100) as usize];
        n /= 100;
        end -= 2;
        buf[end..end + 2].copy_from_slice(&pair);
    }
    if n >= 10 {
        buf[..2].copy_from_slice(&DIGIT_PAIRS[n as usize]);
    } else {
        buf[0] = b'0' + n as u8;
    }
    len
}

/// "00" to "99".
const DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut t = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        t[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    t
};

/// The fields from the status to the solution, with their commas: the status, five
/// numbers and two grids.
const TAIL_MAX: usize = STATUS_WIDTH + 5 * (NUMBER_MAX + 1) + 2 * (81 + 1);

/// Each status's name with room to spare, so that writing it is one fixed-size copy.
const STATUS_WIDTH: usize = 16;
const STATUS_NAMES: [([u8; STATUS_WIDTH], usize); Status::ALL.len()] = {
    let mut t = [([0u8; STATUS_WIDTH], 0); Status::ALL.len()];
    let mut i = 0;
    while i < t.len() {
        // Indexed by discriminant.
        assert!(Status::ALL[i] as usize == i);
        let name = Status::ALL[i].as_str().as_bytes();
        assert!(name.len() < STATUS_WIDTH);
        let mut k = 0;
        while k < name.len() {
            t[i].0[k] = name[k];
            k += 1;
        }
        t[i].1 = name.len();
        i += 1;
    }
    t
};

/// Writes fields one after another into a row's fixed-size tail.
struct Cursor<'a> {
    buf: &'a mut [u8; TAIL_MAX],
    len: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn comma(&mut self) {
        self.buf[self.len] = b',';
        self.len += 1;
    }

    /// A number (nothing for `None`) and its comma.
    #[inline(always)]
    fn number(&mut self, n: Option<u64>) {
        if let Some(n) = n {
            let digits = &mut self.buf[self.len..self.len + NUMBER_MAX];
            self.len += put_number(digits.try_into().expect("20 bytes"), n);
        }
        self.comma();
    }

    /// A grid (nothing for `None`) and its comma.
    #[inline(always)]
    fn grid(&mut self, grid: Option<&Grid>) {
        if let Some(g) = grid {
            let cells = &mut self.buf[self.len..self.len + 81];
            g.write_dotted(cells.try_into().expect("81 bytes"));
            self.len += 81;
        }
        self.comma();
    }
}

/// Append the header line.
pub fn push_header(out: &mut Vec<u8>) {
    out.extend_from_slice(COLUMNS.join(",").as_bytes());
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_ends_whole_only_with_a_line_break_and_keeps_its_position() {
        use std::io::{Seek, SeekFrom, Write};
        for (text, whole) in [
            (&b""[..], false),
            (b"corpus,line\n", true),
            (b"corpus,line\na.txt,1", false),
            (b"corpus,line\r\n", true),
            (b"corpus,line\r", false),
        ] {
            let mut file = tempfile::tempfile().unwrap();
            file.write_all(text).unwrap();
            let at = text.len().min(3) as u64;
            file.seek(SeekFrom::Start(at)).unwrap();
            assert_eq!(ends_in_line_break(&file).unwrap(), whole, "{text:?}");
            assert_eq!(file.stream_position().unwrap(), at, "{text:?}");
        }
    }

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let mut out = Vec::new();
        push_field(&mut out, b"plain.txt");
        out.push(b'|');
        push_field(&mut out, b"a,b \"c\"");
        assert_eq!(out, b"plain.txt|\"a,b \"\"c\"\"\"");
    }

    #[test]
    fn a_row_reads_back_with_a_csv_reader() {
        let record = Record {
            line: 7,
            raw: crate::corpus::Raw::Whole(b"x\n".to_vec()),
            kind: Kind::Malformed {
                reason: "character ',' at column 3, \"bad\"".into(),
                column: 3,
            },
        };
        let result =
            PuzzleResult::unsearched(Status::Malformed, "character ',' at column 3, \"bad\"");
        let mut text = Vec::new();
        push_header(&mut text);
        let mut corpus = Vec::new();
        push_field(&mut corpus, b"my,corpus.txt");
        push_row(&mut text, &corpus, &record, b"naive", &result);
        let mut reader = csv::Reader::from_reader(&text[..]);
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            COLUMNS
        );
        let row = reader.records().next().unwrap().unwrap();
        assert_eq!(row.len(), COLUMNS.len());
        assert_eq!(&row[0], "my,corpus.txt");
        assert_eq!(&row[1], "7");
        assert_eq!(&row[3], "malformed");
        assert_eq!((&row[4], &row[7], &row[9]), ("", "", ""));
        assert_eq!(&row[11], "character ',' at column 3, \"bad\"");
    }

    /// The straightforward formatter `push_row` replaced, kept to check it byte for byte.
    fn push_row_reference(
        out: &mut Vec<u8>,
        corpus: &[u8],
        record: &Record,
        strategy: &str,
        result: &PuzzleResult,
    ) {
        fn number(out: &mut Vec<u8>, n: Option<u64>) {
            if let Some(n) = n {
                out.extend_from_slice(n.to_string().as_bytes());
            }
        }
        let grid = match &record.kind {
            Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(grid),
            _ => None,
        };
        out.extend_from_slice(corpus);
        out.push(b',');
        number(out, Some(record.line));
        out.push(b',');
        push_field(out, strategy.as_bytes());
        out.push(b',');
        out.extend_from_slice(result.status.as_str().as_bytes());
        out.push(b',');
        number(out, result.solutions.map(u64::from));
        out.push(b',');
        number(out, result.nodes);
        out.push(b',');
        number(out, result.guesses);
        out.push(b',');
        number(out, result.time_ns);
        out.push(b',');
        number(out, grid.map(|g| g.clues() as u64));
        out.push(b',');
        if let Some(g) = grid {
            out.extend_from_slice(g.to_dotted().as_bytes());
        }
        out.push(b',');
        if let Some(s) = &result.solution {
            out.extend_from_slice(s.to_dotted().as_bytes());
        }
        out.push(b',');
        if let Some(error) = &result.error {
            push_field(out, error.as_bytes());
        }
        out.push(b'\n');
    }

    /// Numbers at every digit count and carry boundary.
    fn numbers() -> Vec<u64> {
        let mut out = vec![
            0,
            1,
            9,
            10,
            11,
            42,
            99,
            100,
            101,
            12345,
            u64::MAX,
            u64::MAX - 1,
        ];
        let mut p = 1u64;
        for _ in 0..20 {
            out.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
            out.push(p.saturating_mul(7).saturating_add(p / 3));
            p = p.saturating_mul(10);
        }
        out.extend([u32::MAX as u64, u32::MAX as u64 + 1, (1 << 53) + 1]);
        out
    }

    #[test]
    fn numbers_are_written_like_display() {
        for n in numbers() {
            let mut buf = [b'x'; NUMBER_MAX];
            let len = put_number(&mut buf, n);
            assert_eq!(&buf[..len], n.to_string().as_bytes(), "{n}");
        }
    }

    #[test]
    fn rows_match_the_reference_formatter_byte_for_byte() {
        let puzzle: Grid =
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
                .parse()
                .unwrap();
        let solution: Grid =
            "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
                .parse()
                .unwrap();
        let kinds = [
            Kind::Puzzle {
                grid: puzzle,
                expected: Some(solution),
            },
            Kind::Puzzle {
                grid: Grid::EMPTY,
                expected: None,
            },
            Kind::Puzzle {
                grid: solution,
                expected: None,
            },
            Kind::Invalid {
                grid: puzzle,
                reason: "digit 4 appears twice in row 1 (r1c1 and r1c9)".into(),
                column: 9,
            },
            Kind::Malformed {
                reason: "expected 81 cells, found 80".into(),
                column: 1,
            },
            Kind::Comment,
            Kind::Blank,
            Kind::Header,
        ];
        let errors = [
            None,
            Some(String::new()),
            Some("plain".to_string()),
            Some("a, \"quoted\"\r\nline".to_string()),
            Some("x".repeat(1000)),
        ];
        let numbers = numbers();
        let mut corpora = Vec::new();
        for name in ["", "c.txt", "my,corpus \"1\".txt"] {
            let mut field = Vec::new();
            push_field(&mut field, name.as_bytes());
            corpora.push(field);
        }
        let mut rows = 0;
        for (k, kind) in kinds.iter().enumerate() {
            for (s, &status) in Status::ALL.iter().enumerate() {
                for (e, error) in errors.iter().enumerate() {
                    let i = k * 7 + s * 5 + e;
                    let pick = |j: usize| numbers[(i * 7 + j * 13) % numbers.len()];
                    let some = |j: usize| !(i + j).is_multiple_of(4);
                    let record = Record {
                        line: pick(0),
                        raw: crate::corpus::Raw::NotKept,
                        kind: kind.clone(),
                    };
                    let result = PuzzleResult {
                        status,
                        solutions: some(1).then(|| pick(1) as u32),
                        nodes: some(2).then(|| pick(2)),
                        guesses: some(3).then(|| pick(3)),
                        time_ns: some(4).then(|| pick(4)),
                        solution: [None, Some(solution), Some(puzzle)][i % 3],
                        error: error.clone(),
                        mismatch: i % 2 == 0,
                        failed: false,
                    };
                    let corpus = &corpora[i % corpora.len()];
                    let strategy = ["fast", "", "a,b", "x\"y"][i % 4];
                    // Appended after what is already there, as rows of a batch are.
                    let mut fast = b"previous row\n".to_vec();
                    let mut slow = fast.clone();
                    let mut quoted = Vec::new();
                    push_field(&mut quoted, strategy.as_bytes());
                    push_row(&mut fast, corpus, &record, &quoted, &result);
                    push_row_reference(&mut slow, corpus, &record, strategy, &result);
                    assert_eq!(
                        String::from_utf8_lossy(&fast),
                        String::from_utf8_lossy(&slow)
                    );
                    rows += 1;
                }
            }
        }
        assert_eq!(rows, kinds.len() * Status::ALL.len() * errors.len());
    }

    /// Reads `text` (rows without a header) back with `read_row`.
    fn read_back(text: &[u8]) -> Vec<ReadRow> {
        let mut reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text);
        reader
            .byte_records()
            .map(|r| read_row(&r.unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn every_status_reads_back_as_written() {
        let puzzle: Grid =
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
                .parse()
                .unwrap();
        let solution: Grid =
            "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
                .parse()
                .unwrap();
        let searched = |status, error: Option<&str>, mismatch, failed| PuzzleResult {
            status,
            solutions: Some(if status == Status::Unsolvable { 0 } else { 1 }),
            nodes: Some(123),
            guesses: Some(4),
            time_ns: Some(98765),
            solution: (status != Status::Unsolvable).then_some(solution),
            error: error.map(str::to_string),
            mismatch,
            failed,
        };
        let results = [
            searched(Status::Unique, None, false, false),
            searched(Status::Multiple, None, false, false),
            searched(Status::Solved, None, false, false),
            searched(Status::Unsolvable, None, false, false),
            searched(
                Status::Unsolvable,
                Some("no solution found, but the corpus gives one"),
                true,
                false,
            ),
            searched(
                Status::Unique,
                Some("solution differs from the corpus's solution column"),
                true,
                false,
            ),
            searched(
                Status::Multiple,
                Some("counted 2 solutions; the reference (fast) counted 1"),
                true,
                false,
            ),
            searched(
                Status::Aborted,
                Some("node budget of 1000 exhausted after finding 1 solution"),
                false,
                false,
            ),
            searched(Status::Aborted, Some("timed out after 10s"), false, false),
            searched(
                Status::Aborted,
                Some("solver crashed: \"bad, very\"\nbad"),
                false,
                true,
            ),
            searched(
                Status::Aborted,
                Some(&format!(
                    "strategy returned {puzzle}, which is not a solution"
                )),
                true,
                false,
            ),
            PuzzleResult {
                nodes: None,
                guesses: None,
                ..searched(Status::Unique, None, false, false)
            },
            PuzzleResult::unsearched(Status::Invalid, "digit 4 appears twice in row 1"),
            PuzzleResult::unsearched(Status::Malformed, "character 'x' at column 3, \"bad\""),
        ];
        let kind = |result: &PuzzleResult| match result.status {
            Status::Malformed => Kind::Malformed {
                reason: "bad".into(),
                column: 3,
            },
            Status::Invalid => Kind::Invalid {
                grid: puzzle,
                reason: "bad".into(),
                column: 1,
            },
            _ => Kind::Puzzle {
                grid: puzzle,
                expected: None,
            },
        };
        let mut text = Vec::new();
        let mut corpus = Vec::new();
        push_field(&mut corpus, b"my,corpus.txt");
        for (i, result) in results.iter().enumerate() {
            let record = Record {
                line: i as u64 + 1,
                raw: crate::corpus::Raw::NotKept,
                kind: kind(result),
            };
            push_row(&mut text, &corpus, &record, b"dlx", result);
        }
        let rows = read_back(&text);
        assert_eq!(rows.len(), results.len());
        for (i, (row, result)) in rows.iter().zip(&results).enumerate() {
            assert_eq!(row.corpus, "my,corpus.txt");
            assert_eq!(row.line, i as u64 + 1);
            assert_eq!(row.strategy, "dlx");
            assert_eq!(&row.result, result, "row {i}");
        }
        let covered: Vec<Status> = results.iter().map(|r| r.status).collect();
        assert!(Status::ALL.iter().all(|s| covered.contains(s)));
    }

    #[test]
    fn rows_run_does_not_write_are_refused() {
        for (text, why) in [
            (&b"c,1,dlx,unique\n"[..], "4 fields"),
            (b"c,x,dlx,unique,1,,,5,,,,\n", "column line"),
            (b"c,1,dlx,great,1,,,5,,,,\n", "status \"great\""),
            (b"c,1,dlx,unique,1,,,-5,,,,\n", "column time_ns"),
            (b"c,1,dlx,unique,1,,,5,,,123,\n", "column solution"),
            (b"c,,dlx,unique,1,,,5,,,,\n", "no line"),
        ] {
            let mut reader = ::csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(text);
            let record = reader.byte_records().next().unwrap().unwrap();
            let err = read_row(&record).unwrap_err().to_string();
            assert!(err.contains(why), "{err} should say {why}");
        }
    }
}
