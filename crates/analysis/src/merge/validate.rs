//! The one validator of a run's per-puzzle CSV, for `merge` (each part) and `run --resume`
//! (the kept prefix, itself a part of the run). Rows come through the one reader of the
//! per-puzzle CSV and are put together into lines: every line of the run has one row per
//! strategy, in the run's order, its corpora in the run's order and its lines in input
//! order, each once, every count one the run's `--max-solutions` can give. Whole lines are
//! counted as the run counts them (a [`Summary`] of their own) and tallied per corpus
//! ([`LineTally`]), for the caller to hold against what the part should be: merge against
//! its summary and the lines it read, resume against the corpora read again. The file's tail
//! is told apart from a fault the same way for both: a row that ends where the file does,
//! without the line break every row ends in, was cut short by the writer's end (an
//! interrupt, a full disk), not written wrong.

use std::io::BufRead;
use std::path::Path;

use super::{Checker, RowsError};
use sudoku_bench_core::corpus::Identity;
use sudoku_bench_core::grid::Grid;
use sudoku_bench_core::results::csv::{CsvError, CsvRow, RowReader};
use sudoku_bench_core::results::{PuzzleResult, Status};
use sudoku_bench_core::summary::Summary;

/// A row the file ends inside: counted from 1 after the header, and the file line it starts
/// on (0 when the reader could not tell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CutRow {
    pub(crate) row: u64,
    pub(crate) line: u64,
}

/// Hand each whole row of `reader` (whose file is `len` bytes long and ends in a line break
/// when `ends_whole`) to `each`, with the byte it ends at; a row the reader refuses goes
/// through `fault`. Stops at the end, or at a cut last row, which it returns: merge refuses
/// it, resume drops it.
pub(crate) fn each_row<R: BufRead, E>(
    reader: &mut RowReader<R>,
    (len, ends_whole): (u64, bool),
    fault: impl Fn(CsvError) -> E,
    mut each: impl FnMut(&CsvRow, u64) -> Result<(), E>,
) -> Result<Option<CutRow>, E> {
    let mut rows = 0u64;
    loop {
        let read = reader.read();
        let last = reader.bytes_read() == len;
        let row = match read {
            Ok(Some(row)) => row,
            Ok(None) => return Ok(None),
            // An unreadable last row is one cut where a line break happened to fall.
            Err(e) if last => {
                let line = e.line().unwrap_or(0);
                return Ok(Some(CutRow {
                    row: rows + 1,
                    line,
                }));
            }
            Err(e) => return Err(fault(e)),
        };
        rows += 1;
        if last && !ends_whole {
            let line = row.csv_line;
            return Ok(Some(CutRow { row: rows, line }));
        }
        each(&row, reader.bytes_read())?;
    }
}

/// Lines of one corpus, in input order: how many, the last, and the wrapping sum of
/// [`Identity::entry_line`] over them, as a corpus's identity adds up the entry lines it
/// read; the sum tells the same count of other lines apart without keeping every line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineTally {
    /// How many lines.
    pub(crate) lines: u64,
    /// The last one (0: none).
    pub(crate) last: u64,
    /// The sum of their [`Identity::entry_line`]s.
    pub(crate) sum: u64,
}

impl LineTally {
    /// Count `line`, which comes after every line counted so far.
    pub(crate) fn add(&mut self, line: u64) {
        self.lines += 1;
        self.last = line;
        self.sum = self.sum.wrapping_add(Identity::entry_line(line));
    }
}

/// The run a CSV's rows must be of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run<'a> {
    /// The CSV, for refusals.
    pub(crate) csv: &'a Path,
    /// Whose refusals.
    pub(crate) by: Checker,
    /// Its corpora, in order.
    pub(crate) corpora: &'a [&'a str],
    /// Its strategies, in order: every line has one row of each, in this order.
    pub(crate) strategies: &'a [&'a str],
    /// Its `--max-solutions`, which every row's status and count must fit.
    pub(crate) max_solutions: u32,
}

/// A line's rows, one per strategy in the run's order, as far as they are read.
#[derive(Debug, Default)]
pub(crate) struct Line {
    /// The index of its corpus in the run's.
    pub(crate) corpus: usize,
    /// Its line in that corpus.
    pub(crate) line: u64,
    /// Each row's result.
    pub(crate) results: Vec<PuzzleResult>,
    /// Each row's own line in the CSV.
    pub(crate) at: Vec<u64>,
    /// Each row's `puzzle` column's grid (`None`: empty, as for a malformed line).
    pub(crate) puzzles: Vec<Option<Grid>>,
}

