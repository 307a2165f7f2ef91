//! `PerWorker`: one value per worker thread of a rayon pool, such as each worker's own
//! solvers, so state is reused from puzzle to puzzle without being shared between threads.

use std::sync::Mutex;

pub struct PerWorker<T> {
    /// Indexed by `rayon::current_thread_index`.
    slots: Vec<Slot<T>>,
    make: Box<dyn Fn() -> T + Send + Sync>,
}

/// One worker's value, alone on its cache lines: two workers touching neighbouring slots
/// (each lock and unlock is a write) would otherwise bounce a line between their cores on
/// every puzzle. 128 bytes covers the adjacent-line prefetcher too.
#[repr(align(128))]
struct Slot<T>(Mutex<Option<T>>);

impl<T: Send> PerWorker<T> {
    /// A slot for each of `pool`'s workers. A worker makes its value with `make` when it
    /// first asks for it, on its own thread, so what it allocates comes from its own
    /// allocator arena rather than lying next to another worker's state; and nothing
    /// waits for the workers to start (a quarter of a millisecond on a virtual machine).
    pub fn new(
        pool: &rayon::ThreadPool,
        make: impl Fn() -> T + Send + Sync + 'static,
    ) -> PerWorker<T> {
        PerWorker {
            slots: (0..pool.current_num_threads())
                .map(|_| Slot(Mutex::new(None)))
                .collect(),
            make: Box::new(make),
        }
    }

    /// Run `f` on the calling worker's value.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let slot = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // Each worker only ever takes its own slot, so the lock is uncontended.
        let mut mine = self.slots[slot].0.lock().unwrap_or_else(|p| p.into_inner());
        f(mine.get_or_insert_with(&self.make))
    }

    /// Run `f` on every value made so far, in worker order (not on the workers).
    pub fn each(&self, mut f: impl FnMut(&T)) {
        for slot in &self.slots {
            if let Some(value) = &*slot.0.lock().unwrap_or_else(|p| p.into_inner()) {
                f(value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn each_worker_makes_its_own_value_when_it_first_asks() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let made = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&made);
        let values = PerWorker::new(&pool, move || {
            counter.fetch_add(1, Ordering::Relaxed);
            (rayon::current_thread_index(), 0u32)
        });
        assert_eq!(made.load(Ordering::Relaxed), 0, "nothing made before use");
        // Only worker 1 asks, twice: one value, made on worker 1, kept between calls.
        for _ in 0..2 {
            pool.broadcast(|ctx| {
                if ctx.index() == 1 {
                    values.with(|(_, uses)| *uses += 1);
                }
            });
        }
        assert_eq!(made.load(Ordering::Relaxed), 1);
        let seen = pool.broadcast(|_| values.with(|value| *value));
        assert_eq!(seen, [(Some(0), 0), (Some(1), 2), (Some(2), 0)]);
        assert_eq!(made.load(Ordering::Relaxed), 3);
    }
}
