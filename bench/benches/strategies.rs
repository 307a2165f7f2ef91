//! Criterion benches: every strategy on fixed puzzle sets, one group per set, one
//! `BenchmarkId` per strategy and mode.
//!
//! Sets: `easy` and `hard` (the shipped `datasets/classic.txt`, split by its own notes),
//! `multi` (classic puzzles with givens removed until they have several solutions), and
//! samples of the shared corpora when `../shared/datasets/` is there. Modes: `first` stops
//! at the first solution (`--max-solutions 1`), `count2` counts to two (the uniqueness
//! check, `run`'s default). Each iteration solves the whole set once, so the reported time
//! divided by the set size (criterion's throughput) is the time per puzzle.
//!
//! `cargo bench -p sudoku-bench-criterion -- --save-baseline before`, then the same with
//! `-- --baseline before` after a change, compares as criterion users expect: ids are
//! stable (`hard/bitmask/count2`).

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sudoku_bench_core::corpus::{Chunk, Corpus, Kind, Lines};
use sudoku_bench_core::strategy::{self, Limits, STRATEGIES};
use sudoku_bench_core::Grid;

/// Puzzles taken from each shared corpus: enough to smooth out single puzzles, few enough
/// for the slow strategies to get through in seconds.
const SAMPLE: usize = 50;
/// Node budget of the strategies that search cell by cell in reading order (naive and its
/// variants), as in `sudoku-bench run`, so that the hard sets stay measurable.
const SLOW_MAX_NODES: u64 = 200_000;
const SLOW: [&str; 3] = ["naive", "hashset", "stack"];
/// The first puzzles of classic.txt are the easy ones (Wikipedia's and Project Euler's).
const EASY_IN_CLASSIC: usize = 2;
/// Givens removed from each classic puzzle to make the multi-solution set.
const REMOVED_GIVENS: usize = 6;

fn load(path: &Path, limit: usize) -> Vec<Grid> {
    let Ok(mut corpus) = Corpus::open(path, None) else {
        return Vec::new();
    };
    let mut chunk = Chunk::new(Lines::Entries);
    let mut grids = Vec::new();
    while grids.len() < limit && corpus.read_chunk(&mut chunk, limit.min(4096)).unwrap_or(0) > 0 {
        for record in chunk.records() {
            if let Kind::Puzzle { grid, .. } = record.kind {
                grids.push(grid);
            }
        }
    }
    grids.truncate(limit);
    grids
}

/// Each classic puzzle with its first givens blanked, kept when an exact search (dlx, no
/// budget) finds two or more solutions; so the set is what its name says.
fn multi(classic: &[Grid]) -> Vec<Grid> {
    let mut dlx = strategy::by_name("dlx").map(|info| info.make());
    classic
        .iter()
        .filter_map(|grid| {
            let mut g = *grid;
            let givens: Vec<usize> = (0..81).filter(|&c| g.get(c) != 0).collect();
            for &cell in givens.iter().take(REMOVED_GIVENS) {
                g.set(cell, 0);
            }
            let outcome = dlx.as_mut()?.solve(&g, &Limits::default());
            (outcome.solutions >= 2).then_some(g)
        })
        .collect()
}

fn sets() -> Vec<(&'static str, Vec<Grid>)> {
    // This package sits one directory below the repository.
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let shared = root.join("../shared/datasets");
    let classic = load(&root.join("datasets/classic.txt"), usize::MAX);
    let split = EASY_IN_CLASSIC.min(classic.len());
    let mut sets = vec![
        ("easy", classic[..split].to_vec()),
        ("hard", classic[split..].to_vec()),
        ("multi", multi(&classic)),
    ];
    for (name, file) in [
        ("17_clue", "puzzles2_17_clue"),
        ("top1465", "puzzles3_magictour_top1465"),
        ("forum_hardest", "puzzles5_forum_hardest_1905_11+"),
    ] {
        sets.push((name, load(&shared.join(file), SAMPLE)));
    }
    sets.retain(|(_, grids)| !grids.is_empty());
    sets
}

fn strategies(c: &mut Criterion) {
    for (set, grids) in sets() {
        let mut group = c.benchmark_group(set);
        group.throughput(Throughput::Elements(grids.len() as u64));
        group.sample_size(10);
        for info in STRATEGIES {
            let mut strategy = info.make();
            for (mode, max_solutions) in [("first", 1), ("count2", 2)] {
                let limits = Limits {
                    max_solutions,
                    max_nodes: if SLOW.contains(&info.name.as_ref()) {
                        SLOW_MAX_NODES
                    } else {
                        u64::MAX
                    },
                    ..Limits::default()
                };
                group.bench_function(BenchmarkId::new(info.name.as_ref(), mode), |b| {
                    b.iter(|| {
                        for grid in &grids {
                            black_box(strategy.solve(black_box(grid), &limits));
                        }
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, strategies);
criterion_main!(benches);
