//! `history report`'s page: per machine and settings, per corpus, each strategy's median
//! rate over the commits with each run's interval, the in-run A/B ratios likewise, each
//! time relative to a reference strategy (without an interval), the change points `history check` finds shaded between their commits, and the table of
//! those changes (node and guess changes included). One self-contained [`Page`] with the
//! report's own [`plot`](super::plot) charts: no script.

use std::collections::{BTreeMap, BTreeSet};

use super::history::{by_machine, change, change_cells, change_left, knobs_text, short};
use super::plot::{Axis, Chart, Mark};
use crate::export::html::{Align, Page};
use sudoku_bench_analysis::history::changes::{Detection, Point};
use sudoku_bench_analysis::history::median::CONFIDENCE;
use sudoku_bench_analysis::history::store::SeriesKey;
use sudoku_bench_analysis::history::{shown_time, Change, Findings, Measure};

/// Characters of a commit's hash on the x axis: as `git log --oneline` shows it.
const AXIS_SHA: usize = 7;

/// Palette indices: points, and bands of slowdowns and of other changes.
const POINTS: usize = 0;
const SLOWER: usize = 1;
const FASTER: usize = 2;

/// Where commits go on the x axis: those with a point in some series, in the series'
/// order, one position each.
struct Commits {
    /// A commit's place in [`Findings::commits`] to its x.
    x: BTreeMap<usize, f64>,
    names: Vec<String>,
}

impl Commits {
    fn of(checked: &Findings) -> Commits {
        let used: BTreeSet<usize> = checked
            .points
            .values()
            .flatten()
            .map(|p| p.commit)
            .collect();
        let x = used
            .iter()
            .enumerate()
            .map(|(at, &commit)| (commit, at as f64))
            .collect();
        let names = used
            .iter()
            .map(|&c| checked.commits[c].commit.chars().take(AXIS_SHA).collect())
            .collect();
        Commits { x, names }
    }

    fn x(&self, commit: usize) -> Option<f64> {
        self.x.get(&commit).copied()
    }
}

/// One series' chart: its points joined, each run's interval, and its change points as
/// bands from the last commit before to the first after.
fn chart(
    title: &str,
    y: Axis,
    points: &[Point],
    changes: &[&Change],
    commits: &Commits,
    interval: &str,
) -> String {
    // Wide enough for a name per commit up to about 65 commits, and within a 1200-pixel
    // window (the page's margins included); beyond, every other name or sparser.
    let width = (240 + 14 * commits.names.len()).clamp(560, 1160) as u32;
    let mut chart = Chart::new(title, Axis::linear("commit"), y)
        .size(width, 380)
        .categories(commits.names.clone());
    let placed: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| Some((commits.x(p.commit)?, p.value)))
        .collect();
    let whiskers: Vec<(f64, f64, f64)> = points
        .iter()
        .filter_map(|p| {
            let (lo, hi) = p.interval?;
            Some((commits.x(p.commit)?, lo, hi))
        })
        .collect();
    chart.line("", POINTS, placed.clone());
    chart.points("run", POINTS, Mark::Dot, placed);
    if !whiskers.is_empty() {
        chart.intervals(interval, POINTS, &whiskers);
    }
    for c in changes {
        let (Some(from), Some(to)) = (commits.x(c.point.before), commits.x(c.point.after)) else {
            continue;
        };
        let color = if c.slowdown() { SLOWER } else { FASTER };
        let label = format!(
            "{} {}..{}",
            change(c),
            short_axis(&c.before),
            short_axis(&c.after)
        );
        chart.band(from, to, color, &label);
    }
    chart.svg()
}

fn short_axis(commit: &str) -> String {
    commit.chars().take(AXIS_SHA).collect()
}

