//! Puzzle generation: random complete grids, then clues removed in random order while the
//! puzzle keeps exactly one solution.
//!
//! Reproducibility is the point: puzzle `i` of a corpus depends only on `(seed, i)` (each
//! index gets its own RNG stream), never on the thread that made it or on the order puzzles
//! were made in, so the same seed gives the same bytes on any thread count and machine. The
//! RNG is the crate's one [`Rng`], written out rather than taken from a crate, so that no
//! dependency upgrade can ever change a generated corpus.
//! The uniqueness checks use any `Strategy`: every strategy counts solutions the same way, so
//! the choice changes the speed, not the output.

use crate::grid::Grid;
use crate::rng::Rng;
use crate::strategy::{Limits, Strategy};

/// Which cells must be removed together, so that the givens keep a symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symmetry {
    /// No constraint.
    #[default]
    None,
    /// Half-turn: cell (r, c) with (8-r, 8-c).
    Rot180,
    /// Quarter-turn: the four cells of each orbit under 90° rotation.
    Rot90,
    /// Left-right mirror: (r, c) with (r, 8-c).
    Mirror,
    /// Main diagonal: (r, c) with (c, r).
    Diagonal,
}

impl Symmetry {
    /// The cells that go with `cell` (itself included), sorted, without repeats.
    pub fn orbit(self, cell: usize) -> Vec<usize> {
        let (r, c) = (cell / 9, cell % 9);
        let mut cells = match self {
            Symmetry::None => vec![cell],
            Symmetry::Rot180 => vec![cell, (8 - r) * 9 + (8 - c)],
            Symmetry::Rot90 => vec![
                cell,
                c * 9 + (8 - r),
                (8 - r) * 9 + (8 - c),
                (8 - c) * 9 + r,
            ],
            Symmetry::Mirror => vec![cell, r * 9 + (8 - c)],
            Symmetry::Diagonal => vec![cell, c * 9 + r],
        };
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The orbits that partition the 81 cells, each listed once, in cell order.
    pub fn orbits(self) -> Vec<Vec<usize>> {
        // An orbit is listed at its smallest cell.
        (0..81)
            .map(|cell| self.orbit(cell))
            .enumerate()
            .filter(|(cell, orbit)| orbit[0] == *cell)
            .map(|(_, orbit)| orbit)
            .collect()
    }
}

/// How puzzles are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The corpus: the same seed makes the same puzzles.
    pub seed: u64,
    /// Which cells are removed together.
    pub symmetry: Symmetry,
    /// Stop removing clues at `min_clues`; reject (and try again) puzzles with more than
    /// `max_clues`. With the defaults (0 and 81) every puzzle is minimal.
    pub min_clues: usize,
    /// See `min_clues`.
    pub max_clues: usize,
    /// Give up on a puzzle after this many tries at the clue range.
    pub max_attempts: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 0,
            symmetry: Symmetry::None,
            min_clues: 0,
            max_clues: 81,
            max_attempts: 10_000,
        }
    }
}

/// One generated puzzle and its unique solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle, with exactly one solution.
    pub puzzle: Grid,
    /// Its solution.
    pub solution: Grid,
}

/// Why a puzzle could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error(
        "puzzle {index}: no puzzle with {min}..={max} clues after {attempts} attempts; \
         widen --clues"
    )]
    /// Every attempt at puzzle `index` had a clue count outside `min..=max`.
    ClueRange {
        /// The puzzle's index in the corpus.
        index: u64,
        /// The clue range asked for.
        min: usize,
        /// See `min`.
        max: usize,
        /// Attempts made.
        attempts: u32,
    },
}

/// Limits for the uniqueness checks: two solutions tell unique from multiple, and a puzzle
/// that comes from a complete grid always has at least one, so no search can fail to end.
const UNIQUE: Limits = Limits {
    max_solutions: 2,
    max_nodes: u64::MAX,
    timeout: None,
};

/// Puzzle `index` of the corpus `settings` describes, checking uniqueness with `solver`.
pub fn generate(
    settings: &Settings,
    index: u64,
    solver: &mut dyn Strategy,
) -> Result<Generated, GenerateError> {
    let mut rng = Rng::for_index(settings.seed, index);
    let mut orbits = settings.symmetry.orbits();
    for _ in 0..settings.max_attempts {
        let solution = random_solution(&mut rng);
        rng.shuffle(&mut orbits);
        let mut puzzle = solution;
        let mut clues = 81;
        for orbit in &orbits {
            if clues - orbit.len() < settings.min_clues {
                continue;
            }
            for &cell in orbit {
                puzzle.set(cell, 0);
            }
            if solver.solve(&puzzle, &UNIQUE).solutions == 1 {
                clues -= orbit.len();
            } else {
                for &cell in orbit {
                    puzzle.set(cell, solution.get(cell));
                }
            }
        }
        if clues <= settings.max_clues {
            return Ok(Generated { puzzle, solution });
        }
    }
    Err(GenerateError::ClueRange {
        index,
        min: settings.min_clues,
        max: settings.max_clues,
        attempts: settings.max_attempts,
    })
}

