//! `Clock`: how the runner times each solve and each parallel phase, so tests can swap
//! the real monotonic clock for a deterministic one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::strategy::Outcome;

pub trait Clock: Sync {
    /// Run `solve` and return its outcome with the nanoseconds it took.
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, u64);
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
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, u64) {
        let start = Instant::now();
        let out = solve();
        let ns = start.elapsed().as_nanos();
        (out, ns.min(u64::MAX as u128) as u64)
    }

    fn now_ns(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// A deterministic clock for tests: a solve "takes" `base_ns + per_node_ns * nodes`, and
/// every wall-clock reading is `tick_ns` after the last one.
#[derive(Debug)]
pub struct MockClock {
    pub base_ns: u64,
    pub per_node_ns: u64,
    pub tick_ns: u64,
    now: AtomicU64,
}

impl MockClock {
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
    fn time(&self, solve: &mut dyn FnMut() -> Outcome) -> (Outcome, u64) {
        let out = solve();
        (out, self.base_ns + self.per_node_ns * out.nodes)
    }

    fn now_ns(&self) -> u64 {
        self.now.fetch_add(self.tick_ns, Ordering::Relaxed) + self.tick_ns
    }
}
