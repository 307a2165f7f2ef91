//! `Classifier`: gives every record of a chunk its `Status` under one strategy, solving the
//! puzzles in parallel, for the corpus tools (`filter`, `check`) that must see every line of
//! a corpus (comments and headers too) in order, which the benchmark `Runner` does not hand
//! out. Also names the fastest registered strategy.
//!
//! A solver from outside the crate is not trusted: a classifier given a reference solves
//! every puzzle with it too and says where the two disagree ([`Classified::wrong`]), and
//! [`Refereed`] does the same for the searches of puzzle generation. Both apply the rule
//! `run` applies ([`disagreement`]).

use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::clock::Cost;
use crate::corpus::{Kind, Record};
use crate::engine::Engine;
use crate::grid::Grid;
use crate::interrupt::Stop;
use crate::results::{PuzzleResult, Status};
use crate::strategy::{self, Limits, Outcome, Strategy, StrategyInfo};

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
    /// Why the solver's answer is wrong, when it is: a returned grid that is not a
    /// solution, or a count other than the reference's. Its status is then not to be
    /// trusted.
    pub wrong: Option<String>,
}

/// Why `outcome`, a search of `puzzle` under `limits`, is wrong, if it is: a returned grid
/// that is not a solution, or (with `reference`: the outcome of the reference strategy
/// named there) a count other than the reference's when both searches finished. The rule
/// `run` applies to every row.
pub fn disagreement(
    puzzle: &Grid,
    outcome: &Outcome,
    reference: Option<(&Outcome, &str)>,
    limits: &Limits,
) -> Option<String> {
    let mut result =
        PuzzleResult::searched(puzzle, None, outcome, Cost::default(), limits, false, false);
    if let Some((theirs, name)) = reference {
        let theirs =
            PuzzleResult::searched(puzzle, None, theirs, Cost::default(), limits, false, false);
        result.check_count(&theirs, name);
    }
    if result.is_wrong() {
        result.error
    } else {
        None
    }
}

