//! The kept rows must be the first lines of this run's part of each corpus, corpus by
//! corpus: the run skips everything up to the last kept line, so a line of its part with
//! no row (a CSV written by another part or a whole run, or one holding only a later
//! corpus's rows) would never be solved, and merge would not see it missing. Checked
//! before anything is written, by reading each corpus's part again as the run will, up
//! to the last kept line, and comparing the lines that make rows with the lines kept.

use std::path::Path;

use super::error::ResumeError;
use super::lines::{Origin, Source};
use crate::corpus::{Chunk, Lines as Keep};
use crate::rng::splitmix64;

/// Lines of one corpus that have rows, in order: how many, the last, and a hash of them
/// all, which tells the same count of other lines apart without keeping every line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    /// How many lines.
    pub(crate) lines: u64,
    /// The last one (0: none).
    pub(crate) last: u64,
    hash: u64,
}

impl Tally {
    /// Count `line`, which comes after every line counted so far.
    pub(crate) fn add(&mut self, line: u64) {
        self.lines += 1;
        self.last = line;
        self.hash = splitmix64(self.hash ^ splitmix64(line));
    }
}

/// Records read again per call: the run's own batch size does not matter here.
const CHUNK: usize = 4096;

/// Refuse unless `kept[i]`, the lines of `corpora[i]` with rows in `csv`, are the first
/// lines of the run's part of it up to the last kept one, and the whole part for every
/// corpus before the last with rows.
pub(crate) fn check(csv: &Path, corpora: &[Source], kept: &[Tally]) -> Result<(), ResumeError> {
    let Some(last) = kept.iter().rposition(|t| t.lines > 0) else {
        return Ok(());
    };
    for (i, source) in corpora[..=last].iter().enumerate() {
        let upto = (i == last).then_some(kept[i].last);
        let read = read_again(csv, source, upto)?;
        if read == kept[i] {
            continue;
        }
        return Err(ResumeError::NotThePart {
            csv: csv.to_path_buf(),
            corpus: source.name.to_string(),
            shard: source.lines.shard(),
            kept: kept[i].lines,
            read: read.lines,
            upto,
            later: upto.is_none().then(|| corpora[last].name.to_string()),
        });
    }
    Ok(())
}

/// The lines of `source`'s part that make rows, up to `upto` (`None`: all of them).
fn read_again(csv: &Path, source: &Source, upto: Option<u64>) -> Result<Tally, ResumeError> {
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
    let mut corpus = source
        .origin
        .open(source.name, source.forced, source.lines.shard())
        .map_err(|e| ResumeError::Reopen {
            corpus: named.to_path_buf(),
            source: Box::new(e),
        })?;
    let mut chunk = Chunk::new(Keep::Entries);
    let mut tally = Tally::default();
    loop {
        let n = corpus
            .read_chunk(&mut chunk, CHUNK)
            .map_err(|e| ResumeError::Reread {
                corpus: source.name.to_string(),
                csv: csv.to_path_buf(),
                source: Box::new(e),
            })?;
        if n == 0 {
            return Ok(tally);
        }
        for record in chunk.records() {
            if upto.is_some_and(|line| record.line > line) {
                return Ok(tally);
            }
            tally.add(record.line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_of_other_lines_differ_even_with_the_same_count() {
        let of = |lines: &[u64]| {
            let mut t = Tally::default();
            lines.iter().for_each(|l| t.add(*l));
            t
        };
        assert_eq!(of(&[1, 2, 5]), of(&[1, 2, 5]));
        assert_ne!(of(&[1, 3, 5]), of(&[2, 3, 5]));
        assert_ne!(of(&[1, 2]), of(&[1, 2, 5]));
    }
}
