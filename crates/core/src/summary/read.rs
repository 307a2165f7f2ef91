//! Reading back the files `run` writes, for `compare` and `report` alike: whether a file is
//! a summary JSON or a per-puzzle CSV, the summary itself, and the errors both commands give
//! about them.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{read_times, GroupState, SummaryReport, SummaryRow};
use crate::results::csv::CsvError;

/// Why a run's file could not be read. Every variant names the file, and the line when
/// there is one.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    /// The file could not be read, or a per-puzzle CSV is not what `run` writes (the one
    /// error of the CSV reader, which names the file and the line).
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// A summary JSON whose figures contradict each other.
    #[error(transparent)]
    Contradiction(#[from] Box<Contradiction>),
    /// A summary of a run that counted instructions, given where times are compared: its
    /// times are Valgrind's, and its counts are compared from its per-puzzle CSV.
    #[error(
        "{path}: the summary of a run that counted instructions (run --measure \
         instructions): its times are Valgrind's; compare its per-puzzle CSV, whose counts \
         are judged"
    )]
    Counted {
        /// The file.
        path: PathBuf,
    },
    /// A file starting with `{` is not a summary JSON.
    #[error("{path}: not a summary JSON written by `sudoku-bench run --summary`")]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

/// A figure of a summary JSON that contradicts another: the summary was edited, or is
/// not what `run` writes. Named by its file and field.
#[derive(Debug, thiserror::Error)]
#[error(
    "{path}: {field}: {why}: the summary contradicts itself (edited, or not written by \
     sudoku-bench run); run again to make it"
)]
pub struct Contradiction {
    /// The file.
    pub path: PathBuf,
    /// The field, as `rows[I] (CORPUS / STRATEGY).FIELD` or `state.groups[I] (...).FIELD`.
    pub field: String,
    /// What it contradicts.
    pub why: String,
}

