//! `sudoku-bench filter`: copies the lines of corpora whose status is wanted (by default the
//! uniquely solvable puzzles) byte for byte, in input order, and sends every other line to
//! an optional rejects file with where it came from and why it was not kept.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::ValueEnum;
use sudoku_bench::canonical::minimal_form;
use sudoku_bench::classify::{Classifier, Verdict};
use sudoku_bench::corpus::{Kind, Record};
use sudoku_bench::dedupe::{FirstSeen, Seen};
use sudoku_bench::report::Status;
use sudoku_bench::strategy::Limits;

use super::args::{choose_strategy, format_of, open_corpora, open_out, FormatArg};
use super::progress::Progress;

/// The statuses a line can be kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Keep {
    Unique,
    Multiple,
    Unsolvable,
    Invalid,
    Malformed,
}

impl Keep {
    fn status(self) -> Status {
        match self {
            Keep::Unique => Status::Unique,
            Keep::Multiple => Status::Multiple,
            Keep::Unsolvable => Status::Unsolvable,
            Keep::Invalid => Status::Invalid,
            Keep::Malformed => Status::Malformed,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files to read (`-` for stdin).
    #[arg(value_name = "CORPUS", required = true)]
    corpora: Vec<PathBuf>,

    /// Statuses to keep, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "unique")]
    keep: Vec<Keep>,

    /// Where kept lines go (`-` for stdout).
    #[arg(long, short = 'o')]
    out: PathBuf,

    /// Where every other line goes, as `file:line<TAB>status<TAB>reason<TAB>line`.
    #[arg(long)]
    rejects: Option<PathBuf>,

    /// Drop a puzzle whose grid was already kept (memory grows with distinct puzzles).
    #[arg(long)]
    dedupe: bool,

    /// With --dedupe: puzzles equal under the Sudoku symmetries (relabelling digits, row and
    /// column permutations within bands and stacks, band and stack permutations,
    /// transposition) are repeats too.
    #[arg(long, requires = "dedupe")]
    canonical: bool,

    /// Strategy used to count solutions; default: the fastest registered.
    #[arg(long, short = 's')]
    strategy: Option<String>,

    /// Force the corpus format instead of detecting it from the first line.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,

    /// Node budget per search; a search that runs out is `aborted` (rejected). 0: none.
    #[arg(long, default_value_t = 0)]
    max_nodes: u64,

    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,

    /// Lines read and solved per parallel batch.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_size: u64,

    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Writes lines as they were read, making sure a line that lacked its line ending (the last
/// of a file) is not glued to the next one.
struct LineWriter {
    out: Box<dyn Write>,
    path: PathBuf,
    open_line: bool,
}

impl LineWriter {
    fn new(path: PathBuf) -> anyhow::Result<LineWriter> {
        Ok(LineWriter {
            out: open_out(&path)?,
            path,
            open_line: false,
        })
    }

    fn write(&mut self, prefix: &[u8], raw: &[u8]) -> anyhow::Result<()> {
        let result = (|| {
            if self.open_line {
                self.out.write_all(b"\n")?;
            }
            self.out.write_all(prefix)?;
            self.out.write_all(raw)?;
            self.open_line = !raw.ends_with(b"\n");
            Ok::<_, std::io::Error>(())
        })();
        result.with_context(|| format!("cannot write {}", self.path.display()))
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        // Only separate lines: the last line stays as it was read.
        self.out
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let info = choose_strategy(args.strategy.as_deref())?;
    let limits = Limits {
        max_solutions: 2,
        max_nodes: if args.max_nodes == 0 {
            u64::MAX
        } else {
            args.max_nodes
        },
        timeout: None,
    };
    let keep: Vec<Status> = args.keep.iter().map(|k| k.status()).collect();
    let format = format_of(args.format);
    // Creating an output truncates it: refuse one that is also an input or the other output.
    let outputs = std::iter::once(&args.out).chain(args.rejects.as_ref());
    for (i, output) in outputs.enumerate() {
        if args.corpora.iter().any(|c| same_file(c, output)) {
            bail!("{} is both a corpus and an output", output.display());
        }
        if i == 1 && same_file(&args.out, output) {
            bail!(
                "--out and --rejects are the same file: {}",
                output.display()
            );
        }
    }

    let (mut corpora, total_bytes) = open_corpora(&args.corpora, format)?;

    let mut out = LineWriter::new(args.out.clone())?;
    let mut rejects = args.rejects.clone().map(LineWriter::new).transpose()?;

    let classifier = Classifier::new(info, limits, args.threads)?;
    let mut progress = Progress::new(total_bytes, args.quiet);
    let mut seen = Seen::default();
    let mut header_written = false;
    let mut counts: BTreeMap<Status, u64> = BTreeMap::new();
    let (mut kept, mut rejected, mut duplicates) = (0u64, 0u64, 0u64);
    let mut chunk: Vec<Record> = Vec::new();
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut forms: Vec<Option<sudoku_bench::Grid>> = Vec::new();
    let chunk_size = args.chunk_size as usize;

    for (index, corpus) in corpora.iter_mut().enumerate() {
        loop {
            let n = classifier
                .install(|| corpus.next_lines(&mut chunk, chunk_size))
                .with_context(|| format!("cannot read {}", corpus.name()))?;
            if n == 0 {
                break;
            }
            classifier.classify(&chunk[..n], &mut verdicts);
            if args.canonical {
                // The canonical search costs more than solving: do it in parallel too.
                let form = |r: &Record| match &r.kind {
                    Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => {
                        Some(minimal_form(grid))
                    }
                    _ => None,
                };
                classifier.map(&chunk[..n], form, &mut forms);
            }
            let mut entries = 0;
            for (i, (record, verdict)) in chunk[..n].iter().zip(&verdicts).enumerate() {
                let status = match (&record.kind, verdict.status) {
                    (Kind::Blank, _) => continue,
                    (Kind::Comment, _) => {
                        out.write(b"", &record.raw)?;
                        continue;
                    }
                    (Kind::Header, _) => {
                        // One header for the output, from the first CSV corpus.
                        if !header_written {
                            out.write(b"", &record.raw)?;
                            header_written = true;
                        }
                        continue;
                    }
                    (_, Some(status)) => status,
                    (_, None) => Status::Malformed,
                };
                entries += 1;
                *counts.entry(status).or_default() += 1;
                let reason = reason(record, verdict);
                if !keep.contains(&status) {
                    rejected += 1;
                    if let Some(rejects) = rejects.as_mut() {
                        let prefix =
                            format!("{}:{}\t{status}\t{reason}\t", corpus.name(), record.line);
                        rejects.write(prefix.as_bytes(), &record.raw)?;
                    }
                    continue;
                }
                if args.dedupe {
                    if let Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } = &record.kind {
                        let here = FirstSeen {
                            corpus: index as u32,
                            line: record.line,
                        };
                        let key = match forms.get(i) {
                            Some(Some(form)) if args.canonical => form,
                            _ => grid,
                        };
                        if let Some(first) = seen.insert(key, here)? {
                            duplicates += 1;
                            if let Some(rejects) = rejects.as_mut() {
                                let prefix = format!(
                                    "{}:{}\tduplicate\t{} {}:{}\t",
                                    corpus.name(),
                                    record.line,
                                    if args.canonical {
                                        "equivalent to"
                                    } else {
                                        "same grid as"
                                    },
                                    args.corpora[first.corpus as usize].display(),
                                    first.line
                                );
                                rejects.write(prefix.as_bytes(), &record.raw)?;
                            }
                            continue;
                        }
                    }
                }
                kept += 1;
                out.write(b"", &record.raw)?;
            }
            progress.advance(entries, corpus.bytes_read());
        }
        progress.finish_corpus(corpus.size().unwrap_or(corpus.bytes_read()));
    }
    out.finish()?;
    if let Some(rejects) = rejects.as_mut() {
        rejects.finish()?;
    }
    progress.finish();

    let per_status: Vec<String> = counts
        .iter()
        .map(|(status, n)| format!("{status} {n}"))
        .collect();
    let mut line = format!(
        "filter ({}): {} puzzles: {}; kept {kept}, rejected {rejected}",
        info.name,
        counts.values().sum::<u64>(),
        if per_status.is_empty() {
            "none".to_string()
        } else {
            per_status.join(", ")
        },
    );
    if args.dedupe {
        line.push_str(&format!(
            ", duplicates {duplicates} ({} distinct grids kept)",
            seen.len()
        ));
    }
    eprintln!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// True when `a` and `b` name the same existing file (`-` is never a file).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    if a.as_os_str() == "-" || b.as_os_str() == "-" {
        return false;
    }
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Why a line has its status, for the rejects file.
fn reason(record: &Record, verdict: &Verdict) -> String {
    match &record.kind {
        Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } => reason.clone(),
        _ => match verdict.outcome {
            Some(outcome) if outcome.aborted.is_some() => "node budget exhausted".to_string(),
            Some(outcome) => match outcome.solutions {
                0 => "no solution".to_string(),
                1 => "exactly one solution".to_string(),
                _ => "at least two solutions".to_string(),
            },
            None => "not searched".to_string(),
        },
    }
}
