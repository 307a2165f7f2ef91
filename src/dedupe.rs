//! `Seen`: remembers the grids met so far, to drop repeated puzzles from a corpus.
//!
//! Each distinct grid costs one compact key (the 81 cells packed two to a byte, 41 bytes:
//! exact, so two different puzzles are never taken for one another) plus where it was first
//! seen, about 80 bytes with the hash table's overhead: memory grows with the number of
//! distinct puzzles, unlike the rest of the streaming tools. To treat equivalent puzzles as
//! repeats, insert their `canonical::minimal_form` instead of the grid.

use std::collections::HashMap;

use crate::grid::Grid;

/// A grid packed into 41 bytes, two cells a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 41]);

impl Key {
    pub fn of(grid: &Grid) -> Key {
        let mut key = [0u8; 41];
        for (i, &cell) in grid.cells().iter().enumerate() {
            key[i / 2] |= cell << (4 * (i % 2));
        }
        Key(key)
    }
}

/// Where a grid was first seen: corpus index (in the order given) and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstSeen {
    pub corpus: u32,
    pub line: u64,
}

/// The set of grids seen so far.
#[derive(Debug, Default)]
pub struct Seen {
    first: HashMap<Key, FirstSeen>,
}

impl Seen {
    /// `None` when `grid` is new (it is remembered as seen at `at`); else where it was first
    /// seen.
    pub fn insert(&mut self, grid: &Grid, at: FirstSeen) -> Option<FirstSeen> {
        match self.first.entry(Key::of(grid)) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(at);
                None
            }
        }
    }

    /// Distinct grids seen.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(s: &str) -> Grid {
        Grid::parse(s.as_bytes()).unwrap()
    }

    const A: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn keys_are_exact() {
        let a = grid(A);
        let mut b = a;
        b.set(80, 8);
        assert_ne!(Key::of(&a), Key::of(&b));
        let mut c = a;
        c.set(0, 3);
        assert_ne!(Key::of(&a), Key::of(&c));
        assert_eq!(Key::of(&a), Key::of(&grid(&A.replace('.', "0"))));
    }

    #[test]
    fn the_first_occurrence_is_kept_and_named() {
        let mut seen = Seen::default();
        let at = |line| FirstSeen { corpus: 0, line };
        assert_eq!(seen.insert(&grid(A), at(1)), None);
        assert_eq!(seen.insert(&Grid::EMPTY, at(2)), None);
        assert_eq!(seen.insert(&grid(A), at(3)), Some(at(1)));
        assert_eq!(seen.len(), 2);
    }
}
