//! Criterion benches: every strategy on fixed puzzle sets, one group per corpus.
//!
//! Each iteration solves the whole set once, counting to 2 (the uniqueness check), so the
//! reported time divided by the set size is the time per puzzle. `naive` runs with a node
//! budget, as in `sudoku-bench run`, so that the hard sets stay measurable.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sudoku_bench::corpus::{Corpus, Kind, Record};
use sudoku_bench::strategy::{Limits, STRATEGIES};
use sudoku_bench::Grid;

/// Puzzles taken from each shared corpus: enough to smooth out single puzzles, few enough
/// for `naive` to get through in seconds.
const SAMPLE: usize = 50;
const NAIVE_MAX_NODES: u64 = 200_000;

fn load(path: &Path, limit: usize) -> Vec<Grid> {
    let Ok(mut corpus) = Corpus::open(path, None) else {
        return Vec::new();
    };
    let mut record = Record::default();
    let mut grids = Vec::new();
    while grids.len() < limit && corpus.next_into(&mut record).unwrap_or(false) {
        if let Kind::Puzzle { grid, .. } = record.kind {
            grids.push(grid);
        }
    }
    grids
}

fn sets() -> Vec<(&'static str, Vec<Grid>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/datasets");
    let mut sets = vec![(
        "classic",
        load(&root.join("datasets/classic.txt"), usize::MAX),
    )];
    for (name, file) in [
        ("17_clue", "puzzles2_17_clue"),
        ("top1465", "puzzles3_magictour_top1465"),
        ("forum_hardest", "puzzles5_forum_hardest_1905_11+"),
    ] {
        let grids = load(&shared.join(file), SAMPLE);
        if !grids.is_empty() {
            sets.push((name, grids));
        }
    }
    sets
}

fn strategies(c: &mut Criterion) {
    for (corpus, grids) in sets() {
        let mut group = c.benchmark_group(corpus);
        group.throughput(Throughput::Elements(grids.len() as u64));
        group.sample_size(10);
        for info in STRATEGIES {
            let limits = Limits {
                max_nodes: if info.name == "naive" {
                    NAIVE_MAX_NODES
                } else {
                    u64::MAX
                },
                ..Limits::default()
            };
            let mut strategy = (info.make)();
            group.bench_function(BenchmarkId::from_parameter(info.name), |b| {
                b.iter(|| {
                    for grid in &grids {
                        black_box(strategy.solve(black_box(grid), &limits));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, strategies);
criterion_main!(benches);
