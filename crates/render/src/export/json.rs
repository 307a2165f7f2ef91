//! JSON: the comparison's verdicts, and the summary (`--summary PATH.json`): machine, settings and one object per
//! corpus and strategy, every time field in nanoseconds and named `*_ns`.

use super::{CompareExporter, Exporter};
use sudoku_bench_analysis::compare::Comparison;
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

/// Exports the comparison as pretty-printed JSON: the verdicts, not the per-puzzle times.
pub struct CompareJsonExporter;

impl CompareExporter for CompareJsonExporter {
    fn export(&self, cmp: &Comparison) -> String {
        let mut s = serde_json::to_string_pretty(cmp).expect("a comparison always serializes");
        s.push('\n');
        s
    }
}
