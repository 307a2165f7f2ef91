//! The figures of one strategy on one corpus, computed exactly from every row (the report
//! holds every time, so quantiles need no histogram), and PAR-2.

use super::read::CompactRow;
use sudoku_bench_core::results::Status;

/// What the summary table shows for one group.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Rows (puzzle lines reported).
    pub puzzles: u64,
    /// Rows per status, indexed like `Status::ALL`.
    pub counts: [u64; Status::ALL.len()],
    /// Finished searches whose answer was wrong.
    pub wrong: u64,
    /// Rows with a time.
    pub searched: u64,
    /// Summed solve time.
    pub total_ns: u128,
    /// Median, 99th percentile (nearest rank) and longest solve; 0 when none searched.
    pub median_ns: u64,
    /// See `median_ns`.
    pub p99_ns: u64,
    /// See `median_ns`.
    pub max_ns: u64,
    /// Nodes per searched puzzle, for strategies that count them.
    pub mean_nodes: Option<f64>,
    /// Guesses per finished puzzle, for strategies that count them (an aborted search's
    /// guesses only say how far it got, as in `run`'s summary).
    pub guesses_per_puzzle: Option<f64>,
}

impl Stats {
    /// Searched puzzles per second of summed solve time: one core's speed.
    pub fn per_s_per_core(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.searched as f64 / (self.total_ns as f64 / 1e9)
        }
    }

    /// The count of one status.
    pub fn count(&self, status: Status) -> u64 {
        self.counts[status as usize]
    }
}

/// The value at quantile `p` of ascending `sorted` by nearest rank (the smallest value
/// with at least `p` of the values at or below it): always one of the values.
pub fn quantile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Ascending times of the rows `keep` accepts (of those searched).
pub fn sorted_times(rows: &[CompactRow], keep: impl Fn(&CompactRow) -> bool) -> Vec<u64> {
    let mut times: Vec<u64> = rows
        .iter()
        .filter(|r| keep(r))
        .filter_map(CompactRow::time_ns)
        .collect();
    times.sort_unstable();
    times
}

/// The figures of `rows`; `times` are their searched times, ascending.
pub fn stats(rows: &[CompactRow], times: &[u64]) -> Stats {
    let mut counts = [0u64; Status::ALL.len()];
    let (mut wrong, mut nodes_sum, mut nodes_n, mut guess_sum, mut guess_n) =
        (0u64, 0u128, 0u64, 0u128, 0u64);
    for r in rows {
        counts[r.status as usize] += 1;
        wrong += r.wrong as u64;
        if r.time_ns().is_some() {
            if let Some(n) = r.nodes() {
                nodes_sum += n as u128;
                nodes_n += 1;
            }
            if let (Some(g), true) = (r.guesses(), r.status != Status::Aborted) {
                guess_sum += g as u128;
                guess_n += 1;
            }
        }
    }
    let mean = |sum: u128, n: u64| (n > 0).then(|| sum as f64 / n as f64);
    Stats {
        puzzles: rows.len() as u64,
        counts,
        wrong,
        searched: times.len() as u64,
        total_ns: times.iter().map(|&t| t as u128).sum(),
        median_ns: quantile(times, 0.5),
        p99_ns: quantile(times, 0.99),
        max_ns: times.last().copied().unwrap_or(0),
        mean_nodes: mean(nodes_sum, nodes_n),
        guesses_per_puzzle: mean(guess_sum, guess_n),
    }
}

/// The limits a run was made with, as far as they are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KnownLimits {
    /// Time budget per search.
    pub timeout_ns: Option<u64>,
    /// Node budget per search.
    pub max_nodes: Option<u64>,
}

/// PAR-2 scores, the SAT competitions' penalised sum: each finished search counts what it
/// cost, each aborted one twice the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Par2 {
    /// In nanoseconds, when a timeout was set.
    pub time_ns: Option<u128>,
    /// In nodes, when a node budget was set and the strategy counts nodes.
    pub nodes: Option<u128>,
    /// Searches that count at twice the limit.
    pub aborted: u64,
    /// Searches scored.
    pub searched: u64,
    /// The limits that applied: the run's, but no node budget for a strategy that counts
    /// no nodes (a solver from outside, which no node budget bounds).
    pub limits: KnownLimits,
}

