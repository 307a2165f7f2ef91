//! Text corpora: one puzzle per line, the grid as the line's first field.
//!
//! Lines often carry more than the grid (`puzzle:count:solution`, or a rating or comment
//! after whitespace, `,`, `;` or `|`); the grid is the first field and the rest is ignored.

use super::{Bad, Fields};
use crate::grid::{CellError, Grid};

/// Bytes that end the grid field.
fn is_separator(b: u8) -> bool {
    matches!(b, b':' | b',' | b';' | b'|') || b.is_ascii_whitespace()
}

/// Parse a trimmed, non-empty, UTF-8 line.
pub(super) fn parse(line: &[u8]) -> Result<Fields, Bad> {
    // Nearly every line is a grid, alone or followed by a separator: try that first and
    // only scan for the field's end when it fails (the scan also finds the error to report).
    if line.len() >= 81 && line.get(81).is_none_or(|&b| is_separator(b)) {
        if let Ok(grid) = Grid::parse(&line[..81]) {
            return Ok(Fields {
                grid,
                grid_column: 1,
                expected: None,
            });
        }
    }
    let end = line
        .iter()
        .position(|&b| is_separator(b))
        .unwrap_or(line.len());
    let field = &line[..end];
    match Grid::parse(field) {
        Ok(grid) => Ok(Fields {
            grid,
            grid_column: 1,
            expected: None,
        }),
        Err(e) => Err(cell_error(e, 1)),
    }
}

/// A grid field's error as a line-level `Bad`, the field starting at 1-based `start`.
pub(super) fn cell_error(e: CellError, start: usize) -> Bad {
    let column = match e {
        CellError::Character { column, .. } => start + column - 1,
        CellError::Length { .. } => start,
    };
    let reason = match e {
        CellError::Character { found, .. } => {
            format!("character {found:?} at column {column} is not a digit or a blank ('.' or '0')")
        }
        CellError::Length { .. } => e.to_string(),
    };
    Bad { reason, column }
}
