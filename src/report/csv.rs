//! The per-puzzle CSV: one row per (puzzle, strategy), in input order.
//!
//! Rows are formatted by hand into byte buffers rather than through `csv::Writer`: every
//! field but two is digits, dots or a fixed word, so only the corpus name and the error
//! need RFC 4180 quoting, and formatting can run in parallel on pieces of a batch. A
//! fast strategy solves a puzzle in a couple of microseconds; the report must not take
//! longer than the solve.

use super::PuzzleResult;
use crate::corpus::{Kind, Record};

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

/// Append `field` to `out`, quoted when it holds a comma, a quote or a line break.
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

fn push_number(out: &mut Vec<u8>, n: Option<u64>) {
    if let Some(n) = n {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

/// Append one row, line ending included. `corpus` is the corpus name as already quoted
/// by `push_field` (it is the same for a whole batch).
pub fn push_row(
    out: &mut Vec<u8>,
    corpus: &[u8],
    record: &Record,
    strategy: &str,
    result: &PuzzleResult,
) {
    let grid = match &record.kind {
        Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(grid),
        _ => None,
    };
    out.extend_from_slice(corpus);
    out.push(b',');
    push_number(out, Some(record.line));
    out.push(b',');
    push_field(out, strategy.as_bytes());
    out.push(b',');
    out.extend_from_slice(result.status.as_str().as_bytes());
    out.push(b',');
    push_number(out, result.solutions.map(u64::from));
    out.push(b',');
    push_number(out, result.nodes);
    out.push(b',');
    push_number(out, result.guesses);
    out.push(b',');
    push_number(out, result.time_ns);
    out.push(b',');
    push_number(out, grid.map(|g| g.clues() as u64));
    out.push(b',');
    let mut cells = [0u8; 81];
    if let Some(g) = grid {
        g.write_dotted(&mut cells);
        out.extend_from_slice(&cells);
    }
    out.push(b',');
    if let Some(s) = &result.solution {
        s.write_dotted(&mut cells);
        out.extend_from_slice(&cells);
    }
    out.push(b',');
    if let Some(error) = &result.error {
        push_field(out, error.as_bytes());
    }
    out.push(b'\n');
}

/// Append the header line.
pub fn push_header(out: &mut Vec<u8>) {
    out.extend_from_slice(COLUMNS.join(",").as_bytes());
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

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
            raw: b"x\n".to_vec(),
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
        push_row(&mut text, &corpus, &record, "naive", &result);
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
}
