use std::ffi::{c_char, CString};

use sudoku_bench_core::strategy::{by_name, Limits, STRATEGIES};
use sudoku_bench_core::Grid;

use super::{fast, naive, sudoku_solve, SolveFn, EXPORTED, FAILED, FUNCTIONS};
use crate::call::{guard, Slot};

/// What `*guesses` holds before a call: a call that leaves it alone leaves this.
const UNSET: usize = 0x5eed;

/// A call's return value and what it left in its buffers.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    count: usize,
    /// 81 cells and the byte after them, which no call may write.
    solution: [u8; 82],
    guesses: usize,
}

fn call(f: SolveFn, puzzle: &str, limit: usize, configuration: u32) -> Answer {
    let puzzle = CString::new(puzzle).unwrap();
    let mut solution = [0u8; 82];
    let mut guesses = UNSET;
    // SAFETY: a NUL-terminated puzzle, an 82-byte buffer and a local, all alive.
    let count = unsafe {
        f(
            puzzle.as_ptr(),
            limit,
            configuration,
            solution.as_mut_ptr().cast::<c_char>(),
            &mut guesses,
        )
    };
    Answer {
        count,
        solution,
        guesses,
    }
}

/// What the built-in strategy `name` answers, in the C ABI's terms.
fn expected(name: &str, puzzle: &str, limit: u32, max_nodes: u64) -> Answer {
    let info = by_name(name).unwrap();
    let limits = Limits {
        max_solutions: limit,
        max_nodes,
        timeout: None,
    };
    let outcome = info.make().solve(&puzzle.parse().unwrap(), &limits);
    let mut solution = [0u8; 82];
    if outcome.aborted.is_some() {
        return Answer {
            count: FAILED,
            solution,
            guesses: UNSET,
        };
    }
    if let Some(first) = outcome.first {
        solution[..81].copy_from_slice(first.to_dotted().as_bytes());
    }
    Answer {
        count: outcome.solutions as usize,
        solution,
        guesses: if info.counts_guesses {
            outcome.guesses as usize
        } else {
            UNSET
        },
    }
}

fn classic() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/classic.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let puzzles: Vec<String> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert!(puzzles.len() >= 10, "{path}: {} puzzles", puzzles.len());
    puzzles
}

const HARDEST: &str =
    "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6";
const TWO_SOLUTIONS: &str =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";
const UNSOLVABLE: &str =
    "53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79";

#[test]
fn every_built_in_strategy_is_exported_in_the_registrys_order() {
    let registered: Vec<&str> = STRATEGIES.iter().map(|s| &*s.name).collect();
    assert_eq!(EXPORTED, registered.as_slice());
    let functions: Vec<&str> = FUNCTIONS.iter().map(|(name, _)| *name).collect();
    assert_eq!(functions, registered);
}

#[test]
fn every_export_answers_as_its_built_in_strategy_within_the_budget() {
    // 50 thousand nodes: the slow strategies finish the easy puzzles and fail the hard.
    let configuration = 50;
    let mut failed = 0;
    for &(name, f) in FUNCTIONS {
        let others = [TWO_SOLUTIONS, UNSOLVABLE];
        for puzzle in classic().iter().map(String::as_str).chain(others) {
            for limit in [1, 2] {
                let got = call(f, puzzle, limit, configuration);
                let want = expected(name, puzzle, limit as u32, 50_000);
                assert_eq!(got, want, "{name} on {puzzle}, limit {limit}");
                failed += usize::from(got.count == FAILED);
            }
        }
    }
    // Both kinds of answer were seen: the budget bit, and every solve agreed.
    assert!(failed > 0 && failed < FUNCTIONS.len() * 32, "{failed}");
}

#[test]
fn sudoku_solve_is_fast() {
    for puzzle in classic() {
        assert_eq!(
            call(sudoku_solve, &puzzle, 2, 0),
            call(fast::solve, &puzzle, 2, 0)
        );
    }
}