/// A machine's series drawn, by corpus name.
type ByCorpus<'a> = BTreeMap<&'a str, Vec<(&'a SeriesKey, Measure)>>;

/// The page of `checked` (found with `knobs`), read from the history `source`.
pub fn history_page(checked: &Findings, knobs: &Detection, source: &str) -> String {
    let mut page = Page::new("sudoku-bench history");
    let commits = Commits::of(checked);
    introduce(&mut page, checked, knobs, source, &commits);
    let groups = drawn_series(checked);
    let tables = by_machine(&checked.changes);
    let mut machines: BTreeSet<(&str, &str)> = groups.keys().copied().collect();
    machines.extend(tables.iter().map(|(m, s, _)| (*m, *s)));
    for (machine, settings) in machines {
        page.heading(2, &format!("machine {machine}; {settings}"));
        for (corpus, series) in groups.get(&(machine, settings)).into_iter().flatten() {
            page.heading(3, &format!("corpus {corpus}"));
            let svgs: Vec<String> = series
                .iter()
                .map(|&(key, measure)| series_chart(checked, key, measure, &commits))
                .collect();
            page.plots(svgs.iter().map(String::as_str));
        }
        let list = tables
            .iter()
            .find(|(m, s, _)| (*m, *s) == (machine, settings))
            .map(|(_, _, list)| list.as_slice())
            .unwrap_or_default();
        changes_table(&mut page, list);
    }
    page.finish()
}

/// The page's opening: the history's commits, how change points were found, and what the
/// whiskers and bands mean.
fn introduce(
    page: &mut Page,
    checked: &Findings,
    knobs: &Detection,
    source: &str,
    commits: &Commits,
) {
    let used: Vec<usize> = commits.x.keys().copied().collect();
    if let (Some(&first), Some(&last)) = (used.first(), used.last()) {
        let (first, last) = (&checked.commits[first], &checked.commits[last]);
        page.meta(&format!(
            "`{source}`: {} commits with runs, {} ({}) to {} ({})",
            used.len(),
            short(&first.commit),
            shown_time(first.time),
            short(&last.commit),
            shown_time(last.time)
        ));
    }
    page.meta(&format!(
        "Change points as `history check` finds them ({}): {} change(s) in {} series.",
        knobs_text(knobs),
        checked.changes.len(),
        checked.series
    ));
    page.paragraph(&format!(
        "A median rate's whisker is the {}% interval of its run's median solve time, from \
         the order statistics of the run's time histogram (no distribution assumed); an \
         in-run A/B ratio's is the bootstrap interval recorded with it; a time relative to \
         a reference strategy of the same run has none, nor has an instruction count. A \
         shaded band spans a change point's commit range, from the last commit before it to \
         the first after; node and guess changes are in the tables.",
        CONFIDENCE * 100.0
    ));
}

/// The series drawn (node and guess counts are only tabled), by machine and settings, then
/// corpus, then strategy: the series' own order.
fn drawn_series(checked: &Findings) -> BTreeMap<(&str, &str), ByCorpus<'_>> {
    let mut groups: BTreeMap<(&str, &str), ByCorpus> = BTreeMap::new();
    for (key, measure) in checked.points.keys() {
        if matches!(measure, Measure::Nodes | Measure::Guesses) {
            continue;
        }
        groups
            .entry((&key.machine, &key.settings))
            .or_default()
            .entry(&key.corpus.name)
            .or_default()
            .push((key, *measure));
    }
    groups
}

/// The chart of one series, with its change points' bands.
fn series_chart(
    checked: &Findings,
    key: &SeriesKey,
    measure: Measure,
    commits: &Commits,
) -> String {
    let changes: Vec<&Change> = checked
        .changes
        .iter()
        .filter(|c| &c.key == key && c.measure == measure)
        .collect();
    let points = &checked.points[&(key.clone(), measure)];
    let median_whisker = format!("{}% interval of the median", CONFIDENCE * 100.0);
    let (what, axis, whisker) = match measure {
        Measure::TimeRatio => (
            "time ratio",
            Axis::linear("NEW / OLD time (in-run A/B)").ratio(),
            "recorded interval",
        ),
        Measure::RelativeTime => (
            "relative time",
            Axis::linear("median time / reference's (same run)").ratio(),
            "",
        ),
        Measure::Instructions => (
            "instructions",
            Axis::linear("instructions per puzzle (counted)"),
            "",
        ),
        _ => (
            "median rate",
            Axis::linear("puzzles/s/core (1 / median time)"),
            median_whisker.as_str(),
        ),
    };
    chart(
        &format!("{}: {what}", key.strategy),
        axis,
        points,
        &changes,
        commits,
        whisker,
    )
}

