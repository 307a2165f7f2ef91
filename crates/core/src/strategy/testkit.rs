//! A conformance battery every strategy's unit tests run: known counts, the first
//! solution, budgets, and reuse of one strategy value across puzzles.
//!
//! Library users call it to check their own strategy the way the built-in ones are checked:
//! in a test, `sudoku_bench::strategy::testkit::conformance(|| Box::new(Mine::new()), false)`.
//! The battery expects what the [`Strategy`] contract asks: `nodes` counted and a node
//! budget honoured ([`super::Budget`] does both), and the first solution returned.
//!
//! The puzzles' counts were checked with an independent solver when this file was written.

use super::{Abort, Limits, Outcome, Strategy};
use crate::grid::Grid;

/// The Wikipedia example puzzle: unique, easy.
pub const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
/// `EASY`'s solution.
pub const EASY_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
/// `EASY` with a 4 written into r4c6: no two givens clash, yet no solution exists.
pub const UNSOLVABLE: &str =
    "53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79";
/// r1c1 has no candidate: row 1 holds 1..8 and column 1 holds 9 (at r9c1).
pub(crate) const DEAD_CELL: &str =
    ".12345678...............................................................9........";
/// Exactly two solutions.
pub const TWO_SOLUTIONS: &str =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";
/// magictour top1465 #1: unique, 18 clues.
pub(crate) const HARD: &str =
    "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
/// `HARD`'s solution.
pub const HARD_SOLUTION: &str =
    "468931527751624839392578461134756298289413675675289314846192753513867942927345186";
/// First line of forum_hardest_1905_11+: needs search from every solver.
pub const HARDEST: &str =
    "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6";

#[cfg(test)]
/// The text of a corpus in `../shared/datasets/`, or `None` after saying so on stderr: a
/// fresh clone has no `../shared/`, and its tests must still pass.
pub fn shared_corpus(name: &str) -> Option<String> {
    // This crate is crates/core of the repository; ../shared sits beside the repository.
    let path = format!(
        "{}/../../../shared/datasets/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            say_skipped(&format!("../shared/datasets/{name} not found"));
            None
        }
        Err(e) => panic!("{path}: {e}"),
    }
}

/// `s` (81 cells) as a grid; panics on a typo, as a test should.
pub fn grid(s: &str) -> Grid {
    s.parse().expect("test puzzle parses")
}

/// No budget, counting up to `max_solutions`.
pub fn limits(max_solutions: u32) -> Limits {
    Limits {
        max_solutions,
        ..Limits::default()
    }
}

/// Solve `puzzle`, asserting what every outcome must satisfy.
fn solve(s: &mut dyn Strategy, puzzle: &str, limits: Limits) -> Outcome {
    let p = grid(puzzle);
    let out = s.solve(&p, &limits);
    assert!(
        out.solutions <= limits.max_solutions.max(1),
        "{puzzle}: count above the limit"
    );
    assert_eq!(
        out.first.is_some(),
        out.solutions > 0,
        "{puzzle}: first solution iff count > 0"
    );
    if let Some(first) = out.first {
        assert!(
            first.is_solution_of(&p),
            "{puzzle}: returned {first} is not a solution"
        );
    }
    out
}

/// Runs the whole battery on a fresh value from `make`, reusing it throughout so that state
/// left over from one puzzle would spoil the next.
///
/// `skip_hard` leaves out `HARD` (for strategies that cannot finish it quickly, like `naive`).
pub fn conformance(make: impl Fn() -> Box<dyn Strategy>, skip_hard: bool) {
    let mut s = make();
    let s = s.as_mut();

    let out = solve(s, EASY, limits(2));
    assert_eq!((out.solutions, &out.aborted), (1, &None));
    assert_eq!(out.first, Some(grid(EASY_SOLUTION)));
    let again = solve(s, EASY, limits(2));
    assert_eq!(
        again, out,
        "the same puzzle twice gives the same outcome, nodes included"
    );

    let out = solve(s, EASY, limits(1));
    assert_eq!((out.solutions, out.first), (1, Some(grid(EASY_SOLUTION))));

    let solved = solve(s, EASY_SOLUTION, limits(2));
    assert_eq!(
        (solved.solutions, solved.nodes),
        (1, 0),
        "a complete grid needs no search"
    );

    for dead in [UNSOLVABLE, DEAD_CELL] {
        let out = solve(s, dead, limits(2));
        assert_eq!((out.solutions, out.aborted), (0, None), "{dead}");
    }

    let out = solve(s, TWO_SOLUTIONS, limits(2));
    assert_eq!((out.solutions, out.aborted), (2, None));
    let all = solve(s, TWO_SOLUTIONS, limits(10));
    assert_eq!(
        (all.solutions, all.aborted),
        (2, None),
        "exactly two, however high the limit"
    );
    assert!(
        all.nodes >= out.nodes,
        "counting further cannot take fewer nodes"
    );
    let first = solve(s, TWO_SOLUTIONS, limits(1));
    assert_eq!(first.solutions, 1);
    assert_eq!(
        first.first, out.first,
        "first solution does not depend on the limit"
    );

    let empty = solve(s, &".".repeat(81), limits(2));
    assert_eq!(empty.solutions, 2);

    // The budget: one node is not enough for a puzzle that needs search.
    let tight = Limits {
        max_nodes: 1,
        ..limits(2)
    };
    let out = solve(s, HARDEST, tight);
    assert_eq!(out.aborted, Some(Abort::NodeLimit));
    assert!(out.nodes <= 1);
    // ...and after an aborted search the same value still solves correctly.
    let out = solve(s, EASY, limits(2));
    assert_eq!((out.solutions, &out.aborted), (1, &None));

    if !skip_hard {
        let out = solve(s, HARD, limits(2));
        assert_eq!((out.solutions, &out.aborted), (1, &None));
        assert_eq!(out.first, Some(grid(HARD_SOLUTION)));
        let out = solve(s, HARDEST, limits(2));
        assert_eq!((out.solutions, &out.aborted), (1, &None));
    }
}

#[cfg(test)]
/// Say on the process's own stderr that a test skipped its work: not through `eprintln!`,
/// which the test harness captures (and hides) for a test that passes.
fn say_skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {why}");
}
