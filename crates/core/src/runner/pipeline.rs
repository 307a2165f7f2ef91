//! The pipeline around the solving: the reader thread, which reads and parses chunks ahead;
//! the [`Reporter`], which hands solved chunks to the sink and gives them back to the
//! reader; and the loop of a run, which takes each chunk read, has it solved (see
//! [`super::phases`]) and reported.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use super::phases::Solved;
use super::{RunError, Runner, WorkDone};
use crate::corpus::{Chunk, Corpus, Lines, LoadError, Record};
use crate::interrupt::Stop;
use crate::results::{Batch, Sink};
use crate::strategy::StrategyInfo;

/// Chunks at once: one being read, one waiting, one being solved, one being reported.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Records in the first chunk; each next one is twice as large, up to the chunk size.
const FIRST_CHUNK: usize = 256;

/// A chunk read (with whether it is the last), or why reading failed.
type Read = Result<(Chunk, bool), LoadError>;

/// A channel's two ends.
type Channel<T> = (Sender<T>, Receiver<T>);

/// The chunks between the reader and the sink, and result buffers to reuse.
#[derive(Debug, Default)]
struct InFlight {
    /// A chunk whose last part, from its record `from` on, is solved and not reported yet.
    pending: Option<(Chunk, usize, Solved)>,
    /// A reported chunk on its way back to the reader (see `Runner::solve_next`).
    spare: Option<Chunk>,
    /// Result buffers to solve the next chunk into.
    buffers: Solved,
}

/// Hands solved chunks to the sink, and the chunks reported back to the reader.
pub(super) struct Reporter<'a, S> {
    pub(super) corpus: &'a str,
    pub(super) strategies: Vec<StrategyInfo>,
    pub(super) sink: &'a mut S,
    /// Free chunks for the reader. Its end of the channel closes when the reporter is
    /// dropped, so the reader stops waiting for chunks.
    pub(super) empty: Sender<Chunk>,
    /// Records reported.
    pub(super) records: u64,
    pub(super) progress: Option<Arc<WorkDone>>,
}

impl<S: Sink> Reporter<'_, S> {
    /// Give the records `solved` by every strategy of a `part` to the sink.
    fn report(&mut self, part: &[Record], solved: &Solved) -> Result<(), RunError> {
        let records = &part[..solved.reported];
        self.records += records.len() as u64;
        if let Some(p) = &self.progress {
            p.puzzles.fetch_add(records.len() as u64, Ordering::Relaxed);
        }
        let batch = Batch {
            corpus: self.corpus,
            records,
            strategies: &self.strategies,
            results: &solved.results[..self.strategies.len()],
            walls: &solved.walls,
            preemptions: &solved.preemptions,
        };
        self.sink.batch(&batch).map_err(RunError::Sink)
    }

    /// Report the pending chunk, if any, and give it back to the reader with the spare.
    fn report_pending(&mut self, flight: &mut InFlight) -> Result<(), RunError> {
        if let Some((chunk, from, solved)) = flight.pending.take() {
            self.report(&chunk.records()[from..], &solved)?;
            self.give_back([flight.spare.take(), Some(chunk)]);
            flight.buffers = solved;
        }
        Ok(())
    }

    /// Free chunks go back to the reader before the loop waits for it. It may have
    /// stopped at the end already: then nobody wants them.
    fn give_back(&self, chunks: [Option<Chunk>; 2]) {
        for chunk in chunks.into_iter().flatten() {
            let _ = self.empty.send(chunk);
        }
    }
}

