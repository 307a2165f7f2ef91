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
//!              size_t *guesses);       /* out: guesses made; 0 unless written */
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
//! Each worker thread calls the function at once with its own buffers: a solver that is
//! not reentrant must be made serial (`StrategyInfo::serial`). Nothing can interrupt the
//! call: no node budget or timeout applies, and its status comes from its count alone. A
//! solver that crashes, or throws a C++ exception through the C ABI, ends the process.
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
use crate::grid::Grid;
use crate::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};

/// The symbol looked up when a spec names none.
pub(crate) const DEFAULT_SYMBOL: &str = "sudoku_solve";

/// The C signature of a solver (see the module's documentation).
type SolveFn = unsafe extern "C" fn(
    puzzle: *const c_char,
    limit: usize,
    configuration: u32,
    solution: *mut c_char,
    guesses: *mut usize,
) -> usize;

/// A loaded solver function and the library that holds its code.
struct Loaded {
    solve: SolveFn,
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
fn split_target(target: &str) -> (&str, &str) {
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

fn open(path: &Path, symbol: &str) -> Result<Loaded, ForeignError> {
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
struct Text81 {
    cells: [u8; 81],
    nul: u8,
}

/// What `solution` holds before the call: a solver that leaves it so returned none.
const UNTOUCHED: u8 = 0;

impl Text81 {
    fn blank() -> Text81 {
        Text81 {
            cells: [UNTOUCHED; 81],
            nul: 0,
        }
    }
}

/// One worker's caller of a library solver, with its own buffers.
struct LibrarySolver {
    loaded: Arc<Loaded>,
    configuration: u32,
    puzzle: Text81,
    solution: Text81,
}

impl LibrarySolver {
    fn new(loaded: Arc<Loaded>, configuration: u32) -> LibrarySolver {
        LibrarySolver {
            loaded,
            configuration,
            puzzle: Text81::blank(),
            solution: Text81::blank(),
        }
    }
}

impl Strategy for LibrarySolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        puzzle.write_dotted(&mut self.puzzle.cells);
        self.solution = Text81::blank();
        let limit = limits.max_solutions.max(1);
        let mut guesses: usize = 0;
        // SAFETY: both buffers are 82 bytes owned by `self` and `guesses` is a local, all
        // alive for the call; the function and its library are kept by `self.loaded`.
        let count = unsafe {
            (self.loaded.solve)(
                (&self.puzzle as *const Text81).cast(),
                limit as usize,
                self.configuration,
                (&mut self.solution as *mut Text81).cast(),
                &mut guesses,
            )
        };
        read_answer(count, limit, &self.solution.cells, guesses as u64)
    }
}

/// The outcome a solver's answer says, or why it cannot be believed.
fn read_answer(count: usize, limit: u32, solution: &[u8; 81], guesses: u64) -> Outcome {
    let mut outcome = Outcome {
        solutions: 0,
        first: None,
        nodes: 0,
        guesses,
        aborted: None,
    };
    let fail = |outcome: Outcome, why: String| Outcome {
        aborted: Some(Abort::Failed(why)),
        ..outcome
    };
    let Some(solutions) = u32::try_from(count).ok().filter(|&n| n <= limit) else {
        return fail(
            outcome,
            format!("returned {count} solutions, more than the limit of {limit}"),
        );
    };
    outcome.solutions = solutions;
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
        let outcome = read_answer(2, 2, &[UNTOUCHED; 81], 7);
        assert_eq!(
            (outcome.solutions, outcome.first, outcome.guesses),
            (2, None, 7)
        );
        assert_eq!(outcome.aborted, None);
    }

    #[test]
    fn a_filled_solution_is_read() {
        let outcome = read_answer(1, 1, SOLVED, 0);
        assert_eq!(outcome.first, Some(Grid::parse(SOLVED).unwrap()));
        assert_eq!(outcome.aborted, None);
    }

    #[test]
    fn a_solution_given_with_no_count_is_ignored() {
        let outcome = read_answer(0, 2, SOLVED, 0);
        assert_eq!((outcome.solutions, outcome.first), (0, None));
    }

    #[test]
    fn a_count_above_the_limit_fails_the_puzzle() {
        let outcome = read_answer(3, 2, &[UNTOUCHED; 81], 0);
        assert_eq!(
            outcome.aborted,
            Some(Abort::Failed(
                "returned 3 solutions, more than the limit of 2".into()
            ))
        );
        let huge = read_answer(usize::MAX, 2, &[UNTOUCHED; 81], 0);
        assert!(matches!(huge.aborted, Some(Abort::Failed(_))));
    }

    #[test]
    fn a_solution_that_is_not_digits_fails_the_puzzle() {
        let mut partly = *SOLVED;
        partly[80] = UNTOUCHED;
        let outcome = read_answer(1, 2, &partly, 0);
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
    }

    #[test]
    fn a_file_that_is_not_a_library_is_refused() {
        let err = load("mine", file!(), 0).unwrap_err();
        assert!(matches!(err, ForeignError::Load { .. }), "{err}");
    }
}
