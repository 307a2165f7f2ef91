//! The summary as aligned text tables for the terminal, and the `Exporter` trait that
//! every summary format implements.
//!
//! Two layouts: `TableExporter`, the default, fits 100 columns for a run of every strategy
//! on one corpus (each corpus named once, above its rows; the statuses folded into one
//! column; the figures a solver's author reads first), and `WideTableExporter` with every
//! field, as the Markdown summary has them.

use std::fmt::Write;
use std::time::Duration;

use crate::markdown::escape;
use crate::numbers::{duration, rate, short_duration, significant, thousands};
use sudoku_bench_core::results::{Metric, Status};
use sudoku_bench_core::summary::{SummaryReport, SummaryRow};

/// Turns a finished run's summary into one output format.
pub trait Exporter {
    /// The whole export, line endings included.
    fn export(&self, report: &SummaryReport) -> String;
}

/// Exports the summary as a table aligned for a terminal of 100 columns.
pub struct TableExporter;

/// Exports the summary as a table aligned for a terminal, with every field.
pub struct WideTableExporter;

/// A column: its heading and how a row shows in it.
struct Column {
    heading: &'static str,
    cell: fn(&SummaryRow) -> String,
    /// Shown only when some row has a non-zero value (rare statuses stay out of the way).
    optional: Option<fn(&SummaryRow) -> u64>,
}

fn columns() -> Vec<Column> {
    fn always(heading: &'static str, cell: fn(&SummaryRow) -> String) -> Column {
        Column {
            heading,
            cell,
            optional: None,
        }
    }
    fn when(heading: &'static str, value: fn(&SummaryRow) -> u64) -> Column {
        Column {
            heading,
            cell: |_| String::new(),
            optional: Some(value),
        }
    }
    vec![
        always("corpus", |r| r.corpus.clone()),
        always("strategy", |r| r.strategy.clone()),
        always("puzzles", |r| r.puzzles.to_string()),
        always("unique", |r| r.unique.to_string()),
        always("multiple", |r| r.multiple.to_string()),
        always("unsolvable", |r| r.unsolvable.to_string()),
        when("solved", |r| r.solved),
        when("invalid", |r| r.invalid),
        when("malformed", |r| r.malformed),
        when("aborted", |r| r.aborted),
        when("mismatch", |r| r.mismatches),
        when("failed", |r| r.failures),
        when("unreturned", |r| r.unreturned),
        always("puzzles/s/core", |r| rate(r.puzzles_per_s_per_core)),
        always("wall puzzles/s", |r| rate(r.wall_puzzles_per_s)),
        always("median puzzles/s/core", |r| {
            rate(r.median_puzzles_per_s_per_core)
        }),
        always("mean", |r| duration(r.mean_ns)),
        always("median", |r| duration(r.median_ns as f64)),
        always("p90", |r| duration(r.p90_ns as f64)),
        always("p99", |r| duration(r.p99_ns as f64)),
        always("max", |r| duration(r.max_ns as f64)),
        always("time in slowest 1%", |r| {
            format!("{:.1}%", r.slowest_1pct_share * 100.0)
        }),
        always("preempted", |r| r.preemptions.map_or("-".into(), thousands)),
        always("mean nodes", |r| {
            r.mean_nodes.map_or("-".into(), |n| format!("{n:.1}"))
        }),
        always("guesses/puzzle", |r| {
            r.mean_guesses.map_or("-".into(), |g| format!("{g:.2}"))
        }),
        always("no guess", |r| {
            r.no_guess_share
                .map_or("-".into(), |s| format!("{:.1}%", s * 100.0))
        }),
        when("instructions/puzzle", |r| {
            r.mean_instructions.map_or(0, |m| m.round() as u64)
        }),
        when("instructions", |r| r.total_instructions.unwrap_or(0)),
    ]
}

