//! Reading one side of a comparison: a per-puzzle CSV written by `sudoku-bench run`
//! (columns found by header name, unknown columns ignored), or a summary JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::report::summary::SummaryReport;

/// Why a run could not be read. Every variant names the file, and the line when there is one.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: cannot read")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Bad {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{path}: not a summary JSON written by `sudoku-bench run --summary`")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// One (puzzle, strategy) row of a per-puzzle CSV, as `compare` needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Empty when the puzzle was not searched.
    pub nodes: Option<u64>,
    pub time_ns: Option<u64>,
    pub status: String,
}

/// (corpus, strategy) -> line -> sample.
pub type Samples = BTreeMap<(String, String), BTreeMap<u64, Sample>>;

/// Totals for one (corpus, strategy), all a summary JSON can give.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub searched: u64,
    pub total_time_ns: u64,
    pub median_ns: u64,
    /// `mean_nodes * searched`, rounded: exact when written by this tool.
    pub total_nodes: u64,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    PerPuzzle(Samples),
    Summary(BTreeMap<(String, String), Aggregate>),
}

impl Run {
    /// Read `path`: JSON when its first non-blank byte is `{`, else a per-puzzle CSV.
    pub fn load(path: &Path) -> Result<Run, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
            let report: SummaryReport =
                serde_json::from_slice(&bytes).map_err(|source| LoadError::Json {
                    path: path.to_path_buf(),
                    source,
                })?;
            return Ok(Run::Summary(summary_aggregates(&report)));
        }
        parse_csv(path, &bytes).map(Run::PerPuzzle)
    }

    /// Per (corpus, strategy) totals, whatever the source.
    pub fn aggregates(&self) -> BTreeMap<(String, String), Aggregate> {
        match self {
            Run::Summary(a) => a.clone(),
            Run::PerPuzzle(samples) => samples
                .iter()
                .map(|(key, rows)| {
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
                        total_nodes: rows.values().filter_map(|s| s.nodes).sum(),
                    };
                    (key.clone(), agg)
                })
                .collect(),
        }
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
                total_nodes: (r.mean_nodes * r.searched as f64).round() as u64,
            };
            ((r.corpus.clone(), r.strategy.clone()), agg)
        })
        .collect()
}

/// The columns `compare` needs; any others (a later `guesses`, say) are ignored.
const NEEDED: [&str; 5] = ["corpus", "line", "strategy", "nodes", "time_ns"];

fn parse_csv(path: &Path, bytes: &[u8]) -> Result<Samples, LoadError> {
    let bad = |line: u64, message: String| LoadError::Bad {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| bad(1, format!("cannot read the header: {e}")))?
        .clone();
    let find = |name: &str| headers.iter().position(|h| h.trim() == name);
    let mut idx = [0usize; 5];
    for (i, name) in NEEDED.iter().enumerate() {
        idx[i] = find(name).ok_or_else(|| {
            bad(
                1,
                format!("no `{name}` column: not a per-puzzle CSV written by `sudoku-bench run`"),
            )
        })?;
    }
    let status = find("status");
    let mut samples = Samples::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                return Err(bad(line, format!("malformed CSV: {e}")));
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        let number = |col: usize| -> Result<Option<u64>, LoadError> {
            let v = field(idx[col]);
            if v.is_empty() {
                return Ok(None);
            }
            v.parse()
                .map(Some)
                .map_err(|_| bad(line, format!("`{}` is {v:?}, not a number", NEEDED[col])))
        };
        let puzzle_line = number(1)?.ok_or_else(|| bad(line, "`line` is empty".to_string()))?;
        let sample = Sample {
            nodes: number(3)?,
            time_ns: number(4)?,
            status: status.map_or("", |i| field(i)).to_string(),
        };
        let key = (field(idx[0]).to_string(), field(idx[2]).to_string());
        if key.1.is_empty() {
            return Err(bad(line, "`strategy` is empty".to_string()));
        }
        if samples
            .entry(key.clone())
            .or_default()
            .insert(puzzle_line, sample)
            .is_some()
        {
            return Err(bad(
                line,
                format!(
                    "a second row for {} line {puzzle_line}, strategy {}",
                    key.0, key.1
                ),
            ));
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Run, LoadError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.csv");
        std::fs::write(&path, text).unwrap();
        Run::load(&path)
    }

    #[test]
    fn columns_are_found_by_name_and_extra_columns_ignored() {
        let run = load_text(
            "guesses,strategy,corpus,line,nodes,time_ns,status,new\n\
             3,fast,c.txt,7,12,900,unique,x\n\
             ,fast,c.txt,8,,,malformed,\n",
        )
        .unwrap();
        let Run::PerPuzzle(s) = run else {
            panic!("a CSV is per-puzzle")
        };
        let rows = &s[&("c.txt".to_string(), "fast".to_string())];
        assert_eq!(rows[&7].nodes, Some(12));
        assert_eq!(rows[&7].time_ns, Some(900));
        assert_eq!(rows[&8].time_ns, None);
    }

    #[test]
    fn bad_input_names_the_line() {
        let err = load_text("corpus,line,strategy,nodes,time_ns\nc,1,a,5,x\n").unwrap_err();
        assert!(
            err.to_string()
                .ends_with("run.csv:2: `time_ns` is \"x\", not a number"),
            "{err}"
        );
        let err = load_text("corpus,line,strategy,time_ns\n").unwrap_err();
        assert!(
            err.to_string().contains("run.csv:1: no `nodes` column"),
            "{err}"
        );
        let err =
            load_text("corpus,line,strategy,nodes,time_ns\nc,1,a,5,6\nc,1,a,5,6\n").unwrap_err();
        assert!(err.to_string().contains("run.csv:3: a second row"), "{err}");
    }
}
