//! The one interface to a history's storage, [`HistoryStore`], and what goes in and out of
//! it. [`super::sqlite::SqliteStore`] is the embedded default; a team's shared PostgreSQL
//! (`PostgresStore`, built with the `postgres` feature) implements the same trait with the
//! same schema and statements ([`super::sql`]).

use std::path::PathBuf;

use sudoku_bench_core::machine::Machine;
use sudoku_bench_core::results::Status;

/// Where runs are placed: the commit they measured and what is said of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The commit's hash (hex, lower case).
    pub commit: String,
    /// The commit's time, Unix seconds: the series' order. Kept from the first run recorded
    /// for the commit.
    pub time: i64,
    /// Whether `time` was given rather than taken from the summaries: a given time that
    /// differs from the recorded one is refused.
    pub time_given: bool,
    /// The branch the run was recorded for, when said.
    pub branch: Option<String>,
    /// `K=V` labels of the runs (a runner's name, a compiler version): kept and shown, not
    /// part of a series' key.
    pub labels: Vec<(String, String)>,
}

/// A corpus as the history knows it: what it holds, and the one name it goes by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CorpusKey {
    /// What was read of it, content only (lines, bytes and their hash, as
    /// [`sudoku_bench_core::corpus::Identity`] has them), so that the same corpus compressed or not,
    /// copied or moved, is one corpus.
    pub identity: String,
    /// Its name, as `run` was given it with `.` and `dir/..` folded away.
    pub name: String,
}

/// One run's summary, as recorded: one per summary JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The summary's path, as given to `history add`.
    pub source: PathBuf,
    /// XXH3-128 of the summary's bytes, hex: the same file is recorded once.
    pub digest: String,
    /// When the run finished (RFC 3339, UTC).
    pub date: String,
    /// The version of sudoku-bench that made it.
    pub tool_version: String,
    /// Where it ran; part of every series' key.
    pub machine: Machine,
    /// The options that decide what its rows hold, and its threads; part of every series'
    /// key, as one text (`--max-solutions 2 --max-nodes ... -j 2`).
    pub settings: String,
    /// One per (corpus, strategy).
    pub rows: Vec<RowRecord>,
    /// In-run A/B results (`compare RUN.csv --between OLD,NEW --format json`) of this run.
    pub ab: Vec<AbRecord>,
    /// Its strategies' times relative to a reference strategy of the same run (`history
    /// add --relative-to`).
    pub relative: Vec<RelativeRecord>,
}

/// One (corpus, strategy) row of a summary.
#[derive(Debug, Clone, PartialEq)]
pub struct RowRecord {
    /// The corpus.
    pub corpus: CorpusKey,
    /// The strategy's name.
    pub strategy: String,
    /// Records reported, searched or not.
    pub puzzles: u64,
    /// Records per status, in [`Status::ALL`]'s order.
    pub statuses: [u64; Status::ALL.len()],
    /// Wrong answers.
    pub mismatches: u64,
    /// Searches the solver failed.
    pub failures: u64,
    /// Puzzles searched and timed.
    pub searched: u64,
    /// Summed nodes and the searches that counted them; `None` when not counted.
    pub nodes: Option<(u64, u64)>,
    /// Summed guesses and the finished searches that counted them; `None` likewise.
    pub guesses: Option<(u64, u64)>,
    /// Summed instructions and the searches that counted them (`run --measure
    /// instructions`); `None` in a run that timed.
    pub instructions: Option<(u64, u64)>,
    /// Puzzles per second of one core, 1 / mean time.
    pub rate: f64,
    /// 1 / median time: the rate of a typical puzzle, which `history check` judges.
    pub median_rate: f64,
    /// Summed solve time.
    pub time_sum_ns: u64,
    /// Solve time quantiles: median, p90, p99, and the longest solve.
    pub median_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Longest solve.
    pub max_ns: u64,
    /// The solve-time histogram as the summary carries it (HdrHistogram V2 with deflate,
    /// base64), so that any quantile can be recomputed.
    pub times: String,
}

