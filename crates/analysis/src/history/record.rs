//! What `history add` records of the files it is given: each summary JSON (read through the
//! one summary reader, [`sudoku_bench_core::summary::read`]) as a [`RunRecord`], and each in-run
//! comparison JSON (`compare RUN.csv --between OLD,NEW --format json`) as A/B results of the
//! summary of the same run, given beside it: a comparison names neither the machine nor
//! what its corpus held, the summary does. With a reference strategy (`--relative-to`),
//! each other strategy's median time over the reference's in the same run is recorded too.
//! Whatever cannot be placed is refused, naming the file.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use xxhash_rust::xxh3::xxh3_128;

use super::store::{AbRecord, CorpusKey, RelativeRecord, RowRecord, RunRecord};
use crate::compare::load::normal_name;
use sudoku_bench_core::corpus::Identity;
use sudoku_bench_core::results::Status;
use sudoku_bench_core::summary::read::{parse_summary, RunFileError};
use sudoku_bench_core::summary::{GroupState, StateError, Summary, SummaryReport, SummaryRow};

/// Why a file cannot be placed in the history. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// Unreadable, or not a summary JSON.
    #[error(transparent)]
    Read(#[from] RunFileError),
    /// A run stopped before the end of its input.
    #[error("{0}: an interrupted run: its rows count only part of its corpora")]
    Interrupted(PathBuf),
    /// A run that failed (exit 2) though it wrote its summary.
    #[error("{0}: a run that failed (exit 2): its rows count only part of its corpora: {1}")]
    Failed(PathBuf, String),
    /// One part of a split run.
    #[error(
        "{0}: one part of a run split with --shard: merge the parts first (sudoku-bench merge)"
    )]
    Part(PathBuf),
    /// A run that counted instructions given where times are recorded: a comparison of its
    /// counts, or `--relative-to` (a ratio of Valgrind's times).
    #[error(
        "{0}: {1} of a run that counted instructions (run --measure instructions): its times \
         are Valgrind's; record the run's summary alone, whose counts are series of their own"
    )]
    Counted(PathBuf, &'static str),
    /// A row of a counting run whose searches were not all counted: its mean would not be
    /// that of the row's puzzles.
    #[error(
        "{file}: {corpus} / {strategy}: {counted} of {searched} searches counted their \
         instructions: a partly counted row is not recorded"
    )]
    PartlyCounted {
        /// The summary.
        file: PathBuf,
        /// The corpus.
        corpus: String,
        /// The strategy.
        strategy: String,
        /// Searches counted.
        counted: u64,
        /// Searches made.
        searched: u64,
    },
    /// A merge of parts run on several machines.
    #[error("{0}: merged from parts run on {1} machines: its times mix them")]
    Machines(PathBuf, usize),
    /// A summary without the accumulators (written before summaries carried them).
    #[error(
        "{0}: the summary holds no state (time histogram, corpus identities): written by an \
         older sudoku-bench; run it again"
    )]
    NoState(PathBuf),
    /// The accumulators cannot be read back.
    #[error("{file}: its `state` cannot be read back")]
    State {
        /// The summary.
        file: PathBuf,
        /// Why.
        source: StateError,
    },
    /// A corpus whose contents the summary does not say (its read was stopped or failed).
    #[error(
        "{file}: corpus {corpus}: the summary does not say what it held (was its read cut short?)"
    )]
    NoIdentity {
        /// The summary.
        file: PathBuf,
        /// The corpus.
        corpus: String,
    },
    /// A count past what the history stores.
    #[error("{file}: {corpus} / {strategy}: {what} {value} is too large to record")]
    TooLarge {
        /// The summary.
        file: PathBuf,
        /// The corpus.
        corpus: String,
        /// The strategy.
        strategy: String,
        /// What.
        what: &'static str,
        /// Its value.
        value: String,
    },
    /// A comparison that is not JSON written by `compare --format json`.
    #[error("{file}: not a comparison JSON written by `sudoku-bench compare --format json`")]
    ComparisonJson {
        /// The file.
        file: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// A comparison that cannot be placed.
    #[error("{file}: {why}")]
    Comparison {
        /// The file.
        file: PathBuf,
        /// Why.
        why: String,
    },
    /// A reference strategy (`--relative-to`) that a summary does not hold.
    #[error("{file}: --relative-to {reference}: no such strategy in it (it holds {held})")]
    NoReference {
        /// The summary.
        file: PathBuf,
        /// The reference asked for.
        reference: String,
        /// The strategies it holds, comma-separated.
        held: String,
    },
    /// A summary in which no strategy beside the reference was timed on a corpus the
    /// reference was timed on: there is nothing to record relative to it.
    #[error(
        "{file}: --relative-to {reference}: no other strategy timed beside it on any corpus \
         (it holds {held}; the reference is not recorded relative to itself)"
    )]
    NothingRelative {
        /// The summary.
        file: PathBuf,
        /// The reference.
        reference: String,
        /// The strategies it holds (those taken, with --strategy), comma-separated.
        held: String,
    },
    /// A strategy to take (`--strategy FROM=TO`) that a summary does not hold.
    #[error("{file}: no strategy {strategy} in it to take (it holds {held})")]
    NotHeld {
        /// The summary.
        file: PathBuf,
        /// The strategy asked for.
        strategy: String,
        /// The strategies it holds, comma-separated.
        held: String,
    },
}