/// The columns shown for `report`, with every row's cells.
fn grid(report: &SummaryReport) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let shown: Vec<Column> = columns()
        .into_iter()
        .filter(|c| {
            c.optional
                .is_none_or(|v| report.rows.iter().any(|r| v(r) > 0))
        })
        .collect();
    let cells = report
        .rows
        .iter()
        .map(|r| {
            shown
                .iter()
                .map(|c| match c.optional {
                    Some(v) => v(r).to_string(),
                    None => (c.cell)(r),
                })
                .collect()
        })
        .collect();
    (shown.iter().map(|c| c.heading).collect(), cells)
}

/// Names (the first two columns) read left-aligned, numbers right-aligned.
const NAME_COLUMNS: usize = 2;

/// Each column's width in characters (not bytes: "µs"), over its heading and cells.
fn widths(headings: &[&str], cells: &[Vec<String>]) -> Vec<usize> {
    headings
        .iter()
        .enumerate()
        .map(|(i, h)| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// One line of an aligned table, two spaces between columns, none at its end.
fn aligned<S: AsRef<str>>(out: &mut String, values: &[S], widths: &[usize]) {
    let start = out.len();
    for (i, v) in values.iter().enumerate() {
        let v = v.as_ref();
        let pad = " ".repeat(widths[i].saturating_sub(v.chars().count()));
        if i < NAME_COLUMNS {
            let _ = write!(out, "{v}{pad}  ");
        } else {
            let _ = write!(out, "{pad}{v}  ");
        }
    }
    let trimmed = out[start..].trim_end().len();
    out.truncate(start + trimmed);
    out.push('\n');
}

/// A table aligned for a terminal, its heading first, two spaces between columns and none
/// at a line's end: column `i` left-aligned when `left(i)` (names), else right-aligned
/// (numbers).
pub(crate) fn aligned_table<S: AsRef<str>>(
    head: &[S],
    rows: &[Vec<String>],
    left: impl Fn(usize) -> bool,
) -> String {
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|v| v.chars().count())
                .chain([head[i].as_ref().chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let heading: Vec<&str> = head.iter().map(AsRef::as_ref).collect();
    for values in
        std::iter::once(heading).chain(rows.iter().map(|r| r.iter().map(String::as_str).collect()))
    {
        let start = out.len();
        for (i, v) in values.iter().enumerate() {
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
    out
}

/// The notes every text table ends with.
fn notes(out: &mut String, report: &SummaryReport) {
    if let Some(placement) = &report.placement {
        let _ = writeln!(out, "{}", placement.describe());
    }
    for note in pipe_notes(report) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(note) = budget_note(report) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(note) = report.interrupted_note() {
        let _ = writeln!(out, "{note}");
    }
    if let Some(note) = report.failed_note() {
        let _ = writeln!(out, "{note}");
    }
    if let Some(note) = report.machines_note() {
        let _ = writeln!(out, "{note}");
    }
}

impl Exporter for WideTableExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let (headings, cells) = grid(report);
        let widths = widths(&headings, &cells);
        let mut out = String::new();
        aligned(&mut out, &headings, &widths);
        for row in &cells {
            aligned(&mut out, row, &widths);
        }
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
fn fit_path(path: &str, width: usize) -> String {
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
fn wrap(statuses: &str, room: usize) -> Vec<String> {
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
fn statuses(r: &SummaryRow) -> Vec<(u64, &'static str)> {
    let counts = Status::ALL.map(|status| (r.count(status), status.as_str()));
    let faults = [
        (r.mismatches, "mismatch"),
        (r.failures, "failed"),
        (r.unreturned, "unreturned"),
    ];
    counts.into_iter().chain(faults).collect()
}

/// The non-zero counts, folded: "1200 unique, 3 multiple, 2 aborted"; `None` if none.
fn counted(counts: &[(u64, &str)]) -> Option<String> {
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
            aligned(&mut out, headings, &widths);
            for &i in block {
                let mut row = std::mem::take(&mut cells[i]);
                for (n, line) in statuses[i].iter().enumerate() {
                    if n > 0 {
                        row.iter_mut().for_each(String::clear);
                    }
                    row[STATUSES].clone_from(line);
                    aligned(&mut out, &row, &widths);
                }
            }
        }
        notes(&mut out, report);
        out
    }
}

/// The summary as a Markdown table, for READMEs and pull-request comments, with the
/// machine and settings it was measured with.
pub struct MarkdownExporter;

/// `report` with every name in it that the user chose or the machine reported (corpus
/// paths, strategies, CPU models) escaped for Markdown, so that the table and the notes that
/// quote them show them as they are.
fn markdown_names(report: &SummaryReport) -> SummaryReport {
    let mut report = report.clone();
    for row in &mut report.rows {
        row.corpus = escape(&row.corpus);
        row.strategy = escape(&row.strategy);
    }
    for pipe in &mut report.pipes {
        pipe.strategy = escape(&pipe.strategy);
    }
    for solver in &mut report.resources {
        solver.strategy = escape(&solver.strategy);
    }
    for machine in std::iter::once(&mut report.machine).chain(&mut report.machines) {
        machine.cpu = escape(&machine.cpu);
    }
    report
}

impl Exporter for MarkdownExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let report = &markdown_names(report);
        let (headings, cells) = grid(report);
        let mut out = String::new();
        let placement = report
            .placement
            .as_ref()
            .map_or(String::new(), |p| format!(" ({})", p.describe()));
        let _ = writeln!(
            out,
            "{} {} on {} ({} cores), {} threads{placement}, max {} solutions, node budget {}, {}\n",
            report.tool,
            report.version,
            report.machine.cpu,
            report.machine.cores,
            report.threads,
            report.max_solutions,
            report.max_nodes.map_or("none".to_string(), thousands),
            report.date
        );
        let _ = writeln!(out, "| {} |", headings.join(" | "));
        let rule: Vec<&str> = (0..headings.len())
            .map(|i| if i < NAME_COLUMNS { "---" } else { "---:" })
            .collect();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for row in cells {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        for note in pipe_notes(report) {
            let _ = writeln!(out, "\n{note}");
        }
        if let Some(note) = budget_note(report) {
            let _ = writeln!(out, "\n{note}");
        }
        if let Some(note) = report.interrupted_note() {
            let _ = writeln!(out, "\n**{note}**");
        }
        if let Some(note) = report.failed_note() {
            let _ = writeln!(out, "\n**{note}**");
        }
        if let Some(note) = report.machines_note() {
            let _ = writeln!(out, "\n**{note}**");
        }
        for warning in sudoku_bench_analysis::noise::warnings(report) {
            let _ = writeln!(out, "\n**warning:** {warning}");
        }
        out
    }
}

/// The line that says why searches were `aborted` and how to let them run to their end,
/// when some were for want of a budget (a solver's failures are `aborted` too, and say why
/// themselves): a first run's `958 unique, 42 aborted` reads as a failure otherwise. The
/// summary does not tell the node budget's aborts from the timeout's, so it names each
/// budget that could have stopped them: the node budget only bounds strategies that count
/// nodes.
fn budget_note(report: &SummaryReport) -> Option<String> {
    let stopped: Vec<&SummaryRow> = report
        .rows
        .iter()
        .filter(|r| r.aborted > r.failures)
        .collect();
    let nodes = report
        .max_nodes
        .filter(|_| stopped.iter().any(|r| r.mean_nodes.is_some()))
        .map(|n| format!("--max-nodes {n}"));
    let time = report.timeout_ns.map(|ns| {
        format!(
            "--timeout {}",
            humantime::format_duration(Duration::from_nanos(ns))
        )
    });
    match (nodes, time) {
        (Some(nodes), Some(time)) => Some(format!(
            "aborted: out of node budget ({nodes}) or time ({time}); 0 lifts either limit"
        )),
        (Some(limit), None) => Some(format!("aborted: out of node budget ({limit}); 0 lifts it")),
        (None, Some(limit)) => Some(format!("aborted: out of time ({limit}); 0 lifts it")),
        (None, None) => None,
    }
    .filter(|_| !stopped.is_empty())
}

/// One line per `cmd:` solver on what part of its times is the pipe, and one per solver
/// in processes of its own on what they used.
fn pipe_notes(report: &SummaryReport) -> impl Iterator<Item = String> + '_ {
    let pipes = report.pipes.iter().map(|p| {
        format!(
            "cmd solver {}: a round trip through the pipe costs ~{}, included in its times",
            p.strategy,
            duration(p.round_trip_ns as f64)
        )
    });
    let resources = report.resources.iter().map(|r| {
        format!(
            "solver {}: {} process{}, peak memory {:.1} MiB, CPU time {}",
            r.strategy,
            r.processes,
            if r.processes == 1 { "" } else { "es" },
            r.max_rss_kib as f64 / 1024.0,
            duration(r.cpu_ns as f64)
        )
    });
    pipes.chain(resources)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `strategy` on `corpus` with the given statuses (in `Status::ALL`'s order)
    /// and figures.
    fn row(corpus: &str, strategy: &str, counts: [u64; 7]) -> SummaryRow {
        SummaryRow {
            corpus: corpus.into(),
            strategy: strategy.into(),
            puzzles: counts.iter().sum(),
            unique: counts[0],
            multiple: counts[1],
            unsolvable: counts[2],
            solved: counts[3],
            invalid: counts[4],
            malformed: counts[5],
            aborted: counts[6],
            mismatches: 0,
            failures: 0,
            unreturned: 0,
            searched: counts.iter().sum::<u64>() - counts[4] - counts[5],
            puzzles_per_s_per_core: 106_636.4,
            wall_puzzles_per_s: 149_398.0,
            median_puzzles_per_s_per_core: 126_470.0,
            slowest_1pct_share: 0.057,
            preemptions: Some(4),
            total_time_ns: 13_738_000,
            wall_ns: 9_806_000,
            mean_ns: 9_378.0,
            median_ns: 7_907,
            p90_ns: 16_055,
            p99_ns: 34_495,
            max_ns: 125_687,
            mean_nodes: Some(426_864.2),
            mean_guesses: None,
            no_guess_share: None,
            total_instructions: None,
            mean_instructions: None,
        }
    }

    fn report(rows: Vec<SummaryRow>) -> SummaryReport {
        let settings = sudoku_bench_core::runner::Settings::default();
        SummaryReport {
            rows,
            ..settings.summary_report(&sudoku_bench_core::summary::Summary::default(), 2, 1)
        }
    }

    /// A report of no rows, `interrupted` with `not_reached` puzzles left.
    fn cut(interrupted: bool, not_reached: Option<u64>) -> SummaryReport {
        SummaryReport {
            interrupted,
            not_reached,
            ..report(Vec::new())
        }
    }

    #[test]
    fn statuses_fold_into_the_non_zero_counts_and_keep_faults_in_sight() {
        let folded = |r: &SummaryRow| counted(&statuses(r));
        let mut r = row("c", "s", [1200, 3, 0, 0, 0, 0, 2]);
        assert_eq!(folded(&r).unwrap(), "1200 unique, 3 multiple, 2 aborted");
        r.mismatches = 4;
        r.failures = 1;
        r.unreturned = 7;
        assert_eq!(
            folded(&r).unwrap(),
            "1200 unique, 3 multiple, 2 aborted, 4 mismatch, 1 failed, 7 unreturned"
        );
        assert_eq!(folded(&row("c", "s", [0; 7])), None);
    }

    #[test]
    fn the_default_table_names_each_corpus_once_above_its_rows() {
        let long = "../shared/datasets/puzzles3_magictour_top1465_with_a_much_longer_name";
        let rows = vec![
            row(long, "naive", [1146, 0, 0, 0, 0, 0, 319]),
            row(long, "fast", [1465, 0, 0, 0, 0, 0, 0]),
            row("b.txt", "naive", [5, 0, 0, 0, 1, 2, 0]),
            row("b.txt", "fast", [5, 0, 0, 0, 1, 2, 0]),
        ];
        let text = TableExporter.export(&report(rows));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("{long}: 1,465 puzzles"), "{text}");
        assert!(lines[1].starts_with("strategy  statuses"), "{text}");
        assert!(
            lines[2].starts_with("naive     1146 unique, 319 aborted"),
            "{text}"
        );
        assert!(lines[3].starts_with("fast      1465 unique "), "{text}");
        assert_eq!(lines[4], "", "{text}");
        assert_eq!(lines[5], "b.txt: 8 puzzles", "{text}");
        assert_eq!(lines[6], "not searched: 1 invalid, 2 malformed", "{text}");
        assert!(lines[7].starts_with("strategy"), "{text}");
        assert!(lines[8].starts_with("naive     5 unique   "), "{text}");
        assert_eq!(lines.len(), 10, "{text}");
        // The path is said once per block, never in the rows.
        assert_eq!(text.matches(long).count(), 1, "{text}");
        // Columns line up across blocks: every heading line is the same.
        assert_eq!(lines[1], lines[7]);
        let cells: Vec<&str> = lines[3].split("  ").filter(|c| !c.is_empty()).collect();
        assert_eq!(
            cells.iter().map(|c| c.trim()).collect::<Vec<_>>(),
            [
                "fast",
                "1465 unique",
                "106,636",
                "7.91 µs",
                "34.5 µs",
                "126 µs",
                "427k",
                "-"
            ],
            "{text}"
        );
    }

    #[test]
    fn a_corpus_path_too_long_for_the_line_is_cut_at_its_start_and_the_count_moves_down() {
        let long = format!("/data/{}/puzzles.txt", "d".repeat(120));
        let mut summary = sudoku_bench_core::summary::Summary::default();
        summary.group(&long, "fast");
        let settings = sudoku_bench_core::runner::Settings::default();
        let text = TableExporter.export(&settings.summary_report(&summary, 1, 1));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{text}");
        assert!(
            lines[0].starts_with('…') && lines[0].ends_with("/puzzles.txt:"),
            "{text}"
        );
        assert_eq!(lines[1], "0 puzzles", "{text}");
        assert_eq!(fit_path("short.txt", 99), "short.txt");
    }

    #[test]
    fn the_default_table_fits_100_columns_where_the_wide_one_does_not() {
        let rows: Vec<SummaryRow> = sudoku_bench_core::strategy::STRATEGIES
            .iter()
            .map(|s| {
                let mut r = row(
                    "../shared/datasets/puzzles3_magictour_top1465",
                    &s.name,
                    [1146, 0, 0, 0, 0, 0, 319],
                );
                r.mean_guesses = Some(2908.84);
                r.max_ns = 1_535_000_000;
                r
            })
            .collect();
        let report = report(rows);
        let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap();
        let narrow = TableExporter.export(&report);
        assert!(widest(&narrow) <= 100, "{narrow}");
        let wide = WideTableExporter.export(&report);
        assert!(widest(&wide) > 100, "{wide}");
        for heading in [
            "corpus",
            "wall puzzles/s",
            "p90",
            "time in slowest 1%",
            "no guess",
        ] {
            assert!(wide.lines().next().unwrap().contains(heading), "{wide}");
        }
    }

    #[test]
    fn statuses_wrap_rather_than_widen_the_table() {
        let mut many = row("c", "a-solver-with-a-long-name", [1200, 3, 17, 0, 0, 0, 2]);
        many.mismatches = 4;
        many.failures = 1;
        let rows = vec![many, row("c", "fast", [1222, 0, 0, 0, 0, 0, 0])];
        let text = TableExporter.export(&report(rows));
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[2].starts_with("a-solver-with-a-long-name  1200 unique, "),
            "{text}"
        );
        // The rest of the row's statuses on lines of their own, in their column.
        let rest: Vec<&str> = lines[3..lines.len() - 1].iter().map(|l| l.trim()).collect();
        assert!(
            lines[3].starts_with("                           "),
            "{text}"
        );
        let all = format!(
            "{} {}",
            lines[2].split("  ").nth(1).unwrap(),
            rest.join(" ")
        );
        assert_eq!(
            all, "1200 unique, 3 multiple, 17 unsolvable, 2 aborted, 4 mismatch, 1 failed",
            "{text}"
        );
        assert!(lines.last().unwrap().starts_with("fast "), "{text}");
        assert_eq!(wrap("-", 3), ["-"]);
        assert_eq!(wrap("1 a, 2 b, 3 c", 9), ["1 a, 2 b,", "3 c"]);
        assert_eq!(wrap("1 a, 2 b, 3 c", 100), ["1 a, 2 b, 3 c"]);
        // No room at all: one count a line, never split.
        assert_eq!(wrap("10 a, 2 b", 0), ["10 a,", "2 b"]);
    }

    #[test]
    fn nothing_timed_shows_no_figures() {
        let mut r = row("c", "s", [0, 0, 0, 0, 2, 1, 0]);
        r.mean_nodes = None;
        let text = TableExporter.export(&report(vec![r]));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..2],
            ["c: 3 puzzles", "not searched: 2 invalid, 1 malformed"]
        );
        let cells: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(cells, ["s", "-", "-", "-", "-", "-", "-", "-"], "{text}");
    }

    #[test]
    fn unsearched_lines_stay_in_the_rows_when_the_strategies_disagree_on_them() {
        // Not from a run (every strategy sees the same lines), but from a summary put
        // together by hand: nothing is hidden then.
        let rows = vec![
            row("c", "a", [5, 0, 0, 0, 1, 0, 0]),
            row("c", "b", [4, 0, 0, 0, 2, 0, 0]),
        ];
        let text = TableExporter.export(&report(rows));
        assert!(text.starts_with("c: 6 puzzles\n"), "{text}");
        assert!(text.contains("a         5 unique, 1 invalid  "), "{text}");
        assert!(text.contains("b         4 unique, 2 invalid  "), "{text}");
    }

    #[test]
    fn unreturned_shows_only_when_some_row_has_any() {
        use sudoku_bench_core::results::{PuzzleResult, Status};
        use sudoku_bench_core::summary::Summary;
        let mut summary = Summary::default();
        let g = summary.group("c", "lib");
        let result = PuzzleResult {
            status: Status::Unique,
            solutions: Some(1),
            time_ns: Some(10),
            solution: Some(sudoku_bench_core::strategy::testkit::grid(
                sudoku_bench_core::strategy::testkit::EASY_SOLUTION,
            )),
            ..PuzzleResult::default()
        };
        summary.add(g, &result);
        let settings = sudoku_bench_core::runner::Settings::default();
        let table = |s: &Summary| WideTableExporter.export(&settings.summary_report(s, 1, 1));
        assert!(!table(&summary).contains("unreturned"));
        summary.add(
            g,
            &PuzzleResult {
                solution: None,
                ..result
            },
        );
        let shown = table(&summary);
        let heading = shown.lines().next().unwrap();
        assert!(heading.contains("unreturned"), "{shown}");
        let row: Vec<&str> = shown.lines().nth(1).unwrap().split_whitespace().collect();
        let column = heading
            .split_whitespace()
            .position(|h| h == "unreturned")
            .unwrap();
        // Headings with a space ("puzzles/s/core" has none before it) would shift this.
        assert_eq!(row[column], "1", "{shown}");
    }

    #[test]
    fn pipe_costs_are_stated_under_the_tables_and_kept_in_json() {
        use crate::json::JsonExporter;
        use sudoku_bench_core::summary::PipeCost;
        let mut piped = cut(false, Some(0));
        piped.pipes.push(PipeCost {
            strategy: "py".into(),
            round_trip_ns: 52_449,
        });
        let note = "cmd solver py: a round trip through the pipe costs ~52.449 µs, included \
                    in its times";
        for exporter in [&TableExporter as &dyn Exporter, &MarkdownExporter] {
            assert!(exporter.export(&piped).contains(note));
            assert!(!exporter.export(&cut(false, Some(0))).contains("cmd solver"));
        }
        let back: SummaryReport = serde_json::from_str(&JsonExporter.export(&piped)).unwrap();
        assert_eq!(back, piped);
        assert!(!JsonExporter.export(&cut(false, Some(0))).contains("pipes"));
    }

    /// Names are the user's (a corpus path, a strategy from the library, a CPU model): in
    /// Markdown none may split a cell or become HTML, in the table or in a note quoting it.
    #[test]
    fn markdown_escapes_the_names_in_its_cells_and_notes() {
        use sudoku_bench_core::summary::PipeCost;
        let name = "x|<i>&`y`";
        let mut report = report(vec![row("a|<b>.txt", name, [3, 0, 0, 0, 0, 0, 0])]);
        report.pipes.push(PipeCost {
            strategy: name.into(),
            round_trip_ns: 1_000,
        });
        report.machine.cpu = "cpu <fast> | 2".into();
        let md = MarkdownExporter.export(&report);
        let shown = "x\\|&lt;i&gt;&amp;\\`y\\`";
        assert!(
            md.contains(&format!("\n| a\\|&lt;b&gt;.txt | {shown} | 3 |")),
            "{md}"
        );
        assert!(
            md.contains(&format!("cmd solver {shown}: a round trip")),
            "{md}"
        );
        assert!(md.contains("on cpu &lt;fast&gt; \\| 2 ("), "{md}");
        assert!(!md.contains('<'), "{md}");
        assert_eq!(md.matches('`').count(), md.matches("\\`").count(), "{md}");
        // The text table shows the names as they are.
        let text = WideTableExporter.export(&report);
        assert!(text.contains(name) && text.contains("a|<b>.txt"), "{text}");
    }

    #[test]
    fn aborted_searches_are_explained_in_one_line_with_the_limits_that_lift_them() {
        let line = |r: &SummaryReport| {
            let table = TableExporter.export(r);
            let notes: Vec<String> = table
                .lines()
                .filter(|l| l.starts_with("aborted:"))
                .map(String::from)
                .collect();
            assert!(notes.len() <= 1, "{table}");
            assert!(notes.iter().all(|n| n.chars().count() <= 100), "{table}");
            if let Some(note) = notes.first() {
                assert!(WideTableExporter.export(r).contains(note.as_str()));
            }
            notes.into_iter().next()
        };
        let mut r = report(vec![
            row("c", "naive", [958, 0, 0, 0, 0, 0, 42]),
            row("c", "fast", [1000, 0, 0, 0, 0, 0, 0]),
        ]);
        r.max_nodes = Some(1_000_000);
        r.timeout_ns = Some(10_000_000_000);
        assert_eq!(
            line(&r).as_deref(),
            Some("aborted: out of node budget (--max-nodes 1000000) or time (--timeout 10s); 0 lifts either limit")
        );
        r.timeout_ns = None;
        assert_eq!(
            line(&r).as_deref(),
            Some("aborted: out of node budget (--max-nodes 1000000); 0 lifts it")
        );
        // A solver from outside counts no nodes: no node budget bounds it.
        r.rows[0].mean_nodes = None;
        r.timeout_ns = Some(2_500_000_000);
        assert_eq!(
            line(&r).as_deref(),
            Some("aborted: out of time (--timeout 2s 500ms); 0 lifts it")
        );
        // Its failures are aborted too, and say why in their rows and warnings.
        r.rows[0].failures = 42;
        assert_eq!(line(&r), None);
        let done = report(vec![row("c", "fast", [1000, 0, 0, 0, 0, 0, 0])]);
        assert_eq!(line(&done), None);
        assert!(MarkdownExporter
            .export(&r)
            .lines()
            .all(|l| !l.starts_with("aborted:")));
        r.rows[0].failures = 0;
        assert!(MarkdownExporter
            .export(&r)
            .lines()
            .any(|l| l == "aborted: out of time (--timeout 2s 500ms); 0 lifts it"));
    }

    #[test]
    fn an_interrupted_report_says_so_and_what_was_not_reached() {
        use crate::json::JsonExporter;
        assert_eq!(cut(false, Some(0)).interrupted_note(), None);
        let counted = cut(true, Some(12));
        let unknown = cut(true, None);
        for exporter in [&TableExporter as &dyn Exporter, &MarkdownExporter] {
            assert!(exporter.export(&counted).contains("12 puzzles not reached"));
            assert!(exporter
                .export(&unknown)
                .contains("an unknown number of puzzles not reached"));
            assert!(!exporter
                .export(&cut(false, Some(0)))
                .contains("interrupted"));
        }
        let json = JsonExporter.export(&unknown);
        assert!(json.contains("\"interrupted\": true") && json.contains("\"not_reached\": null"));
    }
}
