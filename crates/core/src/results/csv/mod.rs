//! The per-puzzle CSV, the artifact every later command reads: one row per (puzzle,
//! strategy), in input order. Its columns are defined here once; [`mod@write`] formats rows
//! and [`read`] is the one reader that `compare`, `report`, `merge` and `--resume` use.

pub mod read;
pub mod write;

pub use read::{CsvError, CsvRow, RowReader};
pub use write::{push_field, push_header, push_row};

/// The columns, in order.
///
/// `ended` came after `error` when it was added: a CSV written before it has the first
/// twelve, and [`RowReader`] tells how its searches ended from the error text. `replicate`
/// came last, after it: a CSV written before has none, and its rows read as of no
/// replicate. `instructions` came after `replicate`, empty unless the run counted them
/// (`run --measure instructions`).
pub const COLUMNS: [&str; 15] = [
    "corpus",
    "line",
    "strategy",
    "status",
    "solutions",
    "nodes",
    "guesses",
    "time_ns",
    "clues",
    "puzzle",
    "solution",
    "error",
    "ended",
    "replicate",
    "instructions",
];

/// Whether `file` ends in a line break, as every per-puzzle CSV that `run` finished writing
/// a row of does: [`push_row`] ends each row with one, so a last row without it was cut
/// mid-row (an interrupt or a killed job), whatever its field count. An empty file does not.
/// The file's position is left where it was.
pub fn ends_in_line_break(mut file: &std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let at = file.stream_position()?;
    let len = file.seek(SeekFrom::End(0))?;
    let mut last = [0u8];
    if len > 0 {
        file.seek(SeekFrom::End(-1))?;
        file.read_exact(&mut last)?;
    }
    file.seek(SeekFrom::Start(at))?;
    Ok(last[0] == b'\n')
}

/// A puzzle and its solution, for the tests of the writer and the reader.
#[cfg(test)]
mod fixture {
    use crate::grid::Grid;

    pub const PUZZLE: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
    pub const SOLUTION: &str =
        "468931527751624839392578461134756298289413675675289314846192753513867942927345186";

    /// Both as grids.
    pub fn grids() -> (Grid, Grid) {
        (PUZZLE.parse().unwrap(), SOLUTION.parse().unwrap())
    }
}
