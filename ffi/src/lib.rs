//! sudoku-bench's strategies as a shared library with tdoku's C ABI.
//!
//! Built as `libsudoku_bench_ffi.so` (`cargo build --release -p sudoku-bench-ffi`), it
//! exports one function per built-in strategy, `sudoku_bench_NAME` (`sudoku_bench_fast`,
//! `sudoku_bench_dlx`, ...), and `sudoku_solve`, which is `fast`:
//!
//! ```c
//! size_t sudoku_bench_fast(const char *puzzle,     /* 81 chars, '1'-'9', '.' or '0', NUL */
//!                          size_t limit,           /* count solutions up to this */
//!                          uint32_t configuration, /* node budget in thousands; 0: none */
//!                          char *solution,         /* out: 81 digits, no NUL written */
//!                          size_t *guesses);       /* out: guesses made */
//! ```
//!
//! It is the signature `sudoku-bench run --solver NAME=lib:PATH:SYMBOL` loads (and tdoku's
//! benchmark, and anyone's harness for tdoku's solvers), so the same code can be timed by
//! any of them, and two builds of it in one run of `sudoku-bench`.
//!
//! # What a call does
//!
//! - It counts the puzzle's solutions up to `limit` (0 counts as 1) and returns the count.
//! - When it finds one, it writes the first solution found into `solution` (81 digits; the
//!   byte after them is left alone, so an 81-byte buffer is enough); else `solution` is
//!   untouched. A null `solution` is never written.
//! - It writes `*guesses` only for a strategy that counts guesses (`bitmask`, `dlx`, `fast`:
//!   the `counts_guesses` of its `StrategyInfo`), and never through a null pointer.
//! - A `puzzle` that is not a puzzle returns 0 and writes nothing: a null pointer, text that
//!   is not exactly 81 cells before its NUL, a character other than `1`-`9`, `.` and `0`, or
//!   givens that break a rule (which is the true count: such a grid has no solution). The
//!   function reads `puzzle` up to its NUL or its 82nd byte, whichever comes first.
//! - [`FAILED`] (`SIZE_MAX`, above any limit) means no count: the node budget ran out, or the
//!   strategy panicked. `sudoku-bench` reports such a puzzle as failed (a count above the
//!   limit), and so does any caller that checks the count against its limit.
//!
//! # Keeping slow strategies short
//!
//! The C ABI has no budget of its own, so `configuration` is one: a search that would place
//! more than `configuration × 1000` nodes (in the strategy's own unit, as `run --max-nodes`)
//! stops and returns [`FAILED`]; 0 means no budget. `naive`, `hashset` and `stack` take
//! seconds on hard puzzles without one (`run --solver-config NAME=U32` sets it).
//!
//! # Threads
//!
//! Reentrant: each thread keeps its own value of each strategy (a `thread_local`), made on
//! its first call and reused for every later one, so any number of threads may call any of
//! the functions at once (no `--serial` needed).

use std::ffi::c_char;

mod call;

/// The C signature every export has.
#[cfg(test)]
type SolveFn = unsafe extern "C" fn(*const c_char, usize, u32, *mut c_char, *mut usize) -> usize;

pub use call::FAILED;

/// Declares the exports: one module per strategy, holding its `solve` function exported
/// as `sudoku_bench_NAME`, and [`EXPORTED`], their names in order. The one list of them.
macro_rules! exports {
    ($($name:ident),* $(,)?) => {
        /// The strategies exported, by name, in `sudoku_bench_core::strategy::STRATEGIES`'s order.
        pub const EXPORTED: &[&str] = &[$(stringify!($name)),*];

        /// Each export by name, for the tests to call them all.
        #[cfg(test)]
        const FUNCTIONS: &[(&str, SolveFn)] = &[$((stringify!($name), $name::solve)),*];

        $(
            #[doc = concat!("The strategy `", stringify!($name), "`.")]
            pub mod $name {
                use std::ffi::c_char;

                std::thread_local! {
                    static SLOT: crate::call::Slot =
                        const { crate::call::Slot::new(stringify!($name)) };
                }

                #[doc = concat!(
                    "`sudoku_bench_", stringify!($name), "`: count the solutions of `puzzle` ",
                    "with `", stringify!($name), "` (see the crate's documentation)."
                )]
                ///
                /// # Safety
                ///
                /// `puzzle` is null or readable up to its NUL (at most 82 bytes are read);
                /// `solution` is null or writable for 81 bytes; `guesses` is null or
                /// writable. Nothing else is touched.
                #[export_name = concat!("sudoku_bench_", stringify!($name))]
                pub unsafe extern "C" fn solve(
                    puzzle: *const c_char,
                    limit: usize,
                    configuration: u32,
                    solution: *mut c_char,
                    guesses: *mut usize,
                ) -> usize {
                    // SAFETY: the caller's promises are this function's own.
                    unsafe {
                        crate::call::solve(&SLOT, puzzle, limit, configuration, solution, guesses)
                    }
                }
            }
        )*
    };
}

exports!(naive, hashset, bitmask, stack, dlx, fast);

/// `sudoku_solve`, the symbol `run --solver NAME=lib:PATH` looks up when none is named:
/// `fast`.
///
/// # Safety
///
/// As [`fast::solve`].
#[no_mangle]
pub unsafe extern "C" fn sudoku_solve(
    puzzle: *const c_char,
    limit: usize,
    configuration: u32,
    solution: *mut c_char,
    guesses: *mut usize,
) -> usize {
    // SAFETY: the same promises.
    unsafe { fast::solve(puzzle, limit, configuration, solution, guesses) }
}

#[cfg(test)]
mod tests;
