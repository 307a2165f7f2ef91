//! sudoku-bench: benchmark Sudoku solver strategies over large puzzle corpora.
//!
//! The library owns the pieces the `sudoku-bench` binary puts together: [`grid`] (the
//! board), [`strategy`] (the solvers behind one trait), and, as they land, the corpus
//! loader, the parallel runner and the reporters.

pub mod grid;
pub mod strategy;

pub use grid::Grid;
pub use strategy::{Limits, Outcome, Strategy};
