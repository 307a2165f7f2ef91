//! Solvers in shared libraries, through tdoku's C ABI.
//!
//! The function a library exports (by default as `DEFAULT_SYMBOL`):
//!
//! ```c
//! size_t solve(const char *puzzle,     /* 81 chars, '1'-'9' or '.', then a NUL */
//!              size_t limit,           /* count solutions up to this (at least 1) */
//!              uint32_t configuration, /* the solver's own setting; 0 unless set */
//!              char *solution,         /* 81 chars out (room for a NUL after them);
//!                                         may be left untouched */
//!              size_t *guesses);       /* out: guesses made; never NULL, 0 unless
//!                                         written */
//! /* returns the number of solutions found, at most limit */
//! ```
//!
//! It is tdoku's `TdokuSolverDpllTriadSimd`, and that of every solver tdoku's benchmark
//! wraps, so all of them load unchanged. A solver may leave `solution` untouched (tdoku
//! fills it only when `limit == 1`): the outcome then has no first solution (the row's
//! `solution` is empty) and only its count can be checked. A count above `limit`, or a
//! solution that is not 81 digits and blanks, is a failure of that puzzle
//! (`Abort::Failed`), not of the run; a grid that is not a solution is a wrong answer.
//!
//! This module calls the function in the tool's own process (`--in-process`): each worker
//! thread calls it at once with its own buffers, so a solver that is not reentrant must be
//! made serial (`StrategyInfo::serial`); nothing can interrupt the call, and a crash ends
//! the process. By default a library runs isolated instead (module `isolated`), where
//! the same `Caller` makes each call in a worker process of its own.
//!
//! # Safety
//!
//! This module is the crate's only contact with native code, and it cannot check what it
//! calls: it trusts the user that the file is a library whose initialisers may run, and
//! that the symbol is a function of the signature above that writes only within the
//! buffers it is given. What the function returns is checked before it is believed.

use std::ffi::c_char;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libloading::Library;

use super::ForeignError;
use sudoku_bench_core::clock::Cost;
use sudoku_bench_core::grid::Grid;
use sudoku_bench_core::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};

/// The symbol looked up when a spec names none.
pub(crate) const DEFAULT_SYMBOL: &str = "sudoku_solve";

/// The C signature of a solver (see the module's documentation).
pub(super) type SolveFn = unsafe extern "C" fn(
    puzzle: *const c_char,
    limit: usize,
    configuration: u32,
    solution: *mut c_char,
    guesses: *mut usize,
) -> usize;

/// A loaded solver function and the library that holds its code.
pub(super) struct Loaded {
    pub(super) solve: SolveFn,
    /// Kept so that the code `solve` points into stays mapped while any strategy value
    /// (each holds this through an `Arc`) may still call it.
    _library: Library,
}

/// The strategy `name`, solving with `target` (`PATH[:SYMBOL]`) and `configuration`.
///
/// The library is loaded once; every worker's value shares it.
pub fn load(name: &str, target: &str, configuration: u32) -> Result<StrategyInfo, ForeignError> {
    let (path, symbol) = split_target(target);
    // Resolved here, not by the loader: a relative path means the working directory (the
    // loader would search its own directories for a bare file name), and a missing file
    // gets a plain message rather than the loader's.
    let resolved = std::fs::canonicalize(path).map_err(|source| ForeignError::Missing {
        path: PathBuf::from(path),
        source,
    })?;
    let loaded = Arc::new(open(&resolved, symbol)?);
    let about = format!("{symbol} from {}, through the C ABI", resolved.display());
    Ok(StrategyInfo::new(name.to_string(), move || {
        Box::new(LibrarySolver::new(Arc::clone(&loaded), configuration))
    })
    .about(about)
    .counts_guesses(true))
}

