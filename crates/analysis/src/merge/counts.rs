//! Each part's CSV against its summary, read back with the one reader of the per-puzzle
//! CSV: per (corpus, strategy), as many rows as the summary counts records, and the same
//! figures (rows per status, wrong answers, failures, solve times, nodes, guesses); every
//! line at most once, in input order; and, where the summary says what the part read of a
//! corpus ([`sudoku_bench_core::corpus::Identity`]), one row for each entry line it read and none for
//! another. A part's CSV that lost rows (cut short at a row boundary, copied in part),
//! holds another run's rows, or was edited would otherwise merge into a run that never was.

use std::fs::File;
use std::io::BufReader;

use sudoku_bench_core::corpus::Identity;
use sudoku_bench_core::results::csv::{ends_in_line_break, RowReader};
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::{GroupState, Summary};

use super::rows::{bad, csv_fault, out_of_order};
use super::validate::{each_row, CutRow};
use super::{MergeError, PartFiles};

/// The corpus lines of one (corpus, strategy)'s rows found in a CSV.
#[derive(Default)]
struct GroupLines {
    /// The last row's corpus line, and its own line in the CSV.
    last: Option<(u64, u64)>,
    /// Wrapping sum of [`Identity::entry_line`] over the corpus lines of its rows.
    sum: u64,
}

/// What a part's CSV holds: its rows counted as a run counts them, and the lines of each of
/// that summary's groups (at its index).
struct Recount {
    summary: Summary,
    lines: Vec<GroupLines>,
}

/// Refuse `part` when its CSV ends inside a row, holds a row `run` cannot have written,
/// holds rows out of input order or a line twice for one strategy, or its rows do not add
/// up to what its summary counts and says was read; each refusal names the CSV (and the
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
    let mut corpora: Vec<String> = Vec::new();
    for g in &state.groups {
        if !corpora.contains(&g.corpus) {
            corpora.push(g.corpus.clone());
        }
    }
    let recount = read(part, &corpora)?;
    let recounted = recount.summary.state();
    let rows_of = |g: &GroupState| g.counts.values().sum::<u64>();
    let mine = |corpus: &str, strategy: &str| {
        let mut groups = recounted.groups.iter();
        groups.position(|g| g.corpus == corpus && g.strategy == strategy)
    };
    let row_count = |g: &GroupState, found: u64, counted: u64| MergeError::RowCount {
        csv: part.csv.clone(),
        json: part.json.clone(),
        corpus: g.corpus.clone(),
        strategy: g.strategy.clone(),
        found,
        counted,
    };
    for group in &counted_state.groups {
        let counted = rows_of(group);
        let rows =
            mine(&group.corpus, &group.strategy).map_or(0, |i| rows_of(&recounted.groups[i]));
        if rows != counted {
            return Err(row_count(group, rows, counted));
        }
    }
    // Rows of a group the summary does not list: checked by name, as the summary names it.
    for g in &recounted.groups {
        let listed = state
            .groups
            .iter()
            .any(|s| s.corpus == g.corpus && s.strategy == g.strategy);
        if !listed {
            return Err(row_count(g, rows_of(g), 0));
        }
    }
    for group in &counted_state.groups {
        let Some(i) = mine(&group.corpus, &group.strategy) else {
            // No rows, as the summary counts none: nothing to tell apart.
            continue;
        };
        let differing = figures(&recounted.groups[i])
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
    // Where the summary says what its run read of a corpus: one row per entry line read.
    for group in &counted_state.groups {
        let Some(identity) = counted.identity(&group.corpus) else {
            continue;
        };
        let (rows, lines) = mine(&group.corpus, &group.strategy).map_or((0, 0), |i| {
            (rows_of(&recounted.groups[i]), recount.lines[i].sum)
        });
        if (rows, lines) != (identity.entries, identity.entry_lines) {
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

/// Read every row of `part`'s CSV, checked, into its groups; `corpora` are the run's, in
/// order (the rows of a corpus not among them are counted, not ordered).
fn read(part: &PartFiles, corpora: &[String]) -> Result<Recount, MergeError> {
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
    let mut recount = Recount {
        summary: Summary::default(),
        lines: Vec::new(),
    };
    // The key, (corpus index, line), of the last row of a listed corpus.
    let mut previous: Option<(usize, u64)> = None;
    let tail = each_row(&mut reader, (len, ends_whole), csv_fault, |row, _| {
        let group = recount.summary.group(&row.corpus, &row.strategy);
        let result = row.result().expect("the status column is required");
        recount.summary.add(group, &result);
        if group == recount.lines.len() {
            recount.lines.push(GroupLines::default());
        }
        let f = &mut recount.lines[group];
        if let Some(corpus) = corpora.iter().position(|c| *c == row.corpus) {
            let key = (corpus, row.line);
            if previous.is_some_and(|p| key < p) {
                return Err(out_of_order(path, row.csv_line, row.line, &row.corpus));
            }
            previous = Some(key);
            if let Some((line, at)) = f.last.filter(|&(line, _)| line == row.line) {
                return Err(bad(
                    path,
                    row.csv_line,
                    format!(
                        "line {line} of {} has a second row for {} (the first on line {at}): \
                         one line twice",
                        row.corpus, row.strategy
                    ),
                ));
            }
        }
        f.last = Some((row.line, row.csv_line));
        f.sum = f.sum.wrapping_add(Identity::entry_line(row.line));
        Ok(())
    })?;
    if let Some(CutRow { row, line }) = tail {
        return Err(cut(row, line));
    }
    Ok(recount)
}
