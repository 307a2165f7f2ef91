//! Reading per-puzzle CSVs for the report, streamed through one reused `ByteRecord`: each
//! (corpus, strategy) keeps a compact row per puzzle and the grids of only its slowest
//! puzzles, so a run of millions of rows fits in memory and is read in seconds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::ReportError;
use crate::report::run_file::{self, RunFileError};
use crate::report::summary::SummaryReport;
use crate::report::Status;

/// Puzzles listed per strategy as its slowest.
pub const SLOWEST: usize = 10;

/// "Not in the CSV" in a row's compact fields.
const NONE64: u64 = u64::MAX;
const NONE32: u32 = u32::MAX;
const NONE8: u8 = u8::MAX;

/// One (puzzle, strategy) row, as small as the report allows: a two-million-row run keeps
/// two million of these. An empty cell is kept as the field type's largest value, which
/// no real count or time reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// 1-based line in the corpus.
    pub line: u64,
    time_ns: u64,
    nodes: u64,
    guesses: u64,
    solutions: u32,
    clues: u8,
    /// What became of the puzzle.
    pub status: Status,
    /// A wrong answer: a finished search with an `error` (a solution that is none, or
    /// that contradicts the corpus or the reference count).
    pub wrong: bool,
}

impl Row {
    /// The solve time, when the puzzle was searched.
    pub fn time_ns(&self) -> Option<u64> {
        (self.time_ns != NONE64).then_some(self.time_ns)
    }

    /// Nodes, when the strategy counts them.
    pub fn nodes(&self) -> Option<u64> {
        (self.nodes != NONE64).then_some(self.nodes)
    }

    /// Guesses, when the strategy counts them.
    pub fn guesses(&self) -> Option<u64> {
        (self.guesses != NONE64).then_some(self.guesses)
    }

    /// Solutions found, when searched.
    pub fn solutions(&self) -> Option<u32> {
        (self.solutions != NONE32).then_some(self.solutions)
    }

    /// Givens, when the line was a grid.
    pub fn clues(&self) -> Option<u8> {
        (self.clues != NONE8).then_some(self.clues)
    }

    /// A search that ran to its end: its count of solutions is exact up to the limit.
    pub fn finished(&self) -> bool {
        self.time_ns().is_some()
            && !matches!(
                self.status,
                Status::Aborted | Status::Malformed | Status::Invalid
            )
    }

    /// A row for tests and callers that build runs by hand.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        line: u64,
        status: Status,
        solutions: Option<u32>,
        nodes: Option<u64>,
        guesses: Option<u64>,
        time_ns: Option<u64>,
        clues: Option<u8>,
        wrong: bool,
    ) -> Row {
        Row {
            line,
            time_ns: time_ns.unwrap_or(NONE64),
            nodes: nodes.unwrap_or(NONE64),
            guesses: guesses.unwrap_or(NONE64),
            solutions: solutions.unwrap_or(NONE32),
            clues: clues.unwrap_or(NONE8),
            status,
            wrong,
        }
    }
}

/// One of a strategy's slowest puzzles, with its grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slow {
    /// Its solve time.
    pub time_ns: u64,
    /// Its line in the corpus.
    pub line: u64,
    /// What became of it.
    pub status: Status,
    /// Nodes, when counted.
    pub nodes: Option<u64>,
    /// The grid as the CSV gives it.
    pub puzzle: String,
}

impl Slow {
    /// Slower first; among equal times the earlier line first.
    fn key(&self) -> (u64, Reverse<u64>) {
        (self.time_ns, Reverse(self.line))
    }
}

