//! `Grid`: the 81 cells of a Sudoku, parsing from text, the givens' rule check and
//! solution verification.
//!
//! Cells are numbered row-major, 0..81: cell `i` is in row `i / 9`, column `i % 9` and
//! box `(i / 27) * 3 + (i % 9) / 3`. A cell holds 0 when blank, else its digit 1..=9.

use std::fmt;

/// The 81 cells of a Sudoku grid, row-major, 0 for a blank cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    cells: [u8; 81],
}

/// Why a field is not an 81-cell grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    #[error("expected 81 cells, found {found}")]
    Length { found: usize },
    /// `column` is 1-based within the field.
    #[error("character {found:?} at column {column} is not a digit or a blank ('.' or '0')")]
    Character { found: char, column: usize },
}

/// A house: one of the 27 rows, columns and boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Row(u8),
    Column(u8),
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
    pub digit: u8,
    pub unit: Unit,
    /// The two cells, in row-major order (`first < second`).
    pub first: usize,
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
pub const PERMUTATIONS_OF_3: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// `r3c7` style name of a cell, 1-based.
pub fn cell_name(cell: usize) -> String {
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
            let found = match std::str::from_utf8(field) {
                Ok(s) => s.chars().count(),
                Err(_) => field.len(),
            };
            return Err(CellError::Length { found });
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

    #[inline]
    pub fn cells(&self) -> &[u8; 81] {
        &self.cells
    }

    #[inline]
    pub fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    #[inline]
    pub fn set(&mut self, cell: usize, digit: u8) {
        debug_assert!(digit <= 9);
        self.cells[cell] = digit;
    }

    /// Number of givens (non-blank cells).
    pub fn clues(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }

    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&c| c != 0)
    }

    /// True when no digit appears twice in a row, column or box.
    ///
    /// One pass with a bitmask per house: this runs on every puzzle and every solution, so
    /// it must cost far less than the fastest solve.
    pub fn breaks_no_rule(&self) -> bool {
        let mut houses = [0u16; 27];
        for (cell, &d) in self.cells.iter().enumerate() {
            if d == 0 {
                continue;
            }
            let bit = 1u16 << d;
            let [r, c, b] = HOUSES[cell];
            let seen = houses[r as usize] | houses[c as usize] | houses[b as usize];
            if seen & bit != 0 {
                return false;
            }
            houses[r as usize] |= bit;
            houses[c as usize] |= bit;
            houses[b as usize] |= bit;
        }
        true
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
        // A complete grid breaks no rule exactly when each house holds all nine digits:
        // nine cells can only cover nine digits by holding each once (a blank would set
        // bit 0 and leave a digit out).
        let (c, p) = (&self.cells, &puzzle.cells);
        let mut valid = true;
        for house in 0..9 {
            let (mut row, mut col, mut bx) = (0u16, 0u16, 0u16);
            for k in 0..9 {
                row |= 1u16 << c[house * 9 + k];
                col |= 1u16 << c[k * 9 + house];
                bx |= 1u16 << c[BOX_CELLS[house][k]];
            }
            valid &= (row == ALL_DIGITS) & (col == ALL_DIGITS) & (bx == ALL_DIGITS);
        }
        let givens_kept = c
            .iter()
            .zip(p)
            .fold(true, |ok, (&s, &g)| ok & ((g == 0) | (g == s)));
        valid & givens_kept
    }

    /// Write the grid as 81 bytes, `.` for blanks.
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

/// Bits 1..=9: every digit present (bit 0 would be a blank).
const ALL_DIGITS: u16 = 0x3fe;

/// The row (0..9), column (9..18) and box (18..27) house of each cell.
const HOUSES: [[u8; 3]; 81] = {
    let mut t = [[0u8; 3]; 81];
    let mut cell = 0;
    while cell < 81 {
        t[cell] = [
            (cell / 9) as u8,
            9 + (cell % 9) as u8,
            18 + box_of(cell) as u8,
        ];
        cell += 1;
    }
    t
};

/// The cells of each box, row-major within the box.
const BOX_CELLS: [[usize; 9]; 9] = {
    let mut t = [[0usize; 9]; 9];
    let mut b = 0;
    while b < 9 {
        let mut k = 0;
        while k < 9 {
            t[b][k] = (b / 3) * 27 + (b % 3) * 3 + (k / 3) * 9 + k % 3;
            k += 1;
        }
        b += 1;
    }
    t
};

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
            Err(CellError::Length { found: 80 })
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

    #[test]
    fn fast_rule_check_agrees_with_the_detailed_one() {
        let g: Grid = PUZZLE.parse().unwrap();
        assert!(g.breaks_no_rule());
        for cell in 0..81 {
            for d in 1..=9 {
                let mut h = g;
                h.set(cell, d);
                assert_eq!(h.breaks_no_rule(), h.conflict().is_none(), "{h}");
            }
        }
    }

    /// The definition, spelled out: complete, no rule broken, every given kept.
    fn is_solution_slow(s: &Grid, puzzle: &Grid) -> bool {
        s.is_complete()
            && s.conflict().is_none()
            && (0..81).all(|i| puzzle.get(i) == 0 || puzzle.get(i) == s.get(i))
    }

    #[test]
    fn fast_solution_check_agrees_with_the_definition() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let solution: Grid =
            "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
                .parse()
                .unwrap();
        assert!(solution.is_solution_of(&puzzle) && is_solution_slow(&solution, &puzzle));
        for cell in 0..81 {
            for d in 0..=9 {
                let mut s = solution;
                s.set(cell, d);
                assert_eq!(
                    s.is_solution_of(&puzzle),
                    is_solution_slow(&s, &puzzle),
                    "{s}"
                );
                // Swapping two cells of a row keeps every house's digits in the row but
                // breaks columns (and maybe boxes) unless the cells hold the same digit.
                let mut t = solution;
                let (a, b) = (cell, cell - cell % 9 + (cell + d as usize) % 9);
                let (x, y) = (t.get(a), t.get(b));
                t.set(a, y);
                t.set(b, x);
                assert_eq!(
                    t.is_solution_of(&puzzle),
                    is_solution_slow(&t, &puzzle),
                    "{t}"
                );
            }
        }
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
