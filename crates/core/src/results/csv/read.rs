//! Reading the per-puzzle CSV back: [`RowReader`] is the one reader of it. Columns are
//! found by their header name, so a CSV written before a column was added (or by hand,
//! with fewer columns) still reads; what a command needs it asks for with
//! [`RowReader::require`]. Every row is checked as it is read, and every fault is a
//! [`CsvError`] naming the file and the line.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use csv::ByteRecord;

use super::COLUMNS;
use crate::grid::Grid;
use crate::results::{Ending, PuzzleResult, Status};

/// Why a per-puzzle CSV (or a row of it) cannot be read; also what `compare` and `report`
/// say of any run file they cannot read. Each names the file, and the line where there is
/// one (the header is line 1).
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The header or a row is not what `run` writes.
    #[error("{path}:{line}: {message}")]
    Bad {
        /// The CSV.
        path: PathBuf,
        /// Its line.
        line: u64,
        /// What is wrong, naming the column where one is at fault.
        message: String,
    },
}

impl CsvError {
    /// The line at fault, when there is one.
    pub fn line(&self) -> Option<u64> {
        match self {
            CsvError::Io { .. } => None,
            CsvError::Bad { line, .. } => Some(*line),
        }
    }
}

/// One row read back: what [`super::push_row`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvRow {
    /// The row's own line in the CSV, for messages about it.
    pub csv_line: u64,
    /// The corpus, as named on the command line.
    pub corpus: String,
    /// 1-based line in the corpus.
    pub line: u64,
    /// The strategy's name.
    pub strategy: String,
    /// `None` only in a CSV without a `status` column.
    pub status: Option<Status>,
    /// Solutions counted, up to the limit.
    pub solutions: Option<u32>,
    /// Search effort in the strategy's unit.
    pub nodes: Option<u64>,
    /// Guesses made.
    pub guesses: Option<u64>,
    /// The timed solve.
    pub time_ns: Option<u64>,
    /// Givens of the puzzle.
    pub clues: Option<u8>,
    /// The `puzzle` column as written: the grid's 81 cells, or empty where the line held
    /// none (a malformed line) or the CSV has no such column.
    pub puzzle: String,
    /// The first solution the strategy returned.
    pub solution: Option<Grid>,
    /// Why the puzzle is invalid, malformed or aborted, or why the answer is wrong.
    pub error: Option<String>,
    /// How the search ended; `None` where nothing was searched.
    pub ended: Option<Ending>,
    /// The replicate of the run's solvers that solved it; `None` in a CSV written before
    /// it was kept.
    pub replicate: Option<u32>,
    /// The instructions the solve executed; `None` where they were not counted, and in a
    /// CSV written before the column was added.
    pub instructions: Option<u64>,
}

impl CsvRow {
    /// Whether the answer is wrong: the one rule, [`Ending::is_wrong`].
    pub fn is_wrong(&self) -> bool {
        self.ended.is_some_and(Ending::is_wrong)
    }

    /// The result as `run` had it, for a row of a CSV with a `status` column.
    pub fn result(&self) -> Option<PuzzleResult> {
        Some(PuzzleResult {
            status: self.status?,
            solutions: self.solutions,
            nodes: self.nodes,
            guesses: self.guesses,
            time_ns: self.time_ns,
            solution: self.solution,
            error: self.error.clone(),
            ended: self.ended,
            replicate: self.replicate,
            instructions: self.instructions,
        })
    }

    /// The puzzle column as a grid, when it holds one.
    pub fn puzzle_grid(&self) -> Option<Grid> {
        self.puzzle.parse().ok()
    }
}

/// Where each column is in this CSV.
#[derive(Debug, Clone, Copy)]
struct Columns {
    at: [Option<usize>; COLUMNS.len()],
}

impl Columns {
    fn of(header: &ByteRecord) -> Columns {
        let mut at = [None; COLUMNS.len()];
        for (slot, name) in at.iter_mut().zip(COLUMNS) {
            *slot = header
                .iter()
                .position(|h| h.trim_ascii() == name.as_bytes());
        }
        Columns { at }
    }

    fn of_name(&self, name: &str) -> Option<usize> {
        let i = COLUMNS.iter().position(|c| *c == name)?;
        self.at[i]
    }
}

