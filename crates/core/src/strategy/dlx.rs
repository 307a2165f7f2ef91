//! `dlx`: Knuth's Algorithm X with dancing links (D. E. Knuth, "Dancing Links",
//! *Millennial Perspectives in Computer Science*, 2000; arXiv cs/0011047) over the
//! exact-cover form of Sudoku.
//!
//! The matrix has 324 columns and 729 rows of 4 nodes each:
//!
//! ```text
//! columns   0..81   cell      cell = 9*r + c           "cell has a digit"
//!          81..162  row-digit 81  + 9*r + (d-1)        "row r has digit d"
//!         162..243  col-digit 162 + 9*c + (d-1)        "column c has digit d"
//!         243..324  box-digit 243 + 9*b + (d-1)        "box b has digit d"
//! rows      9*cell + (d-1) for each cell and digit d, with one node in each of the
//!           four columns above, in that order; within a column, rows run in
//!           increasing order.
//! ```
//!
//! Each puzzle restores the whole matrix from a pristine template, covers the givens'
//! rows, then searches, always branching on the uncovered column with the fewest rows
//! (ties: the first in the header list, i.e. the lowest column number).
//!
//! `nodes` counts the rows the search selects into the partial solution (one per
//! `Budget::spend`); the givens' rows, covered before the search, are not counted, so a
//! complete grid takes 0 nodes. `guesses` counts those selections made from a column that
//! held 2 or more rows at the time.

use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::{box_of, Grid};

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "dlx",
    "Knuth's Algorithm X with dancing links on the 324-column exact-cover matrix, \
            branching on the column with the fewest rows",
    "rows selected by the search (givens excluded)",
    true,
    || Box::new(Dlx::new()),
);

const COLUMNS: usize = 324;
const ROWS: usize = 729;
/// Index of the root of the header list; column `c` has its header at `1 + c`.
const ROOT: usize = 0;
/// Index of the first row node: row `r` owns nodes `FIRST_ROW_NODE + 4*r ..+4`.
const FIRST_ROW_NODE: usize = 1 + COLUMNS;
const NODES: usize = FIRST_ROW_NODE + 4 * ROWS;
/// At most one row per cell is selected, so the search is never deeper than 81.
const MAX_DEPTH: usize = 81;

// Every link fits in a u16.
const _: () = assert!(NODES <= u16::MAX as usize);

/// A node of the toroidal lists. Header nodes use `left`/`right` for the header list and
/// `up`/`down` for their column; `col` is the header of the node's column (the root's
/// is unused). Kept together so that a cover touches one small record per node.
#[derive(Clone, Copy, Default)]
struct Node {
    left: u16,
    right: u16,
    up: u16,
    down: u16,
    col: u16,
}

pub struct Dlx {
    /// The live matrix, damaged by covers during a search.
    nodes: Box<[Node]>,
    /// Rows still in each column, indexed by header node (entry `ROOT` unused).
    size: Box<[u16]>,
    /// The full matrix, copied into `nodes`/`size` before each puzzle.
    template_nodes: Box<[Node]>,
    template_size: Box<[u16]>,
    /// The row node selected at each level of the search.
    stack: [u16; MAX_DEPTH],
}

impl Default for Dlx {
    fn default() -> Self {
        Dlx::new()
    }
}

/// The four column numbers (0..324) of row `row` = 9*cell + (d-1).
fn row_columns(row: usize) -> [usize; 4] {
    let (cell, d) = (row / 9, row % 9);
    let (r, c) = (cell / 9, cell % 9);
    [
        cell,
        81 + 9 * r + d,
        162 + 9 * c + d,
        243 + 9 * box_of(cell) + d,
    ]
}

impl Dlx {
    pub fn new() -> Dlx {
        let mut nodes = vec![Node::default(); NODES].into_boxed_slice();
        let mut size = vec![0u16; 1 + COLUMNS].into_boxed_slice();

        // Header list: root, then columns 0..324 in order, circular.
        for h in 0..=COLUMNS {
            nodes[h] = Node {
                left: if h == 0 { COLUMNS } else { h - 1 } as u16,
                right: if h == COLUMNS { 0 } else { h + 1 } as u16,
                up: h as u16,
                down: h as u16,
                col: h as u16,
            };
        }
        // Rows in increasing order, each node appended at the bottom of its column.
        for row in 0..ROWS {
            let first = FIRST_ROW_NODE + 4 * row;
            for (k, column) in row_columns(row).into_iter().enumerate() {
                let n = first + k;
                let h = 1 + column;
                let bottom = nodes[h].up;
                nodes[n] = Node {
                    left: (first + (k + 3) % 4) as u16,
                    right: (first + (k + 1) % 4) as u16,
                    up: bottom,
                    down: h as u16,
                    col: h as u16,
                };
                nodes[bottom as usize].down = n as u16;
                nodes[h].up = n as u16;
                size[h] += 1;
            }
        }

        Dlx {
            template_nodes: nodes.clone(),
            template_size: size.clone(),
            nodes,
            size,
            stack: [0; MAX_DEPTH],
        }
    }

