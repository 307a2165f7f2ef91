//! Whether other work on the machine held a worker off its core while it solved, for long
//! enough that the puzzles' times carry it: a busy neighbour, more threads than cores.
//!
//! A solve never waits of its own accord, so the wall time of a stretch of solves less the
//! CPU time the thread got in it (`CLOCK_THREAD_CPUTIME_ID`) is time the thread was held
//! off its core: by other work running there, or by the host of a virtual machine. Most
//! of that is brief and harmless (a hardware interrupt, a kernel thread, sudoku-bench's
//! own reader or progress bar waking for microseconds), and a count of the involuntary
//! context switches alone cannot tell it from a time slice of a neighbour: a solve of
//! tens of milliseconds is switched out several times on an idle machine and loses
//! almost nothing. So a stretch counts as disturbed by the time it lost, against its own
//! length (see `held_off`).
//!
//! Reading the thread's CPU time costs about half a microsecond, a task of easy puzzles a
//! few tens: a stretch shorter than the least time that counts cannot have lost it, so it
//! is not read, and its time is added to the next stretch that is (see `Stretch`).

use std::cell::Cell;
use std::time::Instant;

/// Whether this system can tell (Linux's per-thread CPU clock, read precisely).
pub(crate) const COUNTED: bool = cfg!(target_os = "linux");

/// Held off its core for less than this, a worker was interrupted rather than made to
/// wait for other work: well below a time slice (a millisecond or more), well above what
/// reading the clocks costs.
pub(crate) const FLOOR_NS: u64 = 50_000;

/// A stretch that lost more than one part in this many of its time carries the other
/// work measurably (and, at `FLOOR_NS` or more, it is other work's time slices).
const SHARE_DIVISOR: u64 = 10;

/// A worker that spent longer than this between two stretches (waiting for work,
/// reporting a batch) starts a new span, its CPU time read again: else the CPU time it
/// used in between would hide what the next stretch lost.
const GAP_NS: u64 = 10_000;

/// Whether a stretch of `wall_ns` of solving, of which the thread was held off its core
/// for `off_ns`, carries other work: at least `FLOOR_NS` of it, and more than a tenth of
/// the stretch.
pub(crate) fn held_off(wall_ns: u64, off_ns: u64) -> bool {
    off_ns >= FLOOR_NS && off_ns.saturating_mul(SHARE_DIVISOR) > wall_ns
}

/// The calling thread's stretches since its CPU time was last read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    /// The thread's CPU time when the span began.
    cpu_ns: u64,
    /// The wall time of its stretches so far.
    wall_ns: u64,
    /// When its last stretch ended.
    last_end: Instant,
}

impl Span {
    /// The span of a stretch that starts at `now`, after `last` (the thread's span, if
    /// any): `last` goes on when its last stretch ended just before, else a new one begins
    /// at the thread's CPU time, `cpu` (`None`: unknown, so nothing is judged).
    fn at_start(
        last: Option<Span>,
        now: Instant,
        cpu: impl FnOnce() -> Option<u64>,
    ) -> Option<Span> {
        let gap = |s: &Span| now.saturating_duration_since(s.last_end).as_nanos();
        match last {
            Some(span) if gap(&span) <= u128::from(GAP_NS) => Some(span),
            _ => cpu().map(|cpu_ns| Span {
                cpu_ns,
                wall_ns: 0,
                last_end: now,
            }),
        }
    }