/// One strategy of a run recorded on its own, under another name (`history add --strategy
/// FROM=TO`): one run that timed several commits' builds side by side holds each commit's
/// row under a name of its own, and each is recorded under its commit as the strategy it
/// is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// Its name in the summary.
    pub from: String,
    /// The name it is recorded under.
    pub to: String,
}

/// The corpus identity as the history keys it: what was read, content only (lines, bytes
/// and their hash), so that a compressed copy or a moved file is the same corpus.
pub fn identity_key(identity: &Identity) -> String {
    format!(
        "{}:{}:{:016x}",
        identity.lines, identity.bytes, identity.hash
    )
}

/// Every file's records, in order: one per summary, with the A/B results of the
/// comparisons given beside it. Nothing is recorded here; a file that cannot be placed
/// fails the whole.
pub fn read_runs(paths: &[PathBuf]) -> Result<Vec<RunRecord>, PlaceError> {
    read_runs_taking(paths, &[])
}

/// As [`read_runs`], keeping of each summary only the rows of the strategies `take` names
/// (every summary must hold each), renamed, and of each comparison only the rows that judge
/// one of them (its NEW side; each comparison must have one). Nothing is taken out when
/// `take` is empty. The names in `take` are distinct, FROM and TO alike (the caller's to
/// check).
///
/// A taken record's digest is the summary's followed by what was taken: the same summary
/// can then be recorded once per commit it measured, and each of them once.
pub fn read_runs_taking(paths: &[PathBuf], take: &[Taken]) -> Result<Vec<RunRecord>, PlaceError> {
    read_runs_with(paths, take, None)
}

/// As [`read_runs_taking`], each summary also giving, with `relative_to`, every other
/// strategy's time relative to that reference strategy's in the same run, per corpus
/// ([`relative_times`]); every summary must hold the reference. The reference is named as
/// the summaries name it; when strategies are taken, the relative times of those taken are
/// kept, renamed, the reference renamed too when it is taken.
pub fn read_runs_with(
    paths: &[PathBuf],
    take: &[Taken],
    relative_to: Option<&str>,
) -> Result<Vec<RunRecord>, PlaceError> {
    let mut runs = Vec::new();
    let mut comparisons = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|e| RunFileError::io(path, e))?;
        if is_comparison(&bytes) {
            let cmp: ComparisonJson =
                serde_json::from_slice(&bytes).map_err(|source| PlaceError::ComparisonJson {
                    file: path.clone(),
                    source,
                })?;
            comparisons.push((path.clone(), cmp));
        } else {
            let report = parse_summary(path, &bytes)?;
            let mut run = run_record(path, &bytes, &report)?;
            if let Some(reference) = relative_to {
                if report.metric != sudoku_bench_core::results::Metric::Time {
                    return Err(PlaceError::Counted(path.clone(), "--relative-to"));
                }
                run.relative = relative_times(&run, reference)?;
            }
            runs.push(run);
        }
    }
    for (path, cmp) in comparisons {
        attach(&path, &cmp, take, &mut runs)?;
    }
    if !take.is_empty() {
        for run in &mut runs {
            take_rows(run, take)?;
        }
    }
    if let Some(reference) = relative_to {
        for run in &runs {
            if run.relative.is_empty() {
                return Err(PlaceError::NothingRelative {
                    file: run.source.clone(),
                    reference: reference.to_string(),
                    held: held(run),
                });
            }
        }
    }
    Ok(runs)
}