// Column indices into `COLUMNS`.
const CORPUS: usize = 0;
const LINE: usize = 1;
const STRATEGY: usize = 2;
const STATUS: usize = 3;
const SOLUTIONS: usize = 4;
const NODES: usize = 5;
const GUESSES: usize = 6;
const TIME_NS: usize = 7;
const CLUES: usize = 8;
const PUZZLE: usize = 9;
const SOLUTION: usize = 10;
const ERROR: usize = 11;
const ENDED: usize = 12;
const REPLICATE: usize = 13;
const INSTRUCTIONS: usize = 14;

/// The longest time a row may hold: `i64::MAX` ns, some 292 years. Nothing is timed that
/// long, and a larger number (such as `u64::MAX`, a "no time" marker elsewhere) is not a
/// measurement.
const TIME_NS_MAX: u64 = i64::MAX as u64;

/// Streams the rows of a per-puzzle CSV, one buffer reused.
pub struct RowReader<R: Read> {
    path: PathBuf,
    reader: csv::Reader<R>,
    columns: Columns,
    header: ByteRecord,
    record: ByteRecord,
    /// The solutions a finished `multiple` search counted, and the CSV line that first
    /// showed it: every one in a run counts to the same limit.
    limit: Option<(u32, u64)>,
    /// The limits the run's summaries say (`RowReader::said_max_solutions`).
    said: Vec<u32>,
}

impl<R: Read> std::fmt::Debug for RowReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowReader")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl RowReader<BufReader<File>> {
    /// Open the CSV at `path` and read its header.
    pub fn open(path: &Path) -> Result<Self, CsvError> {
        let file = File::open(path).map_err(|source| CsvError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        RowReader::new(path, BufReader::with_capacity(1 << 20, file))
    }
}

impl<R: Read> RowReader<R> {
    /// Read the header of the CSV `input`, called `path` in messages. It must have at least
    /// the `corpus`, `line` and `strategy` columns.
    pub fn new(path: &Path, input: R) -> Result<Self, CsvError> {
        let mut this = RowReader::any(path, input)?;
        this.require(&["corpus", "line", "strategy"])?;
        Ok(this)
    }

    /// Read the header of the CSV `input`, called `path` in messages, whatever columns it
    /// names: for a reader that compares headers ([`RowReader::same_header`]) before it
    /// asks for columns ([`RowReader::require`]). A row without `corpus`, `line` or
    /// `strategy` is refused as it is read.
    pub fn any(path: &Path, input: R) -> Result<Self, CsvError> {
        let mut reader = csv::ReaderBuilder::new()
            .buffer_capacity(1 << 16)
            .from_reader(input);
        let header = match reader.byte_headers() {
            Ok(header) => header.clone(),
            Err(e) => return Err(csv_error(path, 1, e)),
        };
        Ok(RowReader {
            path: path.to_path_buf(),
            reader,
            columns: Columns::of(&header),
            header,
            record: ByteRecord::new(),
            limit: None,
            said: Vec::new(),
        })
    }

    /// The `--max-solutions` that summaries given with this CSV say (one per run; they
    /// need not be this CSV's): when two rows' counts for puzzles with several solutions
    /// disagree, the row refused is then the one whose count none of them says (without
    /// them, or when both or neither do, the later).
    pub fn said_max_solutions(&mut self, limits: &[u32]) {
        self.said = limits.to_vec();
    }

    /// Whether `other`'s header names the same columns, written the same way.
    pub fn same_header<S: Read>(&self, other: &RowReader<S>) -> bool {
        self.header == other.header
    }

    /// Append the header as `run` writes it (each field quoted only where it must be),
    /// line break included.
    pub fn write_header(&self, out: &mut Vec<u8>) {
        write_record(out, &self.header);
    }

    /// Append the last row read as `run` writes it, line break included: the row's bytes
    /// for a row `run` wrote (with LF line breaks), whatever was checked or parsed of it.
    pub fn write_last(&self, out: &mut Vec<u8>) {
        write_record(out, &self.record);
    }

