//! Puzzle generation: random complete grids, then clues removed in random order while the
//! puzzle keeps exactly one solution ([`Method::Remove`]), or a number of cells kept at
//! random, the puzzle kept only when its solution count is the one asked for
//! ([`Method::Keep`]: what puzzles with many clues are). From a unique puzzle two other
//! classes are made, the ones a uniqueness filter spends its time on: puzzles with several
//! solutions (more clues removed) and puzzles with none whose givens break no rule (one
//! given changed, or one added).
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
    pub(crate) fn orbit(self, cell: usize) -> Vec<usize> {
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
    pub(crate) fn orbits(self) -> Vec<Vec<usize>> {
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
pub struct GenerateSettings {
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
    /// How many solutions the puzzles have.
    pub solutions: Solutions,
    /// How the clues of a complete grid are chosen.
    pub method: Method,
}

/// How the clues of a complete grid are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Clues removed in random order while one solution is left, down to `min_clues`
    /// (minimal puzzles by default); a puzzle left with more than `max_clues` is made
    /// again.
    #[default]
    Remove,
    /// A count of clues drawn uniformly from `min_clues..=max_clues`, kept at random cells
    /// (whole symmetric groups, at most that many), the rest blanked; made again unless the
    /// solution count is the one asked for (one, or two or more for [`Solutions::Many`]).
    Keep,
}

/// The solution count of the generated puzzles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solutions {
    /// Exactly one: the unique puzzle itself (minimal unless the clue range stops it).
    #[default]
    One,
    /// Two or more: the unique puzzle with this many more givens (or symmetric groups of
    /// them) blanked, and more while it still has one solution.
    Many {
        /// Givens (or groups) blanked beyond the unique puzzle; at least 1.
        extra_blanks: usize,
    },
    /// None, with givens that break no rule: the unique puzzle with `extra_blanks` more
    /// givens (or groups) blanked, then one given changed to a digit that its row, column
    /// and box do not hold, chosen so no solution is left.
    None {
        /// Givens (or groups) blanked before one is changed; may be 0.
        extra_blanks: usize,
    },
    /// None, with givens that break no rule: a unique puzzle one clue short of the clue
    /// range (`min_clues - 1 ..= max_clues - 1`) with one given added in an empty cell, a
    /// digit its row, column and box do not hold and not the solution's there, so no
    /// solution is left (checked) and the clue count lies in the range.
    NoneByAdding,
}

impl Default for GenerateSettings {
    fn default() -> Self {
        GenerateSettings {
            seed: 0,
            symmetry: Symmetry::None,
            min_clues: 0,
            max_clues: 81,
            max_attempts: 10_000,
            solutions: Solutions::One,
            method: Method::Remove,
        }
    }
}

/// One generated puzzle and the complete grid it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle, with the solution count the settings ask for.
    pub puzzle: Grid,
    /// The complete grid the puzzle was made from: its unique solution with
    /// [`Solutions::One`], one of its solutions with `Many`, no solution of it with `None`
    /// and `NoneByAdding`.
    pub solution: Grid,
}

/// Why a puzzle could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error(
        "puzzle {index}: no puzzle with {min}..={max} clues{} after {attempts} attempts; \
         widen --clues",
        if *.kept { " and the solution count asked for, from cells kept at random" } else { "" }
    )]
    /// Every attempt at puzzle `index` had a clue count outside `min..=max` (or, with
    /// [`Method::Keep`], another solution count than the one asked for).
    ClueRange {
        /// The puzzle's index in the corpus.
        index: u64,
        /// The clue range asked for.
        min: usize,
        /// See `min`.
        max: usize,
        /// Attempts made.
        attempts: u32,
        /// Whether the cells were kept at random ([`Method::Keep`]).
        kept: bool,
    },
}

/// Limits for the uniqueness checks: two solutions tell unique from multiple, and a puzzle
/// that comes from a complete grid always has at least one, so no search can fail to end.
const UNIQUE: Limits = Limits {
    max_solutions: 2,
    max_nodes: u64::MAX,
    timeout: None,
};

