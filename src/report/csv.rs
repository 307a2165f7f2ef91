//! The per-puzzle CSV: one row per (puzzle, strategy), in input order.

use std::io::Write;

use super::PuzzleResult;
use crate::corpus::{Kind, Record};

/// The columns, in order.
pub const COLUMNS: [&str; 12] = [
    "corpus",
    "line",
    "strategy",
    "status",
    "solutions",
    "nodes",
    "guesses",
    "time_ns",
    "clues",
    "puzzle",
    "solution",
    "error",
];

/// Writes per-puzzle rows, reusing its buffers.
pub struct PuzzleCsv<W: Write> {
    out: csv::Writer<W>,
    puzzle: [u8; 81],
    solution: [u8; 81],
}

impl<W: Write> PuzzleCsv<W> {
    /// Wrap `out` and write the header.
    pub fn new(out: W) -> csv::Result<PuzzleCsv<W>> {
        let mut out = csv::WriterBuilder::new()
            .buffer_capacity(1 << 16)
            .from_writer(out);
        out.write_record(COLUMNS)?;
        Ok(PuzzleCsv {
            out,
            puzzle: [0; 81],
            solution: [0; 81],
        })
    }

    pub fn write(
        &mut self,
        corpus: &str,
        record: &Record,
        strategy: &str,
        result: &PuzzleResult,
    ) -> csv::Result<()> {
        let (mut line, mut solutions, mut nodes, mut guesses, mut time, mut clues) = (
            itoa::Buffer::new(),
            itoa::Buffer::new(),
            itoa::Buffer::new(),
            itoa::Buffer::new(),
            itoa::Buffer::new(),
            itoa::Buffer::new(),
        );
        let grid = match &record.kind {
            Kind::Puzzle { grid, .. } | Kind::Invalid { grid, .. } => Some(grid),
            _ => None,
        };
        if let Some(g) = grid {
            g.write_dotted(&mut self.puzzle);
        }
        if let Some(s) = &result.solution {
            s.write_dotted(&mut self.solution);
        }
        let out = &mut self.out;
        out.write_field(corpus)?;
        out.write_field(line.format(record.line))?;
        out.write_field(strategy)?;
        out.write_field(result.status.as_str())?;
        out.write_field(result.solutions.map_or("", |n| solutions.format(n)))?;
        out.write_field(result.nodes.map_or("", |n| nodes.format(n)))?;
        out.write_field(result.guesses.map_or("", |n| guesses.format(n)))?;
        out.write_field(result.time_ns.map_or("", |n| time.format(n)))?;
        out.write_field(grid.map_or("", |g| clues.format(g.clues())))?;
        out.write_field(if grid.is_some() {
            &self.puzzle[..]
        } else {
            b""
        })?;
        out.write_field(if result.solution.is_some() {
            &self.solution[..]
        } else {
            b""
        })?;
        out.write_field(result.error.as_deref().unwrap_or(""))?;
        out.write_record(None::<&[u8]>)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
