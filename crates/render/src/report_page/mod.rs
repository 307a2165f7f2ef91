//! The report's HTML: settings at the top, then one section per corpus, built with
//! `html::Page` and drawn with `plot::Chart`.

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::export::html::{Align, Page};
use crate::numbers::{duration, rate, short_duration, thousands};
use crate::plot::{Axis, Chart, Mark};
use sudoku_bench_analysis::noise;
use sudoku_bench_analysis::report::classes::{self, Classing};
use sudoku_bench_analysis::report::read::{CompactRow, Group, Inputs};
use sudoku_bench_analysis::report::stats::{self, par2, KnownLimits, Par2, Stats};
use sudoku_bench_analysis::report::{by_column, ReportError};
use sudoku_bench_core::corpus::ReadAs;
use sudoku_bench_core::results::Status;
use sudoku_bench_core::strategy;
use sudoku_bench_core::summary::SummaryReport;

/// What the user asks of a report beyond its inputs.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Pairs of strategies (labels as the report shows them) to draw against each other;
    /// none: per corpus, the user's best solver against the best built-in strategy, or
    /// their two best against each other, else the two best built-ins (best: fewest
    /// aborted searches, then least summed time).
    pub scatter: Vec<(String, String)>,
    /// A column of the CSV corpora to break the times down by.
    pub by: Option<String>,
    /// How `by`'s corpora are read again: as the run read them.
    pub read_as: ReadAs,
}

/// The report as one HTML document.
pub fn render(inputs: &Inputs, options: &ReportOptions) -> Result<String, ReportError> {
    let labels = distinct_labels(inputs);
    for (a, b) in &options.scatter {
        for name in [a, b] {
            if !labels.contains(name) {
                return Err(ReportError::UnknownStrategy {
                    name: name.clone(),
                    known: labels.join(", "),
                });
            }
        }
    }
    let mut page = Page::new("sudoku-bench report");
    let csvs: Vec<String> = inputs
        .csvs
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    page.meta(&format!("per-puzzle rows from {}", csvs.join(", ")));
    settings(&mut page, inputs);
    let mut corpora: Vec<&str> = Vec::new();
    for g in &inputs.groups {
        if !corpora.contains(&g.corpus.as_str()) {
            corpora.push(&g.corpus);
        }
    }
    let by = by_columns(inputs, &corpora, options)?;
    for (i, corpus) in corpora.into_iter().enumerate() {
        let groups: Vec<&Group> = inputs
            .groups
            .iter()
            .filter(|g| g.corpus == corpus)
            .collect();
        let by = by
            .as_ref()
            .map(|(column, values)| (column.as_str(), &values[i]));
        let part = CorpusPart {
            corpus,
            groups: &groups,
            labels: &labels,
        };
        section(&mut page, inputs, &part, options, by)?;
    }
    Ok(page.finish())
}

/// `--by`'s column and its values in each corpus (in `corpora`'s order), or why a corpus
/// has none: a text corpus among CSV ones goes without the table, but a column that no
/// corpus has is an error.
type ByColumn = (String, Vec<ColumnValues>);

/// A corpus's (line, value) of `--by`'s column, or why it has none.
type ColumnValues = Result<Vec<(u64, String)>, ReportError>;

fn by_columns(
    inputs: &Inputs,
    corpora: &[&str],
    options: &ReportOptions,
) -> Result<Option<ByColumn>, ReportError> {
    let Some(column) = &options.by else {
        return Ok(None);
    };
    let mut values = by_column::read_columns(inputs, corpora, column, &options.read_as)?;
    if values.iter().all(Result::is_err) {
        if values.len() == 1 {
            return Err(values.pop().expect("one corpus").unwrap_err());
        }
        let why: Vec<String> = values
            .into_iter()
            .filter_map(Result::err)
            .map(|e| e.to_string())
            .collect();
        return Err(ReportError::ByNowhere {
            column: column.clone(),
            why: why.join("; "),
        });
    }
    Ok(Some((column.clone(), values)))
}

fn distinct_labels(inputs: &Inputs) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for g in &inputs.groups {
        if !labels.contains(&g.label) {
            labels.push(g.label.clone());
        }
    }
    labels
}

