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

use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::{box_of, Grid};

pub(super) const INFO: StrategyInfo = StrategyInfo {
    name: "stack",
    about: "iterative backtracking over the empty cells in row-major order, houses kept \
            as 9-bit masks",
    nodes_unit: "digits placed by the search (naive's count)",
    counts_guesses: false,
    make,
};

fn make() -> Box<dyn Strategy> {
    Box::new(Stack::new())
}

const ALL_DIGITS: u16 = 0x1ff;

struct Stack {
    /// Besides the board, the digits on the stack: the digit now in `empty[k]` is what
    /// position `k` has tried so far.
    grid: Grid,
    /// Used digits per house: bit `d - 1` for digit `d`.
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    /// The puzzle's empty cells in row-major order; `empty[..len]` is the stack.
    empty: [u8; 81],
    len: usize,
}

impl Stack {
    fn new() -> Stack {
        Stack {
            grid: Grid::EMPTY,
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            empty: [0; 81],
            len: 0,
        }
    }

    fn load(&mut self, puzzle: &Grid) {
        self.grid = *puzzle;
        self.rows = [0; 9];
        self.cols = [0; 9];
        self.boxes = [0; 9];
        self.len = 0;
        for (cell, &digit) in puzzle.cells().iter().enumerate() {
            if digit == 0 {
                self.empty[self.len] = cell as u8;
                self.len += 1;
            } else {
                self.toggle(cell, digit);
            }
        }
    }

    /// Flip `digit`'s bit in the three houses of `cell`: marks it used on placement and
    /// free again on removal, as the search only removes what it placed.
    #[inline]
    fn toggle(&mut self, cell: usize, digit: u8) {
        let bit = 1 << (digit - 1);
        self.rows[cell / 9] ^= bit;
        self.cols[cell % 9] ^= bit;
        self.boxes[box_of(cell)] ^= bit;
    }

    /// Take the digit off the cell at stack position `k`; returns it.
    #[inline]
    fn remove(&mut self, k: usize) -> u8 {
        let cell = self.empty[k] as usize;
        let digit = self.grid.get(cell);
        self.toggle(cell, digit);
        self.grid.set(cell, 0);
        digit
    }

    fn search(&mut self, budget: &mut Budget, tally: &mut Tally) {
        // `k` is the stack position being filled; `above` the digit last tried there
        // (0 when the cursor has just moved forward onto it).
        let mut k = 0;
        let mut above = 0u8;
        loop {
            if k == self.len {
                if tally.found(&self.grid) || k == 0 {
                    return;
                }
                // Look for further solutions: resume at the last cell, past its digit.
                k -= 1;
                above = self.remove(k);
                continue;
            }
            let cell = self.empty[k] as usize;
            let used = self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)];
            // Allowed digits greater than `above`: bits `above..9`.
            let free = !used & ALL_DIGITS & (ALL_DIGITS << above);
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
            self.grid.set(cell, digit);
            self.toggle(cell, digit);
            k += 1;
            above = 0;
        }
    }
}

impl Strategy for Stack {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        self.load(puzzle);
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
        testkit::conformance(INFO.make, false);
    }

    #[test]
    fn walks_naives_search_tree() {
        assert_same_search_as_naive(INFO.make);
    }
}