/// The strategies of `run`'s rows, sorted, comma-separated.
fn held(run: &RunRecord) -> String {
    let mut held: Vec<&str> = run.rows.iter().map(|r| r.strategy.as_str()).collect();
    held.sort_unstable();
    held.dedup();
    held.join(", ")
}

/// Every strategy's time relative to `reference`'s in `run`, per corpus both were timed
/// on: its median solve time over the reference's. The reference's own row gives none.
///
/// The notion is `compare --relative-to`'s, a time divided by the reference's in the same
/// run, so that what slows the machine during the run cancels. Per puzzle, as compare
/// pairs a CSV's rows, is not possible from a summary: it holds each row's time histogram,
/// not which puzzle took which time. Of what it holds, the median is the figure `compare`
/// judges summaries by and `history check` judges rates by: one preempted solve moves a
/// mean (or a geometric mean) of a few hundred solves of microseconds, not a median.
pub fn relative_times(run: &RunRecord, reference: &str) -> Result<Vec<RelativeRecord>, PlaceError> {
    if !run.rows.iter().any(|r| r.strategy == reference) {
        return Err(PlaceError::NoReference {
            file: run.source.clone(),
            reference: reference.to_string(),
            held: held(run),
        });
    }
    let mut relative = Vec::new();
    for base in run.rows.iter().filter(|r| r.strategy == reference) {
        // A reference that timed nothing on a corpus gives nothing to divide by.
        if base.median_ns == 0 {
            continue;
        }
        for row in &run.rows {
            if row.strategy == reference || row.corpus != base.corpus || row.median_ns == 0 {
                continue;
            }
            relative.push(RelativeRecord {
                corpus: row.corpus.clone(),
                strategy: row.strategy.clone(),
                reference: reference.to_string(),
                ratio: row.median_ns as f64 / base.median_ns as f64,
            });
        }
    }
    Ok(relative)
}

/// Keep of `run` the rows of the strategies `take` names, renamed; its A/B results (each
/// judging one of them) renamed alike.
fn take_rows(run: &mut RunRecord, take: &[Taken]) -> Result<(), PlaceError> {
    let renamed = |name: &str| take.iter().find(|t| t.from == name).map(|t| t.to.clone());
    for t in take {
        if !run.rows.iter().any(|r| r.strategy == t.from) {
            return Err(PlaceError::NotHeld {
                file: run.source.clone(),
                strategy: t.from.clone(),
                held: held(run),
            });
        }
    }
    run.rows.retain(|r| renamed(&r.strategy).is_some());
    for row in &mut run.rows {
        row.strategy = renamed(&row.strategy).unwrap_or_default();
    }
    run.relative.retain(|r| renamed(&r.strategy).is_some());
    for r in &mut run.relative {
        r.strategy = renamed(&r.strategy).unwrap_or_default();
        if let Some(to) = renamed(&r.reference) {
            r.reference = to;
        }
    }
    for ab in &mut run.ab {
        if let Some(to) = renamed(&ab.old) {
            ab.old = to;
        }
        if let Some(to) = renamed(&ab.new) {
            ab.new = to;
        }
    }
    let taken: Vec<String> = take
        .iter()
        .map(|t| format!("{}={}", t.from, t.to))
        .collect();
    run.digest = format!("{} taking {}", run.digest, taken.join(","));
    Ok(())
}

/// When a run finished, in Unix seconds, as its summary says; `None` when the date cannot
/// be read.
pub fn finished_at(run: &RunRecord) -> Option<i64> {
    let at = humantime::parse_rfc3339_weak(&run.date).ok()?;
    let secs = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}

/// A comparison JSON opens with its mode; a summary JSON names its tool.
fn is_comparison(bytes: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(bytes) else {
        return false;
    };
    fields.contains_key("mode") && !fields.contains_key("tool")
}

