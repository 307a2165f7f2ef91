//! `Warnings`: a sink that warns on stderr, in input order, about every bad line and every
//! result that is wrong or failed, naming the corpus, the line and the solver. Only the
//! first `MAX_WARNINGS` are shown; the CSV's error column has them all. At the end,
//! [`numbers`] warns about throughputs that need care (see `report::noise`).

use std::io;

use sudoku_bench::corpus::Kind;
use sudoku_bench::noise;
use sudoku_bench::results::Batch;
use sudoku_bench::results::Sink;
use sudoku_bench::summary::SummaryReport;

use super::progress::Progress;

/// At most this many warnings go to stderr.
const MAX_WARNINGS: u64 = 100;

pub struct Warnings<'p> {
    progress: &'p Progress,
    count: u64,
}

impl<'p> Warnings<'p> {
    /// Warnings printed above `progress`'s bar.
    pub fn new(progress: &'p Progress) -> Warnings<'p> {
        Warnings { progress, count: 0 }
    }

    /// Warnings not shown (beyond `MAX_WARNINGS`).
    pub fn hidden(&self) -> u64 {
        self.count.saturating_sub(MAX_WARNINGS)
    }

    fn warn(&mut self, line: std::fmt::Arguments) {
        self.count += 1;
        if self.count <= MAX_WARNINGS {
            self.progress.println(&format!("warning: {line}"));
        }
    }
}

impl Sink for Warnings<'_> {
    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        for (i, record) in batch.records.iter().enumerate() {
            if let Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } = &record.kind {
                self.warn(format_args!("{}:{}: {reason}", batch.corpus, record.line));
            }
            for (s, info) in batch.strategies.iter().enumerate() {
                let result = &batch.results[s][i];
                if result.is_wrong() || result.is_failure() {
                    let why = result.error.as_deref().unwrap_or("wrong solution");
                    self.warn(format_args!(
                        "{}:{}: {}: {why}",
                        batch.corpus, record.line, info.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Warn on stderr, as the tool writes every warning that is not about a line.
pub fn warn(line: &str) {
    eprintln!("warning: {line}");
}

/// Warn on stderr about each summary row whose numbers need care: a heavy tail that
/// decides the mean-based throughput, or workers preempted while they solved.
pub fn numbers(report: &SummaryReport) {
    for line in noise::warnings(report) {
        warn(&line);
    }
}
