//! Reading one side of a comparison: a per-puzzle CSV written by `sudoku-bench run`
//! (columns found by header name, unknown columns ignored), or a summary JSON.

use std::collections::BTreeMap;
use std::path::Path;

use sudoku_bench_core::results::csv::RowReader;
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::read::{self as summary_file, RunFileError};
use sudoku_bench_core::summary::SummaryReport;

/// One (puzzle, strategy) row of a per-puzzle CSV, as `compare` needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Empty when the puzzle was not searched.
    pub nodes: Option<u64>,
    /// Empty when the strategy counts no guesses, or the CSV has no `guesses` column.
    pub guesses: Option<u64>,
    /// Solve time in nanoseconds; empty when the puzzle was not searched.
    pub time_ns: Option<u64>,
    /// `None` in a CSV without a `status` column.
    pub status: Option<Status>,
    /// The replicate of the run's solvers that solved it; `None` in a CSV without the
    /// column.
    pub replicate: Option<u32>,
    /// The instructions the solve executed; `None` when not counted.
    pub instructions: Option<u64>,
}

impl Sample {
    /// Whether two rows show the same search: the same status, and the same nodes and
    /// guesses wherever both rows count them (an empty cell is "not counted", not zero).
    pub(crate) fn same_search(&self, other: &Sample) -> bool {
        let same = |a: Option<u64>, b: Option<u64>| a.zip(b).is_none_or(|(a, b)| a == b);
        self.status == other.status
            && same(self.nodes, other.nodes)
            && same(self.guesses, other.guesses)
    }
}

/// One corpus of a per-puzzle CSV: what each line held, and each strategy's rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CorpusRows {
    /// Line -> what was solved there: the `puzzle` column, or for a line without a grid
    /// (`malformed`) its status in parentheses. The whole map identifies the corpus
    /// whatever it was called, so `compare` pairs corpora by it.
    pub puzzles: BTreeMap<u64, String>,
    /// Strategy -> line -> sample.
    pub strategies: BTreeMap<String, BTreeMap<u64, Sample>>,
}

impl CorpusRows {
    /// Rows over all strategies.
    pub fn rows(&self) -> u64 {
        self.strategies.values().map(|r| r.len() as u64).sum()
    }
}

/// Corpus name, as written in the CSV -> its rows.
pub type Samples = BTreeMap<String, CorpusRows>;

/// Totals for one (corpus, strategy), all a summary JSON can give.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    /// Puzzles searched (and timed).
    pub searched: u64,
    /// Summed solve time, in nanoseconds.
    pub total_time_ns: u64,
    /// Median solve time, in nanoseconds; 0 when nothing was searched.
    pub median_ns: u64,
    /// `mean_nodes * searched`, rounded: exact when written by this tool. `None` when the
    /// strategy counts no nodes.
    pub total_nodes: Option<u64>,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// A per-puzzle CSV: every (puzzle, strategy) row.
    PerPuzzle(Samples),
    /// A summary JSON: (corpus, strategy) -> its totals, corpus names normalised.
    Summary(BTreeMap<(String, String), Aggregate>),
}

impl Run {
    /// Read `path`: JSON when its first non-blank byte is `{`, else a per-puzzle CSV.
    pub fn load(path: &Path) -> Result<Run, RunFileError> {
        let bytes = std::fs::read(path).map_err(|e| RunFileError::io(path, e))?;
        if summary_file::is_summary(&bytes) {
            let report = summary_file::parse_summary(path, &bytes)?;
            if report.metric != sudoku_bench_core::results::Metric::Time {
                return Err(RunFileError::Counted {
                    path: path.to_path_buf(),
                });
            }
            return Ok(Run::Summary(summary_aggregates(&report)));
        }
        parse_csv(path, &bytes).map(Run::PerPuzzle)
    }

    /// Per (corpus, strategy) totals, whatever the source; corpus names are normalised
    /// (`normal_name`), since a summary holds nothing else to pair corpora by.
    pub(crate) fn aggregates(&self) -> BTreeMap<(String, String), Aggregate> {
        match self {
            Run::Summary(a) => a.clone(),
            Run::PerPuzzle(samples) => samples
                .iter()
                .flat_map(|(corpus, c)| {
                    c.strategies
                        .iter()
                        .map(move |(strategy, rows)| ((normal_name(corpus), strategy), rows))
                })
                .map(|((corpus, strategy), rows)| {
                    let key = (corpus, strategy.clone());
                    let mut times: Vec<u64> = rows.values().filter_map(|s| s.time_ns).collect();
                    times.sort_unstable();
                    let median_ns = if times.is_empty() {
                        0
                    } else {
                        times[(times.len() - 1) / 2]
                    };
                    let agg = Aggregate {
                        searched: times.len() as u64,
                        total_time_ns: times.iter().sum(),
                        median_ns,
                        total_nodes: rows.values().filter_map(|s| s.nodes).reduce(|a, b| a + b),
                    };
                    (key, agg)
                })
                .collect(),
        }
    }
}

