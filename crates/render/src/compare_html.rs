//! `compare --format html`: one self-contained page with the verdicts as the other formats
//! give them, and per compared pair the distribution of per-puzzle time ratios (a histogram
//! over the log ratio, with the geometric mean and its interval over it) and a log-log
//! scatter of each puzzle's time on both sides. A reader sees whether a change moved every
//! puzzle a little or a few puzzles a lot, which one number cannot say.

use std::fmt::Write;

use crate::export::comparison as export;
use crate::export::html::{Align, Page};
use crate::export::CompareExporter;
use crate::numbers::thousands;
use crate::plot::{Axis, Chart, Mark};
use sudoku_bench_analysis::compare::histogram::Histogram;
use sudoku_bench_analysis::compare::{
    Comparison, ComparisonRow, GateOutcome, Mode, PuzzleTime, Verdict,
};

/// The HTML page. It states the exit status `compare` gives, which depends on
/// `--min-paired` as well as on the verdicts.
#[derive(Debug, Clone, Copy)]
pub struct CompareHtmlExporter {
    /// Share of each side's rows that must be paired, in [0, 1] (`--min-paired`).
    pub min_paired: f64,
}

/// `PALETTE` indices: the bars, the end bins that hold the tails, "no change", the
/// geometric mean and its interval.
const BARS: usize = 0;
const TAILS: usize = 4;
const NO_CHANGE: usize = 6;
const MEAN: usize = 1;
const INTERVAL: usize = 3;

impl CompareExporter for CompareHtmlExporter {
    fn export(&self, cmp: &Comparison) -> String {
        let mut page = Page::new(match cmp.mode {
            Mode::InRun => "sudoku-bench compare (in-run)",
            _ => "sudoku-bench compare",
        });
        page.meta(&mode(cmp));
        page.meta(&settings(cmp));
        let status = status(cmp, self.min_paired);
        if cmp.outcome(self.min_paired) == GateOutcome::Pass {
            page.paragraph(&status);
        } else {
            page.warning(&status);
        }
        page.heading(2, "Verdicts");
        let headings = export::headings(cmp);
        let headings: Vec<&str> = headings.iter().map(String::as_str).collect();
        let align: Vec<Align> = (0..headings.len())
            .map(|i| {
                if i < 2 || i + 1 == headings.len() {
                    Align::Left
                } else {
                    Align::Right
                }
            })
            .collect();
        let rows: Vec<Vec<String>> = cmp.rows.iter().map(|r| export::cells(cmp, r)).collect();
        page.table(&headings, &align, &rows);
        if !cmp.unpaired.is_empty() {
            page.heading(3, "Unpaired");
            for u in &cmp.unpaired {
                page.paragraph(&export::unpaired_line(u));
            }
        }
        page.paragraph(&export::method(cmp, |s| format!("`{s}`")));
        page.heading(2, "Per-puzzle time ratios");
        if cmp.mode == Mode::Summary {
            page.paragraph(
                "No per-puzzle data: a summary JSON holds one median per corpus and \
                 strategy, so there is no distribution to draw. Compare the per-puzzle CSVs \
                 of the same runs (`run --out`) to see one.",
            );
        } else {
            page.paragraph(&format!(
                "Per compared pair: the histogram of current / baseline time per puzzle on a \
                 log axis (bins of equal width in log space), with 1x (no change), the \
                 geometric mean and its interval drawn over it; and each puzzle's time on \
                 both sides, log-log, with the diagonal where they are equal (a cross: the \
                 puzzle's search changed).{}",
                if cmp.baseline_runs > 1 || cmp.current_runs > 1 {
                    " With several runs per side, a puzzle's time is the geometric mean of its \
                     times in the side's runs (the value the verdict averages), so the mean \
                     of the histogram is the ratio in the table."
                } else {
                    ""
                }
            ));
            for row in &cmp.rows {
                distribution(&mut page, cmp, row);
            }
        }
        page.finish()
    }
}

