//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! The library owns the pieces the `sudoku-bench` binary puts together: [`grid`] (the
//! board), [`corpus`] (streaming loader), [`strategy`] (the solvers behind one trait),
//! [`runner`] (parallel, order-preserving execution) and [`report`] (per-puzzle CSV and
//! summaries).

pub mod clock;
pub mod compare;
pub mod corpus;
pub mod grid;
pub mod machine;
pub mod report;
pub mod runner;
pub mod strategy;

pub use corpus::{Corpus, Format, Kind, Record};
pub use grid::Grid;
pub use strategy::{Limits, Outcome, Strategy};
