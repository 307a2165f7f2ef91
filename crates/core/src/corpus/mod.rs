//! `Corpus`: streams puzzle records from a text or CSV corpus, a file or stdin, in
//! constant memory.
//!
//! Every line of the input is accounted for: it becomes one `Record` with its 1-based
//! line number (comments, blanks and the CSV header included, for tools that rewrite a
//! corpus) or, when the caller asks only for entries, is counted and skipped because it
//! is a comment, a blank or the header. In a grid corpus (`Format::Grid`) a grid's lines
//! are one record, with the line of its first row and all of their bytes. LF, CRLF and a lone CR each end a line. A line
//! that is not a puzzle (one longer than `MAX_LINE` too) is a `Kind::Malformed` record
//! and a puzzle whose givens break a rule is `Kind::Invalid`: neither stops the stream.
//! Only failures to read at all are errors. A compressed corpus (gzip, zstd, xz, bzip2,
//! told by its magic number) is decompressed as it streams; line numbers and columns are
//! those of the decompressed text.
//!
//! There is one read path: `Corpus::read_chunk`. Lines are split by `split::first_line`
//! and become records through `Chunk::take` (which classifies with `State::kind_into`),
//! whether they are read where they lie in the reader's buffer or gathered across its
//! refills.

mod checked;
mod csv;
mod identity;
mod kind;
mod parsed;
mod part;
mod rows;
mod shard;
mod split;
mod start;
mod text;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use xxhash_rust::xxh3::Xxh3;

use self::kind::{Reading, State};
use self::rows::Taken;
use self::split::Split;
use crate::grid::Grid;

pub use self::csv::CsvLayout;
pub use self::identity::{FileIdentity, Identity};
pub use self::part::Part;
pub use self::shard::Shard;
pub use crate::compress::Codec;

/// How a corpus is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One puzzle per line; the first field of the line is the grid.
    Text,
    /// A header names the puzzle column (and maybe a solution column).
    Csv,
    /// A puzzle as nine lines of nine cells, maybe with `|` between boxes and rule lines
    /// between bands, grids apart or not; never detected, only asked for.
    Grid,
}

/// How a corpus is to be read, as far as the command line says: its format, when forced,
/// and the names of a CSV corpus's columns, when they are not the known ones. The default
/// leaves all to the corpus (see `Corpus::open`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadAs {
    /// The format; `None`: detected from the first line that is not blank or a comment.
    pub format: Option<Format>,
    /// The CSV puzzle column's name (any case), instead of the known names. Naming a
    /// column makes the corpus a CSV one.
    pub puzzle_column: Option<String>,
    /// The CSV solution column's name (any case), instead of the known names.
    pub solution_column: Option<String>,
}

impl ReadAs {
    /// Whether the corpus must be CSV: forced so, or a column named.
    fn wants_csv(&self) -> bool {
        self.format == Some(Format::Csv)
            || self.puzzle_column.is_some()
            || self.solution_column.is_some()
    }
}

impl From<Option<Format>> for ReadAs {
    fn from(format: Option<Format>) -> ReadAs {
        ReadAs {
            format,
            ..ReadAs::default()
        }
    }
}