impl Ord for Slow {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Slow {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The rows of one strategy on one corpus, from one CSV.
#[derive(Debug, Clone)]
pub struct Group {
    /// The corpus as the CSV names it.
    pub corpus: String,
    /// The strategy as the CSV names it.
    pub strategy: String,
    /// What the report calls it: the strategy, with its file's stem when another CSV
    /// times the same strategy on the same corpus ("fast (run-a)").
    pub label: String,
    /// Index of its CSV in `Inputs::csvs`.
    pub file: usize,
    /// Its rows, by line.
    pub rows: Vec<Row>,
    /// Its slowest searched puzzles, slowest first (at most `SLOWEST`).
    pub slowest: Vec<Slow>,
    /// Candidates while reading: the fastest of them on top, to be pushed out.
    heap: BinaryHeap<Reverse<Slow>>,
}

impl Group {
    /// An empty group.
    pub fn new(corpus: &str, strategy: &str, file: usize) -> Group {
        Group {
            corpus: corpus.to_string(),
            strategy: strategy.to_string(),
            label: strategy.to_string(),
            file,
            rows: Vec::new(),
            slowest: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// Whether a puzzle this slow would be among the slowest kept so far: only then is
    /// its grid copied.
    fn wants(&self, time_ns: u64, line: u64) -> bool {
        self.heap.len() < SLOWEST
            || self
                .heap
                .peek()
                .is_some_and(|Reverse(s)| (time_ns, Reverse(line)) > s.key())
    }

    fn offer(&mut self, slow: Slow) {
        self.heap.push(Reverse(slow));
        if self.heap.len() > SLOWEST {
            self.heap.pop();
        }
    }

    /// Add a row (and its grid, when among the slowest); `puzzle` is asked for only then.
    pub fn push(&mut self, row: Row, puzzle: impl FnOnce() -> String) {
        if let Some(t) = row.time_ns() {
            if self.wants(t, row.line) {
                self.offer(Slow {
                    time_ns: t,
                    line: row.line,
                    status: row.status,
                    nodes: row.nodes(),
                    puzzle: puzzle(),
                });
            }
        }
        self.rows.push(row);
    }

    /// Sort the rows by line and the slowest puzzles slowest first; a line seen twice is
    /// an error, since one of the two rows would be silently dropped from every figure.
    fn seal(&mut self, path: &Path) -> Result<(), ReportError> {
        // A run writes each group's rows in line order: this sort only checks it.
        self.rows.sort_by_key(|r| r.line);
        if let Some(w) = self.rows.windows(2).find(|w| w[0].line == w[1].line) {
            return Err(ReportError::Duplicate {
                path: path.to_path_buf(),
                corpus: self.corpus.clone(),
                strategy: self.strategy.clone(),
                line: w[0].line,
            });
        }
        let mut slowest: Vec<Slow> = std::mem::take(&mut self.heap)
            .into_iter()
            .map(|Reverse(s)| s)
            .collect();
        slowest.sort_by(|a, b| b.cmp(a));
        self.slowest = slowest;
        Ok(())
    }
}

/// What a report is made from.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The per-puzzle CSVs read, in order.
    pub csvs: Vec<PathBuf>,
    /// The summaries given: each with the name it is shown by.
    pub summaries: Vec<(String, SummaryReport)>,
    /// Every (corpus, strategy, CSV) group, in the order first seen.
    pub groups: Vec<Group>,
}

impl Inputs {
    /// Read every path: a summary JSON when its first non-blank byte is `{` (as `compare`
    /// tells them), else a per-puzzle CSV.
    pub fn read(paths: &[PathBuf]) -> Result<Inputs, ReportError> {
        let mut inputs = Inputs::default();
        for path in paths {
            if run_file::is_summary_file(path)? {
                let report = run_file::read_summary(path)?;
                inputs.summaries.push((path.display().to_string(), report));
            } else {
                inputs.read_csv(path)?;
            }
        }
        if inputs.csvs.is_empty() {
            return Err(ReportError::NoCsv);
        }
        inputs.label();
        Ok(inputs)
    }

    /// Add a summary that was not read from a file (the run's own, for `run --report`).
    pub fn with_summary(mut self, name: &str, report: SummaryReport) -> Inputs {
        self.summaries.push((name.to_string(), report));
        self
    }

    fn read_csv(&mut self, path: &Path) -> Result<(), ReportError> {
        let file = File::open(path).map_err(|e| RunFileError::io(path, e))?;
        let index = self.csvs.len();
        self.csvs.push(path.to_path_buf());
        let first = self.groups.len();
        read_rows(path, file, index, &mut self.groups)?;
        if self.groups.len() == first {
            return Err(RunFileError::Bad {
                path: path.to_path_buf(),
                line: 1,
                message: "no per-puzzle rows: nothing to report".into(),
            }
            .into());
        }
        for group in &mut self.groups[first..] {
            group.seal(path)?;
        }
        Ok(())
    }

