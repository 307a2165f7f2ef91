//! Parts of a corpus (`--shard K/N`): which lines a process takes, so that N processes
//! between them read every line exactly once, each with its real line number.
//!
//! Two splits, chosen by what the input allows:
//! - A seekable, uncompressed file is cut into N byte ranges: part K takes the lines whose
//!   first byte lies in its range (`Shard::byte_range`). It seeks to its range, reads only
//!   the lines before it that settle the format (a CSV header), and gets its line numbers
//!   by counting line endings up to its start, with no parsing: N parts cost about one
//!   read of the file between them, plus that count.
//! - A compressed file or a stream cannot be entered in the middle: every part reads all
//!   of it, and takes every N-th line (round robin). Other parts' lines are only split and
//!   counted, not classified.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::kind::State;
use super::split::{self, Split};
use super::{
    Chunk, Codec, Corpus, Format, Kind, Lines, LoadError, ReadAs, Record, Shard, MAX_LINE,
    READ_BUFFER,
};

/// Bytes read at a time when counting line endings.
const SCAN_BLOCK: usize = 1 << 20;

/// How a corpus is one part of its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// The lines starting in bytes [start, end) of the file; the first is `first_line`.
    Bytes {
        /// Which part of how many.
        shard: Shard,
        /// Its first byte.
        start: u64,
        /// The byte after its last line's start range.
        end: u64,
        /// The line number of its first line.
        first_line: u64,
    },
    /// Every `shard.count`-th line from line `shard.index`, of a compressed file (its
    /// codec) or a stream (`None`).
    EveryNth {
        /// Which part of how many.
        shard: Shard,
        /// The file's compression; `None` for a stream.
        codec: Option<Codec>,
    },
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Part::Bytes {
                shard,
                start,
                end,
                first_line,
            } => write!(
                f,
                "part {shard} by byte range, bytes {start}-{end}, from line {first_line}"
            ),
            Part::EveryNth { shard, codec } => {
                let what = codec.map_or("a stream".to_string(), |c| format!("a {c} file"));
                write!(
                    f,
                    "part {shard} of {what}: one line in {}, from line {}",
                    shard.count, shard.index
                )
            }
        }
    }
}

impl Corpus {
    /// Open part `shard` of `path` (`-` for stdin): by byte range for a regular
    /// uncompressed file, else round robin (see the module's notes). Part 1/1 is the
    /// whole corpus, as `open` gives it.
    pub fn open_part(
        path: &Path,
        read_as: impl Into<ReadAs>,
        shard: Shard,
    ) -> Result<Corpus, LoadError> {
        let read_as = read_as.into();
        if shard != Shard::WHOLE && read_as.format == Some(Format::Grid) {
            return Err(LoadError::GridParts {
                name: super::name_of(path),
            });
        }
        let mut corpus = Corpus::open(path, read_as)?;
        if shard == Shard::WHOLE {
            return Ok(corpus);
        }
        match (corpus.size, corpus.codec) {
            (Some(size), None) => by_bytes(corpus, path, shard, size),
            _ => {
                corpus.round_robin(shard);
                Ok(corpus)
            }
        }
    }

    /// Take only part `shard` of this corpus, round robin: line L is part
    /// ((L - 1) mod N) + 1's. For a corpus made by `from_reader`, before it is read.
    pub fn round_robin(&mut self, shard: Shard) {
        if shard == Shard::WHOLE {
            return;
        }
        self.state.round_robin = Some(shard);
        self.part = Some(Part::EveryNth {
            shard,
            codec: self.codec,
        });
    }

    /// How this corpus is a part of its input, when it is one.
    pub fn part(&self) -> Option<&Part> {
        self.part.as_ref()
    }
}

/// Read the lines of `head` before byte `first` that settle the format: none for a
/// text corpus whose first line is a puzzle, the header for a CSV one. The header read,
/// if any, and the error that ended the reading, if one did.
fn settle_layout(head: &mut Corpus, first: u64) -> (Option<Record>, Option<LoadError>) {
    let mut chunk = Chunk::new(Lines::All);
    let mut header = None;
    while head.state.layout.is_none() && head.bytes_read < first {
        match head.read_chunk(&mut chunk, 1) {
            Ok(0) => break,
            Ok(_) => {
                let record = &chunk.records()[0];
                if record.kind == Kind::Header {
                    header = Some(record.clone());
                }
            }
            Err(error) => return (header, Some(error)),
        }
    }
    (header, None)
}