/// Which kind of comparison this is, and how much evidence it had.
fn mode(cmp: &Comparison) -> String {
    let runs = |n: usize| if n == 1 { "run" } else { "runs" };
    let mut text = match cmp.mode {
        Mode::InRun => "Mode: in-run (--between): two strategies of one run, paired puzzle by \
                        puzzle"
            .to_string(),
        Mode::PerPuzzle if cmp.baseline_runs == 1 && cmp.current_runs == 1 => {
            "Mode: per-puzzle pairs, one run per side".to_string()
        }
        Mode::PerPuzzle => format!(
            "Mode: several runs per side ({} baseline {}, {} current {}), paired puzzle by \
             puzzle",
            cmp.baseline_runs,
            runs(cmp.baseline_runs),
            cmp.current_runs,
            runs(cmp.current_runs)
        ),
        Mode::Summary => format!(
            "Mode: summary JSONs ({} baseline {}, {} current {}): median times only",
            cmp.baseline_runs,
            runs(cmp.baseline_runs),
            cmp.current_runs,
            runs(cmp.current_runs)
        ),
    };
    if let (Some(s), Mode::PerPuzzle) = (&cmp.relative_to, cmp.mode) {
        let _ = write!(text, "; times relative to {s}");
    }
    text
}

/// The threshold and what it means, and the interval's settings.
fn settings(cmp: &Comparison) -> String {
    format!(
        "Threshold {:.1}%: slower when the whole interval is above {:.3}x, faster when below \
         {:.3}x; {:.0}% interval from {} seeded resamples; a changed search {}",
        cmp.threshold * 100.0,
        1.0 + cmp.threshold,
        1.0 / (1.0 + cmp.threshold),
        cmp.confidence * 100.0,
        thousands(cmp.resamples as u64),
        if cmp.allow_search_changes {
            "is reported, not failed (--allow-search-changes)"
        } else {
            "is a regression"
        }
    )
}

/// The exit status the comparison gives, and why.
fn status(cmp: &Comparison, min_paired: f64) -> String {
    let outcome = cmp.outcome(min_paired);
    let code = outcome.code();
    match outcome {
        GateOutcome::TooFewPaired => format!(
            "Exit status {code}: {:.1}% of the rows are paired, below --min-paired {:.1}%, \
             so this is not a comparison of the same work (see Unpaired).",
            cmp.coverage.share() * 100.0,
            min_paired * 100.0
        ),
        GateOutcome::Regressed => {
            let slower = cmp
                .rows
                .iter()
                .filter(|r| r.verdict == Verdict::Slower)
                .count();
            let changed = cmp.rows.iter().filter(|r| r.search_changed > 0).count();
            let rows = cmp.rows.len();
            let mut text =
                format!("Exit status {code}: regression: {slower} of {rows} rows slower");
            if !cmp.allow_search_changes {
                let _ = write!(text, ", {changed} with a changed search");
            }
            text.push('.');
            text
        }
        GateOutcome::Pass if cmp.conclusive() => format!("Exit status {code}: no regression."),
        GateOutcome::Pass => format!(
            "Exit status {code}: no regression found, and no verdict on time: one run per \
             side (see the note under the table)."
        ),
    }
}

/// One row's histogram and scatter, or why it has none.
fn distribution(page: &mut Page, cmp: &Comparison, row: &ComparisonRow) {
    let cells = export::cells(cmp, row);
    let label = format!("{} / {}", cells[0], cells[1]);
    page.heading(3, &format!("{label}: {}", row.verdict.as_str()));
    if row.reference {
        page.paragraph(
            "The reference strategy: the other strategies' times are relative to its own.",
        );
        return;
    }
    if row.puzzle_times.is_empty() {
        page.paragraph("No puzzle has a time on both sides: nothing to draw.");
        return;
    }
    let ratios: Vec<f64> = row.puzzle_times.iter().map(PuzzleTime::ratio).collect();
    let mut keep = vec![1.0];
    keep.extend(row.time_ratio);
    if let Some((lo, hi)) = row.ci {
        keep.extend([lo, hi]);
    }
    let h = Histogram::of(&ratios, &keep);
    // The heading names the corpus; a chart names the pair, short enough for its width.
    page.plots([
        histogram_chart(&cells[1], &h, row).svg().as_str(),
        scatter_chart(&cells[1], cmp, row).svg().as_str(),
    ]);
    page.paragraph(&describe(&ratios, &h, row));
}

