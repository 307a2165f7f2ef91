//! `run --resume`: going on with a per-puzzle CSV that a run left cut short (an interrupt, a
//! pre-empted job). The CSV's whole lines are one part of the run, the lines solved from
//! here another, as [`crate::merge`] puts a split run together: the CSV is read once,
//! streamed, by merge's one validator of a run's rows (against the run's corpora,
//! strategies and `--max-solutions`), with the lines of its `--shard` part and the corpora
//! read again beside it, and its whole lines' summary is added to the run's as merge adds
//! up parts. What follows the last whole line (a cut row, a line missing some strategies'
//! rows) is cut off the file, and the run appends from there, so the file ends as one
//! uninterrupted run would have written it. Everything is refused ([`ResumeError`]) before
//! the file is touched.
//!
//! The steps, as `run --resume` takes them: [`Resuming::check_csv`], [`Earlier::read`]
//! (whose [`Earlier::note`] says what cannot be checked without the earlier summary), then
//! [`Resuming::prepare`], whose [`Resume`] says where each corpus goes on, unless the run
//! had [`Prepared::Finished`].

mod earlier;
mod error;
mod lines;
mod prefix;
mod scan;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use sudoku_bench_core::corpus::Shard;
use sudoku_bench_core::results::csv::push_header;
use sudoku_bench_core::runner::Settings;
use sudoku_bench_core::summary::{Summary, SummaryReport};

use self::scan::Scan;

pub use self::earlier::Earlier;
pub use self::error::ResumeError;
pub use self::lines::{Origin, PartLines, Source};

/// A resume, as the run asks for it: its CSV, its summary and its settings.
#[derive(Debug)]
pub struct Resuming<'a> {
    /// The per-puzzle CSV to go on with (`-o`).
    pub csv: &'a Path,
    /// The run's `--summary`, which may hold the earlier run's.
    pub summary: Option<&'a Path>,
    /// The run's corpora, in order.
    pub corpora: &'a [Source<'a>],
    /// The run's strategies' names, in order.
    pub strategies: &'a [&'a str],
    /// The run's settings, whose limits must be the earlier run's.
    pub settings: &'a Settings,
    /// The run's part.
    pub shard: Option<Shard>,
}

/// Where a resumed run goes on.
#[derive(Debug)]
pub struct Resume {
    /// Rows kept from the earlier run.
    pub kept_rows: u64,
    /// Rows dropped after the last whole line: a cut row, rows of a line missing some.
    pub dropped: u64,
    /// The last line kept: (index of its corpus, line). `None`: nothing was kept.
    pub last: Option<(usize, u64)>,
    /// Wall time of the earlier run, when its summary says it (0 when not).
    pub earlier_wall_ns: u64,
}

/// What a resume finds.
#[derive(Debug)]
pub enum Prepared {
    /// The run had finished: its CSV holds every line of its corpora whole, nothing after
    /// them, and its summary (when it has one) is of those rows and not interrupted. Nothing
    /// is left to do, and nothing was changed.
    Finished(Resume),
    /// PartLines are left: the run goes on with them, appending to the file (cut to its whole
    /// rows, its header written).
    GoOn(Resume, File),
}

/// What the run does with one of its corpora.
#[derive(Debug, PartialEq, Eq)]
pub enum Continue {
    /// Every line of it is in the CSV already.
    Done,
    /// PartLines up to this one are in the CSV (0: none).
    After(u64),
}

impl Resume {
    /// What is left to do in the corpus at `index`.
    pub fn of(&self, index: usize) -> Continue {
        match self.last {
            Some((at, _)) if index < at => Continue::Done,
            Some((at, line)) if index == at => Continue::After(line),
            _ => Continue::After(0),
        }
    }
}