/// `PATH[:SYMBOL]` split; a suffix after the last `:` is a symbol only when it is a C
/// identifier, so a path with a colon in it (`C:\x.dll`, `a:b/x.so`) stays whole.
pub(super) fn split_target(target: &str) -> (&str, &str) {
    match target.rsplit_once(':') {
        Some((path, symbol)) if !path.is_empty() && is_identifier(symbol) => (path, symbol),
        _ => (target, DEFAULT_SYMBOL),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn open(path: &Path, symbol: &str) -> Result<Loaded, ForeignError> {
    // SAFETY: loading runs the library's initialisers; the user named it to be run (see
    // the module's Safety section).
    let library = unsafe { Library::new(path) }.map_err(|source| ForeignError::Load {
        path: path.to_path_buf(),
        source,
    })?;
    // SAFETY: the symbol is taken to have the documented signature (nothing can check
    // it); the pointer copied out stays valid because `Loaded` keeps the library.
    let solve = unsafe { library.get::<SolveFn>(symbol.as_bytes()) }
        .map(|f| *f)
        .map_err(|source| ForeignError::Symbol {
            path: path.to_path_buf(),
            symbol: symbol.to_string(),
            source,
        })?;
    Ok(Loaded {
        solve,
        _library: library,
    })
}

/// 81 characters and a NUL, so a solver that reads its input as a C string stops there.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Text81 {
    pub(super) cells: [u8; 81],
    pub(super) nul: u8,
}

/// What `solution` holds before the call: a solver that leaves it so returned none.
const UNTOUCHED: u8 = 0;

impl Text81 {
    pub(super) const BLANK: Text81 = Text81 {
        cells: [UNTOUCHED; 81],
        nul: 0,
    };
}

/// What one call returned, as it returned it: read by [`read_answer`], outside the timing.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct RawAnswer {
    pub(super) count: usize,
    pub(super) guesses: usize,
    pub(super) solution: Text81,
}

impl RawAnswer {
    pub(super) const NONE: RawAnswer = RawAnswer {
        count: 0,
        guesses: 0,
        solution: Text81::BLANK,
    };
}

/// Calls a library's function with buffers of its own: the one place a solve is made, in
/// the tool's process or in an isolated worker's.
pub(super) struct Caller {
    solve: SolveFn,
    configuration: u32,
    puzzle: Text81,
    /// 82 bytes the caller keeps valid and writable while it lives: in a box, or just
    /// before a guard page (see `isolated`).
    solution: *mut Text81,
}

// SAFETY: `solution` is owned by whoever made the caller, for the caller's life, and is
// reached only through `&mut self`.
unsafe impl Send for Caller {}

impl Caller {
    /// A caller of `solve` writing its solutions at `solution`.
    ///
    /// # Safety
    ///
    /// `solution` must stay valid for 82 bytes of writes while the caller lives, and
    /// `solve` must have the documented signature (see the module's Safety section).
    pub(super) unsafe fn new(solve: SolveFn, configuration: u32, solution: *mut Text81) -> Caller {
        Caller {
            solve,
            configuration,
            puzzle: Text81::BLANK,
            solution,
        }
    }

    /// Solve the puzzle `dotted` counting up to `limit`: the count and guesses returned.
    /// The solution is left at the caller's buffer, for [`Caller::solution`].
    #[inline]
    pub(super) fn call(&mut self, dotted: &[u8; 81], limit: u32) -> (usize, usize) {
        self.puzzle.cells = *dotted;
        let mut guesses: usize = 0;
        // SAFETY: `puzzle` is 82 bytes owned by `self`, `solution` valid as `new`
        // promised, `guesses` a local; the function is as the user said it is.
        unsafe {
            self.solution.write(Text81::BLANK);
            let count = (self.solve)(
                (&self.puzzle as *const Text81).cast(),
                limit.max(1) as usize,
                self.configuration,
                self.solution.cast(),
                &mut guesses,
            );
            (count, guesses)
        }
    }

    /// The solution buffer as the last call left it.
    #[inline]
    pub(super) fn solution(&self) -> Text81 {
        // SAFETY: valid for reads as `new` promised.
        unsafe { self.solution.read() }
    }
}

/// One worker's caller of a library solver in the tool's own process.
struct LibrarySolver {
    /// Kept so that the code the caller calls stays mapped.
    _loaded: Arc<Loaded>,
    caller: Caller,
    /// The solution buffer the caller writes to: boxed, so that it does not move.
    _solution: Box<Text81>,
    raw: Vec<RawAnswer>,
}

