//! Text corpora: one puzzle per line, the grid as the line's first field.
//!
//! Lines often carry more than the grid (`puzzle:count:solution`, or a rating or comment
//! after whitespace, `,`, `;` or `|`); the grid is the first field and the rest is ignored.

use super::parsed::{Bad, Fields};
use super::rows::Apart;
use crate::grid::{CellError, Grid};

/// Bytes that end the grid field.
fn is_separator(b: u8) -> bool {
    matches!(b, b':' | b',' | b';' | b'|') || b.is_ascii_whitespace()
}

/// The grid of a trimmed line that is a valid grid, alone or followed by a separator
/// and valid UTF-8: the common line, which `parse` would accept with this grid.
/// `None` says nothing: the line may still be a puzzle, or not.
///
/// The line need not have been checked as UTF-8: a grid that parses is ASCII, so the
/// line is valid UTF-8 exactly when what follows the grid is.
#[inline]
pub(super) fn parse_grid_first(line: &[u8]) -> Option<Grid> {
    let (grid, rest) = line.split_at_checked(81)?;
    if rest.first().is_some_and(|&b| !is_separator(b)) {
        return None;
    }
    let grid = Grid::parse(grid).ok()?;
    std::str::from_utf8(rest).is_ok().then_some(grid)
}

/// Parse a trimmed, non-empty, UTF-8 line.
pub(super) fn parse(line: &[u8]) -> Result<Fields, Bad> {
    // Nearly every line is a grid, alone or followed by a separator: try that first and
    // only scan for the field's end when it fails (the scan also finds the error to report).
    if let Some(grid) = parse_grid_first(line) {
        return Ok(Fields {
            grid,
            grid_column: 1,
            expected: None,
        });
    }
    let end = line
        .iter()
        .position(|&b| is_separator(b))
        .unwrap_or(line.len());
    let field = &line[..end];
    let error = match Grid::parse(field) {
        Ok(grid) => {
            return Ok(Fields {
                grid,
                grid_column: 1,
                expected: None,
            })
        }
        Err(e) => e,
    };
    // A puzzle with its cells apart (`4 . . 3 ...`, `4,.,.,3,...`): the whole line is the
    // grid. Cells apart that are not 81 are counted in the error, not the first group.
    match Apart::of(line) {
        Ok(apart) => match apart.one_line_grid() {
            Some(grid) => Ok(Fields {
                grid,
                grid_column: 1,
                expected: None,
            }),
            None if apart.is_apart() => Err(cell_error(
                CellError::Length {
                    found: apart.count,
                    stray: None,
                },
                1,
            )),
            None => Err(cell_error(error, 1)),
        },
        Err(_) => Err(cell_error(error, 1)),
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
