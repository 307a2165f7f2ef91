//! `sudoku-bench compare`: reads runs (two strategies of one run with `--between`, one run
//! per side positionally, or several with `--baseline`/`--current`), compares them with the
//! library's statistics, prints one format, and turns the verdicts into an exit status (0
//! fine or inconclusive, 1 regressed, 2 bad input, rows left unpaired, or the report could
//! not be written).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use sudoku_bench::compare::stats::Bootstrap;
use sudoku_bench::compare::{self, CompareOptions, GateOutcome, Run};
use sudoku_bench::render::compare_html::CompareHtmlExporter;
use sudoku_bench::render::export::comparison as export;
use sudoku_bench::render::export::json::CompareJsonExporter;
use sudoku_bench::render::export::markdown::CompareMarkdownExporter;
use sudoku_bench::render::export::table::CompareTableExporter;
use sudoku_bench::render::export::CompareExporter;

use super::args::parse_pair;
use super::exit::Exit;
use super::output_format::OutputFormat;
use super::outputs::{self, Output};
use super::signals;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// BASELINE CURRENT: one run per side, each a per-puzzle CSV from `run` (or its summary
    /// JSON). With --between: the one run whose strategies are compared.
    #[arg(value_name = "RUN", num_args = 0..=2)]
    files: Vec<PathBuf>,

    /// Several baseline runs (give --current too, and no positional runs).
    #[arg(long, value_name = "RUN", num_args = 1..)]
    baseline: Vec<PathBuf>,

    /// Several current runs, to compare with the --baseline ones.
    #[arg(long, value_name = "RUN", num_args = 1..)]
    current: Vec<PathBuf>,

    /// Compare strategy NEW with strategy OLD of the same run, puzzle by puzzle: the
    /// strongest verdict (repeatable: several pairs).
    #[arg(long, value_name = "OLD,NEW", value_parser = parse_pair)]
    between: Vec<(String, String)>,

    /// Smallest change that counts: `5%` or `0.05`.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    threshold: f64,

    /// Smallest change that counts when the runs counted instructions (`run --measure
    /// instructions`): counts do not drift with the machine, so a small change is a real one.
    #[arg(long, value_name = "THRESHOLD", default_value = "1%", value_parser = parse_threshold)]
    count_threshold: f64,

    /// Confidence level of the intervals, from 50% to 99.9%: a higher one calls fewer
    /// changes where there are none (about 1 - LEVEL of comparisons of identical code
    /// get a faster or slower verdict, mostly "not past threshold"), at the cost of
    /// wider intervals.
    #[arg(long, value_name = "LEVEL", default_value = "95%", value_parser = parse_confidence)]
    confidence: f64,

    /// How far runs of identical code move apart beyond what their replicates show: a log
    /// ratio's standard deviation between runs (`0.3%` or `0.003`), added in quadrature to
    /// the error of an in-run interval over replicates. The default was measured on this
    /// project's AMD EPYC machines; `scripts/verdicts.sh` measures it on yours. `0`: the replicates
    /// alone.
    #[arg(long, value_name = "SPREAD", default_value_t = compare::DEFAULT_RUN_SPREAD, value_parser = parse_run_spread)]
    run_spread: f64,

    /// Output format.
    #[arg(long, value_parser = OutputFormat::parser(OutputFormat::COMPARISON), default_value = "table")]
    format: OutputFormat,

    /// Write the comparison to PATH instead of stdout (`-`).
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    out: PathBuf,

    /// Divide each strategy's per-puzzle times by this strategy's, run by run, so that
    /// runs from different machines compare.
    #[arg(long, value_name = "STRATEGY", conflicts_with = "between")]
    relative_to: Option<String>,

    /// Do not fail (exit 1) when node counts changed; only time regressions fail.
    #[arg(long)]
    allow_search_changes: bool,

    /// Share of each side's rows that must be paired (same corpus content or name, same
    /// line, same puzzle, same strategy), else exit 2: `100%` (default), `90%`, `0`.
    #[arg(long, value_name = "SHARE", default_value = "100%", value_parser = parse_share)]
    min_paired: f64,
}

