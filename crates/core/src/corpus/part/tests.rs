//! For every N in 1..=7, the parts of a corpus partition it exactly: each line in exactly
//! one part, with its real line number and bytes, by byte range and by round robin.

use std::io::{BufReader, Write};

use super::super::{read_all, Chunk, Corpus, Identity, Kind, Lines, Raw, Record, Shard, MAX_LINE};
use super::*;

const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

/// Every record of `corpus`, read `lines` at a time in small chunks.
fn drain(corpus: Corpus, lines: Lines) -> Vec<Record> {
    drain_with_identity(corpus, lines).0
}

/// Every record of `corpus`, as `drain` reads them, and the identity of what it read.
fn drain_with_identity(mut corpus: Corpus, lines: Lines) -> (Vec<Record>, Identity) {
    let mut chunk = Chunk::new(lines);
    let mut out = Vec::new();
    while corpus.read_chunk(&mut chunk, 3).unwrap() > 0 {
        out.extend_from_slice(chunk.records());
    }
    assert!(corpus.at_end());
    (out, corpus.identity())
}

/// The identities of the parts, added up: the whole's, with `file`.
fn assert_adds_up(whole: &Identity, parts: &[Identity], what: &str) {
    let mut sum = Identity {
        file: parts[0].file,
        ..Identity::default()
    };
    for part in parts {
        assert!(sum.same_file(part), "{what}: {part:?}");
        sum.add(part);
    }
    assert_eq!(&sum, whole, "{what}");
    assert!(sum.is_whole(), "{what}");
}

/// The parts, gathered, are the whole: same records (the CSV header, which every part
/// that rewrites lines keeps, aside), none twice; each part's records in line order.
fn assert_partition(whole: &[Record], parts: Vec<Vec<Record>>, what: &str) {
    let mut gathered = Vec::new();
    for (k, part) in parts.into_iter().enumerate() {
        assert!(
            part.windows(2).all(|w| w[0].line < w[1].line),
            "{what}: part {} out of order",
            k + 1
        );
        gathered.extend(part.into_iter().filter(|r| r.kind != Kind::Header));
    }
    gathered.sort_by_key(|r| r.line);
    let whole: Vec<_> = whole
        .iter()
        .filter(|r| r.kind != Kind::Header)
        .cloned()
        .collect();
    assert_eq!(gathered, whole, "{what}");
}

fn corpora() -> Vec<(&'static str, Vec<u8>)> {
    let long = "x".repeat(70_000);
    let mut many = String::new();
    for i in 0..300 {
        match i % 7 {
            0 => many.push_str("# comment\r\n"),
            1 => many.push('\r'),
            3 => many.push_str(&format!("{EASY}\r")),
            _ => many.push_str(&format!("{EASY}\n")),
        }
    }
    vec![
        ("empty", Vec::new()),
        ("one byte", b"x".to_vec()),
        ("tiny", b"a\nb".to_vec()),
        ("lf", format!("{EASY}\nbad\n\n# c\n{EASY}\n").into_bytes()),
        (
            "crlf",
            format!("{EASY}\r\nbad\r\n\r\n{EASY}\r\n").into_bytes(),
        ),
        ("lone cr", format!("{EASY}\rbad\r\r{EASY}\r").into_bytes()),
        (
            "no final newline",
            format!("{EASY}\nbad\n{EASY}").into_bytes(),
        ),
        ("bom", format!("\u{feff}{EASY}\n{EASY}\nbad\n").into_bytes()),
        (
            "csv",
            format!("# a comment\nquizzes,solutions\n{EASY},\n{EASY},x\nbad\n").into_bytes(),
        ),
        (
            "bom csv crlf",
            format!("\u{feff}puzzle\r\n{EASY}\r\n{EASY}\r\n").into_bytes(),
        ),
        (
            "long lines",
            format!("{EASY}\n{long}\n{EASY}\r\n{long}\r{EASY}").into_bytes(),
        ),
        ("mixed endings", many.into_bytes()),
    ]
}

