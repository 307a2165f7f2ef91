//! `bitmask`: backtracking on the most constrained cell, with each house's digits kept in
//! a 9-bit mask.
//!
//! It follows the classic bitmask backtracker with the "minimum remaining values"
//! heuristic of constraint satisfaction (Russell & Norvig, *Artificial Intelligence: A
//! Modern Approach*, ch. 6), as in Norvig's "Solving Every Sudoku Puzzle" search step
//! without its constraint propagation. Bit `d - 1` of a row's, column's or box's `u16`
//! is set when digit `d` is used there, so a cell's candidates are the bits none of its
//! three houses has. At each node the search takes the empty cell with the fewest
//! candidates (ties: the lowest cell index), backtracks at once if that is none, and
//! otherwise tries its candidates in ascending digit order.
//!
//! `nodes` counts the digits the search writes into empty cells. Only candidates are
//! ever tried, so every digit tried is a node; a complete input grid costs 0 nodes.

use super::masks::MaskBoard;
use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::Grid;

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "bitmask",
    "recursive backtracking on the empty cell with the fewest candidates, houses \
            kept as 9-bit masks",
    "digits placed by the search (only candidates are tried); guesses: those \
                 placed in a cell that had two or more candidates",
    true,
    make,
);

fn make() -> Box<dyn Strategy> {
    Box::new(Bitmask::new())
}

struct Bitmask {
    /// The grid and its house masks; `empty[k..len]` are the cells still empty at depth `k`,
    /// in no particular order (choosing a cell swaps it to position `k`).
    board: MaskBoard,
    /// Placements made into a cell that had two or more candidates.
    guesses: u64,
}

impl Bitmask {
    fn new() -> Bitmask {
        Bitmask {
            board: MaskBoard::new(),
            guesses: 0,
        }
    }

    /// Fill `empty[depth..len]`; `true` when the whole search must stop (the solution
    /// limit is reached or the budget is spent).
    fn fill(&mut self, depth: usize, budget: &mut Budget, tally: &mut Tally) -> bool {
        if depth == self.board.len {
            return tally.found(&self.board.grid);
        }
        // The positions in `empty` are shuffled by earlier choices, so ties are settled
        // on the cell index itself to pick the lowest one whatever the order.
        let mut best = depth;
        let mut best_cell = self.board.empty[depth] as usize;
        let mut best_count = u32::MAX;
        for k in depth..self.board.len {
            let cell = self.board.empty[k] as usize;
            let count = self.board.candidates(cell).count_ones();
            if count < best_count || (count == best_count && cell < best_cell) {
                (best, best_cell, best_count) = (k, cell, count);
                if count == 0 {
                    // Nothing beats an empty cell: the branch is dead whichever it is.
                    return false;
                }
            }
        }
        self.board.empty.swap(depth, best);
        let cell = best_cell;
        let mut free = self.board.candidates(cell);
        while free != 0 {
            let digit = free.trailing_zeros() as u8 + 1;
            free &= free - 1;
            if !budget.spend() {
                return true;
            }
            // A placement is a guess when the cell had other candidates to try.
            self.guesses += (best_count >= 2) as u64;
            self.board.grid.set(cell, digit);
            self.board.toggle(cell, digit);
            let stop = self.fill(depth + 1, budget, tally);
            self.board.toggle(cell, digit);
            self.board.grid.set(cell, 0);
            if stop {
                return true;
            }
        }
        false
    }
}

impl Strategy for Bitmask {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        self.board.load(puzzle);
        let mut budget = Budget::new(limits);
        let mut tally = Tally::new(limits);
        self.guesses = 0;
        self.fill(0, &mut budget, &mut tally);
        tally.outcome(&budget, self.guesses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::box_of;
    use crate::strategy::testkit::{self, grid, limits};

    #[test]
    fn conformance() {
        testkit::conformance(|| INFO.make(), false);
    }

    #[test]
    fn a_dead_cell_anywhere_costs_no_nodes() {
        // r9c9 has no candidate: row 9 holds 1..8 and column 9 holds 9. A row-major search
        // would only learn that after filling the 72 cells before it, in every way it can;
        // the fewest-candidates rule sees it at the root.
        let mut puzzle = Grid::EMPTY;
        for (k, cell) in (72..80).enumerate() {
            puzzle.set(cell, k as u8 + 1);
        }
        puzzle.set(8, 9);
        assert!(puzzle.conflict().is_none());
        let out = make().solve(&puzzle, &limits(2));
        assert_eq!((out.solutions, out.nodes, out.aborted), (0, 0, None));
    }

    #[test]
    fn forced_cells_take_one_node_each() {
        // A blank in an otherwise solved box sees the box's other eight digits in its row
        // and column outside the box, so every blank here has one candidate and the
        // search never branches: one placement per blank.
        let mut puzzle = grid(testkit::HARD_SOLUTION);
        for cell in [30, 31, 32, 39, 40, 41, 48, 49, 50, 80] {
            puzzle.set(cell, 0);
        }
        let out = make().solve(&puzzle, &limits(2));
        assert_eq!((out.solutions, out.nodes), (1, 10));
        assert_eq!(out.first, Some(grid(testkit::HARD_SOLUTION)));
    }

    /// The method as the doc states it, with nothing clever: every node rescans the
    /// board for candidates and picks the (fewest candidates, lowest index) cell.
    struct Reference {
        grid: Grid,
        nodes: u64,
        solutions: u32,
        first: Option<Grid>,
        max: u32,
    }

    impl Reference {
        fn candidates(&self, cell: usize) -> Vec<u8> {
            (1..=9)
                .filter(|&d| {
                    (0..81).all(|other| {
                        let shares_house = other / 9 == cell / 9
                            || other % 9 == cell % 9
                            || box_of(other) == box_of(cell);
                        !shares_house || self.grid.get(other) != d
                    })
                })
                .collect()
        }

        fn fill(&mut self) -> bool {
            let Some(cell) = (0..81)
                .filter(|&c| self.grid.get(c) == 0)
                .min_by_key(|&c| (self.candidates(c).len(), c))
            else {
                self.solutions += 1;
                self.first.get_or_insert(self.grid);
                return self.solutions >= self.max;
            };
            for digit in self.candidates(cell) {
                self.nodes += 1;
                self.grid.set(cell, digit);
                let stop = self.fill();
                self.grid.set(cell, 0);
                if stop {
                    return true;
                }
            }
            false
        }
    }

    #[test]
    fn matches_a_plain_statement_of_the_method() {
        // The masks, the shuffled list of empty cells and the early exit must not change
        // which cell is chosen or in what order digits are tried.
        let mut s = make();
        for puzzle in [
            testkit::EASY,
            testkit::UNSOLVABLE,
            testkit::TWO_SOLUTIONS,
            testkit::HARD,
            testkit::HARDEST,
        ] {
            for max in [1, 2, 10] {
                let p = grid(puzzle);
                let mut r = Reference {
                    grid: p,
                    nodes: 0,
                    solutions: 0,
                    first: None,
                    max,
                };
                r.fill();
                let out = s.solve(&p, &limits(max));
                assert_eq!(
                    (out.solutions, out.first, out.nodes),
                    (r.solutions, r.first, r.nodes),
                    "{puzzle} with limit {max}"
                );
            }
        }
    }
}
