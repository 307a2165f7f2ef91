//! CSV corpora: a header names the puzzle column and, optionally, a solution column.
//!
//! Recognised names (case-insensitive, surrounding spaces and quotes ignored): `quizzes`,
//! `puzzle`, `puzzles`, `quiz`, `sudoku` for the puzzle; `solutions`, `solution` for the
//! solution. This covers the Kaggle layouts `quizzes,solutions` and
//! `id,puzzle,solution,clues,difficulty`; other names are given (`ReadAs`). Records are
//! one per line; a quoted field may hold commas and `""` escapes. A quoted field that holds
//! a line break (no Sudoku corpus needs one) is not read: the line it opens on and every
//! line up to its closing quote are malformed, each saying so (`ends_inside_quote` tells
//! them), so that no piece of it is taken for a record of its own.

use super::parsed::{Bad, Fields};
use super::text::cell_error;
use super::ReadAs;
use crate::grid::Grid;

pub(super) const PUZZLE_COLUMNS: &[&str] = &["quizzes", "puzzle", "puzzles", "quiz", "sudoku"];
const SOLUTION_COLUMNS: &[&str] = &["solutions", "solution"];

/// Where the puzzle and solution live in each record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvLayout {
    /// The puzzle's column, 0-based.
    pub puzzle: usize,
    /// The solution's column, when there is one.
    pub solution: Option<usize>,
    /// Columns in the header.
    pub columns: usize,
}

/// One field: its text (quotes removed) and the 1-based column, in characters, where that
/// text starts in the line.
struct Field {
    text: Vec<u8>,
    column: usize,
}

/// Characters in `bytes`, a prefix of a UTF-8 line: the bytes that do not continue one.
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Split one CSV line into fields. `Err` carries the column of an unterminated quote.
fn split(line: &[u8], out: &mut Vec<Field>) -> Result<(), usize> {
    out.clear();
    let mut i = 0;
    loop {
        let mut text = Vec::new();
        let mut column = chars(&line[..i]) + 1;
        if line.get(i) == Some(&b'"') {
            column += 1;
            i += 1;
            loop {
                match line.get(i) {
                    None => return Err(column - 1),
                    Some(b'"') if line.get(i + 1) == Some(&b'"') => {
                        text.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&b) => {
                        text.push(b);
                        i += 1;
                    }
                }
            }
            // Anything between the closing quote and the comma is kept, like most readers.
            while let Some(&b) = line.get(i) {
                if b == b',' {
                    break;
                }
                text.push(b);
                i += 1;
            }
        } else {
            while let Some(&b) = line.get(i) {
                if b == b',' {
                    break;
                }
                text.push(b);
                i += 1;
            }
        }
        out.push(Field {
            text: text.trim_ascii().to_vec(),
            column: column + (text.len() - text.trim_ascii_start().len()),
        });
        if i >= line.len() {
            return Ok(());
        }
        i += 1; // the comma
    }
}

/// Whether a data line (its content, without its ending) ends inside a quoted field, as
/// `split` reads fields; `inside` when it starts inside one, opened on an earlier line.
pub(super) fn ends_inside_quote(line: &[u8], inside: bool) -> bool {
    let fields = if inside {
        let mut i = 0;
        let closed = loop {
            match line.get(i) {
                None => return true,
                Some(b'"') if line.get(i + 1) == Some(&b'"') => i += 2,
                Some(b'"') => break i + 1,
                Some(_) => i += 1,
            }
        };
        // What follows the closing quote belongs to the field, up to a comma.
        match line[closed..].iter().position(|&b| b == b',') {
            Some(comma) => &line[closed + comma + 1..],
            None => return false,
        }
    } else {
        line.trim_ascii()
    };
    split(fields, &mut Vec::new()).is_err()
}

/// A line read as a CSV header: its column names, quotes removed and spaces around trimmed.
pub(super) struct Header {
    pub names: Vec<String>,
}

/// Why a header gives no layout: for `column` (`puzzle` or `solution`), the name looked
/// for when one was given (else the known names were), and the header's columns of that
/// name: none, or more than one (1-based, with their names), which is as bad, since
/// reading either would be a guess.
pub(super) struct Unplaced {
    pub column: &'static str,
    pub named: Option<String>,
    pub found: Vec<(usize, String)>,
}