/// A failure to read a corpus at all (bad lines are records, not errors).
///
/// The OS error behind a variant is its `source()`, not part of its message, so that a
/// report of the whole chain (anyhow's `{:#}`) says it once.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened.
    #[error("cannot open {}", name_of(path))]
    Open {
        /// The corpus.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// `codec`: the corpus's compression, named since a broken stream is its usual cause.
    /// Its lines before the break were taken as decoded: a stream's check (gzip's CRC,
    /// at the end of a member) comes after its text, so a corrupt one decodes to garbage
    /// lines first, which no reader in constant memory can hold back. The message says so.
    #[error(
        "{name}: read error after line {line}{}",
        match (codec, line) {
            (None, _) => String::new(),
            (Some(c), 0) => format!(" ({c})"),
            (Some(c), _) => format!(
                " ({c}; the lines before it were decoded unchecked: if the stream is corrupt, \
                 not only cut, their rows may be garbage, not the file's lines)"
            ),
        }
    )]
    Read {
        /// The corpus, as named on the command line.
        name: String,
        /// The last line read whole.
        line: u64,
        /// Its compression, if any.
        codec: Option<Codec>,
        /// Why.
        source: io::Error,
    },
    /// A corpus read as text whose leading lines are rows of a 9-line grid: each would be
    /// malformed, and nothing searched.
    #[error(
        "{name}:{line}: this looks like a 9-line grid: use --input-format grid \
         (--input-format text reads each line as a puzzle)"
    )]
    LooksLikeGrid {
        /// The corpus.
        name: String,
        /// The line that made it look so.
        line: u64,
    },
    /// A grid corpus asked for in parts.
    #[error(
        "{name}: a corpus of 9-line grids is not split into parts (--shard): a part takes \
         lines, and a grid spans several; read it whole"
    )]
    GridParts {
        /// The corpus.
        name: String,
    },
    /// A stop was asked for (see `Corpus::stop_on`) while the rest of a line longer than
    /// `MAX_LINE` was read and dropped: the line is not taken, and nothing after it is
    /// read.
    #[error(
        "{name}:{line}: stopped while skipping the rest of this line (longer than {max} \
         bytes); it and the lines after it are not read",
        max = MAX_LINE
    )]
    Stopped {
        /// The corpus.
        name: String,
        /// The line being skipped.
        line: u64,
    },
    /// The thread that reads ahead could not be started.
    #[error("{name}: cannot start the reader thread")]
    Thread {
        /// The corpus it would have read.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// The decompressor could not be started.
    #[error("{name}: cannot start its {codec} decoder")]
    Decoder {
        /// The corpus.
        name: String,
        /// Its compression.
        codec: Codec,
        /// Why.
        source: io::Error,
    },
    /// A CSV corpus whose header lacks a column it needs: the one named (`--column`,
    /// `--solution-column`), or any of the known puzzle columns' names. Also a corpus
    /// whose format is detected, when its first line is a header of names that names no
    /// puzzle column: read as text, every line would be malformed.
    #[error(
        "{name}:{line}: CSV header has no {column} column {}; its columns: {}{}",
        match named {
            Some(named) => format!("named {named}"),
            None => format!("(looked for {})", csv::PUZZLE_COLUMNS.join(", ")),
        },
        found.join(", "),
        match (named, forced) {
            (Some(_), _) => "",
            (None, true) => ": name it with --column NAME",
            (None, false) => ": name it with --column NAME (or read every line as text \
                              with --input-format text)",
        }
    )]
    NoColumn {
        /// The corpus.
        name: String,
        /// The header's line.
        line: u64,
        /// `puzzle` or `solution`.
        column: &'static str,
        /// The name looked for, when one was given; else the known names were.
        named: Option<String>,
        /// The columns the header has.
        found: Vec<String>,
        /// Whether the corpus was to be CSV (`--input-format csv`, or a column named).
        forced: bool,
    },
    /// A CSV header with more than one column of the name looked for: reading either would
    /// be a guess, and a wrong guess checks or solves the wrong column.
    #[error(
        "{name}:{line}: CSV header has {} {column} columns ({}): {}",
        found.len(),
        found.iter().map(|(i, n)| format!("{n} at column {i}")).collect::<Vec<_>>().join(", "),
        match (named, *column) {
            (Some(_), _) => "one name for two columns; rename one",
            (None, "puzzle") => "name the one to read with --column NAME",
            (None, _) => "name the one to read with --solution-column NAME",
        }
    )]
    ColumnTwice {
        /// The corpus.
        name: String,
        /// The header's line.
        line: u64,
        /// `puzzle` or `solution`.
        column: &'static str,
        /// The name looked for, when one was given; else the known names were.
        named: Option<String>,
        /// The header's columns of that name, 1-based, with their names.
        found: Vec<(usize, String)>,
    },
}

/// What a line of the corpus holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A puzzle whose givens break no rule; `expected` is the corpus's own solution, when
    /// it has a solution column.
    Puzzle {
        /// The givens.
        grid: Grid,
        /// The corpus's solution column, when it has one.
        expected: Option<Grid>,
    },
    /// A grid whose givens break a rule.
    Invalid {
        /// The givens.
        grid: Grid,
        /// Which rule, where.
        reason: String,
        /// 1-based column of the grid in the line.
        column: usize,
    },
    /// A line that is not a puzzle; `column` is 1-based within the line, in characters
    /// (in bytes for bytes that are not UTF-8), a byte-order mark not counted.
    Malformed {
        /// What is wrong.
        reason: String,
        /// Where.
        column: usize,
    },
    /// A `#` line.
    Comment,
    /// An empty (or all-whitespace) line; in a grid corpus, a rule line (`------+------`)
    /// outside a grid too.
    Blank,
    /// The CSV header line.
    Header,
}

