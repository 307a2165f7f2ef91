//! `--by COLUMN`: a column of a CSV corpus, read from the corpus file the per-puzzle CSV
//! names, with lines numbered as the corpus loader numbers them (so they match the CSV's
//! `line` column whatever the line endings or a byte-order mark).

use std::path::Path;

use super::ReportError;
use crate::corpus::{Chunk, Corpus, Kind, Lines};

/// (line, value) of `column` for every entry line of the CSV corpus at `corpus`.
pub fn read_column(corpus: &str, column: &str) -> Result<Vec<(u64, String)>, ReportError> {
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
    let mut reader = Corpus::open(path, None).map_err(|e| failed(format!("{e:#}")))?;
    let mut chunk = Chunk::new(Lines::All);
    let mut at: Option<usize> = None;
    let mut values = Vec::new();
    let mut fields = csv::ByteRecord::new();
    loop {
        let n = reader
            .read_chunk(&mut chunk, 4096)
            .map_err(|e| failed(error_chain(&e)))?;
        if n == 0 {
            break;
        }
        for record in chunk.records() {
            let Some(bytes) = record.raw.whole() else {
                continue;
            };
            let is_header = record.kind == Kind::Header;
            if !(is_header || record.is_entry()) {
                continue;
            }
            split(bytes, &mut fields);
            if is_header {
                let position = fields.iter().position(|f| {
                    String::from_utf8_lossy(f.trim_ascii()).eq_ignore_ascii_case(column)
                });
                let Some(i) = position else {
                    let found: Vec<String> = fields
                        .iter()
                        .map(|f| String::from_utf8_lossy(f.trim_ascii()).into_owned())
                        .collect();
                    return Err(failed(format!(
                        "line {}: the header has no such column; found: {}",
                        record.line,
                        found.join(", ")
                    )));
                };
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
    Ok(values)
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
        let values = read_column(&name, "Difficulty").unwrap();
        assert_eq!(
            values,
            [
                (3, "2.5".to_string()),
                (5, "7".to_string()),
                (6, "1".to_string())
            ]
        );
        let missing = read_column(&name, "rating").unwrap_err().to_string();
        assert!(
            missing.contains("rating") && missing.contains("id, puzzle, difficulty"),
            "{missing}"
        );
        assert!(missing.contains(&name), "{missing}");
        let gone = read_column("no/such.csv", "x").unwrap_err().to_string();
        assert!(gone.contains("no/such.csv"), "{gone}");
        let text_path = dir.path().join("t.txt");
        std::fs::write(&text_path, format!("{grid}\n")).unwrap();
        let plain = read_column(&text_path.display().to_string(), "x")
            .unwrap_err()
            .to_string();
        assert!(plain.contains("not a CSV corpus"), "{plain}");
    }
}
