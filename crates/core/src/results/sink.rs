//! `Sink`: where a run's results go, batch by batch, in input order. The per-puzzle CSV
//! ([`super::csv_sink::CsvSink`]) and the [`crate::summary::Summary`] are sinks; so is whatever a caller
//! adds (warnings, a progress display, its own export). Several sinks make one as a
//! pair, `(a, b)`, whose halves take each batch at the same time on the runner's workers.

use std::io;

use super::Batch;
use crate::corpus::Identity;
use crate::strategy::StrategyInfo;

/// Takes each batch of results of a run, in input order.
///
/// The runner calls it on one of its worker threads, outside every timed solve, so a
/// parallel iterator in it shares the runner's threads.
pub trait Sink: Send {
    /// A run over `corpus` with `strategies` starts: its batches come next. A corpus that
    /// holds no puzzle still starts (so a summary lists it with zero puzzles).
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        let _ = (corpus, strategies);
        Ok(())
    }

    /// One batch. An error stops the run (`RunError::Sink`).
    fn batch(&mut self, batch: &Batch) -> io::Result<()>;

    /// The run over `corpus` read it to its end and reported every batch: `identity` is
    /// what it read (of its part, for a part). Not called for a run stopped or failed
    /// before the end.
    fn end(&mut self, corpus: &str, identity: &Identity) -> io::Result<()> {
        let _ = (corpus, identity);
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        (**self).begin(corpus, strategies)
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        (**self).batch(batch)
    }

    fn end(&mut self, corpus: &str, identity: &Identity) -> io::Result<()> {
        (**self).end(corpus, identity)
    }
}

/// Both sinks; each batch goes to the two at once (`b` is left for another worker to take
/// while this one runs `a`: put the shorter job second, so this one does not wait for it).
impl<A: Sink, B: Sink> Sink for (A, B) {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        self.0.begin(corpus, strategies)?;
        self.1.begin(corpus, strategies)
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        let (a, b) = rayon::join(|| self.0.batch(batch), || self.1.batch(batch));
        a.and(b)
    }

    fn end(&mut self, corpus: &str, identity: &Identity) -> io::Result<()> {
        self.0.end(corpus, identity)?;
        self.1.end(corpus, identity)
    }
}

/// A sink that calls `f` with each batch.
pub fn from_fn<F>(f: F) -> FnSink<F>
where
    F: FnMut(&Batch) -> io::Result<()> + Send,
{
    FnSink(f)
}

/// See [`from_fn`].
#[derive(Debug)]
pub struct FnSink<F>(F);

impl<F> Sink for FnSink<F>
where
    F: FnMut(&Batch) -> io::Result<()> + Send,
{
    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        (self.0)(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_half_failing_fails_the_pair() {
        let ok = || from_fn(|_: &Batch| Ok(()));
        let fail = || from_fn(|_: &Batch| Err(io::Error::other("full")));
        let batch = Batch {
            corpus: "c",
            records: &[],
            strategies: &[],
            results: &[],
            walls: &[],
            preemptions: &[],
        };
        assert!((ok(), ok()).batch(&batch).is_ok());
        assert_eq!(
            (fail(), ok()).batch(&batch).unwrap_err().to_string(),
            "full"
        );
        assert_eq!(
            (ok(), fail()).batch(&batch).unwrap_err().to_string(),
            "full"
        );
    }
}
