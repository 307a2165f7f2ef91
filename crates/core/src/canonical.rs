//! `canonical`: the minimal form of a grid under the Sudoku symmetries, so that puzzles that
//! are the same up to relabelling digits, permuting rows within bands and columns within
//! stacks, permuting bands and stacks, and transposing get one representative.
//!
//! The minimal form is the lexicographically smallest row-major string of cells (blank = 0)
//! over all 2 x 1296 x 1296 cell permutations, with digits relabelled 1, 2, 3, ... in order
//! of first appearance (for a fixed cell permutation that relabelling is the smallest). The
//! search is exact but pruned: for each transposition and column permutation, output rows
//! are chosen one at a time keeping only the candidates whose relabelled row is smallest,
//! and a branch is dropped as soon as its prefix is larger than the best form found so far.

use crate::grid::{Grid, PERMUTATIONS_OF_3};
use crate::permute::line_order;

/// The 1296 orders of lines (rows or columns) that keep bands (stacks) together.
fn line_orders() -> Vec<[usize; 9]> {
    let mut out = Vec::with_capacity(1296);
    for bands in PERMUTATIONS_OF_3 {
        for a in PERMUTATIONS_OF_3 {
            for b in PERMUTATIONS_OF_3 {
                for c in PERMUTATIONS_OF_3 {
                    out.push(line_order(bands, [a, b, c]));
                }
            }
        }
    }
    out
}

/// Relabelling state: `map[d]` is the new label of digit `d` (0: not met yet).
#[derive(Clone, Copy)]
struct Labels {
    map: [u8; 10],
    next: u8,
}

impl Labels {
    const NEW: Labels = Labels {
        map: [0; 10],
        next: 1,
    };

    /// Row `row` of `cells` under column order `cols`, relabelled (extending `self`).
    fn row(&mut self, cells: &[u8; 81], row: usize, cols: &[usize; 9]) -> [u8; 9] {
        let mut out = [0u8; 9];
        for (k, &c) in cols.iter().enumerate() {
            let d = cells[row * 9 + c] as usize;
            if d != 0 {
                if self.map[d] == 0 {
                    self.map[d] = self.next;
                    self.next += 1;
                }
                out[k] = self.map[d];
            }
        }
        out
    }
}

struct Search<'a> {
    cells: &'a [u8; 81],
    cols: &'a [usize; 9],
    cur: [u8; 81],
    best: [u8; 81],
    /// A complete form has been stored in `best`.
    have_best: bool,
}

impl Search<'_> {
    /// Choose output row `k` from the unused rows (`used` bit mask); `band` is the input
    /// band that output rows `k - k % 3 ..` come from.
    ///
    /// Invariant: `cur[..9k]` is never larger than `best[..9k]` (a larger prefix is pruned,
    /// and `best` only changes to leaves below the current node, which share its prefix).
    fn rows(&mut self, k: usize, used: u16, band: usize, labels: Labels) {
        if k == 9 {
            if !self.have_best || self.cur < self.best {
                self.best = self.cur;
                self.have_best = true;
            }
            return;
        }
        let mut tried: [(usize, [u8; 9], Labels); 9] = [(0, [0; 9], Labels::NEW); 9];
        let mut n = 0;
        for r in 0..9 {
            let free = used & (1 << r) == 0;
            let allowed = if k.is_multiple_of(3) {
                // A new band: any row of a band not used yet.
                (used >> (r / 3 * 3)) & 0b111 == 0
            } else {
                r / 3 == band
            };
            if free && allowed {
                let mut l = labels;
                let row = l.row(self.cells, r, self.cols);
                tried[n] = (r, row, l);
                n += 1;
            }
        }
        // Only the candidates with the smallest relabelled row can lead to the minimum.
        let Some(min) = tried[..n].iter().map(|t| t.1).min() else {
            return;
        };
        for &(r, row, l) in &tried[..n] {
            if row != min {
                continue;
            }
            // Re-checked per sibling: an earlier sibling may have lowered `best`.
            if self.have_best
                && self.cur[..k * 9] == self.best[..k * 9]
                && row[..] > self.best[k * 9..k * 9 + 9]
            {
                return;
            }
            self.cur[k * 9..k * 9 + 9].copy_from_slice(&row);
            self.rows(k + 1, used | (1 << r), r / 3, l);
        }
    }
}

