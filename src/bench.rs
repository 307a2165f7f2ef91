//! [`Bench`]: your strategies over a corpus in a few lines, through the same runner,
//! per-puzzle CSV and summary as `sudoku-bench run`, every answer checked against the
//! built-in reference. What the binary adds (shards, resume, progress, signals) stays in
//! the binary; a caller that needs the pieces uses [`crate::runner::Runner`] and the sinks
//! directly.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::clock::MonotonicClock;
use crate::corpus::{Corpus, LoadError};
use crate::render::export::json::JsonExporter;
use crate::render::export::Exporter;
use crate::results::CsvSink;
use crate::runner::{RunError, Runner, Settings};
use crate::strategy::{Limits, StrategyInfo};
use crate::summary::{Summary, SummaryReport};

/// Why a [`Bench`] run failed; each names the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An output could not be written.
    #[error("{path}: cannot write")]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The corpus could not be opened or read.
    #[error(transparent)]
    Corpus(#[from] LoadError),
    /// The run stopped: the corpus failed mid-way, or a sink refused a batch.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The worker threads could not be started, or pinned.
    #[error(transparent)]
    Start(#[from] crate::runner::StartError),
}

/// A benchmark of some strategies: what to time, with which limits, and where the
/// per-puzzle CSV and the summary JSON go.
///
/// ```no_run
/// # fn mine() -> sudoku_bench::StrategyInfo { sudoku_bench::strategy::by_name("dlx").unwrap().clone() }
/// let report = sudoku_bench::Bench::new([mine()])
///     .csv("results/mine.csv")
///     .summary("results/mine.json")
///     .run("datasets/minimal.txt")?;
/// assert_eq!(report.mismatches(), 0);
/// # Ok::<(), sudoku_bench::BenchError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Bench {
    settings: Settings,
    threads: usize,
    csv: Option<PathBuf>,
    summary: Option<PathBuf>,
}

impl Bench {
    /// Time `strategies`, in this order, with the default limits on every core, each
    /// worker pinned to a CPU of its own as `sudoku-bench run` pins them.
    pub fn new(strategies: impl IntoIterator<Item = StrategyInfo>) -> Bench {
        Bench {
            settings: Settings {
                strategies: strategies.into_iter().collect(),
                pin: true,
                ..Settings::default()
            },
            threads: 0,
            csv: None,
            summary: None,
        }
    }

    /// The limits of every search (solutions counted, node budget, timeout).
    pub fn limits(mut self, limits: Limits) -> Bench {
        self.settings.limits = limits;
        self
    }

    /// Worker threads; 0 (the default) is one per core.
    pub fn threads(mut self, threads: usize) -> Bench {
        self.threads = threads;
        self
    }

    /// Whether each worker is pinned to a CPU (see [`Settings::pin`]); true by default.
    pub fn pin(mut self, pin: bool) -> Bench {
        self.settings.pin = pin;
        self
    }

    /// Write the per-puzzle CSV to `path`.
    pub fn csv(mut self, path: impl Into<PathBuf>) -> Bench {
        self.csv = Some(path.into());
        self
    }

    /// Write the summary JSON to `path`.
    pub fn summary(mut self, path: impl Into<PathBuf>) -> Bench {
        self.summary = Some(path.into());
        self
    }

    /// Run over the corpus at `corpus` and write the outputs asked for; the summary.
    pub fn run(&self, corpus: impl AsRef<Path>) -> Result<SummaryReport, BenchError> {
        let clock = MonotonicClock::default();
        let mut runner = Runner::new(self.settings.clone(), self.threads, &clock)?;
        let mut corpus = Corpus::open(corpus.as_ref(), None)?;
        let started = Instant::now();
        let mut summary = Summary::default();
        match &self.csv {
            Some(path) => {
                let write = |source| BenchError::Write {
                    path: path.clone(),
                    source,
                };
                let file = File::create(path).map_err(write)?;
                let mut rows = CsvSink::new(Box::new(BufWriter::new(file))).map_err(write)?;
                runner.run(&mut corpus, &mut (&mut rows, &mut summary))?;
                rows.finish().map_err(write)?;
            }
            None => {
                runner.run(&mut corpus, &mut summary)?;
            }
        }
        let wall_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let report = runner.summary_report(&summary, wall_ns);
        if let Some(path) = &self.summary {
            std::fs::write(path, JsonExporter.export(&report)).map_err(|source| {
                BenchError::Write {
                    path: path.clone(),
                    source,
                }
            })?;
        }
        Ok(report)
    }
}