/// One in-run A/B result: NEW's time over OLD's in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct AbRecord {
    /// The corpus.
    pub corpus: CorpusKey,
    /// The strategy compared with.
    pub old: String,
    /// The strategy judged.
    pub new: String,
    /// NEW / OLD, the geometric mean of per-puzzle time ratios.
    pub ratio: f64,
    /// Its bootstrap interval, when there is one.
    pub interval: Option<(f64, f64)>,
    /// The interval's confidence level, e.g. 0.95.
    pub confidence: f64,
    /// `compare`'s verdict, as its JSON says it.
    pub verdict: String,
}

/// One strategy's time relative to a reference strategy timed in the same run, on one
/// corpus: whatever slows the machine during the run slows both, so the ratio keeps the
/// code's change and loses most of the machine's.
#[derive(Debug, Clone, PartialEq)]
pub struct RelativeRecord {
    /// The corpus.
    pub corpus: CorpusKey,
    /// The strategy judged.
    pub strategy: String,
    /// The strategy it is relative to (`--relative-to`).
    pub reference: String,
    /// The strategy's median solve time over the reference's: higher is slower.
    pub ratio: f64,
}

/// A recorded commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitRecord {
    /// Its hash.
    pub commit: String,
    /// Its time, Unix seconds.
    pub time: i64,
    /// The branch its first run was recorded for.
    pub branch: Option<String>,
}

/// What a series is keyed by: machines, settings and corpora are never mixed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeriesKey {
    /// The machine, shown (`cpu, N cores, os arch`).
    pub machine: String,
    /// The run's settings (see [`RunRecord::settings`]).
    pub settings: String,
    /// The corpus.
    pub corpus: CorpusKey,
    /// The strategy, `OLD -> NEW` for an in-run A/B, or `STRATEGY / REFERENCE` for a time
    /// relative to a reference strategy.
    pub strategy: String,
}

/// What one observation measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Measured {
    /// A summary's row.
    Row {
        /// 1 / median time.
        median_rate: f64,
        /// Nodes per search that counted them, as (sum, count).
        nodes: Option<(u64, u64)>,
        /// Guesses per finished search that counted them, as (sum, count).
        guesses: Option<(u64, u64)>,
        /// Instructions per search that counted them, as (sum, count); `None` in a run
        /// that timed.
        instructions: Option<(u64, u64)>,
        /// The solve-time histogram, as the summary carries it ([`RowRecord::times`]):
        /// what the median's interval is read from.
        times: String,
    },
    /// An in-run A/B's NEW / OLD time ratio and its interval.
    Ab {
        /// The ratio.
        ratio: f64,
        /// Its interval.
        interval: Option<(f64, f64)>,
    },
    /// A strategy's median time over its reference's, in one run ([`RelativeRecord`]).
    Relative {
        /// The ratio.
        ratio: f64,
    },
}

/// One recorded measurement of one series at one commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The series.
    pub key: SeriesKey,
    /// The commit.
    pub commit: String,
    /// The branch of its run, when said.
    pub branch: Option<String>,
    /// The value.
    pub measured: Measured,
}

/// How an `add` went.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Added {
    /// Runs recorded.
    pub runs: usize,
    /// In-run A/B results recorded, those of runs recorded before included.
    pub ab: usize,
    /// Relative times recorded, those of runs recorded before included.
    pub relative: usize,
    /// Summaries the store already has under this commit: skipped (their A/B results not
    /// yet recorded are added).
    pub already: Vec<PathBuf>,
    /// The commit's time in the store, seconds since the Unix epoch: the one first recorded
    /// for it, which a later `add` without `--time` keeps.
    pub time: i64,
}

