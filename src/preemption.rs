//! Involuntary context switches of the calling thread: how often the scheduler took the
//! core away from it while it could have run (a busy neighbour, more threads than cores).
//! Each one a worker suffers inside a timed solve lands, a time slice long, in that
//! puzzle's time; the summary counts them so that it can say when its numbers carry them.
//!
//! A worker reads its count once per task, at the task's end (`since_last_read`): the
//! read costs about half a microsecond, a task of easy puzzles a few tens, so reading
//! before and after every task would cost twice as much wall time for little more
//! precision (what a worker suffers between two of its tasks is counted with the next).

use std::cell::Cell;

thread_local! {
    /// The calling thread's count at its previous [`since_last_read`].
    static LAST: Cell<u64> = const { Cell::new(0) };
}

/// Whether this system counts involuntary switches per thread (Linux's `RUSAGE_THREAD`).
pub(crate) const COUNTED: bool = cfg!(target_os = "linux");

/// The calling thread's involuntary context switches since it started; 0 where they are
/// not counted (see [`COUNTED`]).
pub(crate) fn involuntary_switches() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `usage` is a valid, writable `rusage`; getrusage only writes into it.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) };
        if rc != 0 {
            return 0;
        }
        // SAFETY: zero-initialised, then filled by a successful getrusage.
        let usage = unsafe { usage.assume_init() };
        u64::try_from(usage.ru_nivcsw).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The calling thread's involuntary context switches since its previous call (since it
/// started, on its first); 0 where they are not counted.
pub(crate) fn since_last_read() -> u64 {
    let now = involuntary_switches();
    LAST.with(|last| now.saturating_sub(last.replace(now)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_real_and_never_decreases() {
        let first = involuntary_switches();
        // Work long enough to be preempted on a busy machine; the count may stay put.
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let second = involuntary_switches();
        assert!(second >= first, "{first} then {second}");
        #[cfg(target_os = "linux")]
        {
            // The same figure the kernel shows for this thread.
            let status = std::fs::read_to_string("/proc/thread-self/status")
                .expect("Linux has /proc/thread-self");
            let shown: u64 = status
                .lines()
                .find_map(|l| l.strip_prefix("nonvoluntary_ctxt_switches:"))
                .expect("the status names the count")
                .trim()
                .parse()
                .unwrap();
            let third = involuntary_switches();
            assert!(
                (second..=third).contains(&shown),
                "/proc says {shown}, getrusage {second}..{third}"
            );
        }
    }

    /// Two threads spinning on one core: the scheduler must take it from each in turn.
    #[cfg(target_os = "linux")]
    #[test]
    fn sharing_a_core_with_a_spinning_thread_is_counted() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};

        // SAFETY: cpu_set_t is plain data; both calls only read or write the set given.
        let pin = |cpu: usize| unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        };
        // SAFETY: as above.
        let cpu = unsafe { libc::sched_getcpu() };
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let measured = scope.spawn(|| {
                if cpu < 0 || !pin(cpu as usize) {
                    return None;
                }
                let before = involuntary_switches();
                let start = Instant::now();
                while start.elapsed() < Duration::from_millis(300) {
                    std::hint::spin_loop();
                }
                Some(involuntary_switches() - before)
            });
            scope.spawn(|| {
                if cpu >= 0 && pin(cpu as usize) {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                }
            });
            let switches = measured.join().unwrap();
            stop.store(true, Ordering::Relaxed);
            match switches {
                Some(n) => assert!(n > 0, "300 ms on a shared core, never preempted"),
                None => eprintln!("skipped: cannot pin threads to one core here"),
            }
        });
    }

    #[test]
    fn reads_since_the_last_add_up_to_the_count() {
        // A thread of its own, so the first read counts from the thread's start.
        std::thread::spawn(|| {
            let mut sum = since_last_read();
            for _ in 0..1000 {
                std::thread::yield_now();
                sum += since_last_read();
            }
            // The reads telescope: their sum is the count at the last one.
            assert_eq!(sum, LAST.with(Cell::get));
            assert!(sum <= involuntary_switches());
        })
        .join()
        .unwrap();
    }
}