/// A machine's table of changes, or a line saying there is none.
fn changes_table(page: &mut Page, list: &[&Change]) {
    page.heading(3, "changes");
    if list.is_empty() {
        page.paragraph("No change point in this machine's series.");
        return;
    }
    let align: Vec<Align> = (0..9)
        .map(|i| {
            if change_left(i) {
                Align::Left
            } else {
                Align::Right
            }
        })
        .collect();
    let rows: Vec<Vec<String>> = list.iter().map(|c| change_cells(c)).collect();
    page.table(&super::history::CHANGE_HEAD, &align, &rows);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_analysis::history::changes::ChangePoint;
    use sudoku_bench_analysis::history::store::{CommitRecord, CorpusKey};

    fn key(strategy: &str) -> SeriesKey {
        SeriesKey {
            machine: "cpu, 2 cores, linux x86_64".into(),
            settings: "-j 2".into(),
            corpus: CorpusKey {
                identity: "1:2:0000000000000003".into(),
                name: "c.txt".into(),
            },
            strategy: strategy.into(),
        }
    }

    fn sha(i: usize) -> String {
        format!("{i:02x}{}", "ab".repeat(19))
    }

    /// 12 commits, `fast` 20% slower from commit 6, its nodes fewer from commit 9, an A/B
    /// ratio at every other commit; commit 11 recorded but for another branch (no point).
    fn checked() -> Findings {
        let mut points = BTreeMap::new();
        let rate: Vec<Point> = (0..11)
            .map(|i| {
                let v = if i < 6 { 1000.0 } else { 800.0 };
                Point {
                    commit: i,
                    value: v,
                    interval: Some((v * 0.98, v * 1.02)),
                }
            })
            .collect();
        points.insert((key("fast"), Measure::MedianRate), rate);
        let nodes = (0..11).map(|i| Point::new(i, if i < 9 { 50.0 } else { 48.0 }));
        points.insert((key("fast"), Measure::Nodes), nodes.collect());
        let ab = (0..11).step_by(2).map(|i| Point {
            commit: i,
            value: 1.1,
            interval: Some((1.05, 1.15)),
        });
        points.insert((key("base -> fast"), Measure::TimeRatio), ab.collect());
        let relative = (0..11).map(|i| Point::new(i, 1.5));
        points.insert(
            (key("fast / dlx"), Measure::RelativeTime),
            relative.collect(),
        );
        let change = |measure, before: usize, mean_before, mean_after, p_value| Change {
            key: key("fast"),
            measure,
            before: sha(before),
            after: sha(before + 1),
            after_index: before + 1,
            point: ChangePoint {
                before,
                after: before + 1,
                mean_before,
                mean_after,
                p_value,
            },
        };
        Findings {
            commits: (0..12)
                .map(|i| CommitRecord {
                    commit: sha(i),
                    time: 1_700_000_000 + i as i64,
                    branch: None,
                })
                .collect(),
            series: 3,
            changes: vec![
                change(Measure::MedianRate, 5, 1000.0, 800.0, Some(0.002)),
                change(Measure::Nodes, 8, 50.0, 48.0, None),
            ],
            points,
        }
    }

    #[test]
    fn the_page_draws_each_series_with_its_band_and_tables_every_change() {
        let html = history_page(&checked(), &Detection::default(), "h.sqlite");
        assert!(!html.contains("<script"));
        // The axis holds the 11 commits with points, not the 12th.
        assert!(html.contains(">0aababa</text>") && !html.contains(">0babab"));
        assert!(html.contains("11 commits with runs"), "{html}");
        // Both charts, the rate's band labelled with its range.
        assert!(html.contains("fast: median rate"));
        assert!(html.contains("base -&gt; fast: time ratio"));
        assert!(html.contains("fast / dlx: relative time"), "{html}");
        assert!(html.contains(">-20.0% 05ababa..06ababa</text>"), "{html}");
        assert_eq!(html.matches("fill-opacity=\".14\"").count(), 1);
        // The table: both changes, the exact one too.
        assert!(html.contains("<td>05abababab..06abababab</td>"), "{html}");
        assert!(html.contains("<td>08abababab..09abababab</td>"));
        assert!(html.contains("<td class=\"r\">exact</td>"));
        assert!(html.contains("<td>slower</td>") && html.contains("<td>fewer</td>"));
    }
}
