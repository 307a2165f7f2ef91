//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! The library owns the pieces the `sudoku-bench` binary puts together: [`grid`] (the
//! board), [`corpus`] (streaming loader), [`strategy`] (the solvers behind one trait),
//! [`engine`] (each worker's solvers, and how a record becomes a result), [`runner`]
//! (parallel, order-preserving, timed execution, every answer checked) and [`report`]
//! (results, the [`report::Sink`] seam with the per-puzzle CSV and the summary, and the
//! summary's exporters); [`foreign`] brings in solvers from outside the crate. A strategy of your own runs through the same pieces: see
//! `examples/custom_strategy.rs`. The corpus tools add [`classify`] (every line's status,
//! in order), [`dedupe`] and [`canonical`] (repeated puzzles) and [`generate`]
//! (reproducible random puzzles); [`permute`] draws the equivalent grids of `run --permute`.

pub mod canonical;
pub mod classify;
pub mod clock;
pub mod compare;
pub mod compress;
pub mod corpus;
pub mod dedupe;
pub mod engine;
pub mod foreign;
pub mod generate;
pub mod grid;
pub mod interrupt;
pub mod machine;
pub mod merge;
pub mod noise;
mod per_worker;
pub mod permute;
pub mod preemption;
pub mod render;
pub mod report;
pub mod results;
pub mod resume;
pub mod rng;
pub mod runner;
pub mod strategy;
pub mod summary;

pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use strategy::{Limits, Outcome, Strategy};
