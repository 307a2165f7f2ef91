//! `Grid`: the 81 cells of a Sudoku, parsing from text, the givens' rule check and
//! solution verification.
//!
//! Cells are numbered row-major, 0..81: cell `i` is in row `i / 9`, column `i % 9` and
//! box `(i / 27) * 3 + (i % 9) / 3`. A cell holds 0 when blank, else its digit 1..=9.

use std::fmt;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// The 81 cells of a Sudoku grid, row-major, 0 for a blank cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    cells: [u8; 81],
}

/// Why a field is not an 81-cell grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    /// Not 81 cells long.
    #[error("expected 81 cells, found {found}{}", stray_note(*stray))]
    Length {
        /// The cells found.
        found: usize,
        /// The first character that is no digit or blank, and its 1-based column: what
        /// made the count, when it does not show (a no-break space, a vertical tab).
        stray: Option<(char, usize)>,
    },
    /// `column` is 1-based within the field, in characters.
    #[error("character {found:?} at column {column} is not a digit or a blank ('.' or '0')")]
    Character {
        /// The character.
        found: char,
        /// Where it is.
        column: usize,
    },
}

/// What a length error says of a stray character, if one was found.
fn stray_note(stray: Option<(char, usize)>) -> String {
    stray.map_or_else(String::new, |(c, column)| {
        format!(", among them {c:?} at column {column}, which is not a digit or a blank")
    })
}

/// A house: one of the 27 rows, columns and boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Row 0-8, top to bottom.
    Row(u8),
    /// Column 0-8, left to right.
    Column(u8),
    /// Box 0-8, in row-major order.
    Box(u8),
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Row(r) => write!(f, "row {}", r + 1),
            Unit::Column(c) => write!(f, "column {}", c + 1),
            Unit::Box(b) => write!(f, "box {}", b + 1),
        }
    }
}

/// Two givens with the same digit in one house.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    /// The digit given twice.
    pub digit: u8,
    /// The house holding both.
    pub unit: Unit,
    /// The two cells, in row-major order (`first < second`).
    pub first: usize,
    /// The later of the two cells.
    pub second: usize,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "digit {} appears twice in {} ({} and {})",
            self.digit,
            self.unit,
            cell_name(self.first),
            cell_name(self.second)
        )
    }
}

/// The six orders of three things (rows in a band, bands in the grid, boxes in a band...),
/// the building block of Sudoku's symmetries.
pub(crate) const PERMUTATIONS_OF_3: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// `r3c7` style name of a cell, 1-based.
pub(crate) fn cell_name(cell: usize) -> String {
    format!("r{}c{}", cell / 9 + 1, cell % 9 + 1)
}

/// The box (0..9) that holds `cell`.
#[inline]
pub const fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

impl Grid {
    /// An all-blank grid.
    pub const EMPTY: Grid = Grid { cells: [0; 81] };

    /// Build a grid from cell values; any value above 9 is rejected.
    pub fn from_cells(cells: [u8; 81]) -> Option<Grid> {
        cells.iter().all(|&c| c <= 9).then_some(Grid { cells })
    }

    /// Parse exactly 81 cells: `1`-`9` for a digit, `.` or `0` for a blank.
    pub fn parse(field: &[u8]) -> Result<Grid, CellError> {
        if field.len() != 81 {
            // Count characters, not bytes, so the message matches what the user sees.
            let text = std::str::from_utf8(field).ok();
            let found = text.map_or(field.len(), |s| s.chars().count());
            // The first character that is no digit or blank, its column in characters.
            let stray = text.and_then(|s| {
                s.chars()
                    .enumerate()
                    .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
                    .map(|(i, c)| (c, i + 1))
            });
            // 81 characters in more bytes: the length is right, a multi-byte character
            // is what is wrong.
            return Err(match stray {
                Some((c, column)) if found == 81 => CellError::Character { found: c, column },
                _ => CellError::Length { found, stray },
            });
        }
        // Branch-free first pass (it vectorises): a digit keeps its value, `.` and `0`
        // become 0, and any other byte marks the field bad. Only a bad field pays for
        // finding and naming the culprit.
        let mut cells = [0u8; 81];
        let mut bad = 0u8;
        for (cell, &b) in cells.iter_mut().zip(field) {
            let digit = b.wrapping_sub(b'0');
            let blank = (b == b'.') as u8;
            bad |= ((digit > 9) as u8) & (blank ^ 1);
            *cell = if digit > 9 { 0 } else { digit };
        }
        if bad == 0 {
            return Ok(Grid { cells });
        }
        let i = field
            .iter()
            .position(|&b| !(b.is_ascii_digit() || b == b'.'))
            .unwrap_or(0);
        let found = std::str::from_utf8(&field[i..])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        Err(CellError::Character {
            found,
            column: i + 1,
        })
    }

