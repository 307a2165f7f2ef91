//! How a line's bytes become a `Kind`: the one function every read path calls
//! (`State::kind_into`), and the parsing behind it (a grid corpus's lines go to
//! [`super::rows`]; every grid read goes through [`super::checked`]).

use super::checked::checked;
use super::parsed::{Bad, Fields};
use super::rows::{self, Rows, Taken};
use super::{csv, text, CsvLayout, Format, Kind, LoadError, ReadAs, MAX_LINE};

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
    /// In a CSV corpus, the line a quoted field opened on that has not closed yet: the
    /// lines up to its closing quote are pieces of it, not records.
    pub open_quote: Option<u64>,
    /// How lines become records beyond what `layout` says: one by one with nothing
    /// more to do (the hot path), one by one while watching the leading ones, or through
    /// a grid.
    pub reading: Reading,
}

/// How the lines of a corpus become records, beyond what its layout says.
#[derive(Debug)]
pub(super) enum Reading {
    /// Each line its own record, and nothing else to do.
    Lines,
    /// Each line its own record, in a corpus whose format is detected, until it gives a
    /// puzzle: how many lines in a row (blanks and comments aside) looked like a grid's
    /// (rows of 9 cells, rules), and whether one was a row. Two such lines, one a row, are
    /// a grid read as text, each row malformed: refused, naming the layout, rather than
    /// reported as a run of bad lines with nothing searched.
    Watching { grid_lines: u8, row: bool },
    /// A grid corpus: its lines become records through its grid (it has no `layout`).
    /// Boxed, so that telling `Lines` on the hot path reads a tag, not a field of `Rows`.
    Grid(Box<Rows>),
}

impl Reading {
    /// How a corpus read as `read_as` says starts.
    pub fn new(read_as: &ReadAs) -> Reading {
        match read_as.format {
            None => Reading::Watching {
                grid_lines: 0,
                row: false,
            },
            Some(Format::Grid) => Reading::Grid(Box::default()),
            Some(Format::Text | Format::Csv) => Reading::Lines,
        }
    }

    /// The grid of a grid corpus.
    pub fn grid(&mut self) -> Option<&mut Rows> {
        match self {
            Reading::Grid(rows) => Some(rows),
            Reading::Lines | Reading::Watching { .. } => None,
        }
    }
}

impl State {
    /// Write the kind of the next line into `slot`, `content` being its bytes without
    /// the line `ending` (only its first `MAX_LINE` when `cut`), and say what record it
    /// gives: its own, or in a grid corpus none yet, or a grid's. Settles the format on
    /// the first data line. Writes in place rather than returning the kind: on the
    /// reader's hot path, a `Result<Kind, _>` returned costs a copy of the kind per line.
    #[inline(always)]
    pub fn kind_into(
        &mut self,
        slot: &mut Kind,
        content: &[u8],
        ending: &[u8],
        cut: bool,
    ) -> Result<Taken, LoadError> {
        if !matches!(self.reading, Reading::Lines) {
            return self.kind_into_reading(slot, content, ending, cut);
        }
        self.line_kind_into(slot, content, cut)?;
        Ok(Taken::Line)
    }