/// A uniformly shuffled, but not uniformly distributed, complete grid: fewest-candidates
/// backtracking from the empty grid with digits tried in random order.
pub fn random_solution(rng: &mut Rng) -> Grid {
    let mut grid = Grid::EMPTY;
    let mut masks = [0u16; 27];
    // An empty grid always completes, so the search cannot fail.
    let done = fill(&mut grid, &mut masks, rng);
    debug_assert!(done);
    grid
}

fn houses(cell: usize) -> [usize; 3] {
    [cell / 9, 9 + cell % 9, 18 + crate::grid::box_of(cell)]
}

fn fill(grid: &mut Grid, masks: &mut [u16; 27], rng: &mut Rng) -> bool {
    let mut best: Option<(usize, u16)> = None;
    for cell in 0..81 {
        if grid.get(cell) != 0 {
            continue;
        }
        let [a, b, c] = houses(cell);
        let free = !(masks[a] | masks[b] | masks[c]) & 0x1ff;
        if best.is_none_or(|(_, m)| free.count_ones() < m.count_ones()) {
            best = Some((cell, free));
            if free.count_ones() <= 1 {
                break;
            }
        }
    }
    let Some((cell, free)) = best else {
        return true;
    };
    let mut digits: Vec<u8> = (1..=9u8).filter(|d| free & (1 << (d - 1)) != 0).collect();
    rng.shuffle(&mut digits);
    let [a, b, c] = houses(cell);
    for d in digits {
        let bit = 1u16 << (d - 1);
        grid.set(cell, d);
        masks[a] |= bit;
        masks[b] |= bit;
        masks[c] |= bit;
        if fill(grid, masks, rng) {
            return true;
        }
        masks[a] &= !bit;
        masks[b] &= !bit;
        masks[c] &= !bit;
        grid.set(cell, 0);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy;

    fn solver(name: &str) -> Box<dyn Strategy> {
        strategy::by_name(name).unwrap().make()
    }

    #[test]
    fn random_solutions_are_complete_valid_and_differ() {
        let mut rng = Rng::from_seed(1);
        let a = random_solution(&mut rng);
        let b = random_solution(&mut rng);
        for g in [a, b] {
            assert!(g.is_complete() && g.conflict().is_none(), "{g}");
        }
        assert_ne!(a, b);
    }

    #[test]
    fn orbits_partition_the_cells() {
        for sym in [
            Symmetry::None,
            Symmetry::Rot180,
            Symmetry::Rot90,
            Symmetry::Mirror,
            Symmetry::Diagonal,
        ] {
            let mut cells: Vec<usize> = sym.orbits().concat();
            cells.sort_unstable();
            assert_eq!(cells, (0..81).collect::<Vec<_>>(), "{sym:?}");
        }
    }

    #[test]
    fn puzzles_are_unique_minimal_and_depend_only_on_seed_and_index() {
        let settings = Settings {
            seed: 42,
            ..Settings::default()
        };
        let mut dlx = solver("dlx");
        let mut bitmask = solver("bitmask");
        for index in 0..20 {
            let g = generate(&settings, index, dlx.as_mut()).unwrap();
            assert!(g.solution.is_solution_of(&g.puzzle));
            for s in [dlx.as_mut(), bitmask.as_mut()] {
                let out = s.solve(&g.puzzle, &UNIQUE);
                assert_eq!((out.solutions, out.first), (1, Some(g.solution)));
            }
            for cell in (0..81).filter(|&c| g.puzzle.get(c) != 0) {
                let mut fewer = g.puzzle;
                fewer.set(cell, 0);
                assert_eq!(bitmask.solve(&fewer, &UNIQUE).solutions, 2, "not minimal");
            }
            // Another strategy, and another order, give the same puzzle.
            assert_eq!(generate(&settings, index, bitmask.as_mut()).unwrap(), g);
        }
        let other = Settings {
            seed: 43,
            ..settings.clone()
        };
        assert_ne!(
            generate(&settings, 0, dlx.as_mut()).unwrap(),
            generate(&other, 0, dlx.as_mut()).unwrap()
        );
    }

    #[test]
    fn symmetry_and_clue_range_are_kept() {
        let mut dlx = solver("dlx");
        let settings = Settings {
            seed: 5,
            symmetry: Symmetry::Rot180,
            min_clues: 30,
            max_clues: 34,
            ..Settings::default()
        };
        for index in 0..10 {
            let g = generate(&settings, index, dlx.as_mut()).unwrap();
            assert!((30..=34).contains(&g.puzzle.clues()), "{}", g.puzzle);
            for cell in 0..81 {
                let twin = 80 - cell;
                assert_eq!(g.puzzle.get(cell) == 0, g.puzzle.get(twin) == 0);
            }
            assert_eq!(dlx.solve(&g.puzzle, &UNIQUE).solutions, 1);
        }
    }

    #[test]
    fn an_impossible_clue_range_is_an_error_not_a_hang() {
        let mut dlx = solver("dlx");
        let settings = Settings {
            seed: 5,
            min_clues: 0,
            max_clues: 10,
            max_attempts: 2,
            ..Settings::default()
        };
        assert!(matches!(
            generate(&settings, 0, dlx.as_mut()),
            Err(GenerateError::ClueRange { attempts: 2, .. })
        ));
    }
}