    /// The 81 cells in row-major order, 0 for a blank.
    #[inline]
    pub fn cells(&self) -> &[u8; 81] {
        &self.cells
    }

    /// The digit in `cell` (0-80, row-major), 0 for a blank.
    #[inline]
    pub fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// Put `digit` (0 for a blank) in `cell`.
    #[inline]
    pub fn set(&mut self, cell: usize, digit: u8) {
        debug_assert!(digit <= 9);
        self.cells[cell] = digit;
    }

    /// Number of givens (non-blank cells).
    pub fn clues(&self) -> usize {
        // Counted in a u8 (81 fits) so that it vectorises; `filter().count()` does not.
        self.cells.iter().fold(0u8, |n, &c| n + (c != 0) as u8) as usize
    }

    /// Whether no cell is blank.
    pub(crate) fn is_complete(&self) -> bool {
        self.cells.iter().all(|&c| c != 0)
    }

    /// True when no digit appears twice in a row, column or box.
    ///
    /// This runs on every puzzle read, so it must cost far less than the fastest solve.
    /// Puzzles are mostly blank: visit only the givens, and keep per digit the set of
    /// houses (one bit each) that already hold it. The givens are first gathered into
    /// two masks, cells 0..64 and 64..81, eight cells at a time, so the visit is one
    /// tight loop per mask (its one hard-to-predict branch is the loop's end) rather
    /// than a short loop per eight cells (34 ns a 17-clue grid before, 26 ns after).
    pub fn breaks_no_rule(&self) -> bool {
        let c = &self.cells;
        let (mut low, mut high) = (0u64, 0u64);
        for (word, bytes) in c.chunks_exact(8).enumerate() {
            let bytes: &[u8; 8] = bytes.try_into().expect("8 bytes");
            let x = u64::from_le_bytes(*bytes);
            // The top bit of each non-zero byte (adding 0x7f to the low seven bits
            // cannot carry into the next byte), then those eight bits side by side.
            let given = (((x & LOW7) + LOW7) | x) & HIGH1;
            let eight = (given >> 7).wrapping_mul(GATHER_BYTE_BITS) >> 56;
            if word < 8 {
                low |= eight << (8 * word);
            } else {
                high |= eight << (8 * (word - 8));
            }
        }
        high |= u64::from(c[80] != 0) << 16;
        let mut houses_of = [0u32; 16];
        let mut clash = 0u32;
        let mut visit = |cell: usize| {
            let d = (c[cell] & 15) as usize;
            let houses = HOUSE_BITS[cell];
            clash |= houses_of[d] & houses;
            houses_of[d] |= houses;
        };
        while low != 0 {
            visit(low.trailing_zeros() as usize);
            low &= low - 1;
        }
        while high != 0 {
            // `% 81` lets the compiler see the index is in bounds.
            visit((64 + high.trailing_zeros() as usize) % 81);
            high &= high - 1;
        }
        clash == 0
    }

