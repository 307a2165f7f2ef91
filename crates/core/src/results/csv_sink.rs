//! `CsvSink`: the per-puzzle CSV as a [`Sink`]. Each batch is formatted in parallel
//! pieces on the runner's workers and handed to a [`WriterThread`], which writes it while
//! the workers go on to the next chunk; written buffers come back to be filled again.

use std::io::{self, Write};

use rayon::prelude::*;

use super::csv::{push_field, push_header, push_row};
use super::sink::Sink;
use super::writer::WriterThread;
use crate::results::Batch;
use crate::strategy::StrategyInfo;

/// Records whose rows one parallel task formats.
const ROWS_PER_PIECE: usize = 256;

/// Chunks of formatted rows that may wait for the writer thread.
const WRITE_QUEUE: usize = 2;

/// Bytes reserved per row: more than most rows take, so a piece seldom grows.
const ROW_BYTES: usize = 256;

/// Writes the header, then one row per (record, strategy) of every batch, in order.
pub struct CsvSink {
    writer: WriterThread,
    /// The corpus name and each strategy's, quoted as CSV fields, for the current run.
    corpus: Vec<u8>,
    strategies: Vec<Vec<u8>>,
}

impl std::fmt::Debug for CsvSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvSink").finish_non_exhaustive()
    }
}

impl CsvSink {
    /// Start writing the CSV, header first, to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> io::Result<CsvSink> {
        let mut sink = CsvSink::continuing(out)?;
        let mut header = Vec::new();
        push_header(&mut header);
        sink.writer.send(header)?;
        Ok(sink)
    }

    /// Go on writing rows after those already in `out`, header included (`run --resume`).
    pub fn continuing(out: Box<dyn Write + Send>) -> io::Result<CsvSink> {
        Ok(CsvSink {
            writer: WriterThread::spawn(out, WRITE_QUEUE)?,
            corpus: Vec::new(),
            strategies: Vec::new(),
        })
    }

    /// Write what is left and flush; the first write error, if any.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.finish()
    }
}

impl Sink for CsvSink {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        self.corpus.clear();
        push_field(&mut self.corpus, corpus.as_bytes());
        self.strategies = strategies
            .iter()
            .map(|info| {
                let mut field = Vec::new();
                push_field(&mut field, info.name.as_bytes());
                field
            })
            .collect();
        Ok(())
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        let pieces = batch.records.len().div_ceil(ROWS_PER_PIECE);
        let mut pieces: Vec<Vec<u8>> = (0..pieces).map(|_| self.writer.spare()).collect();
        let (corpus, strategies) = (&self.corpus, &self.strategies);
        batch
            .records
            .par_chunks(ROWS_PER_PIECE)
            .zip(pieces.par_iter_mut())
            .enumerate()
            .for_each(|(k, (records, out))| {
                out.reserve(records.len() * strategies.len() * ROW_BYTES);
                for (j, record) in records.iter().enumerate() {
                    let i = k * ROWS_PER_PIECE + j;
                    for (s, strategy) in strategies.iter().enumerate() {
                        push_row(out, corpus, record, strategy, &batch.results[s][i]);
                    }
                }
            });
        self.writer.send_all(pieces)
    }
}
