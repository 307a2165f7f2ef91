//! Putting the parts of a split run back together: `run --shard K/N -o part-K.csv
//! --summary part-K.json` for K = 1..N, then `merge`. Every check is made before anything
//! is written, and every refusal names the files.
//!
//! The parts' summaries carry their accumulators (`SummaryReport::state`), so the merged
//! summary is exactly the one a single run would have written: counts, nodes, guesses and
//! time quantiles alike (times still come from the parts' machines).

mod counts;
mod puzzles;
mod refusal;
mod rows;
pub(crate) mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sudoku_bench_core::corpus::{FileIdentity, Identity, Shard};
use sudoku_bench_core::machine::Machine;
use sudoku_bench_core::summary::read::{parse_summary, RunFileError};
use sudoku_bench_core::summary::{GroupState, StateError, Summary, SummaryReport, SummaryState};

pub use puzzles::check_puzzles;
pub use refusal::{Checker, RowsError};
pub use rows::merge_rows;

/// One part: its per-puzzle CSV and the summary JSON beside it.
#[derive(Debug, Clone)]
pub struct PartFiles {
    /// The per-puzzle CSV.
    pub csv: PathBuf,
    /// Its summary JSON: the CSV's path with the extension `.json`.
    pub json: PathBuf,
    /// What the JSON says.
    pub report: SummaryReport,
}

impl PartFiles {
    /// The accumulators its summary carries: what a part without them cannot be merged by.
    fn state(&self) -> Result<&SummaryState, MergeError> {
        self.report
            .state
            .as_ref()
            .ok_or_else(|| MergeError::NoState {
                json: self.json.clone(),
            })
    }
}

