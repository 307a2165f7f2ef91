//! The per-puzzle rows of the parts, back in input order: a k-way merge on (corpus in the
//! run's order, line), streaming, holding one row per part. All rows of one line (one per
//! strategy) come from one part, in the order it wrote them.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use csv::{ByteRecord, Reader};

use super::MergeError;
use crate::results::csv::push_field;

/// One part being read: its next row and that row's key.
struct Cursor {
    path: PathBuf,
    reader: Reader<BufReader<File>>,
    row: ByteRecord,
    /// (corpus index, line) of `row`; `None` once the part is read to its end.
    key: Option<(usize, u64)>,
    /// The file line `row` starts on, for messages.
    at: u64,
}

/// Where the key columns are in every part (the headers are all the same).
struct Columns {
    corpus: usize,
    line: usize,
}

pub(super) fn bad(path: &Path, line: u64, message: impl Into<String>) -> MergeError {
    MergeError::Rows {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

pub(super) fn csv_error(path: &Path, e: csv::Error) -> MergeError {
    let line = e.position().map_or(0, |p| p.line());
    bad(path, line, e.to_string())
}

/// Where the column `name` is in `header`, the header of the CSV at `path`.
pub(super) fn column(header: &ByteRecord, name: &str, path: &Path) -> Result<usize, MergeError> {
    header
        .iter()
        .position(|h| h == name.as_bytes())
        .ok_or_else(|| bad(path, 1, format!("no {name} column: not a per-puzzle CSV")))
}

impl Cursor {
    /// Read the next row, checking that its key does not go back.
    fn advance(&mut self, corpora: &[String], columns: &Columns) -> Result<(), MergeError> {
        let before = self.key;
        if !self
            .reader
            .read_byte_record(&mut self.row)
            .map_err(|e| csv_error(&self.path, e))?
        {
            self.key = None;
            return Ok(());
        }
        self.at = self.row.position().map_or(0, |p| p.line());
        let field = |i: usize| self.row.get(i).unwrap_or_default();
        let corpus = std::str::from_utf8(field(columns.corpus)).unwrap_or("");
        let corpus = corpora.iter().position(|c| c == corpus).ok_or_else(|| {
            bad(
                &self.path,
                self.at,
                format!(
                    "corpus {corpus:?} is not one of the run's (its summary lists {corpora:?})"
                ),
            )
        })?;
        let line: u64 = std::str::from_utf8(field(columns.line))
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&self.path, self.at, "the line column is not a number"))?;
        let key = (corpus, line);
        if before.is_some_and(|b| key < b) {
            return Err(bad(
                &self.path,
                self.at,
                format!(
                    "line {line} of {} comes after a later one: rows out of input order",
                    corpora[corpus]
                ),
            ));
        }
        self.key = Some(key);
        Ok(())
    }
}

fn write_record(out: &mut Vec<u8>, row: &ByteRecord) {
    for (i, field) in row.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_field(out, field);
    }
    out.push(b'\n');
}

/// Write the rows of `csvs` (parts of one run over `corpora`, in that order) to `out`
/// (named `out_path` in errors) in input order, header first; the number of rows written.
/// Errors name the file and line of a row out of order, a line in two parts, or a header
/// unlike the first part's.
pub fn merge_rows(
    csvs: &[PathBuf],
    corpora: &[String],
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<u64, MergeError> {
    let mut cursors = Vec::with_capacity(csvs.len());
    let mut header: Option<(ByteRecord, &Path)> = None;
    for path in csvs {
        let file = File::open(path).map_err(|source| MergeError::Io {
            path: path.clone(),
            source,
        })?;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(BufReader::with_capacity(1 << 16, file));
        let this = reader
            .byte_headers()
            .map_err(|e| csv_error(path, e))?
            .clone();
        match &header {
            None => header = Some((this, path)),
            Some((first, first_path)) if *first != this => {
                return Err(bad(
                    path,
                    1,
                    format!("its header differs from {}'s", first_path.display()),
                ))
            }
            Some(_) => {}
        }
        cursors.push(Cursor {
            path: path.clone(),
            reader,
            row: ByteRecord::new(),
            key: None,
            at: 0,
        });
    }
    let Some((header, first_path)) = header else {
        return Err(MergeError::NoParts);
    };
    let columns = Columns {
        corpus: column(&header, "corpus", first_path)?,
        line: column(&header, "line", first_path)?,
    };
    for c in &mut cursors {
        c.advance(corpora, &columns)?;
    }
    let io = |source| MergeError::Io {
        path: out_path.to_path_buf(),
        source,
    };
    let mut buf = Vec::with_capacity(1 << 16);
    write_record(&mut buf, &header);
    let mut written = 0u64;
    loop {
        let mut next: Option<usize> = None;
        for (i, c) in cursors.iter().enumerate() {
            let Some(key) = c.key else { continue };
            match next {
                Some(j) if cursors[j].key == Some(key) => {
                    let other = &cursors[j];
                    return Err(bad(
                        &c.path,
                        c.at,
                        format!(
                            "line {} of {} is also in {}:{}: parts overlap",
                            key.1,
                            corpora[key.0],
                            other.path.display(),
                            other.at
                        ),
                    ));
                }
                Some(j) if cursors[j].key < Some(key) => {}
                _ => next = Some(i),
            }
        }
        let Some(i) = next else { break };
        let c = &mut cursors[i];
        let key = c.key;
        while c.key == key {
            write_record(&mut buf, &c.row);
            written += 1;
            c.advance(corpora, &columns)?;
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf).map_err(io)?;
            buf.clear();
        }
    }
    out.write_all(&buf).map_err(io)?;
    Ok(written)
}
