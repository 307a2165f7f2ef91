//! The one reading loop over a part's per-puzzle CSV, for `merge` (each part) and `run
//! --resume` (the kept prefix, itself a part of the run): rows come through the one reader
//! of the per-puzzle CSV, each is handed to the caller's checks with where it ends, and the
//! file's tail is told apart from a fault the same way for both: a row that ends where the
//! file does, without the line break every row ends in, was cut short by the writer's end
//! (an interrupt, a full disk), not written wrong.

use std::io::BufRead;

use sudoku_bench_core::results::csv::{CsvError, CsvRow, RowReader};

/// A row the file ends inside: counted from 1 after the header, and the file line it starts
/// on (0 when the reader could not tell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CutRow {
    pub(crate) row: u64,
    pub(crate) line: u64,
}

/// Hand each whole row of `reader` (whose file is `len` bytes long and ends in a line break
/// when `ends_whole`) to `each`, with the byte it ends at; a row the reader refuses goes
/// through `fault`. Stops at the end, or at a cut last row, which it returns: merge refuses
/// it, resume drops it.
pub(crate) fn each_row<R: BufRead, E>(
    reader: &mut RowReader<R>,
    (len, ends_whole): (u64, bool),
    fault: impl Fn(CsvError) -> E,
    mut each: impl FnMut(&CsvRow, u64) -> Result<(), E>,
) -> Result<Option<CutRow>, E> {
    let mut rows = 0u64;
    loop {
        let read = reader.read();
        let last = reader.bytes_read() == len;
        let row = match read {
            Ok(Some(row)) => row,
            Ok(None) => return Ok(None),
            // An unreadable last row is one cut where a line break happened to fall.
            Err(e) if last => {
                let line = e.line().unwrap_or(0);
                return Ok(Some(CutRow {
                    row: rows + 1,
                    line,
                }));
            }
            Err(e) => return Err(fault(e)),
        };
        rows += 1;
        if last && !ends_whole {
            let line = row.csv_line;
            return Ok(Some(CutRow { row: rows, line }));
        }
        each(&row, reader.bytes_read())?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use sudoku_bench_core::results::csv::COLUMNS;

    /// The rows each_row hands on (their corpus lines), and the cut tail it finds, of `text`.
    fn read(text: &[u8]) -> Result<(Vec<u64>, Option<CutRow>), CsvError> {
        let ends_whole = text.ends_with(b"\n");
        let mut reader = RowReader::new(Path::new("t.csv"), text).unwrap();
        let mut lines = Vec::new();
        let tail = each_row(
            &mut reader,
            (text.len() as u64, ends_whole),
            |e| e,
            |row, _| {
                lines.push(row.line);
                Ok(())
            },
        )?;
        Ok((lines, tail))
    }

    #[test]
    fn a_cut_last_row_is_the_tail_and_a_bad_row_before_it_a_fault() {
        let row = |line: u64| format!("a.txt,{line},fast,unique,1,10,0,100,25,,,,finished,,\n");
        let whole = format!("{}\n{}{}", COLUMNS.join(","), row(1), row(2)).into_bytes();
        assert_eq!(read(&whole).unwrap(), (vec![1, 2], None));
        // Cut inside its last field: it still reads, but lacks the line break.
        let cut = &whole[..whole.len() - 2];
        let tail = Some(CutRow { row: 2, line: 3 });
        assert_eq!(read(cut).unwrap(), (vec![1], tail));
        // Cut so short that it cannot be read at all.
        let short = &whole[..whole.len() - row(2).len() + 6];
        assert_eq!(read(short).unwrap().1.map(|c| c.row), Some(2));
        let bad = format!("{}\na.txt,1,fast,unique\n{}", COLUMNS.join(","), row(2));
        assert!(read(bad.as_bytes()).is_err());
    }
}