/// Why parts cannot be merged. Each names the files concerned.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No part given.
    #[error("nothing to merge: give the parts' per-puzzle CSVs")]
    NoParts,
    /// A directory given where a part's CSV goes.
    #[error(
        "{path} is a directory: merge takes the parts' per-puzzle CSVs, each with its \
         summary JSON beside it (`merge {example} -o all.csv`, for parts written as \
         part-K.csv and part-K.json there)",
        example = path.join("part-*.csv").display()
    )]
    Directory {
        /// The directory.
        path: PathBuf,
    },
    /// A part's summary JSON is not there.
    #[error(
        "{json} is missing: the run of {csv} did not finish, or was not given \
         `--summary {json}`; continue it with `sudoku-bench run --resume -o {csv} --summary \
         {json}` (same corpora and options): merge needs each part's summary beside its CSV"
    )]
    MissingSummary {
        /// The part's CSV.
        csv: PathBuf,
        /// Where its summary should be.
        json: PathBuf,
    },
    /// A part's summary JSON is empty: `run` makes it at its start and fills it at its end.
    #[error(
        "{json} is empty: the run of {csv} did not finish; continue it with \
         `sudoku-bench run --resume -o {csv} --summary {json}` (same corpora and options)"
    )]
    EmptySummary {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
    },
    /// A part's CSV holds fewer (or more) rows than its summary counts.
    #[error(
        "{csv}: {found} rows for {corpus} / {strategy}, but its summary {json} counts \
         {counted}: the CSV is cut short (or not this summary's); continue it with \
         `sudoku-bench run --resume -o {csv} --summary {json}` (same corpora and options)"
    )]
    RowCount {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
        /// The corpus.
        corpus: String,
        /// The strategy.
        strategy: String,
        /// Rows in the CSV.
        found: u64,
        /// Records the summary counts.
        counted: u64,
    },
    /// A part's CSV ends inside a row.
    #[error(
        "{csv}:{line}: the file is cut short at row {row} (written only in part); continue \
         it with `sudoku-bench run --resume -o {csv} --summary {json}` (same corpora and \
         options), which redoes that row"
    )]
    Cut {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
        /// The cut row, counted from 1 after the header (0: the header itself).
        row: u64,
        /// The file line it starts on.
        line: u64,
    },
    /// A part's CSV is empty, without even its header: its task ended before writing.
    #[error(
        "{csv}: the file is empty, without even a header; if its task was killed, run it \
         with `sudoku-bench run --resume -o {csv} --summary {json}` (same corpora and options)"
    )]
    Empty {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
    },
    /// A summary JSON could not be read.
    #[error(transparent)]
    Summary(#[from] RunFileError),
    /// A summary written before summaries carried their accumulators.
    #[error(
        "{json}: carries no mergeable state (written by an older version); run that part again"
    )]
    NoState {
        /// The summary.
        json: PathBuf,
    },
    /// A summary's accumulators cannot be read; what is wrong is the source.
    #[error("{json}: its `state` cannot be read back")]
    BadState {
        /// The summary.
        json: PathBuf,
        /// What is wrong.
        source: StateError,
    },
    /// Two parts ran with different settings.
    #[error("{first} and {other} were run with different {what} ({a} and {b}): parts must come from one command")]
    Settings {
        /// The first part's summary.
        first: PathBuf,
        /// The part that differs.
        other: PathBuf,
        /// The setting.
        what: &'static str,
        /// Its value in `first`.
        a: String,
        /// Its value in `other`.
        b: String,
    },
    /// A part was interrupted.
    #[error("{json}: this part was interrupted; finish it with `sudoku-bench run --resume -o {csv} --summary {json}` (same options) first")]
    Interrupted {
        /// Its CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
    },
    /// A part's run failed (exit 2): a corpus could not be read to its end.
    #[error("{json}: the run of this part failed (exit 2), so {csv} holds only part of its lines: {errors}; run that part again")]
    Failed {
        /// Its CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
        /// What its summary says failed.
        errors: String,
    },
    /// A whole run among several parts.
    #[error("{json}: a whole run (no --shard), not a part: it cannot be merged with others")]
    NotAPart {
        /// Its summary.
        json: PathBuf,
    },
    /// Parts of different splits.
    #[error("{first} is part of {a} shards, {other} of {b}")]
    ShardCount {
        /// The first part's summary.
        first: PathBuf,
        /// The one that differs.
        other: PathBuf,
        /// N of `first`.
        a: u32,
        /// N of `other`.
        b: u32,
    },
    /// Parts missing from the split.
    #[error("missing {}", missing.iter().map(|s| format!("part {s}")).collect::<Vec<_>>().join(", "))]
    MissingShards {
        /// The shards not given.
        missing: Vec<Shard>,
    },
    /// One shard given twice.
    #[error("part {shard} twice: {}", files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    DuplicateShard {
        /// The shard.
        shard: Shard,
        /// The CSVs that claim it.
        files: Vec<PathBuf>,
    },
    /// A part's CSV holds as many rows as its summary counts, but other figures.
    #[error(
        "{csv}: {group}: its rows give {found} for {what}, but its summary {json} counts \
         {counted}: the CSV is not the one its summary's run wrote (another run's, or \
         edited); run that part again"
    )]
    Disagree {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
        /// The (corpus, strategy), as `corpus / strategy`.
        group: String,
        /// The figure that differs (a status's rows, summed nodes, ...).
        what: &'static str,
        /// Its value from the rows.
        found: u128,
        /// Its value in the summary.
        counted: u128,
    },
    /// A part's rows do not name the entry lines its run read of a corpus.
    #[error(
        "{csv}: {corpus} / {strategy}: its {rows} rows are not one for each of the {entries} \
         puzzle lines its run read of {corpus} (as its summary {json} says): a line missing, \
         twice or in another's place; run that part again"
    )]
    Lines {
        /// The part's CSV.
        csv: PathBuf,
        /// Its summary.
        json: PathBuf,
        /// The corpus.
        corpus: String,
        /// The strategy.
        strategy: String,
        /// Its rows in the CSV.
        rows: u64,
        /// The entry lines the run read.
        entries: u64,
    },
    /// Two parts read different files under one corpus name.
    #[error(
        "{first} and {other} were run over different files named {corpus} ({why}): parts \
         must read one corpus; run them again over one file"
    )]
    CorpusDiffers {
        /// The corpus, as the parts name it.
        corpus: String,
        /// The first part's summary that says what it read.
        first: PathBuf,
        /// The part that read another file.
        other: PathBuf,
        /// How the files differ.
        why: String,
    },
    /// A part whose lines of a corpus are not those of the file of that name here, though
    /// the file's size and ends are the ones the parts read.
    #[error(
        "{json}: its lines of {corpus} are not the lines of the file {corpus} here (their \
         content differs, though the file's size and first and last {ends_kib} KiB are the \
         ones the parts read): the part was run over another file of that name, or the file \
         changed since; run that part again over this one"
    )]
    PartContentDiffers {
        /// The part's summary.
        json: PathBuf,
        /// The corpus.
        corpus: String,
        /// KiB of each end compared.
        ends_kib: u64,
    },
    /// The parts' lines of a corpus do not add up to the whole of it.
    #[error(
        "{corpus}: the parts read {lines} of its lines between them, but it ends at line \
         {last_line}: a line in no part or in two (the corpus changed between the parts?); \
         run them again over one file: {}",
        jsons.iter().map(|j| j.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    CorpusLines {
        /// The corpus.
        corpus: String,
        /// Lines read, added up.
        lines: u64,
        /// The last line any part read.
        last_line: u64,
        /// The parts' summaries.
        jsons: Vec<PathBuf>,
    },
    /// A row at fault: the refusals that resume makes too.
    #[error(transparent)]
    Rows(#[from] RowsError),
    /// A part could not be read. The reason is the source, said once after this.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output could not be written (a full disk, a closed stdout).
    #[error("cannot write {path}")]
    Write {
        /// The file (`-`: stdout).
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Where a part's summary is: its CSV's path with the extension `.json`.
pub fn summary_path(csv: &Path) -> PathBuf {
    csv.with_extension("json")
}

/// Read the summary beside each CSV and check that together they are one run, split:
/// the same settings, corpora and strategies, each shard once, none interrupted, every
/// corpus the same file for all (by its identity, where the summaries say it); then that
/// each CSV holds the rows its summary counts, in order, one per entry line read (which
/// reads every CSV once before the merge reads them again: a part cut short or another
/// run's is refused before anything is written, stdout too).
pub fn load(csvs: &[PathBuf]) -> Result<Vec<PartFiles>, MergeError> {
    if csvs.is_empty() {
        return Err(MergeError::NoParts);
    }
    let mut parts = Vec::with_capacity(csvs.len());
    for csv in csvs {
        // Its summary's path would be made from it and reported missing, hiding the cause.
        if csv.is_dir() {
            return Err(MergeError::Directory { path: csv.clone() });
        }
        let json = summary_path(csv);
        let bytes = match std::fs::read(&json) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(MergeError::MissingSummary {
                    csv: csv.clone(),
                    json,
                })
            }
            Err(e) => return Err(RunFileError::io(&json, e).into()),
        };
        if bytes.trim_ascii().is_empty() {
            return Err(MergeError::EmptySummary {
                csv: csv.clone(),
                json,
            });
        }
        let report = parse_summary(&json, &bytes)?;
        parts.push(PartFiles {
            csv: csv.clone(),
            json,
            report,
        });
    }
    check(&parts)?;
    for part in &parts {
        counts::check_rows(part)?;
    }
    Ok(parts)
}

/// The checks of [`load`], on parts already read.
pub fn check(parts: &[PartFiles]) -> Result<(), MergeError> {
    let Some(first) = parts.first() else {
        return Err(MergeError::NoParts);
    };
    for part in parts {
        if part.report.interrupted {
            return Err(MergeError::Interrupted {
                csv: part.csv.clone(),
                json: part.json.clone(),
            });
        }
        if !part.report.errors.is_empty() {
            return Err(MergeError::Failed {
                csv: part.csv.clone(),
                json: part.json.clone(),
                errors: part.report.errors.join("; "),
            });
        }
        let listed = groups(part)?;
        let a = &first.report;
        let b = &part.report;
        let limits = a.limits().into_iter().zip(b.limits());
        let settings = [
            ("tools", a.tool.clone(), b.tool.clone()),
            ("versions", a.version.clone(), b.version.clone()),
            (
                "measures",
                a.metric.as_str().to_string(),
                b.metric.as_str().to_string(),
            ),
        ]
        .into_iter()
        .chain(limits.map(|((what, x), (_, y))| (what, x, y)))
        .chain([(
            "corpora and strategies",
            describe(&groups(first)?),
            describe(&listed),
        )]);
        for (what, x, y) in settings {
            if x != y {
                return Err(MergeError::Settings {
                    first: first.json.clone(),
                    other: part.json.clone(),
                    what,
                    a: x,
                    b: y,
                });
            }
        }
    }
    check_shards(parts)?;
    check_corpora(parts)
}

/// Every corpus read from one file by every part (its size and ends, as each summary's
/// identity says), and its lines, added up over the parts, every line once: each part
/// that knows its identity is compared, and the sum is checked when all do.
fn check_corpora(parts: &[PartFiles]) -> Result<(), MergeError> {
    for corpus in corpora(parts) {
        let mut known: Vec<(&PartFiles, Identity)> = Vec::new();
        for part in parts {
            let state = part.state()?;
            if let Some(c) = state.corpora.iter().find(|c| c.corpus == corpus) {
                let identity = c.identity().map_err(|source| MergeError::BadState {
                    json: part.json.clone(),
                    source,
                })?;
                known.push((part, identity));
            }
        }
        let Some(&(first, mut sum)) = known.first() else {
            continue;
        };
        for (part, identity) in &known[1..] {
            if !sum.same_file(identity) {
                return Err(MergeError::CorpusDiffers {
                    corpus,
                    first: first.json.clone(),
                    other: part.json.clone(),
                    why: how_files_differ(sum.file, identity.file),
                });
            }
            sum.add(identity);
        }
        if known.len() == parts.len() && !sum.is_whole() {
            return Err(MergeError::CorpusLines {
                corpus,
                lines: sum.lines,
                last_line: sum.last_line,
                jsons: parts.iter().map(|p| p.json.clone()).collect(),
            });
        }
    }
    Ok(())
}

/// How two files read under one name differ, for a refusal.
fn how_files_differ(a: Option<FileIdentity>, b: Option<FileIdentity>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a.bytes != b.bytes => {
            format!("of {} and of {} bytes", a.bytes, b.bytes)
        }
        (Some(a), Some(_)) => format!(
            "both of {} bytes, but their first or last {} KiB differ",
            a.bytes,
            FileIdentity::ENDS / 1024
        ),
        (Some(_), None) => "a file, then a stream".to_string(),
        (None, Some(_)) => "a stream, then a file".to_string(),
        (None, None) => "both streams".to_string(),
    }
}