    /// Remove header `c` from the header list and every row of column `c` from the other
    /// columns it meets.
    #[inline]
    fn cover(&mut self, c: usize) {
        let Node { left, right, .. } = self.nodes[c];
        self.nodes[left as usize].right = right;
        self.nodes[right as usize].left = left;
        let mut i = self.nodes[c].down as usize;
        while i != c {
            let mut j = self.nodes[i].right as usize;
            while j != i {
                let Node { up, down, col, .. } = self.nodes[j];
                self.nodes[up as usize].down = down;
                self.nodes[down as usize].up = up;
                self.size[col as usize] -= 1;
                j = self.nodes[j].right as usize;
            }
            i = self.nodes[i].down as usize;
        }
    }

    /// Undo `cover(c)`, in exactly the reverse order.
    #[inline]
    fn uncover(&mut self, c: usize) {
        let mut i = self.nodes[c].up as usize;
        while i != c {
            let mut j = self.nodes[i].left as usize;
            while j != i {
                let Node { up, down, col, .. } = self.nodes[j];
                self.size[col as usize] += 1;
                self.nodes[up as usize].down = j as u16;
                self.nodes[down as usize].up = j as u16;
                j = self.nodes[j].left as usize;
            }
            i = self.nodes[i].up as usize;
        }
        let Node { left, right, .. } = self.nodes[c];
        self.nodes[left as usize].right = c as u16;
        self.nodes[right as usize].left = c as u16;
    }

    /// Cover the columns of row node `r` other than its own column (already covered).
    #[inline]
    fn select(&mut self, r: usize) {
        let mut j = self.nodes[r].right as usize;
        while j != r {
            self.cover(self.nodes[j].col as usize);
            j = self.nodes[j].right as usize;
        }
    }

    /// Undo `select(r)`.
    #[inline]
    fn deselect(&mut self, r: usize) {
        let mut j = self.nodes[r].left as usize;
        while j != r {
            self.uncover(self.nodes[j].col as usize);
            j = self.nodes[j].left as usize;
        }
    }

    /// The uncovered column with the fewest rows, the first such in the header list;
    /// `None` when every column is covered (a solution).
    #[inline]
    fn choose(&self) -> Option<usize> {
        let mut h = self.nodes[ROOT].right as usize;
        if h == ROOT {
            return None;
        }
        let mut best = h;
        let mut best_size = self.size[h];
        while h != ROOT {
            let s = self.size[h];
            if s < best_size {
                best = h;
                best_size = s;
                if s == 0 {
                    break;
                }
            }
            h = self.nodes[h].right as usize;
        }
        Some(best)
    }

    /// Restore the full matrix and cover the rows of `puzzle`'s givens; `false` when a
    /// given's row meets a column already covered (no exact cover exists).
    fn reset(&mut self, puzzle: &Grid) -> bool {
        self.nodes.copy_from_slice(&self.template_nodes);
        self.size.copy_from_slice(&self.template_size);
        let mut covered = [false; COLUMNS];
        for (cell, &digit) in puzzle.cells().iter().enumerate() {
            if digit == 0 {
                continue;
            }
            let row = 9 * cell + (digit as usize - 1);
            let columns = row_columns(row);
            if columns.iter().any(|&c| covered[c]) {
                return false;
            }
            for c in columns {
                covered[c] = true;
                self.cover(1 + c);
            }
        }
        true
    }

    /// Undo the row selected at `*level - 1` and return the next row of its column,
    /// going down further levels while columns are exhausted (uncovering them);
    /// `None` when the column at level 0 is exhausted too: the search is over.
    fn backtrack(&mut self, level: &mut usize) -> Option<usize> {
        while *level > 0 {
            *level -= 1;
            let prev = self.stack[*level] as usize;
            self.deselect(prev);
            let Node { down, col, .. } = self.nodes[prev];
            if down != col {
                return Some(down as usize);
            }
            self.uncover(col as usize);
        }
        None
    }

    /// `puzzle` with the rows selected at levels `0..depth` written in.
    fn solution(&self, puzzle: &Grid, depth: usize) -> Grid {
        let mut grid = *puzzle;
        for &node in &self.stack[..depth] {
            let row = (node as usize - FIRST_ROW_NODE) / 4;
            grid.set(row / 9, (row % 9) as u8 + 1);
        }
        grid
    }
}

impl Strategy for Dlx {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut budget = Budget::new(limits);
        let mut tally = Tally::new(limits);
        let mut guesses = 0u64;
        if !self.reset(puzzle) {
            return tally.outcome(&budget, guesses);
        }

