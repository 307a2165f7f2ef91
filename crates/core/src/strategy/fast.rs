//! `fast`: a bitboard solver in the JCZSolve family.
//!
//! The algorithm follows JCZSolve (Zhouyundong's solver, as tuned by JasonLion and
//! others on the Enjoy Sudoku forum) and its Rust port in the `sudoku` crate by
//! Emerentius. tdoku (Tom Dillon) is the yardstick it is measured against; none of tdoku's
//! SIMD encoding is used. The code here is written from the ideas, not from their sources.
//!
//! # Bit layout
//!
//! The board is split into three bands of three rows. For each digit and band a `u32`
//! holds that digit's candidate cells in the band, 27 bits, row by row:
//!
//! ```text
//!            col: 0  1  2 | 3  4  5 | 6  7  8
//!  row 0 of band: 0  1  2 | 3  4  5 | 6  7  8      bit = 9 * row_in_band + col
//!  row 1 of band: 9 10 11 |12 13 14 |15 16 17
//!  row 2 of band:18 19 20 |21 22 23 |24 25 26
//!                  box 0  |  box 1  |  box 2       (boxes 3b, 3b+1, 3b+2 of the grid)
//!
//!  cand[9 * band + digit]   digit 0..9 (for 1..=9), band 0..3 (rows 0-2, 3-5, 6-8)
//!  unsolved[band]           cells of the band not yet given a digit
//!  rows_todo[band]          bit 3 * digit + row: that digit is not yet placed in that row
//! ```
//!
//! A placed digit keeps its own bit and is cleared from the cell's peers and from the
//! other digits' boards at that cell, so once every cell is placed `cand[9 * b + d]` is
//! exactly where digit `d` stands in band `b`.
//!
//! # Propagation
//!
//! * **Band update** (JCZSolve's `Update`): each changed digit-band word is squeezed to its
//!   3 × 3 "mini-row" pattern (which thirds of each row hold a candidate). Within a band a
//!   digit fills one mini-row per row and per box, so only mini-rows lying on one of the
//!   six permutation patterns inside that pattern can hold it: a 512-entry table gives the
//!   mask. This covers box/line locked candidates and the band's row and box hidden singles.
//!   A row left with one cell places the digit there: the cell leaves the other digits and
//!   the column leaves the other two bands.
//! * **Naked singles**: bit-parallel counting over the nine boards of a band finds cells with
//!   exactly one candidate (and cells with none: a contradiction).
//! * **Stack update**, before guessing: the band update turned ninety degrees. In each stack
//!   (three columns of boxes) a digit fills one mini-column per band and per column; a
//!   mini-column on no permutation pattern of the stack's 3 × 3 mini-column pattern loses the
//!   digit. Bit-parallel over the three stacks (a mini-column stays when the other two bands
//!   can take the other two columns), it covers box/column locked candidates, and with the
//!   band update after it the hidden singles in columns, the one unit kind the band update
//!   cannot see. It replaced a column hidden-singles pass: cheaper, and it cut the guesses
//!   by 47% (17-clue), 38% (top1465) and 9% (forum_hardest).
//!
//! # Search
//!
//! When propagation stalls, the solver guesses on a cell with two candidates: the one with
//! the most unsolved peers in its row, column and box (the degree heuristic of graph
//! colouring: the guess reaches the most cells), bi-value peers in its band counting half
//! as much again, ties going to the last in band and bit order. Against the previous
//! choice (the last bi-value cell of the first band that has one) this cut the guesses per
//! puzzle by 45% on top1465 and 42% on forum_hardest. With no bi-value cell it guesses on
//! a cell with the fewest candidates.
//!
//! Of a bi-value cell's two digits it tries first the one with more candidates left in the
//! grid (2-3% fewer guesses when stopping at the first solution; the opposite order, "least
//! constraining value", had 5% more; when counting to 2 the order hardly matters); a wider
//! cell's digits go in increasing order.
//!
//! Each guess copies the whole state (a few hundred bytes) onto a fixed stack kept in the
//! solver, so nothing is undone and nothing is allocated per puzzle or per node. When a
//! cell's last candidate is tried, the other digits have all been explored, so it is placed
//! as a forced move, not a guess.
//!
//! * `nodes` counts search-tree states entered by guessing: one per guess, each paid for
//!   with `Budget::spend` before it is made. A puzzle solved by propagation alone has 0.
//! * `guesses` counts placements made while other candidates remained for the cell, that is
//!   the guess branches taken. Every node is a guess, so the two are equal.
//!
//! # Speed
//!
//! The givens are read and placed all at once: a compare per digit and band finds their
//! cells, and each digit-band word is computed from them in one step (`State::from_givens`).
//! Placing them one by one, as a guess is placed, was a chain of read-modify-writes through
//! the same words that cost more than the rest of the solve on a grid of many givens.
//!
//! The search is compiled twice: portable, and for x86-64-v3 (AVX2, BMI1/2, LZCNT, POPCNT)
//! behind a run-time feature check; the wider instruction set speeds the bit-parallel loops
//! by about 7%. In that build the scan for changed words uses AVX2 compares and move-masks
//! (4% fewer instructions than the compiler's own vectorisation). Hot paths avoid
//! data-dependent branches where that measured faster.