    /// `kind_into` for a line that is its own record.
    #[inline(always)]
    fn line_kind_into(
        &mut self,
        slot: &mut Kind,
        content: &[u8],
        cut: bool,
    ) -> Result<(), LoadError> {
        if let Some(first) = self.open_quote {
            *slot = self.inside_quote(first, content);
            return Ok(());
        }
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
                Some(layout) => {
                    set_kind(slot, layout.kind_of(content));
                    // Only a malformed CSV line can open a field it does not close.
                    if let (Layout::Csv(_), Kind::Malformed { .. }) = (layout, &*slot) {
                        self.follow_quotes(content);
                    }
                }
                None => {
                    let layout = self.detect(line)?;
                    *slot = match layout {
                        Layout::Csv(_) => Kind::Header,
                        Layout::Text => layout.kind_of(content),
                    };
                    self.layout = Some(layout);
                }
            },
        }
        Ok(())
    }

    /// A line of a CSV corpus inside the quoted field opened on line `first`: malformed,
    /// and the end of the field once it closes the quote.
    #[cold]
    fn inside_quote(&mut self, first: u64, content: &[u8]) -> Kind {
        self.follow_quotes(content);
        let closed = match self.open_quote {
            Some(_) => "",
            None => "; its closing quote is on this line",
        };
        Kind::Malformed {
            reason: format!(
                "inside the quoted field opened on line {first}: a CSV field holding a line \
                 break is not read{closed}"
            ),
            column: 1,
        }
    }

    /// Follow the quotes of a CSV corpus's line (its content): whether a quoted field is
    /// left open after it. For every line of the corpus, another part's too, so that each
    /// part knows which of its lines are pieces of a field.
    pub fn follow_quotes(&mut self, content: &[u8]) {
        if !matches!(self.layout, Some(Layout::Csv(_))) {
            return;
        }
        let inside = self.open_quote.is_some();
        if !inside && memchr::memchr(b'"', content).is_none() {
            return;
        }
        self.open_quote = match csv::ends_inside_quote(content, inside) {
            true => self.open_quote.or(Some(self.line)),
            false => None,
        };
    }

    /// `kind_into` off the hot path: a grid corpus's line, or a leading line watched.
    #[inline(never)]
    fn kind_into_reading(
        &mut self,
        slot: &mut Kind,
        content: &[u8],
        ending: &[u8],
        cut: bool,
    ) -> Result<Taken, LoadError> {
        if let Reading::Grid(rows) = &mut self.reading {
            // Refused here too, not only by `Corpus::open_part`: a corpus made by
            // `from_reader` is split by `Corpus::round_robin`, which cannot refuse.
            if self.round_robin.is_some() {
                return Err(LoadError::GridParts {
                    name: self.name.clone(),
                });
            }
            return Ok(rows.take(slot, self.line, content, ending, cut));
        }
        self.line_kind_into(slot, content, cut)?;
        self.watch_leading(slot, content.trim_ascii())?;
        Ok(Taken::Line)
    }

    /// Count a leading line of a corpus read as text (`line`, trimmed, of kind `kind`)
    /// towards a grid read as text; refuse the corpus once it is one.
    fn watch_leading(&mut self, kind: &Kind, line: &[u8]) -> Result<(), LoadError> {
        let Reading::Watching { grid_lines, row } = self.reading else {
            return Ok(());
        };
        let is_row = match kind {
            Kind::Malformed { .. } => rows::shape(line),
            // A CSV corpus, or a puzzle read: one puzzle a line.
            Kind::Header | Kind::Puzzle { .. } | Kind::Invalid { .. } => {
                self.reading = Reading::Lines;
                return Ok(());
            }
            Kind::Comment | Kind::Blank => None,
        };
        let Some(is_row) = is_row else {
            // Two rows must be neighbours (blanks and comments aside) to be a grid's: a
            // corrupt stream's garbage holds row-like lines far apart among bad ones.
            if matches!(kind, Kind::Malformed { .. }) {
                self.reading = Reading::Watching {
                    grid_lines: 0,
                    row: false,
                };
            }
            return Ok(());
        };
        let (grid_lines, row) = (grid_lines.saturating_add(1), row || is_row);
        self.reading = Reading::Watching { grid_lines, row };
        if grid_lines >= 2 && row {
            return Err(LoadError::LooksLikeGrid {
                name: self.name.clone(),
                line: self.line,
            });
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
            // Two columns of one name make this a header, whatever else it holds.
            Err(csv::Unplaced {
                column,
                named,
                found,
            }) if !found.is_empty() => Err(LoadError::ColumnTwice {
                name: self.name.clone(),
                line: self.line,
                column,
                named,
                found,
            }),
            Err(csv::Unplaced { column, named, .. }) if forced || header.is_names() => {
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
    /// The kind of a data line (not blank, not a comment, not the header), parsed and checked.
    pub(super) fn kind_of(&self, raw: &[u8]) -> Kind {
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
        self.kind_of_general(line, offset)
    }

    /// `kind_of` for any trimmed line, `offset` bytes into its raw line.
    fn kind_of_general(&self, line: &[u8], offset: usize) -> Kind {
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

fn first_non_utf8(line: &[u8]) -> usize {
    match std::str::from_utf8(line) {
        Ok(_) => line.len(),
        Err(e) => e.valid_up_to(),
    }
}