impl Resuming<'_> {
    /// Refuse a CSV that is not there, or not a regular file: nothing to resume.
    pub fn check_csv(&self) -> Result<(), ResumeError> {
        let csv = self.csv.to_path_buf();
        match std::fs::metadata(self.csv) {
            Ok(meta) if meta.is_file() => Ok(()),
            Ok(_) => Err(ResumeError::NotAFile { csv }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ResumeError::Missing { csv }),
            Err(source) => Err(ResumeError::Read { path: csv, source }),
        }
    }

    /// Check that the CSV is one this run can go on with (and `earlier`, the earlier run's
    /// summary, agrees) and count its whole rows into `summary`. When the run had finished,
    /// that is all; else the CSV is cut to its whole rows and opened for appending.
    pub fn prepare(
        &self,
        earlier: Earlier,
        summary: &mut Summary,
    ) -> Result<Prepared, ResumeError> {
        if let (Some(report), Some(summary_path)) = (&earlier.report, self.summary) {
            earlier::check(report, self.csv, summary_path, self.settings, self.shard)?;
        }
        let file = File::open(self.csv).map_err(|source| self.unreadable(source))?;
        let max_solutions = self.settings.limits.max_solutions;
        let scan = scan::scan(
            self.csv,
            &file,
            self.corpora,
            self.strategies,
            max_solutions,
        )?;
        // The kept rows are one part of the run, the rows solved from here another: the
        // run's summary starts from the kept part's as merge adds up a split run's parts.
        summary.merge(&scan.summary);
        if self.finished(&scan, earlier.report.as_ref(), summary) {
            return Ok(Prepared::Finished(Resume {
                kept_rows: scan.rows,
                dropped: 0,
                last: scan.last,
                earlier_wall_ns: 0,
            }));
        }
        // A complete earlier run's wall time covers the rows redone here too: only an
        // interrupted one's is the kept rows' alone.
        let earlier = earlier.report.filter(|e| e.interrupted);
        match (&earlier, scan.last) {
            (Some(report), Some((last, _))) => {
                let begun: Vec<&str> = self.corpora[..=last].iter().map(|c| c.name).collect();
                earlier::add_wall(report, &begun, self.strategies, summary);
            }
            // No wall time for the kept rows: wall throughput is of the rows solved from here.
            _ => summary.leave_out_of_wall(),
        }
        let file = self.cut_to(scan.keep)?;
        let resume = Resume {
            kept_rows: scan.rows,
            dropped: scan.dropped,
            last: scan.last,
            earlier_wall_ns: earlier.map_or(0, |e| e.wall_ns),
        };
        Ok(Prepared::GoOn(resume, file))
    }

    /// Whether the run had finished (see [`Prepared::Finished`]): `scan` found every line
    /// whole and nothing to cut, `summary` counts its rows as `earlier` does, and no corpus
    /// after the last kept line's holds lines.
    fn finished(&self, scan: &Scan, earlier: Option<&SummaryReport>, summary: &Summary) -> bool {
        let whole = scan.dropped == 0 && scan.keep == scan.len && scan.keep > 0;
        let summarised = self.summary.is_none()
            || earlier.is_some_and(|e| !e.interrupted && earlier::counts_the_same(e, summary));
        let rest = scan.last.map_or(0, |(corpus, _)| corpus + 1);
        whole
            && !scan.lines_after
            && summarised
            && !self.corpora[rest..].iter().any(prefix::holds_lines)
    }

    /// The CSV cut to its first `keep` bytes, open for appending, with its header.
    fn cut_to(&self, keep: u64) -> Result<File, ResumeError> {
        let unwritable = |source| ResumeError::Write {
            csv: self.csv.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .write(true)
            .open(self.csv)
            .map_err(unwritable)?;
        file.set_len(keep).map_err(|source| ResumeError::Cut {
            csv: self.csv.to_path_buf(),
            source,
        })?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(self.csv)
            .map_err(unwritable)?;
        if keep == 0 {
            let mut header = Vec::new();
            push_header(&mut header);
            file.write_all(&header).map_err(unwritable)?;
        }
        Ok(file)
    }

    fn unreadable(&self, source: std::io::Error) -> ResumeError {
        ResumeError::Read {
            path: self.csv.to_path_buf(),
            source,
        }
    }
}
