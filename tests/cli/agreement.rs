//! Every strategy must agree with every other on the solution count of every puzzle, and
//! every solution it reports must be valid.
//!
//! Runs over the public corpora in `../shared/datasets/` (skipped with a note when absent),
//! plus puzzles derived from them whose counts are known by construction:
//! - a 17-clue puzzle with one clue removed has 16 clues, and no 16-clue Sudoku has a unique
//!   solution (McGuire, Tugemann, Civario 2012), so it has 2 or more;
//! - a uniquely solvable puzzle with a wrong digit written into a blank cell (one no given
//!   rules out) has no solution, since any solution would also solve the original.
//!
//! Strategies that search row-major without propagation (`naive`, `hashset`, `stack`) get a
//! node budget and are checked only where they finish; they must also agree with each other
//! on `nodes` exactly, since they walk the same search tree.
//!
//! Each check runs twice: on a fixed sample of its corpus by default, so that `cargo test`
//! stays quick, and on the whole corpus as an ignored test that CI runs (`.ci/run`:
//! `cargo test --release --test cli agreement:: -- --ignored`).

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sudoku_bench::corpus::{Chunk, Corpus, Kind, Lines};
use sudoku_bench::strategy::{Limits, StrategyInfo, STRATEGIES};
use sudoku_bench::Grid;

/// Budget for the strategies without propagation.
const SLOW_MAX_NODES: u64 = 200_000;
const SLOW: [&str; 3] = ["naive", "hashset", "stack"];

fn shared(file: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/datasets")
        .join(file);
    if path.exists() {
        Some(path)
    } else {
        say_skipped(&format!("../shared/datasets/{file} not found"));
        None
    }
}

fn load(path: &Path) -> Vec<Grid> {
    let mut corpus = Corpus::open(path, None).unwrap();
    let mut chunk = Chunk::new(Lines::Entries);
    let mut grids = Vec::new();
    while corpus.read_chunk(&mut chunk, 4096).unwrap() > 0 {
        for record in chunk.records() {
            match record.kind {
                Kind::Puzzle { grid, .. } => grids.push(grid),
                ref other => panic!("{}:{}: {other:?}", path.display(), record.line),
            }
        }
    }
    grids
}

fn limits_for(info: &StrategyInfo, slow_max_nodes: u64) -> Limits {
    Limits {
        max_nodes: if SLOW.contains(&info.name.as_ref()) {
            slow_max_nodes
        } else {
            u64::MAX
        },
        ..Limits::default()
    }
}

/// What one strategy said about one puzzle: `None` when it ran out of budget.
type Verdict = Option<(u32, u64)>;

/// Solve every puzzle with every strategy in `which`; check validity and agreement, and
/// that each count satisfies `expect`. Returns, per strategy, how many puzzles it finished.
fn check(
    label: &str,
    slow_max_nodes: u64,
    puzzles: &[Grid],
    which: &[&'static StrategyInfo],
    expect: impl Fn(u32) -> bool + Sync,
) -> Vec<usize> {
    let verdicts: Vec<Vec<Verdict>> = puzzles
        .par_iter()
        .map_init(
            || which.iter().map(|s| s.make()).collect::<Vec<_>>(),
            |solvers, puzzle| {
                which
                    .iter()
                    .zip(solvers.iter_mut())
                    .map(|(info, solver)| {
                        let out = solver.solve(puzzle, &limits_for(info, slow_max_nodes));
                        if let Some(first) = out.first {
                            assert!(
                                first.is_solution_of(puzzle),
                                "{label}: {} returned a non-solution for {puzzle}",
                                info.name
                            );
                        }
                        out.aborted.is_none().then_some((out.solutions, out.nodes))
                    })
                    .collect()
            },
        )
        .collect();
    let mut finished = vec![0; which.len()];
    for (puzzle, row) in puzzles.iter().zip(&verdicts) {
        let counts: Vec<(&str, u32)> = which
            .iter()
            .zip(row)
            .filter_map(|(info, v)| v.map(|(count, _)| (info.name.as_ref(), count)))
            .collect();
        assert!(
            counts.windows(2).all(|w| w[0].1 == w[1].1),
            "{label}: strategies disagree on {puzzle}: {counts:?}"
        );
        if let Some(&(name, count)) = counts.first() {
            assert!(
                expect(count),
                "{label}: {name} counted {count} for {puzzle}"
            );
        }
        let slow_nodes: Vec<u64> = which
            .iter()
            .zip(row)
            .filter(|(info, _)| SLOW.contains(&info.name.as_ref()))
            .filter_map(|(_, v)| v.map(|(_, nodes)| nodes))
            .collect();
        assert!(
            slow_nodes.windows(2).all(|w| w[0] == w[1]),
            "{label}: naive, hashset and stack walk one tree but counted {slow_nodes:?} nodes for {puzzle}"
        );
        for (i, v) in row.iter().enumerate() {
            finished[i] += v.is_some() as usize;
        }
    }
    for (info, n) in which.iter().zip(&finished) {
        eprintln!("{label}: {} finished {n} of {}", info.name, puzzles.len());
        if !SLOW.contains(&info.name.as_ref()) {
            assert_eq!(
                *n,
                puzzles.len(),
                "{label}: {} must finish every puzzle",
                info.name
            );
        }
    }
    finished
}

fn all() -> Vec<&'static StrategyInfo> {
    STRATEGIES.iter().collect()
}

fn fast_ones() -> Vec<&'static StrategyInfo> {
    STRATEGIES
        .iter()
        .filter(|s| !SLOW.contains(&s.name.as_ref()))
        .collect()
}

fn unique(n: u32) -> bool {
    n == 1
}

