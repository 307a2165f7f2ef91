//! A grid read from a corpus, checked: against the rules, and against the corpus's own
//! solution when it has one. The one check every layout's records go through.

use super::Kind;
use crate::grid::{cell_name, Grid};

/// A parsed grid checked against the rules and the corpus's own solution, if any;
/// `grid_column` is 1-based within the raw line.
#[inline(always)]
pub(super) fn checked(grid: Grid, grid_column: usize, expected: Option<Grid>) -> Kind {
    match grid.conflict() {
        Some(conflict) => Kind::Invalid {
            grid,
            reason: conflict.to_string(),
            column: grid_column + conflict.second,
        },
        None => match expected {
            Some(solution) if !solution.is_solution_of(&grid) => Kind::Malformed {
                reason: solution_reason(&grid, &solution),
                column: grid_column,
            },
            _ => Kind::Puzzle { grid, expected },
        },
    }
}

/// Why a corpus's solution column does not fit its puzzle.
fn solution_reason(puzzle: &Grid, solution: &Grid) -> String {
    if !solution.is_complete() {
        return "solution column is not a complete grid".to_string();
    }
    if let Some(i) = (0..81).find(|&i| puzzle.get(i) != 0 && puzzle.get(i) != solution.get(i)) {
        return format!(
            "solution column has {} at {} where the puzzle gives {}",
            solution.get(i),
            cell_name(i),
            puzzle.get(i)
        );
    }
    match solution.conflict() {
        Some(conflict) => format!("solution column breaks a rule: {conflict}"),
        None => "solution column does not solve the puzzle".to_string(),
    }
}
