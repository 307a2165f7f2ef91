//! `Transform`: one of the Sudoku symmetries (digit relabelling, rows within bands, columns
//! within stacks, bands, stacks, transposition), drawn at random, for `run --permute`.
//!
//! A solver may happen to suit the orientation a corpus was written in (the order it
//! fills cells or tries digits in); solving each puzzle as a random equivalent grid, as
//! tdoku's benchmark does by default, keeps that luck out of its time. Every symmetry maps
//! puzzles to puzzles with the same number of solutions and maps each solution of a
//! puzzle to a solution of its image, so counts and statuses do not change; the effort of
//! a search (nodes, guesses) may.

use crate::grid::Grid;
use crate::rng::Rng;

/// One element of the Sudoku symmetry group (9! x 6^8 x 2 of them): output cell `i` takes
/// the digit of input cell `source[i]`, relabelled by `digits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Transform {
    /// Input cell of each output cell: a permutation of `0..81`.
    source: [u8; 81],
    /// New label of each digit; `digits[0]` is 0 (a blank stays blank).
    digits: [u8; 10],
}

/// The order of nine lines (rows or columns) that puts band (stack) `outer[slot]` in slot
/// `slot`, its lines in the order `inner[slot]`: the shape of every order that keeps bands
/// together.
pub(crate) fn line_order(outer: [usize; 3], inner: [[usize; 3]; 3]) -> [usize; 9] {
    let mut order = [0; 9];
    for (slot, &band) in outer.iter().enumerate() {
        for k in 0..3 {
            order[slot * 3 + k] = band * 3 + inner[slot][k];
        }
    }
    order
}

/// Mixed into the seed so that `--permute 7` does not draw the very streams `generate
/// --seed 7` draws for its puzzles (the same `Rng::for_index` of one seed and index).
const STREAM: u64 = 0x7065_726d_7574_6521; // "permute!"

impl Transform {
    /// The identity: every grid maps to itself.
    #[cfg(test)]
    pub const IDENTITY: Transform = {
        let mut source = [0u8; 81];
        let mut i = 0;
        while i < 81 {
            source[i] = i as u8;
            i += 1;
        }
        Transform {
            source,
            digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        }
    };

    /// A transform drawn uniformly from the group: each part (the digits, each band's rows,
    /// the bands, each stack's columns, the stacks, the transposition) independently.
    pub fn random(rng: &mut Rng) -> Transform {
        let mut digits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        rng.shuffle(&mut digits[1..]);
        let mut lines = || {
            let mut outer = [0, 1, 2];
            rng.shuffle(&mut outer);
            let mut inner = [[0, 1, 2]; 3];
            for within in &mut inner {
                rng.shuffle(within);
            }
            line_order(outer, inner)
        };
        let rows = lines();
        let cols = lines();
        let transpose = rng.below(2) == 1;
        let mut source = [0u8; 81];
        for (i, s) in source.iter_mut().enumerate() {
            let (r, c) = (rows[i / 9], cols[i % 9]);
            *s = if transpose { c * 9 + r } else { r * 9 + c } as u8;
        }
        Transform { source, digits }
    }

    /// The transform `run --permute seed` applies to the record of line `line`: the same
    /// for every strategy, whatever the order the records are solved in.
    pub(crate) fn for_line(seed: u64, line: u64) -> Transform {
        Transform::random(&mut Rng::for_index(seed ^ STREAM, line))
    }

    /// The image of `grid`.
    pub(crate) fn apply(&self, grid: &Grid) -> Grid {
        let cells = grid.cells();
        let mut out = Grid::EMPTY;
        for (i, &s) in self.source.iter().enumerate() {
            out.set(i, self.digits[cells[s as usize] as usize]);
        }
        out
    }

    /// The grid whose image is `grid`: `unapply(&apply(g)) == g`.
    pub(crate) fn unapply(&self, grid: &Grid) -> Grid {
        self.inverse().apply(grid)
    }