    /// The span after one of its stretches, `wall_ns` long, ended at `end`, and the time
    /// the stretches since its CPU time was read were held off their core, when that is
    /// other work's (see [`held_off`]). A stretch shorter than `FLOOR_NS` cannot have lost
    /// that much: its time goes into the next one, and the thread's CPU time (`cpu`) is
    /// read only after a longer one.
    fn at_end(
        mut self,
        wall_ns: u64,
        end: Instant,
        cpu: impl FnOnce() -> Option<u64>,
    ) -> (Option<Span>, Option<u64>) {
        self.wall_ns = self.wall_ns.saturating_add(wall_ns);
        self.last_end = end;
        if wall_ns < FLOOR_NS {
            return (Some(self), None);
        }
        let Some(cpu_ns) = cpu() else {
            return (None, None);
        };
        let off = self
            .wall_ns
            .saturating_sub(cpu_ns.saturating_sub(self.cpu_ns));
        let next = Span {
            cpu_ns,
            wall_ns: 0,
            last_end: end,
        };
        (Some(next), held_off(self.wall_ns, off).then_some(off))
    }
}

thread_local! {
    static SPAN: Cell<Option<Span>> = const { Cell::new(None) };
}

/// A stretch of solves on the calling thread, from [`Stretch::start`] to
/// [`Stretch::disturbed`], with no waiting of its own in it.
#[derive(Debug)]
pub(crate) struct Stretch(Instant);

impl Stretch {
    pub(crate) fn start() -> Stretch {
        let now = Instant::now();
        if COUNTED {
            SPAN.with(|span| span.set(Span::at_start(span.get(), now, thread_cpu_ns)));
        }
        Stretch(now)
    }

    /// How long other work held the thread off its core, when long enough for the
    /// stretch's times to carry it (see [`held_off`]); always `None` where that cannot be
    /// told.
    pub(crate) fn held_off(self) -> Option<u64> {
        if !COUNTED {
            return None;
        }
        let end = Instant::now();
        let wall = u64::try_from(end.duration_since(self.0).as_nanos()).unwrap_or(u64::MAX);
        SPAN.with(|cell| {
            let span = cell.get()?;
            let (next, off) = span.at_end(wall, end, thread_cpu_ns);
            cell.set(next);
            off
        })
    }
}

/// How many of a stretch's puzzles, solved in `times` (nanoseconds each), hold the
/// `off_ns` it was held off its core: the fewest whose times add up to it, the slowest
/// first (all of them when they do not). A brief interruption lands in one solve; a
/// neighbour's share of the core, in about as many as it took.
pub(crate) fn puzzles_holding(off_ns: u64, times: &mut [u64]) -> u64 {
    times.sort_unstable_by(|a, b| b.cmp(a));
    let mut held = 0u64;
    for (k, &time) in times.iter().enumerate() {
        held = held.saturating_add(time);
        if held >= off_ns {
            return k as u64 + 1;
        }
    }
    times.len() as u64
}