    /// The first pair of givens that share a digit in a house, scanning rows, then
    /// columns, then boxes; `None` when the givens break no rule.
    pub fn conflict(&self) -> Option<Conflict> {
        if self.breaks_no_rule() {
            return None;
        }
        // seen[d] holds the cell index + 1 where digit d was met in the current house.
        let mut seen = [0usize; 10];
        for kind in 0..3u8 {
            for unit in 0..9u8 {
                seen.fill(0);
                for k in 0..9 {
                    let cell = unit_cell(kind, unit as usize, k);
                    let d = self.cells[cell] as usize;
                    if d == 0 {
                        continue;
                    }
                    if seen[d] != 0 {
                        let other = seen[d] - 1;
                        return Some(Conflict {
                            digit: d as u8,
                            unit: match kind {
                                0 => Unit::Row(unit),
                                1 => Unit::Column(unit),
                                _ => Unit::Box(unit),
                            },
                            first: other.min(cell),
                            second: other.max(cell),
                        });
                    }
                    seen[d] = cell + 1;
                }
            }
        }
        None
    }

    /// True when `self` is a complete grid that breaks no rule and keeps every given of
    /// `puzzle`.
    pub fn is_solution_of(&self, puzzle: &Grid) -> bool {
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: `available` said the CPU has AVX2 and POPCNT.
            return unsafe { avx2::is_solution_of(self, puzzle) };
        }
        self.is_solution_of_portable(puzzle)
    }

    /// `is_solution_of` for any CPU.
    pub(crate) fn is_solution_of_portable(&self, puzzle: &Grid) -> bool {
        // A complete grid breaks no rule exactly when each house holds all nine digits:
        // nine cells can only cover nine digits by holding each once (a blank has no bit
        // and leaves a digit out). So: OR each house's bits and AND the 27 results.
        //
        // Written as whole-array passes over shifted windows so that they vectorise: `y`
        // ORs each cell with the next two, so a row is `y` at its columns 1, 4 and 7 and
        // a box is `y` at its top-left cell and the two cells below.
        let (c, p) = (&self.cells, &puzzle.cells);
        let mut bits = [0u16; 81 + 2];
        for (b, &d) in bits.iter_mut().zip(c) {
            *b = digit_bit(d);
        }
        let mut y = [0u16; 81];
        for (i, y) in y.iter_mut().enumerate() {
            *y = bits[i] | bits[i + 1] | bits[i + 2];
        }
        let mut all = ALL_DIGIT_BITS;
        for r in 0..9 {
            all &= y[9 * r] | y[9 * r + 3] | y[9 * r + 6];
        }
        for b in 0..9 {
            let top = (b / 3) * 27 + (b % 3) * 3;
            all &= y[top] | y[top + 9] | y[top + 18];
        }
        let mut bands = [0u16; 27];
        for (i, v) in bands.iter_mut().enumerate() {
            *v = bits[i] | bits[i + 27] | bits[i + 54];
        }
        for col in 0..9 {
            all &= bands[col] | bands[col + 9] | bands[col + 18];
        }
        // Every given kept: no cell where the puzzle has a digit and the grid another.
        let changed = c
            .iter()
            .zip(p)
            .fold(0u8, |bad, (&s, &g)| bad | (((g != 0) & (g != s)) as u8));
        (all == ALL_DIGIT_BITS) & (changed == 0)
    }

    /// Write the grid as 81 bytes, `.` for blanks.
    // Inline across crates: sudoku-bench-foreign calls it inside its timed closures.
    #[inline]
    pub fn write_dotted(&self, out: &mut [u8; 81]) {
        // Branch-free so that it vectorises: the CSV writer calls it twice per row.
        for (o, &c) in out.iter_mut().zip(self.cells.iter()) {
            *o = b'0' + c - ((c == 0) as u8) * (b'0' - b'.');
        }
    }

    /// The grid as an 81-character string, `.` for blanks.
    pub fn to_dotted(&self) -> String {
        let mut buf = [0u8; 81];
        self.write_dotted(&mut buf);
        // Only ASCII digits and dots were written.
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// Bits 0..9: every digit present, as `digit_bit` sets them.
const ALL_DIGIT_BITS: u16 = 0x1ff;

/// Digit `d` (1..=9) as bit `d - 1`; a blank as no bit. Anything above 9 (which a
/// `Grid` never holds) lands above bit 8, where it cannot stand for a digit.
#[inline(always)]
fn digit_bit(d: u8) -> u16 {
    (1u16 << d.min(15)) >> 1
}

/// The houses of each cell as bits: its row (bits 0..9), column (9..18) and box (18..27).
const HOUSE_BITS: [u32; 81] = {
    let mut t = [0u32; 81];
    let mut cell = 0;
    while cell < 81 {
        t[cell] = (1 << (cell / 9)) | (1 << (9 + cell % 9)) | (1 << (18 + box_of(cell)));
        cell += 1;
    }
    t
};

/// Multiplying a word whose bytes are 0 or 1 by this puts byte `k`'s bit at bit `56 + k`:
/// the other products land past bit 63, or below bit 56 without carrying into it (a test
/// tries all 256 words).
const GATHER_BYTE_BITS: u64 = 0x0102_0408_1020_4080;

/// The low seven and the top bit of each byte of a word.
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH1: u64 = 0x8080_8080_8080_8080;

/// The `k`-th cell of house `unit` of kind 0 (row), 1 (column) or 2 (box).
#[inline]
fn unit_cell(kind: u8, unit: usize, k: usize) -> usize {
    match kind {
        0 => unit * 9 + k,
        1 => k * 9 + unit,
        _ => (unit / 3) * 27 + (unit % 3) * 3 + (k / 3) * 9 + k % 3,
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_dotted())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({})", self.to_dotted())
    }
}

