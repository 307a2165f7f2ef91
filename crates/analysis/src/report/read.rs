//! Reading per-puzzle CSVs for the report, streamed through the one reader of them
//! ([`RowReader`], which checks every row): each (corpus, strategy) keeps a compact row per puzzle and the grids of only its slowest
//! puzzles, so a run of millions of rows fits in memory and is read in seconds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::ReportError;
use sudoku_bench_core::results::csv::{CsvError, RowReader};
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::read::{self as summary_file, RunFileError};
use sudoku_bench_core::summary::SummaryReport;

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
pub struct CompactRow {
    /// 1-based line in the corpus.
    pub line: u64,
    time_ns: u64,
    nodes: u64,
    guesses: u64,
    solutions: u32,
    clues: u8,
    /// What became of the puzzle.
    pub status: Status,
    /// A wrong answer ([`sudoku_bench_core::results::PuzzleResult::is_wrong`]).
    pub wrong: bool,
}

impl CompactRow {
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
    ) -> CompactRow {
        CompactRow {
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
    pub rows: Vec<CompactRow>,
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
    pub fn push(&mut self, row: CompactRow, puzzle: impl FnOnce() -> String) {
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
    ///
    /// The summaries are read first: the `--max-solutions` they say tell which of two rows
    /// that disagree on it is the odd one ([`RowReader::said_max_solutions`]).
    pub fn read(paths: &[PathBuf]) -> Result<Inputs, ReportError> {
        let mut inputs = Inputs::default();
        let mut csvs = Vec::new();
        for path in paths {
            if summary_file::is_summary_file(path)? {
                let report = summary_file::read_summary(path)?;
                inputs.summaries.push((path.display().to_string(), report));
            } else {
                csvs.push(path);
            }
        }
        for path in csvs {
            inputs.read_csv(path)?;
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
        let said: Vec<u32> = self
            .summaries
            .iter()
            .map(|(_, s)| s.max_solutions)
            .collect();
        read_rows(path, file, index, &said, &mut self.groups)?;
        if self.groups.len() == first {
            let empty = CsvError::Bad {
                path: path.to_path_buf(),
                line: 1,
                message: "no per-puzzle rows: nothing to report".into(),
            };
            return Err(RunFileError::from(empty).into());
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

/// Read one CSV's rows into `groups` (those of file `index` are found or added).
fn read_rows(
    path: &Path,
    file: File,
    index: usize,
    said_max_solutions: &[u32],
    groups: &mut Vec<Group>,
) -> Result<(), RunFileError> {
    let mut reader = RowReader::new(path, BufReader::with_capacity(1 << 20, file))?;
    reader.require(&["status", "time_ns"])?;
    reader.said_max_solutions(said_max_solutions);
    let first = groups.len();
    // Rows come grouped by corpus and strategy: the last group is nearly always the one.
    let mut current: Option<usize> = None;
    while let Some(row) = reader.read()? {
        let same = |g: &Group| g.corpus == row.corpus && g.strategy == row.strategy;
        let at = match current.filter(|&i| same(&groups[i])) {
            Some(i) => i,
            None => {
                let i = match groups[first..].iter().position(same) {
                    Some(i) => first + i,
                    None => {
                        groups.push(Group::new(&row.corpus, &row.strategy, index));
                        groups.len() - 1
                    }
                };
                current = Some(i);
                i
            }
        };
        let compact = CompactRow::new(
            row.line,
            row.status.expect("a required column"),
            row.solutions,
            row.nodes,
            row.guesses,
            row.time_ns,
            row.clues,
            row.is_wrong(),
        );
        groups[at].push(compact, || row.puzzle);
    }
    Ok(())
}
