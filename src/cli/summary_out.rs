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

/// `--summary`, `--summary-format` and `--wide`.
#[derive(Debug, clap::Args)]
pub struct SummaryArgs {
    /// Also write the summary to this path (`-` for stdout), in --summary-format.
    #[arg(long = "summary", id = "summary", value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// The --summary's format; default: from its extension (.json, .md, .csv), else JSON.
    #[arg(long, value_enum, requires = "summary")]
    summary_format: Option<SummaryFormat>,

    /// Show every column of the summary table (by default it fits 100 columns; the
    /// Markdown, JSON and CSV summaries always have every field).
    #[arg(long)]
    wide: bool,
}

impl SummaryArgs {
    /// `report` as the --summary file at `path` holds it.
    pub fn text(&self, path: &Path, report: &SummaryReport) -> String {
        SummaryFormat::of(self.summary_format, path)
            .exporter()
            .export(report)
    }

    /// Prints the summary table to stderr, as wide as --wide says.
    pub fn show(&self, report: &SummaryReport) {
        let table: &dyn Exporter = if self.wide {
            &WideTableExporter
        } else {
            &TableExporter
        };
        eprint!("{}", table.export(report));
    }
}

/// `--summary-format`: the words `compare --format` takes for the same formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SummaryFormat {
    Json,
    #[value(alias = "md")]
    Markdown,
    Csv,
}

impl SummaryFormat {
    /// The format `--summary-format` names, else the one `path`'s extension names, else JSON.
    fn of(flag: Option<SummaryFormat>, path: &Path) -> SummaryFormat {
        let by_extension = || match path.extension()?.to_str()? {
            "json" => Some(SummaryFormat::Json),
            "md" => Some(SummaryFormat::Markdown),
            "csv" => Some(SummaryFormat::Csv),
            _ => None,
        };
        flag.or_else(by_extension).unwrap_or(SummaryFormat::Json)
    }

    fn exporter(self) -> &'static dyn Exporter {
        match self {
            SummaryFormat::Json => &JsonExporter,
            SummaryFormat::Markdown => &MarkdownExporter,
            SummaryFormat::Csv => &CsvExporter,
        }
    }
}