/// One line of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in its file.
    pub line: u64,
    /// Its bytes, when kept (for `filter`, which writes lines out as they were).
    pub raw: Raw,
    /// What it holds.
    pub kind: Kind,
}

impl Default for Record {
    fn default() -> Self {
        Record {
            line: 0,
            raw: Raw::NotKept,
            kind: Kind::Blank,
        }
    }
}

/// A line's bytes, as far as its record holds them. Anything that writes a line back
/// out must match on this: only `Whole` is the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Raw {
    /// The line exactly as read, its ending included (a byte-order mark before the first
    /// line is not part of it).
    Whole(Vec<u8>),
    /// The line is longer than `MAX_LINE`: its bytes were not all kept, and none are.
    Cut,
    /// The chunk keeps no bytes (`Lines::Entries`).
    NotKept,
}

impl Raw {
    /// The line's bytes, when they are held whole.
    pub fn whole(&self) -> Option<&[u8]> {
        match self {
            Raw::Whole(bytes) => Some(bytes),
            Raw::Cut | Raw::NotKept => None,
        }
    }
}

impl Record {
    /// True for the kinds a benchmark reports on (puzzles, invalid and malformed lines).
    pub fn is_entry(&self) -> bool {
        self.kind.is_entry()
    }
}

impl Kind {
    /// The grid the line holds, as its rows' `puzzle` column has it: a puzzle's or an
    /// invalid one's; `None` for a line that holds none.
    pub fn grid(&self) -> Option<Grid> {
        match self {
            Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(*grid),
            _ => None,
        }
    }

    /// True for the kinds a benchmark reports on (puzzles, invalid and malformed lines).
    #[inline(always)]
    pub fn is_entry(&self) -> bool {
        matches!(
            self,
            Kind::Puzzle { .. } | Kind::Invalid { .. } | Kind::Malformed { .. }
        )
    }
}

/// Which lines a chunk keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lines {
    /// Every line (comments, blanks and the header too), each with its bytes: for tools
    /// that rewrite a corpus line by line.
    All,
    /// Only the records a benchmark reports on (`Record::is_entry`), without their bytes
    /// (`Raw::NotKept`): for a reader that must be fast.
    #[default]
    Entries,
}

/// Records read by `Corpus::read_chunk`, reused from one call to the next.
#[derive(Debug, Default)]
pub struct Chunk {
    records: Vec<Record>,
    len: usize,
    lines: Lines,
    /// Bytes of input the last `read_chunk` consumed, every line counted.
    bytes: u64,
}

impl Chunk {
    /// An empty chunk keeping `lines`.
    pub fn new(lines: Lines) -> Chunk {
        Chunk {
            lines,
            ..Chunk::default()
        }
    }

    /// Bytes of input the last `read_chunk` consumed, every line counted (those it
    /// skipped too, and a byte-order mark).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The records read.
    pub fn records(&self) -> &[Record] {
        &self.records[..self.len]
    }

    /// Whether the last read gave no record.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Make `record` the chunk's next one, as read elsewhere.
    fn push(&mut self, record: Record) {
        if self.len == self.records.len() {
            self.records.push(record);
        } else {
            self.records[self.len] = record;
        }
        self.len += 1;
    }