    /// Refuse a CSV without each of `names`, the columns a command needs beyond the three
    /// every row has.
    pub fn require(&mut self, names: &[&str]) -> Result<(), CsvError> {
        for name in names {
            if self.columns.of_name(name).is_none() {
                let mut needed = vec!["corpus", "line", "strategy"];
                for name in names {
                    if !needed.contains(name) {
                        needed.push(name);
                    }
                }
                return Err(self.bad(
                    1,
                    format!(
                        "no `{name}` column: not a per-puzzle CSV written by `sudoku-bench run` \
                         (needed here: {})",
                        needed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Whether the CSV has the column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.columns.of_name(name).is_some()
    }

    /// The file's name in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes read so far, the header included: after the last row, the file's length.
    pub fn bytes_read(&self) -> u64 {
        self.reader.position().byte()
    }

    /// An error about line `line` of this CSV.
    pub fn bad(&self, line: u64, message: String) -> CsvError {
        CsvError::Bad {
            path: self.path.clone(),
            line,
            message,
        }
    }

    /// The next row, checked; `None` after the last.
    pub fn read(&mut self) -> Result<Option<CsvRow>, CsvError> {
        let line = self.reader.position().line();
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(e) => return Err(csv_error(&self.path, line, e)),
        }
        let line = self.record.position().map_or(line, |p| p.line());
        let row = self.row(line).map_err(|message| self.bad(line, message))?;
        self.check_limit(&row)?;
        Ok(Some(row))
    }

    fn field(&self, column: usize) -> Result<Option<&str>, String> {
        let Some(at) = self.columns.at[column] else {
            return Ok(None);
        };
        let field = self.record.get(at).unwrap_or_default().trim_ascii();
        std::str::from_utf8(field)
            .map(|f| (!f.is_empty()).then_some(f))
            .map_err(|_| format!("{} is not UTF-8", COLUMNS[column]))
    }

    fn number<T: std::str::FromStr>(&self, column: usize) -> Result<Option<T>, String> {
        match self.field(column)? {
            None => Ok(None),
            Some(f) => f
                .parse()
                .map(Some)
                .map_err(|_| format!("{} is {f:?}, not a whole number in range", COLUMNS[column])),
        }
    }

    fn row(&self, csv_line: u64) -> Result<CsvRow, String> {
        let text = |column| {
            self.field(column)
                .map(|f| f.unwrap_or_default().to_string())
        };
        let line: u64 = self.number(LINE)?.ok_or("the line column is empty")?;
        if line == 0 {
            return Err("line is 0, but corpus lines count from 1".into());
        }
        let strategy = text(STRATEGY)?;
        if strategy.is_empty() {
            return Err("strategy is empty".into());
        }
        let status = match self.field(STATUS)? {
            None if self.columns.at[STATUS].is_some() => return Err("status is empty".into()),
            None => None,
            Some(name) => Some(Status::parse(name).ok_or_else(|| {
                format!(
                    "status is {name:?}, not one of {}",
                    Status::ALL.map(Status::as_str).join(", ")
                )
            })?),
        };
        let time_ns: Option<u64> = self.number(TIME_NS)?;
        if let Some(t) = time_ns.filter(|&t| t > TIME_NS_MAX) {
            return Err(format!(
                "time_ns is {t}, more than any run records (at most {TIME_NS_MAX})"
            ));
        }
        let solution = match self.field(SOLUTION)? {
            None => None,
            Some(f) => Some(
                f.parse::<Grid>()
                    .map_err(|e| format!("solution is {f:?}: {e}"))?,
            ),
        };
        let error = self.field(ERROR)?.map(str::to_string);
        let solutions: Option<u32> = self.number(SOLUTIONS)?;
        let ended = if self.columns.at[ENDED].is_some() {
            match self.field(ENDED)? {
                None => None,
                Some(name) => Some(Ending::parse(name).ok_or_else(|| {
                    format!(
                        "ended is {name:?}, not one of {}",
                        Ending::ALL.map(Ending::as_str).join(", ")
                    )
                })?),
            }
        } else {
            ending_before_the_column(status, solutions, error.as_deref())
        };
        let row = CsvRow {
            csv_line,
            corpus: text(CORPUS)?,
            line,
            strategy,
            status,
            solutions,
            nodes: self.number(NODES)?,
            guesses: self.number(GUESSES)?,
            time_ns,
            clues: self.number(CLUES)?,
            puzzle: text(PUZZLE)?,
            solution,
            error,
            ended,
            replicate: self.number(REPLICATE)?,
            instructions: self.number(INSTRUCTIONS)?,
        };
        check_counts(&row)?;
        check_instructions(&row)?;
        check_ended(&row)?;
        if self.columns.at[ERROR].is_some() {
            check_error(&row)?;
        }
        check_puzzle(&row)?;
        check_solution(&row)?;
        Ok(row)
    }

    /// Every finished `multiple` search of a run counts up to one limit.
    fn check_limit(&mut self, row: &CsvRow) -> Result<(), CsvError> {
        if row.status != Some(Status::Multiple) || row.is_wrong() {
            return Ok(());
        }
        let Some(n) = row.solutions else {
            return Ok(());
        };
        match self.limit {
            None => self.limit = Some((n, row.csv_line)),
            Some((limit, first))
                if limit != n && self.said.contains(&n) && !self.said.contains(&limit) =>
            {
                return Err(self.bad(
                    first,
                    format!(
                        "{limit} solutions, but line {} counted {n} for a puzzle with several, \
                         as the run's --max-solutions says: a run counts every puzzle up to \
                         one --max-solutions",
                        row.csv_line
                    ),
                ))
            }
            Some((limit, first)) if limit != n => {
                return Err(self.bad(
                    row.csv_line,
                    format!(
                        "{n} solutions, but line {first} counted {limit} for a puzzle with \
                         several: a run counts every puzzle up to one --max-solutions"
                    ),
                ))
            }
            Some(_) => {}
        }
        Ok(())
    }
}

impl<R: Read> Iterator for RowReader<R> {
    type Item = Result<CsvRow, CsvError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read().transpose()
    }
}

/// An instruction count where `run` writes none (a row with no time: nothing was solved), or
/// one no solve executes: none (every call executes some) or past `i64::MAX`, where the
/// isolated worker's mark for "not counted" lies.
fn check_instructions(row: &CsvRow) -> Result<(), String> {
    match (row.instructions, row.time_ns) {
        (Some(n), None) => Err(format!(
            "instructions is {n} on a row with no time_ns: run counts only what it solved"
        )),
        (Some(n), _) if n == 0 || n > i64::MAX as u64 => Err(format!(
            "instructions is {n}: no solve executes that many (from 1 to {})",
            i64::MAX
        )),
        _ => Ok(()),
    }
}

/// A status and a count of solutions that `run` cannot have written together.
fn check_counts(row: &CsvRow) -> Result<(), String> {
    let (Some(status), Some(n)) = (row.status, row.solutions) else {
        return Ok(());
    };
    let fits = match status {
        Status::Unique => n == 1,
        Status::Multiple => n >= 2,
        Status::Unsolvable => n == 0,
        Status::Solved => n >= 1,
        Status::Aborted => true,
        Status::Invalid | Status::Malformed => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "status {status} with {n} solutions: run never writes these together"
        ))
    }
}

/// A status and an `ended` that `run` cannot have written together: a searched row says how
/// its search ended, an unsearched one does not; `finished` is never `aborted`, and running
/// out of budget or failing always is. (`mismatch` goes with any searched status: a wrong
/// answer keeps its status.) Otherwise `compare`, `report`, `merge` and `--resume` would
/// each believe a different half of the row.
fn check_ended(row: &CsvRow) -> Result<(), String> {
    let Some(status) = row.status else {
        return Ok(());
    };
    let fits = match (status.searched(), row.ended) {
        (false, None) | (true, Some(Ending::Mismatch)) => true,
        (false, Some(_)) | (true, None) => false,
        (true, Some(Ending::Finished)) => status != Status::Aborted,
        (true, Some(_)) => status == Status::Aborted,
    };
    if fits {
        return Ok(());
    }
    let ended = row.ended.map_or("empty", Ending::as_str);
    Err(format!(
        "status {status} with ended {ended}: run never writes these together"
    ))
}

/// An `ended` and an `error` that `run` cannot have written together: it says why every
/// answer found wrong (`mismatch`) is wrong, and an error ends a search only as a failure
/// (`aborted`) or a wrong answer, so a `finished` search has none. A forged `mismatch`
/// with no reason would otherwise be counted wrong by some readers and trusted by none to
/// say why; a `finished` row with an error would be read as right by one and wrong by a
/// reader of the text.
fn check_error(row: &CsvRow) -> Result<(), String> {
    let never = matches!(
        (row.ended, &row.error),
        (Some(Ending::Mismatch), None) | (Some(Ending::Finished), Some(_))
    );
    if !never {
        return Ok(());
    }
    let ended = row.ended.map_or("empty", Ending::as_str);
    let error = if row.error.is_some() { "an" } else { "no" };
    Err(format!(
        "ended {ended} with {error} error: run never writes these together"
    ))
}

/// With a `clues` count beside it (as `run` writes every row), the puzzle column holds a
/// grid of that many givens: a puzzle edited by hand (a clue removed) no longer matches.
/// Without one, the puzzle is only the key `compare` pairs rows by.
fn check_puzzle(row: &CsvRow) -> Result<(), String> {
    if row.puzzle.is_empty() || row.clues.is_none() {
        return Ok(());
    }
    let grid = row
        .puzzle_grid()
        .ok_or_else(|| format!("puzzle is {:?}: not a grid of 81 cells", row.puzzle))?;
    match row.clues {
        Some(clues) if clues as usize != grid.clues() => Err(format!(
            "clues is {clues}, but the puzzle has {} givens",
            grid.clues()
        )),
        _ => Ok(()),
    }
}

/// A returned solution must solve the puzzle unless the row says the answer is wrong.
fn check_solution(row: &CsvRow) -> Result<(), String> {
    let (Some(solution), Some(puzzle)) = (row.solution, row.puzzle_grid()) else {
        return Ok(());
    };
    if row.is_wrong() || solution.is_solution_of(&puzzle) {
        return Ok(());
    }
    Err(format!(
        "solution {solution} does not solve the puzzle, yet the row does not call the answer \
         wrong (ended is not mismatch)"
    ))
}

/// How a search ended, for a CSV written before the `ended` column: told from the status
/// and the error text as `run` wrote them then. The only place that reads error text.
fn ending_before_the_column(
    status: Option<Status>,
    solutions: Option<u32>,
    error: Option<&str>,
) -> Option<Ending> {
    if !status.map_or(solutions.is_some(), Status::searched) {
        return None;
    }
    let aborted = status == Some(Status::Aborted);
    Some(match error {
        None if aborted => Ending::Failed,
        None => Ending::Finished,
        Some(e)
            if e.starts_with("strategy returned ") && e.ends_with(", which is not a solution") =>
        {
            Ending::Mismatch
        }
        Some(e) if aborted && e.starts_with("node budget of ") => Ending::NodeBudget,
        Some(e) if aborted && e.starts_with("timed out after ") => Ending::Timeout,
        Some(_) if aborted => Ending::Failed,
        // A finished search with an error: its answer was found wrong.
        Some(_) => Ending::Mismatch,
    })
}

fn write_record(out: &mut Vec<u8>, record: &ByteRecord) {
    for (i, field) in record.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        super::push_field(out, field);
    }
    out.push(b'\n');
}

