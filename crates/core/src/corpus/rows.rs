//! Cells written apart, and grid corpora (`Format::Grid`): a puzzle as nine lines of nine
//! cells, as people draw one.
//!
//! A row's cells are `1`-`9`, `0` or `.`, alone or in groups, between spaces, `,` or `|`
//! (`4 . . | . 3 . | . . .`, `4..|.3.|...`, `400030000`). A rule line (`------+-------+------`,
//! `+-------+`: only `-`, `=`, `+`, `|` and spaces) inside a grid is part of it; outside one it
//! holds nothing, as a blank line does. A grid is whole at its ninth row. A blank line or a
//! comment before that ends it cut short: its lines are one malformed record, so that one
//! missing row does not shift every later grid. A line that is no row inside a grid counts
//! as a bad row of it (the grid is malformed, naming that line); outside one it is a
//! malformed line of its own.
//!
//! Every record a grid makes has the line of its first row; its bytes are its lines, rows
//! and rules, as read.

use super::checked::checked;
use super::{Kind, MAX_LINE};
use crate::grid::Grid;

/// Bytes that separate cells written apart.
fn is_apart(b: u8) -> bool {
    matches!(b, b',' | b'|') || b.is_ascii_whitespace()
}

fn is_cell(b: u8) -> bool {
    b.is_ascii_digit() || b == b'.'
}

/// Cells written apart: every byte of a line a cell or a separator.
pub(super) struct Apart {
    /// The first 81 cells' values (0 for a blank).
    cells: [u8; 81],
    /// Cells in the line.
    pub count: usize,
    /// Groups of cells between separators.
    groups: usize,
    /// The cells in every group, when all groups are alike.
    group_len: Option<usize>,
}

/// Why a line is not cells apart: a byte that is neither a cell nor a separator, at a
/// 1-based column in characters.
pub(super) struct NotCells {
    pub found: char,
    pub column: usize,
}

impl Apart {
    /// The cells of `line`, when each of its bytes is a cell or a separator.
    pub fn of(line: &[u8]) -> Result<Apart, NotCells> {
        let mut apart = Apart {
            cells: [0; 81],
            count: 0,
            groups: 0,
            group_len: None,
        };
        let (mut run, mut alike) = (0usize, true);
        let mut end_group = |apart: &mut Apart, run: usize| {
            if run > 0 {
                apart.groups += 1;
                alike &= apart.group_len.is_none_or(|len| len == run);
                apart.group_len = Some(run);
            }
        };
        for (i, &b) in line.iter().enumerate() {
            if is_cell(b) {
                if let Some(cell) = apart.cells.get_mut(apart.count) {
                    *cell = if b == b'.' { 0 } else { b - b'0' };
                }
                apart.count += 1;
                run += 1;
            } else if is_apart(b) {
                end_group(&mut apart, run);
                run = 0;
            } else {
                let rest = String::from_utf8_lossy(&line[i..]);
                return Err(NotCells {
                    found: rest.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER),
                    column: String::from_utf8_lossy(&line[..i]).chars().count() + 1,
                });
            }
        }
        end_group(&mut apart, run);
        if !alike {
            apart.group_len = None;
        }
        Ok(apart)
    }

    /// The grid of a whole puzzle on one line with its cells apart: 81 cells in two groups
    /// or more, all of one, three or nine cells (`4 . . 3 ...`, `4,.,.,3,...`, nine rows
    /// apart, `4..|...|8.5|...`). `None` for anything else, so that a line that is a
    /// puzzle cut short with a number after it is not read as one.
    pub fn one_line_grid(&self) -> Option<Grid> {
        let alike = matches!(self.group_len, Some(1 | 3 | 9));
        (alike && self.groups >= 2 && self.count == 81).then(|| self.grid())
    }

    /// Whether these are cells apart at all, rather than one field: then their count is
    /// what is wrong with a line that is no puzzle.
    pub fn is_apart(&self) -> bool {
        self.groups >= 2 && matches!(self.group_len, Some(1 | 3 | 9))
    }

    fn grid(&self) -> Grid {
        Grid::from_cells(self.cells).unwrap_or(Grid::EMPTY)
    }
}

