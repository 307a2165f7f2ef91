//! `Stop`: a shared "stop requested" flag that long loops poll between pieces of work,
//! so that a run asked to stop (the binary sets it from SIGINT or SIGTERM) ends with
//! everything it finished written whole. Polling it is one relaxed atomic load: cheap
//! enough between solve tasks, and never done inside a timed solve.
//!
//! Also counts what a stopped run did not reach, when that can be known quickly.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::corpus::{Chunk, Corpus, Lines};

/// Cloned freely: every clone is the same flag.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicUsize>);

impl Stop {
    /// The flag's cell, for a signal handler to store a non-zero cause in (e.g. the
    /// signal's number): handlers can only store, not call back into the program.
    pub fn cell(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.0)
    }

    /// Ask every holder to stop, for `cause` (non-zero).
    pub fn request(&self, cause: usize) {
        debug_assert!(cause != 0, "0 means no stop requested");
        self.0.store(cause, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    /// Why a stop was requested, if it was.
    pub fn cause(&self) -> Option<usize> {
        Some(self.0.load(Ordering::Relaxed)).filter(|&c| c != 0)
    }
}

/// Longest time spent counting what a stopped run left unread: past it the count is
/// given up as unknown, rather than keep a user who asked to stop waiting.
const COUNT_BUDGET: Duration = Duration::from_secs(1);

/// Where a stopped command stopped: the index of the corpus it was reading, and how many
/// of that corpus's entries it had read but not finished.
pub type StoppedAt = (usize, u64);

/// Entries a stopped command did not reach: those it read but did not finish, and those
/// left unread from the corpus it stopped in on (`None` when that is not cheap to know,
/// see `entries_left`). With no `stopped`, it stopped between corpora: nothing was left.
pub fn not_reached(corpora: &mut [Corpus], stopped: Option<StoppedAt>) -> Option<u64> {
    let Some((index, unfinished)) = stopped else {
        return Some(0);
    };
    let deadline = Instant::now() + COUNT_BUDGET;
    corpora[index..]
        .iter_mut()
        .map(|corpus| entries_left(corpus, deadline))
        .sum::<Option<u64>>()
        .map(|left| left + unfinished)
}

/// Entries (puzzle lines, valid or not) left to read in `corpus`, read and classified
/// by the loader but not solved. `None` when that is not cheap or not possible: input
/// of unknown size (stdin, a pipe), a read error, or not done by `deadline`.
fn entries_left(corpus: &mut Corpus, deadline: Instant) -> Option<u64> {
    corpus.size()?;
    let mut chunk = Chunk::new(Lines::Entries);
    let mut entries = 0u64;
    loop {
        match corpus.read_chunk(&mut chunk, 4096) {
            Ok(0) => return Some(entries),
            Ok(n) => entries += n as u64,
            Err(_) => return None,
        }
        if Instant::now() > deadline {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EASY: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn corpus(text: String, sized: bool) -> Corpus {
        let size = sized.then_some(text.len() as u64);
        Corpus::from_reader("t", Box::new(std::io::Cursor::new(text)), size, None)
    }

    #[test]
    fn a_stop_is_seen_by_every_clone_with_its_cause() {
        let stop = Stop::default();
        let other = stop.clone();
        assert!(!other.requested());
        assert_eq!(other.cause(), None);
        stop.cell().store(15, Ordering::Relaxed);
        assert!(other.requested());
        assert_eq!(other.cause(), Some(15));
    }

    #[test]
    fn entries_left_counts_entries_not_comments_and_only_when_cheap() {
        let text = format!("# c\n{EASY}\n\n{EASY}\nbad\n");
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(entries_left(&mut corpus(text.clone(), true), far), Some(3));
        // After some was read: only the rest.
        let mut c = corpus(text.clone(), true);
        c.read_chunk(&mut Chunk::new(Lines::Entries), 1).unwrap();
        assert_eq!(entries_left(&mut c, far), Some(2));
        // A stream: unknown.
        assert_eq!(entries_left(&mut corpus(text.clone(), false), far), None);
        // Out of time: unknown, not a partial count.
        let past = Instant::now() - Duration::from_millis(1);
        assert_eq!(entries_left(&mut corpus(text, true), past), None);
    }

    #[test]
    fn a_stopped_part_counts_only_its_own_lines_as_not_reached() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{EASY}\n").repeat(40);
        let plain = dir.path().join("c.txt");
        std::fs::write(&plain, &text).unwrap();
        let gzipped = dir.path().join("c.txt.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        std::fs::write(&gzipped, gz.finish().unwrap()).unwrap();
        for path in [plain, gzipped] {
            let mut part =
                Corpus::open_part(&path, None, crate::corpus::Shard::new(2, 4).unwrap()).unwrap();
            part.read_chunk(&mut Chunk::new(Lines::Entries), 3).unwrap();
            let left = not_reached(&mut [part], Some((0, 0)));
            assert_eq!(left, Some(7), "{}", path.display());
        }
    }
}
