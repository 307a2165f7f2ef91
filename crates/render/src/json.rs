//! The summary as JSON (`--summary PATH.json`): machine, settings and one object per
//! corpus and strategy, every time field in nanoseconds and named `*_ns`.

use super::table::Exporter;
use sudoku_bench_core::summary::SummaryReport;

/// Exports the summary as pretty-printed JSON.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let mut s = serde_json::to_string_pretty(report).expect("a summary always serializes");
        s.push('\n');
        s
    }
}