/// Rows named in the error when too few are paired; the report lists them all.
const NAMED_UNPAIRED: usize = 5;

/// `5%` or `0.05`.
pub(super) fn parse_fraction(s: &str) -> Option<f64> {
    let t = s.trim();
    match t.strip_suffix('%') {
        // Read as a number times 10^-2 rather than divided by 100, so that a percentage
        // is the fraction written out (99.9% is 0.999, not 0.9990000000000001, which a
        // range up to 0.999 would refuse).
        Some(p)
            if p.trim()
                .bytes()
                .all(|b| b.is_ascii_digit() || b"+-.".contains(&b)) =>
        {
            format!("{}e-2", p.trim()).parse().ok()
        }
        Some(p) => p.trim().parse::<f64>().ok().map(|v| v / 100.0),
        None => t.parse::<f64>().ok(),
    }
}

pub(super) fn parse_threshold(s: &str) -> Result<f64, String> {
    let value =
        parse_fraction(s).ok_or_else(|| format!("{s:?} is not a threshold (try 5% or 0.05)"))?;
    if !(value.is_finite() && value >= 0.0) {
        return Err(format!(
            "{s:?}: the threshold must be a finite number, 0 or more"
        ));
    }
    // A bare 5 is 500%, a gate that never fails: surely 5% was meant.
    if value >= 1.0 && !s.trim().ends_with('%') {
        return Err(format!(
            "{s:?}: a bare number is a fraction (0.05 is 5%); write {s}% or {}",
            value / 100.0
        ));
    }
    Ok(value)
}

fn parse_run_spread(s: &str) -> Result<f64, String> {
    match parse_fraction(s) {
        Some(v) if (0.0..0.5).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a run spread from 0 to below 50% (try 0.3% or 0.003)"
        )),
    }
}

fn parse_confidence(s: &str) -> Result<f64, String> {
    match parse_fraction(s) {
        Some(v) if (0.5..=0.999).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a confidence level from 50% to 99.9% (try 99% or 0.99)"
        )),
    }
}

fn parse_share(s: &str) -> Result<f64, String> {
    match parse_fraction(s) {
        Some(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a share from 0 to 100% (try 90% or 0.9)"
        )),
    }
}

fn load_all(paths: &[PathBuf]) -> anyhow::Result<Vec<Run>> {
    // The library's errors already name the file and line.
    Ok(paths
        .iter()
        .map(|p| Run::load(p))
        .collect::<Result<_, _>>()?)
}

fn shown(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(" ")
}

/// Which comparison the arguments ask for, checked before any file is read.
fn comparison(args: &Args, options: &CompareOptions) -> anyhow::Result<compare::Comparison> {
    let several = !args.baseline.is_empty() || !args.current.is_empty();
    if !args.between.is_empty() {
        if several || args.files.len() != 1 {
            anyhow::bail!(
                "--between compares two strategies of ONE run: give one run (compare RUN.csv \
                 --between OLD,NEW), without --baseline/--current"
            );
        }
        let run = Run::load(&args.files[0])?;
        return compare::between(&run, &args.between, options)
            .with_context(|| format!("cannot compare in {}", args.files[0].display()));
    }
    let (baseline, current): (&[PathBuf], &[PathBuf]) = if several {
        if !args.files.is_empty() {
            anyhow::bail!(
                "give the runs either positionally (compare BASELINE CURRENT) or with \
                 --baseline B1 B2 .. --current C1 C2 .., not both"
            );
        }
        if args.baseline.is_empty() || args.current.is_empty() {
            anyhow::bail!("--baseline and --current go together: give both");
        }
        (&args.baseline, &args.current)
    } else {
        match args.files.as_slice() {
            [b, c] => (std::slice::from_ref(b), std::slice::from_ref(c)),
            _ => anyhow::bail!(
                "give two runs (compare BASELINE CURRENT), several per side (--baseline B1 \
                 B2 .. --current C1 C2 ..), or one run with --between OLD,NEW"
            ),
        }
    };
    warn_same_files(baseline, current);
    let cmp = compare::compare(&load_all(baseline)?, &load_all(current)?, options);
    cmp.with_context(|| format!("cannot compare {} with {}", shown(baseline), shown(current)))
}

