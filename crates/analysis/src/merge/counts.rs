//! Each part's CSV against its summary, read back by the one validator of a run's rows
//! ([`super::validate::Lines`]: whole lines, in input order, each once, of the summary's
//! corpora and strategies in its order, every count one its `--max-solutions` can give):
//! per (corpus, strategy), as many rows as the summary counts records, and the same figures
//! (rows per status, wrong answers, failures, solve times, nodes, guesses); and, where the
//! summary says what the part read of a corpus ([`sudoku_bench_core::corpus::Identity`]),
//! one line for each entry line it read and none for another. A part's CSV that lost rows
//! (cut short at a row boundary, copied in part), holds another run's rows, or was edited
//! would otherwise merge into a run that never was.

use std::fs::File;
use std::io::BufReader;

use sudoku_bench_core::results::csv::{ends_in_line_break, RowReader};
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::{GroupState, Summary, SummaryState};

use super::rows::csv_fault;
use super::validate::{each_row, CutRow, LineTally, Lines, Run};
use super::{Checker, MergeError, PartFiles};

/// Refuse `part` when its CSV ends inside a row, holds a row `run` cannot have written or
/// rows its run cannot have written together (see [`super::validate`]), or its rows do not
/// add up to what its summary counts and says was read; each refusal names the CSV (and the
/// line, where one row is at fault).
pub(super) fn check_rows(part: &PartFiles) -> Result<(), MergeError> {
    let state = part.state()?;
    let bad_state = |source| MergeError::BadState {
        json: part.json.clone(),
        source,
    };
    // Read back through the summary's own accumulators: figures compare as one writer
    // wrote them.
    let counted = Summary::from_state(state).map_err(bad_state)?;
    let counted_state = counted.state();
    let (corpora, strategies) = run_of(state);
    let run = Run {
        csv: &part.csv,
        by: Checker::Merge,
        corpora: &corpora,
        strategies: &strategies,
        max_solutions: part.report.max_solutions,
    };
    let lines = read(part, run)?;
    let found = Found {
        state: lines.summary.state(),
        tallies: &lines.tallies,
        corpora: &corpora,
    };
    for group in &counted_state.groups {
        let (rows, counted) = (found.rows(group), rows_of(group));
        if rows != counted {
            return Err(MergeError::RowCount {
                csv: part.csv.clone(),
                json: part.json.clone(),
                corpus: group.corpus.clone(),
                strategy: group.strategy.clone(),
                found: rows,
                counted,
            });
        }
    }
    for group in &counted_state.groups {
        let Some(mine) = found.group(group) else {
            // No rows, as the summary counts none: nothing to tell apart.
            continue;
        };
        let differing = figures(mine)
            .into_iter()
            .zip(figures(group))
            .find(|(a, b)| a.1 != b.1);
        if let Some(((what, found), (_, counted))) = differing {
            return Err(MergeError::Disagree {
                csv: part.csv.clone(),
                json: part.json.clone(),
                group: format!("{} / {}", group.corpus, group.strategy),
                what,
                found,
                counted,
            });
        }
    }
    check_lines(part, &counted, &counted_state.groups, &found)
}

/// The corpora and strategies of the run whose summary is `state`, in its order: a run's
/// summary lists every corpus's groups, one per strategy in the run's order.
fn run_of(state: &SummaryState) -> (Vec<&str>, Vec<&str>) {
    let corpora = super::corpora_of(&state.groups);
    let strategies = state
        .groups
        .iter()
        .take_while(|g| g.corpus == corpora[0])
        .map(|g| g.strategy.as_str())
        .collect();
    (corpora, strategies)
}

/// What a part's CSV holds: its rows counted per group, and the whole lines of each of
/// `corpora`.
struct Found<'a> {
    state: SummaryState,
    tallies: &'a [LineTally],
    corpora: &'a [&'a str],
}