/// What a line of a grid corpus is.
enum GridLine {
    Row([u8; 9]),
    Rule,
    Blank,
    Comment,
    /// Longer than `MAX_LINE`.
    Long,
    /// No row: why, and the 1-based column, in characters, of what is wrong.
    Bad {
        reason: String,
        column: usize,
    },
}

impl GridLine {
    fn of(content: &[u8], cut: bool) -> GridLine {
        if cut {
            return GridLine::Long;
        }
        let line = content.trim_ascii();
        match line.first() {
            None => return GridLine::Blank,
            Some(b'#') => return GridLine::Comment,
            Some(_) => {}
        }
        let rule_byte = |b: &u8| matches!(b, b'-' | b'=' | b'+' | b'|') || b.is_ascii_whitespace();
        if line.iter().all(rule_byte) && line.iter().any(|b| matches!(b, b'-' | b'=')) {
            return GridLine::Rule;
        }
        match Apart::of(line) {
            Ok(apart) if apart.count == 9 => {
                let mut row = [0; 9];
                row.copy_from_slice(&apart.cells[..9]);
                GridLine::Row(row)
            }
            Ok(apart) => GridLine::Bad {
                reason: format!("a grid row has 9 cells, found {}", apart.count),
                column: 1,
            },
            Err(NotCells { found, column }) => GridLine::Bad {
                reason: format!(
                    "character {found:?} at column {column} is not a digit, a blank ('.' or \
                     '0') or a separator (space, ',' or '|')"
                ),
                column,
            },
        }
    }
}

/// Whether a trimmed line of a corpus read as text looks like a grid's: `Some(true)` for
/// a row of nine cells, `Some(false)` for a rule, `None` for anything else.
pub(super) fn shape(line: &[u8]) -> Option<bool> {
    match GridLine::of(line, false) {
        GridLine::Row(_) => Some(true),
        GridLine::Rule => Some(false),
        GridLine::Blank | GridLine::Comment | GridLine::Long | GridLine::Bad { .. } => None,
    }
}

/// Bytes of a grid's lines kept for its record; past this, its bytes are not kept (a
/// grid's rows are short: only endless rule lines get there).
const MAX_GRID: usize = MAX_LINE;

/// What a line of a grid corpus gave.
pub(super) enum Taken {
    /// Its own record: the kind is in the slot.
    Line,
    /// Nothing yet: it is part of a grid not yet whole.
    Part,
    /// A grid's record, whole or cut short, from line `first`: the kind is in the slot,
    /// the bytes in `Rows::bytes`.
    Grid { first: u64 },
}

/// The grid being read, row by row.
#[derive(Debug)]
pub(super) struct Rows {
    /// The line of its first row; 0 while no grid is open.
    first: u64,
    /// The line of its last row so far.
    last: u64,
    /// Row lines taken, good or bad.
    rows: usize,
    cells: [u8; 81],
    /// Why the first bad row is none, naming its line.
    bad: Option<String>,
    /// Its lines as read, endings included.
    bytes: Vec<u8>,
    /// Its lines were not all kept in `bytes`.
    cut: bool,
}

impl Default for Rows {
    fn default() -> Rows {
        Rows {
            first: 0,
            last: 0,
            rows: 0,
            cells: [0; 81],
            bad: None,
            bytes: Vec::new(),
            cut: false,
        }
    }
}