#[test]
fn byte_range_parts_partition_a_file_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes) in corpora() {
        let path = dir.path().join("c.txt");
        std::fs::write(&path, &bytes).unwrap();
        let whole_all = read_all(what, std::io::Cursor::new(bytes.clone())).unwrap();
        let whole_entries: Vec<_> = whole_all
            .iter()
            .filter(|r| r.is_entry())
            .map(|r| Record {
                raw: Raw::NotKept,
                ..r.clone()
            })
            .collect();
        let (_, whole) = drain_with_identity(Corpus::open(&path, None).unwrap(), Lines::All);
        let bom = u64::from(what.starts_with("bom")) * 3;
        assert_eq!(whole.bytes + bom, bytes.len() as u64, "{what}");
        assert_eq!(
            whole.entries,
            whole_all.iter().filter(|r| r.is_entry()).count() as u64,
            "{what}"
        );
        for n in 1..=7 {
            let (mut all, mut entries, mut size) = (Vec::new(), Vec::new(), 0);
            let mut identities = [Vec::new(), Vec::new()];
            for k in 1..=n {
                let shard = Shard::new(k, n).unwrap();
                let part = Corpus::open_part(&path, None, shard).unwrap();
                if n > 1 {
                    assert!(matches!(part.part(), Some(Part::Bytes { .. })), "{what}");
                }
                size += part.size().unwrap();
                let (records, identity) = drain_with_identity(part, Lines::All);
                all.push(records);
                identities[0].push(identity);
                let part = Corpus::open_part(&path, None, shard).unwrap();
                let (records, identity) = drain_with_identity(part, Lines::Entries);
                assert!(records.iter().all(|r| r.raw == Raw::NotKept));
                entries.push(records);
                identities[1].push(identity);
            }
            for (lines, parts) in ["all lines", "entries"].iter().zip(&identities) {
                assert_adds_up(&whole, parts, &format!("{what}, {lines}, N={n}"));
            }
            assert_eq!(
                size,
                bytes.len() as u64,
                "{what}: sizes of the parts of {n}"
            );
            assert_partition(&whole_all, all, &format!("{what}, all lines, N={n}"));
            assert_partition(&whole_entries, entries, &format!("{what}, entries, N={n}"));
        }
    }
}

#[test]
fn round_robin_parts_partition_a_gzip_file_and_a_stream_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes) in corpora() {
        let path = dir.path().join("c.txt.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&bytes).unwrap();
        std::fs::write(&path, gz.finish().unwrap()).unwrap();
        let whole = read_all(what, std::io::Cursor::new(bytes.clone())).unwrap();
        let (_, whole_gz) = drain_with_identity(Corpus::open(&path, None).unwrap(), Lines::All);
        let stream = |bytes: &[u8]| {
            let reader = BufReader::new(std::io::Cursor::new(bytes.to_vec()));
            Corpus::from_reader(what, Box::new(reader), None, None)
        };
        let (_, whole_stream) = drain_with_identity(stream(&bytes), Lines::Entries);
        assert_eq!(
            whole_gz,
            Identity {
                file: whole_gz.file,
                ..whole_stream
            },
            "{what}: the lines of the text, the size of the file"
        );
        assert_eq!(
            whole_gz.file.unwrap().bytes,
            std::fs::metadata(&path).unwrap().len()
        );
        assert_eq!(whole_stream.file, None);
        for n in 1..=7 {
            let (mut gzipped, mut streamed) = (Vec::new(), Vec::new());
            let mut identities = [Vec::new(), Vec::new()];
            for k in 1..=n {
                let shard = Shard::new(k, n).unwrap();
                let part = Corpus::open_part(&path, None, shard).unwrap();
                if n > 1 {
                    let every = Part::EveryNth {
                        shard,
                        codec: Some(Codec::Gzip),
                    };
                    assert_eq!(part.part(), Some(&every), "{what}");
                }
                let (records, identity) = drain_with_identity(part, Lines::All);
                gzipped.push(records);
                identities[0].push(identity);
                let mut part = stream(&bytes);
                part.round_robin(shard);
                let (records, identity) = drain_with_identity(part, Lines::All);
                identities[1].push(identity);
                let foreign = |r: &Record| r.kind != Kind::Header && !shard.holds(r.line);
                assert!(
                    !records.iter().any(foreign),
                    "{what}: {shard} took another's"
                );
                streamed.push(records);
            }
            assert_partition(&whole, gzipped, &format!("{what}, gzip, N={n}"));
            assert_partition(&whole, streamed, &format!("{what}, stream, N={n}"));
            assert_adds_up(&whole_gz, &identities[0], &format!("{what}, gzip, N={n}"));
            assert_adds_up(
                &whole_stream,
                &identities[1],
                &format!("{what}, stream, N={n}"),
            );
        }
    }
}

