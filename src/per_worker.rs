//! `PerWorker`: one value per worker thread of a rayon pool, such as each worker's own
//! solvers, so state is reused from puzzle to puzzle without being shared between threads.

use std::sync::Mutex;

pub struct PerWorker<T> {
    /// Indexed by `rayon::current_thread_index`.
    slots: Vec<Mutex<T>>,
}

impl<T> PerWorker<T> {
    /// One value from `make` for each of `pool`'s workers.
    pub fn new(pool: &rayon::ThreadPool, make: impl FnMut() -> T) -> PerWorker<T> {
        let mut make = make;
        PerWorker {
            slots: (0..pool.current_num_threads())
                .map(|_| Mutex::new(make()))
                .collect(),
        }
    }

    /// Run `f` on the calling worker's value.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let slot = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // Each worker only ever takes its own slot, so the lock is uncontended.
        let mut mine = self.slots[slot].lock().unwrap_or_else(|p| p.into_inner());
        f(&mut mine)
    }
}
