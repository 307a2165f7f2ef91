//! A `cmd:` copy's instructions per request, when the run counts them (`run --measure
//! instructions`).
//!
//! The copy runs under a callgrind of its own that dumps each time the program enters the
//! C library's `read` ([`sudoku_bench_core::valgrind::command_prefix`]). Between two requests the copy
//! is blocked reading its stdin, and the last dump before that block ends what it did for
//! the request it just answered: from the return of the read that brought the request to
//! the call of the next one (reading the line, solving, writing the answer). So, after an
//! answer, [`Counter::take`] waits until the copy is blocked in `read(0, ...)` (as
//! `/proc/PID/syscall` says), then sums every dump written since the last take (a solver
//! that reads a file mid-solve dumps more than once) and removes them. Before a counted
//! request, whatever was dumped since (start-up, the first request, the check that ends a
//! batch) is taken and dropped.
//!
//! A program whose reads of stdin do not go through the C library's `read` (Go, a static
//! binary without symbols) never dumps: its requests are left uncounted, which the run
//! says. Only the process that speaks the protocol is counted, not processes it starts.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a copy that answered is given to be reading its stdin again: it may do work
/// after answering, slowly under Valgrind.
const SETTLE: Duration = Duration::from_secs(10);

/// How often `/proc/PID/syscall` is read while waiting.
const POLL: Duration = Duration::from_micros(50);

/// Where one copy's dumps are, and how to tell that it waits for a request.
pub(super) struct Counter {
    dir: PathBuf,
    prefix: String,
    syscall: PathBuf,
    /// `/proc/PID/syscall`'s opening when the process is blocked in `read(0, ...)`.
    reading: String,
    /// Set once it was not seen waiting within [`SETTLE`] (it waits for its stdin some
    /// other way, `poll` or `epoll`): not waited for again, its requests uncounted.
    given_up: bool,
}

impl Counter {
    /// The counter of the copy whose solver is process `pid`, when this process counts.
    pub(super) fn of(pid: u32) -> Option<Counter> {
        if !sudoku_bench_core::valgrind::counting() {
            return None;
        }
        let (dir, prefix) = sudoku_bench_core::valgrind::command_dump_prefix(pid)?;
        Some(Counter::at(
            dir,
            prefix,
            PathBuf::from(format!("/proc/{pid}/syscall")),
        ))
    }

    /// The counter of the dumps named `prefix`N in `dir`, of the process whose state
    /// `syscall` gives.
    fn at(dir: PathBuf, prefix: String, syscall: PathBuf) -> Counter {
        Counter {
            dir,
            prefix,
            syscall,
            reading: format!("{} 0x0 ", libc::SYS_read),
            given_up: false,
        }
    }

    /// Drop what the copy executed since the last take.
    pub(super) fn skip(&mut self) {
        let _ = self.take();
    }

    /// The instructions the copy executed since the last take, once it waits for its next
    /// request; `None` when it did not come back to reading its stdin within [`SETTLE`]
    /// or dumped nothing.
    pub(super) fn take(&mut self) -> Option<u64> {
        // Given up on, its callgrind still dumps at each read: removed all the same, or a
        // long run would fill the temporary directory.
        let waiting = !self.given_up && self.settle();
        self.given_up = !waiting;
        let mut dumps = Vec::new();
        for entry in std::fs::read_dir(&self.dir).ok()?.flatten() {
            let name = entry.file_name();
            let numbered = (name.to_string_lossy().strip_prefix(&self.prefix))
                .is_some_and(|n| n.parse::<u64>().is_ok());
            if numbered {
                dumps.push(entry.path());
            }
        }
        // Every dump is removed, read or not: none may count for the next request.
        let mut sum = Some(0u64);
        for path in &dumps {
            let counted = std::fs::read(path)
                .ok()
                .and_then(|text| sudoku_bench_core::valgrind::dump_totals(&text));
            let _ = std::fs::remove_file(path);
            sum = sum.zip(counted).map(|(s, n)| s.saturating_add(n));
        }
        sum.filter(|_| waiting && !dumps.is_empty())
    }

    /// Wait until the copy is blocked reading its stdin; `false` past [`SETTLE`].
    fn settle(&self) -> bool {
        let deadline = Instant::now() + SETTLE;
        loop {
            match std::fs::read_to_string(&self.syscall) {
                Ok(state) if state.starts_with(&self.reading) => return true,
                Ok(_) if Instant::now() < deadline => std::thread::sleep(POLL),
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_given_up_on_still_has_its_dumps_removed() {
        let dir = tempfile::tempdir().unwrap();
        let dump = |n: u32| dir.path().join(format!("cmd.7.{n}"));
        let write = |n: u32| std::fs::write(dump(n), "events: Ir\ntotals: 5\n").unwrap();
        // No such process: its state cannot be read, as when /proc refuses.
        let syscall = dir.path().join("no-such-syscall");
        let mut counter = Counter::at(dir.path().to_path_buf(), "cmd.7.".into(), syscall);
        write(1);
        assert_eq!(counter.take(), None);
        assert!(counter.given_up);
        assert!(!dump(1).exists());
        // Later dumps go too, though no count is taken any more.
        write(2);
        write(3);
        assert_eq!(counter.take(), None);
        assert!(!dump(2).exists() && !dump(3).exists());
    }
}
