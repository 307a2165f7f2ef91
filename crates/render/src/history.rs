//! What `history check` prints: the change points found, a table per machine and settings
//! (a series never mixes them), and what was examined with which knobs.

use std::fmt::Write;

use crate::export::table::aligned_table;
use crate::numbers::rate;
use sudoku_bench_analysis::history::changes::Detection;
use sudoku_bench_analysis::history::{Change, Findings, Measure};

/// Digits of a commit's hash shown.
const SHORT: usize = 10;

/// A commit's hash as tables show it: its first ten characters.
pub(crate) fn short(commit: &str) -> String {
    commit.chars().take(SHORT).collect()
}

/// The columns of a table of changes, as `history check` prints it and the page shows it.
pub(crate) const CHANGE_HEAD: [&str; 9] = [
    "corpus",
    "strategy",
    "measure",
    "commits",
    "before",
    "after",
    "change",
    "direction",
    "p",
];

/// Whether a column of [`CHANGE_HEAD`] (or the `since` column after it) reads left-aligned:
/// names, the range and the direction; numbers read right-aligned.
pub(crate) fn change_left(column: usize) -> bool {
    matches!(column, 0..=3 | 7 | 9)
}

/// A change's cells under [`CHANGE_HEAD`].
pub(crate) fn change_cells(c: &Change) -> Vec<String> {
    vec![
        c.key.corpus.name.clone(),
        c.key.strategy.clone(),
        c.measure.name().to_string(),
        format!("{}..{}", short(&c.before), short(&c.after)),
        level(c.measure, c.point.mean_before),
        level(c.measure, c.point.mean_after),
        change(c),
        c.direction().to_string(),
        c.point
            .p_value
            .map_or_else(|| "exact".to_string(), |p| format!("{p:.4}")),
    ]
}

/// Changes grouped by machine and settings, in order (a series never mixes them).
pub(crate) fn by_machine(changes: &[Change]) -> Vec<(&str, &str, Vec<&Change>)> {
    let mut groups: Vec<(&str, &str, Vec<&Change>)> = Vec::new();
    for c in changes {
        match groups.last_mut() {
            Some((m, s, list)) if *m == c.key.machine && *s == c.key.settings => list.push(c),
            _ => groups.push((&c.key.machine, &c.key.settings, vec![c])),
        }
    }
    groups
}

/// A knob as said under a report: `p-value 0.01, minimal change 5%, instruction counts
/// 1%`.
pub(crate) fn knobs_text(knobs: &Detection) -> String {
    format!(
        "p-value {}, minimal change {}%, instruction counts {}%",
        knobs.p_value,
        knobs.min_change * 100.0,
        knobs.count_threshold * 100.0
    )
}

/// A mean of `measure` as read: a rate per second, a ratio, a count per puzzle.
pub(crate) fn level(measure: Measure, value: f64) -> String {
    match measure {
        Measure::MedianRate => format!("{}/s", rate(value)),
        Measure::TimeRatio | Measure::RelativeTime => format!("{value:.3}x"),
        Measure::Nodes | Measure::Guesses => format!("{value:.2}"),
        Measure::Instructions => format!("{value:.0}"),
    }
}

/// A change's size: `-20.0%`.
pub(crate) fn change(c: &Change) -> String {
    let ratio = c.point.ratio();
    if ratio.is_finite() {
        format!("{:+.1}%", (ratio - 1.0) * 100.0)
    } else {
        "from 0".to_string()
    }
}

/// The report of `checked`, found with `knobs`; with `since` (a commit's place in
/// [`Findings::commits`]), the changes after it are marked and the slowdowns among them
/// counted.
pub fn changes_text(checked: &Findings, knobs: &Detection, since: Option<usize>) -> String {
    let mut out = String::new();
    let mut head = CHANGE_HEAD.to_vec();
    if since.is_some() {
        head.push("since");
    }
    for (machine, settings, list) in &by_machine(&checked.changes) {
        let _ = writeln!(out, "machine {machine}; {settings}");
        let rows: Vec<Vec<String>> = list
            .iter()
            .map(|c| {
                let mut row = change_cells(c);
                if let Some(at) = since {
                    row.push(if c.after_index > at { "yes" } else { "" }.to_string());
                }
                row
            })
            .collect();
        out.push_str(&aligned_table(&head, &rows, change_left));
        out.push('\n');
    }
    let examined = format!(
        "{} series over {} commits ({})",
        checked.series,
        checked.commits.len(),
        knobs_text(knobs)
    );
    let _ = match checked.changes.len() {
        0 => writeln!(out, "no change in {examined}"),
        n => writeln!(out, "{n} change(s) in {examined}"),
    };
    if let Some(at) = since {
        let slower = checked.slowdowns_since(at);
        let commit = short(&checked.commits[at].commit);
        let _ = match slower {
            0 => writeln!(out, "since {commit}: no slowdown"),
            n => writeln!(out, "since {commit}: {n} slowdown(s)"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_analysis::history::changes::ChangePoint;
    use sudoku_bench_analysis::history::store::{CommitRecord, CorpusKey, SeriesKey};

    fn checked(before: &str, after: &str) -> Findings {
        let commit = |c: &str| CommitRecord {
            commit: c.to_string(),
            time: 0,
            branch: None,
        };
        Findings {
            commits: vec![commit(before), commit(after)],
            series: 3,
            changes: vec![Change {
                key: SeriesKey {
                    machine: "cpu, 2 cores, linux x86_64".into(),
                    settings: "-j 2".into(),
                    corpus: CorpusKey {
                        identity: "1:2:0000000000000003".into(),
                        name: "c.txt".into(),
                    },
                    strategy: "fast".into(),
                },
                measure: Measure::MedianRate,
                before: before.to_string(),
                after: after.to_string(),
                after_index: 1,
                point: ChangePoint {
                    before: 0,
                    after: 1,
                    mean_before: 1000.0,
                    mean_after: 800.0,
                    p_value: Some(0.002),
                },
            }],
            points: Default::default(),
        }
    }

    #[test]
    fn changes_are_a_table_per_machine_with_what_was_examined() {
        let text = changes_text(
            &checked("0123456789abcdef", "fedcba9876543210"),
            &Detection::default(),
            Some(0),
        );
        assert_eq!(
            text,
            "machine cpu, 2 cores, linux x86_64; -j 2\n\
             corpus  strategy  measure      commits                  before  after  change  direction       p  since\n\
             c.txt   fast      median rate  0123456789..fedcba9876  1,000/s  800/s  -20.0%  slower     0.0020  yes\n\
             \n\
             1 change(s) in 3 series over 2 commits (p-value 0.01, minimal change 5%, instruction counts 1%)\n\
             since 0123456789: 1 slowdown(s)\n"
        );
    }

    #[test]
    fn a_commit_that_is_not_ascii_is_shown_cut_at_a_character() {
        // Nine ASCII letters and then a two-byte one: cut at byte 10, it would split it.
        let text = changes_text(
            &checked("abcdefghié-1", "abcdefghié-2"),
            &Detection::default(),
            None,
        );
        assert!(text.contains("abcdefghié..abcdefghié"), "{text}");
    }
}
