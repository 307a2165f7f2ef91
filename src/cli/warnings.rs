//! `Warnings`: a sink that warns on stderr, in input order, about every bad line and every
//! result that is wrong or failed, naming the corpus, the line and the solver (a solver's
//! rows of one batch that fail alike in one warning). Only the
//! first `MAX_WARNINGS` are shown ([`Capped`], which `filter` applies too); the CSV's error
//! column has them all. At the end,
//! [`numbers`] warns about throughputs that need care (see `report::noise`).

use std::collections::HashMap;
use std::io;

use sudoku_bench::corpus::Kind;
use sudoku_bench::noise;
use sudoku_bench::results::Batch;
use sudoku_bench::results::Sink;
use sudoku_bench::summary::SummaryReport;

use super::progress::Progress;

/// At most this many messages about lines go to stderr, whichever command says them.
const MAX_WARNINGS: u64 = 100;

/// The cap on messages about lines that every command applies: the first `MAX_WARNINGS`
/// are printed, the rest only counted, and [`Capped::say_hidden`] says how many and
/// where they all are; a corpus of bad lines would otherwise bury the end of stderr.
#[derive(Debug, Default)]
pub struct Capped {
    count: u64,
}

impl Capped {
    /// Print `line` (whole, its `warning:` or `error:` included) above `progress`'s bar,
    /// unless the cap is reached.
    pub fn say(&mut self, progress: &Progress, line: &str) {
        self.count += 1;
        if self.count <= MAX_WARNINGS {
            progress.println(line);
        }
    }

    /// Messages not shown (beyond `MAX_WARNINGS`).
    pub fn hidden(&self) -> u64 {
        self.count.saturating_sub(MAX_WARNINGS)
    }

    /// When some were not shown, say how many; `all_in` says where to find them all.
    pub fn say_hidden(&self, all_in: &str) {
        let hidden = self.hidden();
        if hidden > 0 {
            warn(&format!("{hidden} more bad lines not shown; {all_in}"));
        }
    }
}

pub struct Warnings<'p> {
    progress: &'p Progress,
    shown: Capped,
}

impl<'p> Warnings<'p> {
    /// Warnings printed above `progress`'s bar.
    pub fn new(progress: &'p Progress) -> Warnings<'p> {
        Warnings {
            progress,
            shown: Capped::default(),
        }
    }

    /// The cap, with what it held back (done with the bar: it is to be finished).
    pub fn into_shown(self) -> Capped {
        self.shown
    }

    fn warn(&mut self, line: std::fmt::Arguments) {
        self.shown.say(self.progress, &format!("warning: {line}"));
    }
}

impl Sink for Warnings<'_> {
    /// A strategy's rows of one batch that fail for the same reason (a `cmd:` copy found
    /// out of step fails every row it gave in its batch, saying the same) are one warning,
    /// at the first, with their count and lines.
    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        let why = |s: usize, i: usize| {
            let result = &batch.results[s][i];
            (result.is_wrong() || result.is_failure())
                .then(|| result.error.as_deref().unwrap_or("wrong solution"))
        };
        let mut alike: HashMap<(usize, &str), Vec<u64>> = HashMap::new();
        for (i, record) in batch.records.iter().enumerate() {
            for s in 0..batch.strategies.len() {
                if let Some(why) = why(s, i) {
                    alike.entry((s, why)).or_default().push(record.line);
                }
            }
        }
        for (i, record) in batch.records.iter().enumerate() {
            if let Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } = &record.kind {
                self.warn(format_args!("{}:{}: {reason}", batch.corpus, record.line));
            }
            for (s, info) in batch.strategies.iter().enumerate() {
                let Some(why) = why(s, i) else {
                    continue;
                };
                let lines = &alike[&(s, why)];
                match lines.as_slice() {
                    [first, ..] if *first != record.line => {}
                    [_] => self.warn(format_args!(
                        "{}:{}: {}: {why}",
                        batch.corpus, record.line, info.name
                    )),
                    _ => self.warn(format_args!(
                        "{}:{}: {}: {why} (the same for {} of its rows: {})",
                        batch.corpus,
                        record.line,
                        info.name,
                        lines.len(),
                        spans(lines)
                    )),
                }
            }
        }
        Ok(())
    }
}

/// Ascending line numbers as spans (`lines 1-32, 40`), the first `MAX_SPANS` of them.
fn spans(lines: &[u64]) -> String {
    const MAX_SPANS: usize = 8;
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for &line in lines {
        match spans.last_mut() {
            Some((_, last)) if *last + 1 == line => *last = line,
            _ => spans.push((line, line)),
        }
    }
    let mut text: Vec<String> = spans
        .iter()
        .take(MAX_SPANS)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if spans.len() > MAX_SPANS {
        text.push("...".into());
    }
    format!("lines {}", text.join(", "))
}

/// Warn on stderr, as the tool writes every warning that is not about a line.
pub fn warn(line: &str) {
    stderr_line!("warning: {line}");
}

/// Warn on stderr about each summary row whose numbers need care: a heavy tail that
/// decides the mean-based throughput, or workers preempted while they solved.
pub fn numbers(report: &SummaryReport) {
    for line in noise::warnings(report) {
        warn(&line);
    }
}
