//! What the runner's tests share: two puzzles, a corpus of them, settings, and runs into a
//! summary; a strategy that counts wrong.

use std::io;

use super::{Ended, RunError, Runner, Settings};
use crate::clock::MockClock;
use crate::corpus::Corpus;
use crate::grid::Grid;
use crate::results::sink::from_fn;
use crate::results::{Batch, Status};
use crate::strategy::{by_name, Limits, Outcome, Strategy, StrategyInfo};
use crate::summary::Summary;

pub(super) const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
pub(super) const TWO: &str =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";

/// `runner.run` into `summary` and `f`.
pub(super) fn run_with(
    runner: &mut Runner,
    corpus: &mut Corpus,
    summary: &mut Summary,
    f: impl FnMut(&Batch) -> io::Result<()> + Send,
) -> Result<Ended, RunError> {
    runner.run(corpus, &mut (from_fn(f), summary))
}

pub(super) fn corpus(text: &str) -> Corpus {
    Corpus::from_reader(
        "t",
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        None,
        None,
    )
}

pub(super) fn settings(names: &[&str], chunk_size: usize, repeat: u32) -> Settings {
    Settings {
        strategies: names.iter().map(|n| by_name(n).unwrap().clone()).collect(),
        chunk_size,
        // Chunks as they are read: the tests that cut them in parts say so.
        part_ns: 0,
        repeat,
        ..Settings::default()
    }
}

/// (line, strategy index, status, nodes, time) for every result, in the order given.
pub(super) type Row = (u64, usize, Status, Option<u64>, Option<u64>);

pub(super) fn run(
    text: &str,
    s: Settings,
    threads: usize,
    clock: &MockClock,
) -> (Vec<Row>, Summary) {
    let mut runner = Runner::new(s, threads, clock).unwrap();
    let mut summary = Summary::default();
    let mut rows = Vec::new();
    run_with(
        &mut runner,
        &mut corpus(text),
        &mut summary,
        |batch| -> io::Result<()> {
            for (i, r) in batch.records.iter().enumerate() {
                for s in 0..batch.strategies.len() {
                    let res = &batch.results[s][i];
                    rows.push((r.line, s, res.status, res.nodes, res.time_ns));
                }
            }
            Ok(())
        },
    )
    .unwrap();
    (rows, summary)
}

pub(super) fn mixed(n: usize) -> String {
    (0..n)
        .map(|i| match i % 4 {
            0 => EASY.to_string(),
            1 => TWO.to_string(),
            2 => "# comment".to_string(),
            _ => EASY[..40].to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Counts one solution more than `fast` on every puzzle with a solution, and returns
/// none: wrong on those, right on the others.
pub(super) struct OneTooMany(pub(super) Box<dyn Strategy>);

impl Strategy for OneTooMany {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut outcome = self.0.solve(puzzle, limits);
        if outcome.solutions > 0 {
            outcome.solutions += 1;
        }
        outcome.first = None;
        outcome
    }
}

pub(super) fn wrapped(
    name: &'static str,
    wrap: fn(Box<dyn Strategy>) -> Box<dyn Strategy>,
) -> StrategyInfo {
    StrategyInfo::new(name, move || wrap(by_name("fast").unwrap().make()))
}