#[test]
fn every_rewritten_csv_part_starts_with_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.csv");
    let text = format!("quizzes\n{EASY}\n{EASY}\n{EASY}\n{EASY}\n");
    std::fs::write(&path, &text).unwrap();
    for k in 1..=4 {
        let part = Corpus::open_part(&path, None, Shard::new(k, 4).unwrap()).unwrap();
        let records = drain(part, Lines::All);
        assert_eq!(records[0].kind, Kind::Header, "part {k}");
        assert_eq!(records[0].line, 1);
        assert_eq!(records.len(), 2, "part {k}: the header and one puzzle");
        assert_eq!(records[1].line, u64::from(k) + 1);
    }
}

#[test]
fn a_part_resumes_after_the_lines_it_skips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.txt");
    let text = format!("{EASY}\n").repeat(20);
    std::fs::write(&path, &text).unwrap();
    let mut part = Corpus::open_part(&path, None, Shard::new(2, 2).unwrap()).unwrap();
    part.skip_through(15);
    let (records, identity) = drain_with_identity(part, Lines::Entries);
    let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
    assert_eq!(lines, (16..=20).collect::<Vec<_>>());
    // The lines skipped were read: the part's identity is the same as without the skip.
    let whole = Corpus::open_part(&path, None, Shard::new(2, 2).unwrap()).unwrap();
    assert_eq!(identity, drain_with_identity(whole, Lines::Entries).1);
    assert_eq!((identity.lines, identity.last_line), (10, 20));
}

#[test]
fn a_line_past_max_line_hashes_whole_whichever_path_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.txt");
    for len in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 3 * READ_BUFFER + 17] {
        let long: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        let mut other = long.clone();
        *other.last_mut().unwrap() = b'!';
        let identity = |content: &[u8]| {
            let text = [&b"x\n"[..], content, b"\r\n"].concat();
            std::fs::write(&path, &text).unwrap();
            drain_with_identity(Corpus::open(&path, None).unwrap(), Lines::All).1
        };
        let id = identity(&long);
        assert_eq!(id.bytes, 2 + len as u64 + 2, "{len}");
        assert_eq!(
            id.hash,
            Identity::line_hash(1, b"x").wrapping_add(Identity::line_hash(2, &long)),
            "{len}"
        );
        assert_ne!(
            id.hash,
            identity(&other).hash,
            "{len}: its last byte counts"
        );
    }
}

#[test]
fn counting_line_ends_agrees_with_the_loader_across_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.txt");
    // A CRLF and a lone CR on each side of the block boundary.
    let mut bytes = vec![b'a'; SCAN_BLOCK - 1];
    bytes.extend_from_slice(b"\r\nb\r");
    bytes.extend(vec![b'c'; SCAN_BLOCK - 4]);
    bytes.extend_from_slice(b"\r");
    bytes.extend_from_slice(b"d\n\n");
    std::fs::write(&path, &bytes).unwrap();
    let mut file = File::open(&path).unwrap();
    let lines = read_all("c", std::io::Cursor::new(bytes.clone()))
        .unwrap()
        .len() as u64;
    assert_eq!(lines, 5);
    assert_eq!(
        count_line_ends(&mut file, 0, bytes.len() as u64).unwrap(),
        (lines, false)
    );
    assert_eq!(
        count_line_ends(&mut file, 0, SCAN_BLOCK as u64 + 1).unwrap(),
        (1, false)
    );
    assert_eq!(
        next_line_start(&mut file, SCAN_BLOCK as u64).unwrap(),
        SCAN_BLOCK as u64 + 1
    );
}
