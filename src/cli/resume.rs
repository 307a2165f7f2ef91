//! `run --resume`: go on with a per-puzzle CSV that a run left cut short (an interrupt, a
//! pre-empted job). The CSV is read once, streamed: its whole rows are checked against the
//! run's corpora, strategies and the lines of its `--shard` part, and counted back into the
//! summary; what follows the last whole line (a cut row, a line missing some strategies'
//! rows) is cut off the file, and the run appends from there, so the file ends as one
//! uninterrupted run would have written it.

mod earlier;
mod lines;
mod prefix;

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{bail, Context};
use sudoku_bench::corpus::Shard;
use sudoku_bench::results::csv::{ends_in_line_break, push_header, CsvError, RowReader, COLUMNS};
use sudoku_bench::results::PuzzleResult;
use sudoku_bench::runner::Settings;
use sudoku_bench::summary::Summary;

pub use self::lines::{Origin, Source};
use self::prefix::Tally;

/// Where a resumed run goes on.
#[derive(Debug)]
pub struct Resume {
    /// Rows kept from the earlier run.
    pub kept_rows: u64,
    /// The last line done: (index of its corpus, line). `None`: nothing was done.
    last: Option<(usize, u64)>,
    /// Wall time of the earlier run, when its summary says it (0 when not).
    pub earlier_wall_ns: u64,
}

/// What the run does with one of its corpora.
#[derive(Debug, PartialEq, Eq)]
pub enum Continue {
    /// Every line of it is in the CSV already.
    Done,
    /// Lines up to this one are in the CSV (0: none).
    After(u64),
}

impl Resume {
    /// What is left to do in the corpus at `index`.
    pub fn of(&self, index: usize) -> Continue {
        match self.last {
            Some((at, _)) if index < at => Continue::Done,
            Some((at, line)) if index == at => Continue::After(line),
            _ => Continue::After(0),
        }
    }
}