use super::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use crate::grid::{Grid, PERMUTATIONS_OF_3};

pub(super) const INFO: StrategyInfo = StrategyInfo::builtin(
    "fast",
    "JCZSolve-style band bitboards: locked-candidate band updates, naked and hidden \
            singles, bi-value guessing on a copied state",
    "guesses (search-tree states entered by guessing)",
    true,
    || Box::new(Fast::new()),
);

/// All 27 cells of a band.
const BAND: u32 = (1 << 27) - 1;

/// Which of the three thirds of a 9-bit row hold a bit: 3 bits.
const SHRINK: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut x = 0;
    while x < 512 {
        t[x] = ((x & 0o7 != 0) as u32)
            | (((x & 0o70 != 0) as u32) << 1)
            | (((x & 0o700 != 0) as u32) << 2);
        x += 1;
    }
    t
};

/// For a 3 × 3 mini-row pattern (bit `3 * row + box`), the cells of the mini-rows that lie
/// on some permutation pattern (one mini-row per row and per box) inside it; 0 when there is
/// none, which means the digit cannot be placed in the band.
const COMPLEX: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        let mut keep = 0usize;
        let mut p = 0;
        while p < 6 {
            let m = (1 << PERMUTATIONS_OF_3[p][0])
                | (1 << (3 + PERMUTATIONS_OF_3[p][1]))
                | (1 << (6 + PERMUTATIONS_OF_3[p][2]));
            if s & m == m {
                keep |= m;
            }
            p += 1;
        }
        t[s] = mini_row_cells(keep as u32);
        s += 1;
    }
    t
};

/// The cells of the rows of a band in a 3-bit row set.
const ROW_CELLS: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        let mut r = 0;
        while r < 3 {
            if m & (1 << r) != 0 {
                t[m] |= 0x1ff << (9 * r);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// Rotate each 3-bit group (octal digit) so bit `j` takes bit `j + 1` (mod 3): across the
/// columns of a stack.
#[inline(always)]
fn rot1(x: u32) -> u32 {
    ((x >> 1) & 0o333) | ((x << 2) & 0o444)
}

/// ... bit `j` takes bit `j + 2` (mod 3).
#[inline(always)]
fn rot2(x: u32) -> u32 {
    ((x >> 2) & 0o111) | ((x << 1) & 0o666)
}

/// The cells of a band's mini-rows in a 9-bit mini-row set (bit `3 * row + box`).
#[inline(always)]
const fn mini_row_cells(m: u32) -> u32 {
    TRIPLES[(m & 7) as usize]
        | TRIPLES[(m >> 3 & 7) as usize] << 9
        | TRIPLES[(m >> 6) as usize] << 18
}

/// For a 3-bit set of thirds of a 9-bit row, their cells.
const TRIPLES: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        let mut j = 0;
        while j < 3 {
            if m & (1 << j) != 0 {
                t[m] |= 0o7 << (3 * j);
            }
            j += 1;
        }
        m += 1;
    }
    t
};

/// For a 3-bit set of the boxes of a band, their cells.
const BOX_CELLS: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        t[m] = TRIPLES[m] | TRIPLES[m] << 9 | TRIPLES[m] << 18;
        m += 1;
    }
    t
};

/// The givens of each digit in each band, `g[9 * band + digit]`, from the 81 cells (0 for a
/// blank, else 1 to 9).
#[inline(always)]
fn givens<const V3: bool>(cells: &[u8; 81]) -> [u32; 27] {
    #[cfg(target_arch = "x86_64")]
    if V3 {
        // SAFETY: `V3` is only set by `search_x86_v3`, which runs only on CPUs with AVX2.
        return unsafe { givens_avx2(cells) };
    }
    // Slot 10 * band + value: the blanks' slot 0 of each band is written and not read, so
    // the loop has no branch on the cell.
    let mut slots = [0u32; 30];
    for (b, band) in cells.chunks_exact(27).enumerate() {
        for (p, &v) in band.iter().enumerate() {
            slots[10 * b + usize::from(v).min(9)] |= 1 << p;
        }
    }
    std::array::from_fn(|i| slots[10 * (i / 9) + i % 9 + 1])
}