fn settings(page: &mut Page, inputs: &Inputs) {
    page.heading(2, "Settings");
    if inputs.summaries.is_empty() {
        page.paragraph(
            "The runs' settings (machine, threads, limits, date) were not recorded here: \
             give each run's summary JSON with its CSV (`sudoku-bench run --summary run.json \
             -o run.csv`, then `sudoku-bench report run.csv run.json -o report.html`).",
        );
        return;
    }
    for (name, s) in &inputs.summaries {
        if !inputs.groups.iter().any(|g| describes(s, g)) {
            // Shown, so that a mistyped JSON is noticed, but without its settings: they
            // would read as those of runs it is not of.
            page.warning(&format!(
                "{name} matches none of the CSVs' (corpus, strategy, puzzles): its settings \
                 are left out"
            ));
            continue;
        }
        let limits = format!(
            "max solutions {}, node budget {}, timeout {}, repeat {}",
            s.max_solutions,
            s.max_nodes.map_or("none".into(), thousands),
            s.timeout_ns.map_or("none".into(), |t| duration(t as f64)),
            s.repeat
        );
        page.meta(&format!(
            "{name}: {} {} on {} ({} cores, {} {}), {} threads; {limits}; {}{}",
            s.tool,
            s.version,
            s.machine.cpu,
            s.machine.cores,
            s.machine.os,
            s.machine.arch,
            s.threads,
            s.date,
            s.permute
                .map_or(String::new(), |seed| format!("; --permute {seed}"))
        ));
        if let Some(note) = s.interrupted_note() {
            page.warning(&format!("{name}: {note}"));
        }
        if let Some(note) = s.failed_note() {
            page.warning(&format!("{name}: {note}"));
        }
        // Folded: on a busy machine there is one per strategy, and they would push the
        // results below the first screen.
        let warnings: Vec<String> = noise::warnings(s)
            .into_iter()
            .map(|w| format!("{name}: {w}"))
            .collect();
        if !warnings.is_empty() {
            let plural = if warnings.len() == 1 { "" } else { "s" };
            page.warnings(
                &format!(
                    "{} warning{plural} about how far these times can be trusted (open to read)",
                    warnings.len()
                ),
                &warnings,
            );
        }
    }
}

/// The summary whose rows hold `group` (same corpus, strategy and number of rows), a
/// summary named like the group's CSV first.
fn summary_of<'a>(inputs: &'a Inputs, group: &Group) -> Option<&'a SummaryReport> {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_os_string());
    let csv_stem = stem(&inputs.csvs[group.file]);
    let candidates = || inputs.summaries.iter().filter(|(_, s)| describes(s, group));
    let named = candidates().find(|(name, _)| stem(Path::new(name)) == csv_stem);
    // A strategy timed in several CSVs: only the summary named like its own CSV is
    // known to be of its run.
    let timed_twice = group.label != group.strategy;
    named
        .or_else(|| candidates().next().filter(|_| !timed_twice))
        .map(|(_, s)| s)
}

/// The names of the summaries given that describe none of the CSVs' groups (see
/// `describes`): their settings are shown nowhere.
pub fn unmatched_summaries(inputs: &Inputs) -> Vec<&str> {
    inputs
        .summaries
        .iter()
        .filter(|(_, s)| !inputs.groups.iter().any(|g| describes(s, g)))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// Whether `summary` has a row of `group`'s corpus and strategy that counts its rows: as
/// many, of each status, and where the summary holds its accumulators, the same summed
/// time. Another run of the same corpus has as many rows, but its limits (which PAR-2 and
/// the node budget are drawn from) need not be this one's.
fn describes(summary: &SummaryReport, group: &Group) -> bool {
    let of_status = |status: Status| group.rows.iter().filter(|r| r.status == status).count();
    let counted = |r: &sudoku_bench_core::summary::SummaryRow| {
        Status::ALL
            .into_iter()
            .all(|status| of_status(status) as u64 == r.count(status))
    };
    let rows = summary.rows.iter().any(|r| {
        r.corpus == group.corpus
            && r.strategy == group.strategy
            && r.puzzles == group.rows.len() as u64
            && counted(r)
    });
    let timed: u128 = group
        .rows
        .iter()
        .filter_map(|r| r.time_ns())
        .map(u128::from)
        .sum();
    let time = summary.state.as_ref().is_none_or(|state| {
        state
            .groups
            .iter()
            .filter(|g| g.corpus == group.corpus && g.strategy == group.strategy)
            .all(|g| g.time_sum_ns.parse::<u128>().ok() == Some(timed))
    });
    rows && time
}

fn limits_of(summary: &SummaryReport) -> KnownLimits {
    KnownLimits {
        timeout_ns: summary.timeout_ns.filter(|&t| t > 0),
        max_nodes: summary.max_nodes.filter(|&n| n > 0 && n != u64::MAX),
    }
}

/// A time axis: nanoseconds, labelled in the unit each tick needs.
fn time_axis(label: &str) -> Axis {
    Axis::log(label).durations()
}

const TIME_AXIS: &str = "time per puzzle";

/// One corpus's part of the page: its groups, one per strategy, and the labels of every
/// strategy on the page, whose order gives each its colour.
struct CorpusPart<'a> {
    corpus: &'a str,
    groups: &'a [&'a Group],
    labels: &'a [String],
}

