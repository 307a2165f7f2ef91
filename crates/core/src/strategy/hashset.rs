//! `hashset`: naive's backtracker with the rule check answered by hash sets instead of
//! board scans.
//!
//! It follows the same depth-first backtracking algorithm as `naive` (first empty cell in
//! row-major order, digits 1 to 9, recurse, undo), and keeps the digits already used in
//! each of the 27 rows, columns and boxes in a `std::collections::HashSet<u8>`: the rule
//! check is three membership tests, and a placement inserts into three sets and its undo
//! removes from them. This is the bookkeeping many first "optimised" solvers use; the
//! strategy measures what general-purpose sets cost against scanning or bit masks.
//!
//! `nodes` counts the digits the search writes into empty cells, exactly as in `naive`;
//! since the cell and digit order are naive's, so is the count on every puzzle.

use std::collections::HashSet;

use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::{box_of, Grid};

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "hashset",
    "naive's backtracking with the digits of each row, column and box kept in \
            HashSet<u8>",
    "digits placed by the search (rejected digits are not counted)",
    false,
    make,
);

fn make() -> Box<dyn Strategy> {
    Box::new(HashSets::new())
}

struct HashSets {
    grid: Grid,
    rows: [HashSet<u8>; 9],
    cols: [HashSet<u8>; 9],
    boxes: [HashSet<u8>; 9],
}

impl HashSets {
    fn new() -> HashSets {
        // A house never holds more than 9 digits: with room for 9 reserved up front,
        // inserting never reallocates, during the first puzzle or after.
        let sets = || std::array::from_fn(|_| HashSet::with_capacity(9));
        HashSets {
            grid: Grid::EMPTY,
            rows: sets(),
            cols: sets(),
            boxes: sets(),
        }
    }

    /// Make `puzzle` the board and fill the sets from its givens; `clear` keeps each
    /// set's table, so a reused value does not allocate.
    fn load(&mut self, puzzle: &Grid) {
        self.grid = *puzzle;
        for set in self
            .rows
            .iter_mut()
            .chain(&mut self.cols)
            .chain(&mut self.boxes)
        {
            set.clear();
        }
        for (cell, &digit) in puzzle.cells().iter().enumerate() {
            if digit != 0 {
                self.mark(cell, digit);
            }
        }
    }

    fn mark(&mut self, cell: usize, digit: u8) {
        self.rows[cell / 9].insert(digit);
        self.cols[cell % 9].insert(digit);
        self.boxes[box_of(cell)].insert(digit);
    }

    fn unmark(&mut self, cell: usize, digit: u8) {
        self.rows[cell / 9].remove(&digit);
        self.cols[cell % 9].remove(&digit);
        self.boxes[box_of(cell)].remove(&digit);
    }

    fn allowed(&self, cell: usize, digit: u8) -> bool {
        !self.rows[cell / 9].contains(&digit)
            && !self.cols[cell % 9].contains(&digit)
            && !self.boxes[box_of(cell)].contains(&digit)
    }

    /// Fill the empty cells from `from` on; `true` when the whole search must stop (the
    /// solution limit is reached or the budget is spent).
    fn fill(&mut self, from: usize, budget: &mut Budget, tally: &mut Tally) -> bool {
        // Every cell before `from` is filled, so this finds naive's cell.
        let Some(cell) = (from..81).find(|&i| self.grid.get(i) == 0) else {
            return tally.found(&self.grid);
        };
        for digit in 1..=9 {
            if !self.allowed(cell, digit) {
                continue;
            }
            if !budget.spend() {
                return true;
            }
            self.grid.set(cell, digit);
            self.mark(cell, digit);
            let stop = self.fill(cell + 1, budget, tally);
            self.unmark(cell, digit);
            self.grid.set(cell, 0);
            if stop {
                return true;
            }
        }
        false
    }
}

impl Strategy for HashSets {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        self.load(puzzle);
        let mut budget = Budget::new(limits);
        let mut tally = Tally::new(limits);
        self.fill(0, &mut budget, &mut tally);
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
        // Same search tree as naive, so HARD is the same 21 million placements, each
        // dearer; walks_naives_search_tree covers HARDEST.
        testkit::conformance(|| INFO.make(), true);
    }

    #[test]
    fn walks_naives_search_tree() {
        assert_same_search_as_naive(|| INFO.make());
    }
}
