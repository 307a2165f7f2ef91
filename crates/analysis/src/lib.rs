#![warn(missing_docs)]
//! sudoku-bench's analysis of finished runs, read from their per-puzzle CSVs and summary
//! JSONs: [`compare`] (runs paired puzzle by puzzle, verdicts with their intervals),
//! [`merge`] (the parts of a split run put back together), [`resume`] (a cut run's CSV
//! checked and taken up again), [`report`] (the run report's figures), [`noise`] (when a
//! summary's throughput cannot be taken at face value) and [`history`] (runs recorded by
//! commit, and the change points of their series). It builds on `sudoku-bench-core` and
//! draws nothing: `sudoku-bench-render` turns its results into text and pages.

pub mod compare;
pub mod history;
pub mod merge;
pub mod noise;
pub mod report;
pub mod resume;
