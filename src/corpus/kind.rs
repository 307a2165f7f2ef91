//! How a line's bytes become a `Kind`: the one function every read path calls
//! (`State::kind_into`), and the parsing and checks behind it.

use super::parsed::{Bad, Fields};
use super::{csv, text, CsvLayout, Format, Kind, LoadError, ReadAs, MAX_LINE};
use crate::grid::{cell_name, Grid};

/// How the data lines of a corpus are laid out, once its first data line has said.
#[derive(Debug, Clone, Default)]
pub(super) enum Layout {
    #[default]
    Text,
    Csv(CsvLayout),
}

/// What reading a corpus so far has settled: its name, its format and the line reached.
#[derive(Debug)]
pub(super) struct State {
    pub name: String,
    pub read_as: ReadAs,
    pub layout: Option<Layout>,
    /// Lines read so far: the 1-based number of the last one.
    pub line: u64,
    /// Lines up to this one are read and classified (which settles the format) but become
    /// no record: see `Corpus::skip_through`.
    pub skip_through: u64,
    /// Round robin: only the lines of this part become records (see `Corpus::round_robin`).
    pub round_robin: Option<super::Shard>,
    /// What the lines taken so far add up to (`Corpus::identity`).
    pub seen: super::Identity,
}

impl State {
    /// Write the kind of the next line into `slot`, `content` being its bytes without
    /// the line ending (only its first `MAX_LINE` when `cut`). Settles the format on the
    /// first data line. Writes in place rather than returning the kind: on the reader's
    /// hot path, a `Result<Kind, _>` returned costs a copy of the kind per line.
    #[inline(always)]
    pub fn kind_into(
        &mut self,
        slot: &mut Kind,
        content: &[u8],
        cut: bool,
    ) -> Result<(), LoadError> {
        if cut {
            *slot = Kind::Malformed {
                reason: format!("line is longer than {MAX_LINE} bytes"),
                column: MAX_LINE + 1,
            };
            return Ok(());
        }
        let line = content.trim_ascii();
        match line.first() {
            None => *slot = Kind::Blank,
            Some(b'#') => *slot = Kind::Comment,
            Some(_) => match &self.layout {
                Some(layout) => set_kind(slot, layout.classify(content)),
                None => {
                    let layout = self.detect(line)?;
                    *slot = match layout {
                        Layout::Csv(_) => Kind::Header,
                        Layout::Text => layout.classify(content),
                    };
                    self.layout = Some(layout);
                }
            },
        }
        Ok(())
    }

    /// The layout the first data line, `first`, shows, as far as `read_as` leaves it open.
    fn detect(&self, first: &[u8]) -> Result<Layout, LoadError> {
        if self.read_as.format == Some(Format::Text) {
            return Ok(Layout::Text);
        }
        let forced = self.read_as.wants_csv();
        let header = csv::Header::of(first);
        match header.layout(&self.read_as) {
            Ok(layout) => Ok(Layout::Csv(layout)),
            Err(csv::Missing { column, named }) if forced || header.is_names() => {
                Err(LoadError::NoColumn {
                    name: self.name.clone(),
                    line: self.line,
                    column,
                    named,
                    found: header.names,
                    forced,
                })
            }
            Err(_) => Ok(Layout::Text),
        }
    }
}

impl Layout {
    /// Parse and check a data line (not blank, not a comment, not the header).
    pub(super) fn classify(&self, raw: &[u8]) -> Kind {
        let line = raw.trim_ascii();
        let offset = line.as_ptr() as usize - raw.as_ptr() as usize;
        // Nearly every line of a text corpus is a grid, maybe followed by other fields:
        // the grid parsing proves its 81 bytes ASCII, so only what follows needs the
        // UTF-8 check. This gives what the general path below gives, for less.
        if let Layout::Text = self {
            if let Some(grid) = text::parse_grid_first(line) {
                return checked(grid, 1 + offset, None);
            }
        }
        self.classify_general(line, offset)
    }

    /// `classify` for any trimmed line, `offset` bytes into its raw line.
    fn classify_general(&self, line: &[u8], offset: usize) -> Kind {
        if std::str::from_utf8(line).is_err() {
            let column = first_non_utf8(line) + offset + 1;
            return Kind::Malformed {
                reason: format!("bytes at column {column} are not valid UTF-8"),
                column,
            };
        }
        let parsed = match self {
            Layout::Csv(layout) => layout.parse(line),
            Layout::Text => text::parse(line),
        };
        match parsed {
            Err(Bad { reason, column }) => Kind::Malformed {
                reason,
                column: column + offset,
            },
            Ok(Fields {
                grid,
                grid_column,
                expected,
            }) => checked(grid, grid_column + offset, expected),
        }
    }
}

/// `*slot = kind`, writing only what changes in the common case, a puzzle (without a
/// solution column) in a record that held one: the record was last written to by a
/// worker on the other core, and this writes two of its cache lines rather than all.
#[inline(always)]
pub(super) fn set_kind(slot: &mut Kind, kind: Kind) {
    match (slot, kind) {
        (
            Kind::Puzzle { grid, expected },
            Kind::Puzzle {
                grid: new,
                expected: None,
            },
        ) => {
            *grid = new;
            if expected.is_some() {
                *expected = None;
            }
        }
        (slot, kind) => *slot = kind,
    }
}

/// A parsed grid checked against the rules and the corpus's own solution, if any;
/// `grid_column` is 1-based within the raw line.
#[inline(always)]
fn checked(grid: Grid, grid_column: usize, expected: Option<Grid>) -> Kind {
    match grid.conflict() {
        Some(conflict) => Kind::Invalid {
            grid,
            reason: conflict.to_string(),
            column: grid_column + conflict.second,
        },
        None => match expected {
            Some(solution) if !solution.is_solution_of(&grid) => Kind::Malformed {
                reason: solution_reason(&grid, &solution),
                column: grid_column,
            },
            _ => Kind::Puzzle { grid, expected },
        },
    }
}

/// Why a corpus's solution column does not fit its puzzle.
fn solution_reason(puzzle: &Grid, solution: &Grid) -> String {
    if !solution.is_complete() {
        return "solution column is not a complete grid".to_string();
    }
    if let Some(i) = (0..81).find(|&i| puzzle.get(i) != 0 && puzzle.get(i) != solution.get(i)) {
        return format!(
            "solution column has {} at {} where the puzzle gives {}",
            solution.get(i),
            cell_name(i),
            puzzle.get(i)
        );
    }
    match solution.conflict() {
        Some(conflict) => format!("solution column breaks a rule: {conflict}"),
        None => "solution column does not solve the puzzle".to_string(),
    }
}

fn first_non_utf8(line: &[u8]) -> usize {
    match std::str::from_utf8(line) {
        Ok(_) => line.len(),
        Err(e) => e.valid_up_to(),
    }
}