impl Found<'_> {
    /// The rows found of the group the summary calls `like`.
    fn group(&self, like: &GroupState) -> Option<&GroupState> {
        let mut groups = self.state.groups.iter();
        groups.find(|g| g.corpus == like.corpus && g.strategy == like.strategy)
    }

    fn rows(&self, like: &GroupState) -> u64 {
        self.group(like).map_or(0, rows_of)
    }

    /// The whole lines found of `corpus`.
    fn lines(&self, corpus: &str) -> LineTally {
        let at = self.corpora.iter().position(|c| *c == corpus);
        at.map_or_else(LineTally::default, |c| self.tallies[c])
    }
}

fn rows_of(g: &GroupState) -> u64 {
    g.counts.values().sum()
}

/// Where `counted`, a part's summary of `groups`, says what its run read of a corpus: one
/// whole line of rows per entry line read, and none for another.
fn check_lines(
    part: &PartFiles,
    counted: &Summary,
    groups: &[GroupState],
    found: &Found,
) -> Result<(), MergeError> {
    for group in groups {
        let Some(identity) = counted.identity(&group.corpus) else {
            continue;
        };
        let (rows, lines) = (found.rows(group), found.lines(&group.corpus));
        let read = (identity.entries, identity.entries, identity.entry_lines);
        if (rows, lines.lines, lines.sum) != read {
            return Err(MergeError::Lines {
                csv: part.csv.clone(),
                json: part.json.clone(),
                corpus: group.corpus.clone(),
                strategy: group.strategy.clone(),
                rows,
                entries: identity.entries,
            });
        }
    }
    Ok(())
}

/// A group's figures that its rows decide, each named, in the order a refusal names the
/// first that differs: rows per status first.
///
/// `g` was written by `Summary::state`: its sums are decimal numbers.
fn figures(g: &GroupState) -> Vec<(&'static str, u128)> {
    let sum = |s: &str| {
        s.parse::<u128>()
            .expect("Summary::state writes decimal sums")
    };
    let mut out: Vec<(&'static str, u128)> = Status::ALL
        .iter()
        .map(|s| {
            let n = g.counts.get(s.as_str()).copied().unwrap_or(0);
            (s.as_str(), u128::from(n))
        })
        .collect();
    out.extend([
        ("wrong answers", u128::from(g.mismatches)),
        ("solver failures", u128::from(g.failures)),
        (
            "searches that found solutions but returned none",
            u128::from(g.unreturned),
        ),
        ("searched", u128::from(g.searched)),
        ("summed time_ns", sum(&g.time_sum_ns)),
        ("longest time_ns", u128::from(g.max_ns)),
        ("summed nodes", sum(&g.nodes_sum)),
        ("searches with nodes", u128::from(g.nodes_counted)),
        ("summed guesses", sum(&g.guesses_sum)),
        ("finished searches with guesses", u128::from(g.guessed)),
        ("finished searches without a guess", u128::from(g.no_guess)),
    ]);
    out
}

/// Read every row of `part`'s CSV, checked as rows of `run`, into whole lines, and count
/// every row (those of a line short of some strategies' too).
fn read<'a>(part: &PartFiles, run: Run<'a>) -> Result<Lines<'a>, MergeError> {
    let path = &part.csv;
    let io = |source| MergeError::Read {
        path: path.clone(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len == 0 {
        return Err(MergeError::Empty {
            csv: path.clone(),
            json: part.json.clone(),
        });
    }
    let ends_whole = ends_in_line_break(&file).map_err(io)?;
    let mut reader =
        RowReader::new(path, BufReader::with_capacity(1 << 16, file)).map_err(csv_fault)?;
    let cut = |row: u64, line: u64| MergeError::Cut {
        csv: path.clone(),
        json: part.json.clone(),
        row,
        line,
    };
    if reader.bytes_read() == len && !ends_whole {
        return Err(cut(0, 1));
    }
    reader.require(&["status"]).map_err(csv_fault)?;
    let mut lines = Lines::new(run);
    let tail = each_row(&mut reader, (len, ends_whole), csv_fault, |row, end| {
        let corpus = lines.corpus_of(row)?;
        if lines.row(corpus, row, end)? {
            lines.keep();
        }
        Ok(())
    })?;
    if let Some(CutRow { row, line }) = tail {
        return Err(cut(row, line));
    }
    // Rows the file ends in, short of a line: counted, so that the refusal of their group
    // says how many rows the file holds.
    lines.count_pending();
    Ok(lines)
}
