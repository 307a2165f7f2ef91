//! Why a per-puzzle CSV cannot be resumed. Every refusal comes before the file is touched,
//! and names the CSV (with its line, where a row is at fault) or the file concerned.

use std::path::PathBuf;

use sudoku_bench_core::corpus::{LoadError, Shard};
use sudoku_bench_core::results::csv::CsvError;
use sudoku_bench_core::summary::read::RunFileError;

use crate::merge::RowsError;

/// Why `run --resume` cannot go on with a CSV. The OS or reader error behind a variant is its
/// `source()`, not part of its message, so that a report of the whole chain (anyhow's `{:#}`)
/// says it once.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The CSV is not there.
    #[error("--resume: {csv} does not exist: nothing to resume; run without --resume")]
    Missing {
        /// The CSV.
        csv: PathBuf,
    },
    /// The CSV is a directory, a pipe, a device.
    #[error("--resume: {csv} is not a regular file: nothing to resume")]
    NotAFile {
        /// The CSV.
        csv: PathBuf,
    },
    /// A file could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The CSV could not be opened for writing, or its header written.
    #[error("cannot write {csv}")]
    Write {
        /// The CSV.
        csv: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The CSV could not be cut to its whole rows.
    #[error("cannot cut {csv} to its whole rows")]
    Cut {
        /// The CSV.
        csv: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Whether the earlier summary is a summary JSON could not be told.
    #[error(transparent)]
    SummaryFile(RunFileError),
    /// The earlier summary is a summary JSON that cannot be read.
    #[error(
        "--resume: the earlier summary {summary} cannot be read back (remove it to resume \
         with the settings checked from the CSV only)"
    )]
    EarlierSummary {
        /// The summary.
        summary: PathBuf,
        /// Why.
        source: RunFileError,
    },
    /// The earlier run was another part (or a whole run) than this one.
    #[error(
        "--resume: {csv} was written by {} (its summary {summary} says so); this run is {}: \
         its rows are not this run's lines; give the --shard it was written with",
        by(.earlier), by(.now)
    )]
    OtherShard {
        /// The CSV.
        csv: PathBuf,
        /// The earlier summary.
        summary: PathBuf,
        /// The earlier run's part (`None`: a whole run).
        earlier: Option<Shard>,
        /// This run's part.
        now: Option<Shard>,
    },
    /// The earlier run failed (exit 2): its summary says why.
    #[error(
        "--resume: the run that wrote {csv} failed (exit 2), as its summary {summary} says: \
         {errors}; --resume goes on with a run cut short, not one that failed: run it again \
         without --resume"
    )]
    EarlierFailed {
        /// The CSV.
        csv: PathBuf,
        /// The earlier summary.
        summary: PathBuf,
        /// What failed.
        errors: String,
    },
    /// The earlier run had another limit.
    #[error(
        "--resume: the earlier run (summary {summary}) had {flag} {then}, this one {now}: its \
         rows would not belong with these; run with the same settings"
    )]
    OtherLimit {
        /// The earlier summary.
        summary: PathBuf,
        /// The option, as the command line names it.
        flag: &'static str,
        /// The earlier run's value.
        then: String,
        /// This run's.
        now: String,
    },
    /// The CSV's first line is not the header `run` writes.
    #[error(
        "{csv}:1: --resume: the header is not the one run writes ({header}): not a \
         per-puzzle CSV of this tool, or of another version"
    )]
    Header {
        /// The CSV.
        csv: PathBuf,
        /// The header `run` writes.
        header: String,
    },
    /// The CSV could not be read as a per-puzzle CSV.
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// A row at fault, as merge refuses it too (boxed: the largest refusal, which would
    /// make every result that carries this error as large).
    #[error(transparent)]
    Rows(Box<RowsError>),
    /// A row for a line outside this run's part of its corpus.
    #[error(
        "{csv}:{line}: --resume: a row for line {corpus_line} of {corpus}, which is not in \
         part {part} that this run reads ({why}): the CSV was written by another part or a \
         whole run; give the --shard it was written with"
    )]
    OtherPart {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The corpus line the row is for.
        corpus_line: u64,
        /// The corpus.
        corpus: String,
        /// This run's part, as `K/N` (empty when it takes the whole corpus).
        part: String,
        /// Which part the line is in instead.
        why: String,
    },
    /// The lines with kept rows are not the first lines of this run's part of a corpus.
    #[error(
        "--resume: {csv} holds rows for {kept} lines of {corpus}{held}, but {part} has {read} \
         lines{there}{same}{later}: it was not written by this run's part (give the --shard \
         and corpora it was written with); nothing was changed",
        part = .shard.map_or(.corpus.clone(), |shard| format!("part {shard} of {}", .corpus)),
        held = .upto.map_or(String::new(), |line| format!(" up to line {line}")),
        there = if .upto.is_some() { " up to there" } else { "" },
        same = if .kept == .read { ", not the same ones" } else { "" },
        later = .later.as_ref().map_or(String::new(), |later| format!(
            ", and rows of {later} follow, so the run would take it as done"
        )),
    )]
    NotThePart {
        /// The CSV.
        csv: PathBuf,
        /// The corpus.
        corpus: String,
        /// This run's part of it.
        shard: Option<Shard>,
        /// Lines with kept rows.
        kept: u64,
        /// Lines of the part up to `upto`.
        read: u64,
        /// The last kept line, for the corpus the kept rows end in; `None` for one before it,
        /// all of whose lines must have rows.
        upto: Option<u64>,
        /// The corpus the kept rows end in, when after this one.
        later: Option<String>,
    },
    /// A corpus with kept rows that cannot be read a second time.
    #[error(
        "--resume: {csv} has rows of {corpus}, which is not a regular file and cannot be read \
         twice: resuming reads it once to check that the rows are the first lines of this \
         run's part, then again to go on; save it to a file and give that"
    )]
    ReadOnce {
        /// The CSV.
        csv: PathBuf,
        /// The corpus.
        corpus: PathBuf,
    },
    /// A corpus with kept rows could not be opened again.
    #[error("--resume: cannot read {corpus} again")]
    Reopen {
        /// The corpus.
        corpus: PathBuf,
        /// Why.
        source: Box<LoadError>,
    },
    /// A corpus with kept rows failed while read again.
    #[error("--resume: cannot read {corpus} again to check the rows of {csv}")]
    Reread {
        /// The corpus, as rows name it.
        corpus: String,
        /// The CSV.
        csv: PathBuf,
        /// Why.
        source: Box<LoadError>,
    },
    /// A part by byte range of the built-in corpus, which has no file to split.
    #[error("{corpus}: a part by byte range of a corpus with no file: cannot check its lines")]
    NoFile {
        /// The corpus.
        corpus: String,
    },
    /// The next part of a corpus split by byte range could not be opened.
    #[error("--resume: cannot open part {next} of {corpus} to find where part {shard} ends")]
    NextPart {
        /// The corpus file.
        corpus: PathBuf,
        /// This run's part.
        shard: Shard,
        /// The part after it.
        next: Shard,
        /// Why.
        source: Box<LoadError>,
    },
    /// The next part of a corpus is not split by byte range as this one is.
    #[error(
        "{corpus}: part {next} is not by byte range as part {shard} is ({found}): the file \
         changed while it was opened"
    )]
    Changed {
        /// The corpus file.
        corpus: PathBuf,
        /// This run's part.
        shard: Shard,
        /// The part after it.
        next: Shard,
        /// How that part was split instead.
        found: String,
    },
}

/// Who wrote a CSV, for messages: `shard K/N`, or a whole run (part 1/1 is one).
fn by(shard: &Option<Shard>) -> String {
    shard
        .filter(|s| *s != Shard::WHOLE)
        .map_or("a whole run".to_string(), |s| format!("shard {s}"))
}

impl From<RowsError> for ResumeError {
    fn from(e: RowsError) -> ResumeError {
        ResumeError::Rows(Box::new(e))
    }
}