impl LibrarySolver {
    fn new(loaded: Arc<Loaded>, configuration: u32) -> LibrarySolver {
        let mut solution = Box::new(Text81::BLANK);
        // SAFETY: the box lives as long as the caller, in the same value, and its heap
        // memory does not move; the function comes from `open`.
        let caller = unsafe { Caller::new(loaded.solve, configuration, &mut *solution) };
        LibrarySolver {
            _loaded: loaded,
            caller,
            _solution: solution,
            raw: Vec::new(),
        }
    }
}

impl Strategy for LibrarySolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut dotted = [0; 81];
        puzzle.write_dotted(&mut dotted);
        let (count, guesses) = self.caller.call(&dotted, limits.max_solutions);
        read_answer(
            &RawAnswer {
                count,
                guesses,
                solution: self.caller.solution(),
            },
            limits.max_solutions,
        )
    }

    /// Times only the calls, as an isolated worker does, and reads the answers after. When
    /// the run counts instructions, the call alone is counted, not the puzzle's conversion
    /// or the copy of its answer: as an isolated worker counts it.
    fn solve_batch(
        &mut self,
        puzzles: &[Grid],
        limits: &Limits,
        clock: &dyn sudoku_bench_core::clock::Clock,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        self.raw.clear();
        self.raw.resize(puzzles.len(), RawAnswer::NONE);
        let (caller, raw) = (&mut self.caller, &mut self.raw);
        if sudoku_bench_core::valgrind::counting() {
            for ((puzzle, slot), raw) in puzzles.iter().zip(out.iter_mut()).zip(raw.iter_mut()) {
                let mut dotted = [0; 81];
                puzzle.write_dotted(&mut dotted);
                let start = std::time::Instant::now();
                let ((count, guesses), instructions) = sudoku_bench_core::valgrind::count(|| {
                    caller.call(&dotted, limits.max_solutions)
                });
                let ns = start.elapsed().as_nanos().min(u64::MAX as u128) as u64;
                *raw = RawAnswer {
                    count,
                    guesses,
                    solution: caller.solution(),
                };
                *slot = Some((Outcome::EMPTY, Cost { ns, instructions }));
            }
        } else {
            let mut solve = |i: usize| {
                let mut dotted = [0; 81];
                puzzles[i].write_dotted(&mut dotted);
                let (count, guesses) = caller.call(&dotted, limits.max_solutions);
                raw[i] = RawAnswer {
                    count,
                    guesses,
                    solution: caller.solution(),
                };
                Outcome::EMPTY
            };
            clock.time_each(&mut solve, out);
        }
        for (slot, raw) in out.iter_mut().zip(&self.raw) {
            if let Some((outcome, _)) = slot {
                *outcome = read_answer(raw, limits.max_solutions);
            }
        }
    }
}

