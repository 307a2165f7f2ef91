//! The per-puzzle rows of the parts, back in input order: a k-way merge on (corpus in the
//! run's order, line), streaming, holding one row per part. All rows of one line (one per
//! strategy) come from one part, in the order it wrote them. Each part is read with the
//! one reader of the per-puzzle CSV ([`RowReader`]), which checks every row, and each row is
//! written back as `run` wrote it.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use super::{Checker, MergeError};
use sudoku_bench_core::results::csv::{CsvError, CsvRow, RowReader};

/// A part's CSV being read.
pub(super) type PartReader = RowReader<BufReader<File>>;

/// One part being read: its reader (holding its next row) and that row's key.
struct Cursor {
    reader: PartReader,
    /// (corpus index, line) of the row read last; `None` once the part is read to its end.
    key: Option<(usize, u64)>,
    /// The file line that row is on, for messages.
    at: u64,
}

pub(super) fn bad(path: &Path, line: u64, message: impl Into<String>) -> MergeError {
    Checker::Merge.bad(path, line, message).into()
}

/// A fault of a part's CSV, as merge reports it: the file and line, and what is wrong.
pub(super) fn csv_fault(e: CsvError) -> MergeError {
    match e {
        CsvError::Io { path, source } => MergeError::Read { path, source },
        CsvError::Bad {
            path,
            line,
            message,
        } => bad(&path, line, message),
    }
}

/// Open the CSV at `path` and read its header, whatever its columns.
pub(super) fn open(path: &Path) -> Result<PartReader, MergeError> {
    let file = File::open(path).map_err(|source| MergeError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    RowReader::any(path, BufReader::with_capacity(1 << 16, file)).map_err(csv_fault)
}

/// Where `row` (of the CSV at `path`) goes in input order: its corpus's index in
/// `corpora`, and its line.
pub(super) fn key(
    row: &CsvRow,
    corpora: &[String],
    path: &Path,
) -> Result<(usize, u64), MergeError> {
    let corpus = corpora
        .iter()
        .position(|c| *c == row.corpus)
        .ok_or_else(|| {
            let corpora = corpora.iter().map(String::as_str);
            Checker::Merge.other_corpus(path, row.csv_line, &row.corpus, corpora)
        })?;
    Ok((corpus, row.line))
}

/// The row on line `at` of the CSV at `path` goes back in input order: to `line` of
/// `corpus`.
pub(super) fn out_of_order(path: &Path, at: u64, line: u64, corpus: &str) -> MergeError {
    let before = "a later one".to_string();
    Checker::Merge
        .out_of_order(path, at, line, corpus, before)
        .into()
}

impl Cursor {
    /// Read the next row, checking that its key does not go back.
    fn advance(&mut self, corpora: &[String]) -> Result<(), MergeError> {
        let before = self.key;
        let Some(row) = self.reader.read().map_err(csv_fault)? else {
            self.key = None;
            return Ok(());
        };
        self.at = row.csv_line;
        let key = key(&row, corpora, self.reader.path())?;
        if before.is_some_and(|b| key < b) {
            return Err(out_of_order(
                self.reader.path(),
                self.at,
                row.line,
                &corpora[key.0],
            ));
        }
        self.key = Some(key);
        Ok(())
    }
}

/// The part whose next row comes first in input order (`None`: every part is read),
/// refused when two parts hold one line.
fn next_line(cursors: &[Cursor], corpora: &[String]) -> Result<Option<usize>, MergeError> {
    let mut next: Option<usize> = None;
    for (i, c) in cursors.iter().enumerate() {
        let Some(key) = c.key else { continue };
        match next {
            Some(j) if cursors[j].key == Some(key) => {
                let other = &cursors[j];
                return Err(bad(
                    c.reader.path(),
                    c.at,
                    format!(
                        "line {} of {} is also in {}:{}: parts overlap",
                        key.1,
                        corpora[key.0],
                        other.reader.path().display(),
                        other.at
                    ),
                ));
            }
            Some(j) if cursors[j].key < Some(key) => {}
            _ => next = Some(i),
        }
    }
    Ok(next)
}

/// Write the rows of `csvs` (parts of one run over `corpora`, in that order) to `out`
/// (named `out_path` in errors) in input order, header first; the number of rows written.
/// Errors name the file and line of a row out of order, a line in two parts, a row `run`
/// cannot have written, or a header unlike the first part's.
pub fn merge_rows(
    csvs: &[PathBuf],
    corpora: &[String],
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<u64, MergeError> {
    let mut cursors: Vec<Cursor> = Vec::with_capacity(csvs.len());
    for path in csvs {
        let reader = open(path)?;
        if let Some(first) = cursors.first() {
            if !first.reader.same_header(&reader) {
                return Err(bad(
                    path,
                    1,
                    format!(
                        "its header differs from {}'s",
                        first.reader.path().display()
                    ),
                ));
            }
        }
        cursors.push(Cursor {
            reader,
            key: None,
            at: 0,
        });
    }
    let Some(first) = cursors.first_mut() else {
        return Err(MergeError::NoParts);
    };
    first
        .reader
        .require(&["corpus", "line", "strategy"])
        .map_err(csv_fault)?;
    let mut buf = Vec::with_capacity(1 << 16);
    first.reader.write_header(&mut buf);
    for c in &mut cursors {
        c.advance(corpora)?;
    }
    let io = |source| MergeError::Write {
        path: out_path.to_path_buf(),
        source,
    };
    let mut written = 0u64;
    loop {
        let next = next_line(&cursors, corpora)?;
        let Some(i) = next else { break };
        let c = &mut cursors[i];
        let key = c.key;
        while c.key == key {
            c.reader.write_last(&mut buf);
            written += 1;
            c.advance(corpora)?;
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf).map_err(io)?;
            buf.clear();
        }
    }
    out.write_all(&buf).map_err(io)?;
    Ok(written)
}