/// Check that `out` is a CSV this run can go on with, count its whole rows into `summary`,
/// cut it to them and open it for appending (the file is returned, its header written).
/// `corpora` and `strategies` are the run's, in order, and `shard` its part;
/// `summary_path` is its --summary, which may hold the earlier run's settings.
/// Everything is refused before the file is touched.
pub fn prepare(
    out: Option<&Path>,
    summary_path: Option<&Path>,
    corpora: &[Source],
    strategies: &[&str],
    settings: &Settings,
    shard: Option<Shard>,
    summary: &mut Summary,
) -> anyhow::Result<(Resume, File)> {
    let Some(path) = out else {
        bail!("--resume goes on with the per-puzzle CSV named by -o: name it (-o run.csv)");
    };
    if path.as_os_str() == "-" {
        bail!("--resume cannot go on with -o -: stdout cannot be read back; name the CSV");
    }
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "--resume: {} does not exist: nothing to resume; run without --resume",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if !meta.is_file() {
        bail!(
            "--resume: {} is not a regular file: nothing to resume",
            path.display()
        );
    }
    let earlier = earlier::read(summary_path)?;
    if let (Some(report), Some(summary_path)) = (&earlier, summary_path) {
        earlier::check(report, path, summary_path, settings, shard)?;
    }
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let scan = scan(path, &file, corpora, strategies, summary)?;
    prefix::check(path, corpora, &scan.kept)?;
    // A complete earlier run's wall time covers the rows redone here too: only an
    // interrupted one's is the kept rows' alone.
    let earlier = earlier.filter(|e| e.interrupted);
    match (&earlier, scan.last) {
        (Some(report), Some((last, _))) => {
            let begun: Vec<&str> = corpora[..=last].iter().map(|c| c.name).collect();
            earlier::add_wall(report, &begun, strategies, summary);
        }
        // No wall time for the kept rows: wall throughput is of the rows solved from here.
        _ => summary.leave_out_of_wall(),
    }

    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.set_len(scan.keep)
        .with_context(|| format!("cannot cut {} to its whole rows", path.display()))?;
    let mut file = OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if scan.keep == 0 {
        let mut header = Vec::new();
        push_header(&mut header);
        file.write_all(&header)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let upto = match scan.last {
        Some((corpus, line)) => format!(" (corpus {} up to line {line})", corpora[corpus].name),
        None => String::new(),
    };
    eprintln!(
        "resume: {} has {} rows whole{upto}; dropped {} cut rows; going on",
        path.display(),
        scan.rows,
        scan.dropped
    );
    let resume = Resume {
        kept_rows: scan.rows,
        last: scan.last,
        earlier_wall_ns: earlier.map_or(0, |e| e.wall_ns),
    };
    Ok((resume, file))
}

/// What reading the CSV found.
struct Scan {
    /// Bytes of the header and the whole lines' rows.
    keep: u64,
    rows: u64,
    /// Rows after the last whole line: a cut row, and rows of a line missing some.
    dropped: u64,
    last: Option<(usize, u64)>,
    /// The lines with rows, of each corpus.
    kept: Vec<Tally>,
}

/// The rows of the line being read, until every strategy's is there.
struct Pending {
    corpus: usize,
    line: u64,
    results: Vec<PuzzleResult>,
}

fn scan(
    path: &Path,
    file: &File,
    corpora: &[Source],
    strategies: &[&str],
    summary: &mut Summary,
) -> anyhow::Result<Scan> {
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let ends_whole =
        ends_in_line_break(file).with_context(|| format!("cannot read {}", path.display()))?;
    let mut scan = Scan {
        keep: 0,
        rows: 0,
        dropped: 0,
        last: None,
        kept: vec![Tally::default(); corpora.len()],
    };
    let header = format!("{}\n", COLUMNS.join(","));
    let mut start = vec![0; len.min(header.len() as u64) as usize];
    file.read_exact_at(&mut start, 0)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if start != header.as_bytes() {
        if len < header.len() as u64 && header.as_bytes().starts_with(&start) {
            // Empty, or a header cut short: no row was written yet.
            return Ok(scan);
        }
        bail!(
            "{}:1: --resume: the header is not the one run writes ({}): not a per-puzzle \
             CSV of this tool, or of another version",
            path.display(),
            header.trim_end()
        );
    }
    let mut reader = RowReader::new(path, BufReader::new(file))?;
    scan.keep = reader.bytes_read();
    let mut pending: Option<Pending> = None;
    let mut begun = 0;
    loop {
        let read = reader.read();
        let end = reader.bytes_read();
        let last_record = end == len;
        let row = match read {
            Ok(None) => break,
            Ok(Some(_)) if last_record && !ends_whole => {
                scan.dropped += 1;
                break;
            }
            Ok(Some(row)) => row,
            // An unreadable last row is one cut where a line break happened to fall.
            Err(_) if last_record => {
                scan.dropped += 1;
                break;
            }
            Err(CsvError::Bad {
                path,
                line,
                message,
            }) => bail!("{}:{line}: --resume: {message}", path.display()),
            Err(e) => return Err(e.into()),
        };
        let at = || format!("{}:{}", path.display(), row.csv_line);
        let from = pending
            .as_ref()
            .map_or(scan.last.map_or(0, |l| l.0), |p| p.corpus);
        let Some(corpus) = corpora[from..]
            .iter()
            .position(|c| c.name == row.corpus)
            .map(|i| i + from)
        else {
            let why = if corpora.iter().any(|c| c.name == row.corpus) {
                "after rows of a corpus named after it: not in the order of this run's corpora"
            } else {
                "which this run does not read"
            };
            bail!(
                "{}: --resume: a row for corpus {}, {why} (it reads {})",
                at(),
                row.corpus,
                corpora
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        if let Some(why) = corpora[corpus].lines.refuse(row.line) {
            let part = corpora[corpus]
                .lines
                .shard()
                .map_or(String::new(), |s| s.to_string());
            bail!(
                "{}: --resume: a row for line {} of {}, which is not in part {part} that this \
                 run reads ({why}): the CSV was written by another part or a whole run; give \
                 the --shard it was written with",
                at(),
                row.line,
                row.corpus
            );
        }
        let Some(strategy) = strategies.iter().position(|s| *s == row.strategy) else {
            bail!(
                "{}: --resume: a row for strategy {}, which this run does not time (-s {})",
                at(),
                row.strategy,
                strategies.join(",")
            );
        };
        let same_line = pending
            .as_ref()
            .is_some_and(|p| p.corpus == corpus && p.line == row.line);
        if !same_line {
            if let Some(p) = &pending {
                bail!(
                    "{}: --resume: line {} of {} has rows for {} of this run's {} strategies \
                     ({}), and rows follow: not a CSV of a run with these strategies",
                    at(),
                    p.line,
                    corpora[p.corpus].name,
                    p.results.len(),
                    strategies.len(),
                    strategies.join(",")
                );
            }
            if scan.last.is_some_and(|(c, l)| c == corpus && l >= row.line) {
                bail!(
                    "{}: --resume: line {} of {} comes after line {}: rows out of order",
                    at(),
                    row.line,
                    row.corpus,
                    scan.last.map_or(0, |l| l.1)
                );
            }
            pending = Some(Pending {
                corpus,
                line: row.line,
                results: Vec::with_capacity(strategies.len()),
            });
        }
        let p = pending.as_mut().expect("made above");
        if strategy != p.results.len() {
            bail!(
                "{}: --resume: strategy {} where {} was due: not in this run's order ({})",
                at(),
                row.strategy,
                strategies[p.results.len()],
                strategies.join(",")
            );
        }
        p.results.push(
            row.result()
                .expect("resume reads CSVs with a status column"),
        );
        if p.results.len() == strategies.len() {
            let p = pending.take().expect("there is one");
            // Every corpus up to this one gets its groups in the run's order, rows or not.
            while begun <= p.corpus {
                for s in strategies {
                    summary.group(corpora[begun].name, s);
                }
                begun += 1;
            }
            for (s, result) in strategies.iter().zip(&p.results) {
                let group = summary.group(corpora[p.corpus].name, s);
                summary.add(group, result);
            }
            scan.rows += p.results.len() as u64;
            scan.keep = end;
            scan.last = Some((p.corpus, p.line));
            scan.kept[p.corpus].add(p.line);
        }
    }
    scan.dropped += pending.map_or(0, |p| p.results.len() as u64);
    Ok(scan)
}
