//! The refusals of a per-puzzle CSV's rows that `merge` and `run --resume` share: both put a
//! run's rows back together from what it wrote, and refuse the same faults in them with one
//! type. Each names the CSV and the line at fault; the [`Checker`] says whose refusal it is,
//! and what to do about it.

use std::path::{Path, PathBuf};

use sudoku_bench_core::grid::Grid;

/// Who checks a CSV, for the words of its refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checker {
    /// `merge`, of a part's CSV.
    Merge,
    /// `run --resume`, of the CSV it goes on with.
    Resume,
}

impl Checker {
    /// What a refusal says after the file and line: whose it is.
    fn tag(self) -> &'static str {
        match self {
            Checker::Merge => "",
            Checker::Resume => "--resume: ",
        }
    }

    /// What a row of another puzzle than its line's calls for.
    fn other_puzzle_remedy(self) -> &'static str {
        match self {
            Checker::Merge => {
                "the row was edited, or the part was run over another file; run that part again"
            }
            Checker::Resume => {
                "the corpus is not the one the CSV was written from (changed since, or another \
                 file of the same name); resume with that corpus, or run without --resume; \
                 nothing was changed"
            }
        }
    }
}

/// Why the rows of a per-puzzle CSV are refused, by merge and resume alike.
#[derive(Debug, thiserror::Error)]
pub enum RowsError {
    /// A row the per-puzzle CSV reader refuses, or one `run` cannot have written.
    #[error("{csv}:{line}: {}{message}", by.tag())]
    Bad {
        /// The CSV.
        csv: PathBuf,
        /// Its line (the header is line 1).
        line: u64,
        /// What is wrong.
        message: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A row for a corpus the run does not read (at this point).
    #[error("{csv}:{line}: {}a row for corpus {corpus}, {why} (it reads {corpora})", by.tag())]
    OtherCorpus {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The corpus the row names.
        corpus: String,
        /// Not read at all, or not in this order.
        why: &'static str,
        /// The run's corpora, comma-separated.
        corpora: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A corpus line whose rows come after a later line's.
    #[error(
        "{csv}:{line}: {}line {corpus_line} of {corpus} comes after {before}: rows out of \
         input order",
        by.tag()
    )]
    OutOfOrder {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The corpus line of the row.
        corpus_line: u64,
        /// Its corpus.
        corpus: String,
        /// What it comes after: `line N`, or `a later one`.
        before: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A row whose puzzle is not the one on the corpus line it names.
    #[error(
        "{csv}:{line}: {}the row for line {corpus_line} of {corpus} is of {row}, but \
         {corpus}:{corpus_line} holds {read}: {}",
        by.tag(), by.other_puzzle_remedy()
    )]
    OtherPuzzle {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The corpus, as the row names it.
        corpus: String,
        /// The corpus line the row names.
        corpus_line: u64,
        /// The row's puzzle: `puzzle GRID`, or `no puzzle`.
        row: String,
        /// What that corpus line holds: `puzzle GRID`, or no puzzle.
        read: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A row for a strategy the run does not time.
    #[error(
        "{csv}:{line}: {}a row for strategy {strategy}, which this run does not time \
         (-s {strategies})",
        by.tag()
    )]
    OtherStrategy {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The strategy the row names.
        strategy: String,
        /// The run's strategies, comma-separated.
        strategies: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A row for a strategy before its turn in the run's order.
    #[error(
        "{csv}:{line}: {}strategy {strategy} where {due} was due: not in this run's \
         order ({strategies})",
        by.tag()
    )]
    StrategyOrder {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The strategy the row names.
        strategy: String,
        /// The one due.
        due: String,
        /// The run's strategies, comma-separated.
        strategies: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A corpus line with rows for only some strategies, and rows after it.
    #[error(
        "{csv}:{line}: {}line {corpus_line} of {corpus} has rows for {rows} of this \
         run's {count} strategies ({strategies}), and rows follow: not a CSV of a run with \
         these strategies",
        by.tag()
    )]
    MissingRows {
        /// The CSV.
        csv: PathBuf,
        /// The line of the row that follows.
        line: u64,
        /// The corpus line short of rows.
        corpus_line: u64,
        /// Its corpus.
        corpus: String,
        /// Rows it has.
        rows: usize,
        /// Strategies the run times.
        count: usize,
        /// Their names, comma-separated.
        strategies: String,
        /// Whose refusal.
        by: Checker,
    },
    /// A row whose status and count the run's `--max-solutions` cannot give.
    #[error(
        "{csv}:{line}: {}this row is {status} with {solutions} solutions, which a run \
         counting to {now} (--max-solutions) cannot give: {}",
        by.tag(), by.other_limit_remedy()
    )]
    OtherMaxSolutions {
        /// The CSV.
        csv: PathBuf,
        /// The row's line in it.
        line: u64,
        /// The row's status.
        status: String,
        /// Its count (`-` when it has none).
        solutions: String,
        /// The run's `--max-solutions`.
        now: u32,
        /// Whose refusal.
        by: Checker,
    },
}