/// The (corpus, strategy) pairs a part's summary lists, in its order.
fn groups(part: &PartFiles) -> Result<Vec<(String, String)>, MergeError> {
    Ok(part
        .state()?
        .groups
        .iter()
        .map(|g| (g.corpus.clone(), g.strategy.clone()))
        .collect())
}

fn describe(groups: &[(String, String)]) -> String {
    let list: Vec<String> = groups.iter().map(|(c, s)| format!("{c}:{s}")).collect();
    format!("[{}]", list.join(", "))
}

fn check_shards(parts: &[PartFiles]) -> Result<(), MergeError> {
    if parts.len() == 1 && parts[0].report.shard.is_none() {
        return Ok(());
    }
    let mut count = None;
    let mut claims: BTreeMap<u32, Vec<&PartFiles>> = BTreeMap::new();
    for part in parts {
        let Some(shard) = part.report.shard else {
            return Err(MergeError::NotAPart {
                json: part.json.clone(),
            });
        };
        let (first, n) = *count.get_or_insert((part, shard.count));
        if shard.count != n {
            return Err(MergeError::ShardCount {
                first: first.json.clone(),
                other: part.json.clone(),
                a: n,
                b: shard.count,
            });
        }
        claims.entry(shard.index).or_default().push(part);
    }
    let n = count.map_or(0, |(_, n)| n);
    if let Some((&index, twice)) = claims.iter().find(|(_, c)| c.len() > 1) {
        return Err(MergeError::DuplicateShard {
            shard: Shard { index, count: n },
            files: twice.iter().map(|p| p.csv.clone()).collect(),
        });
    }
    let missing: Vec<Shard> = (1..=n)
        .filter(|k| !claims.contains_key(k))
        .map(|index| Shard { index, count: n })
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::MissingShards { missing });
    }
    Ok(())
}

