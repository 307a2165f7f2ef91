//! The summary as an aligned text table for the terminal, and the `Exporter` trait that
//! every summary format implements.

use std::fmt::Write;

use super::summary::{SummaryReport, SummaryRow};

/// Turns a finished run's summary into one output format.
pub trait Exporter {
    /// The whole export, line endings included.
    fn export(&self, report: &SummaryReport) -> String;
}

/// Exports the summary as a table aligned for a terminal.
pub struct TableExporter;

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
    ]
}

/// A rate with thousands separators and no false precision.
pub fn rate(per_s: f64) -> String {
    if per_s >= 100.0 {
        thousands(per_s.round() as u64)
    } else {
        format!("{per_s:.1}")
    }
}

/// `n` with commas between groups of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Nanoseconds in the unit that keeps 3 significant digits.
pub fn duration(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.3} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
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

impl Exporter for TableExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let (headings, cells) = grid(report);
        let widths: Vec<usize> = headings
            .iter()
            .enumerate()
            .map(|(i, h)| {
                cells
                    .iter()
                    .map(|row| row[i].chars().count())
                    .chain([h.len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let mut line = |values: &mut dyn Iterator<Item = String>| {
            for (i, v) in values.enumerate() {
                let pad = " ".repeat(widths[i].saturating_sub(v.chars().count()));
                if i < NAME_COLUMNS {
                    let _ = write!(out, "{v}{pad}  ");
                } else {
                    let _ = write!(out, "{pad}{v}  ");
                }
            }
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
            out.push('\n');
        };
        line(&mut headings.iter().map(|h| h.to_string()));
        for row in cells {
            line(&mut row.into_iter());
        }
        for note in report.pipe_notes() {
            let _ = writeln!(out, "{note}");
        }
        if let Some(note) = report.interrupted_note() {
            let _ = writeln!(out, "{note}");
        }
        out
    }
}

/// The summary as a Markdown table, for READMEs and pull-request comments, with the
/// machine and settings it was measured with.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let (headings, cells) = grid(report);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} {} on {} ({} cores), {} threads, max {} solutions, node budget {}, {}\n",
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
        for note in report.pipe_notes() {
            let _ = writeln!(out, "\n{note}");
        }
        if let Some(note) = report.interrupted_note() {
            let _ = writeln!(out, "\n**{note}**");
        }
        for warning in super::noise::warnings(report) {
            let _ = writeln!(out, "\n**warning:** {warning}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_readable() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(rate(12.345), "12.3");
        assert_eq!(rate(304_000.4), "304,000");
        assert_eq!(duration(850.0), "850 ns");
        assert_eq!(duration(12_345.0), "12.345 µs");
        assert_eq!(duration(2_500_000.0), "2.500 ms");
        assert_eq!(duration(3e9), "3.000 s");
    }

    #[test]
    fn unreturned_shows_only_when_some_row_has_any() {
        use crate::report::{PuzzleResult, Status, Summary};
        let mut summary = Summary::default();
        let g = summary.group("c", "lib");
        let result = PuzzleResult {
            status: Status::Unique,
            solutions: Some(1),
            time_ns: Some(10),
            solution: Some(crate::strategy::testkit::grid(
                crate::strategy::testkit::EASY_SOLUTION,
            )),
            ..PuzzleResult::default()
        };
        summary.add(g, &result);
        let settings = crate::runner::Settings::default();
        let table = |s: &Summary| TableExporter.export(&SummaryReport::new(s, &settings, 1, 1));
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
}