    /// Give a (corpus, strategy) timed in several CSVs its file's stem, so that each
    /// line of the report says which run it is.
    fn label(&mut self) {
        let twice: Vec<bool> = self
            .groups
            .iter()
            .map(|g| {
                self.groups
                    .iter()
                    .filter(|o| o.corpus == g.corpus && o.strategy == g.strategy)
                    .count()
                    > 1
            })
            .collect();
        for (group, twice) in self.groups.iter_mut().zip(twice) {
            if twice {
                let path = &self.csvs[group.file];
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string());
                group.label = format!("{} ({stem})", group.strategy);
            }
        }
        // Two files of one stem in different directories: their paths tell them apart.
        for i in 0..self.groups.len() {
            let clash = (0..self.groups.len()).any(|j| {
                j != i
                    && self.groups[j].corpus == self.groups[i].corpus
                    && self.groups[j].label == self.groups[i].label
            });
            if clash {
                let g = &self.groups[i];
                let label = format!("{} ({})", g.strategy, self.csvs[g.file].display());
                self.groups[i].label = label;
            }
        }
    }
}

/// Where each column is; `None` for an optional one the CSV lacks.
struct Columns {
    corpus: usize,
    line: usize,
    strategy: usize,
    status: usize,
    time_ns: usize,
    solutions: Option<usize>,
    nodes: Option<usize>,
    guesses: Option<usize>,
    clues: Option<usize>,
    puzzle: Option<usize>,
    error: Option<usize>,
}

impl Columns {
    fn of(headers: &csv::ByteRecord) -> Result<Columns, String> {
        let find = |name: &str| {
            headers
                .iter()
                .position(|h| h.trim_ascii() == name.as_bytes())
        };
        let need = |name: &str| {
            find(name).ok_or_else(|| {
                format!(
                    "no `{name}` column: not a per-puzzle CSV written by `sudoku-bench run` \
                     (it needs corpus, line, strategy, status and time_ns)"
                )
            })
        };
        Ok(Columns {
            corpus: need("corpus")?,
            line: need("line")?,
            strategy: need("strategy")?,
            status: need("status")?,
            time_ns: need("time_ns")?,
            solutions: find("solutions"),
            nodes: find("nodes"),
            guesses: find("guesses"),
            clues: find("clues"),
            puzzle: find("puzzle"),
            error: find("error"),
        })
    }
}

/// A number, or `None` for an empty cell.
fn number<T: std::str::FromStr>(
    record: &csv::ByteRecord,
    at: usize,
    name: &str,
) -> Result<Option<T>, String> {
    let field = record.get(at).unwrap_or_default().trim_ascii();
    if field.is_empty() {
        return Ok(None);
    }
    std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Some)
        .ok_or_else(|| {
            format!(
                "{name} is {:?}, not a whole number in range",
                String::from_utf8_lossy(field)
            )
        })
}

fn optional<T: std::str::FromStr>(
    record: &csv::ByteRecord,
    at: Option<usize>,
    name: &str,
) -> Result<Option<T>, String> {
    at.map_or(Ok(None), |at| number(record, at, name))
}

fn status(field: &[u8]) -> Result<Status, String> {
    let field = field.trim_ascii();
    Status::ALL
        .into_iter()
        .find(|s| s.as_str().as_bytes() == field)
        .ok_or_else(|| {
            format!(
                "status is {:?}, not one of unique, multiple, unsolvable, solved, invalid, \
                 malformed, aborted",
                String::from_utf8_lossy(field)
            )
        })
}

fn row_of(record: &csv::ByteRecord, c: &Columns) -> Result<Row, String> {
    let line = number(record, c.line, "line")?.ok_or("the line column is empty")?;
    let status = status(record.get(c.status).unwrap_or_default())?;
    let clues: Option<u8> = optional(record, c.clues, "clues")?;
    let error = c
        .error
        .and_then(|i| record.get(i))
        .is_some_and(|e| !e.trim_ascii().is_empty());
    let row = Row::new(
        line,
        status,
        optional(record, c.solutions, "solutions")?,
        optional(record, c.nodes, "nodes")?,
        optional(record, c.guesses, "guesses")?,
        number(record, c.time_ns, "time_ns")?,
        clues.filter(|&n| n != NONE8),
        false,
    );
    // Only a finished search's error is a wrong answer: the others say why it ended.
    Ok(Row {
        wrong: error && row.finished(),
        ..row
    })
}

/// Read one CSV's rows into `groups` (those of file `index` are found or added).
fn read_rows(
    path: &Path,
    file: File,
    index: usize,
    groups: &mut Vec<Group>,
) -> Result<(), ReportError> {
    let bad = |line: u64, message: String| RunFileError::Bad {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .buffer_capacity(1 << 20)
        .from_reader(file);
    let headers = reader
        .byte_headers()
        .map_err(|e| bad(1, format!("cannot read the header: {e}")))?
        .clone();
    let columns = Columns::of(&headers).map_err(|m| bad(1, m))?;
    let first = groups.len();
    let mut record = csv::ByteRecord::new();
    // Rows come grouped by corpus and strategy: the last group is nearly always the one.
    let mut current: Option<usize> = None;
    loop {
        let line = reader.position().line();
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let at = e.position().map_or(line, |p| p.line());
                let message = match e.kind() {
                    csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!("{len} fields, but the header has {expected_len}"),
                    _ => e.to_string(),
                };
                return Err(bad(at, message).into());
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        let row = row_of(&record, &columns).map_err(|m| bad(line, m))?;
        let corpus = record.get(columns.corpus).unwrap_or_default();
        let strategy = record.get(columns.strategy).unwrap_or_default();
        let same = |g: &Group| g.corpus.as_bytes() == corpus && g.strategy.as_bytes() == strategy;
        let at = match current.filter(|&i| same(&groups[i])) {
            Some(i) => i,
            None => {
                let i = match groups[first..].iter().position(same) {
                    Some(i) => first + i,
                    None => {
                        let text = |b: &[u8], what: &str| {
                            std::str::from_utf8(b)
                                .map(str::to_string)
                                .map_err(|_| bad(line, format!("the {what} is not UTF-8")))
                        };
                        groups.push(Group::new(
                            &text(corpus, "corpus")?,
                            &text(strategy, "strategy")?,
                            index,
                        ));
                        groups.len() - 1
                    }
                };
                current = Some(i);
                i
            }
        };
        let puzzle = || {
            columns
                .puzzle
                .and_then(|i| record.get(i))
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .unwrap_or_default()
        };
        groups[at].push(row, puzzle);
    }
    Ok(())
}