impl CorpusPart<'_> {
    /// A group's colour: its strategy's place among the page's labels, the same in every
    /// corpus.
    fn color(&self, g: &Group) -> usize {
        self.labels.iter().position(|l| *l == g.label).unwrap_or(0)
    }
}

/// A corpus's section: its tables of figures and PAR-2, its plots of time per puzzle, its
/// tables by puzzle class (and by `--by`'s column, `by`), and its slowest puzzles.
fn section(
    page: &mut Page,
    inputs: &Inputs,
    part: &CorpusPart,
    options: &ReportOptions,
    by: Option<(&str, &ColumnValues)>,
) -> Result<(), ReportError> {
    let groups = part.groups;
    let lines = groups.iter().map(|g| g.rows.len()).max().unwrap_or(0);
    page.heading(2, &format!("corpus {}", part.corpus));
    page.meta(&format!(
        "{}, {}",
        counted(lines as u64, "puzzle line"),
        counted(groups.len() as u64, "strategy")
    ));
    let times: Vec<Vec<u64>> = groups
        .iter()
        .map(|g| stats::sorted_times(&g.rows, |_| true))
        .collect();
    let all: Vec<Stats> = groups
        .iter()
        .zip(&times)
        .map(|(g, t)| stats::stats(&g.rows, t))
        .collect();

    summary_table(page, groups, &all);
    par2_table(page, inputs, groups);
    time_plots(page, part, (&times, &all), options);
    class_tables(page, part, by);
    slowest_tables(page, groups);
    Ok(())
}

/// The cactus plot and the distribution of each strategy's time per puzzle (`times`,
/// sorted, with their figures `all`), then the scatter plots of pairs of strategies.
fn time_plots(
    page: &mut Page,
    part: &CorpusPart,
    (times, all): (&[Vec<u64>], &[Stats]),
    options: &ReportOptions,
) {
    page.heading(3, "Time per puzzle");
    page.paragraph(
        "Cactus plot: each strategy's finished puzzles (aborted, malformed and invalid ones \
         left out) sorted by time; a line further right finished more, a lower one is \
         faster. Distribution: the share of searched puzzles finished within each time; a \
         line that stops below 100% aborted the rest.",
    );
    let mut cactus = Chart::new(
        "cactus plot",
        Axis::linear("puzzles finished"),
        time_axis(TIME_AXIS),
    );
    let mut ecdf = Chart::new(
        "distribution of time per puzzle",
        time_axis(TIME_AXIS),
        Axis::linear("puzzles searched").percent(),
    );
    for (g, t) in part.groups.iter().zip(times) {
        let finished = stats::sorted_times(&g.rows, CompactRow::finished);
        cactus.line(
            &g.label,
            part.color(g),
            finished
                .iter()
                .enumerate()
                .map(|(i, &t)| ((i + 1) as f64, t as f64))
                .collect(),
        );
        // Over every searched puzzle, finished ones only: a give-up time is no finish.
        let n = t.len() as f64;
        ecdf.steps(
            &g.label,
            part.color(g),
            finished
                .iter()
                .enumerate()
                .map(|(i, &t)| (t as f64, (i + 1) as f64 / n))
                .collect(),
        );
    }
    let mut svgs = vec![cactus.svg(), ecdf.svg()];
    for (a, b) in scatter_pairs(part.groups, all, options) {
        svgs.push(scatter(a, b).svg());
    }
    page.plots(svgs.iter().map(String::as_str));
}