/// `givens` with one compare and move-mask per digit and band.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn givens_avx2(cells: &[u8; 81]) -> [u32; 27] {
    use std::arch::x86_64::*;
    let c = cells.as_ptr();
    // Bands at bytes 0, 27 and 54; the last is read from byte 49 so the load ends at the
    // grid's end, and its mask shifted down by the 5 bytes before the band.
    // SAFETY: each 32-byte load, at 0, 27 or 49, ends at or before byte 81.
    let bands = unsafe {
        [
            _mm256_loadu_si256(c.cast()),
            _mm256_loadu_si256(c.add(27).cast()),
            _mm256_loadu_si256(c.add(49).cast()),
        ]
    };
    let mut g = [0u32; 27];
    for d in 0..9 {
        let digit = _mm256_set1_epi8(d as i8 + 1);
        for (b, band) in bands.iter().enumerate() {
            let m = _mm256_movemask_epi8(_mm256_cmpeq_epi8(*band, digit)) as u32;
            g[9 * b + d] = (m >> if b == 2 { 5 } else { 0 }) & BAND;
        }
    }
    g
}

/// The column `c` of a band: its three cells.
const fn col_cells(c: usize) -> u32 {
    (1 << c) | (1 << (c + 9)) | (1 << (c + 18))
}

/// For a cell of a band (bit 0..27), its peers inside the band: row, box and column, not the
/// cell itself.
const PEERS: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut p = 0;
    while p < 27 {
        let (r, c) = (p / 9, p % 9);
        let row = 0x1ff << (9 * r);
        let bx = (0o7 | 0o7 << 9 | 0o7 << 18) << (3 * (c / 3));
        t[p] = (row | bx | col_cells(c)) & !(1 << p);
        p += 1;
    }
    t
};

/// The whole search state; copied onto the stack at each guess.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct State {
    cand: [u32; 27],
    /// `cand` as last processed by the band update; a word that differs needs an update.
    seen: [u32; 27],
    unsolved: [u32; 3],
    rows_todo: [u32; 3],
}

/// Propagation found a cell or a unit with no place left.
struct Contradiction;

enum Stall {
    Solved,
    /// A guess is needed.
    Stuck,
}

impl State {
    const fn new() -> State {
        State {
            cand: [BAND; 27],
            seen: [0; 27],
            unsolved: [BAND; 3],
            rows_todo: [BAND; 3],
        }
    }

    /// The state with the givens placed, all at once: the same state as placing them one
    /// by one with [`State::assign`], without its chain of read-modify-writes through the
    /// same words per given (on a grid of many givens, most of a solve). `None` when two
    /// givens of a digit share a row, column or box.
    #[inline(always)]
    fn from_givens(g: &[u32; 27]) -> Option<State> {
        let mut s = State::new();
        let mut occupied = [0u32; 3];
        for (b, occupied) in occupied.iter_mut().enumerate() {
            *occupied = g[9 * b..9 * b + 9].iter().fold(0, |acc, x| acc | x);
            s.unsolved[b] = BAND & !*occupied;
        }
        let mut clash = false;
        for d in 0..9 {
            let x = [g[d], g[9 + d], g[18 + d]];
            let cols = x
                .iter()
                .fold(0, |acc, x| acc | ((x | x >> 9 | x >> 18) & 0x1ff));
            let col_cells = cols | cols << 9 | cols << 18;
            let (mut rows_n, mut boxes_n, mut n) = (0, 0, 0);
            for (b, &x) in x.iter().enumerate() {
                // The rows and the boxes of the band holding the digit (3 bits each).
                let rows = ((x & 0x1ff != 0) as u32)
                    | (((x >> 9) & 0x1ff != 0) as u32) << 1
                    | ((x >> 18 != 0) as u32) << 2;
                let thirds = SHRINK[((x | x >> 9 | x >> 18) & 0x1ff) as usize];
                let taken = ROW_CELLS[rows as usize] | BOX_CELLS[thirds as usize] | col_cells;
                s.cand[9 * b + d] = (BAND & !occupied[b] & !taken) | x;
                s.rows_todo[b] &= !(rows << (3 * d));
                rows_n += rows.count_ones();
                boxes_n += thirds.count_ones();
                n += x.count_ones();
            }
            // Givens of a digit that share no unit lie in as many rows, columns and boxes as
            // there are of them.
            clash |= rows_n != n || boxes_n != n || cols.count_ones() != n;
        }
        (!clash).then_some(s)
    }

