//! `Corpus`: streams puzzle records from a text or CSV corpus, a file or stdin, in
//! constant memory.
//!
//! Every line of the input becomes one `Record` (comments, blanks and the CSV header
//! included, so tools that rewrite a corpus can keep them), carrying the exact bytes read
//! and its 1-based line number. A line that is not a puzzle is a `Kind::Malformed` record
//! and a puzzle whose givens break a rule is `Kind::Invalid`: neither stops the stream.
//! Only failures to read at all are errors.

mod csv;
mod text;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::grid::{cell_name, Grid};

pub use self::csv::CsvLayout;

/// How a corpus is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One puzzle per line; the first field of the line is the grid.
    Text,
    /// A header names the puzzle column (and maybe a solution column).
    Csv,
}

/// A failure to read a corpus at all (bad lines are records, not errors).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot open {path}: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("{name}: read error after line {line}: {source}")]
    Read {
        name: String,
        line: u64,
        source: io::Error,
    },
    #[error("cannot start the reader thread: {0}")]
    Thread(io::Error),
    #[error(
        "{name}:{line}: CSV header has no puzzle column (looked for {wanted}); found: {found}"
    )]
    NoPuzzleColumn {
        name: String,
        line: u64,
        wanted: String,
        found: String,
    },
}

/// What a line of the corpus holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A puzzle whose givens break no rule; `expected` is the corpus's own solution, when
    /// it has a solution column.
    Puzzle { grid: Grid, expected: Option<Grid> },
    /// A grid whose givens break a rule.
    Invalid {
        grid: Grid,
        reason: String,
        column: usize,
    },
    /// A line that is not a puzzle; `column` is 1-based within the line.
    Malformed { reason: String, column: usize },
    /// A `#` line.
    Comment,
    /// An empty (or all-whitespace) line.
    Blank,
    /// The CSV header line.
    Header,
}

/// One line of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in its file.
    pub line: u64,
    /// The bytes as read, line ending included.
    pub raw: Vec<u8>,
    pub kind: Kind,
}

impl Default for Record {
    fn default() -> Self {
        Record {
            line: 0,
            raw: Vec::new(),
            kind: Kind::Blank,
        }
    }
}

impl Record {
    /// True for the kinds a benchmark reports on (puzzles, invalid and malformed lines).
    pub fn is_entry(&self) -> bool {
        matches!(
            self.kind,
            Kind::Puzzle { .. } | Kind::Invalid { .. } | Kind::Malformed { .. }
        )
    }
}

/// A corpus being read, one record at a time.
pub struct Corpus {
    name: String,
    reader: Box<dyn BufRead + Send>,
    size: Option<u64>,
    forced: Option<Format>,
    layout: Option<Layout>,
    line: u64,
    bytes_read: u64,
    /// A read error held back so that the lines read before it are reported first.
    failed: Option<LoadError>,
    /// Reused by `next_entries` and `next_lines`.
    scratch: Chunk,
    /// Where `read_chunk` reads lines that its chunk does not keep.
    line_buffer: Vec<u8>,
}

/// Records read by `Corpus::read_chunk`, their data lines parsed later by `parse`, or
/// as they are read.
#[derive(Debug, Default)]
pub struct Chunk {
    records: Vec<Record>,
    len: usize,
    /// Per record: a data line not parsed yet.
    unparsed: Vec<bool>,
    layout: Layout,
    parse_on_read: bool,
    /// Bytes of input the last `read_chunk` consumed, every line counted.
    bytes: u64,
}

impl Chunk {
    /// A chunk whose data lines `read_chunk` parses as it reads them, while each line is
    /// still in the cache: for a reader thread that reads ahead of the workers, so the
    /// workers neither parse nor wait for each other between parsing and solving.
    ///
    /// Its records keep no `raw` bytes (their kind holds all a benchmark needs): each line
    /// is parsed from one buffer, where it was read, instead of being copied into a
    /// buffer of its own.
    pub fn parsed_on_read() -> Chunk {
        Chunk {
            parse_on_read: true,
            ..Chunk::default()
        }
    }