fn run_record(path: &Path, bytes: &[u8], report: &SummaryReport) -> Result<RunRecord, PlaceError> {
    let file = || path.to_path_buf();
    check_recordable(path, report)?;
    let counting = report.metric == sudoku_bench_core::results::Metric::Instructions;
    let state = report
        .state
        .as_ref()
        .ok_or_else(|| PlaceError::NoState(file()))?;
    let summary = Summary::from_state(state).map_err(|source| PlaceError::State {
        file: file(),
        source,
    })?;
    let rows = summary
        .rows()
        .into_iter()
        .zip(&state.groups)
        .map(|(row, group)| row_record(path, &summary, row, group, counting))
        .collect::<Result<_, PlaceError>>()?;
    Ok(RunRecord {
        source: file(),
        digest: format!("{:032x}", xxh3_128(bytes)),
        date: report.date.clone(),
        tool_version: report.version.clone(),
        machine: report.machine.clone(),
        settings: settings_of(report, counting),
        rows,
        ab: Vec::new(),
        relative: Vec::new(),
    })
}

/// Refuses a summary that is not one whole, finished run on one machine.
fn check_recordable(path: &Path, report: &SummaryReport) -> Result<(), PlaceError> {
    let file = || path.to_path_buf();
    if report.interrupted {
        return Err(PlaceError::Interrupted(file()));
    }
    if !report.errors.is_empty() {
        return Err(PlaceError::Failed(file(), report.errors.join("; ")));
    }
    if report.shard.is_some() {
        return Err(PlaceError::Part(file()));
    }
    if report.machines.len() > 1 {
        return Err(PlaceError::Machines(file(), report.machines.len()));
    }
    Ok(())
}

/// The settings that decide what a run's rows hold, as its series key shows them: the
/// limits, the workers, and for a counting run `--measure instructions` (its own series:
/// a count is not a time).
fn settings_of(report: &SummaryReport, counting: bool) -> String {
    let mut settings: Vec<String> = report
        .limits()
        .iter()
        .map(|(option, value)| format!("{option} {value}"))
        .collect();
    settings.push(format!("-j {}", report.threads));
    if counting {
        settings.push("--measure instructions".to_string());
    }
    settings.join(" ")
}

/// One summary row as recorded, its exact sums checked (`group` is the row's state).
fn row_record(
    path: &Path,
    summary: &Summary,
    row: SummaryRow,
    group: &GroupState,
    counting: bool,
) -> Result<RowRecord, PlaceError> {
    let file = || path.to_path_buf();
    let identity = summary
        .identity(&row.corpus)
        .ok_or_else(|| PlaceError::NoIdentity {
            file: file(),
            corpus: row.corpus.clone(),
        })?;
    let exact = |what: &'static str, sum: &str, count: u64| -> Result<_, PlaceError> {
        if count == 0 {
            return Ok(None);
        }
        let too_large = || PlaceError::TooLarge {
            file: file(),
            corpus: row.corpus.clone(),
            strategy: row.strategy.clone(),
            what,
            value: sum.to_string(),
        };
        let sum: u64 = sum.parse().map_err(|_| too_large())?;
        Ok(Some((sum, count)))
    };
    let instructions = exact(
        "summed instructions",
        group.instructions_sum.as_deref().unwrap_or("0"),
        group.instructions_counted,
    )?;
    if counting && group.instructions_counted != row.searched {
        return Err(PlaceError::PartlyCounted {
            file: file(),
            corpus: row.corpus.clone(),
            strategy: row.strategy.clone(),
            counted: group.instructions_counted,
            searched: row.searched,
        });
    }
    Ok(RowRecord {
        instructions,
        corpus: CorpusKey {
            identity: identity_key(identity),
            name: normal_name(&row.corpus),
        },
        nodes: exact("summed nodes", &group.nodes_sum, group.nodes_counted)?,
        guesses: exact("summed guesses", &group.guesses_sum, group.guessed)?,
        statuses: Status::ALL.map(|s| group.counts.get(s.as_str()).copied().unwrap_or(0)),
        strategy: row.strategy,
        puzzles: row.puzzles,
        mismatches: row.mismatches,
        failures: row.failures,
        searched: row.searched,
        rate: row.puzzles_per_s_per_core,
        median_rate: row.median_puzzles_per_s_per_core,
        time_sum_ns: row.total_time_ns,
        median_ns: row.median_ns,
        p90_ns: row.p90_ns,
        p99_ns: row.p99_ns,
        max_ns: row.max_ns,
        times: group.times.clone(),
    })
}

