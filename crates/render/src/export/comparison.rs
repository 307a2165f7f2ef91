//! What a comparison says in every format that writes it as text: its table's headings and
//! cells, its unpaired rows and how its verdicts were reached. The formats are in
//! [`super::table`], [`super::markdown`], [`super::json`] and the HTML page
//! ([`crate::compare_html`]), behind [`super::CompareExporter`].

use crate::numbers::thousands;
use sudoku_bench_analysis::compare::{Comparison, ComparisonRow, Mode, Unpaired, Why};
use sudoku_bench_core::results::Metric;

/// Lines of unpaired puzzles shown before "and N more".
const SHOWN_LINES: usize = 10;

fn percent(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

fn nodes_change(r: &ComparisonRow) -> String {
    if !r.nodes_counted {
        "-".to_string()
    } else if r.baseline_nodes == r.current_nodes {
        format!("{} (=)", thousands(r.current_nodes))
    } else {
        let delta = r.current_nodes as i128 - r.baseline_nodes as i128;
        let sign = if delta > 0 { "+" } else { "-" };
        format!(
            "{} ({sign}{})",
            thousands(r.current_nodes),
            thousands(delta.unsigned_abs() as u64)
        )
    }
}

/// The cells of one row, shared by every exporter that draws a table.
pub(crate) fn cells(cmp: &Comparison, r: &ComparisonRow) -> Vec<String> {
    let time = match r.time_ratio {
        _ if r.reference => "reference".to_string(),
        Some(t) => format!("{t:.3}x ({})", percent(t)),
        None => "-".to_string(),
    };
    let ci = match r.ci {
        Some((lo, hi)) if !r.reference => format!("{lo:.3} .. {hi:.3}"),
        _ => "-".to_string(),
    };
    // Said either way: a blank cell would not tell "nothing changed" from "not checked".
    // Summary JSONs hold totals, not puzzles: they tell whether, not on how many.
    let changed = match (r.search_changed, cmp.mode) {
        (0, _) => "none".to_string(),
        (_, Mode::Summary) => "yes".to_string(),
        (n, _) => thousands(n),
    };
    let strategy = match &r.baseline_strategy {
        Some(old) => format!("{old} -> {}", r.strategy),
        None => r.strategy.clone(),
    };
    vec![
        r.corpus.clone(),
        strategy,
        thousands(r.paired),
        nodes_change(r),
        changed,
        time,
        ci,
        r.verdict.as_str().to_string(),
    ]
}

/// The table's headings, one per cell of [`cells`].
pub(crate) fn headings(cmp: &Comparison) -> Vec<String> {
    let time = match (cmp.metric, cmp.mode) {
        (Metric::Instructions, _) => "instructions ratio (geo. mean)",
        (_, Mode::PerPuzzle | Mode::InRun) => "time ratio (geo. mean)",
        (_, Mode::Summary) => "median ratio",
    };
    vec![
        "corpus".to_string(),
        "strategy".to_string(),
        "puzzles".to_string(),
        "nodes".to_string(),
        "search changed".to_string(),
        time.to_string(),
        format!("{}% CI", level_percent(cmp.confidence)),
        "verdict".to_string(),
    ]
}

/// A confidence level as a percentage: 95, 99.5.
fn level_percent(level: f64) -> String {
    let p = format!("{:.1}", level * 100.0);
    p.strip_suffix(".0").map_or(p.clone(), str::to_string)
}

/// How to get a time verdict when the comparison could not give one.
pub(crate) const HOW_TO_DECIDE: &str = "One run per side cannot tell a slower build from a busier \
     machine, so time is inconclusive. For a verdict: run both builds in one run and compare \
     them with `--between OLD,NEW` (the strongest), or make several interleaved runs per side \
     (`scripts/ab.sh`) and compare `--baseline B1 B2 .. --current C1 C2 ..`, or compare \
     times relative to a strategy of the same run with `--relative-to STRATEGY`.";

/// What an in-run comparison's intervals are over: the run's replicates, or where a row
/// had one, the puzzles alone, said as a warning.
fn in_run_interval(cmp: &Comparison) -> String {
    let judged = cmp
        .rows
        .iter()
        .filter(|r| !r.reference && r.time_ratio.is_some());
    let (replicated, single): (Vec<_>, Vec<_>) = judged.partition(|r| r.replicates.is_some());
    let spread = if cmp.run_spread > 0.0 {
        format!(
            ", with a spread between runs of {}% added (--run-spread: what moves a whole run, \
             which its replicates share)",
            crate::numbers::significant(cmp.run_spread * 100.0)
        )
    } else {
        String::new()
    };
    let over = format!(
        "over the run's replicates (Student's t on their ratios: each replicate's solvers are \
         made anew, a solver from outside in processes of their own, laid out anew){spread}"
    );
    let puzzles = format!(
        "from a moving-block bootstrap over consecutive puzzles ({} seeded resamples)",
        cmp.resamples
    );
    let warning = "it covers the puzzles of one process only, not what differs between runs: \
                   run with --replicates 2 or more (8 by default)";
    match (replicated.is_empty(), single.is_empty()) {
        (false, true) => over,
        (true, _) if single.is_empty() => puzzles,
        (true, _) => format!("{puzzles}, from a run of one replicate: {warning}"),
        (false, false) => format!(
            "{over}; for {} from one replicate, {puzzles}: {warning}",
            single
                .iter()
                .map(|r| format!("{} in {}", r.strategy, r.corpus))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// How the verdicts were reached, in words, with [`HOW_TO_DECIDE`] when time has none;
/// `name` shows the `--relative-to` strategy's name as the format needs it.
pub(crate) fn method(cmp: &Comparison, name: impl Fn(&str) -> String) -> String {
    let t = cmp.threshold * 100.0;
    let level = level_percent(cmp.confidence);
    let rule = format!(
        "Slower: the whole interval is above +{t:.1}%; faster: the whole interval is below \
         1/(1+{t:.1}%); not past threshold: the whole interval is on that side of 1 but not \
         beyond the threshold (no failure); no change: the interval holds 1."
    );
    let runs = format!(
        "{} baseline run(s), {} current run(s)",
        cmp.baseline_runs, cmp.current_runs
    );
    let mut text = match cmp.mode {
        Mode::InRun => format!(
            "In-run comparison: NEW / OLD, two strategies of one run, geometric mean of \
             per-puzzle ratios with a {level}% interval {}. Their phases alternate within \
             every chunk, so both saw the same machine. {rule} Search changed: a status \
             differs, or nodes or guesses differ where both count them (two different solvers \
             need --allow-search-changes).",
            in_run_interval(cmp)
        ),
        Mode::PerPuzzle => format!(
            "Time ratio: current / baseline, geometric mean over puzzles timed in every run \
             ({runs}), with a {level}% hierarchical bootstrap interval (runs, then puzzles; \
             {} seeded resamples). {rule} Nodes are deterministic: any difference means the \
             search changed.",
            cmp.resamples
        ),
        Mode::Summary => format!(
            "Summary JSON input ({runs}): compared on median solve time only, with no pairing \
             of puzzles (less power than per-puzzle CSVs); the interval resamples the runs' \
             medians. {rule}"
        ),
    };
    if cmp.metric == Metric::Instructions {
        text = text.replace("Time ratio:", "Instructions ratio:");
        text.push_str(
            " Compared are the instructions each solve executed (run --measure instructions), \
             not times: they do not drift with the machine, so one run per side decides.",
        );
    }
    if let (Some(s), Mode::PerPuzzle) = (&cmp.relative_to, cmp.mode) {
        let s = name(s);
        text.push_str(&format!(
            " Times are relative to {s} on the same puzzle in the same run, so machine \
             speed cancels; {s}'s own time is not judged."
        ));
    }
    if !cmp.conclusive() {
        text.push(' ');
        text.push_str(HOW_TO_DECIDE);
    }
    text
}

/// One unpaired entry in words; the CLI's error message uses it too.
pub fn unpaired_line(u: &Unpaired) -> String {
    let side = match u.why {
        Why::OnlyInBaseline => "baseline",
        Why::OnlyInCurrent => "current",
        Why::DifferentPuzzle | Why::NotInEveryRun => "",
    };
    if u.whole_strategy {
        if u.why == Why::NotInEveryRun {
            return format!("{} / {}: missing from some run", u.corpus, u.strategy);
        }
        return format!("{} / {}: only in the {side} run", u.corpus, u.strategy);
    }
    let mut shown: Vec<String> = u
        .lines
        .iter()
        .take(SHOWN_LINES)
        .map(|l| l.to_string())
        .collect();
    if u.lines.len() > SHOWN_LINES {
        shown.push(format!("and {} more", u.lines.len() - SHOWN_LINES));
    }
    let what = match u.why {
        Why::DifferentPuzzle => "lines hold a different puzzle in each run".to_string(),
        Why::NotInEveryRun => "puzzles missing from some run of a side".to_string(),
        _ => format!("puzzles only in the {side} run"),
    };
    format!(
        "{} / {}: {} {what} (lines {})",
        u.corpus,
        u.strategy,
        u.lines.len(),
        shown.join(", ")
    )
}