    /// Bytes of input the last `read_chunk` consumed, every line counted (those it
    /// skipped too).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The records read, parsed or not.
    pub fn records(&self) -> &[Record] {
        &self.records[..self.len]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Parse and check the data lines, in parallel on the current rayon pool.
    pub fn parse(&mut self) {
        let layout = &self.layout;
        self.records[..self.len]
            .par_iter_mut()
            .zip(&mut self.unparsed[..])
            .with_min_len(256)
            .filter(|(_, unparsed)| **unparsed)
            .for_each(|(r, unparsed)| {
                r.kind = layout.classify(&r.raw);
                *unparsed = false;
            });
    }
}

#[derive(Debug, Clone, Default)]
enum Layout {
    #[default]
    Text,
    Csv(CsvLayout),
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("name", &self.name)
            .field("line", &self.line)
            .finish()
    }
}

const READ_BUFFER: usize = 1 << 16;

/// Bytes of a line kept; a longer line is malformed (no Sudoku format needs more).
pub const MAX_LINE: usize = 1 << 16;

impl Corpus {
    /// Open `path`, or stdin when it is `-`. The corpus is named by the path as given.
    pub fn open(path: &Path, forced: Option<Format>) -> Result<Corpus, LoadError> {
        if path.as_os_str() == "-" {
            let reader = BufReader::with_capacity(READ_BUFFER, io::stdin());
            return Ok(Corpus::from_reader("-", Box::new(reader), None, forced));
        }
        let open_err = |source| LoadError::Open {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(open_err)?;
        let meta = file.metadata().map_err(open_err)?;
        if meta.is_dir() {
            return Err(open_err(io::Error::other("is a directory")));
        }
        let size = meta.is_file().then_some(meta.len());
        let reader = BufReader::with_capacity(READ_BUFFER, file);
        Ok(Corpus::from_reader(
            &path.display().to_string(),
            Box::new(reader),
            size,
            forced,
        ))
    }

    /// A corpus over any reader; `size` in bytes when known (for progress).
    pub fn from_reader(
        name: &str,
        reader: Box<dyn BufRead + Send>,
        size: Option<u64>,
        forced: Option<Format>,
    ) -> Corpus {
        Corpus {
            name: name.to_string(),
            reader,
            size,
            forced,
            layout: None,
            line: 0,
            bytes_read: 0,
            failed: None,
            scratch: Chunk::default(),
            line_buffer: Vec::new(),
        }
    }

    /// The name reports use: the path as given, or `-` for stdin.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Size in bytes, when the corpus is a regular file.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// Bytes consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Read the next line into `record`, reusing its buffer. `Ok(false)` at the end.
    pub fn next_into(&mut self, record: &mut Record) -> Result<bool, LoadError> {
        let Some(cut) = self.read_line(&mut record.raw)? else {
            return Ok(false);
        };
        record.line = self.line;
        if let Some(kind) = self.structural(&record.raw, cut)? {
            record.kind = kind;
        } else {
            record.kind = self.layout().classify(&record.raw);
        }
        Ok(true)
    }

    /// Read up to `max` records that a benchmark reports on into `chunk`, reusing its
    /// records' buffers; other lines are skipped. Returns how many were read (0 at the end).
    ///
    /// Lines are read in order, then parsed and checked in parallel on the current rayon
    /// pool: parsing costs more than reading, and a fast solver must not wait for it.
    pub fn next_entries(
        &mut self,
        chunk: &mut Vec<Record>,
        max: usize,
    ) -> Result<usize, LoadError> {
        self.next_parsed(chunk, max, false)
    }

    /// Like `next_entries`, but every line is kept (comments, blanks, the header), for
    /// tools that rewrite a corpus line by line.
    pub fn next_lines(&mut self, chunk: &mut Vec<Record>, max: usize) -> Result<usize, LoadError> {
        self.next_parsed(chunk, max, true)
    }

    fn next_parsed(
        &mut self,
        records: &mut Vec<Record>,
        max: usize,
        every_line: bool,
    ) -> Result<usize, LoadError> {
        let mut chunk = std::mem::take(&mut self.scratch);
        std::mem::swap(&mut chunk.records, records);
        let read = self.read_chunk(&mut chunk, max, every_line);
        chunk.parse();
        std::mem::swap(&mut chunk.records, records);
        self.scratch = chunk;
        read
    }

    /// Read up to `max` records into `chunk`. Only what must follow the input in order
    /// (line numbers, the format, which lines are data) has to happen here; data lines
    /// are parsed too if the chunk is `parsed_on_read`, else left for `Chunk::parse` on
    /// other threads. Without `every_line`, only the records a benchmark reports on are
    /// kept. Returns how many were read (0 at the end). A read error after some lines
    /// keeps them: the error comes from the next call.
    pub fn read_chunk(
        &mut self,
        chunk: &mut Chunk,
        max: usize,
        every_line: bool,
    ) -> Result<usize, LoadError> {
        chunk.len = 0;
        chunk.unparsed.clear();
        chunk.bytes = 0;
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let bytes_before = self.bytes_read;
        // Lines not kept in their records are read into this one buffer.
        let mut scratch = std::mem::take(&mut self.line_buffer);
        while chunk.len < max {
            if chunk.parse_on_read {
                self.read_buffered_lines(chunk, max, every_line);
                if chunk.len >= max {
                    break;
                }
            }
            // One line the fast path left: one that runs past the buffer, the first data
            // line (the format is not known yet), a line too long, or the end.
            let filled = chunk.len;
            if filled == chunk.records.len() {
                chunk.records.push(Record::default());
            }
            let line = if chunk.parse_on_read {
                &mut scratch
            } else {
                &mut chunk.records[filled].raw
            };
            let structural = match self.read_line(line) {
                Ok(Some(cut)) => self.structural(line, cut),
                Ok(None) => break,
                Err(error) => Err(error),
            };
            let structural = match structural {
                Ok(structural) => structural,
                Err(error) if filled == 0 => {
                    self.line_buffer = scratch;
                    return Err(error);
                }
                Err(error) => {
                    self.failed = Some(error);
                    break;
                }
            };
            if structural.is_some() && !every_line {
                continue;
            }
            let (kind, unparsed) = match structural {
                Some(kind) => (Some(kind), false),
                None if chunk.parse_on_read => (Some(self.layout().classify(&scratch)), false),
                // Data lines wait for `Chunk::parse`.
                None => (None, true),
            };
            let record = &mut chunk.records[filled];
            record.line = self.line;
            if chunk.parse_on_read {
                record.raw.clear();
            }
            if let Some(kind) = kind {
                set_kind(&mut record.kind, kind);
            }
            chunk.unparsed.push(unparsed);
            chunk.len += 1;
        }
        self.line_buffer = scratch;
        chunk.bytes = self.bytes_read - bytes_before;
        chunk.layout = self.layout().clone();
        Ok(chunk.len)
    }

    /// `read_chunk`'s fast path, for chunks parsed on read: every whole line already in
    /// the reader's buffer is classified where it lies, with no copy and no call through
    /// the reader a line (together ~50 ns a line on the reader thread, of ~140). Stops at
    /// `max` records, at the end of the buffer's whole lines, and before a line that the
    /// general path must see: one longer than `MAX_LINE`, or any while the format is not
    /// known yet.
    fn read_buffered_lines(&mut self, chunk: &mut Chunk, max: usize, every_line: bool) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        // An error here is left for the general path to meet and report.
        let Ok(buf) = self.reader.fill_buf() else {
            return;
        };
        let (mut used, mut line_no) = (0, self.line);
        for end in memchr::memchr_iter(b'\n', buf) {
            if chunk.len >= max || end + 1 - used > MAX_LINE {
                break;
            }
            let raw = &buf[used..=end];
            used = end + 1;
            line_no += 1;
            let kind = match blank_or_comment(trim(raw)) {
                Some(_) if !every_line => continue,
                Some(kind) => kind,
                None => layout.classify(raw),
            };
            if chunk.len == chunk.records.len() {
                chunk.records.push(Record::default());
            }
            let record = &mut chunk.records[chunk.len];
            record.line = line_no;
            record.raw.clear();
            set_kind(&mut record.kind, kind);
            chunk.unparsed.push(false);
            chunk.len += 1;
        }
        self.line = line_no;
        self.bytes_read += used as u64;
        self.reader.consume(used);
    }

