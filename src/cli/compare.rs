//! `sudoku-bench compare`: reads two runs, compares them with the library's statistics,
//! prints one format, and turns the verdicts into an exit status (0 fine, 1 regressed,
//! 2 bad input).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::ValueEnum;
use sudoku_bench::compare::export::{
    CompareExporter, JsonExporter, MarkdownExporter, TableExporter,
};
use sudoku_bench::compare::{self, Options, Run};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OutputFormat {
    Table,
    Markdown,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run to compare against: a per-puzzle CSV from `run` (or its summary JSON).
    baseline: PathBuf,

    /// The run to judge, in the same form.
    current: PathBuf,

    /// Smallest change that counts: `5%` or `0.05`.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    threshold: f64,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,

    /// Divide each strategy's per-puzzle times by this strategy's, run by run, so that
    /// runs from different machines compare.
    #[arg(long, value_name = "STRATEGY")]
    relative_to: Option<String>,

    /// Do not fail (exit 1) when node counts changed; only time regressions fail.
    #[arg(long)]
    allow_search_changes: bool,
}

fn parse_threshold(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("{s:?} is not a threshold (try 5% or 0.05)"))?;
    if !(value.is_finite() && value >= 0.0) {
        return Err(format!("{s:?}: the threshold must be 0 or more"));
    }
    Ok(value)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The library's errors already name the file and line.
    let baseline = Run::load(&args.baseline)?;
    let current = Run::load(&args.current)?;
    let options = Options {
        threshold: args.threshold,
        relative_to: args.relative_to.clone(),
        ..Options::default()
    };
    let cmp = compare::compare(&baseline, &current, &options).with_context(|| {
        format!(
            "cannot compare {} with {}",
            args.baseline.display(),
            args.current.display()
        )
    })?;
    let text = match args.format {
        OutputFormat::Table => TableExporter.export(&cmp),
        OutputFormat::Markdown => MarkdownExporter.export(&cmp),
        OutputFormat::Json => JsonExporter.export(&cmp),
    };
    print!("{text}");
    Ok(if cmp.regressed(args.allow_search_changes) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
