//! Reading the CSV to resume, once, streamed: its whole rows are checked against the run's
//! corpora, strategies and the lines of its `--shard` part, and counted into the summary;
//! what follows the last whole line (a cut row, a line missing some strategies' rows) is
//! left to be cut off.

use std::fs::File;
use std::io::BufReader;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::ResumeError;
use super::lines::Source;
use super::prefix::{KeptRow, LineTally, Reread};
use crate::merge::validate::each_row;
use crate::merge::Checker;
use sudoku_bench_core::results::csv::{ends_in_line_break, CsvError, CsvRow, RowReader, COLUMNS};
use sudoku_bench_core::results::{PuzzleResult, Status};
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
    /// The lines with rows, of each corpus.
    pub(crate) kept: Vec<LineTally>,
    /// Whether the part of the last kept line's corpus holds lines after it.
    pub(crate) lines_after: bool,
    /// The whole lines' rows, counted as the run counts them: the kept part's summary.
    pub(crate) summary: Summary,
}

/// Read the CSV `file` at `csv` (a run's, with its header), checking its rows against
/// `corpora` and `strategies` (the run's, in order), and the whole lines' against the
/// corpora read again (see `prefix`), and counting their rows into the kept part's summary.
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
    let mut scanner = Scanner {
        csv,
        corpora,
        strategies,
        max_solutions,
        scan: Scan {
            len,
            keep: 0,
            rows: 0,
            dropped: 0,
            last: None,
            kept: vec![LineTally::default(); corpora.len()],
            lines_after: false,
            summary: Summary::default(),
        },
        pending: None,
        begun: 0,
        reread: Reread::new(csv, corpora),
    };
    if !has_header(csv, file, len)? {
        return Ok(scanner.scan);
    }
    let mut reader = RowReader::new(csv, BufReader::new(file))?;
    scanner.scan.keep = reader.bytes_read();
    let fault = |e| match e {
        CsvError::Bad { line, message, .. } => Checker::Resume.bad(csv, line, message).into(),
        e => ResumeError::from(e),
    };
    let tail = each_row(&mut reader, (len, ends_whole), fault, |row, end| {
        scanner.row(row, end)
    })?;
    scanner.scan.dropped += u64::from(tail.is_some());
    let mut scan = scanner.scan;
    scan.dropped += scanner.pending.map_or(0, |p| p.results.len() as u64);
    scan.lines_after = scanner.reread.finish(&scan.kept, scan.last)?;
    Ok(scan)
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

/// The rows of the line being read, until every strategy's is there.
struct Pending {
    corpus: usize,
    line: u64,
    results: Vec<PuzzleResult>,
    /// Where each row is, and its puzzle.
    rows: Vec<KeptRow>,
}

/// Checks rows one by one, and counts each line once it is whole.
struct Scanner<'a, 'c> {
    csv: &'a Path,
    corpora: &'a [Source<'c>],
    strategies: &'a [&'a str],
    /// The run's `--max-solutions`, which every kept count must fit.
    max_solutions: u32,
    scan: Scan,
    pending: Option<Pending>,
    /// Corpora whose groups the summary has, in the run's order.
    begun: usize,
    /// The corpora read again beside the kept lines.
    reread: Reread<'a, 'c>,
}

impl Scanner<'_, '_> {
    /// Check `row`, which ends at byte `end` of the CSV, and count its line if it makes it
    /// whole.
    fn row(&mut self, row: &CsvRow, end: u64) -> Result<(), ResumeError> {
        let corpus = self.corpus_of(row)?;
        self.check_part(corpus, row)?;
        let strategy = self.strategy_of(row)?;
        self.start_line(corpus, row)?;
        let p = self.pending.as_mut().expect("start_line made one");
        if strategy != p.results.len() {
            return Err(ResumeError::StrategyOrder {
                csv: self.csv.to_path_buf(),
                line: row.csv_line,
                strategy: row.strategy.clone(),
                due: self.strategies[p.results.len()].to_string(),
                strategies: self.strategies.join(","),
            });
        }
        let result = row
            .result()
            .expect("resume reads CSVs with a status column");
        self.check_count(row, &result)?;
        let p = self.pending.as_mut().expect("start_line made one");
        p.results.push(result);
        p.rows.push(KeptRow {
            csv_line: row.csv_line,
            puzzle: row.puzzle_grid(),
        });
        if p.results.len() == self.strategies.len() {
            let whole = self.pending.take().expect("there is one");
            self.keep(whole, end)?;
        }
        Ok(())
    }