/// A `csv` crate error at `line`, said plainly.
fn csv_error(path: &Path, line: u64, e: csv::Error) -> CsvError {
    let line = e.position().map_or(line, |p| p.line());
    let message = match e.kind() {
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields, but the header has {expected_len}"),
        _ => format!("malformed CSV: {e}"),
    };
    CsvError::Bad {
        path: path.to_path_buf(),
        line,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Kind, Record};
    use crate::results::csv::{ends_in_line_break, push_field, push_header, push_row};

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

    /// Reads `text` (rows after the header) back with a [`RowReader`].
    fn read_back(text: &[u8]) -> Vec<CsvRow> {
        let mut all = Vec::new();
        push_header(&mut all);
        all.extend_from_slice(text);
        RowReader::new(Path::new("t.csv"), &all[..])
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// The first error reading `text`, a whole CSV.
    fn refusal(text: &str) -> String {
        match RowReader::new(Path::new("t.csv"), text.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(rows) => rows
                .filter_map(Result::err)
                .next()
                .expect("a refusal")
                .to_string(),
        }
    }

    #[test]
    fn every_status_reads_back_as_written() {
        let (puzzle, solution) = super::super::fixture::grids();
        let searched = |status, error: Option<&str>, ended| PuzzleResult {
            status,
            solutions: Some(match status {
                Status::Unsolvable => 0,
                Status::Multiple => 2,
                _ => 1,
            }),
            nodes: Some(123),
            guesses: Some(4),
            time_ns: Some(98765),
            solution: (status != Status::Unsolvable).then_some(solution),
            error: error.map(str::to_string),
            ended: Some(ended),
            replicate: Some(3),
            instructions: (status == Status::Unique).then_some(14_694_672),
        };
        let results = [
            searched(Status::Unique, None, Ending::Finished),
            searched(Status::Multiple, None, Ending::Finished),
            searched(Status::Solved, None, Ending::Finished),
            searched(Status::Unsolvable, None, Ending::Finished),
            searched(
                Status::Unsolvable,
                Some("no solution found, but the corpus gives one"),
                Ending::Mismatch,
            ),
            searched(
                Status::Unique,
                Some("solution differs from the corpus's solution column"),
                Ending::Mismatch,
            ),
            searched(
                Status::Multiple,
                Some("counted 2 solutions; the reference (fast) counted 1"),
                Ending::Mismatch,
            ),
            searched(
                Status::Aborted,
                Some("node budget of 1000 exhausted after finding 1 solution"),
                Ending::NodeBudget,
            ),
            searched(
                Status::Aborted,
                Some("timed out after 10s"),
                Ending::Timeout,
            ),
            searched(
                Status::Aborted,
                Some("solver crashed: \"bad, very\"\nbad"),
                Ending::Failed,
            ),
            searched(
                Status::Aborted,
                Some(&format!(
                    "strategy returned {puzzle}, which is not a solution"
                )),
                Ending::Mismatch,
            ),
            PuzzleResult {
                nodes: None,
                guesses: None,
                ..searched(Status::Unique, None, Ending::Finished)
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
            assert_eq!(row.result().as_ref(), Some(result), "row {i}");
        }
        let covered: Vec<Status> = results.iter().map(|r| r.status).collect();
        assert!(Status::ALL.iter().all(|s| covered.contains(s)));
    }

    #[test]
    fn rows_are_written_back_byte_for_byte_and_headers_compared() {
        let puzzle: Grid =
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
                .parse()
                .unwrap();
        let mut text = Vec::new();
        push_header(&mut text);
        let mut corpus = Vec::new();
        push_field(&mut corpus, b"a \"quoted\", comma.txt");
        let kinds = [
            Kind::Puzzle {
                grid: puzzle,
                expected: None,
            },
            Kind::Malformed {
                reason: "bad".into(),
                column: 1,
            },
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            let record = Record {
                line: i as u64 + 1,
                raw: crate::corpus::Raw::NotKept,
                kind,
            };
            let result = match i {
                0 => PuzzleResult {
                    status: Status::Aborted,
                    solutions: Some(0),
                    nodes: Some(7),
                    time_ns: Some(5),
                    error: Some("node budget of 7 exhausted,\n\"so\"".into()),
                    ended: Some(Ending::NodeBudget),
                    ..PuzzleResult::default()
                },
                _ => PuzzleResult::unsearched(Status::Malformed, "expected 81 cells, got 3"),
            };
            push_row(&mut text, &corpus, &record, b"dlx", &result);
        }
        let mut reader = RowReader::new(Path::new("t.csv"), &text[..]).unwrap();
        let mut again = Vec::new();
        reader.write_header(&mut again);
        while reader.read().unwrap().is_some() {
            reader.write_last(&mut again);
        }
        assert_eq!(
            String::from_utf8_lossy(&again),
            String::from_utf8_lossy(&text)
        );
        let other = "corpus,line,strategy,status\n";
        let fewer = RowReader::any(Path::new("u.csv"), other.as_bytes()).unwrap();
        assert!(!reader.same_header(&fewer) && fewer.same_header(&fewer));
        // `any` takes a header `new` refuses; its rows are refused as they are read.
        let text = "korpus,line,strategy\nc,1,dlx\n";
        assert!(RowReader::new(Path::new("v.csv"), text.as_bytes()).is_err());
        let mut any = RowReader::any(Path::new("v.csv"), text.as_bytes()).unwrap();
        assert!(any.require(&["corpus"]).is_err());
        // The columns needed are named once each, those every row has first.
        let why = any
            .require(&["corpus", "line", "strategy", "status"])
            .unwrap_err()
            .to_string();
        assert!(
            why.contains("(needed here: corpus, line, strategy, status)"),
            "{why}"
        );
    }

    const HEAD: &str = "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error,ended\n";
    use super::super::fixture::{PUZZLE, SOLUTION};

    #[test]
    fn rows_run_does_not_write_are_refused_naming_file_and_line() {
        let ones = "1".repeat(81);
        for (rows, why) in [
            ("c,1,dlx,unique\n".to_string(), "t.csv:2: 4 fields"),
            (
                "c,x,dlx,unique,1,,,5,,,,,finished\n".into(),
                "t.csv:2: line is \"x\"",
            ),
            (
                "c,0,dlx,unique,1,,,5,,,,,finished\n".into(),
                "t.csv:2: line is 0",
            ),
            (
                "c,,dlx,unique,1,,,5,,,,,finished\n".into(),
                "t.csv:2: the line column is empty",
            ),
            (
                "c,1,dlx,great,1,,,5,,,,,finished\n".into(),
                "t.csv:2: status is \"great\"",
            ),
            (
                "c,1,dlx,unique,1,,,-5,,,,,finished\n".into(),
                "t.csv:2: time_ns is \"-5\"",
            ),
            (
                "c,1,dlx,unique,1,,,18446744073709551615,,,,,finished\n".into(),
                "t.csv:2: time_ns is 18446744073709551615, more than any run records",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,123,,finished\n".into(),
                "t.csv:2: solution is \"123\"",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,,,done\n".into(),
                "t.csv:2: ended is \"done\"",
            ),
            (
                "c,1,dlx,unique,2,,,5,,,,,finished\n".into(),
                "status unique with 2 solutions",
            ),
            (
                "c,1,dlx,multiple,1,,,5,,,,,finished\n".into(),
                "status multiple with 1",
            ),
            (
                format!("c,1,dlx,unique,1,,,5,,{PUZZLE},{ones},,finished\n"),
                "t.csv:2: solution 111",
            ),
            (
                "c,1,dlx,multiple,2,,,5,,,,,finished\nc,2,dlx,multiple,7,,,5,,,,,finished\n".into(),
                "t.csv:3: 7 solutions, but line 2 counted 2",
            ),
        ] {
            let err = refusal(&format!("{HEAD}{rows}"));
            assert!(err.contains(why), "{err} should say {why}");
        }
        // The first of two counts is the odd one when the run's summary says the second.
        let text = format!(
            "{HEAD}c,1,dlx,multiple,7,,,5,,,,,finished\nc,2,dlx,multiple,2,,,5,,,,,finished\n"
        );
        for (said, why) in [
            (&[][..], "t.csv:3: 2 solutions, but line 2 counted 7"),
            (&[2], "t.csv:2: 7 solutions, but line 3 counted 2"),
            (&[2, 3], "t.csv:2: 7 solutions"),
            (&[2, 7], "t.csv:3: 2 solutions"),
        ] {
            let mut reader = RowReader::new(Path::new("t.csv"), text.as_bytes()).unwrap();
            reader.said_max_solutions(said);
            let err = reader.find_map(Result::err).unwrap().to_string();
            assert!(err.contains(why), "{said:?}: {err} should say {why}");
        }
        assert!(refusal("corpus,strategy\n").contains("t.csv:1: no `line` column"));
    }

    /// Issue 38: rows whose columns contradict each other, each refused naming the file and
    /// the line.
    #[test]
    fn rows_whose_columns_contradict_each_other_are_refused() {
        let clues = PUZZLE
            .bytes()
            .filter(|b| b.is_ascii_digit() && *b != b'0')
            .count();
        let cut = format!(".{}", &PUZZLE[1..]);
        assert_ne!(cut, PUZZLE, "the fixture's first cell is a clue");
        for (row, why) in [
            (
                "c,1,dlx,unique,1,,,5,,,,,timeout".to_string(),
                "status unique with ended timeout",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,,,failed".into(),
                "status unique with ended failed",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,,,".into(),
                "status unique with ended empty",
            ),
            (
                "c,1,dlx,aborted,0,,,5,,,,,finished".into(),
                "status aborted with ended finished",
            ),
            (
                "c,1,dlx,malformed,,,,,,,,bad,finished".into(),
                "status malformed with ended finished",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,,,mismatch".into(),
                "ended mismatch with no error",
            ),
            (
                "c,1,dlx,multiple,3,,,5,,,,,mismatch".into(),
                "ended mismatch with no error",
            ),
            (
                "c,1,dlx,aborted,0,,,5,,,,,mismatch".into(),
                "ended mismatch with no error",
            ),
            (
                "c,1,dlx,unique,1,,,5,,,,counted 1 solution,finished".into(),
                "ended finished with an error",
            ),
            (
                format!("c,1,dlx,unique,1,,,5,{clues},{cut},{SOLUTION},,finished"),
                &*format!("clues is {clues}, but the puzzle has {} givens", clues - 1),
            ),
            (
                format!(
                    "c,1,dlx,unique,1,,,5,{clues},{},{SOLUTION},,finished",
                    &PUZZLE[1..]
                ),
                "puzzle is",
            ),
        ] {
            let err = refusal(&format!("{HEAD}c,1,dlx,unique,1,,,5,,,,,finished\n{row}\n"));
            assert!(err.starts_with("t.csv:3: "), "{err}");
            assert!(err.contains(why), "{err} should say {why}");
        }
        for (row, why) in [
            (
                "c,1,dlx,malformed,,,,,,,,bad,,0,12",
                "instructions is 12 on a row with no time_ns",
            ),
            ("c,1,dlx,unique,1,,,5,,,,,finished,0,0", "instructions is 0"),
            (
                "c,1,dlx,unique,1,,,5,,,,,finished,0,18446744073709551615",
                "instructions is 18446744073709551615",
            ),
        ] {
            let err = refusal(&format!(
                "{}c,1,dlx,unique,1,,,5,,,,,finished,0,7\n{row}\n",
                super::super::COLUMNS.join(",") + "\n"
            ));
            assert!(err.starts_with("t.csv:3: "), "{err}");
            assert!(err.contains(why), "{err} should say {why}");
        }
        // What run writes reads: a wrong answer of an aborted search, a node budget.
        let rows = format!(
            "c,1,dlx,aborted,0,,,5,,,,x,mismatch,0,\nc,2,dlx,aborted,0,,,5,,,,x,node_budget,0,7\n\
             c,3,dlx,invalid,,,,,{clues},{PUZZLE},,x,,0,\n"
        );
        assert_eq!(read_back(rows.as_bytes()).len(), 3);
    }

    #[test]
    fn a_wrong_answer_may_hold_a_grid_that_is_no_solution() {
        let ones = "1".repeat(81);
        let text = format!(
            "{HEAD}c,1,dlx,unique,1,,,5,,{PUZZLE},{ones},\"strategy returned {ones}, which is not a solution\",mismatch\n\
             c,2,dlx,unique,1,,,5,,{PUZZLE},{SOLUTION},,finished\n"
        );
        let rows: Vec<CsvRow> = RowReader::new(Path::new("t.csv"), text.as_bytes())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(rows[0].is_wrong() && !rows[1].is_wrong());
    }

    /// A CSV from before the `ended` column: how each search ended is told from its error
    /// as `run` wrote it then, the same rule for every command that reads it.
    #[test]
    fn csvs_written_before_the_ended_column_still_read() {
        let old = "corpus,line,strategy,status,solutions,nodes,guesses,time_ns,clues,puzzle,solution,error\n";
        let text = format!(
            "{old}c,1,a,unique,1,3,0,9,,,,\n\
             c,2,a,aborted,0,100,4,9,,,,node budget of 100 exhausted\n\
             c,3,a,aborted,1,7,1,9,,,,timed out after 1s after finding 1 solution\n\
             c,4,a,aborted,0,,,9,,,,solver crashed: signal 11\n\
             c,5,a,multiple,2,5,1,9,,,,counted 2 solutions; the reference (fast) counted 1\n\
             c,6,a,aborted,0,5,1,9,,,,\"strategy returned 12, which is not a solution\"\n\
             c,7,a,malformed,,,,,,,,expected 81 cells\n"
        );
        let endings: Vec<Option<Ending>> = RowReader::new(Path::new("t.csv"), text.as_bytes())
            .unwrap()
            .map(|r| r.unwrap().ended)
            .collect();
        assert_eq!(
            endings,
            [
                Some(Ending::Finished),
                Some(Ending::NodeBudget),
                Some(Ending::Timeout),
                Some(Ending::Failed),
                Some(Ending::Mismatch),
                Some(Ending::Mismatch),
                None
            ]
        );
    }
}
