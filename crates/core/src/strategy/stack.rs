//! `stack`: naive's backtracking without recursion, over an explicit stack of the empty
//! cells, with each house's digits kept in a 9-bit mask.
//!
//! It follows the iterative form of chronological backtracking (the "iterative
//! backtracking" of Knuth, *TAOCP* Vol. 4, §7.2.2, Algorithm B, specialised to Sudoku):
//! the empty cells are listed once in row-major order, and a cursor walks that list.
//! Moving forward, it writes the smallest digit the cell's row, column and box allow;
//! when none fits, it steps back to the previous cell, removes its digit and tries the
//! next larger allowed one there. The allowed test is a mask lookup, as in `bitmask`.
//!
//! `nodes` counts the digits the search writes into empty cells. The cells and digits
//! are tried in naive's order, so the search tree and the count are naive's exactly.

use super::masks::{MaskBoard, ALL_DIGITS};
use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::Grid;

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "stack",
    "iterative backtracking over the empty cells in row-major order, houses kept \
            as 9-bit masks",
    "digits placed by the search (naive's count)",
    false,
    make,
);

fn make() -> Box<dyn Strategy> {
    Box::new(Stack::new())
}

struct Stack {
    /// The grid and its house masks; `empty[..len]`, in row-major order, is the stack.
    board: MaskBoard,
}

impl Stack {
    fn new() -> Stack {
        Stack {
            board: MaskBoard::new(),
        }
    }

    /// Take the digit off the cell at stack position `k`; returns it.
    #[inline]
    fn remove(&mut self, k: usize) -> u8 {
        let cell = self.board.empty[k] as usize;
        let digit = self.board.grid.get(cell);
        self.board.toggle(cell, digit);
        self.board.grid.set(cell, 0);
        digit
    }

    fn search(&mut self, budget: &mut Budget, tally: &mut Tally) {
        // `k` is the stack position being filled; `above` the digit last tried there
        // (0 when the cursor has just moved forward onto it).
        let mut k = 0;
        let mut above = 0u8;
        loop {
            if k == self.board.len {
                if tally.found(&self.board.grid) || k == 0 {
                    return;
                }
                // Look for further solutions: resume at the last cell, past its digit.
                k -= 1;
                above = self.remove(k);
                continue;
            }
            let cell = self.board.empty[k] as usize;
            // Allowed digits greater than `above`: bits `above..9`.
            let free = self.board.candidates(cell) & (ALL_DIGITS << above);
            if free == 0 {
                if k == 0 {
                    return;
                }
                k -= 1;
                above = self.remove(k);
                continue;
            }
            if !budget.spend() {
                return;
            }
            let digit = free.trailing_zeros() as u8 + 1;
            self.board.grid.set(cell, digit);
            self.board.toggle(cell, digit);
            k += 1;
            above = 0;
        }
    }
}

impl Strategy for Stack {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        self.board.load(puzzle);
        let mut budget = Budget::new(limits);
        let mut tally = Tally::new(limits);
        self.search(&mut budget, &mut tally);
        tally.outcome(&budget, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::naive::tests::assert_same_search_as_naive;
    use crate::strategy::testkit;

    #[test]
    fn conformance() {
        testkit::conformance(|| INFO.make(), false);
    }

    #[test]
    fn walks_naives_search_tree() {
        assert_same_search_as_naive(|| INFO.make());
    }
}