impl Line {
    fn clear(&mut self, corpus: usize, line: u64) {
        self.corpus = corpus;
        self.line = line;
        self.results.clear();
        self.at.clear();
        self.puzzles.clear();
    }
}

/// What the rows of a CSV, put together into lines, are: filled in row by row with
/// [`Lines::row`], each whole line then kept with [`Lines::keep`].
#[derive(Debug)]
pub(crate) struct Lines<'a> {
    run: Run<'a>,
    /// The line being read, until every strategy's row is there.
    pending: Option<Line>,
    /// The last whole line, kept: its rows.
    last: Option<Line>,
    /// The whole lines' rows, counted as the run counts them.
    pub(crate) summary: Summary,
    /// The whole lines of each corpus.
    pub(crate) tallies: Vec<LineTally>,
    /// Rows of the whole lines.
    pub(crate) rows: u64,
    /// The byte the last whole line ends at (0: none yet).
    pub(crate) end: u64,
    /// The byte the pending line's last row ends at.
    pending_end: u64,
    /// Corpora whose groups the summary has, in the run's order.
    begun: usize,
}

impl<'a> Lines<'a> {
    /// Nothing read yet of `run`'s rows.
    pub(crate) fn new(run: Run<'a>) -> Self {
        Lines {
            run,
            pending: None,
            last: None,
            summary: Summary::default(),
            tallies: vec![LineTally::default(); run.corpora.len()],
            rows: 0,
            end: 0,
            pending_end: 0,
            begun: 0,
        }
    }

    /// The last whole line: (index of its corpus, line).
    pub(crate) fn last(&self) -> Option<(usize, u64)> {
        self.last.as_ref().map(|l| (l.corpus, l.line))
    }

    /// The line whose rows are still short of some strategies'.
    pub(crate) fn pending(&self) -> Option<&Line> {
        self.pending.as_ref().filter(|p| !p.results.is_empty())
    }

    /// The index of the corpus `row` is for: one of the run's, at or after the one being
    /// read.
    pub(crate) fn corpus_of(&self, row: &CsvRow) -> Result<usize, RowsError> {
        let from = self
            .pending()
            .map_or(self.last().map_or(0, |l| l.0), |p| p.corpus);
        if let Some(i) = self.run.corpora[from..]
            .iter()
            .position(|c| *c == row.corpus)
        {
            return Ok(from + i);
        }
        let corpora = self.run.corpora.iter().copied();
        Err(self
            .run
            .by
            .other_corpus(self.run.csv, row.csv_line, &row.corpus, corpora))
    }

    /// Add `row`, of the corpus at `corpus` (see [`Lines::corpus_of`]), which ends at byte
    /// `end` of the CSV: `true` when it makes its line whole, to be checked further and
    /// kept with [`Lines::keep`].
    pub(crate) fn row(&mut self, corpus: usize, row: &CsvRow, end: u64) -> Result<bool, RowsError> {
        let (run, csv) = (self.run, self.run.csv);
        let strategy = run
            .strategies
            .iter()
            .position(|s| *s == row.strategy)
            .ok_or_else(|| RowsError::OtherStrategy {
                csv: csv.to_path_buf(),
                line: row.csv_line,
                strategy: row.strategy.clone(),
                strategies: run.strategies.join(","),
                by: run.by,
            })?;
        self.start_line(corpus, row, strategy)?;
        let p = self.pending.as_mut().expect("start_line made one");
        if strategy != p.results.len() {
            return Err(RowsError::StrategyOrder {
                csv: csv.to_path_buf(),
                line: row.csv_line,
                strategy: row.strategy.clone(),
                due: run.strategies[p.results.len()].to_string(),
                strategies: run.strategies.join(","),
                by: run.by,
            });
        }
        let result = row.result().expect("the status column is required");
        check_count(&run, row, &result)?;
        p.results.push(result);
        p.at.push(row.csv_line);
        p.puzzles.push(row.puzzle_grid());
        self.pending_end = end;
        Ok(p.results.len() == run.strategies.len())
    }

