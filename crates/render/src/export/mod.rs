//! Every output format, one file each: [`table`] (aligned text for a terminal, drawn by the
//! one table renderer every text table uses), [`markdown`], [`json`], [`csv`], [`bmf`] and
//! [`html`] (the page every HTML output is built on). Each serves the kinds of output it
//! applies to: the run summary ([`Exporter`]; its columns and notes in [`summary`]), the
//! comparison ([`CompareExporter`]; what it says in [`comparison`]) and the history
//! (`history check`'s text in [`crate::history`], `history export`'s [`bmf`]).

pub mod bmf;
pub mod comparison;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod table;
#[cfg(test)]
mod tests;

use sudoku_bench_analysis::compare::Comparison;
use sudoku_bench_core::summary::SummaryReport;

/// Turns a finished run's summary into one output format.
pub trait Exporter {
    /// The whole export, line endings included.
    fn export(&self, report: &SummaryReport) -> String;
}

/// Turns a comparison into one output format.
pub trait CompareExporter {
    /// The whole export, line endings included.
    fn export(&self, cmp: &Comparison) -> String;
}