/// Solves chunks of records with one strategy, on an [`Engine`] of its own; with a
/// reference, checked against it.
pub struct Classifier {
    engine: Engine,
    /// Whether the engine's second strategy is a reference to check the first against.
    checked: bool,
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
        Classifier::checked(info, None, limits, threads)
    }

    /// A classifier running `info`, every answer of which is checked against `reference`'s
    /// (see [`disagreement`]), on `threads` workers (0: one per core). A count the
    /// reference could not settle within `limits` is not trusted either: such a puzzle is
    /// `aborted`, as the reference says.
    pub fn checked(
        info: &StrategyInfo,
        reference: Option<&StrategyInfo>,
        limits: Limits,
        threads: usize,
    ) -> Result<Classifier, rayon::ThreadPoolBuildError> {
        let reference = reference.filter(|r| !r.is(info));
        let strategies = std::iter::once(info).chain(reference).cloned().collect();
        Ok(Classifier {
            engine: Engine::new(strategies, limits, threads, "classify")?,
            checked: reference.is_some(),
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
    ///
    /// Records go to the workers in tasks of the solver's `puzzles_per_task`, each solved
    /// with one `Strategy::solve_batch`, so that a solver in another process makes one
    /// round trip a task rather than one a puzzle.
    pub fn classify(&self, records: &[Record], out: &mut Vec<Classified>) -> usize {
        let stop = &self.stop;
        let per_task = self.engine.strategies()[0].puzzles_per_task;
        let mut tasks: Vec<Option<Vec<Classified>>> = Vec::new();
        self.install(|| {
            records
                .par_chunks(per_task)
                .with_max_len(1)
                // Polled before each task: classifying is not timed.
                .map(|task| (!stop.requested()).then(|| self.verdicts(task)))
                .collect_into_vec(&mut tasks)
        });
        out.clear();
        out.extend(tasks.into_iter().map_while(|t| t).flatten());
        out.len()
    }

    /// The verdicts on `records`, each checked against the reference when there is one.
    fn verdicts(&self, records: &[Record]) -> Vec<Classified> {
        let grids: Vec<Grid> = records
            .iter()
            .filter_map(|r| match &r.kind {
                Kind::Puzzle { grid, .. } => Some(*grid),
                _ => None,
            })
            .collect();
        let mut ours = self.engine.solve_each(0, &grids).into_iter();
        let mut theirs = if self.checked {
            self.engine.solve_each(1, &grids)
        } else {
            Vec::new()
        }
        .into_iter();
        records
            .iter()
            .map(|record| match &record.kind {
                Kind::Puzzle { grid, .. } => {
                    let ours = ours.next().unwrap_or(Outcome::EMPTY);
                    self.verdict(grid, ours, theirs.next())
                }
                _ => Classified {
                    status: self.engine.verdict(0, record).map(|(status, _)| status),
                    outcome: None,
                    wrong: None,
                },
            })
            .collect()
    }

    /// The verdict on a puzzle from its solver's outcome, `ours`, checked against the
    /// reference's, `theirs`, when there is one.
    fn verdict(&self, grid: &Grid, ours: Outcome, theirs: Option<Outcome>) -> Classified {
        let limits = self.engine.limits();
        let name = self.engine.strategies().get(1).map_or("", |r| &*r.name);
        let wrong = disagreement(grid, &ours, theirs.as_ref().map(|t| (t, name)), limits);
        let mut verdict = Classified {
            status: Some(Status::of(&ours, limits)),
            outcome: Some(ours),
            wrong,
        };
        if let (Some(theirs), Some(ours)) = (theirs, &verdict.outcome) {
            if verdict.wrong.is_none() && ours.aborted.is_none() && theirs.aborted.is_some() {
                verdict.status = Some(Status::of(&theirs, limits));
                verdict.outcome = Some(theirs);
            }
        }
        verdict
    }
}

/// A solver whose every search is checked against a reference's (see [`disagreement`]),
/// for searches that are not of corpus lines (puzzle generation). It answers as the
/// solver does, but as the reference does where they disagree, so that whatever asked
/// ends as soon as it would have with the reference; the first wrong answer any copy
/// meets is kept in a slot shared by the copies (see [`Refereed::info`]), for the caller to
/// look at between its searches.
pub struct Refereed {
    solver: Box<dyn Strategy>,
    reference: Box<dyn Strategy>,
    reference_name: String,
    wrong: Arc<Mutex<Option<String>>>,
}

impl Refereed {
    /// A strategy like `info`, checked against `reference`: each copy of it (one per
    /// worker) runs both; the first disagreement any of them meets is put in the slot
    /// returned, as `PUZZLE: why`.
    pub fn info(
        info: &StrategyInfo,
        reference: &StrategyInfo,
    ) -> (StrategyInfo, Arc<Mutex<Option<String>>>) {
        let wrong = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&wrong);
        let (solver, reference) = (info.clone(), reference.clone());
        let mut checked = StrategyInfo::new(info.name.clone(), move || {
            Box::new(Refereed {
                solver: solver.make(),
                reference: reference.make(),
                reference_name: reference.name.to_string(),
                wrong: Arc::clone(&slot),
            })
        });
        if !info.parallel {
            checked = checked.serial();
        }
        (checked, wrong)
    }
}

impl Strategy for Refereed {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let ours = self.solver.solve(puzzle, limits);
        let theirs = self.reference.solve(puzzle, limits);
        let why = disagreement(puzzle, &ours, Some((&theirs, &self.reference_name)), limits);
        if let Some(why) = why {
            let mut slot = self.wrong.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("{}: {why}", puzzle.to_dotted()));
            return theirs;
        }
        ours
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

    /// Finds nothing, or (with `unbounded`) counts as `fast` with no node budget.
    struct Foreign {
        unbounded: bool,
        fast: Box<dyn Strategy>,
    }

    impl Strategy for Foreign {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
            let mut outcome = self.fast.solve(puzzle, &limits.max_nodes(u64::MAX));
            if !self.unbounded {
                outcome.solutions = 0;
                outcome.first = None;
            }
            outcome
        }
    }

    fn foreign(unbounded: bool) -> StrategyInfo {
        StrategyInfo::new("foreign", move || {
            Box::new(Foreign {
                unbounded,
                fast: fastest().make(),
            })
        })
    }

    const TEXT: &str = "\
        53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n\
        ....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....\n\
        53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79\n\
        55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n";

    #[test]
    fn a_checked_classifier_says_where_its_solver_and_the_reference_disagree() {
        let records = read_all("t", std::io::Cursor::new(TEXT.as_bytes().to_vec())).unwrap();
        let c =
            Classifier::checked(&foreign(false), Some(fastest()), Limits::default(), 2).unwrap();
        let mut out = Vec::new();
        c.classify(&records, &mut out);
        let wrong: Vec<_> = out.iter().map(|v| v.wrong.as_deref()).collect();
        assert_eq!(
            wrong,
            [
                Some("counted 0 solutions; the reference (fast) counted 1"),
                Some("counted 0 solutions; the reference (fast) counted 2"),
                None,
                None,
            ]
        );
        // Unchecked, the same solver's verdicts pass for right.
        let c = Classifier::new(&foreign(false), Limits::default(), 2).unwrap();
        c.classify(&records, &mut out);
        assert!(out.iter().all(|v| v.wrong.is_none()));
    }

    #[test]
    fn a_count_the_reference_cannot_settle_is_aborted() {
        let records = read_all("t", std::io::Cursor::new(TEXT.as_bytes().to_vec())).unwrap();
        let limits = Limits::default().max_nodes(1);
        let c = Classifier::checked(&foreign(true), Some(fastest()), limits, 1).unwrap();
        let mut out = Vec::new();
        c.classify(&records, &mut out);
        assert_eq!(out[1].status, Some(Status::Aborted), "{:?}", out[1]);
        assert!(out.iter().all(|v| v.wrong.is_none()));
        assert_eq!(out[3].status, Some(Status::Invalid));
    }

    #[test]
    fn checked_answers_as_the_reference_where_they_disagree_and_keeps_the_first() {
        let (info, wrong) = Refereed::info(&foreign(false), fastest());
        let mut solver = info.make();
        let easy = Grid::parse(&TEXT.as_bytes()[..81]).unwrap();
        let unsolvable = Grid::parse(&TEXT.as_bytes()[164..245]).unwrap();
        assert_eq!(solver.solve(&unsolvable, &Limits::default()).solutions, 0);
        assert_eq!(*wrong.lock().unwrap(), None, "no solution indeed");
        assert_eq!(solver.solve(&easy, &Limits::default()).solutions, 1);
        let kept = wrong.lock().unwrap().clone().unwrap();
        assert!(
            kept.starts_with(&easy.to_dotted())
                && kept.ends_with(": counted 0 solutions; the reference (fast) counted 1"),
            "{kept}"
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