/// Limits that tell a puzzle with no solution from one with some.
const FIRST: Limits = Limits {
    max_solutions: 1,
    ..UNIQUE
};

/// Puzzle `index` of the corpus `settings` describes, checking solution counts with
/// `solver`.
pub fn generate(
    settings: &GenerateSettings,
    index: u64,
    solver: &mut dyn Strategy,
) -> Result<Generated, GenerateError> {
    let mut rng = Rng::for_index(settings.seed, index);
    let mut orbits = settings.symmetry.orbits();
    // The puzzle a given is added to has one clue less than the range asks for.
    let (min, max) = match settings.solutions {
        Solutions::NoneByAdding => (
            settings.min_clues.saturating_sub(1),
            settings.max_clues.saturating_sub(1),
        ),
        _ => (settings.min_clues, settings.max_clues),
    };
    for _ in 0..settings.max_attempts {
        let solution = random_solution(&mut rng);
        let base = match settings.method {
            Method::Remove => Some(remove(&solution, &mut orbits, min, &mut rng, solver)),
            Method::Keep => {
                let want = match settings.solutions {
                    Solutions::Many { .. } => 2,
                    _ => 1,
                };
                keep(&solution, &mut orbits, (min, max), &mut rng)
                    .filter(|p| solver.solve(p, &UNIQUE).solutions == want)
            }
        };
        let Some(puzzle) = base.filter(|p| p.clues() <= max) else {
            continue;
        };
        let puzzle = match (settings.solutions, settings.method) {
            (Solutions::One, _) | (Solutions::Many { .. }, Method::Keep) => Some(puzzle),
            (Solutions::Many { extra_blanks }, Method::Remove) => Some(blank_more(
                puzzle,
                &mut orbits,
                extra_blanks,
                &mut rng,
                solver,
            )),
            (Solutions::None { extra_blanks }, _) => {
                let puzzle = match extra_blanks {
                    0 => puzzle,
                    n => blank_more(puzzle, &mut orbits, n, &mut rng, solver),
                };
                break_one(puzzle, &mut rng, solver)
            }
            (Solutions::NoneByAdding, _) => add_one(puzzle, &solution, &mut rng, solver),
        };
        if let Some(puzzle) = puzzle {
            return Ok(Generated { puzzle, solution });
        }
    }
    Err(GenerateError::ClueRange {
        index,
        min: settings.min_clues,
        max: settings.max_clues,
        attempts: settings.max_attempts,
        kept: settings.method == Method::Keep,
    })
}