    /// True when nothing is left to read: the next `read_chunk` would return no records
    /// and no error. False when that is not known without reading on.
    pub fn at_end(&mut self) -> bool {
        self.failed.is_none() && matches!(self.reader.fill_buf(), Ok(rest) if rest.is_empty())
    }

    /// Read one line, ending included, into `line`. Past `MAX_LINE` bytes the
    /// rest of the line is read and dropped, so a file without line breaks cannot fill
    /// memory; `Ok(None)` at the end, else whether the line was cut.
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<Option<bool>, LoadError> {
        line.clear();
        let mut total = 0usize;
        let mut cut = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(LoadError::Read {
                        name: self.name.clone(),
                        line: self.line,
                        source,
                    })
                }
            };
            if buf.is_empty() {
                break;
            }
            let (piece, ends) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..=i], true),
                None => (buf, false),
            };
            let room = MAX_LINE.saturating_sub(line.len());
            line.extend_from_slice(&piece[..piece.len().min(room)]);
            cut |= piece.len() > room;
            let n = piece.len();
            total += n;
            self.reader.consume(n);
            if ends {
                break;
            }
        }
        if total == 0 {
            return Ok(None);
        }
        self.line += 1;
        self.bytes_read += total as u64;
        Ok(Some(cut))
    }

    fn layout(&self) -> &Layout {
        self.layout.as_ref().unwrap_or(&Layout::Text)
    }

    /// The kind of a line that needs no parsing (blank, comment, the CSV header), or
    /// `None` for a data line. Settles the format on the first data line.
    fn structural(&mut self, raw: &[u8], cut: bool) -> Result<Option<Kind>, LoadError> {
        if cut {
            return Ok(Some(Kind::Malformed {
                reason: format!("line is longer than {MAX_LINE} bytes"),
                column: MAX_LINE + 1,
            }));
        }
        let line = trim(raw);
        if let Some(kind) = blank_or_comment(line) {
            return Ok(Some(kind));
        }
        if self.layout.is_none() {
            let layout = self.detect(line)?;
            let header = matches!(layout, Layout::Csv(_));
            self.layout = Some(layout);
            if header {
                return Ok(Some(Kind::Header));
            }
        }
        Ok(None)
    }

    fn detect(&self, first: &[u8]) -> Result<Layout, LoadError> {
        let csv = CsvLayout::from_header(first);
        match (self.forced, csv) {
            (Some(Format::Text), _) => Ok(Layout::Text),
            (_, Some(layout)) => Ok(Layout::Csv(layout)),
            (Some(Format::Csv), None) => Err(LoadError::NoPuzzleColumn {
                name: self.name.clone(),
                line: self.line,
                wanted: csv::PUZZLE_COLUMNS.join(", "),
                found: String::from_utf8_lossy(first).into_owned(),
            }),
            (None, None) => Ok(Layout::Text),
        }
    }
}

