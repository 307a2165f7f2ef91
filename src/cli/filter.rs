//! `sudoku-bench filter`: copies the lines of corpora whose status is wanted (by default the
//! uniquely solvable puzzles) byte for byte, in input order, and sends every other line to
//! an optional rejects file with where it came from and why it was not kept.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::ValueEnum;
use sudoku_bench::canonical::minimal_form;
use sudoku_bench::classify::{Classifier, Verdict};
use sudoku_bench::corpus::{Chunk, Kind, Lines, Record};
use sudoku_bench::dedupe::{FirstSeen, Seen};
use sudoku_bench::interrupt::not_reached;
use sudoku_bench::results::Status;
use sudoku_bench::strategy::Limits;
use sudoku_bench::summary::count_or_unknown;

use super::args::{choose_strategy, open_corpora, parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs::{self, CorpusWriter, Opened, Output};
use super::progress::Progress;
use super::signals;

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
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    #[command(flatten)]
    input: super::args::InputFormat,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    /// Node budget per search; a search that runs out is `aborted` (rejected). 0: none.
    #[arg(long, default_value_t = 0)]
    max_nodes: u64,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
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
    out: CorpusWriter,
    open_line: bool,
}

impl LineWriter {
    fn new(file: Opened) -> anyhow::Result<LineWriter> {
        Ok(LineWriter {
            out: file.corpus()?,
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
            // A lone CR ends a line too: only a last line with no ending is left open.
            self.open_line = !(raw.ends_with(b"\n") || raw.ends_with(b"\r"));
            Ok::<_, std::io::Error>(())
        })();
        result.with_context(|| format!("cannot write {}", self.out.path.display()))
    }