    /// The transform that undoes this one.
    pub(crate) fn inverse(&self) -> Transform {
        let mut source = [0u8; 81];
        for (i, &s) in self.source.iter().enumerate() {
            source[s as usize] = i as u8;
        }
        let mut digits = [0u8; 10];
        for (d, &to) in self.digits.iter().enumerate() {
            digits[to as usize] = d as u8;
        }
        Transform { source, digits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::box_of;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn grid(s: &str) -> Grid {
        Grid::parse(s.as_bytes()).unwrap()
    }

    fn draws(n: u64) -> impl Iterator<Item = Transform> {
        (0..n).map(|line| Transform::for_line(11, line))
    }

    /// The order of rows (by where output row `r`'s cells come from) and whether the
    /// transform transposes: read back from `source`.
    fn rows_and_transpose(t: &Transform) -> ([usize; 9], bool) {
        let transpose = t.source[1] as usize % 9 == t.source[0] as usize % 9;
        let rows = std::array::from_fn(|r| {
            let s = t.source[r * 9] as usize;
            if transpose {
                s % 9
            } else {
                s / 9
            }
        });
        (rows, transpose)
    }

    #[test]
    fn a_transform_permutes_the_cells_and_the_digits() {
        for t in draws(200) {
            let mut cells = t.source;
            cells.sort_unstable();
            assert!(cells.iter().enumerate().all(|(i, &c)| c as usize == i));
            let mut digits = t.digits;
            digits.sort_unstable();
            assert_eq!(digits, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
            assert_eq!(t.digits[0], 0, "a blank stays blank");
        }
    }

    #[test]
    fn houses_map_to_houses() {
        // The cells of every row, column and box land together in one house: the rules,
        // and so the solutions, are kept.
        for t in draws(200) {
            let inv = t.inverse();
            for house in 0..27 {
                let cells: Vec<usize> = (0..81)
                    .filter(|&i| match house {
                        0..9 => i / 9 == house,
                        9..18 => i % 9 == house - 9,
                        _ => box_of(i) == house - 18,
                    })
                    .map(|i| inv.source[i] as usize)
                    .collect();
                let same = |f: fn(usize) -> usize| cells.iter().all(|&c| f(c) == f(cells[0]));
                assert!(
                    same(|c| c / 9) || same(|c| c % 9) || same(box_of),
                    "house {house} of {t:?}"
                );
            }
        }
    }

    #[test]
    fn a_solution_maps_to_a_solution_of_the_image_and_back() {
        let (puzzle, solution) = (grid(PUZZLE), grid(SOLUTION));
        assert!(solution.is_solution_of(&puzzle));
        for t in draws(500) {
            let (p, s) = (t.apply(&puzzle), t.apply(&solution));
            assert_eq!(p.clues(), puzzle.clues());
            assert!(p.conflict().is_none());
            assert!(s.is_solution_of(&p), "{t:?}");
            assert_eq!(t.unapply(&p), puzzle);
            assert_eq!(t.unapply(&s), solution);
            assert_eq!(t.inverse().inverse(), t);
        }
    }

    #[test]
    fn distinct_grids_stay_distinct() {
        // A bijection: two grids that differ in one cell have images that differ.
        let puzzle = grid(PUZZLE);
        let mut other = puzzle;
        other.set(2, 4);
        for t in draws(100) {
            assert_ne!(t.apply(&puzzle), t.apply(&other));
        }
    }

    #[test]
    fn identity_changes_nothing_and_random_ones_change_every_part() {
        assert_eq!(Transform::IDENTITY.apply(&grid(PUZZLE)), grid(PUZZLE));
        assert_eq!(Transform::IDENTITY.inverse(), Transform::IDENTITY);
        let n = 1000;
        let (mut digits, mut rows, mut transposed) = (0, 0, 0);
        for t in draws(n) {
            digits += (t.digits != Transform::IDENTITY.digits) as u64;
            let (order, transpose) = rows_and_transpose(&t);
            rows += (order != [0, 1, 2, 3, 4, 5, 6, 7, 8]) as u64;
            transposed += transpose as u64;
        }
        assert!(digits > n * 99 / 100, "{digits}");
        assert!(rows > n * 99 / 100, "{rows}");
        assert!(
            (n * 4 / 10..n * 6 / 10).contains(&transposed),
            "{transposed}"
        );
    }

    #[test]
    fn each_label_and_each_order_comes_up_evenly() {
        let n = 5400;
        let mut label_of_1 = [0u32; 10];
        let mut band_orders = std::collections::HashMap::new();
        let mut first_row_in_band = [0u32; 3];
        let mut first_column = [0u32; 9];
        for t in draws(n as u64) {
            label_of_1[t.digits[1] as usize] += 1;
            let (rows, transpose) = rows_and_transpose(&t);
            *band_orders
                .entry([rows[0] / 3, rows[3] / 3, rows[6] / 3])
                .or_insert(0u32) += 1;
            first_row_in_band[rows[0] % 3] += 1;
            let s = t.source[0] as usize;
            first_column[if transpose { s / 9 } else { s % 9 }] += 1;
        }
        // Expected n/9, n/6, n/3 and n/9; each within about five standard deviations.
        assert_eq!(label_of_1[0], 0);
        assert!(
            label_of_1[1..].iter().all(|&k| (480..720).contains(&k)),
            "{label_of_1:?}"
        );
        assert_eq!(band_orders.len(), 6, "{band_orders:?}");
        assert!(
            band_orders.values().all(|&k| (750..1050).contains(&k)),
            "{band_orders:?}"
        );
        assert!(first_row_in_band.iter().all(|&k| (1650..1950).contains(&k)));
        assert!(
            first_column.iter().all(|&k| (480..720).contains(&k)),
            "{first_column:?}"
        );
    }

    #[test]
    fn the_transform_of_a_line_depends_on_the_seed_and_the_line_only() {
        assert_eq!(Transform::for_line(7, 3), Transform::for_line(7, 3));
        assert_ne!(Transform::for_line(7, 3), Transform::for_line(7, 4));
        assert_ne!(Transform::for_line(7, 3), Transform::for_line(8, 3));
    }
}