    /// The line [`Lines::row`] just made whole.
    pub(crate) fn whole(&self) -> &Line {
        self.pending.as_ref().expect("a line made whole")
    }

    /// Count the line [`Lines::row`] just made whole into the summary and its corpus's
    /// tally.
    pub(crate) fn keep(&mut self) {
        let whole = self.pending.take().expect("a line made whole");
        self.count(&whole);
        self.rows += whole.results.len() as u64;
        self.end = self.pending_end;
        self.tallies[whole.corpus].add(whole.line);
        // The line before becomes the next one's buffers.
        let mut spare = self.last.replace(whole);
        if let Some(line) = &mut spare {
            line.clear(0, 0);
        }
        self.pending = spare;
    }

    /// Count the rows of the line still short of some strategies' into the summary too:
    /// for merge, whose counts are of every row in the file.
    pub(crate) fn count_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            self.count(&p);
        }
    }

    /// Count `line`'s rows into the summary, the groups of every corpus up to its own
    /// made first, in the run's order, as a run's summary has them, rows or not.
    fn count(&mut self, line: &Line) {
        let run = self.run;
        while self.begun <= line.corpus {
            for s in run.strategies {
                self.summary.group(run.corpora[self.begun], s);
            }
            self.begun += 1;
        }
        for (s, result) in run.strategies.iter().zip(&line.results) {
            let group = self.summary.group(run.corpora[line.corpus], s);
            self.summary.add(group, result);
        }
    }

    /// Make `row`'s line (of the corpus at `corpus`, for the strategy at `strategy`) the
    /// pending one, unless it is already: refused when it comes before the pending line or
    /// the last whole one, is the last whole one again, or the pending line lacks rows.
    fn start_line(
        &mut self,
        corpus: usize,
        row: &CsvRow,
        strategy: usize,
    ) -> Result<(), RowsError> {
        let run = self.run;
        let name = run.corpora[corpus];
        let out_of_order = |before: u64| {
            let before = format!("line {before}");
            run.by
                .out_of_order(run.csv, row.csv_line, row.line, name, before)
        };
        if let Some(p) = self.pending() {
            if p.corpus == corpus && p.line == row.line {
                return Ok(());
            }
            if p.corpus == corpus && p.line > row.line {
                return Err(out_of_order(p.line));
            }
            return Err(RowsError::MissingRows {
                csv: run.csv.to_path_buf(),
                line: row.csv_line,
                corpus_line: p.line,
                corpus: run.corpora[p.corpus].to_string(),
                rows: p.results.len(),
                count: run.strategies.len(),
                strategies: run.strategies.join(","),
                by: run.by,
            });
        }
        if let Some(last) = self.last.as_ref().filter(|l| l.corpus == corpus) {
            if last.line == row.line {
                let message = format!(
                    "line {} of {name} has a second row for {} (the first on line {}): one \
                     line twice",
                    row.line, row.strategy, last.at[strategy]
                );
                return Err(run.by.bad(run.csv, row.csv_line, message));
            }
            if last.line > row.line {
                return Err(out_of_order(last.line));
            }
        }
        let mut line = self.pending.take().unwrap_or_default();
        line.clear(corpus, row.line);
        self.pending = Some(line);
        Ok(())
    }
}