impl Runner<'_> {
    /// The loop of a run: takes each chunk read, solves it, reports it, and gives it back
    /// to the reader. Returns whether the run was stopped.
    pub(super) fn solve_and_report<S: Sink>(
        &mut self,
        full: Receiver<Read>,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<bool, RunError> {
        // With one strategy, a solved chunk is reported while the next one is solved: the
        // cores then never wait for each other between the two, and the reporting runs
        // between solve tasks, never inside a timed solve. With several, each strategy's
        // phase is timed alone, so a chunk is reported before the next is solved.
        let overlap = self.settings.strategies.len() == 1;
        let mut flight = InFlight::default();
        loop {
            let read = match full.try_recv() {
                Ok(read) => Some(read),
                // Nothing to solve meanwhile: report now rather than hold the results
                // back until the next chunk comes.
                Err(TryRecvError::Empty) => {
                    reporter.report_pending(&mut flight)?;
                    full.recv().ok()
                }
                Err(TryRecvError::Disconnected) => None,
            };
            let (chunk, last) = match read {
                Some(Ok((chunk, last))) if !chunk.is_empty() => (chunk, last),
                end => return self.end(end, flight, reporter),
            };
            // The chunk in parts of the size the pace of the last ones sets (see `Pace`):
            // each is reported once solved, so no row waits for a whole chunk of a slow
            // solver. Only its last part may wait, to be reported while the next chunk is
            // solved.
            let n = chunk.records().len();
            let mut from = 0usize;
            loop {
                let to = n.min(from.saturating_add(self.pace.next()));
                let part = (&chunk.records()[from..to], part_bytes(&chunk, from..to));
                let solved = self.solve_next(part, &mut flight, reporter)?;
                // The part's rows would charge the harness's failure to the solver: none is
                // reported, and the run ends here.
                if let Some(why) = self.harness.take() {
                    return Err(RunError::Harness {
                        corpus: reporter.corpus.to_string(),
                        why,
                    });
                }
                let stopping = solved.reported < to - from || self.stop.requested();
                let whole = to == n;
                if whole && overlap && !last && !stopping {
                    flight.pending = Some((chunk, from, solved));
                    break;
                }
                reporter.report(&chunk.records()[from..to], &solved)?;
                if stopping || (whole && last) {
                    return Ok(stopping);
                }
                flight.buffers = solved;
                if whole {
                    reporter.give_back([flight.spare.take(), Some(chunk)]);
                    break;
                }
                from = to;
            }
        }
    }

    /// Solve a `part` of a chunk (its records and their bytes), reporting the pending
    /// chunk, if any, meanwhile.
    fn solve_next<S: Sink>(
        &mut self,
        part: (&[Record], u64),
        flight: &mut InFlight,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<Solved, RunError> {
        let mut solved = std::mem::take(&mut flight.buffers);
        let Some((done, done_from, done_solved)) = flight.pending.take() else {
            self.solve_part(part, &mut solved);
            return Ok(solved);
        };
        let back = flight.spare.take();
        let ((), sunk) = rayon::join(
            || self.solve_part(part, &mut solved),
            || {
                // The chunk reported last time goes back to the reader now, at the start
                // of the solve, while its tasks are there to be taken: the reader's
                // wake-up preempts this worker for the time a chunk takes to read, and
                // the other worker carries on. Sent just after its report, near the end
                // of a solve, or after the join, before the next chunk's work was handed
                // out, it left the other worker with nothing to do.
                reporter.give_back([back, None]);
                reporter.report(&done.records()[done_from..], &done_solved)
            },
        );
        sunk?;
        flight.spare = Some(done);
        flight.buffers = done_solved;
        Ok(solved)
    }

    /// The end, a read error, or the reader stopped (on a stop request): what was solved
    /// is reported first. Returns whether the run was stopped.
    fn end<S: Sink>(
        &self,
        end: Option<Read>,
        mut flight: InFlight,
        reporter: &mut Reporter<'_, S>,
    ) -> Result<bool, RunError> {
        if let Some((chunk, from, solved)) = flight.pending.take() {
            reporter.report(&chunk.records()[from..], &solved)?;
        }
        // Lines after the last entry (comments, blanks) are read too.
        if let (Some(Ok((chunk, _))), Some(p)) = (&end, &self.progress) {
            for bytes in &p.bytes {
                bytes.fetch_add(chunk.bytes(), Ordering::Relaxed);
            }
        }
        match end {
            Some(Err(error)) => Err(error.into()),
            Some(Ok(_)) => Ok(false),
            None => Ok(self.stop.requested()),
        }
    }
}

/// The bytes of input behind the records `range` of `chunk`: its share of the chunk's
/// bytes, such that the shares of parts that cover the chunk add up to them exactly.
fn part_bytes(chunk: &Chunk, range: std::ops::Range<usize>) -> u64 {
    let n = chunk.records().len().max(1) as u128;
    let upto = |i: usize| (chunk.bytes() as u128 * i as u128 / n) as u64;
    upto(range.end) - upto(range.start)
}

/// How many records the next part of a chunk holds: as many as the last part's pace
/// solves in `Settings::part_ns`, so that a slow solver's rows are reported within about
/// that time of being solved, at least one per worker, and at most twice as many as the
/// last part was given, so that a pace measured on a few records, or on the warm-up's
/// node-capped searches, does not make a part that takes many times as long. A fast
/// solver's parts soon hold whole chunks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pace {
    /// The time a part should take; 0: no parts, whole chunks.
    target_ns: u64,
    /// The fewest records in a part: one per worker.
    least: usize,
    /// The records of the next part.
    next: usize,
}

