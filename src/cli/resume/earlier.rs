//! The earlier run's summary JSON (`--summary`), which holds what the CSV does not: its
//! limits, its `--shard` and its wall times. A run writes its summary at its end and
//! empties the file at its start, so a killed run (the pre-empted job that `--resume` is
//! for) leaves it empty: then only what the CSV says is checked, and that is said.

use std::path::Path;

use anyhow::{bail, Context};
use sudoku_bench::corpus::Shard;
use sudoku_bench::runner::Settings;
use sudoku_bench::summary::read as summary_file;
use sudoku_bench::summary::Summary;
use sudoku_bench::summary::SummaryReport;

/// The earlier run's summary, when `summary_path` holds one; else says on stderr why not
/// and what is then left unchecked.
pub fn read(summary_path: Option<&Path>) -> anyhow::Result<Option<SummaryReport>> {
    let why = match summary_path {
        None => "no --summary names the earlier run's summary JSON".to_string(),
        Some(p) if p.as_os_str() == "-" => {
            "the summary goes to stdout (--summary -), where the earlier one cannot be read"
                .to_string()
        }
        Some(p) => match std::fs::metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
                "the earlier summary {} does not exist: the earlier run did not finish (it \
                 writes its summary at the end) or had no --summary",
                p.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", p.display())),
            Ok(meta) if meta.is_file() && meta.len() == 0 => format!(
                "the earlier summary {} is empty: the earlier run did not finish (it writes \
                 its summary at the end)",
                p.display()
            ),
            Ok(meta) if !meta.is_file() || !summary_file::is_summary_file(p)? => format!(
                "{} is not a summary JSON (--summary-format json writes one)",
                p.display()
            ),
            Ok(_) => {
                return summary_file::read_summary(p).map(Some).with_context(|| {
                    format!(
                        "--resume: the earlier summary {} cannot be read back (remove it to \
                         resume with the settings checked from the CSV only)",
                        p.display()
                    )
                })
            }
        },
    };
    eprintln!(
        "resume: {why}; settings are checked from the CSV only (corpora, strategies, lines of \
         the --shard part): the limits and --shard must be the earlier run's for the rows to \
         belong together, and wall times and wall throughput cover only this stretch's rows"
    );
    Ok(None)
}

/// Refuse limits or a part that differ from the earlier run's. `csv` is the CSV resumed,
/// `summary_path` the earlier summary's file, `shard` this run's part.
pub fn check(
    earlier: &SummaryReport,
    csv: &Path,
    summary_path: &Path,
    settings: &Settings,
    shard: Option<Shard>,
) -> anyhow::Result<()> {
    // Part 1/1 is the whole input.
    let part = |s: Option<Shard>| s.filter(|s| *s != Shard::WHOLE);
    if part(earlier.shard) != part(shard) {
        let by =
            |s: Option<Shard>| part(s).map_or("a whole run".to_string(), |s| format!("shard {s}"));
        bail!(
            "--resume: {} was written by {} (its summary {} says so); this run is {}: its \
             rows are not this run's lines; give the --shard it was written with",
            csv.display(),
            by(earlier.shard),
            summary_path.display(),
            by(shard)
        );
    }
    let now = settings.summary_report(&Summary::default(), 0, 0);
    for ((flag, then), (_, now)) in earlier.limits().into_iter().zip(now.limits()) {
        if then != now {
            bail!(
                "--resume: the earlier run (summary {}) had {flag} {then}, this one {now}: \
                 its rows would not belong with these; run with the same settings",
                summary_path.display()
            );
        }
    }
    Ok(())
}

/// Add the earlier run's wall time of each of `corpora` (those with kept rows, whose groups
/// the scan made) and `strategies` to `summary`, so that wall throughputs count the kept
/// rows over the time they took.
pub fn add_wall(
    earlier: &SummaryReport,
    corpora: &[&str],
    strategies: &[&str],
    summary: &mut Summary,
) {
    for row in &earlier.rows {
        if corpora.contains(&row.corpus.as_str()) && strategies.contains(&row.strategy.as_str()) {
            let group = summary.group(&row.corpus, &row.strategy);
            summary.add_wall(group, row.wall_ns);
        }
    }
}