    /// Count the next line and make it the chunk's next record, if the chunk keeps it:
    /// the one way a line becomes a record, whichever path read it. `content` is the
    /// line without its `ending` (only its first `MAX_LINE` bytes when `cut`, which then
    /// says what the whole line adds to the corpus's identity).
    #[inline(always)]
    fn take(
        &mut self,
        state: &mut State,
        content: &[u8],
        ending: &[u8],
        cut: Option<CutLine>,
    ) -> Result<(), LoadError> {
        state.line += 1;
        // Another part's line is only counted, once the format is settled: that is what
        // makes N round-robin parts cheaper than N whole reads.
        let foreign = state.round_robin.is_some_and(|s| !s.holds(state.line));
        if !foreign {
            let (len, hash) = match cut {
                Some(cut) => (cut.len, cut.hash),
                None => (
                    (content.len() + ending.len()) as u64,
                    Identity::line_hash(state.line, content),
                ),
            };
            state.seen.take_line(len, hash);
        }
        if foreign && state.layout.is_some() {
            state.follow_quotes(content);
            return Ok(());
        }
        // The kind is written where the record would go, then kept or not.
        if self.len == self.records.len() {
            self.records.push(Record::default());
        }
        let record = &mut self.records[self.len];
        match state.kind_into(&mut record.kind, content, ending, cut.is_some())? {
            Taken::Line => {}
            Taken::Part => return Ok(()),
            Taken::Grid { first } => {
                self.keep_grid(state, first);
                return Ok(());
            }
        }
        if !foreign && record.kind.is_entry() {
            state.seen.take_entry(state.line);
        }
        // Every part of a CSV corpus rewritten line by line keeps its header, so that
        // each is a CSV of its own.
        let header_kept = self.lines == Lines::All && record.kind == Kind::Header;
        if state.line <= state.skip_through
            || (foreign && !header_kept)
            || (self.lines == Lines::Entries && !record.kind.is_entry())
        {
            return Ok(());
        }
        record.line = state.line;
        match (self.lines, &mut record.raw) {
            (Lines::Entries, Raw::NotKept) => {}
            (Lines::Entries, raw) => *raw = Raw::NotKept,
            (Lines::All, raw) if cut.is_some() => *raw = Raw::Cut,
            (Lines::All, Raw::Whole(bytes)) => {
                bytes.clear();
                bytes.extend_from_slice(content);
                bytes.extend_from_slice(ending);
            }
            (Lines::All, raw) => *raw = Raw::Whole([content, ending].concat()),
        }
        self.len += 1;
        Ok(())
    }
}

impl Chunk {
    /// At the end of the corpus: the record of a grid left open, cut short, if one is.
    fn finish(&mut self, state: &mut State) {
        let Some(rows) = state.reading.grid().filter(|rows| rows.is_open()) else {
            return;
        };
        if self.len == self.records.len() {
            self.records.push(Record::default());
        }
        if let Taken::Grid { first } = rows.finish(&mut self.records[self.len].kind) {
            self.keep_grid(state, first);
        }
    }

    /// Make the record whose kind was just written where the next one goes a grid's,
    /// from line `first`, if the chunk keeps it; its bytes are the grid's lines. A grid
    /// corpus is never split into parts: every grid is this part's.
    fn keep_grid(&mut self, state: &mut State, first: u64) {
        let record = &mut self.records[self.len];
        if record.kind.is_entry() {
            state.seen.take_entry(first);
        }
        if first <= state.skip_through {
            return;
        }
        record.line = first;
        let bytes = state.reading.grid().and_then(|rows| rows.bytes());
        match (self.lines, &mut record.raw, bytes) {
            (Lines::Entries, raw, _) => *raw = Raw::NotKept,
            (Lines::All, raw, None) => *raw = Raw::Cut,
            (Lines::All, Raw::Whole(kept), Some(bytes)) => {
                kept.clear();
                kept.extend_from_slice(bytes);
            }
            (Lines::All, raw, Some(bytes)) => *raw = Raw::Whole(bytes.to_vec()),
        }
        self.len += 1;
    }
}

/// What a line longer than `MAX_LINE` adds to the corpus's identity, its bytes not all
/// being kept: its length with its ending, and the hash of its whole content.
#[derive(Debug, Clone, Copy)]
struct CutLine {
    len: u64,
    hash: u64,
}

