//! `--by COLUMN`: a column of a CSV corpus, read from the corpus file the per-puzzle CSV
//! names, with lines numbered as the corpus loader numbers them (so they match the CSV's
//! `line` column whatever the line endings or a byte-order mark). A corpus changed since
//! the run (reordered, replaced) would class each row by another puzzle's value: the
//! puzzle every row names is checked against the corpus line the value comes from.

use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use super::read::Inputs;
use super::ReportError;
use sudoku_bench_core::corpus::{Chunk, Corpus, Kind, Lines, ReadAs};
use sudoku_bench_core::grid::Grid;
use sudoku_bench_core::results::csv::RowReader;

/// A corpus's (line, value) of `--by`'s column, or why it has none.
pub type ColumnValues = Result<Vec<(u64, String)>, ReportError>;

/// (line, key of its grid) of every entry line of a corpus, by line; the key of a line
/// without a grid (a malformed one) is 0.
type LineKeys = Vec<(u64, u64)>;

/// `column` of each of `corpora` (in that order), each corpus's values or why it has none
/// (a text corpus, a file gone, a corpus the loader cannot read as `read_as` says), for the
/// corpora the per-puzzle rows of `inputs` name.
/// Refuses (the outer error) a corpus read whose lines do not hold the puzzles the rows
/// ran there, naming the corpus file and its first such line.
pub fn read_columns(
    inputs: &Inputs,
    corpora: &[&str],
    column: &str,
    read_as: &ReadAs,
) -> Result<Vec<ColumnValues>, ReportError> {
    let mut out = Vec::with_capacity(corpora.len());
    for corpus in corpora {
        match read(corpus, column, read_as) {
            Ok((values, keys)) => {
                check_puzzles(inputs, corpus, &keys)?;
                out.push(Ok(values));
            }
            Err(why) => out.push(Err(why)),
        }
    }
    Ok(out)
}

/// (line, value) of `column` for every entry line of the CSV corpus at `corpus`, read as
/// `read_as` says.
pub fn read_column(
    corpus: &str,
    column: &str,
    read_as: &ReadAs,
) -> Result<Vec<(u64, String)>, ReportError> {
    read(corpus, column, read_as).map(|(values, _)| values)
}

/// The key of a grid, as rows and corpus lines are compared.
fn key(grid: &Grid) -> u64 {
    // Never 0, the key of no grid.
    xxh3_64(grid.cells()).max(1)
}