/// Refuse a row whose status and count `run`'s `--max-solutions` cannot give: a row of a
/// run that counted to another limit (`solved` is counting to 1, `multiple` at most to the
/// limit).
fn check_count(run: &Run, row: &CsvRow, result: &PuzzleResult) -> Result<(), RowsError> {
    let max = run.max_solutions;
    let fits = match result.status {
        Status::Solved => max == 1,
        Status::Unique => max >= 2,
        Status::Multiple => result.solutions.is_some_and(|n| n >= 2 && n <= max),
        _ => result.solutions.is_none_or(|n| n <= max),
    };
    if fits {
        return Ok(());
    }
    Err(RowsError::OtherMaxSolutions {
        csv: run.csv.to_path_buf(),
        line: row.csv_line,
        status: result.status.to_string(),
        solutions: result
            .solutions
            .map_or_else(|| "-".to_string(), |n| n.to_string()),
        now: max,
        by: run.by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use sudoku_bench_core::results::csv::COLUMNS;

    /// The rows each_row hands on (their corpus lines), and the cut tail it finds, of `text`.
    fn read(text: &[u8]) -> Result<(Vec<u64>, Option<CutRow>), CsvError> {
        let ends_whole = text.ends_with(b"\n");
        let mut reader = RowReader::new(Path::new("t.csv"), text).unwrap();
        let mut lines = Vec::new();
        let tail = each_row(
            &mut reader,
            (text.len() as u64, ends_whole),
            |e| e,
            |row, _| {
                lines.push(row.line);
                Ok(())
            },
        )?;
        Ok((lines, tail))
    }

    #[test]
    fn a_cut_last_row_is_the_tail_and_a_bad_row_before_it_a_fault() {
        let row = |line: u64| format!("a.txt,{line},fast,unique,1,10,0,100,25,,,,finished,,\n");
        let whole = format!("{}\n{}{}", COLUMNS.join(","), row(1), row(2)).into_bytes();
        assert_eq!(read(&whole).unwrap(), (vec![1, 2], None));
        // Cut inside its last field: it still reads, but lacks the line break.
        let cut = &whole[..whole.len() - 2];
        let tail = Some(CutRow { row: 2, line: 3 });
        assert_eq!(read(cut).unwrap(), (vec![1], tail));
        // Cut so short that it cannot be read at all.
        let short = &whole[..whole.len() - row(2).len() + 6];
        assert_eq!(read(short).unwrap().1.map(|c| c.row), Some(2));
        let bad = format!("{}\na.txt,1,fast,unique\n{}", COLUMNS.join(","), row(2));
        assert!(read(bad.as_bytes()).is_err());
    }

    #[test]
    fn tallies_of_other_lines_differ_even_with_the_same_count() {
        let of = |lines: &[u64]| {
            let mut t = LineTally::default();
            lines.iter().for_each(|l| t.add(*l));
            t
        };
        assert_eq!(of(&[1, 2, 5]), of(&[1, 2, 5]));
        assert_ne!(of(&[1, 3, 5]), of(&[2, 3, 5]));
        assert_ne!(of(&[1, 2]), of(&[1, 2, 5]));
        // As a corpus's identity adds up the entry lines it read.
        let sum = [1u64, 2, 5]
            .iter()
            .fold(0u64, |s, &l| s.wrapping_add(Identity::entry_line(l)));
        assert_eq!(of(&[1, 2, 5]).sum, sum);
    }

    fn fault(e: CsvError) -> RowsError {
        Checker::Merge.bad(Path::new("t.csv"), e.line().unwrap_or(0), e.to_string())
    }

    /// A row of `(corpus, line, strategy, status, solutions)`.
    type Row<'a> = (&'a str, u64, &'a str, &'a str, u32);

    /// A CSV of `rows`.
    fn csv(rows: &[Row]) -> String {
        let mut text = format!("{}\n", COLUMNS.join(","));
        for (corpus, line, strategy, status, n) in rows {
            text += &format!("{corpus},{line},{strategy},{status},{n},10,0,100,25,,,,finished,,\n");
        }
        text
    }

    /// `rows` read by [`Lines`] as rows of a run over corpora a.txt and b.txt with
    /// strategies x and y, counting to 2: what it found, each whole line as (corpus, line,
    /// the byte it ends at), and the first refusal.
    fn read_lines(
        rows: &[Row],
        by: Checker,
    ) -> (Lines<'static>, Vec<(usize, u64, u64)>, Option<String>) {
        let text = csv(rows);
        let mut reader = RowReader::new(Path::new("t.csv"), text.as_bytes()).unwrap();
        let mut lines = Lines::new(Run {
            csv: Path::new("t.csv"),
            by,
            corpora: &["a.txt", "b.txt"],
            strategies: &["x", "y"],
            max_solutions: 2,
        });
        let mut whole = Vec::new();
        let file = (text.len() as u64, true);
        let read = each_row(&mut reader, file, fault, |row, end| {
            let corpus = lines.corpus_of(row)?;
            if lines.row(corpus, row, end)? {
                whole.push((lines.whole().corpus, lines.whole().line, end));
                lines.keep();
            }
            Ok(())
        });
        (lines, whole, read.err().map(|e| e.to_string()))
    }

    /// The whole lines' (corpus, line) of `rows` read as merge reads them, and the refusal.
    fn lines_of(rows: &[Row]) -> (Vec<(usize, u64)>, Option<String>) {
        let (_, whole, err) = read_lines(rows, Checker::Merge);
        (whole.into_iter().map(|(c, l, _)| (c, l)).collect(), err)
    }

    #[test]
    fn rows_come_together_into_whole_lines_of_the_run_in_its_order() {
        let u = |c, l, s| (c, l, s, "unique", 1);
        let (whole, err) = lines_of(&[
            u("a.txt", 1, "x"),
            u("a.txt", 1, "y"),
            u("a.txt", 3, "x"),
            u("a.txt", 3, "y"),
            u("b.txt", 2, "x"),
            u("b.txt", 2, "y"),
            u("b.txt", 4, "x"),
        ]);
        assert_eq!((whole, err), (vec![(0, 1), (0, 3), (1, 2)], None));
        let refused = |rows: &[Row], says: &str| {
            let err = lines_of(rows).1.expect("refused");
            assert!(err.contains(says), "{says:?} not in: {err}");
        };
        refused(
            &[u("c.txt", 1, "x")],
            "t.csv:2: a row for corpus c.txt, which this run does not read",
        );
        refused(
            &[u("b.txt", 1, "x"), u("b.txt", 1, "y"), u("a.txt", 2, "x")],
            "t.csv:4: a row for corpus a.txt, after rows of a corpus named after it",
        );
        refused(
            &[u("a.txt", 1, "z")],
            "t.csv:2: a row for strategy z, which this run does not time (-s x,y)",
        );
        refused(
            &[u("a.txt", 1, "y")],
            "t.csv:2: strategy y where x was due: not in this run's order (x,y)",
        );
        refused(&[u("a.txt", 1, "x"), u("a.txt", 2, "x")], "t.csv:3: line 1 of a.txt has rows for 1 of this run's 2 strategies (x,y), and rows follow");
        refused(
            &[u("a.txt", 5, "x"), u("a.txt", 1, "y")],
            "t.csv:3: line 1 of a.txt comes after line 5: rows out of input order",
        );
        refused(
            &[u("a.txt", 5, "x"), u("a.txt", 5, "y"), u("a.txt", 4, "x")],
            "t.csv:4: line 4 of a.txt comes after line 5",
        );
        refused(
            &[u("a.txt", 5, "x"), u("a.txt", 5, "y"), u("a.txt", 5, "x")],
            "t.csv:4: line 5 of a.txt has a second row for x (the first on line 2): one line twice",
        );
        refused(&[("a.txt", 1, "x", "multiple", 3)], "t.csv:2: this row is multiple with 3 solutions, which a run counting to 2 (--max-solutions) cannot give");
        refused(
            &[("a.txt", 1, "x", "solved", 1)],
            "this row is solved with 1 solutions",
        );
    }

    #[test]
    fn whole_lines_are_counted_and_tallied_and_the_line_short_of_rows_is_left_pending() {
        let u = |l, s| ("a.txt", l, s, "unique", 1);
        let (mut lines, whole, err) =
            read_lines(&[u(1, "x"), u(1, "y"), u(2, "x")], Checker::Resume);
        assert_eq!(err, None);
        let header = COLUMNS.join(",").len() as u64 + 1;
        let first = csv(&[u(1, "x"), u(1, "y")]).len() as u64;
        assert_eq!(whole, [(0, 1, first)]);
        assert!(header < first);
        assert_eq!(
            (lines.rows, lines.end, lines.last()),
            (2, first, Some((0, 1)))
        );
        let mut one = LineTally::default();
        one.add(1);
        assert_eq!(lines.tallies, [one, LineTally::default()]);
        assert_eq!(
            lines.pending().map(|p| (p.line, p.results.len())),
            Some((2, 1))
        );
        let rows: Vec<(String, u64)> = lines
            .summary
            .rows()
            .into_iter()
            .map(|r| (r.strategy, r.puzzles))
            .collect();
        assert_eq!(rows, [("x".to_string(), 1), ("y".to_string(), 1)]);
        lines.count_pending();
        let rows: Vec<u64> = lines
            .summary
            .rows()
            .into_iter()
            .map(|r| r.puzzles)
            .collect();
        assert_eq!(rows, [2, 1]);
    }
}