/// A corpus being read, a chunk of records at a time.
pub struct Corpus {
    reader: Box<dyn BufRead + Send>,
    state: State,
    size: Option<u64>,
    /// The first bytes were looked at (`start`).
    started: bool,
    /// The compression the first bytes named, once `started`.
    codec: Option<Codec>,
    /// Bytes of the text read (decompressed, for a compressed corpus).
    bytes_read: u64,
    /// For a compressed corpus, bytes of the file its decoder consumed: progress is
    /// measured against the file's size, so it counts stored bytes.
    stored_read: Option<Arc<AtomicU64>>,
    /// `bytes_read()` when the last chunk was read.
    bytes_reported: u64,
    /// An error held back so that the lines read before it are reported first.
    failed: Option<LoadError>,
    /// Where a line that runs past the reader's buffer is gathered.
    line_buffer: Vec<u8>,
    /// A byte-range part: `bytes_read` at which its last line has been read (no line
    /// starting there or later is its).
    end: Option<u64>,
    /// A byte-range part's CSV header, read before its range, for the first chunk that
    /// keeps every line.
    header: Option<Record>,
    /// How this corpus is a part of its input, when it is one.
    part: Option<part::Part>,
    /// The regular file read, whichever part of it is read.
    file: Option<FileIdentity>,
    /// Non-zero once a stop is asked for: looked at while an over-long line is skipped,
    /// which can take as long as the file is (`/dev/zero` never ends).
    stop: Option<Arc<AtomicUsize>>,
    /// The line whose skipping a stop cut short: its rest is unread, so nothing more is.
    stopped_in: Option<u64>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("name", &self.state.name)
            .field("line", &self.state.line)
            .finish()
    }
}

const READ_BUFFER: usize = 1 << 16;

/// Bytes of a line kept, its ending not counted; a longer line is malformed (no Sudoku
/// format needs more), and the rest of it is read and dropped, so that memory stays
/// bounded even for a file without line breaks.
pub const MAX_LINE: usize = 1 << 16;

