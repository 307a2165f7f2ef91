//! The summary as CSV: one header line, then one row per corpus and strategy with every
//! `SummaryRow` field, named as in the JSON summary, for a spreadsheet or a script. Flat:
//! the run's settings and machine are in the JSON and Markdown summaries.

use super::Exporter;
use sudoku_bench_core::summary::SummaryReport;

/// Exports the summary's rows as CSV.
pub struct CsvExporter;

/// `SummaryRow`'s fields in the order serde writes them, for the header of a summary
/// without rows (the writer takes its header from the first row). A test reads rows back
/// by these names: a field added to `SummaryRow` and not here fails it.
const HEADER: [&str; 29] = [
    "corpus",
    "strategy",
    "puzzles",
    "unique",
    "multiple",
    "unsolvable",
    "solved",
    "invalid",
    "malformed",
    "aborted",
    "mismatches",
    "failures",
    "unreturned",
    "searched",
    "puzzles_per_s_per_core",
    "wall_puzzles_per_s",
    "median_puzzles_per_s_per_core",
    "slowest_1pct_share",
    "preemptions",
    "total_time_ns",
    "wall_ns",
    "mean_ns",
    "median_ns",
    "p90_ns",
    "p99_ns",
    "max_ns",
    "mean_nodes",
    "mean_guesses",
    "no_guess_share",
];

impl Exporter for CsvExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let mut out = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        // Writing to memory fails only on a row serde cannot flatten, and `SummaryRow` is
        // flat: numbers, strings and options of numbers (empty when `None`).
        let failed = "a SummaryRow serialises to one CSV record";
        out.write_record(HEADER).expect(failed);
        for row in &report.rows {
            out.serialize(row).expect(failed);
        }
        let bytes = out.into_inner().expect(failed);
        String::from_utf8(bytes).expect("the fields are UTF-8 strings and numbers")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::json::JsonExporter;
    use sudoku_bench_core::results::{Ending, PuzzleResult, Status};
    use sudoku_bench_core::summary::{Summary, SummaryRow};

    /// A summary of two corpora and two strategies, with every kind of field filled: a
    /// strategy that counts nodes and guesses and one that counts neither (`None`s).
    fn report() -> SummaryReport {
        let mut summary = Summary::default();
        for corpus in ["a.txt", "b, with a comma.csv"] {
            for (strategy, counts) in [("fast", true), ("lib", false)] {
                let g = summary.group(corpus, strategy);
                for (i, status) in [Status::Unique, Status::Aborted, Status::Multiple]
                    .into_iter()
                    .enumerate()
                {
                    let i = i as u64;
                    summary.add(
                        g,
                        &PuzzleResult {
                            status,
                            solutions: Some(1),
                            nodes: counts.then_some(10 + 7 * i),
                            guesses: counts.then_some(i),
                            time_ns: Some(1_000 + 333 * i),
                            ended: (i == 2).then_some(Ending::Mismatch),
                            ..PuzzleResult::default()
                        },
                    );
                }
                summary.add(g, &PuzzleResult::unsearched(Status::Malformed, "short"));
                summary.add_wall(g, 12_345);
                summary.add_preemptions(g, counts.then_some(3));
            }
        }
        let settings = sudoku_bench_core::runner::Settings::default();
        settings.summary_report(&summary, 2, 99)
    }

    #[test]
    fn every_row_reads_back_with_the_json_numbers() {
        let report = report();
        let csv = CsvExporter.export(&report);
        assert_eq!(csv.lines().next().unwrap(), HEADER.join(","));
        assert_eq!(csv.lines().count(), 1 + report.rows.len());
        let back: Vec<SummaryRow> = csv::Reader::from_reader(csv.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        let json: SummaryReport = serde_json::from_str(&JsonExporter.export(&report)).unwrap();
        assert_eq!(back, json.rows);
        assert_eq!(back, report.rows);
        // Not vacuous: the rows hold figures, and `None`s.
        assert!(back
            .iter()
            .any(|r| r.mean_nodes.is_some() && r.preemptions == Some(3)));
        assert!(back
            .iter()
            .any(|r| r.mean_nodes.is_none() && r.preemptions.is_none()));
        assert!(back
            .iter()
            .all(|r| r.mismatches == 1 && r.aborted == 1 && r.malformed == 1));
    }

    #[test]
    fn a_summary_without_rows_is_its_header() {
        let report = SummaryReport {
            rows: Vec::new(),
            ..report()
        };
        assert_eq!(
            CsvExporter.export(&report),
            format!("{}\n", HEADER.join(","))
        );
    }
}