/// Part `shard` of the uncompressed regular file `head` was opened on.
fn by_bytes(mut head: Corpus, path: &Path, shard: Shard, size: u64) -> Result<Corpus, LoadError> {
    let (start, end) = shard.byte_range(size);
    if start == 0 {
        head.end = Some(end);
        head.size = Some(end);
        head.part = Some(Part::Bytes {
            shard,
            start,
            end,
            first_line: 1,
        });
        return Ok(head);
    }
    let name = head.state.name.clone();
    // Byte ranges are only for uncompressed files: no codec to name.
    let read_err = |source| LoadError::Read {
        name: name.clone(),
        line: 0,
        codec: None,
        source,
    };
    let mut file = File::open(path).map_err(|source| LoadError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let first = next_line_start(&mut file, start).map_err(read_err)?;
    let (header, failed) = settle_layout(&mut head, first);
    let line = match failed {
        Some(_) => head.state.line,
        None => {
            let (ends, quoted) =
                count_line_ends(&mut file, head.bytes_read, first).map_err(read_err)?;
            let line = head.state.line + ends;
            if quoted {
                follow_quotes(&mut file, &mut head.state, head.bytes_read, first)
                    .map_err(read_err)?;
            }
            line
        }
    };
    file.seek(SeekFrom::Start(first)).map_err(read_err)?;
    let reader = BufReader::with_capacity(READ_BUFFER, file);
    let mut part = Corpus::from_reader(
        &name,
        Box::new(reader),
        Some(end - start),
        head.state.read_as.clone(),
    );
    part.state.layout = head.state.layout.take();
    part.state.open_quote = head.state.open_quote;
    part.state.line = line;
    part.started = true;
    part.bytes_read = first - start;
    part.end = Some(end - start);
    part.header = header;
    part.failed = failed;
    part.file = head.file;
    part.part = Some(Part::Bytes {
        shard,
        start,
        end,
        first_line: line + 1,
    });
    Ok(part)
}

/// The first byte at or after `start` (> 0) that begins a line: one after an LF, or
/// after a CR not followed by an LF, as `split::first_line` ends lines. The file's size
/// when no line begins there.
fn next_line_start(file: &mut File, start: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(start - 1))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER, file);
    let mut position = start - 1;
    let mut after_cr = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if after_cr {
            return Ok(position + u64::from(buf.first() == Some(&b'\n')));
        }
        if buf.is_empty() {
            return Ok(position);
        }
        match split::first_line(buf) {
            Split::Line { len, .. } => return Ok(position + len as u64),
            Split::Open { cr, .. } => {
                after_cr = cr;
                let n = buf.len();
                position += n as u64;
                reader.consume(n);
            }
        }
    }
}

/// Line endings in bytes [from, to) of `file`, `to` being the start of a line: LFs, and
/// CRs not followed by an LF. Counted a block at a time, without parsing a line. Also
/// whether a `"` is among them: a CSV corpus's part may then start inside a quoted field.
fn count_line_ends(file: &mut File, from: u64, to: u64) -> io::Result<(u64, bool)> {
    file.seek(SeekFrom::Start(from))?;
    let mut block = vec![0u8; SCAN_BLOCK];
    let (mut left, mut count) = (to.saturating_sub(from), 0u64);
    // The last block ended in a CR: one line ending, whatever comes next (an LF next
    // is its other half, counted as the LF).
    let mut cr_at_end = false;
    let mut quoted = false;
    while left > 0 {
        let want = left.min(SCAN_BLOCK as u64) as usize;
        let n = match file.read(&mut block[..want]) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file got shorter while it was split",
                ))
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let buf = &block[..n];
        quoted = quoted || memchr::memchr(b'"', buf).is_some();
        if cr_at_end && buf[0] != b'\n' {
            count += 1;
        }
        cr_at_end = false;
        count += memchr::memchr_iter(b'\n', buf).count() as u64;
        for i in memchr::memchr_iter(b'\r', buf) {
            match buf.get(i + 1) {
                Some(b'\n') => {}
                Some(_) => count += 1,
                None => cr_at_end = true,
            }
        }
        left -= n as u64;
    }
    Ok((count + u64::from(cr_at_end), quoted))
}

/// Follow the quotes of the lines in bytes [from, to) of `file` (`to` the start of a
/// line) into `state`, whose last line is the one before `from`, as reading them would:
/// whether a quoted field is open where a part starts. Like the reader, only the first
/// `MAX_LINE` bytes of a line are looked at.
fn follow_quotes(file: &mut File, state: &mut State, from: u64, to: u64) -> io::Result<()> {
    file.seek(SeekFrom::Start(from))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER, file.take(to - from));
    let mut line = Vec::new();
    // The line's content goes on past the buffer; a CR ended the last piece.
    let (mut after_cr, mut open) = (false, false);
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if after_cr {
            after_cr = false;
            if buf.first() == Some(&b'\n') {
                reader.consume(1);
                continue;
            }
        }
        if buf.is_empty() {
            if open {
                state.line += 1;
                state.follow_quotes(&line);
            }
            return Ok(());
        }
        let (content, used, ended) = match split::first_line(buf) {
            Split::Line { content, len } => (content, len, true),
            Split::Open { content, cr } => {
                after_cr = cr;
                (content, buf.len(), cr)
            }
        };
        let room = MAX_LINE.saturating_sub(line.len());
        line.extend_from_slice(&buf[..content.min(room)]);
        reader.consume(used);
        open = !ended;
        if ended {
            state.line += 1;
            state.follow_quotes(&line);
            line.clear();
        }
    }
}

#[cfg(test)]
mod tests;