impl std::str::FromStr for Grid {
    type Err = CellError;
    fn from_str(s: &str) -> Result<Grid, CellError> {
        Grid::parse(s.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";

    #[test]
    fn parse_round_trips_and_counts_clues() {
        let g: Grid = PUZZLE.parse().unwrap();
        assert_eq!(g.to_dotted(), PUZZLE);
        assert_eq!(g.clues(), 18);
        let zeros = PUZZLE.replace('.', "0");
        assert_eq!(zeros.parse::<Grid>().unwrap(), g);
    }

    #[test]
    fn parse_reports_length_and_bad_character() {
        assert_eq!(
            Grid::parse(&PUZZLE.as_bytes()[..80]),
            Err(CellError::Length {
                found: 80,
                stray: None
            })
        );
        // A character that does not show, past the 81 cells: named.
        let nbsp = format!("{PUZZLE}\u{a0}");
        let err = Grid::parse(nbsp.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "expected 81 cells, found 82, among them '\\u{a0}' at column 82, which is not a \
             digit or a blank"
        );
        let mut bad = PUZZLE.to_string();
        bad.replace_range(16..17, "x");
        assert_eq!(
            Grid::parse(bad.as_bytes()),
            Err(CellError::Character {
                found: 'x',
                column: 17
            })
        );
    }

    #[test]
    fn conflict_names_digit_unit_and_cells() {
        let mut g: Grid = PUZZLE.parse().unwrap();
        assert!(g.conflict().is_none());
        // A second 4 in row 1 (cell r1c9).
        g.set(8, 4);
        let c = g.conflict().unwrap();
        assert_eq!(
            (c.digit, c.unit, c.first, c.second),
            (4, Unit::Row(0), 0, 8)
        );
        assert_eq!(
            c.to_string(),
            "digit 4 appears twice in row 1 (r1c1 and r1c9)"
        );

        let mut g: Grid = PUZZLE.parse().unwrap();
        g.set(9 * 8, 4); // r9c1 shares column 1 with r1c1
        assert_eq!(g.conflict().unwrap().unit, Unit::Column(0));

        let mut g: Grid = PUZZLE.parse().unwrap();
        g.set(10, 4); // r2c2 shares box 1 with r1c1
        assert_eq!(g.conflict().unwrap().unit, Unit::Box(0));
    }

    const SOLUTION: &str =
        "468931527751624839392578461134756298289413675675289314846192753513867942927345186";

    /// The 27 houses' cells, spelled out without the tables the fast checks use.
    fn houses() -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for r in 0..9 {
            out.push((0..9).map(|c| r * 9 + c).collect());
        }
        for c in 0..9 {
            out.push((0..9).map(|r| r * 9 + c).collect());
        }
        for b in 0..9 {
            let (r0, c0) = ((b / 3) * 3, (b % 3) * 3);
            out.push((0..9).map(|k| (r0 + k / 3) * 9 + c0 + k % 3).collect());
        }
        out
    }

    /// The rule, spelled out: no house holds a digit twice.
    fn breaks_no_rule_slow(g: &Grid) -> bool {
        houses().iter().all(|house| {
            let digits: Vec<u8> = house
                .iter()
                .map(|&i| g.get(i))
                .filter(|&d| d != 0)
                .collect();
            let mut unique = digits.clone();
            unique.sort_unstable();
            unique.dedup();
            unique.len() == digits.len()
        })
    }

    #[test]
    fn gather_byte_bits_puts_each_byte_in_the_top_byte() {
        for bits in 0..=255u64 {
            let word: u64 = (0..8).map(|k| ((bits >> k) & 1) << (8 * k)).sum();
            assert_eq!(
                word.wrapping_mul(GATHER_BYTE_BITS) >> 56,
                bits,
                "{bits:08b}"
            );
        }
    }

    /// The definition, spelled out: every house holds 1..=9, every given kept.
    fn is_solution_slow(s: &Grid, puzzle: &Grid) -> bool {
        houses().iter().all(|house| {
            let mut digits: Vec<u8> = house.iter().map(|&i| s.get(i)).collect();
            digits.sort_unstable();
            digits == (1..=9).collect::<Vec<u8>>()
        }) && (0..81).all(|i| puzzle.get(i) == 0 || puzzle.get(i) == s.get(i))
    }

    /// Both checks, by every path this CPU can take, against their definitions, and
    /// `conflict` against `breaks_no_rule`.
    fn check_all(g: &Grid, puzzle: &Grid) {
        let (rule, solved) = (breaks_no_rule_slow(g), is_solution_slow(g, puzzle));
        assert_eq!(g.breaks_no_rule(), rule, "{g}");
        assert_eq!(g.conflict().is_none(), rule, "{g}");
        assert_eq!(g.is_solution_of(puzzle), solved, "{g} / {puzzle}");
        assert_eq!(g.is_solution_of_portable(puzzle), solved, "{g} / {puzzle}");
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: `available` said the CPU has AVX2 and POPCNT.
            let solved_avx2 = unsafe { avx2::is_solution_of(g, puzzle) };
            assert_eq!(solved_avx2, solved, "{g} / {puzzle}");
        }
        assert_eq!(
            g.clues(),
            g.cells().iter().filter(|&&c| c != 0).count(),
            "{g}"
        );
    }