/// PAR-2 of `rows` under `limits`. Unsearched rows (malformed, invalid) are not scored:
/// there was nothing to solve. An aborted search counts twice the limit whichever limit
/// stopped it: it did not finish, which is what the score penalises.
pub fn par2(rows: &[CompactRow], limits: KnownLimits) -> Par2 {
    let searched: Vec<&CompactRow> = rows.iter().filter(|r| r.time_ns().is_some()).collect();
    let aborted = searched
        .iter()
        .filter(|r| r.status == Status::Aborted)
        .count() as u64;
    let score = |limit: u64, cost: &dyn Fn(&CompactRow) -> Option<u64>| -> Option<u128> {
        searched
            .iter()
            .map(|r| match r.status {
                Status::Aborted => Some(2 * limit as u128),
                _ => cost(r).map(u128::from),
            })
            .sum()
    };
    let counts_nodes = searched.iter().all(|r| r.nodes().is_some()) && !searched.is_empty();
    let limits = KnownLimits {
        max_nodes: limits.max_nodes.filter(|_| counts_nodes),
        ..limits
    };
    Par2 {
        time_ns: limits
            .timeout_ns
            .and_then(|limit| score(limit, &|r: &CompactRow| r.time_ns())),
        nodes: limits
            .max_nodes
            .and_then(|limit| score(limit, &|r: &CompactRow| r.nodes())),
        aborted,
        searched: searched.len() as u64,
        limits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: u64, status: Status, time: u64, nodes: Option<u64>) -> CompactRow {
        CompactRow::new(
            line,
            status,
            Some(1),
            nodes,
            None,
            Some(time),
            Some(25),
            false,
        )
    }

    #[test]
    fn quantiles_are_nearest_rank_values() {
        let t: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&t, 0.5), 50);
        assert_eq!(quantile(&t, 0.99), 99);
        assert_eq!(quantile(&t, 1.0), 100);
        assert_eq!(quantile(&[7], 0.5), 7);
        assert_eq!(quantile(&[1, 2, 3], 0.5), 2);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn par2_counts_twice_the_limit_for_each_aborted_search() {
        let rows = [
            row(1, Status::Unique, 100, Some(5)),
            row(2, Status::Aborted, 900, Some(40)),
            row(3, Status::Multiple, 300, Some(7)),
            CompactRow::new(4, Status::Malformed, None, None, None, None, None, false),
        ];
        let p = par2(
            &rows,
            KnownLimits {
                timeout_ns: Some(1000),
                max_nodes: Some(40),
            },
        );
        assert_eq!(p.time_ns, Some(100 + 2000 + 300));
        assert_eq!(p.nodes, Some(5 + 80 + 7));
        assert_eq!((p.aborted, p.searched), (1, 3));
        let none = par2(&rows, KnownLimits::default());
        assert_eq!((none.time_ns, none.nodes), (None, None));
        // A strategy that counts no nodes has no node score, even with a budget.
        let foreign = [CompactRow::new(
            1,
            Status::Unique,
            Some(1),
            None,
            None,
            Some(5),
            None,
            false,
        )];
        let p = par2(
            &foreign,
            KnownLimits {
                timeout_ns: None,
                max_nodes: Some(10),
            },
        );
        assert_eq!(p.nodes, None);
        assert_eq!(p.limits.max_nodes, None);
    }

    #[test]
    fn stats_count_statuses_wrong_answers_and_exact_quantiles() {
        let mut rows: Vec<CompactRow> = (1..=200)
            .map(|i| row(i, Status::Unique, i * 10, Some(i)))
            .collect();
        rows.push(CompactRow::new(
            201,
            Status::Aborted,
            Some(0),
            Some(1000),
            Some(9),
            Some(5000),
            Some(20),
            false,
        ));
        rows.push(CompactRow::new(
            202,
            Status::Invalid,
            None,
            None,
            None,
            None,
            Some(30),
            false,
        ));
        rows.push(CompactRow::new(
            203,
            Status::Unique,
            Some(1),
            Some(3),
            Some(2),
            Some(1),
            Some(30),
            true,
        ));
        let times = sorted_times(&rows, |_| true);
        let s = stats(&rows, &times);
        assert_eq!(s.puzzles, 203);
        assert_eq!(s.count(Status::Unique), 201);
        assert_eq!(s.count(Status::Aborted), 1);
        assert_eq!(s.count(Status::Invalid), 1);
        assert_eq!(s.wrong, 1);
        assert_eq!(s.searched, 202);
        assert_eq!(
            s.total_ns,
            (1..=200u128).map(|i| i * 10).sum::<u128>() + 5000 + 1
        );
        // 202 times: 1, 10, 20, ..., 2000, 5000; the 101st is 1000.
        assert_eq!(s.median_ns, 1000);
        assert_eq!(s.p99_ns, 2000 - 10);
        assert_eq!(s.max_ns, 5000);
        // Guesses of the finished row only: the aborted one's 9 does not count.
        assert_eq!(s.guesses_per_puzzle, Some(2.0));
    }
}
