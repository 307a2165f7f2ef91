//! The kept rows must be the first lines of this run's part of each corpus, corpus by
//! corpus, and of those lines' puzzles: the run skips everything up to the last kept line,
//! so a line of its part with no row (a CSV written by another part or a whole run, or one
//! holding only a later corpus's rows) would never be solved, and merge would not see it
//! missing; and a row whose puzzle is not its line's (the corpus changed since, or another
//! file under the same name) would be passed off as this corpus's.
//!
//! Checked before anything is written, by reading each corpus's part again as the run will,
//! alongside the CSV as it is scanned (no pass of its own): each kept line's rows are
//! compared with the line read again, at once, and the lines each part holds up to the last
//! kept one are tallied, and compared with the lines kept once the scan is over.

use std::path::Path;

use super::error::ResumeError;
use super::lines::{Origin, Source};
use crate::merge::validate::{Line, LineTally};
use crate::merge::Checker;
use sudoku_bench_core::corpus::{Chunk, Corpus, Lines as Keep, Record};

/// Records read again per call: the run's own batch size does not matter here.
const CHUNK: usize = 4096;

/// The run's corpora read again, one at a time, as the scan of the CSV keeps their lines.
pub(crate) struct Reread<'a, 'c> {
    csv: &'a Path,
    corpora: &'a [Source<'c>],
    /// The lines of each corpus before the one being read: the whole part (or why it could
    /// not be read to the end).
    read: Vec<Result<LineTally, ResumeError>>,
    /// The corpus being read.
    reading: Option<Reading>,
}

/// The corpus being read again: its index, and where it is (or why it cannot be read).
struct Reading {
    index: usize,
    cursor: Result<Cursor, ResumeError>,
}