impl Pace {
    /// Before anything was solved, on `workers` workers: one record each.
    pub(super) fn new(target_ns: u64, workers: usize) -> Pace {
        let least = workers.max(1);
        Pace {
            target_ns,
            least,
            next: if target_ns == 0 { usize::MAX } else { least },
        }
    }

    /// The records of the next part.
    pub(super) fn next(&self) -> usize {
        self.next
    }

    /// Every strategy solved `records` records in `ns`.
    pub(super) fn solved(&mut self, records: usize, ns: u64) {
        if self.target_ns == 0 || records == 0 {
            return;
        }
        let at_pace = records as u128 * self.target_ns as u128 / ns.max(1) as u128;
        let at_pace = usize::try_from(at_pace).unwrap_or(usize::MAX);
        let grown = self.next.max(records).saturating_mul(2);
        self.next = at_pace.min(grown).max(self.least);
    }
}

/// The channels of the chunks: chunks read go from the reader to the loop (`full`), and free
/// chunks back to the reader (`empty`), which holds `CHUNKS_IN_FLIGHT` of them to begin with.
///
/// Unbounded, so that sending a chunk never blocks the reader: a blocked send only
/// completes once the reader is woken and runs again, which, with every core busy
/// solving, can be a millisecond or more later, and the workers would wait for the
/// chunk the reader holds. Memory stays bounded: only `CHUNKS_IN_FLIGHT` chunks
/// exist.
pub(super) fn channels() -> (Channel<Read>, Channel<Chunk>) {
    let (full_tx, full_rx) = channel::<Read>();
    let (empty_tx, empty_rx) = channel::<Chunk>();
    for _ in 0..CHUNKS_IN_FLIGHT {
        empty_tx
            .send(Chunk::new(Lines::Entries))
            .expect("the receiver is alive");
    }
    ((full_tx, full_rx), (empty_tx, empty_rx))
}

/// The reader thread: reads chunks from `corpus` as `empty` gives them, into `full`, until
/// the end, a read error, a stop, or the loop hanging up. Returns how many records it read.
pub(super) fn spawn_reader<'scope>(
    scope: &'scope Scope<'scope, '_>,
    corpus: &'scope mut Corpus,
    size: usize,
    stop: Stop,
    empty: Receiver<Chunk>,
    full: Sender<Read>,
) -> Result<ScopedJoinHandle<'scope, u64>, RunError> {
    let name = corpus.name().to_string();
    std::thread::Builder::new()
        .name("reader".into())
        .spawn_scoped(scope, move || {
            corpus.stop_on(stop.cell());
            // The first chunks are small, so the workers start at once rather than after
            // a whole chunk has been read.
            let mut next_size = size.min(FIRST_CHUNK);
            let mut records = 0u64;
            for mut chunk in empty {
                if stop.requested() {
                    return records;
                }
                let read = corpus.read_chunk(&mut chunk, next_size);
                records += chunk.records().len() as u64;
                let bytes = corpus.bytes_read();
                let left = corpus.size().map(|size| size.saturating_sub(bytes));
                next_size = next_chunk_size(next_size, size, left, bytes / records.max(1));
                // A full chunk comes with whether it is the last, so that the run ends
                // with it rather than when the reader, woken once more, finds nothing.
                let last = match read {
                    Ok(n) => n == 0 || corpus.at_end(),
                    // Not a read error: the loop, finding no more chunks, ends as stopped.
                    Err(LoadError::Stopped { .. }) => return records,
                    Err(_) => true,
                };
                if full.send(read.map(|_| (chunk, last))).is_err() || last {
                    return records;
                }
            }
            records
        })
        .map_err(|source| RunError::Load(LoadError::Thread { name, source }))
}