fn histogram_chart(label: &str, h: &Histogram, row: &ComparisonRow) -> Chart {
    let mut chart = Chart::new(
        &format!("{label}: time ratio per puzzle"),
        Axis::log("current / baseline time").ratio(),
        Axis::linear("puzzles"),
    );
    let bar = |i: usize| (h.left_edge(i), h.counts[i] as f64);
    let tails = h.below + h.above > 0;
    let last = h.counts.len() - 1;
    let inner: Vec<(f64, f64)> = if tails {
        (1..last).map(bar).collect()
    } else {
        (0..=last).map(bar).collect()
    };
    chart.bars("puzzles per bin", BARS, h.step(), inner);
    if tails {
        chart.bars(
            &format!(
                "end bins, with the tails: {} below {}x, {} above {}x",
                thousands(h.below),
                power_text(h.low),
                thousands(h.above),
                power_text(h.high)
            ),
            TAILS,
            h.step(),
            vec![bar(0), bar(last)],
        );
    }
    let top = h.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    chart.line("1x: no change", NO_CHANGE, vec![(1.0, 0.0), (1.0, top)]);
    if let Some(g) = row.time_ratio {
        chart.line(
            &format!("geometric mean {g:.3}x"),
            MEAN,
            vec![(g, 0.0), (g, top)],
        );
    }
    if let Some((lo, hi)) = row.ci {
        // A bracket over the bars, from one end of the interval to the other.
        chart.line(
            &format!("interval {lo:.3}x .. {hi:.3}x"),
            INTERVAL,
            vec![(lo, 0.0), (lo, top), (hi, top), (hi, 0.0)],
        );
    }
    chart
}

/// 2^octaves as short as exact: 16, 0.5, 0.125, then 1/16, 1/512.
fn power_text(octaves: i32) -> String {
    match octaves {
        0.. => (1u64 << octaves.min(63)).to_string(),
        -3..=-1 => f64::from(octaves).exp2().to_string(),
        _ => format!("1/{}", 1u64 << (-octaves).min(63)),
    }
}

fn scatter_chart(label: &str, cmp: &Comparison, row: &ComparisonRow) -> Chart {
    let (old, new) = match &row.baseline_strategy {
        Some(old) => (old.clone(), row.strategy.clone()),
        None => ("baseline".to_string(), "current".to_string()),
    };
    // Relative to a reference strategy the values are ratios, else nanoseconds.
    let axis = |name: &str| match (&cmp.relative_to, cmp.mode) {
        (Some(r), Mode::PerPuzzle) => Axis::log(&format!("{name} time / {r}'s time")).ratio(),
        _ => Axis::log(&format!("{name} time")).durations(),
    };
    let mut chart = Chart::new(&format!("{label}: time per puzzle"), axis(&old), axis(&new));
    let (changed, same): (Vec<&PuzzleTime>, Vec<&PuzzleTime>) =
        row.puzzle_times.iter().partition(|p| p.search_changed);
    let at = |points: Vec<&PuzzleTime>| -> Vec<(f64, f64)> {
        points.iter().map(|p| (p.baseline, p.current)).collect()
    };
    chart.points("one puzzle", BARS, Mark::Dot, at(same));
    if !changed.is_empty() {
        let name = format!("search changed ({})", thousands(changed.len() as u64));
        chart.points(&name, MEAN, Mark::Cross, at(changed));
    }
    chart.diagonal();
    chart
}