/// A table per way of classing the corpus's puzzles: by solution count, clues, guesses,
/// and `--by`'s column when the corpus has it (else a note of why not).
fn class_tables(page: &mut Page, part: &CorpusPart, by: Option<(&str, &ColumnValues)>) {
    page.heading(3, "By puzzle class");
    page.paragraph(
        "Each cell: a strategy's median time per puzzle on the puzzles of the class it \
         finished, its mean in brackets, then how many it aborted, if any; the last column \
         names the fastest: of the strategies that finished the most puzzles of the class, \
         the one with the lowest median. The winner often changes with the class.",
    );
    let mut classings = vec![
        classes::solution_count(part.groups),
        classes::clues(part.groups),
    ];
    classings.extend(classes::guesses(part.groups));
    let mut by_missing = None;
    match by {
        Some((column, Ok(values))) => classings.push(classes::column(
            column,
            format!("column {column} of {}", part.corpus),
            values.clone(),
        )),
        Some((column, Err(e))) => {
            let why = match e {
                ReportError::By { message, .. } => message.clone(),
                other => other.to_string(),
            };
            by_missing = Some(format!("No table by {column}: {why}."));
        }
        None => {}
    }
    for classing in &classings {
        class_table(page, classing, part.groups);
    }
    if let Some(note) = by_missing {
        page.meta(&note);
    }
}

/// Each strategy's slowest puzzles.
fn slowest_tables(page: &mut Page, groups: &[&Group]) {
    page.heading(3, "Slowest puzzles");
    for g in groups {
        match g.slowest.len() {
            0 => {
                page.heading(4, &g.label);
                page.paragraph("Nothing was searched: every line was malformed or invalid.");
                continue;
            }
            1 => page.heading(4, &format!("{}: the slowest", g.label)),
            n => page.heading(4, &format!("{}: the {n} slowest", g.label)),
        }
        let rows: Vec<Vec<String>> = g
            .slowest
            .iter()
            .map(|s| {
                vec![
                    s.line.to_string(),
                    s.puzzle.clone(),
                    s.status.to_string(),
                    short_duration(s.time_ns as f64),
                    s.nodes.map_or("-".into(), thousands),
                ]
            })
            .collect();
        page.table(
            &["line", "puzzle", "status", "time", "nodes"],
            &[
                Align::Right,
                Align::Mono,
                Align::Left,
                Align::Right,
                Align::Right,
            ],
            &rows,
        );
    }
}

fn summary_table(page: &mut Page, groups: &[&Group], all: &[Stats]) {
    let statuses: Vec<Status> = Status::ALL
        .into_iter()
        .filter(|&s| all.iter().any(|st| st.count(s) > 0))
        .collect();
    let mut headings = vec!["strategy", "puzzles"];
    headings.extend(statuses.iter().map(|s| s.as_str()));
    headings.extend([
        "wrong",
        "searched",
        "puzzles/s/core",
        "median",
        "p99",
        "max",
        "mean nodes",
        "guesses",
    ]);
    let mut align = vec![Align::Left];
    align.resize(headings.len(), Align::Right);
    let rows: Vec<Vec<String>> = groups
        .iter()
        .zip(all)
        .map(|(g, s)| {
            let mut row = vec![g.label.clone(), thousands(s.puzzles)];
            row.extend(statuses.iter().map(|&st| thousands(s.count(st))));
            row.extend([
                thousands(s.wrong),
                thousands(s.searched),
                rate(s.per_s_per_core()),
                short_duration(s.median_ns as f64),
                short_duration(s.p99_ns as f64),
                short_duration(s.max_ns as f64),
                s.mean_nodes.map_or("-".into(), tenths),
                s.guesses_per_puzzle
                    .map_or("-".into(), |n| format!("{n:.2}")),
            ]);
            row
        })
        .collect();
    page.heading(3, "Summary");
    page.meta(
        "wrong: answers that are not solutions or contradict the corpus or the reference \
         count; puzzles/s/core: searched puzzles per second of summed solve time; median, \
         p99, max: solve time per puzzle; guesses: per finished puzzle",
    );
    page.table(&headings, &align, &rows);
    if all.iter().any(|s| s.wrong > 0) {
        page.warning(
            "Some answers are wrong: see the error column of the per-puzzle CSV for which and why.",
        );
    }
}

/// `n` things, in the singular for one: "1 strategy", "14 puzzle lines".
fn counted(n: u64, one: &str) -> String {
    match (n, one.strip_suffix('y')) {
        (1, _) => format!("1 {one}"),
        (_, Some(stem)) => format!("{} {stem}ies", thousands(n)),
        _ => format!("{} {one}s", thousands(n)),
    }
}