/// The corpora in the run's order (the order of the summaries' groups).
pub fn corpora(parts: &[PartFiles]) -> Vec<String> {
    let groups = parts
        .iter()
        .filter_map(|p| p.report.state.as_ref())
        .flat_map(|s| &s.groups);
    corpora_of(groups).into_iter().map(String::from).collect()
}

/// The corpora `groups` name, in the order they first appear.
fn corpora_of<'a>(groups: impl IntoIterator<Item = &'a GroupState>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for g in groups {
        if !out.contains(&g.corpus.as_str()) {
            out.push(&g.corpus);
        }
    }
    out
}

/// The summary a single run over the whole input would have written, from checked parts;
/// dated now. Times from several machines are flagged by `machines`.
pub fn merged_report(parts: &[PartFiles]) -> Result<SummaryReport, MergeError> {
    let first = parts.first().ok_or(MergeError::NoParts)?;
    let mut summary = Summary::default();
    let mut machines: Vec<Machine> = Vec::new();
    let mut resumed: Option<u64> = None;
    for part in parts {
        let partial =
            Summary::from_state(part.state()?).map_err(|source| MergeError::BadState {
                json: part.json.clone(),
                source,
            })?;
        summary.merge(&partial);
        if !machines.contains(&part.report.machine) {
            machines.push(part.report.machine.clone());
        }
        if let Some(n) = part.report.resumed_rows {
            resumed = Some(resumed.unwrap_or(0) + n);
        }
    }
    let f = &first.report;
    Ok(SummaryReport {
        tool: f.tool.clone(),
        version: f.version.clone(),
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        machine: f.machine.clone(),
        threads: parts.iter().map(|p| p.report.threads).max().unwrap_or(1),
        // Parts placed alike (one node's jobs on one CPU set) keep it; else it says nothing.
        placement: parts
            .iter()
            .all(|p| p.report.placement == f.placement)
            .then(|| f.placement.clone())
            .flatten(),
        max_solutions: f.max_solutions,
        max_nodes: f.max_nodes,
        timeout_ns: f.timeout_ns,
        repeat: f.repeat,
        replicates: parts
            .iter()
            .all(|p| p.report.replicates == f.replicates)
            .then_some(f.replicates)
            .flatten(),
        wall_ns: parts
            .iter()
            .fold(0u64, |sum, p| sum.saturating_add(p.report.wall_ns)),
        permute: f.permute,
        interrupted: false,
        not_reached: Some(0),
        errors: Vec::new(),
        pipes: f.pipes.clone(),
        resources: merged_resources(parts.iter().map(|p| &p.report)),
        shard: None,
        resumed_rows: resumed,
        metric: f.metric,
        machines: if machines.len() > 1 {
            machines
        } else {
            Vec::new()
        },
        rows: summary.rows(),
        state: Some(summary.state()),
    })
}

/// Each solver's resources over every part: the largest peak, the summed CPU time and
/// processes; in the order solvers first appear.
fn merged_resources<'a>(
    reports: impl Iterator<Item = &'a SummaryReport>,
) -> Vec<sudoku_bench_core::summary::SolverResources> {
    let mut merged: Vec<sudoku_bench_core::summary::SolverResources> = Vec::new();
    for r in reports.flat_map(|report| &report.resources) {
        match merged.iter_mut().find(|m| m.strategy == r.strategy) {
            Some(m) => {
                m.max_rss_kib = m.max_rss_kib.max(r.max_rss_kib);
                m.cpu_ns = m.cpu_ns.saturating_add(r.cpu_ns);
                m.processes = m.processes.saturating_add(r.processes);
            }
            None => merged.push(r.clone()),
        }
    }
    merged
}

#[cfg(test)]
mod tests;