    /// Place digit `d` (0..9) on bit `p` of band `b`. The digit must be a candidate there.
    #[inline(always)]
    fn assign(&mut self, d: usize, b: usize, p: usize) {
        let bit = 1u32 << p;
        let col = col_cells(p % 9);
        for b2 in 0..3 {
            self.cand[9 * b2 + d] &= !col;
        }
        for d2 in 0..9 {
            self.cand[9 * b + d2] &= !bit;
        }
        self.cand[9 * b + d] = (self.cand[9 * b + d] & !PEERS[p]) | bit;
        self.unsolved[b] &= !bit;
        self.rows_todo[b] &= !(1 << (3 * d + p / 9));
    }

    /// Words whose contents changed since the band update last saw them.
    #[inline(always)]
    fn dirty<const V3: bool>(&self) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if V3 {
            // SAFETY: `V3` is only set by `search_x86_v3`, which runs only on CPUs with AVX2.
            return unsafe { self.dirty_avx2() };
        }
        let mut m = 0u32;
        for i in 0..27 {
            m |= ((self.cand[i] != self.seen[i]) as u32) << i;
        }
        m
    }

    /// `dirty` with one compare and move-mask per eight words.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dirty_avx2(&self) -> u32 {
        use std::arch::x86_64::*;
        let (c, s) = (self.cand.as_ptr(), self.seen.as_ptr());
        let mut eq = 0u32;
        // Words 0..8, 8..16, 16..24 and 19..27: the last load overlaps the one before.
        for k in [0, 8, 16, 19] {
            // SAFETY: `k + 8 <= 27`, so each unaligned 8-word load stays inside its array.
            let m = unsafe {
                let x = _mm256_loadu_si256(c.add(k).cast());
                let y = _mm256_loadu_si256(s.add(k).cast());
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, y)))
            };
            eq |= (m as u32) << k;
        }
        !eq & BAND
    }

    /// Band updates until nothing changes.
    #[inline(always)]
    fn update<const V3: bool>(&mut self) -> Result<(), Contradiction> {
        loop {
            let mut dirty = self.dirty::<V3>();
            if dirty == 0 {
                return Ok(());
            }
            while dirty != 0 {
                let i = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                self.update_word(i)?;
            }
        }
    }

    #[inline(always)]
    fn update_word(&mut self, i: usize) -> Result<(), Contradiction> {
        let a = self.cand[i];
        let shrink = SHRINK[(a & 0x1ff) as usize]
            | SHRINK[((a >> 9) & 0x1ff) as usize] << 3
            | SHRINK[((a >> 18) & 0x1ff) as usize] << 6;
        let a = a & COMPLEX[shrink as usize];
        if a == 0 {
            return Err(Contradiction);
        }
        self.cand[i] = a;
        self.seen[i] = a;
        let (d, b) = (i % 9, i / 9);
        let todo = (self.rows_todo[b] >> (3 * d)) & 7;
        // Rows left with a single cell, among the rows where the digit is not yet placed.
        let (r0, r1, r2) = (a & 0x1ff, (a >> 9) & 0x1ff, a >> 18);
        let singles = ((r0 & (r0 - 1) == 0) as u32)
            | ((r1 & (r1 - 1) == 0) as u32) << 1
            | ((r2 & (r2 - 1) == 0) as u32) << 2;
        let rows = singles & todo;
        if rows == 0 {
            return Ok(());
        }
        let placed = a & ROW_CELLS[rows as usize];
        let solved_rows = rows << (3 * d);
        self.rows_todo[b] &= !solved_rows;
        self.unsolved[b] &= !placed;
        let cols = (placed | placed >> 9 | placed >> 18) & 0x1ff;
        let colmask = cols | cols << 9 | cols << 18;
        for d2 in 0..9 {
            self.cand[9 * b + d2] &= !placed;
        }
        for b2 in 0..3 {
            self.cand[9 * b2 + d] &= !colmask;
        }
        self.cand[i] = a;
        Ok(())
    }

    /// Naked singles of every band; `Ok(true)` when any was placed.
    #[inline(always)]
    fn naked_singles(&mut self) -> Result<bool, Contradiction> {
        let mut any = false;
        for b in 0..3 {
            let u = self.unsolved[b];
            if u == 0 {
                continue;
            }
            let (mut r1, mut r2) = (0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[9 * b + d];
                r2 |= r1 & x;
                r1 |= x;
            }
            if u & !r1 != 0 {
                return Err(Contradiction);
            }
            let mut singles = u & !r2;
            while singles != 0 {
                let p = singles.trailing_zeros() as usize;
                singles &= singles - 1;
                let ds = self.digits_at(b, p);
                if ds == 0 {
                    return Err(Contradiction);
                }
                self.assign(ds.trailing_zeros() as usize, b, p);
                any = true;
            }
        }
        Ok(any)
    }

    /// Locked candidates across the bands of each stack (the column twin of the band
    /// update): a digit fills one mini-column per band and per column of a stack, so only
    /// mini-columns on a permutation pattern can hold it. `true` when anything changed.
    ///
    /// A stack or column left empty for a digit is not reported here: it empties a box of
    /// the digit in each band, which the band update then reports.
    #[inline(always)]
    fn stack_update(&mut self) -> bool {
        let mut changed = 0u32;
        for d in 0..9 {
            let x = [self.cand[d], self.cand[9 + d], self.cand[18 + d]];
            let [c0, c1, c2] = x.map(|x| (x | x >> 9 | x >> 18) & 0x1ff);
            let (a0, a1, a2) = (rot1(c0), rot1(c1), rot1(c2));
            let (b0, b1, b2) = (rot2(c0), rot2(c1), rot2(c2));
            // A mini-column stays when the other two bands can take the other two columns.
            let keep = [
                c0 & ((a1 & b2) | (b1 & a2)),
                c1 & ((a0 & b2) | (b0 & a2)),
                c2 & ((a0 & b1) | (b0 & a1)),
            ];
            for b in 0..3 {
                let k = keep[b];
                let nx = x[b] & (k | k << 9 | k << 18);
                changed |= nx ^ x[b];
                self.cand[9 * b + d] = nx;
            }
        }
        changed != 0
    }

    /// Propagate until solved, stuck or contradicted.
    #[inline(always)]
    fn propagate<const V3: bool>(&mut self) -> Result<Stall, Contradiction> {
        loop {
            self.update::<V3>()?;
            if self.unsolved == [0; 3] {
                return Ok(Stall::Solved);
            }
            if self.naked_singles()? {
                continue;
            }
            if self.stack_update() {
                continue;
            }
            return Ok(Stall::Stuck);
        }
    }

    /// The cell to guess on: band, bit, and its candidate digits as a 9-bit mask.
    #[inline(always)]
    fn pick_guess(&self) -> (usize, usize, u32) {
        // The bi-value cell with the best score (see the module doc), if there is one. Key:
        // score, then band and bit, so the maximum is the last of the best.
        let mut best = 0u32;
        for b in 0..3 {
            let u = self.unsolved[b];
            if u == 0 {
                continue;
            }
            let (mut r1, mut r2, mut r3) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[9 * b + d];
                r3 |= r2 & x;
                r2 |= r1 & x;
                r1 |= x;
            }
            let twos = u & r2 & !r3;
            let mut two = twos;
            let others = [self.unsolved[(b + 1) % 3], self.unsolved[(b + 2) % 3]];
            while two != 0 {
                let p = two.trailing_zeros() as usize;
                two &= two - 1;
                let col = col_cells(p % 9);
                // Unsolved peers count twice, bi-value peers in the band once more; the
                // column cells of the two other bands are counted side by side (bits c, c + 1).
                let score = 2 * (PEERS[p] & u).count_ones()
                    + 2 * (others[0] & col | (others[1] & col) << 1).count_ones()
                    + (PEERS[p] & twos).count_ones();
                best = best.max(score << 8 | 1 << 7 | (b as u32) << 5 | p as u32);
            }
        }
        if best != 0 {
            let (b, p) = ((best >> 5 & 3) as usize, (best & 31) as usize);
            return (b, p, self.digits_at(b, p));
        }
        // Else the first cell (band, then bit order) with the fewest candidates, from a
        // bit-sliced binary count of each cell's candidates per band.
        let mut counts = [[0u32; 4]; 3];
        for (b, count) in counts.iter_mut().enumerate() {
            let [mut s0, mut s1, mut s2, mut s3] = [0u32; 4];
            for d in 0..9 {
                let x = self.cand[9 * b + d];
                let c0 = s0 & x;
                s0 ^= x;
                let c1 = s1 & c0;
                s1 ^= c0;
                let c2 = s2 & c1;
                s2 ^= c1;
                s3 |= c2;
            }
            *count = [s0, s1, s2, s3];
        }
        for k in 2..=9u32 {
            for (b, count) in counts.iter().enumerate() {
                let mut cells = self.unsolved[b];
                for (i, s) in count.iter().enumerate() {
                    cells &= if k >> i & 1 != 0 { *s } else { !*s };
                }
                if cells != 0 {
                    let p = cells.trailing_zeros() as usize;
                    return (b, p, self.digits_at(b, p));
                }
            }
        }
        // Not reached: propagation leaves no unsolved cell with fewer than two candidates.
        let b = self.unsolved.iter().position(|&u| u != 0).unwrap_or(0);
        let p = self.unsolved[b].trailing_zeros() as usize % 27;
        (b, p, self.digits_at(b, p))
    }

    /// The digit to try first at a guessed cell: of two, the one with more candidates left
    /// in the grid (ties: the lower); of more, the lowest.
    #[inline(always)]
    fn first_digit(&self, ds: u32) -> usize {
        let d0 = ds.trailing_zeros() as usize;
        let rest = ds & (ds - 1);
        if rest & (rest - 1) != 0 {
            return d0;
        }
        let d1 = rest.trailing_zeros() as usize;
        let places = |d: usize| {
            self.cand[d].count_ones()
                + self.cand[9 + d].count_ones()
                + self.cand[18 + d].count_ones()
        };
        if places(d1) > places(d0) {
            d1
        } else {
            d0
        }
    }

    #[inline(always)]
    fn digits_at(&self, b: usize, p: usize) -> u32 {
        let mut ds = 0;
        for d in 0..9 {
            ds |= ((self.cand[9 * b + d] >> p) & 1) << d;
        }
        ds
    }

    fn write_solution(&self, out: &mut Grid) {
        for d in 0..9 {
            for b in 0..3 {
                let mut x = self.cand[9 * b + d];
                while x != 0 {
                    let p = x.trailing_zeros() as usize;
                    x &= x - 1;
                    out.set(27 * b + p, d as u8 + 1);
                }
            }
        }
    }
}