impl RunFileError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> RunFileError {
        RunFileError::Csv(CsvError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Whether bytes from the start of a file show a summary JSON: their first non-blank byte
/// is `{` (a per-puzzle CSV starts with its header). `None` when they are all blank.
fn opens_json(start: &[u8]) -> Option<bool> {
    start
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .map(|&b| b == b'{')
}

/// Whether `bytes`, a whole file, are a summary JSON rather than a per-puzzle CSV.
pub fn is_summary(bytes: &[u8]) -> bool {
    opens_json(bytes) == Some(true)
}

/// Whether the file at `path` is a summary JSON, read only as far as its first non-blank
/// byte (a per-puzzle CSV may be gigabytes).
pub fn is_summary_file(path: &Path) -> Result<bool, RunFileError> {
    let mut file = File::open(path).map_err(|e| RunFileError::io(path, e))?;
    let mut buf = [0u8; 4096];
    loop {
        let n = file.read(&mut buf).map_err(|e| RunFileError::io(path, e))?;
        if n == 0 {
            return Ok(false);
        }
        if let Some(json) = opens_json(&buf[..n]) {
            return Ok(json);
        }
    }
}

/// The summary JSON `bytes` read from `path`, its figures checked against each other (see
/// [`check`]): every command that reads a summary reads it here.
pub fn parse_summary(path: &Path, bytes: &[u8]) -> Result<SummaryReport, RunFileError> {
    let report = serde_json::from_slice(bytes).map_err(|source| RunFileError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    check(&report).map_err(|(field, why)| {
        Box::new(Contradiction {
            path: path.to_path_buf(),
            field,
            why,
        })
    })?;
    Ok(report)
}

/// A field that contradicts another, and how.
type Fault = (String, String);

/// What every summary `run` (or `merge`) writes holds, whatever its version: what is not
/// so was edited or forged, and would be believed downstream (a history's median rate
/// from a `max_ns` of 1, more puzzles searched than read). The rows, and the accumulators
/// (`state`) that `merge` and `history add` recompute them from, each alone and against
/// each other.
pub fn check(report: &SummaryReport) -> Result<(), Fault> {
    if report.not_reached.is_some_and(|n| n > 0) && !report.interrupted && report.errors.is_empty()
    {
        return Err((
            "not_reached".into(),
            format!(
                "{} puzzles not reached, but the run was neither interrupted nor failed",
                report.not_reached.unwrap_or(0)
            ),
        ));
    }
    for (i, row) in report.rows.iter().enumerate() {
        check_row(row).map_err(|(field, why)| {
            let at = format!("rows[{i}] ({} / {}).{field}", row.corpus, row.strategy);
            (at, why)
        })?;
    }
    let Some(state) = &report.state else {
        return Ok(());
    };
    if state.groups.len() != report.rows.len() {
        return Err((
            "state.groups".into(),
            format!(
                "{} groups for {} rows",
                state.groups.len(),
                report.rows.len()
            ),
        ));
    }
    for (i, (group, row)) in state.groups.iter().zip(&report.rows).enumerate() {
        check_group(group, row).map_err(|(field, why)| {
            let at = format!(
                "state.groups[{i}] ({} / {}).{field}",
                group.corpus, group.strategy
            );
            (at, why)
        })?;
    }
    Ok(())
}

/// `a <= b`, else the fault that `a_name` (`a`) is above `b_name` (`b`).
fn at_most(field: &str, a: u128, b_name: &str, b: u128) -> Result<(), Fault> {
    if a > b {
        return Err((field.into(), format!("{a} is more than {b_name}, {b}")));
    }
    Ok(())
}

fn check_row(r: &SummaryRow) -> Result<(), Fault> {
    let statuses = [
        r.unique,
        r.multiple,
        r.unsolvable,
        r.solved,
        r.invalid,
        r.malformed,
        r.aborted,
    ];
    let counted: u128 = statuses.iter().map(|&n| n as u128).sum();
    if counted != r.puzzles as u128 {
        return Err((
            "puzzles".into(),
            format!(
                "{} is not the sum of the statuses' counts, {counted}",
                r.puzzles
            ),
        ));
    }
    let searchable = (r.puzzles - r.invalid - r.malformed) as u128;
    at_most(
        "searched",
        r.searched as u128,
        "the puzzles neither invalid nor malformed",
        searchable,
    )?;
    at_most(
        "mismatches",
        r.mismatches as u128,
        "puzzles",
        r.puzzles as u128,
    )?;
    at_most("failures", r.failures as u128, "aborted", r.aborted as u128)?;
    at_most(
        "unreturned",
        r.unreturned as u128,
        "searched",
        r.searched as u128,
    )?;
    at_most(
        "max_ns",
        r.max_ns as u128,
        "total_time_ns",
        r.total_time_ns as u128,
    )?;
    at_most("median_ns", r.median_ns as u128, "p90_ns", r.p90_ns as u128)?;
    at_most("p90_ns", r.p90_ns as u128, "p99_ns", r.p99_ns as u128)?;
    at_most("p99_ns", r.p99_ns as u128, "max_ns", r.max_ns as u128)?;
    Ok(())
}

/// A group's state against the row shown in its place: the same corpus and strategy, and
/// the same figures recomputed.
fn check_group(g: &GroupState, row: &SummaryRow) -> Result<(), Fault> {
    if (g.corpus.as_str(), g.strategy.as_str()) != (row.corpus.as_str(), row.strategy.as_str()) {
        return Err((
            "corpus, strategy".into(),
            format!(
                "not those of the row in its place ({} / {})",
                row.corpus, row.strategy
            ),
        ));
    }
    let puzzles: u128 = g.counts.values().map(|&n| n as u128).sum();
    let number = |field: &str, value: &str| -> Result<u128, Fault> {
        value.parse().map_err(|_| {
            (
                field.to_string(),
                format!("{value:?} is not a decimal number"),
            )
        })
    };
    let time_sum = number("time_sum_ns", &g.time_sum_ns)?;
    let instructions_sum = match &g.instructions_sum {
        Some(sum) => number("instructions_sum", sum)?,
        None => 0,
    };
    if g.instructions_counted == 0 && instructions_sum > 0 {
        return Err((
            "instructions_sum".into(),
            format!("{instructions_sum}, but instructions_counted is 0"),
        ));
    }
    // Each figure the row shows is the state's, recomputed: they must say the same.
    let same = [
        ("counts", puzzles, row.puzzles as u128),
        ("searched", g.searched as u128, row.searched as u128),
        ("mismatches", g.mismatches as u128, row.mismatches as u128),
        ("failures", g.failures as u128, row.failures as u128),
        ("max_ns", g.max_ns as u128, row.max_ns as u128),
        (
            "time_sum_ns",
            time_sum.min(u64::MAX as u128),
            row.total_time_ns as u128,
        ),
        (
            "instructions_sum",
            instructions_sum.min(u64::MAX as u128),
            row.total_instructions.unwrap_or(0) as u128,
        ),
    ];
    for (field, state, shown) in same {
        if state != shown {
            return Err((
                field.into(),
                format!("{state}, but the row in its place says {shown}"),
            ));
        }
    }
    check_bounds(g, puzzles, time_sum)
}

/// The group's counters each within what bounds it: a subset no larger than its set.
fn check_bounds(g: &GroupState, puzzles: u128, time_sum: u128) -> Result<(), Fault> {
    let count = |name: &str| g.counts.get(name).copied().unwrap_or(0);
    let searchable = puzzles - count("invalid") as u128 - count("malformed") as u128;
    let searched = g.searched as u128;
    at_most(
        "searched",
        searched,
        "the puzzles neither invalid nor malformed",
        searchable,
    )?;
    at_most(
        "nodes_counted",
        g.nodes_counted as u128,
        "searched",
        searched,
    )?;
    at_most("guessed", g.guessed as u128, "searched", searched)?;
    at_most("no_guess", g.no_guess as u128, "guessed", g.guessed as u128)?;
    at_most("unreturned", g.unreturned as u128, "searched", searched)?;
    at_most("unwalled", g.unwalled as u128, "searched", searched)?;
    at_most(
        "instructions_counted",
        g.instructions_counted as u128,
        "searched",
        searched,
    )?;
    at_most(
        "failures",
        g.failures as u128,
        "aborted",
        count("aborted") as u128,
    )?;
    at_most("max_ns", g.max_ns as u128, "time_sum_ns", time_sum)?;
    check_times(g, time_sum)
}

/// The time histogram against the exact figures beside it: one time per search, the
/// longest in its top bucket, and the exact sum within the sum of its buckets' bounds.
fn check_times(g: &GroupState, time_sum: u128) -> Result<(), Fault> {
    let times = read_times(&g.times).map_err(|why| ("times".to_string(), why))?;
    if times.len() != g.searched {
        return Err((
            "times".into(),
            format!(
                "the histogram holds {} times, but searched is {}",
                times.len(),
                g.searched
            ),
        ));
    }
    if g.searched == 0 {
        return Ok(());
    }
    if !times.equivalent(times.max(), g.max_ns) {
        return Err((
            "max_ns".into(),
            format!(
                "{}, but the histogram's longest time is {}",
                g.max_ns,
                times.max()
            ),
        ));
    }
    let (mut low, mut high) = (0u128, 0u128);
    for bucket in times.iter_recorded() {
        let v = bucket.value_iterated_to();
        let n = bucket.count_at_value() as u128;
        low += n * times.lowest_equivalent(v) as u128;
        high += n * times.highest_equivalent(v) as u128;
    }
    if time_sum < low || time_sum > high {
        return Err((
            "time_sum_ns".into(),
            format!("{time_sum}, but the histogram's times add up to {low}..{high}"),
        ));
    }
    Ok(())
}

/// The summary JSON at `path`.
pub fn read_summary(path: &Path) -> Result<SummaryReport, RunFileError> {
    let bytes = std::fs::read(path).map_err(|e| RunFileError::io(path, e))?;
    parse_summary(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{PuzzleResult, Status};
    use crate::summary::Summary;

    /// A summary JSON of two strategies over 100 puzzles and a malformed line, as `run`
    /// writes it.
    fn written() -> serde_json::Value {
        let mut s = Summary::default();
        for (strategy, scale) in [("fast", 1_000), ("dlx", 7_000)] {
            let g = s.group("c.txt", strategy);
            for i in 1..=100u64 {
                let status = if i % 10 == 0 {
                    Status::Multiple
                } else {
                    Status::Unique
                };
                let result = PuzzleResult {
                    status,
                    solutions: Some(1 + (i % 10 == 0) as u32),
                    nodes: Some(i),
                    guesses: Some(i / 3),
                    time_ns: Some(i * scale),
                    ..PuzzleResult::default()
                };
                s.add(g, &result);
            }
            s.add(g, &PuzzleResult::unsearched(Status::Malformed, "bad"));
        }
        let report = SummaryReport {
            rows: s.rows(),
            state: Some(s.state()),
            ..crate::summary::sample_report(false, Some(0))
        };
        serde_json::to_value(report).unwrap()
    }

    fn read(json: &serde_json::Value) -> Result<SummaryReport, RunFileError> {
        parse_summary(Path::new("s.json"), &serde_json::to_vec(json).unwrap())
    }

    #[test]
    fn a_summary_as_run_writes_it_reads() {
        read(&written()).unwrap();
    }

    /// Each forgery of issue 38, and the field the refusal names.
    #[test]
    fn a_summary_whose_figures_contradict_each_other_is_refused_naming_the_field() {
        type Forge = fn(&mut serde_json::Value);
        let group = "state.groups[0] (c.txt / fast)";
        let forged: [(Forge, String); 11] = [
            (
                |j| j["rows"][0]["total_instructions"] = 5.into(),
                format!("{group}.instructions_sum"),
            ),
            (
                |j| {
                    j["state"]["groups"][0]["instructions_counted"] = 101.into();
                    j["state"]["groups"][0]["instructions_sum"] = "7".into();
                    j["rows"][0]["total_instructions"] = 7.into();
                },
                format!("{group}.instructions_counted"),
            ),
            (
                |j| j["state"]["groups"][0]["max_ns"] = 1.into(),
                format!("{group}.max_ns"),
            ),
            (
                |j| j["rows"][0]["max_ns"] = 1.into(),
                "rows[0] (c.txt / fast).p99_ns".into(),
            ),
            (
                |j| j["state"]["groups"][0]["searched"] = 500.into(),
                format!("{group}.searched"),
            ),
            (
                |j| j["rows"][0]["searched"] = 500.into(),
                "rows[0] (c.txt / fast).searched".into(),
            ),
            (
                |j| j["state"]["groups"][0]["times"] = j["state"]["groups"][1]["times"].clone(),
                format!("{group}.max_ns"),
            ),
            (
                |j| j["state"]["groups"][0]["nodes_counted"] = 101.into(),
                format!("{group}.nodes_counted"),
            ),
            (
                |j| {
                    j["state"]["groups"][0]["max_ns"] = 10_000_000.into();
                    j["rows"][0]["max_ns"] = 10_000_000.into();
                },
                "rows[0] (c.txt / fast).max_ns".into(),
            ),
            (|j| j["not_reached"] = 5.into(), "not_reached".into()),
            (
                |j| j["state"]["groups"][1]["counts"]["unique"] = 3.into(),
                "state.groups[1] (c.txt / dlx).counts".into(),
            ),
        ];
        for (forge, field) in forged {
            let mut json = written();
            forge(&mut json);
            let err = read(&json).expect_err(&field).to_string();
            assert!(
                err.starts_with(&format!("s.json: {field}: ")) && err.contains("contradicts"),
                "{field}: {err}"
            );
        }
        // Interrupted, or failed, a run may leave puzzles not reached.
        let mut json = written();
        json["not_reached"] = 5.into();
        json["interrupted"] = true.into();
        read(&json).unwrap();
    }

    #[test]
    fn a_file_is_json_when_its_first_non_blank_byte_is_a_brace() {
        assert!(is_summary(b" \n\t{\"tool\": 1}"));
        assert!(!is_summary(b"corpus,line,strategy\n"));
        assert!(!is_summary(b"  \n"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        // Blank past the first read's 4096 bytes: the file is read on until it says.
        let mut text = vec![b' '; 5000];
        text.extend_from_slice(b"{}");
        std::fs::write(&path, &text).unwrap();
        assert!(is_summary_file(&path).unwrap());
        std::fs::write(&path, b"\n\n").unwrap();
        assert!(!is_summary_file(&path).unwrap());
        let missing = dir.path().join("missing.json");
        assert!(matches!(
            is_summary_file(&missing),
            Err(RunFileError::Csv(CsvError::Io { .. }))
        ));
    }
}
