//! When a summary's throughput cannot be taken at face value: a few puzzles carry much
//! of the summed time (the mean-based `puzzles/s/core` then follows them), or other work
//! on the machine held the workers off their cores during enough of the solves that the
//! quantiles carry its time (as the runner tells from each thread's scheduler
//! statistics). Each warning says what it means for the numbers and what to do; neither
//! is an error (the hardest corpora are heavy-tailed by nature).

use sudoku_bench_core::summary::{SummaryReport, SummaryRow};

/// The slowest 1% of the puzzles carrying more than this share of the summed time
/// deserves a warning. Over the shared corpora (17-clue, magictour top 1465, forum
/// hardest) every built-in strategy's own tail gave shares up to about a fifth (the
/// most: `bitmask` on the hardest puzzles), while a handful of preemptions, a time slice
/// each among solves of microseconds, gave `fast` two fifths and more.
pub(crate) const TAIL_SHARE: f64 = 0.25;

/// Below this many searched puzzles no warning: the slowest 1% is one puzzle and its
/// share says little, and a single preemption makes a large rate out of a tiny run
/// (a test's fixture, a quick try) whose numbers nobody reads as a benchmark.
pub(crate) const MIN_PUZZLES: u64 = 200;

/// The share of a strategy's puzzles whose kept time may hold other work's, above which
/// the run says so. Each one affected is slower by a tenth or more (a time slice, in a
/// solve of microseconds, many times over); a few are the tail warning's business, a
/// percent of them moves the quantiles too.
pub(crate) const PREEMPTED_SHARE: f64 = 0.01;

/// The share of `row`'s summed time its slowest 1% carries, when worth a warning.
pub(crate) fn heavy_tail(row: &SummaryRow) -> Option<f64> {
    (row.searched >= MIN_PUZZLES && row.slowest_1pct_share > TAIL_SHARE)
        .then_some(row.slowest_1pct_share)
}

/// The share of `row`'s puzzles whose kept time may carry other work's, when worth a
/// warning, as the workers counted them (`preemptions`).
pub fn preempted(row: &SummaryRow) -> Option<f64> {
    let puzzles = row.preemptions?;
    if row.searched < MIN_PUZZLES {
        return None;
    }
    let share = (puzzles as f64 / row.searched as f64).min(1.0);
    (share > PREEMPTED_SHARE).then_some(share)
}

/// One line per (row, reason) whose numbers need care, without the `warning:` prefix.
pub fn warnings(report: &SummaryReport) -> Vec<String> {
    let mut lines = Vec::new();
    for row in &report.rows {
        let who = format!("{} {}", row.corpus, row.strategy);
        if let Some(share) = heavy_tail(row) {
            lines.push(format!(
                "{who}: the slowest 1% of puzzles carry {:.0}% of the summed solve time, so \
                 puzzles/s/core (1 / mean) follows those few; the median (p50) is the time of \
                 a typical puzzle. If they are slow by chance (the slowest times \
                 differ from run to run), use --repeat 3 or a quieter machine",
                share * 100.0
            ));
        }
        if let Some(share) = preempted(row) {
            let more = if report.repeat > 1 {
                format!("a --repeat above {}", report.repeat)
            } else {
                "--repeat 3".to_string()
            };
            lines.push(format!(
                "{who}: other work on this machine held the workers off their cores for a \
                 tenth or more of the time of {} of its puzzles ({:.1}%), so their times hold \
                 its time too; use {more}, a quieter machine, or fewer threads than cores (-j)",
                row.preemptions.unwrap_or(0),
                share * 100.0
            ));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_core::results::{PuzzleResult, Status};
    use sudoku_bench_core::summary::Summary;

    /// A summary of `times`, with `preemptions` counted for it.
    fn row(times: &[u64], preemptions: Option<u64>) -> SummaryRow {
        let mut s = Summary::default();
        let g = s.group("c", "x");
        for &t in times {
            let result = PuzzleResult {
                status: Status::Unique,
                solutions: Some(1),
                time_ns: Some(t),
                ..PuzzleResult::default()
            };
            s.add(g, &result);
        }
        s.add_preemptions(g, preemptions);
        s.rows().remove(0)
    }

    fn report(rows: Vec<SummaryRow>) -> SummaryReport {
        let settings = sudoku_bench_core::runner::Settings::default();
        SummaryReport {
            rows,
            ..settings.summary_report(&Summary::default(), 1, 1)
        }
    }

    #[test]
    fn an_even_corpus_warns_of_nothing() {
        // 1000 puzzles of 10 us each: the slowest 1% carry 1% of the time.
        let even = row(&[10_000; 1000], Some(0));
        assert!((even.slowest_1pct_share - 0.01).abs() < 1e-3);
        assert_eq!(warnings(&report(vec![even])), Vec::<String>::new());
    }

    #[test]
    fn a_few_slow_puzzles_warn_that_the_mean_follows_them() {
        // 10 of 1000 puzzles (the slowest 1%) take 100x as long: 10 * 1 ms of 19.9 ms.
        let mut times = vec![10_000; 990];
        times.extend([1_000_000; 10]);
        let tail = row(&times, None);
        assert!((tail.slowest_1pct_share - 10.0 / 19.9).abs() < 1e-3);
        let lines = warnings(&report(vec![tail]));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("c x: the slowest 1% of puzzles carry 50%"));
        assert!(lines[0].contains("the median (p50)") && lines[0].contains("--repeat"));
    }

    #[test]
    fn a_small_corpus_gets_no_warning() {
        let mut times = vec![10_000; 198];
        times.push(100_000_000);
        let small = row(&times, Some(100));
        assert!(small.slowest_1pct_share > 0.9);
        assert!(small.preemptions.unwrap() as f64 / 199.0 > PREEMPTED_SHARE);
        assert_eq!(warnings(&report(vec![small])).len(), 0);
        // One more puzzle and both warnings come.
        times.push(10_000);
        assert_eq!(warnings(&report(vec![row(&times, Some(100))])).len(), 2);
    }

    #[test]
    fn puzzles_other_work_held_warn_and_few_or_untold_ones_do_not() {
        let often = row(&[1_000_000; 1000], Some(250));
        let rarely = row(&[1_000_000; 1000], Some(10));
        let unknown = row(&[1_000_000; 1000], None);
        let lines = warnings(&report(vec![often, rarely, unknown]));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "c x: other work on this machine held the workers off their cores for a \
                 tenth or more of the time of 250 of its puzzles (25.0%)"
            ),
            "{lines:?}"
        );
        assert!(lines[0].contains("--repeat 3") && lines[0].contains("fewer threads"));
    }

    #[test]
    fn with_repeat_the_share_is_taken_as_counted_and_a_higher_repeat_is_advised() {
        // With --repeat the workers count a puzzle only when every round of it was held
        // off: the count is the share, as it is.
        let mut r = report(vec![row(&[1_000_000; 1000], Some(20))]);
        r.repeat = 3;
        let lines = warnings(&r);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("20 of its puzzles (2.0%)"), "{lines:?}");
        assert!(lines[0].contains("a --repeat above 3"), "{lines:?}");
    }
}
