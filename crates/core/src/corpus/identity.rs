//! `Identity`: what a read of a corpus saw, in a few numbers, so that rows can be told to
//! belong to a corpus (or not) long after the run.
//!
//! It is tallied as the lines are read, at no extra pass: each line the read takes adds
//! XXH3 of its bytes (seeded with its line number) to a wrapping sum, and its number to
//! the count. Sums compose: the parts of a `--shard` split (byte ranges or round robin)
//! take every line once between them, so their identities add up ([`Identity::add`]) to
//! exactly the one a single read of the whole corpus makes. A part also knows the whole
//! file it was cut from ([`FileIdentity`]: its size and a hash of its first and last
//! 64 KiB, one small read at open), so that parts run over different files of the same
//! name, or over a file that changed between them, are told apart without reading the file
//! again.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use xxhash_rust::xxh3::{xxh3_64_with_seed, Xxh3};

use crate::rng::splitmix64;

/// What a read of a corpus (or of one part of it) saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Identity {
    /// Lines taken (a part's own lines only): every line, comments, blanks and a CSV
    /// header included.
    pub lines: u64,
    /// The number of the last line read, whoever's it was: a whole read's `lines`; for a
    /// part, how far into the corpus it went (a round-robin part reads to the end).
    pub last_line: u64,
    /// Bytes of the lines taken, line endings included (decompressed; a byte-order mark,
    /// which belongs to no line, not counted).
    pub bytes: u64,
    /// Wrapping sum, over the lines taken, of XXH3-64 of the line's bytes (without its
    /// ending) seeded with its line number: the same lines in another order, or moved by
    /// a line inserted above them, sum to another value.
    pub hash: u64,
    /// Of the lines taken, those a run writes rows for ([`super::Kind::is_entry`]): one
    /// row per strategy each.
    pub entries: u64,
    /// Wrapping sum of [`Identity::entry_line`] over the entry lines: which lines have
    /// rows, so that rows naming other lines are told from rows of these.
    pub entry_lines: u64,
    /// The file read, when it is a regular file; `None` for stdin or a reader.
    pub file: Option<FileIdentity>,
}

/// The whole file a corpus was read from, whichever part of it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    /// Its size, as stored (compressed, for a compressed corpus).
    pub bytes: u64,
    /// XXH3-64, seeded with the size, of its first [`FileIdentity::ENDS`] bytes and then
    /// of its last `ENDS` (of the bytes after the first `ENDS`, when there are fewer): the
    /// whole file when it holds at most 128 KiB.
    pub ends: u64,
}

impl Identity {
    /// The hash one line adds to [`Identity::hash`]: `content` is its bytes without the
    /// line ending, `line` its 1-based number.
    #[inline(always)]
    pub fn line_hash(line: u64, content: &[u8]) -> u64 {
        xxh3_64_with_seed(content, line)
    }

    /// What entry line `line` adds to [`Identity::entry_lines`]; for a reader of rows to
    /// sum the lines they name.
    #[inline(always)]
    pub fn entry_line(line: u64) -> u64 {
        splitmix64(line)
    }

    /// Count a line taken: `len` bytes with its ending, whose content hashes to `hash`
    /// ([`Identity::line_hash`] with its number).
    #[inline(always)]
    pub(crate) fn take_line(&mut self, len: u64, hash: u64) {
        self.lines += 1;
        self.bytes += len;
        self.hash = self.hash.wrapping_add(hash);
    }

    /// Count line `line`, already taken, as an entry.
    #[inline(always)]
    pub(crate) fn take_entry(&mut self, line: u64) {
        self.entries += 1;
        self.entry_lines = self.entry_lines.wrapping_add(Identity::entry_line(line));
    }

    /// Add another part's identity, as if this read had also taken its lines. The file
    /// is left as this one's: compare them first ([`Identity::same_file`]).
    pub fn add(&mut self, other: &Identity) {
        self.lines += other.lines;
        self.last_line = self.last_line.max(other.last_line);
        self.bytes += other.bytes;
        self.hash = self.hash.wrapping_add(other.hash);
        self.entries += other.entries;
        self.entry_lines = self.entry_lines.wrapping_add(other.entry_lines);
    }

