#![warn(missing_docs)]
//! sudoku-bench's core: the grid, the streaming corpus loader, the built-in strategies and
//! their timing ([`clock`], [`valgrind`]), the per-puzzle results and the summary, and the
//! runner that times strategies over a corpus in parallel, every answer checked. The hot
//! loops (the strategies and the runner's timed phases) live here together, so that they are
//! optimised as one crate; every other crate of the workspace builds on this one.

pub mod canonical;
pub mod classify;
pub mod clock;
pub mod compress;
pub mod corpus;
pub mod cpus;
pub mod dedupe;
pub mod engine;
pub mod generate;
pub mod grid;
pub mod interrupt;
pub mod machine;
mod per_worker;
mod permute;
mod preemption;
pub mod results;
pub mod rng;
pub mod runner;
pub mod strategy;
pub mod summary;
pub mod valgrind;

pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use results::{CsvSink, PuzzleResult, Sink, Status};
pub use runner::{Runner, Settings};
pub use strategy::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
pub use summary::{Summary, SummaryReport};