/// What `history add` reads of a comparison JSON.
#[derive(Debug, Deserialize)]
struct ComparisonJson {
    mode: String,
    /// Absent in comparisons of times written before counts were compared.
    #[serde(default)]
    metric: Option<String>,
    confidence: f64,
    rows: Vec<ComparisonRowJson>,
}

#[derive(Debug, Deserialize)]
struct ComparisonRowJson {
    corpus: String,
    strategy: String,
    baseline_strategy: Option<String>,
    time_ratio: Option<f64>,
    ci: Option<(f64, f64)>,
    verdict: String,
}

/// Put each row of an in-run comparison with the one summary given beside it that holds
/// its corpus and both strategies; when strategies are taken (`take` not empty), only the
/// rows that judge one of them.
fn attach(
    path: &Path,
    cmp: &ComparisonJson,
    take: &[Taken],
    runs: &mut [RunRecord],
) -> Result<(), PlaceError> {
    let refuse = |why: String| PlaceError::Comparison {
        file: path.to_path_buf(),
        why,
    };
    if cmp.metric.as_deref().is_some_and(|m| m != "time") {
        return Err(PlaceError::Counted(path.to_path_buf(), "a comparison"));
    }
    if cmp.mode != "in_run" {
        return Err(refuse(format!(
            "a comparison of separate runs (mode {}): only in-run results (compare RUN.csv \
             --between OLD,NEW) are recorded; record the runs' summaries themselves",
            cmp.mode
        )));
    }
    let judged = |strategy: &str| take.is_empty() || take.iter().any(|t| t.from == strategy);
    if !take.is_empty() && !cmp.rows.iter().any(|row| judged(&row.strategy)) {
        let taken: Vec<&str> = take.iter().map(|t| t.from.as_str()).collect();
        return Err(refuse(format!(
            "none of its rows judges a strategy taken ({}): give the comparison \
             --between OTHER,{}",
            taken.join(", "),
            taken[0]
        )));
    }
    for row in cmp.rows.iter().filter(|row| judged(&row.strategy)) {
        let old = row.baseline_strategy.as_deref().ok_or_else(|| {
            refuse(format!(
                "{} / {}: no OLD strategy in an in-run row",
                row.corpus, row.strategy
            ))
        })?;
        let pair = format!("{} {old} -> {}", row.corpus, row.strategy);
        let ratio = row
            .time_ratio
            .filter(|r| r.is_finite() && *r > 0.0)
            .ok_or_else(|| refuse(format!("{pair}: no time ratio (nothing was timed)")))?;
        let (run, corpus) = run_holding(runs, &row.corpus, (old, &row.strategy))
            .map_err(|why| refuse(format!("{pair}: {why}")))?;
        run.ab.push(AbRecord {
            corpus,
            old: old.to_string(),
            new: row.strategy.clone(),
            ratio,
            interval: row.ci,
            confidence: cmp.confidence,
            verdict: row.verdict.clone(),
        });
    }
    Ok(())
}

/// The one run among `runs` whose summary holds `corpus` (by name) with both strategies
/// of the pair, with that corpus; or why there is not one.
fn run_holding<'r>(
    runs: &'r mut [RunRecord],
    corpus: &str,
    (old, new): (&str, &str),
) -> Result<(&'r mut RunRecord, CorpusKey), String> {
    let holds = |run: &RunRecord, strategy: &str| {
        run.rows
            .iter()
            .find(|r| r.corpus.name == corpus && r.strategy == strategy)
            .map(|r| r.corpus.clone())
    };
    let mut matching = runs
        .iter_mut()
        .filter_map(|run| {
            let corpus = holds(run, old).filter(|_| holds(run, new).is_some())?;
            Some((run, corpus))
        })
        .collect::<Vec<_>>();
    if matching.len() > 1 {
        let names: Vec<String> = matching
            .iter()
            .map(|(run, _)| run.source.display().to_string())
            .collect();
        return Err(format!(
            "several summaries given hold it ({}): give the one of the run compared",
            names.join(", ")
        ));
    }
    matching.pop().ok_or_else(|| {
        "no summary given beside it holds that corpus with both strategies: give the summary \
         of the run it compared (run ... --summary S.json)"
            .to_string()
    })
}

#[cfg(test)]
mod tests;