impl Corpus {
    /// Open `path`, or stdin when it is `-`, to be read as `read_as` says (`None`: as
    /// its first line shows). The corpus is named by the path as given.
    ///
    /// A regular file's first bytes are read at once, so a compressed file's decoder starts
    /// (or fails) here, before any work; stdin's or a pipe's only on the first read, as
    /// opening one must not wait for its writer. A stream that breaks before its first
    /// line is no failure to open: the first `read_chunk` returns its read error.
    pub fn open(path: &Path, read_as: impl Into<ReadAs>) -> Result<Corpus, LoadError> {
        let read_as = read_as.into();
        if path.as_os_str() == "-" {
            let reader = BufReader::with_capacity(READ_BUFFER, io::stdin());
            return Ok(Corpus::from_reader("-", Box::new(reader), None, read_as));
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
        let mut file = file;
        let identity = match size {
            Some(size) => {
                Some(
                    FileIdentity::of(&mut file, size).map_err(|source| LoadError::Read {
                        name: name_of(path),
                        line: 0,
                        codec: None,
                        source,
                    })?,
                )
            }
            None => None,
        };
        let reader = BufReader::with_capacity(READ_BUFFER, file);
        let mut corpus = Corpus::from_reader(&name_of(path), Box::new(reader), size, read_as);
        corpus.file = identity;
        if size.is_some() {
            // A stream broken before its first line fails this corpus, not the command:
            // its first read reports it, as a break further on is, and the others are read.
            match corpus.start() {
                Err(error @ LoadError::Read { .. }) => corpus.failed = Some(error),
                started => started?,
            }
        }
        Ok(corpus)
    }

    /// A corpus over any reader; `size` in bytes when known (for progress).
    pub fn from_reader(
        name: &str,
        reader: Box<dyn BufRead + Send>,
        size: Option<u64>,
        read_as: impl Into<ReadAs>,
    ) -> Corpus {
        let read_as = read_as.into();
        Corpus {
            reader,
            state: State {
                name: name.to_string(),
                layout: None,
                line: 0,
                skip_through: 0,
                round_robin: None,
                seen: Identity::default(),
                open_quote: None,
                reading: Reading::new(&read_as),
                read_as,
            },
            size,
            started: false,
            codec: None,
            bytes_read: 0,
            stored_read: None,
            bytes_reported: 0,
            failed: None,
            line_buffer: Vec::new(),
            end: None,
            header: None,
            part: None,
            file: None,
            stop: None,
            stopped_in: None,
        }
    }

    /// Stop reading once `requested` holds a non-zero value (a signal handler's cell),
    /// even in the middle of a line longer than `MAX_LINE`: the read then ends with
    /// [`LoadError::Stopped`] after the records before that line, and so does every later
    /// one.
    pub fn stop_on(&mut self, requested: Arc<AtomicUsize>) {
        self.stop = Some(requested);
    }

    /// The name reports use: the path as given, or `-` for stdin.
    pub fn name(&self) -> &str {
        &self.state.name
    }

    /// Size in bytes, when the corpus is a regular file.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// Bytes of the input consumed so far, as stored: of the compressed file for a
    /// compressed corpus (its decoder may have read a little ahead of the lines), so that
    /// it compares with `size`.
    pub fn bytes_read(&self) -> u64 {
        match (&self.stored_read, self.end) {
            (Some(stored), _) => stored.load(Ordering::Relaxed),
            // A byte-range part's last line may run past its range.
            (None, Some(end)) => self.bytes_read.min(end),
            (None, None) => self.bytes_read,
        }
    }

    /// Read up to `max` records into `chunk` (the lines its `Lines` keeps), reusing its
    /// records' buffers, and return how many (0 at the end). Each line is classified as
    /// it is read. A failure after some lines keeps them: the error comes from the next
    /// call.
    pub fn read_chunk(&mut self, chunk: &mut Chunk, max: usize) -> Result<usize, LoadError> {
        chunk.len = 0;
        chunk.bytes = 0;
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if let Some(line) = self.stopped_in {
            return Err(LoadError::Stopped {
                name: self.state.name.clone(),
                line,
            });
        }
        if let Err(error) = self.start() {
            self.failed = Some(error);
        }
        if let Some(header) = self.header.take() {
            if chunk.lines == Lines::All && header.line > self.state.skip_through && max > 0 {
                chunk.push(header);
            }
        }
        while chunk.len < max && self.failed.is_none() {
            let taken = self
                .read_buffered_lines(chunk, max)
                .and_then(|()| match chunk.len < max {
                    true => self.read_line(chunk),
                    false => Ok(true),
                });
            match taken {
                Ok(true) => {}
                Ok(false) => {
                    chunk.finish(&mut self.state);
                    break;
                }
                Err(error) => self.failed = Some(error),
            }
        }
        let position = self.bytes_read();
        chunk.bytes = position - self.bytes_reported;
        self.bytes_reported = position;
        match self.failed.take() {
            Some(error) if chunk.len == 0 => Err(error),
            failed => {
                self.failed = failed;
                Ok(chunk.len)
            }
        }
    }

    /// The fast path: every whole line already in the reader's buffer becomes a record
    /// where it lies, with no copy and no call through the reader a line. Stops at `max`
    /// records and before a line that `read_line` must read: one that runs past the
    /// buffer (or may, when the buffer ends in a CR), or one longer than `MAX_LINE`.
    #[inline(always)]
    fn read_buffered_lines(&mut self, chunk: &mut Chunk, max: usize) -> Result<(), LoadError> {
        let buf = match self.reader.fill_buf() {
            Ok(buf) => buf,
            // `read_line` tries again.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(()),
            Err(source) => return Err(read_error(&self.state, self.codec, source)),
        };
        let mut used = 0;
        let mut taken = Ok(());
        let end = self.end.unwrap_or(u64::MAX);
        while chunk.len < max && self.bytes_read + (used as u64) < end {
            let rest = &buf[used..];
            let Split::Line { content, len } = split::first_line(rest) else {
                break;
            };
            if content > MAX_LINE {
                break;
            }
            used += len;
            taken = chunk.take(&mut self.state, &rest[..content], &rest[content..len], None);
            if taken.is_err() {
                break;
            }
        }
        self.bytes_read += used as u64;
        self.reader.consume(used);
        taken
    }

    /// The general path, for one line wherever it lies: across refills of the reader's
    /// buffer, and past `MAX_LINE` (the rest is read and dropped). `Ok(false)` at the end.
    fn read_line(&mut self, chunk: &mut Chunk) -> Result<bool, LoadError> {
        if self.past_end() {
            return Ok(false);
        }
        let line = &mut self.line_buffer;
        line.clear();
        let (mut total, mut cut) = (0usize, false);
        // Past `MAX_LINE`, the whole content is hashed as it goes by, for the identity.
        let mut past: Option<(Xxh3, u64)> = None;
        // A CR ended the last piece: the line ends, with an LF too if one comes next.
        let mut after_cr = false;
        let ending: &[u8] = loop {
            // A line past `MAX_LINE` may be long enough for a stop to come while it is read.
            if past.is_some() {
                check_stop(self.stop.as_deref(), &self.state, &mut self.stopped_in)?;
            }
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(read_error(&self.state, self.codec, source)),
            };
            if after_cr {
                let crlf = buf.first() == Some(&b'\n');
                if crlf {
                    self.reader.consume(1);
                    total += 1;
                }
                break if crlf { b"\r\n" } else { b"\r" };
            }
            if buf.is_empty() {
                break b"";
            }
            let (content, used, ending) = match split::first_line(buf) {
                Split::Line { content, len } => {
                    let ending: &[u8] = match &buf[content..len] {
                        b"\n" => b"\n",
                        b"\r\n" => b"\r\n",
                        _ => b"\r",
                    };
                    (content, len, Some(ending))
                }
                Split::Open { content, cr } => {
                    after_cr = cr;
                    (content, buf.len(), None)
                }
            };
            cut |= keep_piece(line, &buf[..content], &mut past, self.state.line + 1);
            self.reader.consume(used);
            total += used;
            if let Some(ending) = ending {
                break ending;
            }
        };
        self.bytes_read += total as u64;
        if total == 0 {
            return Ok(false);
        }
        let cut = past.filter(|_| cut).map(|(hasher, len)| CutLine {
            len: len + ending.len() as u64,
            hash: hasher.digest(),
        });
        chunk.take(&mut self.state, line, ending, cut)?;
        Ok(true)
    }