/// The calling thread's CPU time, in nanoseconds; `None` where it is not read (see
/// [`COUNTED`]).
fn thread_cpu_ns() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec; clock_gettime only writes into it.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
            return None;
        }
        let secs = u64::try_from(now.tv_sec).ok()?;
        let nanos = u64::try_from(now.tv_nsec).ok()?;
        Some(secs.saturating_mul(1_000_000_000).saturating_add(nanos))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_stretch_is_disturbed_by_time_lost_against_its_length_not_by_switches() {
        const MS: u64 = 1_000_000;
        // A naive solve of 64 ms switched out a few times for microseconds on an idle
        // machine: 1 ms lost in all is nothing its time carries.
        assert!(!held_off(64 * MS, MS));
        // Sharing the core with a spinning neighbour: half of it.
        assert!(held_off(64 * MS, 32 * MS));
        // A task of easy puzzles (200 us) that lost a time slice.
        assert!(held_off(3 * MS + 200_000, 3 * MS));
        // Interrupted for 30 us in 100 us: brief, not other work's slice.
        assert!(!held_off(100_000, 30_000));
        // 60 us of 100 us: too much to be an interrupt.
        assert!(held_off(100_000, 60_000));
        // Just a tenth, or just under the floor: not yet.
        assert!(!held_off(10 * MS, MS));
        assert!(!held_off(FLOOR_NS + 1, FLOOR_NS - 1));
    }

    #[test]
    fn the_time_held_off_is_put_in_the_fewest_puzzles_that_can_hold_it() {
        // 200 us lost among 4 solves: it fits in the slowest one.
        assert_eq!(
            puzzles_holding(200_000, &mut [20_000, 300_000, 10_000, 250_000]),
            1
        );
        // A neighbour's 30 ms among solves of 10 ms: three of them at least.
        assert_eq!(puzzles_holding(30_000_000, &mut [10_000_000; 8]), 3);
        // More than all of them took (some was between solves): all of them.
        assert_eq!(puzzles_holding(1_000_000, &mut [100_000; 8]), 8);
        assert_eq!(puzzles_holding(1_000_000, &mut []), 0);
    }

    /// A span begun at `at`, the thread's CPU time then `cpu`.
    fn span(at: Instant, cpu: u64) -> Span {
        Span::at_start(None, at, || Some(cpu)).unwrap()
    }

    #[test]
    fn short_stretches_are_judged_with_the_next_long_one_and_a_gap_starts_afresh() {
        let t0 = Instant::now();
        let at = |us: u64| t0 + Duration::from_micros(us);
        let never = || -> Option<u64> { panic!("the CPU time read for a short stretch") };
        // Three tasks of 20 us, back to back, all on the core: not read, not disturbed.
        let mut s = span(at(0), 1_000);
        for k in 1..=3 {
            let (next, off) = s.at_end(20_000, at(20 * k), never);
            assert_eq!(off, None);
            s = Span::at_start(next, at(20 * k), never).unwrap();
        }
        // A fourth that took 3 ms, of which the thread ran 80 us: it lost a slice, and the
        // span (3.06 ms, 140 us of CPU) is judged disturbed.
        let (next, off) = s.at_end(3_000_000, at(3_060), || Some(1_000 + 140_000));
        assert_eq!(off, Some(3_060_000 - 140_000));
        let next = next.unwrap();
        assert_eq!((next.cpu_ns, next.wall_ns), (141_000, 0));
        // A long task that ran throughout right after: not disturbed.
        let s = Span::at_start(Some(next), at(3_061), never).unwrap();
        let (next, off) = s.at_end(1_000_000, at(4_061), || Some(141_000 + 999_000));
        assert_eq!(off, None);
        // Waiting for work between two tasks (1 ms asleep) is no stretch's: the span starts
        // again at the next task, so the wait is not counted as time lost.
        let s = Span::at_start(next, at(5_061), || Some(1_140_000 + 5_000)).unwrap();
        assert_eq!((s.cpu_ns, s.wall_ns), (1_145_000, 0));
        let (_, off) = s.at_end(1_000_000, at(6_061), || Some(1_145_000 + 999_000));
        assert_eq!(off, None);
        // Where the CPU time cannot be read, nothing is judged.
        assert_eq!(Span::at_start(None, at(0), || None), None);
        let (next, off) = span(at(0), 0).at_end(1_000_000, at(1_000), || None);
        assert_eq!((next, off), (None, None));
    }

    /// Two threads spinning on one core: the scheduler gives each its turn, and a stretch
    /// of the one measured loses about half its time.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_stretch_on_a_core_shared_with_a_spinning_thread_is_disturbed() {
        use std::sync::atomic::{AtomicBool, Ordering};

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
                let stretch = Stretch::start();
                let start = Instant::now();
                while start.elapsed() < Duration::from_millis(300) {
                    std::hint::spin_loop();
                }
                Some(stretch.held_off())
            });
            scope.spawn(|| {
                if cpu >= 0 && pin(cpu as usize) {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                }
            });
            let held_off = measured.join().unwrap();
            stop.store(true, Ordering::Relaxed);
            match held_off {
                Some(off) => assert!(off.is_some(), "300 ms on a shared core, not held off"),
                None => eprintln!("skipped: cannot pin threads to one core here"),
            }
        });
    }
}
