//! Reading the CSV to resume, once, streamed, by the one validator of a run's rows that
//! merge checks its parts with ([`crate::merge::validate::Lines`]), with resume's own two
//! checks beside it: every row of a line of the run's `--shard` part, and every whole
//! line's puzzle the one its corpus holds. The whole lines are the kept part, counted into
//! its own summary; what follows the last whole line (a cut row, a line missing some
//! strategies' rows) is left to be cut off.

use std::fs::File;
use std::io::BufReader;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::ResumeError;
use super::lines::Source;
use super::prefix::Reread;
use crate::merge::validate::{each_row, Lines, Run};
use crate::merge::Checker;
use sudoku_bench_core::results::csv::{ends_in_line_break, CsvError, CsvRow, RowReader, COLUMNS};
use sudoku_bench_core::summary::Summary;

/// What reading the CSV found.
#[derive(Debug)]
pub(crate) struct Scan {
    /// Bytes in the CSV.
    pub(crate) len: u64,
    /// Bytes of the header and the whole lines' rows.
    pub(crate) keep: u64,
    /// Rows of the whole lines.
    pub(crate) rows: u64,
    /// Rows after the last whole line: a cut row, and rows of a line missing some.
    pub(crate) dropped: u64,
    /// The last whole line: (index of its corpus, line).
    pub(crate) last: Option<(usize, u64)>,
    /// Whether the part of the last kept line's corpus holds lines after it.
    pub(crate) lines_after: bool,
    /// The whole lines' rows, counted as the run counts them: the kept part's summary.
    pub(crate) summary: Summary,
}

/// Read the CSV `file` at `csv` (a run's, with its header), checking its rows as the run's
/// over `corpora` and `strategies` (in order, counting to `max_solutions`) and the lines of
/// its part, and the whole lines' against the corpora read again (see `prefix`), and
/// counting their rows into the kept part's summary.
pub(crate) fn scan(
    csv: &Path,
    file: &File,
    corpora: &[Source],
    strategies: &[&str],
    max_solutions: u32,
) -> Result<Scan, ResumeError> {
    let unreadable = |source| ResumeError::Read {
        path: csv.to_path_buf(),
        source,
    };
    let len = file.metadata().map_err(unreadable)?.len();
    let ends_whole = ends_in_line_break(file).map_err(unreadable)?;
    if !has_header(csv, file, len)? {
        return Ok(Scan {
            len,
            keep: 0,
            rows: 0,
            dropped: 0,
            last: None,
            lines_after: false,
            summary: Summary::default(),
        });
    }
    let names: Vec<&str> = corpora.iter().map(|c| c.name).collect();
    let mut lines = Lines::new(Run {
        csv,
        by: Checker::Resume,
        corpora: &names,
        strategies,
        max_solutions,
    });
    let mut reread = Reread::new(csv, corpora);
    let mut reader = RowReader::new(csv, BufReader::new(file))?;
    let header = reader.bytes_read();
    let fault = |e| match e {
        CsvError::Bad { line, message, .. } => Checker::Resume.bad(csv, line, message).into(),
        e => ResumeError::from(e),
    };
    let tail = each_row(&mut reader, (len, ends_whole), fault, |row, end| {
        let corpus = lines.corpus_of(row)?;
        check_part(csv, &corpora[corpus], row)?;
        if lines.row(corpus, row, end)? {
            reread.kept(lines.whole())?;
            lines.keep();
        }
        Ok(())
    })?;
    let pending = lines.pending().map_or(0, |p| p.results.len() as u64);
    let last = lines.last();
    Ok(Scan {
        len,
        keep: lines.end.max(header),
        rows: lines.rows,
        dropped: u64::from(tail.is_some()) + pending,
        last,
        lines_after: reread.finish(&lines.tallies, last)?,
        summary: lines.summary,
    })
}

/// Whether the CSV starts with the header `run` writes: `false` when it holds only part of
/// it (or nothing), as a run stopped before its first row leaves it; anything else is
/// refused.
fn has_header(csv: &Path, file: &File, len: u64) -> Result<bool, ResumeError> {
    let header = format!("{}\n", COLUMNS.join(","));
    let mut start = vec![0; len.min(header.len() as u64) as usize];
    file.read_exact_at(&mut start, 0)
        .map_err(|source| ResumeError::Read {
            path: csv.to_path_buf(),
            source,
        })?;
    if start == header.as_bytes() {
        return Ok(true);
    }
    if len < header.len() as u64 && header.as_bytes().starts_with(&start) {
        // Empty, or a header cut short: no row was written yet.
        return Ok(false);
    }
    Err(ResumeError::Header {
        csv: csv.to_path_buf(),
        header: header.trim_end().to_string(),
    })
}

/// Refuse a row for a line outside the run's part of `corpus`.
fn check_part(csv: &Path, corpus: &Source, row: &CsvRow) -> Result<(), ResumeError> {
    let lines = corpus.lines;
    match lines.refuse(row.line) {
        None => Ok(()),
        Some(why) => Err(ResumeError::OtherPart {
            csv: csv.to_path_buf(),
            line: row.csv_line,
            corpus_line: row.line,
            corpus: row.corpus.clone(),
            part: lines.shard().map_or(String::new(), |s| s.to_string()),
            why,
        }),
    }
}