    /// The index of the corpus `row` is for: this run's, at or after the one being read.
    /// Refuse a row whose status and count the run's `--max-solutions` cannot give: rows
    /// of a run that counted to another limit (`solved` is counting to 1, `multiple` at
    /// most to the limit).
    fn check_count(&self, row: &CsvRow, result: &PuzzleResult) -> Result<(), ResumeError> {
        let max = self.max_solutions;
        let fits = match result.status {
            Status::Solved => max == 1,
            Status::Unique => max >= 2,
            Status::Multiple => result.solutions.is_some_and(|n| n >= 2 && n <= max),
            _ => result.solutions.is_none_or(|n| n <= max),
        };
        if fits {
            return Ok(());
        }
        Err(ResumeError::OtherMaxSolutions {
            csv: self.csv.to_path_buf(),
            line: row.csv_line,
            status: result.status.to_string(),
            solutions: result
                .solutions
                .map_or_else(|| "-".to_string(), |n| n.to_string()),
            now: max,
        })
    }

    fn corpus_of(&self, row: &CsvRow) -> Result<usize, ResumeError> {
        let from = self
            .pending
            .as_ref()
            .map_or(self.scan.last.map_or(0, |l| l.0), |p| p.corpus);
        if let Some(i) = self.corpora[from..]
            .iter()
            .position(|c| c.name == row.corpus)
        {
            return Ok(from + i);
        }
        let corpora = self.corpora.iter().map(|c| c.name);
        Err(Checker::Resume
            .other_corpus(self.csv, row.csv_line, &row.corpus, corpora)
            .into())
    }

    /// Refuse a row for a line outside this run's part of `corpus`.
    fn check_part(&self, corpus: usize, row: &CsvRow) -> Result<(), ResumeError> {
        let lines = self.corpora[corpus].lines;
        match lines.refuse(row.line) {
            None => Ok(()),
            Some(why) => Err(ResumeError::OtherPart {
                csv: self.csv.to_path_buf(),
                line: row.csv_line,
                corpus_line: row.line,
                corpus: row.corpus.clone(),
                part: lines.shard().map_or(String::new(), |s| s.to_string()),
                why,
            }),
        }
    }

    /// The index of the strategy `row` is for.
    fn strategy_of(&self, row: &CsvRow) -> Result<usize, ResumeError> {
        self.strategies
            .iter()
            .position(|s| *s == row.strategy)
            .ok_or_else(|| ResumeError::OtherStrategy {
                csv: self.csv.to_path_buf(),
                line: row.csv_line,
                strategy: row.strategy.clone(),
                strategies: self.strategies.join(","),
            })
    }

    /// Make `row`'s line the pending one, unless it is already: refused when the pending
    /// line lacks rows, or `row`'s comes before the last whole line.
    fn start_line(&mut self, corpus: usize, row: &CsvRow) -> Result<(), ResumeError> {
        let same_line = self
            .pending
            .as_ref()
            .is_some_and(|p| p.corpus == corpus && p.line == row.line);
        if same_line {
            return Ok(());
        }
        if let Some(p) = &self.pending {
            return Err(ResumeError::MissingRows {
                csv: self.csv.to_path_buf(),
                line: row.csv_line,
                corpus_line: p.line,
                corpus: self.corpora[p.corpus].name.to_string(),
                rows: p.results.len(),
                count: self.strategies.len(),
                strategies: self.strategies.join(","),
            });
        }
        if let Some((c, before)) = self.scan.last {
            if c == corpus && before >= row.line {
                let before = format!("line {before}");
                return Err(Checker::Resume
                    .out_of_order(self.csv, row.csv_line, row.line, &row.corpus, before)
                    .into());
            }
        }
        self.pending = Some(Pending {
            corpus,
            line: row.line,
            results: Vec::with_capacity(self.strategies.len()),
            rows: Vec::with_capacity(self.strategies.len()),
        });
        Ok(())
    }

    /// Count the whole line `p`, whose last row ends at byte `end`, into the summary: refused
    /// when its rows are not of the puzzle the corpus holds on that line.
    fn keep(&mut self, p: Pending, end: u64) -> Result<(), ResumeError> {
        self.reread.kept(p.corpus, p.line, &p.rows)?;
        // Every corpus up to this one gets its groups in the run's order, rows or not.
        while self.begun <= p.corpus {
            for s in self.strategies {
                self.scan.summary.group(self.corpora[self.begun].name, s);
            }
            self.begun += 1;
        }
        for (s, result) in self.strategies.iter().zip(&p.results) {
            let group = self.scan.summary.group(self.corpora[p.corpus].name, s);
            self.scan.summary.add(group, result);
        }
        self.scan.rows += p.results.len() as u64;
        self.scan.keep = end;
        self.scan.last = Some((p.corpus, p.line));
        self.scan.kept[p.corpus].add(p.line);
        Ok(())
    }
}