    /// Many grids that differ from `base` in one or two cells.
    fn near(base: &Grid) -> Vec<Grid> {
        let mut out = vec![*base];
        for cell in 0..81 {
            for d in 0..=9 {
                let mut g = *base;
                g.set(cell, d);
                out.push(g);
            }
        }
        // The same digit twice in each house, at every pair of its cells.
        for house in houses() {
            for (i, &a) in house.iter().enumerate() {
                for &b in &house[i + 1..] {
                    let mut g = *base;
                    let d = if base.get(a) != 0 {
                        base.get(a)
                    } else {
                        1 + (a % 9) as u8
                    };
                    g.set(a, d);
                    g.set(b, d);
                    out.push(g);
                }
            }
        }
        out
    }

    #[test]
    fn rule_and_solution_checks_agree_with_their_definitions() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let solution: Grid = SOLUTION.parse().unwrap();
        assert!(puzzle.breaks_no_rule() && solution.breaks_no_rule());
        assert!(solution.is_solution_of(&puzzle) && solution.is_solution_of(&Grid::EMPTY));
        assert!(Grid::EMPTY.breaks_no_rule() && !Grid::EMPTY.is_solution_of(&Grid::EMPTY));
        for base in [puzzle, solution, Grid::EMPTY] {
            for g in near(&base) {
                check_all(&g, &puzzle);
                check_all(&g, &Grid::EMPTY);
            }
        }
    }

    #[test]
    fn rule_and_solution_checks_agree_on_random_grids() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let solution: Grid = SOLUTION.parse().unwrap();
        let mut rng = crate::rng::Rng::from_seed(7);
        let mut broken = [0usize; 2];
        for round in 0..20_000 {
            // Random digits in a random number of cells: few clues break no rule, many do.
            let mut g = Grid::EMPTY;
            let clues = rng.below(82) as usize;
            for _ in 0..clues {
                g.set(rng.below(81) as usize, 1 + rng.below(9) as u8);
            }
            broken[g.breaks_no_rule() as usize] += 1;
            check_all(&g, &Grid::EMPTY);
            // A solution with its digits relabelled is a solution; one then changed in a
            // cell or two, or with some cells blanked, is not.
            let mut labels: Vec<u8> = (1..=9).collect();
            rng.shuffle(&mut labels);
            let mut s = Grid::EMPTY;
            for i in 0..81 {
                s.set(i, labels[solution.get(i) as usize - 1]);
            }
            let mut p = s;
            for i in 0..81 {
                if rng.below(3) != 0 {
                    p.set(i, 0);
                }
            }
            check_all(&s, &p);
            assert!(s.is_solution_of(&p));
            // Every house right but the givens of another labelling not kept.
            check_all(&s, &puzzle);
            assert_eq!(s.is_solution_of(&puzzle), s == solution);
            for _ in 0..=round % 2 {
                s.set(rng.below(81) as usize, rng.below(10) as u8);
            }
            check_all(&s, &p);
            check_all(&p, &p);
        }
        // Both outcomes were exercised.
        assert!(broken.iter().all(|&n| n > 1000), "{broken:?}");
    }

    /// Houses with one digit 2 to 9 times, alone or next to the other digits, in every
    /// house of every kind.
    #[test]
    fn rule_check_sees_digits_repeated_many_times() {
        for house in houses() {
            for d in 1..=9u8 {
                for times in 2..=9 {
                    for others in [false, true] {
                        let mut g = Grid::EMPTY;
                        for (k, &cell) in house.iter().enumerate() {
                            if k < times {
                                g.set(cell, d);
                            } else if others {
                                // The digits other than `d`, so only `d` repeats.
                                g.set(cell, 1 + ((d as usize + k - times) % 9) as u8);
                            }
                        }
                        check_all(&g, &Grid::EMPTY);
                        assert!(!g.breaks_no_rule(), "{g}");
                    }
                }
            }
        }
    }

    #[test]
    fn solution_check_needs_every_house_kind() {
        let solution: Grid = SOLUTION.parse().unwrap();
        // Rows and columns are permutations, boxes are not: a cyclic Latin square.
        let mut latin = Grid::EMPTY;
        for i in 0..81 {
            latin.set(i, ((i / 9 + i % 9) % 9 + 1) as u8);
        }
        // Rows and boxes hold every digit, columns do not: rotate three cells of a row
        // within their box. Columns and boxes, not rows: the same down a column.
        for k in 0..27 {
            let mut across = solution;
            let cells = [3 * k, 3 * k + 1, 3 * k + 2];
            across.set(cells[0], solution.get(cells[1]));
            across.set(cells[1], solution.get(cells[2]));
            across.set(cells[2], solution.get(cells[0]));
            let top = (k / 9) * 27 + k % 9;
            let cells = [top, top + 9, top + 18];
            let mut down = solution;
            down.set(cells[0], solution.get(cells[1]));
            down.set(cells[1], solution.get(cells[2]));
            down.set(cells[2], solution.get(cells[0]));
            for g in [across, down] {
                assert!(!g.is_solution_of(&Grid::EMPTY), "{g}");
                check_all(&g, &Grid::EMPTY);
            }
        }
        assert!(!latin.is_solution_of(&Grid::EMPTY));
        check_all(&latin, &Grid::EMPTY);
    }

    #[test]
    fn solution_check_rejects_wrong_grids() {
        let solution: Grid =
            "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
                .parse()
                .unwrap();
        let puzzle: Grid = PUZZLE.parse().unwrap();
        assert!(solution.is_solution_of(&puzzle));
        let mut wrong = solution;
        wrong.set(0, 1);
        assert!(!wrong.is_solution_of(&puzzle));
        assert!(!puzzle.is_solution_of(&puzzle));
    }
}
