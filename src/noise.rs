//! When a summary's throughput cannot be taken at face value: a few puzzles carry much
//! of the summed time (the mean-based `puzzles/s/core` then follows them), or the workers
//! were preempted during their solves often enough to add measurable time. Each warning
//! says what it means for the numbers and what to do; neither is an error (the hardest
//! corpora are heavy-tailed by nature).

use crate::summary::{SummaryReport, SummaryRow};

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

/// The share of a strategy's puzzles whose kept time may hold a preemption, above which
/// the workers count as preempted. A switch puts a time slice (milliseconds) into a solve
/// of microseconds, so each one affected is an outlier; a few are the tail warning's
/// business, a percent of them moves the quantiles too.
pub(crate) const PREEMPTED_SHARE: f64 = 0.01;

/// The share of `row`'s summed time its slowest 1% carries, when worth a warning.
pub(crate) fn heavy_tail(row: &SummaryRow) -> Option<f64> {
    (row.searched >= MIN_PUZZLES && row.slowest_1pct_share > TAIL_SHARE)
        .then_some(row.slowest_1pct_share)
}

/// The share of `row`'s puzzles whose kept time may carry a preemption, when worth a
/// warning. With `--repeat K` a puzzle keeps its fastest of K timings, so a preemption
/// stays only when every round of it was preempted: with p switches per solve, about p^K
/// of the puzzles. Switches are counted per task, not per solve, so this errs high.
pub fn preempted(row: &SummaryRow, repeat: u32) -> Option<f64> {
    let switches = row.preemptions?;
    if row.searched < MIN_PUZZLES {
        return None;
    }
    let rounds = repeat.max(1);
    let per_solve = (switches as f64 / (row.searched as f64 * rounds as f64)).min(1.0);
    let share = per_solve.powi(rounds as i32);
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
        if let Some(share) = preempted(row, report.repeat) {
            let more = if report.repeat > 1 {
                format!("a --repeat above {}", report.repeat)
            } else {
                "--repeat 3".to_string()
            };
            lines.push(format!(
                "{who}: the workers were preempted {} times during its solves, so about \
                 {:.1}% of its puzzles' times may each hold a time slice of other work on \
                 this machine; use {more}, a quieter machine, or fewer threads than cores (-j)",
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
    use crate::results::{PuzzleResult, Status};
    use crate::summary::Summary;

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
        let settings = crate::runner::Settings::default();
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
    fn frequent_preemptions_warn_and_rare_or_uncounted_ones_do_not() {
        let often = row(&[1_000_000; 1000], Some(250));
        let rarely = row(&[1_000_000; 1000], Some(3));
        let unknown = row(&[1_000_000; 1000], None);
        let lines = warnings(&report(vec![often, rarely, unknown]));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("c x: the workers were preempted 250 times"));
        assert!(lines[0].contains("about 25.0% of its puzzles"), "{lines:?}");
        assert!(lines[0].contains("--repeat 3") && lines[0].contains("fewer threads"));
    }

    #[test]
    fn with_repeat_only_preemptions_in_every_round_count() {
        // 1000 puzzles, 3 rounds, 250 switches: 1 in 12 solves, 1 in 1728 puzzles in all
        // three rounds: no warning. 2400 switches (4 in 5 solves): about half are.
        let mut r = report(vec![row(&[1_000_000; 1000], Some(250))]);
        r.repeat = 3;
        assert_eq!(warnings(&r), Vec::<String>::new());
        r.rows = vec![row(&[1_000_000; 1000], Some(2400))];
        let lines = warnings(&r);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("about 51.2% of its puzzles"), "{lines:?}");
        assert!(lines[0].contains("a --repeat above 3"), "{lines:?}");
    }
}