impl Rows {
    /// Take line `line` (`content` without its `ending`; only its first `MAX_LINE` bytes
    /// when `cut`) and write into `slot` the kind of the record it gives, if any.
    pub fn take(
        &mut self,
        slot: &mut Kind,
        line: u64,
        content: &[u8],
        ending: &[u8],
        cut: bool,
    ) -> Taken {
        let open = self.first != 0;
        match GridLine::of(content, cut) {
            GridLine::Blank if !open => *slot = Kind::Blank,
            GridLine::Rule if !open => *slot = Kind::Blank,
            GridLine::Comment if !open => *slot = Kind::Comment,
            GridLine::Long if !open => {
                *slot = Kind::Malformed {
                    reason: format!("line is longer than {MAX_LINE} bytes"),
                    column: MAX_LINE + 1,
                }
            }
            GridLine::Bad { reason, column } if !open => *slot = Kind::Malformed { reason, column },
            GridLine::Rule => {
                self.keep(content, ending, cut);
                return Taken::Part;
            }
            GridLine::Blank | GridLine::Comment => {
                self.keep(content, ending, cut);
                let reason = format!(
                    "grid cut short: {} rows of 9 (lines {}-{})",
                    self.rows, self.first, self.last
                );
                return self.close(slot, Some(reason));
            }
            GridLine::Row(row) => return self.row(slot, line, content, ending, cut, Ok(row)),
            GridLine::Long => {
                let reason = format!("longer than {MAX_LINE} bytes");
                return self.row(slot, line, content, ending, cut, Err(reason));
            }
            GridLine::Bad { reason, .. } => {
                return self.row(slot, line, content, ending, cut, Err(reason))
            }
        }
        Taken::Line
    }

    /// Write into `slot` the kind of the grid left open at the end of the corpus, if one
    /// is: it is cut short.
    pub fn finish(&mut self, slot: &mut Kind) -> Taken {
        if self.first == 0 {
            return Taken::Part;
        }
        let reason = format!(
            "grid cut short at the end: {} rows of 9 (lines {}-{})",
            self.rows, self.first, self.last
        );
        self.close(slot, Some(reason))
    }

    /// Whether a grid is open: the end of the corpus would close it.
    pub fn is_open(&self) -> bool {
        self.first != 0
    }

    /// The lines of the grid last closed, as read; `None` when they were not all kept.
    pub fn bytes(&self) -> Option<&[u8]> {
        (!self.cut).then_some(&self.bytes[..])
    }

    /// Take a row line (or a line that should be one: `Err` says why not).
    fn row(
        &mut self,
        slot: &mut Kind,
        line: u64,
        content: &[u8],
        ending: &[u8],
        cut: bool,
        row: Result<[u8; 9], String>,
    ) -> Taken {
        if self.first == 0 {
            self.first = line;
            self.bytes.clear();
            self.cut = false;
            self.bad = None;
        }
        self.keep(content, ending, cut);
        match row {
            Ok(row) => {
                if let Some(cells) = self.cells.get_mut(self.rows * 9..self.rows * 9 + 9) {
                    cells.copy_from_slice(&row);
                }
            }
            Err(reason) => {
                self.bad
                    .get_or_insert_with(|| format!("line {line}: {reason}"));
            }
        }
        self.last = line;
        self.rows += 1;
        if self.rows < 9 {
            return Taken::Part;
        }
        self.close(slot, None)
    }

    /// Write the open grid's kind into `slot` (malformed for `short`, why it is cut short,
    /// or a bad row) and close it.
    fn close(&mut self, slot: &mut Kind, short: Option<String>) -> Taken {
        *slot = match self.bad.take().or(short) {
            Some(reason) => Kind::Malformed { reason, column: 1 },
            None => match checked(Grid::from_cells(self.cells).unwrap_or(Grid::EMPTY), 1, None) {
                // Where a grid's cells are is told by its reason (r1c2), not a column.
                Kind::Invalid { grid, reason, .. } => Kind::Invalid {
                    grid,
                    reason,
                    column: 1,
                },
                kind => kind,
            },
        };
        let first = self.first;
        self.first = 0;
        self.rows = 0;
        Taken::Grid { first }
    }

    fn keep(&mut self, content: &[u8], ending: &[u8], cut: bool) {
        if cut || self.bytes.len() + content.len() + ending.len() > MAX_GRID {
            self.cut = true;
            return;
        }
        self.bytes.extend_from_slice(content);
        self.bytes.extend_from_slice(ending);
    }
}
