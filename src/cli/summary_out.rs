//! The summary a command writes and shows, taken the same way by `run` and `merge`:
//! `--summary PATH`, `--summary-format`, and `--wide` for the table on stderr.

use std::path::Path;
use std::path::PathBuf;

use sudoku_bench::render::export::csv::CsvExporter;
use sudoku_bench::render::export::json::JsonExporter;
use sudoku_bench::render::export::markdown::MarkdownExporter;
use sudoku_bench::render::export::table::{TableExporter, WideTableExporter};
use sudoku_bench::render::export::Exporter;
use sudoku_bench::summary::SummaryReport;

use super::output_format::OutputFormat;

/// `--summary`, `--summary-format` and `--wide`.
#[derive(Debug, clap::Args)]
pub struct SummaryArgs {
    /// Also write the summary to this path (`-` for stdout), in --summary-format.
    #[arg(long = "summary", id = "summary", value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// The --summary's format; default: from its extension (.json, .md, .csv), else JSON.
    #[arg(long, value_parser = OutputFormat::parser(OutputFormat::SUMMARY), requires = "summary")]
    summary_format: Option<OutputFormat>,

    /// Show every column of the summary table (by default it fits 100 columns; the
    /// Markdown, JSON and CSV summaries always have every field).
    #[arg(long)]
    wide: bool,
}

impl SummaryArgs {
    /// `report` as the --summary file at `path` holds it.
    pub fn text(&self, path: &Path, report: &SummaryReport) -> String {
        exporter(summary_format(self.summary_format, path)).export(report)
    }

    /// Prints the summary table to stderr, as wide as --wide says.
    pub fn show(&self, report: &SummaryReport) {
        let table: &dyn Exporter = if self.wide {
            &WideTableExporter
        } else {
            &TableExporter
        };
        stderr_text!("{}", table.export(report));
    }
}

/// The format `--summary-format` names, else the one `path`'s extension names, else JSON.
fn summary_format(flag: Option<OutputFormat>, path: &Path) -> OutputFormat {
    let by_extension = || match path.extension()?.to_str()? {
        "json" => Some(OutputFormat::Json),
        "md" => Some(OutputFormat::Markdown),
        "csv" => Some(OutputFormat::Csv),
        _ => None,
    };
    flag.or_else(by_extension).unwrap_or(OutputFormat::Json)
}

/// The summary's exporter in `format`, one of [`OutputFormat::SUMMARY`].
fn exporter(format: OutputFormat) -> &'static dyn Exporter {
    match format {
        OutputFormat::Json => &JsonExporter,
        OutputFormat::Markdown => &MarkdownExporter,
        OutputFormat::Csv => &CsvExporter,
        OutputFormat::Table | OutputFormat::Html | OutputFormat::Bmf => {
            unreachable!("--summary-format takes only OutputFormat::SUMMARY")
        }
    }
}
