//! `sudoku-bench filter`: copies the lines of corpora whose status is wanted (by default the
//! uniquely solvable puzzles) byte for byte, in input order, and sends every other line to
//! an optional rejects file with where it came from and why it was not kept.
//!
//! With `--solver`, that solver classifies, and the built-in reference solves every
//! puzzle too: a line whose count the two disagree on is kept nowhere (a wrong count must
//! not filter a puzzle wrongly), is said on stderr and in the rejects as `mismatch`, and
//! makes the exit 1.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::ValueEnum;
use sudoku_bench::canonical::minimal_form;
use sudoku_bench::classify::{Classified, Classifier};
use sudoku_bench::corpus::{Chunk, Corpus, Kind, Lines, LoadError, ReadAs, Record, Shard};
use sudoku_bench::dedupe::{FirstSeen, Seen};
use sudoku_bench::interrupt::{not_reached, Stop};
use sudoku_bench::results::{abort_reason, Status};
use sudoku_bench::strategy::{Abort, Limits, Outcome};
use sudoku_bench::summary::count_or_unknown;
use sudoku_bench::Grid;

use super::args::{open_corpora, parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs::{self, CheckedOutputs, CorpusWriter, Opened, Output};
use super::progress::Progress;
use super::signals;
use super::solvers::{OneSolver, SolverArgs};
use super::warnings::Capped;

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
    #[arg(long, short = 'o', value_name = "PATH")]
    out: PathBuf,

    /// Where every other line goes, as `file:line<TAB>status<TAB>reason<TAB>line`.
    #[arg(long, value_name = "PATH")]
    rejects: Option<PathBuf>,

    /// Drop a puzzle whose grid was already kept (memory grows with distinct puzzles).
    #[arg(long)]
    dedupe: bool,

    /// With --dedupe: puzzles equal under the Sudoku symmetries (relabelling digits, row and
    /// column permutations within bands and stacks, band and stack permutations,
    /// transposition) are repeats too.
    #[arg(long, requires = "dedupe")]
    canonical: bool,

    /// Built-in strategy used to count solutions; default: the fastest registered. Not
    /// with --solver, which counts them instead.
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    #[command(flatten)]
    solvers: SolverArgs,

    #[command(flatten)]
    input: super::args::InputFormat,

    #[command(flatten)]
    shard: super::shard::ShardArg,

    /// Node budget per search; a search that runs out is `aborted` (rejected). 0: none.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_nodes: u64,

    #[command(flatten)]
    timeout: super::args::SearchTimeout,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// Lines read and solved per parallel batch.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
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

/// `filter`'s arguments, checked once: the strategy and limits it classifies with, what it
/// keeps, and its outputs (checked against the corpora and each other, not yet made).
struct Plan {
    solver: OneSolver,
    limits: Limits,
    keep: Vec<Status>,
    /// The corpora as given, also for naming where a duplicate was first seen.
    corpora: Vec<PathBuf>,
    read_as: ReadAs,
    shard: Option<Shard>,
    /// --out, then --rejects.
    files: CheckedOutputs,
    dedupe: bool,
    canonical: bool,
    threads: usize,
    chunk_size: usize,
    quiet: bool,
}

impl Plan {
    /// Check `args` and the outputs; warn that `--dedupe` of a part leaves repeats across
    /// parts.
    fn new(args: Args) -> anyhow::Result<Plan> {
        let timeout = args.timeout.get();
        let solver = args
            .solvers
            .one(args.strategy.as_deref(), "filter", timeout)?;
        let limits = Limits {
            max_solutions: 2,
            max_nodes: if args.max_nodes == 0 {
                u64::MAX
            } else {
                args.max_nodes
            },
            timeout,
        };
        let named = std::iter::once(Output::named("--out", &args.out)).chain(
            args.rejects
                .as_deref()
                .map(|p| Output::named("--rejects", p)),
        );
        let files = outputs::check(&args.corpora, named.collect())?;
        let shard = args.shard.resolve()?;
        if let (true, Some(shard)) = (args.dedupe, shard) {
            let canonical = if args.canonical { " --canonical" } else { "" };
            super::warnings::warn(&format!(
                "--dedupe with --shard {shard}: duplicates are removed within this part only, \
                 not across parts; once every part is written, remove the rest by filtering \
                 the parts together, in order: `sudoku-bench filter --dedupe{canonical} \
                 part-1.txt part-2.txt ... -o all.txt` (with the same --keep)"
            ));
        }
        Ok(Plan {
            solver,
            limits,
            keep: args.keep.iter().map(|k| k.status()).collect(),
            read_as: args.input.read_as()?,
            corpora: args.corpora,
            shard,
            files,
            dedupe: args.dedupe,
            canonical: args.canonical,
            threads: args.threads,
            chunk_size: args.chunk_size as usize,
            quiet: args.quiet,
        })
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // Before the solver is loaded (it may signal sudoku-bench as it starts) and before any
    // file is made: a signal from here on ends the command its own way.
    let stop = signals::install(signals::stopping(
        "writing the lines classified and the counts",
        !args.solvers.is_empty(),
        args.timeout.get(),
    ))?;
    let plan = Plan::new(args)?;
    let (mut corpora, total_bytes) =
        open_corpora(&plan.corpora, &plan.read_as, plan.shard, plan.quiet)?;
    let mut filter = Filter::new(&plan, total_bytes)?;
    filter.classifier.stop_when(stop.clone());
    // The corpus the filter stopped in, and its entries read but not classified.
    let mut stopped_in = None;
    for (index, corpus) in corpora.iter_mut().enumerate() {
        if let Some(unclassified) = filter.corpus(index, corpus, &stop)? {
            stopped_in = Some((index, unclassified));
            break;
        }
    }
    let Filter {
        mut sorter,
        mut progress,
        shown,
        ..
    } = filter;
    sorter.out.finish()?;
    if let Some(rejects) = sorter.rejects.as_mut() {
        rejects.finish()?;
    }
    progress.finish();
    shown.say_hidden(&match &sorter.rejects {
        Some(rejects) => format!("see the mismatch lines of {}", rejects.out.path.display()),
        None => "give --rejects FILE to have every line not kept, and why".to_string(),
    });
    let interrupted = stop.cause().map(|signal| {
        let left = count_or_unknown(not_reached(&mut corpora, stopped_in));
        (signal, left)
    });
    stderr_line!("{}", sorter.tally(interrupted.as_ref()));
    Ok(match interrupted {
        Some((signal, _)) => Exit::Stopped(signal),
        None if sorter.failures > 0 || sorter.harness > 0 => Exit::Error,
        None => Exit::failure_if(sorter.mismatches > 0 || sorter.failed > 0),
    })
}

/// The filter at work: the classifier, the batch being sorted, and where its lines go.
struct Filter<'p> {
    classifier: Classifier,
    progress: Progress,
    /// The wrong answers said on stderr, capped as `run` caps its warnings.
    shown: Capped,
    chunk: Chunk,
    verdicts: Vec<Classified>,
    /// With --canonical, each record's canonical form (searched in parallel too: it costs
    /// more than solving).
    forms: Vec<Option<Grid>>,
    sorter: Sorter<'p>,
}

impl<'p> Filter<'p> {
    /// Create the outputs and the classifier of `plan`, with a progress bar over
    /// `total_bytes`.
    fn new(plan: &'p Plan, total_bytes: Option<u64>) -> anyhow::Result<Filter<'p>> {
        let mut opened = plan.files.create()?.into_iter().map(LineWriter::new);
        let out = opened.next().context("no output was opened")??;
        let rejects = opened.next().transpose()?;
        Ok(Filter {
            classifier: Classifier::checked(
                &plan.solver.info,
                plan.solver.reference,
                plan.limits,
                plan.solver.threads(plan.threads),
            )?,
            progress: Progress::new(total_bytes, plan.quiet),
            shown: Capped::default(),
            chunk: Chunk::new(Lines::All),
            verdicts: Vec::new(),
            forms: Vec::new(),
            sorter: Sorter {
                plan,
                out,
                rejects,
                seen: Seen::default(),
                header_written: false,
                counts: BTreeMap::new(),
                kept: 0,
                rejected: 0,
                duplicates: 0,
                out_layout: None,
                failures: 0,
                mismatches: 0,
                failed: 0,
                harness: 0,
            },
        })
    }

    /// Sort every line of `corpus` (the `index`-th) into the outputs; `Some` with the
    /// entries read but not classified when `stop` came first.
    fn corpus(
        &mut self,
        index: usize,
        corpus: &mut Corpus,
        stop: &Stop,
    ) -> anyhow::Result<Option<u64>> {
        // Comments seen before the corpus shows its layout wait, so that none of the lines
        // of a refused corpus is written.
        let mut held = Held::default();
        corpus.stop_on(stop.cell());
        loop {
            if stop.requested() {
                return Ok(Some(0));
            }
            // A read error ends this corpus like its end does.
            let n = match corpus.read_chunk(&mut self.chunk, self.sorter.plan.chunk_size) {
                Ok(n) => n,
                Err(LoadError::Stopped { .. }) => return Ok(Some(0)),
                Err(e) => {
                    self.progress.read_failed(e);
                    self.sorter.failures += 1;
                    0
                }
            };
            if n == 0 {
                break;
            }
            let records = self.chunk.records();
            if !self
                .sorter
                .settle(corpus.name(), records, &mut held, &self.progress)?
            {
                break;
            }
            // On a stop, only the lines before the first one not classified are written.
            let done = self.classifier.classify(records, &mut self.verdicts);
            if self.sorter.plan.canonical {
                self.classifier
                    .map(&records[..done], canonical_form, &mut self.forms);
            }
            let mut entries = 0;
            for (i, (record, verdict)) in records[..done].iter().zip(&self.verdicts).enumerate() {
                let form = self.forms.get(i).and_then(Option::as_ref);
                let line = Line {
                    index,
                    corpus: corpus.name(),
                    record,
                };
                if let Some(why) = &verdict.wrong {
                    let name = &self.sorter.plan.solver.info.name;
                    self.shown.say(
                        &self.progress,
                        &format!(
                            "error: {}:{}: {name}: {why}; the line is not kept",
                            corpus.name(),
                            record.line
                        ),
                    );
                } else if let Some(
                    outcome @ Outcome {
                        aborted: Some(why @ (Abort::Failed(_) | Abort::Harness(_))),
                        ..
                    },
                ) = &verdict.outcome
                {
                    // A budget that ran out is the `aborted` the options asked for; a
                    // failure is not, and is said like a wrong answer.
                    self.sorter.failed += 1;
                    self.sorter.harness += u64::from(matches!(why, Abort::Harness(_)));
                    self.shown.say(
                        &self.progress,
                        &format!(
                            "error: {}:{}: search stopped short: {}; the line is not kept",
                            corpus.name(),
                            record.line,
                            abort_reason(why, outcome, &self.sorter.plan.limits)
                        ),
                    );
                }
                entries += self.sorter.line(line, verdict, form, &mut held)? as u64;
            }
            self.progress.advance(entries, corpus.bytes_read());
            if done < n {
                let unclassified = records[done..n].iter().filter(|r| r.is_entry()).count();
                return Ok(Some(unclassified as u64));
            }
        }
        // A corpus of comments alone has no layout to refuse.
        held.release(&mut self.sorter.out)?;
        self.progress
            .finish_corpus(corpus.size().unwrap_or(corpus.bytes_read()));
        Ok(None)
    }
}

/// The canonical form of a record's grid, when it has one.
fn canonical_form(record: &Record) -> Option<Grid> {
    match &record.kind {
        Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(minimal_form(grid)),
        _ => None,
    }
}

/// Comments of a corpus read before it showed its layout, and whether it has.
#[derive(Default)]
struct Held {
    settled: bool,
    lines: Vec<Vec<u8>>,
}

impl Held {
    /// Write the comments held, in order.
    fn release(&mut self, out: &mut LineWriter) -> anyhow::Result<()> {
        for raw in self.lines.drain(..) {
            out.write(b"", &raw)?;
        }
        Ok(())
    }
}

/// A line of a corpus: the `index`-th corpus, named `corpus`.
struct Line<'a> {
    index: usize,
    corpus: &'a str,
    record: &'a Record,
}

/// Where each line goes (kept, rejected, a duplicate), and the counts of it all.
struct Sorter<'p> {
    plan: &'p Plan,
    out: LineWriter,
    rejects: Option<LineWriter>,
    /// With --dedupe, the grids kept so far.
    seen: Seen,
    /// One header for the output, from the first CSV corpus.
    header_written: bool,
    counts: BTreeMap<Status, u64>,
    kept: u64,
    rejected: u64,
    duplicates: u64,
    /// The layout of --out: the first corpus's; a corpus laid out otherwise is refused.
    out_layout: Option<Layout>,
    /// Corpora refused or not read to the end.
    failures: u64,
    /// Lines whose solver's answer was found wrong (each said on stderr), kept nowhere.
    mismatches: u64,
    /// Searches the solver failed (a crash, an answer that cannot be read) or sudoku-bench
    /// could not run (`harness`, of them): each said on stderr, the line rejected.
    failed: u64,
    harness: u64,
}