impl Checker {
    /// What a row whose count the run's `--max-solutions` cannot give calls for.
    fn other_limit_remedy(self) -> &'static str {
        match self {
            Checker::Merge => {
                "its summary says the part counted to that limit: the CSV is another run's, or \
                 was edited; run that part again"
            }
            Checker::Resume => {
                "the earlier run counted to another limit; resume with its --max-solutions"
            }
        }
    }

    /// Refuse line `line` of `csv`, saying `message`.
    pub(crate) fn bad(self, csv: &Path, line: u64, message: impl Into<String>) -> RowsError {
        RowsError::Bad {
            csv: csv.to_path_buf(),
            line,
            message: message.into(),
            by: self,
        }
    }

    /// Refuse a row of `corpus` that is not one of `corpora` (`why`), or not in their order.
    pub(crate) fn other_corpus<'a>(
        self,
        csv: &Path,
        line: u64,
        corpus: &str,
        corpora: impl IntoIterator<Item = &'a str>,
    ) -> RowsError {
        let corpora: Vec<&str> = corpora.into_iter().collect();
        let why = if corpora.contains(&corpus) {
            "after rows of a corpus named after it: not in the order of this run's corpora"
        } else {
            "which this run does not read"
        };
        RowsError::OtherCorpus {
            csv: csv.to_path_buf(),
            line,
            corpus: corpus.to_string(),
            why,
            corpora: corpora.join(", "),
            by: self,
        }
    }

    /// Refuse the row on line `line` of `csv`, for `corpus_line` of `corpus`, that comes
    /// after `before`.
    pub(crate) fn out_of_order(
        self,
        csv: &Path,
        line: u64,
        corpus_line: u64,
        corpus: &str,
        before: String,
    ) -> RowsError {
        RowsError::OutOfOrder {
            csv: csv.to_path_buf(),
            line,
            corpus_line,
            corpus: corpus.to_string(),
            before,
            by: self,
        }
    }

    /// Refuse the row on line `line` of `csv` for `corpus_line` of `corpus`, whose puzzle
    /// `row` is not `read`, the one the corpus holds there.
    pub(crate) fn other_puzzle(
        self,
        csv: &Path,
        line: u64,
        (corpus, corpus_line): (&str, u64),
        row: Option<Grid>,
        read: Option<Grid>,
    ) -> RowsError {
        let grid =
            |g: Option<Grid>, none: &str| g.map_or(none.to_string(), |g| format!("puzzle {g}"));
        RowsError::OtherPuzzle {
            csv: csv.to_path_buf(),
            line,
            corpus: corpus.to_string(),
            corpus_line,
            row: grid(row, "no puzzle"),
            read: grid(read, "no puzzle (a malformed line)"),
            by: self,
        }
    }
}
