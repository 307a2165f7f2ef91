//! `PerWorker`: one value per worker thread of a rayon pool, such as each worker's own
//! solvers, so state is reused from puzzle to puzzle without being shared between threads.

use std::sync::Mutex;

pub struct PerWorker<T> {
    /// Indexed by `rayon::current_thread_index`.
    slots: Vec<Slot<T>>,
}

/// One worker's value, alone on its cache lines: two workers touching neighbouring slots
/// (each lock and unlock is a write) would otherwise bounce a line between their cores on
/// every puzzle. 128 bytes covers the adjacent-line prefetcher too.
#[repr(align(128))]
struct Slot<T>(Mutex<T>);

impl<T: Send> PerWorker<T> {
    /// One value from `make` for each of `pool`'s workers, made on that worker, so that
    /// what it allocates comes from the worker's own allocator arena rather than lying
    /// next to another worker's state.
    pub fn new(pool: &rayon::ThreadPool, make: impl Fn() -> T + Sync) -> PerWorker<T> {
        // `broadcast` returns the results in the order of the workers' indices.
        PerWorker {
            slots: pool.broadcast(|_| Slot(Mutex::new(make()))),
        }
    }

    /// Every worker's value, for use while no worker is running.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.slots
            .iter_mut()
            .map(|slot| slot.0.get_mut().unwrap_or_else(|p| p.into_inner()))
    }

    /// Run `f` on the calling worker's value.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let slot = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // Each worker only ever takes its own slot, so the lock is uncontended.
        let mut mine = self.slots[slot].0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut mine)
    }
}