/// A saved state and the digits still to try at the guessed cell.
#[derive(Clone, Copy)]
struct Frame {
    state: State,
    band: u8,
    bit: u8,
    /// Untried digits (bit `d` for digit `d + 1`).
    left: u16,
}

/// Deep enough for any search: each frame places at least one of the 81 cells.
const MAX_DEPTH: usize = 82;

pub struct Fast {
    state: State,
    stack: Box<[Frame; MAX_DEPTH]>,
    solution: Grid,
    /// The CPU has what `search_x86_v3` needs.
    #[cfg(target_arch = "x86_64")]
    x86_v3: bool,
}

impl Fast {
    pub fn new() -> Fast {
        let frame = Frame {
            state: State::new(),
            band: 0,
            bit: 0,
            left: 0,
        };
        Fast {
            state: State::new(),
            stack: Box::new([frame; MAX_DEPTH]),
            solution: Grid::EMPTY,
            #[cfg(target_arch = "x86_64")]
            x86_v3: std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt")
                && std::is_x86_feature_detected!("popcnt"),
        }
    }

    /// `solve_impl` compiled for CPUs with AVX2 and BMI1/2 (wider compares for the
    /// bit-parallel loops, `tzcnt`, `andn`, `shlx`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn solve_x86_v3(&mut self, puzzle: &Grid, tally: &mut Tally, budget: &mut Budget) -> u64 {
        self.solve_impl::<true>(puzzle, tally, budget)
    }

    /// Place the givens and search; returns the number of guesses.
    fn solve_guesses(&mut self, puzzle: &Grid, tally: &mut Tally, budget: &mut Budget) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.x86_v3 {
            // SAFETY: `x86_v3` is only set when the CPU reports every feature that
            // `solve_x86_v3` is compiled for.
            return unsafe { self.solve_x86_v3(puzzle, tally, budget) };
        }
        self.solve_impl::<false>(puzzle, tally, budget)
    }

    #[inline(always)]
    fn solve_impl<const V3: bool>(
        &mut self,
        puzzle: &Grid,
        tally: &mut Tally,
        budget: &mut Budget,
    ) -> u64 {
        // Givens that clash leave no solution and no search.
        let Some(state) = State::from_givens(&givens::<V3>(puzzle.cells())) else {
            return 0;
        };
        self.state = state;
        self.solution = *puzzle;
        self.search_impl::<V3>(tally, budget)
    }

    /// Depth-first search from the loaded state; returns the number of guesses.
    #[inline(always)]
    fn search_impl<const V3: bool>(&mut self, tally: &mut Tally, budget: &mut Budget) -> u64 {
        let mut guesses = 0u64;
        let mut depth = 0usize;
        loop {
            match self.state.propagate::<V3>() {
                Ok(Stall::Solved) => {
                    if tally.solutions == 0 {
                        self.state.write_solution(&mut self.solution);
                    }
                    if tally.found(&self.solution) {
                        return guesses;
                    }
                }
                Ok(Stall::Stuck) => {
                    let (b, p, ds) = self.state.pick_guess();
                    if !budget.spend() {
                        return guesses;
                    }
                    guesses += 1;
                    let d = self.state.first_digit(ds);
                    self.stack[depth] = Frame {
                        state: self.state,
                        band: b as u8,
                        bit: p as u8,
                        left: (ds & !(1 << d)) as u16,
                    };
                    depth += 1;
                    self.state.assign(d, b, p);
                    continue;
                }
                Err(Contradiction) => {}
            }
            // Backtrack to the deepest frame with a digit left to try.
            if depth == 0 {
                return guesses;
            }
            let frame = &mut self.stack[depth - 1];
            self.state = frame.state;
            let (b, p) = (frame.band as usize, frame.bit as usize);
            let left = frame.left as u32;
            let d = left.trailing_zeros() as usize;
            let rest = left & (left - 1);
            if rest == 0 {
                // The cell's last candidate: forced, not a guess.
                depth -= 1;
            } else {
                if !budget.spend() {
                    return guesses;
                }
                guesses += 1;
                frame.left = rest as u16;
            }
            self.state.assign(d, b, p);
        }
    }
}