    /// Before the first line: put a decoder in front of a compressed corpus, and skip a
    /// UTF-8 byte-order mark (so columns do not count it, and the first line's bytes do not
    /// hold it).
    fn start(&mut self) -> Result<(), LoadError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        self.gather_head()?;
        let buf = self
            .reader
            .fill_buf()
            .map_err(|source| read_error(&self.state, self.codec, source))?;
        if let Some(codec) = Codec::detect(buf) {
            let stored = std::mem::replace(&mut self.reader, Box::new(io::empty()));
            let stored_read = Arc::new(AtomicU64::new(0));
            let counted = Counted {
                inner: stored,
                count: Arc::clone(&stored_read),
            };
            let decoder =
                codec
                    .decoder(Box::new(counted))
                    .map_err(|source| LoadError::Decoder {
                        name: self.state.name.clone(),
                        codec,
                        source,
                    })?;
            self.reader = Box::new(BufReader::with_capacity(READ_BUFFER, decoder));
            self.codec = Some(codec);
            self.stored_read = Some(stored_read);
            self.gather_head()?;
        }
        let buf = self
            .reader
            .fill_buf()
            .map_err(|source| read_error(&self.state, self.codec, source))?;
        if buf.starts_with(start::BOM) {
            self.reader.consume(start::BOM.len());
            self.bytes_read += start::BOM.len() as u64;
        }
        Ok(())
    }

    /// Make the reader's buffer hold at least `HEAD` bytes (fewer only at the end): a
    /// short first read (a pipe gives what it has) is gathered, then put back in front of
    /// the rest.
    fn gather_head(&mut self) -> Result<(), LoadError> {
        let mut head = Vec::new();
        let mut failed = None;
        loop {
            match self.reader.fill_buf() {
                Ok([]) => break,
                Ok(buf) if head.is_empty() && buf.len() >= start::HEAD => break,
                Ok(buf) => {
                    let n = (start::HEAD - head.len()).min(buf.len());
                    head.extend_from_slice(&buf[..n]);
                    self.reader.consume(n);
                    if head.len() == start::HEAD {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    failed = Some(read_error(&self.state, self.codec, source));
                    break;
                }
            }
        }
        if !head.is_empty() {
            let rest = std::mem::replace(&mut self.reader, Box::new(io::empty()));
            self.reader = Box::new(io::Cursor::new(head).chain(rest));
        }
        failed.map_or(Ok(()), Err)
    }

    /// Read the lines up to and including `line` (1-based) without making records of them:
    /// for `run --resume`, which has their rows. They are still classified, so a CSV
    /// corpus's header settles its layout, and counted, so later lines keep their numbers.
    pub fn skip_through(&mut self, line: u64) {
        self.state.skip_through = line;
    }

    /// What the lines read so far add up to: once the corpus is read to its end, its
    /// identity (a part's: see [`Identity`]).
    pub fn identity(&self) -> Identity {
        Identity {
            last_line: self.state.line,
            file: self.file,
            ..self.state.seen
        }
    }

    /// The compression of the corpus, once its first bytes were read (after the first
    /// `read_chunk`, or at `open` for a regular file).
    pub fn codec(&self) -> Option<Codec> {
        self.codec
    }

    /// True when nothing is left to read: the next `read_chunk` would return no records
    /// and no error. False when that is not known without reading on.
    pub fn at_end(&mut self) -> bool {
        if self.stopped_in.is_some() {
            return false;
        }
        if self.state.reading.grid().is_some_and(|rows| rows.is_open()) {
            return false;
        }
        if self.failed.is_none() && self.past_end() {
            return true;
        }
        self.started
            && self.failed.is_none()
            && matches!(self.reader.fill_buf(), Ok(rest) if rest.is_empty())
    }
}