/// Every row of `inputs` for `corpus` against the corpus's lines (`keys`): each must name
/// an entry line, with the grid the line holds. CSVs without a `puzzle` column say no grid
/// to compare.
fn check_puzzles(inputs: &Inputs, corpus: &str, keys: &LineKeys) -> Result<(), ReportError> {
    let mut files: Vec<usize> = inputs
        .groups
        .iter()
        .filter(|g| g.corpus == corpus)
        .map(|g| g.file)
        .collect();
    files.sort_unstable();
    files.dedup();
    // The first corpus line that differs: (line, what the CSV says, CSV, its line).
    let mut first: Option<(u64, String, String, u64)> = None;
    for file in files {
        let path = &inputs.csvs[file];
        let mut reader =
            RowReader::open(path).map_err(sudoku_bench_core::summary::read::RunFileError::from)?;
        if !reader.has("puzzle") {
            continue;
        }
        while let Some(row) = reader
            .read()
            .map_err(sudoku_bench_core::summary::read::RunFileError::from)?
        {
            if row.corpus != corpus || first.as_ref().is_some_and(|f| f.0 <= row.line) {
                continue;
            }
            let grid = row.puzzle_grid();
            let found = keys.binary_search_by_key(&row.line, |k| k.0);
            let holds = match found {
                Ok(i) => keys[i].1 == grid.as_ref().map_or(0, key),
                Err(_) => false,
            };
            if !holds {
                let ran = match grid {
                    Some(g) => format!("puzzle {g}"),
                    None => "a line that is not a puzzle".to_string(),
                };
                first = Some((row.line, ran, path.display().to_string(), row.csv_line));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((line, ran, csv, csv_line)) => Err(ReportError::ByChanged {
            corpus: corpus.to_string(),
            line,
            ran,
            csv,
            csv_line,
        }),
    }
}

/// (line, value) of `column` for every entry line of the CSV corpus at `corpus`, and the
/// key of every entry line's grid.
fn read(
    corpus: &str,
    column: &str,
    read_as: &ReadAs,
) -> Result<(Vec<(u64, String)>, LineKeys), ReportError> {
    let path = Path::new(corpus);
    let failed = |message: String| ReportError::By {
        corpus: corpus.to_string(),
        column: column.to_string(),
        message,
    };
    if corpus == "-" {
        return Err(failed(
            "the corpus was read from stdin, so there is no file to read the column from".into(),
        ));
    }
    let mut reader = Corpus::open(path, read_as.clone()).map_err(|e| failed(format!("{e:#}")))?;
    let mut chunk = Chunk::new(Lines::All);
    let mut at: Option<usize> = None;
    let mut values = Vec::new();
    let mut keys = Vec::new();
    let mut fields = csv::ByteRecord::new();
    loop {
        let n = reader
            .read_chunk(&mut chunk, 4096)
            .map_err(|e| failed(error_chain(&e)))?;
        if n == 0 {
            break;
        }
        for record in chunk.records() {
            match &record.kind {
                Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => {
                    keys.push((record.line, key(grid)))
                }
                Kind::Malformed { .. } => keys.push((record.line, 0)),
                _ => {}
            }
            let Some(bytes) = record.raw.whole() else {
                continue;
            };
            let is_header = record.kind == Kind::Header;
            if !(is_header || record.is_entry()) {
                continue;
            }
            split(bytes, &mut fields);
            if is_header {
                let i = position(&fields, column)
                    .map_err(|why| failed(format!("line {}: {why}", record.line)))?;
                at = Some(i);
                continue;
            }
            let Some(i) = at else {
                return Err(failed(
                    "not a CSV corpus (no header line before its puzzles)".into(),
                ));
            };
            if let Some(value) = fields.get(i) {
                values.push((
                    record.line,
                    String::from_utf8_lossy(value.trim_ascii()).into_owned(),
                ));
            }
        }
    }
    if at.is_none() {
        return Err(failed("not a CSV corpus (no header line)".into()));
    }
    Ok((values, keys))
}

/// Where `column` is among a header's `fields`, by name, ignoring case; or why not,
/// naming the columns there are.
fn position(fields: &csv::ByteRecord, column: &str) -> Result<usize, String> {
    let name = |f: &[u8]| String::from_utf8_lossy(f.trim_ascii()).into_owned();
    if let Some(i) = fields
        .iter()
        .position(|f| name(f).eq_ignore_ascii_case(column))
    {
        return Ok(i);
    }
    let found: Vec<String> = fields.iter().map(name).collect();
    Err(format!(
        "the header has no such column; found: {}",
        found.join(", ")
    ))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The fields of one line (its ending included) as the csv crate splits them.
fn split(line: &[u8], out: &mut csv::ByteRecord) {
    out.clear();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line);
    if reader.read_byte_record(out).is_err() {
        out.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_core::corpus::{Raw, Record};
    use sudoku_bench_core::results::csv::{push_field, push_header, push_row};
    use sudoku_bench_core::results::{PuzzleResult, Status};

    #[test]
    fn rows_whose_corpus_lines_hold_other_puzzles_are_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let minimal = include_str!("../../../../datasets/minimal.txt");
        let grids: Vec<&str> = minimal.lines().take(4).collect();
        let corpus = dir.path().join("c.csv");
        let name = corpus.display().to_string();
        let write_corpus = |order: &[usize]| {
            let mut text = "puzzle,difficulty\n".to_string();
            for &i in order {
                text.push_str(&format!("{},{}\n", grids[i], ["easy", "hard"][i % 2]));
            }
            std::fs::write(&corpus, text).unwrap();
        };
        // The run's rows: lines 2..=5 held grids 0..=3; two strategies.
        let csv = dir.path().join("run.csv");
        let mut text = Vec::new();
        push_header(&mut text);
        let mut quoted = Vec::new();
        push_field(&mut quoted, name.as_bytes());
        for (i, grid) in grids.iter().enumerate() {
            let record = Record {
                line: i as u64 + 2,
                raw: Raw::NotKept,
                kind: Kind::Puzzle {
                    grid: grid.parse().unwrap(),
                    expected: None,
                },
            };
            let result = PuzzleResult {
                status: Status::Aborted,
                time_ns: Some(5),
                ended: Some(sudoku_bench_core::results::Ending::Timeout),
                ..PuzzleResult::default()
            };
            for strategy in [&b"fast"[..], b"dlx"] {
                push_row(&mut text, &quoted, &record, strategy, &result);
            }
        }
        std::fs::write(&csv, text).unwrap();
        let inputs = Inputs::read(std::slice::from_ref(&csv)).unwrap();
        let columns = |inputs: &Inputs| {
            read_columns(inputs, &[name.as_str()], "difficulty", &ReadAs::default())
        };

        write_corpus(&[0, 1, 2, 3]);
        let values = columns(&inputs).unwrap().pop().unwrap().unwrap();
        assert_eq!(values[1], (3, "hard".to_string()));
        // Lines 4 and 5 swapped: the first that differs is named, with the row's CSV line.
        write_corpus(&[0, 1, 3, 2]);
        let err = columns(&inputs).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{name}:4: "))
                && err.contains(grids[2])
                && err.contains("run.csv:6"),
            "{err}"
        );
        // A line a row names is gone: the corpus is shorter.
        write_corpus(&[0, 1, 2]);
        let err = columns(&inputs).unwrap_err().to_string();
        assert!(err.contains(&format!("{name}:5: ")), "{err}");
        // A text corpus goes without the table, as before; nothing is refused.
        std::fs::write(&corpus, grids.join("\n")).unwrap();
        assert!(columns(&inputs).unwrap()[0].is_err());
    }

    #[test]
    fn values_are_keyed_by_the_loaders_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.csv");
        // CRLF and a lone CR each end one line; a comment and a blank line are numbered
        // but have no value.
        let grid = format!("1{}", ".".repeat(80));
        let text = format!(
            "\u{feff}id,puzzle,difficulty\r\n# note\r\n1,{grid},2.5\r\n\r2,{grid},\"7\"\n3,xx,1\n"
        );
        std::fs::write(&path, text).unwrap();
        let name = path.display().to_string();
        let values = read_column(&name, "Difficulty", &ReadAs::default()).unwrap();
        assert_eq!(
            values,
            [
                (3, "2.5".to_string()),
                (5, "7".to_string()),
                (6, "1".to_string())
            ]
        );
        let missing = read_column(&name, "rating", &ReadAs::default())
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("rating") && missing.contains("id, puzzle, difficulty"),
            "{missing}"
        );
        assert!(missing.contains(&name), "{missing}");
        let gone = read_column("no/such.csv", "x", &ReadAs::default())
            .unwrap_err()
            .to_string();
        assert!(gone.contains("no/such.csv"), "{gone}");
        let text_path = dir.path().join("t.txt");
        std::fs::write(&text_path, format!("{grid}\n")).unwrap();
        let plain = read_column(&text_path.display().to_string(), "x", &ReadAs::default())
            .unwrap_err()
            .to_string();
        assert!(plain.contains("not a CSV corpus"), "{plain}");
    }
}
