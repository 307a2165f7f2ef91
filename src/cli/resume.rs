//! `run --resume` in the binary: its arguments checked, the steps of
//! [`sudoku_bench::resume`] taken in order, and what they find said on stderr.

use std::fs::File;
use std::path::Path;

use anyhow::bail;
use sudoku_bench::corpus::{Corpus, Format, Shard};
use sudoku_bench::resume::{Earlier, Origin, Resume, Resuming, Source};
use sudoku_bench::runner::Settings;
use sudoku_bench::summary::Summary;

/// The CSV `-o` names for `--resume` to go on with: one that can be read back.
pub fn csv(out: Option<&Path>) -> anyhow::Result<&Path> {
    let Some(path) = out else {
        bail!("--resume goes on with the per-puzzle CSV named by -o: name it (-o run.csv)");
    };
    if path.as_os_str() == "-" {
        bail!("--resume cannot go on with -o -: stdout cannot be read back; name the CSV");
    }
    Ok(path)
}

/// The run's `corpora`, opened from `origins` (in order) as `forced`, as resume checks rows
/// against them.
pub fn sources<'a>(
    corpora: &'a [Corpus],
    origins: &[Origin<'a>],
    forced: Option<Format>,
) -> anyhow::Result<Vec<Source<'a>>> {
    let sources = corpora
        .iter()
        .zip(origins)
        .map(|(corpus, origin)| Source::of(corpus, *origin, forced))
        .collect::<Result<_, _>>()?;
    Ok(sources)
}

/// Check that `out` is a CSV this run can go on with, count its whole rows into `summary`,
/// cut it to them and open it for appending (the file is returned, its header written).
/// `corpora` and `strategies` are the run's, in order, and `shard` its part;
/// `summary_path` is its --summary, which may hold the earlier run's settings.
/// Everything is refused before the file is touched.
pub fn prepare(
    out: Option<&Path>,
    summary_path: Option<&Path>,
    corpora: &[Source],
    strategies: &[&str],
    settings: &Settings,
    shard: Option<Shard>,
    summary: &mut Summary,
) -> anyhow::Result<(Resume, File)> {
    let resuming = Resuming {
        csv: csv(out)?,
        summary: summary_path,
        corpora,
        strategies,
        settings,
        shard,
    };
    resuming.check_csv()?;
    let earlier = Earlier::read(summary_path)?;
    if let Some(note) = earlier.note() {
        eprintln!("resume: {note}");
    }
    let (resume, file) = resuming.prepare(earlier, summary)?;
    let upto = match resume.last {
        Some((corpus, line)) => format!(" (corpus {} up to line {line})", corpora[corpus].name),
        None => String::new(),
    };
    eprintln!(
        "resume: {} has {} rows whole{upto}; dropped {} cut rows; going on",
        resuming.csv.display(),
        resume.kept_rows,
        resume.dropped
    );
    Ok((resume, file))
}