impl Default for Fast {
    fn default() -> Self {
        Fast::new()
    }
}

impl Strategy for Fast {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut tally = Tally::new(limits);
        let mut budget = Budget::new(limits);
        let guesses = self.solve_guesses(puzzle, &mut tally, &mut budget);
        tally.outcome(&budget, guesses)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit;
    use super::*;

    #[test]
    fn conformance() {
        testkit::conformance(|| INFO.make(), false);
    }

    fn corpus(name: &str) -> Option<Vec<Grid>> {
        let text = testkit::shared_corpus(name)?;
        let puzzles = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.parse().unwrap_or_else(|e| panic!("{name}: {l}: {e}")))
            .collect();
        Some(puzzles)
    }

    const CORPORA: [&str; 3] = [
        "puzzles2_17_clue",
        "puzzles3_magictour_top1465",
        "puzzles5_forum_hardest_1905_11+",
    ];

    #[test]
    fn every_corpus_puzzle_has_one_solution() {
        let mut s = Fast::new();
        for name in CORPORA {
            let Some(puzzles) = corpus(name) else {
                continue;
            };
            assert!(
                puzzles.len() > 1000,
                "{name}: only {} puzzles",
                puzzles.len()
            );
            for p in &puzzles {
                let out = s.solve(p, &testkit::limits(2));
                assert_eq!((out.solutions, out.aborted), (1, None), "{name}: {p}");
                assert!(out.first.unwrap().is_solution_of(p), "{name}: {p}");
                assert_eq!(out.nodes, out.guesses, "{name}: {p}");
            }
        }
    }

    /// A plain most-constrained-cell backtracker on row/column/box masks, for reference.
    struct Reference {
        rows: [u16; 9],
        cols: [u16; 9],
        boxes: [u16; 9],
        cells: [u8; 81],
        count: u32,
        limit: u32,
    }

    impl Reference {
        fn count(puzzle: &Grid, limit: u32) -> u32 {
            let mut r = Reference {
                rows: [0; 9],
                cols: [0; 9],
                boxes: [0; 9],
                cells: *puzzle.cells(),
                count: 0,
                limit,
            };
            for i in 0..81 {
                let v = r.cells[i];
                if v != 0 {
                    let m = 1 << v;
                    r.rows[i / 9] |= m;
                    r.cols[i % 9] |= m;
                    r.boxes[crate::grid::box_of(i)] |= m;
                }
            }
            r.go();
            r.count
        }

        fn go(&mut self) {
            let mut best = None;
            let mut best_n = 10;
            for i in 0..81 {
                if self.cells[i] == 0 {
                    let free =
                        !(self.rows[i / 9] | self.cols[i % 9] | self.boxes[crate::grid::box_of(i)])
                            & 0x3fe;
                    let n = free.count_ones();
                    if n < best_n {
                        best_n = n;
                        best = Some((i, free));
                    }
                }
            }
            let Some((i, mut free)) = best else {
                self.count += 1;
                return;
            };
            let (r, c, b) = (i / 9, i % 9, crate::grid::box_of(i));
            while free != 0 && self.count < self.limit {
                let v = free.trailing_zeros();
                free &= free - 1;
                let m = 1 << v;
                self.cells[i] = v as u8;
                self.rows[r] |= m;
                self.cols[c] |= m;
                self.boxes[b] |= m;
                self.go();
                self.rows[r] &= !m;
                self.cols[c] &= !m;
                self.boxes[b] &= !m;
            }
            self.cells[i] = 0;
        }
    }

    /// xorshift64*: deterministic test randomness without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The givens placed one by one, as a guess is placed: what `State::from_givens` must
    /// equal. `None` when a given is no longer a candidate where it stands.
    fn assigned_one_by_one(puzzle: &Grid) -> Option<State> {
        let mut s = State::new();
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                let (d, b, p) = (v as usize - 1, cell / 27, cell % 27);
                if s.cand[9 * b + d] & (1 << p) == 0 {
                    return None;
                }
                s.assign(d, b, p);
            }
        }
        Some(s)
    }

    fn cpu_has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        return true;
    }

    fn words(s: &State) -> ([u32; 27], [u32; 27], [u32; 3], [u32; 3]) {
        (s.cand, s.seen, s.unsolved, s.rows_todo)
    }

    #[test]
    fn givens_placed_at_once_make_the_state_placing_them_one_by_one_makes() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let minimal = include_str!("../../../../datasets/minimal.txt");
        let mut grids: Vec<Grid> = minimal
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.trim().parse().unwrap())
            .collect();
        let mut fast = Fast::new();
        let solutions: Vec<Grid> = grids
            .iter()
            .map(|p| fast.solve(p, &testkit::limits(1)).first.unwrap())
            .collect();
        // Solutions with any number of cells kept (17 to 81), and random digits in random
        // cells, which mostly clash.
        for (k, solution) in solutions.iter().enumerate() {
            let mut q = Grid::EMPTY;
            for _ in 0..k % 82 {
                let i = rng.below(81);
                q.set(i, solution.get(i));
            }
            grids.push(q);
            let mut r = Grid::EMPTY;
            for _ in 0..1 + k % 30 {
                r.set(rng.below(81), 1 + rng.below(9) as u8);
            }
            grids.push(r);
        }
        let (mut clashing, mut placed) = (0, 0);
        for g in &grids {
            let want = assigned_one_by_one(g);
            clashing += want.is_none() as u32;
            placed += want.is_some() as u32;
            let mut found = vec![givens::<false>(g.cells())];
            // The AVX2 path only where the CPU has it (elsewhere it is the portable one).
            if cpu_has_avx2() {
                found.push(givens::<true>(g.cells()));
            }
            for got in found.iter().map(State::from_givens) {
                assert_eq!(got.as_ref().map(words), want.as_ref().map(words), "{g}");
            }
        }
        assert!(
            clashing > 300 && placed > 1500,
            "{clashing} clashing, {placed} placed"
        );
    }

    #[test]
    fn agrees_with_a_reference_on_puzzles_with_clues_removed() {
        let mut s = Fast::new();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut multi = 0;
        let mut none = 0;
        // The counts asserted below need all three corpora.
        let Some(corpora) = CORPORA.map(corpus).into_iter().collect::<Option<Vec<_>>>() else {
            return;
        };
        for puzzles in corpora {
            for _ in 0..300 {
                let p = puzzles[rng.below(puzzles.len())];
                let solution = s.solve(&p, &testkit::limits(1)).first.unwrap();
                // Either drop a few givens of the puzzle, or keep a random subset of its
                // solution's cells (often with many solutions), or add a wrong digit.
                let mut q = p;
                match rng.below(3) {
                    0 => {
                        for _ in 0..1 + rng.below(4) {
                            q.set(rng.below(81), 0);
                        }
                    }
                    1 => {
                        q = Grid::EMPTY;
                        for _ in 0..20 + rng.below(20) {
                            let i = rng.below(81);
                            q.set(i, solution.get(i));
                        }
                    }
                    _ => {
                        let i = rng.below(81);
                        if q.get(i) == 0 {
                            q.set(i, 1 + rng.below(9) as u8);
                        }
                        if q.conflict().is_some() {
                            q = p;
                        }
                    }
                }
                let want = Reference::count(&q, 3);
                multi += (want > 1) as u32;
                none += (want == 0) as u32;
                let mut firsts = Vec::new();
                for limit in 1..=3 {
                    let out = s.solve(&q, &testkit::limits(limit));
                    assert_eq!(out.solutions, want.min(limit), "{q} limit {limit}");
                    assert_eq!(out.aborted, None);
                    assert_eq!(out.first.is_some(), want > 0);
                    if let Some(f) = out.first {
                        assert!(f.is_solution_of(&q), "{q}");
                    }
                    firsts.push(out.first);
                    assert_eq!(s.solve(&q, &testkit::limits(limit)), out, "deterministic");
                }
                assert!(firsts.windows(2).all(|w| w[0] == w[1]), "{q}");
            }
        }
        assert!(multi > 100 && none > 10, "multi {multi}, none {none}");
    }
}
