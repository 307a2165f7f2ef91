//! Benchmark your own Rust strategy with the library: implement `Strategy`, describe it
//! with a closure that captures its configuration, and run it with `Bench` through the same
//! runner, per-puzzle CSV and summary as the built-in ones, every answer checked. Run it with
//! `cargo run --release --example custom_strategy -- CORPUS OUT.csv OUT.json`; `cargo test
//! --example custom_strategy` runs the conformance battery on it.

use sudoku_bench::{Bench, Budget, Grid, Limits, Outcome, Strategy, StrategyInfo, Tally};

/// A backtracker: `most_constrained` fills the cell with the fewest candidates first.
struct Backtracker {
    most_constrained: bool,
}

impl Backtracker {
    /// The empty cell to fill next, with the digits that fit it (bit d set: d fits).
    fn next_cell(&self, grid: &Grid) -> Option<(usize, u16)> {
        let sees = |a: usize, b: usize| {
            a / 9 == b / 9 || a % 9 == b % 9 || (a / 27 == b / 27 && a % 9 / 3 == b % 9 / 3)
        };
        let fits = |cell| {
            !(0..81)
                .filter(|&o| sees(cell, o))
                .fold(0u16, |m, o| m | 1 << grid.get(o))
        };
        let mut empty = (0..81)
            .filter(|&c| grid.get(c) == 0)
            .map(|c| (c, fits(c) & 0x3fe));
        match self.most_constrained {
            true => empty.min_by_key(|(_, fit)| fit.count_ones()),
            false => empty.next(),
        }
    }

    fn search(&self, grid: &mut Grid, budget: &mut Budget, tally: &mut Tally, guesses: &mut u64) {
        let Some((cell, fit)) = self.next_cell(grid) else {
            tally.found(grid);
            return;
        };
        for digit in (1..=9u8).filter(|d| fit & 1 << d != 0) {
            if !budget.spend() {
                return;
            }
            *guesses += (fit.count_ones() > 1) as u64;
            grid.set(cell, digit);
            self.search(grid, budget, tally, guesses);
            if tally.done() || budget.aborted().is_some() {
                break;
            }
        }
        grid.set(cell, 0);
    }
}

impl Strategy for Backtracker {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let (mut budget, mut tally, mut guesses) = (Budget::new(limits), Tally::new(limits), 0);
        self.search(&mut puzzle.clone(), &mut budget, &mut tally, &mut guesses);
        tally.outcome(&budget, guesses)
    }
}

/// The strategy, configured: each worker thread makes its own value from the closure.
fn backtracker(most_constrained: bool) -> StrategyInfo {
    let name = ["mine-first", "mine-mrv"][most_constrained as usize];
    StrategyInfo::new(name, move || Box::new(Backtracker { most_constrained }))
        .about("a backtracker over candidate bitmasks")
        .nodes_unit("digits placed")
        .counts_guesses(true)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let [corpus, csv, json] = &std::env::args().skip(1).collect::<Vec<_>>()[..] else {
        return Err("usage: custom_strategy CORPUS OUT.csv OUT.json".into());
    };
    let report = Bench::new([backtracker(true), backtracker(false)])
        .limits(Limits::default().max_nodes(1_000_000))
        .csv(csv)
        .summary(json)
        .run(corpus)?;
    match report.mismatches() {
        0 => Ok(()),
        n => Err(format!("{n} wrong answers: see the error column of {csv}").into()),
    }
}

#[cfg(test)]
mod tests {
    use sudoku_bench::strategy::testkit;

    #[test] // In cell order it is too slow for the hard puzzles: `true` skips them.
    fn passes_the_conformance_battery() {
        testkit::conformance(|| super::backtracker(true).make(), false);
        testkit::conformance(|| super::backtracker(false).make(), true);
    }
}