        // Iterative Algorithm X. Levels `0..level` hold a selected row each (`stack`); the
        // column each was chosen from is covered, and so are the row's other columns.
        // On abort or at the solution limit the search returns without uncovering: the
        // next puzzle restores the matrix from the template anyway.
        let mut level = 0usize;
        loop {
            // Enter `level`: find the row node to try next, backtracking if need be.
            let next = match self.choose() {
                None => {
                    if tally.found(&self.solution(puzzle, level)) {
                        return tally.outcome(&budget, guesses);
                    }
                    self.backtrack(&mut level)
                }
                Some(c) if self.size[c] == 0 => self.backtrack(&mut level),
                Some(c) => {
                    self.cover(c);
                    Some(self.nodes[c].down as usize)
                }
            };
            let Some(r) = next else {
                return tally.outcome(&budget, guesses);
            };
            // Select row `r` at `level`.
            if !budget.spend() {
                return tally.outcome(&budget, guesses);
            }
            // The chosen column is covered, so its size stays as it was when chosen.
            if self.size[self.nodes[r].col as usize] >= 2 {
                guesses += 1;
            }
            self.stack[level] = r as u16;
            self.select(r);
            level += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::testkit;

    #[test]
    fn conformance() {
        testkit::conformance(|| INFO.make(), false);
    }

    fn puzzles(text: &str) -> impl Iterator<Item = Grid> + '_ {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(testkit::grid)
    }

    fn check_unique(puzzles: impl Iterator<Item = Grid>) -> usize {
        let mut s = INFO.make();
        let limits = testkit::limits(2);
        let mut n = 0;
        for p in puzzles {
            let out = s.solve(&p, &limits);
            assert_eq!((out.solutions, out.aborted), (1, None), "{p}");
            assert!(out.first.unwrap().is_solution_of(&p), "{p}");
            n += 1;
        }
        n
    }

    #[test]
    fn top1465_all_unique() {
        let Some(text) = testkit::shared_corpus("puzzles3_magictour_top1465") else {
            return;
        };
        assert_eq!(check_unique(puzzles(&text)), 1465);
    }

    #[test]
    fn seventeen_clue_sample_unique() {
        let Some(text) = testkit::shared_corpus("puzzles2_17_clue") else {
            return;
        };
        assert_eq!(check_unique(puzzles(&text).take(3000)), 3000);
    }

    #[test]
    fn counts_nodes_and_guesses() {
        let mut s = Dlx::new();
        let limits = testkit::limits(2);
        // One blank: a single forced row, not a guess.
        let mut g = testkit::grid(testkit::EASY_SOLUTION);
        g.set(40, 0);
        let out = s.solve(&g, &limits);
        assert_eq!((out.solutions, out.nodes, out.guesses), (1, 1, 0));
        // Two blanks forming no rectangle: still forced, one row each.
        g.set(0, 0);
        let out = s.solve(&g, &limits);
        assert_eq!((out.solutions, out.nodes, out.guesses), (1, 2, 0));
        // The empty grid: the first selection is from a column of 9 rows.
        let out = s.solve(&Grid::EMPTY, &limits);
        assert_eq!(out.solutions, 2);
        assert!(out.nodes >= 82 && out.guesses >= 1 && out.guesses <= out.nodes);
    }

    #[test]
    fn dead_cell_is_unsolvable() {
        // r1c1 has no candidate: row 1 holds 1..8, and r8c1 holds 9. (testkit's
        // DEAD_CELL is meant to be this but is 80 characters long.)
        let p = format!(".12345678{}9{}", ".".repeat(54), ".".repeat(17));
        let out = Dlx::new().solve(&testkit::grid(&p), &testkit::limits(2));
        assert_eq!((out.solutions, out.aborted), (0, None));
    }

    #[test]
    fn node_limit_is_exact() {
        let mut s = Dlx::new();
        let p = testkit::grid(testkit::HARDEST);
        let full = s.solve(&p, &testkit::limits(2));
        assert_eq!((full.solutions, &full.aborted), (1, &None));
        let at = |max_nodes| Limits {
            max_nodes,
            ..testkit::limits(2)
        };
        // Exactly enough nodes: the same outcome.
        assert_eq!(s.solve(&p, &at(full.nodes)), full);
        // One short: aborted having spent them all.
        let out = s.solve(&p, &at(full.nodes - 1));
        assert_eq!(
            (out.nodes, out.aborted),
            (full.nodes - 1, Some(crate::strategy::Abort::NodeLimit))
        );
    }

    #[test]
    fn covered_column_in_givens_is_unsolvable() {
        // Not reachable through Grid::conflict-checked input, but must not panic.
        let mut g = Grid::EMPTY;
        g.set(0, 5);
        g.set(1, 5);
        let out = Dlx::new().solve(&g, &testkit::limits(2));
        assert_eq!((out.solutions, out.nodes, out.aborted), (0, 0, None));
    }
}
