//! `Seen`: remembers the grids met so far, to drop repeated puzzles from a corpus.
//!
//! Memory grows with the number of distinct puzzles, unlike the rest of the streaming tools,
//! so its cost per puzzle is fixed by construction rather than left to a general-purpose
//! map (whose power-of-two tables, each entry padded to 64 bytes, peaked near 200 bytes a
//! puzzle while growing). Each distinct grid is one 48-byte entry (an exact 36-byte key and
//! where it was first seen) in blocks that never move, found through an open-addressing
//! index of 4-byte slots kept between a quarter and half full: 8 to 16 bytes more per
//! entry, 24 while the index is rebuilt. At most 72 bytes a puzzle, about 60 on average.
//! To treat equivalent puzzles as repeats, insert their `canonical::minimal_form` instead
//! of the grid.

use std::hash::{BuildHasher, RandomState};

use crate::grid::Grid;

/// A grid as three base-10 numbers of 27 cells each (below 10^27 < 2^96, so 12 bytes each):
/// exact, so two different puzzles are never taken for one another, and 5 bytes shorter
/// than two cells a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 36]);

impl Key {
    /// The key of `grid`.
    pub fn of(grid: &Grid) -> Key {
        let mut key = [0u8; 36];
        for (part, cells) in key.chunks_exact_mut(12).zip(grid.cells().chunks_exact(27)) {
            let n = cells
                .iter()
                .rev()
                .fold(0u128, |n, &cell| n * 10 + u128::from(cell));
            part.copy_from_slice(&n.to_le_bytes()[..12]);
        }
        Key(key)
    }
}

/// Where a grid was first seen: corpus index (in the order given) and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstSeen {
    /// Index of the corpus, in the order given.
    pub corpus: u32,
    /// 1-based line in it.
    pub line: u64,
}

/// More distinct grids than the index can number.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("more than {} distinct puzzles: too many to remember for --dedupe", u32::MAX - 1)]
pub struct TooMany;

/// 48 bytes: `FirstSeen` inline would pad it to 56.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: Key,
    corpus: u32,
    line: u64,
}

/// Entries per block: blocks are allocated whole and never moved, so growing the set
/// never holds two copies of the entries.
const BLOCK: usize = 1 << 14;

/// The set of grids seen so far.
#[derive(Debug, Default)]
pub struct Seen {
    blocks: Vec<Vec<Entry>>,
    len: usize,
    /// Linear probing; 0 is an empty slot, else an entry's index plus one. Its length is 0 or
    /// a power of two at least twice `len`.
    slots: Vec<u32>,
    hasher: RandomState,
}

impl Seen {
    /// `None` when `grid` is new (it is remembered as seen at `at`); else where it was first
    /// seen.
    pub fn insert(&mut self, grid: &Grid, at: FirstSeen) -> Result<Option<FirstSeen>, TooMany> {
        let key = Key::of(grid);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.hasher.hash_one(key) as usize & mask;
        loop {
            match self.slots[i] {
                0 => break,
                slot => {
                    let e = self.entry(slot as usize - 1);
                    if e.key == key {
                        return Ok(Some(FirstSeen {
                            corpus: e.corpus,
                            line: e.line,
                        }));
                    }
                }
            }
            i = (i + 1) & mask;
        }
        let index = u32::try_from(self.len + 1)
            .ok()
            .filter(|&n| n != u32::MAX)
            .ok_or(TooMany)?;
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        let block = self.blocks.last_mut().expect("a block was just ensured");
        block.push(Entry {
            key,
            corpus: at.corpus,
            line: at.line,
        });
        self.slots[i] = index;
        self.len += 1;
        Ok(None)
    }

    fn entry(&self, index: usize) -> &Entry {
        &self.blocks[index / BLOCK][index % BLOCK]
    }

    /// Double the index (at least 64 slots) and place every entry again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let mut slots = vec![0u32; size];
        let mask = size - 1;
        for index in 0..self.len {
            let mut i = self.hasher.hash_one(self.entry(index).key) as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = index as u32 + 1;
        }
        self.slots = slots;
    }

    /// Distinct grids seen.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no grid was seen yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        // The largest value of each part still fits its 12 bytes.
        let nines = Grid::from_cells([9; 81]).unwrap();
        let mut eights = nines;
        for cell in [26, 53, 80] {
            eights.set(cell, 8);
        }
        assert_ne!(Key::of(&nines), Key::of(&eights));
        assert_eq!(std::mem::size_of::<Entry>(), 48);
    }

    #[test]
    fn the_first_occurrence_is_kept_and_named() {
        let mut seen = Seen::default();
        let at = |line| FirstSeen { corpus: 0, line };
        assert_eq!(seen.insert(&grid(A), at(1)), Ok(None));
        assert_eq!(seen.insert(&Grid::EMPTY, at(2)), Ok(None));
        assert_eq!(seen.insert(&grid(A), at(3)), Ok(Some(at(1))));
        assert_eq!(seen.len(), 2);
    }

    /// Across several index growths and block boundaries, every grid is found again.
    #[test]
    fn many_grids_are_all_remembered() {
        let grid_of = |mut i: u64| {
            let mut cells = [0u8; 81];
            for cell in cells.iter_mut() {
                *cell = (i % 10) as u8;
                i /= 10;
            }
            Grid::from_cells(cells).unwrap()
        };
        let n = (BLOCK * 2 + 5) as u64;
        let mut seen = Seen::default();
        for i in 0..n {
            let at = FirstSeen { corpus: 1, line: i };
            assert_eq!(seen.insert(&grid_of(i), at), Ok(None), "{i}");
        }
        for i in (0..n).step_by(97) {
            let again = FirstSeen { corpus: 2, line: 0 };
            let first = FirstSeen { corpus: 1, line: i };
            assert_eq!(seen.insert(&grid_of(i), again), Ok(Some(first)), "{i}");
        }
        assert_eq!(seen.len() as u64, n);
    }
}
