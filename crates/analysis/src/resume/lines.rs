//! Which lines of a corpus a resumed run reads (its `--shard` part), so that a kept row for
//! a line of another part is refused rather than counted: the run would skip past it, and
//! the merged parts would hold the line twice and miss lines of this part.
//!
//! Membership is known from a line's number alone, without reading the corpus again: a
//! round-robin part holds line L when (L - 1) mod N = K - 1; a byte-range part holds its
//! lines from its first up to the next part's first, which opening the next part gives (by
//! counting line endings up to its start, without parsing: what opening this part did).

use std::path::Path;

use super::error::ResumeError;
use sudoku_bench_core::corpus::{Corpus, LoadError, Part, ReadAs, Shard};

/// One of the run's corpora: its name, the lines the run reads of it, and where to read
/// them again (to check that the kept rows are its part's first lines, of its puzzles).
#[derive(Debug)]
pub struct Source<'a> {
    /// As rows name it.
    pub name: &'a str,
    /// Which lines.
    pub lines: PartLines,
    /// Where the corpus comes from.
    pub origin: Origin<'a>,
    /// How it is read, as far as the command line says.
    pub read_as: &'a ReadAs,
}

/// Where a corpus comes from.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    /// A path (`-`: stdin).
    File(&'a Path),
    /// Bytes built into the binary.
    Bytes(&'static [u8]),
}

impl Origin<'_> {
    /// The corpus, called `name`, read as `read_as` says; with `shard`, part K of N of it
    /// (by byte range or round robin for a file, as [`Corpus::open_part`] chooses; round
    /// robin for bytes, which have no file to split).
    pub fn open(
        self,
        name: &str,
        read_as: &ReadAs,
        shard: Option<Shard>,
    ) -> Result<Corpus, LoadError> {
        match self {
            Origin::File(path) => {
                Corpus::open_part(path, read_as.clone(), shard.unwrap_or(Shard::WHOLE))
            }
            Origin::Bytes(bytes) => {
                let mut corpus = Corpus::from_reader(
                    name,
                    Box::new(std::io::Cursor::new(bytes)),
                    Some(bytes.len() as u64),
                    read_as.clone(),
                );
                if let Some(shard) = shard {
                    corpus.round_robin(shard);
                }
                Ok(corpus)
            }
        }
    }
}

/// The lines of a corpus a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartLines {
    /// Every line: no `--shard`.
    All,
    /// Part `shard`, round robin.
    EveryNth(Shard),
    /// Part `shard` by byte range: from line `first`, up to before line `before` (the next
    /// part's first; `None` for the last part).
    Range {
        /// The part.
        shard: Shard,
        /// Its first line.
        first: u64,
        /// The next part's first line.
        before: Option<u64>,
    },
}

impl<'a> Source<'a> {
    /// `corpus`, opened from `origin` as `read_as` says.
    pub fn of(
        corpus: &'a Corpus,
        origin: Origin<'a>,
        read_as: &'a ReadAs,
    ) -> Result<Source<'a>, ResumeError> {
        let path = match origin {
            Origin::File(path) => Some(path),
            Origin::Bytes(_) => None,
        };
        let lines = match corpus.part() {
            None => PartLines::All,
            Some(Part::EveryNth { shard, .. }) => PartLines::EveryNth(*shard),
            Some(Part::Bytes {
                shard, first_line, ..
            }) => PartLines::Range {
                shard: *shard,
                first: *first_line,
                before: next_first_line(corpus.name(), path, read_as, *shard)?,
            },
        };
        Ok(Source {
            name: corpus.name(),
            lines,
            origin,
            read_as,
        })
    }
}

/// The first line of the byte-range part after `shard` of the file at `path`; `None` when
/// `shard` is the last.
fn next_first_line(
    name: &str,
    path: Option<&Path>,
    read_as: &ReadAs,
    shard: Shard,
) -> Result<Option<u64>, ResumeError> {
    let Some(next) = Shard::new(shard.index + 1, shard.count) else {
        return Ok(None);
    };
    let Some(path) = path else {
        return Err(ResumeError::NoFile {
            corpus: name.to_string(),
        });
    };
    let corpus =
        Corpus::open_part(path, read_as.clone(), next).map_err(|source| ResumeError::NextPart {
            corpus: path.to_path_buf(),
            shard,
            next,
            source: Box::new(source),
        })?;
    match corpus.part() {
        Some(Part::Bytes { first_line, .. }) => Ok(Some(*first_line)),
        other => Err(ResumeError::Changed {
            corpus: path.to_path_buf(),
            shard,
            next,
            found: format!("{other:?}"),
        }),
    }
}

impl PartLines {
    /// The part, when the run takes one.
    pub fn shard(self) -> Option<Shard> {
        match self {
            PartLines::All => None,
            PartLines::EveryNth(shard) | PartLines::Range { shard, .. } => Some(shard),
        }
    }

    /// `None` when `line` is one of these; else why not, for a message.
    pub fn refuse(self, line: u64) -> Option<String> {
        match self {
            PartLines::All => None,
            PartLines::EveryNth(shard) if shard.holds(line) => None,
            PartLines::EveryNth(shard) => {
                let owner = (line.saturating_sub(1) % u64::from(shard.count)) + 1;
                Some(format!(
                    "round robin gives it to part {owner}/{}, not {shard}",
                    shard.count
                ))
            }
            PartLines::Range { first, before, .. }
                if line >= first && before.is_none_or(|b| line < b) =>
            {
                None
            }
            PartLines::Range { first, before, .. } => Some(match before {
                Some(b) if first < b => format!("that part is lines {first} to {}", b - 1),
                Some(_) => "that part holds no line".to_string(),
                None => format!("that part is lines {first} to the end"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_in_its_round_robin_or_byte_range_part_only() {
        let two = |k| Shard::new(k, 2).unwrap();
        assert_eq!(PartLines::All.refuse(7), None);
        assert_eq!(PartLines::EveryNth(two(1)).refuse(3), None);
        let why = PartLines::EveryNth(two(1)).refuse(4).unwrap();
        assert!(why.contains("part 2/2, not 1/2"), "{why}");
        let range = PartLines::Range {
            shard: two(1),
            first: 1,
            before: Some(16),
        };
        assert_eq!(range.refuse(15), None);
        assert!(range.refuse(16).unwrap().contains("lines 1 to 15"));
        let last = PartLines::Range {
            shard: two(2),
            first: 16,
            before: None,
        };
        assert_eq!(last.refuse(1_000_000), None);
        assert!(last.refuse(15).unwrap().contains("lines 16 to the end"));
    }
}