    /// Whether the two were read from one file (as far as its size and ends tell), or
    /// both from no file.
    pub fn same_file(&self, other: &Identity) -> bool {
        self.file == other.file
    }

    /// Whether the lines taken are every line up to the last one read: true of a whole
    /// read, and of the parts of a split added up; false when lines are missing or
    /// counted twice.
    pub fn is_whole(&self) -> bool {
        self.lines == self.last_line
    }
}

impl FileIdentity {
    /// Bytes hashed at each end of a file for [`FileIdentity::ends`].
    pub const ENDS: u64 = 64 * 1024;

    /// The identity of `file`, `size` bytes long, read with two reads at most; its
    /// position is put back at the start.
    pub fn of(file: &mut File, size: u64) -> io::Result<FileIdentity> {
        let mut hasher = Xxh3::with_seed(size);
        let head = size.min(Self::ENDS);
        let tail_start = head.max(size - size.min(Self::ENDS));
        let mut buf = vec![0u8; head as usize];
        file.seek(SeekFrom::Start(0))?;
        file.read_exact(&mut buf)?;
        hasher.update(&buf);
        if tail_start < size {
            buf.resize((size - tail_start) as usize, 0);
            file.seek(SeekFrom::Start(tail_start))?;
            file.read_exact(&mut buf)?;
            hasher.update(&buf);
        }
        file.seek(SeekFrom::Start(0))?;
        Ok(FileIdentity {
            bytes: size,
            ends: hasher.digest(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_is_told_by_its_size_and_ends_only() {
        let identity = |bytes: &[u8]| {
            let mut file = tempfile::tempfile().unwrap();
            file.write_all(bytes).unwrap();
            let id = FileIdentity::of(&mut file, bytes.len() as u64).unwrap();
            let mut again = Vec::new();
            file.read_to_end(&mut again).unwrap();
            assert_eq!(again, bytes, "the position is back at the start");
            id
        };
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut middle = big.clone();
        middle[150_000] ^= 1;
        let mut end = big.clone();
        *end.last_mut().unwrap() ^= 1;
        assert_eq!(identity(&big), identity(&big));
        // The middle of a large file is not read: the sums of its lines tell it.
        assert_eq!(identity(&big), identity(&middle));
        assert_ne!(identity(&big), identity(&end));
        assert_ne!(identity(&big[..1000]), identity(&big[1..1001]));
        assert_ne!(identity(b"ab"), identity(b"ba"));
        assert_eq!(identity(b"").bytes, 0);
        // A file between one and two ENDS long: every byte once.
        let mid = &big[..100_000];
        let mut other = mid.to_vec();
        other[70_000] ^= 1;
        assert_ne!(identity(mid), identity(&other));
    }

    #[test]
    fn parts_add_up_whatever_the_split() {
        let lines: Vec<(u64, &[u8])> = (1..=10u64)
            .map(|n| (n, &b"0123456789"[..n as usize]))
            .collect();
        let read = |taken: &[(u64, &[u8])], last: u64| {
            let mut id = Identity::default();
            for &(n, content) in taken {
                id.take_line(content.len() as u64 + 1, Identity::line_hash(n, content));
                if n % 3 != 0 {
                    id.take_entry(n);
                }
            }
            id.last_line = last;
            id
        };
        let whole = read(&lines, 10);
        assert!(whole.is_whole());
        let mut sum = read(&lines[..4], 4);
        sum.add(&read(&lines[4..], 10));
        assert_eq!(sum, whole);
        let odd: Vec<_> = lines.iter().copied().filter(|(n, _)| n % 2 == 1).collect();
        let even: Vec<_> = lines.iter().copied().filter(|(n, _)| n % 2 == 0).collect();
        let mut sum = read(&odd, 10);
        sum.add(&read(&even, 10));
        assert_eq!(sum, whole);
        // A line twice and another missing: as many lines, another sum.
        let mut twice = lines.clone();
        twice[4] = twice[3];
        let mut sum = read(&twice[..5], 5);
        sum.add(&read(&twice[5..], 10));
        assert!(sum.is_whole());
        assert_ne!((sum.hash, sum.entry_lines), (whole.hash, whole.entry_lines));
        // A part missing: not whole.
        assert!(!read(&lines[4..], 10).is_whole());
    }
}