/// `solution` with its clues removed (whole `orbits` at a time) in random order while the
/// puzzle keeps one solution, down to `min` clues at the fewest.
fn remove(
    solution: &Grid,
    orbits: &mut [Vec<usize>],
    min: usize,
    rng: &mut Rng,
    solver: &mut dyn Strategy,
) -> Grid {
    rng.shuffle(orbits);
    let mut puzzle = *solution;
    let mut clues = 81;
    for orbit in orbits.iter() {
        if clues - orbit.len() < min {
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
    puzzle
}

/// `solution`'s digits in a number of cells drawn uniformly from `min..=max`, kept at random
/// (whole `orbits`, never more than that number), the others blank; `None` when the orbits
/// cannot make `min`.
fn keep(
    solution: &Grid,
    orbits: &mut [Vec<usize>],
    (min, max): (usize, usize),
    rng: &mut Rng,
) -> Option<Grid> {
    let max = max.min(81);
    if min > max {
        return None;
    }
    let target = min + rng.below((max - min + 1) as u32) as usize;
    rng.shuffle(orbits);
    let mut puzzle = Grid::EMPTY;
    let mut clues = 0;
    for orbit in orbits.iter() {
        if clues == target {
            break;
        }
        if clues + orbit.len() <= target {
            for &cell in orbit {
                puzzle.set(cell, solution.get(cell));
            }
            clues += orbit.len();
        }
    }
    (clues >= min).then_some(puzzle)
}

/// `puzzle` (unique, solved by `solution`) with one given added in an empty cell: a digit
/// its row, column and box do not hold and that is not the solution's there, checked to
/// leave no solution; `None` when no empty cell takes one.
fn add_one(
    puzzle: Grid,
    solution: &Grid,
    rng: &mut Rng,
    solver: &mut dyn Strategy,
) -> Option<Grid> {
    let blanks = (0..81).filter(|&c| puzzle.get(c) == 0).collect();
    // The one solution has another digit there, so none is left; checked all the same, as
    // every class is.
    first_unsolvable(puzzle, blanks, |cell| solution.get(cell), rng, solver)
}

/// `puzzle` (unique) with `extra` more groups of givens blanked, in random order, then more
/// while it still has one solution (it can, when a clue range stopped the removal early).
fn blank_more(
    mut puzzle: Grid,
    orbits: &mut [Vec<usize>],
    extra: usize,
    rng: &mut Rng,
    solver: &mut dyn Strategy,
) -> Grid {
    rng.shuffle(orbits);
    let mut blanked = 0;
    for orbit in orbits.iter() {
        if puzzle.get(orbit[0]) == 0 {
            continue;
        }
        for &cell in orbit {
            puzzle.set(cell, 0);
        }
        blanked += 1;
        if blanked >= extra.max(1) && solver.solve(&puzzle, &UNIQUE).solutions == 2 {
            break;
        }
    }
    puzzle
}

/// `puzzle` (unique) with one given changed to a digit its row, column and box do not hold,
/// such that no solution is left; `None` when no given can be changed so.
fn break_one(puzzle: Grid, rng: &mut Rng, solver: &mut dyn Strategy) -> Option<Grid> {
    let givens = (0..81).filter(|&c| puzzle.get(c) != 0).collect();
    first_unsolvable(puzzle, givens, |cell| puzzle.get(cell), rng, solver)
}

/// `puzzle` with one of `cells` (tried in random order) set to a digit (in random order)
/// other than `other_than(cell)` that breaks no rule, the first such that leaves no
/// solution; `None` when none does. The one search behind `add_one` and `break_one`.
fn first_unsolvable(
    puzzle: Grid,
    mut cells: Vec<usize>,
    other_than: impl Fn(usize) -> u8,
    rng: &mut Rng,
    solver: &mut dyn Strategy,
) -> Option<Grid> {
    rng.shuffle(&mut cells);
    let mut digits: Vec<u8> = (1..=9).collect();
    for cell in cells {
        rng.shuffle(&mut digits);
        for &d in &digits {
            let mut set = puzzle;
            set.set(cell, d);
            if d == other_than(cell) || !set.breaks_no_rule() {
                continue;
            }
            if solver.solve(&set, &FIRST).solutions == 0 {
                return Some(set);
            }
        }
    }
    None
}

/// A uniformly shuffled, but not uniformly distributed, complete grid: fewest-candidates
/// backtracking from the empty grid with digits tried in random order.
pub(crate) fn random_solution(rng: &mut Rng) -> Grid {
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
        let settings = GenerateSettings {
            seed: 42,
            ..GenerateSettings::default()
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
        let other = GenerateSettings {
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
        let settings = GenerateSettings {
            seed: 5,
            symmetry: Symmetry::Rot180,
            min_clues: 30,
            max_clues: 34,
            ..GenerateSettings::default()
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
    fn many_and_none_have_the_counts_asked_for_and_come_from_the_grid() {
        let mut dlx = solver("dlx");
        let mut bitmask = solver("bitmask");
        let three = Limits {
            max_solutions: 3,
            ..UNIQUE
        };
        for (solutions, want) in [
            (Solutions::Many { extra_blanks: 1 }, 2..=3),
            (Solutions::Many { extra_blanks: 6 }, 3..=3),
            (Solutions::None { extra_blanks: 0 }, 0..=0),
            (Solutions::None { extra_blanks: 5 }, 0..=0),
        ] {
            let settings = GenerateSettings {
                seed: 9,
                solutions,
                ..GenerateSettings::default()
            };
            let unique = GenerateSettings {
                solutions: Solutions::One,
                ..settings.clone()
            };
            for index in 0..10 {
                let g = generate(&settings, index, dlx.as_mut()).unwrap();
                let p = g.puzzle;
                assert!(p.breaks_no_rule(), "{solutions:?} {p}");
                let count = dlx.solve(&p, &three).solutions;
                assert!(want.contains(&count), "{solutions:?} {p}: {count}");
                // The givens are the grid's, but for the one changed with `None`.
                let changed = (0..81)
                    .filter(|&c| p.get(c) != 0 && p.get(c) != g.solution.get(c))
                    .count();
                match solutions {
                    Solutions::None { extra_blanks } => {
                        assert_eq!(changed, 1, "{p}");
                        // Undo the change: the grid's puzzle, with several solutions when
                        // givens were blanked (a `None` may come from a later attempt than
                        // the unique puzzle of the same index, so compare within itself).
                        let mut undone = p;
                        for c in 0..81 {
                            if p.get(c) != 0 {
                                undone.set(c, g.solution.get(c));
                            }
                        }
                        let n = dlx.solve(&undone, &three).solutions;
                        assert_eq!(n > 1, extra_blanks > 0, "{p}: {n}");
                    }
                    Solutions::Many { extra_blanks } => {
                        assert_eq!(changed, 0, "{p}");
                        let blanked = generate(&unique, index, dlx.as_mut())
                            .unwrap()
                            .puzzle
                            .clues()
                            - p.clues();
                        assert!(blanked >= extra_blanks, "{p}");
                    }
                    Solutions::One | Solutions::NoneByAdding => unreachable!(),
                }
                assert_eq!(generate(&settings, index, bitmask.as_mut()).unwrap(), g);
            }
        }
    }

    #[test]
    fn kept_cells_and_an_added_given_make_the_counts_asked_for_within_the_clue_range() {
        let mut dlx = solver("dlx");
        let mut bitmask = solver("bitmask");
        for (method, solutions, symmetry, want) in [
            (Method::Keep, Solutions::One, Symmetry::None, 1),
            (
                Method::Keep,
                Solutions::Many { extra_blanks: 0 },
                Symmetry::Rot180,
                2,
            ),
            (Method::Keep, Solutions::NoneByAdding, Symmetry::None, 0),
            (Method::Remove, Solutions::NoneByAdding, Symmetry::None, 0),
        ] {
            let settings = GenerateSettings {
                seed: 3,
                method,
                solutions,
                symmetry,
                min_clues: 33,
                max_clues: 37,
                ..GenerateSettings::default()
            };
            for index in 0..10 {
                let g = generate(&settings, index, bitmask.as_mut()).unwrap();
                let p = g.puzzle;
                let what = format!("{method:?} {solutions:?}: {p}");
                assert!((33..=37).contains(&p.clues()), "{what}");
                assert!(p.breaks_no_rule(), "{what}");
                assert_eq!(dlx.solve(&p, &UNIQUE).solutions, want, "{what}");
                let foreign = (0..81)
                    .filter(|&c| p.get(c) != 0 && p.get(c) != g.solution.get(c))
                    .count();
                assert_eq!(foreign, usize::from(want == 0), "{what}");
                for cell in 0..81 {
                    let twin = (symmetry == Symmetry::Rot180).then_some(80 - cell);
                    if let Some(twin) = twin {
                        assert_eq!(p.get(cell) == 0, p.get(twin) == 0, "{what}");
                    }
                }
                assert_eq!(generate(&settings, index, dlx.as_mut()).unwrap(), g);
            }
        }
    }

    #[test]
    fn an_impossible_clue_range_is_an_error_not_a_hang() {
        let mut dlx = solver("dlx");
        let settings = GenerateSettings {
            seed: 5,
            min_clues: 0,
            max_clues: 10,
            max_attempts: 2,
            ..GenerateSettings::default()
        };
        assert!(matches!(
            generate(&settings, 0, dlx.as_mut()),
            Err(GenerateError::ClueRange { attempts: 2, .. })
        ));
    }
}