/// Why the store cannot do what was asked. Every variant names the file concerned.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened, read or written.
    #[error("{path}: {why}")]
    Database {
        /// The database.
        path: String,
        /// Why.
        why: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A PostgreSQL URL given to a build without the `postgres` feature.
    #[error(
        "{url}: this sudoku-bench was built without PostgreSQL; build it with \
         `cargo build --release --features postgres` (or install it with \
         `cargo install --path . --features postgres`)"
    )]
    NoPostgres {
        /// The URL, without its password.
        url: String,
    },
    /// Asked to read a history that is not there.
    #[error("{path}: no history there (`sudoku-bench history add` makes one)")]
    Missing {
        /// The database.
        path: String,
    },
    /// Asked to read a history from a file that holds none: empty, or a database without
    /// tables.
    #[error("{path}: no history in it, an empty file or database (`sudoku-bench history add` makes one)")]
    Empty {
        /// The file.
        path: String,
    },
    /// A database written by a newer sudoku-bench.
    #[error(
        "{path}: the history is at schema version {found}, newer than this sudoku-bench \
         knows ({supported}): use a newer sudoku-bench"
    )]
    FutureVersion {
        /// The database.
        path: String,
        /// Its version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// A schema version this tool never writes (below 1): a table edited by hand.
    #[error(
        "{path}: the history's schema_version table says version {found}, which no \
         sudoku-bench writes (versions start at 1): the file was edited by hand or is not a \
         history"
    )]
    BadVersion {
        /// The database.
        path: String,
        /// The version it holds.
        found: i64,
    },
    /// Another process held the database's lock for longer than a command waits.
    #[error(
        "{path}: the history stayed locked by another process (another `history add`?) for \
         {waited_secs} s; nothing was read or written: try again once it is done"
    )]
    Locked {
        /// The database.
        path: String,
        /// How long it was waited for.
        waited_secs: u64,
    },
    /// A database that holds tables but no schema version: not a history.
    #[error("{path}: a database that is not a sudoku-bench history (no schema version)")]
    Foreign {
        /// The database.
        path: String,
    },
    /// A corpus whose contents the history knows under another name.
    #[error(
        "{file}: corpus {name} holds the same puzzles as {recorded}, as the history records \
         it; a corpus keeps one name in the history, so that its series is one: run it as \
         {recorded}"
    )]
    CorpusRenamed {
        /// The summary.
        file: PathBuf,
        /// The name the summary gives it.
        name: String,
        /// The name the history knows it by.
        recorded: String,
    },
    /// A summary recorded before under another commit.
    #[error("{file}: already recorded under commit {recorded}, not {commit}")]
    OtherCommit {
        /// The summary.
        file: PathBuf,
        /// The commit it is recorded under.
        recorded: String,
        /// The commit given now.
        commit: String,
    },
    /// A given time that contradicts the recorded one.
    #[error(
        "{file}: commit {commit} is recorded at {recorded}; --time says {given} (a commit has \
         one time, its place in the series)"
    )]
    OtherTime {
        /// The first summary of the add.
        file: PathBuf,
        /// The commit.
        commit: String,
        /// The recorded time, RFC 3339.
        recorded: String,
        /// The given time, RFC 3339.
        given: String,
    },
}

/// A store of runs keyed by commit. Implementations keep a schema version and migrate an
/// older store when they open it (refusing a newer one), and make each `add` all or
/// nothing.
pub trait HistoryStore {
    /// Record `runs` under `placement`, all or none. Refused: a corpus whose identity the
    /// store knows under another name, a summary recorded under another commit, a given
    /// time that differs from the commit's recorded one. A summary already recorded under
    /// this commit is skipped, and said in [`Added::already`]; its A/B results and relative
    /// times that are not recorded yet are added to it.
    fn add(&mut self, placement: &Placement, runs: &[RunRecord]) -> Result<Added, StoreError>;

    /// Every recorded commit, in the series' order: by time, then by when first recorded.
    fn commits(&mut self) -> Result<Vec<CommitRecord>, StoreError>;

    /// Every observation, for the series: summaries' rows, then in-run A/B results, then
    /// relative times, each by run in the order recorded, then by corpus identity and
    /// strategy.
    fn observations(&mut self) -> Result<Vec<Observation>, StoreError>;
}