/// `x` to one decimal with thousands separators: "12,345.7".
fn tenths(x: f64) -> String {
    let tenths = (x * 10.0).round().max(0.0) as u64;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

fn par2_table(page: &mut Page, inputs: &Inputs, groups: &[&Group]) {
    page.heading(3, "PAR-2");
    page.paragraph(
        "The SAT competitions' score: the summed cost of the searched puzzles, each aborted \
         one counted as twice the limit. In time with a timeout; in nodes with a node budget, \
         for strategies that count nodes. As there, an unsolved puzzle costs the same \
         whatever stopped it: with both limits set, a search the node budget stopped counts \
         twice the timeout in the time score. Lower is better.",
    );
    // (label, the run's limits, the score with the limits that applied).
    let mut scored = Vec::new();
    let mut unknown = Vec::new();
    for g in groups {
        match summary_of(inputs, g) {
            Some(summary) => {
                let limits = limits_of(summary);
                scored.push((g.label.as_str(), limits, par2(&g.rows, limits)));
            }
            None => unknown.push(g.label.as_str()),
        }
    }
    // Only the limits that applied to some strategy have a column.
    let timed = scored.iter().any(|(_, _, p)| p.limits.timeout_ns.is_some());
    let budgeted = scored.iter().any(|(_, _, p)| p.limits.max_nodes.is_some());
    let (rows, uncounted) = par2_rows(&scored, timed, budgeted);
    if !rows.is_empty() {
        let mut headings = vec!["strategy"];
        headings.extend(timed.then_some("timeout"));
        headings.extend(budgeted.then_some("node budget"));
        headings.extend(["searched", "aborted"]);
        headings.extend(timed.then_some("PAR-2 time"));
        headings.extend(budgeted.then_some("PAR-2 nodes"));
        let mut align = vec![Align::Left];
        align.resize(headings.len(), Align::Right);
        page.table(&headings, &align, &rows);
        if uncounted {
            page.meta(
                "node budget -: the strategy counts no nodes (a solver from outside), so no \
                 node budget bounds it",
            );
        }
        if !timed && !budgeted {
            page.meta("No limit applied (no timeout, no node budget): no score.");
        }
    }
    if !unknown.is_empty() {
        let why = if inputs.summaries.is_empty() {
            "give `run --summary run.json`'s file to `report` too"
        } else {
            "no summary JSON given holds these rows: the same corpus, strategy and number \
             of puzzles"
        };
        page.paragraph(&format!(
            "PAR-2 needs the run's limits, which only its summary JSON records: not known \
             for {} ({why}).",
            unknown.join(", ")
        ));
    }
}

/// PAR-2's rows, one per `scored` strategy (its label, the run's limits and its score),
/// with the columns of a timeout (`timed`) and a node budget (`budgeted`) when some
/// strategy had one; and whether a strategy under a node budget counts no nodes.
fn par2_rows(
    scored: &[(&str, KnownLimits, Par2)],
    timed: bool,
    budgeted: bool,
) -> (Vec<Vec<String>>, bool) {
    let mut uncounted = false;
    let rows = scored
        .iter()
        .map(|(label, run, p)| {
            let mut row = vec![label.to_string()];
            if timed {
                row.push(run.timeout_ns.map_or("none".into(), |t| duration(t as f64)));
            }
            if budgeted {
                row.push(match (run.max_nodes, p.limits.max_nodes) {
                    (_, Some(n)) => thousands(n),
                    (Some(_), None) => {
                        uncounted = true;
                        "-".into()
                    }
                    (None, None) => "none".into(),
                });
            }
            row.extend([thousands(p.searched), thousands(p.aborted)]);
            if timed {
                row.push(p.time_ns.map_or("-".into(), |t| duration(t as f64)));
            }
            if budgeted {
                row.push(
                    p.nodes
                        .map_or("-".into(), |n| thousands(n.min(u64::MAX as u128) as u64)),
                );
            }
            row
        })
        .collect();
    (rows, uncounted)
}

/// The pairs to draw: those asked for that this corpus has, or its two fastest.
fn scatter_pairs<'a>(
    groups: &[&'a Group],
    all: &[Stats],
    options: &ReportOptions,
) -> Vec<(&'a Group, &'a Group)> {
    let find = |label: &str| groups.iter().copied().find(|g| g.label == label);
    if !options.scatter.is_empty() {
        return options
            .scatter
            .iter()
            .filter_map(|(a, b)| Some((find(a)?, find(b)?)))
            .collect();
    }
    // Fewest aborted first: an aborted search's time is only when it gave up, so a
    // strategy that gave up on everything early would otherwise look the fastest.
    let mut ranked: Vec<(u64, u128, usize)> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| s.searched > s.counts[Status::Aborted as usize])
        .map(|(i, s)| (s.counts[Status::Aborted as usize], s.total_ns, i))
        .collect();
    ranked.sort_unstable();
    let ranked: Vec<&Group> = ranked.into_iter().map(|(_, _, i)| groups[i]).collect();
    // The user's solvers are what the run was made to see: the best of them against the
    // best built-in strategy (on the x axis), or two of theirs against each other.
    let (theirs, built_in): (Vec<&Group>, Vec<&Group>) = ranked
        .iter()
        .copied()
        .partition(|g| strategy::by_name(&g.strategy).is_none());
    match (theirs.as_slice(), built_in.as_slice(), ranked.as_slice()) {
        ([a, b, ..], _, _) | ([b], [a, ..], _) | (_, _, [a, b, ..]) => vec![(*a, *b)],
        _ => Vec::new(),
    }
}

