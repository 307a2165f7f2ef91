//! Each part's CSV against its summary: as many rows per (corpus, strategy) as the summary
//! counts records. A part's CSV that lost rows (cut short at a row boundary, copied in part)
//! is otherwise well formed and in order, and would merge into a run missing them.

use std::fs::File;
use std::io::BufReader;

use csv::ByteRecord;

use crate::results::csv::ends_in_line_break;

use super::rows::{column, csv_error};
use super::{MergeError, Part};

/// Rows of one (corpus, strategy) found in a CSV.
struct Found {
    corpus: Vec<u8>,
    strategy: Vec<u8>,
    rows: u64,
}

/// Refuse `part` when its CSV ends inside a row, or holds for some (corpus, strategy) a
/// number of rows other than the records its summary counts.
pub(super) fn check_rows(part: &Part) -> Result<(), MergeError> {
    let state = part.state()?;
    let found = count(part)?;
    let row_count = |corpus: &str, strategy: &str, found: u64, counted: u64| MergeError::RowCount {
        csv: part.csv.clone(),
        json: part.json.clone(),
        corpus: corpus.to_string(),
        strategy: strategy.to_string(),
        found,
        counted,
    };
    for group in &state.groups {
        let counted: u64 = group.counts.values().sum();
        let rows = found
            .iter()
            .find(|f| {
                f.corpus == group.corpus.as_bytes() && f.strategy == group.strategy.as_bytes()
            })
            .map_or(0, |f| f.rows);
        if rows != counted {
            return Err(row_count(&group.corpus, &group.strategy, rows, counted));
        }
    }
    // Rows of a group the summary does not list: checked by name, as the summary names it.
    for f in &found {
        let (corpus, strategy) = (
            String::from_utf8_lossy(&f.corpus),
            String::from_utf8_lossy(&f.strategy),
        );
        let listed = state
            .groups
            .iter()
            .any(|g| g.corpus == corpus && g.strategy == strategy);
        if !listed {
            return Err(row_count(&corpus, &strategy, f.rows, 0));
        }
    }
    Ok(())
}

/// The rows of `part`'s CSV per (corpus, strategy), in order of first appearance.
fn count(part: &Part) -> Result<Vec<Found>, MergeError> {
    let path = &part.csv;
    let io = |source| MergeError::Io {
        path: path.clone(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len == 0 {
        return Err(MergeError::Empty {
            csv: path.clone(),
            json: part.json.clone(),
        });
    }
    let ends_whole = ends_in_line_break(&file).map_err(io)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(BufReader::with_capacity(1 << 16, file));
    let cut = |row: u64, line: u64| MergeError::Cut {
        csv: path.clone(),
        json: part.json.clone(),
        row,
        line,
    };
    let header = reader
        .byte_headers()
        .map_err(|e| csv_error(path, e))?
        .clone();
    if reader.position().byte() == len && !ends_whole {
        return Err(cut(0, 1));
    }
    let (corpus, strategy) = (
        column(&header, "corpus", path)?,
        column(&header, "strategy", path)?,
    );
    let mut found: Vec<Found> = Vec::new();
    let mut rows = 0u64;
    let mut record = ByteRecord::new();
    loop {
        // The line the next row starts on, for a row that cannot be read.
        let line = reader.position().line();
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            // A row that cannot be read is a cut one when nothing follows it.
            Err(e) => {
                return Err(match reader.read_byte_record(&mut record) {
                    Ok(false) => cut(rows + 1, line),
                    _ => csv_error(path, e),
                })
            }
        }
        rows += 1;
        if reader.position().byte() == len && !ends_whole {
            return Err(cut(rows, record.position().map_or(line, |p| p.line())));
        }
        let (c, s) = (
            record.get(corpus).unwrap_or_default(),
            record.get(strategy).unwrap_or_default(),
        );
        match found.iter_mut().find(|f| f.corpus == c && f.strategy == s) {
            Some(f) => f.rows += 1,
            None => found.push(Found {
                corpus: c.to_vec(),
                strategy: s.to_vec(),
                rows: 1,
            }),
        }
    }
    Ok(found)
}