impl Layout {
    /// Parse and check a data line (not blank, not a comment, not the header).
    fn classify(&self, raw: &[u8]) -> Kind {
        let line = trim(raw);
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
fn set_kind(slot: &mut Kind, kind: Kind) {
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

/// A line's fields once parsed: the grid (and where it starts, 1-based column minus one)
/// and the corpus's own solution, if any.
pub(crate) struct Fields {
    grid: Grid,
    grid_column: usize,
    expected: Option<Grid>,
}

/// Why a line is not a puzzle; `column` is 1-based within the trimmed line.
pub(crate) struct Bad {
    reason: String,
    column: usize,
}

/// Strip surrounding ASCII whitespace, `\r` and the line ending.
/// The kind of a trimmed line that is blank or a comment, else `None`.
fn blank_or_comment(line: &[u8]) -> Option<Kind> {
    match line.first() {
        None => Some(Kind::Blank),
        Some(b'#') => Some(Kind::Comment),
        Some(_) => None,
    }
}

fn trim(raw: &[u8]) -> &[u8] {
    raw.trim_ascii()
}

fn first_non_utf8(line: &[u8]) -> usize {
    match std::str::from_utf8(line) {
        Ok(_) => line.len(),
        Err(e) => e.valid_up_to(),
    }
}

/// Read a whole corpus into memory: for tests and small inputs only.
pub fn read_all(name: &str, input: impl Read + Send + 'static) -> Result<Vec<Record>, LoadError> {
    let mut corpus = Corpus::from_reader(name, Box::new(BufReader::new(input)), None, None);
    let mut out = Vec::new();
    let mut record = Record::default();
    while corpus.next_into(&mut record)? {
        out.push(record.clone());
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests;
