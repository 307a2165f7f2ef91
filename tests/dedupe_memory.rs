//! What `filter --dedupe` costs per distinct puzzle, counted at the allocator: the README
//! promises a figure, and this holds the code to it, peak (a table growing) included.
//!
//! One test in its own binary, so that no other test's allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use sudoku_bench::dedupe::{FirstSeen, Seen};
use sudoku_bench::Grid;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = NOW.fetch_add(bytes, Ordering::SeqCst) + bytes;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as the allocator may do it: the new block is there before the old goes.
        grew(new_size);
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The figure README.md gives for `--dedupe`, in bytes per distinct puzzle, at the peak.
const PROMISED: usize = 72;

/// Distinct grids: the digits of `i` in base 9, one per cell.
fn grid(mut i: u64) -> Grid {
    let mut cells = [0u8; 81];
    for cell in cells.iter_mut() {
        *cell = (i % 9) as u8 + 1;
        i /= 9;
    }
    Grid::from_cells(cells).unwrap()
}

#[test]
fn dedupe_memory_per_distinct_puzzle_is_as_documented() {
    // Several sizes, so that each lands at a different point of the table's growth.
    for n in [1_000u64, 70_000, 200_000, 262_145] {
        let before = NOW.load(Ordering::SeqCst);
        PEAK.store(before, Ordering::SeqCst);
        let mut seen = Seen::default();
        for i in 0..n {
            let at = FirstSeen { corpus: 0, line: i };
            assert_eq!(seen.insert(&grid(i), at).unwrap(), None);
        }
        assert_eq!(
            seen.insert(&grid(7), FirstSeen { corpus: 1, line: 1 })
                .unwrap(),
            Some(FirstSeen { corpus: 0, line: 7 })
        );
        let peak = PEAK.load(Ordering::SeqCst) - before;
        let per = peak as f64 / n as f64;
        eprintln!("{n} distinct grids: peak {peak} bytes, {per:.1} a grid");
        // A fixed allowance for the first block of entries, which small sets do not fill.
        assert!(
            peak <= PROMISED * n as usize + (1 << 20),
            "{n} grids: {per:.1} bytes each at the peak, more than the {PROMISED} promised"
        );
        drop(seen);
    }
}