/// A corpus path with its lexical noise removed, so that `a.txt`, `./a.txt` and
/// `sub/../a.txt` name one corpus: `.` components and repeated or trailing separators go,
/// `dir/..` folds away. Nothing is looked up on disk: the CSV may come from another
/// machine.
pub(crate) fn normal_name(name: &str) -> String {
    let absolute = name.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

fn summary_aggregates(report: &SummaryReport) -> BTreeMap<(String, String), Aggregate> {
    report
        .rows
        .iter()
        .map(|r| {
            let agg = Aggregate {
                searched: r.searched,
                total_time_ns: r.total_time_ns,
                median_ns: r.median_ns,
                total_nodes: r.mean_nodes.map(|m| (m * r.searched as f64).round() as u64),
            };
            ((normal_name(&r.corpus), r.strategy.clone()), agg)
        })
        .collect()
}

fn parse_csv(path: &Path, bytes: &[u8]) -> Result<Samples, RunFileError> {
    let mut reader = RowReader::new(path, bytes)?;
    reader.require(&["nodes", "time_ns", "puzzle"])?;
    let mut samples = Samples::new();
    while let Some(row) = reader.read()? {
        let bad = |message: String| reader.bad(row.csv_line, message);
        let sample = Sample {
            nodes: row.nodes,
            guesses: row.guesses,
            time_ns: row.time_ns,
            status: row.status,
            replicate: row.replicate,
            instructions: row.instructions,
        };
        let (corpus, strategy, line) = (&row.corpus, &row.strategy, row.line);
        let held = match row.puzzle.as_str() {
            "" => format!("({})", row.status.map_or("", Status::as_str)),
            puzzle => puzzle.to_string(),
        };
        let rows = samples.entry(corpus.clone()).or_default();
        let first = rows.puzzles.entry(line).or_insert_with(|| held.clone());
        if *first != held {
            return Err(bad(format!(
                "{corpus} line {line} holds {held} here but {first} in an earlier row: rows of \
                 two different corpora under one name (CSVs joined together?)"
            ))
            .into());
        }
        if rows
            .strategies
            .entry(strategy.clone())
            .or_default()
            .insert(line, sample)
            .is_some()
        {
            return Err(bad(format!(
                "a second row for {corpus} line {line}, strategy {strategy}: `run` writes one \
                 row per (corpus, line, strategy), so this file holds more than one run (CSVs \
                 joined together?)"
            ))
            .into());
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Run, RunFileError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.csv");
        std::fs::write(&path, text).unwrap();
        Run::load(&path)
    }

    #[test]
    fn columns_are_found_by_name_and_extra_columns_ignored() {
        let run = load_text(
            "guesses,strategy,corpus,line,nodes,time_ns,status,puzzle,new\n\
             3,fast,c.txt,7,12,900,unique,1.3,x\n\
             ,fast,c.txt,8,,,malformed,,\n",
        )
        .unwrap();
        let Run::PerPuzzle(s) = run else {
            panic!("a CSV is per-puzzle")
        };
        let c = &s["c.txt"];
        let rows = &c.strategies["fast"];
        assert_eq!(rows[&7].nodes, Some(12));
        assert_eq!(rows[&7].guesses, Some(3));
        assert_eq!(rows[&8].guesses, None);
        assert_eq!(rows[&7].time_ns, Some(900));
        assert_eq!(rows[&8].time_ns, None);
        assert_eq!(c.puzzles[&7], "1.3");
        assert_eq!(c.puzzles[&8], "(malformed)");
    }

    #[test]
    fn bad_input_names_the_line() {
        let head = "corpus,line,strategy,nodes,time_ns,puzzle\n";
        let err = load_text(&format!("{head}c,1,a,5,x,1.\n")).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("run.csv:2: time_ns is \"x\", not a whole number in range"),
            "{err}"
        );
        let err = load_text("corpus,line,strategy,time_ns,puzzle\n").unwrap_err();
        assert!(
            err.to_string().contains("run.csv:1: no `nodes` column"),
            "{err}"
        );
        let err = load_text(&format!("{head}c,1,a,5,6,1.\nc,1,a,5,6,1.\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains("run.csv:3: a second row for c line 1, strategy a: `run` writes one"),
            "{err}"
        );
        let err = load_text(&format!("{head}c,1,a,5,6,1.\nc,1,b,5,6,2.\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains("run.csv:3: c line 1 holds 2. here but 1. in an earlier row"),
            "{err}"
        );
    }

    #[test]
    fn names_are_normalised_lexically() {
        for (name, normal) in [
            ("a.txt", "a.txt"),
            ("./a.txt", "a.txt"),
            ("d//./a.txt", "d/a.txt"),
            ("d/../a.txt", "a.txt"),
            ("../a.txt", "../a.txt"),
            ("../../d/../a", "../../a"),
            ("/x/../../a", "/a"),
            ("-", "-"),
            ("./", "."),
        ] {
            assert_eq!(normal_name(name), normal, "{name}");
        }
    }
}
