//! `MaskBoard`: a grid with the digits used in each row, column and box kept as 9-bit
//! masks, and the list of its empty cells: the search state `bitmask` and `stack` share.

use crate::grid::{box_of, Grid};

/// Bits 0..9: digits 1..=9.
pub(super) const ALL_DIGITS: u16 = 0x1ff;

pub(super) struct MaskBoard {
    pub grid: Grid,
    /// Used digits per house: bit `d - 1` for digit `d`.
    pub rows: [u16; 9],
    pub cols: [u16; 9],
    pub boxes: [u16; 9],
    /// The puzzle's empty cells, `empty[..len]`, in row-major order after `load` (a
    /// strategy may reorder them as it searches).
    pub empty: [u8; 81],
    pub len: usize,
}

impl MaskBoard {
    pub fn new() -> MaskBoard {
        MaskBoard {
            grid: Grid::EMPTY,
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            empty: [0; 81],
            len: 0,
        }
    }

    /// Start over on `puzzle`, reusing the buffers.
    pub fn load(&mut self, puzzle: &Grid) {
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
    /// free again on removal, as a search only removes what it placed.
    #[inline]
    pub(crate) fn toggle(&mut self, cell: usize, digit: u8) {
        let bit = 1 << (digit - 1);
        self.rows[cell / 9] ^= bit;
        self.cols[cell % 9] ^= bit;
        self.boxes[box_of(cell)] ^= bit;
    }

    /// The digits `cell` may still take, as a mask.
    #[inline]
    pub fn candidates(&self, cell: usize) -> u16 {
        !(self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)]) & ALL_DIGITS
    }
}