/// The minimal form of `grid` (see the module docs). Equivalent grids, and only those, have
/// the same minimal form.
pub fn minimal_form(grid: &Grid) -> Grid {
    let orders = line_orders();
    let cells = *grid.cells();
    let mut transposed = [0u8; 81];
    for (i, t) in transposed.iter_mut().enumerate() {
        *t = cells[(i % 9) * 9 + i / 9];
    }
    let mut best: Option<[u8; 81]> = None;
    for source in [&cells, &transposed] {
        for cols in &orders {
            let mut search = Search {
                cells: source,
                cols,
                cur: [0; 81],
                best: best.unwrap_or([0; 81]),
                have_best: best.is_some(),
            };
            search.rows(0, 0, 0, Labels::NEW);
            if search.have_best {
                best = Some(search.best);
            }
        }
    }
    Grid::from_cells(best.unwrap_or(cells)).expect("relabelled cells are digits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const P: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";

    fn grid(s: &str) -> Grid {
        Grid::parse(s.as_bytes()).unwrap()
    }

    /// A random symmetry of `g`.
    fn scramble(g: &Grid, rng: &mut Rng) -> Grid {
        crate::permute::Transform::random(rng).apply(g)
    }

    /// The minimum over every cell permutation, by brute force.
    fn brute_force(g: &Grid) -> Grid {
        let orders = line_orders();
        let cells = *g.cells();
        let mut best = [10u8; 81];
        for transpose in [false, true] {
            for rows in &orders {
                for cols in &orders {
                    let mut l = Labels::NEW;
                    let mut cur = [0u8; 81];
                    let mut less = false;
                    let mut pruned = false;
                    for r in 0..9 {
                        for c in 0..9 {
                            let (sr, sc) = (rows[r], cols[c]);
                            let i = if transpose { sc * 9 + sr } else { sr * 9 + sc };
                            let d = cells[i] as usize;
                            let v = if d == 0 {
                                0
                            } else {
                                if l.map[d] == 0 {
                                    l.map[d] = l.next;
                                    l.next += 1;
                                }
                                l.map[d]
                            };
                            cur[r * 9 + c] = v;
                            if !less {
                                if v > best[r * 9 + c] {
                                    pruned = true;
                                    break;
                                }
                                less = v < best[r * 9 + c];
                            }
                        }
                        if pruned {
                            break;
                        }
                    }
                    if !pruned && less {
                        best = cur;
                    }
                }
            }
        }
        Grid::from_cells(best).unwrap()
    }

    #[test]
    fn line_orders_are_the_1296_band_preserving_permutations() {
        let orders = line_orders();
        let mut sorted = orders.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 1296);
        for o in &orders {
            for band in 0..3 {
                let b = o[band * 3] / 3;
                assert!(o[band * 3..band * 3 + 3].iter().all(|&r| r / 3 == b));
            }
        }
    }

    #[test]
    fn minimal_form_is_the_brute_force_minimum() {
        let mut rng = Rng::from_seed(3);
        for g in [grid(P), scramble(&grid(P), &mut rng)] {
            assert_eq!(minimal_form(&g), brute_force(&g), "{g}");
        }
    }

    #[test]
    fn equivalent_puzzles_share_a_form_and_others_do_not() {
        let mut rng = Rng::from_seed(9);
        let p = grid(P);
        let form = minimal_form(&p);
        assert_eq!(form.clues(), p.clues());
        assert_eq!(minimal_form(&form), form);
        for _ in 0..20 {
            assert_eq!(minimal_form(&scramble(&p, &mut rng)), form);
        }
        // Moving one clue to another blank cell gives a puzzle that is not equivalent: the
        // brute force says so, and so must the pruned search.
        let mut q = p;
        q.set(0, 0);
        q.set(1, 4);
        assert_eq!(minimal_form(&q), brute_force(&q));
        assert_ne!(brute_force(&q), brute_force(&p));
        assert_ne!(minimal_form(&q), form);
    }
}