/// The histogram in words: what it counts and what its end bins hold.
fn describe(ratios: &[f64], h: &Histogram, row: &ComparisonRow) -> String {
    let slower = ratios.iter().filter(|r| **r > 1.0).count();
    let faster = ratios.iter().filter(|r| **r < 1.0).count();
    let mut text = format!(
        "{} puzzles timed on both sides: {} slower, {} faster, {} equal.",
        thousands(ratios.len() as u64),
        thousands(slower as u64),
        thousands(faster as u64),
        thousands((ratios.len() - slower - faster) as u64)
    );
    if let Some(g) = row.time_ratio {
        let _ = write!(text, " Geometric mean {g:.3}x");
        match row.ci {
            Some((lo, hi)) => {
                let _ = write!(text, ", interval {lo:.3}x .. {hi:.3}x.");
            }
            None => text.push_str(" (no interval: see the note under the table)."),
        }
    }
    let _ = write!(
        text,
        " Bins from {}x to {}x",
        power_text(h.low),
        power_text(h.high)
    );
    if h.below + h.above > 0 {
        let _ = write!(
            text,
            "; the end bins also hold the {} puzzles below and the {} above that range.",
            thousands(h.below),
            thousands(h.above)
        );
    } else {
        text.push('.');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_analysis::compare::Aggregate;
    use sudoku_bench_analysis::compare::{between, compare, CompareOptions, Run};

    /// A per-puzzle CSV as `run` writes it: (strategy, line, time_ns) rows of one corpus.
    fn csv(dir: &std::path::Path, name: &str, rows: &[(&str, u64, u64)]) -> Run {
        let mut text = String::from("corpus,line,strategy,status,nodes,time_ns,puzzle\n");
        for (strategy, line, time) in rows {
            let _ = writeln!(
                text,
                "syn.txt,{line},{strategy},unique,10,{time},{line:.>81}"
            );
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Run::load(&path).unwrap()
    }

    /// Baseline 1000 ns on each of six puzzles; the current times make the ratios by hand.
    const CURRENT: [u64; 6] = [1000, 1010, 990, 1500, 500, 100];
    const RATIOS: [f64; 6] = [1.0, 1.01, 0.99, 1.5, 0.5, 0.1];

    fn pair(dir: &std::path::Path) -> (Run, Run) {
        let b: Vec<_> = (1..=6).map(|l| ("a", l, 1000)).collect();
        let c: Vec<_> = (1..=6).map(|l| ("a", l, CURRENT[l as usize - 1])).collect();
        (csv(dir, "b.csv", &b), csv(dir, "c.csv", &c))
    }

    #[test]
    fn the_histogram_counts_the_ratios_of_a_csv_pair() {
        let dir = tempfile::TempDir::new().unwrap();
        let (b, c) = pair(dir.path());
        let cmp = compare(&[b], &[c], &CompareOptions::default()).unwrap();
        let row = &cmp.rows[0];
        let ratios: Vec<f64> = row.puzzle_times.iter().map(PuzzleTime::ratio).collect();
        assert_eq!(ratios.len(), RATIOS.len());
        for (got, want) in ratios.iter().zip(RATIOS) {
            assert!((got - want).abs() < 1e-12, "{ratios:?}");
        }
        // 0.5x .. 2x in 24 bins of 2^(1/12): 1 and 1.01 in bin 12, 0.99 in 11, 1.5 in 19
        // (log2 1.5 = 0.585, 12 + 7.02), 0.5 on the bottom edge and 0.1 below it in bin 0.
        let h = Histogram::over(&ratios, -1, 1);
        let mut expected = vec![0u64; 24];
        expected[0] = 2;
        expected[11] = 1;
        expected[12] = 2;
        expected[19] = 1;
        assert_eq!((h.counts, h.below, h.above), (expected, 1, 0));
        // The range the page picks holds 0.1 (log2 = -3.32): 1/16x .. 2x, 9 bins per
        // doubling, so bin = floor(9 (log2 r + 4)).
        let h = Histogram::of(&ratios, &[row.time_ratio.unwrap()]);
        assert_eq!((h.low, h.high, h.per_octave), (-4, 1, 9));
        let mut expected = vec![0u64; 45];
        expected[6] = 1; // 0.1: 9 * 0.678 = 6.1
        expected[27] = 1; // 0.5
        expected[35] = 1; // 0.99: 9 * 3.9855 = 35.87
        expected[36] = 2; // 1, 1.01: 9 * 4.0144 = 36.13
        expected[41] = 1; // 1.5: 9 * 4.585 = 41.26
        assert_eq!((h.counts, h.below, h.above), (expected, 0, 0));
    }

    fn page(cmp: &Comparison) -> String {
        CompareHtmlExporter { min_paired: 1.0 }.export(cmp)
    }

    #[test]
    fn range_ends_read_exactly() {
        let shown: Vec<String> = [4, 1, -1, -3, -4, -9].into_iter().map(power_text).collect();
        assert_eq!(shown, ["16", "2", "0.5", "0.125", "1/16", "1/512"]);
    }

    #[test]
    fn the_page_holds_every_verdict_row_and_a_chart_per_pair() {
        let dir = tempfile::TempDir::new().unwrap();
        let (b, c) = pair(dir.path());
        let cmp = compare(std::slice::from_ref(&b), &[c], &CompareOptions::default()).unwrap();
        let html = page(&cmp);
        for cell in export::cells(&cmp, &cmp.rows[0]) {
            let td = format!(">{}</td>", crate::export::html::escape(&cell));
            assert!(html.contains(&td), "{td} in {html}");
        }
        assert!(html.contains("Threshold 5.0%"), "{html}");
        assert!(html.contains("one run per side"), "{html}");
        assert!(html.contains("Exit status 0"), "{html}");
        assert!(html.contains("6 puzzles timed on both sides: 2 slower, 3 faster, 1 equal"));
        assert_eq!(html.matches("<svg").count(), 2, "a histogram and a scatter");
        // Two strategies of one run, one slower: two pairs, four charts, exit status 1.
        let mut rows: Vec<_> = (1..=6).map(|l| ("a", l, 1000)).collect();
        rows.extend((1..=6).map(|l| ("b", l, 3000 + l)));
        let run = csv(dir.path(), "ab.csv", &rows);
        let pairs = [
            ("a".to_string(), "b".to_string()),
            ("b".to_string(), "a".to_string()),
        ];
        let cmp = between(&run, &pairs, &CompareOptions::default()).unwrap();
        let html = page(&cmp);
        assert!(
            html.contains("a -&gt; b") && html.contains("b -&gt; a"),
            "{html}"
        );
        assert!(html.contains("Mode: in-run"), "{html}");
        assert!(html.contains("Exit status 1: regression: 1 of 2 rows slower, 0 with"));
        assert_eq!(html.matches("<svg").count(), 4);
        // Too little paired: the page says the status the command gives.
        let fewer = csv(dir.path(), "fewer.csv", &[("a", 1, 1000)]);
        let cmp = compare(&[b], &[fewer], &CompareOptions::default()).unwrap();
        assert!(page(&cmp).contains("Exit status 2"));
    }

    #[test]
    fn summary_inputs_have_no_per_puzzle_data() {
        let aggregate = Aggregate {
            searched: 10,
            total_time_ns: 10_000,
            median_ns: 1000,
            total_nodes: Some(100),
        };
        let run = Run::Summary([(("c".to_string(), "a".to_string()), aggregate)].into());
        let side = std::slice::from_ref(&run);
        let cmp = compare(side, side, &CompareOptions::default()).unwrap();
        let html = page(&cmp);
        assert!(html.contains("No per-puzzle data"), "{html}");
        assert!(html.contains("Mode: summary JSONs"), "{html}");
        assert!(html.contains("<td>c</td><td>a</td>"), "{html}");
        assert!(!html.contains("<svg"));
    }
}
