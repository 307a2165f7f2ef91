//! `Sink`: where a run's results go, batch by batch, in input order. The per-puzzle CSV
//! ([`super::csv_sink::CsvSink`]) and the [`Summary`] are sinks; so is whatever a caller
//! adds (warnings, a progress display, its own export). Several sinks make one as a
//! pair, `(a, b)`, whose halves take each batch at the same time on the runner's workers.

use std::io;

use super::Summary;
use crate::runner::Batch;
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
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        (**self).begin(corpus, strategies)
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        (**self).batch(batch)
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

/// The summary counts every result, and each strategy's share of the phases' wall time.
impl Sink for Summary {
    fn begin(&mut self, corpus: &str, strategies: &[StrategyInfo]) -> io::Result<()> {
        for info in strategies {
            self.group(corpus, &info.name);
        }
        Ok(())
    }

    fn batch(&mut self, batch: &Batch) -> io::Result<()> {
        for (s, info) in batch.strategies.iter().enumerate() {
            let group = self.group(batch.corpus, &info.name);
            for result in &batch.results[s][..batch.records.len()] {
                self.add(group, result);
            }
            self.add_wall(group, batch.walls[s]);
            self.add_preemptions(group, batch.preemptions.get(s).copied().flatten());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{PuzzleResult, Status};
    use crate::strategy::by_name;

    #[test]
    fn a_pair_gives_every_batch_to_both_and_the_summary_counts_it() {
        let strategies = [
            by_name("fast").unwrap().clone(),
            by_name("dlx").unwrap().clone(),
        ];
        let mut summary = Summary::default();
        let mut seen = Vec::new();
        let mut sinks = (
            from_fn(|b: &Batch| {
                seen.push(b.records.len());
                Ok(())
            }),
            &mut summary,
        );
        sinks.begin("empty", &strategies).unwrap();
        sinks.begin("c", &strategies).unwrap();
        let records =
            crate::corpus::read_all("c", std::io::Cursor::new(b"x\ny\n".to_vec())).unwrap();
        let result = PuzzleResult::unsearched(Status::Malformed, "bad");
        let results = vec![vec![result.clone(), result.clone(), result]; 2];
        let batch = Batch {
            corpus: "c",
            records: &records,
            strategies: &strategies,
            results: &results,
            walls: &[5, 7],
            preemptions: &[Some(3), None],
        };
        sinks.batch(&batch).unwrap();
        assert_eq!(seen, [2]);
        // A corpus that started lists its strategies even with no puzzle.
        let rows: Vec<_> = summary
            .rows()
            .into_iter()
            .map(|r| (r.corpus, r.strategy, r.malformed, r.wall_ns, r.preemptions))
            .collect();
        assert_eq!(
            rows,
            [
                ("empty".into(), "fast".into(), 0, 0, None),
                ("empty".into(), "dlx".into(), 0, 0, None),
                ("c".into(), "fast".into(), 2, 5, Some(3)),
                ("c".into(), "dlx".into(), 2, 7, None),
            ]
        );
    }

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
