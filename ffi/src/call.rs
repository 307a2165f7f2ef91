//! One call through the C ABI: read the puzzle, solve it with this thread's strategy,
//! write the answer.
//!
//! This is where no panic may cross into C: [`solve`] runs everything it does inside
//! `catch_unwind` and turns a panic into [`FAILED`]. (An `extern "C"` function that lets a
//! panic out aborts the process: the caller's whole benchmark would be lost for one puzzle.)

use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sudoku_bench_core::strategy::{by_name, Limits, Strategy};
use sudoku_bench_core::Grid;

/// What a call returns when it has no count: the node budget ran out, or the strategy
/// panicked. Above any limit, so a caller that checks the count against its limit (as
/// `sudoku-bench run --solver` does) reports the puzzle as failed.
pub const FAILED: usize = usize::MAX;

/// Nodes per unit of `configuration`, the node budget.
const NODES_PER_UNIT: u64 = 1000;

/// One thread's value of one strategy, made on its first call.
pub(crate) struct Slot {
    name: &'static str,
    made: RefCell<Option<Made>>,
}

struct Made {
    strategy: Box<dyn Strategy>,
    counts_guesses: bool,
}

impl Slot {
    pub(crate) const fn new(name: &'static str) -> Slot {
        Slot {
            name,
            made: RefCell::new(None),
        }
    }
}

/// The exported functions' body (their contract is the crate's documentation).
///
/// # Safety
///
/// As each exported function: `puzzle` null or readable up to its NUL or 82 bytes,
/// `solution` null or writable for 81 bytes, `guesses` null or writable.
pub(crate) unsafe fn solve(
    slot: &'static std::thread::LocalKey<Slot>,
    puzzle: *const c_char,
    limit: usize,
    configuration: u32,
    solution: *mut c_char,
    guesses: *mut usize,
) -> usize {
    let run = || {
        // SAFETY: the caller's promise on `puzzle`.
        let Some(grid) = (unsafe { read_puzzle(puzzle) }) else {
            return 0;
        };
        let limits = Limits {
            max_solutions: u32::try_from(limit).unwrap_or(u32::MAX).max(1),
            max_nodes: match configuration {
                0 => u64::MAX,
                units => u64::from(units) * NODES_PER_UNIT,
            },
            timeout: None,
        };
        // `try_with` fails only while the thread is being torn down.
        let Ok(Some((outcome, counts_guesses))) = slot.try_with(|slot| slot.solve(&grid, &limits))
        else {
            return FAILED;
        };
        if outcome.aborted.is_some() {
            return FAILED;
        }
        if let Some(first) = outcome.first.filter(|_| !solution.is_null()) {
            let mut text = [0u8; 81];
            first.write_dotted(&mut text);
            // SAFETY: the caller's promise on `solution`; `text` is a local.
            unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), solution.cast::<u8>(), 81) };
        }
        if counts_guesses && !guesses.is_null() {
            // SAFETY: the caller's promise on `guesses`.
            unsafe { *guesses = usize::try_from(outcome.guesses).unwrap_or(usize::MAX) };
        }
        outcome.solutions as usize
    };
    guard(run)
}

impl Slot {
    /// The outcome and whether the strategy counts guesses, or `None` for a name that is
    /// no strategy (the crate's tests check that every exported name is one).
    fn solve(&self, grid: &Grid, limits: &Limits) -> Option<(sudoku_bench_core::Outcome, bool)> {
        let mut made = self.made.borrow_mut();
        // Taken out while it solves: a strategy that panics mid-search is dropped with its
        // half-updated state, and the next call makes a fresh one.
        let mut taken = match made.take() {
            Some(taken) => taken,
            None => {
                let info = by_name(self.name)?;
                Made {
                    strategy: info.make(),
                    counts_guesses: info.counts_guesses,
                }
            }
        };
        let outcome = taken.strategy.solve(grid, limits);
        let counts_guesses = taken.counts_guesses;
        *made = Some(taken);
        Some((outcome, counts_guesses))
    }
}

/// `run()`, or [`FAILED`] if it panics.
pub(crate) fn guard(run: impl FnOnce() -> usize) -> usize {
    // AssertUnwindSafe: after a panic nothing `run` touched is used again (see
    // `Slot::solve`), and the C caller sees only the count.
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(FAILED)
}

/// The puzzle `text` holds, or `None` when it is not exactly 81 cells that break no rule.
///
/// # Safety
///
/// `text` is null or readable up to its NUL or its 82nd byte, whichever comes first.
unsafe fn read_puzzle(text: *const c_char) -> Option<Grid> {
    if text.is_null() {
        return None;
    }
    let mut cells = [0u8; 81];
    for (i, cell) in cells.iter_mut().enumerate() {
        // SAFETY: no NUL yet, so byte `i` is within the caller's string.
        let byte = unsafe { *text.add(i) } as u8;
        if byte == 0 {
            return None;
        }
        *cell = byte;
    }
    // SAFETY: 81 bytes and no NUL among them: the 82nd is still within the string.
    if unsafe { *text.add(81) } != 0 {
        return None;
    }
    Grid::parse(&cells).ok().filter(Grid::breaks_no_rule)
}