impl Header {
    /// The fields of `line`; the whole line as one when it does not split (an
    /// unterminated quote), which names no column.
    pub fn of(line: &[u8]) -> Header {
        let mut fields = Vec::new();
        let names = match split(line, &mut fields) {
            Ok(()) => fields
                .iter()
                .map(|f| String::from_utf8_lossy(&f.text).into_owned())
                .collect(),
            Err(_) => vec![String::from_utf8_lossy(line).into_owned()],
        };
        Header { names }
    }

    /// The layout this header gives the corpus: its puzzle and solution columns by the
    /// names `read_as` gives, else by the known names; which column is missing, or named
    /// more than once, if one is.
    pub fn layout(&self, read_as: &ReadAs) -> Result<CsvLayout, Unplaced> {
        // The header's columns that `named` (when given) or one of `known` names.
        let matching = |named: &Option<String>, known: &[&str]| -> Vec<(usize, String)> {
            let fits = |n: &String| match named {
                Some(name) => n.eq_ignore_ascii_case(name),
                None => known.iter().any(|k| n.eq_ignore_ascii_case(k)),
            };
            let found = self.names.iter().enumerate().filter(|(_, n)| fits(n));
            found.map(|(i, n)| (i + 1, n.clone())).collect()
        };
        // The one column for `column`: none, or more than one, is refused.
        let one = |column, named: &Option<String>, known| {
            let found = matching(named, known);
            match found.as_slice() {
                [(i, _)] => Ok(i - 1),
                _ => Err(Unplaced {
                    column,
                    named: named.clone(),
                    found,
                }),
            }
        };
        let puzzle = one("puzzle", &read_as.puzzle_column, PUZZLE_COLUMNS)?;
        // A solution column is optional unless named.
        let solution = match &read_as.solution_column {
            None if matching(&None, SOLUTION_COLUMNS).is_empty() => None,
            named => Some(one("solution", named, SOLUTION_COLUMNS)?),
        };
        Ok(CsvLayout {
            puzzle,
            solution,
            columns: self.names.len(),
        })
    }

    /// Whether this is a header rather than a text line, when its format is not given:
    /// two columns or more, each named as a program would name a field (a letter or `_`,
    /// then letters, digits, `_`, `.` or `-`). A title line (`Top 95, the hardest`) or a
    /// puzzle with a rating after a comma is none.
    pub fn is_names(&self) -> bool {
        self.names.len() >= 2
            && self.names.iter().all(|name| {
                let mut bytes = name.bytes();
                bytes
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                    && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            })
    }
}

impl CsvLayout {
    /// The layout a header line describes by the known names, or `None` when it names no
    /// puzzle column.
    pub fn from_header(line: &[u8]) -> Option<CsvLayout> {
        Header::of(line).layout(&ReadAs::default()).ok()
    }

    /// Parse one trimmed, non-empty, UTF-8 data line.
    pub(super) fn parse(&self, line: &[u8]) -> Result<Fields, Bad> {
        let mut fields = Vec::with_capacity(self.columns);
        split(line, &mut fields).map_err(|column| Bad {
            reason: format!(
                "the quoted field starting at column {column} runs past the line: a CSV \
                 field holding a line break is not read, nor are the lines up to its \
                 closing quote"
            ),
            column,
        })?;
        let Some(puzzle) = fields.get(self.puzzle) else {
            return Err(Bad {
                reason: format!(
                    "expected {} CSV fields, found {} (no puzzle column)",
                    self.columns,
                    fields.len()
                ),
                column: chars(line),
            });
        };
        let grid = Grid::parse(&puzzle.text).map_err(|e| cell_error(e, puzzle.column))?;
        let expected = match self.solution.and_then(|i| fields.get(i)) {
            Some(f) if !f.text.is_empty() => {
                let solution = Grid::parse(&f.text).map_err(|e| {
                    let mut bad = cell_error(e, f.column);
                    bad.reason = format!("solution column: {}", bad.reason);
                    bad
                })?;
                Some(solution)
            }
            _ => None,
        };
        Ok(Fields {
            grid,
            grid_column: puzzle.column,
            expected,
        })
    }
}