/// Records to read into the next chunk, after one of `last`: twice as many, up to `max`.
/// When the bytes `left` to read are known, at most half the records they seem to hold
/// (at `per_record` bytes each), though not fewer than `FIRST_CHUNK`: the last chunks
/// shrink, so that the run ends soon after its last solve rather than with a whole chunk
/// still to report and write while one core waits.
fn next_chunk_size(last: usize, max: usize, left: Option<u64>, per_record: u64) -> usize {
    let doubled = last.saturating_mul(2).min(max);
    match left {
        Some(left) if per_record > 0 => {
            let half_left = usize::try_from(left / per_record / 2).unwrap_or(usize::MAX);
            doubled.min(half_left.max(FIRST_CHUNK.min(max)))
        }
        _ => doubled,
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    use super::*;
    use crate::clock::{Cost, MockClock};
    use crate::corpus::tests::FailsAfter;
    use crate::results::Status;
    use crate::runner::testutil::{corpus, mixed, run, run_with, settings, EASY, TWO};
    use crate::runner::{Ended, Settings};
    use crate::summary::Summary;

    /// Run `fast` over `input` in chunks of `chunk_size` on `threads` threads, calling
    /// `after` after each batch: the lines of the records reported, and how it ended.
    fn lines_reported(
        input: impl std::io::BufRead + Send + 'static,
        chunk_size: usize,
        threads: usize,
        mut after: impl FnMut() + Send,
    ) -> (Vec<u64>, Result<Ended, RunError>) {
        let mut corpus = Corpus::from_reader("t", Box::new(input), None, None);
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(settings(&["fast"], chunk_size, 1), threads, &clock).unwrap();
        let mut summary = Summary::default();
        let mut lines = Vec::new();
        let result = run_with(
            &mut runner,
            &mut corpus,
            &mut summary,
            |b| -> io::Result<()> {
                lines.extend(b.records.iter().map(|r| r.line));
                after();
                Ok(())
            },
        );
        (lines, result)
    }

    #[test]
    fn one_strategy_reports_each_chunk_with_its_own_results() {
        // With one strategy a chunk is reported while the next is solved, from a second
        // set of result buffers: every row must still be its own line's result.
        let text = mixed(403);
        let clock = MockClock::new(5, 1, 1);
        for (chunk_size, threads) in [(1, 1), (7, 2), (64, 2), (2048, 2)] {
            let (rows, summary) = run(
                &text,
                settings(&["bitmask"], chunk_size, 1),
                threads,
                &clock,
            );
            let lines: Vec<&str> = text.lines().collect();
            let entries = lines.iter().filter(|l| !l.starts_with('#')).count();
            assert_eq!(rows.len(), entries, "chunks of {chunk_size}");
            for (line, _, status, _, _) in &rows {
                let expected = match lines[*line as usize - 1] {
                    l if l == EASY => Status::Unique,
                    l if l == TWO => Status::Multiple,
                    _ => Status::Malformed,
                };
                assert_eq!(*status, expected, "line {line}, chunks of {chunk_size}");
            }
            let r = &summary.rows()[0];
            assert_eq!(r.puzzles as usize, entries);
            assert_eq!(
                r.unique as usize,
                rows.iter().filter(|r| r.2 == Status::Unique).count()
            );
        }
    }

    #[test]
    fn chunks_double_then_shrink_towards_the_end() {
        // Unknown size (stdin): doubling up to the chunk size.
        assert_eq!(next_chunk_size(256, 2048, None, 82), 512);
        assert_eq!(next_chunk_size(2048, 2048, None, 82), 2048);
        // Far from the end: as without a size.
        assert_eq!(next_chunk_size(1024, 2048, Some(4_000_000), 82), 2048);
        // Near it: half of what is left, down to the first chunk's size.
        assert_eq!(next_chunk_size(2048, 2048, Some(82 * 1000), 82), 500);
        assert_eq!(next_chunk_size(500, 2048, Some(82 * 100), 82), 256);
        assert_eq!(next_chunk_size(256, 2048, Some(0), 82), 256);
        // Never above the chunk size, nor below 1.
        assert_eq!(next_chunk_size(1, 1, Some(0), 82), 1);
        assert_eq!(next_chunk_size(8, 100, Some(82 * 1000), 82), 16);
    }

    #[test]
    fn a_chunk_is_reported_without_waiting_for_the_next() {
        // Input that stops after two lines until the sink has seen the first: the run
        // must report what it solved while the reader waits, not hold it back.
        struct Gated {
            lines: Vec<Vec<u8>>,
            served: usize,
            gate: std::sync::mpsc::Receiver<()>,
        }
        impl std::io::Read for Gated {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.served == 2 && self.gate.recv_timeout(Duration::from_secs(5)).is_err() {
                    self.lines.clear();
                    return Err(std::io::Error::other("line 1 was never reported"));
                }
                let Some(line) = self.lines.get(self.served) else {
                    return Ok(0);
                };
                buf[..line.len()].copy_from_slice(line);
                self.served += 1;
                Ok(line.len())
            }
        }
        let (open, gate) = channel();
        let input = Gated {
            lines: vec![format!("{EASY}\n").into_bytes(); 3],
            served: 0,
            gate,
        };
        let reader = std::io::BufReader::with_capacity(256, input);
        let (lines, result) = lines_reported(reader, 1, 2, || {
            let _ = open.send(());
        });
        result.unwrap();
        assert_eq!(lines, [1, 2, 3]);
    }

    /// A clock by which every solve takes `solve_ns`, and nothing else takes any time.
    struct Slow {
        now: std::sync::atomic::AtomicU64,
        solve_ns: u64,
    }

    impl crate::clock::Clock for Slow {
        fn time(&self, solve: &mut dyn FnMut() -> crate::Outcome) -> (crate::Outcome, Cost) {
            self.now.fetch_add(self.solve_ns, Ordering::Relaxed);
            (solve(), Cost::of_ns(self.solve_ns))
        }
        fn now_ns(&self) -> u64 {
            self.now.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn a_slow_solvers_chunk_is_reported_in_parts_of_about_the_target_time() {
        // 10 ms a solve, parts of 100 ms: a chunk of 256 records (the first) would hold
        // its first row for 2.5 s; parts start at one record a worker, double, and stop
        // growing at the pace's 10 records.
        let text = format!("{EASY}\n").repeat(300);
        let clock = Slow {
            now: Default::default(),
            solve_ns: 10_000_000,
        };
        let s = Settings {
            part_ns: 100_000_000,
            warmup: false,
            reference: None,
            ..settings(&["fast"], 2048, 1)
        };
        let mut runner = Runner::new(s, 1, &clock).unwrap();
        let mut summary = Summary::default();
        let (mut sizes, mut lines) = (Vec::new(), Vec::new());
        run_with(&mut runner, &mut corpus(&text), &mut summary, |b| {
            sizes.push(b.records.len());
            lines.extend(b.records.iter().map(|r| r.line));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            lines,
            (1..=300).collect::<Vec<u64>>(),
            "each line once, in order"
        );
        assert_eq!(sizes[..5], [1, 2, 4, 8, 10], "{sizes:?}");
        assert!(sizes.iter().all(|&n| n <= 10), "{sizes:?}");
        // Each part's wall time goes with its rows: the sum is the run's.
        assert_eq!(summary.rows()[0].wall_ns, 300 * 10_000_000);
    }

    #[test]
    fn parts_grow_to_the_pace_at_most_twice_at_a_time_and_never_below_one_a_worker() {
        let mut pace = Pace::new(1_000, 4);
        assert_eq!(pace.next(), 4, "one record a worker, before any pace");
        pace.solved(4, 1);
        assert_eq!(pace.next(), 8, "fast: twice as many");
        pace.solved(3, 1);
        assert_eq!(
            pace.next(),
            16,
            "a short end of a chunk: twice what was given"
        );
        pace.solved(16, 400);
        assert_eq!(
            pace.next(),
            32,
            "at 40 records to the target, twice the last"
        );
        pace.solved(32, 800);
        assert_eq!(pace.next(), 40, "at the pace");
        pace.solved(40, 10_000);
        assert_eq!(pace.next(), 4, "slower than one a worker: one a worker");
        pace.solved(4, 0);
        assert_eq!(pace.next(), 8, "no time at all");
        let mut whole = Pace::new(0, 4);
        whole.solved(4, u64::MAX);
        assert_eq!(whole.next(), usize::MAX, "no target: whole chunks");
    }

    #[test]
    fn a_sink_error_stops_the_run_and_the_reader() {
        let clock = MockClock::new(1, 0, 1);
        let mut runner = Runner::new(settings(&["fast"], 2, 1), 2, &clock).unwrap();
        let mut summary = Summary::default();
        let mut batches = 0;
        // Many chunks: the reader is ahead, blocked on a full queue, when the sink fails.
        let result = run_with(&mut runner, &mut corpus(&mixed(400)), &mut summary, |_| {
            batches += 1;
            Err(io::Error::other("disk full"))
        });
        assert!(matches!(&result, Err(RunError::Sink(e)) if e.to_string() == "disk full"));
        assert_eq!(batches, 1);
    }

    #[test]
    fn a_read_error_comes_after_the_chunks_read_before_it() {
        let text = format!("{EASY}\n{TWO}\n{EASY}\n");
        let input = FailsAfter {
            good: std::io::Cursor::new(text.into_bytes()),
            why: "gone",
        };
        let reader = std::io::BufReader::with_capacity(32, input);
        let (lines, result) = lines_reported(reader, 2, 1, || {});
        assert_eq!(lines, [1, 2, 3]);
        match result {
            Err(RunError::Load(e)) => assert_eq!(
                format!("{:#}", anyhow::Error::from(e)),
                "t: read error after line 3: gone"
            ),
            other => panic!("expected a read error, got {other:?}"),
        }
    }
}
