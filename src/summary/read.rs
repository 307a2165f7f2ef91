//! Reading back the files `run` writes, for `compare` and `report` alike: whether a file is
//! a summary JSON or a per-puzzle CSV, the summary itself, and the errors both commands give
//! about them.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::SummaryReport;
use crate::results::csv::CsvError;

/// Why a run's file could not be read. Every variant names the file, and the line when
/// there is one.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    /// The file could not be read, or a per-puzzle CSV is not what `run` writes (the one
    /// error of the CSV reader, which names the file and the line).
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// A file starting with `{` is not a summary JSON.
    #[error("{path}: not a summary JSON written by `sudoku-bench run --summary`")]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

impl RunFileError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> RunFileError {
        RunFileError::Csv(CsvError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Whether bytes from the start of a file show a summary JSON: their first non-blank byte
/// is `{` (a per-puzzle CSV starts with its header). `None` when they are all blank.
fn opens_json(start: &[u8]) -> Option<bool> {
    start
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .map(|&b| b == b'{')
}

/// Whether `bytes`, a whole file, are a summary JSON rather than a per-puzzle CSV.
pub fn is_summary(bytes: &[u8]) -> bool {
    opens_json(bytes) == Some(true)
}

/// Whether the file at `path` is a summary JSON, read only as far as its first non-blank
/// byte (a per-puzzle CSV may be gigabytes).
pub fn is_summary_file(path: &Path) -> Result<bool, RunFileError> {
    let mut file = File::open(path).map_err(|e| RunFileError::io(path, e))?;
    let mut buf = [0u8; 4096];
    loop {
        let n = file.read(&mut buf).map_err(|e| RunFileError::io(path, e))?;
        if n == 0 {
            return Ok(false);
        }
        if let Some(json) = opens_json(&buf[..n]) {
            return Ok(json);
        }
    }
}

/// The summary JSON `bytes` read from `path`.
pub fn parse_summary(path: &Path, bytes: &[u8]) -> Result<SummaryReport, RunFileError> {
    serde_json::from_slice(bytes).map_err(|source| RunFileError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// The summary JSON at `path`.
pub fn read_summary(path: &Path) -> Result<SummaryReport, RunFileError> {
    let bytes = std::fs::read(path).map_err(|e| RunFileError::io(path, e))?;
    parse_summary(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_json_when_its_first_non_blank_byte_is_a_brace() {
        assert!(is_summary(b" \n\t{\"tool\": 1}"));
        assert!(!is_summary(b"corpus,line,strategy\n"));
        assert!(!is_summary(b"  \n"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        // Blank past the first read's 4096 bytes: the file is read on until it says.
        let mut text = vec![b' '; 5000];
        text.extend_from_slice(b"{}");
        std::fs::write(&path, &text).unwrap();
        assert!(is_summary_file(&path).unwrap());
        std::fs::write(&path, b"\n\n").unwrap();
        assert!(!is_summary_file(&path).unwrap());
        let missing = dir.path().join("missing.json");
        assert!(matches!(
            is_summary_file(&missing),
            Err(RunFileError::Csv(CsvError::Io { .. }))
        ));
    }
}