impl<'a, 'c> Reread<'a, 'c> {
    /// Nothing read yet of `corpora`, whose rows `csv` holds.
    pub(crate) fn new(csv: &'a Path, corpora: &'a [Source<'c>]) -> Self {
        Reread {
            csv,
            corpora,
            read: Vec::new(),
            reading: None,
        }
    }

    /// `kept` is a whole line: refused when one of its rows is not of its puzzle. Corpora
    /// come in order, lines in order within each. A line the part does not hold, or a
    /// corpus that cannot be read again, is refused by [`Reread::finish`].
    pub(crate) fn kept(&mut self, kept: &Line) -> Result<(), ResumeError> {
        let (corpus, line) = (kept.corpus, kept.line);
        let (csv, name) = (self.csv, self.corpora[corpus].name);
        let reading = self.reach(corpus);
        let Ok(cursor) = &mut reading.cursor else {
            return Ok(());
        };
        let read = match cursor.seek(line) {
            Ok(Some(record)) => record.kind.grid(),
            Ok(None) => return Ok(()),
            Err(e) => {
                reading.cursor = Err(e);
                return Ok(());
            }
        };
        for (&at, &puzzle) in kept.at.iter().zip(&kept.puzzles) {
            if puzzle != read {
                return Err(Checker::Resume
                    .other_puzzle(csv, at, (name, line), puzzle, read)
                    .into());
            }
        }
        Ok(())
    }

    /// The corpus at `corpus` being read, every one before it read to its end.
    fn reach(&mut self, corpus: usize) -> &mut Reading {
        while self.reading.as_ref().is_none_or(|r| r.index < corpus) {
            if let Some(done) = self.reading.take() {
                self.read
                    .push(done.cursor.and_then(|c| c.finish(None)).map(|t| t.0));
            }
            let index = self.read.len();
            self.reading = Some(Reading {
                index,
                cursor: Cursor::open(self.csv, &self.corpora[index]),
            });
        }
        self.reading.as_mut().expect("made above")
    }

    /// Refuse unless `kept[i]`, the lines of corpus `i` with rows, are the first lines of the
    /// run's part of it up to `last`, the last kept line (its corpus and line), and the
    /// whole part for every corpus before it. Also whether that part holds lines after
    /// `last`.
    pub(crate) fn finish(
        mut self,
        kept: &[LineTally],
        last: Option<(usize, u64)>,
    ) -> Result<bool, ResumeError> {
        let Some((last, line)) = last else {
            return Ok(false);
        };
        self.reach(last);
        let reading = self.reading.take().expect("reached");
        let (tally, more) = match reading.cursor.and_then(|c| c.finish(Some(line))) {
            Ok((tally, more)) => (Ok(tally), more),
            Err(e) => (Err(e), false),
        };
        self.read.push(tally);
        for (i, read) in self.read.into_iter().enumerate() {
            let read = read?;
            if read != kept[i] {
                let upto = (i == last).then_some(kept[i].last);
                return Err(ResumeError::NotThePart {
                    csv: self.csv.to_path_buf(),
                    corpus: self.corpora[i].name.to_string(),
                    shard: self.corpora[i].lines.shard(),
                    kept: kept[i].lines,
                    read: read.lines,
                    upto,
                    later: upto.is_none().then(|| self.corpora[last].name.to_string()),
                });
            }
        }
        Ok(more)
    }
}

/// Whether `source`'s part holds any line: also when that cannot be told without using it
/// up (stdin, a pipe) or at all (it cannot be read).
pub(crate) fn holds_lines(source: &Source) -> bool {
    let Ok(mut cursor) = Cursor::open(Path::new(""), source) else {
        return true;
    };
    !matches!(cursor.current(), Ok(None))
}

/// A corpus's part, read again record by record; the lines passed are tallied.
struct Cursor {
    /// `None` once read to its end.
    corpus: Option<Corpus>,
    /// For messages.
    name: String,
    csv: std::path::PathBuf,
    chunk: Chunk,
    /// The record of `chunk` at hand.
    next: usize,
    /// The lines passed.
    tally: LineTally,
}

impl Cursor {
    /// `source`'s part, opened again; refused when it cannot be read twice.
    fn open(csv: &Path, source: &Source) -> Result<Cursor, ResumeError> {
        let named = match source.origin {
            Origin::File(path) => {
                // A pipe or stdin gives its lines once, and the run needs them.
                let regular =
                    path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
                if !regular {
                    return Err(ResumeError::ReadOnce {
                        csv: csv.to_path_buf(),
                        corpus: path.to_path_buf(),
                    });
                }
                path
            }
            Origin::Bytes(_) => Path::new(source.name),
        };
        let corpus = source
            .origin
            .open(source.name, source.read_as, source.lines.shard())
            .map_err(|e| ResumeError::Reopen {
                corpus: named.to_path_buf(),
                source: Box::new(e),
            })?;
        Ok(Cursor {
            corpus: Some(corpus),
            name: source.name.to_string(),
            csv: csv.to_path_buf(),
            chunk: Chunk::new(Keep::Entries),
            next: 0,
            tally: LineTally::default(),
        })
    }

    /// The record at hand, reading the next chunk when this one is passed; `None` at the
    /// end.
    fn current(&mut self) -> Result<Option<&Record>, ResumeError> {
        if self.next >= self.chunk.records().len() {
            let Some(corpus) = self.corpus.as_mut() else {
                return Ok(None);
            };
            let n = corpus
                .read_chunk(&mut self.chunk, CHUNK)
                .map_err(|e| ResumeError::Reread {
                    corpus: self.name.clone(),
                    csv: self.csv.clone(),
                    source: Box::new(e),
                })?;
            self.next = 0;
            if n == 0 {
                self.corpus = None;
                return Ok(None);
            }
        }
        Ok(self.chunk.records().get(self.next))
    }

    /// The record of `line`, every line before it passed; `None` when the part does not
    /// hold that line.
    fn seek(&mut self, line: u64) -> Result<Option<&Record>, ResumeError> {
        while let Some(at) = self.current()?.map(|r| r.line) {
            if at >= line {
                break;
            }
            self.tally.add(at);
            self.next += 1;
        }
        Ok(self.current()?.filter(|r| r.line == line))
    }

    /// The lines of the part up to `upto` (`None`: all of them), and whether any follows.
    fn finish(mut self, upto: Option<u64>) -> Result<(LineTally, bool), ResumeError> {
        while let Some(at) = self.current()?.map(|r| r.line) {
            if upto.is_some_and(|line| at > line) {
                return Ok((self.tally, true));
            }
            self.tally.add(at);
            self.next += 1;
        }
        Ok((self.tally, false))
    }
}
