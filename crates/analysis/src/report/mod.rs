//! The HTML report of one or more runs (`sudoku-bench report`, `run --report`): per corpus,
//! the summary table, PAR-2, a cactus plot, the distribution of times, pairwise scatters,
//! the breakdown by puzzle class and the slowest puzzles, all computed from the per-puzzle
//! CSVs (every row, never thinned), with the settings of the runs' summary JSONs.

pub mod by_column;
pub mod classes;
pub mod read;
pub mod stats;

use std::path::PathBuf;

use sudoku_bench_core::summary::read::RunFileError;

pub use read::Inputs;

/// Why a report could not be made. Every variant names the file (and line) or the
/// option at fault.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A CSV or summary JSON could not be read.
    #[error(transparent)]
    File(#[from] RunFileError),
    /// One CSV holds two rows of one puzzle for one strategy.
    #[error(
        "{path}: corpus {corpus}, strategy {strategy}: line {line} has two rows (one CSV \
         holds one result per puzzle and strategy)"
    )]
    Duplicate {
        /// The CSV.
        path: PathBuf,
        /// The corpus.
        corpus: String,
        /// The strategy.
        strategy: String,
        /// The corpus line.
        line: u64,
    },
    /// Only summary JSONs were given.
    #[error(
        "no per-puzzle CSV given: the report is made from the CSV `run` writes (`report \
         RUN.csv [RUN.json] -o report.html`)"
    )]
    NoCsv,
    /// `--scatter` names a strategy that no CSV has.
    #[error("--scatter {name}: no such strategy in the CSVs; they have: {known}")]
    UnknownStrategy {
        /// The name given.
        name: String,
        /// The names there are.
        known: String,
    },
    /// `--by`'s column could not be read from a corpus.
    #[error("--by {column}: corpus {corpus}: {message}")]
    By {
        /// The corpus file, as the CSV names it.
        corpus: String,
        /// The column asked for.
        column: String,
        /// What went wrong.
        message: String,
    },
    /// `--by`'s corpus no longer holds, on a line, the puzzle a row ran there.
    #[error(
        "--by: {corpus}:{line}: this line does not hold the {ran} that {csv}:{csv_line} ran \
         there: the corpus changed since the run, so its column would class other puzzles; \
         report without --by, or run the corpus again"
    )]
    ByChanged {
        /// The corpus file, as the CSV names it.
        corpus: String,
        /// Its first line that differs.
        line: u64,
        /// What the row says the line held ("puzzle ...").
        ran: String,
        /// The CSV of that row.
        csv: String,
        /// The row's line in it.
        csv_line: u64,
    },
    /// `--by`'s column is in none of the corpora.
    #[error("--by {column}: no corpus of the report has this column: {why}")]
    ByNowhere {
        /// The column asked for.
        column: String,
        /// Each corpus's reason.
        why: String,
    },
}