    /// Only separates lines: the last line stays as it was read.
    fn finish(&mut self) -> anyhow::Result<()> {
        self.out.finish()
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
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
    let format = args.input.format();
    let named = std::iter::once(Output::named("--out", &args.out)).chain(
        args.rejects
            .as_deref()
            .map(|p| Output::named("--rejects", p)),
    );
    // Before any file is made: a signal from here on ends the command its own way.
    let stop = signals::install()?;
    let files = outputs::check(&args.corpora, named.collect())?;
    let shard = args.shard.resolve()?;
    if let (true, Some(shard)) = (args.dedupe, shard) {
        let canonical = if args.canonical { " --canonical" } else { "" };
        super::warnings::warn(&format!(
            "--dedupe with --shard {shard}: duplicates are removed within this part only, \
             not across parts; once every part is written, remove the rest by filtering the \
             parts together, in order: `sudoku-bench filter --dedupe{canonical} part-1.txt \
             part-2.txt ... -o all.txt` (with the same --keep)"
        ));
    }
    let (mut corpora, total_bytes) = open_corpora(&args.corpora, format, shard, args.quiet)?;
    let mut opened = files.create()?.into_iter().map(LineWriter::new);
    let mut out = opened.next().context("no output was opened")??;
    let mut rejects = opened.next().transpose()?;

    let classifier = Classifier::new(info, limits, args.threads)?;
    let mut progress = Progress::new(total_bytes, args.quiet);
    let mut seen = Seen::default();
    let mut header_written = false;
    let mut counts: BTreeMap<Status, u64> = BTreeMap::new();
    let (mut kept, mut rejected, mut duplicates) = (0u64, 0u64, 0u64);
    let mut chunk = Chunk::new(Lines::All);
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut forms: Vec<Option<sudoku_bench::Grid>> = Vec::new();
    let chunk_size = args.chunk_size as usize;
    // The layout of --out: the first corpus's; a corpus laid out otherwise is refused.
    let mut out_layout: Option<Layout> = None;
    let mut failures = 0u64;

    let mut classifier = classifier;
    classifier.stop_when(stop.clone());
    // The corpus the filter stopped in, and its entries read but not classified.
    let mut stopped_in = None;
    'corpora: for (index, corpus) in corpora.iter_mut().enumerate() {
        // Comments seen before the corpus shows its layout wait, so that none of the lines
        // of a refused corpus is written.
        let mut settled = false;
        let mut held: Vec<Vec<u8>> = Vec::new();
        loop {
            if stop.requested() {
                stopped_in = Some((index, 0));
                break 'corpora;
            }
            // A read error ends this corpus like its end does.
            let n = corpus
                .read_chunk(&mut chunk, chunk_size)
                .unwrap_or_else(|e| {
                    progress.read_failed(e);
                    failures += 1;
                    0
                });
            if n == 0 {
                break;
            }
            let records = chunk.records();
            if !settled {
                let shown = records
                    .iter()
                    .find_map(|r| Layout::shown_by(r).map(|layout| (r.line, layout)));
                if let Some((line, layout)) = shown {
                    let first = out_layout.get_or_insert_with(|| layout.clone());
                    if *first != layout {
                        progress.println(&format!(
                            "error: {}:{line}: {layout}, unlike the {first} already in {}: \
                             none of its lines written (filter each layout to its own file)",
                            corpus.name(),
                            out.out.path.display()
                        ));
                        failures += 1;
                        held.clear();
                        break;
                    }
                    settled = true;
                    for raw in held.drain(..) {
                        out.write(b"", &raw)?;
                    }
                }
            }
            // On a stop, only the lines before the first one not classified are written.
            let done = classifier.classify(records, &mut verdicts);
            if args.canonical {
                // The canonical search costs more than solving: do it in parallel too.
                let form = |r: &Record| match &r.kind {
                    Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => {
                        Some(minimal_form(grid))
                    }
                    _ => None,
                };
                classifier.map(&records[..done], form, &mut forms);
            }
            let mut entries = 0;
            for (i, (record, verdict)) in records[..done].iter().zip(&verdicts).enumerate() {
                let raw = record.raw.whole();
                let status = match (&record.kind, verdict.status, raw) {
                    (Kind::Blank, _, _) => continue,
                    (Kind::Comment, _, Some(raw)) if !settled => {
                        held.push(raw.to_vec());
                        continue;
                    }
                    (Kind::Comment, _, Some(raw)) => {
                        out.write(b"", raw)?;
                        continue;
                    }
                    (Kind::Header, _, Some(raw)) => {
                        // One header for the output, from the first CSV corpus.
                        if !header_written {
                            out.write(b"", raw)?;
                            header_written = true;
                        }
                        continue;
                    }
                    (_, Some(status), _) => status,
                    (_, None, _) => Status::Malformed,
                };
                entries += 1;
                *counts.entry(status).or_default() += 1;
                let reason = reason(record, verdict);
                // A line whose bytes were not all read is written nowhere as if whole,
                // whatever its status: the rejects say where it is, without it.
                let Some(raw) = raw else {
                    rejected += 1;
                    if let Some(rejects) = rejects.as_mut() {
                        let prefix = format!(
                            "{}:{}\t{status}\t{reason} (line not copied)\t",
                            corpus.name(),
                            record.line
                        );
                        rejects.write(prefix.as_bytes(), b"\n")?;
                    }
                    continue;
                };
                if !keep.contains(&status) {
                    rejected += 1;
                    if let Some(rejects) = rejects.as_mut() {
                        let prefix =
                            format!("{}:{}\t{status}\t{reason}\t", corpus.name(), record.line);
                        rejects.write(prefix.as_bytes(), raw)?;
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
                                rejects.write(prefix.as_bytes(), raw)?;
                            }
                            continue;
                        }
                    }
                }
                kept += 1;
                out.write(b"", raw)?;
            }
            progress.advance(entries, corpus.bytes_read());
            if done < n {
                let unclassified = records[done..n].iter().filter(|r| r.is_entry()).count();
                stopped_in = Some((index, unclassified as u64));
                break 'corpora;
            }
        }
        // A corpus of comments alone has no layout to refuse.
        for raw in held.drain(..) {
            out.write(b"", &raw)?;
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
    let interrupted = stop.cause().map(|signal| {
        let left = count_or_unknown(not_reached(&mut corpora, stopped_in));
        (signal, left)
    });
    let mut line = format!(
        "filter ({}){}: {} puzzles: {}; kept {kept}, rejected {rejected}",
        info.name,
        match &interrupted {
            Some((signal, _)) => format!(" interrupted by {}", signals::name(*signal)),
            None => String::new(),
        },
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
    if let Some((_, left)) = &interrupted {
        line.push_str(&format!("; {left} puzzles not reached"));
    }
    if failures > 0 {
        line.push_str(&format!(
            "; {failures} corpora refused or not read to the end (errors above)"
        ));
    }
    eprintln!("{line}");
    Ok(match interrupted {
        Some((signal, _)) => Exit::Stopped(signal),
        None if failures > 0 => Exit::Error,
        None => Exit::Success,
    })
}

/// How the lines of a corpus are laid out, which every corpus copied into one output must
/// share: text lines, or CSV rows under one header.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Layout {
    Text,
    Csv(Vec<u8>),
}

impl Layout {
    /// The layout `record` shows, when it is the first header or entry of its corpus.
    fn shown_by(record: &Record) -> Option<Layout> {
        match record.kind {
            // A header is never cut: a cut line is malformed.
            Kind::Header => Some(Layout::Csv(
                record.raw.whole().unwrap_or_default().trim_ascii().to_vec(),
            )),
            _ if record.is_entry() => Some(Layout::Text),
            _ => None,
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Layout::Text => f.write_str("text lines"),
            Layout::Csv(header) => {
                write!(f, "CSV with header {:?}", String::from_utf8_lossy(header))
            }
        }
    }
}

/// Why a line has its status, for the rejects file.
fn reason(record: &Record, verdict: &Verdict) -> String {
    match &record.kind {
        Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } => reason.clone(),
        _ => match &verdict.outcome {
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
