//! Each part's rows against the corpus they name: the `puzzle` of every row must be the
//! one its corpus line holds. The CSV reader refuses a row whose `clues` contradicts its
//! `puzzle`, and the counts check refuses rows its summary does not count, but a puzzle
//! edited together with its clues passes both; only the corpus itself tells it apart.
//!
//! The corpus is opened under the name the run gave it (relative to where merge runs, as
//! the run was), and only when it is the file the summaries say the parts read (its size
//! and ends); each part reads its own part of it again, as the run did, alongside its CSV.
//! When that cannot be done (no such file here, another file, a stream, a corpus read with
//! options the summary does not record), the rows are merged on the other checks alone and
//! the caller is told which corpus was not compared, and why.

use std::path::Path;

use super::{rows, Checker, MergeError, PartFiles};
use sudoku_bench_core::corpus::{Chunk, Corpus, Identity, Lines, LoadError, ReadAs, Shard};
use sudoku_bench_core::grid::Grid;

/// Records read per call.
const CHUNK: usize = 4096;

/// Refuse a part with a row whose puzzle is not the one on the corpus line it names.
/// Each corpus that could not be compared with the rows is returned, with why, for the
/// caller to say; a corpus is named once, however many parts it could not be read for.
pub fn check_puzzles(parts: &[PartFiles]) -> Result<Vec<String>, MergeError> {
    let mut unchecked: Vec<String> = Vec::new();
    for corpus in super::corpora(parts) {
        for part in parts {
            let state = part.state()?;
            let said = match state.corpora.iter().find(|c| c.corpus == corpus) {
                Some(c) => c.identity().map_err(|source| MergeError::BadState {
                    json: part.json.clone(),
                    source,
                })?,
                None => {
                    unchecked.push(not_compared(
                        &corpus,
                        &format!(
                            "{} does not say what its run read of it",
                            part.json.display()
                        ),
                    ));
                    break;
                }
            };
            if let Some(why) = compare(part, &corpus, &said)? {
                unchecked.push(not_compared(&corpus, &why));
                break;
            }
        }
    }
    Ok(unchecked)
}

fn not_compared(corpus: &str, why: &str) -> String {
    format!(
        "{corpus}: the rows' puzzles were not compared with its lines ({why}); what was \
         checked: each row's clues against its own puzzle, and each part's rows against the \
         counts and lines its summary gives"
    )
}

/// A mismatch found while reading along: the row's CSV line, its corpus line, and both
/// grids.
struct Mismatch {
    csv_line: u64,
    line: u64,
    row: Option<Grid>,
    read: Option<Grid>,
}

/// Compare `part`'s rows of `corpus` with the lines of it the part read again; `Some`
/// with why when that cannot be done.
// Left whole (90 lines): one pass over the CSV and the corpus side by side, whose pieces
// share the chunk, its cursor, the end flag and the first mismatch.
fn compare(part: &PartFiles, corpus: &str, said: &Identity) -> Result<Option<String>, MergeError> {
    if said.file.is_none() || corpus == "-" {
        return Ok(Some("its run read it from a stream".to_string()));
    }
    let shard = part.report.shard.unwrap_or(Shard::WHOLE);
    let mut read = match Corpus::open_part(Path::new(corpus), ReadAs::default(), shard) {
        Ok(read) => read,
        Err(e) => return Ok(Some(format!("it cannot be opened here: {}", chain(&e)))),
    };
    if read.identity().file != said.file {
        return Ok(Some(format!(
            "the file there is not the one the parts read: its size or its first or last {} \
             KiB differ",
            sudoku_bench_core::corpus::FileIdentity::ENDS / 1024
        )));
    }
    let mut chunk = Chunk::new(Lines::Entries);
    let mut at = 0;
    let mut ended = false;
    let mut first: Option<Mismatch> = None;
    let mut csv = rows::open(&part.csv)?;
    while let Some(row) = csv.read().map_err(rows::csv_fault)? {
        if row.corpus != corpus || first.is_some() {
            continue;
        }
        // Rows come in line order (the counts check saw to it): read up to the row's line.
        loop {
            if at >= chunk.records().len() {
                if ended {
                    break;
                }
                match read.read_chunk(&mut chunk, CHUNK) {
                    Ok(0) => ended = true,
                    Ok(_) => {}
                    Err(e) => return Ok(Some(unreadable(&e))),
                }
                at = 0;
                continue;
            }
            if chunk.records()[at].line >= row.line {
                break;
            }
            at += 1;
        }
        let Some(record) = chunk.records().get(at).filter(|r| r.line == row.line) else {
            continue;
        };
        let (row_grid, read_grid) = (row.puzzle_grid(), record.kind.grid());
        if row_grid != read_grid {
            first = Some(Mismatch {
                csv_line: row.csv_line,
                line: row.line,
                row: row_grid,
                read: read_grid,
            });
        }
    }
    // The rest, for the identity of what was read: read otherwise than the run read it
    // (a forced format, a named column), other lines are puzzles and none is compared.
    while !ended {
        match read.read_chunk(&mut chunk, CHUNK) {
            Ok(0) => ended = true,
            Ok(_) => {}
            Err(e) => return Ok(Some(unreadable(&e))),
        }
    }
    let again = read.identity();
    // The lines and their hash are the bytes', whatever the format they were read in: when
    // they differ, the part read other bytes.
    if (again.lines, again.hash) != (said.lines, said.hash) {
        return Err(MergeError::PartContentDiffers {
            json: part.json.clone(),
            corpus: corpus.to_string(),
            ends_kib: sudoku_bench_core::corpus::FileIdentity::ENDS / 1024,
        });
    }
    if (again.entries, again.entry_lines) != (said.entries, said.entry_lines) {
        return Ok(Some(
            "read here, its lines are not the ones the run took as puzzles: was it read with \
             --input-format or --column?"
                .to_string(),
        ));
    }
    match first {
        None => Ok(None),
        Some(m) => Err(Checker::Merge
            .other_puzzle(&part.csv, m.csv_line, (corpus, m.line), m.row, m.read)
            .into()),
    }
}

fn unreadable(e: &LoadError) -> String {
    format!("it cannot be read to its end here: {}", chain(e))
}

/// An error and its causes, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}
