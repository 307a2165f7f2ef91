//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! The library owns the pieces the `sudoku-bench` binary puts together: [`grid`] (the
//! board), [`corpus`] (streaming loader), [`strategy`] (the solvers behind one trait),
//! [`runner`] (parallel, order-preserving execution) and [`report`] (per-puzzle CSV and
//! summaries). The corpus tools add [`classify`] (every line's status, in order),
//! [`dedupe`] and [`canonical`] (repeated puzzles) and [`generate`] (reproducible random puzzles).

pub mod canonical;
pub mod classify;
pub mod clock;
pub mod compare;
pub mod corpus;
pub mod dedupe;
pub mod foreign;
pub mod generate;
pub mod grid;
pub mod interrupt;
pub mod machine;
mod per_worker;
pub mod report;
pub mod runner;
pub mod strategy;

pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use strategy::{Limits, Outcome, Strategy};
