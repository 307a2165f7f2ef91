//! `naive`: the textbook recursive backtracker, the baseline every other strategy is
//! measured against.
//!
//! It follows the plain depth-first backtracking algorithm found in most introductions
//! to Sudoku solving (and in Wikipedia's "Sudoku solving algorithms", section
//! "Backtracking"): take the first empty cell in row-major order, try the digits 1 to 9
//! in turn, keep a digit when no cell in its row, column or box already holds it, and
//! recurse; when no digit fits, undo the last placement and try the next digit there.
//! The rule check scans the board itself, with no auxiliary sets, so every check costs
//! 27 cell reads.
//!
//! `nodes` counts the digits the search writes into empty cells: one per digit that
//! passed the rule check. Digits rejected by the check are not nodes, and a complete
//! input grid costs 0 nodes.

use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::Grid;

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "naive",
    "recursive backtracking: first empty cell in row-major order, digits 1-9, \
            rules checked by scanning the board",
    "digits placed by the search (rejected digits are not counted)",
    false,
    make,
);

fn make() -> Box<dyn Strategy> {
    Box::new(Naive)
}

/// Holds nothing between puzzles: the whole search state is a copy of the grid on the
/// stack.
struct Naive;

impl Strategy for Naive {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut search = Search {
            grid: *puzzle,
            budget: Budget::new(limits),
            tally: Tally::new(limits),
        };
        search.fill(0);
        search.tally.outcome(&search.budget, 0)
    }
}

struct Search {
    grid: Grid,
    budget: Budget,
    tally: Tally,
}

impl Search {
    /// Fill the empty cells from `from` on; `true` when the whole search must stop (the
    /// solution limit is reached or the budget is spent).
    fn fill(&mut self, from: usize) -> bool {
        // Every cell before `from` is filled, so scanning on from there finds the same
        // first empty cell as scanning from 0, without re-reading the filled prefix.
        let Some(cell) = (from..81).find(|&i| self.grid.get(i) == 0) else {
            return self.tally.found(&self.grid);
        };
        for digit in 1..=9 {
            if !self.allowed(cell, digit) {
                continue;
            }
            if !self.budget.spend() {
                return true;
            }
            self.grid.set(cell, digit);
            let stop = self.fill(cell + 1);
            self.grid.set(cell, 0);
            if stop {
                return true;
            }
        }
        false
    }

    /// No cell in the row, column or box of `cell` holds `digit`.
    fn allowed(&self, cell: usize, digit: u8) -> bool {
        let cells = self.grid.cells();
        let row = cell / 9 * 9;
        let col = cell % 9;
        let corner = cell / 27 * 27 + col / 3 * 3;
        (0..9).all(|k| {
            cells[row + k] != digit
                && cells[k * 9 + col] != digit
                && cells[corner + k / 3 * 9 + k % 3] != digit
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::strategy::testkit::{self, grid, limits};
    use crate::strategy::Abort;

    #[test]
    fn conformance() {
        // HARD takes naive 21 million placements, about a second even optimised.
        testkit::conformance(|| INFO.make(), true);
    }

    #[test]
    fn solves_hardest() {
        // The part of the battery skipped above that naive does finish quickly.
        let puzzle = grid(testkit::HARDEST);
        let out = make().solve(&puzzle, &limits(2));
        assert_eq!((out.solutions, out.aborted), (1, None));
        assert!(out.first.is_some_and(|s| s.is_solution_of(&puzzle)));
    }

    /// Runs `make`'s strategy and `naive` on the same puzzles and limits and asserts the
    /// outcomes are identical, nodes and abort points included: for strategies that walk
    /// naive's search tree in naive's order, with different bookkeeping.
    pub(in crate::strategy) fn assert_same_search_as_naive(make: impl Fn() -> Box<dyn Strategy>) {
        let mut naive = INFO.make();
        let mut other = make();
        let mut check = |puzzle: &str, limits: Limits| {
            let p = grid(puzzle);
            let expected = naive.solve(&p, &limits);
            let got = other.solve(&p, &limits);
            assert_eq!(got, expected, "{puzzle} with {limits:?}");
            expected
        };
        for puzzle in [
            testkit::EASY,
            testkit::UNSOLVABLE,
            testkit::DEAD_CELL,
            testkit::TWO_SOLUTIONS,
            testkit::HARDEST,
        ] {
            for max_solutions in [1, 2, 10] {
                check(puzzle, limits(max_solutions));
            }
        }
        // The empty grid has solutions in every branch, so a high limit exercises the
        // resumption after each solution many times over.
        for max_solutions in [1, 100] {
            check(&".".repeat(81), limits(max_solutions));
        }
        // Budgets that end just before, at and just after the first solution of TWO_SOLUTIONS:
        // both strategies must stop at the same placement with the same partial result.
        let first = check(testkit::TWO_SOLUTIONS, limits(1));
        assert!(first.nodes > 1);
        for max_nodes in [first.nodes - 1, first.nodes, first.nodes + 1] {
            let out = check(
                testkit::TWO_SOLUTIONS,
                Limits {
                    max_nodes,
                    ..limits(2)
                },
            );
            assert_eq!(out.aborted, Some(Abort::NodeLimit), "max_nodes {max_nodes}");
        }
    }

    #[test]
    fn rejected_digits_are_not_nodes() {
        // r1c1 of EASY_SOLUTION holds 5: the digits 1-4 fail the rule check first.
        let mut one_blank = grid(testkit::EASY_SOLUTION);
        assert_eq!(one_blank.get(0), 5);
        one_blank.set(0, 0);
        let out = make().solve(&one_blank, &limits(2));
        assert_eq!((out.solutions, out.nodes), (1, 1));
    }

    #[test]
    fn a_dead_first_cell_costs_no_nodes() {
        let out = make().solve(&grid(testkit::DEAD_CELL), &limits(2));
        assert_eq!((out.solutions, out.nodes, out.aborted), (0, 0, None));
    }

    #[test]
    fn blank_row_is_filled_without_backtracking() {
        // With one row blank each cell's column leaves a single candidate.
        let mut puzzle = grid(testkit::HARD_SOLUTION);
        for cell in 36..45 {
            puzzle.set(cell, 0);
        }
        let out = make().solve(&puzzle, &limits(2));
        assert_eq!((out.solutions, out.nodes), (1, 9));
        assert_eq!(out.first, Some(grid(testkit::HARD_SOLUTION)));
    }

    #[test]
    fn node_budget_aborts_at_exactly_max_nodes() {
        let tight = Limits {
            max_nodes: 5_000,
            ..limits(2)
        };
        let out = make().solve(&grid(testkit::HARD), &tight);
        assert_eq!(out.aborted, Some(Abort::NodeLimit));
        assert_eq!(out.nodes, 5_000);
        assert_eq!(out.guesses, 0);
    }
}
