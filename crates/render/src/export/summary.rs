//! What the run summary shows in every format that lays it out as a table (the terminal's
//! and Markdown's): its columns, and the notes under the table.

use std::time::Duration;

use crate::numbers::{duration, rate, thousands};
use sudoku_bench_core::summary::{SummaryReport, SummaryRow};

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
pub(crate) fn grid(report: &SummaryReport) -> (Vec<&'static str>, Vec<Vec<String>>) {
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
pub(crate) const NAME_COLUMNS: usize = 2;

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

/// When a timed run holds solvers of both kinds, those in sudoku-bench's own threads
/// (built-in, `--in-process`) and those in processes of their own (`lib:` isolated,
/// `cmd:`): a ratio across the kinds holds where each ran besides its code, since a
/// solver's process is switched to for each batch and the same code reads slower there.
/// Counted runs are exempt: a switch moves no instruction count.
fn kinds_note(report: &SummaryReport) -> Option<String> {
    if !report.metric.is_time() || report.resources.is_empty() {
        return None;
    }
    let own: Vec<&str> = report.resources.iter().map(|r| &*r.strategy).collect();
    let mut threads: Vec<&str> = Vec::new();
    for row in &report.rows {
        if !own.contains(&&*row.strategy) && !threads.contains(&&*row.strategy) {
            threads.push(&row.strategy);
        }
    }
    if threads.is_empty() {
        return None;
    }
    Some(format!(
        "{} ran in sudoku-bench's threads, {} in processes of {}: their times differ by \
         where they ran as well as by their code; to compare two builds of one solver, run \
         both the same way (docs/ci.md#like-with-like)",
        in_words(&threads),
        in_words(&own),
        if own.len() == 1 {
            "its own"
        } else {
            "their own"
        }
    ))
}

/// "a", "a and b", "a, b and c".
fn in_words(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The notes under a summary's table, in order, each with whether it is stressed (Markdown
/// sets those in bold): the solvers' costs, the budgets that aborted searches, then what
/// makes the numbers incomplete or mixed.
pub(crate) fn notes(report: &SummaryReport) -> Vec<(String, bool)> {
    let plain = pipe_notes(report)
        .chain(kinds_note(report))
        .chain(budget_note(report));
    let stressed = [
        report.interrupted_note(),
        report.failed_note(),
        report.machines_note(),
    ];
    plain
        .map(|note| (note, false))
        .chain(stressed.into_iter().flatten().map(|note| (note, true)))
        .collect()
}