/// The outcome a solver's answer says, or why it cannot be believed.
pub(super) fn read_answer(raw: &RawAnswer, limit: u32) -> Outcome {
    let mut outcome = Outcome {
        guesses: raw.guesses as u64,
        ..Outcome::EMPTY
    };
    let fail = |outcome: Outcome, why: String| Outcome {
        aborted: Some(Abort::Failed(why)),
        ..outcome
    };
    if raw.solution.nul != 0 {
        return fail(
            outcome,
            format!(
                "wrote {:?} past the 81 characters of its solution, where only a NUL may go",
                char::from(raw.solution.nul)
            ),
        );
    }
    let count = raw.count;
    let limit = limit.max(1);
    let Some(solutions) = u32::try_from(count).ok().filter(|&n| n <= limit) else {
        return fail(
            outcome,
            format!("returned {count} solutions, more than the limit of {limit}"),
        );
    };
    outcome.solutions = solutions;
    let solution = &raw.solution.cells;
    // A solver may use the buffer as scratch when it finds nothing: only a count of one
    // or more makes it an answer.
    if solutions == 0 || solution.iter().all(|&b| b == UNTOUCHED) {
        return outcome;
    }
    match Grid::parse(solution) {
        Ok(grid) => Outcome {
            first: Some(grid),
            ..outcome
        },
        Err(e) => fail(
            Outcome {
                solutions: 0,
                ..outcome
            },
            format!("returned a solution that cannot be read: {e}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(count: usize, solution: &[u8; 81], guesses: usize) -> RawAnswer {
        RawAnswer {
            count,
            guesses,
            solution: Text81 {
                cells: *solution,
                nul: 0,
            },
        }
    }

    const SOLVED: &[u8; 81] =
        b"534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn a_target_names_a_symbol_only_after_a_colon_and_an_identifier() {
        assert_eq!(split_target("x.so"), ("x.so", DEFAULT_SYMBOL));
        assert_eq!(split_target("./x.so:solve_2"), ("./x.so", "solve_2"));
        assert_eq!(split_target("C:\\x.dll"), ("C:\\x.dll", DEFAULT_SYMBOL));
        assert_eq!(split_target("a:b/x.so"), ("a:b/x.so", DEFAULT_SYMBOL));
        assert_eq!(split_target("x.so:2x"), ("x.so:2x", DEFAULT_SYMBOL));
        assert_eq!(split_target(":sym"), (":sym", DEFAULT_SYMBOL));
    }

    #[test]
    fn an_untouched_solution_is_none_and_the_count_stands() {
        let outcome = read_answer(&raw(2, &[UNTOUCHED; 81], 7), 2);
        assert_eq!(
            (outcome.solutions, outcome.first, outcome.guesses),
            (2, None, 7)
        );
        assert_eq!(outcome.aborted, None);
    }

    #[test]
    fn a_filled_solution_is_read() {
        let outcome = read_answer(&raw(1, SOLVED, 0), 1);
        assert_eq!(outcome.first, Some(Grid::parse(SOLVED).unwrap()));
        assert_eq!(outcome.aborted, None);
    }

    #[test]
    fn a_solution_given_with_no_count_is_ignored() {
        let outcome = read_answer(&raw(0, SOLVED, 0), 2);
        assert_eq!((outcome.solutions, outcome.first), (0, None));
    }

    #[test]
    fn a_count_above_the_limit_fails_the_puzzle() {
        let outcome = read_answer(&raw(3, &[UNTOUCHED; 81], 0), 2);
        assert_eq!(
            outcome.aborted,
            Some(Abort::Failed(
                "returned 3 solutions, more than the limit of 2".into()
            ))
        );
        let huge = read_answer(&raw(usize::MAX, &[UNTOUCHED; 81], 0), 2);
        assert!(matches!(huge.aborted, Some(Abort::Failed(_))));
    }

    #[test]
    fn a_solution_that_is_not_digits_fails_the_puzzle() {
        let mut partly = *SOLVED;
        partly[80] = UNTOUCHED;
        let outcome = read_answer(&raw(1, &partly, 0), 2);
        let Some(Abort::Failed(why)) = outcome.aborted else {
            panic!("{outcome:?}");
        };
        assert!(why.contains("column 81"), "{why}");
        assert_eq!((outcome.solutions, outcome.first), (0, None));
    }

    #[test]
    fn a_missing_file_is_named() {
        let err = load("mine", "/no/such/libmine.so", 0).unwrap_err();
        assert!(matches!(err, ForeignError::Missing { .. }));
        let text = err.to_string();
        assert!(text == "cannot find /no/such/libmine.so", "{text}");
        let text = load("mine", "/no/such/libmine.so:", 0)
            .unwrap_err()
            .to_string();
        assert_eq!(
            text,
            "cannot find /no/such/libmine.so: (the path ends in ':': name the symbol after \
             it, or drop the ':')"
        );
    }

    #[test]
    fn a_file_that_is_not_a_library_is_refused() {
        // This source file: a file that exists and is no library.
        let err = load(
            "mine",
            concat!(env!("CARGO_MANIFEST_DIR"), "/src/library.rs"),
            0,
        )
        .unwrap_err();
        assert!(matches!(err, ForeignError::Load { .. }), "{err}");
    }
}