/// A run on both sides compares with itself: every time ratio is 1, which says nothing.
fn warn_same_files(baseline: &[PathBuf], current: &[PathBuf]) {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &PathBuf| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    for c in current {
        let Some(c_id) = id(c) else { continue };
        if let Some(b) = baseline.iter().find(|b| id(b) == Some(c_id)) {
            super::warnings::warn(&format!(
                "{} is the baseline and {} the current run, and they are one file: it can \
                 only be compared with itself (was another run meant?)",
                b.display(),
                c.display()
            ));
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let options = CompareOptions {
        threshold: args.threshold,
        relative_to: args.relative_to.clone(),
        allow_search_changes: args.allow_search_changes,
        bootstrap: Bootstrap {
            confidence: args.confidence,
            ..Bootstrap::default()
        },
        count_threshold: args.count_threshold,
        run_spread: args.run_spread,
    };
    let inputs: Vec<PathBuf> = [&args.files, &args.baseline, &args.current]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    // A comparison is all or nothing: a signal removes what is written and ends the
    // command.
    signals::all_or_nothing("compare")?;
    let output = Output::named("--out", &args.out).staged();
    // Staged: a run that cannot be compared, or a disk that fills, leaves the file that
    // was there as it was, and no empty or partial page.
    let mut out = outputs::check_reading_twice("compare", &inputs, vec![output])?
        .create()?
        .pop()
        .context("no output was opened")?;
    let cmp = comparison(&args, &options)?;
    let text = match args.format {
        OutputFormat::Table => CompareTableExporter.export(&cmp),
        OutputFormat::Markdown => CompareMarkdownExporter.export(&cmp),
        OutputFormat::Json => CompareJsonExporter.export(&cmp),
        OutputFormat::Html => CompareHtmlExporter {
            min_paired: args.min_paired,
        }
        .export(&cmp),
        OutputFormat::Csv | OutputFormat::Bmf => {
            unreachable!("--format takes only OutputFormat::COMPARISON")
        }
    };
    // Not `print!`, which panics on a write error: a full disk is an error like any other
    // (exit 2), and a closed pipe is for `main` to call success.
    out.writer.write_all(text.as_bytes()).with_context(|| {
        format!(
            "cannot write the comparison to {}",
            outputs::shown(&out.path)
        )
    })?;
    out.finish()?;
    match cmp.outcome(args.min_paired) {
        GateOutcome::TooFewPaired => {
            let cov = cmp.coverage;
            let mut named: Vec<String> = cmp
                .unpaired
                .iter()
                .take(NAMED_UNPAIRED)
                .map(|u| format!("\n  {}", export::unpaired_line(u)))
                .collect();
            if cmp.unpaired.len() > NAMED_UNPAIRED {
                named.push(format!(
                    "\n  and {} more",
                    cmp.unpaired.len() - NAMED_UNPAIRED
                ));
            }
            anyhow::bail!(
                "{} of {} baseline rows and {} of {} current rows are not paired (below \
                 --min-paired {}%), so this is not a comparison of the same work:{}",
                cov.baseline_rows - cov.paired,
                cov.baseline_rows,
                cov.current_rows - cov.paired,
                cov.current_rows,
                args.min_paired * 100.0,
                named.concat()
            );
        }
        GateOutcome::Regressed => Ok(Exit::Failure),
        GateOutcome::Pass => Ok(Exit::Success),
    }
}