#[test]
fn no_budget_is_configuration_zero_and_one_unit_is_a_thousand_nodes() {
    let solved = call(naive::solve, HARDEST, 2, 0);
    assert_eq!(solved.count, 1);
    let grid: Grid = std::str::from_utf8(&solved.solution[..81])
        .unwrap()
        .parse()
        .unwrap();
    assert!(grid.is_solution_of(&HARDEST.parse().unwrap()));
    // naive spends far more than a thousand nodes on it.
    let stopped = call(naive::solve, HARDEST, 2, 1);
    assert_eq!(
        stopped,
        Answer {
            count: FAILED,
            solution: [0; 82],
            guesses: UNSET
        }
    );
    assert_eq!(stopped, expected("naive", HARDEST, 2, 1000));
}

#[test]
fn a_limit_of_zero_counts_as_one() {
    let got = call(fast::solve, TWO_SOLUTIONS, 0, 0);
    assert_eq!(got.count, 1);
    assert_eq!(got, call(fast::solve, TWO_SOLUTIONS, 1, 0));
    assert_eq!(call(fast::solve, TWO_SOLUTIONS, 2, 0).count, 2);
}

#[test]
fn text_that_is_not_a_puzzle_counts_zero_and_writes_nothing() {
    let untouched = Answer {
        count: 0,
        solution: [0; 82],
        guesses: UNSET,
    };
    let mut conflict = HARDEST.to_string();
    conflict.replace_range(1..2, "9"); // two 9s in row 1
    let cases = [
        ("empty", String::new()),
        ("80 cells", HARDEST[..80].to_string()),
        ("82 cells", format!("{HARDEST}.")),
        ("a letter", format!("x{}", &HARDEST[1..])),
        ("a line with a comment", format!("{HARDEST} # hardest")),
        ("givens that break a rule", conflict),
    ];
    for (what, text) in cases {
        for &(name, f) in FUNCTIONS {
            assert_eq!(call(f, &text, 2, 0), untouched, "{name}: {what}");
        }
    }
    // The same text as a puzzle is answered, so the cases above fail for their reason.
    assert_eq!(call(fast::solve, HARDEST, 2, 0).count, 1);
}

#[test]
fn null_pointers_are_never_followed() {
    // SAFETY: null is allowed for every pointer.
    let count = unsafe {
        fast::solve(
            std::ptr::null(),
            2,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(count, 0);
    let puzzle = CString::new(HARDEST).unwrap();
    // SAFETY: a NUL-terminated puzzle; null outputs.
    let count = unsafe {
        fast::solve(
            puzzle.as_ptr(),
            2,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(count, 1);
}

#[test]
fn a_panic_becomes_failed_and_does_not_unwind_into_the_caller() {
    assert_eq!(guard(|| panic!("a strategy's bug")), FAILED);
    assert_eq!(guard(|| 3), 3);
}

#[test]
fn a_name_that_is_no_strategy_fails_every_call() {
    std::thread_local! {
        static BOGUS: Slot = const { Slot::new("no-such-strategy") };
    }
    let puzzle = CString::new(HARDEST).unwrap();
    let mut guesses = UNSET;
    // SAFETY: a NUL-terminated puzzle, a local, a null solution.
    let count = unsafe {
        crate::call::solve(
            &BOGUS,
            puzzle.as_ptr(),
            2,
            0,
            std::ptr::null_mut(),
            &mut guesses,
        )
    };
    assert_eq!((count, guesses), (FAILED, UNSET));
}

#[test]
fn threads_solving_at_once_each_get_their_own_answers() {
    let puzzles = classic();
    let want: Vec<Answer> = puzzles
        .iter()
        .map(|p| expected("fast", p, 2, u64::MAX))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (puzzles, want) = (&puzzles, &want);
            scope.spawn(move || {
                for round in 0..50 {
                    // Each thread walks the corpus from its own offset, so that at any
                    // moment the threads solve different puzzles.
                    let i = (round + t * 3) % puzzles.len();
                    assert_eq!(call(fast::solve, &puzzles[i], 2, 0), want[i], "thread {t}");
                }
            });
        }
    });
}