impl Corpus {
    /// True when a byte-range part has read its last line.
    fn past_end(&self) -> bool {
        self.end.is_some_and(|end| self.bytes_read >= end)
    }
}

/// A reader that counts the bytes consumed from it, for a decoder's input.
struct Counted {
    inner: Box<dyn BufRead + Send>,
    count: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.count.fetch_add(n as u64, Ordering::Relaxed);
    }
}

fn read_error(state: &State, codec: Option<Codec>, source: io::Error) -> LoadError {
    LoadError::Read {
        name: state.name.clone(),
        line: state.line,
        codec,
        source,
    }
}

/// The name a corpus at `path` is known by in rows, summaries and messages: the path as
/// given, with each byte that is not UTF-8 written `\xhh`. `Path::display` makes every such
/// byte U+FFFD, so two corpora whose paths differ only there became one name, and one
/// corpus in the rows and the summary.
pub fn name_of(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut name = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        name.push_str(chunk.valid());
        for byte in chunk.invalid() {
            name.push_str(&format!("\\x{byte:02x}"));
        }
    }
    name
}

/// Read a whole corpus into memory, every line with its bytes: what the tests compare the
/// streaming reads with.
#[cfg(test)]
pub(crate) fn read_all(
    name: &str,
    input: impl Read + Send + 'static,
) -> Result<Vec<Record>, LoadError> {
    let mut corpus = Corpus::from_reader(name, Box::new(BufReader::new(input)), None, None);
    let mut chunk = Chunk::new(Lines::All);
    let mut out = Vec::new();
    while corpus.read_chunk(&mut chunk, 1024)? > 0 {
        out.extend_from_slice(chunk.records());
    }
    Ok(out)
}

/// `Err` once a `stop` was requested, noting the line being read in `stopped_in`.
fn check_stop(
    stop: Option<&AtomicUsize>,
    state: &State,
    stopped_in: &mut Option<u64>,
) -> Result<(), LoadError> {
    if stop.is_none_or(|s| s.load(Ordering::Relaxed) == 0) {
        return Ok(());
    }
    let line = state.line + 1;
    *stopped_in = Some(line);
    Err(LoadError::Stopped {
        name: state.name.clone(),
        line,
    })
}

/// Append `piece`, the content of line `number` or the next part of it, to `line`, up to
/// `MAX_LINE` in all. Past that, the line's whole content (what `line` holds and the
/// rest) is hashed into `past` as it goes by, with its length, for the line's identity.
/// Whether this piece went past.
fn keep_piece(
    line: &mut Vec<u8>,
    piece: &[u8],
    past: &mut Option<(Xxh3, u64)>,
    number: u64,
) -> bool {
    let room = MAX_LINE - line.len();
    let content = piece.len();
    line.extend_from_slice(&piece[..content.min(room)]);
    if content > room || past.is_some() {
        let (hasher, len) = past.get_or_insert_with(|| {
            let mut hasher = Xxh3::with_seed(number);
            hasher.update(line);
            (hasher, line.len() as u64)
        });
        let beyond = &piece[room.min(content)..];
        hasher.update(beyond);
        *len += beyond.len() as u64;
    }
    content > room
}
#[cfg(test)]
mod prop_tests;
#[cfg(test)]
pub(crate) mod tests;
