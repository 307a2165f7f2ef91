#![warn(missing_docs)]
//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! To time a strategy of your own: implement [`Strategy`] (with a [`Budget`] and a
//! [`Tally`]), describe it with a [`StrategyInfo`], and hand it to a [`Bench`], which runs
//! it over a [`Corpus`] through the same runner, per-puzzle CSV and [`SummaryReport`] as
//! `sudoku-bench run`, every answer checked (see `examples/custom_strategy.rs`).
//!
//! This crate is the facade of the workspace's libraries: it re-exports the modules of
//! `sudoku-bench-core` (grids, corpora, strategies, results, the runner),
//! `sudoku-bench-foreign` (as [`foreign`]), `sudoku-bench-analysis` and
//! `sudoku-bench-render` (as [`render`]) under the paths they have always had, and adds
//! [`mod@bench`]. The `sudoku-bench` binary sits on top: it parses arguments and wires these
//! together.

pub use sudoku_bench_analysis::{compare, history, merge, noise, report, resume};
pub use sudoku_bench_core::{
    canonical, classify, clock, compress, corpus, cpus, dedupe, engine, generate, grid, interrupt,
    machine, results, rng, runner, strategy, summary, valgrind,
};
pub use sudoku_bench_foreign as foreign;
pub use sudoku_bench_render as render;

pub mod bench;

pub use bench::{Bench, BenchError};
pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use results::{CsvSink, PuzzleResult, Sink, Status};
pub use runner::{Runner, Settings};
pub use strategy::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
pub use summary::{Summary, SummaryReport};
