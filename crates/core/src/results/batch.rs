//! `Batch`: a chunk of a run's results, in input order, as the runner hands it to each
//! [`super::Sink`].

use super::PuzzleResult;
use crate::corpus::Record;
use crate::strategy::StrategyInfo;

/// A chunk of results, in input order: `results[s][i]` is `records[i]` under strategy `s`
/// (a results vector may be longer than `records`; only the first `records.len()` count).
#[derive(Debug)]
pub struct Batch<'a> {
    /// The corpus's name.
    pub corpus: &'a str,
    /// The records reported, entries only.
    pub records: &'a [Record],
    /// The strategies, in the order of `results`.
    pub strategies: &'a [StrategyInfo],
    /// Each strategy's results.
    pub results: &'a [Vec<PuzzleResult>],
    /// Each strategy's wall-clock time for these records: its share of its phase.
    pub walls: &'a [u64],
    /// Per strategy, how many of these records' kept times other work on the machine may
    /// hold (its share of its phase's); `None` where that is not told (off Linux, and for
    /// a solver in a process of its own).
    pub preemptions: &'a [Option<u64>],
}
