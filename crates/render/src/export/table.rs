//! Aligned text tables for a terminal: the one renderer (`aligned_table`) every text
//! table is drawn with (the summary's, the comparison's, `history check`'s), and the summary
//! and the comparison laid out with it.
//!
//! Two layouts: `TableExporter`, the default, fits 100 columns for a run of every strategy
//! on one corpus (each corpus named once, above its rows; the statuses folded into one
//! column; the figures a solver's author reads first), and `WideTableExporter` with every
//! field, as the Markdown summary has them.

use super::comparison::{cells, headings, method, unpaired_line};
use super::summary::{grid, NAME_COLUMNS};
use super::{CompareExporter, Exporter};
use crate::numbers::{rate, short_duration, significant, thousands};
use std::fmt::Write;
use sudoku_bench_analysis::compare::Comparison;
use sudoku_bench_core::results::{Metric, Status};
use sudoku_bench_core::summary::{SummaryReport, SummaryRow};

/// Exports the summary as a table aligned for a terminal of 100 columns.
pub struct TableExporter;

/// Exports the summary as a table aligned for a terminal, with every field.
pub struct WideTableExporter;

/// Each column's width in characters (not bytes: "µs"), over its heading and cells.
pub(crate) fn widths<S: AsRef<str>>(head: &[S], rows: &[Vec<String>]) -> Vec<usize> {
    (0..head.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|v| v.chars().count())
                .chain([head[i].as_ref().chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// One line of an aligned table, two spaces between columns and none at its end: column
/// `i` left-aligned when `left(i)` (names), else right-aligned (numbers).
pub(crate) fn aligned_line<S: AsRef<str>>(
    out: &mut String,
    values: &[S],
    widths: &[usize],
    left: impl Fn(usize) -> bool,
) {
    let start = out.len();
    for (i, v) in values.iter().enumerate() {
        let v = v.as_ref();
        let pad = " ".repeat(widths[i].saturating_sub(v.chars().count()));
        if left(i) {
            let _ = write!(out, "{v}{pad}  ");
        } else {
            let _ = write!(out, "{pad}{v}  ");
        }
    }
    let trimmed = out[start..].trim_end().len();
    out.truncate(start + trimmed);
    out.push('\n');
}

/// A table aligned for a terminal, its heading first: column `i` left-aligned when
/// `left(i)` (names), else right-aligned (numbers).
pub(crate) fn aligned_table<S: AsRef<str>>(
    head: &[S],
    rows: &[Vec<String>],
    left: impl Fn(usize) -> bool,
) -> String {
    let widths = widths(head, rows);
    let mut out = String::new();
    aligned_line(&mut out, head, &widths, &left);
    for row in rows {
        aligned_line(&mut out, row, &widths, &left);
    }
    out
}

/// The summary's name columns read left-aligned, its numbers right-aligned.
fn names(i: usize) -> bool {
    i < NAME_COLUMNS
}

/// The notes every text table ends with: first the CPU the times hold for (a figure holds
/// for the CPU it was measured on) and where the workers ran on it.
fn notes(out: &mut String, report: &SummaryReport) {
    let cpu = &report.machine.cpu;
    match &report.placement {
        Some(placement) => {
            let _ = writeln!(out, "{cpu}: {}", placement.describe());
        }
        None if !report.rows.is_empty() => {
            let _ = writeln!(out, "timed on {cpu}");
        }
        None => {}
    }
    for (note, _) in super::summary::notes(report) {
        let _ = writeln!(out, "{note}");
    }
}

impl Exporter for WideTableExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let (headings, cells) = grid(report);
        let mut out = aligned_table(&headings, &cells, names);
        notes(&mut out, report);
        out
    }
}

/// The default table's columns after the strategy: what a solver's author reads first.
/// The rest (wall throughput, mean, p90, tail share, preemptions, share without a guess)
/// is in `--wide`, Markdown and JSON.
const NARROW_HEADINGS: [&str; 8] = [
    "strategy",
    "statuses",
    "puzzles/s/core",
    "p50",
    "p99",
    "max",
    "nodes",
    "guesses",
];

/// The default table of a run that counted instructions (`run --measure instructions`): the
/// counts in place of the times, which are Valgrind's.
const COUNTED_HEADINGS: [&str; 6] = [
    "strategy",
    "statuses",
    "instructions/puzzle",
    "instructions",
    "nodes",
    "guesses",
];

/// The width the default table keeps within, in characters.
const TERMINAL: usize = 100;

/// `path` in at most `width` characters: its end (the file's name) kept, its start elided.
pub(super) fn fit_path(path: &str, width: usize) -> String {
    let chars = path.chars().count();
    if chars <= width {
        return path.to_string();
    }
    let tail: String = path.chars().skip(chars - (width - 1)).collect();
    format!("…{tail}")
}

/// The column of the folded statuses, which wraps when the table would not fit.
const STATUSES: usize = 1;

/// `statuses` ("a, b, c") on lines of fewer than `room` characters where it can be (one
/// count is never split), each line but the last ending with its comma.
pub(super) fn wrap(statuses: &str, room: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in statuses.split(", ") {
        match lines.last_mut() {
            // Strictly less: the line may yet need its comma.
            Some(line) if line.chars().count() + 2 + part.chars().count() < room => {
                line.push_str(", ");
                line.push_str(part);
            }
            Some(line) => {
                line.push(',');
                lines.push(part.to_string());
            }
            None => lines.push(part.to_string()),
        }
    }
    lines
}

/// One row of the default table, in `NARROW_HEADINGS`' order; the lines that were not
/// searched (invalid, malformed) among its statuses only when `unsearched`.
fn narrow_cells(r: &SummaryRow, unsearched: bool, metric: Metric) -> Vec<String> {
    // Nothing was timed (every line malformed, say): no figure, rather than zeros.
    let timed = |cell: String| if r.searched == 0 { "-".into() } else { cell };
    let mut statuses = statuses(r);
    if !unsearched {
        statuses.retain(|(_, name)| !UNSEARCHED.contains(name));
    }
    if metric == Metric::Instructions {
        return vec![
            r.strategy.clone(),
            counted(&statuses).unwrap_or_else(|| "-".into()),
            r.mean_instructions
                .map_or("-".into(), |m| thousands(m.round() as u64)),
            r.total_instructions.map_or("-".into(), thousands),
            r.mean_nodes.map_or("-".into(), significant),
            r.mean_guesses.map_or("-".into(), significant),
        ];
    }
    vec![
        r.strategy.clone(),
        counted(&statuses).unwrap_or_else(|| "-".into()),
        timed(rate(r.puzzles_per_s_per_core)),
        timed(short_duration(r.median_ns as f64)),
        timed(short_duration(r.p99_ns as f64)),
        timed(short_duration(r.max_ns as f64)),
        r.mean_nodes.map_or("-".into(), significant),
        r.mean_guesses.map_or("-".into(), significant),
    ]
}

/// The statuses of lines that are never searched: the same for every strategy.
const UNSEARCHED: [&str; 2] = [Status::Invalid.as_str(), Status::Malformed.as_str()];

/// Every status count, then the wrong, failed and unreturned answers (which must stay in
/// sight), each with its name.
pub(super) fn statuses(r: &SummaryRow) -> Vec<(u64, &'static str)> {
    let counts = Status::ALL.map(|status| (r.count(status), status.as_str()));
    let faults = [
        (r.mismatches, "mismatch"),
        (r.failures, "failed"),
        (r.unreturned, "unreturned"),
    ];
    counts.into_iter().chain(faults).collect()
}

/// The non-zero counts, folded: "1200 unique, 3 multiple, 2 aborted"; `None` if none.
pub(super) fn counted(counts: &[(u64, &str)]) -> Option<String> {
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{n} {name}"))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

impl Exporter for TableExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let rows = &report.rows;
        let mut blocks: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            match blocks.iter_mut().find(|(corpus, _)| *corpus == row.corpus) {
                Some((_, block)) => block.push(i),
                None => blocks.push((&row.corpus, vec![i])),
            }
        }
        let mut cells = vec![Vec::new(); rows.len()];
        let mut titles = Vec::new();
        for (corpus, block) in &blocks {
            let first = &rows[block[0]];
            let alike = |f: fn(&SummaryRow) -> u64| block.iter().all(|&i| f(&rows[i]) == f(first));
            // Every strategy sees every reported line, so one count is the corpus's, and
            // the lines none searched are said once, above, rather than in every row.
            let mut title = format!("{}:", fit_path(corpus, TERMINAL - 1));
            if alike(|r| r.puzzles) {
                let count = format!("{} puzzles", thousands(first.puzzles));
                // A long path keeps its line; the count goes under it.
                let room = TERMINAL.saturating_sub(title.chars().count() + 1);
                let gap = if count.len() <= room { " " } else { "\n" };
                let _ = write!(title, "{gap}{count}");
            }
            let shared = alike(|r| r.invalid) && alike(|r| r.malformed);
            if shared {
                let unsearched = [
                    (first.invalid, UNSEARCHED[0]),
                    (first.malformed, UNSEARCHED[1]),
                ];
                if let Some(unsearched) = counted(&unsearched) {
                    let _ = write!(title, "\nnot searched: {unsearched}");
                }
            }
            titles.push(title);
            for &i in block {
                cells[i] = narrow_cells(&rows[i], !shared, report.metric);
            }
        }
        // One set of widths for every corpus's block, so that their columns line up; the
        // statuses take the room the others leave, on several lines if they need them.
        let headings: &[&str] = match report.metric {
            Metric::Time => &NARROW_HEADINGS,
            Metric::Instructions => &COUNTED_HEADINGS,
        };
        let mut widths = widths(headings, &cells);
        let others: usize = widths.iter().sum::<usize>() - widths[STATUSES];
        let room = TERMINAL.saturating_sub(others + 2 * (widths.len() - 1));
        let statuses: Vec<Vec<String>> = cells.iter().map(|c| wrap(&c[STATUSES], room)).collect();
        widths[STATUSES] = statuses
            .iter()
            .flatten()
            .map(|line| line.chars().count())
            .chain([headings[STATUSES].len()])
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for (k, ((_, block), title)) in blocks.iter().zip(titles).enumerate() {
            if k > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{title}");
            aligned_line(&mut out, headings, &widths, names);
            for &i in block {
                let mut row = std::mem::take(&mut cells[i]);
                for (n, line) in statuses[i].iter().enumerate() {
                    if n > 0 {
                        row.iter_mut().for_each(String::clear);
                    }
                    row[STATUSES].clone_from(line);
                    aligned_line(&mut out, &row, &widths, names);
                }
            }
        }
        notes(&mut out, report);
        out
    }
}

/// Exports the comparison as a table aligned for a terminal, with the unpaired rows and
/// how the verdicts were reached.
pub struct CompareTableExporter;

impl CompareExporter for CompareTableExporter {
    fn export(&self, cmp: &Comparison) -> String {
        let head = headings(cmp);
        let rows: Vec<Vec<String>> = cmp.rows.iter().map(|r| cells(cmp, r)).collect();
        // Names and the verdict read left-aligned, numbers right-aligned.
        let mut out = aligned_table(&head, &rows, |i| i < 2 || i + 1 == head.len());
        for u in &cmp.unpaired {
            let _ = writeln!(out, "unpaired: {}", unpaired_line(u));
        }
        let _ = writeln!(out, "{}", method(cmp, |s| format!("`{s}`")));
        out
    }
}
