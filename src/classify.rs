//! `Classifier`: gives every record of a chunk its `Status` under one strategy, solving the
//! puzzles in parallel, for the corpus tools (`filter`, `check`) that must see every line of
//! a corpus (comments and headers too) in order, which the benchmark `Runner` does not hand
//! out. Also names the fastest registered strategy.

use rayon::prelude::*;

use crate::corpus::Record;
use crate::engine::Engine;
use crate::interrupt::Stop;
use crate::results::Status;
use crate::strategy::{self, Limits, Outcome, StrategyInfo};

/// Strategies in order of preference for the corpus tools, fastest first. A name that is not
/// registered is skipped, so a faster strategy is picked up as soon as it is registered.
pub(crate) const FASTEST: &[&str] = &["fast", "dlx"];

/// The fastest registered strategy (see `FASTEST`); the last registered one otherwise.
pub fn fastest() -> &'static StrategyInfo {
    FASTEST
        .iter()
        .find_map(|name| strategy::by_name(name))
        .or(strategy::STRATEGIES.last())
        .expect("the strategy registry is not empty")
}

/// What became of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// `None` for lines that are not entries (comments, blanks, the header).
    pub status: Option<Status>,
    /// The search's outcome, for puzzles.
    pub outcome: Option<Outcome>,
}

/// Solves chunks of records with one strategy, on an [`Engine`] of its own.
pub struct Classifier {
    engine: Engine,
    stop: Stop,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("engine", &self.engine)
            .finish()
    }
}

impl Classifier {
    /// A classifier running `info` on `threads` workers (0: one per core).
    pub fn new(
        info: &StrategyInfo,
        limits: Limits,
        threads: usize,
    ) -> Result<Classifier, rayon::ThreadPoolBuildError> {
        Ok(Classifier {
            engine: Engine::new(vec![info.clone()], limits, threads, "classify")?,
            stop: Stop::default(),
        })
    }

    /// Stop classifying once `stop` is requested: see `classify`.
    pub fn stop_when(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// Run `f` on this classifier's threads (e.g. reading a chunk, whose lines are parsed
    /// in parallel on the current pool).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.engine.pool().install(f)
    }

    /// `f` of each record, in order, into `out`, on this classifier's threads: for other
    /// per-record work of the corpus tools (e.g. canonical forms).
    pub fn map<T: Send>(
        &self,
        records: &[Record],
        f: impl Fn(&Record) -> T + Sync + Send,
        out: &mut Vec<T>,
    ) {
        self.install(|| {
            records
                .par_iter()
                .with_min_len(16)
                .map(f)
                .collect_into_vec(out)
        });
    }

    /// The verdict on each record, in order, into `out` (cleared first); returns how many
    /// records have one. That is all of them, unless a stop was requested: then only the
    /// records before the first one not classified (solves done past it are dropped).
    pub fn classify(&self, records: &[Record], out: &mut Vec<Classified>) -> usize {
        let engine = &self.engine;
        let stop = &self.stop;
        let mut verdicts: Vec<Option<Classified>> = Vec::new();
        self.map(
            records,
            |record| {
                // Polled before each record: classifying is not timed.
                (!stop.requested()).then(|| {
                    let (status, outcome) = engine.verdict(0, record).unzip();
                    Classified {
                        status,
                        outcome: outcome.flatten(),
                    }
                })
            },
            &mut verdicts,
        );
        out.clear();
        out.extend(verdicts.into_iter().map_while(|v| v));
        out.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::read_all;

    #[test]
    fn fastest_follows_the_preference_list() {
        let registered: Vec<_> = FASTEST
            .iter()
            .filter(|n| strategy::by_name(n).is_some())
            .collect();
        assert_eq!(fastest().name, *registered[0]);
    }

    #[test]
    fn every_kind_gets_its_verdict_in_order() {
        let text = "# c\n\
            53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n\
            \n\
            ....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....\n\
            53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79\n\
            55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n\
            oops\n";
        let records = read_all("t", std::io::Cursor::new(text.as_bytes().to_vec())).unwrap();
        let c = Classifier::new(fastest(), Limits::default(), 2).unwrap();
        let mut out = Vec::new();
        assert_eq!(c.classify(&records, &mut out), records.len());
        let got: Vec<_> = out.iter().map(|v| v.status).collect();
        assert_eq!(
            got,
            vec![
                None,
                Some(Status::Unique),
                None,
                Some(Status::Multiple),
                Some(Status::Unsolvable),
                Some(Status::Invalid),
                Some(Status::Malformed),
            ]
        );
    }

    #[test]
    fn a_stop_classifies_nothing_more() {
        let line =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n";
        let records = read_all("t", std::io::Cursor::new(line.repeat(100).into_bytes())).unwrap();
        let mut c = Classifier::new(fastest(), Limits::default(), 2).unwrap();
        let stop = Stop::default();
        c.stop_when(stop.clone());
        let mut out = Vec::new();
        assert_eq!(c.classify(&records, &mut out), 100);
        stop.request(2);
        assert_eq!(c.classify(&records, &mut out), 0);
        assert!(out.is_empty());
    }
}
