//! `sudoku-bench report`: one self-contained HTML page of runs' per-puzzle CSVs (and
//! their summary JSONs, for the settings): tables, plots, classes, slowest puzzles.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};
use sudoku_bench::render::export::html::Page;
use sudoku_bench::render::report_page::{render, unmatched_summaries, ReportOptions};
use sudoku_bench::report::Inputs;
use sudoku_bench::summary::SummaryReport;

use super::args::parse_pair;
use super::exit::Exit;
use super::outputs::{self, Output};
use super::signals;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Per-puzzle CSVs written by `run`, and optionally the same runs' summary JSONs
    /// (`run --summary X.json`; told apart by a first `{`), which give the machine,
    /// threads, limits and date.
    #[arg(value_name = "RUN", required = true)]
    inputs: Vec<PathBuf>,

    /// The HTML file to write (`-` for stdout).
    #[arg(long, short = 'o', value_name = "PATH")]
    out: PathBuf,

    /// Draw B's time against A's, one point per puzzle (repeatable); default: the two
    /// strategies of each corpus with the fewest aborted searches, then the least summed
    /// time.
    #[arg(long, value_name = "A,B", value_parser = parse_pair)]
    scatter: Vec<(String, String)>,

    /// Also break the times down by this column of the CSV corpora (e.g. difficulty): the
    /// corpus files the CSV names are read again, as --input-format, --column and
    /// --solution-column say (give them as `run` was given them).
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,

    #[command(flatten)]
    input: super::args::InputFormat,
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // They say how to read the corpora again, which only --by does: taken silently, they
    // would let a user believe the page was made with them.
    if let (None, Some(option)) = (&args.by, args.input.first_given()) {
        bail!("{option} says how --by reads the corpora again: it does nothing without --by");
    }
    let read_as = args.input.read_as()?;
    // A page is all or nothing: a signal removes what is written and ends the command.
    signals::all_or_nothing("report")?;
    let output = Output::named("--out", &args.out).staged();
    // Staged: an input that cannot be read, or a disk that fills, leaves the file that was
    // there (say, last week's report) as it was.
    let mut out = outputs::check_runs("report", &args.inputs, vec![output])?
        .create()?
        .pop()
        .context("no output was opened")?;
    let inputs = Inputs::read(&args.inputs)?;
    let options = ReportOptions {
        scatter: distinct_pairs(args.scatter),
        by: args.by,
        read_as,
    };
    let html = render(&inputs, &options)?;
    for name in unmatched_summaries(&inputs) {
        stderr_line!(
            "warning: {name}: no (corpus, strategy) of the CSVs has the rows it counts (as many, \
             of each status, with the summed time), so its settings (timeout, node budget, \
             machine) are not used: is it the summary of another run?"
        );
    }
    out.writer
        .write_all(html.as_bytes())
        .with_context(|| format!("cannot write {}", outputs::shown(&out.path)))?;
    out.finish()?;
    Ok(Exit::Success)
}

/// The pairs in the order given, each once: B,A after A,B is the same chart mirrored.
fn distinct_pairs(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = Vec::new();
    for (a, b) in pairs {
        if !kept
            .iter()
            .any(|(x, y)| (x, y) == (&a, &b) || (x, y) == (&b, &a))
        {
            kept.push((a, b));
        }
    }
    kept
}

/// The report of the CSV a run just wrote at `csv`, with the run's own summary for its
/// settings, written to `out` (for `run --report`).
pub fn of_run(
    csv: &std::path::Path,
    summary: SummaryReport,
    out: &mut outputs::Opened,
) -> anyhow::Result<()> {
    // Interrupted before its first rows, or a corpus of comments only: a page that says so
    // rather than an error (the run itself did nothing wrong) or an empty file.
    let html = if summary.rows.iter().all(|r| r.puzzles == 0) {
        let mut page = Page::new("sudoku-bench report");
        page.paragraph(&format!(
            "{} holds no per-puzzle row: the run reported no puzzle{}.",
            csv.display(),
            if summary.interrupted {
                " before it was interrupted"
            } else {
                ""
            }
        ));
        page.finish()
    } else {
        let inputs = Inputs::read(&[csv.to_path_buf()])?.with_summary("this run", summary);
        render(&inputs, &ReportOptions::default())?
    };
    out.writer
        .write_all(html.as_bytes())
        .and_then(|()| out.writer.flush())
        .with_context(|| format!("cannot write {}", out.path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_asked_for_twice_is_drawn_once() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let asked = vec![p("a", "b"), p("b", "a"), p("a", "c"), p("a", "b")];
        assert_eq!(distinct_pairs(asked), [p("a", "b"), p("a", "c")]);
    }
}