/// Lines both strategies searched, as (`a`'s time, `b`'s time) in ns, sorted into those
/// where they agree, where one aborted, and where both finished with different answers.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Pairs {
    pub(super) same: Vec<(u64, u64)>,
    pub(super) aborted: Vec<(u64, u64)>,
    pub(super) differ: Vec<(u64, u64)>,
}

pub(super) fn pairs(a: &Group, b: &Group) -> Pairs {
    let mut out = Pairs::default();
    let mut j = 0;
    for ra in &a.rows {
        while j < b.rows.len() && b.rows[j].line < ra.line {
            j += 1;
        }
        let Some(rb) = b.rows.get(j).filter(|rb| rb.line == ra.line) else {
            continue;
        };
        let (Some(ta), Some(tb)) = (ra.time_ns(), rb.time_ns()) else {
            continue;
        };
        let kind = if ra.status == Status::Aborted || rb.status == Status::Aborted {
            &mut out.aborted
        } else if ra.status != rb.status || ra.solutions() != rb.solutions() {
            &mut out.differ
        } else {
            &mut out.same
        };
        kind.push((ta, tb));
    }
    out
}

/// One point per line both searched: x = `a`'s time, y = `b`'s.
fn scatter(a: &Group, b: &Group) -> Chart {
    let mut chart = Chart::new(
        &format!("{} against {}", b.label, a.label),
        time_axis(&format!("{} {TIME_AXIS}", a.label)),
        time_axis(&format!("{} {TIME_AXIS}", b.label)),
    );
    chart.diagonal();
    let p = pairs(a, b);
    let points = |v: Vec<(u64, u64)>| -> Vec<(f64, f64)> {
        v.into_iter().map(|(x, y)| (x as f64, y as f64)).collect()
    };
    // Black, not a strategy's colour: each point is both strategies.
    chart.points("same answer", 6, Mark::Dot, points(p.same));
    chart.points("one aborted", 4, Mark::Ring, points(p.aborted));
    chart.points("answers differ", 1, Mark::Cross, points(p.differ));
    chart
}

fn class_table(page: &mut Page, classing: &Classing, groups: &[&Group]) {
    let table = classes::breakdown(classing, groups);
    page.heading(4, &format!("by {}", classing.title));
    page.meta(&classing.note);
    if table.is_empty() {
        page.paragraph("No puzzle has a value here.");
        return;
    }
    let mut headings: Vec<String> = vec![classing.title.clone(), "puzzles".into()];
    // One column per strategy, median and mean in one cell: two columns each made the
    // table of six strategies wider than the page.
    headings.extend(groups.iter().map(|g| g.label.clone()));
    headings.push("fastest".into());
    let heads: Vec<&str> = headings.iter().map(String::as_str).collect();
    let mut align = vec![Align::Left];
    align.resize(heads.len() - 1, Align::Right);
    align.push(Align::Left);
    let rows: Vec<Vec<String>> = table
        .iter()
        .map(|r| {
            let mut row = vec![r.label.clone(), thousands(r.lines)];
            for (t, &aborted) in r.times.iter().zip(&r.aborted) {
                let mut cell = match t {
                    Some((median, mean)) => format!(
                        "{} ({})",
                        short_duration(*median as f64),
                        short_duration(*mean)
                    ),
                    None => "-".to_string(),
                };
                if aborted > 0 {
                    cell.push_str(&format!(", {} aborted", thousands(aborted)));
                }
                row.push(cell);
            }
            row.push(r.fastest.map_or("-".into(), |i| groups[i].label.clone()));
            row
        })
        .collect();
    page.table(&heads, &align, &rows);
}
