//! Property: whatever the bytes, line endings, BOM, line lengths, buffer and read sizes and
//! chunk sizes, every line of the input is accounted for exactly once, with its 1-based
//! number, as a simple reference splitter counts lines; nothing panics.
//!
//! Kinds, as documented in `Corpus`: a line longer than `MAX_LINE` is malformed (bytes
//! `Raw::Cut`); a blank or `#` line is `Blank` or `Comment`; the first other line is the
//! CSV `Header` if it names a puzzle column; every other line is classified by the layout.
//! `Lines::All` gives every line with its bytes exactly; `Lines::Entries` gives exactly
//! the puzzle, invalid and malformed ones, without bytes.

use std::io::{self, BufReader, Read};

use proptest::prelude::*;

use super::kind::Layout;
use super::*;

const P: &str = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
const BAD: &str =
    "44..3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";

/// Lines split at LF, CRLF and a lone CR, the simplest way: `(content, ending)` each.
fn reference_lines(bytes: &[u8]) -> Vec<(&[u8], &[u8])> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let (mut lines, mut start, mut i) = (Vec::new(), 0, 0);
    while i < bytes.len() {
        let ending = match (bytes[i], bytes.get(i + 1)) {
            (b'\r', Some(b'\n')) => 2,
            (b'\r' | b'\n', _) => 1,
            _ => 0,
        };
        if ending == 0 {
            i += 1;
            continue;
        }
        lines.push((&bytes[start..i], &bytes[i..i + ending]));
        i += ending;
        start = i;
    }
    if start < bytes.len() {
        lines.push((&bytes[start..], &[][..]));
    }
    lines
}

/// The records the reference lines must give, every line's.
fn expected(bytes: &[u8]) -> Vec<Record> {
    let mut layout: Option<Layout> = None;
    // A CSV quoted field left open: the line it opened on.
    let mut open: Option<u64> = None;
    reference_lines(bytes)
        .into_iter()
        .enumerate()
        .map(|(i, (content, ending))| {
            let trimmed = content.trim_ascii();
            let raw_of = || match content.len() > MAX_LINE {
                true => Raw::Cut,
                false => Raw::Whole([content, ending].concat()),
            };
            if let Some(first) = open {
                let kept = &content[..content.len().min(MAX_LINE)];
                let inside = csv::ends_inside_quote(kept, true);
                open = open.filter(|_| inside);
                let closed = if inside {
                    ""
                } else {
                    "; its closing quote is on this line"
                };
                let kind = Kind::Malformed {
                    reason: format!(
                        "inside the quoted field opened on line {first}: a CSV field \
                         holding a line break is not read{closed}"
                    ),
                    column: 1,
                };
                return Record {
                    line: i as u64 + 1,
                    raw: raw_of(),
                    kind,
                };
            }
            let (kind, raw) = if content.len() > MAX_LINE {
                let kind = Kind::Malformed {
                    reason: format!("line is longer than {MAX_LINE} bytes"),
                    column: MAX_LINE + 1,
                };
                (kind, Raw::Cut)
            } else {
                let kind = if trimmed.is_empty() {
                    Kind::Blank
                } else if trimmed[0] == b'#' {
                    Kind::Comment
                } else if let Some(layout) = &layout {
                    let kind = layout.kind_of(content);
                    let csv_line = matches!(layout, Layout::Csv(_));
                    if csv_line
                        && matches!(kind, Kind::Malformed { .. })
                        && csv::ends_inside_quote(content, false)
                    {
                        open = Some(i as u64 + 1);
                    }
                    kind
                } else if let Some(csv) = CsvLayout::from_header(trimmed) {
                    layout = Some(Layout::Csv(csv));
                    Kind::Header
                } else {
                    layout = Some(Layout::Text);
                    Layout::Text.kind_of(content)
                };
                (kind, Raw::Whole([content, ending].concat()))
            };
            Record {
                line: i as u64 + 1,
                raw,
                kind,
            }
        })
        .collect()
}

/// Gives its bytes in pieces of the sizes given, in turn: short reads, so that lines
/// and line endings straddle the reader's buffer refills.
struct Pieces {
    data: io::Cursor<Vec<u8>>,
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = size.min(buf.len());
        self.data.read(&mut buf[..n])
    }
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(P.as_bytes().to_vec()),
        Just(format!("  {P} 17").into_bytes()),
        Just(BAD.as_bytes().to_vec()),
        Just(P.as_bytes()[..80].to_vec()),
        Just(format!("{}é{}", &P[..40], &P[41..]).into_bytes()),
        Just(format!("{P},{P}").into_bytes()),
        Just(b"quizzes,solutions".to_vec()),
        // A CSV field's quote opened and left open, closed on a later line, or both.
        Just(format!("\"{P}").into_bytes()),
        Just(format!("x\",{P}").into_bytes()),
        Just(format!("{P},\"a\"\"b").into_bytes()),
        Just(b"# a comment".to_vec()),
        Just(Vec::new()),
        Just(b" \t ".to_vec()),
        // Any bytes but line endings.
        prop::collection::vec(
            any::<u8>().prop_filter("no ending", |b| *b != b'\r' && *b != b'\n'),
            0..100
        ),
        // Around `MAX_LINE`: just under, at and over it.
        (prop::sample::select(&b"1x.#"[..]), 0..4usize).prop_map(|(byte, over)| vec![
            byte;
            MAX_LINE - 1
                + over
        ]),
    ]
}

fn ending() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r"])
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec((line(), ending()), 0..24),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, last_ended)| {
            let mut bytes = if bom {
                b"\xef\xbb\xbf".to_vec()
            } else {
                Vec::new()
            };
            let count = lines.len();
            for (i, (line, ending)) in lines.into_iter().enumerate() {
                bytes.extend_from_slice(&line);
                if last_ended || i + 1 < count {
                    bytes.extend_from_slice(ending);
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_line_is_accounted_for_exactly_once(
        bytes in input(),
        sizes in prop::collection::vec(1..200usize, 1..8),
        capacity in prop_oneof![1..300usize, Just(1 << 16)],
        chunk_size in 1..40usize,
        entries in any::<bool>(),
    ) {
        let lines = if entries { Lines::Entries } else { Lines::All };
        let reader = BufReader::with_capacity(capacity, Pieces {
            data: io::Cursor::new(bytes.clone()),
            sizes,
            next: 0,
        });
        let mut corpus = Corpus::from_reader("t", Box::new(reader), None, None);
        let mut chunk = Chunk::new(lines);
        let (mut got, mut consumed) = (Vec::new(), 0);
        // The last call, which finds no record, may still consume lines that are not.
        loop {
            let n = corpus.read_chunk(&mut chunk, chunk_size).unwrap();
            consumed += chunk.bytes();
            if n == 0 {
                break;
            }
            prop_assert!(n <= chunk_size);
            got.extend_from_slice(chunk.records());
        }
        prop_assert!(corpus.at_end());
        prop_assert_eq!(consumed, bytes.len() as u64);
        let mut want = expected(&bytes);
        if entries {
            want.retain(|r| r.is_entry());
            for record in &mut want {
                record.raw = Raw::NotKept;
            }
        }
        prop_assert_eq!(got.len(), want.len());
        for (got, want) in got.iter().zip(&want) {
            prop_assert_eq!(got, want);
        }
    }
}
