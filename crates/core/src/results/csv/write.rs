//! Writing the per-puzzle CSV.
//!
//! Rows are formatted by hand into byte buffers rather than through `csv::Writer`: every
//! field but two is digits, dots or a fixed word, so only the corpus name and the error
//! need RFC 4180 quoting, and formatting can run in parallel on pieces of a batch. A
//! fast strategy solves a puzzle in a couple of microseconds; the report must not take
//! longer than the solve.

use super::COLUMNS;
use crate::corpus::{Kind, Record};
use crate::grid::Grid;
use crate::results::{PuzzleResult, Status};

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
            + ENDED_MAX
            + NUMBER_MAX
            + 5,
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
    out.push(b',');
    if let Some(ended) = result.ended {
        out.extend_from_slice(ended.as_str().as_bytes());
    }
    out.push(b',');
    if let Some(replicate) = result.replicate {
        push_in_place(out, |buf: &mut [u8; NUMBER_MAX]| {
            put_number(buf, u64::from(replicate))
        });
    }
    out.push(b',');
    if let Some(instructions) = result.instructions {
        push_in_place(out, |buf: &mut [u8; NUMBER_MAX]| {
            put_number(buf, instructions)
        });
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

/// The longest name of an `ended` value.
const ENDED_MAX: usize = 11;

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
    use crate::results::Ending;

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
        out.push(b',');
        if let Some(ended) = result.ended {
            out.extend_from_slice(ended.to_string().as_bytes());
        }
        out.push(b',');
        number(out, result.replicate.map(u64::from));
        out.push(b',');
        number(out, result.instructions);
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
        let (puzzle, solution) = super::super::fixture::grids();
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
                        ended: [None, Some(Ending::NodeBudget), Some(Ending::Mismatch)][i % 3],
                        replicate: some(5).then(|| pick(5) as u32),
                        instructions: some(6).then(|| pick(6)),
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
}
