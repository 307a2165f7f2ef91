//! `run --resume` in the binary: its arguments checked, the steps of
//! [`sudoku_bench::resume`] taken in order, and what they find said on stderr.

use std::path::Path;

use anyhow::bail;
use sudoku_bench::corpus::{Corpus, ReadAs};
use sudoku_bench::resume::{Earlier, Origin, Prepared, Resuming, Source};
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

/// The run's `corpora`, opened from `origins` (in order) as `read_as` says, as resume
/// checks rows against them.
pub fn sources<'a>(
    corpora: &'a [Corpus],
    origins: &[Origin<'a>],
    read_as: &'a ReadAs,
) -> anyhow::Result<Vec<Source<'a>>> {
    let sources = corpora
        .iter()
        .zip(origins)
        .map(|(corpus, origin)| Source::of(corpus, *origin, read_as))
        .collect::<Result<_, _>>()?;
    Ok(sources)
}

/// Take the steps of `resuming` in order, saying on stderr what the earlier summary leaves
/// unchecked and what the CSV holds: `summary` counts its whole rows; the CSV is cut to them
/// and open for appending, unless the run had finished (then nothing was changed).
pub fn prepare(resuming: &Resuming, summary: &mut Summary) -> anyhow::Result<Prepared> {
    resuming.check_csv()?;
    let earlier = Earlier::read(resuming.summary)?;
    if let Some(note) = earlier.note() {
        stderr_line!("resume: {note}");
    }
    let prepared = resuming.prepare(earlier, summary)?;
    let (resume, next) = match &prepared {
        Prepared::GoOn(resume, _) => (
            resume,
            format!("dropped {} cut rows; going on", resume.dropped),
        ),
        Prepared::Finished(resume) => {
            let csv = resuming.csv.display();
            let unchanged = match resuming.summary {
                Some(summary) => format!("{csv} and {} are left as they were", summary.display()),
                None => format!("{csv} is left as it was"),
            };
            (
                resume,
                format!("the run had finished: nothing to do; {unchanged}"),
            )
        }
    };
    let upto = match resume.last {
        Some((corpus, line)) => format!(
            " (corpus {} up to line {line})",
            resuming.corpora[corpus].name
        ),
        None => String::new(),
    };
    stderr_line!(
        "resume: {} has {} rows whole{upto}; {next}",
        resuming.csv.display(),
        resume.kept_rows,
    );
    Ok(prepared)
}
