//! What the line parsers ([`super::text`], [`super::csv`]) give back to [`super::kind`],
//! which picks the parser for each line: a puzzle's fields, or why the line is none.

use crate::grid::Grid;

/// A line's fields once parsed: the grid (and where it starts, 1-based column minus one)
/// and the corpus's own solution, if any.
pub(super) struct Fields {
    pub grid: Grid,
    pub grid_column: usize,
    pub expected: Option<Grid>,
}

/// Why a line is not a puzzle; `column` is 1-based within the trimmed line.
pub(super) struct Bad {
    pub reason: String,
    pub column: usize,
}