impl Sorter<'_> {
    /// Until the corpus `name` shows its layout, look for it in `records`: `false` when it
    /// is not --out's (said above `progress`: the corpus is refused, and what it held
    /// dropped); the comments held are written once it shows.
    fn settle(
        &mut self,
        name: &str,
        records: &[Record],
        held: &mut Held,
        progress: &Progress,
    ) -> anyhow::Result<bool> {
        if held.settled {
            return Ok(true);
        }
        let shown = records
            .iter()
            .find_map(|r| Layout::shown_by(r).map(|layout| (r.line, layout)));
        let Some((line, layout)) = shown else {
            return Ok(true);
        };
        let first = self.out_layout.get_or_insert_with(|| layout.clone());
        if *first != layout {
            progress.println(&format!(
                "error: {name}:{line}: {layout}, unlike the {first} already in {}: none of \
                 its lines written (filter each layout to its own file)",
                self.out.out.path.display()
            ));
            self.failures += 1;
            held.lines.clear();
            return Ok(false);
        }
        held.settled = true;
        held.release(&mut self.out).map(|()| true)
    }

    /// Write `line` (classified as `verdict`; `form`, its canonical form with --canonical)
    /// where it goes; whether it was an entry (a puzzle line, valid or not).
    fn line(
        &mut self,
        line: Line,
        verdict: &Classified,
        form: Option<&Grid>,
        held: &mut Held,
    ) -> anyhow::Result<bool> {
        let raw = line.record.raw.whole();
        let status = match (&line.record.kind, verdict.status, raw) {
            (Kind::Blank, _, _) => return Ok(false),
            (Kind::Comment, _, Some(raw)) if !held.settled => {
                held.lines.push(raw.to_vec());
                return Ok(false);
            }
            (Kind::Comment, _, Some(raw)) => {
                self.out.write(b"", raw)?;
                return Ok(false);
            }
            (Kind::Header, _, Some(raw)) => {
                if !self.header_written {
                    self.out.write(b"", raw)?;
                    self.header_written = true;
                }
                return Ok(false);
            }
            (_, Some(status), _) => status,
            (_, None, _) => Status::Malformed,
        };
        // A wrong answer's status is not to be trusted: it is counted apart.
        if verdict.wrong.is_none() {
            *self.counts.entry(status).or_default() += 1;
        }
        self.entry(line, status, verdict, form)?;
        Ok(true)
    }

    /// Write the entry `line` of `status` to --out, or --rejects with why not.
    fn entry(
        &mut self,
        line: Line,
        status: Status,
        verdict: &Classified,
        form: Option<&Grid>,
    ) -> anyhow::Result<()> {
        let at = format!("{}:{}", line.corpus, line.record.line);
        if let Some(why) = &verdict.wrong {
            self.mismatches += 1;
            self.rejected += 1;
            let name = &self.plan.solver.info.name;
            let prefix = format!("{at}\tmismatch\t{name}: {why}\t");
            return match line.record.raw.whole() {
                Some(raw) => self.reject(&prefix, raw),
                None => self.reject(&format!("{prefix}(line not copied)"), b"\n"),
            };
        }
        let reason = reason(line.record, verdict, &self.plan.limits);
        // A line whose bytes were not all read is written nowhere as if whole, whatever
        // its status: the rejects say where it is, without it.
        let Some(raw) = line.record.raw.whole() else {
            self.rejected += 1;
            let prefix = format!("{at}\t{status}\t{reason} (line not copied)\t");
            return self.reject(&prefix, b"\n");
        };
        if !self.plan.keep.contains(&status) {
            self.rejected += 1;
            return self.reject(&format!("{at}\t{status}\t{reason}\t"), raw);
        }
        if let Some(first) = self.repeat(&line, form)? {
            self.duplicates += 1;
            let how = if self.plan.canonical {
                "equivalent to"
            } else {
                "same grid as"
            };
            let named = self.plan.corpora[first.corpus as usize].display();
            let prefix = format!("{at}\tduplicate\t{how} {named}:{}\t", first.line);
            return self.reject(&prefix, raw);
        }
        self.kept += 1;
        self.out.write(b"", raw)
    }

    /// With --dedupe, where `line`'s grid (or its canonical `form`) was first kept, if it
    /// was; else it is kept from now on.
    fn repeat(&mut self, line: &Line, form: Option<&Grid>) -> anyhow::Result<Option<FirstSeen>> {
        let (Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. }) = &line.record.kind else {
            return Ok(None);
        };
        if !self.plan.dedupe {
            return Ok(None);
        }
        let here = FirstSeen {
            corpus: line.index as u32,
            line: line.record.line,
        };
        let key = match form {
            Some(form) if self.plan.canonical => form,
            _ => grid,
        };
        Ok(self.seen.insert(key, here)?)
    }

    /// Write `raw` to --rejects, after `prefix`, when there is one.
    fn reject(&mut self, prefix: &str, raw: &[u8]) -> anyhow::Result<()> {
        match self.rejects.as_mut() {
            Some(rejects) => rejects.write(prefix.as_bytes(), raw),
            None => Ok(()),
        }
    }

    /// The line said at the end: counts per status, what was kept and rejected, and why
    /// the filter stopped short (`interrupted`: the signal, and the puzzles not reached).
    fn tally(&self, interrupted: Option<&(usize, String)>) -> String {
        let per_status: Vec<String> = self
            .counts
            .iter()
            .map(|(status, n)| format!("{status} {n}"))
            .collect();
        let mut line = format!(
            "filter ({}){}: {} puzzles: {}; kept {}, rejected {}",
            self.plan.solver.described(),
            match interrupted {
                Some((signal, _)) => format!(" interrupted by {}", signals::name(*signal)),
                None => String::new(),
            },
            self.counts.values().sum::<u64>() + self.mismatches,
            if per_status.is_empty() {
                "none".to_string()
            } else {
                per_status.join(", ")
            },
            self.kept,
            self.rejected
        );
        if self.plan.dedupe {
            line.push_str(&format!(
                ", duplicates {} ({} distinct grids kept)",
                self.duplicates,
                self.seen.len()
            ));
        }
        if self.mismatches > 0 {
            line.push_str(&format!(
                "; {} wrong answers from {} (errors above), those lines rejected",
                self.mismatches, self.plan.solver.info.name
            ));
        }
        match self.failed {
            0 => {}
            1 => line.push_str("; 1 search failed (error above), its line rejected"),
            n => line.push_str(&format!(
                "; {n} searches failed (errors above), those lines rejected"
            )),
        }
        if let Some((_, left)) = interrupted {
            line.push_str(&format!("; {left} puzzles not reached"));
        }
        if self.failures > 0 {
            line.push_str(&format!(
                "; {} corpora refused or not read to the end (errors above)",
                self.failures
            ));
        }
        line
    }
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
fn reason(record: &Record, verdict: &Classified, limits: &Limits) -> String {
    match &record.kind {
        Kind::Invalid { reason, .. } | Kind::Malformed { reason, .. } => reason.clone(),
        _ => match &verdict.outcome {
            Some(
                outcome @ Outcome {
                    aborted: Some(why), ..
                },
            ) => abort_reason(why, outcome, limits),
            Some(outcome) => match outcome.solutions {
                0 => "no solution".to_string(),
                1 => "exactly one solution".to_string(),
                _ => "at least two solutions".to_string(),
            },
            None => "not searched".to_string(),
        },
    }
}
