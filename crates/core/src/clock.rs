//! `Clock`: how the runner times each solve and each parallel phase, so tests can swap
//! the real monotonic clock for a deterministic one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::strategy::outcome::Outcome;

/// What one solve cost: its time, and the instructions it executed when they were counted
/// (`run --measure instructions`, [`crate::valgrind`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// Nanoseconds, from the clock that timed it.
    pub ns: u64,
    /// Instructions executed by the solve alone; `None` when not counted.
    pub instructions: Option<u64>,
}

impl Cost {
    /// A time with no count.
    pub const fn of_ns(ns: u64) -> Cost {
        Cost {
            ns,
            instructions: None,
        }
    }

    /// Of two solves of one puzzle (`--repeat`), the faster, with its own count.
    pub fn faster(self, other: Cost) -> Cost {
        if other.ns < self.ns {
            other
        } else {
            self
        }
    }
}

/// Where solve times come from: the monotonic clock in a run, a mock in tests (times
/// then follow from the node counts, so that timing logic is tested exactly).
pub trait Clock: Sync {
    /// Run `solve` and return its outcome with the nanoseconds it took.
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, Cost);
    /// Run `solve(0)`, `solve(1)`, ... back to back, one for each slot of `out`, and
    /// put each outcome there with the nanoseconds it took.
    fn time_each(
        &self,
        solve: &mut dyn FnMut(usize) -> Outcome,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = Some(self.time(&mut || solve(i)));
        }
    }
    /// A monotonic reading in nanoseconds, for wall-clock phases.
    fn now_ns(&self) -> u64;
}

/// The real clock: `Instant` around the solve call and nothing else.
#[derive(Debug)]
pub struct MonotonicClock {
    base: Instant,
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock {
            base: Instant::now(),
        }
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, Cost) {
        let start = Instant::now();
        let out = solve();
        let ns = start.elapsed().as_nanos();
        (out, Cost::of_ns(ns.min(u64::MAX as u128) as u64))
    }

    /// One reading between two solves, not two around each: a reading costs ~40 ns on
    /// this project's virtual machine, about half of it on each side of the instant it
    /// returns, so the time of a solve covers about one reading either way, and this
    /// halves the readings. Between two readings there is only the solve call, storing
    /// its outcome and stepping to the next.
    #[inline]
    fn time_each(
        &self,
        solve: &mut dyn FnMut(usize) -> Outcome,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        let mut last = Instant::now();
        for (i, slot) in out.iter_mut().enumerate() {
            let outcome = solve(i);
            let now = Instant::now();
            let ns = now.duration_since(last).as_nanos();
            last = now;
            *slot = Some((outcome, Cost::of_ns(ns.min(u64::MAX as u128) as u64)));
        }
    }

    fn now_ns(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// The clock of `run --measure instructions`: each solve timed as [`MonotonicClock`] times
/// it, and the instructions it executed counted ([`crate::valgrind::count`]; `None` in a
/// process that does not count).
#[derive(Debug, Default)]
pub struct CountingClock {
    wall: MonotonicClock,
}

impl Clock for CountingClock {
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, Cost) {
        let mut instructions = None;
        let (out, timed) = self.wall.time(&mut || {
            let (out, counted) = crate::valgrind::count(&mut *solve);
            instructions = counted;
            out
        });
        (
            out,
            Cost {
                instructions,
                ..timed
            },
        )
    }

    fn now_ns(&self) -> u64 {
        self.wall.now_ns()
    }
}

/// A deterministic clock for tests: a solve "takes" `base_ns + per_node_ns * nodes`, and
/// every wall-clock reading is `tick_ns` after the last one.
#[derive(Debug)]
pub struct MockClock {
    /// Nanoseconds every solve takes.
    pub base_ns: u64,
    /// Nanoseconds added per node searched.
    pub per_node_ns: u64,
    /// Nanoseconds between two wall-clock readings.
    pub tick_ns: u64,
    now: AtomicU64,
}

impl MockClock {
    /// A clock with these costs, its wall clock at 0.
    pub fn new(base_ns: u64, per_node_ns: u64, tick_ns: u64) -> MockClock {
        MockClock {
            base_ns,
            per_node_ns,
            tick_ns,
            now: AtomicU64::new(0),
        }
    }
}

impl Clock for MockClock {
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, Cost) {
        let out = solve();
        let ns = self.base_ns + self.per_node_ns * out.nodes;
        (out, Cost::of_ns(ns))
    }

    fn now_ns(&self) -> u64 {
        self.now.fetch_add(self.tick_ns, Ordering::Relaxed) + self.tick_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn outcome(nodes: u64) -> Outcome {
        Outcome {
            solutions: 0,
            first: None,
            nodes,
            guesses: 0,
            aborted: None,
        }
    }

    #[test]
    fn time_each_gives_each_solve_its_own_outcome_and_time() {
        let clock = MonotonicClock::default();
        let mut out: [Option<(Outcome, Cost)>; 4] = [const { None }; 4];
        let before = Instant::now();
        clock.time_each(
            &mut |i| {
                if i == 2 {
                    std::thread::sleep(Duration::from_millis(3));
                }
                outcome(i as u64)
            },
            &mut out,
        );
        let elapsed = before.elapsed().as_nanos() as u64;
        let timed: Vec<(u64, u64)> = out
            .iter()
            .map(|s| s.as_ref().map(|(o, cost)| (o.nodes, cost.ns)).unwrap())
            .collect();
        assert_eq!(timed.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(timed[2].1 >= 3_000_000, "{timed:?}");
        // The times are consecutive spans within the call: they add up to less than it.
        assert!(
            timed.iter().map(|t| t.1).sum::<u64>() <= elapsed,
            "{timed:?}"
        );
    }

    #[test]
    fn time_each_of_the_mock_clock_follows_the_nodes() {
        let clock = MockClock::new(100, 10, 1);
        let mut out: [Option<(Outcome, Cost)>; 3] = [const { None }; 3];
        clock.time_each(&mut |i| outcome(i as u64 * 5), &mut out);
        let times: Vec<u64> = out.iter().map(|s| s.as_ref().unwrap().1.ns).collect();
        assert_eq!(times, [100, 150, 200]);
    }
}
