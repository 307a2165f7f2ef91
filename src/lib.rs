#![warn(missing_docs)]
//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! To time a strategy of your own: implement [`Strategy`] (with a [`Budget`] and a
//! [`Tally`]), describe it with a [`StrategyInfo`], and hand it to a [`Bench`], which runs
//! it over a [`Corpus`] through the same runner, per-puzzle CSV and [`SummaryReport`] as
//! `sudoku-bench run`, every answer checked (see `examples/custom_strategy.rs`).
//!
//! The modules form layers; each uses only its own layer and those below
//! (`tests/cli/layers.rs` keeps it so):
//!
//! | layer | modules |
//! |---|---|
//! | base | [`grid`], [`rng`], [`machine`], [`cpus`], [`compress`] |
//! | corpus | [`corpus`] (the streaming loader), [`permute`], [`canonical`], [`dedupe`] |
//! | strategies | [`strategy`] (the trait and the built-in solvers), [`foreign`] (`lib:` and `cmd:` solvers), [`clock`], [`valgrind`] (instruction counts), [`generate`] |
//! | results | [`results`] (statuses, the per-puzzle result, the [`Sink`] seam, the per-puzzle CSV and its one reader), [`summary`] |
//! | running | [`engine`], [`runner`], [`classify`], [`interrupt`], [`preemption`] |
//! | analysis | [`compare`], [`merge`], [`resume`], [`report`] (the run report's figures), [`noise`], [`history`] (runs over commits and their change points) |
//! | rendering | [`render`]: tables, Markdown, JSON and CSV summaries, HTML pages and plots |
//! | front | [`mod@bench`] |
//!
//! The `sudoku-bench` binary sits on top: it parses arguments and wires these together.

pub mod bench;

pub use sudoku_bench_analysis::{compare, history, merge, noise, report, resume};
pub use sudoku_bench_core::{
    canonical, classify, clock, compress, corpus, cpus, dedupe, engine, generate, grid, interrupt,
    machine, permute, preemption, results, rng, runner, strategy, summary, valgrind,
};
pub use sudoku_bench_foreign as foreign;
pub use sudoku_bench_render as render;

pub use bench::{Bench, BenchError};
pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use results::{CsvSink, PuzzleResult, Sink, Status};
pub use runner::{Runner, Settings};
pub use strategy::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
pub use summary::{Summary, SummaryReport};