/// How much of a corpus a check covers: a fixed sample by default, everything in CI.
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    Sample,
    Full,
}

impl Reach {
    /// Every `step`-th puzzle; with `Sample`, every `step * thin`-th.
    fn take(self, puzzles: Vec<Grid>, step: usize, thin: usize) -> Vec<Grid> {
        let step = match self {
            Reach::Sample => step * thin,
            Reach::Full => step,
        };
        puzzles.into_iter().step_by(step).collect()
    }
}

fn top1465_every_strategy(reach: Reach) {
    let Some(path) = shared("puzzles3_magictour_top1465") else {
        return;
    };
    let puzzles = load(&path);
    assert_eq!(puzzles.len(), 1465);
    let puzzles = reach.take(puzzles, 1, 37);
    check("top1465", SLOW_MAX_NODES, &puzzles, &all(), unique);
}

fn seventeen_clue_sample_every_strategy(reach: Reach) {
    let Some(path) = shared("puzzles2_17_clue") else {
        return;
    };
    // Row-major search without propagation needs millions of nodes on most 17-clue
    // puzzles: a small sample with a larger budget lets it finish some.
    let puzzles = reach.take(load(&path), 997, 10);
    let budget = match reach {
        Reach::Full => 5_000_000,
        Reach::Sample => 1_000_000,
    };
    let finished = check("17-clue sample", budget, &puzzles, &all(), unique);
    if reach == Reach::Full {
        assert!(
            finished.iter().all(|&n| n > 0),
            "every strategy finishes some: {finished:?}"
        );
    }
}

fn seventeen_clue_fast_strategies(reach: Reach) {
    let Some(path) = shared("puzzles2_17_clue") else {
        return;
    };
    let puzzles = load(&path);
    assert_eq!(puzzles.len(), 49_158);
    let which: Vec<_> = fast_ones()
        .into_iter()
        .filter(|s| s.name != "bitmask")
        .collect();
    let puzzles = reach.take(puzzles, 1, 10);
    check("17-clue", SLOW_MAX_NODES, &puzzles, &which, unique);
}

fn forum_hardest_fast_strategies(reach: Reach) {
    let Some(path) = shared("puzzles5_forum_hardest_1905_11+") else {
        return;
    };
    let puzzles = load(&path);
    assert_eq!(puzzles.len(), 48_766);
    let which: Vec<_> = fast_ones()
        .into_iter()
        .filter(|s| s.name != "bitmask")
        .collect();
    let puzzles = reach.take(puzzles, 1, 50);
    check("forum hardest", SLOW_MAX_NODES, &puzzles, &which, unique);
}

fn sixteen_clue_derivatives_have_several_solutions(reach: Reach) {
    let Some(path) = shared("puzzles2_17_clue") else {
        return;
    };
    let puzzles: Vec<Grid> = reach
        .take(load(&path), 211, 8)
        .into_iter()
        .enumerate()
        .map(|(i, mut g)| {
            let givens: Vec<usize> = (0..81).filter(|&c| g.get(c) != 0).collect();
            g.set(givens[i % givens.len()], 0);
            g
        })
        .collect();
    check("16-clue", SLOW_MAX_NODES, &puzzles, &all(), |n| n == 2);
}

fn a_wrong_digit_leaves_no_solution(reach: Reach) {
    let Some(path) = shared("puzzles3_magictour_top1465") else {
        return;
    };
    let originals: Vec<Grid> = reach.take(load(&path), 7, 8);
    let mut solver = STRATEGIES.iter().find(|s| s.name == "dlx").unwrap().make();
    let puzzles: Vec<Grid> = originals
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let solution = solver.solve(p, &Limits::default()).first?;
            // The (i mod blanks)-th blank cell that accepts a wrong digit without a clash.
            let blanks: Vec<usize> = (0..81).filter(|&c| p.get(c) == 0).collect();
            (0..blanks.len()).find_map(|k| {
                let cell = blanks[(i + k) % blanks.len()];
                (1..=9).filter(|&d| d != solution.get(cell)).find_map(|d| {
                    let mut q = *p;
                    q.set(cell, d);
                    q.conflict().is_none().then_some(q)
                })
            })
        })
        .collect();
    // Nearly every puzzle has such a cell.
    assert!(
        puzzles.len() * 10 > originals.len() * 7,
        "{}",
        puzzles.len()
    );
    check("wrong digit", SLOW_MAX_NODES, &puzzles, &all(), |n| n == 0);
}

/// A sampled and a full (ignored) test for each check above.
macro_rules! reaches {
    ($($check:ident: $sample:ident, $full:ident;)*) => {$(
        #[test]
        fn $sample() {
            $check(Reach::Sample);
        }

        #[test]
        #[ignore = "whole corpora: minutes; CI runs it (`-- --ignored`)"]
        fn $full() {
            $check(Reach::Full);
        }
    )*};
}

reaches! {
    top1465_every_strategy: top1465_sample, top1465_full;
    seventeen_clue_sample_every_strategy: seventeen_clue_every_strategy_sample,
        seventeen_clue_every_strategy_full;
    seventeen_clue_fast_strategies: seventeen_clue_fast_sample, seventeen_clue_fast_full;
    forum_hardest_fast_strategies: forum_hardest_sample, forum_hardest_full;
    sixteen_clue_derivatives_have_several_solutions: sixteen_clue_sample, sixteen_clue_full;
    a_wrong_digit_leaves_no_solution: wrong_digit_sample, wrong_digit_full;
}

/// Say on the process's own stderr that a test skipped its work: not through `eprintln!`,
/// which the test harness captures (and hides) for a test that passes.
fn say_skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {why}");
}
